"""Type annotations -> IR types (dsl-reference §1.3).

Annotations are read, never evaluated: `pl.Tensor[[ROWS, N], pl.FP32]` becomes a
`TensorType` whose integer extents are folded from module/class constants and whose symbolic
extents keep their source text (`"N"`). Anything unrecognised is `UNKNOWN`: the static front
end does not second-guess annotations the compiler may accept.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..ir import (
    UNKNOWN,
    ArrayType,
    Dim,
    Direction,
    ScalarType,
    Symbol,
    TensorType,
    TileType,
    TupleType,
    Type,
)
from ..ops import PREFETCH_CONTEXT, PREFETCH_EVENT, PREFETCH_SESSION
from .body_state import BodyState
from .context import PL, PLD
from .declared import check_memref_slot
from .static_eval import DynamicSymbol

_DIRECTIONS = {"Out": Direction.Out, "InOut": Direction.InOut, "In": Direction.In}
_HANDLES = {h.name: h for h in (PREFETCH_CONTEXT, PREFETCH_EVENT, PREFETCH_SESSION)}


def parameter_type(state: BodyState, node: ast.expr | None) -> tuple[Type, Direction]:
    """A parameter annotation: its type and the direction its `pl.Out`/`pl.InOut` wrapper gives."""
    if node is None:
        return UNKNOWN, Direction.In
    direction = Direction.In
    inner = node
    if isinstance(node, ast.Subscript):
        path = state.dsl_path(node.value)
        if path is not None and len(path) == 2 and path[1] in _DIRECTIONS:
            inner, direction = node.slice, _DIRECTIONS[path[1]]
    result = annotation_type(state, inner)
    if isinstance(result, TupleType):
        state.error(
            "PTO106",
            "A parameter type cannot be a tuple",
            inner,
            hint="pass each element as its own parameter",
        )
    return result, direction


def return_types(state: BodyState, node: ast.expr | None) -> list[Type]:
    """A return annotation: one type, or the flat element list of `tuple[...]`/`pl.Tuple[...]`."""
    if node is None or (isinstance(node, ast.Constant) and node.value is None):
        return []
    result = annotation_type(state, node)
    if isinstance(result, TupleType):
        return list(result.elements)
    return [result]


@dataclass(frozen=True, slots=True)
class AnnotationMemo:
    """An annotation's type, and what folding its extents read: the value (with its type, so
    `True` is not `1`) of each name and `self.` attribute it spells, in `names` order."""

    result: Type
    names: tuple[tuple[str, bool], ...]  # (name, is a `self.` attribute)
    values: tuple[tuple[type, object], ...]


def annotation_type(state: BodyState, node: ast.expr) -> Type:
    """The type an annotation spells. Every function's parameters and return repeat the same
    few annotations (`pl.Tensor[[ROWS, N], pl.FP32]`), so a one-line annotation's type is
    kept per module by its text, and reused while the constants it folded still hold the
    same values here (a parameter or local may shadow one, a class may define its own).
    Annotations that report a diagnostic are read afresh each time, so it is reported again,
    and so are those of a jit function binding symbols (`bind_dynamic`), which name them."""
    key = None if state.ctx.bound_symbols else _one_line_text(state, node)
    memo = state.ctx.module.annotation_types
    if key is not None:
        known = memo.get(key)
        if known is not None and _read_values(state, known.names) == known.values:
            return known.result
    reported = len(state.ctx.diagnostics)
    result = _annotation_type(state, node)
    if key is not None and len(state.ctx.diagnostics) == reported:
        names = _folded_names(node)
        memo[key] = AnnotationMemo(result, names, _read_values(state, names))
    return result


def _one_line_text(state: BodyState, node: ast.expr) -> str | None:
    """The source text of a node on one ASCII line (where byte columns index the text)."""
    line_number = getattr(node, "lineno", None)
    if line_number is None or line_number != node.end_lineno or node.end_col_offset is None:
        return None  # a node made by the front end, or one spanning lines
    line = state.line_text(node.lineno)
    text = line[node.col_offset : node.end_col_offset]
    return text if line.isascii() and len(text) == node.end_col_offset - node.col_offset else None


def _folded_names(node: ast.expr) -> tuple[tuple[str, bool], ...]:
    """Every name and `self.` attribute `BodyState.fold` could read inside `node`."""
    names: dict[tuple[str, bool], None] = {}
    for child in ast.walk(node):
        owner = child.value if isinstance(child, ast.Attribute) else None
        if isinstance(child, ast.Name):
            names[(child.id, False)] = None
        elif isinstance(owner, ast.Name) and owner.id == "self":
            names[(child.attr, True)] = None  # type: ignore[attr-defined]
    return tuple(names)


def _read_values(state: BodyState, names: tuple[tuple[str, bool], ...]) -> tuple[tuple[type, object], ...]:
    class_constants, constants = state.ctx.class_constants, state.constants
    values = []
    for name, is_attribute in names:
        value = class_constants.get(name) if is_attribute else constants.get(name, state.values.get(name))
        values.append((type(value), value))
    return tuple(values)


def _annotation_type(state: BodyState, node: ast.expr) -> Type:
    if isinstance(node, ast.Subscript):
        return _subscripted(state, node)
    path = state.dsl_path(node)
    if path is None or path[0] != PL:
        return UNKNOWN
    name = path[-1]
    if name == "Tensor":
        return TensorType(None, None)
    if name == "Tile":
        return TileType(None, None)
    if name == "TaskId":
        return ScalarType("TASK_ID")
    if name in _HANDLES:
        return _HANDLES[name]
    return UNKNOWN


def _subscripted(state: BodyState, node: ast.Subscript) -> Type:
    items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    if isinstance(node.value, ast.Name) and node.value.id == "tuple":
        return TupleType(tuple(_annotation_type(state, item) for item in items))
    path = state.dsl_path(node.value)
    distributed = path == (PLD, "DistributedTensor")
    if distributed:
        path = (PL, "Tensor")  # a tensor that lives across ranks: still a tensor to every pass
    if path is None or path[0] != PL or len(path) != 2:
        return UNKNOWN
    kind = path[1]
    if kind == "Tuple":
        return TupleType(tuple(_annotation_type(state, item) for item in items))
    if kind == "Tensor":
        layout = _layout(state, items[2]) if len(items) > 2 else None
        if layout == "DN":
            state.error(
                "PTO105",
                "The pl.DN layout is not allowed on a pl.Tensor annotation",
                items[2],
                hint="use pl.ND (the default) or a pl.TensorView(...)",
            )
        return TensorType(_shape(state, items[0]), _dtype(state, items[1:2]), layout, distributed)
    if kind == "Tile":
        for item in items[2:]:
            check_memref_slot(state, item)
        return TileType(_shape(state, items[0]), _dtype(state, items[1:2]))
    if kind == "Scalar":
        return ScalarType(_dtype(state, items[:1]) or "INDEX")
    if kind == "Array" and len(items) >= 2:
        return ArrayType(dim_of(state, items[0]), _dtype(state, items[1:2]) or "INDEX")
    if kind in _DIRECTIONS:
        state.error(
            "PTO107",
            f"pl.{kind}[...] is a parameter direction; it is only allowed on a parameter annotation",
            node,
            hint=f"write the type without pl.{kind}[...]",
        )
        return _annotation_type(state, node.slice)
    return UNKNOWN


def _shape(state: BodyState, node: ast.expr) -> tuple[Dim, ...] | None:
    """A shape list literal, each extent folded to an int or kept as its source text."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return tuple(dim_of(state, element) for element in node.elts)
    return None


