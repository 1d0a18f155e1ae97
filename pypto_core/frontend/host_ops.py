"""The parser's rules for the host-only distributed resources (PTO166-PTO169).

`pld.system.world_size()` and `pld.tensor.alloc_window_buffer(...)` (and their short forms
`pld.world_size`, `pld.alloc_window_buffer`) exist only in HOST orchestration code. A window
buffer is named after the variable it is assigned to, so the parser takes the allocation only
as the right-hand side of `buf = ...` (it injects `name=` itself) and requires the names to be
unique in the program; the DSL function then checks its size or shape+dtype arguments. The
compiler stops at the first of these; each is reported here at the call, in its words.
"""

from __future__ import annotations

import ast

from ..diagnostics import Diagnostic, Related, error
from ..ir import FunctionType, Level, ScopeKind
from ..span import Span
from .body_state import BodyState
from .context import PLD, ModuleContext
from .source import UnitSpans
from .tree_memo import TreeMemo

HOST_ONLY = "PTO166"  # a host-only op outside HOST orchestration code
WINDOW_BINDING = "PTO167"  # an allocation that is not `name = alloc(...)`, or passes `name=`
WINDOW_NAME_TAKEN = "PTO168"  # a window buffer name declared twice in one program
WINDOW_ARGUMENTS = "PTO169"  # size / shape / dtype arguments the DSL function rejects

ALLOC = "alloc_window_buffer"
_HOST_ONLY_OPS = {"world_size": "pld.system.world_size", ALLOC: "pld.tensor.alloc_window_buffer"}
_HOST_HINT = (
    "Use '@pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)' on the enclosing function "
    "and call outside any nested device-side scope"
)


def host_op(path: tuple[str, ...]) -> str | None:
    """The op name (`world_size`, `alloc_window_buffer`) when `path` is one of the host-only
    pld ops in its short or canonical spelling; the parser keys its checks on the name."""
    if path[0] == PLD and len(path) in (2, 3) and path[-1] in _HOST_ONLY_OPS:
        return path[-1]
    return None


def check_host_op(state: BodyState, node: ast.Call, name: str) -> None:
    """A call of host-only op `name`; an allocation must be the value of a plain `buf = ...`
    (`state.assignment`), the only place the parser takes one from."""
    assigned = state.assignment
    bound = assigned is not None and assigned[0] is node and isinstance(assigned[1], ast.Name)
    if name == ALLOC and not bound:
        state.error(
            WINDOW_BINDING,
            "pld.tensor.alloc_window_buffer must appear as the RHS of a simple assignment "
            "(its result must be bound to a named variable)",
            node,
            hint="Write 'buf = pld.tensor.alloc_window_buffer(N)' (or the short form "
            "'buf = pld.alloc_window_buffer(N)')",
        )
        return
    if state.function_type is FunctionType.Inline:
        return  # checked where it is spliced, in the caller's context
    if state.level is not Level.HOST or state.innermost(ScopeKind.InCore, ScopeKind.Spmd) is not None:
        level = f"Level.{state.level.value}" if state.level is not None else "None"
        state.error(
            HOST_ONLY,
            f"{_HOST_ONLY_OPS[name]}() can only be called in HOST orchestration context (not inside "
            f"InCore / SPMD scopes); current function level: {level}",
            node,
            hint=_HOST_HINT,
        )
        return
    if name == ALLOC:
        _check_allocation(state, node)


def _check_allocation(state: BodyState, node: ast.Call) -> None:
    keywords = {kw.arg: kw for kw in node.keywords if kw.arg is not None}
    if "name" in keywords:
        state.error(
            WINDOW_BINDING,
            "pld.tensor.alloc_window_buffer 'name' kwarg cannot be passed explicitly — it is "
            "auto-derived from the assignment LHS",
            keywords["name"],
            hint="Drop the 'name=...' kwarg; the LHS variable name becomes the buffer name",
        )
        return
    if not node.args:
        return  # a missing size is the DSL function's TypeError (PTO202)
    size = node.args[0]
    dtype = keywords.get("dtype")
    if not isinstance(size, (ast.List, ast.Tuple)):
        if dtype is not None:
            state.error(
                WINDOW_ARGUMENTS,
                "pld.tensor.alloc_window_buffer dtype= is only valid when the first argument is a "
                "shape (list / tuple), not a scalar byte size",
                dtype,
                hint="drop dtype= (the size is in bytes), or pass the shape as a list",
            )
        return
    if dtype is None:
        state.error(
            WINDOW_ARGUMENTS,
            "pld.tensor.alloc_window_buffer requires dtype= when the first argument is a shape "
            "(list / tuple of per-rank dimensions)",
            node,
            hint="add dtype=pl.<element type>, e.g. dtype=pl.FP32",
        )
        return
    if not size.elts:
        state.error(WINDOW_ARGUMENTS, "pld.tensor.alloc_window_buffer shape must be non-empty", size)
        return
    for index, element in enumerate(size.elts):
        value = state.fold(element)
        if isinstance(value, int) and not isinstance(value, bool) and value <= 0:
            state.error(
                WINDOW_ARGUMENTS,
                f"pld.tensor.alloc_window_buffer shape dimension[{index}] is {value}; all dimensions "
                "must be positive",
                element,
            )
            return


