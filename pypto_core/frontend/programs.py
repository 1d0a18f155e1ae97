"""Assembling IR programs from units: a `@pl.program` class, or a jit entry with the decorated
functions it reaches, plus the `@pl.inline` helpers they call (spliced away before returning).

Which units make a program is decided first (`program_plans`, cheap, from syntax trees only) so
the incremental analysis can tell from a plan's fingerprint whether a program must be rebuilt.

jit grouping (dsl-reference §1.2): a `@pl.jit` entry (or `@pl.jit.host`, which also reaches
plain `@pl.jit` entries) plus every `@pl.jit.*` function it calls by plain name, transitively,
is one program named after the entry. As the compiler specialises each entry on its own, an
entry a host reaches is also a program of its own, and a helper two entries call is in both
(its scopes are outlined in each). A sub-function reached from an entry belongs to the
programs of its entries only; a `@pl.jit.*` sub-function no entry calls forms a program of its
own, so its scopes are still analysed and shown. Inline helpers never form a program: the
compiler drops uncalled ones.
"""

from __future__ import annotations

import ast
import copy
import logging
import re
import weakref
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field, replace
from typing import Literal

from .. import ir
from ..diagnostics import Diagnostic, error
from ..ir_clone import clone
from ..passes.dim_fold import fold_param_dim_reads
from ..passes.inline_functions import SPLICE_BUDGET, SpliceFacts, block_splice_facts, splice_facts
from ..passes.outline_ir import expr_calls, stmt_exprs, walk_stmts
from ..recurring import mark
from ..results import HelperDef
from ..sized_cache import sized_cache
from ..span import Span
from . import builder
from .context import CalleeSignature, FunctionContext, ModuleContext
from .declared import conflicting_externals, shares_a_name
from .decorators import DecoratorReader, FunctionHeader
from .exprs import UNDEFINED_FUNCTION
from .function_memo import BuiltFunction, FunctionMemo, MemberKey
from .host_ops import ALLOC, duplicate_buffer_names
from .imports import ForeignFunction, Identity
from .jit_renames import alias_words
from .line_scan import SCAN_CACHE_CHARS, code_words, code_words_at_once
from .module import fold_assignments
from .nested import nested_scopes
from .scope_headers import construct_lines
from .source import name_span
from .splice_memo import Spliceable, splice
from .stmt_memo import KeptStatements, StatementReuse
from .tree_memo import TreeMemo
from .units import Unit, notable_indices

log = logging.getLogger(__name__)

INTERNAL_ERROR = "PTO900"

_ENTRY = ("jit",)
_HOST = ("jit", "host")
_NEVER_A_PROGRAM = (("jit", "inline"), ("jit", "extern"))
_HELPERS = (("jit", "inline"), ("inline",))


# What decides a program's analysis besides positions: its kind and name, each member unit's
# text hash and module-level names, and the module context's hash. Not where the units stand,
# nor how far apart: the incremental analysis moves a kept result to its units' new places, by
# pieces when they moved apart (`analysis.DocumentAnalyzer._reuse`). A tuple, compared in full,
# rather than one more digest: a keystroke fingerprints every program of the file again, and
# hashing a tuple of already-hashed strings is nearly free.
Fingerprint = tuple[str, str, tuple[tuple[str, tuple[str, ...]], ...], str, tuple[Identity, ...]]


@dataclass
class ProgramPlan:
    """The units one program is built from, in build order (primary unit first), and what its
    analysis depends on (never absolute positions)."""

    name: str
    kind: Literal["program", "jit"]
    unit_indices: list[int]
    fingerprint: Fingerprint
    # decorated functions of other modules it calls (transitively), built after its own units
    foreign: list[ForeignFunction] = field(default_factory=list)
    # an inline helper nothing in its file calls, built as the body of a jit entry (`file_plans`)
    standalone: bool = False
    # a `@pl.jit.host` program: the primary units of the `@pl.jit` entries it reaches, each an
    # entry plan of the same module (`host_reuse` composes the host's analysis from theirs)
    entries: tuple[int, ...] = ()
    # ... and the `@pl.jit` entries of other modules it calls, compiled into it (`CompiledEntry`)
    compiled: tuple[CompiledEntry, ...] = ()
    # every function of another module its analysis depends on: `foreign`, then each compiled
    # entry's parts; the fingerprint holds their identities in this order
    imported: list[ForeignFunction] = field(default_factory=list)


@dataclass(frozen=True, eq=False)
class CompiledEntry:
    """A `@pl.jit` entry of another module that a `@pl.jit.host` calls. The compiler's jit
    specialiser admits an Orchestration dep in a host alone (`_discover_deps`), found by the
    name the host calls it by in the host's globals (an import), and compiles it, with the
    deps it finds in its own module's globals, into the host's program: the entry's own
    program, as its module plans it (`plan`), is part of the host's."""

    entry: ForeignFunction
    plan: ProgramPlan

    def parts(self) -> list[ForeignFunction]:
        """The functions its program is built from: its module's units, then what it imports."""
        facts = self.entry.facts
        return [*(ForeignFunction(facts, i) for i in self.plan.unit_indices), *self.plan.imported]


@dataclass
class _Member:
    """One function of the program being built."""

    name: str
    node: ast.FunctionDef
    header: FunctionHeader
    is_method: bool
    line_offset: int
    class_constants: dict[str, int | float | str | bool]
    unit_index: int | None = None  # a module-level function's unit (None for a method)
    foreign: ForeignFunction | None = None  # defined in another module
    compiled: bool = False  # an imported entry compiled into the program (`CompiledEntry`)
    text_key: str = ""  # its unit's key; a method's own text (`_methods`)
    text: str = ""  # its source text (a method's own, decorators included)
    shown: str = ""  # `repr(header)`, what its keys hold of it ("": not made yet, `header_key`)

    def header_key(self) -> str:
        if not self.shown:
            self.shown = repr(self.header)
        return self.shown


def program_plans(
    units: list[Unit], ctx: ModuleContext, own: range | None = None, notable: list[int] | None = None
) -> list[ProgramPlan]:
    """One plan per program of the module, in source order of the program's primary unit.

    `own`: the units that may be a program's primary unit (a builder function's definitions,
    `nested`); the others are only reached from them. All units when None. `notable`:
    `notable_indices(units)`, when the caller has it."""
    if not ctx.is_dsl:
        return []
    if own is None:
        own = range(len(units))
    paths, jit = _decorated(units, ctx, own, notable_indices(units) if notable is None else notable)
    entries = jit.intersection(own)
    reached: dict[int, list[int]] = {}
    for i in sorted(entries):  # every entry is a program, also one a host reaches (as the compiler)
        if paths[i] in (_ENTRY, _HOST):
            reached[i] = _reach(i, units, ctx, jit, paths)
    claimed = {m for members in reached.values() for m in members}
    # Sub-functions no entry calls: each call-graph root among them is a program (the first
    # of a rootless cycle too); inline ones and extern stubs are dropped, as the compiler drops
    # uncalled ones.
    orphans = [i for i in sorted(entries - claimed) if paths[i] not in _NEVER_A_PROGRAM]
    called = {m for i in orphans for m in _reach(i, units, ctx, jit, paths)[1:] if m != i}
    for i in sorted(orphans, key=lambda i: (i in called, i)):
        if i not in claimed:
            reached[i] = _reach(i, units, ctx, jit, paths)
            claimed.update(reached[i])
    context = _PlanContext(ctx.fingerprint(), _names_by_unit(ctx))
    plans = []
    for i in sorted(paths):  # every program's primary unit is decorated
        unit = units[i]
        if i not in own:
            continue
        if paths.get(i) == ("program",) and isinstance(unit.node, ast.ClassDef):
            members = [i, *_inline_helpers([unit.node], ctx)]
            foreign = _foreign_reach([units[m].node for m in members], ctx, jit=False)
            plans.append(_plan(unit.node.name, "program", members, units, context, foreign))
        elif i in reached:
            foreign = _foreign_reach([units[m].node for m in reached[i]], ctx, jit=True)
            compiled = _compiled_entries(unit.node, ctx) if paths[i] == _HOST else ()
            plan = _plan(_node_name(unit), "jit", reached[i], units, context, foreign, compiled=compiled)
            if paths[i] == _HOST:
                plan.entries = tuple(m for m in reached[i] if m != i and paths[m] == _ENTRY)
            plans.append(plan)
    return plans


