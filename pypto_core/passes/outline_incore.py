"""OutlineIncoreScopes: `with pl.at(level=pl.Level.CORE_GROUP)` -> `Function(InCore)`
(spec 000, dsl-reference §4.5).

Processes Opaque, Orchestration and Graph functions (D4). An Opaque parent that outlines at
least one scope is promoted to Orchestration, after its parameter dyn-dim reads are folded.
Calls inside a scope give direction evidence from the callee's declared directions (D5).
"""

from __future__ import annotations

from collections.abc import Callable

from ..diagnostics import error
from ..ir import (
    INDEX,
    AssignStmt,
    Call,
    Const,
    Dim,
    Expr,
    Function,
    FunctionType,
    Level,
    ListExpr,
    Program,
    Role,
    ScopeKind,
    ScopeStmt,
    Stmt,
    TensorType,
    TupleExpr,
    Var,
)
from ..results import Promotion
from .context import PassContext
from .outline_ir import stmt_children, substitute_stmt, walk_calls, walk_stmts
from .outliner import OutlineConfig, outline_program

INCORE = OutlineConfig(ScopeKind.InCore, FunctionType.InCore, lambda _scope: "_incore_")
_PROCESSED = (FunctionType.Opaque, FunctionType.Orchestration, FunctionType.Graph)


def outline_incore_scopes(context: PassContext | None = None) -> Callable[[Program], Program]:
    def run(program: Program) -> Program:
        ctx = context if context is not None else PassContext()
        result = outline_program(
            program, INCORE, ctx, lambda fn: fn.type in _PROCESSED, prepare=_fold_dim_reads
        )
        for fn in result.program.functions:
            if fn.type is FunctionType.Opaque and result.outlined_in.get(fn.name, 0) > 0:
                fn.type = FunctionType.Orchestration
                ctx.promoted.append(Promotion(program.name, fn.name, FunctionType.Orchestration.value))
            if fn.type.is_orchestration_like and fn.name in result.outlined_in:
                # D6: a promoted Hierarchy function keeps the level/role it was outlined with.
                fn.level = fn.level or Level.CHIP
                fn.role = fn.role or Role.Orchestrator
        _check_left_predicates(result.program, set(result.outlined_in), result.state.known_calls, ctx)
        return result.program

    return run


def _fold_dim_reads(fn: Function) -> bool:
    """The fold happens on promotion of an Opaque parent; the parser performs the identical fold
    in Orchestration bodies, which this repeats so the result does not depend on where the IR
    came from (folding is idempotent). True if it folded something."""
    return fn.type in (FunctionType.Opaque, FunctionType.Orchestration) and fold_param_dim_reads(fn)


def fold_param_dim_reads(fn: Function) -> bool:
    """Spec 000 "Param dyn-dim reads fold on promotion": `v = tensor.dim(t, k)` whose extent is
    a symbol the signature declares is deleted and `v` becomes the symbol. One forward walk is
    transitive: a tensor created with a folded extent makes a later `dim` of it foldable.
    True if it folded a read (else the statements are as they were)."""
    symbols = {
        d
        for p in fn.params
        if isinstance(p.var.type, TensorType) and p.var.type.shape is not None
        for d in p.var.type.shape
        if isinstance(d, str) and d.isidentifier()
    }
    if not symbols:
        return False
    symbol_vars = {name: Var(name, INDEX, fn.name_span) for name in sorted(symbols)}
    folded: dict[Var, Expr] = {}
    extents: dict[Var, tuple[Dim | None, ...]] = {}

    def fold(stmts: list[Stmt]) -> list[Stmt]:
        kept: list[Stmt] = []
        for stmt in stmts:
            substitute_stmt(stmt, folded)
            if isinstance(stmt, AssignStmt):
                symbol = _folded_symbol(stmt.value, symbols, extents)
                if symbol is not None:
                    folded[stmt.target] = symbol_vars[symbol]
                    continue
                created = _created_extents(stmt.value, symbol_vars)
                if created is not None:
                    extents[stmt.target] = created
            for child in stmt_children(stmt):
                child[:] = fold(child)
            kept.append(stmt)
        return kept

    fn.body = fold(fn.body)
    return bool(folded)


def _shape_of(var: Var, extents: dict[Var, tuple[Dim | None, ...]]) -> tuple[Dim | None, ...] | None:
    if var in extents:
        return extents[var]
    return var.type.shape if isinstance(var.type, TensorType) else None


def _folded_symbol(value: Expr, symbols: set[str], extents: dict[Var, tuple[Dim | None, ...]]) -> str | None:
    if not (isinstance(value, Call) and value.op == "tensor.dim" and len(value.args) == 2):
        return None
    tensor, axis = value.args
    if not isinstance(tensor, Var) or not isinstance(axis, Const) or type(axis.value) is not int:
        return None
    shape = _shape_of(tensor, extents)
    if shape is None or not -len(shape) <= axis.value < len(shape):
        return None
    extent = shape[axis.value]
    return extent if isinstance(extent, str) and extent in symbols else None


def _created_extents(value: Expr, symbol_vars: dict[str, Var]) -> tuple[Dim | None, ...] | None:
    """The extents of `tensor.create([...])` whose entries are constants or folded symbols."""
    if not (isinstance(value, Call) and value.op == "tensor.create" and value.args):
        return None
    shape = value.args[0]
    if not isinstance(shape, (ListExpr, TupleExpr)):
        return None
    by_var = {v: name for name, v in symbol_vars.items()}
    dims: list[Dim | None] = []
    for item in shape.items:
        if isinstance(item, Var) and item in by_var:
            dims.append(by_var[item])
        elif isinstance(item, Const) and type(item.value) is int:
            dims.append(item.value)
        else:
            dims.append(None)
    return tuple(dims)


def _check_left_predicates(
    program: Program, rewritten: set[str], known_calls: dict[Function, list[Call]], ctx: PassContext
) -> None:
    """§4.5.5: a predicate that ended up where no launch happens (PTO403 / PTO404).
    `known_calls`: the calls of functions the pass minted, where the outliner knew them (those
    held no InCore scope when outlined, so they hold no predicated one now)."""
    for fn in program.functions:
        if fn.name in rewritten and not fn.type.is_device:
            continue
        if fn not in known_calls:
            _check_predicated_scopes(fn, ctx)
        if not fn.type.is_device:
            continue
        calls = known_calls.get(fn)
        for call in calls if calls is not None else walk_calls(fn.body):
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


def _check_predicated_scopes(fn: Function, ctx: PassContext) -> None:
    """PTO403: a predicated InCore scope left in a function that is never launched as a task."""
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
