"""ConvertToSSA resumed from the state saved before a function's top-level statement.

A whole-model jit entry is one function of hundreds of top-level statements, and a keystroke
changes one of them: taking each of the others' kept conversion (`ssa._Kept`) compares what it
reads and replays what it did, which costs the whole function (on prefill_cp_csa 609 top-level
statements; on prefill_cp_fwd_draft 31,000 replayed binds, mints and hidden variables). So a
conversion logs what it does to the converter's state, append-only (`Logs`), and notes the
logs' lengths before each top-level statement (`Mark`): the state before statement i is the
logs cut at its mark. The next conversion of the function (same name and parameter objects)
whose first statements are the objects the last one converted, and for whose loops among them
"needed later" reads the same, starts from the state before the first statement it must
convert (`resume_point`; the logs' prefixes copied, the dicts built from them at C speed), and
once the statements left are the last conversion's last ones, the same objects, and what it
did since it started equals what the last conversion did over the statements it replaced
(`same_changes`: its writes, counters, hidden variables, reports, binds; none of what the rest
mints or takes handed out since, none of the rest read the variables' creation order), the
rest is the last conversion's, output and logs (early cut-off). What a statement's conversion
depends on is the state it starts in, "needed later" and the function's parameters; the
resumed prefix and the taken rest are what the last conversion made from the same, so the
result is what a conversion from the top gives. Nothing here holds an analysed statement by
id alone: a record holds the last input and output (`Resume`), so no id is reused while the
record lives.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import add
from typing import Any, NamedTuple

from .. import ir
from ..diagnostics import Diagnostic


class Mark(NamedTuple):
    """The logs' lengths at one place of a conversion, and its taint count then (conversions
    that read the variables' creation order: `ssa._SSAConverter._escaping_init`)."""

    puts: int
    counts: int
    hides: int
    reports: int
    binds: int
    claims: int
    useds: int
    problems: int
    taints: int


@dataclass(slots=True)
class Logs:
    """What one conversion did to the converter's state, in order: the writes to the variable
    map outside any loop or `if` (inside one they are taken back on leaving), each counter
    set, each variable hidden and read reported, each bind, the ids of the variables minted or
    taken and of the kept conversions taken (`ssa._Kept`), the problems. Each write to a map
    with the value it replaced beside it (None: the key was absent), so a map can be taken
    back from the end (`State.at`); each id, report and problem is logged once."""

    puts: list[tuple[ir.Var, ir.Var]] = field(default_factory=list)
    puts_was: list[ir.Var | None] = field(default_factory=list)
    counts: list[tuple[ir.Var, int]] = field(default_factory=list)
    counts_was: list[int | None] = field(default_factory=list)
    hides: list[tuple[ir.Var, weakref.ref[ir.Stmt]]] = field(default_factory=list)
    hides_was: list[weakref.ref[ir.Stmt] | None] = field(default_factory=list)
    reports: list[ir.Var] = field(default_factory=list)
    binds: list[ir.Var] = field(default_factory=list)
    claims: list[int] = field(default_factory=list)
    useds: list[int] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)

    def mark(self, taints: int) -> Mark:
        return Mark(
            len(self.puts),
            len(self.counts),
            len(self.hides),
            len(self.reports),
            len(self.binds),
            len(self.claims),
            len(self.useds),
            len(self.problems),
            taints,
        )

    def cut(self, at: Mark) -> Logs:
        """A copy of these logs up to `at`: the state there, to go on from."""
        return Logs(
            self.puts[: at.puts],
            self.puts_was[: at.puts],
            self.counts[: at.counts],
            self.counts_was[: at.counts],
            self.hides[: at.hides],
            self.hides_was[: at.hides],
            self.reports[: at.reports],
            self.binds[: at.binds],
            self.claims[: at.claims],
            self.useds[: at.useds],
            self.problems[: at.problems],
        )

    def tail(self, at: Mark) -> Logs:
        """A copy of these logs from `at` on."""
        return Logs(
            self.puts[at.puts :],
            self.puts_was[at.puts :],
            self.counts[at.counts :],
            self.counts_was[at.counts :],
            self.hides[at.hides :],
            self.hides_was[at.hides :],
            self.reports[at.reports :],
            self.binds[at.binds :],
            self.claims[at.claims :],
            self.useds[at.useds :],
            self.problems[at.problems :],
        )

    def truncate(self, at: Mark) -> None:
        """These logs cut at `at`, in place."""
        del self.puts[at.puts :], self.puts_was[at.puts :]
        del self.counts[at.counts :], self.counts_was[at.counts :]
        del self.hides[at.hides :], self.hides_was[at.hides :]
        del self.reports[at.reports :], self.binds[at.binds :], self.claims[at.claims :]
        del self.useds[at.useds :], self.problems[at.problems :]

    def extend(self, other: Logs, since: Mark) -> None:
        """Append what `other` logged from `since` on (the rest of a conversion taken)."""
        self.puts += other.puts[since.puts :]
        self.puts_was += other.puts_was[since.puts :]
        self.counts += other.counts[since.counts :]
        self.counts_was += other.counts_was[since.counts :]
        self.hides += other.hides[since.hides :]
        self.hides_was += other.hides_was[since.hides :]
        self.reports += other.reports[since.reports :]
        self.binds += other.binds[since.binds :]
        self.claims += other.claims[since.claims :]
        self.useds += other.useds[since.useds :]
        self.problems += other.problems[since.problems :]


