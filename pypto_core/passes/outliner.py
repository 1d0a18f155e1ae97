"""The one scope outliner every outlining pass drives (dsl-reference §4.2).

A `ScopeOutliner` walks one function for one pass and one target scope kind. Each target scope
becomes a new function (live-ins as parameters, outputs as returns) and a call in its place;
the walk keeps the store-target renames flat (original -> latest) and threads them out of
loops and ifs as real carries (§4.2.12). User errors become diagnostics in the pass context
and the analysis goes on, so every scope still gets its name.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from .. import ops
from ..diagnostics import Diagnostic, error, info
from ..ir import (
    TASK_ID,
    AssignStmt,
    Call,
    CalleeSignature,
    Const,
    Direction,
    EvalStmt,
    Expr,
    ForStmt,
    Function,
    FunctionType,
    IfStmt,
    IterArg,
    ListExpr,
    Param,
    Program,
    ReturnStmt,
    ScalarType,
    ScopeKind,
    ScopeStmt,
    Stmt,
    TensorType,
    TupleGetItem,
    TupleType,
    Type,
    Var,
    WhileStmt,
    YieldStmt,
    copy_with,
)
from ..results import OutlinedScope
from ..span import Span
from .context import PassContext
from .function_attrs import function_attrs
from .names import NameAllocator, build_name, parse_name, ssa_name
from .outline_ir import (
    stmt_children,
    substitute_block,
    vars_mentioned,
    walk_stmts,
    with_blocks,
)
from .outline_memo import (
    Lookup,
    Made,
    ScopeKey,
    keep,
    kept,
    rebuilt,
    renamed,
    renames_read,
    scalar_problems,
)
from .outline_replay import (
    Batch,
    BlockMentions,
    Event,
    Minted,
    Named,
    NameOp,
    Names,
    Recording,
    Rename,
    Report,
    RunKey,
    Scalars,
    StmtRun,
    keep_run,
    kept_run,
    met_before,
)
from .outline_resume import (
    MIN_STATEMENTS,
    BodyRun,
    Checks,
    Families,
    Marks,
    Walked,
    added_names,
    at_body,
    changed,
    keep_body,
    last_run,
    name_changes,
    seen,
    top_form,
)
from .records import outlined_record
from .scope_analysis import (
    Lineage,
    Output,
    calls_op,
    contains_op,
    infer_directions,
    live_ins,
    output_candidates,
    plan_outputs,
    plan_scalar_hoist,
    returned_params,
    store_targets,
)
from .scope_checks import deferred_waiter_problems, non_ssa_rebinds, unhoistable_scalars
from .stmt_facts import StmtFacts, holds_kind


@dataclass(frozen=True)
class OutlineConfig:
    """What distinguishes one outlining pass's use of the shared outliner."""

    kind: ScopeKind
    function_type: FunctionType
    name_suffix: Callable[[ScopeStmt], str]  # "_incore_", "_host_orch_", ...


@dataclass
class PassState:
    """Shared by every function one pass run processes: the program-wide reserved names (all
    input functions plus every name minted so far), the functions minted, and the report."""

    program: Program
    context: PassContext
    reserved: set[str] = field(default_factory=set)
    minted: list[Function] = field(default_factory=list)
    # per minted function, every call in its body (`walk_calls`) when known without a walk
    known_calls: dict[Function, list[Call]] = field(default_factory=dict)
    # the functions whose bodies the run sets (the ones it rewrites, the Groups it unwraps)
    rewritten: set[str] = field(default_factory=set)
    # where each name minted by a name_hint was asked for, and the one PTO601 per source scope
    # whose copies (an unrolled loop, a helper spliced twice) share a name_hint
    hinted_at: dict[str, Span] = field(default_factory=dict)
    copy_notes: dict[tuple[object, ...], _CopyNote] = field(default_factory=dict)  # by `Named.key`

    # `minted` by name (the first of a name wins), indexed up to `_indexed` entries: a lookup
    # per user call scanning every function minted so far made a whole-model pass quadratic
    _by_name: dict[str, Function] = field(default_factory=dict, repr=False)
    _indexed: int = 0
    _functions: dict[str, Function] | None = field(default=None, repr=False)  # the program's, by name

    def __post_init__(self) -> None:
        self.reserved.update(f.name for f in self.program.functions)

    def function(self, name: str) -> Function | None:
        minted = self.minted
        if self._indexed != len(minted):
            for fn in minted[self._indexed :]:
                self._by_name.setdefault(fn.name, fn)
            self._indexed = len(minted)
        found = self._by_name.get(name)
        if found is None:
            if self._functions is None:  # the program's functions are not added to until `finish`
                self._functions = {}
                for fn in reversed(self.program.functions):  # the first of a name wins
                    self._functions[fn.name] = fn
            found = self._functions.get(name)
        return found

    def signature(self, name: str) -> CalleeSignature | None:
        """The one callee lookup by signature facts: a function of the program (or minted so
        far), else one the program knows only by its declaration (`Program.declarations`)."""
        fn = self.function(name)
        return CalleeSignature.of(fn) if fn is not None else self.program.declarations.get(name)

    def finish(self) -> None:
        """Put the functions minted into the program, and each copy note listing three or more
        copies into the report in its final words."""
        self.program.add_all(self.minted)
        found = self.context.diagnostics
        for note in self.copy_notes.values():
            if len(note.names) > 2:
                at = note.at if found[note.at] is note.reported else found.index(note.reported)
                found[at] = _copy_note(tuple(note.names), note.site)

    def report(self, diagnostic: Diagnostic) -> None:
        self.context.diagnostics.append(diagnostic)

    def report_all(self, diagnostics: Sequence[Diagnostic]) -> None:
        self.context.diagnostics.extend(diagnostics)

    def mint(
        self,
        functions: Sequence[Function],
        calls: dict[Function, list[Call]],
        records: Sequence[OutlinedScope],
    ) -> None:
        """The functions minted, in order, with their records and the calls known of them."""
        self.minted += functions
        self.known_calls.update(calls)
        self.context.outlined += records


@dataclass
class _CopyNote:
    """The PTO601 of a scope whose copies share its name_hint: the names of the copies so far
    (the requested one first) and where in the report the note stands (the report is only
    appended to during a pass). Worded once at the pass's end (`PassState.finish`): worded at
    each copy, a helper spliced k times cost k notes of up to k names, on every keystroke."""

    names: list[str]
    at: int
    reported: Diagnostic  # the note reported for the first two
    site: Span  # the scope's name_hint


_ASK = object()  # a lookup answered by asking again (`ScopeOutliner._witness`)
_RESUME_EVERY = 16  # after the changed statements, the places a body walk tries to resume at


@lru_cache(maxsize=4096)
def _taken_note(requested: str, name: str, site: Span) -> Diagnostic:
    """PTO601 for a name_hint another scope took: the same finding object at each run (a
    whole-model entry's replay reports hundreds of them per keystroke)."""
    return info(
        "PTO601",
        f"name_hint '{requested}' is already taken; the outlined function is named '{name}'",
        site,
        hint="choose a unique name_hint to keep the function name stable",
        requested=requested,
        name=name,
    )


@lru_cache(maxsize=4096)
def _copy_note(names: tuple[str, ...], site: Span) -> Diagnostic:
    """PTO601 for the copies of one scope, as `names`: the same finding object at each run."""
    return info(
        "PTO601",
        f"name_hint '{names[0]}': this scope is outlined once per copy (an unrolled loop, or a"
        f" helper called more than once), as {', '.join(repr(n) for n in names)}",
        site,
        requested=names[0],
        name=names[1],
        names=list(names),
    )


@dataclass
class _Frame:
    """A loop body or if arm: what it defines, and the store targets renamed inside it that
    were defined outside it (those need a carry)."""

    defined: set[Var]
    renamed: dict[Var, Var] = field(default_factory=dict)


@dataclass
class _Naming:
    """The naming context: the function (or outlined parent) names derive from, its counter."""

    base: str
    counter: int = 0


