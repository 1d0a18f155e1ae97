"""OutlineIncoreScopes: `with pl.at(level=pl.Level.CORE_GROUP)` -> `Function(InCore)`
(spec 000, dsl-reference §4.5).

Processes Opaque, Orchestration and Graph functions (D4). An Opaque parent that outlines at
least one scope is promoted to Orchestration, after its parameter dyn-dim reads are folded.
No callee resolution: calls inside a scope are plain reads (§4.0).
"""

from __future__ import annotations

from collections.abc import Callable

from ..diagnostics import error
from ..ir import (
    AssignStmt,
    Call,
    Const,
    Expr,
    Function,
    FunctionType,
    Level,
    OpaqueExpr,
    Program,
    Role,
    ScopeKind,
    ScopeStmt,
    Stmt,
    TensorType,
    Var,
)
from ..results import Promotion
from .context import PassContext
from .outline_ir import stmt_children, substitute_block, walk_calls, walk_stmts
from .outliner import OutlineConfig, outline_program

INCORE = OutlineConfig(
    ScopeKind.InCore, FunctionType.InCore, lambda _scope: "_incore_", callee_resolution=False
)
_PROCESSED = (FunctionType.Opaque, FunctionType.Orchestration, FunctionType.Graph)


def outline_incore_scopes(context: PassContext | None = None) -> Callable[[Program], Program]:
    def run(program: Program) -> Program:
        ctx = context if context is not None else PassContext()
        result = outline_program(
            program, INCORE, ctx, lambda fn: fn.type in _PROCESSED, prepare=_fold_if_opaque
        )
        for fn in result.program.functions:
            if fn.type is FunctionType.Opaque and result.outlined_in.get(fn.name, 0) > 0:
                fn.type = FunctionType.Orchestration
                ctx.promoted.append(Promotion(program.name, fn.name, FunctionType.Orchestration.value))
            if fn.type.is_orchestration_like and fn.name in result.outlined_in:
                fn.level, fn.role = Level.CHIP, Role.Orchestrator
        _check_left_predicates(result.program, set(result.outlined_in), ctx)
        return result.program

    return run


def _fold_if_opaque(fn: Function) -> None:
    if fn.type is FunctionType.Opaque:
        fold_param_dim_reads(fn)


def fold_param_dim_reads(fn: Function) -> None:
    """Spec 000 "Param dyn-dim reads fold on promotion": `v = tensor.dim(t, k)` whose extent is
    a symbol the signature declares is deleted and `v` becomes the symbol."""
    symbols = {
        d
        for p in fn.params
        if isinstance(p.var.type, TensorType) and p.var.type.shape is not None
        for d in p.var.type.shape
        if isinstance(d, str) and d.isidentifier()
    }
    if not symbols:
        return
    folded: dict[Var, Expr] = {}

    def fold(stmts: list[Stmt]) -> list[Stmt]:
        kept: list[Stmt] = []
        for stmt in stmts:
            symbol = _folded_symbol(stmt, symbols)
            if symbol is not None and isinstance(stmt, AssignStmt):
                folded[stmt.target] = OpaqueExpr(symbol, [], stmt.target.type, stmt.span)
                continue
            for child in stmt_children(stmt):
                child[:] = fold(child)
            kept.append(stmt)
        return kept

    fn.body = fold(fn.body)
    substitute_block(fn.body, folded)


def _folded_symbol(stmt: Stmt, symbols: set[str]) -> str | None:
    if not (isinstance(stmt, AssignStmt) and isinstance(stmt.value, Call) and stmt.value.op == "tensor.dim"):
        return None
    args = stmt.value.args
    if len(args) != 2 or not isinstance(args[0], Var) or not isinstance(args[1], Const):
        return None
    tensor_type, axis = args[0].type, args[1].value
    if not isinstance(tensor_type, TensorType) or tensor_type.shape is None or not isinstance(axis, int):
        return None
    rank = len(tensor_type.shape)
    if isinstance(axis, bool) or not -rank <= axis < rank:
        return None
    extent = tensor_type.shape[axis]
    return extent if isinstance(extent, str) and extent in symbols else None


def _check_left_predicates(program: Program, rewritten: set[str], ctx: PassContext) -> None:
    """§4.5.5: a predicate that ended up where no launch happens (PTO403 / PTO404)."""
    for fn in program.functions:
        if fn.name in rewritten and not fn.type.is_device:
            continue
        for stmt in walk_stmts(fn.body):
            if isinstance(stmt, ScopeStmt) and stmt.kind is ScopeKind.InCore and stmt.predicate is not None:
                ctx.diagnostics.append(
                    error(
                        "PTO403",
                        f"predicated pl.at(...) in function '{fn.name}' is never launched as a task, "
                        "so its predicate would be silently dropped",
                        stmt.header_span,
                        hint="write the predicated pl.at in the launching orchestration function",
                        function=fn.name,
                    )
                )
        if not fn.type.is_device:
            continue
        for call in walk_calls(fn.body):
            if call.submit and "predicate" in call.attrs:
                ctx.diagnostics.append(
                    error(
                        "PTO404",
                        f"predicated dispatch ends up inside device function '{fn.name}'",
                        call.span,
                        hint="move the predicated pl.at to the orchestration function's top level",
                        function=fn.name,
                    )
                )
