"""Splicing is copy-on-write and keeps each helper body it clones at a call for the next
splice of the document (`inline_functions.ClonedBody`, `FunctionMemo.clones`): after an edit in
one helper, the bodies of the other helpers are taken as they were cloned, the statements of
the caller no splice reaches stay the caller's own, and the result equals a fresh analysis's,
IR, spliced names (`x_inline<N>`) and spans included. The program here has what the generated
jit files lack: helpers calling helpers (spliced over several rounds), a helper returning two
values (`a, b = h(...)`), helper calls in a loop, an if, a `pl.yield_` and a `pl.unroll` loop,
a helper called twice, and local names shared across helpers."""

from __future__ import annotations

import random

import pytest
from test_analysis_incremental import full

from pypto_core import ir
from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.frontend.function_memo import FunctionMemo

SOURCE = """\
import pypto.language as pl

ROWS = 64
COLS = 128


@pl.jit.inline
def leaf(x: pl.Tensor[[256, COLS], pl.FP32], off: pl.Scalar[pl.INDEX]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
    t = pl.load(x, [off, 0], [ROWS, COLS])
    u = pl.mul(t, t)
    return u


@pl.jit.inline
def pair(x: pl.Tensor[[256, COLS], pl.FP32], off: pl.Scalar[pl.INDEX]):
    t = leaf(x, off)
    s = pl.add(t, t)
    return t, s


@pl.jit.inline
def middle(
    x: pl.Tensor[[256, COLS], pl.FP32],
    out: pl.Tensor[[256, COLS], pl.FP32],
    base: pl.Scalar[pl.INDEX],
) -> pl.Tensor[[256, COLS], pl.FP32]:
    off = base * ROWS
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="mid"):
        t = leaf(x, off)
        out = pl.store(t, [off, 0], out)
    return out


@pl.jit.inline
def outer(
    x: pl.Tensor[[256, COLS], pl.FP32],
    out: pl.Tensor[[256, COLS], pl.FP32],
    base: pl.Scalar[pl.INDEX],
) -> pl.Tensor[[256, COLS], pl.FP32]:
    out = middle(x, out, base)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="tile"):
        a, b = pair(x, base)
        out = pl.store(pl.add(a, b), [0, 0], out)
    return middle(x, out, base + 1)


@pl.jit.inline
def stepper(x: pl.Tensor[[256, COLS], pl.FP32], acc: pl.Tensor[[256, COLS], pl.FP32]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="step"):
        t = pl.load(x, [0, 0], [ROWS, COLS])
        acc = pl.store(t, [0, 0], acc)
    return acc


@pl.jit
def entry(
    x: pl.Tensor[[256, COLS], pl.FP32],
    out: pl.Out[pl.Tensor[[256, COLS], pl.FP32]],
    base: pl.Scalar[pl.INDEX],
) -> pl.Tensor[[256, COLS], pl.FP32]:
    out = outer(x, out, base)
    for i in pl.range(4):
        out = middle(x, out, i)
    if base > 2:
        out = outer(x, out, base)
    for k, (carried,) in pl.range(2, init_values=(out,)):
        acc = stepper(x, carried)
        out = pl.yield_(stepper(x, acc))
    for j in pl.unroll(2):
        out = middle(x, out, j)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="tile"):
        a, b = pair(x, base)
        out = pl.store(pl.mul(a, b), [0, 0], out)
    return out
"""

EDITS = {
    "type into a name_hint": lambda t: t.replace('name_hint="mid"', 'name_hint="midq"', 1),
    "a statement more in the innermost helper": lambda t: t.replace(
        "    u = pl.mul(t, t)\n", "    u = pl.mul(t, t)\n    w = pl.add(u, u)\n", 1
    ),
    "a statement more in a helper the entry calls": lambda t: t.replace(
        "    out = middle(x, out, base)\n    with",
        "    base = base + 1\n    out = middle(x, out, base)\n    with",
        1,
    ),
    # no line moves (so every other function's build is kept): the numbers of every name
    # spliced after `outer`'s body shift by one
    "a variable more in the first helper spliced, on its line": lambda t: t.replace(
        "    out = middle(x, out, base)\n    with", "    nb = base + 0; out = middle(x, out, nb)\n    with", 1
    ),
    "the two-value helper returns its values swapped": lambda t: t.replace("return t, s", "return s, t", 1),
    "the entry's own statement": lambda t: t.replace("pl.mul(a, b), [0, 0]", "pl.sub(a, b), [0, 0]", 1),
    "a name_hint that collides": lambda t: t.replace('name_hint="step"', 'name_hint="tile"', 1),
    "a comment in a helper": lambda t: t.replace(
        "    off = base * ROWS\n", "    off = base * ROWS  # row\n", 1
    ),
    "a helper's call nested in an expression": lambda t: t.replace(
        "        out = pl.store(t, [off, 0], out)", "        out = pl.store(leaf(x, off), [off, 0], out)", 1
    ),
    "a line more above everything": lambda t: t.replace("ROWS = 64\n", "ROWS = 64\n\n", 1),
}


def test_the_program_splices_what_the_test_says() -> None:
    """The source is the case it claims: every helper spliced, two values read apart, the
    innermost helper spliced three levels down, nothing left unspliced."""
    result = analyse_source(SOURCE)
    assert [d.code for d in result.diagnostics if d.severity.name == "ERROR"] == []
    (program,) = result.programs
    source = repr(program.source)
    assert [f.name for f in program.source.functions] == ["entry"]
    assert "callee='leaf'" not in source and "callee='pair'" not in source
    assert "u_inline" in source and "s_inline" in source