class ScopeOutliner:
    def __init__(self, config: OutlineConfig, state: PassState, fn: Function) -> None:
        self.config = config
        self.state = state
        self.fn = fn
        self.facts = StmtFacts()
        # the function's names are set by `run` (from the last walk of the body where it can)
        self.names = Names(NameAllocator(), state.reserved)
        self.naming = _Naming(fn.name)
        self.renames: dict[Var, Var] = {}
        self.frames: list[_Frame] = []
        self.outlined_count = 0
        # the blocks being walked, outermost first, each with the position of the statement
        # being visited in it: what runs after a scope (`_scalar_problems`)
        self._path: list[tuple[list[Stmt], int, BlockMentions]] = []
        self._recording = Recording(self.names)  # the visits of statements being recorded
        self._pool: dict[str, Var] | None = None  # a long body's call-site variables (`Made.fresh_var`)

    # -- driving ---------------------------------------------------------------------------

    def run(self) -> list[Stmt]:
        """The function body with every target scope replaced by a call."""
        body = self.fn.body
        if len(body) >= MIN_STATEMENTS:
            return self._body(body)
        self._set_names(_function_names(self.fn, self.facts, self._names_table())[1])
        return self._block(body, _Later(), enclosing=())

    def _names_table(self) -> weakref.WeakKeyDictionary[Stmt, _Names]:
        table = _NAMES_OF.get(self.config.kind)
        if table is None:
            table = _NAMES_OF[self.config.kind] = weakref.WeakKeyDictionary()
        return table

    def _set_names(self, base: frozenset[str]) -> None:
        self.names.local = NameAllocator(_Added(base))

    # -- the function body, resumed (`outline_resume`) -----------------------------------

    def _body(self, stmts: list[Stmt]) -> list[Stmt]:
        """`_block` of the function body, taking the statements before the first changed one
        and, once the walk's state is the last run's there, the rest from the last run's walk."""
        state, recording = self.state, self._recording
        key = (self.config.kind, state.program.name, self.fn.name, state.context.front_end_checked)
        last = last_run(key)
        params = tuple(p.var.name for p in self.fn.params)
        n = len(stmts)
        start, end = 0, n
        same = False
        if last is not None and len(last.body) == n and last.params == params:
            start, end = changed(last.body, stmts)
            same = self._same_block(last, stmts, start, end)
        if same:
            assert last is not None
            names_of, base = self._names_like(last, stmts, start, end, params)
            block, dropped = last.block, last.dropped
        else:
            names_of, base = _function_names(self.fn, self.facts, self._names_table())
            dropped = _task_id_placeholders(stmts, self._is_target)
            block = self._last_mentions(stmts, dropped)
        self._set_names(base)
        self.names.local.floors = []
        self._pool = last.pool if last is not None else {}
        reserved = frozenset(state.reserved)
        recording.open()
        spoiled = recording.spoiled
        result: list[Stmt] = []
        walked = Walked()
        i = taken = 0
        changes: set[str] = set()
        if same:
            assert last is not None
            changes = name_changes(base, last.base, reserved, last.reserved)
            prefix = last.marks
            if (
                start > 0
                and not last.families.asked_before(changes, prefix.names[start])
                and self._answers(last.lookups_of(0, start, _ASK))
            ):
                self._take(last, 0, start, stmts, block, result)
                i = taken = start
        walk_from, resumed = i, False
        added = _AddedNames()
        while i < n:
            if same and i >= end and (i - end) % _RESUME_EVERY == 0:
                assert last is not None
                if self._can_resume(last, stmts, i, changes, walk_from, added):
                    walked.add(self._counts(result))
                    self._take(last, i, n, stmts, block, result)
                    resumed = True
                    break
            walked.add(self._counts(result))
            self._step(stmts, i, block, dropped, _Later(), (), result)
            i += 1
        if not resumed:
            walked.add(self._counts(result))
        run = None
        if recording.spoiled == spoiled and seen(key):
            run = self._body_run(
                stmts, (base, names_of, params, reserved), block, dropped, result, last, (taken, i), walked
            )
        recording.close()
        keep_body(key, run)
        return result

    def _step(
        self,
        stmts: list[Stmt],
        i: int,
        block: BlockMentions,
        dropped: set[int],
        required: _Later,
        enclosing: tuple[ScopeStmt, ...],
        result: list[Stmt],
    ) -> None:
        """Visit `stmts[i]` (of a block whose last mentions are `block`), its output onto `result`."""
        if i in dropped:
            return
        stmt = stmts[i]
        if self._unchanged_by_visit(stmt, block.mentions[i] if block.mentions else None):
            result.append(stmt)
            return
        later = required.after(block.last, i, block.last_any)
        self._path.append((stmts, i, block))
        if met_before(stmt):
            later = later.knowing(stmt, self.facts.binds(stmt), required)
            result.extend(self._kept_statement(stmt, later, enclosing))
        else:
            result.extend(self._statement(stmt, later, enclosing))
        self._path.pop()

    def _same_block(self, last: BodyRun, stmts: list[Stmt], start: int, end: int) -> bool:
        """Whether the statements changed since `last` mention what they did and leave every
        task-id placeholder as it was: then the last block mentions are this body's."""
        mentions = last.block.mentions
        if not mentions:
            return False
        facts = self.facts
        if any(facts.mentions(stmts[i]) != mentions[i] for i in range(start, end)):
            return False
        return all(
            _placeholder(stmts, i, self._is_target) == (i in last.dropped)
            for i in range(max(start - 1, 0), min(end, len(stmts) - 1))
        )

    def _names_like(
        self, last: BodyRun, stmts: list[Stmt], start: int, end: int, params: tuple[str, ...]
    ) -> tuple[list[frozenset[str]], frozenset[str]]:
        """The body's statements' names and their union with the parameters': the last run's
        where the changed statements have the names they had."""
        changed_names = [self.facts.names(stmts[i]) for i in range(start, end)]
        if changed_names == last.names_of[start:end]:
            return last.names_of, last.base
        names_of = [*last.names_of[:start], *changed_names, *last.names_of[end:]]
        return names_of, frozenset(params).union(*names_of)

    def _counts(self, result: list[Stmt]) -> tuple[int, ...]:
        """The lengths of what the walk logged so far, and its counters."""
        recording = self._recording
        assert self.names.log is not None
        return (
            len(result),
            len(recording.events),
            len(self.names.log),
            len(recording.lookups),
            len(recording.renames),
            self.naming.counter,
            self.outlined_count,
            len(self.names.local.floors or ()),
        )

    def _answers(self, checks: Checks) -> bool:
        """Whether each lookup of `checks` answers alike now: a group's callee checked once
        where it is the function it was (`_witness`), its questions asked only where not."""
        if not all(self._answer(lookup) == lookup[2] for lookup in checks.asked):
            return False
        state = self.state
        function, rewritten = state.function, state.rewritten
        for name, witness, lookups in checks.groups:
            if isinstance(witness, weakref.ref) and name is not None and name not in rewritten:
                fn = function(name)
                if fn is not None and fn is witness():
                    continue
            if not all(self._answer(lookup) == lookup[2] for lookup in lookups):
                return False
        return True

    def _take(
        self, last: BodyRun, start: int, end: int, stmts: list[Stmt], block: BlockMentions, result: list[Stmt]
    ) -> None:
        """Do what the last walk did over its statements `start` to `end` (those of this body)."""
        marks, state = last.marks, self.state
        result += last.out[marks.out[start] : marks.out[end]]
        replayed = last.parts(start, end)
        report, hint = state.context.diagnostics.extend, state.hinted_at.update  # a whole-model
        for part in replayed.steps:  # entry's prefix is a thousand steps a keystroke
            if type(part) is Batch:
                if part.diagnostics:
                    report(part.diagnostics)
                if part.hints:
                    hint(part.hints)
            elif type(part) is Named:
                self._note_rename(part)
            else:
                assert isinstance(part, Scalars)
                self._apply(at_body(part, stmts, block))
        state.mint(replayed.functions, replayed.calls, replayed.records)  # nothing above reads them
        self.names.local.used.update(last.local[marks.local[start] : marks.local[end]])
        if start == 0:  # what the name set knew of its versions there, where it still holds
            for _, key, version in _floors_in(last.floors, 0, end):
                self.names.local.raise_floor(key, version)
        state.reserved.update(last.program_names[marks.reserved[start] : marks.reserved[end]])
        self.renames.update(last.renames[marks.renames[start] : marks.renames[end]])
        self.naming.counter += marks.counter[end] - marks.counter[start]
        self.outlined_count += marks.outlined[end] - marks.outlined[start]

    def _can_resume(
        self, last: BodyRun, stmts: list[Stmt], i: int, changes: set[str], walk_from: int, added: _AddedNames
    ) -> bool:
        """Whether the rest of the body from `i` visits as the last walk's did: the walk's
        state here is the last one's (counter, top-level renames), no name question of the
        rest reads a name the two runs' name sets differ in, and the rest's lookups answer alike."""
        marks = last.marks
        if not self._state_as_at(last, i):
            return False
        assert self.names.log is not None
        local, program = added.update(self.names.log)
        differ = changes | (local ^ set(last.local[marks.local[walk_from] : marks.local[i]]))
        differ |= program ^ set(last.program_names[marks.reserved[walk_from] : marks.reserved[i]])
        if last.families.asked_from(differ, marks.names[i]):
            return False
        return self._answers(last.lookups_of(i, len(stmts), _ASK))

    def _floors_kept(
        self, last: BodyRun | None, rows: list[tuple[int, ...]], taken: int, walk_end: int
    ) -> list[tuple[int, tuple[str, str, str], int]]:
        """The floors this walk's name set had (`NameAllocator.floors`, each with the place of
        the statement it was set at): the last walk's over the parts taken, the walked ones as set."""
        found: list[tuple[int, tuple[str, str, str], int]] = []
        if last is not None and taken:
            found += _floors_in(last.floors, 0, taken)
        set_ = self.names.local.floors or []
        place = taken
        for at, (key, version) in enumerate(set_):
            while place + 1 < taken + len(rows) and rows[place + 1 - taken][7] <= at:
                place += 1
            found.append((place, key, version))
        if last is not None and walk_end < len(self.fn.body):
            found += _floors_in(last.floors, walk_end, len(self.fn.body))
        return found

    def _state_as_at(self, last: BodyRun, i: int) -> bool:
        """Whether the walk's naming counter and top-level renames are the last walk's before `i`."""
        return self.naming.counter == last.marks.counter[i] and self.renames == last.renames_at(i)

    def _body_run(
        self,
        stmts: list[Stmt],
        named: tuple[frozenset[str], list[frozenset[str]], tuple[str, ...], frozenset[str]],
        block: BlockMentions,
        dropped: set[int],
        result: list[Stmt],
        last: BodyRun | None,
        places: tuple[int, int],
        walked: Walked,
    ) -> BodyRun:
        """This walk as a record: the last one's parts it took (the statements before `taken`,
        and from `walk_end` on), the statements it walked (`walked`: the raw counts before each
        and at the end) as logged. `named`: the function's names, its statements', its
        parameters' and the program's at the start."""
        base, names_of, params, reserved = named
        taken, walk_end = places  # the walked statements are those between
        recording = self._recording
        assert self.names.log is not None
        ops = self.names.log
        top = [
            (i, (r.target, r.value))
            for i, (r, frames, naming) in enumerate(recording.renames)
            if frames == 0 and naming is self.naming
        ]
        renames_before = _counted([i for i, _ in top], len(recording.renames))
        local: list[str] = []
        program: list[str] = []
        local_before, program_before = [], []
        for op in ops:
            local_before.append(len(local))
            program_before.append(len(program))
            more_local, more_program = added_names(op)
            local += more_local
            program += more_program
        local_before.append(len(local))
        program_before.append(len(program))
        events: list[Event] = []
        names: list[NameOp] = []
        lookups: list[Lookup] = []
        renames: list[tuple[Var, Var]] = []
        local_names: list[str] = []
        program_names: list[str] = []
        marks = Marks()
        if last is not None and taken:
            lm = last.marks
            events += last.events[: lm.events[taken]]
            names += last.names[: lm.names[taken]]
            lookups += last.lookups[: lm.lookups[taken]]
            renames += last.renames[: lm.renames[taken]]
            local_names += last.local[: lm.local[taken]]
            program_names += last.program_names[: lm.reserved[taken]]
            for mine, theirs in zip(marks.lists(), lm.lists(), strict=True):
                mine += theirs[:taken]
        offsets = (len(events), len(names), len(lookups), len(renames), len(local_names), len(program_names))
        rows = walked.rows()
        for out, ev, nm, lk, rn, counter, outlined, _ in rows:
            marks.out.append(out)
            marks.events.append(offsets[0] + ev)
            marks.names.append(offsets[1] + nm)
            marks.lookups.append(offsets[2] + lk)
            marks.renames.append(offsets[3] + renames_before[rn])
            marks.local.append(offsets[4] + local_before[nm])
            marks.reserved.append(offsets[5] + program_before[nm])
            marks.counter.append(counter)
            marks.outlined.append(outlined)
        events += map(top_form, recording.events)
        names += ops
        lookups += recording.lookups
        renames += [pair for _, pair in top]
        local_names += local
        program_names += program
        n = len(stmts)
        inherit = last is not None  # the last run's questions stand where they stood
        if last is not None and walk_end < n:
            lm = last.marks
            cut = marks.at(len(marks.out) - 1)
            for mine, theirs, here in zip(marks.lists(), lm.lists(), cut, strict=True):
                delta = here - theirs[walk_end]
                mine.pop()
                mine += theirs[walk_end:] if delta == 0 else [m + delta for m in theirs[walk_end:]]
            events += last.events[lm.events[walk_end] :]
            inherit = len(names) == lm.names[walk_end]
            names += last.names[lm.names[walk_end] :]
            lookups += last.lookups[lm.lookups[walk_end] :]
            renames += last.renames[lm.renames[walk_end] :]
            local_names += last.local[lm.local[walk_end] :]
            program_names += last.program_names[lm.reserved[walk_end] :]
        floors = self._floors_kept(last, rows, taken, walk_end)
        # a shape's first and last places over more questions than these only err towards
        # "asked" (a question taken out), so the last run's are handed on while bounded
        if last is not None and inherit and len(last.families.first) < 2 * len(names) + 64:
            families = last.families.copy()
            families.add(ops, offsets[1])
        else:
            families = Families()
            families.add(names, 0)
        run = BodyRun(
            list(stmts),
            base,
            names_of,
            params,
            reserved,
            block,
            dropped,
            list(result),
            events,
            names,
            lookups,
            renames,
            local_names,
            program_names,
            marks,
            families,
            self._pool if self._pool is not None and len(self._pool) < 4 * len(names) + 64 else {},
            floors,
        )
        if last is not None:
            last.hand_on(run, (0, taken), (walk_end, n))
        return run

    def _is_target(self, stmt: Stmt) -> bool:
        return isinstance(stmt, ScopeStmt) and stmt.kind is self.config.kind

    def _block(self, stmts: list[Stmt], required: _Later, enclosing: tuple[ScopeStmt, ...]) -> list[Stmt]:
        dropped = _task_id_placeholders(stmts, self._is_target)
        block = self._last_mentions(stmts, dropped)
        result: list[Stmt] = []
        for i in range(len(stmts)):
            self._step(stmts, i, block, dropped, required, enclosing, result)
        return result

    def _last_mentions(self, stmts: list[Stmt], dropped: set[int]) -> BlockMentions:
        """Where each variable is last mentioned in `stmts` (the placeholders `dropped` left
        out), and the last place mentioning anything: asked only of the places before the last
        statement, so a block of one statement needs none. Kept for the next run's block in
        which each statement mentions what it did here (found by the block's first or last
        statement: a keystroke changes one statement of each block on its path), so the
        blocks around an edit cost their statements, not their mentions."""
        if len(stmts) < 2:
            return BlockMentions([], dropped, {}, -1)
        mentions = [self.facts.mentions(stmt) for stmt in stmts]
        table = _BLOCKS.get(self.config.kind)
        if table is None:
            table = _BLOCKS[self.config.kind] = weakref.WeakKeyDictionary()
        for probe in (stmts[0], stmts[-1]):
            entry = table.get(probe)
            if entry is not None and _alike(entry, mentions, dropped):
                return entry
        last_mention: dict[Var, int] = {}
        for i, mentioned in enumerate(mentions):
            if i not in dropped:
                last_mention.update(dict.fromkeys(mentioned, i))
        last_any = max(last_mention.values(), default=-1)
        entry = table[stmts[0]] = table[stmts[-1]] = BlockMentions(mentions, dropped, last_mention, last_any)
        return entry

    def _statement(self, stmt: Stmt, later: _Later, enclosing: tuple[ScopeStmt, ...]) -> list[Stmt]:
        """What replaces `stmt`: the statements of an outlined target scope, else `stmt` visited."""
        if isinstance(stmt, ScopeStmt) and self._is_target(stmt):
            used_after = (
                {v for v in self.facts.mentions(stmt) if v in later}
                if later
                else _fallback_used_after(stmt, self.facts.calls_in(walk_stmts(stmt.body)), bool(enclosing))
            )
            return self._outline(stmt, used_after, enclosing)
        return [self._visit(stmt, later, enclosing)]

    def _kept_statement(self, stmt: Stmt, later: _Later, enclosing: tuple[ScopeStmt, ...]) -> list[Stmt]:
        """`_statement`, taken whole with its effects replayed where the last run's visit of
        `stmt` read the same (`outline_replay`), else recorded for the next run. `later`
        knows which of the variables `stmt` binds are mentioned after it."""
        assert later.known is not None
        key = RunKey(
            self.config.kind,
            self.state.program.name,
            self.state.context.front_end_checked,
            self.naming.base,
            self.naming.counter,
            tuple(s.kind for s in enclosing),
            renames_read(self.facts.mentions(stmt), self.renames),
            later.known,
            bool(later),
        )
        recording = self._recording
        run = kept_run(stmt, key, self._answer)
        if run is not None and self.names.redo(run.names):
            self._replay(run, stmt)
            for rename in run.renames:
                (self._record_rename if rename.carried else self._rename)(rename.target, rename.value)
            if recording.active:
                recording.lookups += run.lookups
            self.naming.counter += run.counted
            self.outlined_count += run.outlined
            return run.out
        mark = recording.begin(
            len(self._path), len(self.frames), self.naming, self.naming.counter, self.outlined_count
        )
        out: list[Stmt] = []
        try:
            out = self._statement(stmt, later, enclosing)
        finally:
            kept = recording.end(mark, stmt, out, self.naming.counter, self.outlined_count)
        if kept is not None:
            keep_run(stmt, key, kept)
        return out

    def _replay(self, run: StmtRun, stmt: Stmt) -> None:
        """Do again what the kept visit `run` of `stmt` did, in order: its events merged where
        they read nothing of the run (`outline_replay.batched`), each applied at once."""
        state, recording = self.state, self._recording
        for part in run.replayed():
            if isinstance(part, Batch):
                if recording.active:
                    recording.events += part.events
                state.report_all(part.diagnostics)
                state.hinted_at.update(part.hints)  # each a name chosen this run: new keys
                state.mint(part.functions, part.calls, part.records)
            elif isinstance(part, Named):
                self._note_rename(part)
            else:
                scope = part.scope if part.scope is not None else stmt
                assert isinstance(scope, ScopeStmt)
                self._emit(Scalars(scope, part.name, part.unhoistable, (*self._path, *part.path)))

    def _emit(self, event: Event) -> None:
        """Do what `event` says, and log it with the visits being recorded."""
        if self._recording.active:
            self._recording.events.append(event)
        self._apply(event)

    def _apply(self, event: Event) -> None:
        state = self.state
        if isinstance(event, Report):
            state.report_all(list(event.diagnostics))
        elif isinstance(event, Named):
            state.hinted_at.setdefault(event.name, event.site)
            if event.name != event.candidate:
                self._note_rename(event)
        elif isinstance(event, Scalars):
            assert event.scope is not None
            path = event.path

            scope, name, unhoistable = event.scope, event.name, event.unhoistable

            def after(var: Var) -> list[list[Stmt]]:
                """The blocks after the scope that mention `var` (by their last mentions)."""
                return [stmts[i + 1 :] for stmts, i, block in reversed(path) if block.last.get(var, -1) > i]

            def mentioning(var: Var) -> tuple[Stmt, ...]:
                """The statements after the scope that mention `var`, the innermost block's first."""
                found: list[Stmt] = []
                for stmts, i, block in reversed(path):
                    if block.last.get(var, -1) > i:
                        found += block.mentioning(stmts, var, i)
                return tuple(found)

            def find(later: Callable[[Var], list[list[Stmt]]]) -> list[Diagnostic]:
                return unhoistable_scalars(scope, name, list(unhoistable), later, self._as_found)

            state.report_all(scalar_problems(scope, name, unhoistable, after, mentioning, find))
        else:
            assert isinstance(event, Minted)
            state.mint((event.fn,), {} if event.calls is None else {event.fn: event.calls}, (event.record,))

    def _report_all(self, diagnostics: list[Diagnostic]) -> None:
        if diagnostics:
            self._emit(Report(tuple(diagnostics)))

    def _as_found(self, stmt: Stmt) -> set[Var] | None:
        """The variables `stmt` mentions (nested statements included) when its statement facts
        are known already (a statement later in the function is complete: no run modifies
        it), else None: `dead_carry` reads it."""
        return self.facts.known_mentions(stmt)

    def _unchanged_by_visit(self, stmt: Stmt, mentions: set[Var] | None = None) -> bool:
        """No target scope in it and nothing to rename: visiting it would change nothing.
        `mentions`: what it mentions where the caller has it (its block's, `BlockMentions`)."""
        if self.config.kind in self.facts.scope_kinds(stmt):
            return False
        renames = self.renames
        if not renames:
            return True
        return renames.keys().isdisjoint(mentions if mentions is not None else self.facts.mentions(stmt))

    def _visit(self, stmt: Stmt, required: _Later, enclosing: tuple[ScopeStmt, ...]) -> Stmt:
        """`stmt` with what it reads renamed and the target scopes in it outlined: a new
        statement (`stmt` is not modified)."""
        stmt = renamed(stmt, self.facts.mentions(stmt), self.renames)
        if isinstance(stmt, (ForStmt, WhileStmt)):
            return self._loop(stmt, required, enclosing)
        if isinstance(stmt, IfStmt):
            return self._if(stmt, required, enclosing)
        if isinstance(stmt, ScopeStmt):
            return rebuilt(stmt, [self._block(stmt.body, required, (*enclosing, stmt))])
        return stmt

    # -- carries (§4.2.12) -----------------------------------------------------------------

    def _record_rename(self, target: Var, value: Var) -> None:
        self._rename(target, value, carried=True)
        if self.frames and target not in self.frames[-1].defined:
            self.frames[-1].renamed[target] = value

    def _rename(self, target: Var, value: Var, carried: bool = False) -> None:
        """A store target's latest value, logged with the visits being recorded (each keeps
        those set at its own level: they outlive it)."""
        self.renames[target] = value
        if self._recording.active:
            self._recording.renames.append((Rename(target, value, carried), len(self.frames), self.naming))

    def _in_frame(
        self,
        body: list[Stmt],
        extra_defs: list[Var],
        required: _Later,
        enclosing: tuple[ScopeStmt, ...],
    ) -> tuple[list[Stmt], _Frame, dict[Var, Var]]:
        entry = dict(self.renames)
        frame = _Frame(self._defs_in(body) | set(extra_defs))
        self.frames.append(frame)
        new_body = self._block(body, required, enclosing)
        self.frames.pop()
        final = self.renames
        self.renames = entry
        return new_body, frame, final

    def _defs_in(self, body: list[Stmt]) -> set[Var]:
        """`defs_in(body)`, from what each statement binds at any depth (`StmtFacts.binds`,
        kept with the statement): the frame of a loop nested in others reads what its enclosing
        frames read instead of walking its body again."""
        found: set[Var] = set()
        for stmt in body:
            found.update(self.facts.binds(stmt))
        return found

    def _loop(
        self, stmt: ForStmt | WhileStmt, required: _Later, enclosing: tuple[ScopeStmt, ...]
    ) -> ForStmt | WhileStmt:
        """The loop with its body visited and a carry for each store target renamed in it
        (`stmt` itself when that changes nothing)."""
        extra: list[Var] = [*stmt.iter_args]
        if isinstance(stmt, ForStmt):
            extra.append(stmt.loop_var)
        entry = dict(self.renames)
        body, frame, final = self._in_frame(stmt.body, extra, required, enclosing)
        if not frame.renamed:
            return rebuilt(stmt, [body])  # type: ignore[return-value]
        stmt = copy_with(stmt, body=body, iter_args=list(stmt.iter_args), return_vars=list(stmt.return_vars))
        rebind: dict[Var, Expr] = {}
        carried: list[tuple[Var, Var]] = []
        for target, latest in frame.renamed.items():
            entry_value = entry.get(target, target)
            version = parse_name(latest.name).version or 0
            n = self.names.fresh_version(target.name, ("iter", "rv"), start=version)
            iter_arg = IterArg(
                ssa_name(target.name, "iter", n), entry_value.type, entry_value.span, init=entry_value
            )
            return_var = Var(ssa_name(target.name, "rv", n), entry_value.type, entry_value.span)
            rebind[entry_value] = iter_arg
            stmt.iter_args.append(iter_arg)
            stmt.return_vars.append(return_var)
            carried.append((target, return_var))
            self._yield_more(stmt.body, final[target], stmt.span)
        stmt.body = substitute_block(stmt.body, rebind)
        for target, return_var in carried:
            self._record_rename(target, return_var)
        return stmt

    def _if(self, stmt: IfStmt, required: _Later, enclosing: tuple[ScopeStmt, ...]) -> IfStmt:
        """The `if` with its branches visited and a phi for each store target renamed in one
        (`stmt` itself when that changes nothing)."""
        entry = dict(self.renames)
        then_body, then_frame, then_final = self._in_frame(stmt.then_body, [], required, enclosing)
        else_body, else_final, else_frame = stmt.else_body, entry, _Frame(set())
        if else_body is not None:
            else_body, else_frame, else_final = self._in_frame(else_body, [], required, enclosing)
        targets = list(dict.fromkeys([*then_frame.renamed, *else_frame.renamed]))
        if not targets:
            return rebuilt(stmt, [then_body] if else_body is None else [then_body, else_body])  # type: ignore[return-value]
        stmt = copy_with(
            stmt, then_body=then_body, else_body=else_body or [], return_vars=list(stmt.return_vars)
        )
        assert stmt.else_body is not None
        carried: list[tuple[Var, Var]] = []
        for target in targets:
            entry_value = entry.get(target, target)
            then_value = then_final.get(target, entry_value)
            else_value = else_final.get(target, entry_value)
            version = parse_name(then_value.name).version or 0
            n = self.names.fresh_version(target.name, ("rv",), start=version)
            return_var = Var(ssa_name(target.name, "rv", n), entry_value.type, entry_value.span)
            stmt.return_vars.append(return_var)
            self._yield_more(stmt.then_body, then_value, stmt.span)
            self._yield_more(stmt.else_body, else_value, stmt.span)
            carried.append((target, return_var))
        for target, return_var in carried:
            self._record_rename(target, return_var)
        return stmt

    def _yield_more(self, body: list[Stmt], value: Expr, span: Span) -> None:
        """`body` (a block this run made) yields `value` too: a copy of its trailing yield
        that yields it as well takes the yield's place, or a new yield is appended."""
        last = body[-1] if body else None
        if isinstance(last, YieldStmt):
            body[-1] = copy_with(last, values=[*last.values, value])
        else:
            body.append(YieldStmt([value], span))

    # -- naming (§4.2.2) -------------------------------------------------------------------

    def _name(self, scope: ScopeStmt) -> str:
        candidate = (
            scope.name_hint or f"{self.naming.base}{self.config.name_suffix(scope)}{self.naming.counter}"
        )
        self.naming.counter += 1
        name = self.names.choose(candidate, self.naming.base)
        if scope.name_hint:
            site = scope.name_span or scope.header_span
            self._emit(
                Named(
                    candidate,
                    name,
                    site,
                    _taken_note(candidate, name, site) if name != candidate else None,
                    (candidate, site.start_line, site.start_col, site.end_line, site.end_col),
                )
            )
        return name

    def _note_rename(self, named: Named) -> None:
        """PTO601 of a name_hint given another name. Copies of one scope (an unrolled loop's, a
        helper's spliced twice) share their name_hint by construction: they get one note
        listing every copy's name, with no advice, since no name_hint can tell the copies apart."""
        state, site = self.state, named.site
        hinted = state.hinted_at.get(named.candidate)
        if hinted is not site and hinted != site:  # (a replay's sites are the objects of before)
            assert named.taken is not None
            state.report(named.taken)
            return
        note = state.copy_notes.get(named.key)
        if note is None:
            reported = _copy_note((named.candidate, named.name), site)
            state.copy_notes[named.key] = _CopyNote(
                [named.candidate, named.name], len(state.context.diagnostics), reported, site
            )
            state.report(reported)
        else:
            note.names.append(named.name)

    # -- one scope -------------------------------------------------------------------------

    def _outline(
        self, scope: ScopeStmt, used_after: set[Var], enclosing: tuple[ScopeStmt, ...]
    ) -> list[Stmt]:
        """The statements that replace `scope`: the hoisted ones and the call site. The
        function is the one the last run made for this scope object where what it read is
        alike (`outline_memo`); the name, the call site's names and the record are program-wide
        and made every run."""
        name = self._name(scope)
        key = ScopeKey(
            self.config.kind,
            name,
            frozenset(used_after),
            tuple(s.kind for s in enclosing),
            self.state.context.front_end_checked,
        )
        made = kept(scope, key, self._answer)
        if made is None:
            made = self._make(scope, name, used_after, enclosing, key)
        elif made.unhoistable:  # its PTO301s read the statements after it: found again
            at = made.scalars_at
            self._report_all(made.problems[:at])
            self._scalar_problems(scope, name, made.unhoistable)
            self._report_all(made.problems[at:])
        else:
            self._report_all(made.problems)
        if self._recording.active:
            self._recording.lookups += made.lookups
        fn = made.fn
        self.outlined_count += 1
        call_stmts = made.take_site(self._call_site(scope, made))
        hoisted = [renamed(stmt, self.facts.mentions(stmt), self.renames) for stmt in made.hoisted]
        program, parent = self.state.program.name, self.naming.base
        if made.record is None or made.record[:2] != (program, parent):
            made.record = (
                program,
                parent,
                outlined_record(program, parent, scope, fn, call_stmts, self.config.kind),
            )
        self._emit(Minted(fn, made.calls, made.record[2]))
        return [*hoisted, *call_stmts]

    def _answer(self, lookup: Lookup) -> object:
        """A kept outlining's lookup (a callee's directions or returned parameter) asked now:
        its answer of before where the callee it read is the same (`_witness`), else asked
        again. A replay asks each lookup its scopes made (hundreds in a whole-model entry's
        top-level statement), and asking read the callee's body for its returns."""
        ask, args, answer, witness = lookup
        call = args[0]
        assert isinstance(call, Call)
        if witness is not _ASK:
            now = self._witness(call)
            if isinstance(witness, weakref.ref):
                if isinstance(now, weakref.ref) and witness() is now():
                    return answer
            elif now == witness:
                return answer
        return ask(self, *args)

    def _witness(self, call: Call) -> object:
        """What a lookup about `call`'s callee reads, by which its answer is known again: the
        function (weakly: a function the run does not rewrite is never modified), the
        declaration of one the program only declares (by value), or `_ASK` for a function
        this run rewrites (its body is set once outlined)."""
        name = call.callee
        if name is None:
            return None
        if name in self.state.rewritten:
            return _ASK
        fn = self.state.function(name)
        if fn is not None:
            return weakref.ref(fn)
        return self.state.program.declarations.get(name)

    def _make(
        self,
        scope: ScopeStmt,
        name: str,
        used_after: set[Var],
        enclosing: tuple[ScopeStmt, ...],
        key: ScopeKey,
    ) -> Made:
        """Outline `scope` as `name` (§4.2.3-10), reporting what it finds; kept under `key`
        for the next run when nothing in it read more than `key` and the lookups say."""
        kind = self.config.kind
        problems: list[Diagnostic] = []

        def report(found: list[Diagnostic]) -> None:
            problems.extend(found)
            self._report_all(found)

        lookups: list[Lookup] = []

        def directions_of(call: Call) -> list[Direction] | None:
            answer = ScopeOutliner._callee_directions(self, call)
            lookups.append((ScopeOutliner._callee_directions, (call,), answer, self._witness(call)))
            return answer

        def return_param(call: Call, position: int) -> int | None:
            answer = ScopeOutliner._callee_return_param(self, call, position)
            lookups.append(
                (ScopeOutliner._callee_return_param, (call, position), answer, self._witness(call))
            )
            return answer

        body = scope.body
        walked = walk_stmts(body)  # every statement of the body, pre-order, for the steps below
        calls = self.facts.calls_in(walked)
        report(deferred_waiter_problems(scope, name, enclosing, calls))
        captures = live_ins(body, self.facts.reads)
        hoist = plan_scalar_hoist(body, used_after, captures)
        scalars_at = len(problems)  # kept without its PTO301s, which are found at each run
        self._scalar_problems(scope, name, hoist.unhoistable)
        if hoist.hoisted:
            hoisted_ids = {id(s) for s in hoist.hoisted}
            body = [s for s in body if id(s) not in hoisted_ids]
            walked = walk_stmts(body)
            captures = live_ins(body, self.facts.reads)
        report(non_ssa_rebinds(scope, name, walked, captures))
        plan = plan_outputs(
            walked, used_after - set(hoist.unhoistable), set(captures), kind, self.facts.own_calls
        )
        outputs = plan.outputs
        unvisited = body  # the scope's statements as found (the facts describe them)
        body = self._outline_nested(name, body, _Later(frozenset(o.var for o in outputs)))
        # without nested outlining `calls` stay the body's: hoisted statements make no call,
        # binding store results and substituting parameters add none
        nested = body is not unvisited
        exports = [o.var for o in outputs if o.is_export]
        directions = infer_directions(body, captures, kind, exports, directions_of)
        lineage = Lineage(body, set(captures), return_param, through_ifs=kind is ScopeKind.InCore)
        returned = self._returns(outputs, captures, directions, lineage)
        params = [
            Param(Var(c.name, c.type, c.span), d, c.span) for c, d in zip(captures, directions, strict=True)
        ]
        to_param: dict[Var, Expr] = {c: p.var for c, p in zip(captures, params, strict=True)}
        waiter = calls_op(calls, ops.DEFER_WAIT_OP) and (not nested or contains_op(body, ops.DEFER_WAIT_OP))
        body = self._bind_store_results(body, exports, not nested)
        attrs, found = function_attrs(
            scope, body, captures, directions, self.state.context.front_end_checked, waiter
        )
        report(found)
        return_values: list[Expr] = [to_param.get(v, v) for v, _ in returned]
        body = substitute_block(body, to_param)
        if return_values:
            body = [*body, ReturnStmt(return_values, scope.span)]
        fn = Function(
            name=name,
            params=params,
            body=body,
            return_types=[v.type for v in return_values],
            type=self.config.function_type,
            level=scope.level if kind is ScopeKind.Hierarchy else None,
            role=scope.role if kind is ScopeKind.Hierarchy else None,
            attrs=attrs,
            span=scope.span,
            name_span=scope.name_span or scope.header_span,
        )
        made = Made(
            fn,
            hoist.hoisted,
            captures,
            [o for _, o in returned],
            plan.post_store_aliases,
            None if nested else calls,
            problems,
            lookups,
            hoist.unhoistable,
            scalars_at,
        )
        # a Group holding the Spmd scope is unwrapped in place after the run (outline_cluster)
        unwrapped = kind is ScopeKind.Cluster and ScopeKind.Spmd in self.facts.scope_kinds(scope)
        if unwrapped:
            self._recording.spoil()  # the pass changes the Group in place after the run
        if not (nested or unwrapped):
            keep(scope, key, made)
        return made

    def _scalar_problems(self, scope: ScopeStmt, name: str, unhoistable: list[Var]) -> None:
        """PTO301 for each scalar output of `scope` only the device computes: what the
        statements after it read of each (`dead_carry`: the statements after it in its block,
        then those after the enclosing statement in its block, out to the function body)
        says which hint it gets. Found again when a top-level statement's visit is taken."""
        if unhoistable:
            self._emit(Scalars(scope, name, tuple(unhoistable), tuple(self._path)))

    def _outline_nested(self, name: str, body: list[Stmt], required: _Later) -> list[Stmt]:
        """§4.2.6: nested same-kind scopes are outlined first, named under the new function.
        `body` is the scope's statements as found, which the statement facts describe."""
        if not any(self.config.kind in self.facts.scope_kinds(stmt) for stmt in body):
            return body
        saved = (self.naming, self.renames, self.frames)
        self.naming, self.renames, self.frames = _Naming(name), {}, []
        try:
            return self._block(body, required, enclosing=())
        finally:
            self.naming, self.renames, self.frames = saved

    # -- directions, returns ---------------------------------------------------------------

    def _callee(self, call: Call) -> Function | None:
        """D5: every pass resolves callees (the compiler's InCore and Hierarchy passes do not),
        so a capture handed only to a callee's Out slot is Out and returns trace through calls."""
        if call.callee is None:
            return None
        return self.state.function(call.callee)

    def _callee_directions(self, call: Call) -> list[Direction] | None:
        signature = self.state.signature(call.callee) if call.callee is not None else None
        return list(signature.directions) if signature is not None else None

    def _callee_return_param(self, call: Call, position: int) -> int | None:
        callee = self._callee(call)
        if callee is None:
            return None
        indices = returned_params(callee.body, [p.var for p in callee.params])
        index = indices[position] if position < len(indices) else None
        return index if index is not None and index < len(call.args) else None

    def _returns(
        self, outputs: list[Output], captures: list[Var], directions: list[Direction], lineage: Lineage
    ) -> list[tuple[Var, Output]]:
        """§4.2.9: (returned body value, output) pairs in return order. An output that writes
        through a parameter returns that parameter."""
        resolved: list[Var | None] = []
        for out in outputs:
            if out.is_export:
                resolved.append(out.var)
            elif isinstance(out.var.type, TensorType):
                param = lineage.trace(out.var)
                resolved.append(param if param is not None and param.type == out.var.type else None)
            else:
                resolved.append(None)
        pairs = [(r if r is not None else o.var, o) for r, o in zip(resolved, outputs, strict=True)]
        if self.config.kind is ScopeKind.InCore and _orders_by_param(resolved, captures, directions):
            pairs.sort(key=lambda pair: captures.index(pair[0]))
        return pairs

    # -- body rewrite (§4.2.8) -------------------------------------------------------------

    def _bind_store_results(self, body: list[Stmt], exports: list[Var], unvisited: bool) -> list[Stmt]:
        """Every store into an exported target binds its result: the first one to
        `T__store`, later ones to fresh names, so the body never rebinds a parameter.
        `unvisited`: no nested scope was outlined, so the statement facts still hold."""
        if not exports:
            return body
        mentioned = (
            {v for stmt in body for v in self.facts.mentions(stmt)} if unvisited else vars_mentioned(body)
        )
        body_names = NameAllocator.of({v.name for v in mentioned} | {c.name for c in exports})
        bound: set[Var] = set()

        def result_var(target: Var) -> Var:
            declared = build_name(parse_name(target.name).base, role="store")
            fresh = target in bound or declared in body_names
            name = body_names.fresh_like(declared) if fresh else body_names.reserve(declared)
            bound.add(target)
            return Var(name, target.type, target.span)

        return _bind_stores(body, set(exports), result_var)

    # -- attributes (§4.2.10) --------------------------------------------------------------

    # -- call site (§4.2.11) ---------------------------------------------------------------

    def _call_site(self, scope: ScopeStmt, made: Made) -> list[Stmt]:
        """§4.2.11: the call of `made.fn` and the statements binding what it returns; its new
        variables are those of the last call site built from `made` where alike."""
        fn, captures, outputs, aliases = made.fn, made.captures, made.returned, made.aliases
        args: list[Expr] = [self.renames.get(c, c) for c in captures]
        call = Call(fn.name, args, {}, _result_type(fn), scope.header_span, callee=fn.name)
        call.attrs.update(self._call_attrs(scope, captures))
        task_id = scope.task_id_var
        if task_id is not None or scope.deps or scope.allow_early_resolve or scope.predicate is not None:
            call.submit = True
            # at the header, where they are written: a span of none would be moved with the
            # program's lines (`ir_shift`) where a fresh analysis leaves it none
            if scope.deps:
                call.kwargs["deps"] = ListExpr(
                    [self.renames.get(d, d) if isinstance(d, Var) else d for d in scope.deps],
                    span=scope.header_span,
                )
            if scope.allow_early_resolve:
                call.kwargs["allow_early_resolve"] = Const(True, ScalarType("BOOL"), scope.header_span)
            if scope.predicate is not None:
                call.attrs["predicate"] = scope.predicate
            if task_id is None:
                task_id = made.fresh_var(
                    self.names.fresh_like("tid", "tmp"), TASK_ID, scope.header_span, self._pool
                )
        bound: list[Var] = []
        renamed: list[tuple[Var, Var]] = []
        for out in outputs:
            if out.is_export:
                fresh = made.fresh_var(
                    self.names.fresh_like(out.var.name), out.var.type, scope.span, self._pool
                )
                renamed.append((out.var, fresh))
                bound.append(fresh)
            else:
                bound.append(out.var)
        stmts: list[Stmt]
        if not bound and task_id is None:
            stmts = [EvalStmt(call, scope.span)]
        elif len(bound) == 1 and task_id is None:
            stmts = [AssignStmt(bound[0], call, scope.span)]
        else:
            tmp = made.fresh_var(self.names.fresh_like("ret", "tmp"), call.type, scope.span, self._pool)
            stmts = [AssignStmt(tmp, call, scope.span)]
            stmts += [
                AssignStmt(v, TupleGetItem(tmp, k, v.type, scope.span), scope.span)
                for k, v in enumerate(bound)
            ]
            if task_id is not None:
                stmts.append(
                    AssignStmt(task_id, TupleGetItem(tmp, len(bound), task_id.type, scope.span), scope.span)
                )
        for target, fresh in renamed:
            self._record_rename(target, fresh)
            for alias, alias_target in aliases.items():
                if alias_target is target:
                    self._rename(alias, fresh)
        return stmts

    def _call_attrs(self, scope: ScopeStmt, captures: list[Var]) -> dict[str, object]:
        attrs: dict[str, object] = {}
        dumped = [i for i, c in enumerate(captures) if c in scope.dump_vars]
        if dumped:
            attrs["dump_vars"] = [self.renames.get(captures[i], captures[i]) for i in dumped]
        overrides: list[int] = []
        for var in scope.no_dep_args:
            if var in captures:
                overrides.append(captures.index(var))
            else:
                self._report_all(
                    [
                        error(
                            "PTO304",
                            f"no_dep_args names '{var.base_name}', which this scope does not capture",
                            scope.header_span,
                            hint=f"remove '{var.base_name}' from no_dep_args",
                            tensor=var.base_name,
                        )
                    ]
                )
        if overrides:
            attrs["arg_direction_overrides"] = sorted(set(overrides))
        if scope.kind is ScopeKind.Spmd:
            if scope.core_num is not None:
                attrs["core_num"] = scope.core_num
            if scope.sync_start:
                attrs["sync_start"] = True
        return attrs


