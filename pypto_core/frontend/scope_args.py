"""Arguments of the scope constructs (`pl.at`, `pl.spmd`, `pl.cluster`, `pl.graph`,
`pl.split_aiv`, `pl.set_cache_policy`) and their parser-level errors (dsl-reference §2.3).

Each parser validates what the compiler's parser validates, reports every problem it finds
(never only the first) and still returns usable arguments, so a scope with a bad keyword is
built, outlined and named like any other.

Codes the compiler raises that §2.3 does not number yet: PTO126 predicate shape, PTO127
predicate producer missing from `deps=`, PTO132 runtime-scope arguments (PTO133/PTO134, the
AUTO-scope placement rules, are checked in `scopes`).
"""

from __future__ import annotations

import ast
import keyword
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeVar

from ..ir import (
    LEVEL_ALIASES,
    UNKNOWN,
    CachePolicy,
    CachePolicyDecl,
    Expr,
    Level,
    Role,
    SplitMode,
    TensorType,
    Var,
)
from ..span import Span
from .body_state import BodyState
from .context import PL
from .deps import check_deps
from .exprs import build_expr
from .launch_args import check_core_num

E = TypeVar("E")

AT_KEYWORDS = (
    "level",
    "role",
    "optimizations",
    "deps",
    "no_dep_args",
    "dumps",
    "allow_early_resolve",
    "name_hint",
    "windowize",
    "predicate",
)
SPMD_KEYWORDS = (
    "core_num",
    "sync_start",
    "name_hint",
    "optimizations",
    "deps",
    "allow_early_resolve",
    "predicate",
)
LOOP_ONLY_KEYWORDS = ("init_values", "chunk", "chunk_policy", "attrs", "step", "stage")


@dataclass
class ScopeArgs:
    """The parsed arguments of one scope construct; fields a construct lacks keep defaults."""

    level: Level | None = None
    role: Role | None = None
    role_where: ast.AST | None = None  # the `role=` keyword, or the positional role argument
    split: SplitMode | None = None
    slot_num: int | None = None
    optimizations: list[ast.expr] = field(default_factory=list)  # the entries written
    optimizations_node: ast.expr | None = None
    windowize: bool = False
    allow_early_resolve: bool = False
    deps: list[Expr] = field(default_factory=list)
    no_dep_args: list[Var] = field(default_factory=list)
    dump_vars: list[Var] = field(default_factory=list)
    predicate: Expr | None = None
    predicate_node: ast.keyword | None = None
    name_hint: str = ""
    name_span: Span | None = None
    legacy_optimization: bool = False
    core_num: Expr | None = None
    sync_start: bool = False


# -- shared pieces -----------------------------------------------------------------------------


def parse_enum(state: BodyState, node: ast.expr, enum: str, members: dict[str, E]) -> E | None:
    """`pl.<enum>.<member>` -> the member (PTO114 otherwise)."""
    path = state.dsl_path(node)
    if path is None or path[0] != PL or len(path) != 3 or path[1] != enum:
        state.error("PTO114", f"Expected pl.{enum}.<name>", node, hint=f"valid names: {', '.join(members)}")
        return None
    if path[2] not in members:
        state.error(
            "PTO114", f"Unknown {enum} value: {path[2]}", node, hint=f"valid names: {', '.join(members)}"
        )
        return None
    return members[path[2]]


def enum_members(enum: type[Enum]) -> dict[str, Any]:
    return {member.value: member for member in enum}


def bool_literal(state: BodyState, kw: ast.keyword, construct: str, code: str) -> bool:
    if isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, bool):
        return kw.value.value
    state.error(
        code,
        f"{construct} {kw.arg} must be a boolean literal (True/False)",
        kw.value,
        hint=f"write {kw.arg}=True or {kw.arg}=False",
    )
    return False


