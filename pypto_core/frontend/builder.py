"""One `ast.FunctionDef` -> one pre-SSA `ir.Function`: the function-body front end.

The module front end decides *what* is a function (decorators, jit grouping, callees) and
hands each `def` here with a `FunctionContext` and its parsed decorator (`FunctionHeader`).
This module reads the signature (params with types and directions, return types) and the
body (statements, expressions, scopes), reporting parser-level errors (PTO1xx) to
`ctx.diagnostics`. It never raises for user input.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .. import ir
from ..ir_clone import clone
from ..span import Span, make_span
from .body_state import BodyState
from .context import PL, FunctionContext
from .dump_tags import apply_dump_tags
from .exprs import attr_value
from .jit_renames import JitRenamer, alias_words
from .source import name_span
from .stmt_memo import StatementReuse
from .stmts import StmtBuilder
from .types import parameter_type, return_types

SHADOWED_SYMBOL = "PTO205"  # a parameter rebinding a dynamic symbol an earlier annotation read

if TYPE_CHECKING:
    from .decorators import FunctionHeader


@dataclass
class FunctionStart:
    """A function read up to its body: the builder state with the parameters bound, and the
    signature its callers see. A program reads every member's signature before any body (a
    body may call a later member), and the body goes on from the same state, so the
    parameters are read once."""

    node: ast.FunctionDef
    header: FunctionHeader
    state: BodyState
    params: list[ir.Param]
    return_types: list[ir.Type]  # as callers see them: read before the body can shadow a constant
    span: Span  # the whole `def`, read first: that enters all its lines into the span table
    constexpr: tuple[tuple[int, str], ...]  # `BLOCK: pl.constexpr` (position, name): no Param
    read: SignatureRead | None = None  # what reading the signature left, for a later build


@dataclass
class SignatureRead:
    """What reading a signature left in the builder state: a later build of a function with the
    same header (decorators, parameters, annotations, at the same place) starts from it
    (`resume_signature`) instead of reading the parameters again, and so with the same
    parameter `Var`s, which keeps the body's statements that read them reusable (`stmt_memo`).
    `valid` is cleared when a build modified one of those `Var`s (`StatementReuse.tainted`)."""

    params: tuple[ir.Param, ...]
    return_types: tuple[ir.Type, ...]
    constexpr: tuple[tuple[int, str], ...]
    auto_scope: bool
    variables: dict[str, ir.Var]
    current_types: dict[str, ir.Type]
    symbols: dict[str, ir.Var]
    hidden: tuple[tuple[str, bool, bool], ...]  # parameter name, constant / static value left visible
    diagnostics: tuple[object, ...]
    temp_counter: int
    valid: bool = True


def read_signature(
    node: ast.FunctionDef, ctx: FunctionContext, *, is_method: bool, header: FunctionHeader
) -> FunctionStart:
    """Parameters (without `self`, their diagnostics reported to `ctx`) and declared return
    types of `node`. The return annotation's diagnostics are dropped here: `build_function`
    reads it again after the body, which is where they have always been reported."""
    state = BodyState(ctx, function_type=header.type, level=header.level, strict_ssa=header.strict_ssa)
    state.auto_scope = _auto_scope(node)
    span = state.span(node)
    params, constexpr = _params(state, node, is_method)
    if header.host_python and node.args.args and node.args.args[0].arg == "self":
        state.error(
            "PTO201",
            f"SubWorker function '{node.name}' must not declare 'self'; declare it as a "
            "self-contained function inside @pl.program.",
            node.args.args[0],
            hint="Remove the 'self' parameter from the SubWorker definition.",
        )
    reported = len(ctx.diagnostics)
    returns = return_types(state, node.returns)
    del ctx.diagnostics[reported:]
    names = [arg.arg for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]
    read = SignatureRead(
        tuple(params),
        tuple(returns),
        constexpr,
        state.auto_scope,
        dict(state.variables),
        dict(state.current_types),
        dict(state.symbols),
        tuple((name, name in state.constants, name in state.values) for name in names),
        tuple(ctx.diagnostics),
        state.temp_counter,
    )
    return FunctionStart(node, header, state, params, returns, span, constexpr, read)


def resume_signature(
    read: SignatureRead, node: ast.FunctionDef, ctx: FunctionContext, *, header: FunctionHeader
) -> FunctionStart:
    """`read_signature`'s result from what an earlier read of the same header left."""
    state = BodyState(ctx, function_type=header.type, level=header.level, strict_ssa=header.strict_ssa)
    state.auto_scope = read.auto_scope
    span = state.span(node)
    state.variables.update(read.variables)
    state.current_types.update(read.current_types)
    state.symbols.update(read.symbols)
    state.temp_counter = read.temp_counter
    for name, constant, value in read.hidden:
        if not constant:
            state.constants.pop(name, None)
        if not value:
            state.values.pop(name, None)
    ctx.diagnostics.extend(read.diagnostics)  # type: ignore[arg-type]
    params, returns = list(read.params), list(read.return_types)
    return FunctionStart(node, header, state, params, returns, span, read.constexpr, read)