# ---------------------------------------------------------------------------------------------
# Helpers


def _orders_by_param(resolved: list[Var | None], captures: list[Var], directions: list[Direction]) -> bool:
    """InCore return ordering applies when every output resolved to a distinct Out/InOut param."""
    if not resolved or any(r is None for r in resolved):
        return False
    if len(set(resolved)) != len(resolved):
        return False
    return all(
        r in captures and directions[captures.index(r)] is not Direction.In for r in resolved if r is not None
    )


class _Added(set[str]):
    """The names in use in a function: its variables' (`base`, shared, never modified) and
    those added to it (the set itself), so an outliner's names cost what it adds, not a copy
    of the function's thousands."""

    def __init__(self, base: frozenset[str]) -> None:
        super().__init__()
        self.base = base

    def __contains__(self, name: object) -> bool:
        return set.__contains__(self, name) or name in self.base


_Names = tuple[list[frozenset[str]], tuple[str, ...], frozenset[str]]


def _function_names(
    fn: Function, facts: StmtFacts, table: weakref.WeakKeyDictionary[Stmt, _Names]
) -> tuple[list[frozenset[str]], frozenset[str]]:
    """The names of the variables `fn` mentions and of its parameters, as the last run's
    union where each top-level statement has the names it had (compared by `==`, identity
    first; found in `table`, the pass's, by the body's first or last statement): a
    keystroke's function costs the names of its new statements."""
    names = [facts.names(stmt) for stmt in fn.body]
    params = tuple(p.var.name for p in fn.params)
    for probe in (fn.body[0], fn.body[-1]) if fn.body else ():
        kept = table.get(probe)
        if kept is not None and kept[1] == params and kept[0] == names:
            return kept[0], kept[2]
    found = frozenset(params).union(*names)
    if fn.body:
        table[fn.body[0]] = table[fn.body[-1]] = (names, params, found)
    return names, found


