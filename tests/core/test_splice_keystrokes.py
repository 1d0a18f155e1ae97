"""The splice at a keystroke: helpers spliced inside helpers, in loops, for two values and
twice, after edits anywhere (the first ones at each place included) equal a fresh analysis,
and a splicing round enters only the statements on the way to the calls it splices."""

from __future__ import annotations

import pytest
from test_analysis_incremental import full

from pypto_core import ir
from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.passes import inline_functions

# helpers calling helpers: `leaf` in a loop's `if` of `middle` and after it, `pair` returning
# two values, `tail` ending in `return middle(...)` (called for its value and as a statement,
# which drops it), `middle` and `tail` each spliced several times, at two loop depths
NESTED = """import pypto.language as pl

ROWS = 64
COLS = 128
T = pl.Tensor[[256, COLS], pl.FP32]


@pl.jit.inline
def leaf(x: T, out: T, base: pl.Scalar[pl.INDEX]) -> T:
    off = base * ROWS
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="leaf"):
        t = pl.load(x, [off, 0], [ROWS, COLS])
        out = pl.store(pl.exp(t), [off, 0], out)
    return out


@pl.jit.inline
def pair(x: T, out: T, base: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="pair"):
        a = pl.load(x, [0, 0], [ROWS, COLS])
        out = pl.store(pl.neg(a), [0, 0], out)
    out = leaf(x, out, base)
    return out, base


@pl.jit.inline
def middle(x: T, out: T, base: pl.Scalar[pl.INDEX]) -> T:
    scratch = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
    for i in pl.range(4):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="mid_tile"):
            a = pl.load(x, [i * ROWS, 0], [ROWS, COLS])
            scratch = pl.store(pl.mul(a, a), [0, 0], scratch)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="mid_other"):
            b = pl.load(x, [i * ROWS, 0], [ROWS, COLS])
            scratch = pl.store(pl.add(b, b), [0, 0], scratch)
        if base > 1:
            out = leaf(x, out, i)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="mid_after"):
            c = pl.load(scratch, [0, 0], [ROWS, COLS])
            out = pl.store(c, [0, 0], out)
    out, nb = pair(x, out, base)
    out = leaf(x, out, nb)
    return out


@pl.jit.inline
def tail(x: T, out: T, base: pl.Scalar[pl.INDEX]) -> T:
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail"):
        e = pl.load(x, [0, 0], [ROWS, COLS])
        out = pl.store(pl.add(e, e), [0, 0], out)
    return middle(x, out, base)


@pl.jit
def entry(x: T, out: pl.Out[T], base: pl.Scalar[pl.INDEX]) -> T:
    for j in pl.range(2):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="own"):
            z = pl.load(x, [j * ROWS, 0], [ROWS, COLS])
            out = pl.store(z, [j * ROWS, 0], out)
        out = middle(x, out, j)
        for k in pl.range(2):
            out = tail(x, out, k)
    out = middle(x, out, base)
    tail(x, out, base)
    return out
"""

HINTS = ["leaf", "pair", "mid_tile", "mid_after", "tail", "own"]


def _typed(text: str, hint: str, count: int) -> str:
    at = text.index(f'name_hint="{hint}') + len('name_hint="')
    return text[:at] + "q" * count + text[at:]


def test_first_keystrokes_at_each_place_equal_a_fresh_analysis() -> None:
    """Three characters typed at each string in turn, the text put back before the next (a
    user moving from helper to helper): each place's first keystrokes meet a splice kept from
    keystrokes elsewhere."""
    analyzer = DocumentAnalyzer()
    assert full(analyzer.update(NESTED)) == full(analyse_source(NESTED))
    for hint in HINTS:
        for count in (1, 2, 3):
            text = _typed(NESTED, hint, count)
            assert full(analyzer.update(text)) == full(analyse_source(text)), (hint, count)
        assert full(analyzer.update(NESTED)) == full(analyse_source(NESTED)), hint


EDITS = {
    # a variable more in the innermost helper: every fresh name after its first clone is renumbered
    "a statement more in leaf": ("    off = base * ROWS\n", "    off = base * ROWS\n    off2 = off + 1\n"),
    "a statement more in pair": (
        "    out = leaf(x, out, base)\n",
        "    out = leaf(x, out, base)\n    n2 = base + 1\n",
    ),
    "leaf's call in middle's loop taken out": (
        "            out = leaf(x, out, i)\n",
        "            out = out\n",
    ),
    "tail calls leaf instead": ("    return middle(x, out, base)\n", "    return leaf(x, out, base)\n"),
    "pair called for one value": (
        "    out, nb = pair(x, out, base)\n",
        "    out, nb = pair(x, out, base)\n    nb = base\n",
    ),
    "an edit in the entry's loop": (
        "        out = middle(x, out, j)\n",
        "        out = middle(x, out, j + 0)\n",
    ),
}


