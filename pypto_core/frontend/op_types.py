"""Result types of op calls, as far as a static reading can tell them.

Types matter to the front end for dispatch (`pl.add(x, y)` is `tensor.add` or `tile.add` by the
first operand's kind, `x + 1` on a tensor is an op call) and to the outliners (scalar hoist,
directions of tensors). Shapes are best effort; the *kind* of value (Tensor, Tile, Scalar) is
what has to be right. An op this table does not know yields `UNKNOWN` (D13).
"""

from __future__ import annotations

import functools

from ..ir import (
    INDEX,
    TASK_ID,
    UNKNOWN,
    ArrayType,
    BinaryExpr,
    Const,
    Dim,
    EnumValue,
    Expr,
    ListExpr,
    ScalarType,
    TensorType,
    TileType,
    TupleExpr,
    Type,
    Var,
)
from ..ops import PREFETCH_RESULTS
from ..printer import print_expr

# the AIV-split boundary ops the front end names `tile.*` whatever their operand: each result
# is of its operand's kind
_KIND_OF_OPERAND = frozenset({"aiv_shard", "aic_gather"})
_INDEX_OPS = frozenset({"get_block_idx", "get_subblock_idx", "get_block_num", "dim"})
_SAME_AS_ARG = {
    "tile.store": 2,
    "tile.mscatter": 2,
    "tensor.expand_clone": 1,
    "tensor.assemble": 0,
    "tile.assemble": 0,
    "tensor.write": 0,
    "tile.write": 0,
    "array.update_element": 0,
}


def op_result_type(op: str, args: list[Expr], kwargs: dict[str, Expr]) -> Type:
    category, _, name = op.rpartition(".")
    if op in _SAME_AS_ARG:
        index = _SAME_AS_ARG[op]
        return args[index].type if index < len(args) else UNKNOWN
    if name in _INDEX_OPS:
        return INDEX
    if op == "system.task_invalid":
        return TASK_ID
    if category == "prefetch":
        return PREFETCH_RESULTS.get(op, UNKNOWN)
    first = args[0].type if args else UNKNOWN
    if name == "read":
        if not isinstance(first, (TensorType, TileType)):
            return UNKNOWN
        # a bare jit `pl.Tensor` has its dtype only after specialisation; the read is a scalar all the same
        return ScalarType(first.dtype or "UNKNOWN")
    if op == "array.create":
        extent = args[0] if args else kwargs.get("extent")
        dtype = _dtype_arg(args, 1, kwargs)
        if isinstance(extent, Const) and isinstance(extent.value, int) and dtype is not None:
            return ArrayType(extent.value, dtype)
        return UNKNOWN
    if op == "array.get_element":
        return ScalarType(first.dtype) if isinstance(first, ArrayType) else UNKNOWN
    if op == "tile.load":
        shape = _shape_arg(args, 2, kwargs, "shapes")
        return _make("tile", shape, _dtype_kwarg(kwargs) or _element_dtype(first))
    if op == "pld.tensor.window":  # a view of a window buffer: window-bound by construction
        dtype = _dtype_kwarg(kwargs)
        return TensorType(_shape_arg(args, 1, kwargs, "shape"), dtype, distributed=True)
    if op == "pld.tile.remote_load":
        return _make("tile", _shape_arg(args, 3, kwargs, "shape"), _element_dtype(first))
    if op in (
        "tensor.create",
        "tensor.create_l1",
        "tile.create_tile",
        "tile.create",
        "tile.full",
        "tensor.full",
    ):
        shape = _shape_arg(args, 0, kwargs, "shape", symbolic=category == "tensor")
        return _make(category, shape, _dtype_arg(args, 1, kwargs))
    if name in ("slice", "view", "reshape"):
        shape = _shape_arg(args, 1, kwargs, "shape", symbolic=category == "tensor")
        if op == "tensor.slice" and shape is not None and len(args) >= 5:  # drop_dims, the 5th operand
            dropped = _shape_arg(args, 4, kwargs, "drop_dims")
            shape = None if dropped is None else tuple(d for i, d in enumerate(shape) if i not in dropped)
        return _make(category, shape, _element_dtype(first))
    if name == "cast":
        return _make(category, _shape_of(first), _dtype_arg(args, 1, kwargs, "target_type"))
    if name == "matmul" and len(args) >= 2:
        return _make(category, _matmul_shape(first, args[1].type), _element_dtype(first))
    if name in _KIND_OF_OPERAND and isinstance(first, TensorType):
        category = "tensor"  # `pl.aiv_shard(t)` of a tensor is `tensor.aiv_shard`: a tensor
    if category in ("tensor", "tile") and isinstance(first, (TensorType, TileType)):
        return _make(category, _shape_of(first) if _elementwise(name) else None, _element_dtype(first))
    return UNKNOWN


