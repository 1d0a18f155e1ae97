"""Whole-file analysis, from scratch or incrementally.

`DocumentAnalyzer.update(text)` is what the language server calls on every edit. It re-splits
the text into units (cheap), re-builds and re-runs the pipeline only for programs whose
fingerprint changed (their own units' text, or the module context they depend on: imports,
constants, inline helpers), and reuses every other program's result, moved if the program's
units only shifted (alike, or each by its own delta: `span.LineShift`). The result must equal
`analyse_source(text)` on the same text; tests compare the two.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Hashable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from itertools import pairwise
from operator import is_
from pathlib import Path

from . import frontend
from .diagnostics import Diagnostic, Related, Severity
from .frontend.function_memo import FunctionMemo, UpdateMemo
from .frontend.imports import FileLookup, same_code
from .frontend.jit_messages import written_names
from .frontend.programs import Fingerprint
from .gc_pause import gc_paused
from .host_reuse import EntryRun, HostMemo, OwnRun, compose_host
from .identity_memo import IdentityMemo
from .ir import Program, SplicedHelper
from .passes.inline_functions import SPLICE_BUDGET
from .passes.pipeline import run_pipeline
from .printer import print_program
from .recurring import keeping_all, met_once
from .results import DroppedUnit, FileAnalysis, ProgramAnalysis, span_order
from .span import Span, line_shift, split_lines

log = logging.getLogger(__name__)


# a standalone helper's diagnostics that do not depend on a caller: input, parser, internal error
_CALLER_FREE_CODES = ("PTO0", "PTO1", "PTO900")

_Key = tuple[Fingerprint, int]  # a program's fingerprint, and which of the programs sharing it


class Interrupted(Exception):
    """`DocumentAnalyzer.update` gave way to other work (its `stop` said so) between two
    programs. The programs it finished are kept: the next update of the same text starts
    where this one stopped."""


@dataclass(slots=True)
class _Cached:
    """A program's result together with where its units started when it was computed."""

    starts: tuple[int, ...]
    result: ProgramAnalysis
    # its build and pipeline results, kept for the host programs reaching it (`host_reuse`)
    run: EntryRun | None = None
    # where the functions of other modules it reaches were defined (`frontend.spliced_helpers`)
    helpers: tuple[SplicedHelper, ...] = ()
    # the texts of their units, for a second look when their identities changed (`_same_code`)
    foreign: tuple[str, ...] = ()


