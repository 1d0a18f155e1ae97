"""DSL definitions inside function bodies: builder functions.

Real code builds programs in functions: `def build_program(): @pl.program class P: ...;
return P` (pypto-lib's models), and the compiler's own tests define their programs and jit
kernels inside test methods. The compiler parses such a class or kernel when its decorator
runs, with the enclosing frame's names as its closure (`f_globals` overlaid with `f_locals`).

So a function body that defines DSL programs or functions is analysed as a module of its own:
its context is the enclosing one (the module's, or an outer function's) with the function's
parameters forgotten (their values are unknown, never an error), then its own statements
applied in order exactly as module statements are (constants folded, `pl.dynamic` symbols,
decorated definitions bound, anything else rebinding a name forgets it). Each decorated
definition in it becomes a unit of its own, appended after the file's top-level units; it keeps
the enclosing top-level unit's parse (`Unit.node_line`). A non-DSL class body (a test class)
is a namespace for decorators in it, but not for the methods it holds (as in Python).

Where to look is decided from each top-level unit's text alone and cached by that text, so a
keystroke re-reads only the builders it touched; a unit with no indented decorator is skipped
by one regular-expression search.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterator
from copy import copy
from dataclasses import dataclass, field, fields
from typing import Any

from ..sized_cache import sized_cache
from .context import ModuleContext
from .module import bind_decorated, record_binding, record_imports, unbind
from .units import TREE_CACHE_CHARS, Unit, classify_node, has_indented_decorator, notable_indices, parse_unit

_Scope = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


@dataclass(frozen=True)
class NestedScope:
    """A function (or plain class) body holding DSL definitions, with the context its
    definitions see; its units are `units[first:first + count]` of the file's unit list."""

    ctx: ModuleContext
    first: int
    count: int

    @property
    def own(self) -> range:
        return range(self.first, self.first + self.count)


@dataclass(frozen=True)
class _Definition:
    """A decorated `def`/`class` nested in a body, positioned relative to its top-level unit."""

    node: ast.FunctionDef | ast.ClassDef
    start: int  # unit-relative 0-based line of its first decorator
    end: int  # one past its last line
    text: str
    key: str


@dataclass(frozen=True)
class _Body:
    """A function or plain class whose body (or some body nested in it) defines DSL objects."""

    node: _Scope
    definitions: tuple[_Definition, ...]  # its own statements' DSL definitions, in source order
    inner: tuple[_Body, ...] = field(default=())


def nested_scopes(
    units: list[Unit], ctx: ModuleContext, notable: list[int] | None = None
) -> tuple[list[Unit], list[NestedScope]]:
    """The file's units followed by every nested definition's unit, and the scopes those
    belong to (outer scopes before the scopes nested in them). `notable`:
    `notable_indices(units)`, when the caller has it (a block unit is notable: a definition)."""
    if not ctx.analysed:
        return units, []
    all_units = list(units)
    scopes: list[NestedScope] = []
    found = [units[i] for i in (notable_indices(units) if notable is None else notable)]
    binders = {u.returned_by for u in found if u.returned_by is not None}
    for unit in found:
        if unit.kind != "other" or not unit.nests or not isinstance(unit.node, ast.Module):
            continue
        for body in _bodies(unit.text):
            if body.node.name not in binders:  # a binder's definitions are block units
                _derive(body, unit, ctx, all_units, scopes)
    return all_units, scopes


