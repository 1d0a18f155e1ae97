"""What one module takes from the modules it imports: the front end's view of other files.

The front end never reads files. Whoever analyses a file (the CLI, the language server) hands
`module_context` a `ModuleLookup` that answers `import` statements with the `ModuleFacts` of
the imported module, already analysed the same way (`pypto_core.workspace` finds, reads and
caches them). What comes across (issue 11): constants and other static values, `pl.dynamic`
symbols, and decorated functions (`ForeignFunction`): an inline helper is built from its own
file and spliced into the caller; any other kernel is callee evidence through its signature.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .context import ModuleContext
    from .units import Unit


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
    _fingerprint: str | None = field(default=None, repr=False)

    def fingerprint(self) -> str:
        """The module context's fingerprint, once (importers ask for it on every analysis)."""
        if self._fingerprint is None:
            self._fingerprint = self.ctx.fingerprint()
        return self._fingerprint


@dataclass(frozen=True, eq=False)
class ForeignFunction:
    """A decorated function defined in another module: `facts.units[unit_index]`."""

    facts: ModuleFacts
    unit_index: int

    @property
    def unit(self) -> Unit:
        return self.facts.units[self.unit_index]

    def identity(self) -> tuple[str, str, str]:
        """What a program built with it depends on: its file, its text, its module's facts."""
        return (self.facts.path, self.unit.key, self.facts.fingerprint())


class ModuleLookup(Protocol):
    """Answers one module's import statements. `level` is the number of leading dots of a
    relative import; `name` may be empty for `from . import x`. None: not found (it may be
    torch): never an error by itself."""

    def module(self, name: str, level: int) -> ModuleFacts | None: ...