class DocumentAnalyzer:
    """Analysis state for one document. Not thread-safe: one caller at a time."""

    def __init__(
        self, *, compose_hosts: bool = True, one_shot: bool = False, keep_all_at_open: bool = False
    ) -> None:
        """`compose_hosts=False`: run every host program's pipeline in full (tests compare).
        `one_shot`: the text is analysed once (`analyse_source`), so the builds keep nothing
        for a next one (`FunctionMemo.keeps_statements`). `keep_all_at_open`: the first update
        keeps every pass's per-statement results at their first meeting (`recurring`), for a
        document the user is about to type into (the server's open documents)."""
        self.compose_hosts = compose_hosts
        self._keep_all = keep_all_at_open  # until the first update has completed
        self._keeps_statements = not one_shot
        self._cache: dict[_Key, _Cached] = {}
        self._splitter = frontend.UnitSplitter()
        self._contexts = frontend.ContextMemo()  # the module context, kept while what it reads is
        # built functions kept per function (`function_memo`)
        self._functions = FunctionMemo(keeps_statements=self._keeps_statements)
        self._own_runs: UpdateMemo[Hashable, OwnRun] = UpdateMemo()  # hosts' runs over their own functions
        self._hosts = HostMemo(self._own_runs)  # ... and what composing them kept
        self._placed: UpdateMemo[int, EntryRun] = UpdateMemo()  # runs of imported entries hosts compile
        self._in_helpers: HelperFindings = IdentityMemo()  # findings said to be in imported code
        # the last update's findings as gathered, and as reported (deduplicated, sorted)
        self._reported: tuple[list[Diagnostic], list[Diagnostic]] = ([], [])
        self._splice_budget = SPLICE_BUDGET  # what the cached programs were spliced with
        self.rebuilt = 0  # programs rebuilt by the last update (observability for tests/bench)
        self.composed = 0  # ... and host programs of them composed from their entries' results
        self.reused_functions = 0  # ... and functions of them whose build was reused
        # the last text's lines (`split_lines`, a leading U+FEFF kept), for callers that need
        # them too: splitting a 5,000-line file again costs a tenth of an edit's fixed cost
        self.lines: list[str] = []

    def update(
        self,
        text: str,
        lines: Sequence[str] | None = None,
        modules: FileLookup | None = None,
        splice_budget: int = SPLICE_BUDGET,
        stop: Callable[[], bool] | None = None,
        units: Sequence[frontend.Unit] | None = None,
        context: tuple[frontend.ModuleContext, list[Diagnostic]] | None = None,
    ) -> FileAnalysis:
        """`lines`: `split_lines(text)`, when the caller keeps them up to date anyway (the
        server does): splitting a 5,000-line text is a tenth of a keystroke's analysis.
        `units`: `block_units(split_units(text))`, when the caller has them (`pypto-check`'s
        module index split each checked file for its importers already); they are not kept
        for the next update's split. `context`: the module context of those units and its
        diagnostics, when the caller has it (`pypto-check`'s module index computed it for the
        file's importers, `ModuleIndex.context`); not kept for the next update either.
        `modules` answers the file's imports (`pypto_core.workspace`); None: nothing is
        imported, every imported name is unknown. `splice_budget`: the statements splicing
        may add to one program (`inline_functions`); a new one rebuilds every program.
        `stop`: asked before each program is built and before its passes run; True raises
        `Interrupted` (the server's background index gives way to a document so: a real
        file's analysis is seconds, one program's build or passes a fraction of it)."""
        if splice_budget != self._splice_budget:
            self._cache = {}
            self._splice_budget = splice_budget
        once = met_once() if not self._keeps_statements else nullcontext()
        with gc_paused(), keeping_all() if self._keep_all else nullcontext(), once:
            try:
                analysis = self._update(text, lines, modules, stop, units, context)
            finally:
                self._splitter.release()  # the units are kept for the next edit, their trees not
        self._keep_all = False
        return analysis

    def _update(
        self,
        text: str,
        lines: Sequence[str] | None,
        modules: FileLookup | None,
        stop: Callable[[], bool] | None,
        given: Sequence[frontend.Unit] | None,
        given_context: tuple[frontend.ModuleContext, list[Diagnostic]] | None = None,
    ) -> FileAnalysis:
        self.lines = split_lines(text) if lines is None else list(lines)
        source_lines = self.lines
        if text.startswith("\ufeff"):
            source_lines = [source_lines[0][1:], *source_lines[1:]]
        units = list(given) if given is not None else frontend.block_units(self._splitter.split(source_lines))
        if given_context is not None:
            context, context_diagnostics = given_context
            context.freeze()
        else:
            context, context_diagnostics = self._contexts.module_context(
                units, modules, frontend.module_context
            )
        if not context.analysed:
            self._cache = {}
            self._functions = FunctionMemo(keeps_statements=self._keeps_statements)
            self._own_runs = UpdateMemo()
            self._hosts = HostMemo(self._own_runs)
            self._placed = UpdateMemo()
            self._in_helpers = IdentityMemo()
            self.rebuilt = 0
            return FileAnalysis()
        fresh: dict[_Key, _Cached] = {}
        occurrences: dict[Fingerprint, int] = {}
        self.rebuilt = self.composed = 0
        notable = frontend.notable_indices(units)  # what the stages after the context look at
        found = frontend.file_plans(units, context, notable)
        top_level, units = units, found.units
        keys: list[_Key] = []
        for plan, _ in found.plans:
            nth = occurrences.get(plan.fingerprint, 0)
            occurrences[plan.fingerprint] = nth + 1
            keys.append((plan.fingerprint, nth))
        # a host's entries first: its analysis is composed from theirs (`host_reuse`)
        wanted = {(id(ctx), entry) for plan, ctx in found.plans for entry in plan.entries}
        runs: dict[tuple[int, int], EntryRun | None] = {}
        results: dict[int, ProgramAnalysis] = {}
        for k in sorted(range(len(found.plans)), key=lambda k: bool(found.plans[k][0].entries)):
            plan, plan_context = found.plans[k]
            starts = tuple(units[i].start_line for i in plan.unit_indices)
            helpers = frontend.spliced_helpers(plan) if plan.imported else ()
            unit = (id(plan_context), plan.unit_indices[0])
            texts = tuple(f.unit.text for f in plan.imported)
            cached = self._reuse(keys[k], starts, helpers)
            if cached is None and plan.imported:
                cached = self._same_code(keys[k], texts, starts, helpers)
            if cached is None:
                entries = [runs.get((id(plan_context), e)) for e in plan.entries]
                try:
                    result, run, composed = _analyse_program(
                        plan,
                        units,
                        plan_context,
                        source_lines,
                        self._functions,
                        self._splice_budget,
                        entries,
                        stop,
                        self._hosts,
                        self._placed if self.compose_hosts else None,
                        self._in_helpers,
                    )
                except Interrupted:
                    self._cache.update(fresh)  # what is done stays done (the memo keeps its builds)
                    raise
                self.rebuilt += 1
                self.composed += composed
                cached = _Cached(starts, result, run if unit in wanted else None, helpers, texts)
            runs[unit] = cached.run
            fresh[keys[k]] = cached
            results[k] = cached.result
        programs = [results[k] for k in range(len(found.plans))]
        self._cache = fresh
        self.reused_functions = self._functions.reused
        self._functions.next_update()
        self._own_runs.next_update()
        self._placed.next_update()
        all_notable = [*map(units.__getitem__, notable), *units[len(top_level) :]]  # with the nested units
        dropped = [
            DroppedUnit(u.kind, u.name, u.start_line, u.syntax_error)
            for u in all_notable
            if u.syntax_error is not None and u.kind != "other" and u.name
        ]
        diagnostics = [u.syntax_error for u in all_notable if u.syntax_error is not None]
        diagnostics += context_diagnostics
        covered = [units[i] for plan, _ in found.plans for i in plan.unit_indices]
        diagnostics += frontend.not_outlined(top_level, context, covered, source_lines, notable)
        for program in programs:
            diagnostics += program.diagnostics
        return FileAnalysis(
            diagnostics=self._report(diagnostics),
            promoted=[pr for p in programs for pr in p.promoted],
            programs=programs,
            is_dsl=True,
            dropped=dropped,
            dsl_names=context.dsl_names(),
            helpers=frontend.inline_helper_defs(top_level, context, source_lines, notable),
            unresolved={
                **{name: (module, True) for name, module in context.opaque_imports.items()},
                **context.unresolved,
            },
        )

    def _report(self, found: list[Diagnostic]) -> list[Diagnostic]:
        """`found` deduplicated and in order: the last update's order when `found` is the
        same objects as its (a keystroke's programs hand on most of their findings, hundreds
        on a real model file, each hashed and sorted again otherwise)."""
        last, reported = self._reported
        if len(found) != len(last) or not all(map(is_, found, last)):
            reported = sorted(dict.fromkeys(found), key=_position)
            self._reported = found, reported
        return list(reported)

    def _reuse(
        self, key: _Key, starts: tuple[int, ...], helpers: tuple[SplicedHelper, ...]
    ) -> _Cached | None:
        cached = self._cache.get(key)
        if cached is None:
            return None
        if helpers != cached.helpers:
            # a line added or removed above an imported helper in its file: the same analysis,
            # pointing at where the helpers are now (their runs are not relocated)
            relocated = cached.result.relocated(dict(zip(cached.helpers, helpers, strict=True)))
            cached = _Cached(cached.starts, relocated, None, helpers, cached.foreign)
        if starts == cached.starts:
            return cached  # the usual case on a keystroke: the program did not move
        # a jit program whose units moved apart (a line typed inside one of them moves the
        # units below it, not those above): each unit's positions move by its own delta, their
        # order kept (the fingerprint holds the units' texts, not where they stand)
        order = sorted(range(len(starts)), key=cached.starts.__getitem__)
        if any(starts[a] >= starts[b] for a, b in pairwise(order)):
            return None  # units that changed places
        deltas = [starts[k] - cached.starts[k] for k in order]
        moved = cached.result.moved(line_shift([cached.starts[k] for k in order], deltas))
        return _Cached(starts, moved, None, helpers, cached.foreign)  # its run is not moved

    def _same_code(
        self, key: _Key, texts: tuple[str, ...], starts: tuple[int, ...], helpers: tuple[SplicedHelper, ...]
    ) -> _Cached | None:
        """A kept program whose fingerprint differs from `key` only in imported functions
        whose code is the same (`same_code`: a blank or comment line typed inside a helper
        changes its unit's key), reused as `_reuse` would reuse it. Looked for only when the
        fingerprint missed: most programs' helpers are as they were."""
        fingerprint, nth = key
        for (old, old_nth), cached in self._cache.items():
            if old_nth != nth or old[:4] != fingerprint[:4] or len(old[4]) != len(fingerprint[4]):
                continue
            pairs = zip(old[4], fingerprint[4], cached.foreign, texts, strict=True)
            if all(same_code(*pair) for pair in pairs):
                found = self._reuse((old, old_nth), starts, helpers)
                return None if found is None else dataclasses.replace(found, foreign=texts)
        return None