def inline_helper_defs(
    units: list[Unit], ctx: ModuleContext, source_lines: list[str], notable: list[int] | None = None
) -> list[HelperDef]:
    """The module-level `@pl.inline` / `@pl.jit.inline` helpers, by name and `def` name span:
    what a lens listing the helper's callers in the workspace sits on. `notable`:
    `notable_indices(units)`, when the caller has it."""
    found = []
    for unit in map(units.__getitem__, notable_indices(units) if notable is None else notable):
        if not unit.decorator:
            continue  # read no tree of a unit that is no helper
        node = unit.node
        if isinstance(node, ast.FunctionDef) and ctx.resolve(unit.decorator) in _INLINE:
            found.append(HelperDef(node.name, name_span(node, source_lines, unit.node_offset)))
    return found


def _decorated(
    units: list[Unit], ctx: ModuleContext, own: range, notable: list[int]
) -> tuple[dict[int, tuple[str, ...] | None], set[int]]:
    """The DSL path of each decorated unit that `own`'s programs may reach (a nested scope's
    context binds names to module units and to its own only), and which of them are jit
    functions. A decorated unit is notable (`Unit.notable`): the others are not looked at."""
    candidates: Iterable[int] = notable
    if own != range(len(units)):
        bound = set(ctx.functions.values())
        candidates = [i for i in notable if i in own or i in bound]
    paths = {
        i: ctx.resolve(units[i].decorator)
        for i in candidates
        if units[i].decorator and i not in ctx.untaken_units and units[i].node
    }
    jit = {
        i
        for i, path in paths.items()
        if path and path[0] == "jit" and isinstance(units[i].node, ast.FunctionDef)
    }
    return paths, jit


def standalone_plans(
    units: list[Unit],
    ctx: ModuleContext,
    own: range,
    claimed: set[int],
    scope_lines: list[int],
    notable: list[int] | None = None,
) -> list[ProgramPlan]:
    """A plan for each `@pl.jit.inline` / `@pl.inline` helper of `own` holding a scope
    construct (one of `scope_lines` is in it) that no program of the file reaches (`claimed`
    holds every unit some program is built from; it grows here).

    The compiler gives such a helper no program: compiled on its own, it is the only function
    of a program and InlineFunctions drops every Inline function, called or not. Its scopes
    are what a user of a helper-only module wants to see, so the helper is analysed as the body
    its callers splice it into: a jit entry of its own name (Orchestration, what `@pl.jit`
    makes), reaching what it calls as an entry would. Helpers that only another such helper
    calls are spliced into it, as in a real caller. A helper without a scope is left out: it
    would show nothing, and what it reports depends on where it is spliced. `notable`:
    `notable_indices(units)`, when the caller has it."""
    paths, jit = _decorated(units, ctx, own, notable_indices(units) if notable is None else notable)
    helpers = [
        i
        for i in sorted(paths)
        if i in own
        and i not in claimed
        and paths.get(i) in _HELPERS
        and isinstance(units[i].node, ast.FunctionDef)
        and ctx.functions.get(units[i].name or "") == i  # not a `def` a later one shadows
        and any(units[i].start_line <= line < units[i].end_line for line in scope_lines)
    ]
    reaches = {i: _reach(i, units, ctx, jit, paths) for i in helpers}
    called = {m for members in reaches.values() for m in members[1:]}
    context = _PlanContext(ctx.fingerprint(), _names_by_unit(ctx))
    plans = []
    for i in sorted(helpers, key=lambda i: (i in called, i)):
        if i not in claimed:
            foreign = _foreign_reach([units[m].node for m in reaches[i]], ctx, jit=True)
            plan = _plan(_node_name(units[i]), "jit", reaches[i], units, context, foreign, standalone=True)
            plans.append(plan)
            claimed.update(reaches[i])
    return plans


@dataclass
class FilePlans:
    """Every program of a file: `units` are its top-level units followed by the units of the
    definitions nested in builder functions (`nested`); each plan comes with the context its
    program is built in (the module's, or its builder's)."""

    units: list[Unit]
    plans: list[tuple[ProgramPlan, ModuleContext]]


def file_plans(units: list[Unit], ctx: ModuleContext, notable: list[int] | None = None) -> FilePlans:
    """The module's programs and the builder functions' ones, in source order. `notable`:
    `notable_indices(units)`, when the caller has it."""
    if notable is None:
        notable = notable_indices(units)
    all_units, scopes = nested_scopes(units, ctx, notable)
    all_notable = [*notable, *range(len(units), len(all_units))]  # a nested unit is notable
    plans = [(plan, ctx) for plan in program_plans(units, ctx, notable=notable)]
    for scope in scopes:
        plans += [(plan, scope.ctx) for plan in program_plans(all_units, scope.ctx, scope.own, all_notable)]
    scope_lines = construct_lines(units, ctx, notable) if ctx.is_dsl else []
    if scope_lines:
        claimed = {i for plan, _ in plans for i in plan.unit_indices}
        for scope_ctx, own in [(ctx, range(len(units))), *((s.ctx, s.own) for s in scopes)]:
            found = standalone_plans(all_units, scope_ctx, own, claimed, scope_lines, all_notable)
            plans += [(plan, scope_ctx) for plan in found]
    plans.sort(key=lambda pair: all_units[pair[0].unit_indices[0]].start_line)
    return FilePlans(all_units, plans)


def build_program(
    plan: ProgramPlan,
    units: list[Unit],
    ctx: ModuleContext,
    source_lines: list[str],
    memo: FunctionMemo | None = None,
    splice_budget: int = SPLICE_BUDGET,
    inputs: dict[str, Hashable] | None = None,
    placed: list[ir.Program] | None = None,
) -> tuple[ir.Program, list[Diagnostic]]:
    """The program's IR with absolute spans, inline helpers spliced away. Never raises: an
    unexpected exception becomes one PTO900 diagnostic on the program's header. `memo`: the
    document's built functions, reused for members whose build inputs did not change;
    `splice_budget`: the statements splicing may add (`inline_functions`). `inputs` (with a
    memo): filled with each member's name and what its build read (its memo key; an imported
    helper's key; a declaration's signature): two programs whose members of one name read the
    same build them alike (`host_reuse`). `placed`: filled with the program of each imported
    entry compiled into it, as placed at the host's call (`_placed`; its functions are the
    program's), which `host_reuse` may take as an entry's."""
    if source_lines and source_lines[0].startswith("\ufeff"):
        source_lines = [source_lines[0][1:], *source_lines[1:]]  # units are split without it
    primary = units[plan.unit_indices[0]]
    header = _header_span(primary, source_lines)
    origin = "program" if plan.kind == "program" else "jit"
    try:
        return _build(plan, units, ctx, source_lines, header, origin, memo, splice_budget, inputs, placed)
    except Exception as exc:
        log.exception("internal error while building program %s", plan.name)
        return ir.Program(plan.name, [], _unit_span(primary, source_lines), header, origin), [
            error(
                INTERNAL_ERROR,
                f"internal error while analysing program '{plan.name}': {type(exc).__name__}: {exc}",
                header,
                "this is a bug in pypto-lsp; the rest of the file is still analysed",
            )
        ]


# -- plans --------------------------------------------------------------------------------------


def _reach(
    entry: int, units: list[Unit], ctx: ModuleContext, jit: set[int], paths: dict[int, tuple[str, ...] | None]
) -> list[int]:
    """The entry, the jit functions it calls (transitively, in discovery order), then the
    `@pl.inline` helpers any of them calls."""
    members = [entry]
    for index in members:  # grows while iterating: a breadth-first walk that never revisits
        can_reach_entries = paths[index] == _HOST
        for name in _called_names(units[index].node):
            target = ctx.functions.get(name)
            if target is None or target not in jit or target in members:
                continue
            if paths[target] == _HOST or (paths[target] == _ENTRY and not can_reach_entries):
                continue
            members.append(target)
    nodes = [units[i].node for i in members]
    return members + [i for i in _inline_helpers(nodes, ctx) if i not in members]


