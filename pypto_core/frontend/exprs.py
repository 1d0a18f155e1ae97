"""Expressions -> IR expressions, with op-name resolution (dsl-reference §3.1).

`pl.tensor.X` / `pl.tile.X` / `pld.tensor.X` name their op directly; the unified `pl.X` names
dispatch on the first operand's kind (Tensor -> `tensor.X`, Tile -> `tile.X`, scalars -> a
`BinaryExpr`). Calls of program functions (`self.f(...)`, or `f(...)` in a jit module) become
`Call(callee=f)` typed by the callee's return. Whatever the front end does not model is an
`OpaqueExpr` that still reads its sub-expressions, so no use of a variable is lost (D13).
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Callable
from dataclasses import replace
from enum import Enum
from typing import Any

from ..diagnostics import Related
from ..dsl_surface import PLD_SHORTCUTS, binding_problem, signature_text, unexpected_keyword, unknown_pld_op
from ..ir import (
    INDEX,
    LEVEL_ALIASES,
    UNKNOWN,
    ArrayType,
    BinaryExpr,
    CachePolicy,
    Call,
    Const,
    Dim,
    EnumValue,
    Expr,
    FunctionType,
    Level,
    ListExpr,
    OpaqueExpr,
    Role,
    ScalarType,
    ScopeKind,
    SplitMode,
    TensorType,
    TileType,
    TupleExpr,
    TupleGetItem,
    TupleType,
    Type,
    UnaryExpr,
)
from ..ops import (
    AIV_SPLIT_BOUNDARY_OPS,
    TASK_DUMMY_OP,
    TENSOR_ONLY,
    TILE_ONLY,
    ArgRule,
    argument_problems,
    unified_operand_problem,
)
from ..span import Span
from .body_state import BodyState
from .call_rules import Launch, check_shape_bindings, check_user_call
from .context import PL, PLD, CalleeSignature
from .declared import check_declared_call
from .deps import DEPS, check_deps
from .dump_tags import DUMP_TAG_OP
from .host_ops import check_host_op, host_op
from .launch_args import check_kernel_argument, check_launch_keywords, check_launch_target
from .op_types import op_result_type
from .types import dtype_name

OP_CATEGORIES = frozenset({"tensor", "tile", "system", "array", "prefetch"})
SCALAR_BINARY = {
    "add": "+",
    "sub": "-",
    "mul": "*",
    "div": "/",
    "truediv": "/",
    "floordiv": "//",
    "mod": "%",
    "rem": "%",
    "min": "min",
    "max": "max",
    "minimum": "min",
    "maximum": "max",
}
OPERATORS: dict[type, str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.MatMult: "@",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}
_TENSOR_OPERATOR_OPS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "@": "matmul"}
BOOL = ScalarType("BOOL")
FP32 = ScalarType("FP32")


MAX_EXPR_DEPTH = 100
OP_ARGUMENT = "PTO200"  # an argument the compiler's op registry rejects (`ops.argument_problems`)
OP_BINDING = "PTO202"  # arguments that do not bind to the op function's parameters
UNDEFINED_FUNCTION = "PTO179"  # `self.f(...)` naming no program function; a program with none
UNKNOWN_OP = "PTO204"  # a `pld.*` op the distributed DSL does not define
ALIASED_SYMBOL = "PTO210"  # a jit body reading `ROWS` of `ROWS = pl.dynamic("M")`
"""Deeper expressions are not modelled: the builder (like the compiler's parser) recurses."""


def build_expr(state: BodyState, node: ast.expr) -> Expr:
    if not state.in_expression:
        return _outermost(state, node)
    if type(node) is ast.Name:  # a local's read (nearly half of all expressions): `_name`'s first case
        var = state.variables.get(node.id)  # type: ignore[attr-defined]
        if var is not None:
            return var
    builder = _BUILDERS.get(type(node))
    return builder(state, node) if builder is not None else opaque(state, node, _children(node))


def _outermost(state: BodyState, node: ast.expr) -> Expr:
    """An expression that is not part of one being built: checked for depth first (the
    builders recurse), then built with `in_expression` set, so its parts skip the check."""
    if _nesting_exceeds(node, MAX_EXPR_DEPTH):
        return _too_deep(state, node)
    state.in_expression = True
    try:
        return build_expr(state, node)
    finally:
        state.in_expression = False


def _nesting_exceeds(node: ast.AST, limit: int) -> bool:
    """Whether the IR built from the tree has a node deeper than `limit` (`node` is at depth
    1). The IR is as deep as the tree except for chains, which the tree keeps flat and the
    builder nests: `a and b and ...` of k operands is k - 1 `and`s deep, `a < b < ...` of k
    comparisons k levels (each pair, then the `and`s joining them), and every later stage
    walks the IR recursively (a 1,000-operand `and` was a RecursionError in verify, the
    printer and the display names). Runs for every expression statement, so a short one is
    let through on its width alone, and a long one is walked over `_fields` with a stack
    rather than through the slower `ast.iter_child_nodes` generator."""
    if _too_short_to_nest(node, limit):
        return False
    stack: list[tuple[ast.AST, int]] = [(node, 1)]
    while stack:
        current, depth = stack.pop()
        if depth > limit:
            return True
        below = depth + _levels_of(current)
        for name in current._fields:
            value = getattr(current, name, None)
            if isinstance(value, ast.AST):
                stack.append((value, below))
            elif isinstance(value, list):
                stack.extend((item, below) for item in value if isinstance(item, ast.AST))
    return False


def _levels_of(node: ast.AST) -> int:
    """How many IR levels `node` adds above its children (see `_nesting_exceeds`)."""
    if type(node) is ast.BoolOp:
        return max(1, len(node.values) - 1)  # type: ignore[attr-defined]
    if type(node) is ast.Compare:
        return len(node.ops)  # type: ignore[attr-defined]
    return 1


def _too_short_to_nest(node: ast.AST, limit: int) -> bool:
    """Whether `node` is a one-line expression too narrow to be `limit` levels deep. Each level
    of an expression spells at least one character of its own (an operator, a bracket, a dot,
    a keyword); only leaves (a Name's Load context, an operator node) spell none, so a
    one-line expression is at most its width (in bytes, at least its characters) + 1 levels
    deep. Half the limit leaves a wide margin."""
    try:
        one_line = node.lineno == node.end_lineno  # type: ignore[attr-defined]
        width = node.end_col_offset - node.col_offset  # type: ignore[attr-defined]
    except (AttributeError, TypeError):  # no (end) position: walk it
        return False
    return one_line and width < limit // 2


def _too_deep(state: BodyState, node: ast.expr) -> Expr:
    """An expression too deep to walk recursively: reported, and kept as an opaque read of
    every variable it names (found without recursion)."""
    state.error(
        "PTO199",
        f"Expression nested more than {MAX_EXPR_DEPTH} levels deep is not supported",
        node,
        hint="split it into several assignments",
    )
    names = [n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in state.variables]
    operands: list[Expr] = [state.variables[name] for name in dict.fromkeys(names)]
    return OpaqueExpr("<expression too deep>", operands, UNKNOWN, state.span(node))


def build_exprs(state: BodyState, nodes: list[ast.expr]) -> list[Expr]:
    return [build_expr(state, node) for node in nodes]


def opaque(state: BodyState, node: ast.AST, children: list[ast.expr]) -> OpaqueExpr:
    return OpaqueExpr(ast.unparse(node), build_exprs(state, children), UNKNOWN, state.span(node))


def _children(node: ast.AST) -> list[ast.expr]:
    return [child for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)]


