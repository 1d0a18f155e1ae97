"""A `@pl.jit.host` program's pipeline result composed from its entries' results.

A host program holds the host function, the jit functions it calls, and every `@pl.jit` entry
it reaches with all of that entry's functions; each such entry is also a program of its own
(`programs.program_plans`). Run in full, every pass walks each entry twice per analysis: a
spliced real entry is one function of hundreds of statements, half an edit's cost. The passes
treat functions one by one, in name order, and read across functions only by name: reserved
names for what they mint, a callee's parameter directions, and (outlining a scope) a callee's
body. So when the host's own functions ("H": the program's functions that are no entry's)
hold no scope, the host's result is the entry's result plus a pipeline run over H alone, in
which each entry function is a bodiless stub with its parameters (what H's calls read).

That is exact when (each checked by `compose_host`, which answers None otherwise and the
caller runs the full pipeline):
- each entry's functions were built alike in both programs: every build input the entry's
  build recorded is the host's for the same name (`build_program(inputs=...)`), neither
  program hit the splice bound (PTO416) or an internal error (PTO900), and both or neither
  have a front-end error (that skips the verifier of a whole program);
- no name one part ends with (functions it was given or minted) is another part's function
  or declaration, so the outliners mint the same names as in the entry's own run;
- no entry function's parameter directions changed in its run (H's stubs give them);
- no finding of one part has the position and code of another part's: the file's
  diagnostics are sorted by (position, code), and the order between parts differs from the
  full run's (pass by pass, functions by name), as does which copy `once_per_statement` keeps;
- two entries share no function and no scope position (their records' order).

What differs from the full run is the raw name of a variable spliced into an entry
(`x_inline<N>`): the counter is the entry program's, as in that program; it is never shown
but in raw printed IR (the compiler's own counter is process-wide).
"""

from __future__ import annotations

import weakref
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .diagnostics import Diagnostic, Severity
from .identity_memo import IdentityMemo, Revise
from .ir import Function, Param, Program, ScopeStmt
from .passes.outline_ir import walk_stmts
from .passes.pipeline import PipelineResult, run_pipeline
from .results import OutlinedScope, Promotion

_NEVER_COMPOSED = ("PTO416", "PTO900")  # the splice bound; an internal error


@dataclass(frozen=True)
class EntryRun:
    """An entry program's front-end and pipeline results, as its own analysis computed them."""

    source: Program
    build_diagnostics: tuple[Diagnostic, ...]
    inputs: dict[str, Hashable]  # `build_program(inputs=...)`
    result: PipelineResult


@dataclass(frozen=True)
class OwnRun:
    """The pipeline's result on a host's own functions with its entries as stubs, and the
    functions it was computed from (held: the key holds their ids)."""

    own: tuple[Function, ...]
    result: PipelineResult


class OwnRuns(Protocol):
    """Where `compose_host` keeps its runs over H from one update of a document to the next
    (`function_memo.UpdateMemo`)."""

    def get(self, key: Hashable) -> OwnRun | None: ...

    def put(self, key: Hashable, value: OwnRun) -> None: ...


@dataclass
class HostMemo:
    """What `compose_host` keeps for one document from one update to the next (`runs`: its
    runs over H by key; None: none kept), and what it computed from the entries' results, by
    those objects (`identity_memo`: a keystroke's entry run hands on most of its records,
    functions and findings, hundreds of each in a whole-model entry, each looked at again
    otherwise). Per document, so a one-shot analysis drops it with its file."""

    runs: OwnRuns | None = None
    # H's last run per host, by the identity of what its key reads
    own: IdentityMemo[PipelineResult] = field(default_factory=IdentityMemo)
    hosted: IdentityMemo[_Hosted] = field(default_factory=IdentityMemo)  # the records made the host's
    names: IdentityMemo[frozenset[str]] = field(default_factory=IdentityMemo)  # entries' final names
    apart: IdentityMemo[bool] = field(default_factory=IdentityMemo)  # findings, scopes apart