def dim_of(state: BodyState, node: ast.expr) -> Dim:
    """An extent: its folded integer, the string of the `pl.dynamic` symbol it reads (the
    compiler's name for it, `BATCH_DYN` for `_SEQ = BATCH_DYN if DYNAMIC else PAD` with
    `BATCH_DYN = D.batch` of a config holding `pl.dynamic("BATCH_DYN")`), else its text."""
    value = state.fold_extent(node)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, DynamicSymbol):
        return Symbol(value.name)
    if isinstance(node, ast.Name) and node.id not in state.variables:
        symbol = state.ctx.symbol_name(node.id, state.in_signature)
        if symbol is not None:
            return Symbol(symbol)  # `ROWS = pl.dynamic("M")`: the extent is `M`
    return ast.unparse(node)


def dtype_name(state: BodyState, node: ast.expr) -> str | None:
    """`pl.FP32` / `pl.DataType.FP32` -> "FP32"."""
    path = state.dsl_path(node)
    if path is None or path[0] != PL or len(path) < 2:
        return None
    return path[-1]


def _dtype(state: BodyState, nodes: list[ast.expr]) -> str | None:
    return dtype_name(state, nodes[0]) if nodes else None


def _layout(state: BodyState, node: ast.expr) -> str:
    path = state.dsl_path(node)
    if path is not None and len(path) == 2:
        return path[1]
    return ast.unparse(node)