@dataclass(slots=True)
class State:
    """The converter's maps at the end of a conversion: the variable map (its order too), the
    counters, hidden variables, reported reads, ids handed out and kept conversions taken."""

    cur: dict[ir.Var, ir.Var]
    counters: dict[ir.Var, int]
    hidden: dict[ir.Var, weakref.ref[ir.Stmt]]
    reported: set[ir.Var]
    claimed: set[int]
    used: set[int]

    def at(self, logs: Logs, mark: Mark) -> State:
        """The maps as they were at `mark` of the conversion that logged `logs` and ended in
        this state: each made from the log's entries before the mark, or this one's copy with
        the entries after it taken back, whichever is fewer (a copy costs far less than a
        build: an edit near the end of a long function takes back a few writes)."""
        return State(
            _map_at(self.cur, logs.puts, logs.puts_was, mark.puts),
            _map_at(self.counters, logs.counts, logs.counts_was, mark.counts),
            _map_at(self.hidden, logs.hides, logs.hides_was, mark.hides),
            _set_at(self.reported, logs.reports, mark.reports),
            _set_at(self.claimed, logs.claims, mark.claims),
            _set_at(self.used, logs.useds, mark.useds),
        )

    def take_back(self, tail: Logs) -> None:
        """These maps, in place, as they were before the conversion logged `tail` (the end of
        its logs)."""
        _take_back(self.cur, tail.puts, tail.puts_was, 0)
        _take_back(self.counters, tail.counts, tail.counts_was, 0)
        _take_back(self.hidden, tail.hides, tail.hides_was, 0)
        self.reported.difference_update(tail.reports)
        self.claimed.difference_update(tail.claims)
        self.used.difference_update(tail.useds)

    def replay(self, logs: Logs, since: Mark) -> None:
        """These maps, in place, with what `logs` logged from `since` on done again (in order:
        a key new in the variable map takes its place at its first write, as it did then)."""
        self.cur.update(logs.puts[since.puts :])
        self.counters.update(logs.counts[since.counts :])
        self.hidden.update(logs.hides[since.hides :])
        self.reported.update(logs.reports[since.reports :])
        self.claimed.update(logs.claims[since.claims :])
        self.used.update(logs.useds[since.useds :])


def _map_at(final: dict[Any, Any], log: list[tuple[Any, Any]], was: list[Any], at: int) -> dict[Any, Any]:
    if (len(log) - at) * 8 >= at:
        return dict(log[:at])
    state = final.copy()
    _take_back(state, log, was, at)
    return state


