"""The DSL surface as one table: every name under `pl.` / `pld.` an author can write.

Completion, signature help and hover on a DSL name all read this table, so they cannot
disagree. It holds, per dotted path (`pl.tile.store`, `pl.Level`, `pl.at`, `pld.system.notify`):

* the kind of name (op, scope construct, loop, decorator, type, dtype, enum, namespace, ...);
* its parameters (names, order, keyword-only, defaults, annotations): ops as the compiler's
  functions declare them (`dsl_signatures`, generated from the compiler's source), constructs
  and decorators as dsl-reference §1 states them;
* the values a parameter takes when they are an enum's members, `bool`s or dtypes;
* for an op, the IR op(s) it becomes and what each argument slot is (`ops.py`: the effect table
  the passes use) and which argument the result names.

Nothing here is executed or imported from pypto: the table is data.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from . import ops
from .dsl_signatures import SIGNATURES
from .ir import LEVEL_ALIASES
from .ops import TENSOR_ONLY, TILE_ONLY


class Kind(str, Enum):
    OP = "op"
    CONSTRUCT = "scope construct"
    LOOP = "loop"
    DECORATOR = "decorator"
    HELPER = "helper"
    TYPE = "type"
    DTYPE = "dtype"
    LAYOUT = "layout"
    ENUM = "enum"
    MEMBER = "enum member"
    NAMESPACE = "namespace"


@dataclass(frozen=True)
class Param:
    name: str
    annotation: str | None
    default: str | None
    keyword_only: bool
    star: str = ""  # "*" for *args, "**" for **kwargs

    @property
    def text(self) -> str:
        """The parameter as a signature shows it: `level: Level`, `name_hint: str = ''`."""
        text = f"{self.star}{self.name}"
        if self.annotation:
            text += f": {self.annotation}"
        if self.default is not None:
            text += f" = {self.default}" if self.annotation else f"={self.default}"
        return text

    @property
    def values_enum(self) -> str | None:
        """The enum (a table path such as `pl.Level`) whose members this parameter takes."""
        words = set((self.annotation or "").replace("|", " ").replace(".", " ").split())
        for path, spec in ENUMS.items():
            if spec.type_name in words:
                return path
        return None

    @property
    def values(self) -> tuple[str, ...]:
        """Literal values (relative to `pl`) this parameter takes: enum members, dtypes, bools."""
        enum = self.values_enum
        if enum is not None:
            return tuple(f"{enum.split('.', 1)[1]}.{m.name}" for m in ENUMS[enum].members)
        words = set((self.annotation or "").replace("|", " ").split())
        if "DataType" in words or self.name in ("dtype", "out_dtype", "target_type"):
            return DTYPES
        if words == {"bool"} or words == {"bool", "None"}:
            return ("True", "False")
        return ()


@dataclass(frozen=True)
class Member:
    name: str
    doc: str = ""


@dataclass(frozen=True)
class EnumSpec:
    type_name: str  # how annotations name it (`Level`, `AtomicType`)
    doc: str
    members: tuple[Member, ...]


@dataclass(frozen=True)
class Entry:
    path: str  # `pl.tile.store`
    kind: Kind
    doc: str = ""
    signature: str | None = None  # parameter list text, None for names that are not called
    snippet: str | None = None  # a construct's statement, `{pl}` for the module's alias
    extra: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def name(self) -> str:
        return self.path.rsplit(".", 1)[1]

    @property
    def params(self) -> tuple[Param, ...]:
        return parse_params(self.signature or "")

    @property
    def ir_ops(self) -> tuple[str, ...]:
        """The IR op(s) an op becomes; two for a unified op (`pl.add`: `tensor.add` or
        `tile.add` by its first operand's kind)."""
        return _ir_ops(self.path) if self.kind is Kind.OP else ()

    def slot_effects(self) -> dict[int, list[tuple[str, ops.SlotEffect]]]:
        """Argument index -> (IR op, what it does to the slot) for every slot some IR op of
        this entry writes."""
        found: dict[int, list[tuple[str, ops.SlotEffect]]] = {}
        for op in self.ir_ops:
            for slot in ops.declared_slot_effects(op):
                found.setdefault(slot.index, []).append((op, slot))
        return found

    def result_aliases(self) -> list[tuple[str, int]]:
        """(IR op, argument index) for each IR op whose result names one of its arguments."""
        found = []
        for op in self.ir_ops:
            index = ops.declared_result_alias(op)
            if index is not None:
                found.append((op, index))
        return found


@functools.lru_cache(maxsize=2048)
def parse_params(signature: str) -> tuple[Param, ...]:
    """`a: Tile, b=1, *, c: Level` -> Params (the text is a Python parameter list)."""
    if not signature:
        return ()
    tree = ast.parse(f"def f({signature}): pass")
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)

    def make(arg: ast.arg, default: ast.expr | None, keyword_only: bool, star: str = "") -> Param:
        annotation = ast.unparse(arg.annotation) if arg.annotation is not None else None
        return Param(arg.arg, annotation, ast.unparse(default) if default else None, keyword_only, star)

    params = [make(a, d, False) for a, d in zip(positional, defaults, strict=True)]
    if args.vararg is not None:
        params.append(make(args.vararg, None, False, "*"))
    params += [make(a, d, True) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)]
    if args.kwarg is not None:
        params.append(make(args.kwarg, None, True, "**"))
    return tuple(params)


