"""What a module's file says now: an open document's text wins over the file on disk, and a
file read from disk is kept until its modification time or size changes (a keystroke in an
importing document must not re-read and re-decode every module it imports)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..frontend.source import decode_source
from .files import (
    NotReadable,
    is_file_within_deadline,
    read_regular_file,
    stat_all_within_deadline,
    stat_within_deadline,
)


@dataclass
class _Cached:
    stamp: tuple[int, int]  # (mtime_ns, size)
    text: str


class ModuleSources:
    """Texts of modules by path. Not thread-safe: one caller at a time."""

    def __init__(self) -> None:
        self._open: dict[Path, str] = {}
        self._disk: dict[Path, _Cached] = {}
        self._stats: dict[Path, os.stat_result | OSError] = {}  # this round's, `prefetch`
        self.disk_reads = 0  # files read from disk so far (observability for tests)

    def open(self, path: Path, text: str) -> None:
        """An open document's current text (it wins over the disk until closed)."""
        self._open[path] = text

    def close(self, path: Path) -> None:
        self._open.pop(path, None)

    def is_open(self, path: Path) -> bool:
        return path in self._open

    def is_file(self, path: Path) -> bool:
        return path in self._open or is_file_within_deadline(path)  # a hung mount blocks in stat

    def prefetch(self, paths: Iterable[Path]) -> None:
        """Stat the files among `paths` that are not open, on one reader, for `text` to take
        (each at most once): a round of lookups reads the modules the last one did. What the
        last prefetch left is dropped, so a stat is never older than its round."""
        disk = [path for path in paths if path not in self._open]
        self._stats = (stat_all_within_deadline(disk) or {}) if disk else {}

    def text(self, path: Path) -> str | None:
        """The module's text, or None when it cannot be read."""
        text = self._open.get(path)
        if text is not None:
            return text
        stat = self._stats.pop(path, None)
        try:
            if stat is None:
                stat = stat_within_deadline(path)  # a hung mount blocks in stat too
            elif isinstance(stat, OSError):
                raise stat
        except OSError:
            self._disk.pop(path, None)
            return None
        stamp = (stat.st_mtime_ns, stat.st_size)
        cached = self._disk.get(path)
        if cached is not None and cached.stamp == stamp:
            return cached.text
        try:
            data = read_regular_file(path)  # never a FIFO or a device (issue 15)
        except NotReadable:
            return None
        self.disk_reads += 1
        text, _ = decode_source(data)
        self._disk[path] = _Cached(stamp, text)
        return text

    def forget(self, path: Path) -> None:
        """Drop what was read of `path` from disk (the client said the file changed)."""
        self._disk.pop(path, None)
