"""The moved copies of statements are kept by the passes at their first meeting
(`recurring.py`): after a line break, the next keystroke converts and propagates what a
keystroke converts and propagates, not every statement the line break moved once more."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from test_analysis_incremental import full
from test_stmt_memo import ENTRY, _replace

from pypto_core import ir, recurring
from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.passes import simplify, ssa

# a line break above the first scope: every statement below it is taken moved
BREAK = _replace(
    '    with pl.at(level=pl.Level.CORE_GROUP, name_hint="first"):',
    '\n    with pl.at(level=pl.Level.CORE_GROUP, name_hint="first"):',
)


def _keystroke(text: str) -> str:
    """The top-level `return` below the line break edited (`out` <-> `acc`): one statement
    built again, nothing after it to read what it changed."""
    if "    return out\n" in text:
        return text.replace("    return out\n", "    return acc\n")
    return text.replace("    return acc\n", "    return out\n")


def _typed(text: str, times: int) -> list[str]:
    """`times` keystrokes, each on the text the last left."""
    texts = [_keystroke(text)]
    while len(texts) < times:
        texts.append(_keystroke(texts[-1]))
    return texts


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Per update: the statements ConvertToSSA converted and Simplify propagated (not taken),
    at any depth."""
    done = [0]
    convert, statement = ssa._SSAConverter.convert, simplify._statement

    def converted(self: ssa._SSAConverter, s: ir.Stmt) -> ir.Stmt:
        done[0] += 1
        return convert(self, s)

    def propagated(*args: Any) -> Any:
        done[0] += 1
        return statement(*args)

    monkeypatch.setattr(ssa._SSAConverter, "convert", converted)
    monkeypatch.setattr(simplify, "_statement", propagated)
    yield done


def _work_per_update(done: list[int], texts: list[str]) -> list[int]:
    analyzer = DocumentAnalyzer()
    analyzer.update(ENTRY)
    counts = []
    for text in texts:
        done[0] = 0
        result = analyzer.update(text)
        counts.append(done[0])
        assert full(result) == full(analyse_source(text))
    return counts


# keystrokes before the line break: a statement is kept from its second meeting on, so the
# third keystroke does what every one after it does
WARM = 3


def test_the_keystroke_after_a_line_break_costs_what_a_keystroke_costs(work: list[int]) -> None:
    warm = _typed(ENTRY, WARM)
    broken = BREAK(warm[-1])
    counts = _work_per_update(work, [*warm, broken, *_typed(broken, 2)])
    steady, line_break, after, then = counts[WARM - 1 :]
    assert after == then == steady > 0
    assert line_break > after


def test_without_the_marks_the_keystroke_after_a_line_break_resumes_past_the_moved_statements(
    work: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same edits, nothing marked: at the top level the keystroke after the line break
    costs what a keystroke costs too, ConvertToSSA and Simplify resuming from the line break's
    run, whose moved statements it left (`ssa_resume`, `simplify._Run`); the marks save the
    second meeting of what a keystroke converts again inside the statement it edits."""
    monkeypatch.setattr(ssa, "marked", lambda stmt: False)
    monkeypatch.setattr(ssa, "kept_at_first", lambda stmt: False)
    monkeypatch.setattr(simplify, "kept_at_first", lambda stmt: False)
    warm = _typed(ENTRY, WARM)
    broken = BREAK(warm[-1])
    counts = _work_per_update(work, [*warm, broken, *_typed(broken, 3)])
    steady, line_break, after, then, last = counts[WARM - 1 :]
    assert after == then == last == steady < line_break


def test_the_moved_statements_are_marked_and_those_above_the_line_not() -> None:
    analyzer = DocumentAnalyzer()
    analyzer.update(ENTRY)
    (program,) = analyzer.update(BREAK(ENTRY)).programs
    (entry,) = [f for f in program.source.functions if f.name == "entry"]
    assert not recurring.marked(entry.body[0])  # `off = ...`, above the line
    assert all(recurring.marked(s) for s in entry.body[1:])


def test_a_one_shot_analysis_keeps_nothing_for_a_next_run() -> None:
    """`analyse_source` (`recurring.met_once`): ConvertToSSA keeps no version pool, Simplify no
    run nor statement table; an editor's analysis of the same text keeps them."""
    import gc

    from pypto_core.passes import ssa_resume

    def kept() -> tuple[int, int, int, int]:
        return len(ssa._POOLS), len(ssa_resume._RESUMES), len(simplify._RUNS), len(simplify._KEPT)

    gc.collect()
    before = kept()
    once = analyse_source(ENTRY)
    assert kept() == before
    editor = DocumentAnalyzer().update(ENTRY)
    assert all(now > was for now, was in zip(kept(), before, strict=True))
    assert full(once) == full(editor)