def _ir_ops(path: str) -> tuple[str, ...]:
    parts = path.split(".")
    root, rest = parts[0], parts[1:]
    if len(rest) == 2:
        return (f"pld.{rest[0]}.{rest[1]}",) if root == "pld" else (f"{rest[0]}.{rest[1]}",)
    name = rest[0]
    if root == "pld":
        return tuple(f"pld.{c}.{name}" for c in ("tensor", "tile") if f"pld.{c}.{name}" in SIGNATURES)
    if name in TILE_ONLY:
        return (f"tile.{name}",)
    if name in TENSOR_ONLY:
        return (f"tensor.{TENSOR_ONLY[name]}",)
    both = tuple(f"{c}.{name}" for c in ("tensor", "tile") if f"pl.{c}.{name}" in SIGNATURES)
    return both or (f"tensor.{name}",)


# ---------------------------------------------------------------------------------------------
# Enums (dsl-reference §1.6; members as the compiler's Python enums spell them)


def _members(*names: str) -> tuple[Member, ...]:
    return tuple(Member(n) for n in names)


_LEVEL_DOCS = {
    "AIV": "vector core",
    "AIC": "cube core",
    "CORE_GROUP": "an AIC+AIV core group: `pl.at(level=CORE_GROUP)` is the InCore scope",
    "CHIP_DIE": "a chip die",
    "CHIP": "a chip (orchestration level)",
    "HOST": "the host",
    "CLUSTER_0": "a cluster of hosts (pod)",
    "CLUSTER_1": "second cluster level",
    "CLUSTER_2": "third cluster level",
    "GLOBAL": "everything",
}
_ALIAS_OF = {alias: level.value for alias, level in LEVEL_ALIASES.items() if alias != level.value}

