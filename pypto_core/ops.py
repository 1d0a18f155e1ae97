"""The operator registry: what each builtin op does to its arguments.

The outliners never special-case an op by name; they ask this table (dsl-reference §3.2, §3.3,
§3.4). Three facts per op:

* the write effect on each argument slot (`Write` = overwritten without being read, so the slot
  is not a read; `ReadWrite` = read and written). Some rows depend on a literal keyword
  argument at the call (`atomic=`, `op=`, `mode=`, ...); those are resolved per call;
* which argument the op's result *names* (result-alias contract), used both for "reading the
  post-write alias reads the destination" and for return lineage;
* whether an expression blocks the scalar-output hoist (any call does).

An op the registry does not know reads every argument and aliases nothing (D13).

It also holds the argument rules the compiler's op registry checks when a call is built (an
op's builder rejects a literal it cannot take): `argument_problems` reports them, in the
compiler's words, for the front end to show at the argument.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum

from .ir import (
    BinaryExpr,
    Call,
    Const,
    EnumValue,
    Expr,
    HandleType,
    ListExpr,
    ScalarType,
    TensorType,
    TileType,
    TupleExpr,
    Type,
    UnaryExpr,
    Var,
)
from .printer import print_type

# Unified `pl.<name>` ops that lower to one category whatever their operands: `tile.<name>`,
# or `tensor.<op>` (the front end's `resolve_op`, the DSL surface's IR ops).
TILE_ONLY = frozenset(
    {"load", "store", "mscatter", "mgather", "move", "create_tile", "aiv_shard", "aic_gather"}
)
TENSOR_ONLY = {
    "create_tensor": "create",
    "dim": "dim",
    "expand_clone": "expand_clone",
    "get_block_idx": "get_block_idx",
    "get_subblock_idx": "get_subblock_idx",
    "get_block_num": "get_block_num",
    "no_dep": "no_dep",
    "dump_tag": "dump_tag",
}


class Effect(str, Enum):
    Read = "Read"
    Write = "Write"
    ReadWrite = "ReadWrite"


Kwargs = Mapping[str, Expr]
EffectRule = Callable[[Kwargs], Effect]


def _member(kwargs: Kwargs, key: str) -> str | None:
    """The literal a keyword argument was given: an enum member name, a string, or None."""
    value = kwargs.get(key)
    if isinstance(value, EnumValue):
        return value.member
    if isinstance(value, Const):
        return None if value.value is None else str(value.value)
    return None


def _atomic_is_set(kwargs: Kwargs) -> bool:
    return _member(kwargs, "atomic") not in (None, "None_", "None", "NONE")


def _write_unless_atomic(kwargs: Kwargs) -> Effect:
    return Effect.ReadWrite if _atomic_is_set(kwargs) else Effect.Write


def _mgather_target(kwargs: Kwargs) -> Effect:
    if _member(kwargs, "target_memory") == "Mat" and _member(kwargs, "coalesce") == "Elem":
        return Effect.Write
    return Effect.Read


def _notify_target(kwargs: Kwargs) -> Effect:
    return Effect.Write if _member(kwargs, "op") == "Set" else Effect.ReadWrite


def _syncall_target(kwargs: Kwargs) -> Effect:
    return Effect.ReadWrite if _member(kwargs, "mode") == "soft" else Effect.Read


def _const(effect: Effect) -> EffectRule:
    return lambda _kwargs: effect


_WRITE = _const(Effect.Write)
_READ_WRITE = _const(Effect.ReadWrite)

_COLLECTIVES: dict[str, dict[int, EffectRule]] = {
    "tensor.allgather": {1: _WRITE},
    "tensor.all_to_all": {1: _WRITE, 2: _READ_WRITE},
    "tensor.all_to_all_v": {1: _WRITE, 2: _READ_WRITE, 4: _WRITE},
    "tensor.allreduce": {0: _READ_WRITE, 1: _READ_WRITE},
    "tensor.broadcast": {0: _READ_WRITE, 1: _READ_WRITE},
    "tensor.reduce_scatter": {0: _READ_WRITE, 1: _READ_WRITE},
    "tensor.barrier": {0: _READ_WRITE},
}

_EFFECTS: dict[str, dict[int, EffectRule]] = {
    "tile.store": {2: _write_unless_atomic},
    "tensor.assemble": {0: _write_unless_atomic},
    "tensor.write": {0: _WRITE},
    "tensor.expand_clone": {1: _WRITE},  # D10
    "tile.mscatter": {2: _WRITE},
    "tile.mgather": {2: _mgather_target},
    "tile.write": {0: _READ_WRITE},
    "tile.assemble": {0: _READ_WRITE},
    "tile.matmul_acc": {0: _READ_WRITE},
    "tile.batch_matmul_acc": {0: _READ_WRITE},
    "tile.gemv_acc": {0: _READ_WRITE},
    "tile.matmul_mx_acc": {0: _READ_WRITE},
    "tile.fillpad_inplace": {0: _READ_WRITE},
    "tile.gather_row": {0: _READ_WRITE},
    "tile.scatter": {0: _READ_WRITE},
    "tile.scatter_mask": {0: _READ_WRITE},
    "tile.scatter_update": {0: _READ_WRITE},
    "tile.tget_scale_addr": {0: _WRITE},
    "array.update_element": {0: _READ_WRITE},
    "pld.tensor.put": {0: _write_unless_atomic},
    "pld.tile.put": {0: _write_unless_atomic},
    "pld.tensor.remote_store": {1: _write_unless_atomic},
    "pld.tile.remote_store": {1: _write_unless_atomic},
    "pld.tensor.get": {0: _WRITE},
    "pld.tile.get": {0: _WRITE},
    "pld.system.notify": {0: _notify_target},
    "system.syncall": {0: _syncall_target},
    **{f"pld.{op}": rules for op, rules in _COLLECTIVES.items()},
    **{f"builtin.{op}": rules for op, rules in _COLLECTIVES.items()},
}

_ALIASED_COLLECTIVES = {
    "tensor.allgather": 1,
    "tensor.all_to_all": 1,
    "tensor.all_to_all_v": 1,
    "tensor.allreduce": 0,
    "tensor.reduce_scatter": 0,
    "tensor.barrier": 0,
    "tensor.broadcast": 0,
}

_RESULT_ALIAS: dict[str, int] = {
    "tile.store": 2,
    "tile.mscatter": 2,
    "tensor.assemble": 0,
    "tensor.write": 0,
    "tensor.expand_clone": 1,
    "tile.matmul_acc": 0,
    "tile.batch_matmul_acc": 0,
    "tile.gemv_acc": 0,
    "tile.matmul_mx_acc": 0,
    "tile.fillpad_inplace": 0,
    "tile.gather_row": 0,
    "tile.scatter": 0,
    "tile.scatter_mask": 0,
    "tile.scatter_update": 0,
    "tile.tget_scale_addr": 0,
    **{f"pld.{op}": index for op, index in _ALIASED_COLLECTIVES.items()},
    **{f"builtin.{op}": index for op, index in _ALIASED_COLLECTIVES.items()},
}

# Tensor ops an Orchestration/Graph body may hold directly after InCore outlining (§4.7), plus
# the parser-level markers our front end keeps as calls (`pl.dump_tag`, `pl.no_dep`): the
# compiler consumes those while parsing, so they never reach its verifier.
ORCHESTRATION_TENSOR_OPS = frozenset(
    {
        "tensor.dump_tag",
        "tensor.no_dep",
        "tensor.create",
        "tensor.read",
        "tensor.write",
        "tensor.slice",
        "tensor.assemble",
        "tensor.dim",
        "tensor.reshape",
        "tensor.reinterpret_view",
        "tensor.transpose",
        "tensor.view",
    }
)

# The AIV-split boundary: only meaningful inside a `pl.split_aiv` region (AivSplitValid (c))
AIV_SPLIT_BOUNDARY_OPS = frozenset(
    {"tile.aiv_shard", "tile.aic_gather", "tensor.aiv_shard", "tensor.aic_gather"}
)

STORE_OP = "tile.store"
STORE_DEST_INDEX = 2
DEFER_WAIT_OP = "pld.system.defer_wait"
TASK_INVALID_OP = "system.task_invalid"
TASK_DUMMY_OP = "system.task_dummy"


@dataclass(frozen=True)
class SlotEffect:
    """What an op does to one argument slot, for people (completion, signature help, hover):
    `effect` when no keyword argument changes it, `note` how one does."""

    index: int
    effect: Effect
    note: str | None = None


_RULE_NOTES: dict[EffectRule, str] = {
    _write_unless_atomic: "read-written with atomic=pl.AtomicType.Add",
    _mgather_target: "written with target_memory=Mat and coalesce=Elem",
    _notify_target: "written with op=pld.NotifyOp.Set",
    _syncall_target: "read-written with mode='soft'",
}


def declared_slot_effects(op: str) -> list[SlotEffect]:
    """The slots IR op `op` may write, in index order, as the table declares them (no call)."""
    rules = _EFFECTS.get(op, {})
    return [SlotEffect(i, rules[i]({}), _RULE_NOTES.get(rules[i])) for i in sorted(rules)]


def declared_result_alias(op: str) -> int | None:
    """The argument IR op `op`'s result names, or None for a fresh result (no call)."""
    return _RESULT_ALIAS.get(op)