# per pass kind (the passes' bodies of one function share their first statements), a function
# body's first and last statements -> (its statements' names, its parameters' names, their union)
_NAMES_OF: dict[ScopeKind, weakref.WeakKeyDictionary[Stmt, _Names]] = {}


def _alike(entry: BlockMentions, mentions: list[set[Var]], dropped: set[int]) -> bool:
    """Whether `entry` is the last mentions of a block whose statements mention `mentions`."""
    return entry.dropped == dropped and entry.mentions == mentions


# per pass kind, a block's first and last statements -> its last mentions (the passes' blocks
# share statements: each pass's own)
_BLOCKS: dict[ScopeKind, weakref.WeakKeyDictionary[Stmt, BlockMentions]] = {}


@dataclass(frozen=True)
class _Later:
    """The variables mentioned after a position (§4.2.1's `tail ∪ required`), without copying a
    set per statement: a block of M scopes would otherwise cost O(M²). `explicit` is a set handed
    down (an outlined scope's outputs); each view `(last_mention, position, last_any)` stands for
    the statements after `position` in one enclosing block."""

    explicit: frozenset[Var] = frozenset()
    views: tuple[tuple[dict[Var, int], int, int], ...] = ()
    # which of `domain` (the variables the statement this stands after binds; None: all) are
    # mentioned after it, for the key of its visit (`_kept_statement`) and of those inside it
    known: frozenset[Var] | None = None
    domain: Collection[Var] | None = None

    def __post_init__(self) -> None:
        if not self.views:  # the outputs handed to a scope's body, or nothing
            object.__setattr__(self, "known", self.explicit)

    def after(self, last_mention: dict[Var, int], position: int, last_any: int) -> _Later:
        """The view past `position` of a block whose last mention of anything is at `last_any`
        (computed once per block by the caller, not once per statement)."""
        return _Later(self.explicit, (*self.views, (last_mention, position, last_any)))

    def knowing(self, stmt: Stmt, binds: Collection[Var], outer: _Later) -> _Later:
        """This view (past `stmt`, binding `binds`, in a block inside the statement `outer`
        stands after) knowing which of `binds` are mentioned after the statement: after it in
        its block (the last view), else after `outer` (what it knows, without asking each
        view: a statement of a loop's body renamed may bind a variable its original does not,
        a seed's `IterArg` made anew, which is asked). The last run's answer for `stmt` where
        it read the same (`_KNOWING`: the block's last mentions and the views around it are
        the objects of before where their blocks mention what they did), so a statement
        beside the edit costs the depth of its block, not what it binds."""
        last_mention, position, _ = self.views[-1]
        known, domain = outer.known, outer.domain
        read = (last_mention, position, known, domain, outer.explicit, outer.views)
        kept = _KNOWING.get(stmt)
        if kept is not None and (kept[1] is binds or kept[1] == binds) and _same_reads(kept[0], read):
            return _Later(self.explicit, self.views, kept[2], binds)
        found = self._found(binds, outer)
        _KNOWING[stmt] = (read, binds, found)
        return _Later(self.explicit, self.views, found, binds)

    def _found(self, binds: Collection[Var], outer: _Later) -> frozenset[Var]:
        last_mention, position, _ = self.views[-1]
        known, domain = outer.known, outer.domain
        if known is None:
            found = frozenset(v for v in binds if last_mention.get(v, -1) > position or v in outer)
        elif domain is None:
            found = frozenset(v for v in binds if last_mention.get(v, -1) > position or v in known)
        else:
            found = frozenset(
                v
                for v in binds
                if last_mention.get(v, -1) > position or (v in known if v in domain else v in outer)
            )
        return found

    def __contains__(self, var: object) -> bool:
        return var in self.explicit or any(
            last.get(var, -1) > position  # type: ignore[call-overload]
            for last, position, _ in self.views
        )

    def __bool__(self) -> bool:
        return bool(self.explicit) or any(last_any > position for _, position, last_any in self.views)


