"""What an outliner's visit of one top-level statement did, kept with the statement for the
next run (issue 13: early cut-off above the scope).

A whole-model entry after splicing is one function of thousands of statements holding hundreds
of scopes; a keystroke changes one top-level statement of it, and the outliner visited every
scope of every other one again (each kept outlining looked up, its call site built and
compared, its name and record made). The visit of a top-level statement is a function of the
statement object and of what it reads of the walk: the renames of the variables it mentions,
which of them are mentioned after it, the naming base and counter, the pass and program, the
callees' answers (`outline_memo.Lookup`), and the answers of the name sets (the function's
`NameAllocator`, the program's reserved names). So the visit is kept (`StmtRun`) under the first
ones (`RunKey`), and taken again where the lookups answer alike and each name operation it made,
done again in order, gives the name it gave (`Names.redo`; taken back, `Names.undo`, where one
does not): then its output is what a visit gives, and its effects are replayed in their order
(`Event`): the problems found, the program-wide part of each name (the PTO601 notes), the
functions minted with their records, and the PTO301s, which read the statements after the
scope and are found again. What a run cannot replay is not kept (a Group whose Spmd scope the
Cluster pass unwraps in place after the run; a lookup of a function minted inside the
statement).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from ..diagnostics import Diagnostic
from ..ir import Call, Function, ScopeKind, ScopeStmt, Stmt, Var
from ..recurring import all_kept
from ..results import OutlinedScope
from ..span import Span
from .names import NameAllocator, ssa_name
from .outline_memo import Lookup, answered, put


class RunKey(NamedTuple):
    """What visiting a statement reads of the walk, besides the statement, the lookups and the
    name sets."""

    kind: ScopeKind
    program: str
    front_end_checked: bool
    naming: str  # the name its unnamed scopes derive from (the function, or an outlined parent)
    counter: int  # the naming counter on entry
    enclosing: tuple[ScopeKind, ...]  # the scopes around it inside the function
    renames: frozenset[tuple[Var, Var]]  # of the variables it mentions
    later: frozenset[Var]  # the variables it binds that are mentioned after it
    anything_later: bool  # whether anything is mentioned after it


class Report(NamedTuple):
    diagnostics: tuple[Diagnostic, ...]


class Named(NamedTuple):
    """A name a scope's name_hint asked for: the program-wide notes on it (PTO601), with what
    they are made of, made once per visit (a whole-model entry's replay notes hundreds)."""

    candidate: str
    name: str
    site: Span
    taken: Diagnostic | None  # the note where another scope took the name_hint (a name not asked)
    key: tuple[object, ...]  # the scope's copy note's (`outliner._CopyNote`): name_hint, site, hashed in C


@dataclass
class BlockMentions:
    """Where each variable is last mentioned in a block (`last`; the placeholders `dropped`
    left out) and the last place mentioning anything, with what they were made of: each
    statement's mentions (its facts: compared by `==`, identity first, to take them for the
    next run's block). Kept across runs while the block's statements mention what they did,
    so are the places after a position mentioning a variable (`mentioning`), which a scope's
    PTO301s read at each run."""

    mentions: list[set[Var]]
    dropped: set[int]
    last: dict[Var, int]
    last_any: int
    _at: dict[tuple[Var, int], tuple[int, ...]] = field(default_factory=dict)

    def mentioning(self, stmts: list[Stmt], var: Var, position: int) -> list[Stmt]:
        """The statements of `stmts` (this block) after `position` that mention `var`."""
        at = self._at.get((var, position))
        if at is None:
            mentions = self.mentions
            at = self._at[var, position] = tuple(
                j for j in range(position + 1, len(mentions)) if var in mentions[j]
            )
        return [stmts[j] for j in at]


# the path an outliner walked down to a statement: each block, the place in it, its mentions
Path = tuple[tuple[list[Stmt], int, BlockMentions], ...]


class Scalars(NamedTuple):
    """A scope's PTO301s, found again at each run: they read the statements after the scope
    (`path`: the blocks walked down to it, outermost first, each with the place walked in it
    and where each variable is last mentioned in it, so a block after that place is read only
    for a scalar it mentions).
    Logged with the whole path from the function body; kept with the part below the statement
    whose visit is kept, `scope` None when it is that statement (no value holds its key)."""

    scope: ScopeStmt | None
    name: str
    unhoistable: tuple[Var, ...]
    path: Path


class Minted(NamedTuple):
    fn: Function
    calls: list[Call] | None
    record: OutlinedScope


Event = Report | Named | Scalars | Minted


class NameOp(NamedTuple):
    """One question to the name sets and its answer: `op` is a `Names` method name."""

    op: str
    args: tuple[object, ...]
    result: object


class Rename(NamedTuple):
    """A store target's latest value set at the level of the statement visited (outliving it):
    `carried` through the enclosing loop or `if` when it was defined outside it."""

    target: Var
    value: Var
    carried: bool


class Batch(NamedTuple):
    """Consecutive events of a kept visit whose replay reads nothing of the run (problems,
    functions minted with their records, names a name_hint got as asked or the program-wide
    mark of one it did not), merged so a replay applies them at once: a top-level statement
    of a whole-model entry holds hundreds of scopes, and a replay doing each of its events in
    turn cost in proportion to them. `events`: the events merged, for a visit being recorded."""

    diagnostics: tuple[Diagnostic, ...]
    hints: dict[str, Span]  # each name chosen -> its name_hint's site (names are chosen once)
    functions: tuple[Function, ...]  # minted, in order
    calls: dict[Function, list[Call]]  # of those whose calls are known
    records: tuple[OutlinedScope, ...]
    events: tuple[Event, ...]


def batched(events: list[Event]) -> list[Batch | Named | Scalars]:
    """`events` as a replay applies them: each run of events reading nothing of the run one
    `Batch`; a name_hint given another name (its PTO601 reads the notes so far) after the
    batch holding its mark, a scope's PTO301s (they read the statements after it) alone."""
    out: list[Batch | Named | Scalars] = []
    diagnostics: list[Diagnostic] = []
    hints: dict[str, Span] = {}
    minted: list[Minted] = []
    start = 0

    def close(end: int) -> None:
        if end > start:
            out.append(
                Batch(
                    tuple(diagnostics),
                    dict(hints),
                    tuple(m.fn for m in minted),
                    {m.fn: m.calls for m in minted if m.calls is not None},
                    tuple(m.record for m in minted),
                    tuple(events[start:end]),
                )
            )
            diagnostics.clear()
            hints.clear()
            minted.clear()

    for i, event in enumerate(events):
        if isinstance(event, Report):
            diagnostics += event.diagnostics
        elif isinstance(event, Minted):
            minted.append(event)
        elif isinstance(event, Named):
            hints[event.name] = event.site
            if event.name != event.candidate:
                close(i + 1)
                start = i + 1
                out.append(event)
        else:
            close(i)
            start = i + 1
            out.append(event)
    close(len(events))
    return out


@dataclass
class StmtRun:
    """One visit of a statement: its output and what it did, in order."""

    out: list[Stmt]
    events: list[Event]
    names: list[NameOp]
    renames: list[Rename]
    lookups: list[Lookup]
    counted: int  # naming counter steps
    outlined: int
    _batched: list[Batch | Named | Scalars] | None = None

    def replayed(self) -> list[Batch | Named | Scalars]:
        """`batched(self.events)`, made at the first replay."""
        if self._batched is None:
            self._batched = batched(self.events)
        return self._batched


class Mark(NamedTuple):
    """Where the logs stood when a statement's visit began, and the walk's state then."""

    events: int
    names: int
    lookups: int
    renames: int
    spoiled: int
    path: int  # the walk's depth, the statement's own place included
    frames: int
    naming: object
    counter: int
    outlined: int


@dataclass
class Recording:
    """The logs of the visits being recorded (each statement's visit inside another's), shared:
    a visit's run is the part logged while it lasted. The renames logged with the depth of
    frames and the naming they were set at (`Mark.frames`, `Mark.naming`)."""

    names: Names
    events: list[Event] = field(default_factory=list)
    lookups: list[Lookup] = field(default_factory=list)
    renames: list[tuple[Rename, int, object]] = field(default_factory=list)
    spoiled: int = 0  # visits that cannot be replayed (`spoil`)
    active: int = 0

    def begin(self, path: int, frames: int, naming: object, counter: int, outlined: int) -> Mark:
        if not self.active:
            self.names.log = []
        self.active += 1
        assert self.names.log is not None
        return Mark(
            len(self.events),
            len(self.names.log),
            len(self.lookups),
            len(self.renames),
            self.spoiled,
            path,
            frames,
            naming,
            counter,
            outlined,
        )

    def end(self, mark: Mark, stmt: Stmt, out: list[Stmt], counter: int, outlined: int) -> StmtRun | None:
        """The run logged since `mark` (None when it cannot be replayed), its Scalars cut to
        the part below `stmt`."""
        assert self.names.log is not None
        run = None
        if self.spoiled == mark.spoiled:
            run = StmtRun(
                out,
                [_below(e, stmt, mark.path) for e in self.events[mark.events :]],
                self.names.log[mark.names :],
                [
                    r
                    for r, frames, naming in self.renames[mark.renames :]
                    if frames == mark.frames and naming is mark.naming
                ],
                _distinct(self.lookups[mark.lookups :]),
                counter - mark.counter,
                outlined - mark.outlined,
            )
        self.active -= 1
        if not self.active:
            self.events.clear()
            self.lookups.clear()
            self.renames.clear()
            self.names.log = None
        return run

    def open(self) -> None:
        """Record the whole walk of a function body (`outline_resume`): every visit logs."""
        assert not self.active
        self.names.log = []
        self.active = 1

    def close(self) -> None:
        self.active -= 1
        assert not self.active
        self.events.clear()
        self.lookups.clear()
        self.renames.clear()
        self.names.log = None

    def spoil(self) -> None:
        """The visits being recorded did what a replay cannot do again."""
        self.spoiled += 1


def _below(event: Event, stmt: Stmt, depth: int) -> Event:
    if not isinstance(event, Scalars):
        return event
    return Scalars(
        None if event.scope is stmt else event.scope, event.name, event.unhoistable, event.path[depth:]
    )


def _distinct(lookups: list[Lookup]) -> list[Lookup]:
    """One lookup per question a callee's answer depends on (its name, the call's arity, the
    rest of the arguments): a helper's scopes spliced twice ask the same ones."""
    found: dict[tuple[object, ...], Lookup] = {}
    for lookup in lookups:
        ask, args = lookup[0], lookup[1]
        call = args[0]
        key = (
            (ask, call.callee, len(call.args), *args[1:]) if isinstance(call, Call) else (ask, *map(id, args))
        )
        found.setdefault(key, lookup)
    return list(found.values())


@dataclass
class Names:
    """The name sets an outliner asks (the function's allocator, the program's reserved names),
    each question logged while a visit is recorded (`log`), and redone with what it added
    journaled (`journal`) while a kept one is taken, so a run that does not hold is taken back."""

    local: NameAllocator
    reserved: set[str]
    log: list[NameOp] | None = None
    journal: list[tuple[set[str], str]] | None = None

    def _add(self, names: set[str], name: str) -> None:
        if self.journal is not None and name not in names:
            self.journal.append((names, name))
        names.add(name)

    def choose(self, candidate: str, base: str) -> str:
        """The name of a scope asking for `candidate` (§4.2.2): itself when free, else the
        smallest free `candidate_<i>`, or `base_candidate` when only the program has it."""
        local, reserved = self.local.used, self.reserved
        if candidate in local:
            name = _smallest_free(candidate, local, reserved)
        elif candidate in reserved:
            prefixed = f"{base}_{candidate}"
            name = (
                prefixed
                if prefixed not in local and prefixed not in reserved
                else _smallest_free(prefixed, local, reserved)
            )
        else:
            name = candidate
        self._add(local, name)
        self._add(reserved, name)
        if self.log is not None:
            self.log.append(NameOp("choose", (candidate, base), name))
        return name

    def fresh_like(self, name: str, role: str | None = None) -> str:
        fresh = self.local.fresh_like(name, role)  # a name not in use before: it adds it
        if self.journal is not None:
            self.journal.append((self.local.used, fresh))
        if self.log is not None:
            self.log.append(NameOp("fresh_like", (name, role), fresh))
        return fresh

    def fresh_version(self, base: str, roles: tuple[str, ...], start: int = 0) -> int:
        n = self.local.fresh_version(base, roles, start)  # names not in use before: it adds them
        if self.journal is not None:
            self.journal.extend((self.local.used, ssa_name(base, r, n)) for r in roles)
        if self.log is not None:
            self.log.append(NameOp("fresh_version", (base, roles, start), n))
        return n

    def redo(self, ops: Iterable[NameOp]) -> bool:
        """Ask each of `ops` again, in order: True if every answer is the one logged, else
        what they added is taken back and False."""
        journal: list[tuple[set[str], str]] = []
        self.journal = journal
        log = self.log
        logged = len(log) if log is not None else 0
        floors = self.local.floors
        floored = len(floors) if floors is not None else 0
        local, reserved = self.local.used, self.reserved
        try:
            for op in ops:
                name = op.result
                if (
                    op.op == "choose"
                    and isinstance(name, str)
                    and name == op.args[0]
                    and name not in local
                    and name not in reserved
                ):
                    # `choose` giving the name asked for, done here: most of a replay's names
                    local.add(name)
                    reserved.add(name)
                    journal += ((local, name), (reserved, name))
                    if log is not None:
                        log.append(op)
                elif getattr(self, op.op)(*op.args) != name:
                    self.undo(self.journal)
                    if self.log is not None:
                        del self.log[logged:]
                    if floors is not None:
                        del floors[floored:]  # what it set of the floors is not so
                    return False
            return True
        finally:
            self.journal = None

    def undo(self, journal: list[tuple[set[str], str]]) -> None:
        for names, name in journal:
            names.discard(name)
        self.local.forget()


def _smallest_free(candidate: str, local: set[str], reserved: set[str]) -> str:
    """The first `candidate_<i>` in neither set (asked per colliding scope: the union of the
    function's names and the program's would be built once per scope)."""
    i = 0
    while f"{candidate}_{i}" in local or f"{candidate}_{i}" in reserved:
        i += 1
    return f"{candidate}_{i}"


_RUNS: weakref.WeakKeyDictionary[Stmt, dict[RunKey, StmtRun]] = weakref.WeakKeyDictionary()


def kept_run(stmt: Stmt, key: RunKey, answer: Callable[[Lookup], object]) -> StmtRun | None:
    """The visit of `stmt` kept under `key` whose lookups `answer` still answers alike."""
    return answered(_RUNS, stmt, key, answer)


def met_before(stmt: Stmt) -> bool:
    """Whether a run met `stmt` before, or keeps everything at the first meeting (then its
    visit is recorded, `recurring.keeping_all`): a statement made anew for every edit, and
    every statement of a one-shot analysis, costs no recording."""
    if stmt in _RUNS:
        return True
    _RUNS[stmt] = {}
    return all_kept()


def keep_run(stmt: Stmt, key: RunKey, run: StmtRun) -> None:
    """Keep `run` for `stmt` unless it would keep `stmt` alive or asked for a function minted
    inside it (which a replay asks before minting it)."""
    if any(s is stmt for s in run.out):
        return
    minted = {e.fn.name for e in run.events if isinstance(e, Minted)}
    asked = (a for lookup in run.lookups for a in lookup[1])
    if minted and any(isinstance(a, Call) and a.callee in minted for a in asked):
        return
    put(_RUNS, stmt, key, run)  # (a statement shared by programs: a host's and its entry's)
