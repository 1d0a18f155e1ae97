"""User errors the shared outliner finds in one scope, as diagnostics (never raised): scalar
outputs only the device can compute (PTO301), deferred waiters in the wrong place or breaking
their contract (PTO306a-e), and captures rebound outside SSA (PTO307)."""

from __future__ import annotations

from .. import ops
from ..diagnostics import Diagnostic, Related, error
from ..ir import AssignStmt, Call, ForStmt, ScopeKind, ScopeStmt, Stmt, Var, WhileStmt
from .deferred_wait import check_deferred_waiter
from .outline_ir import expr_vars, stmt_defs, stmt_exprs, vars_mentioned, walk_stmts
from .scope_analysis import definition_sites

_LAUNCH_KINDS = (ScopeKind.Spmd, ScopeKind.Cluster, ScopeKind.InCore)

PTO301_HINT = (
    "write it into a [1] tensor output and read it back after the scope with "
    "`pl.tensor.read(t, [0])`, or move the computation out of the scope so it depends only on "
    "values the caller has"
)


PTO301_DEAD_CARRY_HINT = (
    "a later scope's loop overwrites '{name}' before reading it, and only carries this value "
    "because it reuses the name: give it another name there"
)


def unhoistable_scalars(
    scope: ScopeStmt, name: str, scalars: list[Var], fn_body: list[Stmt]
) -> list[Diagnostic]:
    """PTO301: one error per scalar output only the device can compute, at its definition.
    `fn_body` (the function the scope is in) tells a dead loop carry apart (`dead_carry`)."""
    found: list[Diagnostic] = []
    if not scalars:
        return found
    sites = definition_sites(scope.body)
    for var in scalars:
        site = sites.get(var)
        diag = error(
            "PTO301",
            f"scope '{name}' computes scalar '{var.base_name}' on the device and it is used after "
            "the scope, but an outlined function cannot return a scalar",
            site.span if site is not None else scope.header_span,
            hint=PTO301_HINT,
            scalar=var.base_name,
            function=name,
        )
        overwrite = dead_carry(var, scope, fn_body)
        if overwrite is not None:
            diag = Diagnostic(
                diag.code,
                diag.severity,
                diag.message,
                diag.span,
                PTO301_DEAD_CARRY_HINT.format(name=var.base_name),
                (Related(f"'{var.base_name}' is overwritten here", overwrite.span),),
                diag.data,
            )
        found.append(diag)
    return found


def dead_carry(var: Var, scope: ScopeStmt, fn_body: list[Stmt]) -> AssignStmt | None:
    """The statement of a later loop that overwrites `var`, when `var` is read after `scope`
    only as the initial value of that loop's carries and the loop body never reads the carry:
    ConvertToSSA carries it because the body assigns the same name, and the value is dead
    (the usual shape: sibling `pl.spmd` scopes reusing `n0`, the last inside a `pl.range`).
    None when the value is really used."""
    inside = {id(s) for s in walk_stmts(scope.body)}
    overwrite: AssignStmt | None = None
    for stmt in walk_stmts(fn_body):
        if id(stmt) in inside or stmt is scope:
            continue
        carries = []
        if isinstance(stmt, (ForStmt, WhileStmt)):
            carries = [a for a in stmt.iter_args if a.init is var]
            if any(var in expr_vars(e) for e in stmt_exprs(stmt) if not any(e is a.init for a in carries)):
                return None
        elif any(var in expr_vars(e) for e in stmt_exprs(stmt)):
            return None
        if not carries:
            continue
        assert isinstance(stmt, (ForStmt, WhileStmt))
        if not vars_mentioned(stmt.body).isdisjoint(carries):
            return None
        if overwrite is None:
            overwrite = next(
                (
                    s
                    for s in walk_stmts(stmt.body)
                    if isinstance(s, AssignStmt) and s.target.base_name == var.base_name
                ),
                None,
            )
    return overwrite


def deferred_waiter_problems(
    scope: ScopeStmt, name: str, enclosing: tuple[ScopeStmt, ...], calls: list[Call]
) -> list[Diagnostic]:
    """PTO306a–d: a `pld.system.defer_wait` waiter must be its own plain top-level task.
    `calls` are every call in the scope's body (`walk_calls(scope.body)`)."""
    found: list[Diagnostic] = []
    waits = [c for c in calls if c.op == ops.DEFER_WAIT_OP]
    if not waits:
        return found
    launches = [s for s in enclosing if s.kind in _LAUNCH_KINDS]
    problems = [
        (
            scope.kind is not ScopeKind.InCore,
            "a",
            "is only allowed in a pl.at(level=pl.Level.CORE_GROUP) scope",
        ),
        (
            bool(launches),
            "b",
            "cannot be nested inside another launch scope (pl.spmd, pl.cluster, pl.at)",
        ),
        (scope.predicate is not None, "c", "cannot be combined with predicate="),
        (scope.allow_early_resolve, "d", "cannot be combined with allow_early_resolve=True"),
    ]
    for applies, suffix, reason in problems:
        if applies:
            found.append(
                error(
                    f"PTO306{suffix}",
                    f"scope '{name}' holds a deferred waiter (pld.system.defer_wait), which {reason}",
                    waits[0].span,
                    hint="put the waiter in its own top-level pl.at(level=pl.Level.CORE_GROUP) task "
                    "without predicate= or allow_early_resolve=",
                )
            )
    violation = (
        check_deferred_waiter(scope.body, scope.header_span) if scope.kind is ScopeKind.InCore else None
    )
    if violation is not None:
        message, span = violation
        found.append(
            error(
                "PTO306e",
                f"scope '{name}': {message}",
                span,
                hint="keep the waiter registration-only: scalar bookkeeping, a tensor.read before the "
                "first registration, and at most 64 statically counted pld.system.defer_wait calls",
            )
        )
    return found


def non_ssa_rebinds(scope: ScopeStmt, name: str, walked: list[Stmt], captures: list[Var]) -> list[Diagnostic]:
    """PTO307: a capture rebound by anything but `T = tile.store(..., T)` (input not SSA).
    `walked`: every statement of the body, pre-order (`walk_stmts`)."""
    found: list[Diagnostic] = []
    captured = set(captures)
    for stmt in walked:
        for var in stmt_defs(stmt):
            if var not in captured:
                continue
            if isinstance(stmt, AssignStmt) and ops.store_destination(stmt.value) is var:
                continue
            found.append(
                error(
                    "PTO307",
                    f"internal: scope '{name}' rebinds captured variable '{var.base_name}' "
                    "(the input is not in SSA form)",
                    getattr(stmt, "span", scope.header_span),
                    hint="this is a front-end bug: ConvertToSSA should have versioned the variable",
                )
            )
    return found
