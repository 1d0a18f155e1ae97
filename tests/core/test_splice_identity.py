"""What identity a splice keeps across edits (ARCHITECTURE.md, inline row): a helper body
cloned at a call is taken again when the helper's build, the call's arguments (by identity),
the first fresh number, its age and shown names are as they were, so after an edit in the
entry that reaches no helper call (the front end keeps the unchanged statements and their
`Var`s) nothing is cloned and the spliced statements of every unchanged helper at every
unchanged call are the objects of the splice before. The fixture is real-shaped: a helper
called in a `pl.unroll` loop, helpers calling helpers, a helper called twice whose local
names collide with the entry's."""

from __future__ import annotations

from typing import Any

import pytest
from test_analysis_incremental import full

from pypto_core import ir
from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.passes import inline_functions
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


# -- an edit inside a helper: its clones are taken statement by statement ---------------------


def _clones_of(stmts: list[ir.Stmt], source: str, line_text: str) -> list[ir.Stmt]:
    """The spliced statements whose span starts on the (first) line holding `line_text`."""
    line = source.split("\n").index(next(x for x in source.split("\n") if line_text in x))
    return [s for s in stmts if s.span.start_line == line]


def _variables_numbered(stmts: list[ir.Stmt]) -> list[object]:
    """The statements as data with each variable replaced by the order in which it is first
    met: equal for two bodies exactly when they are alike and share variables alike."""
    numbers: dict[int, int] = {}
    out: list[object] = []
    pending: list[object] = [stmts]
    while pending:
        node = pending.pop()
        if isinstance(node, ir.Var):
            out.append(("var", numbers.setdefault(id(node), len(numbers)), node.name, type(node).__name__))
            if isinstance(node, ir.IterArg):
                pending.append(node.init)
        elif isinstance(node, list | tuple):
            out.append(len(node))
            pending += reversed(node)
        elif isinstance(node, dict):
            out.append(sorted(node))
            pending += [node[k] for k in reversed(sorted(node))]
        elif hasattr(node, "__dataclass_fields__") and not isinstance(node, ir.Span | type):
            out.append(type(node).__name__)
            pending += [getattr(node, f) for f in reversed(node.__dataclass_fields__)]
        else:
            out.append(node)
    return out


def test_an_edit_in_a_helper_keeps_the_clones_of_its_statements_it_left_alone() -> None:
    analyzer = DocumentAnalyzer()
    before = _spliced(analyzer, SOURCE)
    edited = EDITS["the inner helper"](SOURCE)
    after = _spliced(analyzer, edited)
    loads_before, loads_after = (_clones_of(s, SOURCE, "t = pl.load(x, [off, 0]") for s in (before, after))
    # one clone per call: `stage`'s in the unroll loop (its body is unrolled later) and the other
    assert len(loads_after) == 2 and [id(s) for s in loads_after] == [id(s) for s in loads_before]
    # the edited statement is cloned anew at each call, over the variable the kept clone binds
    adds = _clones_of(after, edited, "t = pl.add(t, t)")
    assert len(adds) == 2 and not {id(s) for s in adds} & {id(s) for s in before}
    for load, add in zip(loads_after, adds, strict=True):
        assert isinstance(load, ir.AssignStmt) and isinstance(add, ir.AssignStmt)
        # `t = pl.add(t, t)` rebinds `t` at its depth: `t_v1` (`jit_renames`)
        assert add.target.base_name == "t_v1" and load.target.base_name == "t"
        assert isinstance(add.value, ir.Call) and add.value.args[0] is load.target
    assert full(analyzer.update(edited)) == full(analyse_source(edited))
    assert _variables_numbered(after) == _variables_numbered(_spliced(DocumentAnalyzer(), edited))


@pytest.mark.parametrize("argument", ["off", "base + 2"])
def test_an_edit_in_a_helpers_scope_keeps_the_clones_of_the_statements_in_it(argument: str) -> None:
    """Also where the second call passes `base + 2` for `k` (an expression, not a variable):
    the statements reading it are kept as well, and the helper calls in them pass the same
    argument objects, so their clones are taken too."""
    source = SOURCE.replace("    out = stage(x, out, off)\n", f"    out = stage(x, out, {argument})\n", 1)
    analyzer = DocumentAnalyzer()
    before = _spliced(analyzer, source)
    edited = EDITS["the outer helper's scope"](source)
    after = _spliced(analyzer, edited)
    kept = {id(s) for s in before}
    for text in (
        "off = k * ROWS",
        "t = pl.load(x, [off, 0]",
        "out = pl.store(t, [off, 0], out)",
        "t = pl.mul(t, t)",
    ):
        clones = _clones_of(after, edited, text)
        assert len(clones) == 2 and all(id(s) in kept for s in clones), text
    scopes = [s for s in after if isinstance(s, ir.ScopeStmt) and s.name_hint == "stageq"]
    assert len(scopes) == 2 and not {id(s) for s in scopes} & kept
    assert full(analyzer.update(edited)) == full(analyse_source(edited))
    assert _variables_numbered(after) == _variables_numbered(_spliced(DocumentAnalyzer(), edited))