def _inline_helpers(nodes: list[ast.AST | None], ctx: ModuleContext) -> list[int]:
    """Units of the `@pl.inline` helpers called from `nodes`, transitively, in discovery order."""
    found: list[int] = []
    if not ctx.inline_units:
        return found
    pending = list(nodes)
    while pending:
        for name in _called_names(pending.pop(0)):
            index = ctx.functions.get(name)
            if index is not None and index in ctx.inline_units.values() and index not in found:
                found.append(index)
                helper = next(n for n, i in ctx.inline_units.items() if i == index)
                pending.append(ctx.inline_functions[helper])
    return found


# what a jit function may call in another module (the compiler's jit deps: `_collect_deps`);
# a `@pl.program` class splices imported inline helpers only
_JIT_DEPS = {("jit", "incore"), ("jit", "inline"), ("jit", "opaque"), ("jit", "extern"), ("inline",)}
_PROGRAM_DEPS = {("inline",), ("jit", "inline")}
_INLINE = {("inline",), ("jit", "inline")}


def _foreign_reach(nodes: list[ast.AST | None], ctx: ModuleContext, *, jit: bool) -> list[ForeignFunction]:
    """The decorated functions of other modules that `nodes` call by plain name, and what the
    inline ones among them call in turn (in their own modules), in discovery order. A kernel
    that is not inline is callee evidence only: what it calls does not matter here."""
    allowed = _JIT_DEPS if jit else _PROGRAM_DEPS
    found: list[ForeignFunction] = []
    seen: set[tuple[int, int]] = set()
    if not ctx.foreign:
        return found
    pending: list[tuple[list[str], ModuleContext, ForeignFunction | None]] = [
        (_called_names(node), ctx, None) for node in nodes
    ]
    while pending:
        names, module, via = pending.pop(0)
        for name in names:
            target = module.foreign.get(name)
            if target is None and via is not None and name in module.functions:
                target = ForeignFunction(via.facts, module.functions[name])
            if target is None:
                continue
            calls = _foreign_calls(target)
            key = (id(target.facts), target.unit_index)
            if calls is None or key in seen:
                continue
            path = target.facts.ctx.resolve(target.unit.decorator)
            if path not in allowed:
                continue
            seen.add(key)
            found.append(target)
            if path in _INLINE:
                pending.append((calls, target.facts.ctx, target))
    return found


def _foreign_calls(foreign: ForeignFunction) -> list[str] | None:
    """The plain names an imported function calls (None: its unit is no `def`), once per
    module facts (`ModuleFacts.derived`): a keystroke's plans read the reach of every helper
    the file imports, and each read of a unit's tree is a parse-cache lookup."""

    def calls() -> list[str] | None:
        node = foreign.unit.node
        return _called_names(node) if isinstance(node, ast.FunctionDef) else None

    return foreign.facts.derive(("calls", foreign.unit_index), calls)


def _compiled_entries(node: ast.AST | None, ctx: ModuleContext) -> tuple[CompiledEntry, ...]:
    """The `@pl.jit` entries of other modules a host's body calls by plain name, in the order
    it first calls them, each with its program as its own module plans it."""
    found: list[CompiledEntry] = []
    seen: set[tuple[int, int]] = set()
    for name in _called_names(node):
        target = ctx.foreign.get(name)
        if target is None or (id(target.facts), target.unit_index) in seen:
            continue
        if not isinstance(target.unit.node, ast.FunctionDef):
            continue
        if target.facts.ctx.resolve(target.unit.decorator) != _ENTRY:
            continue
        plan = entry_plan(target)
        if plan is not None:
            seen.add((id(target.facts), target.unit_index))
            found.append(CompiledEntry(target, plan))
    return tuple(found)


def entry_plan(entry: ForeignFunction) -> ProgramPlan | None:
    """The program of an imported `@pl.jit` entry as its own module plans it (its module's
    plans are made once per `ModuleFacts`): what a host calling it compiles."""
    facts = entry.facts
    if facts.plans is None:
        facts.plans = {p.unit_indices[0]: p for p in program_plans(facts.units, facts.ctx) if p.kind == "jit"}
    return facts.plans.get(entry.unit_index)


_Placed = tuple[int, int, list[str]]  # a line and column, and the names called from there in order
# statement -> the names it calls, in source order, each once: an edited long unit's tree is
# new but keeps every statement the edit left alone (`unit_parts`), so a keystroke walks the
# edited statement only (the whole walk was 7-10 ms per keystroke on pypto-lib's 1,000-line
# entries), and the same trees are asked again (every plan of a file, every file importing a
# helper). Weak keys: an entry lives as long as its tree, which the size-bounded unit caches
# decide (a strong bound on count kept 1,024 trees alive, issue 20).
_STATEMENT_CALLS: weakref.WeakKeyDictionary[ast.AST, list[str]] = weakref.WeakKeyDictionary()


def _called_names(node: ast.AST | None) -> list[str]:
    """Plain names called in a function or class body (`kernel(a)`), in source order. Trees
    are never mutated (units are parsed once per text), so the answer is kept per node."""
    return [] if node is None else _statement_calls(node)


def _statement_calls(node: ast.AST) -> list[str]:
    """The plain names `node` calls, first occurrences in source order (kept per statement).
    A statement's calls are its header's (the expressions outside its blocks) and its block
    statements', and no header expression lies inside a block statement's lines, so ordering
    the header's calls and the block statements by where they start orders every call."""
    known = _STATEMENT_CALLS.get(node)
    if known is not None:
        return known
    parts: list[_Placed] = []
    _statement_parts(node, parts)
    parts.sort(key=lambda part: (part[0], part[1]))
    names = _STATEMENT_CALLS[node] = list(dict.fromkeys(name for part in parts for name in part[2]))
    return names


def _statement_parts(node: ast.AST, parts: list[_Placed]) -> None:
    """`node`'s header calls, each with its place, and its block statements, each with where
    it starts (a decorated definition at its first decorator) and its calls; an `except`
    handler or a match case is read as part of the statement that holds it."""
    compound = hasattr(node, "body")
    for name in node._fields:
        value = getattr(node, name, None)
        for item in value if type(value) is list else (value,):
            if isinstance(item, ast.stmt):
                first = item.decorator_list[0] if getattr(item, "decorator_list", None) else item  # type: ignore[attr-defined]
                parts.append((first.lineno, first.col_offset, _statement_calls(item)))
            elif isinstance(item, ast.excepthandler | ast.match_case):
                _statement_parts(item, parts)
            elif isinstance(item, ast.AST):
                parts += _header_calls(item) if compound else _placed_calls(item)


# a compound statement's header expression -> its calls: the skeleton of a long statement is
# kept while no line of it changes (`unit_parts`), so its header's nodes (a kernel's 130
# annotated parameters) are the same objects after an edit inside its blocks
_HEADER_CALLS: weakref.WeakKeyDictionary[ast.AST, list[_Placed]] = weakref.WeakKeyDictionary()


def _header_calls(node: ast.AST) -> list[_Placed]:
    known = _HEADER_CALLS.get(node)
    if known is None:
        known = _HEADER_CALLS[node] = _placed_calls(node)
    return known


def _placed_calls(node: ast.AST) -> list[_Placed]:
    return [(call.lineno, call.col_offset, [call.func.id]) for call in _name_calls(node)]  # type: ignore[attr-defined]


_CHILDLESS = (ast.Name, ast.Constant, ast.expr_context)  # neither holds a call


def _name_calls(root: ast.AST) -> list[ast.Call]:
    """The calls of a plain name below `root` (an expression), in no particular order: the
    nodes `ast.walk` meets, read field by field without its generators and without entering
    names and constants."""
    found: list[ast.Call] = []
    pending: list[ast.AST] = [root]
    pop, push, node_type = pending.pop, pending.append, ast.AST
    while pending:
        node = pop()
        if type(node) is ast.Call and type(node.func) is ast.Name:
            found.append(node)
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                pending += [v for v in value if isinstance(v, node_type) and not isinstance(v, _CHILDLESS)]
            elif isinstance(value, node_type) and not isinstance(value, _CHILDLESS):
                push(value)
    return found


