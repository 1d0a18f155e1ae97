"""Module facts a program's analysis depends on: DSL imports, constants, dynamic symbols,
inline helpers and which decorated `def` each module-level name ends up bound to.

Everything is read from the syntax tree; nothing is imported or executed. Constants are folded
the way the real parser would see them as closure values, by `static_eval` (literals,
arithmetic, tuples and dicts, frozen dataclass configs), with size limits so `2 ** 10 ** 10`
cannot hang the server.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator, Mapping
from copy import copy
from dataclasses import dataclass, fields, replace
from typing import Any

from ..diagnostics import Diagnostic
from .context import ModuleContext
from .declared import record_declaration
from .imports import ForeignFunction, ModuleFacts, ModuleLookup
from .static_eval import (
    UNKNOWN,
    DslResolver,
    DynamicSymbol,
    StaticModule,
    evaluate,
    frozen_dataclass,
    is_scalar,
)
from .static_exec import StaticFunction
from .units import Unit, binder_call

Constant = int | float | str | bool

DSL_MODULE = "pypto.language"
DISTRIBUTED_MODULE = "pypto.language.distributed"
JIT_MODULES = ("pypto.jit", "pypto.jit.decorator")  # where `pl.jit` is defined


def module_context(
    units: list[Unit], modules: ModuleLookup | None = None, *, exported: bool = False
) -> tuple[ModuleContext, list[Diagnostic]]:
    """The module facts, from every parsed unit in source order (a unit with a syntax error
    contributes nothing). `modules` answers its imports (None: nothing is imported). A file
    that does not import the DSL gets an empty context, unless `exported`: what an importer
    reads from it (a config module need not import the DSL)."""
    ctx = ModuleContext()
    for unit in units:
        for stmt in _statements(unit):
            record_imports(stmt, ctx)
    if not ctx.is_dsl:
        ctx.dsl_in_bodies = any(_imports_dsl_in_a_body(unit.text) for unit in units if unit.kind == "other")
    if not ctx.analysed and not exported:
        return ModuleContext(), []
    untaken: list[range] = []  # file lines of block branches a folded condition rules out
    for index, unit in enumerate(units):
        if unit.kind in ("program", "jit", "inline") and isinstance(
            unit.node, ast.FunctionDef | ast.ClassDef
        ):
            if unit.node_line is not None and any(unit.start_line in lines for lines in untaken):
                ctx.untaken_units.add(index)  # under `if False:` as the module runs: never defined
                continue
            if unit.returned_by is None:  # else bound where the module calls its binder
                bind_decorated(index, unit, ctx)
            continue
        untaken += _untaken_branches(_statements(unit), ctx, unit.node_offset)
        for stmt in _statements(unit):
            if modules is not None:
                for node in module_level([stmt]):
                    if isinstance(node, ast.Import | ast.ImportFrom):
                        bind_imports(node, modules, ctx)
            for node in _run(stmt):
                if modules is not None and _assign_attribute(node, modules, ctx):
                    continue
                record_binding(node, ctx)
                _bind_returned(node, units, ctx)
    return ctx, []


def _assign_attribute(stmt: ast.stmt, modules: ModuleLookup, ctx: ModuleContext) -> bool:
    """`config.X = value` (or `+=`, or annotated) where `config` is a module this one
    imported: the module's attribute is assigned, as in Python's one module object. The
    module reads `config.X` as the value from here on, and the modules imported after this
    statement see it (`ModuleLookup.assign`: `moe.py` sets `config.FLASH` before `from gate
    import gate`, so `gate.py` is built with it). False: not such a statement (then it binds
    as any other: `fn.__name__ = "x"` rebinds `fn`)."""
    if isinstance(stmt, ast.Assign):
        targets, value = stmt.targets, stmt.value
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        targets, value = [stmt.target], stmt.value
    elif isinstance(stmt, ast.AugAssign):
        targets, value = [stmt.target], ast.BinOp(stmt.target, stmt.op, stmt.value)
    else:
        return False
    owners = [_assigned_module(target, ctx) for target in targets]
    if any(owner is None for owner in owners):
        return False
    folded = evaluate(value, _Names(ctx.constants, ctx.values, ctx.python_functions))
    for target, owner in zip(targets, owners, strict=True):
        assert isinstance(target, ast.Attribute) and owner is not None
        modules.assign(owner.path, target.attr, folded)
        for local, bound in list(ctx.values.items()):  # every name bound to that module
            if isinstance(bound, StaticModule) and bound.path == owner.path:
                ctx.values[local] = _with_attribute(bound, target.attr, folded)
    return True


def _assigned_module(target: ast.expr, ctx: ModuleContext) -> StaticModule | None:
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)):
        return None
    bound = ctx.values.get(target.value.id)
    return bound if isinstance(bound, StaticModule) and bound.path else None


def _with_attribute(module: StaticModule, name: str, value: Any) -> StaticModule:
    values = dict(module.values)
    values.pop(name, None)
    if _known(value):
        values[name] = value
    return StaticModule(module.name, tuple(sorted(values.items())), module.path)


def _known(value: Any) -> bool:
    """Whether a folded value is kept as a module's binding (as `_assign` keeps one)."""
    return is_scalar(value) or (value is not UNKNOWN and value is not None)