def name_hint(state: BodyState, node: ast.expr, construct: str, args: ScopeArgs) -> None:
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        state.error(
            "PTO116",
            f"{construct} 'name_hint' argument must be a string literal",
            node,
            hint='write the name as a literal, e.g. name_hint="attn"',
        )
        return
    text = node.value
    args.name_span = state.span(node)
    if text and (not text.isidentifier() or keyword.iskeyword(text)):
        state.error(
            "PTO117",
            f"'name_hint' must be a valid non-keyword identifier, got '{text}'",
            node,
            hint="use letters, digits and underscores, not starting with a digit",
        )
        return
    args.name_hint = text


def positional_overflow(state: BodyState, call: ast.Call, limit: int) -> Span | None:
    """The span of the positional arguments past `limit`, if any."""
    if len(call.args) <= limit:
        return None
    return state.span_between(call.args[limit], call.args[-1])


def parse_deps(state: BodyState, node: ast.expr, construct: str) -> list[Expr]:
    """The entries of a `deps=` list, checked (`deps.check_deps`); a comprehension's entries
    are not known here (the parser unrolls it), an undefined name is left out."""
    check_deps(state, node, construct)
    if isinstance(node, ast.ListComp):
        return []
    if not isinstance(node, (ast.List, ast.Tuple)):
        return [build_expr(state, node)]
    return [
        build_expr(state, entry)
        for entry in node.elts
        if not isinstance(entry, ast.ListComp)
        and not (isinstance(entry, ast.Name) and entry.id not in state.variables)
    ]


def parse_tensor_list(state: BodyState, node: ast.expr, name: str, construct: str) -> list[Var]:
    """`no_dep_args=[t, ...]` / `dumps=[t, ...]`: distinct bare names of tensors (PTO123)."""
    if not isinstance(node, (ast.List, ast.Tuple)):
        state.error("PTO123", f"{construct} {name}= must be a list or tuple literal", node)
        return []
    result: list[Var] = []
    for entry in node.elts:
        if not isinstance(entry, ast.Name):
            state.error("PTO123", f"{construct} {name}= entries must be bare tensor names", entry)
            continue
        var = state.variables.get(entry.id)
        if var is None:
            state.error("PTO123", f"{construct} {name}= entry '{entry.id}' is not defined", entry)
            continue
        entry_type = state.type_of_name(entry.id)
        if entry_type != UNKNOWN and not isinstance(entry_type, TensorType):
            state.error("PTO123", f"{construct} {name}= entry '{entry.id}' is not a tensor", entry)
            continue
        if var in result:
            state.error("PTO123", f"{construct} {name}= lists '{entry.id}' more than once", entry)
            continue
        result.append(var)
    return result


# -- optimizations=[...] -----------------------------------------------------------------------


def parse_optimizations(state: BodyState, node: ast.expr, construct: str, args: ScopeArgs) -> None:
    args.optimizations_node = node
    if not isinstance(node, ast.List):
        state.error(
            "PTO118",
            f"{construct.removesuffix('()')}(optimizations=...) must be a list literal",
            node,
            hint="write optimizations=[pl.split(pl.SplitMode.UP_DOWN)]",
        )
        return
    seen: set[str] = set()
    for entry in node.elts:
        args.optimizations.append(entry)
        path = state.dsl_path(entry.func) if isinstance(entry, ast.Call) else None
        kind = path[-1] if path and path[0] == PL and path[1:-1] in ((), ("optimizations",)) else None
        if kind not in ("split", "cross_core_slot") or not isinstance(entry, ast.Call):
            state.error(
                "PTO119",
                f"Unsupported entry in {construct.removesuffix('()')}(optimizations=[...])",
                entry,
                hint="use pl.split(pl.SplitMode.<mode>) or pl.cross_core_slot(slot_num=N)",
            )
            continue
        if kind in seen:
            state.error("PTO119", f"Duplicate 'pl.{kind}(...)' in optimizations=[...]", entry)
            continue
        seen.add(kind)
        if kind == "split":
            _split_entry(state, entry, args)
        else:
            _cross_core_slot_entry(state, entry, args)


