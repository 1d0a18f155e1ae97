"""What the parser checks on a call of a program function (`self.k(...)`, `pl.submit(self.k,
...)`, `pl.spmd_submit(self.k, ...)`) before it builds it: PTO203.

The compiler's `_validate_kernel_call_kwargs` and the arity check of `_parse_kernel_call`
(python/pypto/language/parser/ast_parser.py), in its words: a plain call takes no keyword but
`attrs=` (and `device=` when the callee is an Orchestrator), a submit adds `deps=`, `dumps=`,
`allow_early_resolve=` and `predicate=`, a spmd submit `core_num=` and `sync_start=`; a plain
call passes every parameter, a submit may leave out the `Out`/`InOut` ones. `attrs=` never
carries `manual_dep_edges`, and a submit's `dumps=` names only its own arguments.

Jit modules are not checked: the specialiser rewrites their calls (keywords become positions)
before the parser sees them.
"""

from __future__ import annotations

import ast
from enum import Enum

from ..ir import CalleeSignature, Dim, Direction, Expr, FunctionType, Role, Symbol, TensorType, TileType, Type
from .body_state import BodyState

CALL_ARGUMENTS = "PTO203"


class Launch(Enum):
    """How a program function is called."""

    call = "call"
    submit = "submit"
    spmd_submit = "spmd_submit"


_SUBMIT_KEYWORDS = frozenset({"attrs", "deps", "dumps", "allow_early_resolve", "predicate"})
_SPMD_KEYWORDS = frozenset({"core_num", "sync_start"})
_ORCHESTRATION_LIKE = (FunctionType.Orchestration, FunctionType.Graph)


def allowed_keywords(launch: Launch, callee: CalleeSignature) -> frozenset[str]:
    allowed = frozenset({"attrs"}) if launch is Launch.call else _SUBMIT_KEYWORDS
    if launch is Launch.spmd_submit:
        allowed |= _SPMD_KEYWORDS
    if callee.role is Role.Orchestrator or callee.type in _ORCHESTRATION_LIKE:
        allowed |= {"device"}  # the compiler derives the Orchestrator role from these types
    return allowed


def _keyword_hint(keyword: str, launch: Launch, allowed: frozenset[str]) -> str:
    if keyword == "deps" and launch is Launch.call:
        return (
            "Plain self.kernel(...) is fire-and-forget. To attach dependency edges, submit it: "
            "`out, tid = pl.submit(self.kernel, ..., deps=[...])`."
        )
    if keyword in _SPMD_KEYWORDS and launch is not Launch.spmd_submit:
        return (
            f"'{keyword}' is an SPMD launch parameter. Launch the kernel across multiple blocks "
            "with `out, tid = pl.spmd_submit(self.kernel, ..., core_num=N)`."
        )
    if keyword == "dumps" and launch is Launch.call:
        return (
            "dumps= is only valid on pl.submit(...) / pl.at(...). For a plain self.kernel(...) "
            "call, declare the dump target with a `pl.dump_tag(x)` statement before the call instead."
        )
    return f"Allowed keyword arguments: {sorted(allowed)}"


def check_user_call(
    state: BodyState, node: ast.Call, callee: CalleeSignature, positional: list[ast.expr], launch: Launch
) -> None:
    """PTO203 for each keyword the launch does not take, a wrong argument count, and the
    `attrs=` / `dumps=` rules; `positional` are the callee's arguments (after the kernel
    for a submit)."""
    if state.ctx.in_jit or any(isinstance(a, ast.Starred) for a in positional):
        return
    if any(kw.arg is None for kw in node.keywords):
        return  # `**kwargs`: what it holds is not known
    allowed = allowed_keywords(launch, callee)
    for kw in node.keywords:
        if kw.arg not in allowed:
            state.error(
                CALL_ARGUMENTS,
                f"Function '{callee.name}' does not accept keyword argument '{kw.arg}'",
                kw,
                hint=_keyword_hint(str(kw.arg), launch, allowed),
            )
    _check_count(state, node, callee, len(positional), launch)
    _check_attrs(state, node, callee)
    if launch is not Launch.call:
        _check_dumps(state, node, callee, positional)


