"""IR traversal the passes share: variables read by an expression, definitions of a block,
and copy-on-write variable substitution.

No pass modifies a node it did not create in its own run: a rewrite builds new nodes along the
path to what changed and shares everything else with its input (`ir.copy_with`), so a statement
the rewrite does not change is the same object in its output, and its input stays as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
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
    ScopeStmt,
    Stmt,
    TupleExpr,
    TupleGetItem,
    UnaryExpr,
    Var,
    WhileStmt,
    YieldStmt,
    copy_with,
    same_blocks,
    same_items,
    same_values,
)
from ..span import Span

# Call attrs that name a tensor for bookkeeping rather than accessing it (§4.2.7 (d)).
BOOKKEEPING_ATTRS = frozenset({"dump_vars", "arg_direction_overrides", "arg_direction_overrides_vars"})


_ATTR_EXPR_TYPES = (Var, Call, BinaryExpr, UnaryExpr, TupleGetItem)
# expression classes a walk over reads treats alike: variables, and leaves that read nothing
VAR_TYPES = frozenset({Var, IterArg})
CONSTANT_TYPES = frozenset({Const, EnumValue})
_LEAVES = VAR_TYPES | CONSTANT_TYPES
"""The exact types (the walks test `type(x) in ...`, cheaper than `isinstance` chains)."""


def attr_exprs(value: Any) -> list[Expr]:
    """The expressions inside a call attribute value (a Var, or a list/tuple of them)."""
    if isinstance(value, _ATTR_EXPR_TYPES):
        return [value]
    if isinstance(value, (list, tuple)):
        return [expr for item in value for expr in attr_exprs(item)]
    return []


def sub_exprs(expr: Expr) -> Sequence[Expr]:
    """Direct sub-expressions in evaluation order (call: args, kwargs, then Var-valued attrs).
    Often the node's own list, not a copy: callers only read it."""
    return _CHILDREN.get(type(expr), _no_children)(expr)


def _no_children(_expr: Expr) -> Sequence[Expr]:
    return ()


def _call_children(call: Call) -> Sequence[Expr]:
    if not call.kwargs and not call.attrs:
        return call.args  # most calls
    subs = [*call.args, *call.kwargs.values()]
    for value in call.attrs.values():
        subs += attr_exprs(value)
    return subs


_CHILDREN: dict[type, Callable[[Any], Sequence[Expr]]] = {
    Call: _call_children,
    BinaryExpr: lambda e: (e.left, e.right),
    TupleExpr: lambda e: e.items,
    ListExpr: lambda e: e.items,
    UnaryExpr: lambda e: (e.operand,),
    TupleGetItem: lambda e: (e.tuple,),
    OpaqueExpr: lambda e: e.operands,
}
"""Sub-expressions of every expression node with any (leaves have none)."""


def expr_vars(expr: Expr | None) -> list[Var]:
    """Every variable the expression reads, left to right (with repeats)."""
    found: list[Var] = []
    if expr is not None:
        add_vars(expr, found)
    return found


def add_vars(expr: Expr, found: list[Var]) -> None:
    """The walk behind `expr_vars` and `vars_mentioned`, the passes' hottest loop: it appends to
    one list instead of chaining generators, and handles leaves without a call of their own."""
    kind = type(expr)
    if kind in VAR_TYPES:
        found.append(expr)  # type: ignore[arg-type]
        return
    for sub in _CHILDREN.get(kind, _no_children)(expr):  # `sub_exprs`, one call fewer
        kind = type(sub)
        if kind in VAR_TYPES:
            found.append(sub)  # type: ignore[arg-type]
        elif kind not in _LEAVES:
            add_vars(sub, found)


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


_ONE_BODY = frozenset({ForStmt, WhileStmt, ScopeStmt})
_NO_CHILDREN: tuple[list[Stmt], ...] = ()


def stmt_children(stmt: Stmt) -> Sequence[list[Stmt]]:
    """The statement lists nested directly in `stmt`."""
    kind = type(stmt)
    if kind in _ONE_BODY:
        return (stmt.body,)  # type: ignore[union-attr]
    if kind is IfStmt:
        assert isinstance(stmt, IfStmt)
        return (stmt.then_body,) if stmt.else_body is None else (stmt.then_body, stmt.else_body)
    return _NO_CHILDREN


def walk_stmts(stmts: list[Stmt]) -> list[Stmt]:
    """Every statement, pre-order."""
    found: list[Stmt] = []
    _add_stmts(stmts, found)
    return found


