"""Forward-sticky `pl.dump_tag(t)`: the tagged tensors join the `dump_vars` of every
non-runtime scope that starts after the tag (dsl-reference §2.1).

The builder keeps each tag as a `tensor.dump_tag` statement, because a tag and the scopes it
reaches may sit in different functions until InlineFunctions has spliced `@pl.jit.inline`
helpers into their callers. `apply_dump_tags` then resolves the tags of one function in source
order and drops the statements. A tag names a *value*: rebinding the tagged name ends the tag,
so a scope reading the new value is not tagged (the compiler keys tags by SSA value). A launch
scope that writes a tagged tensor (a store target) also ends its tag: the outlined call returns
the written tensor as a new value, which later scopes capture instead.
"""

from __future__ import annotations

from ..ir import Call, EvalStmt, Expr, ForStmt, Function, IfStmt, ScopeKind, ScopeStmt, Stmt, Var, WhileStmt
from ..ops import written_args
from ..passes.outline_ir import defs_in, walk_calls

DUMP_TAG_OP = "tensor.dump_tag"


def is_dump_tag(stmt: Stmt) -> bool:
    return isinstance(stmt, EvalStmt) and isinstance(stmt.expr, Call) and stmt.expr.op == DUMP_TAG_OP


def apply_dump_tags(function: Function) -> None:
    """Merge the function's tags into the scopes after them and remove the tag statements
    (idempotent: a function without tag statements is left unchanged)."""
    function.body = _resolve(function.body, [])


def _resolve(stmts: list[Stmt], sticky: list[Var]) -> list[Stmt]:
    kept: list[Stmt] = []
    for stmt in stmts:
        if is_dump_tag(stmt):
            assert isinstance(stmt, EvalStmt) and isinstance(stmt.expr, Call)
            sticky.extend(var for var in _vars(stmt.expr.args) if var not in sticky)
            continue
        if isinstance(stmt, ScopeStmt):
            if stmt.kind is not ScopeKind.Runtime:
                stmt.dump_vars.extend(var for var in sticky if var not in stmt.dump_vars)
            stmt.body = _resolve(stmt.body, sticky)
            if sticky and stmt.kind not in (ScopeKind.Runtime, ScopeKind.SplitAiv):
                _untag(sticky, list(written_vars(stmt.body)))
        elif isinstance(stmt, (ForStmt, WhileStmt)):
            stmt.body = _resolve(stmt.body, sticky)
            _untag(sticky, stmt.return_vars)
        elif isinstance(stmt, IfStmt):
            stmt.then_body = _resolve(stmt.then_body, sticky)
            if stmt.else_body is not None:
                stmt.else_body = _resolve(stmt.else_body, sticky)
            _untag(sticky, stmt.return_vars)
        else:
            target = getattr(stmt, "target", None)
            if isinstance(target, Var):
                _untag(sticky, [target])
        kept.append(stmt)
    return kept


def written_vars(stmts: list[Stmt]) -> set[Var]:
    """Variables the statements assign or write through an op's written argument (a store
    destination, an assemble target, ...), nested statements included."""
    found = defs_in(stmts)
    for call in walk_calls(stmts):
        found.update(arg for index, _ in written_args(call) if isinstance(arg := call.args[index], Var))
    return found


def _untag(sticky: list[Var], rebound: list[Var]) -> None:
    for var in rebound:
        if var in sticky:
            sticky.remove(var)


def _vars(args: list[Expr]) -> list[Var]:
    return [arg for arg in args if isinstance(arg, Var)]