def arg_effect(call: Call, index: int) -> Effect:
    """The effect `call` has on its argument `index` (Read for user calls and unknown ops)."""
    if call.is_user_call:
        return Effect.Read
    rule = _EFFECTS.get(call.op, {}).get(index)
    return rule(call.kwargs) if rule else Effect.Read


def written_args(call: Call) -> list[tuple[int, Effect]]:
    """The argument slots `call` writes (Write or ReadWrite), in index order."""
    rules = None if call.is_user_call else _EFFECTS.get(call.op)
    if not rules:
        return []  # most calls: no slot to ask about
    effects = ((i, rules[i](call.kwargs)) for i in sorted(rules) if i < len(call.args))
    return [(i, e) for i, e in effects if e is not Effect.Read]


def result_alias_index(call: Call) -> int | None:
    """The argument whose buffer the call's result names, or None for a fresh result."""
    if call.is_user_call:
        return None
    index = _RESULT_ALIAS.get(call.op)
    return index if index is not None and index < len(call.args) else None


def is_store(expr: Expr) -> bool:
    return isinstance(expr, Call) and not expr.is_user_call and expr.op == STORE_OP


def store_destination(expr: Expr) -> Expr | None:
    """The destination argument of a `tile.store` call, else None."""
    if is_store(expr) and isinstance(expr, Call) and len(expr.args) > STORE_DEST_INDEX:
        return expr.args[STORE_DEST_INDEX]
    return None