def assigned_context(ctx: ModuleContext, assigned: Mapping[str, Any]) -> ModuleContext:
    """`ctx` as read after other modules assigned its attributes `assigned` (name -> folded
    value, `UNKNOWN` when it did not fold): those names rebound, everything else as it was.
    A new object; `ctx` is not modified."""
    copied = replace(ctx)
    for item in fields(ctx):
        value = getattr(ctx, item.name)
        if isinstance(value, dict | set):
            setattr(copied, item.name, copy(value))
    copied.annotation_types = {}  # what an annotation folded to reads the constants
    copied._names_by_unit = None
    copied._digests = None
    for name, value in assigned.items():
        unbind(name, copied)
        if is_scalar(value):
            copied.constants[name] = value
        elif _known(value):
            copied.values[name] = value
    copied.freeze()
    return copied


def _run(stmt: ast.stmt) -> Iterator[ast.stmt]:
    """What a module-level statement binds by, read as importing the module runs it (the
    compiler compiles what the running model imports): the script's `if __name__ ==
    "__main__":` block binds nothing (`hc_pre.py`'s rebinds its implementation from argv).
    DSL definitions in it are still analysed (`_untaken_branches` does not skip them)."""
    if not (isinstance(stmt, ast.If) and _is_main_guard(stmt.test)):
        yield stmt
    elif stmt.orelse:
        for inner in stmt.orelse:
            yield from _run(inner)


def _bind_returned(stmt: ast.stmt, units: list[Unit], ctx: ModuleContext) -> None:
    """`X = f()` where `f` is a binder (`nested.block_units`): X is the definition of X the
    call runs last, its branches decided as the module's own `if`s are (a condition that
    does not fold runs both, so the later definition wins)."""
    call = binder_call(stmt)
    if call is None:
        return
    name, binder = call
    candidates = {
        u.node.lineno: i
        for i, u in enumerate(units)
        if u.returned_by == binder and u.name == name and isinstance(u.node, ast.FunctionDef)
    }
    if not candidates:
        return
    first = units[next(iter(candidates.values()))]
    owner = next(u for u in units if u.start_line == first.node_line and u.node_line is None)
    function = next(s for s in _statements(owner) if isinstance(s, ast.FunctionDef) and s.name == binder)
    chosen = _last_definition(function.body, name, ctx)
    if chosen is not None and chosen.lineno in candidates:
        index = candidates[chosen.lineno]
        bind_decorated(index, units[index], ctx)


def _last_definition(stmts: list[ast.stmt], name: str, ctx: ModuleContext) -> ast.FunctionDef | None:
    """The last `def name` that running `stmts` executes (an `if` that folds runs one branch)."""
    found = None
    for stmt in stmts:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
            found = stmt
            continue
        if isinstance(stmt, ast.If):
            truth = _truth(stmt.test, ctx)
            branches = [stmt.body, stmt.orelse] if truth is None else [stmt.body if truth else stmt.orelse]
        else:  # a loop, `with` or `try` block: every part may run
            branches = [getattr(stmt, part, None) or [] for part in ("body", "orelse", "finalbody")]
            branches[1:1] = [h.body for h in getattr(stmt, "handlers", None) or []]
        for branch in branches:
            found = _last_definition(branch, name, ctx) or found
    return found


def _truth(test: ast.expr, ctx: ModuleContext) -> bool | None:
    """A module-level condition's value, None when it does not fold."""
    value = evaluate(test, _Names(ctx.constants, ctx.values, ctx.python_functions))
    if value is UNKNOWN:
        return None
    try:
        return bool(value)
    except Exception:  # a static value whose truth is not known
        return None


