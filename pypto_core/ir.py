"""The IR: what the front end builds, ConvertToSSA versions and the outliners rewrite.

Names follow the compiler's IR vocabulary (AssignStmt, ScopeStmt, ...) so the spec reads
directly onto this code. Invariants:

* `Var` (and `IterArg`) compare by identity. Pre-SSA, one `Var` object stands for one source
  name within a function (rebinding reuses it); ConvertToSSA replaces them with versioned
  `Var`s (`x__ssa_v0`). Everything user-facing shows `base_name` (D11).
* Types compare by value (the outliner compares an output's type with a parameter's).
* Every node carries a `Span` into the source file; nodes the passes create carry the span of
  the construct they came from.
* A `Program`'s functions are kept in a list sorted by name (the compiler's map order); use
  `Program.add` / `Program.replace` to keep it so.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from operator import attrgetter, is_
from typing import Any, TypeVar

from .span import NO_SPAN, Span

# ---------------------------------------------------------------------------------------------
# Enumerations


class FunctionType(str, Enum):
    Opaque = "Opaque"
    Orchestration = "Orchestration"
    InCore = "InCore"
    AIC = "AIC"
    AIV = "AIV"
    Group = "Group"
    Spmd = "Spmd"
    Inline = "Inline"
    Graph = "Graph"

    @property
    def is_device(self) -> bool:
        return self in DEVICE_TYPES

    @property
    def is_orchestration_like(self) -> bool:
        return self in (FunctionType.Orchestration, FunctionType.Graph)


DEVICE_TYPES = frozenset(
    {FunctionType.InCore, FunctionType.AIC, FunctionType.AIV, FunctionType.Group, FunctionType.Spmd}
)


class Level(str, Enum):
    """`pl.Level` canonical members; `LEVEL_ALIASES` maps the alias spellings onto them."""

    AIV = "AIV"
    AIC = "AIC"
    CORE_GROUP = "CORE_GROUP"
    CHIP_DIE = "CHIP_DIE"
    CHIP = "CHIP"
    HOST = "HOST"
    CLUSTER_0 = "CLUSTER_0"
    CLUSTER_1 = "CLUSTER_1"
    CLUSTER_2 = "CLUSTER_2"
    GLOBAL = "GLOBAL"

    @property
    def suffix(self) -> str:
        """The name component used by hierarchy outlining (`main_cluster0_orch_0`)."""
        return _LEVEL_SUFFIX[self]

    @property
    def linqu(self) -> int:
        return _LEVEL_LINQU[self]


_LEVEL_SUFFIX = {
    Level.AIV: "aiv",
    Level.AIC: "aic",
    Level.CORE_GROUP: "core_group",
    Level.CHIP_DIE: "chip_die",
    Level.CHIP: "chip",
    Level.HOST: "host",
    Level.CLUSTER_0: "cluster0",
    Level.CLUSTER_1: "cluster1",
    Level.CLUSTER_2: "cluster2",
    Level.GLOBAL: "global",
}
_LEVEL_LINQU = {
    Level.AIV: 0,
    Level.AIC: 0,
    Level.CORE_GROUP: 0,
    Level.CHIP_DIE: 1,
    Level.CHIP: 2,
    Level.HOST: 3,
    Level.CLUSTER_0: 4,
    Level.CLUSTER_1: 5,
    Level.CLUSTER_2: 6,
    Level.GLOBAL: 7,
}
LEVEL_ALIASES: dict[str, Level] = {m.value: m for m in Level} | {
    "L2CACHE": Level.CHIP_DIE,
    "PROCESSOR": Level.CHIP,
    "UMA": Level.CHIP,
    "NODE": Level.HOST,
    "POD": Level.CLUSTER_0,
    "CLOS1": Level.CLUSTER_1,
    "CLOS2": Level.CLUSTER_2,
}


class Role(str, Enum):
    Orchestrator = "Orchestrator"
    SubWorker = "SubWorker"
    Worker = "Worker"

    @property
    def suffix(self) -> str:
        """D1: the seed's suffixes (`orch`, `worker`)."""
        return "orch" if self is Role.Orchestrator else "worker"


class SplitMode(str, Enum):
    NONE = "NONE"
    UP_DOWN = "UP_DOWN"
    LEFT_RIGHT = "LEFT_RIGHT"


