"""Module facts a program's analysis depends on: DSL imports, constants, dynamic symbols,
inline helpers and which decorated `def` each module-level name ends up bound to.

Everything is read from the syntax tree; nothing is imported or executed. Constants are folded
the way the real parser would see them as closure values, but only for int/float/str/bool
literals and arithmetic on them, and with size limits so `2 ** 10 ** 10` cannot hang the server.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..diagnostics import Diagnostic
from .context import ModuleContext
from .units import Unit

Constant = int | float | str | bool

DSL_MODULE = "pypto.language"
DISTRIBUTED_MODULE = "pypto.language.distributed"

_MAX_INT_BITS = 4096
_MAX_STR_LEN = 100_000

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Invert: operator.invert,
    ast.Not: operator.not_,
}


def module_context(units: list[Unit]) -> tuple[ModuleContext, list[Diagnostic]]:
    """The module facts, from every parsed unit in source order (a unit with a syntax error
    contributes nothing). A file that does not import the DSL gets an empty context."""
    ctx = ModuleContext()
    for unit in units:
        for stmt in _statements(unit):
            _record_imports(stmt, ctx)
    if not ctx.is_dsl:
        return ModuleContext(), []
    for index, unit in enumerate(units):
        if unit.kind in ("program", "jit", "inline") and isinstance(
            unit.node, ast.FunctionDef | ast.ClassDef
        ):
            _bind_decorated(index, unit, ctx)
            continue
        for stmt in _statements(unit):
            _record_binding(stmt, ctx)
    return ctx, []


def fold_constant(expr: ast.expr, env: dict[str, Constant]) -> Constant | None:
    """The value of a constant expression over `env`, or None when it is not one (or too big,
    or nested too deeply to fold: `1 + 1 + ... + 1` a few thousand times)."""
    try:
        return _fold(expr, env)
    except RecursionError:
        return None


def _fold(expr: ast.expr, env: dict[str, Constant]) -> Constant | None:
    if isinstance(expr, ast.Constant):
        value = expr.value
        return value if isinstance(value, int | float | str | bool) else None
    if isinstance(expr, ast.Name):
        return env.get(expr.id)
    if isinstance(expr, ast.UnaryOp):
        operand = _fold(expr.operand, env)
        if operand is None or isinstance(operand, str):
            return None
        return _checked(_UNARY[type(expr.op)], operand)
    if isinstance(expr, ast.BinOp):
        left = _fold(expr.left, env)
        right = _fold(expr.right, env)
        if left is None or right is None or not _affordable(expr.op, left, right):
            return None
        return _checked(_BINARY[type(expr.op)], left, right)
    return None


def fold_assignments(stmts: Iterable[ast.stmt], env: dict[str, Constant]) -> dict[str, Constant]:
    """Constants assigned by straight-line statements (`ROWS = 64`, `COLS = ROWS * 2`,
    `N: int = 8`, `N += 1`); a name rebound to anything else stops being a constant."""
    found: dict[str, Constant] = {}
    for stmt in stmts:
        _fold_statement(stmt, env | found, found)
    return found


def _fold_statement(stmt: ast.stmt, env: dict[str, Constant], found: dict[str, Constant]) -> None:
    if isinstance(stmt, ast.Assign):
        value = fold_constant(stmt.value, env)
        for target in stmt.targets:
            _assign(target, value, found)
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        _assign(stmt.target, fold_constant(stmt.value, env), found)
    elif isinstance(stmt, ast.AugAssign):
        value = (
            fold_constant(ast.BinOp(stmt.target, stmt.op, stmt.value), env) if _is_name(stmt.target) else None
        )
        _assign(stmt.target, value, found)
    else:
        for name in _bound_names(stmt):
            found.pop(name, None)
            env.pop(name, None)


def _assign(target: ast.expr, value: Constant | None, found: dict[str, Constant]) -> None:
    if isinstance(target, ast.Name):
        if value is None:
            found.pop(target.id, None)
        else:
            found[target.id] = value
    else:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                found.pop(node.id, None)


def _is_name(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Name)


def _affordable(op: ast.operator, left: Constant, right: Constant) -> bool:
    """Refuse folds whose result could be huge (a constant folder must never hang)."""
    if isinstance(op, ast.Pow) and isinstance(left, int) and isinstance(right, int):
        return abs(left) <= 1 or right <= 0 or right * abs(left).bit_length() <= _MAX_INT_BITS
    if isinstance(op, ast.LShift) and isinstance(right, int):
        return right <= _MAX_INT_BITS
    if isinstance(op, ast.Mult) and (isinstance(left, str) or isinstance(right, str)):
        count = right if isinstance(left, str) else left
        text = left if isinstance(left, str) else right
        return isinstance(count, int) and isinstance(text, str) and len(text) * max(count, 0) <= _MAX_STR_LEN
    return True


def _checked(fn: Callable[..., Any], *args: Constant) -> Constant | None:
    try:
        value = fn(*args)
    except (ArithmeticError, TypeError, ValueError):
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > _MAX_INT_BITS:
        return None
    return value if isinstance(value, int | float | str | bool) else None


def _statements(unit: Unit) -> list[ast.stmt]:
    return unit.node.body if isinstance(unit.node, ast.Module) else []


def _module_level(stmts: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements executed at module level: inside `if`/`try`/`with` blocks too, not inside
    function or class bodies."""
    for stmt in stmts:
        yield stmt
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _module_level(getattr(stmt, field, None) or [])
        for handler in getattr(stmt, "handlers", None) or []:
            yield from _module_level(handler.body)


