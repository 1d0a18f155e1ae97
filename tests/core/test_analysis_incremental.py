"""Incremental analysis must equal a fresh analysis of the same text, and must reuse the
programs an edit did not touch."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.results import FileAnalysis

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from gen_dsl import generate


def summary(a: FileAnalysis) -> tuple[object, ...]:
    return (a.is_dsl, a.diagnostics, a.outlined, a.promoted, [p.name for p in a.programs])


def test_an_edit_inside_one_program_rebuilds_only_that_program() -> None:
    text = generate(500)
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    programs = text.count("@pl.program")
    assert analyzer.rebuilt == programs
    edited = text.replace("class Prog3:", "class Prog3:\n    # a comment line", 1)
    result = analyzer.update(edited)
    assert analyzer.rebuilt == 1
    assert summary(result) == summary(analyse_source(edited))


def test_programs_below_an_edit_are_reused_with_their_positions_moved() -> None:
    text = generate(300)
    analyzer = DocumentAnalyzer()
    before = analyzer.update(text)
    edited = "# one more line at the top\n" + text
    after = analyzer.update(edited)
    assert analyzer.rebuilt == 0
    assert [o.header_span.start_line for o in after.outlined] == [
        o.header_span.start_line + 1 for o in before.outlined
    ]
    fresh = analyse_source(edited)
    assert summary(after) == summary(fresh)
    moved_fn = after.programs[1].source.functions[0]
    fresh_fn = fresh.programs[1].source.functions[0]
    assert moved_fn.name_span == fresh_fn.name_span


def test_a_module_constant_edit_reanalyses_every_program_that_may_use_it() -> None:
    text = generate(200)
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    edited = text.replace("ROWS = 64", "ROWS = 32", 1)
    result = analyzer.update(edited)
    assert analyzer.rebuilt == edited.count("@pl.program")
    assert summary(result) == summary(analyse_source(edited))


@pytest.mark.parametrize(
    "edit",
    [
        lambda t: t.replace("pl.exp(t)", "pl.exp(t", 1),  # syntax error in one program
        lambda t: t.replace("def main(", "def main (", 1),
        lambda t: t[: len(t) // 2],  # cut in the middle
        lambda t: t.replace("import pypto.language as pl", "import os", 1),  # no longer DSL
    ],
)
def test_incremental_equals_fresh_across_edit_sequences(edit) -> None:
    text = generate(300)
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    edited = edit(text)
    assert summary(analyzer.update(edited)) == summary(analyse_source(edited))
    assert summary(analyzer.update(text)) == summary(analyse_source(text))


def test_the_analyzer_keeps_the_lines_of_the_text_it_was_given_bom_included() -> None:
    analyzer = DocumentAnalyzer()
    analyzer.update("\ufeffimport pypto.language as pl\r\nX = 1\n")
    assert analyzer.lines == ["\ufeffimport pypto.language as pl", "X = 1", ""]