def kind_of(value_type: Type) -> str | None:
    """The op category a value dispatches to: "tensor", "tile", "array" or None (scalar/unknown)."""
    if isinstance(value_type, TensorType):
        return "tensor"
    if isinstance(value_type, TileType):
        return "tile"
    if isinstance(value_type, ArrayType):
        return "array"
    return None


# -- leaves ------------------------------------------------------------------------------------


def _constant(state: BodyState, node: ast.Constant) -> Expr:
    return _const(node.value, state.span(node))


_CONSTANT_TYPES: dict[type, Type] = {bool: BOOL, int: INDEX, float: FP32, str: UNKNOWN, type(None): UNKNOWN}


def _const(value: object, span: Span) -> Const:
    value_type = _CONSTANT_TYPES.get(type(value))  # the usual literals, by exact type
    if value_type is not None:
        return Const(value, value_type, span)  # type: ignore[arg-type]  # a literal type, by the table
    if isinstance(value, bool):
        return Const(value, BOOL, span)
    if isinstance(value, int):
        return Const(value, INDEX, span)
    if isinstance(value, float):
        return Const(value, FP32, span)
    if isinstance(value, str) or value is None:
        return Const(value, UNKNOWN, span)
    return Const(None, UNKNOWN, span)


def _name(state: BodyState, node: ast.Name) -> Expr:
    var = state.variables.get(node.id)
    if var is not None:
        return var
    folded = state.constants.get(node.id)
    if folded is not None:
        return _const(folded, state.span(node))
    path = state.dsl_path(node)
    if path is not None:
        return _dsl_attribute(state, node, path)
    symbol = state.ctx.symbol_name(node.id)
    if symbol is not None:
        if state.ctx.in_jit and symbol != node.id:
            _aliased_symbol(state, node, symbol)
        return state.symbol(node.id, symbol)
    if node.id in ("True", "False", "None"):
        return _const({"True": True, "False": False, "None": None}[node.id], state.span(node))
    return OpaqueExpr(node.id, [], UNKNOWN, state.span(node))


def _aliased_symbol(state: BodyState, node: ast.Name, symbol: str) -> None:
    """PTO210: the jit specialiser declares each dynamic symbol of the program it generates by
    its string (`M = pl.dynamic("M")`) and substitutes a body's reads of that name only, so a
    read through another variable (`ROWS = pl.dynamic("M")`) names nothing there: its parser
    says the variable is undefined. (A `@pl.program` body reads the symbol itself.)"""
    state.error(
        ALIASED_SYMBOL,
        f"Undefined variable '{node.id}'",
        node,
        hint=f"a @pl.jit body knows the dynamic symbol only as '{symbol}' (the string of "
        f"{node.id} = pl.dynamic(\"{symbol}\")): name the variable '{symbol}', or read the extent "
        "with pl.tensor.dim(...)",
    )


def _attribute(state: BodyState, node: ast.Attribute) -> Expr:
    folded = state.fold(node)
    if folded is not None:
        return _const(folded, state.span(node))
    path = state.dsl_path(node)
    if path is not None:
        return _dsl_attribute(state, node, path)
    return opaque(state, node, [node.value])


def _dsl_attribute(state: BodyState, node: ast.expr, path: tuple[str, ...]) -> Expr:
    """`pl.FP32` / `pl.DataType.FP32` -> EnumValue("", "FP32"); `pl.Level.CHIP` -> EnumValue
    ("Level", "CHIP"); other DSL attributes are opaque names."""
    span = state.span(node)
    if len(path) == 3 and path[1][:1].isupper():
        enum = "" if path[1] == "DataType" else path[1]
        return EnumValue(enum, path[2], UNKNOWN, span)
    if len(path) == 2 and path[1].isupper():
        return EnumValue("", path[1], UNKNOWN, span)
    return OpaqueExpr(ast.unparse(node), [], UNKNOWN, span)


