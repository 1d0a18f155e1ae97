"""A program's splicing of its inline helpers, kept from one build to the next (salsa-style: a
derived result keyed by its inputs, with early cut-off).

What `inline_functions` makes of a program depends on its helpers and on the kept functions
that call one; a kept function that calls none is handed through untouched and changes
nothing else (no fresh name, no budget, no finding). So the spliced callers are kept under
the identity of what they were spliced from: each caller's and helper's build (the
`FunctionMemo`'s `BuiltFunction`, an imported helper's shared build), by name in program
order, with the splice budget and the imported helpers' origins. A host program holds its
entry's functions as the entry's own program built them, plus a host function that calls no
helper: it takes the entry's splice instead of cloning and splicing the whole entry again
(also when the helpers are imported: they stand at the program's header until spliced, which
the key leaves out, and a splice that reported at its header is not taken elsewhere); an edit
in a kernel that calls no helper splices nothing.

The kept functions are never modified (the passes copy before they rewrite; dump tags are
applied here, before keeping) and are shared by the programs holding them.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from .. import ir
from ..diagnostics import Diagnostic
from ..ir_clone import clone
from ..passes.inline_functions import Clones, SpliceFacts, inline_functions
from ..span import Span
from .dump_tags import apply_dump_tags
from .function_memo import UpdateMemo


@dataclass(frozen=True, slots=True)
class Spliceable:
    """One function of a program as built, before splicing."""

    function: ir.Function  # shared: never modified
    facts: SpliceFacts
    tags: bool  # holds a `dump_tag`
    rewritten: bool  # handed out as a copy when kept as is (dump tags rewrite it in place)
    build: object  # what it was built as, by identity: its `BuiltFunction`, an imported helper's build

    def copy(self) -> ir.Function:
        return clone(self.function)

    def handed_out(self) -> ir.Function:
        return self.copy() if self.rewritten else self.function


@dataclass(frozen=True, slots=True)
class SplicedCallers:
    """A splice's result: the callers spliced, what splicing reported, the calls of imported
    helpers (`inline_functions`), and the builds it read, kept alive so that no other object
    takes their ids (the key holds ids)."""

    builds: tuple[object, ...]
    functions: tuple[ir.Function, ...]
    diagnostics: tuple[Diagnostic, ...]
    sites: Mapping[Span, ir.SplicedHelper]
    header: Span  # where its imported helpers stood (a finding on one points there)

    def fits(self, header: Span) -> bool:
        """Whether it is this program's splice too: spliced at the same header, or reporting
        nothing at its own (only a finding on an imported helper itself, a PTO410 on its
        name, points at the header: what splicing brings in takes the call's spans)."""
        return header == self.header or not any(
            d.span == self.header or any(r.span == self.header for r in d.related) for d in self.diagnostics
        )


def splice(
    parts: Sequence[tuple[str, Spliceable]],
    foreign: Mapping[str, ir.SplicedHelper],
    budget: int,
    header: Span,
    dump_tags: bool,
    memo: UpdateMemo[Hashable, SplicedCallers] | None,
    clones: Clones | None = None,
) -> tuple[list[ir.Function], list[Diagnostic], dict[Span, ir.SplicedHelper]]:
    """The program's functions (`parts`, by name) with its helpers spliced into their callers
    and dropped, what splicing reported, and the calls of imported helpers (`inline_functions`);
    `dump_tags`: whether any function holds a tag (each kept function's are then applied).
    `header`: where the imported helpers stand until spliced (a PTO410 on one points there).
    `clones`: the helper bodies cloned at each call by the document's last splices
    (`inline_functions`), taken again where nothing they depend on changed."""
    ordered = sorted(parts, key=lambda part: part[0].encode())  # `ir.Program`'s order
    helpers = {name for name, part in ordered if part.function.type is ir.FunctionType.Inline}
    if not helpers:
        return _tagged([part.handed_out() for _, part in ordered], dump_tags), [], {}
    involved = [
        (name, part)
        for name, part in ordered
        if name in helpers or part.facts.called & helpers  # the others are handed through
    ]
    builds = tuple(part.build for _, part in involved)
    ids = tuple((name, id(part.build)) for name, part in involved)
    key = (budget, tuple(sorted(foreign.items())), ids)
    found = memo.get(key) if memo is not None else None  # its builds are alive: ids not reused
    if found is None or not found.fits(header):
        # splicing modifies nothing it is given (copy-on-write): the spliced callers share
        # the statements no splice reached with their builds, and the helpers' clones with
        # the splice before (`clones`)
        program = ir.Program("", [part.function for _, part in involved])
        facts = {name: part.facts for name, part in involved}
        spliced, diagnostics = inline_functions(program, foreign, budget, facts, clones)
        tags = any(part.tags for _, part in involved)  # else no spliced function holds a tag
        # tags are applied in place: to a copy, which shares nothing with builds or clones
        functions = _tagged([clone(f) for f in spliced.functions] if tags else spliced.functions, tags)
        found = SplicedCallers(builds, tuple(functions), tuple(diagnostics), spliced.spliced, header)
        if memo is not None:
            memo.put(key, found)
    by_name = {function.name: function for function in found.functions}
    functions = [
        by_name[name] if name in by_name else _tagged([part.handed_out()], dump_tags)[0]
        for name, part in ordered
        if name not in helpers
    ]
    return functions, list(found.diagnostics), dict(found.sites)


def _tagged(functions: list[ir.Function], tags: bool) -> list[ir.Function]:
    if tags:  # else there is no tag to apply
        for function in functions:
            apply_dump_tags(function)  # a tag and the scopes it reaches may meet only after splicing
    return functions