@dataclass(frozen=True)
class _PlanContext:
    """What every plan's fingerprint shares, computed once per module."""

    fingerprint: str
    names_by_unit: dict[int, tuple[str, ...]]


def _names_by_unit(ctx: ModuleContext) -> dict[int, tuple[str, ...]]:
    names: dict[int, list[str]] = {}
    for name, index in sorted(ctx.functions.items()):
        names.setdefault(index, []).append(name)
    return {index: tuple(unit_names) for index, unit_names in names.items()}


def _plan(
    name: str,
    kind: Literal["program", "jit"],
    members: list[int],
    units: list[Unit],
    context: _PlanContext,
    foreign: list[ForeignFunction],
    *,
    standalone: bool = False,
    compiled: tuple[CompiledEntry, ...] = (),
) -> ProgramPlan:
    parts = tuple((units[i].key, context.names_by_unit.get(i, ())) for i in members)
    imported = [*foreign, *(part for entry in compiled for part in entry.parts())]
    label = "standalone" if standalone else kind
    fingerprint = (label, name, parts, context.fingerprint, tuple(f.identity() for f in imported))
    return ProgramPlan(
        name, kind, members, fingerprint, foreign, standalone, compiled=compiled, imported=imported
    )


def _node_name(unit: Unit) -> str:
    return getattr(unit.node, "name", None) or unit.name or "<anonymous>"


# -- building -----------------------------------------------------------------------------------


def _build(
    plan: ProgramPlan,
    units: list[Unit],
    ctx: ModuleContext,
    source_lines: list[str],
    header: Span,
    origin: str,
    memo: FunctionMemo | None,
    splice_budget: int,
    inputs: dict[str, Hashable] | None,
    placed: list[ir.Program] | None,
) -> tuple[ir.Program, list[Diagnostic]]:
    diagnostics: list[Diagnostic] = []
    if inputs is None or memo is None:
        inputs = {}  # recorded for nothing
    members = _members(plan, units, ctx, source_lines, diagnostics)
    if plan.kind == "program" and not members:
        diagnostics.append(
            error(
                UNDEFINED_FUNCTION,
                f"Class '{plan.name}' contains no @pl.function decorated methods",
                header,
                "define at least one method decorated with @pl.function",
            )
        )
    taken = {m.name for m in members}
    members += _foreign_members(plan, taken)
    compiled = _compiled_members(plan, taken, splice_budget)
    members += [item.member for item in compiled]
    # the names each module's bodies call the program's functions by (an imported function
    # calls what its own module binds)
    callees_of: dict[int, dict[str, CalleeSignature]] = {id(ctx): {}}
    signatures: dict[tuple[int, int], CalleeSignature] = {}
    starts: list[_Start] = []
    declarations: dict[str, CalleeSignature] = {}
    module_key = ctx.body_fingerprint() if memo is not None else ""
    keeps = memo is not None and memo.keeps_statements  # builds follow this one
    in_jit = plan.kind == "jit"
    # the host alone calls the imported entries: no other function's build sees them (the
    # compiler's entries never take an entry as a dep), so a same-file entry is built as in
    # its own program (`host_reuse` takes its run)
    host_callees: dict[str, CalleeSignature] = {}
    entry_signatures: dict[tuple[int, int], CalleeSignature] = {}
    for member in members:
        # Signatures first so every body sees every callee (`callees` is complete before the
        # first body is built).
        module = member.foreign.facts.ctx if member.foreign is not None else ctx
        lines = member.foreign.facts.lines if member.foreign is not None else source_lines
        callees = callees_of.setdefault(id(module), {})
        if compiled and member is members[0]:
            callees = host_callees
        start = _Start(member, _function_ctx(member, module, lines, callees, in_jit), keeps)
        if member.foreign is not None:
            # its own file's analysis reports on it; an imported kernel that is not inline is
            # evidence through its signature alone (D5), its body analysed in its own file
            if member.header.type is ir.FunctionType.Inline and memo is not None and memo.keeps_statements:
                _resume_foreign(start, member.foreign, in_jit)
            signature = _foreign_signature(start, member.foreign, in_jit)
            if member.compiled:  # its program joins this one once it is spliced (`_placed`)
                entry_signatures[(id(module), member.foreign.unit_index)] = signature
                continue
            if member.header.type is ir.FunctionType.Inline:
                starts.append(start)
            else:
                declarations[member.name] = signature
                inputs[member.name] = signature
            signatures[(id(module), member.foreign.unit_index)] = signature
            continue
        signature, read = _member_signature(start, memo, in_jit, module_key)
        if member.header.declaration_only:
            declarations[member.name] = signature
            inputs[member.name] = (signature, read)
            diagnostics += read
        else:
            starts.append(start)
        if member.unit_index is None:
            callees[member.node.name] = signature
        else:
            signatures[(id(ctx), member.unit_index)] = signature
            for local in ctx.names_of_unit(member.unit_index):
                callees_of[id(ctx)][local] = signature
    _bind_foreign_callees(members, ctx, callees_of, signatures)
    if compiled:
        host_callees.update(callees_of[id(ctx)])
        for local, imported in ctx.foreign.items():
            called = entry_signatures.get((id(imported.facts.ctx), imported.unit_index))
            if called is not None:
                host_callees[local] = called
    parts: list[tuple[str, Spliceable]] = []
    for start in starts:
        member = start.member
        if member.foreign is not None:
            # spliced, it takes its calls' spans; until then it stands at the program's header
            helper = _foreign_helper(member.foreign, start, in_jit, inputs, member.name, keeps)
            function = ir.copy_with(helper.function, name=member.name, span=header, name_span=header)
            parts.append((member.name, Spliceable(function, helper.facts, helper.tags, False, helper)))
            continue
        # the parser folds an Orchestration body's own dyn-dim reads, before any splice (not a
        # standalone helper's: the compiler parses that one as Inline)
        folds = member.header.type is ir.FunctionType.Orchestration and not (
            plan.standalone and member is members[0]
        )
        own = _member_function(start, in_jit, memo, module_key, folds, inputs)
        diagnostics += own.diagnostics
        parts.append((member.name, Spliceable(own.function, own.facts, own.dump_tags, own.rewritten, own)))
    own_members = [start.member for start in starts if start.member.foreign is None]
    own_allocations = [(m.node, m.line_offset) for m in own_members if ALLOC in m.text]
    if own_allocations:
        diagnostics += duplicate_buffer_names(own_allocations, ctx, source_lines)
    if plan.kind != "jit" and shares_a_name(ctx):
        callers = [(m.node, m.line_offset) for m in own_members]
        diagnostics += conflicting_externals(callers, ctx, source_lines)
    # (not the compiled entries: nothing is spliced into or from them here, and a host whose
    # splice key is its entry's takes the entry's splice, `splice_memo`)
    foreign = {
        m.name: _spliced_helper(m.foreign) for m in members if m.foreign is not None and not m.compiled
    }
    dump_tags = any(part.tags for _, part in parts)
    # the specialiser's rename map is one for the entry and all its deps (`jit_messages`)
    aliases = set().union(*(getattr(part.build, "aliases", frozenset()) for _, part in parts))
    splices = memo.splices if memo is not None else None
    clones = memo.clones if memo is not None else None
    functions, splice_diagnostics, sites = splice(
        parts, foreign, splice_budget, header, dump_tags, splices, clones
    )
    if compiled:
        host = next((fn for fn in functions if fn.name == members[0].name), None)
        for item in compiled:
            site = _call_site(host, item.member.name) if host is not None else None
            if site is None:  # no statement of the host calls it: known by its signature
                where = item.entry.entry
                declarations[item.member.name] = entry_signatures[(id(where.facts.ctx), where.unit_index)]
                continue
            program = _placed(item, site)
            functions += program.functions
            for name, signature in program.declarations.items():
                declarations.setdefault(name, signature)
            sites[site] = _spliced_helper(item.entry.entry)
            aliases.update(program.aliases)
            inputs.update({fn.name: (item.key, site) for fn in program.functions})
            if placed is not None:
                placed.append(program)
    primary = units[plan.unit_indices[0]]
    program = ir.Program(
        plan.name,
        functions,
        _unit_span(primary, source_lines),
        header,
        origin,
        declarations,
        sites,
        tuple(sorted(aliases)),
    )
    return program, diagnostics + splice_diagnostics