def fold_constant(
    expr: ast.expr, env: Mapping[str, Constant], values: Mapping[str, Any] | None = None
) -> Constant | None:
    """The value of a constant expression over `env` (scalar constants) and `values` (tuples,
    dicts, config objects, modules: `static_eval`), or None when it is not a scalar constant."""
    value = evaluate(expr, _Names(env, values or {}))
    return value if is_scalar(value) else None


def fold_extent(
    expr: ast.expr, env: Mapping[str, Constant], values: Mapping[str, Any] | None = None
) -> Constant | DynamicSymbol | None:
    """`fold_constant`, or the `pl.dynamic` symbol a static value holds (`BATCH = D.batch`
    of a config dataclass): a tensor extent."""
    value = evaluate(expr, _Names(env, values or {}))
    return value if is_scalar(value) or isinstance(value, DynamicSymbol) else None


@dataclass(frozen=True, eq=False)
class _Names:
    """Names as a module-level statement reads them: constants, static values, and (for the
    module's own statements) its plain functions, which `static_eval` follows when called.
    An object, not a closure: the closure named itself (for the functions it hands out), a
    reference cycle per statement folded that held its mappings until a full collection
    (a hundred per keystroke into a real model file, issue 15's memory)."""

    env: Mapping[str, Constant]
    values: Mapping[str, Any]
    functions: Mapping[str, ast.FunctionDef] | None = None

    def __call__(self, name: str) -> Any:
        value = self.env.get(name)
        if value is not None:
            return value
        if self.functions:
            function = self.functions.get(name)
            if function is not None:
                return StaticFunction(function, self)
        return self.values.get(name, UNKNOWN)


def fold_assignments(stmts: Iterable[ast.stmt], env: dict[str, Constant]) -> dict[str, Constant]:
    """Scalar constants assigned by straight-line statements (`ROWS = 64`, `COLS = ROWS * 2`,
    `N: int = 8`, `N += 1`); a name rebound to anything else stops being a constant."""
    scalars: dict[str, Constant] = {}
    values: dict[str, Any] = {}
    for stmt in stmts:
        fold_statement(stmt, env | scalars, values, scalars, values)
    return scalars


def fold_statement(
    stmt: ast.stmt,
    env: Mapping[str, Constant],
    values: Mapping[str, Any],
    scalars_out: dict[str, Constant],
    values_out: dict[str, Any],
    functions: Mapping[str, ast.FunctionDef] | None = None,
    dsl: DslResolver | None = None,
) -> None:
    """What one statement binds: scalar constants into `scalars_out`, other static values into
    `values_out`; a name it rebinds to anything else is removed from both. `functions` are the
    plain functions a call in it may run (`static_exec`); `dsl` resolves the module's DSL
    names (its `pl.dynamic` symbols fold, `static_eval.DynamicSymbol`)."""
    lookup = _Names(env, values, functions)
    if isinstance(stmt, ast.Assign):
        value = evaluate(stmt.value, lookup, dsl)
        for target in stmt.targets:
            _assign(target, value, scalars_out, values_out)
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        _assign(stmt.target, evaluate(stmt.value, lookup, dsl), scalars_out, values_out)
    elif isinstance(stmt, ast.AugAssign):
        augmented = ast.BinOp(stmt.target, stmt.op, stmt.value)
        value = evaluate(augmented, lookup) if _is_name(stmt.target) else UNKNOWN
        _assign(stmt.target, value, scalars_out, values_out)
    elif isinstance(stmt, ast.ClassDef):
        _assign(ast.Name(stmt.name), frozen_dataclass(stmt, lookup) or UNKNOWN, scalars_out, values_out)
    else:
        for name in _bound_names(stmt):
            scalars_out.pop(name, None)
            values_out.pop(name, None)


def _assign(target: ast.expr, value: Any, scalars: dict[str, Constant], values: dict[str, Any]) -> None:
    if isinstance(target, ast.Name):
        scalars.pop(target.id, None)
        values.pop(target.id, None)
        if is_scalar(value):
            scalars[target.id] = value
        elif _known(value):
            values[target.id] = value
    elif _unpacks(target, value):
        assert isinstance(target, ast.Tuple | ast.List)
        for element, item in zip(target.elts, value, strict=True):
            _assign(element, item, scalars, values)
    else:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                scalars.pop(node.id, None)
                values.pop(node.id, None)


def _unpacks(target: ast.expr, value: Any) -> bool:
    """`A, B = 1, 2`: a tuple target over a tuple value of its length."""
    if not isinstance(target, ast.Tuple | ast.List):
        return False
    return isinstance(value, tuple) and len(value) == len(target.elts)


def _is_name(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Name)


