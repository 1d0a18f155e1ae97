"""The DSL files the hardening tests edit, and the random edits they apply to them."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import dsl_examples
from hypothesis import strategies as st
from lsp_session import with_header

ROOT = Path(__file__).resolve().parents[2]
CORPUS_PATHS: tuple[Path, ...] = (
    ROOT / "examples" / "quickstart.py",
    *sorted((ROOT / "tests" / "core" / "printer_samples").glob("*.py")),
)


# Real files for a soak (issue 15: the long profile on real pypto-lib files): the DSL files
# under this folder replace the corpus, e.g. `PYPTO_HARDENING_CORPUS=/work/ext/pypto-lib/models
# HYPOTHESIS_PROFILE=long`. Read where they are, never copied into the repository.
REAL_CORPUS = os.environ.get("PYPTO_HARDENING_CORPUS")


def corpus() -> dict[str, str]:
    """Name -> text: the example and sample files (read as the server would, no newline
    translation) and the language-server tests' DSL examples (markers removed); or the DSL
    files under `PYPTO_HARDENING_CORPUS`."""
    if REAL_CORPUS:
        root = Path(REAL_CORPUS)
        real = {str(p.relative_to(root)): p.read_bytes().decode("utf-8") for p in sorted(root.rglob("*.py"))}
        return {name: text for name, text in real.items() if "import pypto" in text}
    return _examples()


def text_of(texts: dict[str, str], name: str) -> str:
    """`name`'s text in `texts`, else the example's: a pinned `@example` names an example,
    also when `PYPTO_HARDENING_CORPUS` made the corpus real files."""
    return texts[name] if name in texts else _examples()[name]


def _examples() -> dict[str, str]:
    texts = {p.name: p.read_bytes().decode("utf-8") for p in CORPUS_PATHS}
    for name, value in vars(dsl_examples).items():
        if name.isupper() and isinstance(value, str):
            texts[name] = with_header(value)
    return texts


# Fragments a user (or a paste) puts into a file: DSL pieces, half-typed constructs, and the
# characters that break naive offset arithmetic (astral emoji, CJK, NUL, tabs, lone CR, CRLF).
FRAGMENTS: tuple[str, ...] = (
    "with pl.at(level=pl.Level.CORE_GROUP):\n",
    "    with pl.incore():\n        y = pl.add(x, x)\n",
    "for i in pl.range(4):\n",
    "for i in pl.parallel(0, 8, 1):\n",
    "@pl.function\n",
    "@pl.program\nclass P:\n",
    "@pl.jit\ndef f(a: pl.Tensor[[64], pl.FP32]):\n",
    "def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n",
    "return x\n",
    "pl.Tensor[[",
    "pl.",
    "(((",
    ")]}",
    ":",
    "    ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "\x00",
    "\x0c",
    "\u2028",
    "\x85",
    "\ufeff",
    "😀",
    "漢字",
    "𝔘",
    "é",
    '"""',
    "'",
    "#",
    "\\",
    "yield x\n",
    "lambda: 0",
    "x = pl.load(x, [0], [64])\n",
    "deps=[t[0]]",
)


@dataclass(frozen=True)
class Edit:
    """Replace text[start:end] (code-point offsets, clamped to the text) by `insert`."""

    start: float  # fraction of the text length
    length: int
    insert: str

    def apply(self, text: str) -> str:
        start = int(self.start * len(text))
        end = min(len(text), start + self.length)
        return text[:start] + self.insert + text[end:]


_insert = st.one_of(
    st.sampled_from(FRAGMENTS),
    st.lists(st.sampled_from(FRAGMENTS), min_size=2, max_size=4).map("".join),
    st.text(max_size=6),
    st.just(""),
)
edits = st.builds(
    Edit,
    start=st.floats(min_value=0, max_value=1),
    length=st.one_of(st.just(0), st.integers(min_value=1, max_value=3), st.integers(0, 200)),
    insert=_insert,
)