def _add_stmts(stmts: list[Stmt], found: list[Stmt]) -> None:
    for stmt in stmts:
        found.append(stmt)
        kind = type(stmt)
        if kind in _ONE_BODY:
            _add_stmts(stmt.body, found)  # type: ignore[union-attr]
        elif kind is IfStmt:
            assert isinstance(stmt, IfStmt)
            _add_stmts(stmt.then_body, found)
            if stmt.else_body is not None:
                _add_stmts(stmt.else_body, found)


def stmt_exprs(stmt: Stmt) -> Sequence[Expr]:
    """The expressions `stmt` itself evaluates (not those of nested statements); may be the
    statement's own list: callers only read it."""
    return _STMT_EXPRS[type(stmt)](stmt)


_STMT_EXPRS: dict[type, Callable[[Any], Sequence[Expr]]] = {
    AssignStmt: lambda s: (s.value,),
    EvalStmt: lambda s: (s.expr,),
    ReturnStmt: lambda s: s.values,
    YieldStmt: lambda s: s.values,
    ForStmt: lambda s: [*(a.init for a in s.iter_args if a.init is not None), s.start, s.stop, s.step],
    WhileStmt: lambda s: [*(a.init for a in s.iter_args if a.init is not None), s.cond],
    IfStmt: lambda s: (s.cond,),
    ScopeStmt: lambda s: [*scope_attr_exprs(s), *scope_bookkeeping(s)],
    BreakStmt: lambda s: (),
    ContinueStmt: lambda s: (),
}


def walk_calls(stmts: list[Stmt]) -> list[Call]:
    """Every call in the statements, nested statements and nested expressions included."""
    found: list[Call] = []
    for stmt in walk_stmts(stmts):
        for expr in stmt_exprs(stmt):
            add_calls(expr, found)
    return found


def expr_calls(expr: Expr) -> list[Call]:
    """Every call in the expression, pre-order (a call before the calls in its arguments)."""
    found: list[Call] = []
    add_calls(expr, found)
    return found


def add_calls(expr: Expr, found: list[Call]) -> None:
    """`expr_calls` appending to `found` (the statement facts collect every expression into one list)."""
    kind = type(expr)
    if kind is Call:
        found.append(expr)  # type: ignore[arg-type]
    for sub in _CHILDREN.get(kind, _no_children)(expr):
        if type(sub) not in _LEAVES:
            add_calls(sub, found)


def stmt_defs(stmt: Stmt) -> Sequence[Var]:
    """Variables `stmt` itself binds (not nested statements): assignment target, loop var,
    iter_args and return vars."""
    defs = _STMT_DEFS.get(type(stmt))
    return defs(stmt) if defs is not None else ()


_STMT_DEFS: dict[type, Callable[[Any], Sequence[Var]]] = {
    AssignStmt: lambda s: (s.target,),
    ForStmt: lambda s: [*s.return_vars, s.loop_var, *s.iter_args],
    WhileStmt: lambda s: [*s.return_vars, *s.iter_args],
    IfStmt: lambda s: s.return_vars,
}


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
    found.extend(stmt_defs(stmt))
    for expr in stmt_exprs(stmt):
        add_vars(expr, found)
    if isinstance(stmt, ScopeStmt):
        found += [d.var for d in stmt.cache_policies]


# ---------------------------------------------------------------------------------------------
# Substitution (copy-on-write)


def substitute_expr(expr: Expr, mapping: Mapping[Var, Expr]) -> Expr:
    """`expr` with every mapped variable replaced: `expr` itself when nothing in it is mapped,
    else a new node (over the unchanged sub-expressions); nothing is modified."""
    kind = type(expr)
    if kind in VAR_TYPES:
        return mapping.get(expr, expr)  # type: ignore[arg-type]
    if kind in _LEAVES:
        return expr
    rewrite = _SUBSTITUTE.get(kind)
    if rewrite is None:
        raise TypeError(f"unknown expression node {kind.__name__}")
    return rewrite(expr, mapping)


def _substituted(exprs: list[Expr], mapping: Mapping[Var, Expr]) -> list[Expr]:
    """`[substitute_expr(e, mapping) for e in exprs]`, or `exprs` itself when nothing changed;
    the leaves (most operands) answered without a call each."""
    result: list[Expr] = []
    changed = False
    for expr in exprs:
        kind = type(expr)
        if kind in VAR_TYPES:
            new = mapping.get(expr, expr)  # type: ignore[arg-type]
        elif kind in _LEAVES:
            new = expr
        else:
            new = substitute_expr(expr, mapping)
        changed = changed or new is not expr
        result.append(new)
    return result if changed else exprs


