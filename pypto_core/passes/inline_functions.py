"""InlineFunctions: splice `Inline` functions (`@pl.inline`, `@pl.jit.inline`) into their
callers and drop them, as the compiler's first pass does before ConvertToSSA.

Follows the compiler's splice rules: a call statement `r = h(a, b)`, `h(a, b)` or
`return h(a, b)` is replaced by a clone of `h`'s body in which each parameter is replaced by the
argument expression and every variable the body defines is a fresh variable named
`<name>_inline<N>`; the trailing `return v` becomes `r = v` (skipped when `v` is `r`), or for a
multi-value helper every later `r[i]` reads the i-th returned value directly. Scopes inside the
helper thereby sit in the caller and are outlined there, keeping the helper's source spans.

What the compiler rejects is reported instead of raising: a cycle among inline helpers
(nothing in the cycle is spliced, so the pass always terminates), a return that is not the
helper's last top-level statement, a call for a value to a helper without `return`, a wrong
argument count, rebinding a parameter whose argument is not a variable, and an inline call
nested inside an expression (the compiler leaves it for its verifier to reject). An unspliced
call keeps its arguments but no longer names a program function, so later passes treat it as an
unknown op that reads them.
"""

from __future__ import annotations

import copy
import dataclasses
import operator
import weakref
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeGuard

from ..diagnostics import Diagnostic, error, warning
from ..ir import (
    SPLICE_SUFFIX,
    AssignStmt,
    BinaryExpr,
    BreakStmt,
    CachePolicyDecl,
    Call,
    Const,
    ContinueStmt,
    EnumValue,
    EvalStmt,
    Expr,
    ForStmt,
    Function,
    FunctionType,
    IfStmt,
    IterArg,
    ListExpr,
    OpaqueExpr,
    Param,
    Program,
    ReturnStmt,
    ScopeStmt,
    SplicedHelper,
    Stmt,
    TupleExpr,
    TupleGetItem,
    UnaryExpr,
    Var,
    WhileStmt,
    YieldStmt,
)
from ..ir_clone import clone
from ..recurring import mark, marked
from ..span import Span
from .outline_ir import stmt_children, walk_stmts
from .stmt_facts import walk_kept
from .symbol_scope import Fates, cover_again, cover_symbols

CYCLE = "PTO410"
EARLY_RETURN = "PTO411"
NO_RETURN = "PTO412"
ARITY = "PTO413"
REBOUND_PARAM = "PTO414"
NESTED_CALL = "PTO415"
TOO_LARGE = "PTO416"

# How many statements splicing may add to one program: a helper chain that doubles at every
# level must stop. Counted as the statements the kept functions gain (each spliced statement
# once), pypto-lib's whole-model programs reach 10,340 (prefill_cp_fwd_draft.py).
SPLICE_BUDGET = 20_000
BUDGET_SETTING = "`pypto.analysis.spliceBudget` (pypto-check --splice-budget N)"


_Shown = tuple[tuple[str, str], ...]  # caller variable -> the name a helper's code spells it with


@dataclasses.dataclass(frozen=True, slots=True)
class SpliceFacts:
    """What splicing reads of a function's body as built: the callee of every call in it, and
    of those no statement makes directly (`_statement_calls`), which splicing never replaces.
    The front end keeps them with each built function (`function_memo.BuiltFunction`), so a
    program spliced again walks no body for its call graph, and none for the calls splicing
    left when no body holds a helper call that a splice cannot replace."""

    called: frozenset[str | None]
    nested: frozenset[str | None]


def splice_facts(fn: Function) -> SpliceFacts:
    return block_splice_facts(fn.body)


def block_splice_facts(stmts: list[Stmt]) -> SpliceFacts:
    """`splice_facts` of a function whose body is `stmts`: a body's are the union of its
    statements' (the front end keeps each top-level statement's with it across edits)."""
    calls = _calls(stmts)
    direct = {id(c) for s in walk_stmts(stmts) for c in _statement_calls(s)}
    return SpliceFacts(
        frozenset(c.callee for c in calls), frozenset(c.callee for c in calls if id(c) not in direct)
    )


@dataclasses.dataclass(frozen=True, slots=True)
class ClonedBody:
    """A helper's body as cloned at one call (`_Splicer._clone_body`), kept for the next splice
    of a call passing the same arguments (`clones`): what it was cloned from (held, so that no
    other object takes their ids in the key), the clone, how many fresh variables it took and
    what its own helper calls show and are. A clone reads of its call only the arguments (and
    for another file's helper its span): a call statement built again over the same `Var`s
    takes it too. Splicing never modifies a clone once made (copy-on-write), so a kept one is
    exactly what cloning again would give. A body built again after an edit is cloned
    statement by statement from it (`_Reclone`): `whole` (the clone with its `return`) and
    `copies` (each variable of the body, by id, and what the clone has in its place) say what
    each statement of `body_of` was cloned to and with, and a body built again that binds the
    same variables in the same order takes `made`, the fresh ones."""

    body_of: list[Stmt]
    params_of: list[Param]
    args: tuple[Expr, ...]
    body: list[Stmt]
    values: list[Expr]
    has_return: bool
    fresh: int
    shown: _Shown
    inner: tuple[Call, ...]  # its statements' calls of functions, then those its returned values make
    holders: tuple[int, ...]  # for each of `inner`, the index in `body` of the statement holding it
    whole: list[Stmt]
    copies: dict[int, Expr]
    defined: tuple[Var, ...]  # the variables the body binds, in order (`_defined_vars`)
    made: dict[int, Var]  # the fresh variable of each of them that is no parameter, by id


@dataclasses.dataclass(frozen=True, slots=True)
class KeptCopy:
    """A statement's copy with new bodies (copy-on-write), kept for the next splice: taken
    again when its bodies would hold the same statements (`_Splicer._as_before`); or a node's
    copy with a multi-value helper's items put in place of its reads of them, taken again
    when the copy's new parts are the same objects (`_copied`)."""

    of: Any
    copy: Any


class Clones(Protocol):
    """Where a splice finds and keeps its clones (`function_memo.UpdateMemo`), by the helper's
    parameters (not its body: a body built again is cloned from the clone before, statement
    by statement), its name, the call's arguments, its statement's span, the first fresh
    number, the call's age and shown names, and whether the helper is another file's."""

    def get(self, key: Hashable) -> ClonedBody | KeptCopy | None: ...

    def put(self, key: Hashable, value: ClonedBody | KeptCopy) -> None: ...


def inline_functions(
    program: Program,
    foreign: Mapping[str, SplicedHelper] | None = None,
    budget: int = SPLICE_BUDGET,
    facts: Mapping[str, SpliceFacts] | None = None,
    clones: Clones | None = None,
) -> tuple[Program, list[Diagnostic]]:
    """The program without Inline functions, every splicable call to one spliced. Nothing the
    given program holds is modified (copy-on-write): a kept function comes back as a new
    `Function` whose body shares every statement no splice reached with the given one, and a
    helper's parameters and body may be shared with other programs (the front end keeps
    built functions across updates and builds an imported helper once), so one that calls
    another helper is copied before anything is spliced into it. `foreign`: helpers defined
    in another file; what is spliced from them takes the call's span, so nothing in this
    file's results points at a line of that other file. `budget`: how many statements
    splicing may add before the rest is left unspliced (PTO416). `facts`: `splice_facts` of
    functions of the program by name, as built (the rest are walked). `clones`: the helper
    bodies cloned at each call by an earlier splice, taken again where the helper, the call
    and the fresh names' numbering are what they were (a document's splice after an edit in
    one helper clones that helper's bodies only, and of those the statements the edit did
    not leave alike: `_Reclone`); what this splice clones is put there."""
    inline = {f.name: f for f in program.functions if f.type is FunctionType.Inline}
    if not inline:
        return program, []
    foreign = foreign or {}
    known = dict(facts or {})
    for fn in program.functions:
        if fn.name not in known:
            known[fn.name] = splice_facts(fn)
    splicer = _Splicer(inline, foreign, budget, known, clones)
    cyclic = splicer.report_cycles()
    for name in cyclic:
        del splicer.inline[name]
    kept = [dataclasses.replace(f) for f in program.functions if f.type is not FunctionType.Inline]
    settled = splicer.splice_rounds(kept, replaying=True)
    # A helper no caller reached is dropped unspliced; the compiler splices into every helper
    # first, so what fails to splice there is still reported. Only such helpers are spliced
    # into: splicing into every helper, then each expanded helper into its callers, did the
    # work of every chain twice (deepseek_v4_flash_mtp/decode_fwd.py: 17,121 statements
    # cloned for programs of 7,226). Helpers are shared: copied before they change.
    unreached = [f for f in inline.values() if f.name not in splicer.reached and f.name not in cyclic]
    for index, helper in enumerate(unreached):
        if splicer.calls_helpers(helper.name):
            memo: dict[int, Any] = {}
            params = clone(helper.params, memo)
            copy = dataclasses.replace(helper, params=params, body=clone(helper.body, memo))
            unreached[index] = splicer.inline[helper.name] = copy
    splicer.splice_rounds(unreached)
    # What splicing can leave in a kept function: calls to cyclic helpers, calls it failed to
    # splice or was out of budget for, and helper calls nested in an expression (of the
    # function or of a helper spliced into it). Without any, no kept body is walked again.
    names = set(inline)
    nested = any(f.nested & names for f in known.values())
    if cyclic or splicer.failed or splicer.exhausted or not settled or nested:
        for fn in kept:
            splicer.detach_leftover_calls(fn, names, cyclic)
    diagnostics = list(dict.fromkeys(splicer.diagnostics))  # a failing call cloned twice reports once
    kept_program = Program(
        program.name,
        kept,
        program.span,
        program.name_span,
        program.origin,
        program.declarations,
        splicer.sites,
    )
    return kept_program, diagnostics