def analyse_source(
    text: str,
    path: str | None = None,
    modules: FileLookup | None = None,
    splice_budget: int = SPLICE_BUDGET,
    units: Sequence[frontend.Unit] | None = None,
    context: tuple[frontend.ModuleContext, list[Diagnostic]] | None = None,
) -> FileAnalysis:
    """Analyse `text` from scratch (`path` is only used in log messages; `modules` answers
    its imports; `splice_budget`: the statements splicing may add to one program; `units`
    and `context`: its units and module context, when the caller has them,
    `DocumentAnalyzer.update`)."""
    log.debug("analysing %s", path or "<text>")
    analyzer = DocumentAnalyzer(one_shot=True)
    return analyzer.update(text, modules=modules, splice_budget=splice_budget, units=units, context=context)


def outlined_program_text(analysis: FileAnalysis, *, raw: bool = False) -> str:
    """The outlined program(s) of a file, printed as DSL, one after another, each function in
    source order with the functions outlined from it right after it (`source_order`).
    Variables are named for people (`printer.print_function(display=True)`); `raw=True`
    prints the IR's own names (`out__ssa_v1`, `x_inline3__rv_v2`), which parse back to the IR."""
    parts = [
        (p.span.start_line, print_program(p.outlined_program, display=not raw, order=source_order(p)))
        for p in analysis.programs
        if p.outlined_program is not None
    ]
    parts += [(d.line, _dropped_comment(d)) for d in analysis.dropped]
    return "\n\n".join(text for _, text in sorted(parts, key=lambda part: part[0]))