def compose_host(
    program: Program,
    build_diagnostics: Sequence[Diagnostic],
    inputs: dict[str, Hashable],
    entries: Sequence[EntryRun],
    memo: HostMemo | None = None,
) -> tuple[Program, PipelineResult] | None:
    """The host's front-end program (its entries' functions those of their own programs) and
    what `run_pipeline(program, build_diagnostics)` would give, or None where composing is
    not exact. `program`, `build_diagnostics`, `inputs`: the host's build. `memo`: the runs
    over H kept from the document's last update (`HostMemo.runs`); one is taken again when H's functions are
    the same objects (the front end keeps unchanged builds and splices, and the passes never
    modify their input) and what H's run reads of the rest is equal: the program's header
    and declarations, each stub's name and parameters, whether the front end failed (after
    an edit in an entry, its body, which no stub holds)."""
    if not entries or not _built_alike(build_diagnostics, inputs, entries):
        return None
    memo = memo if memo is not None else HostMemo()
    entry_names = [{fn.name for fn in entry.source.functions} for entry in entries]
    taken: set[str] = set()
    for names in entry_names:
        if names & taken:
            return None  # two entries share a function
        taken |= names
    own = [fn for fn in program.functions if fn.name not in taken]
    if any(type(stmt) is ScopeStmt for fn in own for stmt in walk_stmts(fn.body)):
        return None  # H would be outlined: its outliners read callee bodies stage by stage
    host = _own_run(program, own, build_diagnostics, entries, memo)
    if host.outlined or host.promoted or any(d.code in _NEVER_COMPOSED for d in host.diagnostics):
        return None
    own_names = {fn.name for fn in own}
    finals = [_final_names(memo, program.name, i, entry) for i, entry in enumerate(entries)]
    if not _names_apart(own_names, set(program.declarations), entries, finals) or not _directions_kept(
        entries
    ):
        return None
    parts = [host.diagnostics, *(entry.result.diagnostics for entry in entries)]
    found = [d for part in parts for d in part]
    apart = memo.apart.get(
        (program.name, *map(len, parts)), found, lambda: _findings_apart(parts), _placed_alike(found)
    )
    if not apart:
        return None
    if len(entries) > 1:
        records = [r for entry in entries for r in entry.result.outlined]
        slot = ("scopes", program.name, *(len(entry.result.outlined) for entry in entries))
        if not memo.apart.get(slot, records, lambda: _scopes_apart(entries), _sorted_alike(records)):
            return None
    final = host.program
    functions = [fn for fn in final.functions if fn.name in own_names]
    functions += [fn for entry in entries for fn in entry.result.program.functions]
    records = [r for entry in entries for r in entry.result.outlined]
    outlined = list(
        memo.hosted.get(
            (program.name, len(entries)),
            records,
            lambda: _hosted(records, program.name, len(entries) > 1),
            _rehosted(records, program.name),
        )[0]
    )
    promoted = [Promotion(program.name, p.function, p.to) for entry in entries for p in entry.result.promoted]
    promoted.sort(key=lambda p: p.function.encode())  # one pass promotes, in function-name order
    diagnostics = [*host.diagnostics, *(d for entry in entries for d in entry.result.diagnostics)]
    source = _with(program, own + [fn for entry in entries for fn in entry.source.functions])
    return source, PipelineResult(_with(final, functions), outlined, promoted, diagnostics)


def _hosted(records: list[OutlinedScope], program: str, several: bool) -> _Hosted:
    """The entries' records as the host's, in `run_pipeline`'s order (`several` entries' by
    scope position, a stable sort; one entry's records are in that order already), and where
    each record went in it."""
    order = sorted(range(len(records)), key=lambda i: _place(records[i])) if several else range(len(records))
    places = [0] * len(records)
    for at, i in enumerate(order):
        places[i] = at
    return tuple(_in_program(records[i], program) for i in order), tuple(places)