class CachePolicy(str, Enum):
    DEFAULT = "DEFAULT"
    BYPASS = "BYPASS"

    @property
    def as_int(self) -> int:
        return 0 if self is CachePolicy.DEFAULT else 1


class Direction(str, Enum):
    In = "In"
    Out = "Out"
    InOut = "InOut"


class ScopeKind(str, Enum):
    InCore = "InCore"
    Hierarchy = "Hierarchy"
    Cluster = "Cluster"
    Graph = "Graph"
    Spmd = "Spmd"
    SplitAiv = "SplitAiv"
    Runtime = "Runtime"


class ForKind(str, Enum):
    Range = "range"
    Parallel = "parallel"
    Unroll = "unroll"
    Pipeline = "pipeline"


# ---------------------------------------------------------------------------------------------
# Types

Dim = int | str
"""A shape extent: an integer, or the source text of a symbolic extent (`M`, `N * 2`)."""


class Symbol(str):
    """An extent that is a `pl.dynamic` symbol (`M`): the compiler's DynVar, a variable its SSA
    verifier scopes (`passes/symbol_scope.py`). Equal to, hashed and printed as its name, so
    types compare as before."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class TensorType:
    """`distributed`: whether the value is window-bound (`pld.DistributedTensor[...]`, True) or
    certainly not (a `pl.Tensor[...]` annotation, False); None when not known (an op's result).
    Only the op argument rules read it (`ops.argument_problems`): it is no part of the type's
    value, so types compare and print as before."""

    shape: tuple[Dim, ...] | None  # None: bare `pl.Tensor` (jit), shape comes from the call
    dtype: str | None
    layout: str | None = None
    distributed: bool | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class TileType:
    shape: tuple[Dim, ...] | None
    dtype: str | None


@dataclass(frozen=True, slots=True)
class ScalarType:
    dtype: str  # "INDEX", "INT32", "FP32", "BOOL", "TASK_ID", ...

    @property
    def is_task_id(self) -> bool:
        return self.dtype == "TASK_ID"


@dataclass(frozen=True, slots=True)
class ArrayType:
    size: Dim
    dtype: str


@dataclass(frozen=True, slots=True)
class TupleType:
    elements: tuple[Type, ...]


@dataclass(frozen=True, slots=True)
class HandleType:
    """An opaque handle one op returns and others take (`pl.prefetch`'s `PrefetchAsyncContext`,
    `AsyncEvent`, `AsyncSession`): only which kind it is matters, to the op argument rules."""

    name: str


@dataclass(frozen=True, slots=True)
class UnknownType:
    """A value whose type the static front end cannot tell (an unknown op's result)."""


Type = TensorType | TileType | ScalarType | ArrayType | TupleType | HandleType | UnknownType
UNKNOWN = UnknownType()
INDEX = ScalarType("INDEX")
TASK_ID = ScalarType("TASK_ID")


# ---------------------------------------------------------------------------------------------
# Expressions


SPLICE_SUFFIX = "_inline"  # InlineFunctions names a helper's local `x` in a caller `x_inline<N>`


def strip_splice_suffix(name: str) -> str:
    """`x` for `x_inline<N>` (a spliced helper local) and for `x_inline<N>_inline<M>` (a helper
    spliced into a helper that was spliced in turn); any other name unchanged."""
    while True:
        stem, sep, counter = name.rpartition(SPLICE_SUFFIX)
        if not (sep and stem and counter.isdigit()):
            return name
        name = stem


@dataclass(eq=False)
class Var:
    """A variable. Identity is the variable: two `Var`s with one name are different variables."""

    name: str
    type: Type = UNKNOWN
    span: Span = NO_SPAN

    @property
    def base_name(self) -> str:
        """The user's name (`out` for `out__ssa_v1`, `n0` for the spliced copy `n0_inline5` of an
        inline helper's `n0`); what every user-facing surface shows."""
        return strip_splice_suffix(self.name.split("__", 1)[0] or self.name)

    def __repr__(self) -> str:
        return f"Var({self.name})"


@dataclass(eq=False)
class IterArg(Var):
    """A loop-carried variable; `init` is its value on loop entry."""

    init: Expr | None = None

    def __repr__(self) -> str:
        return f"IterArg({self.name})"


@dataclass(eq=False)
class Const:
    value: int | float | bool | str | None
    type: Type = UNKNOWN
    span: Span = NO_SPAN


@dataclass(eq=False)
class BinaryExpr:
    op: str  # Python operator text: "+", "-", "*", "//", "%", "/", "==", "<", "and", ...
    left: Expr
    right: Expr
    type: Type = UNKNOWN
    span: Span = NO_SPAN


@dataclass(eq=False)
class UnaryExpr:
    op: str  # "-", "not", "~", or "cast" (then `cast_dtype` is set)
    operand: Expr
    type: Type = UNKNOWN
    span: Span = NO_SPAN
    cast_dtype: str | None = None


@dataclass(eq=False)
class Call:
    """An op call (`op` = "tile.store") or, when `callee` is set, a call of program function
    `callee` (`self.f(...)` / a jit sub-function). `submit` marks a `pl.submit` launch, whose
    `args` map onto a prefix of the callee's parameters. `attrs` holds call attributes the
    printer shows (`core_num`, `sync_start`, `dump_vars`, `arg_direction_overrides`)."""

    op: str
    args: list[Expr]
    kwargs: dict[str, Expr] = field(default_factory=dict)
    type: Type = UNKNOWN
    span: Span = NO_SPAN
    callee: str | None = None
    submit: bool = False
    attrs: dict[str, Any] = field(default_factory=dict)

    @property
    def is_user_call(self) -> bool:
        return self.callee is not None


@dataclass(eq=False)
class TupleExpr:
    items: list[Expr]
    type: Type = UNKNOWN
    span: Span = NO_SPAN


@dataclass(eq=False)
class ListExpr:
    items: list[Expr]
    type: Type = UNKNOWN
    span: Span = NO_SPAN


@dataclass(eq=False)
class TupleGetItem:
    tuple: Expr
    index: int
    type: Type = UNKNOWN
    span: Span = NO_SPAN


@dataclass(eq=False)
class EnumValue:
    """`pl.FP32`, `pl.AtomicType.Add`, `pl.CachePolicy.BYPASS`: `enum` is "" for dtypes."""

    enum: str
    member: str
    type: Type = UNKNOWN
    span: Span = NO_SPAN


@dataclass(eq=False)
class OpaqueExpr:
    """An expression the front end does not model (a lambda, a comprehension, an attribute of
    an unknown object). It reads `operands`; `text` is its source, for printing (D13)."""

    text: str
    operands: list[Expr] = field(default_factory=list)
    type: Type = UNKNOWN
    span: Span = NO_SPAN


Expr = (
    Var
    | IterArg
    | Const
    | BinaryExpr
    | UnaryExpr
    | Call
    | TupleExpr
    | ListExpr
    | TupleGetItem
    | EnumValue
    | OpaqueExpr
)


# ---------------------------------------------------------------------------------------------
# Statements


@dataclass(eq=False)
class AssignStmt:
    target: Var
    value: Expr
    span: Span = NO_SPAN
    annotation: Type | None = None  # `x: T = ...`


@dataclass(eq=False)
class EvalStmt:
    expr: Expr
    span: Span = NO_SPAN


@dataclass(eq=False)
class ReturnStmt:
    values: list[Expr]
    span: Span = NO_SPAN


@dataclass(eq=False)
class YieldStmt:
    """`r1, r2 = pl.yield_(v1, v2)`: binds the enclosing loop's / if's `return_vars`."""

    values: list[Expr]
    span: Span = NO_SPAN


@dataclass(eq=False)
class BreakStmt:
    span: Span = NO_SPAN


@dataclass(eq=False)
class ContinueStmt:
    span: Span = NO_SPAN


@dataclass(eq=False)
class ForStmt:
    loop_var: Var
    start: Expr
    stop: Expr
    step: Expr
    body: list[Stmt]
    kind: ForKind = ForKind.Range
    iter_args: list[IterArg] = field(default_factory=list)
    return_vars: list[Var] = field(default_factory=list)
    kwargs: dict[str, Expr] = field(default_factory=dict)  # e.g. stage= for pl.pipeline
    span: Span = NO_SPAN


@dataclass(eq=False)
class WhileStmt:
    cond: Expr
    body: list[Stmt]
    iter_args: list[IterArg] = field(default_factory=list)
    return_vars: list[Var] = field(default_factory=list)
    span: Span = NO_SPAN


@dataclass(eq=False)
class IfStmt:
    cond: Expr
    then_body: list[Stmt]
    else_body: list[Stmt] | None = None
    return_vars: list[Var] = field(default_factory=list)
    span: Span = NO_SPAN


@dataclass(eq=False)
class CachePolicyDecl:
    """A `pl.set_cache_policy(t, policy)` hoisted onto its scope (keyed by `var` identity)."""

    var: Var
    policy: CachePolicy
    span: Span = NO_SPAN  # the whole statement, for PTO302/PTO303 and the quick fix


@dataclass(eq=False)
class ScopeStmt:
    """Every scope construct. `span` is the whole `with`/`for`; `header_span` the header
    line's call expression (where lenses and most diagnostics go); `name_span` the name string
    literal when one was written. Fields not meaningful for a kind keep their defaults."""

    kind: ScopeKind
    body: list[Stmt]
    span: Span = NO_SPAN
    header_span: Span = NO_SPAN
    name_hint: str = ""
    name_span: Span | None = None
    level: Level | None = None
    role: Role | None = None
    split: SplitMode | None = None  # None: no pl.split written
    slot_num: int | None = None
    windowize: bool = False
    allow_early_resolve: bool = False
    deps: list[Expr] = field(default_factory=list)
    no_dep_args: list[Var] = field(default_factory=list)
    dump_vars: list[Var] = field(default_factory=list)
    task_id_var: Var | None = None
    predicate: Expr | None = None
    cache_policies: list[CachePolicyDecl] = field(default_factory=list)
    core_num: Expr | None = None  # Spmd
    sync_start: bool = False  # Spmd
    runtime_mode: str | None = None  # Runtime: "AUTO" / "MANUAL"
    # (IR stem, name on screen) for a scope spliced from an inline helper: the caller's
    # variable `cur` (any version `cur__ssa_vN`) is the helper's parameter `hidden_states` where
    # the reader sees the scope. Presentation only: no pass reads it, equality ignores it.
    shown_names: tuple[tuple[str, str], ...] = ()


Stmt = (
    AssignStmt
    | EvalStmt
    | ReturnStmt
    | YieldStmt
    | BreakStmt
    | ContinueStmt
    | ForStmt
    | WhileStmt
    | IfStmt
    | ScopeStmt
)


# ---------------------------------------------------------------------------------------------
# Functions and programs


@dataclass(eq=False)
class Param:
    var: Var
    direction: Direction = Direction.In
    span: Span = NO_SPAN


@dataclass(eq=False)
class Function:
    """`attrs` holds function attributes the passes stamp (`split`, `slot_num`, `windowize`,
    `split_aiv`, `cache_policy` = [(param_index, policy_int)], `spmd_unwrapped`, ...).
    `name_span` is the `def` name; for an outlined function `span` is its scope's span."""

    name: str
    params: list[Param]
    body: list[Stmt]
    return_types: list[Type] = field(default_factory=list)
    type: FunctionType = FunctionType.Opaque
    level: Level | None = None
    role: Role | None = None
    attrs: dict[str, Any] = field(default_factory=dict)
    span: Span = NO_SPAN
    name_span: Span = NO_SPAN
    strict_ssa: bool = False


@dataclass(frozen=True)
class CalleeSignature:
    """What a call site and the passes need to know about a function it calls (D5): the
    declared parameter directions and return types. It is all there is of a function known
    only by its declaration (a same-file `@pl.jit.extern` kernel, whose body is C++).
    `constexpr`: the `BLOCK: pl.constexpr` parameters, as (position among the declared
    parameters, name); they are no `Param` (the compiler folds their call-site value into the
    body and drops them, hw-native-sys/pypto#2764), so a call site drops their arguments.
    `role`: the decorator's (only a call of an Orchestrator may name its `device=`).
    `param_types`: the declared parameter types (a call site unifies their dynamic extents
    with its arguments')."""

    name: str
    type: FunctionType
    param_names: tuple[str, ...]
    directions: tuple[Direction, ...]
    return_types: tuple[Type, ...]
    constexpr: tuple[tuple[int, str], ...] = ()
    role: Role | None = None
    param_types: tuple[Type, ...] = ()

    def __hash__(self) -> int:
        """Its fields' hash, made once: a signature is part of the key of every build that can
        call it (`function_memo`), hashed with its parameter types at every keystroke."""
        found: int | None = self.__dict__.get("_hash")
        if found is None:
            found = hash(
                (
                    self.name,
                    self.type,
                    self.param_names,
                    self.directions,
                    self.return_types,
                    self.constexpr,
                    self.role,
                    self.param_types,
                )
            )
            object.__setattr__(self, "_hash", found)
        return found

    def __getstate__(self) -> dict[str, Any]:
        """Its fields without the kept hash (a string's hash is another in another process)."""
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    @staticmethod
    def of(fn: Function) -> CalleeSignature:
        return CalleeSignature(
            fn.name,
            fn.type,
            tuple(p.var.name for p in fn.params),
            tuple(p.direction for p in fn.params),
            tuple(fn.return_types),
            role=fn.role,
            param_types=tuple(p.var.type for p in fn.params),
        )


@dataclass(frozen=True)
class SplicedHelper:
    """An inline helper of another file, as the diagnostics its spliced body causes in a
    caller name it: its `def` name, its file, and the name's span in that file. `entry`: a
    `@pl.jit` entry a host compiles into its program with what it reaches (its code is shown
    at the host's call as a spliced helper's is), not an inline helper."""

    name: str
    path: str
    name_span: Span
    entry: bool = False


@dataclass(eq=False)
class Program:
    """A `@pl.program` class, or a jit entry together with the functions it reaches.
    `declarations`: the functions it calls that it knows only by their signature. `spliced`:
    the calls at which InlineFunctions spliced a helper of another file (all of its code
    takes the call's span there), by the call statement's span."""

    name: str
    functions: list[Function]
    span: Span = NO_SPAN
    name_span: Span = NO_SPAN
    origin: str = "program"  # "program" | "jit"
    declarations: dict[str, CalleeSignature] = field(default_factory=dict)
    spliced: dict[Span, SplicedHelper] = field(default_factory=dict)
    # a jit program's: the names the specialiser's renames made in its functions (`x_v1`), which
    # its errors name as written (`frontend/jit_messages.py`); the front end's program only
    aliases: tuple[str, ...] = ()  # sorted

    def __post_init__(self) -> None:
        self.functions.sort(key=_NAME)  # byte order: a `str`'s order is its UTF-8 bytes'

    def get(self, name: str) -> Function | None:
        """The first function named `name`, found by bisection (the functions are sorted by
        name): the outliners look a callee up for each call they meet, and a scan over a
        program of hundreds of outlined functions was 355,000 name comparisons in a cold
        analysis of two real deepseek models."""
        functions = self.functions
        at = bisect.bisect_left(functions, name, key=_NAME)
        if at < len(functions) and functions[at].name == name:
            return functions[at]
        return None

    def add(self, fn: Function) -> None:
        """Insert keeping the order (after functions of the same name, as a stable sort would):
        re-sorting on every add made outlining 10,000 scopes quadratic."""
        bisect.insort_right(self.functions, fn, key=_NAME)

    def add_all(self, functions: Sequence[Function]) -> None:
        """`add` each of `functions` in turn, as one stable sort (a pass mints hundreds), by
        the names as `str`: their order is their UTF-8 bytes' (code points compare as
        their UTF-8 encodings do)."""
        self.functions += functions
        self.functions.sort(key=_NAME)

    def replace(self, fn: Function) -> None:
        self.functions = [fn if f.name == fn.name else f for f in self.functions]


_Node = TypeVar("_Node")


def copy_with(node: _Node, **changes: Any) -> _Node:
    """A shallow copy of an IR node with some fields replaced: how the passes rewrite (they
    never modify a node they did not create). Cheaper than `dataclasses.replace` (no
    `__init__` re-run), which matters: ConvertToSSA rebuilds every node of every function."""
    fields = node.__dict__.copy()
    fields.update(changes)
    new = object.__new__(type(node))
    new.__dict__ = fields
    return new


def same_items(old: Sequence[object], new: Sequence[object]) -> bool:
    """Whether `new` holds the objects of `old`, element by element: a copy-on-write rewrite of
    a list changed nothing in it (so the node holding it is kept)."""
    return len(old) == len(new) and all(map(is_, old, new))


def same_blocks(old: Sequence[list[Stmt]], new: Sequence[list[Stmt]]) -> bool:
    """`same_items` for each of a statement's blocks (`old`) and their rewrites (`new`)."""
    return len(old) == len(new) and all(same_items(a, b) for a, b in zip(old, new, strict=True))


def same_values(old: Mapping[str, object], new: Mapping[str, object]) -> bool:
    """Whether `new`, a rewrite of each value of `old` under its key, holds `old`'s objects."""
    return all(new[k] is v for k, v in old.items())


_NAME = attrgetter("name")