@dataclasses.dataclass(frozen=True)
class _Age:
    """Which version of a helper's body the compiler splices at a call. Its InlineFunctions
    rounds splice every function, helpers too, from the bodies the previous round left: a
    call is spliced in round `round` of its function with the helper as `snapshot` rounds
    had expanded it. Only one thing tells the versions apart: a call statement `h(...)` drops
    what `h` returns, and `h`'s trailing `return g(...)` is dropped with it unless a round
    had already spliced `g` into `h` (pypto-lib's `sparse_attn_physical(...)`, whose last
    line is `return sparse_attn_compute(...)`). The calls of a body spliced from a snapshot
    that had expanded it are spliced inside it from the round before (`snapshot - 1`); those
    of an unexpanded body stay in the caller for its next round."""

    snapshot: int
    round: int

    def child(self) -> _Age:
        if self.snapshot:
            return _Age(self.snapshot - 1, self.round)
        return _Age(self.round, self.round + 1)


class _Splicer:
    def __init__(
        self,
        inline: dict[str, Function],
        foreign: Mapping[str, SplicedHelper],
        budget: int,
        facts: Mapping[str, SpliceFacts],
        clones: Clones | None = None,
    ) -> None:
        self.inline = dict(inline)
        self.facts = facts
        self.clones: Clones | None = _LoggedClones(clones) if clones is not None else None
        self.foreign = foreign
        self.budget = budget
        self.sites: dict[Span, SplicedHelper] = {}  # a foreign helper's calls in this file's code
        self.into_foreign = False  # splicing into a foreign helper: its calls are in another file
        self.diagnostics: list[Diagnostic] = []
        self.fresh_counter = 0
        self.spliced_statements = 0  # cloned statements: the kept functions' size after splicing
        self.exhausted = False
        self.reached: set[str] = set()  # helpers spliced somewhere
        # by id: each helper call of a spliced body, its age and the names its scopes show
        self.pending: dict[int, tuple[Call, _Age, _Shown]] = {}
        self.failed: set[int] = set()  # calls already reported as not splicable
        self.graph: dict[str, set[str]] = {}  # helper -> the helpers it calls
        # After a splicing round only what it brought in can hold a call to splice: the next
        # round enters only the statements marked `hot` (they hold a helper call a clone
        # brought in) and the compound ones marked as leading to one (`leads`), instead of
        # walking every function whole once per round. By id: the marked statements are in
        # the functions' bodies until the next round has read the marks. A statement entered
        # whole is entered only where a statement in it calls a helper (`_within`), so a
        # round costs the paths to the calls it splices, not the size of what holds them.
        self.filtered = False  # this round enters marked statements only
        self.hot: set[int] = set()
        self.leads: set[int] = set()
        self.next_hot: set[int] = set()
        self.next_leads: set[int] = set()
        self.marks = 0  # how many marks this splice made (a block marked something if it grew)
        self.sizes: dict[str, int] = {}  # each helper's statements, by name (`_size`)
        # each spliced function's regions while its rounds run (`_Regions`), this round's
        # index, and where a region's round being spliced logs its effects (`_log`)
        self.regions: dict[str, _Regions] = {}
        self.round = 0
        self.events: list[tuple[Any, ...]] | None = None
        self.current: Function | None = None  # the function being spliced into

    # -- cycles ---------------------------------------------------------------------------

    def calls_helpers(self, name: str) -> bool:
        """Whether helper `name`'s body calls an inline helper (of the program's, as first read)."""
        return bool(self.graph[name])

    def report_cycles(self) -> set[str]:
        """Names of helpers on a call cycle; one PTO410 per cycle, on its first helper."""
        self.graph = {name: {c for c in self.facts[name].called if c in self.inline} for name in self.inline}
        state: dict[str, int] = {}  # 1 = on the stack, 2 = done
        cyclic: set[str] = set()
        for name in sorted(self.inline):
            if name not in state:
                self._visit(name, state, [], cyclic)
        return cyclic

    def _visit(self, name: str, state: dict[str, int], stack: list[str], cyclic: set[str]) -> None:
        """`report_cycles`' depth-first walk (a method: a recursive closure would be a reference
        cycle holding the splicer and every helper's IR until a full collection)."""
        state[name] = 1
        stack.append(name)
        for callee in sorted(c for c in self.graph[name] if c is not None):
            if state.get(callee) == 1:
                cycle = [*stack[stack.index(callee) :], callee]
                cyclic.update(cycle)
                fn = self.inline[cycle[0]]
                self.diagnostics.append(
                    error(
                        CYCLE,
                        f"Cycle detected in FunctionType::Inline call graph: {' -> '.join(cycle)}",
                        fn.name_span,
                        "inline helpers are spliced into their callers, so they cannot call themselves "
                        "(directly or through each other); make one of them a program function",
                    )
                )
            elif callee not in state:
                self._visit(callee, state, stack, cyclic)
        stack.pop()
        state[name] = 2

    # -- splicing -------------------------------------------------------------------------

    def splice_rounds(self, functions: list[Function], replaying: bool = False) -> bool:
        """Splice into `functions` until no call is left to splice: each round splices the
        helper calls the previous one brought in (a chain is at most one round per helper).
        Whether a round found nothing left to splice. `replaying`: each top-level statement's
        rounds are kept for the next splice and taken from the last one where they fit
        (`_Regions`)."""
        self.filtered = False
        # a function whose calls are in one top-level statement is spliced as a whole: its one
        # region would be taken only where it and the helpers are as they were, which leaves a
        # program whose other callers changed (the rest the splice memo takes whole), and keeping
        # its rounds cost qwen3_14b/decode_fwd's keystroke a fifth of its splice
        self.regions = (
            {fn.name: self._regions(fn) for fn in functions if _regions_in(fn) > 1}
            if replaying and self.clones
            else {}
        )
        settled = False
        for index in range(len(self.inline) + 1):
            self.round = index
            changed = False
            for fn in functions:
                changed |= self.splice_function(fn)
            self.filtered = True
            self.hot, self.next_hot = self.next_hot, set()
            self.leads, self.next_leads = self.next_leads, set()
            if not changed:
                settled = True
                break
            if self.exhausted:
                break
        if not self.exhausted and self.clones is not None:
            for regions in self.regions.values():
                self.clones.put(regions.key, regions.kept())
        self.regions = {}
        return settled

    def splice_function(self, fn: Function) -> bool:
        """Splice into `fn` (a function of this splice's own: its body is replaced, the
        statements of the old one are never modified)."""
        self.into_foreign = fn.name in self.foreign
        self.current = fn
        tuple_subs: dict[int, list[Expr]] = {}
        regions = self.regions.get(fn.name)
        if regions is None:
            body = self._splice_block(fn.body, _calling(fn.body), tuple_subs, not self.filtered)
        else:
            body = self._splice_regions(regions, tuple_subs)
        if body is None:
            return False
        if tuple_subs:
            spliced, body = body, _substitute_tuple_items(body, tuple_subs, self.clones)
            if body is not spliced:  # a value put in an item's place may be a call to splice
                before = set(map(id, spliced))
                for stmt in body:
                    if id(stmt) not in before:
                        self._hot(stmt)
        if regions is not None:
            regions.substituted(body)
        fn.body = body
        return True

    # -- each top-level statement's rounds, kept -------------------------------------------

    def _regions(self, fn: Function) -> _Regions:
        """`fn`'s top-level statements as regions, each with its rounds in the last splice of
        `fn` with the same helpers (`_Regions`)."""
        # a helper by what a splice reads of it (its build's parameters and body: the function
        # around them is made anew for each program)
        helpers = tuple(sorted((name, id(h.body), *map(id, h.params)) for name, h in self.inline.items()))
        key = ("regions", fn.name, helpers, tuple(sorted(self.foreign.items())), self.budget)
        assert self.clones is not None
        last = self.clones.get(key)
        old = last.regions if isinstance(last, _KeptRegions) else {}
        parts: list[_Region | Stmt] = []
        for stmt in fn.body:
            if not _within(stmt).named:  # nothing to splice in it (until a substitution makes some)
                parts.append(stmt)
                continue
            found = old.get(id(stmt))
            parts.append(_Region(stmt, [stmt], found[1] if found is not None and found[0] is stmt else None))
        return _Regions(key, tuple((h.body, h.params) for h in self.inline.values()), parts)

    def _splice_regions(self, regions: _Regions, tuple_subs: dict[int, list[Expr]]) -> list[Stmt] | None:
        """`_splice_block` of the function's body, region by region: a region whose rounds so
        far were taken from the last splice and whose statements and state this round are
        what they were then takes this round too (its output, the fresh numbers and budget it
        took, and its effects on the splicer replayed in order); the rest is spliced, its
        effects logged for the next splice."""
        full, index = not self.filtered, self.round
        out: list[Stmt] = []
        changed = False
        for region in regions.parts:
            if type(region) is not _Region:
                out.append(region)  # type: ignore[arg-type]
                continue
            assert isinstance(region, _Region)
            step = self._taken_round(region, index)
            if step is None:
                region.taking = False
                step = self._spliced_round(region, tuple_subs, full)
            region.rounds.append(step)
            region.stmts = step.output
            changed = changed or step.changed
            out += step.output
            if step.subs:
                tuple_subs.update(step.subs)
        return out if changed else None

    def _taken_round(self, region: _Region, index: int) -> _Round | None:
        last = region.last
        if not region.taking or last is None or index >= len(last) or self.exhausted:
            return None
        step = last[index]
        if step.fresh != self.fresh_counter or step.spliced != self.spliced_statements:
            return None
        if len(step.inputs) != len(region.stmts) or not all(map(operator.is_, step.inputs, region.stmts)):
            return None
        self.fresh_counter += step.taken
        self.spliced_statements += step.added
        self._replay(step.effects)
        return step

    def _spliced_round(
        self,
        region: _Region,
        tuple_subs: dict[int, list[Expr]],
        full: bool,
    ) -> _Round:
        fresh, spliced = self.fresh_counter, self.spliced_statements
        events: list[tuple[Any, ...]] = []
        self.events = events
        if isinstance(self.clones, _LoggedClones):
            self.clones.events = events
        subs: dict[int, list[Expr]] = {}
        try:
            got = self._splice_block(region.stmts, _calling(region.stmts), subs, full)
        finally:
            self.events = None
            if isinstance(self.clones, _LoggedClones):
                self.clones.events = None
        return _Round(
            list(region.stmts),
            fresh,
            spliced,
            region.stmts if got is None else got,
            got is not None,
            self.fresh_counter - fresh,
            self.spliced_statements - spliced,
            _Effects.of(events),
            subs,
        )

    def _replay(self, effects: _Effects) -> None:
        """The effects a region's round had on the splicer (`_log`), each kind's in order."""
        self.diagnostics += effects.diagnostics
        self.failed.update(effects.failed)
        self.reached.update(effects.reached)
        pending = self.pending
        for call, entry in effects.pending:
            if entry is None:
                pending.pop(call, None)
            else:
                pending[call] = entry
        self.next_hot.update(effects.hot)
        self.next_leads.update(effects.leads)
        self.marks += len(effects.hot) + len(effects.leads)
        for span, origin in effects.sites:
            self.sites.setdefault(span, origin)
        if self.current is not None:
            for helper_params, args, fates in effects.covers:
                cover_again(self.current, fates, helper_params, args)
        if self.clones is not None:  # the clone memo entries it used: kept for the next update
            for key in effects.memos:
                self.clones.get(key)

    def _log(self, *event: Any) -> None:
        if self.events is not None:
            self.events.append(event)

    def _splice_block(
        self,
        stmts: list[Stmt],
        calling: Iterable[int],
        tuple_subs: dict[int, list[Expr]],
        full: bool,
    ) -> list[Stmt] | None:
        """`stmts` with the calls spliced that this round splices, or None when it splices
        none there: a statement no splice reaches stays the same object, one that holds a
        spliced call at some depth is a shallow copy with new bodies. Not `full`: only the
        statements the last round marked are entered (`hot`: whole, `leads`: their blocks);
        a statement entered whole only where it holds a call of a helper. `calling`: the
        indices of the statements that call a function at some depth (`_calling`), the only
        ones either can be (a marked statement holds a helper call): the others are not met."""
        result: list[Stmt] | None = None
        done = 0  # `stmts[:done]` are in `result`
        helpers, hot, leads = self.inline.keys(), self.hot, self.leads
        for index in calling:
            stmt = stmts[index]
            whole = full or id(stmt) in hot
            if whole:
                if helpers.isdisjoint(_within(stmt).callees):
                    continue
                replacement = None if self.exhausted else self._splice_statement(stmt, tuple_subs)
            elif id(stmt) in leads:
                replacement = None
            else:
                continue
            if replacement is None:
                nested = self._splice_children(stmt, tuple_subs, whole)
                if nested is None:
                    continue
                replacement = [nested]
            if marked(stmt):
                mark(replacement)
            if result is None:
                result = stmts[:index]
            else:
                result += stmts[done:index]
            result += replacement
            done = index + 1
        if result is not None:
            result += stmts[done:]
        return result

    def _splice_children(self, stmt: Stmt, tuple_subs: dict[int, list[Expr]], full: bool) -> Stmt | None:
        blocks = stmt_children(stmt)
        if not blocks:
            return None
        marks = self.marks
        calling = zip(blocks, _within(stmt).calling, strict=True)
        spliced = [self._splice_block(body, inside, tuple_subs, full) for body, inside in calling]
        if all(body is None for body in spliced):
            return None
        new = copy.copy(stmt)
        if isinstance(new, IfStmt):
            new.then_body = spliced[0] if spliced[0] is not None else new.then_body
            if len(spliced) > 1 and spliced[1] is not None:
                new.else_body = spliced[1]
        else:
            new.body = spliced[0]  # type: ignore[union-attr]
        made = self._as_before(stmt, new)
        if self.marks != marks:  # its blocks hold a statement marked for the next round
            self._lead(made)
        return made

    def _hot(self, stmt: Stmt) -> None:
        self.next_hot.add(id(stmt))
        self.marks += 1
        self._log(_HOT, id(stmt))

    def _lead(self, stmt: Stmt) -> None:
        self.next_leads.add(id(stmt))
        self.marks += 1
        self._log(_LEAD, id(stmt))

    def _fail(self, call: Call) -> None:
        self.failed.add(id(call))
        self._log(_FAILED, id(call))

    def _mark(self, cloned: ClonedBody, statements: list[Stmt]) -> None:
        """Mark for the next round the statements of a clone just spliced (`statements`: its
        body as placed) that hold a helper call it brought in."""
        for call, holder in zip(cloned.inner, cloned.holders, strict=True):
            if call.callee in self.inline and holder < len(statements):
                self._hot(statements[holder])

    def _mark_made(self, made: Stmt) -> Stmt:
        """`made` (what a spliced call leaves after the helper's body), marked for the next
        round when it holds a helper call."""
        if any(call.callee in self.inline for call in _statement_calls(made)):
            self._hot(made)
        return made

    def _made(self, stmt: Stmt, parts: Sequence[Any], make: Callable[[], Stmt]) -> Stmt:
        """The statement `make` builds in place of `stmt` from `parts` (what a spliced call
        leaves after the helper's body: `r = v`, `return v`, the yield of `v`), or the one an
        earlier splice built of the same: the statement around it can then be kept too
        (`_as_before`). The kept statement holds `parts`, so their ids in the key stay theirs."""
        if self.clones is None:
            return self._mark_made(make())
        key = _Key(("made", id(stmt), tuple(map(id, parts))))
        kept = self.clones.get(key)
        if isinstance(kept, KeptCopy) and kept.of is stmt:
            return self._mark_made(kept.copy)
        made = make()
        self.clones.put(key, KeptCopy(stmt, made))
        return self._mark_made(made)

    def _as_before(self, stmt: Stmt, new: Stmt) -> Stmt:
        """`new` (`stmt` with new bodies), or the copy an earlier splice made of `stmt` with
        bodies of the same statements: equal to it, and the same object as then, so what a
        later pass keeps per statement (`unroll_loops`) holds for the statements holding a
        spliced call whose clones were all kept."""
        if self.clones is None:
            return new
        blocks = stmt_children(new)
        key = _Key(("copy", id(stmt), tuple(tuple(map(id, block)) for block in blocks)))
        kept = self.clones.get(key)  # the copy holds its blocks' statements: the same ids are they
        if isinstance(kept, KeptCopy) and kept.of is stmt:
            return kept.copy
        self.clones.put(key, KeptCopy(stmt, new))
        return new

    def _splice_statement(self, stmt: Stmt, tuple_subs: dict[int, list[Expr]]) -> list[Stmt] | None:
        if isinstance(stmt, YieldStmt):
            return self._splice_yield(stmt)
        call = _statement_call(stmt)
        helper = self.inline.get(call.callee) if call is not None and call.callee else None
        if call is None or helper is None or id(call) in self.failed:
            return None
        age, shown = self._pending(call)
        cloned = self._clone_body(helper, call, stmt.span, age, shown)
        if cloned is None:
            self._fail(call)
            return None
        body, values, has_return = cloned.body, cloned.values, cloned.has_return
        self._mark(cloned, body)
        if isinstance(stmt, EvalStmt):
            tail = values[0] if len(values) == 1 else None
            if age.snapshot and isinstance(tail, Call) and tail.callee in self.inline:
                return [
                    *body,
                    self._made(stmt, (tail,), lambda: EvalStmt(tail, stmt.span)),
                ]  # already spliced
            return body
        if not has_return:
            self._fail(call)
            self._report(
                NO_RETURN,
                f"Inline function '{helper.name}' is called for its value but has no return statement",
                stmt.span,
                f"add `return ...` at the end of '{helper.name}' or call it as a statement",
            )
            return None
        if isinstance(stmt, ReturnStmt):
            return [*body, self._made(stmt, values, lambda: ReturnStmt(values, stmt.span))]
        assert isinstance(stmt, AssignStmt)
        if len(values) > 1:
            tuple_subs[id(stmt.target)] = values
            return body
        value = values[0] if values else None
        if value is None or value is stmt.target:
            return body
        made = self._made(stmt, (value,), lambda: AssignStmt(stmt.target, value, stmt.span, stmt.annotation))
        return [*body, made]

    def _splice_yield(self, stmt: YieldStmt) -> list[Stmt] | None:
        """`pl.yield_(helper(x), ...)`: each helper's statements go before the yield, which
        yields the helper's return value in the call's place (as the compiler's parser does)."""
        prefix: list[Stmt] = []
        values = list(stmt.values)
        for index, value in enumerate(values):
            helper = self.inline.get(value.callee) if isinstance(value, Call) and value.callee else None
            if helper is None or id(value) in self.failed:
                continue
            assert isinstance(value, Call)
            cloned = self._clone_body(helper, value, stmt.span, *self._pending(value))
            if cloned is None or len(cloned.values) != 1:
                self._fail(value)
                if cloned is not None and not cloned.has_return:
                    self._report(
                        NO_RETURN,
                        f"Inline function '{helper.name}' is called for its value but has no return "
                        "statement",
                        value.span,
                        f"add `return ...` at the end of '{helper.name}'",
                    )
                continue
            self._mark(cloned, cloned.body)
            prefix += cloned.body
            values[index] = cloned.values[0]
        if values == stmt.values:
            return None
        return [*prefix, self._made(stmt, values, lambda: YieldStmt(values, stmt.span))]

    def _pending(self, call: Call) -> tuple[_Age, _Shown]:
        """A call's age and the names the code around it spells its arguments with (a call
        the caller itself makes: the first round, the caller's own names)."""
        known = self.pending.pop(id(call), None)
        self._log(_TAKEN, id(call))
        return (known[1], known[2]) if known is not None and known[0] is call else (_Age(0, 1), ())

    def _size(self, helper: Function) -> int:
        """How many statements `helper`'s body holds (what a clone of it adds to the budget)."""
        size = self.sizes.get(helper.name)
        if size is None:  # kept with the splices for the body (a keystroke's splice of a 344-statement
            key = _Key(("size", id(helper.body)))  # helper's clones summed them again)
            kept = self.clones.get(key) if self.clones is not None else None
            if isinstance(kept, KeptCopy) and kept.of is helper.body:
                size = kept.copy
            else:
                size = sum(_within(stmt).size for stmt in helper.body)
                if self.clones is not None:
                    self.clones.put(key, KeptCopy(helper.body, size))
            self.sizes[helper.name] = size
        return size

    def _clone_body(
        self, helper: Function, call: Call, span: Span, age: _Age, shown: _Shown
    ) -> ClonedBody | None:
        if call.kwargs:  # what the front end could not bind to a parameter by name
            self._report(
                ARITY,
                f"Inline call to '{helper.name}' passes keyword argument(s) "
                f"{', '.join(repr(k) for k in call.kwargs)} that name no parameter of it left unbound",
                span,
                f"'{helper.name}' takes ({', '.join(p.var.base_name for p in helper.params)})",
            )
            return None
        if len(call.args) != len(helper.params):
            self._report(
                ARITY,
                f"Inline call to '{helper.name}' has {len(call.args)} argument(s) "
                f"but the function expects {len(helper.params)}",
                span,
                "pass one argument per parameter",
            )
            return None
        size = self._size(helper)
        if self.spliced_statements + size > self.budget:
            self.exhausted = True
            # the analysis's own bound, not a compiler error (the compiler splices any amount)
            self.diagnostics.append(
                warning(
                    TOO_LARGE,
                    f"inline helpers expand to more than {self.budget:,} statements: "
                    "this call and the inline calls after it are not analysed",
                    span,
                    "the compiler accepts this; pypto-lsp bounds the expansion to stay responsive: "
                    f"raise {BUDGET_SETTING} to analyse the rest",
                )
            )
            return None
        self.spliced_statements += size
        self.reached.add(helper.name)
        self._log(_REACHED, helper.name)
        origin = self.foreign.get(helper.name)
        if self.current is not None:
            fates = cover_symbols(self.current, helper.name, helper.params, call.args, origin)
            self._log(_COVER, helper.params, call.args, fates)
        key = _Key(
            (
                tuple(map(id, helper.params)),  # a build again of an unchanged header has its `Param`s
                helper.name,
                tuple(map(id, call.args)),
                span if origin is not None else None,  # else the clone keeps the helper's spans
                self.fresh_counter,
                age,
                shown,
                origin is not None,
            )
        )
        found = self.clones.get(key) if self.clones is not None else None
        # the clone holds the parameters and arguments of its key: the same ids are the same objects
        kept = found if isinstance(found, ClonedBody) else None
        if kept is None or kept.body_of is not helper.body:
            # a body built again (an edit in the helper) is cloned from the clone before: each
            # statement the build kept whose variables stand for what they stood for is taken
            kept = self._cloned(helper, call, span, shown, origin is not None, kept)
            if kept is None:
                return None
            if self.clones is not None:
                self.clones.put(key, kept)
        else:
            self.fresh_counter += kept.fresh
        if origin is not None and not self.into_foreign:
            self.sites.setdefault(span, origin)
            self._log(_SITE, span, origin)
        inner = age.child()
        for inner_call in kept.inner:
            if inner_call.callee in self.inline:
                self.pending[id(inner_call)] = entry = (inner_call, inner, kept.shown)
                self._log(_PENDING, id(inner_call), entry)
        return kept

    def _cloned(
        self,
        helper: Function,
        call: Call,
        span: Span,
        shown: _Shown,
        foreign: bool,
        before: ClonedBody | None,
    ) -> ClonedBody | None:
        """`helper`'s body cloned at `call` (its statement at `span`), the next fresh numbers
        taken; None after reporting why it cannot be spliced there. `before`: the clone at
        this call of an earlier build of the helper with the same parameters and arguments,
        the first fresh number the same: a fresh variable of the same name, type and span is
        its object, and each statement of the body it cloned too is taken from it where its
        variables stand for the same objects (`_Reclone`)."""
        first = self.fresh_counter
        memo: dict[int, Any] = {id(p.var): arg for p, arg in zip(helper.params, call.args, strict=True)}
        span_at = span if foreign else None
        defined = tuple(_defined_vars(helper.body))
        made: dict[int, Var]
        alike = before is not None and before.defined == defined  # (`Var`s compare by identity)
        if alike:
            # the same variables from the same first number: the fresh ones of before, each named
            # and placed alike (an edit in an 870-line helper named its 1,300 variables again),
            # and every variable stands for what it stood for then (`_Reclone`)
            assert before is not None
            made = before.made
            memo.update(before.copies)
            self.fresh_counter += len(made)
        else:
            made = {}
            then = before.copies if before is not None else {}
            for var in defined:
                if id(var) not in memo:
                    name, at = f"{var.name}{SPLICE_SUFFIX}{self.fresh_counter}", span_at or var.span
                    fresh = then.get(id(var))  # the variable at this call before: its statements may be kept
                    if not _alike(fresh, name, var, at):
                        fresh = Var(name, var.type, at)
                    memo[id(var)] = made[id(var)] = fresh
                    self.fresh_counter += 1
        cloned: list[Stmt]
        scopes: Iterable[Stmt]
        if before is None:
            cloned = clone(helper.body, memo, span_at=span_at)
            scopes = walk_stmts(cloned)
        else:
            again = _Reclone(before, memo, span_at, alike)
            cloned = again.block(helper.body)
            scopes = again.made  # a statement taken from `before` shows its names already
        if span_at is None:  # a helper from another module shows at the call: the caller's names
            shown = _stamp_shown_names(scopes, helper, call, memo, shown)
        elif shown:
            _carry_shown_names(scopes, shown)
        body: list[Stmt] = []
        values: list[Expr] = []
        has_return = False
        for stmt in cloned:
            if isinstance(stmt, ReturnStmt):
                values, has_return = stmt.values, True
                break
            body.append(stmt)
        # a whole clone passed variables is the helper's statements structure for structure, each
        # parameter a variable: what they return, rebind and call is read from the helper's own
        # (kept with its build, `_size` made them), the calls the memo's copies, so a cold splice
        # makes no facts for each clone's statements (decode_csa.py's open: 40 clones, 5,898
        # facts); an argument that is an expression can make a call or a rebinding in its place
        mapped = before is None and all(isinstance(arg, Var) for arg in call.args)
        within = [_within(stmt) for stmt in (helper.body[: len(body)] if mapped else body)]
        if any(facts.returns for facts in within):
            self._report(
                EARLY_RETURN,
                f"Inline function '{helper.name}' contains a non-trailing return; only a single trailing "
                "return is supported",
                span,
                f"restructure '{helper.name}' so its only return is its last statement",
            )
            return None
        if any(facts.rebinds for facts in within):
            self._report(
                REBOUND_PARAM,
                f"Inline function '{helper.name}' rebinds a parameter whose argument is not a variable",
                span,
                "pass a variable for that argument, or assign the argument to a variable first",
            )
            return None
        # (of program functions only: a splice reads no op call of a clone again)
        copied = memo.__getitem__ if mapped else None
        held = [
            (c if copied is None else copied(id(c)), index)
            for index, facts in enumerate(within)
            for c in facts.calls
            if c.callee is not None
        ]
        held += [(v, len(body)) for v in values if isinstance(v, Call) and v.callee is not None]
        taken = self.fresh_counter - first
        inner, holders = tuple(c for c, _ in held), tuple(i for _, i in held)
        copies = {key: value for key, value in memo.items() if type(value) in _VARIABLES}
        if alike:  # of the variables `before` cloned, only this body's: the others' ids may be reused
            live = {id(var) for stmt in helper.body for var in _variables_of(stmt)[0]}
            copies = {key: value for key, value in copies.items() if key in live}
        # a parameter stands for its argument, a variable or not: a statement reading one whose
        # argument is an expression (`pl.cast(0, pl.INT32)`) is taken again too (`_Reclone`),
        # the key holding the same argument objects
        copies.update((id(p.var), arg) for p, arg in zip(helper.params, call.args, strict=True))
        return ClonedBody(
            helper.body,
            helper.params,
            tuple(call.args),
            body,
            values,
            has_return,
            taken,
            shown,
            inner,
            holders,
            cloned,
            copies,
            defined,
            made,
        )

    # -- what is left ---------------------------------------------------------------------

    def detach_leftover_calls(self, fn: Function, inline_names: set[str], cyclic: set[str]) -> None:
        """Calls to dropped Inline functions that could not be spliced become unknown ops
        (`fn` is this splice's own; the calls are replaced by copies, copy-on-write)."""
        statement_calls = {id(c) for s in walk_stmts(fn.body) for c in _statement_calls(s)}
        detached: set[int] = set()
        for call in _calls(fn.body):
            if call.callee not in inline_names:
                continue
            if call.callee not in cyclic and not self.exhausted and id(call) not in statement_calls:
                self._report(
                    NESTED_CALL,
                    f"the call to inline function '{call.callee}' is nested in an expression and is not "
                    "inlined",
                    call.span,
                    f"assign its result to a variable in a statement of its own: `r = {call.callee}(...)`",
                )
            detached.add(id(call))
        if detached:
            copies: dict[int, Call] = {}

            def replace(value: Any) -> Any:
                if id(value) not in detached:
                    return value
                if id(value) not in copies:
                    copies[id(value)] = dataclasses.replace(value, callee=None)
                return copies[id(value)]

            fn.body = _rewritten(fn.body, replace, {})

    def _report(self, code: str, message: str, span: Span, hint: str) -> None:
        self.diagnostics.append(found := error(code, message, span, hint))
        self._log(_DIAGNOSTIC, found)


