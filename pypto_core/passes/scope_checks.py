"""User errors the shared outliner finds in one scope, as diagnostics (never raised): scalar
outputs only the device can compute (PTO301), deferred waiters in the wrong place or breaking
their contract (PTO306a-e), and captures rebound outside SSA (PTO307)."""

from __future__ import annotations

from collections.abc import Callable

from .. import ops
from ..diagnostics import Diagnostic, Related, error
from ..ir import AssignStmt, Call, Expr, ForStmt, ScopeKind, ScopeStmt, Stmt, Var, WhileStmt
from .deferred_wait import check_deferred_waiter
from .outline_ir import (
    CONSTANT_TYPES,
    VAR_TYPES,
    stmt_children,
    stmt_defs,
    stmt_exprs,
    sub_exprs,
    vars_mentioned,
    walk_stmts,
)
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
    scope: ScopeStmt,
    name: str,
    scalars: list[Var],
    later: Callable[[Var], list[list[Stmt]]],
    as_found: Callable[[Stmt], set[Var] | None] = lambda stmt: None,
) -> list[Diagnostic]:
    """PTO301: one error per scalar output only the device can compute, at its definition.
    `later` (what runs after the scope in its function, `dead_carry`, less the blocks that
    do not mention the scalar) tells a dead loop carry apart, which `as_found` helps."""
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
        overwrite = dead_carry(var, later(var), as_found)
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


def dead_carry(
    var: Var,
    later: list[list[Stmt]],
    as_found: Callable[[Stmt], set[Var] | None] = lambda stmt: None,
) -> AssignStmt | None:
    """The statement of a later loop that overwrites `var`, when `var` is read after its scope
    only as the initial value of that loop's carries and the loop body never reads the carry:
    ConvertToSSA carries it because the body assigns the same name, and the value is dead
    (the usual shape: sibling `pl.spmd` scopes reusing `n0`, the last inside a `pl.range`).
    None when the value is really used.

    `later`: the statements after the scope in its block, then those after the enclosing
    statement in its block, and so on out to the function body (pre-order from the scope on).
    In SSA form nothing before a definition reads it (a value reaches an earlier statement of
    a loop only through a carry, whose initial value is read after the scope), so only these
    are read: one walk that stops at the first read, and that skips every statement
    `as_found` says mentions nothing of `var` at any depth (the outliner's statement facts,
    where they still hold; None where a statement has to be read)."""
    loops: list[tuple[ForStmt | WhileStmt, list[Var]]] = []  # with a carry of `var`, in pre-order
    if any(_read_outside(block, var, loops, as_found) for block in later):
        return None
    overwrite: AssignStmt | None = None
    for stmt, carries in loops:
        if any(not _mentioned(s, as_found).isdisjoint(carries) for s in stmt.body):
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


def _mentioned(stmt: Stmt, as_found: Callable[[Stmt], set[Var] | None]) -> set[Var]:
    found = as_found(stmt)
    return found if found is not None else vars_mentioned([stmt])


def _read_outside(
    stmts: list[Stmt],
    var: Var,
    loops: list[tuple[ForStmt | WhileStmt, list[Var]]],
    as_found: Callable[[Stmt], set[Var] | None],
) -> bool:
    """Whether a statement of `stmts` (at any depth) reads `var`, the initial value of a
    loop's carry excepted; the loops with such a carry are added to `loops` (a carry's
    initial value is a read: a statement mentioning nothing of `var` holds none)."""
    for stmt in stmts:
        mentioned = as_found(stmt)
        if mentioned is not None and var not in mentioned:
            continue
        kind = type(stmt)
        if kind is ForStmt or kind is WhileStmt:
            assert isinstance(stmt, (ForStmt, WhileStmt))
            carries: list[Var] = [a for a in stmt.iter_args if a.init is var]
            if carries:
                loops.append((stmt, carries))
                # the carries' initial values are `var` itself: every such expression is exempt
                if any(e is not var and _reads(e, var) for e in stmt_exprs(stmt)):
                    return True
            elif any(_reads(e, var) for e in stmt_exprs(stmt)):
                return True
        elif any(_reads(e, var) for e in stmt_exprs(stmt)):
            return True
        for body in stmt_children(stmt):
            if _read_outside(body, var, loops, as_found):
                return True
    return False


def _reads(expr: Expr, var: Var) -> bool:
    """`var in expr_vars(expr)`, without building the list (leaves tested without a call)."""
    if expr is var:
        return True
    if type(expr) in _NO_READS:
        return False
    for sub in sub_exprs(expr):
        if sub is var:
            return True
        if type(sub) not in _NO_READS and _reads(sub, var):
            return True
    return False


_NO_READS = VAR_TYPES | CONSTANT_TYPES  # a variable reads only itself (an IterArg not its init)


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