def block_units(units: list[Unit]) -> list[Unit]:
    """The file's top-level units, each module-level `if` / `try` / `with` block followed by a
    unit for every DSL definition in it (every branch: `module_context` leaves out the ones a
    condition it can fold rules out). Without them a program or helper defined under
    `if HAS_X:` would be no unit at all.

    Likewise a binder, a module-level function without parameters whose body only defines a
    DSL function (in any branch) and returns it, when the module binds that name to its call:
    `hc_pre = _bind_hc_pre()` (pypto-lib picks one of two implementations so). Its
    definitions are units bound by that statement (`Unit.returned_by`), so the module and its
    importers see `hc_pre`; nothing is run, the branch is chosen by `module_context`."""
    notable = notable_indices(units)
    # `X = f()` statements of the module: function name -> the name bound to its result
    calls = {function: name for i in notable for name, function in units[i].binder_calls}
    expanded: list[Unit] = []
    copied = 0  # units[:copied] are in `expanded`
    for i in notable:
        unit = units[i]
        if unit.kind == "other" and unit.nests and isinstance(unit.node, ast.Module):
            expanded += units[copied : i + 1]
            copied = i + 1
            expanded += [_unit(d, unit) for d in _block_definitions(unit.text)]
            for binder, name, definitions in _binders(unit.text) if calls else ():
                if calls.get(binder) == name:
                    expanded += [_unit(d, unit, returned_by=binder) for d in definitions]
    expanded += units[copied:]
    return expanded


@sized_cache(TREE_CACHE_CHARS, lambda text: len(text) + 1)  # it holds parts of the unit's tree
def _binders(text: str) -> tuple[tuple[str, str, tuple[_Definition, ...]], ...]:
    """The unit's binder functions: (function name, the name it returns, its definitions of
    that name in source order)."""
    parsed = _with_indented_decorators(text)
    if parsed is None:
        return ()
    module, lines = parsed
    found = []
    for stmt in module.body:
        if not isinstance(stmt, ast.FunctionDef) or _parameters(stmt) or not stmt.body:
            continue
        last = stmt.body[-1]
        if not (isinstance(last, ast.Return) and isinstance(last.value, ast.Name)):
            continue
        name = last.value.id
        executed = [s for s in _executed(stmt.body[:-1]) if not _is_inert(s)]
        definitions = [
            s
            for s in executed
            if isinstance(s, ast.FunctionDef) and s.name == name and classify_node(s)[0] != "other"
        ]
        if definitions and len(definitions) == len(executed):
            found.append((stmt.name, name, tuple(_definition(s, lines) for s in definitions)))
    return tuple(found)


def _is_inert(stmt: ast.stmt) -> bool:
    """`pass` or a docstring."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return isinstance(stmt.value.value, str)
    return isinstance(stmt, ast.Pass)


@sized_cache(TREE_CACHE_CHARS, lambda text: len(text) + 1)  # it holds parts of the unit's tree
def _block_definitions(text: str) -> tuple[_Definition, ...]:
    """The DSL definitions in a top-level unit's module-level blocks, every branch's."""
    parsed = _with_indented_decorators(text)
    if parsed is None:
        return ()
    module, lines = parsed
    blocks: list[ast.stmt] = [
        s for s in module.body if isinstance(s, ast.If | ast.Try | ast.TryStar | ast.With)
    ]
    return tuple(
        _definition(s, lines)
        for s in _executed(blocks)
        if isinstance(s, ast.FunctionDef | ast.ClassDef) and classify_node(s)[0] != "other"
    )


def _derive(
    body: _Body, owner: Unit, outer: ModuleContext, all_units: list[Unit], scopes: list[NestedScope]
) -> None:
    """Add `body`'s scope (if it defines anything) and the scopes inside it. Methods of a
    plain class see the class's surroundings, not the class namespace."""
    ctx = _copy(outer)
    if not isinstance(body.node, ast.ClassDef):
        for name in _parameters(body.node):
            unbind(name, ctx)
    first = len(all_units)
    definitions = {id(d.node): d for d in body.definitions}
    for stmt in _executed(body.node.body):
        definition = definitions.get(id(stmt))
        if definition is None:
            if isinstance(stmt, ast.Import | ast.ImportFrom):
                record_imports(stmt, ctx)
            record_binding(stmt, ctx)
            continue
        unit = _unit(definition, owner)
        all_units.append(unit)
        bind_decorated(len(all_units) - 1, unit, ctx)
    if len(all_units) > first:
        scopes.append(NestedScope(ctx, first, len(all_units) - first))
    surroundings = outer if isinstance(body.node, ast.ClassDef) else ctx
    for inner in body.inner:
        _derive(inner, owner, surroundings, all_units, scopes)