_DROPPED_KINDS = {"program": "program", "jit": "jit function", "inline": "inline helper"}


def _dropped_comment(dropped: DroppedUnit) -> str:
    """What the document shows where a unit that does not parse would be."""
    where = dropped.error.span
    kind = _DROPPED_KINDS.get(dropped.kind, dropped.kind)
    return (
        f"# {kind} {dropped.name} (line {dropped.line + 1}) is not shown: it does not parse\n"
        f"# line {where.start_line + 1}: {dropped.error.message}\n"
    )


def source_order(program: ProgramAnalysis) -> list[str]:
    """The outlined program's function names in the order a reader meets them: the user's
    functions by position, each followed by the functions outlined from its scopes (by the
    scope's position, depth first: a nested scope's function follows its parent's)."""
    assert program.outlined_program is not None
    children: dict[str, list[tuple[tuple[int, int, int, int], str]]] = {}
    outlined = set()
    for record in program.outlined:
        children.setdefault(record.parent, []).append((span_order(record.scope_span), record.name))
        outlined.add(record.name)
    roots = sorted(
        (span_order(fn.span), fn.name) for fn in program.outlined_program.functions if fn.name not in outlined
    )
    order: list[str] = []
    stack = [name for _, name in reversed(roots)]
    while stack:
        name = stack.pop()
        if name in order:
            continue
        order.append(name)
        stack += [child for _, child in sorted(children.get(name, []), reverse=True)]
    return order