def _split_entry(state: BodyState, entry: ast.Call, args: ScopeArgs) -> None:
    if len(entry.args) != 1:
        state.error("PTO119", "pl.split() takes exactly one positional argument (mode)", entry)
    else:
        args.split = parse_enum(state, entry.args[0], "SplitMode", enum_members(SplitMode))
    for kw in entry.keywords:
        if kw.arg == "slot_num":
            state.info(
                "PTO603",
                "pl.split(mode, slot_num=N) is deprecated",
                kw,
                hint="write pl.cross_core_slot(slot_num=N) as its own optimizations= entry",
            )
            _set_slot_num(state, kw.value, args)
        else:
            state.error("PTO119", f"pl.split() got unexpected keyword argument '{kw.arg}'", kw)


def _cross_core_slot_entry(state: BodyState, entry: ast.Call, args: ScopeArgs) -> None:
    if entry.args:
        state.error(
            "PTO119",
            "pl.cross_core_slot() takes no positional arguments",
            state.span_between(entry.args[0], entry.args[-1]),
            hint="write pl.cross_core_slot(slot_num=N)",
        )
    slot = None
    for kw in entry.keywords:
        if kw.arg == "slot_num":
            slot = kw
        else:
            state.error("PTO119", f"pl.cross_core_slot() got unexpected keyword argument '{kw.arg}'", kw)
    if slot is None:
        state.error("PTO119", "pl.cross_core_slot() requires slot_num=", entry, hint="write slot_num=N")
        return
    _set_slot_num(state, slot.value, args)


def _set_slot_num(state: BodyState, node: ast.expr, args: ScopeArgs) -> None:
    if args.slot_num is not None:
        state.error("PTO119", "optimizations=[...] sets the cross-core slot count twice", node)
        return
    value = node.value if isinstance(node, ast.Constant) else None
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        state.error("PTO119", "slot_num must be a positive integer literal", node)
        return
    args.slot_num = value


# -- pl.at -------------------------------------------------------------------------------------


def parse_at(state: BodyState, call: ast.Call) -> ScopeArgs:
    args = ScopeArgs()
    construct = "pl.at()"
    overflow = positional_overflow(state, call, 2)
    if overflow is not None:
        state.error("PTO110", f"pl.at() takes at most 2 positional arguments, got {len(call.args)}", overflow)
    level_node = call.args[0] if call.args else None
    role_node = call.args[1] if len(call.args) > 1 else None
    for kw in call.keywords:
        if kw.arg is None:
            state.error("PTO113", "Unsupported **kwargs in pl.at()", kw, hint=_at_keywords_hint())
        elif (kw.arg == "level" and level_node is not None) or (kw.arg == "role" and role_node is not None):
            state.error("PTO112", f"pl.at() got multiple values for argument '{kw.arg}'", kw)
        elif kw.arg == "level":
            level_node = kw.value
        elif kw.arg == "role":
            role_node = kw.value
            args.role_where = kw
        elif kw.arg == "optimization":
            args.legacy_optimization = True
            state.info(
                "PTO603",
                "pl.at(..., optimization=...) is a legacy form, read as an InCore scope",
                kw,
                hint="write pl.at(level=pl.Level.CORE_GROUP, optimizations=[...])",
            )
        elif kw.arg == "predicate":
            args.predicate = build_expr(state, kw.value)
            args.predicate_node = kw
        else:
            _common_keyword(state, kw, construct, args, bool_code="PTO115", unknown_code="PTO113")
    if level_node is None:
        state.error(
            "PTO111", "pl.at() requires a level argument", call, hint="write level=pl.Level.CORE_GROUP"
        )
    else:
        args.level = parse_enum(state, level_node, "Level", LEVEL_ALIASES)
    if role_node is not None:
        args.role_where = args.role_where or role_node
        args.role = parse_enum(state, role_node, "Role", enum_members(Role))
    _check_at_level(state, args)
    return args


def _at_keywords_hint() -> str:
    return "valid keywords: " + ", ".join(AT_KEYWORDS)