def enum_member(state: BodyState, node: ast.expr, enum: str) -> str | None:
    """The member name when `node` is `pl.<enum>.<member>`, else None."""
    path = state.dsl_path(node)
    if path is not None and len(path) == 3 and path[0] == PL and path[1] == enum:
        return path[2]
    return None


# -- compound ----------------------------------------------------------------------------------


def _sequence(state: BodyState, node: ast.List | ast.Tuple) -> Expr:
    items = build_exprs(state, node.elts)
    if isinstance(node, ast.List):
        return ListExpr(items, UNKNOWN, state.span(node))
    return TupleExpr(items, TupleType(tuple(item.type for item in items)), state.span(node))


def _binop(state: BodyState, node: ast.BinOp) -> Expr:
    folded = state.fold(node)
    if folded is not None:
        return _const(folded, state.span(node))
    left, right = build_expr(state, node.left), build_expr(state, node.right)
    return binary(state, node, OPERATORS.get(type(node.op), "?"), left, right)


def binary(state: BodyState, node: ast.AST, op: str, left: Expr, right: Expr) -> Expr:
    """`left op right`: an op call when a tensor/tile is involved (`x + 1` -> `tensor.add`),
    else a scalar `BinaryExpr`."""
    kind = kind_of(left.type) or kind_of(right.type)
    if kind in ("tensor", "tile") and op in _TENSOR_OPERATOR_OPS:
        name = f"{kind}.{_TENSOR_OPERATOR_OPS[op]}"
        args = [left, right]
        return Call(name, args, {}, op_result_type(name, args, {}), state.span(node))
    return BinaryExpr(op, left, right, _scalar_result(op, left.type, right.type), state.span(node))


def _scalar_result(op: str, left: Type, right: Type) -> Type:
    """The compiler's `PromoteSameCategoryDtype` for two integer or two float scalars: the
    wider, the left one of equal width (`INT32 + 1` is INDEX: a literal is an INDEX constant).
    Mixed categories, which the compiler rejects, take the float."""
    if op in ("==", "!=", "<", "<=", ">", ">=", "and", "or", "is", "is not", "in", "not in"):
        return BOOL
    if isinstance(left, ScalarType) and isinstance(right, ScalarType):
        left_bits, right_bits = _SCALAR_BITS.get(left.dtype), _SCALAR_BITS.get(right.dtype)
        if left_bits is not None and right_bits is not None and _floating(left) == _floating(right):
            return right if right_bits > left_bits else left
    if isinstance(left, ScalarType) and left.dtype.startswith(("FP", "BF")):
        return left
    if isinstance(right, ScalarType) and right.dtype.startswith(("FP", "BF")):
        return right
    if isinstance(left, ScalarType):
        return left
    return right if isinstance(right, ScalarType) else UNKNOWN


_SCALAR_BITS = {
    **{f"{sign}INT{bits}": bits for sign in ("", "U") for bits in (4, 8, 16, 32, 64)},
    "INDEX": 64,
    **{name: 8 for name in ("FP8E4M3FN", "FP8E5M2", "FP8E8M0", "HF8")},
    **{"FP4": 4, "HF4": 4, "FP16": 16, "BF16": 16, "FP32": 32},
}


def _floating(t: ScalarType) -> bool:
    return t.dtype.startswith(("FP", "BF", "HF"))


def _unary(state: BodyState, node: ast.UnaryOp) -> Expr:
    folded = state.fold(node)
    if folded is not None:
        return _const(folded, state.span(node))
    operand = build_expr(state, node.operand)
    if isinstance(node.op, ast.UAdd):
        return operand
    op = {ast.USub: "-", ast.Not: "not", ast.Invert: "~"}[type(node.op)]
    kind = kind_of(operand.type)
    if op == "-" and kind in ("tensor", "tile"):
        name = f"{kind}.neg"
        return Call(name, [operand], {}, operand.type, state.span(node))
    result = BOOL if op == "not" else operand.type
    return UnaryExpr(op, operand, result, state.span(node))


def _compare(state: BodyState, node: ast.Compare) -> Expr:
    operands = [build_expr(state, node.left), *build_exprs(state, node.comparators)]
    result: Expr | None = None
    for index, op in enumerate(node.ops):
        pair = binary(state, node, OPERATORS.get(type(op), "?"), operands[index], operands[index + 1])
        result = pair if result is None else BinaryExpr("and", result, pair, BOOL, state.span(node))
    assert result is not None
    return result


def _boolop(state: BodyState, node: ast.BoolOp) -> Expr:
    op = "and" if isinstance(node.op, ast.And) else "or"
    values = build_exprs(state, node.values)
    result = values[0]
    for value in values[1:]:
        result = BinaryExpr(op, result, value, BOOL, state.span(node))
    return result


