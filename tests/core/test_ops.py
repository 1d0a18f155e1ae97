"""The operator registry (dsl-reference §3.2–§3.4): per-slot write effects, including the rows
that depend on a literal keyword argument, the result-alias contract and the hoist blockers."""

from __future__ import annotations

import pytest
from ir_builder import IDX, T64, TILE, call, const

from pypto_core import ir, ops
from pypto_core.ops import Effect


def _atomic(member: str) -> dict[str, ir.Expr]:
    return {"atomic": ir.EnumValue("AtomicType", member)}


@pytest.mark.parametrize(
    ("op", "slot", "kwargs", "effect"),
    [
        ("tile.store", 2, {}, Effect.Write),
        ("tile.store", 2, _atomic("Add"), Effect.ReadWrite),
        ("tile.store", 2, _atomic("None_"), Effect.Write),
        ("tile.store", 0, {}, Effect.Read),
        ("tensor.assemble", 0, {}, Effect.Write),
        ("tensor.assemble", 0, _atomic("Add"), Effect.ReadWrite),
        ("tensor.write", 0, {}, Effect.Write),
        ("tensor.expand_clone", 1, {}, Effect.Write),  # D10
        ("tensor.expand_clone", 0, {}, Effect.Read),
        ("tile.mscatter", 2, {}, Effect.Write),
        ("tile.mgather", 2, {}, Effect.Read),
        (
            "tile.mgather",
            2,
            {
                "target_memory": ir.EnumValue("MemorySpace", "Mat"),
                "coalesce": ir.EnumValue("Coalesce", "Elem"),
            },
            Effect.Write,
        ),
        ("tile.write", 0, {}, Effect.ReadWrite),
        ("tile.assemble", 0, {}, Effect.ReadWrite),
        ("tile.matmul_acc", 0, {}, Effect.ReadWrite),
        ("tile.tget_scale_addr", 0, {}, Effect.Write),
        ("pld.tile.put", 0, {}, Effect.Write),
        ("pld.tensor.put", 0, _atomic("Add"), Effect.ReadWrite),
        ("pld.tensor.remote_store", 1, {}, Effect.Write),
        ("pld.tile.get", 0, {}, Effect.Write),
        ("pld.system.notify", 0, {}, Effect.ReadWrite),
        ("pld.system.notify", 0, {"op": ir.EnumValue("NotifyOp", "Set")}, Effect.Write),
        ("system.syncall", 0, {}, Effect.Read),
        ("system.syncall", 0, {"mode": ir.Const("soft")}, Effect.ReadWrite),
        ("pld.tensor.all_to_all_v", 4, {}, Effect.Write),
        ("pld.tensor.all_to_all_v", 2, {}, Effect.ReadWrite),
        ("builtin.tensor.allreduce", 1, {}, Effect.ReadWrite),
        ("tile.add", 0, {}, Effect.Read),
        ("some.unknown_op", 0, {}, Effect.Read),  # D13
    ],
)
def test_argument_effects(op: str, slot: int, kwargs: dict[str, ir.Expr], effect: Effect) -> None:
    args = [ir.Var(f"a{i}", T64) for i in range(5)]
    assert ops.arg_effect(ir.Call(op, list(args), kwargs), slot) is effect


def test_user_calls_have_no_registry_effect() -> None:
    user = ir.Call("tile.store", [ir.Var("a"), ir.Var("b"), ir.Var("c")], callee="tile.store")
    assert ops.written_args(user) == []
    assert ops.result_alias_index(user) is None


@pytest.mark.parametrize(
    ("op", "index"),
    [
        ("tile.store", 2),
        ("tensor.assemble", 0),
        ("tensor.expand_clone", 1),
        ("tile.matmul_acc", 0),
        ("pld.tensor.allgather", 1),
        ("builtin.tensor.barrier", 0),
        ("tile.write", None),
        ("tile.assemble", None),
        ("tile.mgather", None),
        ("pld.tensor.put", None),
    ],
)
def test_result_alias_contract(op: str, index: int | None) -> None:
    args = [ir.Var(f"a{i}", T64) for i in range(3)]
    assert ops.result_alias_index(call(op, *args)) == index


def test_scalar_hoist_accepts_arithmetic_and_casts_over_available_values_only() -> None:
    base, other = ir.Var("base", IDX), ir.Var("other", IDX)
    available = {base}.__contains__
    arithmetic = ir.BinaryExpr("*", ir.UnaryExpr("cast", base, IDX, cast_dtype="INT32"), const(64), IDX)
    assert ops.is_hoistable_scalar_expr(arithmetic, available)
    assert not ops.is_hoistable_scalar_expr(ir.BinaryExpr("+", base, other, IDX), available)


@pytest.mark.parametrize("op", ["tensor.read", "tile.read", "tile.get_block_idx", "tensor.dim"])
def test_any_call_blocks_the_scalar_hoist(op: str) -> None:
    base = ir.Var("base", IDX)
    assert not ops.is_hoistable_scalar_expr(call(op, base, type_=IDX), {base}.__contains__)


def test_store_destination_is_the_third_argument() -> None:
    dst = ir.Var("out", T64)
    assert ops.store_destination(call("tile.store", ir.Var("t", TILE), ir.ListExpr([]), dst)) is dst
    assert ops.store_destination(call("tile.load", dst)) is None