def _common_keyword(
    state: BodyState, kw: ast.keyword, construct: str, args: ScopeArgs, *, bool_code: str, unknown_code: str
) -> None:
    """Keywords `pl.at` and `pl.spmd` share; anything else is reported as unknown."""
    if kw.arg in ("allow_early_resolve", "windowize", "sync_start"):
        value = bool_literal(state, kw, construct, bool_code)
        setattr(args, kw.arg, value)
    elif kw.arg == "name_hint":
        name_hint(state, kw.value, construct, args)
    elif kw.arg == "optimizations":
        parse_optimizations(state, kw.value, construct, args)
    elif kw.arg == "deps":
        args.deps = parse_deps(state, kw.value, construct)
    elif kw.arg == "no_dep_args":
        args.no_dep_args = parse_tensor_list(state, kw.value, "no_dep_args", construct)
    elif kw.arg == "dumps":
        args.dump_vars = parse_tensor_list(state, kw.value, "dumps", construct)
    elif unknown_code == "PTO113":
        state.error("PTO113", f"Unknown keyword argument '{kw.arg}' in pl.at()", kw, hint=_at_keywords_hint())
    else:
        state.error(
            unknown_code,
            f"{construct} got unexpected keyword argument '{kw.arg}'",
            kw,
            hint="valid keywords: " + ", ".join(SPMD_KEYWORDS),
        )


def _check_at_level(state: BodyState, args: ScopeArgs) -> None:
    incore = args.level is Level.CORE_GROUP or args.level is None
    if not incore:
        for entry in args.optimizations:
            state.error(
                "PTO120",
                "optimizations=[pl.split(...)] / optimizations=[pl.cross_core_slot(...)] are only "
                "supported with level=pl.Level.CORE_GROUP",
                entry,
                hint="remove the entry or use level=pl.Level.CORE_GROUP",
            )
        if args.predicate_node is not None:
            state.error(
                "PTO124",
                "pl.at(predicate=...) is only supported with level=pl.Level.CORE_GROUP; "
                "the predicate would be silently dropped",
                args.predicate_node,
            )
    if args.role_where is not None and args.level is Level.CORE_GROUP:
        state.error(
            "PTO121",
            "role= is not supported with level=pl.Level.CORE_GROUP",
            args.role_where,
            hint="remove role=",
        )
    elif args.role is Role.SubWorker and args.role_where is not None:
        state.error(
            "PTO122",
            "Inline 'with pl.at(level=..., role=pl.Role.SubWorker)' is not supported.",
            args.role_where,
            hint="declare a SubWorker via @pl.function(level=..., role=pl.Role.SubWorker) "
            "as a function without `self`",
        )


# -- pl.cluster / pl.graph ---------------------------------------------------------------------


def parse_cluster(state: BodyState, call: ast.Call) -> ScopeArgs:
    args = ScopeArgs()
    if call.args:
        state.error(
            "PTO130",
            "pl.cluster() does not accept positional arguments",
            state.span_between(call.args[0], call.args[-1]),
            hint='write pl.cluster(name_hint="...")',
        )
    for kw in call.keywords:
        if kw.arg == "name_hint":
            name_hint(state, kw.value, "pl.cluster()", args)
        else:
            shown = kw.arg if kw.arg is not None else "**"
            state.error(
                "PTO131",
                f"pl.cluster() got unexpected keyword argument '{shown}'",
                kw,
                hint="pl.cluster() takes only name_hint=",
            )
    return args


def parse_graph(state: BodyState, call: ast.Call) -> ScopeArgs:
    args = ScopeArgs()
    hint = 'write pl.graph("region_name")'
    if len(call.args) != 1 or call.keywords:
        extra: Span = state.span(call)
        if len(call.args) > 1:
            extra = state.span_between(call.args[1], call.args[-1])
        elif call.keywords:
            extra = state.span_between(call.keywords[0], call.keywords[-1])
        state.error(
            "PTO140", "pl.graph() takes exactly one positional argument (the region name)", extra, hint=hint
        )
    if not call.args:
        return args
    node = call.args[0]
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        state.error("PTO141", "pl.graph() name must be a string literal", node, hint=hint)
        return args
    args.name_span = state.span(node)
    if not node.value:
        state.error("PTO142", "pl.graph() name must not be empty", node, hint=hint)
    elif not node.value.isidentifier() or keyword.iskeyword(node.value):
        state.error(
            "PTO143",
            f"pl.graph() name must be a valid Python identifier, got '{node.value}'",
            node,
            hint="use letters, digits and underscores, not starting with a digit",
        )
    else:
        args.name_hint = node.value
    return args


