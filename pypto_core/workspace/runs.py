"""One run of a file's imports, as Python runs them: what a module's facts are read from when
another module assigns its attributes.

Python executes a module once, at its first import, and every importer shares that one module
object: `prefill_layer.py` running `config.MOE_TOKENS = config.PREFILL_TOKENS` before `from moe
import T` makes `moe.py` (and what `moe.py` imports after it) execute with that value, and
`moe.py` assigning `config.FLASH` before `from gate import gate` makes `gate.py` size its
tensors with it. So the facts of a module as one file reads them depend on what ran before its
first import in that file's run. An `ImportRun` follows that run statically (nothing is
executed): the modules executed so far, with the facts they were executed with, and the
attributes assigned to each since (`ModuleIndex.executed` executes a module in it).

A module no earlier step of the run can have changed (no module it may execute has run
differently or had an attribute assigned) executes as it does first in a run: its facts are
the index's, shared by every importer; only the others are computed for the run (and kept by
what they read of it).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..frontend.imports import ModuleFacts


@dataclass
class ImportRun:
    """What a run holds of the modules it executed: the facts each was executed with, and the
    attributes assigned to each since (name -> folded value, `UNKNOWN` where it did not fold).
    Also what executing one module did to the modules it reaches (`restricted`)."""

    executed: dict[Path, ModuleFacts] = field(default_factory=dict)
    assigned: dict[Path, dict[str, Any]] = field(default_factory=dict)

    def assign(self, path: Path, name: str, value: Any) -> None:
        self.assigned.setdefault(path, {})[name] = value

    def restricted(self, paths: Iterable[Path]) -> ImportRun:
        """The part of it about `paths` (copies: the run goes on changing)."""
        part = ImportRun()
        for path in paths:
            if path in self.executed:
                part.executed[path] = self.executed[path]
            if path in self.assigned:
                part.assigned[path] = dict(self.assigned[path])
        return part

    def merge(self, part: ImportRun) -> None:
        """What executing a module did to the modules it reaches (`restricted` after it)."""
        self.executed.update(part.executed)
        for path, assigned in part.assigned.items():
            self.assigned[path] = dict(assigned)

    def fingerprint(self, paths: Collection[Path]) -> str:
        """A hash of what the run holds of `paths`: the keys of the facts they were executed
        with, and what was assigned to them (by value, as `ModuleContext.fingerprint` hashes
        a constant)."""
        digest = hashlib.blake2b(digest_size=16)
        for path in sorted(paths):
            executed = self.executed.get(path)
            assigned = self.assigned.get(path)
            if executed is None and assigned is None:
                continue
            digest.update(f"{path}\0{executed.key if executed else ''}\0".encode("utf-8", "surrogatepass"))
            digest.update(assigned_key(assigned or {}).encode("utf-8", "surrogatepass"))
        return digest.hexdigest()


def assigned_key(assigned: dict[str, Any]) -> str:
    return repr(sorted((name, type(value).__name__, repr(value)) for name, value in assigned.items()))


def derived_key(*parts: str) -> str:
    """The key of facts made from others (`parts`: their key and what changed them)."""
    return hashlib.blake2b("\0".join(parts).encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
