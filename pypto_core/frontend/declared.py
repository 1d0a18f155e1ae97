"""Module-level names the parser resolves in a DSL body by what Python bound them to, and the
rules it applies to them (PTO206-PTO208).

Three kinds of binding matter to it (`ast_parser.parse_call`, `type_resolver`):

* a `@pl.function` defined outside any program class: an external function. A body calls it
  by name; the parser adds it to the program under its own name (`ir.Function.name`, the
  def's name, whatever the caller's name is bound to), so that name may not be a program
  function's, two different functions of one name may not both be called, and the call takes
  every parameter, positionally (PTO206);
* a plain, undecorated `def`: a body cannot call it ("Unsupported function call", PTO207);
* an allocation declaration `l0c = pl.MemRef(slots=2)` (or `pl.MemRef()`, `pl.MemRef("name")`):
  a Tile annotation picks one of its slots as `l0c[k]`, which a single-slot declaration does
  not take and a constant `k` must be in range for (PTO208).

`record_declaration` is called by `module.record_binding` for each statement a module (or a
builder body) runs, after the statement's names were unbound.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostic, Related, error
from .source import UnitSpans

if TYPE_CHECKING:
    from .body_state import BodyState
    from .context import ModuleContext

EXTERNAL_CALL = "PTO206"
UNSUPPORTED_CALL = "PTO207"
MEMREF_SLOT = "PTO208"


@dataclass(frozen=True, slots=True)
class ExternalFunction:
    """A module-level `@pl.function`: its name, its parameters as (name, direction) (None when
    it takes `*args`/keywords, so its count is not fixed), and an ordinal telling two defs of
    one name apart (they are two functions to the compiler)."""

    name: str
    params: tuple[tuple[str, str], ...] | None
    ordinal: int


@dataclass(frozen=True, slots=True)
class PlainFunction:
    """A module-level `def` with no decorator."""


@dataclass(frozen=True, slots=True)
class DeclaredMemRef:
    """`name = pl.MemRef(...)` declaring an allocation: the allocation's name (the explicit
    string, else the variable's) and its slot count (None when it does not fold)."""

    name: str
    slots: int | None


Declared = ExternalFunction | PlainFunction | DeclaredMemRef

_DIRECTIONS = {"Out": "Out", "InOut": "InOut"}


def record_declaration(stmt: ast.stmt, ctx: ModuleContext) -> None:
    """What `stmt` binds of the three kinds, into `ctx.declared` (its names are unbound)."""
    if isinstance(stmt, ast.FunctionDef):
        if not stmt.decorator_list:
            ctx.declared[stmt.name] = PlainFunction()
        elif any(_resolves(d, ("function",), ctx) for d in stmt.decorator_list):
            ordinal = 1 + max(
                (d.ordinal for d in ctx.declared.values() if isinstance(d, ExternalFunction)), default=0
            )
            ctx.declared[stmt.name] = ExternalFunction(stmt.name, _params(stmt, ctx), ordinal)
        return
    if not (
        isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
    ):
        return
    name, value = stmt.targets[0].id, stmt.value
    if isinstance(value, ast.Name):
        known = ctx.declared.get(value.id)
        if isinstance(known, ExternalFunction | PlainFunction):  # `helper_v1 = helper`
            ctx.declared[name] = known
        return
    memref = _memref_declaration(value, name, ctx)
    if memref is not None:
        ctx.declared[name] = memref


def _resolves(decorator: ast.expr, path: tuple[str, ...], ctx: ModuleContext) -> bool:
    return ctx.resolve(decorator.func if isinstance(decorator, ast.Call) else decorator) == path


def _params(node: ast.FunctionDef, ctx: ModuleContext) -> tuple[tuple[str, str], ...] | None:
    args = node.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.defaults:
        return None
    return tuple((a.arg, _direction(a.annotation, ctx)) for a in (*args.posonlyargs, *args.args))


def _direction(annotation: ast.expr | None, ctx: ModuleContext) -> str:
    if isinstance(annotation, ast.Subscript):
        path = ctx.resolve(annotation.value)
        if path is not None and len(path) == 1 and path[0] in _DIRECTIONS:
            return path[0]
    return "In"


def _memref_declaration(value: ast.expr, name: str, ctx: ModuleContext) -> DeclaredMemRef | None:
    """A declaration is `pl.MemRef()` with at most a name string and `slots=` (the forms
    with a base, offset and size describe an existing allocation)."""
    if not isinstance(value, ast.Call) or ctx.resolve(value.func) != ("MemRef",):
        return None
    if len(value.args) > 1 or any(kw.arg not in ("slots", "span") for kw in value.keywords):
        return None
    if value.args:
        given = value.args[0]
        if not (isinstance(given, ast.Constant) and isinstance(given.value, str)):
            return None
        name = given.value
    slots: int | None = 1
    for kw in value.keywords:
        if kw.arg == "slots":
            folded = kw.value.value if isinstance(kw.value, ast.Constant) else None
            slots = folded if isinstance(folded, int) and not isinstance(folded, bool) else None
    return DeclaredMemRef(name, slots)


