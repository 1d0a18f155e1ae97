"""OutlineGraphScopes: `with pl.graph("name")` -> `Function(Graph)` (spec 004, §4.4).

Runs before OutlineIncoreScopes so the InCore scopes inside a region are outlined from a Graph
function exactly as from a hand-written `@pl.jit.graph`. The region name is the function name
(disambiguated, never merged); the parent keeps its type.
"""

from __future__ import annotations

from collections.abc import Callable

from ..diagnostics import Diagnostic, Related, Severity, error
from ..ir import Function, FunctionType, Level, Program, Role, ScopeKind, ScopeStmt, Stmt
from .context import PassContext
from .outline_ir import encloses, stmt_children
from .outliner import OutlineConfig, outline_program
from .stmt_facts import holds_kind

GRAPH = OutlineConfig(ScopeKind.Graph, FunctionType.Graph, lambda _scope: "_graph_")
_PROCESSED = (FunctionType.Opaque, FunctionType.Orchestration, FunctionType.Graph)


def outline_graph_scopes(context: PassContext | None = None) -> Callable[[Program], Program]:
    def run(program: Program) -> Program:
        ctx = context if context is not None else PassContext()
        with_regions = [fn for fn in program.functions if holds_kind(fn.body, (ScopeKind.Graph,))]
        if not with_regions:
            return program  # the usual case: nothing to outline, nothing to report
        for fn in with_regions:
            _report_nested_regions(fn, fn.body, None, ctx)
            if fn.type not in _PROCESSED and not ctx.front_end_checked:  # else PTO144 said it
                ctx.diagnostics.append(
                    error(
                        "PTO402",
                        f"internal: pl.graph region in function '{fn.name}' of type {fn.type.value}, "
                        "which OutlineGraphScopes does not process",
                        fn.name_span,
                        hint="InlineFunctions must run before OutlineGraphScopes",
                        function=fn.name,
                    )
                )
        result = outline_program(program, GRAPH, ctx, lambda fn: fn.type in _PROCESSED)
        for fn in result.state.minted:
            fn.level, fn.role = Level.CHIP, Role.Orchestrator
        return result.program

    return run


def _report_nested_regions(
    fn: Function, stmts: list[Stmt], outer: ScopeStmt | None, ctx: PassContext
) -> None:
    """PTO401: a Graph region inside another one, however it was built."""
    for stmt in stmts:
        inner_outer = outer
        if isinstance(stmt, ScopeStmt) and stmt.kind is ScopeKind.Graph:
            if outer is not None and not (ctx.front_end_checked and encloses(outer.span, stmt.span)):
                ctx.diagnostics.append(
                    Diagnostic(
                        "PTO401",
                        Severity.ERROR,
                        f"pl.graph region '{stmt.name_hint}' is nested inside pl.graph region "
                        f"'{outer.name_hint}' in function '{fn.name}'",
                        stmt.header_span,
                        "mark only one of them as a graph region",
                        (Related(f"outer pl.graph region '{outer.name_hint}'", outer.header_span),),
                        {"inner": stmt.name_hint, "outer": outer.name_hint, "function": fn.name},
                    )
                )
            inner_outer = stmt
        for child in stmt_children(stmt):
            _report_nested_regions(fn, child, inner_outer, ctx)
