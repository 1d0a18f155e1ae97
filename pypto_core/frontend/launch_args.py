"""The parser's rules for the task launches `pl.submit(self.k, ...)` and
`pl.spmd_submit(self.k, ..., core_num=N)` (PTO177, PTO178), and for an SPMD block count
(PTO152), which `pl.spmd` shares.

A launch binds the kernel's results and the producer TaskId, so the parser takes it only as
the whole value of an assignment: `out, tid = pl.submit(...)` (the results a name or a flat
tuple of names, the TaskId a name) or `res = pl.submit(...)`. Its keywords are read as
literals: `core_num` (required on `pl.spmd_submit`) an integer expression, `sync_start` and
`allow_early_resolve` `True`/`False`.
"""

from __future__ import annotations

import ast

from ..ir import UNKNOWN, Const, Expr, ScalarType
from .body_state import BodyState

LAUNCH_TARGET = "PTO177"  # a launch not unpacked into (results, TaskId) names
LAUNCH_ARGUMENTS = "PTO178"  # the kernel argument, core_num missing, a keyword not a bool literal
CORE_NUM = "PTO152"  # a block count that is not a positive integer expression

_INTEGER_DTYPES = ("INDEX", "INT", "UINT")


def check_core_num(state: BodyState, core: Expr, node: ast.expr) -> None:
    """`core` (built from `node`) as an SPMD block count: an integer expression, positive when
    it is a constant."""
    if isinstance(core, Const) and isinstance(core.value, int) and not isinstance(core.value, bool):
        if core.value <= 0:
            state.error(CORE_NUM, f"core_num must be a positive integer, got {core.value}", node)
        return
    core_type = core.type
    integer = isinstance(core_type, ScalarType) and core_type.dtype.startswith(_INTEGER_DTYPES)
    if core_type != UNKNOWN and not integer:
        shown = core_type.dtype if isinstance(core_type, ScalarType) else type(core_type).__name__
        state.error(CORE_NUM, f"core_num must be an integer expression, got {shown}", node)


def check_kernel_argument(state: BodyState, node: ast.Call, construct: str) -> bool:
    """Whether the launch names its kernel as `self.<kernel>`, reporting it when it does not."""
    first = node.args[0] if node.args else None
    if first is None:
        state.error(
            LAUNCH_ARGUMENTS,
            f"{construct}(...) requires the kernel as its first argument",
            node,
            hint=f"Use `out, tid = {construct}(self.kernel, *kernel_args)`.",
        )
        return False
    if isinstance(first, ast.Attribute) and isinstance(first.value, ast.Name) and first.value.id == "self":
        return True
    state.error(
        LAUNCH_ARGUMENTS,
        f"{construct}(...) first argument must be a `self.<kernel>` method reference",
        first,
        hint=f"Pass the kernel itself, not a call: `{construct}(self.kernel, x, y)` — not "
        f"`{construct}(self.kernel(x, y))`.",
    )
    return False


def check_launch_target(state: BodyState, node: ast.Call, construct: str) -> None:
    """PTO177 unless `node` is the whole value of `name = ...` or `results, tid = ...`."""
    target = state.assignment[1] if state.assignment is not None and state.assignment[0] is node else None
    if isinstance(target, ast.Name):
        return
    if not isinstance(target, ast.Tuple):
        example = f"out, tid = {construct}(self.kernel, ...{', core_num=N' if 'spmd' in construct else ''})"
        state.error(
            LAUNCH_TARGET,
            f"{construct}(...) must be unpacked as a 2-tuple: `{example}`",
            node,
            hint=f"{construct} returns (kernel result, producer TaskId); bind both with tuple unpacking.",
        )
        return
    message = _target_problem(target, construct)
    if message is not None:
        state.error(
            LAUNCH_TARGET,
            message,
            target,
            hint=f"Use `out, tid = {construct}(...)` or `(a, b), tid = {construct}(...)`.",
        )


def _target_problem(target: ast.Tuple, construct: str) -> str | None:
    if len(target.elts) != 2:
        count = len(target.elts)
        return f"{construct}(...) must be unpacked as exactly 2 targets (result, task_id), got {count}"
    results, tid = target.elts
    if not isinstance(tid, ast.Name):
        return f"{construct}(...) task_id target must be a plain variable name"
    if isinstance(results, ast.Name):
        return None
    if not isinstance(results, ast.Tuple):
        return f"{construct}(...) result target must be a variable name or a tuple of names"
    for element in results.elts:
        if not isinstance(element, ast.Name):
            return (
                f"{construct}(...) result target must contain plain variable names only "
                f"(no nested tuples), got '{ast.unparse(element)}'"
            )
    return None


def check_launch_keywords(
    state: BodyState, node: ast.Call, construct: str, kernel: str, kwargs: dict[str, Expr]
) -> None:
    """The launch's literal keywords; `kwargs`: its keyword values as built."""
    spmd = construct == "pl.spmd_submit"
    hint = (
        f"pl.spmd_submit(self.{kernel}, ...) requires a positive integer 'core_num' keyword (e.g. "
        "core_num=8); 'sync_start' is optional (default False)."
    )
    for kw in node.keywords:
        literal = isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, bool)
        if kw.arg == "core_num" and spmd:
            check_core_num(state, kwargs[kw.arg], kw.value)
        elif ((kw.arg == "sync_start" and spmd) or kw.arg == "allow_early_resolve") and not literal:
            owner = f"'{kernel}' " if kw.arg == "allow_early_resolve" else ""
            state.error(
                LAUNCH_ARGUMENTS,
                f"{owner}{kw.arg} must be a boolean literal (True/False)",
                kw.value,
                hint=hint if spmd else f"write {kw.arg}=True or {kw.arg}=False",
            )
    if spmd and "core_num" not in kwargs:
        state.error(
            LAUNCH_ARGUMENTS,
            f"pl.spmd_submit(self.{kernel}, ...) requires the core_num keyword argument",
            node,
            hint=hint,
        )
