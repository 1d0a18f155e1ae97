"""Which open documents depend on which modules, and the workspace the analysis imports from.

Protocol glue around `pypto_core.workspace`: open documents' current texts win over the disk
(read live from their sessions, so an importing document analysed after an edit to an open
helper sees the edit even before the helper's own analysis ran); each analysis records the
files its imports read; a change to one of them (an edit of an open document, a file changed on
disk, an extra path set) names the open documents to analyse again. The index is used on the
analysis worker only (it is not thread-safe); the bookkeeping here on the event loop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from pygls import uris

from pypto_core.workspace import ModuleIndex, ModuleSources, SearchPath, WorkspaceLookup
from pypto_core.workspace.callers import CallerIndex, CallSite
from pypto_core.workspace.files import resolve_within_deadline


class _LiveSources(ModuleSources):
    """Module texts: an open document's current text (from `open_text`), else the disk."""

    def __init__(self, open_text: Callable[[Path], str | None]) -> None:
        super().__init__()
        self._open_text = open_text

    def text(self, path: Path) -> str | None:
        live = self._open_text(path)
        return live if live is not None else super().text(path)

    def is_file(self, path: Path) -> bool:
        return self._open_text(path) is not None or super().is_file(path)


class Dependencies:
    def __init__(self, open_text_of_uri: Callable[[str], str | None]) -> None:
        self._uri_of: dict[Path, str] = {}  # open documents' paths
        # their URIs' resolved paths: a change looks its path up here, with no file system
        # call per keystroke on the event loop (resolving was a fifth of a burst's CPU, issue 15)
        self._path_of: dict[str, Path | None] = {}
        self._open_text_of_uri = open_text_of_uri
        self.index = ModuleIndex(_LiveSources(self._open_text))
        self.callers = CallerIndex(self.index)
        self._reads: dict[str, frozenset[str]] = {}  # uri -> files its last analysis imported from
        # uri -> `dependents_of_uri`, asked per change of a burst (a walk over every open
        # document's reads each time); replaced by an empty one whenever what it is made of
        # changes (on the worker too: a new dict, never one being read, is what changes hands)
        self._dependents: dict[str, tuple[str, ...]] = {}
        self.roots: tuple[Path, ...] = ()
        self.extra: tuple[Path, ...] = ()

    def _open_text(self, path: Path) -> str | None:
        uri = self._uri_of.get(path)
        return self._open_text_of_uri(uri) if uri is not None else None

    # -- event loop -------------------------------------------------------------------------

    def opened(self, uri: str) -> None:
        path = self._path_of[uri] = _path(uri)
        if path is not None:
            self._uri_of[path] = uri
        self._dependents = {}

    def closed(self, uri: str) -> None:
        path = self._path_of.pop(uri, None) if uri in self._path_of else _path(uri)
        if path is not None:
            self._uri_of.pop(path, None)
        self._reads.pop(uri, None)
        self._dependents = {}

    def dependents(self, paths: Iterable[str | Path]) -> list[str]:
        """The open documents whose last analysis read one of `paths`."""
        return self._readers({str(resolve_within_deadline(Path(p))) for p in paths})

    def dependents_of_uri(self, uri: str) -> tuple[str, ...]:
        """The other open documents whose last analysis read document `uri`."""
        known = self._dependents  # (taken first: a reset meanwhile makes this one stale)
        found = known.get(uri)
        if found is None:
            path = self._path_of[uri] if uri in self._path_of else _path(uri)
            readers = [] if path is None else self._readers({str(path)})
            found = known[uri] = tuple(u for u in readers if u != uri)
        return found

    def _readers(self, changed: set[str]) -> list[str]:
        # (a copy made in one step: the worker adds a document's reads after its first analysis)
        return [uri for uri, read in list(self._reads.items()) if read & changed]

    # -- analysis worker ----------------------------------------------------------------------

    def lookup(self, uri: str) -> WorkspaceLookup:
        """The imports of `uri`: from its folder first when it is a file; a document that is not
        one (`untitled:`, a notebook cell) searches the workspace roots and extra paths only."""
        self.index.set_search(SearchPath(self.roots, self.extra))
        return self.index.lookup_for(self._path_of[uri] if uri in self._path_of else _path(uri))

    def callers_of(self, uri: str, helper: str, files: Iterable[Path]) -> list[CallSite]:
        """Where `files` and the open documents call inline helper `helper` of file `uri`."""
        path = _path(uri)
        if path is None:
            return []
        self.index.set_search(SearchPath(self.roots, self.extra))
        return self.callers.callers(path, helper, [*files, *self._uri_of])

    def text_of(self, path: str) -> str | None:
        """A module's text as the last analysis read it, else as the index reads it now (an
        open document's live text, else the disk's, cached by modification time and size)."""
        return self.index.text(Path(path))

    def analysed(self, uri: str, lookup: WorkspaceLookup | None) -> None:
        """Record what `uri`'s analysis read (called on the worker; one dict store)."""
        self._reads[uri] = frozenset(lookup.read) if lookup is not None else frozenset()
        self._dependents = {}

    def files_changed(self, paths: Iterable[Path]) -> None:
        for path in paths:
            self.index.changed(resolve_within_deadline(path))


def _path(uri: str) -> Path | None:
    """The file of a `file:` URI; None for other schemes (`untitled:`, notebook cells) and for a
    relative path (`file:x.py`), which would otherwise resolve against the server's working
    directory, a folder the user never named as a root (issue 15). Resolved within the read
    deadline (a `stat` per component: a hung mount would block the event loop)."""
    path = uris.to_fs_path(uri)
    return resolve_within_deadline(Path(path)) if path and Path(path).is_absolute() else None
