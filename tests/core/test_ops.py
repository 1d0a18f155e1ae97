"""The operator registry (dsl-reference §3.2–§3.4): per-slot write effects, including the rows
that depend on a literal keyword argument, the result-alias contract and the hoist blockers."""

from __future__ import annotations

import pytest
from ir_builder import IDX, T64, TILE, call, const

from pypto_core import ir, ops
from pypto_core.analysis import analyse_source
from pypto_core.ops import Effect
from pypto_core.span import Span

from markers import Marked, extract


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


# --- argument rules of the compiler's op registry (PTO200 at the argument) -------------------


def _op_errors(body: str) -> tuple[list[tuple[str, Span, str]], Marked]:
    marked = extract(
        "import pypto.language as pl\nimport pypto.language.distributed as pld\n\n\n@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def main(self, x: pl.Tensor[[8, 32], pl.FP32], signal: pld.DistributedTensor[[4], pl.INT32]):\n"
        f"        {body}\n",
        dedent=False,
    )
    found = [(d.code, d.span, d.message) for d in analyse_source(marked.text).diagnostics]
    return found, marked


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("y = pl.fillpad(x, [|7|])", "only accepts the integer literal 0 (mapped to PadValue.zero); got 7."),
        (
            "y = pl.fillpad(x, pad_value=[|3.14|])",
            "only accepts the float literals 0.0, math.inf, or -math.inf; got 3.14.",
        ),
        ("y = pl.fillpad(x, [|pl.PadValue.null|])", "cannot be PadValue.null"),
        ("y = pl.fillpad(x, pad_value=[|True|])", "cannot be bool (True)"),
        (
            "y = pl.fillpad(x, pad_value=[|'zero'|])",
            "must be a PadValue or one of 0 / 0.0 / math.inf / -math.inf; got str 'zero'.",
        ),
        (
            "pld.system.defer_wait(signal, offsets=[0], expected=1, cmp=[|pld.WaitCmp.Eq|])",
            "pld.system.defer_wait only supports WaitCmp.Ge (got WaitCmp.Eq)",
        ),
    ],
)
def test_an_argument_the_op_registry_rejects_is_pto200_at_the_argument(body: str, message: str) -> None:
    found, marked = _op_errors(body)
    assert [(code, span) for code, span, _ in found] == [("PTO200", marked.range)]
    assert message in found[0][2]


@pytest.mark.parametrize(
    "body",
    [
        "y = pl.fillpad(x, 0)",
        "y = pl.fillpad(x, pad_value=0.0)",
        "y = pl.fillpad(x, pl.PadValue.max)",
        "y = pl.fillpad(x, pad_value=PAD)",  # not known statically: the compiler decides
        "pld.system.defer_wait(signal, offsets=[0], expected=1, cmp=pld.WaitCmp.Ge)",
    ],
)
def test_an_argument_the_op_registry_takes_is_not_reported(body: str) -> None:
    found, _ = _op_errors(body)
    assert [code for code, _, _ in found if code == "PTO200"] == []