ENUMS: dict[str, EnumSpec] = {
    "pl.Level": EnumSpec(
        "Level",
        "Hierarchy level of a scope or function (`pl.at(level=...)`, `@pl.function(level=...)`).",
        tuple(Member(n, d) for n, d in _LEVEL_DOCS.items())
        + tuple(Member(a, f"alias of `{c}`") for a, c in _ALIAS_OF.items()),
    ),
    "pl.Role": EnumSpec(
        "Role",
        "Role of a hierarchy scope or function.",
        (Member("Orchestrator", "controls the level below (suffix `orch`)"), Member("SubWorker")),
    ),
    "pl.FunctionType": EnumSpec(
        "FunctionType",
        "What a program function is (`@pl.function(type=...)`); Opaque by default.",
        (
            Member("Opaque", "no plane yet (default)"),
            Member("Orchestration", "control plane: level CHIP, role Orchestrator"),
            Member("InCore", "device kernel"),
            Member("AIC", "cube-core kernel"),
            Member("AIV", "vector-core kernel"),
            Member("Group", "co-scheduled AIC+AIV (made by cluster outlining)"),
            Member("Spmd", "SPMD launch wrapper (made by spmd outlining)"),
            Member("Inline", "spliced into its callers"),
            Member("Graph", "recordable orchestration fragment"),
        ),
    ),
    "pl.SplitMode": EnumSpec(
        "SplitMode", "How a core group splits work.", _members("NONE", "UP_DOWN", "LEFT_RIGHT")
    ),
    "pl.CachePolicy": EnumSpec(
        "CachePolicy", "Cache policy of a tensor (`pl.set_cache_policy`).", _members("DEFAULT", "BYPASS")
    ),
    "pl.ScopeMode": EnumSpec(
        "ScopeMode", "Dependency tracking of a runtime scope.", _members("AUTO", "MANUAL")
    ),
    "pl.AtomicType": EnumSpec(
        "AtomicType",
        "Atomic write mode (`atomic=`): `Add` makes a store read-write its destination.",
        _members("None_", "Add"),
    ),
    "pl.PadValue": EnumSpec(
        "PadValue", "Padding of a tile's invalid region.", _members("null", "zero", "max", "min")
    ),
    "pl.MemorySpace": EnumSpec(
        "MemorySpace",
        "Where a tile lives (`pl.Mem` is an alias).",
        _members(
            "DDR", "Vec", "Mat", "Left", "Right", "Acc", "Bias", "ScalarLocal", "LeftScale", "RightScale"
        ),
    ),
    "pl.TileLayout": EnumSpec("TileLayout", "Tile layout.", _members("none_box", "row_major", "col_major")),
    "pl.TensorLayout": EnumSpec(
        "TensorLayout", "Tensor layout.", _members("ND", "DN", "NZ", "MX_A_ZZ", "MX_B_NN")
    ),
    "pl.CompactMode": EnumSpec("CompactMode", "Tile compact mode.", _members("null", "normal")),
    "pld.NotifyOp": EnumSpec(
        "NotifyOp", "What `pld.system.notify` does to its target.", _members("AtomicAdd", "Set")
    ),
    "pld.WaitCmp": EnumSpec("WaitCmp", "Comparison of `pld.system.wait`.", _members("Eq", "Ge")),
    "pld.AtomicType": EnumSpec("AtomicType", "Atomic mode of `pld.tensor.put`.", _members("None_", "Add")),
    "pld.ReduceOp": EnumSpec("ReduceOp", "Reduction of a collective.", _members("Sum", "Max", "Min", "Prod")),
}

DTYPES = (
    *("BOOL", "INT4", "INT8", "INT16", "INT32", "INT64", "UINT4", "UINT8", "UINT16", "UINT32", "UINT64"),
    *("FP16", "BF16", "FP32", "FP4", "FP8E4M3FN", "FP8E5M2", "FP8E8M0", "HF4", "HF8", "INDEX", "TASK_ID"),
)
LAYOUTS = ("ND", "DN", "NZ", "MX_A_ZZ", "MX_B_NN")

# ---------------------------------------------------------------------------------------------
# Constructs, loops, decorators, helpers and types (dsl-reference §1.1-§1.5)

