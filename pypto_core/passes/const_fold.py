"""Constant folding as Simplify does it at every arithmetic node (`include/pypto/ir/arith/
const_fold.h`, `TryConstFoldBinary` / `TryConstFoldUnary`): two integer or two float constants
are evaluated (comparisons give a bool), bool constants short-circuit `and` / `or`, and the
identities `x + 0`, `x - 0`, `x * 1`, integer `x * 0`, `x // 1`, `x % 1`, `x / 1` apply. Mixed
int/float operands, division by zero and casts are left as they are; a comparison sees through
an integer constant cast to a signed integer type (what the integer-bound analysis proves).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Any

from ..ir import (
    BinaryExpr,
    Call,
    Const,
    EnumValue,
    Expr,
    IterArg,
    ListExpr,
    OpaqueExpr,
    TupleExpr,
    TupleGetItem,
    UnaryExpr,
    Var,
    copy_with,
    same_values,
)

_ARITHMETIC: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "min": min,
    "max": max,
    "**": operator.pow,
}
_INTEGER_ONLY: dict[str, Callable[[Any, Any], Any]] = {
    "//": operator.floordiv,
    "%": operator.mod,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "<<": operator.lshift,
    ">>": operator.rshift,
}
_COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


_LEAVES = frozenset({Var, IterArg, Const, EnumValue})


def fold(expr: Expr) -> Expr:
    """`expr` folded, children first: `expr` itself when nothing in it folds, else a new node
    (nothing is modified)."""
    kind = type(expr)
    if kind is BinaryExpr:
        assert isinstance(expr, BinaryExpr)
        left, right = fold(expr.left), fold(expr.right)
        if left is not expr.left or right is not expr.right:
            expr = copy_with(expr, left=left, right=right)
        return _binary(expr)
    if kind is UnaryExpr:
        assert isinstance(expr, UnaryExpr)
        operand = fold(expr.operand)
        if expr.op == "-" and type(operand) is Const and type(operand.value) in (int, float):
            return Const(-operand.value, expr.type, expr.span)  # type: ignore[operator]
        if expr.op == "not" and type(operand) is Const and type(operand.value) is bool:
            return Const(not operand.value, expr.type, expr.span)
        return expr if operand is expr.operand else copy_with(expr, operand=operand)
    if kind is Call:
        assert isinstance(expr, Call)
        args = folded_items(expr.args)
        kwargs = {key: fold(value) for key, value in expr.kwargs.items()} if expr.kwargs else expr.kwargs
        if args is expr.args and same_values(expr.kwargs, kwargs):
            return expr
        return copy_with(expr, args=args, kwargs=kwargs)
    if kind is ListExpr or kind is TupleExpr:
        items = folded_items(expr.items)  # type: ignore[union-attr]
        return expr if items is expr.items else copy_with(expr, items=items)  # type: ignore[union-attr]
    if kind is TupleGetItem:
        inner = fold(expr.tuple)  # type: ignore[union-attr]
        return expr if inner is expr.tuple else copy_with(expr, tuple=inner)  # type: ignore[union-attr]
    return expr


def folded_items(items: list[Expr]) -> list[Expr]:
    """The items folded, or `items` itself when none folds; leaves (most arguments) are
    skipped without a call."""
    result: list[Expr] | None = None
    for i, item in enumerate(items):
        if type(item) not in _LEAVES:
            new = fold(item)
            if new is not item:
                if result is None:
                    result = list(items)
                result[i] = new
    return items if result is None else result


def _binary(expr: BinaryExpr) -> Expr:
    left, right, op = expr.left, expr.right, expr.op
    a, b = _value(left), _value(right)
    if op in ("and", "or"):
        return _logical(expr, a, b)
    if op in _COMPARISONS:
        a, b = _bound(left, a), _bound(right, b)
    same = a is not None and b is not None and type(a) is type(b) and type(a) in (int, float)
    if same:
        apply = _COMPARISONS.get(op)
        if apply is not None:
            return Const(apply(a, b), expr.type, expr.span)
        apply = _ARITHMETIC.get(op) or (_INTEGER_ONLY.get(op) if type(a) is int else None)
        if op == "/" and type(a) is float:
            apply = operator.truediv
        if op == "**" and type(b) is int and b < 0:
            return expr  # SafeIntPow requires a non-negative exponent
        if apply is not None:
            try:
                return Const(apply(a, b), expr.type, expr.span)
            except (ZeroDivisionError, ValueError, OverflowError):
                return expr
        return expr
    return _identity(expr, a, b)


def _logical(expr: BinaryExpr, a: object, b: object) -> Expr:
    """`true and x` -> x, `false and x` -> false, and the mirror images; `or` alike."""
    neutral = expr.op == "and"
    if type(a) is bool:
        return expr.right if a is neutral else expr.left
    if type(b) is bool:
        return expr.left if b is neutral else expr.right
    return expr


def _identity(expr: BinaryExpr, a: object, b: object) -> Expr:
    op = expr.op
    if op == "+" and _equals(a, 0):
        return expr.right
    if op in ("+", "-") and _equals(b, 0):
        return expr.left
    if op == "*" and _equals(a, 1):
        return expr.right
    if (op == "*" and _equals(b, 1)) or (op == "//" and b == 1 and type(b) is int):
        return expr.left
    if op == "/" and type(b) is float and b == 1.0:
        return expr.left
    if op == "*" and type(a) is int and a == 0:
        return expr.left
    if op == "*" and type(b) is int and b == 0:
        return expr.right
    if op == "%" and type(b) is int and b == 1:
        return Const(0, expr.type, expr.span)
    return expr


def _value(expr: Expr) -> object:
    return expr.value if type(expr) is Const else None  # type: ignore[union-attr]


_INT_BITS = {"INT8": 8, "INT16": 16, "INT32": 32, "INT64": 64, "INDEX": 64}


def _bound(expr: Expr, value: object) -> object:
    """For a comparison: the value of an integer constant cast to a signed integer type it fits
    (`pl.cast(43, pl.INT32) >= 3`), which Simplify's integer-bound analysis proves though the
    cast itself stays; anything else as `_value` gave it."""
    if value is not None or type(expr) is not UnaryExpr or expr.op != "cast":  # type: ignore[union-attr]
        return value
    inner = _value(expr.operand)  # type: ignore[union-attr]
    bits = _INT_BITS.get(str(expr.cast_dtype).upper())  # type: ignore[union-attr]
    if type(inner) is not int or bits is None or not -(2 ** (bits - 1)) <= inner < 2 ** (bits - 1):
        return value
    return inner


def _equals(value: object, number: int) -> bool:
    return type(value) in (int, float) and value == number


def is_constant(expr: Expr) -> bool:
    """A number, or arithmetic over numbers and module-level names whose value the analysis
    cannot fold (`N_EXPERTS // GATE_N_TILE` with `N_EXPERTS` read from a configuration chosen
    at import): the compiler sees every such name as the Python number it is when the function
    is parsed (the jit specialiser inlines it), and its analyzer folds the arithmetic to the
    literal its Simplify propagates (`IsConstScalar`). The expression holds no variable, so
    sharing it between its uses is safe."""
    kind = type(expr)
    if kind is Const:
        return isinstance(expr.value, (bool, int, float))  # type: ignore[union-attr]
    if kind is BinaryExpr:
        return is_constant(expr.left) and is_constant(expr.right)  # type: ignore[union-attr]
    if kind is UnaryExpr:  # not a cast: the analyzer leaves `pl.cast(0 - EPOCH, pl.INT32)` a cast
        return expr.op != "cast" and is_constant(expr.operand)  # type: ignore[union-attr]
    if kind is OpaqueExpr:  # a module-level name or an attribute of one (`M.n_routed_experts`)
        return _MODULE_NAME.fullmatch(expr.text) is not None and all(map(is_constant, expr.operands))  # type: ignore[union-attr]
    return False


_MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