def _record_imports(stmt: ast.stmt, ctx: ModuleContext) -> None:
    for node in _module_level([stmt]):
        if isinstance(node, ast.Import):
            for alias in node.names:
                _record_import(alias, ctx)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                _record_from_import(node.module, alias, ctx)


def _record_import(alias: ast.alias, ctx: ModuleContext) -> None:
    module = alias.name
    if module == DSL_MODULE:
        ctx.pl_names.add(alias.asname or DSL_MODULE)
    elif module == DISTRIBUTED_MODULE:
        if alias.asname:
            ctx.pld_names.add(alias.asname)
        else:
            ctx.pl_names.add(DSL_MODULE)  # `import a.b.c` makes `a.b` reachable as well
            ctx.pld_names.add(DISTRIBUTED_MODULE)


def _record_from_import(module: str, alias: ast.alias, ctx: ModuleContext) -> None:
    local = alias.asname or alias.name
    full = f"{module}.{alias.name}"
    if full == DSL_MODULE:
        ctx.pl_names.add(local)
    elif full == DISTRIBUTED_MODULE:
        ctx.pld_names.add(local)
    elif module == DSL_MODULE and alias.name != "*":
        ctx.pl_members[local] = alias.name
    elif module == DISTRIBUTED_MODULE and alias.name != "*":
        ctx.pl_members[local] = f"distributed.{alias.name}"


def _bind_decorated(index: int, unit: Unit, ctx: ModuleContext) -> None:
    node = unit.node
    assert isinstance(node, ast.FunctionDef | ast.ClassDef)
    _unbind(node.name, ctx)
    if ctx.resolve(unit.decorator) is None:
        return
    ctx.functions[node.name] = index
    if unit.kind == "inline" and isinstance(node, ast.FunctionDef):
        ctx.inline_functions[node.name] = node
        ctx.inline_units[node.name] = index
        ctx.inline_keys[node.name] = unit.key


def _record_binding(stmt: ast.stmt, ctx: ModuleContext) -> None:
    """Constants, `pl.dynamic` symbols and function aliases defined by one top-level statement."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        name, value = stmt.targets[0].id, stmt.value
        if _is_dynamic(value, ctx):
            _unbind(name, ctx)
            ctx.dynamic_symbols.add(name)
            return
        if isinstance(value, ast.Name) and value.id in ctx.functions:
            _unbind(name, ctx)
            ctx.functions[name] = ctx.functions[value.id]
            return
    if isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
        folded = fold_assignments([stmt], dict(ctx.constants))
        for name in _bound_names(stmt):
            _unbind(name, ctx)
        ctx.constants.update(folded)
        return
    for node in _module_level([stmt]):
        for name in _bound_names(node):
            if name not in ctx.pl_names and name not in ctx.pld_names:
                _unbind(name, ctx)


def _unbind(name: str, ctx: ModuleContext) -> None:
    """Forget what `name` meant: it is being rebound (a later statement always wins)."""
    ctx.constants.pop(name, None)
    ctx.dynamic_symbols.discard(name)
    ctx.functions.pop(name, None)
    ctx.inline_functions.pop(name, None)
    ctx.inline_units.pop(name, None)
    ctx.inline_keys.pop(name, None)


def _is_dynamic(value: ast.expr, ctx: ModuleContext) -> bool:
    return isinstance(value, ast.Call) and ctx.resolve(value.func) == ("dynamic",)


def _bound_names(stmt: ast.stmt) -> list[str]:
    """Names a statement binds in its own scope (not inside nested blocks)."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [stmt.name]
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        return [(a.asname or a.name).split(".")[0] for a in stmt.names]
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor):
        targets = [stmt.target]
    elif isinstance(stmt, ast.With | ast.AsyncWith):
        targets = [item.optional_vars for item in stmt.items if item.optional_vars is not None]
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