def is_hoistable_scalar_expr(expr: Expr, available: Callable[[Var], bool]) -> bool:
    """True when the caller can compute `expr` itself: constants, available variables, and
    binary/unary (cast included) expressions over them. Any call blocks the hoist (a device
    read or a block index has no caller-side meaning)."""
    if isinstance(expr, Const):
        return True
    if isinstance(expr, Var):
        return available(expr)
    if isinstance(expr, BinaryExpr):
        return is_hoistable_scalar_expr(expr.left, available) and is_hoistable_scalar_expr(
            expr.right, available
        )
    if isinstance(expr, UnaryExpr):
        return is_hoistable_scalar_expr(expr.operand, available)
    return False


# ---------------------------------------------------------------------------------------------
# Argument rules of the op registry (src/ir/op/..., python/pypto/ir/op/...)


@dataclass(frozen=True)
class ArgRule:
    """One argument an op's builder checks: given as `keyword=`, or positionally at `position`.
    `check` gets the argument and the call; it returns the compiler's message for a value it
    rejects, None for one it takes (or one not known statically: a value of unknown type, a
    name whose value is not folded, is always taken)."""

    keyword: str
    position: int | None
    check: Callable[[Expr, Call], str | None]
    hint: str | None = None


_PAD_HINT = (
    "Use pl.PadValue.zero / pl.PadValue.max / pl.PadValue.min, or one of the literals 0, 0.0, "
    "math.inf, -math.inf."
)


def _pad_value(value: Expr) -> str | None:
    """`normalize_pad_value`: a PadValue other than null, or the literals 0, 0.0, +-inf."""
    if isinstance(value, EnumValue):
        if value.member == "null":
            return "fillpad pad_value cannot be PadValue.null — that means no padding mode."
        return None
    if not isinstance(value, Const):
        return None
    literal = value.value
    if isinstance(literal, bool):
        return f"fillpad pad_value cannot be bool ({literal!r})."
    if isinstance(literal, int):
        if literal == 0:
            return None
        return (
            "fillpad pad_value only accepts the integer literal 0 (mapped to PadValue.zero); "
            f"got {literal!r}."
        )
    if isinstance(literal, float):
        if literal == 0.0 or literal in (float("inf"), float("-inf")):
            return None
        return (
            f"fillpad pad_value only accepts the float literals 0.0, math.inf, or -math.inf; got {literal!r}."
        )
    return (
        "fillpad pad_value must be a PadValue or one of 0 / 0.0 / math.inf / -math.inf; "
        f"got {type(literal).__name__} {literal!r}."
    )


def _defer_wait_cmp(value: Expr) -> str | None:
    if isinstance(value, EnumValue) and value.member != "Ge":
        return f"pld.system.defer_wait only supports WaitCmp.Ge (got WaitCmp.{value.member})"
    return None


def _dtype_text(dtype: str) -> str:
    """A dtype as the compiler's `DataType::ToString` writes it (`fp32`, `bfloat16`)."""
    return "bfloat16" if dtype == "BF16" else dtype.lower()


def _type_text(value_type: Type) -> str:
    """A type as the compiler's `python_print_type` writes it."""
    text = print_type(value_type)
    if isinstance(value_type, TensorType) and value_type.distributed:
        return "pld.DistributedTensor" + text.removeprefix("pl.Tensor")
    return text


def _type_name(value_type: Type) -> str:
    """The compiler's `TypeName()` of a type (`TensorType`, `DistributedTensorType`, ...)."""
    if isinstance(value_type, TensorType) and value_type.distributed:
        return "DistributedTensorType"
    if isinstance(value_type, HandleType):
        return f"{value_type.name}Type"
    return type(value_type).__name__


def _not_window_bound(value: Expr) -> bool:
    """A value certainly not a window-bound `pld.DistributedTensor`: a tile, a scalar, or a
    tensor read from a `pl.Tensor[...]` annotation."""
    value_type = value.type
    if isinstance(value_type, TensorType):
        return value_type.distributed is False
    return isinstance(value_type, (TileType, ScalarType))


def _window_dtype(value: Expr) -> str | None:
    value_type = value.type
    if isinstance(value_type, TensorType) and value_type.distributed:
        return value_type.dtype
    return None


def _distributed(op: str, role: str) -> Callable[[Expr, Call], str | None]:
    """`_unwrap_distributed_tensors` and the `pld` wrappers: this operand is window-bound."""

    def check(value: Expr, _call: Call) -> str | None:
        if _not_window_bound(value):
            return f"{op} expects a DistributedTensor {role} (window-bound); got {_type_text(value.type)}"
        return None

    return check