# an indented import of the DSL: `import pypto.language as pl`, `from pypto import language`,
# `from pypto.language import ...` inside a function body
_BODY_DSL_IMPORT = re.compile(
    r"^[ \t]+(?:import[ \t]+pypto\.language\b|from[ \t]+pypto\.language\b"
    r"|from[ \t]+pypto[ \t]+import[^\n]*\blanguage\b)",
    re.M,
)


def _imports_dsl_in_a_body(text: str) -> bool:
    return "pypto" in text and _BODY_DSL_IMPORT.search(text) is not None


def _untaken_branches(stmts: list[ast.stmt], ctx: ModuleContext, offset: int) -> list[range]:
    """The file lines of the branches of module-level `if`s whose condition folds (with the
    module's names so far) against them; an `if` whose condition does not fold has both
    branches taken (the later definition of a name then wins, as for builder bodies)."""
    found: list[range] = []
    for stmt in stmts:
        if not isinstance(stmt, ast.If):
            continue
        truth = _truth(stmt.test, ctx)
        if truth is None:
            found += _untaken_branches(stmt.body, ctx, offset) + _untaken_branches(stmt.orelse, ctx, offset)
            continue
        taken, other = (stmt.body, stmt.orelse) if truth else (stmt.orelse, stmt.body)
        if other:
            first = min([d.lineno for d in getattr(other[0], "decorator_list", [])] + [other[0].lineno])
            found.append(range(first - 1 + offset, (other[-1].end_lineno or 0) + offset))
        found += _untaken_branches(taken, ctx, offset)
    return found


def _is_main_guard(test: ast.expr) -> bool:
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s.id for s in sides if isinstance(s, ast.Name)]
    texts = [s.value for s in sides if isinstance(s, ast.Constant)]
    return names == ["__name__"] and texts == ["__main__"]


def _statements(unit: Unit) -> list[ast.stmt]:
    return unit.node.body if isinstance(unit.node, ast.Module) else []


def module_level(stmts: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements executed at module level: inside `if`/`try`/`with` blocks too, not inside
    function or class bodies."""
    for stmt in stmts:
        yield stmt
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from module_level(getattr(stmt, field, None) or [])
        for handler in getattr(stmt, "handlers", None) or []:
            yield from module_level(handler.body)


def record_imports(stmt: ast.stmt, ctx: ModuleContext) -> None:
    for node in module_level([stmt]):
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
    elif module in JIT_MODULES and alias.name == "jit":
        ctx.pl_members[local] = "jit"  # `pl.jit` is this decorator, re-exported
    elif module == DISTRIBUTED_MODULE and alias.name != "*":
        ctx.pl_members[local] = f"distributed.{alias.name}"


def bind_decorated(index: int, unit: Unit, ctx: ModuleContext) -> None:
    node = unit.node
    assert isinstance(node, ast.FunctionDef | ast.ClassDef)
    unbind(node.name, ctx)
    if ctx.resolve(unit.decorator) is None:
        return
    ctx.functions[node.name] = index
    if unit.kind == "inline" and isinstance(node, ast.FunctionDef):
        ctx.inline_functions[node.name] = node
        ctx.inline_units[node.name] = index
        ctx.inline_keys[node.name] = unit.key


def record_binding(stmt: ast.stmt, ctx: ModuleContext) -> None:
    """Constants, `pl.dynamic` symbols and function aliases defined by one top-level statement."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        name, value = stmt.targets[0].id, stmt.value
        if _is_dynamic(value, ctx):
            unbind(name, ctx)
            ctx.dynamic_symbols[name] = _dynamic_name(value, name)
            return
        if isinstance(value, ast.Name) and value.id in ctx.functions:
            unbind(name, ctx)
            ctx.functions[name] = ctx.functions[value.id]
            return
        if isinstance(value, ast.Name) and value.id in ctx.foreign:
            foreign = ctx.foreign[value.id]
            unbind(name, ctx)
            ctx.foreign[name] = foreign
            return
    if isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.ClassDef):
        scalars: dict[str, Constant] = {}
        values: dict[str, Any] = {}
        fold_statement(stmt, ctx.constants, ctx.values, scalars, values, ctx.python_functions, ctx.resolve)
        for name in _bound_names(stmt):
            unbind(name, ctx)
        ctx.constants.update(scalars)
        ctx.values.update(values)
        record_declaration(stmt, ctx)
        return
    for node in module_level([stmt]):
        if isinstance(node, ast.Import | ast.ImportFrom):
            ctx.bound_names.update(_bound_names(node))
            continue  # what it binds was bound by `bind_imports`
        for name in _bound_names(node):
            if name not in ctx.pl_names and name not in ctx.pld_names:
                unbind(name, ctx)
        record_declaration(node, ctx)
    if isinstance(stmt, ast.FunctionDef) and not stmt.decorator_list:
        ctx.python_functions[stmt.name] = stmt  # a later call may run it (`static_exec`)