# what a region's round did to the splicer, in order (`_Splicer._log`, `_replay`)
_DIAGNOSTIC, _FAILED, _REACHED, _PENDING, _TAKEN, _HOT, _LEAD, _SITE, _MEMO, _COVER = (
    "diagnostic",
    "failed",
    "reached",
    "pending",
    "taken",
    "hot",
    "lead",
    "site",
    "memo",
    "cover",
)


@dataclass(frozen=True, slots=True)
class _Round:
    """One round of splicing into a region (`_Splicer._splice_regions`): its statements then
    (held: no other object takes their ids while it is kept), the fresh counter and budget
    used before it, what it made (before the function's multi-value items are substituted),
    how many fresh numbers and budget it took, its effects on the splicer in order and the
    multi-value results it spliced. What a round does to a region is a function of these: of
    its statements, the state it starts in, and which of the statements in them are marked
    for it (`hot`, `leads`), which only the region's rounds before mark (taken, they mark
    again) but for a top-level statement the function's substitution of multi-value items
    made anew, which its statements being the objects of then says (so a round is taken only
    after the rounds before it were)."""

    inputs: list[Stmt]
    fresh: int
    spliced: int
    output: list[Stmt]
    changed: bool
    taken: int
    added: int
    effects: _Effects
    subs: dict[int, list[Expr]]


