"""The DSL files the hardening tests edit, and the random edits they apply to them."""

from __future__ import annotations

import os
import re
import time
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
# A soak's progress, one line per burst appended to this file (a long run stopped early still
# says how far it got; pytest prints its counts only at the end).
PROGRESS_LOG = os.environ.get("PYPTO_HARDENING_LOG")


def corpus() -> dict[str, str]:
    """Name -> text: the example and sample files (read as the server would, no newline
    translation) and the language-server tests' DSL examples (markers removed); or the DSL
    files under `PYPTO_HARDENING_CORPUS`."""
    if REAL_CORPUS:
        root = Path(REAL_CORPUS)
        real = {str(p.relative_to(root)): p.read_bytes().decode("utf-8") for p in sorted(root.rglob("*.py"))}
        return {name: text for name, text in real.items() if "import pypto" in text}
    return _examples()


def real_path(name: str) -> Path | None:
    """Where corpus file `name` lies when the corpus is real files (its imports resolve from
    there, as the server resolves them for the file opened in place), else None."""
    return Path(REAL_CORPUS) / name if REAL_CORPUS else None


def log_burst(test: str, name: str, edits: int) -> None:
    if PROGRESS_LOG:
        with open(PROGRESS_LOG, "a", encoding="utf-8") as log:
            log.write(f"{time.strftime('%H:%M:%S', time.gmtime())} {test} {name} {edits}\n")


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


# The lines an edit is aimed at half of the time: scope headers, DSL loops, decorators and
# function headers, and the line after each (a scope's first statement). A real file is mostly
# configuration, comments and plain statements; these are where the outliner's work changes.
_SITE = re.compile(r"^[ \t]*(with pl\.|for .* in pl\.|@pl\.|def |class )", re.MULTILINE)


def scope_sites(text: str) -> tuple[float, ...]:
    """Fractions of `text` (the `Edit.start` unit) at the start, after the indent and at the
    end of each site line and of the line after it."""
    offsets: set[int] = set()
    for match in _SITE.finditer(text):
        line_start = match.start()
        for _ in range(2):
            line_end = text.find("\n", line_start)
            line_end = len(text) if line_end < 0 else line_end
            line = text[line_start:line_end]
            offsets.update((line_start, line_start + len(line) - len(line.lstrip()), line_end))
            line_start = min(len(text), line_end + 1)
    return tuple(sorted(o / len(text) for o in offsets)) if text else ()


_insert = st.one_of(
    st.sampled_from(FRAGMENTS),
    st.lists(st.sampled_from(FRAGMENTS), min_size=2, max_size=4).map("".join),
    st.text(max_size=6),
    st.just(""),
)
_length = st.one_of(st.just(0), st.integers(min_value=1, max_value=3), st.integers(0, 200))
edits = st.builds(Edit, start=st.floats(min_value=0, max_value=1), length=_length, insert=_insert)


def edits_in(text: str) -> st.SearchStrategy[Edit]:
    """`edits`, starting at one of `text`'s scope sites half of the time (where it has any;
    later edits of a burst land near the site, the text having moved by the earlier ones)."""
    sites = scope_sites(text)
    if not sites:
        return edits
    return st.one_of(edits, st.builds(Edit, start=st.sampled_from(sites), length=_length, insert=_insert))


def bursts(texts: dict[str, str], max_size: int) -> st.SearchStrategy[tuple[str, list[Edit]]]:
    """(name, edits): a corpus text and 1 to `max_size` edits applied to it one after another."""
    return st.sampled_from(sorted(texts)).flatmap(
        lambda name: st.tuples(st.just(name), st.lists(edits_in(texts[name]), min_size=1, max_size=max_size))
    )