def _subscript(state: BodyState, node: ast.Subscript) -> Expr:
    """`x[i, j]` on a tensor/tile is a read (or a slice when a `:` appears); `t[k]` on a tuple
    is a `TupleGetItem`."""
    if _may_be_static(state, node.value):
        folded = state.fold(node)  # `RATIOS[3]`, `M.compress_ratios[i]` of a config
        if folded is not None:
            return _const(folded, state.span(node))
    value = build_expr(state, node.value)
    span = state.span(node)
    kind = kind_of(value.type)
    indices = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    if kind in ("tensor", "tile"):
        full = value.type.shape if kind == "tensor" and isinstance(value.type, TensorType) else None
        if full is not None and (any(isinstance(i, ast.Slice) for i in indices) or len(indices) < len(full)):
            return _tensor_view(state, node, value, indices, full)
        if any(isinstance(index, ast.Slice) for index in indices):
            offsets, shape = slice_bounds(state, indices)
            args: list[Expr] = [value, ListExpr(shape, UNKNOWN, span), ListExpr(offsets, UNKNOWN, span)]
            op = f"{kind}.slice"
        else:
            args = [value, ListExpr(build_exprs(state, indices), UNKNOWN, span)]
            op = f"{kind}.read"
        return Call(op, args, {}, op_result_type(op, args, {}), span)
    if kind == "array":
        args = [value, build_expr(state, node.slice)]
        return Call("array.get_element", args, {}, op_result_type("array.get_element", args, {}), span)
    index = state.fold(node.slice)
    if isinstance(index, int) and not isinstance(index, bool):
        element: Type = UNKNOWN
        if isinstance(value.type, TupleType) and -len(value.type.elements) <= index < len(
            value.type.elements
        ):
            element = value.type.elements[index]
        return TupleGetItem(value, index, element, span)
    return OpaqueExpr(ast.unparse(node), [value, *build_exprs(state, _children(node.slice))], UNKNOWN, span)


def _may_be_static(state: BodyState, node: ast.expr) -> bool:
    """Whether `node` may name a static value of the module (not a variable of the body)."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return isinstance(node, ast.Name) and node.id not in state.variables and node.id in state.values


def _tensor_view(
    state: BodyState, node: ast.Subscript, value: Expr, indices: list[ast.expr], full: tuple[Dim, ...]
) -> Expr:
    """`x[a:b, i]` on a tensor of known rank, as the compiler's parser builds it
    (`_build_subscript_slice_args`): a full-rank `tensor.slice(x, shape, offset)` where a `:`
    spans the whole dimension, an index is an offset with extent 1 whose dimension the result
    drops (`tensor.slice(x, shape, offset, [], drop_dims)`), and the dimensions past the
    indices are whole; an extent `(k + C) - k` is C, as its arithmetic simplifier makes it."""
    span = state.span(node)
    shape: list[Expr] = []
    offsets: list[Expr] = []
    dropped: list[Expr] = []
    for dim, index in enumerate([*indices, *[None] * (len(full) - len(indices))]):
        whole = _dim_expr(full[dim], span) if dim < len(full) else None
        if index is None or (isinstance(index, ast.Slice) and index.lower is None and index.upper is None):
            offsets.append(Const(0, INDEX, span))
            shape.append(whole if whole is not None else OpaqueExpr(":", [], INDEX, span))
        elif isinstance(index, ast.Slice) and index.lower is None:  # `:b`
            offsets.append(Const(0, INDEX, span))
            shape.append(build_expr(state, index.upper))  # type: ignore[arg-type]
        elif isinstance(index, ast.Slice):
            offsets.append(build_expr(state, index.lower))  # type: ignore[arg-type]
            shape.append(_extent(state, index, whole, span))
        else:
            offsets.append(build_expr(state, index))
            shape.append(Const(1, INDEX, span))
            dropped.append(Const(dim, INDEX, span))
    args: list[Expr] = [value, ListExpr(shape, UNKNOWN, span), ListExpr(offsets, UNKNOWN, span)]
    if dropped:
        args += [ListExpr([], UNKNOWN, span), ListExpr(dropped, UNKNOWN, span)]
    return Call("tensor.slice", args, {}, op_result_type("tensor.slice", args, {}), span)


def _dim_expr(dim: Dim, span: Span) -> Expr | None:
    return Const(dim, INDEX, span) if isinstance(dim, int) else None


def _extent(state: BodyState, index: ast.Slice, whole: Expr | None, span: Span) -> Expr:
    """`upper - lower` of a slice with a lower bound, folded where the compiler folds it."""
    assert index.lower is not None  # `_tensor_view` handles `:b`
    if index.upper is None:
        low = state.fold(index.lower)
        if isinstance(whole, Const) and isinstance(whole.value, int) and isinstance(low, int):
            return Const(whole.value - low, INDEX, span)
        return OpaqueExpr(ast.unparse(index), [build_expr(state, index.lower)], INDEX, span)
    low, high = state.fold(index.lower), state.fold(index.upper)
    if isinstance(low, int) and isinstance(high, int) and not isinstance(low, bool):
        return Const(high - low, INDEX, span)
    upper = index.upper
    if isinstance(upper, ast.BinOp) and isinstance(upper.op, ast.Add):
        if same_tree(upper.left, index.lower):  # `k : k + C`
            return build_expr(state, upper.right)
        if same_tree(upper.right, index.lower):  # `k : C + k`
            return build_expr(state, upper.left)
    lower_base, lower_offset = _based(state, index.lower)
    upper_base, upper_offset = _based(state, upper)
    if lower_offset is not None and upper_offset is not None and same_tree(lower_base, upper_base):
        return Const(upper_offset - lower_offset, INDEX, span)  # `k + A : k + B`: Simplify's B - A
    return BinaryExpr("-", build_expr(state, upper), build_expr(state, index.lower), INDEX, span)


def _based(state: BodyState, node: ast.expr) -> tuple[ast.expr, int | None]:
    """`node` as a base plus a constant: `k + A`, `A + k`, `k - A` (A folding to an integer),
    else `k` itself plus 0. The compiler's Simplify cancels the base of `(k + B) - (k + A)`."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
        right = state.fold(node.right)
        if isinstance(right, int) and not isinstance(right, bool):
            return node.left, right if isinstance(node.op, ast.Add) else -right
        left = state.fold(node.left)
        if isinstance(node.op, ast.Add) and isinstance(left, int) and not isinstance(left, bool):
            return node.right, left
    return node, 0