def build_function(start: FunctionStart, reuse: StatementReuse | None = None) -> ir.Function:
    """The function whose signature `start` read, body included; with `reuse`, the statements
    the last build kept are taken where they can be, and this build's are kept in it."""
    node, header, state = start.node, start.header, start.state
    ctx = state.ctx
    state.reuse = reuse
    for param in start.params:
        state.defined.add(param.var.name)
    state.defined.update(name for _, name in start.constexpr)
    if ctx.in_jit and not header.host_python:
        state.renamer = jit_renamer(node, ctx)
    body_nodes = _read_prologue(state, node.body, header.attrs)
    # A HOST-level SubWorker's body is the user's own Python, run verbatim on the host: none
    # of it is DSL (`import`, `assert`, `raise` are fine there), so none of it is built.
    if header.host_python:
        body: list[ir.Stmt] = []
    elif reuse is not None:
        body = reuse.body(StmtBuilder(state), body_nodes, start.read)
    else:
        body = StmtBuilder(state).block(body_nodes)
    if state.renamer is not None:
        ctx.aliases = state.renamer.aliases()
    function = ir.Function(
        name=node.name,
        params=start.params,
        body=body,
        return_types=return_types(state, node.returns),
        type=header.type,
        level=header.level,
        role=header.role,
        attrs={**header.attrs, **state.func_attrs},
        span=start.span,
        name_span=name_span(node, ctx.source_lines, ctx.line_offset),
        strict_ssa=header.strict_ssa,
    )
    state.reuse = None
    if reuse is not None:
        if reuse.tainted and start.read is not None:
            start.read.valid = False  # a parameter's Var may be the one modified
        reuse.tainted |= ctx.dump_tags  # tags are applied in place, here or after splicing
    if ctx.dump_tags and header.type is not ir.FunctionType.Inline and not calls_inline_helper(ctx, node):
        if reuse is not None and reuse.reused:
            function = clone(function)  # tags are applied in place: kept statements stay as they are
        apply_dump_tags(function)  # otherwise the module front end applies them after splicing
    return function


def jit_renamer(node: ast.FunctionDef, ctx: FunctionContext) -> JitRenamer:
    """The specialiser's rename bookkeeping for a jit `def`: its positional parameters bound
    at depth 0 (`self` aside), the rename-shaped names it binds skipped."""
    params = [a.arg for a in node.args.args if a.arg != "self"]
    return JitRenamer(params, JitRenamer.taken(node, jit_words(node, ctx)))


def jit_words(node: ast.FunctionDef, ctx: FunctionContext) -> frozenset[str]:
    """The rename-shaped words of the `def`'s text (`jit_renames.alias_words`)."""
    first = node.lineno - 1 + ctx.line_offset
    last = (node.end_lineno or node.lineno) + ctx.line_offset
    return alias_words("\n".join(ctx.source_lines[first:last]))


def _auto_scope(node: ast.FunctionDef) -> bool:
    """`@pl.function(auto_scope=False)`: the author, not the compiler, places AUTO scopes."""
    for decorator in node.decorator_list:
        for kw in decorator.keywords if isinstance(decorator, ast.Call) else ():
            if kw.arg == "auto_scope" and isinstance(kw.value, ast.Constant):
                return bool(kw.value.value)
    return True


def calls_inline_helper(ctx: FunctionContext, node: ast.FunctionDef) -> bool:
    """Whether a `dump_tag` of this body may reach scopes of (or come from) a spliced helper."""
    inline_callees = any(callee.type is ir.FunctionType.Inline for callee in ctx.callees.values())
    if not ctx.module.inline_functions and not inline_callees:
        return False
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        name = (
            func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        )
        if name is None:
            continue
        callee = ctx.callees.get(name)
        if name in ctx.module.inline_functions or (
            callee is not None and callee.type is ir.FunctionType.Inline
        ):
            return True
    return False


