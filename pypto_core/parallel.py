"""Running independent pieces of work on worker processes, the results kept in their order.

`pypto-check` over a tree checks each file on its own: the files are handed one at a time to
whichever worker is free (in the caller's order: the checker's starts one folder after the
other, the longest files first, so no long file starts last), and the results come back in
the order of the inputs, whatever the workers' order, so the output is the same for any
number of workers. Each worker sets itself up once (`setup`: the checker's module index with
every checked file's text, inherited from the parent when the worker is forked) and keeps its
caches from one file to the next.

A failure stays with its piece of work: an exception raised by it is handed to `failed` with
the traceback, and a worker that dies (killed, out of memory, a crash in the interpreter)
breaks the pool: the pieces that had not finished are then run again, each alone in a fresh
worker, so the one that kills its worker is the only one lost.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
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
        unfinished = _in_pool(work, order, min(jobs, work.count), results)
        for i in unfinished:  # the pool broke: each alone, so only a killer is lost
            _in_pool(work, [i], 1, results)
    return [results[i] for i in range(work.count)]


def _in_pool(work: Work[T], order: list[int], jobs: int, results: dict[int, T | Failure]) -> list[int]:
    """Run `order` on a pool of `jobs` workers into `results`; the indices left unfinished
    when a worker died (a pool of one: that index gets a `Failure` instead)."""
    with ProcessPoolExecutor(jobs, initializer=work.setup, initargs=work.setup_args) as pool:
        futures: list[tuple[int, Future[T | Failure]]] = [
            (i, pool.submit(_guarded, work.run, i)) for i in order
        ]
        unfinished = []
        for i, future in futures:
            try:
                results[i] = future.result()
            except BrokenProcessPool:
                if jobs == 1:
                    results[i] = Failure("the process checking it ended abruptly")
                else:
                    unfinished.append(i)
    return unfinished


def _guarded(run: Callable[[int], T], i: int) -> T | Failure:
    try:
        return run(i)
    except Exception as exc:  # a bug in the work: kept with it, the others still run
        return Failure(f"{type(exc).__name__}: {exc}", traceback.format_exc())