def _signal_dtype(op: str, why: str = "") -> Callable[[Expr, Call], str | None]:
    """A collective's signal: window-bound and INT32 (the type deducers of collective.cpp)."""
    window = _distributed(op, "signal")

    def check(value: Expr, call: Call) -> str | None:
        dtype = _window_dtype(value)
        if dtype is not None and dtype != "INT32":
            return f"{op} signal must have INT32 element type{why}, got dtype {_dtype_text(dtype)}"
        return window(value, call)

    return check


def _allreduce_target(value: Expr, call: Call) -> str | None:
    dtype = _window_dtype(value)
    if dtype is not None and dtype not in ("FP16", "FP32"):
        return f"pld.tensor.allreduce target dtype must be FP16 or FP32, got {_dtype_text(dtype)}"
    return _distributed("pld.tensor.allreduce", "target")(value, call)


_REDUCE_OPS = {"Sum": 0, "Max": 1, "Min": 2, "Prod": 3}


def _reduce_scatter_op(value: Expr, _call: Call) -> str | None:
    if isinstance(value, EnumValue) and _REDUCE_OPS.get(value.member, 0) != 0:
        return (
            f"pld.tensor.reduce_scatter op must be ReduceOp.Sum (got int {_REDUCE_OPS[value.member]}); "
            "Max / Min / Prod lowerings are not yet implemented"
        )
    return None


def _get_comm_ctx(value: Expr, _call: Call) -> str | None:
    if _not_window_bound(value):
        got = _type_name(value.type)
        return f"pld.system.get_comm_ctx expects a DistributedTensor (window-bound), got {got}"
    return None


def _comm_ctx(op: str) -> Callable[[Expr, Call], str | None]:
    def check(value: Expr, _call: Call) -> str | None:
        if isinstance(value.type, (TensorType, TileType, ScalarType)):
            return f"{op} expects a CommCtx (output of pld.system.get_comm_ctx), got {_type_name(value.type)}"
        return None

    return check


def _window_buffer(value: Expr, _call: Call) -> str | None:
    if isinstance(value.type, (TensorType, TileType, ScalarType)):
        return (
            "pld.tensor.window expects a Ptr handle (output of pld.tensor.alloc_window_buffer); "
            f"got {_type_text(value.type)}"
        )
    return None


def _tensor_src(value: Expr, _call: Call) -> str | None:
    if isinstance(value.type, TileType):
        return (
            "pld.tensor.remote_store expects a Tensor src (a tensor-level value); "
            f"got {_type_text(value.type)}. "
            "In a tile-level kernel use pld.tile.remote_store; to push one window buffer into another use "
            "pld.tensor.put."
        )
    return None


def _sequence(value: Expr, _call: Call) -> str | None:
    """The Python wrapper iterates the argument: a number is Python's TypeError."""
    if isinstance(value, Const) and type(value.value) in (int, float):
        return f"'{type(value.value).__name__}' object is not iterable"
    return None


def _integer_scalar(what: str) -> Callable[[Expr, Call], str | None]:
    """An integer or index scalar (a float is rejected; a value of unknown type is taken)."""

    def check(value: Expr, _call: Call) -> str | None:
        value_type = value.type
        if isinstance(value_type, ScalarType) and value_type.dtype.startswith(("FP", "BF")):
            got = _dtype_text(value_type.dtype)
            return f"pld.system.defer_wait {what} must be an integer or index scalar, got {got}"
        return None

    return check


def _defer_wait_offsets(value: Expr, call: Call) -> str | None:
    if isinstance(value, (ListExpr, TupleExpr)):
        for index, item in enumerate(value.items):
            message = _integer_scalar(f"offset {index}")(item, call)
            if message is not None:
                return message
    return None


def _defer_wait_signal(value: Expr, _call: Call) -> str | None:
    if _not_window_bound(value):
        got = _type_name(value.type)
        return f"pld.system.defer_wait signal must be a DistributedTensor (window-bound), got {got}"
    dtype = _window_dtype(value)
    if dtype is not None and dtype != "INT32":
        return f"pld.system.defer_wait signal dtype must be INT32, got {_dtype_text(dtype)}"
    return None


_CAST_MODES = ("none", "rint", "round", "floor", "ceil", "trunc", "odd")


def _cast_mode(value: Expr, _call: Call) -> str | None:
    """`resolve_cast_mode`: a mode name or an int in [0, 6]."""
    if not isinstance(value, Const):
        return None
    mode = value.value
    if isinstance(mode, bool):
        return f"Invalid rounding mode {mode!r}. Expected str name or int in range [0, 6]."
    if isinstance(mode, int) and not 0 <= mode < len(_CAST_MODES):
        return f"Invalid rounding mode {mode}. Expected int in range [0, {len(_CAST_MODES) - 1}]."
    if isinstance(mode, str) and mode not in _CAST_MODES:
        return f"Invalid rounding mode '{mode}'. Expected one of {list(_CAST_MODES)}."
    return None


