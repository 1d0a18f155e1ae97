"""What a module's file says now: an open document's text wins over the file on disk, and a
file read from disk is kept until its modification time or size changes (a keystroke in an
importing document must not re-read and re-decode every module it imports).

Which candidate files of the import resolver exist is read from their folders' listings, one
`scandir` per folder and round (`FolderListings`), not a `stat` each: most candidates are
missing (`torch.py` and `torch/__init__.py` in the importer's folder, a submodule named like
each name a `from m import ...` imports), and each `stat` was a reader thread's round trip
(`files.within_deadline`): 434 of them in the cold open of pypto-lib's four largest model
files concatenated, 2,026 in a cold `pypto-check` of its models (bench/README.md, session 18).
A name is found only as its folder spells it, as Python's own import system finds modules on a
case-insensitive file system."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..frontend.source import decode_source
from .files import (
    Listing,
    NotReadable,
    is_file_within_deadline,
    list_folder_within_deadline,
    read_regular_file,
    stat_all_within_deadline,
    stat_within_deadline,
)


@dataclass
class _Cached:
    stamp: tuple[int, int]  # (mtime_ns, size)
    text: str


_UNLISTED = "unlisted"  # a folder that could not be listed: each of its files is stated by itself


class FolderListings:
    """Whether a path is a regular file, from its folder's listing, made when first asked
    for and kept until `clear`. A folder whose parent was listed without it (or is no folder)
    is no folder, so the candidates below a missing package cost no I/O."""

    def __init__(self) -> None:
        self._listed: dict[Path, Listing | str | None] = {}

    def clear(self) -> None:
        self._listed.clear()

    def is_file(self, path: Path) -> bool:
        listing = self._listing(path.parent)
        if listing is _UNLISTED:
            return is_file_within_deadline(path)
        return isinstance(listing, Listing) and path.name in listing.files

    def _listing(self, folder: Path) -> Listing | str | None:
        if folder in self._listed:
            return self._listed[folder]
        above = self._listed.get(folder.parent, _UNLISTED) if folder.parent != folder else _UNLISTED
        found: Listing | str | None
        if above is None or (isinstance(above, Listing) and folder.name not in above.folders):
            found = None  # below no folder, or not a folder of its parent
        else:
            try:
                found = list_folder_within_deadline(folder)
            except NotReadable:  # no answer in time: no file, as `is_file_within_deadline` says
                found = None
            except OSError:
                found = _UNLISTED
        self._listed[folder] = found
        return found


class ModuleSources:
    """Texts of modules by path. Not thread-safe: one caller at a time."""

    def __init__(self) -> None:
        self._open: dict[Path, str] = {}
        self._disk: dict[Path, _Cached] = {}
        self._stats: dict[Path, os.stat_result | OSError] = {}  # this round's, `prefetch`
        self._listings = FolderListings()  # this round's, `prefetch`
        self.disk_reads = 0  # files read from disk so far (observability for tests)

    def open(self, path: Path, text: str) -> None:
        """An open document's current text (it wins over the disk until closed)."""
        self._open[path] = text

    def close(self, path: Path) -> None:
        self._open.pop(path, None)

    def is_open(self, path: Path) -> bool:
        return path in self._open

    def is_file(self, path: Path) -> bool:
        return path in self._open or self._listings.is_file(path)  # a hung mount blocks in scandir

    def prefetch(self, paths: Iterable[Path]) -> None:
        """Stat the files among `paths` that are not open, on one reader, for `text` to take
        (each at most once): a round of lookups reads the modules the last one did. What the
        last prefetch left is dropped, so a stat is never older than its round, and so are
        the folder listings."""
        self._listings.clear()
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
        """Drop what was read of `path` from disk (the client said the file changed), and the
        folder listings (it may have appeared or gone)."""
        self._disk.pop(path, None)
        self._listings.clear()
