"""What every editor must show for tests/editors/dsl_sample.py, whichever editor it is.

Each editor reports raw facts in its own shape; the tests normalise them to these records so the
expectations are stated once.
"""

from __future__ import annotations

from dataclasses import dataclass

from dsl_sample import SCOPE_MARKERS

from markers import Marked

MAIN_SIGNATURE = "main_incore_0 · out: Out (+2 In)"
TAIL_SIGNATURE = "tail · out: Out (+2 In)"
LENS_PREFIX = "⇢ "


@dataclass(frozen=True)
class SeenDiagnostic:
    line: int
    col: int
    code: str | None


@dataclass(frozen=True)
class SeenLens:
    line: int
    title: str


def check_diagnostics(seen: list[SeenDiagnostic], marked: Marked) -> None:
    line, col = marked.point("pto301")
    assert SeenDiagnostic(line, col, "PTO301") in seen, f"no PTO301 at {line}:{col}; editor has {seen}"


def check_code_lenses(seen: list[SeenLens], marked: Marked) -> None:
    header_lines = {marked.point(name)[0] for name in SCOPE_MARKERS}
    assert seen, "the editor shows no code lens"
    stray = [lens for lens in seen if lens.line not in header_lines]
    assert not stray, f"code lenses off the `with pl.at` headers: {stray}"
    for name, signature in (("scope_main", MAIN_SIGNATURE), ("scope_tail", TAIL_SIGNATURE)):
        line = marked.point(name)[0]
        titles = [lens.title for lens in seen if lens.line == line]
        assert any(t.startswith(LENS_PREFIX) and signature in t for t in titles), (
            f"line {line}: expected a lens '{LENS_PREFIX}{signature}', got {titles}"
        )


def check_hover_on_scope_header(hover: str | None) -> None:
    assert hover, "no hover on the scope header"
    assert "def main_incore_0" in hover, f"hover does not show the outlined function:\n{hover}"


def check_outlined_program(text: str | None) -> None:
    assert text, "no outlined program"
    assert "def main_incore_0" in text, f"the outlined program lacks main_incore_0:\n{text}"


def check_completion(labels: list[str]) -> None:
    """What the editor's own completion offers after `pl.Level.`: the members, in order."""
    assert labels[:3] == ["AIV", "AIC", "CORE_GROUP"], f"completion after pl.Level. gave {labels}"


def check_rename(line: str | None, marked: Marked) -> None:
    """The name_hint line after renaming `tail` to `head` in the editor."""
    assert line is not None and 'name_hint="head"' in line, f"the rename left {line!r}"
