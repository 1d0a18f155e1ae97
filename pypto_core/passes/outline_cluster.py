"""OutlineClusterScopes: `with pl.cluster()` -> `Function(Group)`, then every standalone
`pl.spmd` -> `Function(Spmd)` (dsl-reference §4.6).

Per function, the Cluster outliner runs first; a Group that holds the (one allowed) Spmd scope
is unwrapped and the block count is stamped on the Group's dispatch; then the Spmd outliner
runs on what is left. Both share the pass's reserved names; the Spmd outliner also sees the
Groups just minted as callees. Parents keep their type.
"""

from __future__ import annotations

from collections.abc import Callable

from ..diagnostics import error
from ..ir import Call, Expr, Function, FunctionType, Program, ScopeKind, ScopeStmt, Stmt, Var
from .context import PassContext
from .outline_ir import (
    defs_in,
    expr_vars,
    stmt_children,
    substitute_expr,
    walk_calls,
    with_blocks,
)
from .outliner import OutlineConfig, PassState, copy_selected, outline_function
from .stmt_facts import holds_kind

CLUSTER = OutlineConfig(ScopeKind.Cluster, FunctionType.Group, lambda _scope: "_cluster_")
SPMD = OutlineConfig(ScopeKind.Spmd, FunctionType.Spmd, lambda _scope: "_spmd_")
_PROCESSED = (FunctionType.Opaque, FunctionType.Orchestration, FunctionType.Graph)
_TARGETS = (ScopeKind.Cluster, ScopeKind.Spmd)


def outline_cluster_scopes(context: PassContext | None = None) -> Callable[[Program], Program]:
    def run(program: Program) -> Program:
        ctx = context if context is not None else PassContext()
        selected = {
            fn.name for fn in program.functions if fn.type in _PROCESSED and holds_kind(fn.body, _TARGETS)
        }
        if not selected:
            return program  # no Cluster or Spmd scope: nothing to rewrite
        work = copy_selected(program, selected)
        state = PassState(work, ctx, rewritten=set(selected))
        for fn in list(work.functions):
            if fn.name not in selected:
                continue
            if holds_kind(fn.body, (ScopeKind.Cluster,)):
                first_new = len(state.minted)
                outline_function(CLUSTER, state, fn)
                for group in state.minted[first_new:]:
                    state.rewritten.add(group.name)  # before any lookup of it: its body is set
                    _unwrap_spmd(group, fn, ctx)
            if holds_kind(fn.body, (ScopeKind.Spmd,)):
                outline_function(SPMD, state, fn)
        state.finish()
        return work

    return run


def _unwrap_spmd(group: Function, parent: Function, ctx: PassContext) -> None:
    """§4.6 step 2: the Spmd scope inside a cluster becomes the Group's body; its block count,
    translated from the Group's params to the dispatch's arguments, moves onto the dispatch."""
    spmd_scopes = _top_spmd_scopes(group.body)
    if not spmd_scopes:
        return
    for extra in spmd_scopes[1:]:
        ctx.diagnostics.append(
            error(
                "PTO406",
                f"pl.cluster() '{group.name}' holds more than one pl.spmd(...) scope",
                extra.header_span,
                hint="use one pl.spmd per pl.cluster()",
            )
        )
    spmd = spmd_scopes[0]
    if _carries_launch_options(spmd) and not ctx.front_end_checked:  # else PTO159/PTO160 said it
        ctx.diagnostics.append(
            error(
                "PTO407",
                f"internal: the pl.spmd(...) inside pl.cluster() '{group.name}' carries a TaskId, deps, "
                "allow_early_resolve or a predicate, which would be lost when it is unwrapped",
                spmd.header_span,
                hint="the cluster is launched as one task: put these options on a standalone pl.spmd",
            )
        )
    local = defs_in(group.body)
    dispatch = _dispatch_of(parent, group.name)
    group.body = _splice(group.body, spmd)
    group.attrs["spmd_unwrapped"] = True
    if dispatch is None:
        return
    if spmd.core_num is not None:
        inner = [v for v in expr_vars(spmd.core_num) if v in local]
        if inner:
            ctx.diagnostics.append(
                error(
                    "PTO405",
                    f"the pl.spmd block count inside pl.cluster() reads '{inner[0].base_name}', which is "
                    "defined inside the cluster",
                    spmd.header_span,
                    hint="compute the block count before `with pl.cluster():`",
                    variable=inner[0].base_name,
                )
            )
        else:
            to_args: dict[Var, Expr] = {p.var: a for p, a in zip(group.params, dispatch.args, strict=False)}
            dispatch.attrs["core_num"] = substitute_expr(spmd.core_num, to_args)
    if spmd.sync_start:
        dispatch.attrs["sync_start"] = True


def _carries_launch_options(spmd: ScopeStmt) -> bool:
    return bool(
        spmd.task_id_var is not None or spmd.deps or spmd.allow_early_resolve or spmd.predicate is not None
    )


def _top_spmd_scopes(stmts: list[Stmt]) -> list[ScopeStmt]:
    found: list[ScopeStmt] = []
    for stmt in stmts:
        if isinstance(stmt, ScopeStmt) and stmt.kind is ScopeKind.Spmd:
            found.append(stmt)
            continue
        for child in stmt_children(stmt):
            found.extend(_top_spmd_scopes(child))
    return found


def _splice(stmts: list[Stmt], scope: ScopeStmt) -> list[Stmt]:
    """`stmts` with `scope` replaced by its body, at any depth (copy-on-write)."""
    out: list[Stmt] = []
    for stmt in stmts:
        if stmt is scope:
            out.extend(scope.body)
            continue
        blocks = stmt_children(stmt)
        out.append(with_blocks(stmt, [_splice(block, scope) for block in blocks]) if blocks else stmt)
    return out


def _dispatch_of(parent: Function, name: str) -> Call | None:
    for call in walk_calls(parent.body):
        if call.callee == name:
            return call
    return None