_WRITTEN: list[Entry] = [
    Entry(
        "pl.at",
        Kind.CONSTRUCT,
        "A scope at a hierarchy level: `level=pl.Level.CORE_GROUP` is the InCore scope, outlined into "
        "an InCore kernel; any other level is a Hierarchy scope. `as tid` binds the dispatch's TaskId.",
        "level: Level, role: Role | None = None, *, optimizations: list | None = None, "
        "deps: list | None = None, no_dep_args: list | None = None, dumps: list | None = None, "
        "allow_early_resolve: bool = False, predicate=None, name_hint: str = '', windowize: bool = False",
        'with {pl}.at(level={pl}.Level.CORE_GROUP, name_hint="${1}"):\n\t$0',
    ),
    Entry(
        "pl.cluster",
        Kind.CONSTRUCT,
        "A cluster region, outlined into a Group function (co-scheduled AIC+AIV).",
        "*, name_hint: str = ''",
        'with {pl}.cluster(name_hint="${1}"):\n\t$0',
    ),
    Entry(
        "pl.spmd",
        Kind.CONSTRUCT,
        "An SPMD launch over `core_num` blocks: `with pl.spmd(n):` (dispatch or inline body) or "
        "`for i in pl.spmd(n):` (`i` is the block index); outlined into a Spmd wrapper and its kernel.",
        "core_num: int, *, sync_start: bool = False, name_hint: str = '', optimizations: list | None = None, "
        "deps: list | None = None, allow_early_resolve: bool = False, predicate=None",
        'with {pl}.spmd(${1:4}, name_hint="${2}"):\n\t$0',
        {"for": 'for ${1:i} in {pl}.spmd(${2:4}, name_hint="${3}"):\n\t$0'},
    ),
    Entry(
        "pl.graph",
        Kind.CONSTRUCT,
        "A recordable graph region (one string literal, a valid identifier), outlined into a Graph "
        "function of that name.",
        "name: str, /",
        'with {pl}.graph("${1:region}"):\n\t$0',
    ),
    Entry(
        "pl.split_aiv",
        Kind.CONSTRUCT,
        "An explicit AIV-split region; the loop variable is the sub-block index.",
        "n: int, *, mode: SplitMode",
        "for ${1:aiv_id} in {pl}.split_aiv(2, mode={pl}.SplitMode.${2:UP_DOWN}):\n\t$0",
    ),
    Entry(
        "pl.scope",
        Kind.CONSTRUCT,
        "A runtime scope (transparent to outlining).",
        "mode: ScopeMode = ScopeMode.AUTO",
        "with {pl}.scope():\n\t$0",
    ),
    Entry(
        "pl.manual_scope",
        Kind.CONSTRUCT,
        "A runtime scope with manual dependencies (transparent to outlining).",
        "",
        "with {pl}.manual_scope():\n\t$0",
    ),
    Entry(
        "pl.range",
        Kind.LOOP,
        "A sequential loop; `init_values=` carries values.",
        "*args: int, init_values: tuple | None = None",
    ),
    Entry("pl.parallel", Kind.LOOP, "A parallel loop.", "*args: int, init_values: tuple | None = None"),
    Entry("pl.unroll", Kind.LOOP, "A loop unrolled at compile time (literal bounds).", "*args: int"),
    Entry(
        "pl.pipeline",
        Kind.LOOP,
        "A pipelined loop.",
        "*args: int, stage: int, init_values: tuple | None = None",
    ),
    Entry(
        "pl.while_", Kind.LOOP, "A while loop; first body statement `pl.cond(c)`.", "*, init_values: tuple"
    ),
    Entry("pl.yield_", Kind.HELPER, "The values a loop or if carries out.", "*values"),
    Entry("pl.cond", Kind.HELPER, "The condition of a `pl.while_` loop.", "condition"),
    Entry("pl.const", Kind.HELPER, "A typed literal.", "value: int | float, dtype: DataType"),
    Entry("pl.static_print", Kind.HELPER, "Print at compile time.", "*args"),
    Entry("pl.static_assert", Kind.HELPER, "Assert at compile time.", "condition, msg: str = ''"),
    Entry("pl.func_attr", Kind.HELPER, "Function attributes (first body statement).", "attrs: dict"),
    Entry("pl.dynamic", Kind.HELPER, "A dynamic extent symbol for shapes.", "name: str"),
    Entry(
        "pl.submit",
        Kind.HELPER,
        "Launch program function `kernel` as a task; the result carries its TaskId.",
        "kernel, *args, deps: list | None = None",
    ),
    Entry(
        "pl.spmd_submit",
        Kind.HELPER,
        "Launch program function `kernel` as an SPMD task.",
        "kernel, *args, core_num: int, deps: list | None = None",
    ),
    Entry(
        "pl.split",
        Kind.HELPER,
        "The split optimization of a scope.",
        "mode: SplitMode, *, slot_num: int | None = None",
    ),
    Entry("pl.cross_core_slot", Kind.HELPER, "Cross-core slot count of a scope.", "*, slot_num: int"),
    Entry(
        "pl.set_cache_policy",
        Kind.HELPER,
        "Cache policy of a tensor the enclosing scope reads (hoisted onto the scope).",
        "tensor, policy: CachePolicy",
    ),
    Entry(
        "pl.program",
        Kind.DECORATOR,
        "A program: a class whose methods are its functions (`self.f(...)` calls them).",
        "*, strict_ssa: bool = False",
    ),
    Entry(
        "pl.function",
        Kind.DECORATOR,
        "A program function; Opaque unless `type=` says otherwise.",
        "*, type: FunctionType = FunctionType.Opaque, level: Level | None = None, role: Role | None = None, "
        "attrs: dict | None = None, auto_scope: bool = True, strict_ssa: bool = False, "
        "external_source: str | None = None",
    ),
    Entry("pl.inline", Kind.DECORATOR, "A helper spliced into every caller.", ""),
    Entry("pl.jit", Kind.DECORATOR, "A jit entry: an Orchestration function with the kernels it calls.", ""),
    Entry(
        "pl.jit.host", Kind.DECORATOR, "A host-level jit entry (Opaque, level HOST, role Orchestrator).", ""
    ),
    Entry("pl.jit.incore", Kind.DECORATOR, "A jit InCore kernel.", "*, level: Level | None = None"),
    Entry("pl.jit.inline", Kind.DECORATOR, "A jit helper spliced into its callers.", ""),
    Entry("pl.jit.opaque", Kind.DECORATOR, "A jit Opaque function.", ""),
    Entry("pl.jit.graph", Kind.DECORATOR, "A jit Graph function.", ""),
    Entry("pl.Tensor", Kind.TYPE, "A DDR tensor: `pl.Tensor[[d0, d1], pl.FP32]`."),
    Entry("pl.Tile", Kind.TYPE, "An on-chip buffer: `pl.Tile[[d0, d1], pl.FP32]`."),
    Entry("pl.Scalar", Kind.TYPE, "A value passed by value: `pl.Scalar[pl.INDEX]`."),
    Entry("pl.Array", Kind.TYPE, "An on-core array: `pl.Array[n, dtype]`."),
    Entry("pl.Tuple", Kind.TYPE, "A multi-value return annotation."),
    Entry("pl.Out", Kind.TYPE, "An output parameter: `pl.Out[pl.Tensor[...]]` (direction Out)."),
    Entry("pl.InOut", Kind.TYPE, "A read-write parameter: `pl.InOut[pl.Tensor[...]]` (direction InOut)."),
    Entry("pl.TaskId", Kind.TYPE, "`pl.Scalar[pl.TASK_ID]`: a task's id (`deps=`)."),
    Entry("pl.TensorView", Kind.TYPE, "A tensor view (third argument of `pl.Tensor[...]`)."),
    Entry("pl.Mem", Kind.ENUM, "Alias of `pl.MemorySpace`.", extra={"alias": "pl.MemorySpace"}),
    Entry("pl.PrefetchAsyncContext", Kind.TYPE, "The handle `pl.prefetch.make_context()` returns."),
    Entry("pl.AsyncEvent", Kind.TYPE, "The handle `pl.prefetch.async_prefetch(src, ctx)` returns."),
    Entry("pl.AsyncSession", Kind.TYPE, "The handle `pl.prefetch.session(ctx)` returns."),
]