def _bool_init_cond(op: str) -> Callable[[Expr, Call], str | None]:
    """`CheckMatmulInitCond`: a BOOL scalar (a literal is left to the wrapper's conversion)."""

    def check(value: Expr, _call: Call) -> str | None:
        value_type = value.type
        if isinstance(value_type, ScalarType) and value_type.dtype != "BOOL" and not isinstance(value, Const):
            return (
                f"The operator {op} requires init_cond to have dtype BOOL, "
                f"but got {_dtype_text(value_type.dtype)}. "
                "Write a comparison such as `k == 0` rather than passing the index itself."
            )
        return None

    return check


def _argument(call: Call, keyword: str, position: int | None) -> Expr | None:
    value = call.kwargs.get(keyword)
    if value is None and position is not None and position < len(call.args):
        value = call.args[position]
    return value


def _element_dtype(value: Expr | None) -> str | None:
    value_type = value.type if value is not None else None
    return value_type.dtype if isinstance(value_type, (TensorType, TileType, ScalarType)) else None


def _paged_gather_src(value: Expr, _call: Call) -> str | None:
    shape = value.type.shape if isinstance(value.type, (TensorType, TileType)) else None
    if shape is not None and len(shape) != 2:
        return f"The operator tensor.paged_gather requires 2D src, but got rank {len(shape)}"
    return None


def _paged_gather_indices(value: Expr, _call: Call) -> str | None:
    dtype = _element_dtype(value) if isinstance(value.type, (TensorType, TileType)) else None
    if dtype is not None and dtype != "INT32":
        got = _dtype_text(dtype)
        return f"The operator tensor.paged_gather requires indices dtype to be INT32, but got {got}"
    return None


def _gather_row_src(value: Expr, call: Call) -> str | None:
    acc = _element_dtype(_argument(call, "acc", 0))
    src = _element_dtype(value) if isinstance(value.type, (TensorType, TileType)) else None
    if acc is not None and src is not None and acc != src:
        return (
            f"The operator tensor.gather_row requires acc and src to share dtype, but got "
            f"{_dtype_text(acc)} and {_dtype_text(src)}"
        )
    return None


def _gather_row_valid_shape(value: Expr, _call: Call) -> str | None:
    if isinstance(value, (ListExpr, TupleExpr)):
        for index, item in enumerate(value.items):
            if isinstance(item.type, ScalarType) and item.type.dtype.startswith(("FP", "BF")):
                return (
                    f"The operator tensor.gather_row requires valid_shape[{index}] to be an integer extent, "
                    f"but got {_dtype_text(item.type.dtype)}"
                )
    return None


def _kvalue_dtype(op: str) -> Callable[[Expr, Call], str | None]:
    def check(value: Expr, call: Call) -> str | None:
        src = _argument(call, "src" if op.startswith("tile.") else "input", 0)
        src_dtype = (
            _element_dtype(src) if src is not None and isinstance(src.type, (TensorType, TileType)) else None
        )
        kv_dtype = (
            value.type.dtype if isinstance(value.type, ScalarType) and not isinstance(value, Const) else None
        )
        if src_dtype is not None and kv_dtype is not None and src_dtype != kv_dtype:
            return (
                f"The operator {op} requires kvalue dtype equal to src dtype {_dtype_text(src_dtype)} , "
                f"but got {_dtype_text(kv_dtype)}"
            )
        return None

    return check


_GATHER_FORMS = {"mask_pattern": "mask", "kvalue": "compare", "cmp_mode": "compare", "out_cols": "compare"}


def _gather_forms(keyword: str) -> Callable[[Expr, Call], str | None]:
    """`pl.tensor.gather`'s index form (`dim`, `index`), mask form and compare form exclude
    each other; reported at the first keyword of a second form."""

    def check(_value: Expr, call: Call) -> str | None:
        forms = {_GATHER_FORMS[k] for k in call.kwargs if k in _GATHER_FORMS}
        if len(call.args) > 1 or "dim" in call.kwargs or "index" in call.kwargs:
            forms.add("index")
        first_of_its_form = next(k for k in call.kwargs if _GATHER_FORMS.get(k) == _GATHER_FORMS[keyword])
        if (
            len(forms) > 1
            and keyword == first_of_its_form
            and not ("index" not in forms and _GATHER_FORMS[keyword] == "mask")
        ):
            return (
                "gather() index form (dim, index), mask form (mask_pattern=...) and compare form "
                "(kvalue=..., cmp_mode=..., out_cols=...) are mutually exclusive; do not mix kwargs from "
                "different forms"
            )
        return None

    return check


def _static_dims(value: Expr) -> list[int | None] | None:
    """A shape list's extents: an int for each literal, None for any other entry."""
    if not isinstance(value, (ListExpr, TupleExpr)):
        return None
    return [
        item.value if isinstance(item, Const) and type(item.value) is int else None for item in value.items
    ]


def _gather_row_shapes(value: Expr, _call: Call) -> str | None:
    """`CheckGatherRowOperands`: each `shapes` extent sizes a static subview."""
    if isinstance(value, (ListExpr, TupleExpr)):
        for index, item in enumerate(value.items):
            if isinstance(item, Var):
                return (
                    f"The operator tensor.gather_row requires shapes[{index}] to be a compile-time "
                    "constant (it sizes pto.subview, whose sizes is a static attribute), but got a runtime "
                    "value. Pass a dynamic row count through valid_shape instead"
                )
    return None