@dataclass(frozen=True, eq=False)
class _Compiled:
    """An imported entry about to join a host's program: the member its signature is read as,
    and its program built in its own module (spans there; `_entry_program`) under `key`."""

    member: _Member
    entry: CompiledEntry
    program: ir.Program
    key: Hashable


def _compiled_members(plan: ProgramPlan, taken: set[str], splice_budget: int) -> list[_Compiled]:
    """The imported entries the host's program compiles (`taken`: its names so far; it grows).
    One whose program would bring a name the program has already (a host defining a function
    of the same name, two imported entries sharing a kernel) is known by its signature only:
    a declaration (D5), as its function name is the compiler's and cannot be renamed."""
    compiled: list[_Compiled] = []
    for entry in plan.compiled:
        member = _foreign_member(entry.entry, taken)
        if member is None:
            continue
        program, key = _entry_program(entry, splice_budget)
        names = {fn.name for fn in program.functions}
        if program.functions and member.name == entry.plan.name and not names & taken:
            member.compiled = True
            compiled.append(_Compiled(member, entry, program, key))
            taken |= names
        taken.add(member.name)
    return compiled


def _call_site(host: ir.Function, name: str) -> Span | None:
    """The first statement of the host that calls `name` (where its program is shown), found
    once while the host function lives (no pass modifies a function; a keystroke in an entry
    hands on its host's spliced function)."""
    sites = _CALL_SITES.get(host)
    if sites is None:
        sites = _CALL_SITES[host] = {}
    if name not in sites:
        sites[name] = next(
            (
                stmt.span
                for stmt in walk_stmts(host.body)
                for expr in stmt_exprs(stmt)
                if any(call.callee == name for call in expr_calls(expr))
            ),
            None,
        )
    return sites[name]


_CALL_SITES: weakref.WeakKeyDictionary[ir.Function, dict[str, Span | None]] = weakref.WeakKeyDictionary()


# An imported entry's program built in its module, by its plan's fingerprint (what its build
# reads: its units' texts, its module's context, the identities of what it imports) and the
# splice budget; and that program placed at a host's call. Shared, never modified: every
# program of every host calling the entry, and every rebuild of one, would build it again.
_ENTRY_PROGRAMS: dict[Hashable, ir.Program] = {}
_PLACED: dict[tuple[Hashable, Span], ir.Program] = {}
_COMPILED_LIMIT = 64


def _entry_program(entry: CompiledEntry, splice_budget: int) -> tuple[ir.Program, Hashable]:
    """The entry's program as its own module builds it (its findings are that file's to
    report, as an imported helper's are), and the key it is kept under."""
    facts = entry.entry.facts
    key = (facts.path, entry.plan.fingerprint, splice_budget)
    known = _ENTRY_PROGRAMS.get(key)
    if known is None:
        known, _ = build_program(entry.plan, facts.units, facts.ctx, facts.lines, None, splice_budget)
        if len(_ENTRY_PROGRAMS) >= _COMPILED_LIMIT:
            _ENTRY_PROGRAMS.clear()
        _ENTRY_PROGRAMS[key] = known
    return known, key


def _placed(item: _Compiled, site: Span) -> ir.Program:
    """The entry's program with all its code at the host's call `site`, as an imported
    helper's spliced code is at its call (`clone(span_at=...)`): nothing of this file's
    results points into another file; the findings it causes say so (`ir.SplicedHelper.entry`).
    The same object for the same program and site (`host_reuse` keeps its run by identity)."""
    key = (item.key, site)
    known = _PLACED.get(key)
    if known is None:
        functions = clone(item.program.functions, span_at=site)
        name = item.entry.plan.name
        declarations = dict(item.program.declarations)
        known = ir.Program(name, functions, site, site, "jit", declarations, aliases=item.program.aliases)
        if len(_PLACED) >= _COMPILED_LIMIT:
            _PLACED.clear()
        _PLACED[key] = known
    return known


@dataclass
class _Start:
    """A member about to be built: the context its body is read in, and what reading its
    signature began (`builder.read_signature`), read when first needed: a member whose
    signature and build are both kept is never read."""

    member: _Member
    ctx: FunctionContext
    edited: bool  # its text may be edited next (a document's build): its words found by pieces
    _read: builder.FunctionStart | None = None
    kept: builder.SignatureRead | None = None  # an earlier read of the same header (`_member_signature`)
    callees: tuple[tuple[str, CalleeSignature], ...] | None = None  # `_read_callees`, once asked

    def read(self) -> builder.FunctionStart:
        if self._read is None:
            member, kept = self.member, self.kept
            if kept is not None and kept.valid:
                self._read = builder.resume_signature(kept, member.node, self.ctx, header=member.header)
            else:
                self._read = builder.read_signature(
                    member.node, self.ctx, is_method=member.is_method, header=member.header
                )
        return self._read

    def signature(self) -> CalleeSignature:
        start, header = self.read(), self.member.header
        return callee_signature(
            self.member.name, header.type, start.params, start.return_types, start.constexpr, header.role
        )


def _member_signature(
    start: _Start, memo: FunctionMemo | None, in_jit: bool, module_key: str
) -> tuple[CalleeSignature, tuple[Diagnostic, ...]]:
    """A member's signature and what reading it reported, or the memo's when its signature
    key (what reading it reads: its header's text and place, not its body's) is that of a
    member read before; the build then starts from that read (`builder.resume_signature`)."""
    key = _signature_key(start, in_jit, module_key) if memo is not None else None
    known = memo.signatures.get(key) if memo is not None and key is not None else None
    if known is not None and not known[2].valid:
        known = None
    if known is None:
        signature = start.signature()
        read = start.read().read
        assert read is not None
        known = signature, tuple(start.ctx.diagnostics), read
        if memo is not None and key is not None:
            memo.signatures.put(key, known)
    else:
        start.kept = known[2]
    return known[0], known[1]


def _foreign_signature(start: _Start, foreign: ForeignFunction, in_jit: bool) -> CalleeSignature:
    """An imported function's signature, read once per module facts (`ModuleFacts.signatures`:
    what reading it reads is its unit and its module's facts, the name the program gives it
    and whether the program is a jit one; the callees, no annotation reads)."""
    key = (foreign.unit_index, start.member.name, in_jit)
    known = foreign.facts.signatures.get(key)
    if known is None:
        known = foreign.facts.signatures[key] = start.signature()
    return known


def _member_function(
    start: _Start,
    in_jit: bool,
    memo: FunctionMemo | None,
    module_key: str,
    folds_dims: bool,
    inputs: dict[str, Hashable],
) -> BuiltFunction:
    """A member of this file built, or taken from the memo when its build inputs are those of
    a function built before (`function_memo`). `folds_dims`: fold its parameter dyn-dim reads
    as the parser does in an Orchestration body. Its key goes into `inputs`."""
    member = start.member
    key = _member_key(start, in_jit, module_key, folds_dims) if memo is not None else None
    if key is not None:
        inputs[member.name] = key
    slot = (member.name, member.is_method, in_jit)
    if memo is not None and key is not None:
        known = memo.get(key)
        if known is not None:
            memo.statements.get(slot)  # kept for when this function is next edited
            memo.moved.get(_moved_slot(key))  # and for when it is next moved
            return known
        known = _moved_function(start, key, memo)
        if known is not None:
            return known
    reuse = None
    if memo is not None and memo.keeps_statements:
        context = (_build_context(start, in_jit, module_key, folds_dims), start.read().state.auto_scope)
        reuse = StatementReuse(context, memo.statements.get(slot))
    function = builder.build_function(start.read(), reuse)
    function.name = member.name  # `kernel__2` when two distinct jit functions share a def name
    if reuse is not None:
        memo.count_statements(reuse.reused, reuse.moved, reuse.built, reuse.certified)  # type: ignore[union-attr]
        kept = reuse.result()
        if kept is not None:
            memo.statements.put(slot, kept)  # type: ignore[union-attr]
        else:
            memo.statements.discard(slot)  # type: ignore[union-attr]
    if folds_dims and _reads_dims(function):
        # the fold sets the body (copy-on-write: the build's statements, kept for the next
        # build, are left as they are, and those it folds alike are the last fold's)
        function = copy.copy(function) if reuse is not None else function
        fold_param_dim_reads(function)
    ctx = start.ctx
    # tags are applied in place after splicing (which copies what it rewrites)
    rewritten = memo is not None and ctx.dump_tags
    facts = splice_facts(function) if reuse is None else _splice_facts(function, reuse)
    built = BuiltFunction(function, tuple(ctx.diagnostics), ctx.dump_tags, rewritten, facts, ctx.aliases)
    if (
        memo is not None
        and key is not None
        and not any(d.code == UNDEFINED_FUNCTION for d in built.diagnostics)
    ):
        memo.put(key, built)
        memo.moved.put(_moved_slot(key), (_placeless(start, key), member.line_offset, built))
    return built


