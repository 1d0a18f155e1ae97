"""What one module takes from the modules it imports: the front end's view of other files.

The front end never reads files. Whoever analyses a file (the CLI, the language server) hands
`module_context` a `ModuleLookup` that answers `import` statements with the `ModuleFacts` of
the imported module, already analysed the same way (`pypto_core.workspace` finds, reads and
caches them). What comes across (issue 11): constants and other static values, `pl.dynamic`
symbols, and decorated functions (`ForeignFunction`): an inline helper is built from its own
file and spliced into the caller; a `@pl.jit` entry a `@pl.jit.host` calls is compiled into the
host's program with what it reaches (`programs.CompiledEntry`); any other kernel is callee
evidence through its signature.
"""

from __future__ import annotations

import hashlib
import io
import tokenize
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from .context import CalleeSignature, ModuleContext
    from .programs import ProgramPlan
    from .units import Unit


_T = TypeVar("_T")


@dataclass(eq=False)
class ModuleFacts:
    """A module as its importers see it: its units and module context (final bindings), its
    lines (for spans of what is built from it), and `key`, which changes exactly when
    anything an importer can read from it changes (its text, or what it imports)."""

    name: str  # the dotted name it was imported under first (for messages)
    path: str
    units: list[Unit]
    ctx: ModuleContext
    lines: list[str]
    key: str
    # every name bound at module level (a name not in it is unknown to the module: unresolved)
    names: frozenset[str] = frozenset()
    # the modules read to compute these facts, transitively (the server's dependency graph)
    depends_on: frozenset[str] = frozenset()
    _body_fingerprint: str | None = field(default=None, repr=False)
    # its functions' signatures as importers read them (`programs`), by (unit index, the name
    # a program gives it, whether the program is a jit one): every rebuilt program of every
    # importer reads the signatures of all the imported functions it reaches, tens of them
    signatures: dict[tuple[int, str, bool], CalleeSignature] = field(default_factory=dict, repr=False)
    # its jit programs as its own analysis plans them, by primary unit (`programs.entry_plan`):
    # a host importing one of its entries compiles that entry's program into its own
    plans: dict[int, ProgramPlan] | None = field(default=None, repr=False)
    # what programs read of its functions besides their signatures, by what (`programs`: each
    # function's decorator reading, its signature key, where it is defined): the importer's
    # rebuilt programs read them for every imported function they reach, at every keystroke
    derived: dict[tuple[str, Hashable], Any] = field(default_factory=dict, repr=False)

    def derive(self, key: tuple[str, Hashable], compute: Callable[[], _T]) -> _T:
        """`derived[key]`, computed once (a value may be None)."""
        if key not in self.derived:
            self.derived[key] = compute()
        return self.derived[key]  # type: ignore[no-any-return]

    def body_fingerprint(self) -> str:
        """What building one of its functions reads of the module (`ModuleContext.
        body_fingerprint`), once: importers ask for it on every analysis."""
        if self._body_fingerprint is None:
            self._body_fingerprint = self.ctx.body_fingerprint()
        return self._body_fingerprint


# what a program built with an imported function depends on of it (`ForeignFunction.identity`)
Identity = tuple[str, str, str]


@dataclass(frozen=True, eq=False)
class ForeignFunction:
    """A decorated function defined in another module: `facts.units[unit_index]`."""

    facts: ModuleFacts
    unit_index: int

    @property
    def unit(self) -> Unit:
        return self.facts.units[self.unit_index]

    def identity(self) -> Identity:
        """What a program built with it depends on: its file, its text (`Unit.key`: its tree,
        positions relative to its first line), and what a body reads of its module: the
        module's names and values, not the texts of its other helpers (each helper the program
        reaches is in its `ProgramPlan.foreign` with an identity of its own), so an edit of one
        helper rebuilds only the programs reaching it. Not where it starts in its file: all its
        spliced code takes the call's span; only the findings it causes point at its `def`
        (`ir.SplicedHelper`), and a program reused when a line above the helper was added or
        removed is given the new place (`ProgramAnalysis.relocated`) instead of rebuilt."""
        return (self.facts.path, self.unit.key, self.facts.body_fingerprint())


def same_code(old: Identity, new: Identity, old_text: str, new_text: str) -> bool:
    """Whether a program built with the imported function `old` (its unit's text `old_text`)
    is what building it with `new` gives: the same function, or one whose text differs only
    where its lines are (a blank or comment line typed inside it, `code_key`). Nothing of an
    importer's analysis reads a place inside the helper: its spliced code takes the call's
    span, and the findings it causes point at its `def` (`ProgramAnalysis.relocated`)."""
    if old == new:
        return True
    if old[0] != new[0] or old[2] != new[2]:
        return False
    key = code_key(new_text)
    return key is not None and key == code_key(old_text)


# tokens whose column follows from the code before them (or from a comment: a line's NEWLINE)
_PLACELESS = (tokenize.NEWLINE, tokenize.DEDENT, tokenize.ENDMARKER)


@lru_cache(maxsize=64)
def code_key(text: str) -> str | None:
    """A hash of the code in `text`, not of where its lines are: its tokens with their columns,
    less comments and the line breaks that end no statement (blank and comment lines, a break
    inside brackets). None when it does not tokenize. Computed only when a program's
    fingerprint missed (`DocumentAnalyzer`): tokenizing every imported helper of pypto-lib's
    models would cost seconds of a cold run."""
    digest = hashlib.blake2b(digest_size=16)
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in (tokenize.NL, tokenize.COMMENT):
                continue
            column = -1 if token.type in _PLACELESS else token.start[1]
            digest.update(f"{token.type}\0{column}\0{token.string}\0".encode("utf-8", "surrogatepass"))
    except (tokenize.TokenError, SyntaxError):
        return None
    return digest.hexdigest()


class ModuleLookup(Protocol):
    """Answers one module's import statements, in the order the module runs them. `level` is
    the number of leading dots of a relative import; `name` may be empty for `from . import
    x`. None: not found (it may be torch): never an error by itself."""

    def module(self, name: str, level: int) -> ModuleFacts | None: ...

    def assign(self, path: str, name: str, value: Any) -> None:
        """The module running assigns `value` (`UNKNOWN` when it does not fold) to attribute
        `name` of the imported module at `path` (`config.MOE_TOKENS = ...`): the modules
        imported after it, and `path` itself as imported after it, see that value, as in the
        one `sys.modules` of a Python run."""


class FileLookup(ModuleLookup, Protocol):
    """The lookup of one file's own analysis (`DocumentAnalyzer.update`), whose imports may
    be run twice in one round: `ContextMemo` replays the last run's questions and, when an
    answer differs, runs the module again from its first statement."""

    def restart(self) -> None:
        """Forget the questions asked and the assignments told so far (the modules they
        imported and what they assigned): the module runs again from its first statement."""