# -- in a body -----------------------------------------------------------------------------------


def check_declared_call(state: BodyState, node: ast.Call, declared: Declared) -> None:
    """PTO206 / PTO207 on a body's call `name(...)` of an external or plain function (the
    parser's checks in its order: name conflicts, keywords, count). Jit bodies are left to the
    specialiser, which rewrites them before the parser sees them."""
    if state.ctx.in_jit:
        return
    if isinstance(declared, PlainFunction):
        state.error(
            UNSUPPORTED_CALL,
            f"Unsupported function call: {ast.unparse(node)}",
            node,
            hint="Use pl.* operations, pl.yield_(), self.method() for cross-function calls, "
            "or call an external @pl.function / @pl.inline by name",
        )
        return
    if not isinstance(declared, ExternalFunction):
        return
    name = declared.name
    if name in state.ctx.callees:
        state.error(
            EXTERNAL_CALL,
            f"External function '{name}' conflicts with program function '{name}'",
            node,
            hint="Rename either the external or program function to avoid the name conflict",
        )
        return
    if node.keywords:
        keyword = node.keywords[0]
        state.error(
            EXTERNAL_CALL,
            f"Function '{name}' does not accept keyword argument '{keyword.arg}'",
            keyword,
            hint="Pass all arguments positionally",
        )
        return
    if declared.params is None or any(isinstance(a, ast.Starred) for a in node.args):
        return
    if len(node.args) != len(declared.params):
        shown = [f"{param}: {direction}" for param, direction in declared.params]
        state.error(
            EXTERNAL_CALL,
            f"Function '{name}' expects {len(declared.params)} argument(s), got {len(node.args)}",
            node,
            hint=f"Parameters: {shown}",
        )


def conflicting_externals(
    functions: Iterable[tuple[ast.FunctionDef, int]], ctx: ModuleContext, source_lines: list[str]
) -> list[Diagnostic]:
    """PTO206: two different external functions of one name called in one program (the
    parser merges every method's externals by name and rejects a second object), at the
    first call of the second one. Each function comes with its unit's line offset."""
    first: dict[str, tuple[int, Related]] = {}
    found: list[Diagnostic] = []
    for function, line_offset in functions:
        spans = UnitSpans(source_lines, line_offset)
        for call, external in _external_calls(function, ctx):
            span = spans.span(call)
            known = first.setdefault(
                external.name, (external.ordinal, Related(f"'{external.name}' is called here", span))
            )
            if known[0] == external.ordinal:
                continue
            diag = error(
                EXTERNAL_CALL,
                f"Conflicting external functions with name '{external.name}'",
                span,
                "External functions must have unique names; rename one of the functions",
            )
            found.append(Diagnostic(diag.code, diag.severity, diag.message, span, diag.hint, (known[1],)))
            first[external.name] = (external.ordinal, known[1])
    return found


def shares_a_name(ctx: ModuleContext) -> bool:
    """Whether two different external functions of one name are bound (the only way to
    conflict; nearly no module has one, so programs are not walked for it otherwise)."""
    seen: dict[str, int] = {}
    for declared in ctx.declared.values():
        if (
            isinstance(declared, ExternalFunction)
            and seen.setdefault(declared.name, declared.ordinal) != declared.ordinal
        ):
            return True
    return False


def _external_calls(function: ast.FunctionDef, ctx: ModuleContext) -> list[tuple[ast.Call, ExternalFunction]]:
    found: list[tuple[int, int, ast.Call, ExternalFunction]] = []
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            declared = ctx.declared.get(node.func.id)
            if isinstance(declared, ExternalFunction):
                found.append((node.lineno, node.col_offset, node, declared))
    found.sort(key=lambda entry: entry[:2])
    return [(call, declared) for _, _, call, declared in found]


def check_memref_slot(state: BodyState, node: ast.expr) -> None:
    """PTO208 on a Tile annotation's `decl[k]` of a declared allocation."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
        return
    if node.value.id in state.variables:
        return
    declared = state.ctx.module.declared.get(node.value.id)
    if not isinstance(declared, DeclaredMemRef) or declared.slots is None:
        return
    name, slots = declared.name, declared.slots
    if slots <= 1:
        state.error(
            MEMREF_SLOT,
            f"'{name}' was declared with a single slot, so it cannot be subscripted",
            node,
            hint=f"Declare it as pl.MemRef(slots=N) to subscript it, or reference '{name}' "
            "without a subscript",
        )
        return
    index = state.fold(node.slice)
    if isinstance(index, int) and not isinstance(index, bool) and not 0 <= index < slots:
        state.error(
            MEMREF_SLOT,
            f"Slot index {index} is out of range for '{name}', declared with {slots} slot(s)",
            node,
            hint=f"Subscript within [0, {slots}), or declare more slots",
        )
