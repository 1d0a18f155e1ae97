"""What identity a splice keeps across edits (ARCHITECTURE.md, inline row): a helper body
cloned at a call is taken again when the helper's build, the call's arguments (by identity),
the first fresh number, its age and shown names are as they were, so after an edit in the
entry that reaches no helper call (the front end keeps the unchanged statements and their
`Var`s) nothing is cloned and the spliced statements of every unchanged helper at every
unchanged call are the objects of the splice before. The fixture is real-shaped: a helper
called in a `pl.unroll` loop, helpers calling helpers, a helper called twice whose local
names collide with the entry's."""

from __future__ import annotations

import pytest
from test_analysis_incremental import full

from pypto_core import ir
from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.passes.outline_ir import walk_stmts

SOURCE = """\
import pypto.language as pl

ROWS = 64


@pl.jit.inline
def scale(x: pl.Tensor[[256, 128], pl.FP32], off: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 128], pl.FP32]:
    t = pl.load(x, [off, 0], [ROWS, 128])
    t = pl.mul(t, t)
    return t


@pl.jit.inline
def stage(
    x: pl.Tensor[[256, 128], pl.FP32], out: pl.Tensor[[256, 128], pl.FP32], k: pl.Scalar[pl.INDEX]
) -> pl.Tensor[[256, 128], pl.FP32]:
    off = k * ROWS
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="stage"):
        t = scale(x, off)
        out = pl.store(t, [off, 0], out)
    return out


@pl.jit
def entry(
    x: pl.Tensor[[256, 128], pl.FP32],
    out: pl.Out[pl.Tensor[[256, 128], pl.FP32]],
    base: pl.Scalar[pl.INDEX],
) -> pl.Tensor[[256, 128], pl.FP32]:
    t = pl.load(x, [0, 0], [ROWS, 128])
    off = base + 1
    for j in pl.unroll(2):
        out = stage(x, out, j)
    out = stage(x, out, off)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="own"):
        out = pl.store(t, [0, 0], out)
    return out
"""

EDITS = {
    "the entry's own scope": lambda t: t.replace('name_hint="own"', 'name_hint="ownq"', 1),
    "the inner helper": lambda t: t.replace("    t = pl.mul(t, t)\n", "    t = pl.add(t, t)\n", 1),
    "the outer helper's scope": lambda t: t.replace('name_hint="stage"', 'name_hint="stageq"', 1),
    "a name that collides in the entry": lambda t: t.replace(
        "    off = base + 1\n", "    off = base + 2\n", 1
    ),
}


def _spliced(analyzer: DocumentAnalyzer, text: str) -> list[ir.Stmt]:
    entry = analyzer.update(text).programs[0].source.get("entry")
    assert entry is not None
    return walk_stmts(entry.body)


def test_the_fixture_splices_what_it_says(clones) -> None:
    result = analyse_source(SOURCE)
    assert [d.code for d in result.diagnostics if d.severity.name == "ERROR"] == []
    assert sorted(clones) == ["scale", "scale", "stage", "stage"]  # the unroll loop's body once
    source = repr(result.programs[0].source)
    assert "off_inline" in source and "t_inline" in source  # collisions renamed


def test_an_edit_in_the_entry_clones_nothing_and_keeps_every_spliced_statement(clones) -> None:
    analyzer = DocumentAnalyzer()
    before = _spliced(analyzer, SOURCE)
    edited = EDITS["the entry's own scope"](SOURCE)
    clones.clear()
    after = _spliced(analyzer, edited)
    assert clones == []
    kept = {id(s) for s in before}
    spliced_in = [s for s in after if isinstance(s, ir.AssignStmt) and "_inline" in s.target.name]
    assert spliced_in and all(id(s) in kept for s in spliced_in)
    assert full(analyzer.update(edited)) == full(analyse_source(edited))


def test_an_edit_in_the_inner_helper_clones_it_only(clones) -> None:
    analyzer = DocumentAnalyzer()
    analyzer.update(SOURCE)
    edited = EDITS["the inner helper"](SOURCE)
    clones.clear()
    result = analyzer.update(edited)
    assert clones == ["scale", "scale"]  # `stage`'s clones are kept; the calls in them clone the new `scale`
    assert full(result) == full(analyse_source(edited))


@pytest.mark.parametrize("name", sorted(EDITS))
def test_each_edit_and_its_undo_equal_a_fresh_analysis(name: str) -> None:
    analyzer = DocumentAnalyzer()
    assert full(analyzer.update(SOURCE)) == full(analyse_source(SOURCE))
    edited = EDITS[name](SOURCE)
    assert edited != SOURCE
    assert full(analyzer.update(edited)) == full(analyse_source(edited)), name
    assert full(analyzer.update(SOURCE)) == full(analyse_source(SOURCE)), name
