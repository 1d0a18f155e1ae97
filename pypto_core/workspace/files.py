"""Reading files of a workspace without ever blocking on one (issue 15).

A workspace may hold anything named `*.py`: a FIFO (opening it for reading waits for a writer
for ever), a device (`/dev/zero` never ends), a symlink loop, a directory, a file the user may
not read. Only regular files are read: the file is opened non-blocking and checked with
`fstat` on the open descriptor (so a path swapped between a check and the open cannot slip
through), and it is read up to a size limit. Folder walks never follow symlinked folders (a
loop cannot recur) and name each entry they skip with the reason.
"""

from __future__ import annotations

import errno
import os
import queue
import stat
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

MAX_SOURCE_BYTES = 8 * 1024 * 1024  # a Python file larger than this is generated data, not read
# How long a read or stat may take before the file counts as unreadable: a local disk answers
# in microseconds, a slow network mount in milliseconds.
READ_DEADLINE_SECONDS = 2.0
_NO_ANSWER = f"no answer from the file system within {READ_DEADLINE_SECONDS:g} s"
# the key of a batch of stats (`stat_all_within_deadline`) while it hangs: no path has it
_BATCH_KEY = "\0stat batch"
T = TypeVar("T")
_hung: set[str] = set()  # paths whose read is still hanging on its reader thread
_hung_lock = threading.Lock()
_idle: list[_Reader] = []  # readers waiting for a job (under `_hung_lock`)


def _after_fork_in_child() -> None:
    """A forked process (a `pypto-check --jobs` worker) has none of its parent's reader
    threads: the parent's idle readers would take a job and never run it (each worker's
    first file call waited out the deadline, and its path then stayed refused as hung), and
    the lock may have been held by one of them. The child starts with no reader."""
    global _hung_lock
    _hung_lock = threading.Lock()
    _idle.clear()
    _hung.clear()


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_after_fork_in_child)


class NotReadable(OSError):
    """A path that is not read, with the reason in people's words (`str(error)`)."""


def read_regular_file(path: Path, limit: int = MAX_SOURCE_BYTES) -> bytes:
    """The bytes of `path` if it is a regular file (symlinks followed) of at most `limit`
    bytes; `NotReadable` saying why otherwise. Never blocks on a FIFO or a device, nor for
    longer than `READ_DEADLINE_SECONDS` on a file system that does not answer."""
    return within_deadline(path, _read_regular_file, path, limit)


def stat_within_deadline(path: Path) -> os.stat_result:
    """`os.stat(path)`, or `NotReadable` when the file system does not answer in time."""
    return within_deadline(path, os.stat, path)


def stat_all_within_deadline(paths: Sequence[Path]) -> dict[Path, os.stat_result | OSError] | None:
    """`os.stat` of each path (its error in its place), all on one reader: a round of an
    importer's imports stats each module it read, one reader round trip each was 23 a
    keystroke in pypto-lib's `prefill_cp_fwd_draft.py` (7 ms of wall time on a busy machine).
    None when the file system does not answer in time (the caller then stats each path by
    itself, so the one that hangs is found and refused, `within_deadline`)."""
    try:
        return within_deadline(Path(_BATCH_KEY), _stat_all, paths)
    except NotReadable:
        return None


def is_file_within_deadline(path: Path) -> bool:
    """`path.is_file()` (symlinks followed), False also when the file system does not answer
    in time: the import resolver asks it of every candidate file."""
    try:
        return within_deadline(path, _is_regular_file, path)
    except NotReadable:
        return False


@dataclass(frozen=True)
class Listing:
    """What a folder holds, as `os.stat` sees each entry (symlinks followed): the names of its
    regular files and of its folders."""

    files: frozenset[str]
    folders: frozenset[str]


def list_folder_within_deadline(folder: Path) -> Listing | None:
    """`folder`'s entries (one `scandir` on a reader, not a `stat` per name), None when it is
    no folder (missing, a file); `NotReadable` when the file system does not answer in time,
    the `OSError` when it cannot be listed (a folder one may enter but not read)."""
    return within_deadline(folder, _list_folder, folder)


def resolve_within_deadline(path: Path) -> Path:
    """`path.resolve()` (a `stat` per component, to follow symlinks); when the file system
    does not answer in time, the path made absolute as written."""
    try:
        return within_deadline(path, Path.resolve, path)
    except NotReadable:
        return path.absolute()


