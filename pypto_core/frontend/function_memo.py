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
last update did not use are dropped (`UpdateMemo.next_update`), so the memo holds one copy
per function of the document at most.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

from .. import ir
from ..diagnostics import Diagnostic
from ..passes.inline_functions import ClonedBody, KeptCopy, SpliceFacts
from .context import CalleeSignature

if TYPE_CHECKING:
    from .builder import SignatureRead
    from .splice_memo import SplicedCallers
    from .stmt_memo import KeptStatements


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
    aliases: frozenset[str] = frozenset()  # the names its jit renames made (`Program.aliases`)


# (slot, context): the slot says which function of the document it is (its unit's text hash,
# its place in that text, where the unit starts, its name); the context what else its build read
MemberKey = tuple[tuple[str, int, int, int, str], Hashable]

_K = TypeVar("_K", bound=Hashable)
_V = TypeVar("_V")


@dataclass
class UpdateMemo(Generic[_K, _V]):
    """Values by key, kept from one update of a document to the next: what the last update
    used, or everything when it used nothing. A program reused as a whole for many updates
    thus computes its values again when it is next edited, and from then on only the edited
    ones; the memo never holds more than one value per key the document still has."""

    _entries: dict[_K, _V] = field(default_factory=dict)
    _used: dict[_K, _V] = field(default_factory=dict)
    reused: int = 0  # values taken from the memo in this update (observability for tests/bench)
    computed: int = 0  # values put in this update

    def get(self, key: _K) -> _V | None:
        found = self._used.get(key)
        if found is None:
            found = self._entries.get(key)
            if found is not None:
                self._used[key] = found
        if found is not None:
            self.reused += 1
        return found

    def put(self, key: _K, value: _V) -> None:
        self._used[key] = value
        self.computed += 1

    def discard(self, key: _K) -> None:
        """Forget the value of `key` (it is no longer valid)."""
        self._used.pop(key, None)
        self._entries.pop(key, None)

    def next_update(self) -> None:
        if self._used:
            self._entries, self._used = self._used, {}
        self.reused = self.computed = 0


# a member's signature as its callers see it, what reading it reported, and the read itself
Signature = tuple[CalleeSignature, tuple[Diagnostic, ...], "SignatureRead"]


@dataclass
class FunctionMemo(UpdateMemo[MemberKey, BuiltFunction]):
    """Built functions by key; one per document (`DocumentAnalyzer`). With them, what a build
    reads of every member before building any (`signatures`: a rebuilt program read all its
    members' signatures again, a tenth of a keystroke on a file whose kernels take a hundred
    parameters), the programs' splices of these builds (`splices`), and the helper bodies
    those splices cloned at each call (`clones`: a splice after an edit in one helper clones
    that helper's bodies only)."""

    signatures: UpdateMemo[MemberKey, Signature] = field(default_factory=UpdateMemo)
    splices: UpdateMemo[Hashable, SplicedCallers] = field(default_factory=UpdateMemo)
    clones: UpdateMemo[Hashable, ClonedBody | KeptCopy] = field(default_factory=UpdateMemo)
    # each member's last build by its slot less its unit's start, with the rest of its key
    # (the header's span counted from its unit) and that start: a member that only moved is
    # that build moved (`programs._moved_function`)
    moved: UpdateMemo[Hashable, tuple[Hashable, int, BuiltFunction]] = field(default_factory=UpdateMemo)
    # each function's statement records from its last build, by function (`stmt_memo`)
    statements: UpdateMemo[Hashable, KeptStatements] = field(default_factory=UpdateMemo)
    # whether builds make those records (and take an imported helper's last build's):
    # not for a text analysed once (`analyse_source`, each file of `pypto-check`), where no
    # build follows (recording each statement's reads and writes was a sixth of the builds of a
    # cold `pypto-check` over pypto-lib's models)
    keeps_statements: bool = True
    # statements taken as kept (the top-level ones on a certified environment, `certified`),
    # taken moved and built, by this update until it ends, then by
    # the last one (for tests and bench)
    statements_reused: int = 0
    statements_moved: int = 0
    statements_built: int = 0
    statements_certified: int = 0  # ... of the reused, top-level ones taken uncompared
    _counting: bool = False

    def count_statements(self, reused: int, moved: int, built: int, certified: int = 0) -> None:
        if not self._counting:
            self.statements_reused = self.statements_moved = self.statements_built = 0
            self.statements_certified = 0
            self._counting = True
        self.statements_reused += reused
        self.statements_moved += moved
        self.statements_built += built
        self.statements_certified += certified

    def next_update(self) -> None:
        super().next_update()
        self.statements.next_update()
        self._counting = False
        self.signatures.next_update()
        self.splices.next_update()
        self.clones.next_update()
        self.moved.next_update()
