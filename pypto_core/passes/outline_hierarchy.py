"""OutlineHierarchyScopes: `with pl.at(level=..., role=...)` (any level but CORE_GROUP) ->
an Opaque function carrying that level and role (spec 003, dsl-reference §4.3).

Only Opaque functions are processed and the parent keeps its type. No store-target export, and
a `tile.store` destination stays `In` (D3).
"""

from __future__ import annotations

from collections.abc import Callable

from ..diagnostics import error
from ..ir import FunctionType, Program, ScopeKind, ScopeStmt
from .context import PassContext
from .outliner import OutlineConfig, outline_program
from .stmt_facts import holds_kind, walk_kept


def hierarchy_suffix(scope: ScopeStmt) -> str:
    """`_{level}[_{role}]_` (`_host_orch_`, `_chip_`); the level's canonical name (D1 roles)."""
    level = f"_{scope.level.suffix}" if scope.level is not None else ""
    role = f"_{scope.role.suffix}" if scope.role is not None else ""
    return f"{level}{role}_"


HIERARCHY = OutlineConfig(ScopeKind.Hierarchy, FunctionType.Opaque, hierarchy_suffix)


def outline_hierarchy_scopes(context: PassContext | None = None) -> Callable[[Program], Program]:
    def run(program: Program) -> Program:
        ctx = context if context is not None else PassContext()
        for fn in program.functions:
            if not holds_kind(fn.body, (ScopeKind.Hierarchy,)):
                continue  # kept per compound statement: no walk of the program's bodies
            for stmt in walk_kept(fn.body):
                if (
                    isinstance(stmt, ScopeStmt)
                    and stmt.kind is ScopeKind.Hierarchy
                    and stmt.predicate is not None
                ):
                    ctx.diagnostics.append(
                        error(
                            "PTO408",
                            f"internal: Hierarchy scope in function '{fn.name}' carries a predicate",
                            stmt.header_span,
                            hint="predicate= is only supported with level=pl.Level.CORE_GROUP",
                            function=fn.name,
                        )
                    )
        return outline_program(program, HIERARCHY, ctx, lambda fn: fn.type is FunctionType.Opaque).program

    return run