def _take_back(state: dict[Any, Any], log: list[tuple[Any, Any]], was: list[Any], at: int) -> None:
    for i in range(len(log) - 1, at - 1, -1):
        old = was[i]
        if old is None:
            del state[log[i][0]]  # new since: the order of the keys before it is kept
        else:
            state[log[i][0]] = old


def _set_at(final: set[Any], log: list[Any], at: int) -> set[Any]:
    if len(log) - at >= at:
        return set(log[:at])
    state = final.copy()
    state.difference_update(log[at:])
    return state


NOWHERE = Mark(0, 0, 0, 0, 0, 0, 0, 0, 0)
TAKE_APART = 4  # a record is taken apart where its map entries after the resume point are
# fewer than this share of those before it (0: wherever they are fewer than all: tests)


@dataclass(slots=True)
class Start:
    """Where a conversion resumed from a record starts: its logs (to append to) and maps
    there, and the last conversion's logs from `base` on (what a cut-off compares and takes:
    its entries after the resume point), and whether the record was taken apart for them."""

    logs: Logs
    state: State
    old: Logs
    base: Mark
    consumed: bool


def start_at(record: Resume, start: int, key: ir.Param) -> Start:
    """The state the last conversion had before its statement `start`. Near the end of its
    logs (a keystroke in one of the last statements of a whole-model entry, whose logs hold
    31,000 entries) the record is taken apart: its logs cut in place and its maps taken back
    in place, the entries after the resume point copied out (costing what follows the resume
    point, not what precedes it: the copies were two thirds of such a conversion); it is
    dropped from the table first, so a conversion that fails leaves none to resume from.
    Else its logs' prefixes are copied and its maps made at the mark (`Logs.cut`, `State.at`)."""
    at, end = record.marks[start], record.marks[-1]
    after = end.puts - at.puts + end.counts - at.counts + end.hides - at.hides
    if after * TAKE_APART >= at.puts + at.counts + at.hides or _RESUMES.get(key) is not record:
        return Start(record.logs.cut(at), record.final.at(record.logs, at), record.logs, NOWHERE, False)
    del _RESUMES[key]
    old = record.logs.tail(at)
    record.logs.truncate(at)
    record.final.take_back(old)
    return Start(record.logs, record.final, old, at, True)


def relative(mark: Mark, base: Mark) -> Mark:
    """`mark` counted from `base` (in logs that start there: `Start.old`)."""
    return Mark._make(a - b for a, b in zip(mark, base, strict=True))


def shifted(marks: list[Mark], since: Mark, to: Mark) -> list[Mark]:
    """`marks` (all at or after `since`) moved as `since` moves to `to` (the same marks when
    the statements before logged as much as those they replaced: a keystroke's, mostly)."""
    if since == to:
        return marks
    d = [b - a for a, b in zip(since, to, strict=True)]
    return [Mark._make(map(add, m, d)) for m in marks]


@dataclass(eq=False, slots=True)
class Resume:
    """One function's last conversion: its parameters and top-level statements (the input's),
    "needed later" of each and which hold a loop, the output's parameter versions and
    statements, the logs with the mark before each statement and at the end, the maps at the
    end (the next conversion resumes from them taken back, and a rest taken ends in them)."""

    name: str
    params: tuple[weakref.ref[ir.Param], ...]  # weakly: the table's key is the first
    stmts: list[ir.Stmt]
    needed: list[set[ir.Var]]
    loops: list[int]
    versions: list[ir.Var]
    out_params: list[ir.Param]  # the output's (not the table's key: the input's)
    out: list[ir.Stmt]
    logs: Logs
    marks: list[Mark]
    final: State
    # per variable, the distance from the end of the last statement mentioning it (1: the
    # last statement), made when a cut-off first asks (`mentioned_from`) and handed on: never
    # more than the true distance (a variable a replaced statement mentioned keeps its place)
    mentions: dict[ir.Var, int] | None = None


