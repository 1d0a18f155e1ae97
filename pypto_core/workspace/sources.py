"""What a module's file says now: an open document's text wins over the file on disk, and a
file read from disk is kept until its modification time or size changes (a keystroke in an
importing document must not re-read and re-decode every module it imports)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..frontend.source import decode_source
from .files import NotReadable, is_file_within_deadline, read_regular_file, stat_within_deadline


@dataclass
class _Cached:
    stamp: tuple[int, int]  # (mtime_ns, size)
    text: str


class ModuleSources:
    """Texts of modules by path. Not thread-safe: one caller at a time."""

    def __init__(self) -> None:
        self._open: dict[Path, str] = {}
        self._disk: dict[Path, _Cached] = {}
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

    def text(self, path: Path) -> str | None:
        """The module's text, or None when it cannot be read."""
        text = self._open.get(path)
        if text is not None:
            return text
        try:
            stat = stat_within_deadline(path)  # a hung mount blocks in stat too
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