def _same_reads(a: tuple[object, ...], b: tuple[object, ...]) -> bool:
    """Two `_Later.knowing` reads alike: the same last-mentions dict and domain objects, the
    same position, the same known and explicit sets and views (by `==`, identity first)."""
    return a[0] is b[0] and a[1] == b[1] and a[3] is b[3] and a[2] == b[2] and a[4] == b[4] and a[5] == b[5]


# per statement, what `_Later.knowing` read for it, the binds it was asked for and its answer
_KNOWING: weakref.WeakKeyDictionary[Stmt, tuple[tuple[object, ...], Collection[Var], frozenset[Var]]] = (
    weakref.WeakKeyDictionary()
)


def _fallback_used_after(scope: ScopeStmt, calls: list[Call], in_other_scope: bool) -> set[Var]:
    """§4.2.1: what a scope with nothing after it exports (`calls`: every call in its body)."""
    if calls_op(calls, ops.DEFER_WAIT_OP):
        return set()
    targets = set(store_targets(calls))
    if in_other_scope:
        return targets
    return {v for v in output_candidates(scope.body) if not isinstance(v.type, ScalarType)} | targets


def _task_id_placeholders(stmts: list[Stmt], is_target: Callable[[Stmt], bool]) -> set[int]:
    """Indices of `tid = system.task_invalid()` placeholders directly before the target scope
    that captures `tid` (the outliner binds the real TaskId at the call)."""
    return {i for i in range(len(stmts) - 1) if _placeholder(stmts, i, is_target)}