@pytest.mark.parametrize("seed", [1, 2])
def test_edits_in_nested_helpers_equal_a_fresh_analysis(seed: int) -> None:
    """Edits in helpers at each depth, each applied and taken back in a random order, with a
    keystroke between: the splices after each equal a fresh analysis's."""
    import random

    rng = random.Random(seed)
    analyzer = DocumentAnalyzer()
    analyzer.update(NESTED)
    text = NESTED
    for name in rng.sample(sorted(EDITS), len(EDITS)):
        old, new = EDITS[name]
        edited = text.replace(old, new, 1)
        assert edited != text, name
        for version in (edited, _typed(edited, rng.choice(HINTS), 1), text):
            assert full(analyzer.update(version)) == full(analyse_source(version)), name


def test_a_round_enters_only_the_statements_on_the_way_to_a_helper_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`middle`'s loop holds `leaf`'s call in an `if` among three scopes: the round splicing
    `leaf` into a clone of `middle` enters the loop, the `if` and the call, and no statement of
    the scopes (a call of no helper)."""
    seen: list[ir.Stmt] = []
    splice_statement = inline_functions._Splicer._splice_statement

    def spy(self: inline_functions._Splicer, stmt: ir.Stmt, subs: dict[int, list[ir.Expr]]) -> object:
        seen.append(stmt)
        return splice_statement(self, stmt, subs)

    monkeypatch.setattr(inline_functions._Splicer, "_splice_statement", spy)
    analysis = analyse_source(NESTED)
    assert not [d for d in analysis.diagnostics if d.severity.name == "ERROR"]
    assert any(isinstance(s, ir.ForStmt) for s in seen)  # the loops on the way were entered
    ops = [
        s
        for s in seen
        if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call) and not s.value.callee
    ]
    assert ops == []
    assert not any(isinstance(s, ir.ScopeStmt) for s in seen)


def test_a_keystroke_splices_the_rounds_of_the_top_level_statement_it_edits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each top-level statement's splicing rounds are kept for the next splice and taken where
    its statements and the splicer's state are as they were (`inline_functions._Regions`):
    typing in the entry's loop splices the loop's rounds and takes those of the calls after it
    (each keystroke equal to a fresh analysis); then an edit at a call after the loop, a
    variable more in the loop (the calls after it get other fresh names: none of their rounds
    fits), a call splicing reports (PTO413, reported again where its rounds are taken), each
    with keystrokes in the helpers after it."""
    taken: list[tuple[bool, ir.Stmt]] = []
    take = inline_functions._Splicer._taken_round

    def spy(self: inline_functions._Splicer, region: inline_functions._Region, index: int) -> object:
        found = take(self, region, index)
        taken.append((found is not None, region.original))
        return found

    monkeypatch.setattr(inline_functions._Splicer, "_taken_round", spy)
    analyzer = DocumentAnalyzer()
    analyzer.update(NESTED)
    for count in (1, 2, 3):  # in the loop's scope "own"
        del taken[:]
        text = _typed(NESTED, "own", count)
        incremental = full(analyzer.update(text))
        rounds = list(taken)
        assert incremental == full(analyse_source(text))
    spliced = {type(stmt) for was_taken, stmt in rounds if not was_taken}
    assert spliced == {ir.ForStmt}  # the loop's rounds only
    assert sum(was_taken for was_taken, _ in rounds) > 0
    for edit in (
        text.replace("    out = middle(x, out, base)\n", "    out = middle(x, out, base + 0)\n"),  # at a call
        text.replace(
            "    for j in pl.range(2):\n", "    for j in pl.range(2):\n        w = base + 1\n"
        ),  # a variable more in the loop: the calls after it are given other fresh names
        text.replace("    tail(x, out, base)\n", "    tail(x, out)\n"),  # a call reported (PTO413), then kept
        text,
    ):
        for version in (edit, _typed(edit, "tail", 1), _typed(edit, "leaf", 1)):
            assert full(analyzer.update(version)) == full(analyse_source(version))