def _gather_row_valid(value: Expr, call: Call) -> str | None:
    """`valid_shape`: integer extents, static under `transpose=True`, within `shapes`."""
    message = _gather_row_valid_shape(value, call)
    if message is not None or not isinstance(value, (ListExpr, TupleExpr)):
        return message
    transpose = call.kwargs.get("transpose")
    if (
        isinstance(transpose, Const)
        and transpose.value is True
        and any(isinstance(i, Var) for i in value.items)
    ):
        return (
            "The operator tensor.gather_row does not support a dynamic valid_shape together with "
            "transpose=True (the DN2NZ per-row path would need a runtime column extent on a boxed NZ "
            "tile). Use a static valid_shape with transpose=True, or gather without transpose and read "
            "the operand with "
            "matmul(b_trans=True)."
        )
    shapes = _argument(call, "shapes", 4)
    physical = _static_dims(shapes) if shapes is not None else None
    valid = _static_dims(value)
    if physical is not None and valid is not None and len(physical) == len(valid):
        for index, (extent, bound) in enumerate(zip(valid, physical, strict=True)):
            if extent is not None and bound is not None and extent > bound:
                return (
                    f"tensor.gather_row valid_shape dimension {index} extent {extent} provably exceeds "
                    f"physical shape extent {bound}"
                )
    return None


def _create_l1_shape(value: Expr, _call: Call) -> str | None:
    dims = _static_dims(value)
    for index, extent in enumerate(dims or []):
        if extent is not None and extent <= 0:
            return (
                f"The operator tensor.create_l1 shape element {index} must be a positive "
                "compile-time ConstInt"
            )
    return None


def _tile_create_transpose(value: Expr, call: Call) -> str | None:
    """`transpose=True` is the 2D L1 (Mat) matmul operand layout."""
    if not (isinstance(value, Const) and value.value is True):
        return None
    shape = _argument(call, "shape", 0)
    memory = call.kwargs.get("target_memory")
    two_d = not isinstance(shape, (ListExpr, TupleExpr)) or len(shape.items) == 2
    in_mat = not isinstance(memory, EnumValue) or memory.member == "Mat"
    if not (two_d and in_mat):
        return (
            "The operator tile.create supports transpose=true only for a 2D tile with target_memory=Mat (L1)"
        )
    return None


_MX_LAYOUTS = ("MX_A_ZZ", "MX_B_NN")


def _not_mx(op: str) -> Callable[[Expr, Call], str | None]:
    def check(value: Expr, _call: Call) -> str | None:
        if isinstance(value.type, TensorType) and value.type.layout in _MX_LAYOUTS:
            return f"{op} does not support MX-layout tensors"
        return None

    return check


def _push_within_target(value: Expr, call: Call) -> str | None:
    """`ValidatePushFitsTarget` (comm_op_utils.h): offset + the pushed extent stays inside the
    peer's target in every dimension, where all three are literals. Only a 2-D tensor src
    into a 2-D target is judged (then the extent is the src's shape)."""
    src, target = _argument(call, "src", 0), _argument(call, "target", 1)
    src_shape = src.type.shape if src is not None and isinstance(src.type, TensorType) else None
    target_shape = target.type.shape if target is not None and isinstance(target.type, TensorType) else None
    offsets = _static_dims(value)
    if src_shape is None or target_shape is None or offsets is None:
        return None
    if not len(src_shape) == len(target_shape) == len(offsets) == 2:
        return None
    for index, (offset, extent, bound) in enumerate(zip(offsets, src_shape, target_shape, strict=True)):
        if (
            isinstance(offset, int)
            and isinstance(extent, int)
            and isinstance(bound, int)
            and offset + extent > bound
        ):
            return (
                f"{call.op} push exceeds the peer's target region in dimension {index} "
                f"(offset={offset}, extent={extent}, target_dim={bound})"
            )
    return None


def _tensor_operand(op: str, ordinal: str) -> Callable[[Expr, Call], str | None]:
    """`tile.load` / `tile.store`: the tensor side of the move is a tensor, not a tile."""

    def check(value: Expr, _call: Call) -> str | None:
        if isinstance(value.type, TileType):
            return (
                f"The operator {op} requires {ordinal} argument to be a TensorType or DistributedTensorType, "
                "but got TileType"
            )
        return None

    return check


# `pl.<op>` unified ops whose wrapper dispatches only on a Tensor or a Tile (unified_ops.py):
# anything else is its TypeError
_TENSOR_OR_TILE_UNIFIED = frozenset(
    {
        "exp", "log", "sin", "cos", "neg", "abs", "recip", "sqrt", "rsqrt", "reshape", "transpose",
        "row_max", "row_sum", "row_min", "row_prod", "row_argmax", "row_argmin", "col_argmax",
        "col_argmin", "not_",
    }
)  # fmt: skip


def unified_operand_problem(name: str, first: Expr) -> str | None:
    """The TypeError of unified `pl.<name>` given a scalar first operand, or None."""
    if (
        name in _TENSOR_OR_TILE_UNIFIED
        and isinstance(first.type, ScalarType)
        and not isinstance(first, Const)
    ):
        return f"pl.{name}: expected Tensor or Tile, got Scalar"
    return None