@dataclass(frozen=True, slots=True)
class _Effects:
    """A round's effects on the splicer (`_Splicer._log`), by kind, each kind's in the order
    they were made: no kind's effect reads another's, so a replay applies each kind at once
    (a keystroke replays the rounds of every top-level statement it left, a thousand events
    in a whole-model entry). `pending`: a call's entry set, or taken (None), in turn."""

    diagnostics: list[Diagnostic]
    failed: list[int]
    reached: list[str]
    pending: list[tuple[int, tuple[Call, _Age, _Shown] | None]]
    hot: list[int]
    leads: list[int]
    sites: list[tuple[Span, SplicedHelper]]
    covers: list[tuple[list[Param], list[Expr], Fates]]
    memos: list[Hashable]

    @staticmethod
    def of(events: list[tuple[Any, ...]]) -> _Effects:
        found = _Effects([], [], [], [], [], [], [], [], [])
        by_kind: dict[str, list[Any]] = {
            _DIAGNOSTIC: found.diagnostics,
            _FAILED: found.failed,
            _REACHED: found.reached,
            _HOT: found.hot,
            _LEAD: found.leads,
            _MEMO: found.memos,
        }
        for kind, *parts in events:
            into = by_kind.get(kind)
            if into is not None:
                into.append(parts[0])
            elif kind is _PENDING:
                found.pending.append((parts[0], parts[1]))
            elif kind is _TAKEN:
                found.pending.append((parts[0], None))
            elif kind is _SITE:
                found.sites.append((parts[0], parts[1]))
            else:
                assert kind is _COVER
                found.covers.append((parts[0], parts[1], parts[2]))
        return found