_NAMESPACES = {
    "pl.tile": "Tile ops (`tile.*` IR ops).",
    "pl.tensor": "Tensor ops (`tensor.*` IR ops).",
    "pl.system": "System ops (`system.*` IR ops).",
    "pl.array": "On-core array ops.",
    "pl.prefetch": "Asynchronous GM -> L2 prefetch ops (`prefetch.*` IR ops).",
    "pl.distributed": "The distributed DSL (usually imported as `pld`).",
    "pld.tile": "Distributed tile ops.",
    "pld.tensor": "Distributed tensor ops.",
    "pld.system": "Distributed system ops.",
}


def _build() -> dict[str, Entry]:
    table: dict[str, Entry] = {}
    for path, signature in SIGNATURES.items():
        table[path] = Entry(path, Kind.OP, "", signature)
    for entry in _WRITTEN:
        table[entry.path] = entry
    for path, doc in _NAMESPACES.items():
        table[path] = Entry(path, Kind.NAMESPACE, doc)
    for path, spec in ENUMS.items():
        table[path] = Entry(path, Kind.ENUM, spec.doc)
        for member in spec.members:
            table[f"{path}.{member.name}"] = Entry(f"{path}.{member.name}", Kind.MEMBER, member.doc)
    for dtype in DTYPES:
        table[f"pl.{dtype}"] = Entry(f"pl.{dtype}", Kind.DTYPE, f"Data type {dtype}.")
    for layout in LAYOUTS:
        table[f"pl.{layout}"] = Entry(f"pl.{layout}", Kind.LAYOUT, f"`pl.TensorLayout.{layout}`.")
    return table


TABLE: dict[str, Entry] = _build()


def entry(path: str) -> Entry | None:
    """The entry of a dotted path (`pl.Mem.Vec` reads as `pl.MemorySpace.Vec`)."""
    found = TABLE.get(path)
    if found is None and path.startswith("pl.Mem."):
        return TABLE.get("pl.MemorySpace." + path.removeprefix("pl.Mem."))
    return found