def same_tree(a: object, b: object) -> bool:
    """Equal syntax trees, positions aside: `ast.dump(a) == ast.dump(b)` without the reference
    cycle `ast.dump`'s recursive closure leaves behind on every call (issue 15's memory)."""
    if not isinstance(a, ast.AST):
        if isinstance(a, list):
            return isinstance(b, list) and len(a) == len(b) and all(map(same_tree, a, b))
        return a == b
    return type(a) is type(b) and all(same_tree(getattr(a, f, None), getattr(b, f, None)) for f in a._fields)


def slice_bounds(state: BodyState, indices: list[ast.expr]) -> tuple[list[Expr], list[Expr]]:
    """Offsets and extents of `x[a:b, c]` (an index is an offset with extent 1)."""
    offsets: list[Expr] = []
    extents: list[Expr] = []
    for index in indices:
        span = state.span(index)
        if isinstance(index, ast.Slice):
            lower = build_expr(state, index.lower) if index.lower else Const(0, INDEX, span)
            offsets.append(lower)
            if index.upper is None:
                extents.append(OpaqueExpr(ast.unparse(index), [lower], INDEX, span))
                continue
            upper = build_expr(state, index.upper)
            low_value = state.fold(index.lower) if index.lower else 0
            high_value = state.fold(index.upper)
            if isinstance(low_value, int) and isinstance(high_value, int):
                extents.append(Const(high_value - low_value, INDEX, span))
            else:
                extents.append(BinaryExpr("-", upper, lower, INDEX, span))
        else:
            offsets.append(build_expr(state, index))
            extents.append(Const(1, INDEX, span))
    return offsets, extents


# -- calls -------------------------------------------------------------------------------------


def _call(state: BodyState, node: ast.Call) -> Expr:
    callee = user_callee(state, node.func)
    if callee is not None:
        check_user_call(state, node, callee, node.args, Launch.call)
        positional, keywords = jit_positional(state, callee, node)
        args = without_constexpr(callee, build_exprs(state, positional))
        check_shape_bindings(state, callee, positional, args)
        return user_call(state, node, callee, args, keywords)
    check_method_defined(state, node.func)
    path = state.dsl_path(node.func)
    if path is None:
        if isinstance(node.func, ast.Name) and node.func.id in _FOLDED_BUILTINS:
            folded = state.fold(node)  # `min(T, 64)`
            if folded is not None:
                return _const(folded, state.span(node))
        if isinstance(node.func, ast.Name) and node.func.id not in state.variables:
            helper = _inline_helper(state, node.func.id)
            if helper is not None:
                signature = state.ctx.callees.get(node.func.id)
                if signature is not None:
                    args, kwargs = call_arguments(state, node, *jit_positional(state, signature, node))
                else:
                    args, kwargs = call_arguments(state, node)
                if signature is not None and signature.constexpr:
                    args = without_constexpr(signature, args)
                    kwargs = {k: v for k, v in kwargs.items() if k not in dict(signature.constexpr).values()}
                return Call(helper, args, kwargs, UNKNOWN, state.span(node), callee=helper)
            if node.func.id in state.ctx.module.unresolved and state.scopes:
                _unresolved_callee(state, node.func)
            declared = state.ctx.module.declared.get(node.func.id)
            if declared is not None:
                check_declared_call(state, node, declared)
        return opaque(state, node, _children(node))
    return dsl_call(state, node, path)


def _inline_helper(state: BodyState, name: str) -> str | None:
    """The program function an inline helper call names: the helper itself when this module
    defines it, the member it was imported as otherwise (`from helpers import norm as n`)."""
    module = state.ctx.module
    if name in module.inline_functions:
        return name
    if name in module.foreign:
        callee = state.ctx.callees.get(name)
        if callee is not None and callee.type is FunctionType.Inline:
            return callee.name
    return None


def _unresolved_callee(state: BodyState, func: ast.Name) -> None:
    """PTO604: a scope calls a name imported from a module the analysis could not read (or
    that does not define it statically): its directions are unknown, every argument is In."""
    module, found = state.ctx.module.unresolved[func.id]
    where = f"module '{module}' " + ("does not define it statically" if found else "was not found")
    state.info(
        "PTO604",
        f"'{func.id}' could not be resolved ({where}): its parameter directions are unknown, so this "
        "scope reads every argument as In",
        func,
        hint="add the folder that holds the module to the `pypto.analysis.extraPaths` setting "
        "(or `pypto-check --path DIR`)",
    )


_FOLDED_BUILTINS = frozenset({"min", "max", "abs", "int", "float", "len"})


def check_method_defined(state: BodyState, func: ast.expr) -> None:
    """PTO179: `self.f` (called, or launched by `pl.submit`) in a program that defines no
    function `f` (the parser resolves `self.<name>` only to the program's own functions)."""
    if state.ctx.in_jit or not (
        isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"
    ):
        return
    close = difflib.get_close_matches(func.attr, list(state.ctx.callees), n=1)
    if state.reuse is not None:
        state.reuse.unreusable += 1  # the hint reads every callee's name: not kept for the next build
    state.error(
        UNDEFINED_FUNCTION,
        f"Function '{func.attr}' not defined in program",
        func,
        hint=f"did you mean 'self.{close[0]}'?" if close else "define it in the program with @pl.function",
    )


def user_callee(state: BodyState, func: ast.expr) -> CalleeSignature | None:
    """The program function a call names: `self.f` in a program, plain `f` in a jit module."""
    callees = state.ctx.callees
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        return callees.get(func.attr)
    if state.ctx.in_jit and isinstance(func, ast.Name) and func.id not in state.variables:
        return callees.get(func.id)
    return None


