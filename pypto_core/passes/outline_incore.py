"""OutlineIncoreScopes: `with pl.at(level=pl.Level.CORE_GROUP)` -> `Function(InCore)`
(spec 000, dsl-reference §4.5).

Processes Opaque, Orchestration and Graph functions (D4). An Opaque parent that outlines at
least one scope is promoted to Orchestration, after its parameter dyn-dim reads are folded.
Calls inside a scope give direction evidence from the callee's declared directions (D5).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

from ..diagnostics import Diagnostic, error
from ..ir import (
    Call,
    Function,
    FunctionType,
    Level,
    Program,
    Role,
    ScopeKind,
    ScopeStmt,
    Stmt,
)
from ..results import Promotion
from .context import PassContext
from .dim_fold import fold_param_dim_reads
from .outline_ir import walk_calls
from .outliner import OutlineConfig, outline_program
from .stmt_facts import holds_kind, walk_kept

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
    """The fold on promotion: an Opaque parent holding an InCore scope (`prepare` runs only on
    those) has its whole body folded, spliced helpers included. An Orchestration body is not
    folded here: the parser folded its own reads (`frontend/programs.py`), a spliced helper's
    stay runtime reads. True if it folded something."""
    return fn.type is FunctionType.Opaque and fold_param_dim_reads(fn)


def _check_left_predicates(
    program: Program, rewritten: set[str], known_calls: dict[Function, list[Call]], ctx: PassContext
) -> None:
    """§4.5.5: a predicate that ended up where no launch happens (PTO403 / PTO404).
    `known_calls`: the calls of functions the pass minted, where the outliner knew them (those
    held no InCore scope when outlined, so they hold no predicated one now)."""
    for fn in program.functions:  # a keystroke's program shares hundreds of functions: kept
        if fn.name in rewritten and not fn.type.is_device:
            continue
        kept = _LEFT.get(fn)
        if kept is not None and kept[0] is fn.body and kept[1] is fn.type:
            if kept[2]:
                ctx.diagnostics += kept[2]
            continue
        ctx.diagnostics += _left_predicates(fn, known_calls.get(fn))


def _left_predicates(fn: Function, calls: list[Call] | None) -> list[Diagnostic]:
    """What `_check_left_predicates` finds in `fn`, kept with the function while its body and
    type are those objects (`_LEFT`, which it reads first): a keystroke's program shares all but
    a few of its hundreds of functions (the kernels, the functions kept outlinings minted) with
    the last one, and looking through each again was a walk of the whole program per keystroke."""
    found: list[Diagnostic] = []
    if calls is None and holds_kind(fn.body, (ScopeKind.InCore,)):
        found += _predicated_scopes(fn)
    if fn.type.is_device:
        for call in calls if calls is not None else walk_calls(fn.body):
            if call.submit and "predicate" in call.attrs:
                found.append(
                    error(
                        "PTO404",
                        f"predicated dispatch ends up inside device function '{fn.name}'",
                        call.span,
                        hint="move the predicated pl.at to the orchestration function's top level",
                        function=fn.name,
                    )
                )
    _LEFT[fn] = (fn.body, fn.type, found)
    return found


# a function -> (the body and type its findings were made for, its PTO403s and PTO404s)
_LEFT: weakref.WeakKeyDictionary[Function, tuple[list[Stmt], FunctionType, list[Diagnostic]]] = (
    weakref.WeakKeyDictionary()
)


def _predicated_scopes(fn: Function) -> list[Diagnostic]:
    """PTO403: a predicated InCore scope left in a function that is never launched as a task."""
    return [
        error(
            "PTO403",
            f"predicated pl.at(...) in function '{fn.name}' is never launched as a task, "
            "so its predicate would be silently dropped",
            stmt.header_span,
            hint="write the predicated pl.at in the launching orchestration function",
            function=fn.name,
        )
        for stmt in walk_kept(fn.body)
        if isinstance(stmt, ScopeStmt) and stmt.kind is ScopeKind.InCore and stmt.predicate is not None
    ]
