"""Per-function front-end results kept from one update of a document to the next.

A jit program is one entry plus the tens of helpers and kernels it reaches; an edit changes one
of them, yet a program's fingerprint covers them all, so its rebuild used to build every member
again. Here a member's built IR (before splicing) is kept under a key of exactly what its build
reads (salsa-style: a derived fact keyed by its inputs): its unit's text (a method: its own) and its place in
it, where the unit starts, its name and header, the module facts a body reads (without the
inline helpers' texts: a body reads their names only), the class constants it sees, whether it
is in a jit program, and the signatures of everything it may call. An unchanged member is taken
as it was built, also by a second program holding it (a host and its entry).

The kept IR is never modified: splicing copies the callers it rewrites and keeps their
splice (`splice_memo`), a member that dump tags rewrite in place is handed out as a copy
(`ir_clone`), the others are shared by the programs holding them. Entries the
last update did not use are dropped (`next_update`), so the memo holds one copy per function of
the document at most.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

from .. import ir
from ..diagnostics import Diagnostic
from ..passes.inline_functions import SpliceFacts
from .splice_memo import SpliceMemo


@dataclass(frozen=True, slots=True)
class BuiltFunction:
    """A member's front-end result: its IR, what its build reported, whether it holds a live
    `dump_tag`, whether the program rewrites it in place (so a reuse copies it: splicing
    copies the callers it rewrites itself, `splice_memo`), and what splicing reads of it."""

    function: ir.Function
    diagnostics: tuple[Diagnostic, ...]
    dump_tags: bool
    rewritten: bool
    facts: SpliceFacts  # what splicing reads of it (`inline_functions.splice_facts`)


# (slot, context): the slot says which function of the document it is (its unit's text hash,
# its place in that text, where the unit starts, its name); the context what else its build read
MemberKey = tuple[tuple[str, int, int, int, str], Hashable]


@dataclass
class FunctionMemo:
    """Built functions by key; one per document (`DocumentAnalyzer`)."""

    _entries: dict[MemberKey, BuiltFunction] = field(default_factory=dict)
    _used: dict[MemberKey, BuiltFunction] = field(default_factory=dict)
    reused: int = 0  # members taken from the memo in this update (observability for tests/bench)
    built: int = 0  # members built in this update
    splices: SpliceMemo = field(default_factory=SpliceMemo)  # the programs' splices of these builds

    def get(self, key: MemberKey) -> BuiltFunction | None:
        found = self._used.get(key)
        if found is None:
            found = self._entries.get(key)
            if found is not None:
                self._used[key] = found
        if found is not None:
            self.reused += 1
        return found

    def put(self, key: MemberKey, built: BuiltFunction) -> None:
        self._used[key] = built
        self.built += 1

    def next_update(self) -> None:
        """After an update: keep what it used (the functions of the programs it rebuilt), or
        everything when it rebuilt nothing. A program reused as a whole for many updates thus
        builds all its functions again when it is next edited, and from then on only the
        edited ones; the memo never holds more than one copy of the document's functions."""
        if self._used:
            self._entries, self._used = self._used, {}
        self.reused = self.built = 0
        self.splices.next_update()