def jit_positional(
    state: BodyState, callee: CalleeSignature, node: ast.Call
) -> tuple[list[ast.expr], list[ast.keyword]]:
    """In a jit module, the specialiser's rewrite of a call to another jit function
    (`dep(a, out=o)` -> `self.dep(a, o)`): each declared parameter after the positional
    arguments takes its keyword argument, in declaration order (a parameter without one is
    skipped, so later ones move up); keywords naming no such parameter stay keywords.
    Elsewhere the call is taken as written."""
    if not state.ctx.in_jit or not node.keywords:
        return list(node.args), list(node.keywords)
    declared = list(callee.param_names)
    for position, name in sorted(callee.constexpr):
        declared.insert(position, name)
    by_name = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
    positional = list(node.args)
    for name in declared[len(positional) :]:
        if name in by_name:
            positional.append(by_name.pop(name))
    return positional, [kw for kw in node.keywords if kw.arg is None or kw.arg in by_name]


def without_constexpr(callee: CalleeSignature, args: list[Expr]) -> list[Expr]:
    """The call's positional arguments less those given for the callee's `pl.constexpr`
    parameters: the compiler folds them into the callee and drops them (#2764, #2772)."""
    if not callee.constexpr:
        return args
    dropped = {position for position, _ in callee.constexpr}
    return [arg for position, arg in enumerate(args) if position not in dropped]


def callee_result_type(callee: CalleeSignature) -> Type:
    """The call's type, from the callee's declared returns; whether a returned tensor is
    window-bound is left unknown (a caller's build is kept while its callees' signatures
    compare equal, which that fact is no part of)."""
    if not callee.return_types:
        return UNKNOWN
    returns = tuple(_distribution_unknown(t) for t in callee.return_types)
    return returns[0] if len(returns) == 1 else TupleType(returns)


def _distribution_unknown(value_type: Type) -> Type:
    if isinstance(value_type, TensorType) and value_type.distributed is not None:
        return replace(value_type, distributed=None)
    return value_type


def user_call(
    state: BodyState,
    node: ast.Call,
    callee: CalleeSignature,
    args: list[Expr],
    keywords: list[ast.keyword] | None = None,
) -> Call:
    """`attrs={...}` on a program-function call is the call's attribute dict (the printer writes
    outlined dispatches that way, e.g. `attrs={"core_num": 4}`). `keywords`: the call's keyword
    arguments left after `jit_positional` (default: all of them)."""
    kwargs: dict[str, Expr] = {}
    attrs: dict[str, Any] = {}
    for kw in node.keywords if keywords is None else keywords:
        if kw.arg == "attrs" and isinstance(kw.value, ast.Dict):
            folded = attr_value(state, kw.value)
            attrs.update(folded if isinstance(folded, dict) else {})
        elif kw.arg is not None and all(kw.arg != name for _, name in callee.constexpr):
            kwargs[kw.arg] = build_expr(state, kw.value)
    call = Call(callee.name, args, kwargs, callee_result_type(callee), state.span(node), callee=callee.name)
    call.attrs = attrs
    return call


_IR_ENUMS: dict[str, type[Enum]] = {
    "SplitMode": SplitMode,
    "CachePolicy": CachePolicy,
    "Level": Level,
    "Role": Role,
    "FunctionType": FunctionType,
}