_FILLPAD = (ArgRule("pad_value", 1, lambda value, _call: _pad_value(value), _PAD_HINT),)
_WINDOW_HINT = "pass a window-bound pld.DistributedTensor (a pld.window(...) view or a parameter declared so)"
_SIGNAL_HINT = "the signal is a window-bound pld.DistributedTensor of pl.INT32"


def _window(op: str, role: str, position: int) -> ArgRule:
    return ArgRule(role, position, _distributed(op, role), _WINDOW_HINT)


def _signal(op: str, position: int, why: str = "") -> ArgRule:
    return ArgRule("signal", position, _signal_dtype(op, why), _SIGNAL_HINT)


# `pl.prefetch` (src/ir/op/prefetch/prefetch_async.cpp): each handle kind and the op making it
PREFETCH_CONTEXT = HandleType("PrefetchAsyncContext")
PREFETCH_EVENT = HandleType("AsyncEvent")
PREFETCH_SESSION = HandleType("AsyncSession")
PREFETCH_RESULTS: dict[str, Type] = {
    "prefetch.make_context": PREFETCH_CONTEXT,
    "prefetch.async_prefetch": PREFETCH_EVENT,
    "prefetch.session": PREFETCH_SESSION,
    "prefetch.wait": ScalarType("BOOL"),
}
_PRODUCERS = {handle: op for op, handle in PREFETCH_RESULTS.items() if isinstance(handle, HandleType)}


def _handle(op: str, keyword: str, position: int, expected: HandleType, role: str = "") -> ArgRule:
    """`CheckHandle`: the argument (`keyword=`, or at `position`; `role` in the message when
    the DSL names it otherwise) is the handle kind `expected` (a value of another known type,
    another handle kind included, is rejected)."""
    role = role or keyword
    article = "an" if expected.name[0] in "AEIOU" else "a"

    def check(value: Expr, _call: Call) -> str | None:
        got = value.type
        if got == expected or not isinstance(got, (HandleType, TensorType, TileType, ScalarType)):
            return None
        return (
            f"{op} expects {role} to be {article} {expected.name} (output of {_PRODUCERS[expected]}), "
            f"got {_type_name(got)}"
        )

    return ArgRule(keyword, position, check, f"pass the {expected.name} {_PRODUCERS[expected]}(...) returns")


def _flat_prefetch_source(value: Expr, _call: Call) -> str | None:
    """`CheckFlatContiguous1DSource` on a tensor whose extents are all literal: every one but
    the last must be 1 (a shape not fully known is the compiler's to judge)."""
    shape = value.type.shape if isinstance(value.type, TensorType) else None
    if not shape or not all(isinstance(d, int) for d in shape):
        return None
    for index, extent in enumerate(shape[:-1]):
        if extent != 1:
            return (
                "prefetch.async_prefetch expects src to be a flat contiguous logical 1D GM region (all "
                f"dimensions except the last must be 1), but dimension {index} is {extent}; reshape the "
                "tensor to [N] or [1, ..., N] before prefetching"
            )
    return None


