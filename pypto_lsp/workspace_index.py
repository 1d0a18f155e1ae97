"""The workspace's DSL files, indexed in the background for workspace symbols.

Only files that import pypto are analysed; the scan runs once after initialisation with
work-done progress, on the analysis worker one file at a time, each only when the open
documents leave the worker idle (`AnalysisScheduler.run_background`), and a file's analysis
gives way to a document between two of its programs (`should_yield`; `analysis.Interrupted`):
a document waits for at most one program's build or passes, and the file is taken up again,
where it stopped, once the worker is idle again. Open documents are skipped: they are answered from their
live analysis (a closed one is indexed again). The file list is known before any file is
analysed (`listed`), which is all the helper callers need (they read files themselves).
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pygls import uris
from pygls.workspace.position_codec import PositionCodec

from pypto_core.analysis import DocumentAnalyzer, Interrupted
from pypto_core.results import FileAnalysis
from pypto_core.span import split_lines
from pypto_core.workspace.files import NotReadable, read_regular_file

from .convert import PositionMapper
from .symbols import SymbolEntry, symbol_entries

log = logging.getLogger(__name__)

_IMPORTS_PYPTO = re.compile(r"^\s*(?:import|from)\s+pypto\b", re.M)
_SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "venv", "build", "dist", "site-packages"})

Progress = Callable[[int, int, str], None]
Runner = Callable[..., Awaitable[Any]]


class WorkspaceIndex:
    """`run` executes a function on the analysis worker (the walk of the folders), `background`
    the same once the documents leave it idle (each file's analysis): reading, walking and
    analysing files all happen there, never on the event loop."""

    def __init__(
        self,
        run: Runner,
        background: Runner,
        is_open: Callable[[str], bool],
        should_yield: Callable[[], bool] = lambda: False,
    ) -> None:
        self._run = run
        self._background = background
        self._is_open = is_open
        self._should_yield = should_yield  # asked on the worker: a document waits for it
        self._entries: dict[str, list[SymbolEntry]] = {}
        self.files: set[Path] = set()  # every `*.py` found under the folders (callers are looked for there)
        self.listed = asyncio.Event()  # set once `files` holds the folders' files

    def entries(self, excluding: set[str]) -> list[SymbolEntry]:
        return [e for uri, found in self._entries.items() if uri not in excluding for e in found]

    async def index_file(self, path: Path, codec: PositionCodec) -> None:
        uri = uris.from_fs_path(str(path)) or path.as_uri()
        if self._is_open(uri):
            self._entries.pop(uri, None)
            return
        analyzer = DocumentAnalyzer()  # kept while the file gives way: what it finished stays done
        while True:
            try:
                found = await self._background(
                    _read_and_analyse, path, uri, self._is_open, analyzer, self._should_yield
                )
                break
            except Interrupted:
                continue  # a document came first; `background` waits for the worker to be idle again
        if found is None:
            self._entries.pop(uri, None)
            return
        text, analysis = found
        self._entries[uri] = symbol_entries(uri, analysis, PositionMapper(codec, split_lines(text)))

    async def index_folders(self, folders: list[Path], codec: PositionCodec, progress: Progress) -> int:
        """Index every DSL file under `folders`; returns how many DSL files are indexed."""
        try:
            files: list[Path] = await self._run(_python_files, folders)
            self.files.update(files)
        finally:
            self.listed.set()
        for done, path in enumerate(files, start=1):
            try:
                await self.index_file(path, codec)
            except Exception:
                log.exception("indexing %s failed", path)
            progress(done, len(files), path.name)
        return len(self._entries)


def _python_files(folders: list[Path]) -> list[Path]:
    found = []
    for folder in folders:
        for root, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
            found += [Path(root, name) for name in sorted(files) if name.endswith(".py")]
    return found


def _read_and_analyse(
    path: Path, uri: str, is_open: Callable[[str], bool], analyzer: DocumentAnalyzer, stop: Callable[[], bool]
) -> tuple[str, FileAnalysis] | None:
    """The file's text and analysis if it is a DSL file (imports pypto) not opened meanwhile,
    else None; `Interrupted` when `stop` said so between two programs."""
    if is_open(uri):
        return None
    try:
        text = read_regular_file(path).decode("utf-8")  # a FIFO named *.py must not block (issue 15)
    except (NotReadable, UnicodeDecodeError):
        return None
    if not _IMPORTS_PYPTO.search(text):
        return None
    return text, analyzer.update(text, stop=stop)