# -- pl.scope / pl.manual_scope ---------------------------------------------------------------


def parse_runtime(state: BodyState, call: ast.Call, *, alias: bool) -> tuple[str, ScopeArgs]:
    """`pl.scope(mode=..., name_hint=...)` / `pl.manual_scope(name_hint=...)`: (mode, args)."""
    construct = "pl.manual_scope()" if alias else "pl.scope()"
    args = ScopeArgs()
    mode = "MANUAL" if alias else "AUTO"
    allowed = ("name_hint",) if alias else ("mode", "name_hint")
    if call.args:
        state.error(
            "PTO132",
            f"{construct} does not accept positional arguments",
            state.span_between(call.args[0], call.args[-1]),
            hint="write pl.scope(mode=pl.ScopeMode.MANUAL)" if not alias else "remove the arguments",
        )
    for kw in call.keywords:
        if kw.arg == "name_hint":
            name_hint(state, kw.value, construct, args)
        elif kw.arg == "mode" and not alias:
            member = parse_enum(state, kw.value, "ScopeMode", {"AUTO": "AUTO", "MANUAL": "MANUAL"})
            mode = member or mode
        else:
            shown = kw.arg if kw.arg is not None else "**"
            state.error(
                "PTO132",
                f"{construct} got unexpected keyword argument '{shown}'",
                kw,
                hint="valid keywords: " + ", ".join(allowed),
            )
    return mode, args


# -- predicate= --------------------------------------------------------------------------------

_COMPARISONS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def predicate_operand(state: BodyState, kw: ast.keyword) -> ast.Name | None:
    """The tensor a `predicate=` reads, after checking its shape: one comparison of one tensor
    element with an integer literal (PTO126)."""
    node = kw.value
    hint = "write predicate=(t[i] > 0): one element of one tensor against an integer literal"
    if isinstance(node, ast.Compare) and len(node.ops) > 1:
        state.error(
            "PTO126", "predicate=: Only simple comparisons (one operator) are supported", node, hint=hint
        )
        return None
    if isinstance(node, ast.Compare) and isinstance(node.ops[0], _COMPARISONS):
        sides = (node.left, node.comparators[0])
        for element, literal in (sides, sides[::-1]):
            value = state.fold(literal)
            if (
                isinstance(element, ast.Subscript)
                and isinstance(element.value, ast.Name)
                and isinstance(value, int)
                and not isinstance(value, bool)
            ):
                operand_type = state.type_of_name(element.value.id)
                if operand_type == UNKNOWN or isinstance(operand_type, TensorType):
                    return element.value
    state.error(
        "PTO126",
        "predicate= must compare one tensor element with an integer literal",
        node,
        hint=hint,
    )
    return None


# -- pl.spmd -----------------------------------------------------------------------------------


def parse_spmd(state: BodyState, call: ast.Call, *, loop_form: bool) -> ScopeArgs:
    args = ScopeArgs()
    construct = "pl.spmd()"
    overflow = positional_overflow(state, call, 1)
    if overflow is not None:
        state.error("PTO150", "pl.spmd() accepts at most one positional argument (core_num)", overflow)
    core_node: ast.expr | None = call.args[0] if call.args else None
    for kw in call.keywords:
        if kw.arg is None:
            state.error("PTO154", "pl.spmd() does not accept **kwargs", kw, hint="spell out each keyword")
        elif kw.arg == "core_num":
            if core_node is not None:
                state.error("PTO151", "pl.spmd() got multiple values for argument 'core_num'", kw)
            else:
                core_node = kw.value
        elif kw.arg in LOOP_ONLY_KEYWORDS and loop_form:
            state.error(
                "PTO162", f"pl.spmd() loop form does not accept '{kw.arg}='", kw, hint=f"remove {kw.arg}="
            )
        elif kw.arg == "predicate":
            args.predicate = build_expr(state, kw.value)
            args.predicate_node = kw
        elif kw.arg in ("windowize", "no_dep_args", "dumps"):
            state.error("PTO154", f"pl.spmd() got unexpected keyword argument '{kw.arg}'", kw)
        else:
            _common_keyword(state, kw, construct, args, bool_code="PTO153", unknown_code="PTO154")
    if core_node is None:
        state.error(
            "PTO151",
            "pl.spmd() requires core_num (first positional argument)",
            call,
            hint="write pl.spmd(<number of blocks>)",
        )
    else:
        args.core_num = _core_num(state, core_node)
    return args


