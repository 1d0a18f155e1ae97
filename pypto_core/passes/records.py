"""The user-facing record of one outlined scope (what lenses, hover and the CLI show).

Everything here uses base names (D11): the call reads like the source the user wrote,
`out = self.main_incore_0(x, off, out)`, not like the SSA IR.
"""

from __future__ import annotations

import weakref
from functools import lru_cache, partial

from ..ir import (
    AssignStmt,
    Call,
    Direction,
    EvalStmt,
    ForStmt,
    Function,
    FunctionType,
    IfStmt,
    Level,
    Program,
    ReturnStmt,
    Role,
    ScopeKind,
    ScopeStmt,
    Stmt,
    TupleGetItem,
    Type,
    Var,
    WhileStmt,
    same_items,
)
from ..printer import format_type, print_expr, print_function
from ..results import OutlinedParam, OutlinedScope
from .names import base_name
from .outline_ir import stmt_children


def outlined_record(
    program: str, parent: str, scope: ScopeStmt, fn: Function, call_stmts: list[Stmt], kind: ScopeKind
) -> OutlinedScope:
    returned = _returned(fn)
    shown = _shown_names(scope)
    return OutlinedScope(
        name=fn.name,
        kind=kind.value,
        function_type=fn.type.value,
        program=program,
        parent=parent,
        level=_value(scope.level or fn.level or _ORCHESTRATION_LIKE.get(fn.type, (None, None))[0]),
        role=_value(scope.role or fn.role or _ORCHESTRATION_LIKE.get(fn.type, (None, None))[1]),
        scope_span=scope.span,
        header_span=scope.header_span,
        params=tuple(
            _param(base_name(p.var.name), p.direction, p.var.type, _shown(shown, p.var)) for p in fn.params
        ),
        returns=tuple(text for _, text in returned),
        shown_returns=tuple(_shown(shown, v) if isinstance(v, Var) else text for v, text in returned),
        call=partial(display_call, call_stmts),  # printed when first read
        name_span=scope.name_span,
    )  # `function_text`, and `call` again, come from the final program (`finalise_records`)


@lru_cache(maxsize=4096)
def _param(name: str, direction: Direction, type_: Type, shown: str) -> OutlinedParam:
    """A file's records repeat the same few parameters, and a record's parameter is a frozen
    value: each is built once."""
    return OutlinedParam(name, direction, format_type(type_), shown)


# The compiler gives every orchestration-like function level CHIP and role Orchestrator.
_ORCHESTRATION_LIKE = {
    FunctionType.Graph: (Level.CHIP, Role.Orchestrator),
    FunctionType.Orchestration: (Level.CHIP, Role.Orchestrator),
}


def _value(member: Level | Role | None) -> str | None:
    return member.value if member is not None else None


def _shown_names(scope: ScopeStmt) -> dict[str, str]:
    """`ScopeStmt.shown_names` by IR stem, the first entry for a stem winning (read once per
    record: a helper spliced into a big caller shows hundreds of names, and a scope captures
    tens of variables)."""
    shown: dict[str, str] = {}
    for ir_stem, name in scope.shown_names:
        shown.setdefault(ir_stem, name)
    return shown


def _shown(shown: dict[str, str], var: Var) -> str:
    """The name the reader sees for `var` at the scope: the inline helper's name for a caller
    variable when the scope was spliced from one (`_shown_names`), else its base name."""
    if shown:
        name = shown.get(var.name.split("__", 1)[0])
        if name is not None:
            return name
    return base_name(var.name)


def _returned(fn: Function) -> list[tuple[object, str]]:
    returns = [s for s in fn.body if isinstance(s, ReturnStmt)]
    return [(v, print_expr(v, display=True)) for v in returns[-1].values] if returns else []


def display_call(call_stmts: list[Stmt]) -> str:
    """`a, b = self.f(x, y)` from the statements a call site became (base names)."""
    call: Call | None = None
    targets: list[Var] = []
    for stmt in call_stmts:
        if isinstance(stmt, EvalStmt) and isinstance(stmt.expr, Call):
            call = stmt.expr
        elif isinstance(stmt, AssignStmt) and isinstance(stmt.value, Call):
            call = stmt.value
            targets = [stmt.target]
        elif isinstance(stmt, AssignStmt) and isinstance(stmt.value, TupleGetItem):
            if targets and targets[0] is _tuple_source(stmt.value):
                targets = []
            targets.append(stmt.target)
    text = print_expr(call, display=True) if call is not None else ""
    if not targets:
        return text
    return f"{', '.join(t.base_name for t in targets)} = {text}"


def _tuple_source(item: TupleGetItem) -> Var | None:
    return item.tuple if isinstance(item.tuple, Var) else None


def finalise_records(records: list[OutlinedScope], program: Program) -> list[OutlinedScope]:
    """Later passes move calls (an InCore call inside a `pl.spmd` ends up in the Spmd function),
    stamp launch attributes on them (an unwrapped cluster's block count), rewrite outlined
    bodies (a Graph function's InCore scopes) and promote outlined functions (a Hierarchy
    function holding an InCore scope becomes Orchestration): describe every record from the
    final program."""
    sites = _call_sites(program)
    functions = {fn.name: fn for fn in reversed(program.functions)}  # the first of a name, as Program.get
    final: list[OutlinedScope] = []
    kept = _FINALS
    for record in records:
        name = record.name
        site = sites.get(name)
        fn = functions.get(name)
        entry = kept.get(id(record))  # inline: a keystroke meets hundreds, nearly all kept
        if entry is not None and entry[0]() is record and entry[2] is fn and _same_site(entry[1], site):
            final.append(entry[3])
            continue
        changes: dict[str, object] = {}
        if site is not None:
            changes["parent"], changes["call"] = site[0], partial(display_call, site[1])
        if fn is not None:
            changes["function_text"] = partial(print_function, fn, display=True)  # printed when first read
            changes["function_type"] = fn.type.value  # a Hierarchy function the InCore pass promoted
        revised = record.revised(**changes)
        _keep_final(record, site, fn, revised)
        final.append(revised)
    return final