def test_an_edit_in_one_helper_clones_that_helper_and_what_it_holds_only(clones) -> None:
    analyzer = DocumentAnalyzer()
    analyzer.update(SOURCE)
    everything = sorted(set(clones))
    assert everything == ["leaf", "middle", "outer", "pair", "stepper"]
    edited = EDITS["type into a name_hint"](SOURCE)
    expected = full(analyse_source(edited))
    clones.clear()
    assert full(analyzer.update(edited)) == expected
    # `middle` changed: its clones are made again from those before (each statement the
    # build kept taken, `test_splice_identity.py`), so the `leaf` calls in them pass the
    # variables they passed and their clones are taken; the clones of `outer`, `pair` and
    # `stepper` are taken as they were (their calls of `middle` are spliced again, their
    # own bodies are not)
    assert set(clones) == {"middle"}


def test_an_edit_in_the_entry_keeps_nothing_and_changes_nothing(clones) -> None:
    analyzer = DocumentAnalyzer()
    analyzer.update(SOURCE)
    first = len(clones)
    edited = EDITS["the entry's own statement"](SOURCE)
    expected = full(analyse_source(edited))
    clones.clear()
    assert full(analyzer.update(edited)) == expected
    assert len(clones) == first  # every call is in the new build of the entry


def test_a_statement_no_splice_reaches_is_the_callers_own() -> None:
    """Copy-on-write: the spliced entry shares what holds no helper call with its build."""
    text = SOURCE.replace(
        "    out = outer(x, out, base)\n", "    out = outer(x, out, base)\n    y = base + 3\n", 1
    )
    memo = FunctionMemo()
    analyzer = DocumentAnalyzer()
    analyzer._functions = memo
    result = analyzer.update(text)
    built = next(b.function for b in memo._entries.values() if b.function.name == "entry")
    spliced = result.programs[0].source.get("entry")
    assert spliced is not None and spliced is not built
    own = [s for s in built.body if isinstance(s, ir.AssignStmt) and s.target.name == "y"]
    assert own and own[0] in spliced.body  # by identity (statements compare so)
    assert full(result) == full(analyse_source(text))


@pytest.mark.parametrize("name", sorted(EDITS))
def test_each_edit_and_its_undo_equal_a_fresh_analysis(name: str) -> None:
    analyzer = DocumentAnalyzer()
    assert full(analyzer.update(SOURCE)) == full(analyse_source(SOURCE))
    edited = EDITS[name](SOURCE)
    assert edited != SOURCE
    assert full(analyzer.update(edited)) == full(analyse_source(edited)), name
    assert full(analyzer.update(SOURCE)) == full(analyse_source(SOURCE)), name


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_edit_sequences_equal_a_fresh_analysis(seed: int) -> None:
    rng = random.Random(seed)
    text = SOURCE
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    for _ in range(6):
        name = rng.choice(sorted(EDITS))
        edited = EDITS[name](text)
        assert full(analyzer.update(edited)) == full(analyse_source(edited)), name
        text = edited


def test_an_unroll_loop_no_splice_reaches_is_expanded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """UnrollLoops keeps what a top-level statement expands to with the statement: after an
    edit in a helper, the entry's own unroll loop is the same statement and is not expanded again."""
    from pypto_core.passes import unroll_loops

    own_loop = (
        "    for u in pl.unroll(2):\n"
        '        with pl.at(level=pl.Level.CORE_GROUP, name_hint="own"):\n'
        "            t = pl.load(x, [u * ROWS, 0], [ROWS, COLS])\n"
        "            out = pl.store(t, [u * ROWS, 0], out)\n"
    )
    text = SOURCE.replace("    out = outer(x, out, base)\n", own_loop + "    out = outer(x, out, base)\n", 1)
    expanded: list[int] = []
    original = unroll_loops._Unroller.expanded

    def counting(self, loop, values):
        expanded.append(loop.span.start_line)
        return original(self, loop, values)

    monkeypatch.setattr(unroll_loops._Unroller, "expanded", counting)
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    own_line = text[: text.index("    for u in pl.unroll(2)")].count("\n")
    assert own_line in expanded
    edited = EDITS["type into a name_hint"](text)
    expected = full(analyse_source(edited))
    expanded.clear()
    assert full(analyzer.update(edited)) == expected
    assert own_line not in expanded
    assert expanded  # the unroll loop holding a helper call is a new statement: expanded again


def test_a_statement_holding_only_kept_clones_is_the_same_statement_after_an_edit() -> None:
    """The copy of a caller statement with a spliced call, and the `r = v` after the helper's
    body, are taken from the last splice when every clone in them was kept: after an edit in
    `stepper`, the entry's loop over `middle` is the object it was (so UnrollLoops and any
    later per-statement result hold for it), while the loop holding `stepper` is new."""
    analyzer = DocumentAnalyzer()

    def loops(text: str) -> list[ir.Stmt]:
        entry = analyzer.update(text).programs[0].source.get("entry")
        assert entry is not None
        return [s for s in entry.body if isinstance(s, ir.ForStmt)]

    before = loops(SOURCE)
    edited = SOURCE.replace('name_hint="step"', 'name_hint="stepq"', 1)
    expected = full(analyse_source(edited))
    after = loops(edited)
    assert after[0] is before[0]  # `for i in pl.range(4): out = middle(x, out, i)`
    assert after[1] is not before[1]  # the loop calling `stepper`
    assert full(analyzer.update(edited)) == expected