def _placeholder(stmts: list[Stmt], i: int, is_target: Callable[[Stmt], bool]) -> bool:
    """Whether `stmts[i]` is a placeholder `_task_id_placeholders` drops (`i` before the last)."""
    stmt, nxt = stmts[i], stmts[i + 1]
    return (
        isinstance(stmt, AssignStmt)
        and isinstance(stmt.value, Call)
        and stmt.value.op == ops.TASK_INVALID_OP
        and isinstance(nxt, ScopeStmt)
        and is_target(nxt)
        and nxt.task_id_var is stmt.target
    )


class _AddedNames:
    """The names a body walk's name questions added, read from its log as it grows."""

    def __init__(self) -> None:
        self.local: set[str] = set()
        self.program: set[str] = set()
        self._read = 0

    def update(self, log: list[NameOp]) -> tuple[set[str], set[str]]:
        for op in log[self._read :]:
            more_local, more_program = added_names(op)
            self.local.update(more_local)
            self.program.update(more_program)
        self._read = len(log)
        return self.local, self.program


def _floors_in(
    floors: list[tuple[int, tuple[str, str, str], int]], start: int, end: int
) -> list[tuple[int, tuple[str, str, str], int]]:
    """The floors set at the places `start` to `end`. They hold in a run that takes those
    places: a floor is set by a question of its shape (`Families`), and a part is taken only
    where no question of it reads a name the two runs' sets differ in."""
    return [floor for floor in floors if start <= floor[0] < end]