def _moved_slot(key: MemberKey) -> Hashable:
    """The member key's slot less its unit's start (`FunctionMemo.moved`'s key)."""
    return key[0][:3] + key[0][4:]


def _placeless(start: _Start, key: MemberKey) -> Hashable:
    """The member key's context with the header's span counted from the unit's first line:
    what the build reads besides its unit's place (the slot holds its text and place in it)."""
    member = start.member
    header = replace(member.header, span=member.header.span.shifted(-member.line_offset))
    context = key[1]
    assert isinstance(context, tuple)
    return (*context[:1], repr(header), *context[2:])


def _moved_function(start: _Start, key: MemberKey, memo: FunctionMemo) -> BuiltFunction | None:
    """The member's build moved down or up the file from the build of a member of the same
    text and context whose unit started elsewhere (a line typed above it): everything a build
    makes is where its text is, so the kept one cloned with its spans moved is this build
    (`ir_clone.clone(line_delta=...)`, diagnostics `shifted`). A clone: new objects, as a
    build would make (the statement records stay keyed at the old lines)."""
    member = start.member
    slot = _moved_slot(key)
    found = memo.moved.get(slot)
    if found is None or found[1] == member.line_offset or found[0] != _placeless(start, key):
        return None
    delta = member.line_offset - found[1]
    kept = found[2]
    function = clone(kept.function, line_delta=delta)
    mark(function.body)
    built = BuiltFunction(
        function,
        tuple(d.shifted(delta) for d in kept.diagnostics),
        kept.dump_tags,
        kept.rewritten,
        kept.facts,
        kept.aliases,
    )
    memo.put(key, built)
    memo.moved.put(slot, (found[0], member.line_offset, built))
    return built


def _member_key(start: _Start, in_jit: bool, module_key: str, folds_dims: bool) -> MemberKey:
    """What building the member reads: its text and place, its header, the module facts a body
    reads, the class constants, and the callees it can read (`_read_callees`)."""
    member = start.member
    node = member.node
    slot = (member.text_key, node.lineno, node.col_offset, member.line_offset, member.name)
    callees = _read_callees(start)
    constants = _class_constants(member)
    return slot, (member.is_method, member.header_key(), in_jit, module_key, callees, constants, folds_dims)


def _read_callees(start: _Start) -> tuple[tuple[str, CalleeSignature], ...]:
    """What of the program's callee table the member's body can read: the signatures of the
    callees its code spells (a body looks a callee up by a name it spells, so the others cannot
    matter; a name in a string or a longer word costs a needless rebuild, never a wrong reuse;
    one in a comment costs nothing: a helper whose comment names the two entries splicing it
    would otherwise be built anew in each of their programs, the keys differing by the entry
    each program has). PTO179's hint reads every callee's name: a build reporting it is not
    kept (`_member_function`), nor is its statement (`exprs.check_method_defined`)."""
    if start.callees is None:
        member = start.member
        text = member.foreign.unit.text if member.foreign is not None else member.text
        words = code_words(text) if start.edited else code_words_at_once(text)
        callees = start.ctx.callees
        start.callees = tuple((name, callees[name]) for name in sorted(words.intersection(callees)))
    return start.callees


def _signature_key(start: _Start, in_jit: bool, module_key: str) -> MemberKey:
    """What reading the member's signature reads: its header's text (decorators to the last
    line of its parameters and return annotation) and place, the header's reading, the module
    facts and class constants; not its body, so an edit in the body reads no signature."""
    member = start.member
    node = member.node
    offset = member.line_offset
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1 + offset
    slot = (_header_text(start), first, node.col_offset, 0, member.name)
    return slot, (
        "signature",
        member.is_method,
        member.header_key(),
        in_jit,
        module_key,
        _class_constants(member),
        start.ctx.bound_axes,  # read from the body, but they name the parameters' axes
    )


def _header_text(start: _Start) -> str:
    """The header's lines, kept per tree (a tree's lines are its text's wherever it stands)."""
    member = start.member
    node = member.node
    known = _HEADER_TEXTS.get(node)
    if known is None:
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        lines = start.ctx.source_lines
        offset = member.line_offset
        known = _HEADER_TEXTS[node] = "\n".join(lines[first - 1 + offset : _header_end(node) + offset])
    return known


_HEADER_TEXTS: weakref.WeakKeyDictionary[ast.FunctionDef, str] = weakref.WeakKeyDictionary()


def _header_end(node: ast.FunctionDef) -> int:
    """The last line of the function's parameters and return annotation (1-based, in its
    unit), read once per `arguments` node: a body edit's tree shares its header's nodes with
    the tree before (`unit_parts`), and a kernel has a hundred parameters to look at."""
    arguments = node.args
    kept = _HEADER_ENDS.get(arguments)
    if kept is not None and kept[0] is node.returns and kept[1] == node.lineno:
        return kept[2]
    parts: list[ast.AST | None] = [
        node.returns,
        *arguments.posonlyargs,
        *arguments.args,
        *arguments.kwonlyargs,
        arguments.vararg,
        arguments.kwarg,
        *arguments.defaults,
        *arguments.kw_defaults,
    ]
    last = max([node.lineno, *(getattr(p, "end_lineno", None) or 0 for p in parts if p is not None)])
    _HEADER_ENDS[arguments] = (node.returns, node.lineno, last)
    return last


_HEADER_ENDS: weakref.WeakKeyDictionary[ast.arguments, tuple[ast.expr | None, int, int]] = (
    weakref.WeakKeyDictionary()
)


def _build_context(start: _Start, in_jit: bool, module_key: str, folds_dims: bool) -> Hashable:
    """What every statement of the member's body may read besides its own text and the
    builder's environment (`stmt_memo`): the header, the module facts, the class constants,
    the callees the body can read (`_read_callees`)."""
    member = start.member
    callees = _read_callees(start)
    return (
        member.is_method,
        member.header_key(),
        _header_text(start),
        in_jit,
        module_key,
        callees,
        _class_constants(member),
        folds_dims,
        alias_words(member.text) if in_jit else frozenset(),  # what its renames skip (`jit_renames`)
    )


def _class_constants(member: _Member) -> tuple[tuple[str, str, str], ...]:
    return tuple(sorted((k, type(v).__name__, repr(v)) for k, v in member.class_constants.items()))


def _splice_facts(function: ir.Function, reuse: StatementReuse) -> SpliceFacts:
    """`splice_facts(function)`, each top-level statement's taken from the last build when it
    is the same object (kept statements are never modified)."""
    called: set[str | None] = set()
    nested: set[str | None] = set()
    kept, facts = reuse.kept_facts, reuse.splice_facts
    for stmt in function.body:
        found = kept.get(id(stmt))
        if found is None or found[0] is not stmt:
            found = (stmt, block_splice_facts([stmt]))
        facts[id(stmt)] = found
        called |= found[1].called
        nested |= found[1].nested
    return SpliceFacts(frozenset(called), frozenset(nested))


def _reads_dims(function: ir.Function) -> bool:
    """Whether the body assigns a `tensor.dim` read (what the dim fold may fold), each
    top-level statement looked into once while it lives (a kept statement is never modified)."""
    for stmt in function.body:
        found = _READS_DIMS.get(stmt)
        if found is None:
            found = _READS_DIMS[stmt] = any(
                isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call) and s.value.op == "tensor.dim"
                for s in walk_stmts([stmt])
            )
        if found:
            return True
    return False