def attr_value(state: BodyState, node: ast.expr) -> Any:
    """An attribute literal (`pl.func_attr({...})`, `attrs={...}`) as a Python value: literals,
    lists, tuples, dicts and `pl.<Enum>.<member>` of the IR's enums; anything else as an Expr."""
    folded = state.fold(node)
    if folded is not None:
        return folded
    if isinstance(node, ast.Constant) and node.value is None:
        return None
    if isinstance(node, ast.List):
        return [attr_value(state, item) for item in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(attr_value(state, item) for item in node.elts)
    if isinstance(node, ast.Dict) and all(key is not None for key in node.keys):
        return {
            attr_value(state, key): attr_value(state, value)  # type: ignore[arg-type]
            for key, value in zip(node.keys, node.values, strict=True)
        }
    path = state.dsl_path(node)
    if path is not None and len(path) == 3 and path[1] in _IR_ENUMS:
        enum = _IR_ENUMS[path[1]]
        member = LEVEL_ALIASES.get(path[2]) if enum is Level else getattr(enum, path[2], None)
        if member is not None:
            return member
    return build_expr(state, node)


def call_arguments(
    state: BodyState,
    node: ast.Call,
    positional: list[ast.expr] | None = None,
    keywords: list[ast.keyword] | None = None,
) -> tuple[list[Expr], dict[str, Expr]]:
    """The call's arguments (`positional` / `keywords` when given instead of the node's own)."""
    args = build_exprs(state, node.args if positional is None else positional)
    kwargs: dict[str, Expr] = {}
    for kw in node.keywords if keywords is None else keywords:
        value = build_expr(state, kw.value)
        if kw.arg is None:
            args.append(OpaqueExpr(f"**{ast.unparse(kw.value)}", [value], UNKNOWN, state.span(kw)))
        else:
            kwargs[kw.arg] = value
    return args, kwargs


def dsl_call(state: BodyState, node: ast.Call, path: tuple[str, ...]) -> Expr:
    span = state.span(node)
    name = path[-1]
    if path[0] == PL and len(path) == 2:
        special = _SPECIAL_CALLS.get(name)
        if special is not None:
            return special(state, node)
    if path[0] == PL and len(path) >= 2 and path[1][:1].isupper():
        return opaque(state, node, _children(node))
    _check_binding(state, node, path)
    host_only = host_op(path)
    if host_only is not None:
        check_host_op(state, node, host_only)
    args, kwargs = call_arguments(state, node)
    op = resolve_op(path, args)
    if op is None:
        return OpaqueExpr(ast.unparse(node), [*args, *kwargs.values()], UNKNOWN, span)
    if op.startswith("scalar."):
        return _scalar_op(state, node, op.removeprefix("scalar."), args)
    if op == DUMP_TAG_OP:
        state.ctx.dump_tags = True
    call = Call(op, args, kwargs, op_result_type(op, args, kwargs), span)
    if path[0] == PL and len(path) == 2 and args:
        problem = unified_operand_problem(name, args[0])
        if problem is not None:
            where = node.args[0] if node.args else node
            state.error(OP_ARGUMENT, problem, where, hint=f"pl.{name} takes a Tensor or a Tile")
    if (
        op in AIV_SPLIT_BOUNDARY_OPS
        and "split_aiv" not in state.loops
        and state.function_type is not FunctionType.Inline
    ):
        state.error(
            "PTO510",
            f"'{op}' must appear inside a pl.split_aiv region (it marks the AIV-split boundary and is "
            "only meaningful there).",
            span,
            hint="move it into the `for aiv_id in pl.split_aiv(2, mode=...)` region that uses it",
        )
    if op == TASK_DUMMY_OP:
        _check_task_dummy(state, node)
    for rule, message, _value in argument_problems(call):
        state.error(OP_ARGUMENT, message, _argument_node(node, rule), hint=rule.hint)
    return call


def _argument_node(node: ast.Call, rule: ArgRule) -> ast.expr:
    """The source expression of the argument `rule` checks, as `argument_problems` finds it
    (its keyword, else its position; the call's own args are built one per source argument):
    a variable's own span is where it is defined, and one variable may be passed twice."""
    for kw in node.keywords:
        if kw.arg == rule.keyword:
            return kw.value
    if rule.position is not None and rule.position < len(node.args):
        return node.args[rule.position]
    return node


def _check_task_dummy(state: BodyState, node: ast.Call) -> None:
    """`pl.system.task_dummy(deps=[...])`: the parser requires `deps=` and checks it as a
    submit's (PTO125)."""
    deps = _keyword(node, "deps")
    if deps is None:
        state.error(
            DEPS,
            "pl.system.task_dummy requires keyword argument 'deps'",
            node,
            hint="Use pl.system.task_dummy(deps=[]) for an empty dummy barrier",
        )
        return
    check_deps(state, deps, "'pl.system.task_dummy'")


def _check_binding(state: BodyState, node: ast.Call, path: tuple[str, ...]) -> None:
    """PTO202: the arguments of a `pld.*` op do not bind to its function's parameters (the
    compiler's parser calls it with them, `attrs=` aside, and reports Python's TypeError).
    Of a `pl.*` op only a keyword its function does not take (`pl.load(..., valid_shapes=)`):
    the parser hands the keywords on as written (`_parse_op_kwargs`) but rewrites the
    positional arguments of some ops first, and parses a few itself (`_PARSED_OPS`), so their
    function's signature is not what a call's positional arguments must bind to. Calls with
    `*args` / `**kwargs` are left alone."""
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return
    dotted = ".".join((PLD, *path[2:]) if path[1:2] == ("distributed",) else path)
    if not dotted.startswith(PLD + "."):
        if dotted.startswith(PL + ".") and not _parsed_op(dotted):
            _check_keywords(state, node, dotted)
        return
    if unknown_pld_op(dotted):
        module = dotted.rpartition(".")[0]
        state.error(
            UNKNOWN_OP,
            f"Unknown distributed operation '{dotted}'",
            state.span(node.func),
            hint=f"Check spelling, or list the operations of {module}",
        )
        return
    keywords = [k.arg for k in node.keywords if k.arg is not None and k.arg != "attrs"]
    problem = binding_problem(dotted, len(node.args), keywords)
    if problem is not None:
        _binding_error(state, node, dotted, problem)


def _binding_error(state: BodyState, node: ast.Call, dotted: str, problem: str) -> None:
    """PTO202 at the call, in the parser's words, the op's signature as the hint."""
    module, _, name = dotted.rpartition(".")
    state.error(
        OP_BINDING,
        f"{module} operation '{name}': {problem}",
        state.span(node),
        hint=f"{dotted}({signature_text(dotted)})",
    )


# `pl.*` calls the compiler's parser reads itself rather than by calling the op's function
# (`parse_op_call`: the split transfers, `alloc`, a foldable `pl.tensor.dim`, `task_dummy`,
# `pl.const`, `pl.<dtype>.get_byte()`)
_PARSED_OPS = frozenset(
    {"pl.tensor.alloc", "pl.tile.alloc", "pl.tensor.dim", "pl.system.task_dummy", "pl.const"}
)


def _parsed_op(dotted: str) -> bool:
    last = dotted.rpartition(".")[2]
    return dotted in _PARSED_OPS or last in ("aiv_shard", "aic_gather", "get_byte")


def _check_keywords(state: BodyState, node: ast.Call, dotted: str) -> None:
    """PTO202 for a `pl.*` op: the first keyword its function does not take, at the call (as
    the parser's InvalidOperationError)."""
    for kw in node.keywords:
        if kw.arg is None or kw.arg == "attrs":
            continue
        problem = unexpected_keyword(dotted, kw.arg)
        if problem is not None:
            _binding_error(state, node, dotted, problem)
            return


def resolve_op(path: tuple[str, ...], args: list[Expr]) -> str | None:
    """The IR op a DSL call names, or "scalar.<op>" for a unified op on scalar operands."""
    root, rest = path[0], list(path[1:])
    if rest[:1] == ["distributed"]:
        root, rest = PLD, rest[1:]
    if root == PLD:
        if len(rest) == 1:
            return PLD_SHORTCUTS.get(f"{PLD}.{rest[0]}")  # `pld.window` is `pld.tensor.window`
        return "pld." + ".".join(rest)
    if len(rest) == 2 and rest[0] in OP_CATEGORIES:
        return f"{rest[0]}.{rest[1]}"
    if len(rest) == 2 and rest[0] == "block":  # the pre-rename spelling of `pl.tile`
        return f"tile.{rest[1]}"
    if len(rest) != 1:
        return None
    name = rest[0]
    if name in TILE_ONLY:
        return f"tile.{name}"
    if name in TENSOR_ONLY:
        return f"tensor.{TENSOR_ONLY[name]}"
    kind = kind_of(args[0].type) if args else None
    if kind in ("tensor", "tile"):
        return f"{kind}.{name}"
    if name in SCALAR_BINARY and any(_is_scalar(a.type) for a in args):
        return f"scalar.{name}"  # `pl.min(IMPORTED_CONST, n - 1)`: the first type may be unknown
    return f"tensor.{name}"


def _is_scalar(value_type: Type) -> bool:
    return isinstance(value_type, ScalarType)


def _scalar_op(state: BodyState, node: ast.Call, name: str, args: list[Expr]) -> Expr:
    if len(args) != 2:
        return OpaqueExpr(ast.unparse(node), args, UNKNOWN, state.span(node))
    op = SCALAR_BINARY[name]
    return BinaryExpr(op, args[0], args[1], _scalar_result(op, args[0].type, args[1].type), state.span(node))


def _cast(state: BodyState, node: ast.Call) -> Expr:
    args, kwargs = call_arguments(state, node)
    target = node.args[1] if len(node.args) > 1 else _keyword(node, "target_type")
    kind = kind_of(args[0].type) if args else None
    if kind in ("tensor", "tile") or not args or target is None:
        op = f"{kind or 'tensor'}.cast"
        return Call(op, args, kwargs, op_result_type(op, args, kwargs), state.span(node))
    dtype = dtype_name(state, target) or ast.unparse(target)
    return UnaryExpr("cast", args[0], ScalarType(dtype), state.span(node), cast_dtype=dtype)


def _const_call(state: BodyState, node: ast.Call) -> Expr:
    """`pl.const(v, dtype)`: a typed literal."""
    value = state.fold(node.args[0]) if node.args else None
    target = node.args[1] if len(node.args) > 1 else _keyword(node, "dtype")
    dtype = dtype_name(state, target) if target is not None else None
    if value is None:
        return opaque(state, node, _children(node))
    const = _const(value, state.span(node))
    if dtype is not None:
        const.type = ScalarType(dtype)
    return const


def _submit(state: BodyState, node: ast.Call) -> Expr:
    """`pl.submit(self.k, args..., deps=[...])` / `pl.spmd_submit(self.k, args..., core_num=N)`:
    a launch of program function `k` whose result carries its TaskId."""
    path = state.dsl_path(node.func)
    spmd = path is not None and path[-1] == "spmd_submit"
    construct = "pl.spmd_submit" if spmd else "pl.submit"
    check_launch_target(state, node, construct)
    callee = user_callee(state, node.args[0]) if check_kernel_argument(state, node, construct) else None
    if callee is None:
        if node.args:
            check_method_defined(state, node.args[0])
        return opaque(state, node, _children(node))
    _check_submit_in_cluster(state, node, spmd)
    check_user_call(state, node, callee, node.args[1:], Launch.spmd_submit if spmd else Launch.submit)
    deps = _keyword(node, "deps")
    if deps is not None:
        check_deps(state, deps, f"'{callee.name}'")
    args = build_exprs(state, node.args[1:])
    call = user_call(state, node, callee, args)
    check_launch_keywords(state, node, construct, callee.name, call.kwargs)
    call.submit = True
    results = list(callee.return_types)
    call.type = TupleType((*results, ScalarType("TASK_ID"))) if results else ScalarType("TASK_ID")
    return call


_CLUSTER_FORBIDDEN = ("deps", "core_num", "sync_start", "allow_early_resolve", "predicate")


def _check_submit_in_cluster(state: BodyState, node: ast.Call, spmd: bool) -> None:
    cluster = state.innermost(ScopeKind.Cluster)
    if cluster is None:
        return
    for kw in node.keywords:
        if kw.arg in _CLUSTER_FORBIDDEN:
            construct = "pl.spmd_submit" if spmd else "pl.submit"
            state.error(
                "PTO163",
                f"`{construct}(...)` inside `pl.cluster()` cannot carry per-task dispatch metadata "
                f"('{kw.arg}=')",
                kw,
                hint=f"remove '{kw.arg}=': the cluster is launched as one task",
                related=(Related("the enclosing pl.cluster() region", cluster.header_span),),
            )


def _keyword(node: ast.Call, name: str) -> ast.expr | None:
    for kw in node.keywords:
        if kw.arg == name:
            return kw.value
    return None


_SPECIAL_CALLS = {
    "cast": _cast,
    "const": _const_call,
    "submit": _submit,
    "spmd_submit": _submit,
}

_BUILDERS: dict[type, Callable[[BodyState, Any], Expr]] = {
    ast.Constant: _constant,
    ast.Name: _name,
    ast.Attribute: _attribute,
    ast.List: _sequence,
    ast.Tuple: _sequence,
    ast.BinOp: _binop,
    ast.UnaryOp: _unary,
    ast.Compare: _compare,
    ast.BoolOp: _boolop,
    ast.Subscript: _subscript,
    ast.Call: _call,
}