def _substitute_call(call: Call, mapping: Mapping[Var, Expr]) -> Expr:
    args = _substituted(call.args, mapping)
    kwargs = {k: substitute_expr(v, mapping) for k, v in call.kwargs.items()} if call.kwargs else call.kwargs
    attrs = {k: _substitute_attr(v, mapping) for k, v in call.attrs.items()} if call.attrs else call.attrs
    if args is call.args and same_values(call.kwargs, kwargs) and same_values(call.attrs, attrs):
        return call
    return copy_with(call, args=args, kwargs=kwargs, attrs=attrs)


def _substitute_binary(expr: BinaryExpr, mapping: Mapping[Var, Expr]) -> Expr:
    left, right = substitute_expr(expr.left, mapping), substitute_expr(expr.right, mapping)
    return expr if left is expr.left and right is expr.right else copy_with(expr, left=left, right=right)


def _substitute_unary(expr: UnaryExpr, mapping: Mapping[Var, Expr]) -> Expr:
    operand = substitute_expr(expr.operand, mapping)
    return expr if operand is expr.operand else copy_with(expr, operand=operand)


def _substitute_items(expr: TupleExpr | ListExpr, mapping: Mapping[Var, Expr]) -> Expr:
    items = _substituted(expr.items, mapping)
    return expr if items is expr.items else copy_with(expr, items=items)


def _substitute_get_item(expr: TupleGetItem, mapping: Mapping[Var, Expr]) -> Expr:
    inner = substitute_expr(expr.tuple, mapping)
    return expr if inner is expr.tuple else copy_with(expr, tuple=inner)


def _substitute_opaque(expr: OpaqueExpr, mapping: Mapping[Var, Expr]) -> Expr:
    operands = _substituted(expr.operands, mapping)
    return expr if operands is expr.operands else copy_with(expr, operands=operands)


_SUBSTITUTE: dict[type, Callable[[Any, Mapping[Var, Expr]], Expr]] = {
    Call: _substitute_call,
    BinaryExpr: _substitute_binary,
    UnaryExpr: _substitute_unary,
    TupleExpr: _substitute_items,
    ListExpr: _substitute_items,
    TupleGetItem: _substitute_get_item,
    OpaqueExpr: _substitute_opaque,
}


def _substitute_attr(value: Any, mapping: Mapping[Var, Expr]) -> Any:
    if isinstance(value, Var):
        return mapping.get(value, value)
    if isinstance(value, (list, tuple)):
        items = [_substitute_attr(v, mapping) for v in value]
        if same_items(value, items):
            return value
        return items if isinstance(value, list) else tuple(items)
    return value


def _substitute_var(var: Var, mapping: Mapping[Var, Expr]) -> Var:
    new = mapping.get(var, var)
    return new if isinstance(new, Var) else var


def substitute_stmt(stmt: Stmt, mapping: Mapping[Var, Expr]) -> Stmt:
    """`stmt` with the expressions it evaluates itself (not those of nested statements)
    substituted: `stmt` when nothing changed, else a new statement. A loop whose seed changes
    gets new `IterArg`s (an `IterArg` holds its seed, and no pass modifies a variable), its
    body reading them instead of the old ones."""
    kind = type(stmt)
    if kind is AssignStmt:
        assert isinstance(stmt, AssignStmt)
        value = substitute_expr(stmt.value, mapping)
        return stmt if value is stmt.value else copy_with(stmt, value=value)
    if kind is EvalStmt:
        assert isinstance(stmt, EvalStmt)
        expr = substitute_expr(stmt.expr, mapping)
        return stmt if expr is stmt.expr else copy_with(stmt, expr=expr)
    if kind is ForStmt or kind is WhileStmt:
        assert isinstance(stmt, (ForStmt, WhileStmt))
        changes = loop_header_changes(stmt, lambda expr: substitute_expr(expr, mapping))
        return copy_with(stmt, **changes) if changes else stmt
    if kind is IfStmt:
        assert isinstance(stmt, IfStmt)
        cond = substitute_expr(stmt.cond, mapping)
        return stmt if cond is stmt.cond else copy_with(stmt, cond=cond)
    if kind is ScopeStmt:
        assert isinstance(stmt, ScopeStmt)
        return _substitute_scope(stmt, mapping)
    if kind is ReturnStmt or kind is YieldStmt:
        assert isinstance(stmt, (ReturnStmt, YieldStmt))
        values = _substituted(stmt.values, mapping)
        return stmt if values is stmt.values else copy_with(stmt, values=values)
    return stmt