# `pld.<name>`: the ops `pypto.language.distributed` re-exports from its categories
# (`unified_ops.py`); `pld.remote_store` has a signature of its own
PLD_SHORTCUTS = {
    "pld.get_comm_ctx": "pld.system.get_comm_ctx",
    "pld.nranks": "pld.system.nranks",
    "pld.rank": "pld.system.rank",
    "pld.world_size": "pld.system.world_size",
    "pld.alloc_window_buffer": "pld.tensor.alloc_window_buffer",
    "pld.window": "pld.tensor.window",
    "pld.remote_load": "pld.tile.remote_load",
}


_PLD_CATEGORIES = ("pld.system.", "pld.tensor.", "pld.tile.")


def unknown_pld_op(path: str) -> bool:
    """Whether `path` (`pld.tile.no_such_op`, `pld.foo`) names nothing the distributed DSL
    defines: the parser's "Unknown distributed operation". Private names (`_x`) are not
    judged (the modules hold helpers the table does not list)."""
    name = path.rsplit(".", 1)[-1]
    if name.startswith("_") or path in TABLE or path in PLD_SHORTCUTS:
        return False
    return path.startswith(_PLD_CATEGORIES) or path.count(".") == 1


def _op_entry(path: str) -> Entry | None:
    found = TABLE.get(PLD_SHORTCUTS.get(path, path))
    return found if found is not None and found.kind is Kind.OP and found.signature is not None else None


def signature_text(path: str) -> str:
    """The parameter list of op `path` as a signature shows it (empty for no op)."""
    found = _op_entry(path)
    return ", ".join(p.text for p in found.params) if found is not None else ""


def binding_problem(path: str, positional: int, keywords: Sequence[str]) -> str | None:
    """Python's TypeError for calling op `path` with `positional` arguments and these keyword
    names, in Python's words (`remote_load() missing 1 required positional argument:
    'target'`), or None when they bind or `path` is no op of the table. The compiler's parser
    calls the op's function with the call's arguments (`attrs=` aside), so a call that does not
    bind is its InvalidOperationError."""
    found = _op_entry(path)
    if found is None:
        return None
    params = found.params
    name = found.name
    ordered = [p for p in params if not p.keyword_only and not p.star]
    if positional > len(ordered) and not any(p.star == "*" for p in params):
        required = sum(1 for p in ordered if p.default is None)
        takes = str(len(ordered)) if required == len(ordered) else f"from {required} to {len(ordered)}"
        plural = "" if takes == "1" else "s"
        given = "was" if positional == 1 else "were"
        return f"{name}() takes {takes} positional argument{plural} but {positional} {given} given"
    named = {p.name: p for p in params if not p.star}
    for keyword in keywords:
        param = named.get(keyword)
        if param is None and not any(p.star == "**" for p in params):
            return f"{name}() got an unexpected keyword argument '{keyword}'"
        if param is not None and param in ordered[:positional]:
            return f"{name}() got multiple values for argument '{keyword}'"
    bound = {p.name for p in ordered[:positional]} | set(keywords)
    for kind, group in (("positional", ordered), ("keyword-only", [p for p in params if p.keyword_only])):
        missing = [p.name for p in group if p.default is None and not p.star and p.name not in bound]
        if missing:
            quoted = [f"'{m}'" for m in missing]
            listed = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
            plural = "" if len(missing) == 1 else "s"
            return f"{name}() missing {len(missing)} required {kind} argument{plural}: {listed}"
    return None


def unexpected_keyword(path: str, keyword: str) -> str | None:
    """Python's TypeError for calling op `path` with a keyword it does not take, or None
    (it takes it, takes `**kwargs`, or `path` is no op of the table)."""
    found = _op_entry(path)
    if found is None or any(p.star == "**" or (p.name == keyword and not p.star) for p in found.params):
        return None
    return f"{found.name}() got an unexpected keyword argument '{keyword}'"


@functools.lru_cache(maxsize=64)
def members(namespace: str) -> tuple[Entry, ...]:
    """Every entry directly under `namespace` (`pl`, `pl.tile`, `pl.Level`, `pl.jit`), by name
    (an enum's members in their declared order)."""
    if namespace == "pl.Mem":
        namespace = "pl.MemorySpace"
    prefix = namespace + "."
    found = [e for p, e in TABLE.items() if p.startswith(prefix) and "." not in p[len(prefix) :]]
    if namespace in ENUMS:
        return tuple(found)  # members in declaration order (canonical levels before aliases)
    return tuple(sorted(found, key=lambda e: e.name))