def _place(record: OutlinedScope) -> tuple[int, int]:
    return record.scope_span.start_line, record.scope_span.start_col


def _rehosted(records: list[OutlinedScope], program: str) -> Revise[_Hosted]:
    """The last host records with those of the changed positions made again where they sort
    where the records they replace did (the order is then the last one)."""

    def revise(old: Sequence[object], last: _Hosted, changed: list[int]) -> _Hosted | None:
        if any(_place(records[i]) != _place(old[i]) for i in changed):  # type: ignore[arg-type]
            return None
        hosted, places = list(last[0]), last[1]
        for i in changed:
            hosted[places[i]] = _in_program(records[i], program)
        return tuple(hosted), places

    return revise


# the host's records in order, and where each entry record is among them
_Hosted = tuple[tuple[OutlinedScope, ...], tuple[int, ...]]


def _final_names(memo: HostMemo, program: str, index: int, entry: EntryRun) -> frozenset[str]:
    """The names of an entry's final functions (its own and those its passes minted): the last
    ones while the functions that changed are named as those they replaced."""
    functions = entry.result.program.functions

    def revise(old: Sequence[object], last: frozenset[str], changed: list[int]) -> frozenset[str] | None:
        same = all(functions[i].name == old[i].name for i in changed)  # type: ignore[attr-defined]
        return last if same else None

    return memo.names.get((program, index), functions, lambda: frozenset(fn.name for fn in functions), revise)


def _sorted_alike(records: list[OutlinedScope]) -> Revise[bool]:
    """`_scopes_apart`'s last answer while the records that changed are at the places of those
    they replaced (all it reads of them)."""

    def revise(old: Sequence[object], last: bool, changed: list[int]) -> bool | None:
        return last if all(_place(records[i]) == _place(old[i]) for i in changed) else None  # type: ignore[arg-type]

    return revise


def _placed_alike(found: list[Diagnostic]) -> Revise[bool]:
    """`_findings_apart`'s last answer while the findings that changed are at the places and of
    the codes of those they replaced (all it reads of them)."""

    def revise(old: Sequence[object], last: bool, changed: list[int]) -> bool | None:
        same = all(
            found[i].span == old[i].span and found[i].code == old[i].code  # type: ignore[attr-defined]
            for i in changed
        )
        return last if same else None

    return revise


def _in_program(record: OutlinedScope, program: str) -> OutlinedScope:
    """`record.in_program(program)`, the object made for it before while the record lives
    (`_HOSTED`, by the record's identity: it compares by value): a keystroke's entry run
    hands on the records of every scope its outliners took, and a host revised each of its
    hundreds again."""
    key = id(record)
    kept = _HOSTED.get(key)
    if kept is not None and kept[0]() is record and kept[1] == program:
        return kept[2]
    hosted = record.in_program(program)
    _HOSTED[key] = (weakref.ref(record, lambda _, key=key: _HOSTED.pop(key, None)), program, hosted)  # type: ignore[misc]
    return hosted


# an entry's record, by identity -> (the record, weakly; the host program; the host's record)
_HOSTED: dict[int, tuple[weakref.ref[OutlinedScope], str, OutlinedScope]] = {}


def _own_run(
    program: Program,
    own: list[Function],
    build_diagnostics: Sequence[Diagnostic],
    entries: Sequence[EntryRun],
    memo: HostMemo,
) -> PipelineResult:
    """`run_pipeline` over H with the entries' functions as stubs, or the kept run of the same:
    the last one while what it reads is the same objects (a keystroke's host build hands on its
    functions, declarations and call sites, and the entry's parameters), else by its key."""
    failed = any(d.severity is Severity.ERROR for d in build_diagnostics)  # all it reads of them
    functions = [fn for entry in entries for fn in entry.source.functions]
    slot = (
        program.name,
        program.span,
        program.name_span,
        program.origin,
        failed,
        tuple(program.declarations),
        tuple((fn.name, len(fn.params)) for fn in functions),
    )
    objects = [
        *own,
        *program.declarations.values(),
        *program.spliced,
        *program.spliced.values(),
        *(
            part
            for fn in functions
            for p in fn.params
            for part in (p, p.var, p.var.name, p.var.type, p.var.span, p.direction, p.span)
        ),
    ]
    return memo.own.get(
        slot, objects, lambda: _keyed_run(program, own, build_diagnostics, functions, failed, memo.runs)
    )


