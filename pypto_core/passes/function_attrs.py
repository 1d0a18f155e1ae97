"""Attributes the shared outliner stamps on an outlined function (dsl-reference §4.2.10): the
InCore split/AIV-split bridging and launch options, and the cache-policy translation."""

from __future__ import annotations

from ..diagnostics import Diagnostic, error
from ..ir import CachePolicy, Direction, ScopeKind, ScopeStmt, SplitMode, Stmt, Var
from .outline_ir import walk_stmts


def function_attrs(
    scope: ScopeStmt,
    body: list[Stmt],
    captures: list[Var],
    directions: list[Direction],
    front_end_checked: bool,
    waiter: bool,
) -> tuple[dict[str, object], list[Diagnostic]]:
    """The outlined function's attributes, and the user errors found building them. `waiter`:
    the body calls `pld.system.defer_wait` (the caller knows it without walking the body)."""
    found: list[Diagnostic] = []
    attrs: dict[str, object] = {}
    if scope.kind is ScopeKind.InCore:
        attrs.update(_incore_attrs(scope, body, front_end_checked, waiter, found))
    policies = _cache_policies(scope, captures, directions, found)
    if policies:
        attrs["cache_policy"] = policies
    return attrs, found


def _incore_attrs(
    scope: ScopeStmt, body: list[Stmt], front_end_checked: bool, waiter: bool, found: list[Diagnostic]
) -> dict[str, object]:
    """`split` / `split_aiv` (spec 000's bridging table), `slot_num`, `windowize`, the waiter
    marker; PTO305 backs up the parser's PTO171 for IR it did not build."""
    attrs: dict[str, object] = {}
    split = scope.split if scope.split not in (None, SplitMode.NONE) else None
    regions = [s for s in walk_stmts(body) if isinstance(s, ScopeStmt) and s.kind is ScopeKind.SplitAiv]
    if regions and split is not None and not front_end_checked:
        found.append(
            error(
                "PTO305",
                f"scope combines a function-level pl.split(pl.SplitMode.{split.value}) with a "
                "pl.split_aiv region; these are mutually exclusive AIV-split mechanisms",
                scope.header_span,
                hint="remove one of them; use optimizations=[pl.cross_core_slot(slot_num=N)] for the "
                "cross-core slot count",
            )
        )
    elif regions:
        attrs["split_aiv"] = True
        modes = {r.split or SplitMode.NONE for r in regions}
        if len(modes) == 1 and SplitMode.NONE not in modes:
            attrs["split"] = modes.pop()
    if split is not None:
        attrs["split"] = split
    if scope.slot_num is not None:
        attrs["slot_num"] = scope.slot_num
    if scope.windowize:
        attrs["windowize"] = True
    if waiter:
        attrs["deferred_completion_waiter"] = True
    return attrs


def _cache_policies(
    scope: ScopeStmt, captures: list[Var], directions: list[Direction], found: list[Diagnostic]
) -> list[tuple[int, int]]:
    """Spec 000: declarations become (param index, policy) sorted by index; PTO302/PTO303."""
    chosen: dict[int, int] = {}
    for decl in scope.cache_policies:
        if decl.var not in captures:
            found.append(
                error(
                    "PTO302",
                    f"pl.set_cache_policy names '{decl.var.base_name}', which this scope neither "
                    "reads nor writes, so no parameter carries the policy",
                    decl.span,
                    hint="remove the declaration or use the tensor in the scope",
                    tensor=decl.var.base_name,
                )
            )
            continue
        index = captures.index(decl.var)
        if decl.policy is CachePolicy.BYPASS and directions[index] is not Direction.In:
            found.append(
                error(
                    "PTO303",
                    f"pl.CachePolicy.BYPASS is not allowed on a tensor this scope writes: "
                    f"'{decl.var.base_name}' is {directions[index].value}",
                    decl.span,
                    hint="drop BYPASS: a bypassing read of bytes the same kernel writes is a coherency bug",
                    tensor=decl.var.base_name,
                    direction=directions[index].value,
                )
            )
            continue
        chosen.setdefault(index, decl.policy.as_int)
    return sorted(chosen.items())
