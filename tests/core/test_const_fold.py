"""Simplify's constant folding (`const_fold.h`): same-kind constants are evaluated, comparisons
give a bool, and the identities drop a neutral operand; mixed int/float is left alone."""

from __future__ import annotations

import pytest

from pypto_core.ir import INDEX, BinaryExpr, Call, Const, Expr, ListExpr, ScalarType, UnaryExpr, Var
from pypto_core.passes.const_fold import fold
from pypto_core.printer import print_expr

N = Var("n", INDEX)


def c(value: object) -> Const:
    kind = (
        ScalarType("FP32") if type(value) is float else ScalarType("BOOL") if type(value) is bool else INDEX
    )
    return Const(value, kind)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("expr", "printed"),
    [
        (BinaryExpr("*", c(2), c(64)), "128"),
        (BinaryExpr("//", c(-7), c(2)), "-4"),
        (BinaryExpr("<", c(1.5), c(2.0)), "True"),
        (BinaryExpr("+", c(1), c(0.5)), "1 + 0.5"),  # mixed kinds stay
        (BinaryExpr("//", c(1), c(0)), "1 // 0"),  # left for the compiler to reject
        (BinaryExpr("+", N, c(0)), "n"),
        (BinaryExpr("*", c(0), N), "0"),
        (BinaryExpr("*", N, c(1)), "n"),
        (BinaryExpr("%", N, c(1)), "0"),
        (BinaryExpr("and", c(True), BinaryExpr(">", N, c(2))), "n > 2"),
        (BinaryExpr("or", BinaryExpr(">", N, c(2)), c(True)), "True"),
        (BinaryExpr("-", N, BinaryExpr("*", c(4), c(0))), "n"),
    ],
)
def test_fold(expr: Expr, printed: str) -> None:
    assert print_expr(fold(expr)) == printed


def test_folding_builds_new_nodes_and_modifies_none() -> None:
    """Copy-on-write: a call whose arguments fold is a new call, the input as it was; an
    expression nothing in folds is returned itself."""
    call = Call("tile.load", [N, ListExpr([BinaryExpr("*", c(3), c(16)), BinaryExpr("+", N, c(1))])])
    folded = fold(call)
    assert folded is not call
    assert print_expr(folded) == "pl.tile.load(n, [48, n + 1])"
    assert print_expr(call) == "pl.tile.load(n, [3 * 16, n + 1])"
    assert folded.args[0] is N and folded.args[1].items[1] is call.args[1].items[1]  # type: ignore[attr-defined]
    unchanged = Call("tile.load", [N, ListExpr([BinaryExpr("+", N, c(1))])])
    assert fold(unchanged) is unchanged


def test_a_comparison_sees_through_an_integer_constant_cast_to_a_signed_integer() -> None:
    """`if pl.cast(43, pl.INT32) >= 3:` is decided by Simplify's integer-bound analysis (an
    inline helper's `layer_id` parameter bound to `pl.cast(LAYER, pl.INT32)`); the cast itself
    stays, and a value the type cannot hold proves nothing."""

    def cast(value: int) -> UnaryExpr:
        return UnaryExpr("cast", c(value), ScalarType("INT32"), cast_dtype="INT32")

    assert print_expr(fold(BinaryExpr(">=", cast(43), c(3)))) == "True"
    assert print_expr(fold(BinaryExpr("+", cast(43), c(1)))) != "44"
    assert isinstance(fold(BinaryExpr(">=", cast(2**40), c(3))), BinaryExpr)