def test_a_statement_whose_variables_are_renamed_is_cloned_again() -> None:
    """A variable more bound first in a helper (on a line of its own, so that no line moves)
    shifts the fresh numbers of the variables after it: the statements the build kept that
    read one of those are cloned anew, alike a fresh splice's (names and shared variables)."""
    analyzer = DocumentAnalyzer()
    before = _spliced(analyzer, SOURCE)
    edited = SOURCE.replace("    off = k * ROWS\n", "    e = k; off = k * ROWS\n", 1)
    after = _spliced(analyzer, edited)
    stores = _clones_of(after, edited, "out = pl.store(t, [off, 0], out)")
    assert len(stores) == 2 and not {id(s) for s in stores} & {id(b) for b in before}
    names = {s.target.name for s in after if isinstance(s, ir.AssignStmt)}
    assert {"e_inline0", "off_inline1"} <= names and "off_inline0" not in names
    assert full(analyzer.update(edited)) == full(analyse_source(edited))
    assert _variables_numbered(after) == _variables_numbered(_spliced(DocumentAnalyzer(), edited))


# -- a multi-value helper: the statements reading its items (`a, b = pair(x)` unpacks the call's
# result) are not walked again while its values are the same objects --------------------------

PAIR = """\
import pypto.language as pl


@pl.jit.inline
def pair(x: pl.Tensor[[64, 128], pl.FP32]) -> tuple[pl.Tensor[[64, 128], pl.FP32], pl.Tensor[[64, 128], pl.FP32]]:
    t = pl.load(x, [0, 0], [64, 128])
    u = pl.mul(t, t)
    return t, u


@pl.jit
def entry(x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
    for i in pl.range(2):
        a, b = pair(x)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="first"):
            c = pl.add(a, b)
            out = pl.store(c, [0, 0], out)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="own"):
        out = pl.store(x, [0, 0], out)
    return out
"""

PAIR_EDITS = {
    "the entry's last scope": lambda t: t.replace('name_hint="own"', 'name_hint="ownq"', 1),
    "the helper's values": lambda t: t.replace("u = pl.mul(t, t)", "u = pl.add(t, t)", 1),
}


@pytest.mark.parametrize("name", sorted(PAIR_EDITS))
def test_a_statement_reading_a_helpers_items_is_taken_while_the_values_are_the_same(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pypto_core.passes import inline_functions

    walked: list[ir.Stmt] = []
    original = inline_functions._substituted_compound

    def recording(stmt, *args):  # type: ignore[no-untyped-def]
        walked.append(stmt)
        return original(stmt, *args)

    monkeypatch.setattr(inline_functions, "_substituted_compound", recording)
    analyzer = DocumentAnalyzer()
    before = analyzer.update(PAIR).programs[0].source.get("entry")
    assert before is not None and walked  # the loop reads the items: walked at the first splice
    walked.clear()
    edited = PAIR_EDITS[name](PAIR)
    after = analyzer.update(edited).programs[0].source.get("entry")
    assert after is not None
    loop_before, loop_after = (next(s for s in f.body if isinstance(s, ir.ForStmt)) for f in (before, after))
    if name == "the entry's last scope":
        assert walked == [] and loop_after is loop_before  # not walked, its result of before
    else:
        assert walked and loop_after is not loop_before  # the values are new: substituted again
    assert full(analyzer.update(edited)) == full(analyse_source(edited))
    assert full(analyzer.update(PAIR)) == full(analyse_source(PAIR))


@pytest.mark.parametrize("argument", ["off", "base + 1"])
def test_a_clone_holds_the_calls_its_statements_make(argument: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole clone passed variables reads its calls from the helper's facts through the clone
    memo (`_Splicer._cloned`); one passed an expression reads its own statements: either way,
    `inner` and `holders` are what walking the clone's statements finds."""
    made: list[inline_functions.ClonedBody] = []
    cloned = inline_functions._Splicer._cloned

    def recording(self: inline_functions._Splicer, *args: Any) -> inline_functions.ClonedBody | None:
        body = cloned(self, *args)
        if body is not None:
            made.append(body)
        return body

    monkeypatch.setattr(inline_functions._Splicer, "_cloned", recording)
    analyse_source(SOURCE.replace("out = stage(x, out, off)", f"out = stage(x, out, {argument})"))
    assert len(made) == 4  # `stage` twice (the unroll loop's body once), `scale` in each
    for body in made:
        walked = [
            (call, index)
            for index, stmt in enumerate(body.body)
            for inner in walk_stmts([stmt])
            for call in inline_functions._statement_calls(inner)
            if call.callee is not None
        ]
        walked += [
            (v, len(body.body)) for v in body.values if isinstance(v, ir.Call) and v.callee is not None
        ]
        assert [(id(c), i) for c, i in walked] == [
            (id(c), i) for c, i in zip(body.inner, body.holders, strict=True)
        ]
