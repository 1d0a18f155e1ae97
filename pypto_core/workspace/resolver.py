"""Which file an import statement names, without importing anything.

Search order (issue 11): the importing file's own folder (pypto-lib's model scripts are run
from there, so `from config import X` is a sibling), for a relative import the importing file's
package, then each workspace folder, then each extra path (`pypto.analysis.extraPaths`,
`pypto-check --path`). A module is `name.py` or a package's `name/__init__.py`; a folder without
`__init__.py` is a namespace package, which holds submodules but no names of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SearchPath:
    """Where absolute imports are looked for after the importing file's folder."""

    roots: tuple[Path, ...] = ()  # workspace folders
    extra: tuple[Path, ...] = ()  # extra paths, in the order given

    def folders(self, importer: Path | None) -> list[Path]:
        own = [] if importer is None else [importer.parent]
        return list(dict.fromkeys([*own, *self.roots, *self.extra]))


def resolve_module(
    name: str, level: int, importer: Path | None, search: SearchPath, is_file: Callable[[Path], bool]
) -> Path | None:
    """The file of module `name` imported from `importer` (`level` leading dots; `name` empty
    for `from . import x`), or None when it is not found (it may be torch: never an error).
    `is_file` answers for open documents too, which may not be on disk. `importer` is None for
    a document that is not a file (an `untitled:` buffer, a notebook cell): it has no folder of
    its own nor a package, so only the roots are searched."""
    parts = name.split(".") if name else []
    if level > 0:
        if importer is None:
            return None
        base = importer.parent
        for _ in range(level - 1):
            base = base.parent
        return _module_file(base, parts, is_file)
    if not parts:
        return None
    for folder in search.folders(importer):
        found = _module_file(folder, parts, is_file)
        if found is not None:
            return found
    return None


def _module_file(base: Path, parts: list[str], is_file: Callable[[Path], bool]) -> Path | None:
    target = base.joinpath(*parts)
    if parts and is_file(target.with_name(target.name + ".py")):
        return target.with_name(target.name + ".py")
    if is_file(target / "__init__.py"):
        return target / "__init__.py"
    return None
