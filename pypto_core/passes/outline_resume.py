"""An outliner's walk of a function body's top-level statements, kept whole for the next run
(issue 13: the statements before and after an edit taken at once, not one by one).

A whole-model entry after splicing can be one flat block of 600 top-level statements. Keeping
each statement's visit (`outline_replay`) left a keystroke paying every statement's key, lookups,
name questions and replay, and the block's own scans (placeholders, mentions, names), in
proportion to the block. So the walk of the body is kept as one record (`BodyRun`): its output
and, in order, what it did (events, name questions, lookups, top-level renames, the names added
to the function's and the program's name sets), with the logs' lengths before each top-level
statement (`Marks`). The next run of the same function, whose body differs from the record's
only in statements that mention what they mentioned (so every other statement knows what it
knew of what follows it: the record's `BlockMentions` is the new block's), takes the statements
before the first changed one at once (their state coming in is the function's start), walks
the changed ones, and then takes the rest at once where the walk's state coming in is the one
the record had there (early cut-off, as `ssa_resume`): the same naming counter and top-level
renames, the rest's lookups answering alike, and no name question of the rest able to read a
name that differs between the two name sets (`Families`: each question reads only names of
a few shapes, indexed by the first and last place a question of each shape is asked).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from ..ir import Call, Function, ScopeKind, Stmt, Var
from ..recurring import all_kept
from ..results import OutlinedScope
from .names import ssa_name
from .outline_memo import Lookup
from .outline_replay import Batch, BlockMentions, Event, Named, NameOp, Scalars, batched

_NO_BODY: list[Stmt] = []  # never added to


def top_form(event: Event) -> Event:
    """`event` as a body record keeps it: a PTO301 search without the body list it was found
    in (its top-level place kept), which `at_body` gives it again."""
    if not isinstance(event, Scalars) or not event.path:
        return event
    _, at, block = event.path[0]
    return Scalars(event.scope, event.name, event.unhoistable, ((_NO_BODY, at, block), *event.path[1:]))


def at_body(event: Scalars, body: list[Stmt], block: BlockMentions) -> Scalars:
    """The PTO301 search of `event` (in a body record's form) against the body being walked."""
    at = event.path[0][1]
    return Scalars(event.scope, event.name, event.unhoistable, ((body, at, block), *event.path[1:]))


@dataclass
class Marks:
    """Per top-level place (one more than the statements: the end), the lengths of a body
    record's logs before the statement there, and the naming counter and outlined count."""

    out: list[int] = field(default_factory=list)
    events: list[int] = field(default_factory=list)
    names: list[int] = field(default_factory=list)
    lookups: list[int] = field(default_factory=list)
    renames: list[int] = field(default_factory=list)
    local: list[int] = field(default_factory=list)
    reserved: list[int] = field(default_factory=list)
    counter: list[int] = field(default_factory=list)
    outlined: list[int] = field(default_factory=list)

    def lists(self) -> tuple[list[int], ...]:
        return (
            self.out,
            self.events,
            self.names,
            self.lookups,
            self.renames,
            self.local,
            self.reserved,
            self.counter,
            self.outlined,
        )

    def at(self, i: int) -> tuple[int, ...]:
        return tuple(marks[i] for marks in self.lists())


class Walked:
    """A walk's raw counts before each statement it walked (`ScopeOutliner._counts`: output,
    events, name questions, lookups, renames logged, counter, outlined), turned into a record's
    `Marks` by the walk's end (`ScopeOutliner._body_run`)."""

    def __init__(self) -> None:
        self._rows: list[tuple[int, ...]] = []

    def add(self, counts: tuple[int, ...]) -> None:
        self._rows.append(counts)

    def rows(self) -> list[tuple[int, ...]]:
        return self._rows


def added_names(op: NameOp) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names a name question added to the function's set and to the program's."""
    if op.op == "choose":
        assert isinstance(op.result, str)
        return (op.result,), (op.result,)
    if op.op == "fresh_like":
        assert isinstance(op.result, str)
        return (op.result,), ()
    base, roles, _ = op.args
    assert isinstance(base, str) and isinstance(roles, tuple) and isinstance(op.result, int)
    return tuple(ssa_name(base, r, op.result) for r in roles), ()


def shapes_asked(op: NameOp) -> tuple[tuple[str, str], ...]:
    """The shapes of the names a question reads: `choose(c, base)` reads `c`, `c_<i>`,
    `base_c`, `base_c_<i>` (shape ("c", stem)); a fresh name reads versions of one name that
    all begin with the same text before their first `__` (shape ("f", that text))."""
    if op.op == "choose":
        candidate, base = op.args
        return (("c", str(candidate)), ("c", f"{base}_{candidate}"))
    if op.op == "fresh_like":
        return (("f", str(op.result).partition("__")[0]),)
    base, roles, _ = op.args
    assert isinstance(base, str) and isinstance(roles, tuple) and isinstance(op.result, int)
    return (("f", ssa_name(base, roles[0], op.result).partition("__")[0]),)


def shapes_of(name: str) -> Iterable[tuple[str, str]]:
    """The shapes a question reading `name` has (`shapes_asked`)."""
    yield ("c", name)
    cut = name.rfind("_")
    if cut > 0 and name[cut + 1 :].isdigit():
        yield ("c", name[:cut])
    yield ("f", name.partition("__")[0])


@dataclass
class Families:
    """Per shape of name (`shapes_asked`), the first and last place in a body record's name
    log asking one: a question can change its answer only where a name of its shape differs."""

    first: dict[tuple[str, str], int] = field(default_factory=dict)
    last: dict[tuple[str, str], int] = field(default_factory=dict)

    def add(self, ops: list[NameOp], start: int) -> None:
        first, last = self.first, self.last
        for i, op in enumerate(ops, start):
            for shape in shapes_asked(op):
                if first.setdefault(shape, i) > i:
                    first[shape] = i
                if last.get(shape, -1) < i:
                    last[shape] = i

    def asked_before(self, names: Iterable[str], end: int) -> bool:
        """Whether a question before place `end` reads one of `names`."""
        first = self.first
        return any(first.get(shape, end) < end for name in names for shape in shapes_of(name))

    def asked_from(self, names: Iterable[str], start: int) -> bool:
        """Whether a question at place `start` or after reads one of `names`."""
        last = self.last
        return any(last.get(shape, -1) >= start for name in names for shape in shapes_of(name))

    def copy(self) -> Families:
        return Families(dict(self.first), dict(self.last))


@dataclass
class BodyRun:
    """An outliner's last walk of one function body's top-level statements."""

    body: list[Stmt]
    base: frozenset[str]  # the function's names (the name set's base)
    names_of: list[frozenset[str]]  # each statement's names, `base` their union with the params'
    params: tuple[str, ...]
    reserved: frozenset[str]  # the program's names at the start
    block: BlockMentions
    dropped: set[int]
    out: list[Stmt]
    events: list[Event]
    names: list[NameOp]
    lookups: list[Lookup]
    renames: list[tuple[Var, Var]]
    local: list[str]  # the names added to the function's set, in order
    program_names: list[str]  # and to the program's
    marks: Marks
    families: Families
    pool: dict[str, Var]  # the call sites' variables by name (`Made.fresh_var`)
    floors: list[tuple[int, tuple[str, str, str], int]]  # (place, key, version): `NameAllocator.floors`
    _parts: dict[tuple[int, int], Replayed] = field(default_factory=dict)
    _lookups: dict[tuple[int, int], Checks] = field(default_factory=dict)

    def parts(self, start: int, end: int) -> Replayed:
        """The events of the statements `start` to `end` as a replay applies them."""
        found = self._parts.get((start, end))
        if found is None:
            found = self._parts[start, end] = replayed(
                self.events[self.marks.events[start] : self.marks.events[end]]
            )
        return found

    def lookups_of(self, start: int, end: int, ask: object) -> Checks:
        """The lookups of the statements `start` to `end` as checking them asks them: one per
        question (what it asks of which callee, with what its answer reads of the call:
        `outline_replay._distinct`), grouped by callee and what it read of it (the witness:
        alike, every answer of the group is), each lookup whose witness is `ask` by itself (it
        is asked again): a body's hundreds of scopes ask the same of the same few kernels."""
        found = self._lookups.get((start, end))
        if found is None:
            groups: dict[tuple[object, int], tuple[str | None, object, dict[tuple[object, ...], Lookup]]] = {}
            asked: list[Lookup] = []
            for lookup in self.lookups[self.marks.lookups[start] : self.marks.lookups[end]]:
                question, args, _, witness = lookup
                call = args[0]
                if witness is ask or not isinstance(call, Call):
                    asked.append(lookup)
                    continue
                group = groups.get((call.callee, id(witness)))  # the witnesses are held by the lookups
                if group is None:
                    group = groups[call.callee, id(witness)] = (call.callee, witness, {})
                group[2].setdefault((question, len(call.args), *args[1:]), lookup)
            found = self._lookups[start, end] = Checks(
                asked,
                [(name, witness, list(questions.values())) for name, witness, questions in groups.values()],
            )
        return found

    def hand_on(self, run: BodyRun, *spans: tuple[int, int]) -> None:
        """Give `run`, which took this record's statements over `spans` (the same places in
        both), what this one made of them."""
        for span in spans:
            if span[0] < span[1]:
                parts, lookups = self._parts.get(span), self._lookups.get(span)
                if parts is not None:
                    run._parts[span] = parts
                if lookups is not None:
                    run._lookups[span] = lookups

    def renames_at(self, i: int) -> dict[Var, Var]:
        return dict(self.renames[: self.marks.renames[i]])


class Checks(NamedTuple):
    """A span's lookups as `BodyRun.lookups_of` groups them."""

    asked: list[Lookup]
    groups: list[tuple[str | None, object, list[Lookup]]]  # (callee, witness, its questions)


@dataclass
class Replayed:
    """A run of a body record's events as taking them applies them: the problems, names and
    PTO301 searches in order (`batched`), and the functions minted, with their calls and
    records, at once (none of the others reads them)."""

    steps: list[Batch | Named | Scalars]
    functions: list[Function]
    calls: dict[Function, list[Call]]
    records: list[OutlinedScope]


def replayed(events: list[Event]) -> Replayed:
    steps = batched(events)
    found = Replayed(steps, [], {}, [])
    for step in steps:
        if isinstance(step, Batch):
            found.functions += step.functions
            found.calls.update(step.calls)
            found.records += step.records
    return found


def changed(before: list[Stmt], now: list[Stmt]) -> tuple[int, int]:
    """The first place where two bodies of one length differ and the place after the last (both
    `len` when they do not)."""
    n = len(now)
    start = next((i for i in range(n) if before[i] is not now[i]), n)
    if start == n:
        return n, n
    end = next(i for i in range(n, start, -1) if before[i - 1] is not now[i - 1])
    return start, end


def name_changes(
    base: frozenset[str],
    before_base: frozenset[str],
    reserved: Iterable[str],
    before_reserved: frozenset[str],
) -> set[str]:
    """The names in one of two (function, program) name-set pairs and not in the other."""
    found = set() if base is before_base else set(base ^ before_base)
    found.update(before_reserved.symmetric_difference(reserved))
    return found


MIN_STATEMENTS = 32  # a shorter body is walked statement by statement (`outline_replay`)
_KEPT = 16  # the body records kept, by pass kind, program and function: bounded, so closed
# documents' records go (a record holds its statements: it cannot be kept weakly by one)

_RECORDS: OrderedDict[tuple[ScopeKind, str, str, bool], BodyRun] = OrderedDict()


_SEEN: OrderedDict[tuple[ScopeKind, str, str, bool], None] = OrderedDict()


def seen(key: tuple[ScopeKind, str, str, bool]) -> bool:
    """Whether a walk for `key` is worth recording: one was met before (a one-shot analysis
    meets each once) or everything is kept at its first meeting (`recurring.keeping_all`)."""
    found = key in _SEEN
    _SEEN[key] = None
    _SEEN.move_to_end(key)
    while len(_SEEN) > 4 * _KEPT:
        _SEEN.popitem(last=False)
    return found or all_kept()


def last_run(key: tuple[ScopeKind, str, str, bool]) -> BodyRun | None:
    found = _RECORDS.get(key)
    if found is not None:
        _RECORDS.move_to_end(key)
    return found


def keep_body(key: tuple[ScopeKind, str, str, bool], run: BodyRun | None) -> None:
    """Keep `run` as the last walk for `key` (None: forget the last one)."""
    _RECORDS.pop(key, None)
    if run is not None:
        _RECORDS[key] = run
        while len(_RECORDS) > _KEPT:
            _RECORDS.popitem(last=False)