def _counted(indices: list[int], total: int) -> list[int]:
    """For each place 0..`total` in a log, how many of `indices` (ascending) stand before it."""
    before: list[int] = []
    k = 0
    for place in range(total + 1):
        while k < len(indices) and indices[k] < place:
            k += 1
        before.append(k)
    return before


def _result_type(fn: Function) -> Type:
    if len(fn.return_types) == 1:
        return fn.return_types[0]
    return TupleType(tuple(fn.return_types))


def copy_selected(program: Program, names: set[str]) -> Program:
    """A new program in which each function named in `names` is a new `Function` object (its
    attributes a copy) sharing its statements with the input's: the pass sets its fields and
    its body (a new list, copy-on-write), never the input's."""
    functions: list[Function] = []
    for fn in program.functions:
        if fn.name in names:
            fn = copy_with(fn, attrs=dict(fn.attrs))
        functions.append(fn)
    return Program(
        program.name, functions, program.span, program.name_span, program.origin, program.declarations
    )


# ---------------------------------------------------------------------------------------------
# Driving a pass over a program


@dataclass
class PassRun:
    """The result of one outliner run over a program: the rewritten copy, the pass state and,
    per processed function, how many scopes it outlined."""

    program: Program
    state: PassState
    outlined_in: dict[str, int]