def within_deadline(path: Path, work: Callable[..., T], *args: Any) -> T:
    """`work(*args)`, an I/O call on `path`, run on a reader thread and waited for at most
    `READ_DEADLINE_SECONDS`. A hung FUSE or network mount blocks inside `read` or `stat` for
    ever, and `O_NONBLOCK` does nothing for regular files: the caller (the analysis worker, or
    the event loop) gives up instead, and while that read still hangs the path is refused at
    once, so hung readers never pile up. Each call takes an idle reader (a thread started for
    an earlier call and done with it) or starts one: a `stat` per imported module and analysis
    used to start a thread each, a fifth of a keystroke's re-analysis of a real importer."""
    key = os.fspath(path)
    with _hung_lock:
        if key in _hung:
            raise NotReadable(_NO_ANSWER)
        reader = _idle.pop() if _idle else None
    job = _Job(key, work, args)
    if reader is None:
        reader = _Reader()
    reader.jobs.put(job)
    if not job.done.wait(READ_DEADLINE_SECONDS):
        with _hung_lock:
            if not job.done.is_set():
                _hung.add(key)
                raise NotReadable(_NO_ANSWER)
    if job.succeeded:
        return job.value  # type: ignore[no-any-return]
    error, job.value = job.value, None
    try:
        raise error
    finally:
        # The traceback holds this frame and, through `f_back`, every frame above it: were
        # the error still a local here (or on `job`), error -> traceback -> frame -> error
        # would be a cycle keeping the locals of the whole call stack (an analysis's
        # builders and IR) alive until a full collection. The resolver misses (a stat of
        # each candidate file) made such a cycle per import: the cold tree's memory
        # regression of session 7 (bench/README.md).
        del error


@dataclass
class _Job:
    """One call for a reader; `done` is set (under `_hung_lock`) once it returned or raised."""

    key: str
    work: Callable[..., Any]
    args: tuple[Any, ...]
    done: threading.Event = field(default_factory=threading.Event)
    succeeded: bool = False
    value: Any = None


class _Reader:
    """A daemon thread running one job at a time, back in `_idle` after each (a reader whose
    job hangs stays out of it until the job returns)."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="pypto file reader", daemon=True).start()

    def _serve(self) -> None:
        while True:
            job = self.jobs.get()
            try:
                job.value, job.succeeded = job.work(*job.args), True
            except BaseException as error:  # handed to the caller, whatever it is
                job.value = error
            with _hung_lock:
                job.done.set()
                _hung.discard(job.key)
                _idle.append(self)


def _stat_all(paths: Sequence[Path]) -> dict[Path, os.stat_result | OSError]:
    found: dict[Path, os.stat_result | OSError] = {}
    for path in paths:
        try:
            found[path] = os.stat(path)
        except OSError as error:
            found[path] = OSError(error.errno, error.strerror)  # no traceback: no frame kept
    return found


def _list_folder(folder: Path) -> Listing | None:
    files: list[str] = []
    folders: list[str] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                try:  # `DirEntry` follows symlinks as `stat` does, stating only a symlink
                    if entry.is_file():
                        files.append(entry.name)
                    elif entry.is_dir():
                        folders.append(entry.name)
                except OSError:  # a symlink loop: no file, as `_is_regular_file` says
                    continue
    except (FileNotFoundError, NotADirectoryError, ValueError):  # (ValueError: a NUL in the path)
        return None
    return Listing(frozenset(files), frozenset(folders))


def _is_regular_file(path: Path) -> bool:
    """`path.is_file()` answered on the reader without raising: a missing candidate of the
    import resolver is the common case, not an error to hand across threads."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):  # (ValueError: a NUL in the path, as `Path.is_file` allows)
        return False


def _read_regular_file(path: Path, limit: int) -> bytes:
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise NotReadable(_reason(error)) from error
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotReadable(_kind(info.st_mode))
        if info.st_size > limit:
            raise NotReadable(f"larger than {limit // (1024 * 1024)} MiB")
        chunks = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        if left <= 0:
            raise NotReadable(f"larger than {limit // (1024 * 1024)} MiB")
        return b"".join(chunks)
    except NotReadable:
        raise
    except OSError as error:
        raise NotReadable(_reason(error)) from error
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Skipped:
    """A `*.py` entry of a walked folder that is not checked, and why."""

    path: Path
    reason: str


def walk_python_files(root: Path, skip_dirs: frozenset[str]) -> Iterator[Path | Skipped]:
    """Every `*.py` regular file under `root` in sorted order, and a `Skipped` for each `*.py`
    entry that is not one. Folders named in `skip_dirs` (matched below `root` only: a checkout
    under `~/venv/` is still walked) and symlinked folders are not entered."""
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as error:
            yield Skipped(folder, f"folder not read: {_reason(error)}")
            continue
        below = []
        for entry in entries:
            path = Path(entry.path)
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                if entry.name not in skip_dirs:
                    below.append(path)
                continue
            if not entry.name.endswith(".py"):
                continue
            why = _not_regular(path)
            yield path if why is None else Skipped(path, why)
        stack.extend(reversed(below))


def _not_regular(path: Path) -> str | None:
    """Why `path` is not a regular file to read (None if it is one), without opening it."""
    try:
        info = os.stat(path)
    except OSError as error:
        return _reason(error)
    return None if stat.S_ISREG(info.st_mode) else _kind(info.st_mode)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory, not a file"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe), not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a regular file"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    return "not a regular file"


def _reason(error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return "a symlink loop"
    if error.errno == errno.ENOENT:
        return "a dangling symlink" if _is_link(error.filename) else "no such file"
    if error.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return error.strerror or str(error)


def _is_link(name: object) -> bool:
    return isinstance(name, (str, bytes, os.PathLike)) and os.path.islink(name)