@dataclass(slots=True, eq=False)
class _Region:
    """A top-level statement of a spliced function and what splicing has made of it so far
    (`stmts`: a call statement is its clone's statements), the rounds the last splice did to
    it (`last`), those of this splice, and whether each of this splice's rounds so far was
    taken from the last one's."""

    original: Stmt
    stmts: list[Stmt]
    last: list[_Round] | None
    rounds: list[_Round] = dataclasses.field(default_factory=list)
    taking: bool = True
    kept: bool = True  # not a region a substitution made of a statement with nothing to splice


@dataclass(slots=True, eq=False)
class _Regions:
    """A function's regions in one splice, kept under `key` (the function's name, the helpers'
    bodies and parameters by identity, held, the imported helpers' origins and the budget)
    for the next splice:
    a keystroke in one top-level statement of a whole-model entry splices that statement's
    rounds, and each other's is taken (prefill_cp_fwd_draft: 138 helper calls looked up per
    keystroke, the paths to them walked, in five rounds)."""

    key: Hashable
    helpers: tuple[tuple[list[Stmt], list[Param]], ...]
    parts: list[_Region | Stmt]  # a statement with nothing to splice in it stands for itself

    def substituted(self, body: list[Stmt]) -> None:
        """Each region's statements in `body`, the function's body after a round and its
        multi-value substitution (one statement for one); a statement with nothing to splice
        that the substitution changed is a region from now on (its rounds not kept)."""
        at = 0
        for index, part in enumerate(self.parts):
            if type(part) is _Region:
                assert isinstance(part, _Region)
                part.stmts = body[at : at + len(part.stmts)]
                at += len(part.stmts)
                continue
            now = body[at]
            if now is not part:
                self.parts[index] = _Region(now, [now], None, taking=False, kept=False)
            at += 1

    def kept(self) -> _KeptRegions:
        rounds = {id(r.original): (r.original, r.rounds) for r in self.parts if type(r) is _Region and r.kept}
        return _KeptRegions(self.key, self.helpers, rounds)