def _params(
    state: BodyState, node: ast.FunctionDef, is_method: bool
) -> tuple[list[ir.Param], tuple[tuple[int, str], ...]]:
    """The parameters, and the `pl.constexpr` ones apart (hw-native-sys/pypto#2764): the
    compiler folds the call site's value into the body and drops the parameter from the
    program and the dispatch ABI. Its value is not known here, so the body reads it as a
    compile-time name of unknown value (like an imported constant): no variable, nothing a
    scope captures, a valid `pl.unroll` bound. It shadows a module constant of its name."""
    arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    if is_method and arguments and arguments[0].arg == "self":  # the parser strips only `self`
        arguments = arguments[1:]
    params: list[ir.Param] = []
    constexpr: list[tuple[int, str]] = []
    earlier: list[ast.arg] = []  # the parameters before this one, `pl.constexpr` ones aside
    for position, arg in enumerate(arguments):
        if arg.annotation is not None and state.dsl_path(arg.annotation) == (PL, "constexpr"):
            state.constants.pop(arg.arg, None)
            state.values.pop(arg.arg, None)
            constexpr.append((position, arg.arg))
            continue
        param_type, direction = _parameter_type(state, arg)
        if (
            param_type == ir.INDEX
            and arg.arg in state.ctx.module.dynamic_symbols
            and _annotations_read(arg.arg, earlier)
        ):
            state.error(
                SHADOWED_SYMBOL,
                f"Parameter '{arg.arg}' shadows the dynamic symbol '{arg.arg}', which an earlier "
                "parameter's type annotation already uses",
                arg,
                hint=f"Declare '{arg.arg}: pl.Scalar[pl.INDEX]' before the parameter whose "
                "pl.TensorView(valid_shape=...) names it, so the annotation resolves to the parameter",
            )
        earlier.append(arg)
        span = state.span(arg)
        var = state.bind(arg.arg, span, param_type)
        var.span = make_span(span.start_line, span.start_col, span.start_line, span.start_col + len(arg.arg))
        params.append(ir.Param(var, direction, span))
    return params, tuple(constexpr)


def _parameter_type(state: BodyState, arg: ast.arg) -> tuple[ir.Type, ir.Direction]:
    """A parameter's type as the jit specialiser emits it (`_build_dyndim_map_for_func`): each
    axis the body binds with `arg.bind_dynamic(i, ROWS)` is the symbol `ROWS`, the variable's
    name, and every other axis is its annotation's, a symbol by its string (`ROWS =
    pl.dynamic("M")` is `M` there), so one function can name one symbol both ways."""
    bound = [(axis, symbol) for param, axis, symbol in state.ctx.bound_axes if param == arg.arg]
    if not state.ctx.bound_axes:
        return parameter_type(state, arg.annotation)
    state.in_signature = True
    try:
        param_type, direction = parameter_type(state, arg.annotation)
    finally:
        state.in_signature = False
    if bound and isinstance(param_type, ir.TensorType) and param_type.shape is not None:
        shape = list(param_type.shape)
        for axis, symbol in bound:
            if axis < len(shape):
                shape[axis] = ir.Symbol(symbol)
        param_type = replace(param_type, shape=tuple(shape))
    return param_type, direction


def _annotations_read(name: str, arguments: list[ast.arg]) -> bool:
    """Whether an annotation of `arguments` reads `name`: walked only for a parameter that
    shadows a dynamic symbol (a kernel's hundred annotations were walked for every read)."""
    return any(
        isinstance(node, ast.Name) and node.id == name
        for arg in arguments
        if arg.annotation is not None
        for node in ast.walk(arg.annotation)
    )


def _read_prologue(state: BodyState, body: list[ast.stmt], declared: dict[str, object]) -> list[ast.stmt]:
    """Consume a leading docstring and the `pl.func_attr({...})` prologue: any number of them
    before every other statement, merged (a key given twice, or also in the decorator's
    `attrs=` (`declared`), is the compiler's error)."""
    index = 0
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        index = 1
    while index < len(body) and _is_func_attr(state, body[index]):
        call = body[index].value  # type: ignore[attr-defined]
        folded = attr_value(state, call.args[0]) if call.args else None
        if isinstance(folded, dict):
            for key, value in folded.items():
                if key in state.func_attrs or key in declared:
                    state.error(
                        "PTO199",
                        f"Duplicate function attribute '{key}' in pl.func_attr({{...}})",
                        body[index],
                        hint="Each attribute may be declared only once.",
                    )
                state.func_attrs[key] = value
        index += 1
    return body[index:]


def _is_func_attr(state: BodyState, stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return False
    return state.dsl_path(stmt.value.func) == (PL, "func_attr")