def rewritten_fields(node: object, fields: Iterable[str], rewrite: Callable[[Expr], Expr]) -> dict[str, Any]:
    """The fields of `node` named in `fields` (an expression each, or None: left out) that
    `rewrite` changes, with what it makes of them: `copy_with` changes, empty when it changes
    none."""
    changes: dict[str, Any] = {}
    for field in fields:
        old = getattr(node, field)
        if old is not None and (new := rewrite(old)) is not old:
            changes[field] = new
    return changes


_LOOP_HEADERS = {ForStmt: ("start", "stop", "step"), WhileStmt: ("cond",)}


def loop_header_changes(loop: ForStmt | WhileStmt, rewrite: Callable[[Expr], Expr]) -> dict[str, Any]:
    """The changes (`copy_with` fields) `rewrite` makes to what `loop` evaluates itself: its
    range or condition, and its iter_args' seeds (`reseeded`); empty when it changes nothing."""
    changes = rewritten_fields(loop, _LOOP_HEADERS[type(loop)], rewrite)
    changes.update(reseeded(loop, [rewrite(a.init) if a.init is not None else None for a in loop.iter_args]))
    return changes


def reseeded(loop: ForStmt | WhileStmt, seeds: Sequence[Expr | None]) -> dict[str, Any]:
    """The changes (`copy_with` fields) that seed `loop`'s iter_args with `seeds`, in order:
    each `IterArg` whose seed is not its `init` is replaced by a new one seeded so (an `IterArg`
    holds its seed, and no pass modifies a variable), and the body reads the new ones; empty
    when every seed is as it was."""
    fresh: dict[Var, Expr] = {}
    for arg, seed in zip(loop.iter_args, seeds, strict=True):
        if seed is not arg.init:
            fresh[arg] = IterArg(arg.name, arg.type, arg.span, seed)
    if not fresh:
        return {}
    return {
        "iter_args": [fresh.get(a, a) for a in loop.iter_args],
        "body": substitute_block(loop.body, fresh),
    }


def _substitute_scope(stmt: ScopeStmt, mapping: Mapping[Var, Expr]) -> Stmt:
    changes: dict[str, Any] = {}
    deps = _substituted(stmt.deps, mapping)
    if deps is not stmt.deps:
        changes["deps"] = deps
    for field in ("no_dep_args", "dump_vars"):
        old = getattr(stmt, field)
        new = [_substitute_var(v, mapping) for v in old]
        if not same_items(old, new):
            changes[field] = new
    if stmt.task_id_var is not None:
        task_id = _substitute_var(stmt.task_id_var, mapping)
        if task_id is not stmt.task_id_var:
            changes["task_id_var"] = task_id
    changes.update(
        rewritten_fields(stmt, ("predicate", "core_num"), lambda expr: substitute_expr(expr, mapping))
    )
    decls = [
        d if (var := _substitute_var(d.var, mapping)) is d.var else copy_with(d, var=var)
        for d in stmt.cache_policies
    ]
    if not same_items(stmt.cache_policies, decls):
        changes["cache_policies"] = decls
    return copy_with(stmt, **changes) if changes else stmt


def with_blocks(stmt: Stmt, blocks: Sequence[list[Stmt]]) -> Stmt:
    """`stmt` with its nested blocks (`stmt_children`' order) replaced: `stmt` itself when each
    new block holds the same statements, else a new statement."""
    old = stmt_children(stmt)
    if same_blocks(old, blocks):
        return stmt
    if type(stmt) is IfStmt:
        assert isinstance(stmt, IfStmt)
        return copy_with(stmt, then_body=blocks[0], else_body=blocks[1] if len(blocks) > 1 else None)
    return copy_with(stmt, body=blocks[0])


def substitute_block(stmts: list[Stmt], mapping: Mapping[Var, Expr]) -> list[Stmt]:
    """The block with every statement, nested ones included, substituted (`substitute_stmt`):
    `stmts` itself when nothing changed; a statement nothing in changed is kept as it is."""
    if not mapping:
        return stmts
    result: list[Stmt] = []
    changed = False
    for stmt in stmts:
        new = substitute_stmt(stmt, mapping)
        children = stmt_children(new)
        if children:
            new = with_blocks(new, [substitute_block(child, mapping) for child in children])
        changed = changed or new is not stmt
        result.append(new)
    return result if changed else stmts


def encloses(outer: Span, inner: Span) -> bool:
    """`inner` lies textually inside `outer`. The front end reports textual nesting errors itself;
    statements spliced in from an Inline helper keep the helper's spans, so a nesting the front
    end could not see is one whose spans are not enclosed."""
    return (outer.start_line, outer.start_col) <= (inner.start_line, inner.start_col) and (
        inner.end_line,
        inner.end_col,
    ) <= (outer.end_line, outer.end_col)
