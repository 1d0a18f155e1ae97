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

from .ir import BinaryExpr, Call, Const, EnumValue, Expr, UnaryExpr, Var

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
    `check` returns the compiler's message for a value it rejects, None for one it takes (or
    one not known statically)."""

    keyword: str
    position: int | None
    check: Callable[[Expr], str | None]
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


_FILLPAD = (ArgRule("pad_value", 1, _pad_value, _PAD_HINT),)
_ARG_RULES: dict[str, tuple[ArgRule, ...]] = {
    "tile.fillpad": _FILLPAD,
    "tile.fillpad_inplace": _FILLPAD,
    "tensor.fillpad": _FILLPAD,
    DEFER_WAIT_OP: (
        ArgRule(
            "cmp",
            None,
            _defer_wait_cmp,
            "a deferred waiter's counter only grows: wait with cmp=pld.WaitCmp.Ge",
        ),
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
        message = rule.check(value)
        if message is not None:
            found.append((rule, message, value))
    return found
