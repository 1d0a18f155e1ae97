"""What the parser accepts in a `deps=` list (PTO125), for every construct that takes one:
`pl.at`, `pl.spmd`, `pl.submit` / `pl.spmd_submit` and `pl.system.task_dummy` (the compiler's
`_parse_submit_deps_kwarg` serves them all).

Entries: a TaskId variable, a whole TASK_ID array (a fence on every slot), an element `arr[i]`
of one, `None`, or a comprehension the parser unrolls at parse time (its iterable and filter
must be Python values, not IR variables, and not a `pl.range` / `pl.parallel` / `pl.pipeline`
loop). A whole array and per-element entries cannot be mixed in one list. Only what is certain
is reported: an entry of unknown type is taken.
"""

from __future__ import annotations

import ast

from ..ir import UNKNOWN, ArrayType, ScalarType, Type
from .body_state import BodyState
from .context import PL

DEPS = "PTO125"
_DSL_LOOPS = frozenset({"range", "parallel", "pipeline"})
_MIX_HINT = (
    "Pass the array alone (`deps=[arr]`) for a whole-array fence, or index it slot-by-slot "
    "(`deps=[arr[i], arr[j], ...]`)."
)


def is_task_id_array(value_type: Type) -> bool:
    """A whole TASK_ID array is a dependency on every slot (the compiler's whole-array fence)."""
    return isinstance(value_type, ArrayType) and value_type.dtype == "TASK_ID"


def check_deps(state: BodyState, node: ast.expr, construct: str) -> None:
    """Report each entry of `deps=<node>` the parser rejects (`construct` names the call in
    the messages, as the compiler does: `pl.at`, `'kernel'`, ...)."""
    if isinstance(node, ast.ListComp):
        _check_comprehension(state, node, construct)
        return
    if not isinstance(node, (ast.List, ast.Tuple)):
        state.error(
            DEPS,
            f"{construct} deps= must be a list or tuple literal (or a comprehension) of TaskId values",
            node,
            hint="write deps=[tid_a, tid_b]",
        )
        return
    per_element = whole_array = False
    for entry in node.elts:
        if isinstance(entry, ast.Constant) and entry.value is None:
            continue
        if isinstance(entry, ast.ListComp):
            _check_comprehension(state, entry, construct)
            per_element = True
            continue
        kind = _entry_kind(state, entry, construct)
        if (kind == "array" and per_element) or (kind == "element" and whole_array):
            after = "per-element / comprehension entry" if kind == "array" else "whole-array entry"
            what = "array" if kind == "array" else "per-element"
            state.error(
                DEPS,
                f"{construct} deps= cannot mix a whole TASK_ID array with per-element entries "
                f"(got {what} entry '{ast.unparse(entry)}' after a {after})",
                entry,
                hint=_MIX_HINT,
            )
        whole_array |= kind == "array"
        per_element |= kind == "element"


def _entry_kind(state: BodyState, entry: ast.expr, construct: str) -> str | None:
    """ "array" / "element" for a whole TASK_ID array / an element of one, None for anything
    else (reported when it is certainly no TaskId)."""
    if isinstance(entry, ast.Subscript):
        base = entry.value
        if isinstance(base, ast.Name) and is_task_id_array(state.type_of_name(base.id)):
            return "element"
        return None  # a subscript of something else: not known statically
    if not isinstance(entry, ast.Name):
        state.error(
            DEPS,
            f"{construct} deps= entries must be TaskId variables or None",
            entry,
            hint="bind the TaskId to a name first (`with pl.at(...) as tid:`)",
        )
        return None
    if entry.id not in state.variables:
        state.error(DEPS, f"{construct} deps= entry '{entry.id}' is not defined", entry)
        return None
    entry_type = state.type_of_name(entry.id)
    if is_task_id_array(entry_type):
        return "array"
    if entry_type not in (UNKNOWN, ScalarType("TASK_ID")):
        state.error(
            DEPS,
            f"{construct} deps= entry '{entry.id}' is not a TaskId",
            entry,
            hint="deps= takes the TaskIds captured with `as tid` or returned by pl.submit, an "
            "element `arr[i]` of a pl.array.create(N, pl.TASK_ID), or None",
        )
    return None


def _check_comprehension(state: BodyState, node: ast.ListComp, construct: str) -> None:
    """Form 2: the parser unrolls `[arr[i] for i in <iter> if <filter>]` at parse time, so its
    iterable and filter may read no IR variable and the iterable is no DSL loop."""
    if len(node.generators) != 1 or not isinstance(node.generators[0].target, ast.Name):
        return  # the parser's syntax errors for these are not ours to report here
    generator = node.generators[0]
    loop_name = generator.target.id  # type: ignore[attr-defined]
    if _reads_ir_variable(state, generator.iter, ""):
        state.error(
            DEPS,
            f"{construct} deps= comprehension iterable depends on an IR variable; "
            "cannot unroll at parse time",
            generator.iter,
            hint="Use a Python `range(...)`, a tuple of const ints, or a module-level list. If you need "
            "a runtime-bounded loop, write Form 1 (`arr[i]`) inside a `pl.range` body.",
        )
        return
    for condition in generator.ifs:
        if _reads_ir_variable(state, condition, loop_name):
            state.error(
                DEPS,
                f"{construct} deps= comprehension filter depends on an IR variable; "
                "cannot unroll at parse time",
                condition,
                hint="Filter clauses may reference only Python-level constants (closures, globals, "
                "the comprehension's own loop var).",
            )
            return
    path = state.dsl_path(generator.iter.func) if isinstance(generator.iter, ast.Call) else None
    if path is not None and len(path) == 2 and path[0] == PL and path[1] in _DSL_LOOPS:
        state.error(
            DEPS,
            f"{construct} deps= comprehension iterable is a DSL loop (`pl.range` / `pl.parallel` / "
            "`pl.pipeline`); cannot unroll at parse time",
            generator.iter,
            hint="Use a Python `range(...)` for a parse-time-unrolled list, or write Form 1 (`arr[i]`) "
            "inside a `pl.range` body for a runtime loop.",
        )


def _reads_ir_variable(state: BodyState, node: ast.expr, own: str) -> bool:
    return any(
        isinstance(child, ast.Name) and child.id != own and child.id in state.variables
        for child in ast.walk(node)
    )
