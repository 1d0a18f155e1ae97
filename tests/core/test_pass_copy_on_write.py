"""Simplify and the outliners are copy-on-write: a pass never modifies its input (nor any node it
did not create in its own run), and a statement it does not change is the same object in its
output. So ConvertToSSA's output can be kept and handed to the passes again, and what a pass
made of a statement can be told apart from what it left alone by identity.

Each source's programs go through UnrollLoops and ConvertToSSA once; the passes after them run
twice on that same SSA program. After both runs the SSA program is as it was (every node, list
and dict holds the same objects, and it equals a deep copy taken before), and in each pass's
output every statement structurally equal to one of its input's at the same place is that
input statement."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from outline_cases import HEADER, T64, source_text
from test_ir_clone import _mutable_objects
from test_stmt_facts_table import CARRIES

from pypto_core import ir
from pypto_core.analysis import analyse_source
from pypto_core.ir_equal import ir_difference
from pypto_core.passes.context import PassContext
from pypto_core.passes.outline_ir import stmt_children
from pypto_core.passes.pipeline import OUTLINERS
from pypto_core.passes.simplify import simplify
from pypto_core.passes.ssa import convert_to_ssa
from pypto_core.passes.unroll_loops import unroll_loops

# What Simplify rewrites: a constant propagated into a loop's seed and into a scope, a branch
# folded on a constant, one-trip and zero-trip loops, a dead if-phi and dead scalars; the
# untouched scope and loop between them must come out as they went in.
SIMPLIFIED = (
    HEADER
    + f"""
@pl.program
class S:
    @pl.function
    def main(self, x: {T64}, y: {T64}, out: pl.Out[{T64}], n: pl.Scalar[pl.INDEX]) -> {T64}:
        rows = 4
        offset = rows * 8
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="untouched"):
            out = pl.store(pl.load(x, [0], [64]), [0], out)
        for i, (acc,) in pl.range(4, init_values=(rows,)):
            acc2 = pl.yield_(acc + i)
        for j in pl.range(n):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="loop"):
                out = pl.store(pl.load(x, [j], [64]), [0], out)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="reads_constant"):
            out = pl.store(pl.load(x, [offset], [rows]), [0], out)
        t = x
        if 4 > 8:
            t = y
        k = n + 1
        if n > 0:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="phi"):
                k = pl.tile.get_block_idx()
                out = pl.store(pl.load(t, [k], [64]), [0], out)
        for z in pl.range(2, 3):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="once"):
                out = pl.store(pl.load(x, [z], [64]), [z], out)
        for w in pl.range(0):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="never"):
                out = pl.store(pl.load(x, [w], [64]), [w], out)
        return out
"""
)

OWN_SOURCES = {"simplified": SIMPLIFIED, "carries": CARRIES}
SOURCES = [*OWN_SOURCES, "generated", "jit", "scopes_tour.py", "quickstart.py"]

PASSES = (("Simplify", simplify), *OUTLINERS)


def _after_ssa(program: ir.Program) -> Iterator[tuple[str, ir.Program, ir.Program]]:
    """Each pass after ConvertToSSA as (name, input, output), as the pipeline chains them."""
    context = PassContext(front_end_checked=True)
    current = program
    for name, factory in PASSES:
        output = factory(context)(current)
        yield name, current, output
        current = output


def _state(objects: dict[int, Any]) -> dict[int, tuple[Any, ...]]:
    """What each node, list and dict holds, by the identity of each value."""
    found: dict[int, tuple[Any, ...]] = {}
    for key, value in objects.items():
        items = (
            value.items()
            if isinstance(value, dict)
            else enumerate(value)
            if isinstance(value, list)
            else vars(value).items()
        )
        found[key] = tuple((k, id(v)) for k, v in items)
    return found


def _statements(
    stmts: list[ir.Stmt], path: tuple[int, ...] = ()
) -> Iterator[tuple[tuple[int, ...], ir.Stmt]]:
    """Every statement at any depth, with its place (block indices from the body)."""
    for i, stmt in enumerate(stmts):
        yield (*path, i), stmt
        for b, block in enumerate(stmt_children(stmt)):
            yield from _statements(block, (*path, i, -1 - b))


def _recopied(before: ir.Program, after: ir.Program) -> list[str]:
    """The output statements that equal (structurally, spans too) the input statement at the
    same place of the same function and are not that statement."""
    found: list[str] = []
    inputs = {fn.name: dict(_statements(fn.body)) for fn in before.functions}
    for fn in after.functions:
        old = inputs.get(fn.name, {})
        for path, stmt in _statements(fn.body):
            was = old.get(path)
            alike = was is not None and was is not stmt and type(was) is type(stmt) and was.span == stmt.span
            if alike and ir_difference(was, stmt) is None:
                found.append(f"{fn.name}{list(path)}: {type(stmt).__name__}")
    return found


def _shared(before: ir.Program, after: ir.Program) -> int:
    """How many input statements the output holds (at any depth)."""
    inputs = {id(stmt) for fn in before.functions for _, stmt in _statements(fn.body)}
    return sum(id(stmt) in inputs for fn in after.functions for _, stmt in _statements(fn.body))


@pytest.mark.parametrize("source", SOURCES)
def test_the_passes_after_ssa_modify_nothing_and_keep_what_they_do_not_change(source: str) -> None:
    checked = shared = 0
    for analysed in analyse_source(source_text(source, OWN_SOURCES)).programs:
        ssa = convert_to_ssa([])(unroll_loops(analysed.source))
        objects = _mutable_objects(ssa)  # holds them: no id is reused while the test runs
        state, deep = _state(objects), copy.deepcopy(ssa)
        runs = [list(_after_ssa(ssa)) for _ in range(2)]
        assert _state(_mutable_objects(ssa)) == state
        assert ir_difference(ssa, deep) is None
        for first, second in zip(*runs, strict=True):
            name, before, after = first
            assert _recopied(before, after) == [], name
            shared += _shared(before, after)
            # the second run starts from the same program and keeps the same statements of it
            assert ir_difference(after, second[2]) is None, name
        assert [fn.name for fn in runs[0][-1][2].functions] == [fn.name for fn in runs[1][-1][2].functions]
        checked += 1
    assert checked > 0 and shared > 0


def test_what_a_pass_leaves_is_the_input_object() -> None:
    """Simplify rewrites some of `main`'s statements (a reseeded loop, a propagated constant)
    and keeps the others; OutlineIncoreScopes rewrites the scopes and what reads a renamed
    value, and keeps the accumulator loop, which holds no scope and reads no rename."""
    [analysed] = analyse_source(SIMPLIFIED).programs
    ssa = convert_to_ssa([])(unroll_loops(analysed.source))
    stages = {name: (before, after) for name, before, after in _after_ssa(ssa)}
    before, after = stages["Simplify"]
    [main_in], [main_out] = before.functions, after.functions
    kept = [stmt for stmt in main_out.body if any(stmt is old for old in main_in.body)]
    assert kept and len(kept) < len(main_out.body)
    before, after = stages["OutlineIncoreScopes"]
    main_before, main_after = before.get("main"), after.get("main")
    assert main_before is not None and main_after is not None and main_after is not main_before
    [loop_before] = [s for s in main_before.body if _carries(s, "acc")]
    [loop_after] = [s for s in main_after.body if _carries(s, "acc")]
    assert loop_after is loop_before
    assert isinstance(loop_before.iter_args[0].init, ir.Const)  # Simplify seeded it with `rows`


def _carries(stmt: ir.Stmt, name: str) -> bool:
    return isinstance(stmt, ir.ForStmt) and any(a.base_name == name for a in stmt.iter_args)