_READS_DIMS: weakref.WeakKeyDictionary[ir.Stmt, bool] = weakref.WeakKeyDictionary()


# An imported inline helper's IR, by what its build reads: the helper (its file, text, place
# and module facts), whether the program is a jit one, and the signatures its body's calls
# resolve to (a callee's name is the program's, `kernel__2` on a clash). Every importer of a
# helper, every program of an importer and every keystroke in it would otherwise build the
# same body again. The value is shared: `inline_functions` copies a helper before splicing
# into it, and what it splices into callers is always a clone (with the call's spans).
_HelperKey = tuple[Identity, int, bool, tuple[tuple[str, CalleeSignature], ...]]


@dataclass(frozen=True, slots=True)
class _ForeignHelper:
    """An imported helper's function (shared: never to be modified), whether its body has a
    `dump_tag` (tags are applied once the program is spliced), and what splicing reads of it."""

    function: ir.Function
    tags: bool
    facts: SpliceFacts
    aliases: frozenset[str]  # the names its jit renames made


_HELPERS_BUILT: dict[_HelperKey, _ForeignHelper] = {}
_HELPERS_BUILT_LIMIT = 512


def _foreign_helper(
    foreign: ForeignFunction,
    start: _Start,
    in_jit: bool,
    inputs: dict[str, Hashable],
    name: str,
    keeps: bool,
) -> _ForeignHelper:
    """The helper as built for this program (its diagnostics are its own file's to report).
    Its key goes into `inputs` under `name`. `keeps`: built from its last build, and kept for
    the next (`_HELPERS_LAST`; not for a text analysed once)."""
    key = (foreign.identity(), foreign.unit.node_offset, in_jit, _read_callees(start))
    inputs[name] = key
    known = _HELPERS_BUILT.get(key)
    if known is None:
        slot = _foreign_slot(start, foreign, in_jit)
        last = _HELPERS_LAST.get(slot) if keeps else None
        reuse = _helper_reuse(start, foreign, in_jit, last) if last is not None else None
        if last is not None and last.statements is None:
            # the build before kept nothing (a helper's first): taken again when its text comes
            # back (an edit undone), it would share no statement with this one and the builds
            # after it, so every keystroke between the two texts would splice and convert the
            # helper anew; built again instead, from this build's records
            _HELPERS_BUILT.pop(last.built, None)
        function = builder.build_function(start.read(), reuse)
        facts = splice_facts(function) if reuse is None else _splice_facts(function, reuse)
        known = _ForeignHelper(function, start.ctx.dump_tags, facts, start.ctx.aliases)
        if len(_HELPERS_BUILT) >= _HELPERS_BUILT_LIMIT:
            _HELPERS_BUILT.clear()
        _HELPERS_BUILT[key] = known
        read = start.read().read
        if keeps and read is not None:
            if len(_HELPERS_LAST) >= _HELPERS_BUILT_LIMIT:
                _HELPERS_LAST.clear()
            signature = _foreign_signature_key(start, foreign, in_jit)
            statements = reuse.result() if reuse is not None else None
            _HELPERS_LAST[slot] = _HelperLast(signature, read, statements, key)
    return known


def _helper_reuse(start: _Start, foreign: ForeignFunction, in_jit: bool, last: _HelperLast) -> StatementReuse:
    """The statement records of the helper's last build (`_HELPERS_LAST`), for this one."""
    module_key = foreign.facts.body_fingerprint()
    context = (_build_context(start, in_jit, module_key, False), start.read().state.auto_scope)
    return StatementReuse(context, last.statements)


@dataclass(frozen=True, slots=True)
class _HelperLast:
    """An imported helper's last build (`_HELPERS_LAST`): what reading its signature read
    (`_signature_key`), that read, its statement records (None: it kept nothing, the helper's
    first build) and its key in `_HELPERS_BUILT`."""

    signature: MemberKey
    read: builder.SignatureRead
    statements: KeptStatements | None
    built: _HelperKey


# Each imported helper's last build, by its file, name and program kind (`_foreign_slot`):
# after an edit in its module it is built from there as a member of the importer's own file
# is from its memo (`_member_function`): a signature read again only when its header or
# what reading it reads changed (the same `Param`s), each statement whose text, place and
# inputs are unchanged taken as kept (the same IR objects, `stmt_memo`). Its splice at each
# call then takes the clone of before statement by statement (`inline_functions._Reclone`)
# and the passes take those statements, as after an edit of a helper in the same file: an
# edit in pypto-lib's `qkv_proj_rope.py` built, cloned and converted its 300-line helper
# anew in each program of an importer (bench/README.md, session 14).
_HELPERS_LAST: dict[Hashable, _HelperLast] = {}


def _foreign_slot(start: _Start, foreign: ForeignFunction, in_jit: bool) -> Hashable:
    return (foreign.facts.path, start.member.node.name, start.member.name, in_jit)


def _resume_foreign(start: _Start, foreign: ForeignFunction, in_jit: bool) -> None:
    """Start an imported helper's build from its last build's signature read when what
    reading it reads is unchanged (`_HELPERS_LAST`)."""
    last = _HELPERS_LAST.get(_foreign_slot(start, foreign, in_jit))
    if last is None or not last.read.valid:
        return
    if last.signature == _foreign_signature_key(start, foreign, in_jit):
        start.kept = last.read


def _foreign_signature_key(start: _Start, foreign: ForeignFunction, in_jit: bool) -> MemberKey:
    """`_signature_key` of an imported function, once per module facts: what it reads (the
    header's text, place and reading, the module's facts) is the facts' (`ModuleFacts.derived`)."""
    return foreign.facts.derive(
        ("signature key", (foreign.unit_index, start.member.name, in_jit)),
        lambda: _signature_key(start, in_jit, foreign.facts.body_fingerprint()),
    )


def spliced_helpers(plan: ProgramPlan) -> tuple[ir.SplicedHelper, ...]:
    """Where the functions of other modules the program reaches are defined: what of them its
    analysis holds that their identities leave out (`ForeignFunction.identity`)."""
    return tuple(_spliced_helper(foreign) for foreign in plan.imported)


def _spliced_helper(foreign: ForeignFunction) -> ir.SplicedHelper:
    """Where `foreign` is defined, once per module facts (`ModuleFacts.derived`)."""

    def defined() -> ir.SplicedHelper:
        node = foreign.unit.node
        assert isinstance(node, ast.FunctionDef)
        span = name_span(node, foreign.facts.lines, foreign.unit.node_offset)
        entry = foreign.facts.ctx.resolve(foreign.unit.decorator) == _ENTRY
        return ir.SplicedHelper(node.name, foreign.facts.path, span, entry)

    return foreign.facts.derive(("defined at", foreign.unit_index), defined)


def callee_signature(
    name: str,
    function_type: ir.FunctionType,
    params: list[ir.Param],
    return_types: list[ir.Type],
    constexpr: tuple[tuple[int, str], ...] = (),
    role: ir.Role | None = None,
) -> CalleeSignature:
    """The signature facts a caller of a function sees, from its read signature: the one
    constructor for program members and for functions known only by their declaration."""
    return CalleeSignature(
        name=name,
        type=function_type,
        param_names=tuple(p.var.name for p in params),
        directions=tuple(p.direction for p in params),
        return_types=tuple(return_types),
        constexpr=constexpr,
        role=role,
        param_types=tuple(p.var.type for p in params),
    )


def _members(
    plan: ProgramPlan,
    units: list[Unit],
    ctx: ModuleContext,
    source_lines: list[str],
    diagnostics: list[Diagnostic],
) -> list[_Member]:
    members: list[_Member] = []
    taken: set[str] = set()
    for position, index in enumerate(plan.unit_indices):
        unit = units[index]
        reader = DecoratorReader(ctx, source_lines, unit.node_offset)
        if plan.kind == "program" and position == 0 and isinstance(unit.node, ast.ClassDef):
            members += _methods(unit.node, reader, ctx)
        elif isinstance(node := unit.node, ast.FunctionDef):
            header, shown, read = _module_header(node, ctx, source_lines, unit.node_offset)
            diagnostics += read
            if header is not None and plan.standalone and position == 0:
                header = replace(header, type=ir.FunctionType.Orchestration)  # see standalone_plans
                shown = ""
            if header is not None:
                name = _unique(node.name, taken)
                members.append(
                    _Member(
                        name,
                        node,
                        header,
                        False,
                        unit.node_offset,
                        {},
                        index,
                        text_key=unit.key,
                        text=unit.text,
                        shown=shown,
                    )
                )
        diagnostics += reader.diagnostics
        taken.update(m.name for m in members)
    return members


