"""The IR properties the outlining passes establish (dsl-reference §4.7), checked on the
pipeline's result and reported as PTO5xx diagnostics at the construct that breaks them.

The compiler verifies these at pass boundaries; a program the passes handled correctly only
trips them when the user wrote something the passes leave alone (a scope in a function type
they skip, a scalar return on a device function, ...).
"""

from __future__ import annotations

from ..diagnostics import Diagnostic, error, warning
from ..ir import (
    Call,
    Function,
    FunctionType,
    Program,
    ScalarType,
    ScopeKind,
    ScopeStmt,
    Stmt,
    TupleType,
    Type,
)
from ..ops import ORCHESTRATION_TENSOR_OPS
from .outline_ir import encloses, stmt_children, walk_calls, walk_stmts


def verify_input(program: Program, front_end_checked: bool) -> list[Diagnostic]:
    """Properties of the SSA input: NoNestedInCore (PTO509). The front end reports textual
    nesting itself; with `front_end_checked` only nesting it cannot see (through a spliced Inline
    helper, whose statements keep the helper's spans) is reported here."""
    found: list[Diagnostic] = []
    for fn in program.functions:
        _nested_incore(fn.body, None, front_end_checked, found)
    return found


def _nested_incore(
    stmts: list[Stmt], outer: ScopeStmt | None, front_end_checked: bool, found: list[Diagnostic]
) -> None:
    for stmt in stmts:
        is_incore = isinstance(stmt, ScopeStmt) and stmt.kind is ScopeKind.InCore
        if is_incore and outer is not None:
            assert isinstance(stmt, ScopeStmt)
            if not (front_end_checked and encloses(outer.span, stmt.span)):
                found.append(
                    error(
                        "PTO509",
                        "pl.at(level=pl.Level.CORE_GROUP) is nested inside another CORE_GROUP scope",
                        stmt.header_span,
                        hint="remove the inner pl.at",
                    )
                )
        inner_outer = outer
        if outer is None and isinstance(stmt, ScopeStmt) and is_incore:
            inner_outer = stmt
        for child in stmt_children(stmt):
            _nested_incore(child, inner_outer, front_end_checked, found)


def verify_output(program: Program, outlined_names: set[str], front_end_checked: bool) -> list[Diagnostic]:
    """Properties after the four outliners: no scope left where a pass should have lifted it,
    no misplaced compute op in orchestration code, no scalar return from a device function.
    A Cluster/Spmd scope in device code (PTO505/506) is the front end's to report (D12)."""
    found: list[Diagnostic] = []
    for fn in program.functions:
        if fn.type is FunctionType.Inline:
            continue  # spliced into its callers; the compiler keeps no such function
        found += _leftover_scopes(fn, outlined_names, front_end_checked)
        found += _scalar_returns(fn)
        if fn.type.is_orchestration_like:
            found += _misplaced_tensor_ops(fn)
    return found


def _leftover_scopes(fn: Function, outlined_names: set[str], front_end_checked: bool) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for stmt in walk_stmts(fn.body):
        if not isinstance(stmt, ScopeStmt):
            continue
        problem = _leftover_problem(fn, stmt, outlined_names, front_end_checked)
        if problem is not None:
            code, message, hint = problem
            found.append(error(code, message, stmt.header_span, hint=hint, function=fn.name))
    return found


def _leftover_problem(
    fn: Function, scope: ScopeStmt, outlined_names: set[str], front_end_checked: bool
) -> tuple[str, str, str] | None:
    kind, ftype = scope.kind, fn.type
    if kind is ScopeKind.Hierarchy and ftype is FunctionType.Opaque:
        return ("PTO501", f"Hierarchy scope left in function '{fn.name}' (should have been outlined)", "")
    if kind is ScopeKind.Graph and not front_end_checked:  # else the front end said PTO144
        return ("PTO502", f"pl.graph region left in function '{fn.name}' (should have been outlined)", "")
    if kind is ScopeKind.InCore and ftype is not FunctionType.InCore:
        return (
            "PTO503",
            f"pl.at(level=pl.Level.CORE_GROUP) left in {ftype.value} function '{fn.name}', which "
            "OutlineIncoreScopes does not process",
            "move the scope into an orchestration (or Opaque) function",
        )
    if kind is ScopeKind.SplitAiv and ftype is FunctionType.InCore and fn.name not in outlined_names:
        return (
            "PTO510",
            f"pl.split_aiv region written directly in InCore function '{fn.name}'",
            "write the pl.split_aiv region inside a pl.at(level=pl.Level.CORE_GROUP) scope",
        )
    return None


def _scalar_returns(fn: Function) -> list[Diagnostic]:
    if not fn.type.is_device:
        return []
    found: list[Diagnostic] = []
    for i, t in enumerate(fn.return_types):
        for path, scalar in _scalars(t, f"#{i}"):
            code = "PTO508" if scalar.is_task_id else "PTO507"
            hint = (
                "capture TaskIds at the call site (`pl.submit`, `as tid`)"
                if scalar.is_task_id
                else "return it through a [1] tensor pl.Out parameter and read it with pl.tensor.read"
            )
            found.append(
                error(
                    code,
                    f"Device function '{fn.name}' return type {path} is a Scalar[{scalar.dtype}]. A task "
                    "cannot return a scalar",
                    fn.name_span,
                    hint=hint,
                    function=fn.name,
                )
            )
    return found


def _scalars(t: Type, path: str) -> list[tuple[str, ScalarType]]:
    if isinstance(t, ScalarType):
        return [(path, t)]
    if isinstance(t, TupleType):
        return [(f"{path} element #{j}", s) for j, e in enumerate(t.elements) for _, s in _scalars(e, path)]
    return []


def _misplaced_tensor_ops(fn: Function) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for call in walk_calls(fn.body):
        if _is_compute_tensor_op(call):
            found.append(
                warning(
                    "PTO504",
                    f"Compute tensor op '{call.op}' found in {fn.type.value} function '{fn.name}' (should be "
                    "inside InCore)",
                    call.span,
                    hint="wrap it in `with pl.at(level=pl.Level.CORE_GROUP):`",
                    op=call.op,
                )
            )
    return found


def _is_compute_tensor_op(call: Call) -> bool:
    return not call.is_user_call and call.op.startswith("tensor.") and call.op not in ORCHESTRATION_TENSOR_OPS
