"""FlattenCallExpr, as the order in which a statement reads its variables.

The compiler runs FlattenCallExpr (pass 6) before the outliners: every call nested in a call's
arguments, in a scalar operator's operands, in an `if`/`while` condition, a `for` bound or a
`return`/`yield` value becomes a temporary assigned just before the statement
(`t = pl.add(...)`, innermost first). A scope's parameters are its live-ins in first-read
order, so the hoisting moves a capture: in `out = pl.assemble(out, pl.add(a, b), [0, 0])` the
nested `pl.add` is evaluated first and the scope captures `[a, b, out]`, not `[out, a, b]`.

The temporaries themselves never reach the user (D11, and the printed IR stays the program
the user wrote); only the read order is modelled, here, for the live-in analysis.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..ir import (
    AssignStmt,
    BinaryExpr,
    Call,
    EvalStmt,
    Expr,
    ForStmt,
    IfStmt,
    ReturnStmt,
    Stmt,
    UnaryExpr,
    Var,
    WhileStmt,
    YieldStmt,
)
from .outline_ir import CONSTANT_TYPES, VAR_TYPES, add_calls, expr_vars, stmt_exprs, sub_exprs

_OPERATORS = frozenset({BinaryExpr, UnaryExpr})


def flattened_reads(stmt: Stmt, calls: list[Call] | None = None) -> list[Var]:
    """The variables `stmt`'s own expressions read (nested statements excluded), in the order
    the flattened statement reads them: the hoisted temporaries' reads in hoisting order, then
    the statement's remaining reads. With repeats. `calls`, when given, receives every call of
    those expressions in pre-order (`expr_calls`), found by the same walk."""
    found: list[Call] = [] if calls is None else calls
    kind = type(stmt)
    if kind is AssignStmt or kind is EvalStmt:
        return _reads(stmt_exprs(stmt), False, found)
    if kind is ReturnStmt or kind is YieldStmt:
        return _reads(stmt_exprs(stmt), True, found)
    if calls is not None:
        for expr in stmt_exprs(stmt):
            add_calls(expr, calls)
    if kind in _HOISTING_HEADERS:
        return _header_reads(stmt)
    return [var for expr in stmt_exprs(stmt) for var in expr_vars(expr)]  # scope attributes


def _reads(exprs: Sequence[Expr], hoist_calls: bool, calls: list[Call]) -> list[Var]:
    hoisted: list[Var] = []
    direct: list[Var] = []
    for expr in exprs:
        if hoist_calls and type(expr) is Call:
            _hoist(expr, hoisted, calls)
        else:
            _visit(expr, direct, hoisted, calls)
    hoisted += direct
    return hoisted


def _header_reads(stmt: Stmt) -> list[Var]:
    """A loop or `if` header: calls in its bounds or condition are hoisted before the whole
    statement, so ahead of the loop's iter_arg initial values, which are read in place."""
    if isinstance(stmt, ForStmt):
        evaluated: list[Expr] = [stmt.start, stmt.stop, stmt.step]
    else:
        assert isinstance(stmt, (WhileStmt, IfStmt))
        evaluated = [stmt.cond]
    hoisted: list[Var] = []
    direct: list[Var] = []
    calls: list[Call] = []  # the caller collects a header's calls in `stmt_exprs` order
    for expr in evaluated:
        if type(expr) is Call:
            _hoist(expr, hoisted, calls)
        else:
            _visit(expr, direct, hoisted, calls)
    if not isinstance(stmt, IfStmt):
        for arg in stmt.iter_args:
            hoisted += expr_vars(arg.init)
    hoisted += direct
    return hoisted


_HOISTING_HEADERS = frozenset({ForStmt, WhileStmt, IfStmt})


def _hoist(call: Call, hoisted: list[Var], calls: list[Call]) -> None:
    """`call` becomes a temporary: its own nested calls first, then its remaining reads."""
    own: list[Var] = []
    _visit(call, own, hoisted, calls)
    hoisted += own


def _visit(expr: Expr, direct: list[Var], hoisted: list[Var], calls: list[Call]) -> None:
    """Reads of `expr` staying in place go to `direct`; a call's positional argument or an
    operator's operand that is itself a call is hoisted. Keyword values and attributes are not
    arguments to the compiler's mutator, and other containers (lists, tuples, subscripts) keep
    their calls in place, hoisting only what is nested in those calls. Every node is entered
    before its children, left to right, so `calls` comes out in pre-order."""
    kind = type(expr)
    if kind in VAR_TYPES:
        direct.append(expr)  # type: ignore[arg-type]
        return
    subs = sub_exprs(expr)
    if kind is Call:
        calls.append(expr)  # type: ignore[arg-type]
        hoisting = len(expr.args)  # type: ignore[union-attr]
    else:
        hoisting = len(subs) if kind in _OPERATORS else 0
    for i, sub in enumerate(subs):
        sub_kind = type(sub)
        if sub_kind in VAR_TYPES:
            direct.append(sub)  # type: ignore[arg-type]
        elif sub_kind is Call and i < hoisting:
            _hoist(sub, hoisted, calls)  # type: ignore[arg-type]
        elif sub_kind not in CONSTANT_TYPES:
            _visit(sub, direct, hoisted, calls)