def unbind(name: str, ctx: ModuleContext) -> None:
    """Forget what `name` meant: it is being rebound (a later statement always wins)."""
    ctx.bound_names.add(name)
    ctx.foreign.pop(name, None)
    ctx.unresolved.pop(name, None)
    ctx.opaque_imports.pop(name, None)
    ctx.constants.pop(name, None)
    ctx.values.pop(name, None)
    ctx.dynamic_symbols.pop(name, None)
    ctx.functions.pop(name, None)
    ctx.inline_functions.pop(name, None)
    ctx.inline_units.pop(name, None)
    ctx.inline_keys.pop(name, None)
    ctx.declared.pop(name, None)
    ctx.python_functions.pop(name, None)


def _is_dynamic(value: ast.expr, ctx: ModuleContext) -> bool:
    return isinstance(value, ast.Call) and ctx.resolve(value.func) == ("dynamic",)


def _dynamic_name(call: ast.expr, name: str) -> str:
    """The compiler's name of the symbol `name = pl.dynamic("S")` binds: its string `S` (the
    DynVar's name, which types and parameters print), else the variable's name."""
    assert isinstance(call, ast.Call)
    if len(call.args) == 1 and not call.keywords:
        arg = call.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.isidentifier():
            return arg.value
    return name


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


# -- imports from other modules ----------------------------------------------------------------


def bind_imports(stmt: ast.Import | ast.ImportFrom, modules: ModuleLookup, ctx: ModuleContext) -> None:
    """Bind what an import statement brings from the modules `modules` finds: constants and
    static values, `pl.dynamic` symbols, decorated functions, modules (`import config`). A name
    whose module is not found, or which that module does not define, is `unresolved`."""
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            if alias.name in (DSL_MODULE, DISTRIBUTED_MODULE) or alias.name.startswith("pypto."):
                continue
            if alias.asname is None and "." in alias.name:
                unbind(alias.name.split(".")[0], ctx)  # `import a.b` binds `a`: not followed
                continue
            local = alias.asname or alias.name
            facts = modules.module(alias.name, 0)
            unbind(local, ctx)
            if facts is None:
                ctx.unresolved[local] = (alias.name, False)
            else:
                ctx.values[local] = _module_value(facts)
        return
    module = stmt.module or ""
    if stmt.level == 0 and (module == "pypto" or module.startswith("pypto.")):
        return  # the DSL and the compiler's own modules: `record_imports` read them
    facts = modules.module(module, stmt.level)
    spelled = "." * stmt.level + module
    for alias in stmt.names:
        if alias.name == "*":
            if facts is not None:
                for name in sorted(facts.names):
                    if not name.startswith("_"):
                        _bind_from(facts, name, name, ctx)
            continue
        local = alias.asname or alias.name
        if facts is not None and alias.name in facts.names:
            _bind_from(facts, alias.name, local, ctx)
            continue
        submodule = modules.module(f"{module}.{alias.name}" if module else alias.name, stmt.level)
        unbind(local, ctx)
        if submodule is not None:
            ctx.values[local] = _module_value(submodule)
        else:
            ctx.unresolved[local] = (spelled, facts is not None)


def _bind_from(facts: ModuleFacts, name: str, local: str, ctx: ModuleContext) -> None:
    source = facts.ctx
    unbind(local, ctx)
    if name in source.constants:
        ctx.constants[local] = source.constants[name]
    elif name in source.values:
        ctx.values[local] = source.values[name]
    elif name in source.dynamic_symbols:
        ctx.dynamic_symbols[local] = source.dynamic_symbols[name]
    elif name in source.functions:
        ctx.foreign[local] = ForeignFunction(facts, source.functions[name])
    elif name in source.foreign:
        ctx.foreign[local] = source.foreign[name]
    elif name in source.unresolved:
        ctx.unresolved[local] = source.unresolved[name]
    else:
        ctx.opaque_imports[local] = facts.name


def _module_value(facts: ModuleFacts) -> StaticModule:
    """`import config`: its constants and static values, read as `config.X`."""
    values = {**facts.ctx.values, **facts.ctx.constants}
    return StaticModule(facts.name, tuple(sorted(values.items())), facts.path)
