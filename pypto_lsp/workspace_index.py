"""The workspace's DSL files, indexed in the background for workspace symbols.

Only files that import pypto are analysed; the scan runs once after initialisation with
work-done progress, on the analysis worker one file at a time (so open documents are never
starved). Open documents are answered from their live analysis instead of the index.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

from pygls import uris
from pygls.workspace.position_codec import PositionCodec

from pypto_core.results import FileAnalysis
from pypto_core.span import split_lines

from .convert import PositionMapper
from .symbols import SymbolEntry, symbol_entries

log = logging.getLogger(__name__)

_IMPORTS_PYPTO = re.compile(r"^\s*(?:import|from)\s+pypto\b", re.M)
_SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "venv", "build", "dist", "site-packages"})

Progress = Callable[[int, int, str], None]


class WorkspaceIndex:
    def __init__(self) -> None:
        self._entries: dict[str, list[SymbolEntry]] = {}

    def entries(self, excluding: set[str]) -> list[SymbolEntry]:
        return [e for uri, found in self._entries.items() if uri not in excluding for e in found]

    async def index_file(
        self, path: Path, analyse: Callable[[str, str], Awaitable[FileAnalysis]], codec: PositionCodec
    ) -> None:
        uri = uris.from_fs_path(str(path)) or path.as_uri()
        text = read_dsl_file(path)
        if text is None:
            self._entries.pop(uri, None)
            return
        analysis = await analyse(text, str(path))
        self._entries[uri] = symbol_entries(uri, analysis, PositionMapper(codec, split_lines(text)))

    async def index_folders(
        self,
        folders: list[Path],
        analyse: Callable[[str, str], Awaitable[FileAnalysis]],
        codec: PositionCodec,
        progress: Progress,
    ) -> int:
        """Index every DSL file under `folders`; returns how many were indexed."""
        files = [p for folder in folders for p in python_files(folder)]
        for done, path in enumerate(files, start=1):
            try:
                await self.index_file(path, analyse, codec)
            except Exception:
                log.exception("indexing %s failed", path)
            progress(done, len(files), path.name)
        return sum(1 for _ in self._entries)


def python_files(folder: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
        for name in sorted(files):
            if name.endswith(".py"):
                yield Path(root, name)


def read_dsl_file(path: Path) -> str | None:
    """The file's text if it is a DSL file (imports pypto), else None."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return text if _IMPORTS_PYPTO.search(text) else None
