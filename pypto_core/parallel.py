"""Running independent pieces of work on worker processes, the results kept in their order.

`pypto-check` over a tree checks each file on its own: the files are handed one at a time to
a free worker (in the caller's order: the checker's starts the folders by their longest file,
each folder's longest first, so no long file starts last), each worker keeping to one folder
while it has files left (`Work.groups`, `_Schedule`), and the results come back in the order
of the inputs, whatever the workers' order, so the output is the same for any number of
workers. Each worker sets itself up once (`setup`: the checker's module index with every
checked file's text, inherited from the parent when the worker is forked) and keeps its
caches from one file to the next.

A failure stays with its piece of work: an exception raised by it is handed to `failed` with
the traceback, and a worker that dies (killed, out of memory, a crash in the interpreter)
takes only the piece it was running: that one is run again in a fresh worker, and is a
`Failure` if it kills that one too; the other workers carry on.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import traceback
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, Generic, TypeVar

T = TypeVar("T")


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the platform has one)."""
    count = getattr(os, "process_cpu_count", None)  # Python 3.13
    if count is not None:
        return max(1, count() or 1)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class Failure:
    """A piece of work that did not complete: why, in a line, and the traceback if it raised."""

    reason: str
    details: str = ""


@dataclass(frozen=True)
class Work(Generic[T]):
    """`run(i)` for each `i` in `range(count)`, on processes set up by `setup(*setup_args)`.
    `run` and `setup` are module-level functions (they are pickled by name)."""

    count: int
    run: Callable[[int], T]
    setup: Callable[..., None]
    setup_args: tuple[Any, ...] = ()
    order: Sequence[int] | None = None  # the order to start them in (None: 0, 1, ...)
    # each piece's group (the checker's: its folder). A worker keeps to one group while it has
    # pieces left, then takes a group no worker has started, then helps with the group that has
    # the most left: what a group's pieces share (the modules they import, the units of
    # near-copy files) is then computed by one worker, not by each. None: all one group.
    groups: Sequence[Hashable] | None = None


def run_all(work: Work[T], jobs: int) -> list[T | Failure]:
    """Every result of `work`, in index order, computed by up to `jobs` processes (1: in
    this process, with no pool)."""
    order = list(work.order) if work.order is not None else list(range(work.count))
    results: dict[int, T | Failure] = {}
    if min(jobs, work.count) <= 1:
        work.setup(*work.setup_args)
        for i in order:
            results[i] = _guarded(work.run, i)
    else:
        groups = work.groups if work.groups is not None else [None] * work.count
        _Pool(work, _Schedule(order, groups)).run(min(jobs, work.count), results)
    return [results[i] for i in range(work.count)]


class _Schedule:
    """Which piece a free worker takes next (`Work.groups`)."""

    def __init__(self, order: list[int], groups: Sequence[Hashable]) -> None:
        self._left: dict[Hashable, deque[int]] = {}  # by group, in the order given
        for i in order:
            self._left.setdefault(groups[i], deque()).append(i)
        self._unstarted = deque(self._left)
        self.groups = groups

    def next(self, group: Hashable | None) -> int | None:
        """The next piece for a worker whose last piece was of `group` (None: none yet)."""
        left = self._left.get(group) if group is not None else None
        if not left:
            while self._unstarted and not left:
                left = self._left[self._unstarted.popleft()]
            if not left:
                left = max(self._left.values(), key=len)
        return left.popleft() if left else None


def _serve(conn: Connection, work: Work[Any]) -> None:
    """A worker process: set up once, then each piece it is sent until told to stop (None);
    then it ends at once, its heap not torn down (the checker's keeps every file's analysis to
    this end, `kept_to_exit`), as a forked worker always did; a spawned one would otherwise
    free it all object by object."""
    work.setup(*work.setup_args)
    while (i := conn.recv()) is not None:
        conn.send(_guarded(work.run, i))
    conn.close()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection
    piece: int | None = None  # the piece it is running
    group: Hashable | None = None  # the group of its last piece


class _Pool:
    """Worker processes fed one piece at a time (`_Schedule`). A worker that dies takes only
    the piece it was running with it: that piece is run again once in a fresh worker (it may
    have been killed from outside), and if that one dies too it is a `Failure`; a fresh worker
    replaces each dead one while pieces are left."""

    def __init__(self, work: Work[Any], schedule: _Schedule) -> None:
        self.work = work
        self.schedule = schedule
        self.context = multiprocessing.get_context()
        self.retry: deque[int] = deque()  # pieces whose worker died, to run again
        self.retried: set[int] = set()

    def run(self, jobs: int, results: dict[int, Any]) -> None:
        workers = [self._start() for _ in range(jobs)]
        try:
            for worker in workers:
                self._feed(worker)
            while busy := {w.conn: w for w in workers if w.piece is not None}:
                for conn in wait(list(busy)):
                    worker = busy[conn]  # type: ignore[index]
                    assert worker.piece is not None
                    try:
                        results[worker.piece] = worker.conn.recv()
                    except (EOFError, OSError):
                        workers[workers.index(worker)] = worker = self._died(worker, results)
                    worker.piece = None
                    self._feed(worker)
        finally:
            for worker in workers:
                self._stop(worker)

    def _start(self) -> _Worker:
        ours, theirs = self.context.Pipe()
        process = self.context.Process(target=_serve, args=(theirs, self.work), daemon=True)
        process.start()
        theirs.close()
        return _Worker(process, ours)

    def _feed(self, worker: _Worker) -> None:
        piece = self.retry.popleft() if self.retry else self.schedule.next(worker.group)
        if piece is None:
            return
        worker.piece, worker.group = piece, self.schedule.groups[piece]
        worker.conn.send(piece)

    def _died(self, worker: _Worker, results: dict[int, Any]) -> _Worker:
        """`worker` ended while running its piece: that piece again in a fresh worker (once),
        or its failure; the fresh worker is returned in its place."""
        assert worker.piece is not None
        worker.process.join()
        worker.conn.close()
        if worker.piece in self.retried:
            results[worker.piece] = Failure("the process checking it ended abruptly")
        else:
            self.retried.add(worker.piece)
            self.retry.append(worker.piece)
        return self._start()

    def _stop(self, worker: _Worker) -> None:
        with contextlib.suppress(OSError):
            worker.conn.send(None)
        worker.process.join(timeout=5)
        if worker.process.is_alive():  # only when the run is abandoned (an interrupt)
            worker.process.kill()
            worker.process.join()
        worker.conn.close()


def _guarded(run: Callable[[int], T], i: int) -> T | Failure:
    try:
        return run(i)
    except Exception as exc:  # a bug in the work: kept with it, the others still run
        return Failure(f"{type(exc).__name__}: {exc}", traceback.format_exc())