def _copy(ctx: ModuleContext) -> ModuleContext:
    """A context to extend with a body's own names: every fact copied, every cache (a field
    left out of comparisons) started afresh, since a body may import the DSL itself and its
    constants and dynamic symbols differ from the module's."""
    values: dict[str, Any] = {}
    for item in fields(ctx):
        if not item.compare:
            continue  # a cache: its default
        value = getattr(ctx, item.name)
        values[item.name] = copy(value) if isinstance(value, dict | set) else value
    return ModuleContext(**values)


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return names


def _unit(definition: _Definition, owner: Unit, returned_by: str | None = None) -> Unit:
    kind, decorator = classify_node(definition.node)
    return Unit(
        kind=kind,
        name=definition.node.name,
        text=definition.text,
        start_line=owner.start_line + definition.start,
        end_line=owner.start_line + definition.end,
        key=definition.key,
        syntax_error=None,
        decorator=decorator,
        node_line=owner.start_line,
        returned_by=returned_by,
        tree=definition.node,
    )


def _executed(stmts: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements a body runs in its own namespace, in source order: through `if`,
    loops, `with` and `try` blocks (both branches of an `if`: either may run), not into
    nested functions or classes. A block's header binds too (`for x in`, `with ... as x`,
    `except E as x`): it is yielded before its body."""
    for stmt in stmts:
        if isinstance(stmt, ast.If | ast.While):
            yield from _executed(stmt.body)
            yield from _executed(stmt.orelse)
        elif isinstance(stmt, ast.For | ast.AsyncFor):
            yield _rebinding(stmt.target)
            yield from _executed(stmt.body)
            yield from _executed(stmt.orelse)
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            for item in stmt.items:
                if item.optional_vars is not None:
                    yield _rebinding(item.optional_vars)
            yield from _executed(stmt.body)
        elif isinstance(stmt, ast.Try | ast.TryStar):
            yield from _executed(stmt.body)
            for handler in stmt.handlers:
                if handler.name:
                    yield _rebinding(ast.Name(id=handler.name, ctx=ast.Store()))
                yield from _executed(handler.body)
            yield from _executed(stmt.orelse)
            yield from _executed(stmt.finalbody)
        else:
            yield stmt


def _rebinding(target: ast.expr) -> ast.stmt:
    """A block header's binding as the assignment of a value no fold knows."""
    return ast.Assign(targets=[target], value=ast.Constant(None), lineno=0)


@sized_cache(TREE_CACHE_CHARS, lambda text: len(text) + 1)  # it holds parts of the unit's tree
def _bodies(text: str) -> tuple[_Body, ...]:
    """The bodies in a top-level unit that define DSL objects (or hold bodies that do)."""
    parsed = _with_indented_decorators(text)
    if parsed is None:
        return ()
    module, lines = parsed
    return tuple(_found(module.body, lines))


def _with_indented_decorators(text: str) -> tuple[ast.Module, list[str]] | None:
    """A unit's parse and lines, when it may hold an indented (nested) DSL definition: a unit
    with no indented decorator is passed over by a look at its `@`s."""
    if not has_indented_decorator(text):
        return None
    module, _ = parse_unit(text)
    return None if module is None else (module, text.split("\n"))


def _found(stmts: list[ast.stmt], lines: list[str]) -> Iterator[_Body]:
    """The function and plain-class bodies among `stmts` (through blocks) worth a scope."""
    for stmt in _executed(stmts):
        if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if classify_node(stmt)[0] != "other":
            continue  # a DSL definition: its body is the program's, not a builder's
        own = tuple(
            _definition(s, lines)
            for s in _executed(stmt.body)
            if isinstance(s, ast.FunctionDef | ast.ClassDef) and classify_node(s)[0] != "other"
        )
        inner = tuple(_found(stmt.body, lines))
        if own or inner:
            yield _Body(stmt, own, inner)


def _definition(node: ast.FunctionDef | ast.ClassDef, lines: list[str]) -> _Definition:
    first = min([d.lineno for d in node.decorator_list] + [node.lineno]) - 1
    end = node.end_lineno or node.lineno
    text = "\n".join(lines[first:end])
    key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    return _Definition(node, first, end, text, key)