# Each function's last conversion, by its first parameter: the front end keeps a function's
# `Param`s while its header is unchanged, and the document's analyses hold them, so a record
# lives while they do (two documents' `main`s have one each; a function without parameters,
# none). Nothing in a record holds a `Param`.
_RESUMES: weakref.WeakKeyDictionary[ir.Param, Resume] = weakref.WeakKeyDictionary()


def last(fn: ir.Function) -> Resume | None:
    """The last conversion of `fn`: the same name and parameter objects."""
    if not fn.params:
        return None
    record = _RESUMES.get(fn.params[0])
    if record is None or record.name != fn.name or len(record.params) != len(fn.params):
        return None
    if all(held() is p for held, p in zip(record.params, fn.params, strict=True)):
        return record
    return None


def keep(fn: ir.Function, record: Resume) -> None:
    if fn.params:
        _RESUMES[fn.params[0]] = record


def params_of(fn: ir.Function) -> tuple[weakref.ref[ir.Param], ...]:
    return tuple(weakref.ref(p) for p in fn.params)


def forget_all() -> None:
    """Drop every record (tests; a conversion from the top then)."""
    _RESUMES.clear()


def common_head(record: Resume, stmts: list[ir.Stmt]) -> int:
    """How many of `stmts` are, from the first, the objects the last conversion converted."""
    old, limit, p = record.stmts, min(len(stmts), len(record.stmts)), 0
    while p < limit and stmts[p] is old[p]:
        p += 1
    return p


def resume_point(
    record: Resume,
    stmts: list[ir.Stmt],
    needed: list[set[ir.Var]],
    p: int,
    mentioned: Callable[[ir.Stmt], tuple[ir.Var, ...]],
) -> int:
    """How many of `stmts` the conversion takes from `record`: the first `p` (`common_head`),
    but not from the first of them holding a loop whose "needed later" differs in a variable
    it mentions (what a loop's conversion reads of it: the variables it carries out)."""
    for i in record.loops:
        if i >= p:
            break
        now, then = needed[i], record.needed[i]
        if now != then and not (now ^ then).isdisjoint(mentioned(stmts[i])):
            return i
    return p


@dataclass(frozen=True, slots=True)
class Facts:
    """What "needed later" reads of a statement (`ssa._Facts`)."""

    live_in: Callable[[ir.Stmt], set[ir.Var]]
    assigned: Callable[[ir.Stmt], dict[ir.Var, None]]
    has_loop: Callable[[ir.Stmt], bool]


def needed_alike(
    record: Resume, stmts: list[ir.Stmt], p: int, tail: int, facts: Facts
) -> list[set[ir.Var]] | None:
    """ "Needed later" of `stmts` (`ssa._Facts.needed_after`) from the record's, when one
    statement replaced one (at `p`) and reads from before it, assigns and holds a loop as the
    one it replaced did: each statement's is what the statements after it need, which is then
    what it was (at `p`, the same objects' after it). None when not so (walked again)."""
    if tail != p + 1 or len(stmts) != len(record.stmts):
        return None
    new, old = stmts[p], record.stmts[p]
    loop = facts.has_loop(new)
    if loop is not facts.has_loop(old) or facts.assigned(new).keys() != facts.assigned(old).keys():
        return None
    if facts.live_in(new) != facts.live_in(old):
        return None
    return list(record.needed)


def common_tail(record: Resume, stmts: list[ir.Stmt], start: int) -> int:
    """The index in `stmts` from which, down to the end, each is the object at the same place
    from the end of the last conversion's statements (none of them before `start`)."""
    old = record.stmts
    i, j = len(stmts), len(old)
    while i > start and j > start and stmts[i - 1] is old[j - 1]:
        i, j = i - 1, j - 1
    return i