def _elementwise(name: str) -> bool:
    return not name.startswith(("row_", "col_", "transpose", "reduce", "sum", "max", "min"))


@functools.lru_cache(maxsize=1024)
def _make(category: str, shape: tuple[Dim, ...] | None, dtype: str | None) -> Type:
    """The result type of most op calls. Types are immutable values, so equal ones share an
    instance: looking one up costs far less than building a frozen dataclass."""
    if category == "tile":
        return TileType(shape, dtype)
    if category == "tensor":
        return TensorType(shape, dtype)
    return UNKNOWN


def _shape_of(value: Type) -> tuple[Dim, ...] | None:
    return value.shape if isinstance(value, (TensorType, TileType)) else None


def _element_dtype(value: Type) -> str | None:
    if isinstance(value, (TensorType, TileType, ArrayType)):
        return value.dtype
    return None


def _matmul_shape(left: Type, right: Type) -> tuple[Dim, ...] | None:
    lhs, rhs = _shape_of(left), _shape_of(right)
    if lhs and rhs and len(lhs) == 2 and len(rhs) == 2:
        return (lhs[0], rhs[1])
    return None


def _shape_arg(
    args: list[Expr], index: int, kwargs: dict[str, Expr], keyword: str, symbolic: bool = False
) -> tuple[Dim, ...] | None:
    """A shape operand's extents: integers, and with `symbolic` (a tensor's shape) an extent
    computed from scalar variables as its text (`[t_dim, 64]`, `[n * 4, 512]`: the compiler's
    type holds the expression), by the variables' names as written."""
    node = args[index] if index < len(args) else kwargs.get(keyword)
    if not isinstance(node, (ListExpr, TupleExpr)):
        return None
    dims: list[Dim] = []
    for item in node.items:
        if isinstance(item, Const) and isinstance(item.value, int) and not isinstance(item.value, bool):
            dims.append(item.value)
        elif symbolic and _scalar_extent(item):
            dims.append(print_expr(item, display=True))
        else:
            return None
    return tuple(dims)


def _scalar_extent(item: Expr) -> bool:
    """A variable or arithmetic over variables and integers, all integer scalars."""
    if isinstance(item, Var):
        return isinstance(item.type, ScalarType) and item.type.dtype.startswith(("INT", "UINT", "INDEX"))
    if isinstance(item, BinaryExpr):
        return (
            item.op in ("+", "-", "*", "//", "%") and _scalar_extent(item.left) and _scalar_extent(item.right)
        )
    return isinstance(item, Const) and type(item.value) is int


def _dtype_arg(args: list[Expr], index: int, kwargs: dict[str, Expr], keyword: str = "dtype") -> str | None:
    node = args[index] if index < len(args) else kwargs.get(keyword)
    return node.member if isinstance(node, EnumValue) else None


def _dtype_kwarg(kwargs: dict[str, Expr]) -> str | None:
    node = kwargs.get("dtype")
    return node.member if isinstance(node, EnumValue) else None