@dataclass(frozen=True, slots=True)
class _KeptRegions(KeptCopy):
    """`_Regions.kept`: each region's rounds by its original statement's id (the statement
    held beside them)."""

    regions: dict[int, tuple[Stmt, list[_Round]]]


class _Key(tuple[Any, ...]):
    """A clone memo key that hashes once: a round taken again keeps the entries it used alive
    for the next update by looking each up again (`_LoggedClones`), and a key holds the ids of
    the statements of a block or the arguments of a call (tens to hundreds)."""

    hashed: int

    def __new__(cls, items: tuple[Any, ...]) -> _Key:
        key = super().__new__(cls, items)
        key.hashed = tuple.__hash__(key)
        return key

    def __hash__(self) -> int:
        return self.hashed


class _LoggedClones:
    """The splice's clone memo, each entry a region's round gets or puts logged for it
    (`events`), so a round taken again keeps the entries alive for the next update."""

    def __init__(self, clones: Clones) -> None:
        self.clones = clones
        self.events: list[tuple[Any, ...]] | None = None

    def get(self, key: Hashable) -> ClonedBody | KeptCopy | None:
        found = self.clones.get(key)
        if found is not None and self.events is not None:
            self.events.append((_MEMO, key))
        return found

    def put(self, key: Hashable, value: ClonedBody | KeptCopy) -> None:
        self.clones.put(key, value)
        if self.events is not None:
            self.events.append((_MEMO, key))


class _Reclone:
    """A helper body built again cloned from its clone at the same call before (`before`):
    a statement of the body that is the object `before` cloned (the front end keeps an
    unchanged statement's object, at every depth) and whose variables all stand for the
    objects they stood for then (the call's arguments, fresh variables of the same name, what
    the clone made of any other) is taken from `before` with everything in it; a compound one
    that is not is a new copy of its own fields around its blocks cloned the same way, any
    other a clone. `memo` maps the parameters and fresh variables, as for a whole clone, and
    takes what is cloned, so one variable is one copy across the statements made here and
    those taken. `made`: the statements made anew, at every depth. `alike`: `memo` holds
    every variable `before` cloned as it cloned it (the body binds the same variables in the
    same order), so a statement `before` cloned has each of its variables stand for the same
    object (those of the body's own loops are the same objects while the loops are: a loop
    built again around a kept statement holds the same ones), and is taken without a look at
    them (prefill_cp_csa's helper: 4,200 per keystroke)."""

    def __init__(
        self, before: ClonedBody, memo: dict[int, Any], span_at: Span | None, alike: bool = False
    ) -> None:
        pairs = zip(walk_kept(before.body_of), walk_kept(before.whole), strict=True)
        self.cloned = {id(stmt): (stmt, copy) for stmt, copy in pairs}
        self.copies = before.copies
        self.memo = memo
        self.span_at = span_at
        self.alike = alike
        self.made: list[Stmt] = []

    def block(self, stmts: list[Stmt]) -> list[Stmt]:
        return [self.statement(stmt) for stmt in stmts]

    def statement(self, stmt: Stmt) -> Stmt:
        found = self.cloned.get(id(stmt))
        if found is not None and found[0] is stmt:
            variables, shows = _variables_of(stmt)
            if not shows and (self.alike or all(self._same(var) for var in variables)):
                return found[1]
        for name in _BLOCK_FIELDS.get(type(stmt), ()):
            block = getattr(stmt, name)
            if block is not None:  # the copy of the statement takes this list for it
                self.memo[id(block)] = self.block(block)
        made: Stmt = clone(stmt, self.memo, span_at=self.span_at)
        self.made.append(made)
        return made

    def _same(self, var: Var) -> bool:
        """Whether `var` stands for what it stood for in `before` (so fixing it for this clone:
        a variable neither a parameter nor fresh is cloned to the object it was then, a
        loop-carried one when what seeds it stands for the same)."""
        then = self.copies.get(id(var))
        if then is None:
            return False
        now = self.memo.get(id(var))
        if now is None:
            if type(var) is IterArg and not all(map(self._same, _variables(var.init).values())):
                return False
            self.memo[id(var)] = now = then
        return now is then


def _alike(fresh: Expr | None, name: str, var: Var, span: Span) -> TypeGuard[Var]:
    """Whether `fresh` is a fresh variable as `_cloned` would make of `var` (named `name`, at `span`)."""
    return type(fresh) is Var and (fresh.name, fresh.type, fresh.span) == (name, var.type, span)


_VARIABLES = (Var, IterArg)
# an original statement -> the variables it reads or binds at any depth (a loop-carried one
# with those its seed reads), and whether it holds a scope that already shows names (one
# spliced into before: its clone's names then read the fresh names of the whole body); for
# as long as the statement lives, so after an edit only the new statements are walked
_STMT_VARIABLES: weakref.WeakKeyDictionary[Stmt, tuple[tuple[Var, ...], bool]] = weakref.WeakKeyDictionary()


def _variables_of(stmt: Stmt) -> tuple[tuple[Var, ...], bool]:
    known = _STMT_VARIABLES.get(stmt)
    if known is None:
        blocks = _BLOCK_FIELDS.get(type(stmt))
        shows = isinstance(stmt, ScopeStmt) and bool(stmt.shown_names)
        if blocks is None:
            found = _variables(stmt)
        else:
            own = [getattr(stmt, name) for name in _NODE_FIELDS[type(stmt)] if name not in blocks]
            found = _variables(own)
            for block in stmt_children(stmt):
                for inner in block:
                    variables, inner_shows = _variables_of(inner)
                    found.update((id(var), var) for var in variables)
                    shows = shows or inner_shows
        known = _STMT_VARIABLES[stmt] = (tuple(found.values()), shows)
    return known


def _variables(root: Any) -> dict[int, Var]:
    """The variables below `root` (loop-carried ones and what their seeds read included), by id."""
    return {id(node): node for node in _inner_nodes(root, _NOT_VARIABLES) if type(node) in _VARIABLES}


# -- IR walking -------------------------------------------------------------------------------


def _statement_call(stmt: Stmt) -> Call | None:
    if isinstance(stmt, AssignStmt) and isinstance(stmt.value, Call):
        return stmt.value
    if isinstance(stmt, EvalStmt) and isinstance(stmt.expr, Call):
        return stmt.expr
    if isinstance(stmt, ReturnStmt) and len(stmt.values) == 1 and isinstance(stmt.values[0], Call):
        return stmt.values[0]
    return None


def _statement_calls(stmt: Stmt) -> list[Call]:
    """The calls a statement makes directly, where a helper call is spliced (or reported by
    the splice itself): its statement call, or the values of a yield."""
    if isinstance(stmt, YieldStmt):
        return [v for v in stmt.values if isinstance(v, Call)]
    call = _statement_call(stmt)
    return [call] if call is not None else []


def _stamp_shown_names(
    stmts: Iterable[Stmt], helper: Function, call: Call, memo: dict[int, Any], outer: _Shown
) -> _Shown:
    """Tell each scope of a spliced body which caller variables it sees under the helper's
    names (`ScopeStmt.shown_names`), so lenses and hovers name its parameters as the code on
    screen does; `outer`: the names of the helpers this call was spliced with, outermost
    last. Names a deeper helper's scope already carries are carried over, re-keyed from this
    helper's names to the caller's. Returns what the body's own helper calls show: the
    helper's names for the caller's variables, then `outer`'s."""
    params = {p.var.name for p in helper.params}
    arguments = {
        p.var.name: arg.name for p, arg in zip(helper.params, call.args, strict=True) if isinstance(arg, Var)
    }
    fresh = {v.name: new.name for v in _defined_vars(helper.body) if isinstance(new := memo.get(id(v)), Var)}
    for stmt in stmts:
        if not isinstance(stmt, ScopeStmt):
            continue
        shown: dict[str, str] = {}
        for stem, name in stmt.shown_names:
            if stem in arguments or stem not in params:  # a parameter passed an expression: dropped
                shown.setdefault(arguments.get(stem) or fresh.get(stem, stem), name)
        for param, argument in arguments.items():
            if argument != param:
                shown.setdefault(argument, param)
        for argument, name in outer:
            shown.setdefault(argument, name)
        stmt.shown_names = tuple(shown.items())
    inner = {argument: param for param, argument in arguments.items() if argument != param}
    for argument, name in outer:
        inner.setdefault(argument, name)
    return tuple(inner.items())