def _analyse_program(
    plan: frontend.ProgramPlan,
    units: list[frontend.Unit],
    context: frontend.ModuleContext,
    source_lines: list[str],
    memo: FunctionMemo,
    splice_budget: int,
    entries: Sequence[EntryRun | None] = (),
    stop: Callable[[], bool] | None = None,
    hosts: HostMemo | None = None,
    placed_runs: UpdateMemo[int, EntryRun] | None = None,
    in_helpers: HelperFindings | None = None,
) -> tuple[ProgramAnalysis, EntryRun, bool]:
    """The program's analysis, its run (for hosts reaching it), and whether it was composed
    from `entries` (the runs of the entries of its file a host reaches; None: one not at
    hand) and those of the imported entries compiled into it. `stop`: asked before the build
    and before the passes (`Interrupted`). `hosts`: a composed host's runs over its own
    functions and what composing it kept, from one update to the next (`compose_host`);
    `placed_runs`: the runs of the imported entries compiled into hosts, likewise (None: no
    host is composed, its pipeline is run in full). `in_helpers`: the findings `_in_helpers` said before."""
    if stop is not None and stop():
        raise Interrupted
    inputs: dict[str, Hashable] = {}
    placed: list[Program] = []
    program, build_diagnostics = frontend.build_program(
        plan, units, context, source_lines, memo, splice_budget, inputs, placed
    )
    if stop is not None and stop():
        raise Interrupted
    composed = None
    if placed_runs is not None and (entries or placed) and all(entries):
        given = [e for e in entries if e is not None]
        given += [_placed_run(entry, inputs, placed_runs) for entry in placed]
        composed = compose_host(program, build_diagnostics, inputs, given, hosts)
    source, result = composed if composed is not None else (program, run_pipeline(program, build_diagnostics))
    run = EntryRun(program, tuple(build_diagnostics), inputs, result)
    found = result.diagnostics
    if program.spliced:
        found = _said_in_helpers(found, program.spliced, in_helpers, (plan.name, plan.unit_indices[0]))
    outlined, diagnostics = result.outlined, build_diagnostics + found
    if program.origin == "jit":  # its errors name the variables as written, as the compiler's do
        diagnostics = written_names(diagnostics, program)
    if plan.standalone:
        # What the passes report about a helper depends on the caller it is spliced into (its
        # function type, the other scopes there): only the front end's findings are its own.
        outlined = [record.as_standalone() for record in outlined]
        diagnostics = [d for d in diagnostics if d.code.startswith(_CALLER_FREE_CODES)]
    analysis = ProgramAnalysis(
        name=program.name,
        span=program.span,
        source=source,
        outlined_program=result.program,
        outlined=outlined,
        promoted=[] if plan.standalone else result.promoted,
        diagnostics=diagnostics,
        front_end_failed=any(d.severity is Severity.ERROR for d in build_diagnostics),
    )
    return analysis, run, composed is not None