def _keyed_run(
    program: Program,
    own: list[Function],
    build_diagnostics: Sequence[Diagnostic],
    functions: list[Function],
    failed: bool,
    runs: OwnRuns | None,
) -> PipelineResult:
    stubs = [_stub(fn) for fn in functions]
    key = (
        (program.name, program.span, program.name_span, program.origin),
        tuple(program.declarations.items()),
        tuple(program.spliced.items()),
        tuple(id(fn) for fn in own),
        tuple(
            (fn.name, tuple((p.var.name, p.var.type, p.var.span, p.direction, p.span) for p in fn.params))
            for fn in stubs
        ),
        failed,
    )
    kept = runs.get(key) if runs is not None else None
    if kept is not None and all(a is b for a, b in zip(kept.own, own, strict=True)):
        return kept.result
    result = run_pipeline(_with(program, own + stubs), build_diagnostics)
    if runs is not None:
        runs.put(key, OwnRun(tuple(own), result))
    return result


def _built_alike(
    build_diagnostics: Sequence[Diagnostic], inputs: dict[str, Hashable], entries: Sequence[EntryRun]
) -> bool:
    failed = any(d.severity is Severity.ERROR for d in build_diagnostics)
    if any(d.code in _NEVER_COMPOSED for d in build_diagnostics):
        return False
    for entry in entries:
        if not entry.inputs or any(inputs.get(name) != key for name, key in entry.inputs.items()):
            return False
        if any(d.code in _NEVER_COMPOSED for d in (*entry.build_diagnostics, *entry.result.diagnostics)):
            return False
        if any(d.severity is Severity.ERROR for d in entry.build_diagnostics) != failed:
            return False
    return True


def _stub(fn: Function) -> Function:
    """What H's passes read of an entry function: its name and parameter directions. Opaque
    and bodiless, no pass reports on it or mints from it."""
    return Function(fn.name, [Param(p.var, p.direction, p.span) for p in fn.params], [])


def _with(program: Program, functions: list[Function]) -> Program:
    return Program(
        program.name,
        functions,
        program.span,
        program.name_span,
        program.origin,
        program.declarations,
        program.spliced,
        program.aliases,
    )


def _names_apart(
    own: set[str], declarations: set[str], entries: Sequence[EntryRun], finals: Sequence[frozenset[str]]
) -> bool:
    """No part's final function names (`finals`, each entry's) are another part's functions or
    declarations."""
    for i, (entry, names) in enumerate(zip(entries, finals, strict=True)):
        others = own | (declarations - set(entry.source.declarations))
        for j, other in enumerate(finals):
            if j != i:
                others |= other
        if names & others:
            return False
    return True


def _directions_kept(entries: Sequence[EntryRun]) -> bool:
    for entry in entries:
        for fn in entry.source.functions:
            final = entry.result.program.get(fn.name)
            if final is None or [p.direction for p in final.params] != [p.direction for p in fn.params]:
                return False
    return True


def _findings_apart(parts: Sequence[Sequence[Diagnostic]]) -> bool:
    seen: dict[tuple[object, str], int] = {}
    for i, part in enumerate(parts):
        for d in part:
            if seen.setdefault((d.span, d.code), i) != i:
                return False
    return True


def _scopes_apart(entries: Sequence[EntryRun]) -> bool:
    seen: dict[tuple[int, int], int] = {}
    for i, entry in enumerate(entries):
        for record in entry.result.outlined:
            key = (record.scope_span.start_line, record.scope_span.start_col)
            if seen.setdefault(key, i) != i:
                return False
    return True