def _carry_shown_names(stmts: Iterable[Stmt], outer: _Shown) -> None:
    """A helper of another module spliced at a call in this file's helper: its scopes show
    the caller's variables by the names that helper's code spells them with (`stmts`: the
    statements this clone made, at every depth)."""
    for stmt in stmts:
        if isinstance(stmt, ScopeStmt):
            shown = dict(stmt.shown_names)
            for argument, name in outer:
                shown.setdefault(argument, name)
            stmt.shown_names = tuple(shown.items())


def _defined_vars(stmts: list[Stmt]) -> Iterator[Var]:
    """Variables a body binds (its parameters excepted): they get fresh copies per splice."""
    for stmt in stmts:
        yield from _within(stmt).defined


@dataclasses.dataclass(frozen=True, slots=True)
class _Within:
    """What a splice reads of a statement and the statements inside it (`_within`)."""

    defined: tuple[Var, ...]  # the variables they bind, in `walk_stmts` order
    calls: tuple[Call, ...]  # the calls each makes directly (`_statement_calls`), in that order
    callees: frozenset[str | None]  # what those calls call: a splice enters only what calls a helper
    size: int  # how many statements: the statement and those inside it
    returns: bool  # one is a `return`
    rebinds: bool  # one assigns to what is not a variable (a parameter passed an expression)
    named: bool  # one calls a function (a call with a callee): what a splice can enter
    # for each block of the statement (`stmt_children`), the indices of its statements that are
    # `named`: a splice meets only those (a loop of 300 statements holding 3 calls costs 3)
    calling: tuple[tuple[int, ...], ...]


# a statement of a helper's build or of its clone -> `_Within`, for as long as it lives: after an
# edit in an 870-line helper its clone is walked where the edit made statements anew (the
# splice walked all 2,400 of its statements three times per keystroke); a compound statement's
# from its own and its children's, so a new loop around kept statements reads only its own
# blocks; the values hold the statement's variables and calls, never a statement
_WITHIN: weakref.WeakKeyDictionary[Stmt, _Within] = weakref.WeakKeyDictionary()


def _within(stmt: Stmt) -> _Within:
    known = _WITHIN.get(stmt)
    if known is None:
        defined: list[Var] = []
        rebinds = False
        if isinstance(stmt, AssignStmt):
            defined.append(stmt.target)
            rebinds = not isinstance(stmt.target, Var)
        elif isinstance(stmt, ForStmt):
            defined += [stmt.loop_var, *stmt.return_vars]
        elif isinstance(stmt, WhileStmt | IfStmt):
            defined += stmt.return_vars
        elif isinstance(stmt, ScopeStmt) and stmt.task_id_var is not None:
            defined.append(stmt.task_id_var)
        returns = isinstance(stmt, ReturnStmt)
        calls = _statement_calls(stmt)
        callees = {call.callee for call in calls}
        size = 1
        calling: list[tuple[int, ...]] = []
        for block in stmt_children(stmt):
            named: list[int] = []
            for index, inner in enumerate(block):
                facts = _within(inner)
                defined += facts.defined
                calls += facts.calls
                callees |= facts.callees
                size += facts.size
                returns = returns or facts.returns
                rebinds = rebinds or facts.rebinds
                if facts.named:
                    named.append(index)
            calling.append(tuple(named))
        known = _Within(
            tuple(defined),
            tuple(calls),
            frozenset(callees),
            size,
            returns,
            rebinds,
            any(callee is not None for callee in callees),
            tuple(calling),
        )
        _WITHIN[stmt] = known
    return known


def _regions_in(fn: Function) -> int:
    """How many of `fn`'s top-level statements call a function (its regions, `_Regions`)."""
    return sum(1 for stmt in fn.body if _within(stmt).named)


def _calling(stmts: list[Stmt]) -> list[int]:
    """The indices of the statements of `stmts` that call a function at some depth (`_Within.named`)."""
    return [index for index, stmt in enumerate(stmts) if _within(stmt).named]


# The fields of each IR node class that can hold another node, a list or a dict, in declaration
# order (spans, names, numbers, enums and types hold none: types are frozen and hold only
# dims). The walks below read only these, so a node costs a table look-up instead of a pass
# over `dataclasses.fields`; a value of any other class (only call attributes may hold one)
# falls back to its dataclass fields.
_NODE_FIELDS: dict[type, tuple[str, ...]] = {
    Var: (),
    IterArg: ("init",),
    Const: (),
    BinaryExpr: ("left", "right"),
    UnaryExpr: ("operand",),
    Call: ("args", "kwargs", "attrs"),
    TupleExpr: ("items",),
    ListExpr: ("items",),
    TupleGetItem: ("tuple",),
    EnumValue: (),
    OpaqueExpr: ("operands",),
    AssignStmt: ("target", "value"),
    EvalStmt: ("expr",),
    ReturnStmt: ("values",),
    YieldStmt: ("values",),
    BreakStmt: (),
    ContinueStmt: (),
    ForStmt: ("loop_var", "start", "stop", "step", "body", "iter_args", "return_vars", "kwargs"),
    WhileStmt: ("cond", "body", "iter_args", "return_vars"),
    IfStmt: ("cond", "then_body", "else_body", "return_vars"),
    CachePolicyDecl: ("var",),
    ScopeStmt: (
        "body",
        "deps",
        "no_dep_args",
        "dump_vars",
        "task_id_var",
        "predicate",
        "cache_policies",
        "core_num",
    ),
}
_SCALARS = (Span, str, int, float, bool, type(None))


def _other_children(node: Any) -> list[Any]:
    if isinstance(node, list | tuple):
        return [item for item in node if not isinstance(item, _SCALARS)]
    if isinstance(node, dict):
        return [value for value in node.values() if not isinstance(value, _SCALARS)]
    if not dataclasses.is_dataclass(node) or isinstance(node, type):
        return []
    return [
        value for f in dataclasses.fields(node) if not isinstance(value := getattr(node, f.name), _SCALARS)
    ]


_LEAVES = frozenset({Var, Const, EnumValue, *_SCALARS})
"""What `_inner_nodes` drops when it meets it: nothing below it, and neither walk wants it."""


_NOT_VARIABLES = _LEAVES - {Var}


def _inner_nodes(root: Any, leaves: frozenset[type] = _LEAVES) -> Iterator[Any]:
    """Every node reachable from `root` that is not a leaf (`leaves`: `_LEAVES`, or those of
    them `_variables` drops), once each; a node's children are read after the caller has seen
    it, so a caller may rewrite a node's fields before they are walked. Leaves (variables and
    constants, most nodes) are dropped when met, without a children look-up or a trip through
    the generator: the walks below cover every function once after splicing (10 % of a
    keystroke in qwen3_14b/decode_fwd.py, profiled, when every node was yielded)."""
    seen: set[int] = set()
    pending = [root]
    pop, push, fields = pending.pop, pending.extend, _NODE_FIELDS.get
    while pending:
        node = pop()
        kind = type(node)
        if kind in leaves or id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        if kind is list:
            push(node)
        elif (names := fields(kind)) is not None:
            push([getattr(node, name) for name in names])
        elif kind is dict:
            push(node.values())
        else:
            push(_other_children(node))


def _calls(root: Any) -> list[Call]:
    return [node for node in _inner_nodes(root) if type(node) is Call]


def _substitute_tuple_items(
    stmts: list[Stmt], subs: dict[int, list[Expr]], keep: Clones | None = None
) -> list[Stmt]:
    """`stmts` with every field or list item reachable from them that reads an item of a
    spliced multi-value helper's result replaced by that value (`_substitute_tuple_item`),
    copy-on-write: what holds no such read at any depth stays the same object. `keep`: the
    copies an earlier splice made, each taken again where its new parts are the same objects
    (`_copied`), so a statement reading the items of a helper whose clone was kept is the
    object of before, and so is every statement around it."""

    def replace(value: Any) -> Any:
        return _substitute_tuple_item(value, subs) if type(value) is TupleGetItem else value

    return _substituted_block(stmts, subs, replace, {}, keep)