_BARRIER_SLOT = " (the barrier slot is an int counter)"
_ARG_RULES: dict[str, tuple[ArgRule, ...]] = {
    "tile.fillpad": _FILLPAD,
    "tile.fillpad_inplace": _FILLPAD,
    "tensor.fillpad": _FILLPAD,
    DEFER_WAIT_OP: (
        ArgRule(
            "cmp",
            None,
            lambda value, _call: _defer_wait_cmp(value),
            "a deferred waiter's counter only grows: wait with cmp=pld.WaitCmp.Ge",
        ),
        ArgRule("signal", 0, _defer_wait_signal, _SIGNAL_HINT),
        ArgRule("offsets", 1, _defer_wait_offsets, "offsets index the signal: integer values"),
        ArgRule("expected", 2, _integer_scalar("expected"), "the counter is compared with an integer"),
    ),
    "tensor.cast": (ArgRule("mode", 2, _cast_mode, f"one of {list(_CAST_MODES)} or an int in [0, 6]"),),
    "tile.cast": (ArgRule("mode", 2, _cast_mode, f"one of {list(_CAST_MODES)} or an int in [0, 6]"),),
    "tile.matmul_acc": (ArgRule("init_cond", 3, _bool_init_cond("tile.matmul_acc")),),
    "tensor.matmul_acc": (ArgRule("init_cond", 5, _bool_init_cond("tensor.matmul_acc")),),
    "tensor.paged_gather": (
        ArgRule("src", 0, _paged_gather_src),
        ArgRule("indices", 1, _paged_gather_indices),
    ),
    "tensor.gather_row": (
        ArgRule("src", 1, _gather_row_src),
        ArgRule("shapes", 4, _gather_row_shapes, "pass a dynamic row count through valid_shape"),
        ArgRule("valid_shape", None, _gather_row_valid),
    ),
    "tensor.create_l1": (ArgRule("shape", 0, _create_l1_shape),),
    "tile.create": (
        ArgRule("transpose", None, _tile_create_transpose, "transpose=True needs target_memory=pl.Mem.Mat"),
    ),
    "tensor.slice": (ArgRule("input", 0, _not_mx("tensor.slice")),),
    "tensor.reshape": (ArgRule("input", 0, _not_mx("tensor.reshape")),),
    "tensor.transpose": (ArgRule("input", 0, _not_mx("tensor.transpose")),),
    "tile.gather_compare": (ArgRule("kvalue", 1, _kvalue_dtype("tile.gather_compare")),),
    "tensor.gather": tuple(ArgRule(keyword, None, _gather_forms(keyword)) for keyword in _GATHER_FORMS),
    "tile.load": (ArgRule("tensor", 0, _tensor_operand("tile.load", "first")),),
    "tile.store": (ArgRule("output_tensor", 2, _tensor_operand("tile.store", "third")),),
    "pld.tile.remote_load": (
        _window("pld.tile.remote_load", "target", 0),
        ArgRule("offsets", 2, _sequence),
        ArgRule("shape", 3, _sequence),
    ),
    "pld.tile.remote_store": (_window("pld.tile.remote_store", "target", 1),),
    "pld.tensor.remote_store": (
        _window("pld.tensor.remote_store", "target", 1),
        ArgRule("src", 0, _tensor_src, "use pld.tile.remote_store for a tile"),
        ArgRule("offsets", 3, _push_within_target, "offset + the pushed extent must fit the peer's target"),
    ),
    "pld.tile.put": (_window("pld.tile.put", "dst", 0),),
    "pld.tensor.put": (_window("pld.tensor.put", "dst", 0),),
    "pld.tile.get": (_window("pld.tile.get", "src", 2),),
    "pld.tensor.get": (_window("pld.tensor.get", "src", 2),),
    "pld.tensor.allreduce": (
        ArgRule(
            "target", 0, _allreduce_target, "the target is a window-bound pld.DistributedTensor of FP16/FP32"
        ),
        _signal("pld.tensor.allreduce", 1, _BARRIER_SLOT),
    ),
    "pld.tensor.barrier": (_signal("pld.tensor.barrier", 0, _BARRIER_SLOT),),
    "pld.tensor.broadcast": (
        _window("pld.tensor.broadcast", "target", 0),
        _signal("pld.tensor.broadcast", 1),
    ),
    "pld.tensor.allgather": (
        _window("pld.tensor.allgather", "target", 1),
        _signal("pld.tensor.allgather", 2),
    ),
    "pld.tensor.reduce_scatter": (
        _window("pld.tensor.reduce_scatter", "target", 0),
        _signal("pld.tensor.reduce_scatter", 1),
        ArgRule("op", None, _reduce_scatter_op, "only pld.ReduceOp.Sum is lowered"),
    ),
    "pld.tensor.all_to_all": (
        _window("pld.tensor.all_to_all", "target", 1),
        _signal("pld.tensor.all_to_all", 2),
    ),
    "pld.tensor.all_to_all_v": (
        _window("pld.tensor.all_to_all_v", "target", 1),
        _signal("pld.tensor.all_to_all_v", 2),
        _window("pld.tensor.all_to_all_v", "recv_counts", 4),
    ),
    "pld.system.get_comm_ctx": (ArgRule("dist_tensor", 0, _get_comm_ctx, _WINDOW_HINT),),
    "pld.system.rank": (ArgRule("ctx", 0, _comm_ctx("pld.system.rank"), "pass pld.get_comm_ctx(t)"),),
    "pld.system.nranks": (ArgRule("ctx", 0, _comm_ctx("pld.system.nranks"), "pass pld.get_comm_ctx(t)"),),
    "pld.tensor.window": (
        ArgRule("buf", 0, _window_buffer, "pass the handle pld.alloc_window_buffer(...) returns"),
    ),
    "prefetch.async_prefetch": (
        ArgRule("src", 0, _flat_prefetch_source, "pl.reshape the tensor to [N] (or [1, ..., N]) first"),
        _handle("prefetch.async_prefetch", "ctx", 1, PREFETCH_CONTEXT),
    ),
    "prefetch.session": (_handle("prefetch.session", "ctx", 0, PREFETCH_CONTEXT),),
    "prefetch.wait": (
        _handle("prefetch.wait", "event", 0, PREFETCH_EVENT),
        _handle("prefetch.wait", "session_handle", 1, PREFETCH_SESSION, "session"),
    ),
}


def argument_problems(call: Call) -> list[tuple[ArgRule, str, Expr]]:
    """Each argument of `call` its op registry rejects: the rule, the compiler's message and
    the argument (empty for most calls: only ops with rules are looked at)."""
    rules = None if call.is_user_call else _ARG_RULES.get(call.op)
    if not rules:
        return []
    found: list[tuple[ArgRule, str, Expr]] = []
    for rule in rules:
        value = call.kwargs.get(rule.keyword)
        if value is None and rule.position is not None and rule.position < len(call.args):
            value = call.args[rule.position]
        if value is None:
            continue
        message = rule.check(value, call)
        if message is not None:
            found.append((rule, message, value))
    return found
