"""The integer bounds Simplify's analyzer proves a branch condition with (`arith/
const_int_bound.cpp`, used by `simplify_pass.cpp`'s Fold A through `CanProve`).

Simplify registers a bound for every scalar it sees assigned (`BindScalarBound`: the bound of
the value, intersected with the variable's dtype default, where an INDEX scalar is
non-negative), and the range `[start, stop)` of a loop variable whose bounds are constants.
A condition whose comparison the bounds decide is a constant to Fold A: `hca_layer =
pl.cast(loop_i * 2 + 3, pl.INT32)` in `for loop_i in pl.range(N)` makes `if hca_layer >= 3:`
always true, so the branch is kept alone and nothing in the other one is captured.

Only the interval rules are modelled (sums, differences, products, floor division and modulo,
min/max, negation, casts to an integer type); what the compiler's rewrite simplifier would
prove besides (`x - x`, constraints of an enclosing `if`) is left undecided, so a branch is
folded here only where the compiler folds it too. The IR is in SSA form: each variable is
bound once, and read only where its definition is visible, so nothing is unbound on leaving
a region.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..ir import BinaryExpr, Const, Expr, IterArg, ScalarType, UnaryExpr, Var

_INF = math.inf
Bound = tuple[float, float]  # inclusive; -inf / inf where unbounded
_EVERYTHING: Bound = (-_INF, _INF)
_BOOLEAN: Bound = (0, 1)
_COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">="})


@dataclass
class IntBounds:
    """What the analyzer knows of each scalar variable so far."""

    known: dict[Var, Bound] = field(default_factory=dict)

    def bind_loop(self, var: Var, start: Expr, stop: Expr) -> Bound | None:
        """A loop variable over `[start, stop)`, when both are integer constants and the loop
        runs. The bound learnt, if any (Simplify logs what it learns, `simplify._Env`)."""
        first, last = _int(start), _int(stop)
        if first is None or last is None or last <= first:
            return None
        bound = self.known[var] = (first, last - 1)
        return bound

    def bind_assignment(self, var: Var, value: Expr) -> Bound | None:
        """A scalar assigned `value`: its bound within the variable's dtype default. The bound
        learnt, if any."""
        if not isinstance(var.type, ScalarType):
            return None
        low, high = self.bound(value)
        default_low, default_high = _default(var)
        bound = (max(low, default_low), min(high, default_high))
        if bound[0] > bound[1]:  # an empty intersection is malformed IR: left at the default
            return None
        self.known[var] = bound
        return bound

    def decide(self, cond: Expr) -> bool | None:
        """The condition's value when the bounds prove it, else None."""
        if type(cond) is UnaryExpr and cond.op == "not":
            inner = self.decide(cond.operand)
            return None if inner is None else not inner
        if type(cond) is not BinaryExpr:
            return None
        if cond.op in ("and", "or"):
            left, right = self.decide(cond.left), self.decide(cond.right)
            stop = cond.op == "or"  # the value that decides it alone
            if stop in (left, right):
                return stop
            return None if left is None or right is None else not stop
        if cond.op not in _COMPARISONS:
            return None
        return _compare(cond.op, self.bound(cond.left), self.bound(cond.right))

    def bound(self, expr: Expr) -> Bound:
        kind = type(expr)
        if kind is Const:
            value = expr.value  # type: ignore[union-attr]
            return (int(value), int(value)) if isinstance(value, int) else _EVERYTHING
        if kind is Var or kind is IterArg:
            return self.known.get(expr, _default(expr))  # type: ignore[arg-type]
        if kind is UnaryExpr:
            return self._unary(expr)  # type: ignore[arg-type]
        if kind is BinaryExpr:
            return self._binary(expr)  # type: ignore[arg-type]
        return _EVERYTHING

    def _unary(self, expr: UnaryExpr) -> Bound:
        operand = self.bound(expr.operand)
        if expr.op == "-":
            return (-operand[1], -operand[0])
        if expr.op == "not":
            return _BOOLEAN
        if expr.op == "cast":
            limits = _int_range(expr.cast_dtype or "")
            if limits is None:
                return _EVERYTHING
            return (max(operand[0], limits[0]), min(operand[1], limits[1]))
        return _EVERYTHING

    def _binary(self, expr: BinaryExpr) -> Bound:
        op = expr.op
        if op in _COMPARISONS or op in ("and", "or"):
            return _BOOLEAN
        a, b = self.bound(expr.left), self.bound(expr.right)
        if op == "+":
            return (a[0] + b[0], a[1] + b[1])
        if op == "-":
            return (a[0] - b[1], a[1] - b[0])
        if op == "*":
            products = [_times(x, y) for x in a for y in b]
            return (min(products), max(products))
        if op == "//":
            return _floor_div(a, b)
        if op == "%":
            if b[0] > 0:
                return (0, min(a[1], b[1] - 1)) if a[0] >= 0 else (0, b[1] - 1)
            return _EVERYTHING
        if op == "min":
            return (min(a[0], b[0]), min(a[1], b[1]))
        if op == "max":
            return (max(a[0], b[0]), max(a[1], b[1]))
        return _EVERYTHING


def _compare(op: str, a: Bound, b: Bound) -> bool | None:
    if op in (">", ">="):
        return _compare("<" if op == ">" else "<=", b, a)
    if op == "<":
        return True if a[1] < b[0] else False if a[0] >= b[1] else None
    if op == "<=":
        return True if a[1] <= b[0] else False if a[0] > b[1] else None
    if a[0] == a[1] == b[0] == b[1]:
        return op == "=="
    if a[1] < b[0] or b[1] < a[0]:
        return op == "!="
    return None


def _times(x: float, y: float) -> float:
    return 0 if x == 0 or y == 0 else x * y  # 0 * inf is 0 here, as InfAwareMul has it


def _floor_div(a: Bound, b: Bound) -> Bound:
    if b[0] > 0:  # non-decreasing in a; for a >= 0 non-increasing in b, for a < 0 non-decreasing
        low = _div(a[0], b[1]) if a[0] >= 0 else _div(a[0], b[0])
        high = _div(a[1], b[0]) if a[1] >= 0 else _div(a[1], b[1])
        return (low, high)
    if b[1] < 0:
        return _floor_div((-a[1], -a[0]), (-b[1], -b[0]))
    return _EVERYTHING  # the divisor's range holds zero


def _div(x: float, y: float) -> float:
    if math.isinf(x):
        return x
    return 0 if math.isinf(y) else x // y


def _default(var: Expr) -> Bound:
    """An INDEX scalar is implicitly non-negative (`DefaultBoundFromDtype`); any other, unbounded."""
    kind = var.type  # type: ignore[union-attr]
    return (0, _INF) if isinstance(kind, ScalarType) and kind.dtype == "INDEX" else _EVERYTHING


def _int_range(dtype: str) -> Bound | None:
    """The values an integer dtype holds (a cast intersects with them); None for another dtype.
    INDEX and 64-bit types pass the operand's bound through."""
    if dtype == "INDEX":
        return _EVERYTHING
    for prefix, signed in (("UINT", False), ("INT", True)):
        if dtype.startswith(prefix) and dtype[len(prefix) :].isdigit():
            bits = int(dtype[len(prefix) :])
            if bits >= 64:
                return _EVERYTHING
            return (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    return None


def _int(expr: Expr) -> int | None:
    return expr.value if type(expr) is Const and type(expr.value) is int else None  # type: ignore[union-attr,return-value]