def _substituted_block(
    stmts: list[Stmt],
    subs: dict[int, list[Expr]],
    replace: Callable[[Any], Any],
    done: dict[int, Any],
    keep: Clones | None,
) -> list[Stmt]:
    """`_substitute_tuple_items` of one block: a statement that reads no substituted
    variable is not entered, and a compound one that does is entered block by block, so a
    loop holding the whole body (re-made by each splicing round) is walked only where a
    substituted item is read (pypto-lib's models: a fifth of the cold splice went to
    rewalking whole statements)."""
    result: list[Stmt] | None = None
    for index, stmt in enumerate(stmts):
        new = stmt
        read = subs.keys() & _items_read(stmt)
        if read:
            known = done.get(id(stmt))
            new = known if known is not None else _substituted_stmt(stmt, read, subs, replace, done, keep)
        if new is not stmt and result is None:
            result = stmts[:index]
        if result is not None:
            result.append(new)
    return stmts if result is None else result


def _substituted_stmt(
    stmt: Stmt,
    read: set[int],
    subs: dict[int, list[Expr]],
    replace: Callable[[Any], Any],
    done: dict[int, Any],
    keep: Clones | None,
) -> Stmt:
    """One statement of `_substituted_block` that reads the items of the variables `read`:
    the last splice's result for it when the values put for those variables are the same
    objects (a function of nothing else), so a statement of a long body spliced again after an
    edit elsewhere is not walked again (each of its parts would be the copy kept before,
    `_copied`, found by walking it: a quarter of the splice of a keystroke in
    prefill_cp_fwd_draft.py); else walked and kept so."""
    values = tuple(sorted((i, tuple(subs[i])) for i in read))
    key = ("substituted", id(stmt), tuple((i, tuple(map(id, items))) for i, items in values))
    if keep is not None:
        kept = keep.get(key)
        if isinstance(kept, _KeptSubstitution) and kept.of is stmt:
            return kept.copy
    if (blocks := _BLOCK_FIELDS.get(type(stmt))) is None:
        new = _rewritten(stmt, replace, done, keep)
    else:
        new = _substituted_compound(stmt, blocks, subs, replace, done, keep)
    if keep is not None:
        keep.put(key, _KeptSubstitution(stmt, new, values))
    return new


@dataclasses.dataclass(frozen=True, slots=True)
class _KeptSubstitution(KeptCopy):
    """`_substituted_stmt`'s result for `of`, and the values it put (held, so the ids its key
    names stay theirs while it is kept)."""

    values: tuple[tuple[int, tuple[Expr, ...]], ...]


def _substituted_compound(
    stmt: Stmt,
    blocks: tuple[str, ...],
    subs: dict[int, list[Expr]],
    replace: Callable[[Any], Any],
    done: dict[int, Any],
    keep: Clones | None,
) -> Stmt:
    """A compound statement's own fields as `_rewritten` makes them, its blocks by
    `_substituted_block`: the same result as `_rewritten` of the whole statement."""
    changes: dict[str, Any] = {}
    for name in _NODE_FIELDS[type(stmt)]:
        value = getattr(stmt, name)
        if name in blocks:
            if value is None:
                continue
            known = done.get(id(value))
            rewritten = known if known is not None else _substituted_block(value, subs, replace, done, keep)
            done[id(value)] = rewritten
        else:
            rewritten = _rewritten(replace(value), replace, done, keep)
        if rewritten is not value:
            changes[name] = rewritten
    new = stmt
    if changes:
        # a block is a new list whenever it changed: its statements say whether it is as before
        parts = tuple(
            (name, tuple(map(id, value)) if name in blocks else id(value)) for name, value in changes.items()
        )
        new = _copied(keep, stmt, parts, lambda: _with_fields(stmt, changes))
    done[id(stmt)] = new
    return new


def _with_fields(node: Any, changes: Mapping[str, Any]) -> Any:
    new = copy.copy(node)
    for name, value in changes.items():
        setattr(new, name, value)
    return new


def _copied(keep: Clones | None, node: Any, parts: Hashable, make: Callable[[], Any]) -> Any:
    """The copy `make` makes of `node` with new parts (`parts`: their ids, which the copy
    holds, so they stay theirs while it is kept), or the one an earlier splice made of `node`
    with the same parts: equal to it, and the same object as then."""
    if keep is None:
        return make()
    key = ("rewritten", id(node), parts)
    kept = keep.get(key)
    if isinstance(kept, KeptCopy) and kept.of is node:
        return kept.copy
    new = make()
    keep.put(key, KeptCopy(node, new))
    return new


# the fields of the statements that hold a block of statements
_BLOCK_FIELDS: dict[type, tuple[str, ...]] = {
    ForStmt: ("body",),
    WhileStmt: ("body",),
    ScopeStmt: ("body",),
    IfStmt: ("then_body", "else_body"),
}

# a statement -> the ids of the variables it reads an item of (`v[i]`, at any depth): the
# statements of a function body that `_substitute_tuple_items` can leave as they are without
# walking them. Statements are never modified, and splicing keeps what it did not rewrite
# (the caller's own statements, kept clones), so after an edit only new statements are walked,
# and a compound one only for its own expressions (its blocks' statements are known); weak
# keys: an entry lives as long as its statement (which holds the variables of the ids)
_ITEMS_READ: weakref.WeakKeyDictionary[Stmt, frozenset[int]] = weakref.WeakKeyDictionary()


def _items_read(stmt: Stmt) -> frozenset[int]:
    known = _ITEMS_READ.get(stmt)
    if known is None:
        blocks = _BLOCK_FIELDS.get(type(stmt))
        if blocks is None:
            known = _tuples_indexed(stmt)
        else:
            own = [getattr(stmt, name) for name in _NODE_FIELDS[type(stmt)] if name not in blocks]
            ids = set(_tuples_indexed(own))
            for block in stmt_children(stmt):
                for inner in block:
                    ids |= _items_read(inner)
            known = frozenset(ids)
        _ITEMS_READ[stmt] = known
    return known


def _tuples_indexed(root: Any) -> frozenset[int]:
    nodes = _inner_nodes(root)
    return frozenset(id(n.tuple) for n in nodes if type(n) is TupleGetItem and isinstance(n.tuple, Var))


def _rewritten(node: Any, replace: Any, done: dict[int, Any], keep: Clones | None = None) -> Any:
    """`node` with `replace` applied to each field and list or dict item below it, and what
    that gives rewritten in turn; a node whose fields all come back as they were is itself,
    anything else a shallow copy (`keep`: or the one an earlier splice made alike, `_copied`).
    Each node is rewritten once (`done`, by id): a node reached twice is one node, rewritten
    or not, in the result too."""
    kind = type(node)
    if kind in _LEAVES:
        return node
    known = done.get(id(node))
    if known is not None:
        return known
    new: Any = node
    if kind is list:
        items = [_rewritten(replace(item), replace, done, keep) for item in node]
        if any(item is not old for item, old in zip(items, node, strict=True)):
            new = _copied(keep, node, tuple(map(id, items)), lambda: items)
    elif kind is dict:
        values = {key: _rewritten(replace(value), replace, done, keep) for key, value in node.items()}
        if any(values[key] is not old for key, old in node.items()):
            parts = tuple((key, id(value)) for key, value in values.items())
            new = _copied(keep, node, parts, lambda: values)
    elif kind is tuple:  # (an attribute's value) its items are walked, never replaced themselves
        inside = tuple([_rewritten(item, replace, done, keep) for item in node])
        if any(item is not old for item, old in zip(inside, node, strict=True)):
            new = _copied(keep, node, tuple(map(id, inside)), lambda: inside)
    else:
        names = _NODE_FIELDS.get(kind)
        if names is None:
            if not dataclasses.is_dataclass(node) or isinstance(node, type) or _frozen(node):
                done[id(node)] = node
                return node
            names = tuple(f.name for f in dataclasses.fields(node))
        changes = {}
        for name in names:
            value = getattr(node, name)
            rewritten = _rewritten(replace(value), replace, done, keep)
            if rewritten is not value:
                changes[name] = rewritten
        if changes:
            parts = tuple((name, id(value)) for name, value in changes.items())
            new = _copied(keep, node, parts, lambda: _with_fields(node, changes))
    done[id(node)] = new
    return new


def _frozen(node: Any) -> bool:
    return bool(type(node).__dataclass_params__.frozen)  # type: ignore[attr-defined]


def _substitute_tuple_item(expr: Any, subs: dict[int, list[Expr]]) -> Any:
    while isinstance(expr, TupleGetItem) and isinstance(expr.tuple, Var) and id(expr.tuple) in subs:
        values = subs[id(expr.tuple)]
        if not 0 <= expr.index < len(values):
            break
        expr = values[expr.index]
    return expr