def _placed_run(program: Program, inputs: dict[str, Hashable], runs: UpdateMemo[int, EntryRun]) -> EntryRun:
    """The pipeline's run over an imported entry's program placed at a host's call (the
    program's functions are the host's, `frontend.build_program(placed=...)`), as an entry's
    own run for `compose_host`: kept while the placed program is the same object (it is, for
    the same entry program and call site)."""
    kept = runs.get(id(program))
    if kept is not None and kept.source is program:
        return kept
    own = {fn.name: inputs[fn.name] for fn in program.functions}
    run = EntryRun(program, (), own, run_pipeline(program, ()))
    runs.put(id(program), run)
    return run


# each finding `_in_helpers` rewrote, by its id: the finding, the helper, what it said
Rewritten = dict[int, tuple[Diagnostic, SplicedHelper, Diagnostic]]
# per program (by name and primary unit): the findings as said, and those rewritten
HelperFindings = IdentityMemo[tuple[list[Diagnostic], Rewritten]]


def _said_in_helpers(
    found: list[Diagnostic],
    spliced: dict[Span, SplicedHelper],
    kept: HelperFindings | None,
    program: tuple[str, int],
) -> list[Diagnostic]:
    """`_in_helpers`, its last answer for the program when `found` and `spliced` are the same
    objects (the passes hand on the objects of the findings they keep, a whole-model entry's
    hundreds), else from what it rewrote last time."""
    if kept is None:
        return _in_helpers(found, spliced)[0]
    slot = (*program, len(found), len(spliced))
    last = kept.last(slot)
    objects = [*found, *spliced, *spliced.values()]
    said, _ = kept.get(
        slot, objects, lambda: _in_helpers(found, spliced, last[1] if last is not None else {})
    )
    return list(said)


def _in_helpers(
    found: list[Diagnostic], spliced: dict[Span, SplicedHelper], kept: Rewritten | None = None
) -> tuple[list[Diagnostic], Rewritten]:
    """Each finding in the spliced body of another file's helper, or in an imported entry a
    host compiles into its program, as the compiler compiling this file raises it: here (the
    code is this program's), saying which function of which file caused it and pointing at its
    definition there; and each finding it rewrote, by id. Each helper's words are made once,
    and a finding rewritten before (`kept`: the passes hand on the objects of the findings they
    keep) is what it said then."""
    said: dict[int, tuple[str, Related]] = {}  # by the helper's id: `spliced` holds it
    rewritten: Rewritten = {}
    result = []
    for d in found:
        helper = spliced.get(d.span)
        if helper is None:
            result.append(d)
            continue
        known = kept.get(id(d)) if kept is not None else None
        if known is not None and known[0] is d and known[1] == helper:
            rewritten[id(d)] = known
            result.append(known[2])
            continue
        words = said.get(id(helper))
        if words is None:
            words = said[id(helper)] = _helper_words(helper)
        what, where = words
        made = Diagnostic(
            d.code, d.severity, f"{d.message} (in {what})", d.span, d.hint, (*d.related, where), d.data
        )
        rewritten[id(d)] = (d, helper, made)
        result.append(made)
    return result, rewritten


def _helper_words(helper: SplicedHelper) -> tuple[str, Related]:
    """How a finding in `helper`'s code says where it comes from, and its related location."""
    where = Path(helper.path).name
    what = (
        f"jit entry '{helper.name}' of {where}, compiled into this program at this call"
        if helper.entry
        else f"inline helper '{helper.name}' of {where}, spliced at this call"
    )
    return what, Related(f"'{helper.name}' is defined here", helper.name_span, helper.path)


def _position(d: Diagnostic) -> tuple[tuple[int, int, int, int], str, int]:
    return (span_order(d.span), d.code, list(Severity).index(d.severity))
