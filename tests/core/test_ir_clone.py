"""The fast IR copy must be a faithful deep copy: equal structure, nothing mutable shared with
the original but the constants and enum values no pass modifies, one copy per `Var`
(identity-based IR invariants), and, when moving, every node's spans shifted."""

from __future__ import annotations

import copy
import sys
from enum import Enum
from pathlib import Path
from typing import Any

import pytest

from pypto_core import ir
from pypto_core.analysis import analyse_source
from pypto_core.ir_clone import clone
from pypto_core.ir_equal import ir_difference
from pypto_core.ir_shift import shift_program
from pypto_core.span import Span

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from gen_dsl import generate


def _programs() -> list[ir.Program]:
    analysis = analyse_source(generate(100))
    found: list[ir.Program] = []
    for program in analysis.programs:
        found.append(program.source)
        assert program.outlined_program is not None
        found.append(program.outlined_program)
    return found


def _mutable_objects(root: Any) -> dict[int, Any]:
    """Every IR node, list and dict reachable from `root`, by id."""
    found: dict[int, Any] = {}
    stack = [root]
    while stack:
        value = stack.pop()
        if isinstance(value, list | dict) or (
            hasattr(value, "__dict__")
            and type(value).__module__ == ir.__name__
            and not isinstance(value, Enum)
        ):
            if id(value) in found:
                continue
            found[id(value)] = value
            items = (
                value.values()
                if isinstance(value, dict)
                else value
                if isinstance(value, list)
                else vars(value).values()
            )
            stack.extend(items)
        elif isinstance(value, tuple):
            stack.extend(value)
    return found


def _leaves(root: Any) -> set[int]:
    """The constants and enum values reachable from `root`: a copy in place shares them."""
    return {key for key, value in _mutable_objects(root).items() if type(value) in (ir.Const, ir.EnumValue)}


def _spans(root: Any) -> list[Span]:
    return [
        v
        for node in _mutable_objects(root).values()
        if hasattr(node, "__dict__")
        for v in vars(node).values()
        if isinstance(v, Span)
    ]


@pytest.mark.parametrize("index", range(6))
def test_a_clone_equals_a_deep_copy_and_shares_only_constants(index: int) -> None:
    program = _programs()[index]
    copied = clone(program)
    assert ir_difference(copied, copy.deepcopy(program)) is None
    assert ir_difference(copied, program) is None
    leaves = _leaves(program)
    assert leaves
    assert set(_mutable_objects(copied)) & set(_mutable_objects(program)) == leaves
    assert _spans(copied) == _spans(program)


def test_a_copy_that_moves_spans_shares_no_constant() -> None:
    program = _programs()[0]
    for copied in (clone(program, line_delta=3), clone(program, span_at=Span(1, 0, 1, 4))):
        assert not set(_mutable_objects(copied)) & set(_mutable_objects(program))


def test_a_var_read_in_many_places_is_one_var_in_the_copy() -> None:
    x = ir.Var("x", ir.INDEX)
    body: list[ir.Stmt] = [
        ir.AssignStmt(ir.Var("y"), ir.BinaryExpr("+", x, x)),
        ir.ReturnStmt([x]),
    ]
    fn = ir.Function("f", [ir.Param(x)], body)
    copied = clone(fn)
    assign, ret = copied.body
    assert isinstance(assign, ir.AssignStmt) and isinstance(assign.value, ir.BinaryExpr)
    assert isinstance(ret, ir.ReturnStmt)
    new_x = copied.params[0].var
    assert new_x is not x
    assert assign.value.left is new_x and assign.value.right is new_x and ret.values[0] is new_x


def test_a_shared_memo_copies_two_parts_as_one() -> None:
    x = ir.Var("x")
    memo: dict[int, Any] = {}
    first, second = clone([ir.EvalStmt(x)], memo), clone([ir.ReturnStmt([x])], memo)
    assert first[0].expr is second[0].values[0] is not x


def test_moving_a_program_shifts_every_node_span_and_leaves_the_original() -> None:
    program = _programs()[1]
    before = _spans(program)
    moved = shift_program(program, 7)
    assert _spans(program) == before
    assert _spans(moved) == [s.shifted(7) for s in before]
    assert ir_difference(moved, program) is None


def test_a_copy_at_one_span_makes_one_constant_per_value() -> None:
    site = Span(40, 4, 40, 20)
    one, other_one, half, other_half = (
        ir.Const(1, ir.INDEX),
        ir.Const(1, ir.INDEX),
        ir.Const(0.5),
        ir.Const(-0.0),
    )
    flag = ir.Const(True, ir.INDEX)  # equal to 1, but not the same value
    fp32, other_fp32 = ir.EnumValue("", "FP32"), ir.EnumValue("", "FP32")
    x = ir.Var("x", ir.INDEX)
    body: list[ir.Stmt] = [
        ir.AssignStmt(x, ir.BinaryExpr("+", one, other_one)),
        ir.EvalStmt(ir.Call("op", [half, other_half, flag, fp32, other_fp32])),
    ]
    assign, call_stmt = clone(body, span_at=site)
    assert isinstance(assign, ir.AssignStmt) and isinstance(assign.value, ir.BinaryExpr)
    assert isinstance(call_stmt, ir.EvalStmt) and isinstance(call_stmt.expr, ir.Call)
    left, right = assign.value.left, assign.value.right
    new_half, new_zero, new_flag, new_fp32, new_other_fp32 = call_stmt.expr.args
    assert left is right and left is not one
    assert isinstance(left, ir.Const) and (left.value, left.type, left.span) == (1, ir.INDEX, site)
    assert isinstance(new_flag, ir.Const) and new_flag is not left and new_flag.value is True
    assert new_half is not new_zero and isinstance(new_zero, ir.Const) and str(new_zero.value) == "-0.0"
    assert new_fp32 is new_other_fp32 and new_fp32.span == site
    assert (one.span, fp32.span) == (ir.NO_SPAN, ir.NO_SPAN)  # the original is left as it was