def _module_header(
    node: ast.FunctionDef, ctx: ModuleContext, source_lines: list[str], offset: int
) -> tuple[FunctionHeader | None, str, list[Diagnostic]]:
    """A module-level function's decorator read (`DecoratorReader.module_header`), its repr
    and what reading it reported, kept per tree while the context and the unit's place are
    those it was read with (a decorator's spans read only its tree's own lines): a keystroke
    rebuilds an entry's program and its host's, each reading every member's decorator."""

    def read() -> tuple[FunctionHeader | None, str, list[Diagnostic]]:
        reader = DecoratorReader(ctx, source_lines, offset)
        header = reader.module_header(node)
        return header, "" if header is None else repr(header), reader.diagnostics

    return _MODULE_HEADERS.get(node, ctx, offset, read)


_MODULE_HEADERS: TreeMemo[tuple[FunctionHeader | None, str, list[Diagnostic]]] = TreeMemo()


def _foreign_members(plan: ProgramPlan, taken: set[str]) -> list[_Member]:
    """The program's functions from other modules, each read with its own module's facts
    (`taken`: the program's names so far; it grows)."""
    members: list[_Member] = []
    for foreign in plan.foreign:
        member = _foreign_member(foreign, taken)
        if member is not None:
            taken.add(member.name)
            members.append(member)
    return members


def _foreign_member(foreign: ForeignFunction, taken: set[str]) -> _Member | None:
    unit = foreign.unit
    node = unit.node  # a parse-cache lookup: the module's index keeps no tree
    assert isinstance(node, ast.FunctionDef)
    header = _foreign_header(foreign)
    if header is None:
        return None
    name = _unique(node.name, taken)
    return _Member(name, node, header, False, unit.node_offset, {}, None, foreign)


def _foreign_header(foreign: ForeignFunction) -> FunctionHeader | None:
    """An imported function's decorator read with its module's facts, once per module facts
    (`ModuleFacts.derived`; its diagnostics belong to its own file). Shared: never modified."""
    facts = foreign.facts

    def header() -> FunctionHeader | None:
        reader = DecoratorReader(facts.ctx, facts.lines, foreign.unit.node_offset)
        return reader.module_header(foreign.unit.node)  # type: ignore[arg-type]

    return facts.derive(("header", foreign.unit_index), header)


def _bind_foreign_callees(
    members: list[_Member],
    ctx: ModuleContext,
    callees_of: dict[int, dict[str, CalleeSignature]],
    signatures: dict[tuple[int, int], CalleeSignature],
) -> None:
    """Every name a module of the program binds to one of its members calls that member:
    `from helpers import rms_norm as norm` here, `kernel` in the helper's own module."""
    modules = {id(ctx): ctx}
    for member in members:
        if member.foreign is not None:
            modules[id(member.foreign.facts.ctx)] = member.foreign.facts.ctx
    for key, module in modules.items():
        callees = callees_of.setdefault(key, {})
        for local, foreign in module.foreign.items():
            signature = signatures.get((id(foreign.facts.ctx), foreign.unit_index))
            if signature is not None:
                callees[local] = signature
        if module is not ctx:
            for local, index in module.functions.items():
                signature = signatures.get((key, index))
                if signature is not None:
                    callees[local] = signature


def _methods(node: ast.ClassDef, reader: DecoratorReader, ctx: ModuleContext) -> list[_Member]:
    """The `@pl.function` methods of a program class (a later `def` of a name shadows an
    earlier one, as in Python), with the class-level constants they may read. Each method's
    text is its own key (`function_memo`): editing one method builds that method only."""
    strict = bool(reader.program_strict_ssa(node))
    class_constants = fold_assignments(node.body, dict(ctx.constants))
    methods: dict[str, _Member] = {}
    for stmt in node.body:
        if not isinstance(stmt, ast.FunctionDef):
            continue
        header = reader.method_header(stmt, strict)
        methods.pop(stmt.name, None)
        if header is not None:
            is_method = not header.host_python
            text = _text(stmt, reader)
            methods[stmt.name] = _Member(
                stmt.name,
                stmt,
                header,
                is_method,
                reader.line_offset,
                class_constants,
                text_key=text,
                text=text,
            )
    return list(methods.values())


def _text(node: ast.FunctionDef, reader: DecoratorReader) -> str:
    """A method's source lines, its decorators included."""
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    end = node.end_lineno or node.lineno
    return "\n".join(reader.source_lines[reader.line_offset + first - 1 : reader.line_offset + end])


def _unique(name: str, taken: set[str]) -> str:
    """`name`, or `name__2`, `name__3`, ... when distinct functions share a `def` name."""
    if name not in taken:
        return name
    suffix = 2
    while f"{name}__{suffix}" in taken:
        suffix += 1
    return f"{name}__{suffix}"


def _function_ctx(
    member: _Member,
    ctx: ModuleContext,
    source_lines: list[str],
    callees: dict[str, CalleeSignature],
    in_jit: bool,
) -> FunctionContext:
    axes = _bound_axes(member, ctx) if in_jit else ()
    return FunctionContext(
        module=ctx,
        source_lines=source_lines,
        line_offset=member.line_offset,
        callees=callees,
        class_constants=member.class_constants,
        in_jit=in_jit,
        bound_symbols=frozenset(symbol for _, _, symbol in axes),
        bound_axes=axes,
    )


def _bound_axes(member: _Member, ctx: ModuleContext) -> tuple[tuple[str, int, str], ...]:
    """The parameter axes a jit function's body binds to a dynamic symbol with a statement
    `p.bind_dynamic(i, ROWS)`, as (parameter, axis, variable) (the specialiser's
    `_collect_bind_dynamic_bindings`: such an axis is the symbol `ROWS`, the variable's name,
    whatever string `pl.dynamic` was given). Read off the text (a body of a thousand lines is
    built at every keystroke in it), a statement of its own on its line."""
    foreign = member.foreign
    if foreign is not None:  # once per module facts, without the text cache's bookkeeping
        bindings = foreign.facts.derive(
            ("bindings", foreign.unit_index), lambda: _bindings(foreign.unit.text)
        )
    else:
        bindings = _bindings(member.text)
    if not bindings:
        return ()
    params = {a.arg for a in member.node.args.args}
    return tuple(
        sorted(
            {
                (param, int(axis), symbol)
                for param, axis, symbol in bindings
                if param in params and symbol in ctx.dynamic_symbols
            }
        )
    )


_BIND_DYNAMIC = re.compile(
    r"^[ \t]*(\w+)\.bind_dynamic\(\s*(\d+)\s*,\s*(\w+)\s*\)[ \t]*(?:#.*)?$", re.MULTILINE
)


@sized_cache(SCAN_CACHE_CHARS, lambda text: len(text) + 1)
def _bindings(text: str) -> tuple[tuple[str, str, str], ...]:
    """The `p.bind_dynamic(i, SYMBOL)` statements of a text as (p, i, SYMBOL), kept by text: every
    member of a rebuilt program is asked at every keystroke (an entry and its host, with tens
    of imported helpers each)."""
    if "bind_dynamic" not in text:
        return ()
    return tuple(_BIND_DYNAMIC.findall(text))


def _unit_span(unit: Unit, source_lines: list[str]) -> Span:
    last = unit.end_line - 1
    return Span(unit.start_line, 0, last, len(source_lines[last]) if last < len(source_lines) else 0)


def _header_span(unit: Unit, source_lines: list[str]) -> Span:
    if isinstance(unit.node, ast.FunctionDef | ast.ClassDef):
        return name_span(unit.node, source_lines, unit.node_offset)
    return Span(unit.start_line, 0, unit.start_line, 0)