def duplicate_buffer_names(
    functions: list[tuple[ast.FunctionDef, int]], ctx: ModuleContext, source_lines: list[str]
) -> list[Diagnostic]:
    """PTO168: a window buffer name allocated a second time in one program (the parser keeps
    one set of names across all of a program's functions, in definition order). Each function
    comes with the line offset of its unit in the file."""
    first: dict[str, Related] = {}
    found: list[Diagnostic] = []
    for function, line_offset in functions:
        for name, span in _placed_allocations(function, ctx, source_lines, line_offset):
            if name not in first:
                first[name] = Related(f"'{name}' is first declared here", span)
                continue
            diag = error(
                WINDOW_NAME_TAKEN,
                f"pld.tensor.alloc_window_buffer name '{name}' is already declared in this program",
                span,
                "Each window buffer must have a globally unique name across all functions",
            )
            found.append(Diagnostic(diag.code, diag.severity, diag.message, span, diag.hint, (first[name],)))
    return found


def _placed_allocations(
    function: ast.FunctionDef, ctx: ModuleContext, source_lines: list[str], line_offset: int
) -> tuple[tuple[str, Span], ...]:
    """`_allocations` with each call's file span, kept per function tree while the context
    and the unit's place are those it was found with: a keystroke in a host's entry rebuilds
    the host's program, whose own unchanged host function walked its statements again. The
    spans read only the tree's own lines (a tree is parsed from one text)."""

    def placed() -> tuple[tuple[str, Span], ...]:
        unit_spans = UnitSpans(source_lines, line_offset)
        return tuple((name, unit_spans.span(call)) for name, call in _allocations(function, ctx))

    return _PLACED.get(function, ctx, line_offset, placed)


_PLACED: TreeMemo[tuple[tuple[str, Span], ...]] = TreeMemo()


def _allocations(function: ast.FunctionDef, ctx: ModuleContext) -> list[tuple[str, ast.Call]]:
    """The allocations `function` binds to a name (`bound_allocation`), in source order.
    An assignment is a statement, and statements sit only in statement lists: the walk reads
    those, not the expressions (`ast.walk` over the 1,064-line entry of pypto-lib's
    prefill_cp_fwd_draft.py met 14,245 nodes, a twentieth of a keystroke there)."""
    found: list[tuple[int, int, str, ast.Call]] = []
    pending: list[ast.AST] = [function]
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            name = bound_allocation(node, ctx)
            if name is not None and isinstance(node.value, ast.Call):
                found.append((node.lineno, node.col_offset, name, node.value))
        for field in _STATEMENT_LISTS:
            block = getattr(node, field, None)
            if type(block) is list:
                pending += block
    found.sort(key=lambda entry: entry[:2])
    return [(name, call) for _, _, name, call in found]


# the fields of a statement (or an `except` handler, a `case`) that hold statements, or the
# handlers and cases that do
_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")


def bound_allocation(stmt: ast.Assign | ast.AnnAssign, ctx: ModuleContext) -> str | None:
    """The name `stmt` binds a window buffer to, as the parser takes it: `buf = alloc(...)`
    (or annotated, `buf: pl.Ptr = alloc(...)`, the printer's form); None for anything else."""
    target = stmt.target if isinstance(stmt, ast.AnnAssign) else stmt.targets[0]
    value = stmt.value
    if isinstance(stmt, ast.Assign) and len(stmt.targets) != 1:
        return None
    if not isinstance(target, ast.Name) or not isinstance(value, ast.Call):
        return None
    path = ctx.dsl_path(value.func)
    return target.id if path is not None and host_op(path) == ALLOC else None