def _check_count(state: BodyState, node: ast.Call, callee: CalleeSignature, got: int, launch: Launch) -> None:
    high = len(callee.param_names)
    if launch is Launch.call:
        low, expected = high, f"{high}"
    else:
        low = sum(1 for d in callee.directions if d not in (Direction.Out, Direction.InOut))
        expected = f"{low}..{high}"
    if low <= got <= high:
        return
    params = [f"{name}: {d.value}" for name, d in zip(callee.param_names, callee.directions, strict=True)]
    omitted = " Out/InOut params may be omitted in submit calls." if launch is not Launch.call else ""
    state.error(
        CALL_ARGUMENTS,
        f"Function '{callee.name}' expects {expected} argument(s), got {got}",
        node,
        hint=f"Parameters: {params}.{omitted}",
    )


def _check_attrs(state: BodyState, node: ast.Call, callee: CalleeSignature) -> None:
    attrs = next((kw.value for kw in node.keywords if kw.arg == "attrs"), None)
    if not isinstance(attrs, ast.Dict):
        return
    for key in attrs.keys:
        if isinstance(key, ast.Constant) and key.value == "manual_dep_edges":
            state.error(
                CALL_ARGUMENTS,
                f"attrs={{'manual_dep_edges': ...}} is not accepted on a call to '{callee.name}'",
                key,
                hint="Dependency edges belong on a submit: "
                "`out, tid = pl.submit(self.kernel, ..., deps=[...])`.",
            )


def _check_dumps(
    state: BodyState, node: ast.Call, callee: CalleeSignature, positional: list[ast.expr]
) -> None:
    """A submit's `dumps=` entry must be one of the names passed to it positionally (the
    compiler matches the variables by identity)."""
    dumps = next((kw.value for kw in node.keywords if kw.arg == "dumps"), None)
    if not isinstance(dumps, (ast.List, ast.Tuple)):
        return
    passed = {a.id for a in positional if isinstance(a, ast.Name)}
    for entry in dumps.elts:
        if isinstance(entry, ast.Name) and entry.id in state.variables and entry.id not in passed:
            state.error(
                CALL_ARGUMENTS,
                f"'{callee.name}' dumps= entry '{entry.id}' is not an argument of this submit",
                entry,
                hint="dumps= may only name tensors passed positionally to the submitted kernel.",
            )


SHAPE_BINDING = "PTO209"


def check_shape_bindings(
    state: BodyState, callee: CalleeSignature, sources: list[ast.expr], args: list[Expr]
) -> None:
    """PTO209: the call's arguments bind one of the callee's `pl.dynamic` extents to two
    different literal extents (the compiler's `DeduceCallReturnType`, which unifies each
    parameter's physical shape with its argument's when the callee returns something: a
    symbol keeps its first binding and every later one must be provably equal to it; a
    cross-function call emits no runtime guard). Only literal extents and `pl.dynamic`
    symbols (`ir.Symbol`: `ROWS` and `16` are not provably equal, nor are `ROWS` and `COLS`)
    are compared: another symbolic extent on the caller's side may fold to anything."""
    if state.ctx.in_jit or not callee.return_types or callee.constexpr:
        return
    if len(args) != len(callee.param_types) or len(sources) != len(args):
        return
    symbols = set(state.ctx.module.dynamic_symbols.values())  # the extents' names
    first: dict[str, Dim] = {}
    for position, (declared, arg) in enumerate(zip(callee.param_types, args, strict=True)):
        for index, (pattern, value) in enumerate(_extent_pairs(declared, arg.type)):
            if not (isinstance(pattern, str) and pattern in symbols) or value == pattern:
                continue  # the caller's own `M` binds nothing (the compiler's `var == value`)
            bound = first.setdefault(pattern, value)
            if bound == value or not (_definite(bound) and _definite(value)):
                continue
            state.error(
                SHAPE_BINDING,
                f"Dynamic type variable '{pattern}' has conflicting bindings {bound} and {value} that are "
                f"not provably equal at argument {position} physical shape[{index}]; cross-function calls "
                "do not emit a runtime shape guard",
                sources[position],
                hint=f"'{callee.name}' uses '{pattern}' for both extents: pass tensors that agree there, or "
                "declare the parameters with different dynamic symbols",
            )


def _definite(extent: Dim) -> bool:
    """An extent whose value the compiler knows apart from any other: an integer or a symbol."""
    return isinstance(extent, int | Symbol)


def _extent_pairs(declared: Type, got: Type) -> list[tuple[Dim, Dim]]:
    """The (parameter, argument) physical extents of a tensor or tile passed where one of
    its kind is declared, position by position (as far as both shapes go)."""
    if not (isinstance(declared, TensorType | TileType) and isinstance(got, TensorType | TileType)):
        return []
    if type(got) is not type(declared) or declared.shape is None or got.shape is None:
        return []
    return list(zip(declared.shape, got.shape, strict=False))
