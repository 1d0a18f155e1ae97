"""UnrollLoops (the compiler's pass 2, before ConvertToSSA): every `pl.unroll` loop becomes one
copy of its body per iteration, the loop variable replaced by that iteration's constant
(`src/ir/transforms/unroll_loops_pass.cpp`). A scope inside is therefore outlined once per
copy, under the usual collision names (`k`, `k_0`, `k_1`, ...), and no copy captures the loop
variable.

As in the compiler the copies keep the original variables (this runs before ConvertToSSA,
where one source name is one `Var`), so SSA versions them like straight-line code. A loop the
front end rejected (bounds that are not integer constants, step 0, more than 1,024 iterations,
`init_values=`) is left as it is: its error is already reported. The input program is not
modified: functions holding an unrolled loop are rebuilt, the others are shared. Inside a
copy, only the statements that read the loop variable are copied (`_LoopVarReads`); the others
are the body's own, shared by every copy (no pass modifies its input, and ConvertToSSA rebuilds
every statement): a body was cloned whole per iteration, the pass's cost on real files.

What a statement holding an unroll loop becomes depends on that statement alone, and IR
statements are never modified, so it is kept with the statement (`_EXPANDED`), at every depth
outside the copies an expansion makes: the front end keeps a function's build and splices
copy-on-write, so after an edit elsewhere in a jit entry its unrolled loops are the same
statements, and are not expanded again, nor those beside the edited one inside the statement
holding it (a whole-model entry's layer loop, rebuilt around every keystroke inside it).
"""

from __future__ import annotations

import copy
import dataclasses
import weakref
from enum import Enum
from typing import Any

from ..ir import (
    INDEX,
    AssignStmt,
    BinaryExpr,
    CachePolicyDecl,
    Call,
    Const,
    EnumValue,
    EvalStmt,
    Expr,
    ForKind,
    ForStmt,
    Function,
    IfStmt,
    IterArg,
    ListExpr,
    OpaqueExpr,
    Program,
    ReturnStmt,
    ScopeStmt,
    Stmt,
    TupleExpr,
    TupleGetItem,
    UnaryExpr,
    Var,
    WhileStmt,
    YieldStmt,
)
from ..ir_clone import clone
from ..recurring import mark, marked
from .outline_ir import stmt_children, vars_mentioned

MAX_ITERATIONS = 1024
"""kMaxUnrollIterations: the front end reports a longer `pl.unroll` (PTO192)."""


def unroll_loops(program: Program) -> Program:
    functions = [_unrolled(fn) if _has_unroll(fn.body) else fn for fn in program.functions]
    if all(new is old for new, old in zip(functions, program.functions, strict=True)):
        return program
    return dataclasses.replace(program, functions=functions)


def _has_unroll(stmts: list[Stmt]) -> bool:
    return any(map(_holds_unroll, stmts))


def _holds_unroll(stmt: Stmt) -> bool:
    """Whether `stmt` is or holds an unroll loop, kept with a compound statement (`_HOLDS`):
    asked of every function's statements, at every level of those around an unroll loop, and
    of a shared statement in every copy (all complete statements)."""
    if type(stmt) not in _COMPOUND:
        return False
    found = _HOLDS.get(stmt)
    if found is None:
        found = type(stmt) is ForStmt and stmt.kind is ForKind.Unroll  # type: ignore[union-attr]
        found = found or any(_holds_unroll(s) for block in stmt_children(stmt) for s in block)
        _HOLDS[stmt] = found
    return found


_COMPOUND = frozenset({ForStmt, WhileStmt, IfStmt, ScopeStmt})
_HOLDS: weakref.WeakKeyDictionary[Stmt, bool] = weakref.WeakKeyDictionary()


# a statement holding an unroll loop (outside an expansion's copies) -> what it expands to
# (`_Unroller.expansion`); weak keys: an entry lives as long as the statement, which the builds
# and splices holding it decide
_EXPANDED: weakref.WeakKeyDictionary[Stmt, list[Stmt]] = weakref.WeakKeyDictionary()


def _unrolled(fn: Function) -> Function:
    unroller = _Unroller()
    body: list[Stmt] = []
    for stmt in fn.body:
        if not _holds_unroll(stmt):
            body.append(stmt)
            continue
        known = stmt in _EXPANDED
        expanded = unroller.expansion(stmt)
        if not known and marked(stmt):
            mark(expanded)
        body += expanded
    return dataclasses.replace(fn, params=list(fn.params), body=body)