def _core_num(state: BodyState, node: ast.expr) -> Expr:
    core = build_expr(state, node)
    check_core_num(state, core, node)
    return core


# -- pl.split_aiv ------------------------------------------------------------------------------


def parse_split_aiv(state: BodyState, call: ast.Call) -> ScopeArgs:
    args = ScopeArgs()
    if len(call.args) != 1:
        where = state.span_between(call.args[1], call.args[-1]) if len(call.args) > 1 else state.span(call)
        state.error(
            "PTO174",
            f"pl.split_aiv() takes exactly one positional argument (n), got {len(call.args)}",
            where,
            hint="write pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN)",
        )
    elif state.fold(call.args[0]) != 2:
        state.error("PTO174", "pl.split_aiv(n) requires n == 2 (one region per AIV core)", call.args[0])
    mode = None
    for kw in call.keywords:
        if kw.arg == "mode":
            mode = kw
        elif kw.arg in LOOP_ONLY_KEYWORDS:
            state.error("PTO173", f"pl.split_aiv() loop form does not accept '{kw.arg}='", kw)
        elif kw.arg == "optimizations":
            state.error(
                "PTO173",
                "pl.split_aiv() does not accept 'optimizations=' — pl.split_aiv() IS the split declaration",
                kw,
            )
        else:
            shown = kw.arg if kw.arg is not None else "**"
            state.error("PTO176", f"pl.split_aiv() got unexpected keyword argument '{shown}'", kw)
    if mode is None:
        state.error(
            "PTO175",
            "pl.split_aiv() requires mode=",
            call,
            hint="write mode=pl.SplitMode.UP_DOWN or mode=pl.SplitMode.LEFT_RIGHT",
        )
    else:
        args.split = parse_enum(state, mode.value, "SplitMode", enum_members(SplitMode))
    return args


# -- pl.set_cache_policy -----------------------------------------------------------------------


def parse_cache_policy(
    state: BodyState, stmt: ast.Expr, entry_vars: dict[str, Var]
) -> CachePolicyDecl | None:
    """A `pl.set_cache_policy(t, pl.CachePolicy.X)` statement, keyed by `t`'s variable at scope
    entry (PTO182-185)."""
    call = stmt.value
    assert isinstance(call, ast.Call)
    if len(call.args) != 2 or call.keywords:
        state.error(
            "PTO182",
            "pl.set_cache_policy() takes exactly two positional arguments (no keywords)",
            call,
            hint="write pl.set_cache_policy(t, pl.CachePolicy.BYPASS)",
        )
        return None
    target, policy_node = call.args
    if not isinstance(target, ast.Name):
        state.error("PTO183", "pl.set_cache_policy() first argument must be a bare variable name", target)
        return None
    var = entry_vars.get(target.id)
    if var is None:
        state.error(
            "PTO184",
            f"pl.set_cache_policy() argument '{target.id}' is not defined at this point",
            target,
            hint="name a tensor defined before the scope starts",
        )
        return None
    if var.type != UNKNOWN and not isinstance(var.type, TensorType):
        state.error("PTO185", f"pl.set_cache_policy() argument '{target.id}' is not a tensor", target)
        return None
    policy = parse_enum(state, policy_node, "CachePolicy", enum_members(CachePolicy))
    if policy is None:
        return None
    return CachePolicyDecl(var, policy, state.span(stmt))