def same_changes(
    new: Logs, since: Mark, record: Resume, upto: int, old: Logs, base: Mark
) -> set[ir.Var] | None:
    """Whether what `new` logged from `since` (the mark both conversions share, where this one
    resumed) left the state the last conversion had before its statement `upto`, and the rest
    of the last conversion can be taken as it is: the same writes (and the keys they added in
    the same order: the variable map's order breaks ties between phis), counters, hidden
    variables (by the statement hiding them), reports and binds, nothing the rest minted or
    took handed out since, and none of the rest read the variables' creation order (taints).
    None if not; else
    the variables hidden by another statement or only in one of them (an edited loop is a new
    object, and so hides what it hid as another), which matter only to a rest reading them
    (`mentioned_from`). `old`: the last conversion's logs from `base` on."""
    end = record.marks[upto]
    if record.marks[-1].taints != end.taints:
        return None
    now = new
    then, stop = relative(since, base), relative(end, base)
    now_puts, then_puts = now.puts[since.puts :], old.puts[then.puts : stop.puts]
    if dict(now_puts) != dict(then_puts) or _added(now_puts, now.puts_was[since.puts :]) != _added(
        then_puts, old.puts_was[then.puts : stop.puts]
    ):
        return None
    if dict(now.counts[since.counts :]) != dict(old.counts[then.counts : stop.counts]):
        return None
    if set(now.reports[since.reports :]) != set(old.reports[then.reports : stop.reports]):
        return None
    if now.binds[since.binds :] != old.binds[then.binds : stop.binds]:
        return None
    if not set(now.claims[since.claims :]).isdisjoint(old.claims[stop.claims :]):
        return None
    if not set(now.useds[since.useds :]).isdisjoint(old.useds[stop.useds :]):
        return None
    hid, hid_then = dict(now.hides[since.hides :]), dict(old.hides[then.hides : stop.hides])
    if hid == hid_then:
        return set()
    return {k for k in hid.keys() | hid_then.keys() if hid.get(k) != hid_then.get(k)}


def _added(puts: list[tuple[ir.Var, ir.Var]], was: list[ir.Var | None]) -> list[ir.Var]:
    """The keys `puts` added to the variable map, in order (at the top level a key is never
    removed, so each is added once): the map's order after them is its order before them
    followed by these, whatever the order of the other writes (a replayed `if` writes its
    phis in the order of its reads)."""
    return [key for (key, _), old in zip(puts, was, strict=True) if old is None]


def mentioned_from(
    record: Resume, keys: set[ir.Var], distance: int, mentioned: Callable[[ir.Stmt], tuple[ir.Var, ...]]
) -> bool:
    """Whether one of the record's last `distance` statements mentions one of `keys`. A
    variable hidden differently is read by the rest only where the rest mentions it: a read of
    it out of scope reports it with the statement hiding it (`ssa._scope_violation`)."""
    last = record.mentions
    if last is None:
        last = record.mentions = {}
        stmts = record.stmts
        for i in range(len(stmts) - 1, -1, -1):  # from the end: the first met is the last
            d = len(stmts) - i
            for v in mentioned(stmts[i]):
                last.setdefault(v, d)
    return any(last.get(k, distance + 1) <= distance for k in keys)


def handed_on(
    record: Resume,
    stmts: list[ir.Stmt],
    converted: range,
    mentioned: Callable[[ir.Stmt], tuple[ir.Var, ...]],
) -> dict[ir.Var, int] | None:
    """The next record's `mentions`, from this one's where it has them: the statements
    converted are added, the rest kept (the same objects at the same distance from the end
    when they follow the converted ones; a distance too small before them, when more
    statements are converted than replaced, errs on the safe side). None (made when asked)
    when fewer are, which would make the distances before them too large."""
    last = record.mentions
    if last is None or len(stmts) < len(record.stmts):
        return None
    record.mentions = None  # handed on: the record is replaced
    n = len(stmts)
    for i in converted:
        d = n - i
        for v in mentioned(stmts[i]):
            if d < last.get(v, d + 1):
                last[v] = d
    return last
