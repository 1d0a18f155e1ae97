"""The user-facing record of one outlined scope (what lenses, hover and the CLI show).

Everything here uses base names (D11): the call reads like the source the user wrote,
`out = self.main_incore_0(x, off, out)`, not like the SSA IR.
"""

from __future__ import annotations

from ..ir import (
    AssignStmt,
    Call,
    EvalStmt,
    Function,
    ReturnStmt,
    ScopeKind,
    ScopeStmt,
    Stmt,
    TupleGetItem,
    Var,
)
from ..printer import format_type, print_expr, print_function
from ..results import OutlinedParam, OutlinedScope


def outlined_record(
    program: str, parent: str, scope: ScopeStmt, fn: Function, call_stmts: list[Stmt], kind: ScopeKind
) -> OutlinedScope:
    return OutlinedScope(
        name=fn.name,
        kind=kind.value,
        function_type=fn.type.value,
        program=program,
        parent=parent,
        level=scope.level.value if scope.level is not None else None,
        role=scope.role.value if scope.role is not None else None,
        scope_span=scope.span,
        header_span=scope.header_span,
        params=tuple(OutlinedParam(p.var.base_name, p.direction, format_type(p.var.type)) for p in fn.params),
        returns=tuple(_returned_names(fn)),
        call=display_call(call_stmts),
        name_span=scope.name_span,
        function_text=print_function(fn),
    )


def _returned_names(fn: Function) -> list[str]:
    returns = [s for s in fn.body if isinstance(s, ReturnStmt)]
    return [print_expr(v, display=True) for v in returns[-1].values] if returns else []


def display_call(call_stmts: list[Stmt]) -> str:
    """`a, b = self.f(x, y)` from the statements a call site became (base names)."""
    call: Call | None = None
    targets: list[Var] = []
    for stmt in call_stmts:
        if isinstance(stmt, EvalStmt) and isinstance(stmt.expr, Call):
            call = stmt.expr
        elif isinstance(stmt, AssignStmt) and isinstance(stmt.value, Call):
            call = stmt.value
            targets = [stmt.target]
        elif isinstance(stmt, AssignStmt) and isinstance(stmt.value, TupleGetItem):
            if targets and targets[0] is _tuple_source(stmt.value):
                targets = []
            targets.append(stmt.target)
    text = print_expr(call, display=True) if call is not None else ""
    if not targets:
        return text
    return f"{', '.join(t.base_name for t in targets)} = {text}"


def _tuple_source(item: TupleGetItem) -> Var | None:
    return item.tuple if isinstance(item.tuple, Var) else None
