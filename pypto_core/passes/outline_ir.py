"""IR traversal the outliners share: variables read by an expression, definitions of a block,
and in-place variable substitution.

The outlining passes rewrite only functions nobody else holds (copies they made or, inside the
pipeline, ConvertToSSA's output; see `PassContext.owned`), so rewriting statements in place
here never touches a caller's IR.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..ir import (
    AssignStmt,
    BinaryExpr,
    BreakStmt,
    Call,
    Const,
    ContinueStmt,
    EnumValue,
    EvalStmt,
    Expr,
    ForStmt,
    IfStmt,
    IterArg,
    ListExpr,
    OpaqueExpr,
    ReturnStmt,
    ScopeKind,
    ScopeStmt,
    Stmt,
    TupleExpr,
    TupleGetItem,
    UnaryExpr,
    Var,
    WhileStmt,
)
from ..span import Span

# Call attrs that name a tensor for bookkeeping rather than accessing it (§4.2.7 (d)).
BOOKKEEPING_ATTRS = frozenset({"dump_vars", "arg_direction_overrides", "arg_direction_overrides_vars"})


_ATTR_EXPR_TYPES = (Var, Call, BinaryExpr, UnaryExpr, TupleGetItem)
_LEAVES = (Var, Const, EnumValue)


def attr_exprs(value: Any) -> list[Expr]:
    """The expressions inside a call attribute value (a Var, or a list/tuple of them)."""
    if isinstance(value, _ATTR_EXPR_TYPES):
        return [value]
    if isinstance(value, (list, tuple)):
        return [expr for item in value for expr in attr_exprs(item)]
    return []


def sub_exprs(expr: Expr, *, skip_bookkeeping: bool = False) -> list[Expr]:
    """Direct sub-expressions in evaluation order (call: args, kwargs, then Var-valued attrs)."""
    if isinstance(expr, Call):
        subs = [*expr.args, *expr.kwargs.values()]
        for key, value in expr.attrs.items():
            if not (skip_bookkeeping and key in BOOKKEEPING_ATTRS):
                subs += attr_exprs(value)
        return subs
    children = _CHILDREN.get(type(expr))
    return children(expr) if children is not None else []


_CHILDREN: dict[type, Callable[[Any], list[Expr]]] = {
    BinaryExpr: lambda e: [e.left, e.right],
    TupleExpr: lambda e: list(e.items),
    ListExpr: lambda e: list(e.items),
    UnaryExpr: lambda e: [e.operand],
    TupleGetItem: lambda e: [e.tuple],
    OpaqueExpr: lambda e: list(e.operands),
}
"""Sub-expressions of every non-call expression node with any (leaves have none)."""


def expr_vars(expr: Expr | None) -> list[Var]:
    """Every variable the expression reads, left to right (with repeats)."""
    found: list[Var] = []
    if expr is not None:
        _add_vars(expr, found)
    return found


def _add_vars(expr: Expr, found: list[Var]) -> None:
    """The walk behind `expr_vars` and `vars_mentioned`, the passes' hottest loop: it appends to
    one list instead of chaining generators, and handles leaves without a call of their own."""
    if isinstance(expr, Var):
        found.append(expr)
        return
    for sub in sub_exprs(expr):
        if isinstance(sub, Var):
            found.append(sub)
        elif not isinstance(sub, _LEAVES):
            _add_vars(sub, found)


def scope_attr_exprs(scope: ScopeStmt) -> list[Expr]:
    """A scope's variable-valued attributes that count as reads (deps, task id, predicate,
    an Spmd block count). `dump_vars` and `no_dep_args` are returned by `scope_bookkeeping`."""
    exprs: list[Expr] = list(scope.deps)
    if scope.task_id_var is not None:
        exprs.append(scope.task_id_var)
    if scope.predicate is not None:
        exprs.append(scope.predicate)
    if scope.core_num is not None:
        exprs.append(scope.core_num)
    return exprs


def scope_bookkeeping(scope: ScopeStmt) -> list[Var]:
    return [*scope.dump_vars, *scope.no_dep_args]


def stmt_children(stmt: Stmt) -> list[list[Stmt]]:
    """The statement lists nested directly in `stmt`."""
    if isinstance(stmt, (ForStmt, WhileStmt, ScopeStmt)):
        return [stmt.body]
    if isinstance(stmt, IfStmt):
        return [stmt.then_body] + ([stmt.else_body] if stmt.else_body is not None else [])
    return []


def walk_stmts(stmts: list[Stmt]) -> list[Stmt]:
    """Every statement, pre-order."""
    found: list[Stmt] = []
    _add_stmts(stmts, found)
    return found


def _add_stmts(stmts: list[Stmt], found: list[Stmt]) -> None:
    for stmt in stmts:
        found.append(stmt)
        if isinstance(stmt, (ForStmt, WhileStmt, ScopeStmt)):
            _add_stmts(stmt.body, found)
        elif isinstance(stmt, IfStmt):
            _add_stmts(stmt.then_body, found)
            if stmt.else_body is not None:
                _add_stmts(stmt.else_body, found)


def stmt_exprs(stmt: Stmt) -> list[Expr]:
    """The expressions `stmt` itself evaluates (not those of nested statements)."""
    if isinstance(stmt, AssignStmt):
        return [stmt.value]
    if isinstance(stmt, EvalStmt):
        return [stmt.expr]
    if isinstance(stmt, (ReturnStmt,)):
        return list(stmt.values)
    if isinstance(stmt, ForStmt):
        return [a.init for a in stmt.iter_args if a.init is not None] + [stmt.start, stmt.stop, stmt.step]
    if isinstance(stmt, WhileStmt):
        return [a.init for a in stmt.iter_args if a.init is not None] + [stmt.cond]
    if isinstance(stmt, IfStmt):
        return [stmt.cond]
    if isinstance(stmt, ScopeStmt):
        return [*scope_attr_exprs(stmt), *scope_bookkeeping(stmt)]
    if isinstance(stmt, (BreakStmt, ContinueStmt)):
        return []
    return list(stmt.values)  # YieldStmt


def walk_calls(stmts: list[Stmt]) -> list[Call]:
    """Every call in the statements, nested statements and nested expressions included."""
    found: list[Call] = []
    for stmt in walk_stmts(stmts):
        for expr in stmt_exprs(stmt):
            _add_calls(expr, found)
    return found


def expr_calls(expr: Expr) -> list[Call]:
    """Every call in the expression, pre-order (a call before the calls in its arguments)."""
    found: list[Call] = []
    _add_calls(expr, found)
    return found


def _add_calls(expr: Expr, found: list[Call]) -> None:
    if isinstance(expr, Call):
        found.append(expr)
    for sub in sub_exprs(expr):
        if not isinstance(sub, _LEAVES):
            _add_calls(sub, found)


def stmt_defs(stmt: Stmt) -> list[Var]:
    """Variables `stmt` itself binds (not nested statements): assignment target, loop var,
    iter_args and return vars."""
    if isinstance(stmt, AssignStmt):
        return [stmt.target]
    if isinstance(stmt, ForStmt):
        return [*stmt.return_vars, stmt.loop_var, *stmt.iter_args]
    if isinstance(stmt, WhileStmt):
        return [*stmt.return_vars, *stmt.iter_args]
    if isinstance(stmt, IfStmt):
        return list(stmt.return_vars)
    return []


def defs_in(stmts: list[Stmt]) -> set[Var]:
    return {v for stmt in walk_stmts(stmts) for v in stmt_defs(stmt)}


def vars_mentioned(stmts: list[Stmt]) -> set[Var]:
    """Every variable defined or used anywhere in the statements (the used-after "tail")."""
    found: list[Var] = []
    for stmt in walk_stmts(stmts):
        _add_own_mentions(stmt, found)
    return set(found)


def _add_own_mentions(stmt: Stmt, found: list[Var]) -> None:
    """The variables `stmt` itself defines or uses (not those of nested statements)."""
    found += stmt_defs(stmt)
    for expr in stmt_exprs(stmt):
        _add_vars(expr, found)
    if isinstance(stmt, ScopeStmt):
        found += [d.var for d in stmt.cache_policies]


class StmtFacts:
    """Per statement of one body: the variables it mentions (`vars_mentioned([stmt])`) and the
    kinds of the scopes in it (itself included). Each statement's facts are computed once, from
    its own and its children's, so asking for a statement and then for the statements nested in
    it costs one walk, not one per nesting level.

    Facts describe a statement as it was when first asked for. The outliner asks for a statement
    only before it visits (rewrites) it, and the IR below a function is a tree apart from its
    `Var`s (no statement or expression node is reachable twice), so no answer goes stale while
    it can still be asked for. Callers must not modify the returned sets."""

    def __init__(self) -> None:
        self._facts: dict[Stmt, tuple[set[Var], frozenset[ScopeKind]]] = {}  # keyed by identity

    def mentions(self, stmt: Stmt) -> set[Var]:
        return self._of(stmt)[0]

    def scope_kinds(self, stmt: Stmt) -> frozenset[ScopeKind]:
        return self._of(stmt)[1]

    def _of(self, stmt: Stmt) -> tuple[set[Var], frozenset[ScopeKind]]:
        facts = self._facts.get(stmt)
        if facts is None:
            own: list[Var] = []
            _add_own_mentions(stmt, own)
            mentions = set(own)
            kinds = frozenset((stmt.kind,)) if isinstance(stmt, ScopeStmt) else _NO_KINDS
            for block in stmt_children(stmt):
                for child in block:
                    child_mentions, child_kinds = self._of(child)
                    mentions |= child_mentions
                    kinds = kinds | child_kinds if child_kinds else kinds
            facts = self._facts[stmt] = (mentions, kinds)
        return facts


_NO_KINDS: frozenset[ScopeKind] = frozenset()


def contains_scope(stmts: list[Stmt], predicate: Callable[[ScopeStmt], bool]) -> bool:
    """Stops at the first match (a function body with a target scope is asked this per pass)."""
    for stmt in stmts:
        if isinstance(stmt, ScopeStmt) and predicate(stmt):
            return True
        if any(contains_scope(child, predicate) for child in stmt_children(stmt)):
            return True
    return False


def is_kind(kind: ScopeKind) -> Callable[[ScopeStmt], bool]:
    return lambda scope: scope.kind is kind


# ---------------------------------------------------------------------------------------------
# Substitution (in place)


def substitute_expr(expr: Expr, mapping: Mapping[Var, Expr]) -> Expr:
    """`expr` with every mapped variable replaced; rewrites nested nodes in place."""
    if isinstance(expr, Var):
        return mapping.get(expr, expr)
    if isinstance(expr, _LEAVES):
        return expr
    if isinstance(expr, Call):
        expr.args = [substitute_expr(a, mapping) for a in expr.args]
        if expr.kwargs:
            expr.kwargs = {k: substitute_expr(v, mapping) for k, v in expr.kwargs.items()}
        if expr.attrs:
            expr.attrs = {k: _substitute_attr(v, mapping) for k, v in expr.attrs.items()}
    elif isinstance(expr, BinaryExpr):
        expr.left = substitute_expr(expr.left, mapping)
        expr.right = substitute_expr(expr.right, mapping)
    elif isinstance(expr, UnaryExpr):
        expr.operand = substitute_expr(expr.operand, mapping)
    elif isinstance(expr, (TupleExpr, ListExpr)):
        expr.items = [substitute_expr(i, mapping) for i in expr.items]
    elif isinstance(expr, TupleGetItem):
        expr.tuple = substitute_expr(expr.tuple, mapping)
    elif isinstance(expr, OpaqueExpr):
        expr.operands = [substitute_expr(o, mapping) for o in expr.operands]
    else:
        raise TypeError(f"unknown expression node {type(expr).__name__}")
    return expr


def _substitute_attr(value: Any, mapping: Mapping[Var, Expr]) -> Any:
    if isinstance(value, Var):
        return mapping.get(value, value)
    if isinstance(value, list):
        return [_substitute_attr(v, mapping) for v in value]
    if isinstance(value, tuple):
        return tuple(_substitute_attr(v, mapping) for v in value)
    return value


def _substitute_var(var: Var, mapping: Mapping[Var, Expr]) -> Var:
    new = mapping.get(var, var)
    return new if isinstance(new, Var) else var


def substitute_stmt(stmt: Stmt, mapping: Mapping[Var, Expr]) -> None:
    """Rewrite the expressions `stmt` evaluates (not nested statements) in place."""
    if isinstance(stmt, AssignStmt):
        stmt.value = substitute_expr(stmt.value, mapping)
    elif isinstance(stmt, EvalStmt):
        stmt.expr = substitute_expr(stmt.expr, mapping)
    elif isinstance(stmt, (ForStmt, WhileStmt)):
        for arg in stmt.iter_args:
            if arg.init is not None:
                arg.init = substitute_expr(arg.init, mapping)
        if isinstance(stmt, ForStmt):
            stmt.start = substitute_expr(stmt.start, mapping)
            stmt.stop = substitute_expr(stmt.stop, mapping)
            stmt.step = substitute_expr(stmt.step, mapping)
        else:
            stmt.cond = substitute_expr(stmt.cond, mapping)
    elif isinstance(stmt, IfStmt):
        stmt.cond = substitute_expr(stmt.cond, mapping)
    elif isinstance(stmt, ScopeStmt):
        stmt.deps = [substitute_expr(d, mapping) for d in stmt.deps]
        stmt.no_dep_args = [_substitute_var(v, mapping) for v in stmt.no_dep_args]
        stmt.dump_vars = [_substitute_var(v, mapping) for v in stmt.dump_vars]
        if stmt.task_id_var is not None:
            stmt.task_id_var = _substitute_var(stmt.task_id_var, mapping)
        if stmt.predicate is not None:
            stmt.predicate = substitute_expr(stmt.predicate, mapping)
        if stmt.core_num is not None:
            stmt.core_num = substitute_expr(stmt.core_num, mapping)
        for decl in stmt.cache_policies:
            decl.var = _substitute_var(decl.var, mapping)
    elif not isinstance(stmt, (BreakStmt, ContinueStmt)):
        stmt.values = [substitute_expr(v, mapping) for v in stmt.values]


def substitute_block(stmts: list[Stmt], mapping: Mapping[Var, Expr]) -> None:
    """Rewrite every statement of the block, nested ones included, in place."""
    if not mapping:
        return
    for stmt in walk_stmts(stmts):
        substitute_stmt(stmt, mapping)


def is_iter_arg(var: Var) -> bool:
    return isinstance(var, IterArg)


def encloses(outer: Span, inner: Span) -> bool:
    """`inner` lies textually inside `outer`. The front end reports textual nesting errors itself;
    statements spliced in from an Inline helper keep the helper's spans, so a nesting the front
    end could not see is one whose spans are not enclosed."""
    return (outer.start_line, outer.start_col) <= (inner.start_line, inner.start_col) and (
        inner.end_line,
        inner.end_col,
    ) <= (outer.end_line, outer.end_col)