class _Unroller:
    """One function's expansion."""

    def __init__(self) -> None:
        self._copying = 0  # expansions being made: their copies' statements are not kept

    def expansion(self, stmt: Stmt) -> list[Stmt]:
        """What `stmt` (holding an unroll loop) expands to: the last expansion of it, or made
        and kept."""
        found = _EXPANDED.get(stmt)
        if found is None:
            found = _EXPANDED[stmt] = self._expand(stmt)
        return found

    def block(self, stmts: list[Stmt]) -> list[Stmt]:
        """`stmts` with their unroll loops expanded; statements without one are shared, those
        holding one are shallow copies with new bodies."""
        result: list[Stmt] = []
        for stmt in stmts:
            if not _holds_unroll(stmt):
                result.append(stmt)
            elif self._copying:
                result += self._expand(stmt)
            else:
                result += self.expansion(stmt)
        return result

    def _expand(self, stmt: Stmt) -> list[Stmt]:
        if (
            type(stmt) is ForStmt
            and stmt.kind is ForKind.Unroll
            and (values := _iterations(stmt)) is not None
        ):  # type: ignore[union-attr]
            assert isinstance(stmt, ForStmt)
            return self.expanded(stmt, values)
        return [self.with_new_bodies(stmt)]

    def expanded(self, loop: ForStmt, values: range) -> list[Stmt]:
        """One copy of the body per iteration: its variables are kept (`clone` is seeded with
        them), only the loop variable is replaced, in the statements that read it."""
        kept = {id(var): var for var in vars_mentioned(loop.body)}
        reads = _LoopVarReads(loop.loop_var, kept)
        copies: list[Stmt] = []
        self._copying += 1
        for value in values:
            memo: dict[int, object] = dict(kept)
            memo[id(loop.loop_var)] = Const(value, INDEX, loop.loop_var.span)
            copies += self.block(reads.copy_block(loop.body, memo))  # nested unroll loops, in each copy
        self._copying -= 1
        return copies

    def with_new_bodies(self, stmt: Stmt) -> Stmt:
        new = copy.copy(stmt)
        if isinstance(new, IfStmt):
            new.then_body = self.block(new.then_body)
            if new.else_body is not None:
                new.else_body = self.block(new.else_body)
        else:
            (body,) = stmt_children(stmt)
            new.body = self.block(body)  # type: ignore[union-attr]
        return new


class _LoopVarReads:
    """Which parts of an unrolled body a copy must copy: those where `clone` (seeded with the
    body's variables, `kept`) would replace something, the loop variable, or a variable the
    seed misses (one in an attribute value `vars_mentioned` does not read). The others are
    shared: a scope or loop whose header reads the loop variable gets a copy of its header
    fields, and of the statements in its body that read it."""

    def __init__(self, loop_var: Var, kept: dict[int, Var]) -> None:
        self.loop_var = loop_var
        self.kept = kept
        self._touched: dict[int, tuple[bool, bool]] = {}  # id -> (own fields, a nested block)

    def copy_block(self, stmts: list[Stmt], memo: dict[int, object]) -> list[Stmt]:
        return [self.copy_stmt(stmt, memo) for stmt in stmts]

    def copy_stmt(self, stmt: Stmt, memo: dict[int, object]) -> Stmt:
        """`stmt` as `clone(stmt, memo)` copies it, sharing what it would copy unchanged."""
        own, nested = self.touched(stmt)
        if not (own or nested):
            return stmt
        if own and not stmt_children(stmt):
            return clone(stmt, memo)
        new = copy.copy(stmt)
        if own:
            for name in _OWN_FIELDS[type(stmt)]:
                setattr(new, name, clone(getattr(stmt, name), memo))
        if isinstance(new, IfStmt):
            new.then_body = self.copy_block(new.then_body, memo)
            if new.else_body is not None:
                new.else_body = self.copy_block(new.else_body, memo)
        else:
            new.body = self.copy_block(new.body, memo)  # type: ignore[union-attr]
        return new

    def touched(self, stmt: Stmt) -> tuple[bool, bool]:
        known = self._touched.get(id(stmt))
        if known is None:
            own = any(self._value(getattr(stmt, name)) for name in _OWN_FIELDS.get(type(stmt), ()))
            nested = any(any(self.touched(s)) for block in stmt_children(stmt) for s in block)
            known = self._touched[id(stmt)] = (own, nested)
        return known

    def _value(self, value: Any) -> bool:
        """Whether `clone` would replace something in `value` (walked as `clone` walks it)."""
        kind = type(value)
        if kind is Var or kind is IterArg:
            return value is self.loop_var or id(value) not in self.kept
        if kind in _NO_VARS:
            return False
        children = _EXPR_FIELDS.get(kind)
        if children is not None:
            return any(map(self._value, children(value)))
        if kind is list or kind is tuple:
            return any(map(self._value, value))
        if kind is dict:
            return any(map(self._value, value.keys())) or any(map(self._value, value.values()))
        return not isinstance(value, Enum)  # anything else: copy, as `clone` would


_NO_VARS = frozenset({Const, EnumValue, str, int, float, bool, type(None)})

_EXPR_FIELDS: dict[type, Any] = {
    Call: lambda e: (e.args, e.kwargs, e.attrs),
    BinaryExpr: lambda e: (e.left, e.right),
    UnaryExpr: lambda e: (e.operand,),
    TupleExpr: lambda e: e.items,
    ListExpr: lambda e: e.items,
    TupleGetItem: lambda e: (e.tuple,),
    OpaqueExpr: lambda e: e.operands,
    CachePolicyDecl: lambda d: (d.var,),
}
"""The fields of an expression (or a cache policy) that may hold a variable: the others hold
names, spans, types and enums, which `clone` shares."""


_OWN_FIELDS: dict[type, tuple[str, ...]] = {
    AssignStmt: ("target", "value"),
    EvalStmt: ("expr",),
    ReturnStmt: ("values",),
    YieldStmt: ("values",),
    ForStmt: ("loop_var", "start", "stop", "step", "iter_args", "return_vars", "kwargs"),
    WhileStmt: ("cond", "iter_args", "return_vars"),
    IfStmt: ("cond", "return_vars"),
    ScopeStmt: ("deps", "no_dep_args", "dump_vars", "task_id_var", "predicate", "cache_policies", "core_num"),
}
"""The fields of a statement that `clone` copies, its nested blocks aside (the others hold
names, spans, types and enums; break and continue have none)."""


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