_Site = tuple[str, list[Stmt]]  # an outlined function's call site: the function holding it, its statements


def _same_site(old: _Site | None, new: _Site | None) -> bool:
    """The same object while the function holding it is (`_call_sites`); else alike: the same
    parent and statements (a function made anew holds the statements it was made from)."""
    if old is new:
        return True
    return old is not None and new is not None and old[0] == new[0] and same_items(old[1], new[1])


# Each record's final form, with the call site and function it was made from, while the record
# lives: a keystroke's run meets again the records of every scope the outliners took (hundreds
# in a whole-model program), whose sites and functions are the objects of before. By the
# record's identity (it compares by value, so it cannot key a weak table), the entry dropped
# when the record goes; it holds the record only weakly.
_FINALS: dict[int, tuple[weakref.ref[OutlinedScope], _Site | None, Function | None, OutlinedScope]] = {}


def _keep_final(record: OutlinedScope, site: _Site | None, fn: Function | None, final: OutlinedScope) -> None:
    key = id(record)
    _FINALS[key] = (weakref.ref(record, lambda _, key=key: _FINALS.pop(key, None)), site, fn, final)  # type: ignore[misc]


def _call_sites(program: Program) -> dict[str, _Site]:
    """Outlined name -> (function holding its call, the call statement and its projections):
    the first call of each in the blocks of each function, the outermost first, pre-order."""
    sites: dict[str, _Site] = {}
    kept = _FUNCTION_SITES
    for fn in reversed(program.functions):  # each function's over the later ones': the first wins
        entry = kept.get(id(fn))
        if entry is not None and entry[0]() is fn:
            own = entry[1]
        else:
            own = _block_sites(fn.body, fn.name)
            key = id(fn)
            kept[key] = (weakref.ref(fn, lambda _, key=key: kept.pop(key, None)), own)  # type: ignore[misc]
        if own:
            sites.update(own)
    return sites


def _block_sites(block: list[Stmt], name: str) -> dict[str, _Site]:
    """`_call_sites` of one block of the function `name`: its own statements' calls, then those
    of the blocks of each statement in it, in order (so a compound statement's are its own,
    kept with it)."""
    sites: dict[str, _Site] = {}
    projections: dict[int, list[tuple[int, Stmt]]] | None = None  # at the first bound call
    for i, stmt in enumerate(block):
        call = _stmt_call(stmt)
        if call is None or call.callee is None or call.callee in sites:
            continue
        stmts = [stmt]
        if type(stmt) is AssignStmt:
            if projections is None:
                projections = _projections(block)
            stmts += [s for at, s in projections.get(id(stmt.target), []) if at > i]
        sites[call.callee] = (name, stmts)
    for stmt in block:
        if type(stmt) in _COMPOUND:
            for callee, site in _stmt_sites(stmt, name).items():
                sites.setdefault(callee, site)
    return sites


def _stmt_sites(stmt: Stmt, name: str) -> dict[str, _Site]:
    """The call sites in the blocks of a compound statement of the function `name`, kept with
    it (`_SITES`): a keystroke's program shares all but the edited path with the last one's,
    and a kept statement's sites are the objects of before, in a function made anew too (so
    its records are taken at once, `_same_site`)."""
    known = _SITES.get(stmt)
    if known is None or known[0] != name:
        inner: dict[str, _Site] = {}
        for child in stmt_children(stmt):
            for callee, site in _block_sites(child, name).items():
                inner.setdefault(callee, site)
        known = _SITES[stmt] = (name, inner)
    return known[1]


_COMPOUND = frozenset({ForStmt, WhileStmt, IfStmt, ScopeStmt})
# a compound statement of a pass's output -> the function it was met in and the call sites in its
# blocks (no pass modifies one: the values hold statements inside it, never itself)
_SITES: weakref.WeakKeyDictionary[Stmt, tuple[str, dict[str, _Site]]] = weakref.WeakKeyDictionary()
# the same of a function's body, each site with the function's name (a keystroke's program shares
# all but a few of its hundreds of outlined functions with the last one's: no pass modifies a
# function), by the function's identity, dropped when it goes, as `_FINALS` (a weak table's
# lookup cost more than the rest)
_FUNCTION_SITES: dict[int, tuple[weakref.ref[Function], dict[str, _Site]]] = {}


def _projections(block: list[Stmt]) -> dict[int, list[tuple[int, Stmt]]]:
    """`x = t[k]` statements of a block by the identity of `t`, with their positions: one pass,
    where looking after each call for its projections was quadratic in a block of calls."""
    found: dict[int, list[tuple[int, Stmt]]] = {}
    for at, stmt in enumerate(block):  # exact types, as `_stmt_call`
        if type(stmt) is AssignStmt and type(stmt.value) is TupleGetItem:
            found.setdefault(id(stmt.value.tuple), []).append((at, stmt))
    return found


def _stmt_call(stmt: Stmt) -> Call | None:
    """The call an assignment or expression statement makes at its top (exact types: no IR
    class is subclassed)."""
    kind = type(stmt)
    value = stmt.value if kind is AssignStmt else stmt.expr if kind is EvalStmt else None  # type: ignore[union-attr]
    return value if type(value) is Call else None  # type: ignore[return-value]
