"""What outlining one scope made, kept with the scope statement for the next run on the next
keystroke's program (issue 13: a keystroke costs what it changed).

A scope statement no earlier stage changed is the same object after an edit (the front end,
the splice, ConvertToSSA and the copy-on-write passes keep it), and the outlined function is a
function of that object and of what else the outlining reads: its name (program-wide naming,
redone every run), what is live after it (outputs depend on later statements), whether a
launch scope encloses it, whether the front end checked the IR, and each callee's declared
directions and returned parameters it asked for (asked again on a hit). Early cut-off: a
call site built again that comes out alike (the same function, argument and result objects)
is the statement of before, so what holds it can be taken whole by the next pass and
keystroke. Not kept: a scope with a nested scope of its kind (outlined inside it, naming and
reporting as it goes). A scope with a scalar output only the device computes is kept without
its PTO301s, which read the statements after the scope (a dead carry's hint): they are found
again at each run (a whole-model entry's spliced helpers hold tens of such scopes, and each
one made again made the scopes holding it new objects for the passes after).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from ..diagnostics import Diagnostic
from ..ir import (
    AssignStmt,
    Call,
    Const,
    EvalStmt,
    Function,
    ListExpr,
    ScopeKind,
    ScopeStmt,
    Stmt,
    TupleGetItem,
    Type,
    Var,
    same_blocks,
    same_items,
)
from ..results import OutlinedScope
from ..span import Span
from .outline_ir import stmt_children, substitute_stmt, with_blocks
from .scope_analysis import Output

# (a lookup the outliner answers, its arguments, its answer, what the answer was read from:
# `ScopeOutliner._witness`): asked again on a hit where that is not the same
Lookup = tuple[Callable[..., object], tuple[object, ...], object, object]


@dataclass(frozen=True)
class ScopeKey:
    """What outlining a scope reads besides the scope statement (and the lookups)."""

    kind: ScopeKind
    name: str
    used_after: frozenset[Var]
    enclosing: tuple[ScopeKind, ...]
    front_end_checked: bool


@dataclass
class Made:
    """One scope's outlining: the function, what its call site is built from, the problems
    found (replayed on a hit; its PTO301s found again), and the last call site and record
    built from it."""

    fn: Function
    hoisted: list[AssignStmt]
    captures: list[Var]
    returned: list[Output]
    aliases: dict[Var, Var]
    calls: list[Call] | None  # every call of `fn`'s body, when no nested scope was outlined
    problems: list[Diagnostic]  # its PTO301s aside
    lookups: list[Lookup] = field(default_factory=list)
    unhoistable: list[Var] = field(default_factory=list)  # the scalars of its PTO301s
    scalars_at: int = 0  # where in `problems` its PTO301s go
    site: list[Stmt] = field(default_factory=list)
    fresh: dict[str, Var] = field(default_factory=dict)  # the call site's new variables by name
    record: tuple[str, str, OutlinedScope] | None = None  # (program, parent, record)

    def fresh_var(self, name: str, type_: Type, span: Span, pool: dict[str, Var] | None = None) -> Var:
        """A new variable: the one the last call site made of this name, type and span where
        there is one (so the statements reading it are alike, and taken, too), else the one
        the function's last walk made so (`pool`, which it joins: a name is minted once per
        walk of a function, so a scope made anew by a keystroke binds the variable of before
        and the statements after it read what they read)."""
        var = self.fresh.get(name)
        if var is None or var.type != type_ or var.span != span:
            var = pool.get(name) if pool is not None else None
            if var is None or var.type != type_ or var.span != span:
                var = Var(name, type_, span)
        if pool is not None:
            pool[name] = var
        return var

    def take_site(self, stmts: list[Stmt]) -> list[Stmt]:
        """The last call site when `stmts` is alike (early cut-off), else `stmts`, kept."""
        if len(stmts) == len(self.site) and all(map(_same_stmt, stmts, self.site)):
            return self.site
        self.site = stmts
        self.fresh = {s.target.name: s.target for s in stmts if isinstance(s, AssignStmt)}
        self.record = None
        return stmts


class _Answered(Protocol):
    lookups: list[Lookup]


_Entry = TypeVar("_Entry", bound=_Answered)
_Key = TypeVar("_Key")
_KEPT = 4  # kept per scope (copies of one, an unrolled loop's, differ in name) or statement


def answered(
    table: weakref.WeakKeyDictionary[Stmt, dict[_Key, _Entry]],
    node: Stmt,
    key: _Key,
    answer: Callable[[Lookup], object],
) -> _Entry | None:
    """The entry `table` keeps for `node` under `key` whose lookups `answer` still answers alike."""
    found = table.get(node, {}).get(key)
    if found is None or any(answer(lookup) != lookup[2] for lookup in found.lookups):
        return None
    return found


def put(
    table: weakref.WeakKeyDictionary[Stmt, dict[_Key, _Entry]], node: Stmt, key: _Key, entry: _Entry
) -> None:
    """Keep `entry` for `node` under `key`, the newest `_KEPT` per node."""
    entries = table.setdefault(node, {})
    entries.pop(key, None)
    entries[key] = entry
    while len(entries) > _KEPT:
        del entries[next(iter(entries))]


_MADE: weakref.WeakKeyDictionary[Stmt, dict[ScopeKey, Made]] = weakref.WeakKeyDictionary()


def kept(scope: ScopeStmt, key: ScopeKey, answer: Callable[[Lookup], object]) -> Made | None:
    """The outlining kept for `scope` under `key` whose lookups `answer` still answers alike."""
    return answered(_MADE, scope, key, answer)


def keep(scope: ScopeStmt, key: ScopeKey, made: Made) -> None:
    put(_MADE, scope, key, made)


def _same_stmt(a: Stmt, b: Stmt) -> bool:
    """Two call-site statements alike: same kind, span, target and value (`_same_value`)."""
    if type(a) is not type(b) or a.span != b.span:  # type: ignore[union-attr]
        return False
    if isinstance(a, AssignStmt):
        assert isinstance(b, AssignStmt)
        return a.target is b.target and a.annotation == b.annotation and _same_value(a.value, b.value)
    assert isinstance(a, EvalStmt) and isinstance(b, EvalStmt)
    return _same_value(a.expr, b.expr)


def _same_value(a: object, b: object) -> bool:
    """A call site's value alike: a call of one function on the same argument objects with the
    same keywords and attributes, or a projection of the same tuple variable."""
    if isinstance(a, TupleGetItem):
        return (
            isinstance(b, TupleGetItem)
            and a.tuple is b.tuple
            and a.index == b.index
            and a.type == b.type
            and a.span == b.span
        )
    if not (isinstance(a, Call) and isinstance(b, Call)):
        return False
    return (
        a.op == b.op
        and a.callee == b.callee
        and a.submit == b.submit
        and a.span == b.span
        and a.type == b.type
        and same_items(a.args, b.args)
        and a.kwargs.keys() == b.kwargs.keys()
        and all(_same_keyword(a.kwargs[k], b.kwargs[k]) for k in a.kwargs)
        and a.attrs == b.attrs  # lists of variables (identity), the scope's own expressions, values
    )


def _same_keyword(a: object, b: object) -> bool:
    if isinstance(a, ListExpr) and isinstance(b, ListExpr):
        return same_items(a.items, b.items)
    if isinstance(a, Const) and isinstance(b, Const):
        return a.value == b.value and a.type == b.type
    return a is b


# per statement, the renames its last substitution read (those of the variables it mentions)
# and the statement that substitution made (None: the statement itself, which a value of a weak
# table must never hold: the entry would keep its own key alive)
_RENAMED: weakref.WeakKeyDictionary[Stmt, tuple[frozenset[tuple[Var, Var]], Stmt | None]] = (
    weakref.WeakKeyDictionary()
)


def renamed(stmt: Stmt, mentions: set[Var], renames: dict[Var, Var]) -> Stmt:
    """`substitute_stmt(stmt, renames)` (`mentions`: every variable `stmt` mentions, at any
    depth), the statement the last substitution of `stmt` made where the renames of what it
    mentions are the same: an outliner's call site rebinds what it exports, and the statements
    reading it after the scope are renamed alike every run, so what holds them can be taken."""
    read = renames_read(mentions, renames)
    if not read:
        return stmt
    last = _RENAMED.get(stmt)
    if last is not None and last[0] == read:
        return stmt if last[1] is None else last[1]
    new = substitute_stmt(stmt, renames)
    _RENAMED[stmt] = (read, None if new is stmt else new)
    return new


def renames_read(mentions: set[Var], renames: dict[Var, Var]) -> frozenset[tuple[Var, Var]]:
    """The renames of the variables in `mentions` (walking the smaller of the two)."""
    if len(renames) < len(mentions):
        return frozenset((v, new) for v, new in renames.items() if v in mentions)
    return frozenset((v, renames[v]) for v in mentions if v in renames)


# per statement holding blocks, the statement the last rebuild of it around new blocks made
_REBUILT: weakref.WeakKeyDictionary[Stmt, Stmt] = weakref.WeakKeyDictionary()


def rebuilt(stmt: Stmt, blocks: Sequence[list[Stmt]]) -> Stmt:
    """`with_blocks(stmt, blocks)`, the statement the last rebuild of `stmt` made where its
    blocks hold the same statement objects: a loop or `pl.spmd` holding a scope the outliner
    replaces is rebuilt every run, and alike every run where the call sites are taken (early
    cut-off: the next pass, and the next keystroke's, take it whole)."""
    new = with_blocks(stmt, blocks)
    if new is stmt:
        return stmt
    last = _REBUILT.get(stmt)
    if last is not None and same_blocks(stmt_children(last), blocks):
        return last
    _REBUILT[stmt] = new
    return new


# per scope with scalars only the device computes, its last PTO301s: the scalars and name they
# were found for, and for each scalar the statements after the scope that mention it
_SCALARS: weakref.WeakKeyDictionary[
    ScopeStmt, tuple[tuple[str, tuple[Var, ...]], list[tuple[Stmt, ...]], list[Diagnostic]]
] = weakref.WeakKeyDictionary()


def scalar_problems(
    scope: ScopeStmt,
    name: str,
    scalars: tuple[Var, ...],
    later: Callable[[Var], list[list[Stmt]]],
    mentioning: Callable[[Var], tuple[Stmt, ...]],
    find: Callable[[Callable[[Var], list[list[Stmt]]]], list[Diagnostic]],
) -> list[Diagnostic]:
    """`find(later)`, the PTO301s of `scope` (`scope_checks.unhoistable_scalars`), as the last
    run found them where the statements after the scope that mention each scalar (`later`:
    the blocks after it; `mentioning`: those statements, at any depth, the walk's blocks
    keeping where each variable is mentioned) are the same objects. What they say of a dead
    carry is read from those statements alone, and a keystroke elsewhere leaves them alike,
    while reading them again walked every later loop mentioning the scalar (a fourteenth of
    a keystroke in prefill_cp_csa)."""
    read = [mentioning(var) for var in scalars]
    key = (name, scalars)
    last = _SCALARS.get(scope)
    if last is not None and last[0] == key and all(map(same_items, last[1], read)):
        return last[2]
    found = find(later)
    _SCALARS[scope] = (key, read, found)
    return found