def outline_program(
    program: Program,
    config: OutlineConfig,
    context: PassContext,
    processes: Callable[[Function], bool],
    prepare: Callable[[Function], object] | None = None,
) -> PassRun:
    """Run the outliner on every function `processes` accepts (in name order, which decides
    cross-function collisions) that holds a target scope. The input program is not modified:
    the functions a pass rewrites are copies (`copy_selected`), the others are shared with the
    input. `prepare` runs first on each (it may rewrite the function's statements, copy-on-write)."""
    selected = {fn.name for fn in program.functions if processes(fn) and holds_kind(fn.body, (config.kind,))}
    work = copy_selected(program, selected) if selected else program  # nothing to rewrite
    state = PassState(work, context, rewritten=selected)
    outlined_in: dict[str, int] = {}
    for fn in list(work.functions):
        if fn.name not in selected:
            continue
        if prepare is not None:
            prepare(fn)
        outlined_in[fn.name] = outline_function(config, state, fn).outlined_count
    state.finish()
    return PassRun(work, state, outlined_in)


def outline_function(config: OutlineConfig, state: PassState, fn: Function) -> ScopeOutliner:
    """Outline the target scopes of `fn` (a copy the pass made: its body is set to the new one,
    whose statements the run did not change are those of the old)."""
    outliner = ScopeOutliner(config, state, fn)
    fn.body = outliner.run()
    return outliner


def _bind_stores(stmts: list[Stmt], exports: set[Var], result_var: Callable[[Var], Var]) -> list[Stmt]:
    """`ScopeOutliner._bind_store_results`' rewrite, copy-on-write (a function of its own: as a
    closure naming itself it left a reference cycle per outlined scope, issue 15's memory)."""
    out: list[Stmt] = []
    for stmt in stmts:
        blocks = stmt_children(stmt)
        if blocks:
            stmt = with_blocks(stmt, [_bind_stores(block, exports, result_var) for block in blocks])
        kind = type(stmt)
        value = stmt.expr if kind is EvalStmt else stmt.value if kind is AssignStmt else None  # type: ignore[union-attr]
        dest = ops.store_destination(value) if value is not None else None
        if not (isinstance(dest, Var) and dest in exports):
            out.append(stmt)
        elif isinstance(stmt, EvalStmt) or (isinstance(stmt, AssignStmt) and stmt.target is dest):
            assert value is not None
            out.append(AssignStmt(result_var(dest), value, stmt.span))
        else:
            assert isinstance(stmt, AssignStmt)
            out.append(stmt)
            out.append(AssignStmt(result_var(dest), stmt.target, stmt.span))
    return out
