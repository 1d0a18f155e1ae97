"""UnrollLoops (the compiler's pass 2, before ConvertToSSA): every `pl.unroll` loop becomes one
copy of its body per iteration, the loop variable replaced by that iteration's constant
(`src/ir/transforms/unroll_loops_pass.cpp`). A scope inside is therefore outlined once per
copy, under the usual collision names (`k`, `k_0`, `k_1`, ...), and no copy captures the loop
variable.

As in the compiler the copies keep the original variables (this runs before ConvertToSSA,
where one source name is one `Var`), so SSA versions them like straight-line code. A loop the
front end rejected (bounds that are not integer constants, step 0, more than 1,024 iterations,
`init_values=`) is left as it is: its error is already reported. The input program is not
modified: functions holding an unrolled loop are rebuilt, the others are shared.
"""

from __future__ import annotations

import copy
import dataclasses

from ..ir import INDEX, Const, Expr, ForKind, ForStmt, Function, IfStmt, Program, Stmt
from ..ir_clone import clone
from .outline_ir import stmt_children, vars_mentioned, walk_stmts

MAX_ITERATIONS = 1024
"""kMaxUnrollIterations: the front end reports a longer `pl.unroll` (PTO192)."""


def unroll_loops(program: Program) -> Program:
    functions = [_unrolled(fn) if _has_unroll(fn.body) else fn for fn in program.functions]
    if all(new is old for new, old in zip(functions, program.functions, strict=True)):
        return program
    return dataclasses.replace(program, functions=functions)


def _has_unroll(stmts: list[Stmt]) -> bool:
    return any(type(s) is ForStmt and s.kind is ForKind.Unroll for s in walk_stmts(stmts))  # type: ignore[union-attr]


def _unrolled(fn: Function) -> Function:
    return dataclasses.replace(fn, params=list(fn.params), body=_block(fn.body))


def _block(stmts: list[Stmt]) -> list[Stmt]:
    """`stmts` with their unroll loops expanded; statements without one are shared, those
    holding one are shallow copies with new bodies."""
    result: list[Stmt] = []
    for stmt in stmts:
        if not _has_unroll([stmt]):
            result.append(stmt)
        elif (
            type(stmt) is ForStmt
            and stmt.kind is ForKind.Unroll
            and (values := _iterations(stmt)) is not None
        ):  # type: ignore[union-attr]
            assert isinstance(stmt, ForStmt)
            result += _expanded(stmt, values)
        else:
            result.append(_with_new_bodies(stmt))
    return result


def _iterations(loop: ForStmt) -> range | None:
    bounds = [integer_value(e) for e in (loop.start, loop.stop, loop.step)]
    if loop.iter_args or None in bounds:
        return None
    start, stop, step = bounds
    assert start is not None and stop is not None and step is not None
    if step == 0 or len(range(start, stop, step)) > MAX_ITERATIONS:
        return None
    return range(start, stop, step)


def integer_value(expr: Expr) -> int | None:
    """The value of an integer constant (a loop bound), else None."""
    return expr.value if type(expr) is Const and type(expr.value) is int else None  # type: ignore[union-attr]


def _expanded(loop: ForStmt, values: range) -> list[Stmt]:
    """One copy of the body per iteration: its variables are kept (`clone` is seeded with them),
    only the loop variable is replaced."""
    kept = {id(var): var for var in vars_mentioned(loop.body)}
    copies: list[Stmt] = []
    for value in values:
        memo: dict[int, object] = dict(kept)
        memo[id(loop.loop_var)] = Const(value, INDEX, loop.loop_var.span)
        copies += _block(clone(loop.body, memo))  # nested unroll loops, in each copy
    return copies


def _with_new_bodies(stmt: Stmt) -> Stmt:
    new = copy.copy(stmt)
    if isinstance(new, IfStmt):
        new.then_body = _block(new.then_body)
        if new.else_body is not None:
            new.else_body = _block(new.else_body)
    else:
        (body,) = stmt_children(stmt)
        new.body = _block(body)  # type: ignore[union-attr]
    return new
