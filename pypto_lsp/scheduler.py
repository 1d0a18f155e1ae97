"""Debounced, version-guarded analysis on a dedicated worker thread.

Why a dedicated single-thread executor: pygls reads stdin through its own thread pool, so CPU
work there can starve the reader; one worker also serialises every use of a document's
incremental analyzer (which is not thread-safe) and keeps analyses from competing for the GIL.

An edit schedules the document's next analysis (`AnalysisJob`) unless one is already waiting
(an open schedules its first with no debounce: there is no burst to wait out, and a user opening
a file waits for its first diagnostics; a change before it starts debounces it as any other):
a change inside the debounce only moves its end, and the one timer that ends it is set again
for the rest when it fires early (a task, a timer and an event per change were a fifth of a
5,000-change burst, issue 15). When the debounce ends, the analysis still waits while input
the server has not handled yet is already there (`input.pending()`: the frames of a burst
that are read but not yet handled), since that input holds newer versions, until the frame
loop says it has handled it (`input.when_handled`; at most `INPUT_WAIT_SECONDS`); and while
the worker is on the document's previous analysis. It then takes the
version current at that moment, so with debounce 0 a burst is not analysed once per piece of
input read, each analysis thrown away by the next. A job queued behind other work skips
itself if its version is no longer current; a job that ran stores its snapshot but only the
current version's result is handed on (published). Requests wait for the analysis of the
current version, cutting its debounce and the wait for input short.

Background work (the workspace index, one file per call of `run_background`) yields to the
documents: the worker is one thread and a call cannot be interrupted, so a background call is
only handed to it when no document job is scheduled or running, no request's work (`run`) is
in flight, and none was for `BACKGROUND_QUIET_SECONDS` (a typist's next keystroke usually comes
sooner, so the index does not start a 3 s file between two keystrokes). An open document then
waits for at most the one background call already running (issues 11/13).
"""

from __future__ import annotations

import asyncio
import logging
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Protocol, TypeVar

from pypto_core.passes.inline_functions import SPLICE_BUDGET
from pypto_core.results import FileAnalysis
from pypto_core.span import split_lines

from .dependencies import Dependencies
from .diagnostics import related_lines
from .session import AnalysisJob, DocumentSession, Snapshot, TextSource, open_document_analyzer

log = logging.getLogger(__name__)

T = TypeVar("T")

BACKGROUND_QUIET_SECONDS = 0.5
# An analysis waits at most this long past its debounce for input already there to be handled
# (a client that never stops sending is still analysed).
INPUT_WAIT_SECONDS = 1.0


class InputSignal(Protocol):
    """The frame reader's word on the input (`framing.BufferedReader`)."""

    def pending(self) -> bool:
        """Whether input is already there that the server has not handled yet."""
        ...

    def when_handled(self, callback: Callable[[], None]) -> None:
        """Run `callback` once that input is handled and the reader waits for more."""
        ...


class AnalysisScheduler:
    def __init__(
        self,
        on_analysed: Callable[[DocumentSession, Snapshot], None],
        debounce_seconds: Callable[[], float],
        dependencies: Dependencies | None = None,
        splice_budget: Callable[[], int] = lambda: SPLICE_BUDGET,
    ) -> None:
        self._on_analysed = on_analysed
        self.dependencies = dependencies
        self._debounce_seconds = debounce_seconds
        self._splice_budget = splice_budget
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pypto-analysis")
        self._sessions: dict[str, DocumentSession] = {}
        # Closed until the client's settings are known, so nothing is published against them.
        self.ready = asyncio.Event()
        self._busy = 0  # document jobs not yet done + `run` calls in flight
        self._idle = asyncio.Event()  # set while `_busy` is 0
        self._idle.set()
        self._busy_until = time.monotonic()  # when `_busy` last fell to 0
        # The server's frame reader (set when it starts serving): an analysis whose debounce
        # ended waits while input is pending, until the reader has handled it. It used to poll
        # `pending` every 2 ms meanwhile (a timer each, up to 1 s).
        self.input: InputSignal | None = None
        self._waiting_for_ready: set[str] = set()  # URIs whose job's debounce ended before `ready`
        self._ready_waiter: asyncio.Future[None] | None = None

    # -- document lifecycle (called on the event loop) ------------------------------------

    def open(self, uri: str, version: int, source: TextSource) -> None:
        self.close(uri)
        session = DocumentSession(uri, version, source)
        self._sessions[uri] = session
        self._schedule(session, debounce=0.0)

    def change(self, uri: str, version: int, source: TextSource) -> None:
        session = self._sessions.get(uri)
        if session is None:
            self.open(uri, version, source)
            return
        session.version, session.source = version, source
        self._schedule(session)

    def reanalyse(self, uri: str) -> None:
        """Analyse the document's current version again: a module it imports changed."""
        session = self._sessions.get(uri)
        if session is not None:
            session.generation += 1
            self._schedule(session)

    def close(self, uri: str) -> None:
        session = self._sessions.pop(uri, None)
        job = None if session is None else session.pending
        if session is not None and job is not None:
            session.pending = None
            self._drop(job)

    def session(self, uri: str) -> DocumentSession | None:
        return self._sessions.get(uri)

    def sessions(self) -> list[DocumentSession]:
        return list(self._sessions.values())

    # -- results --------------------------------------------------------------------------

    async def snapshot(self, uri: str) -> Snapshot | None:
        """The analysis of the document's current version (None if it is not open)."""
        while True:
            session = self._sessions.get(uri)
            if session is None:
                return None
            current = session.current_snapshot()
            if current is not None:
                return current
            job = session.running
            if session.pending is not None or job is None or not self._is_current(session, job):
                job = session.pending or self._schedule(session)
                job.expedited = True
                self._due(session, job)
            await asyncio.shield(job.done)

    async def run(self, fn: Callable[..., T], *args: object) -> T:
        """Run a request's analysis work (unopened files, callers, traces) on the same worker."""
        self._enter()
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)
        finally:
            self._leave()

    def documents_waiting(self) -> bool:
        """Whether a document's analysis or a request's work is waiting for the worker (or
        running on it): asked on the worker by the background index between two programs of
        its file, to give way (`analysis.Interrupted`)."""
        return self._busy > 0

    async def run_background(self, fn: Callable[..., T], *args: object) -> T:
        """Run work nobody waits for (the workspace index) once the documents leave the worker idle."""
        await self.ready.wait()
        while True:
            await self._idle.wait()
            quiet = self._busy_until + BACKGROUND_QUIET_SECONDS - time.monotonic()
            if quiet <= 0:
                break
            await asyncio.sleep(quiet)
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    def shutdown(self) -> None:
        for uri in list(self._sessions):
            self.close(uri)
        self._executor.shutdown(wait=False, cancel_futures=True)

    # -- internals ------------------------------------------------------------------------

    def _schedule(self, session: DocumentSession, debounce: float | None = None) -> AnalysisJob:
        """The document's next analysis, its debounce (re)started (`debounce` seconds, None:
        the setting's): per change of a burst two attribute writes, the job and its timer made
        once per debounce."""
        loop = asyncio.get_running_loop()
        due = loop.time() + (self._debounce_seconds() if debounce is None else debounce)
        job = session.pending
        if job is None:
            job = session.pending = AnalysisJob(due, loop.create_future())
            self._enter()
            job.timer = loop.call_at(due, self._due, session, job)
        else:
            if due < job.due and job.timer is not None:  # the debounce setting got shorter
                job.timer.cancel()
                job.timer = loop.call_at(due, self._due, session, job)
            job.due = due
        return job

    def _due(self, session: DocumentSession, job: AnalysisJob) -> None:
        """The job's timer fired (or a request expedites it, or what it waited for is done):
        start it, or wait for the rest of its debounce, for `ready`, for the input already there
        to be handled, or for the document's running analysis."""
        if job.timer is not None:
            job.timer.cancel()
            job.timer = None
        if session.pending is not job:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        if not job.expedited and now < job.due:
            job.timer = loop.call_at(job.due, self._due, session, job)
        elif not self.ready.is_set():
            self._waiting_for_ready.add(session.uri)
            if self._ready_waiter is None:
                self._ready_waiter = asyncio.ensure_future(self._start_when_ready())
        elif not job.expedited and now < job.due + INPUT_WAIT_SECONDS and self._input_pending():
            job.timer = loop.call_at(job.due + INPUT_WAIT_SECONDS, self._due, session, job)
            self._when_input_handled(partial(self._due, session, job))
        elif session.running is None:
            self._start(session, job)
        # else: started by `_finished` when the running analysis is done

    def _input_pending(self) -> bool:
        return self.input is not None and self.input.pending()

    def _when_input_handled(self, callback: Callable[[], None]) -> None:
        if self.input is not None:
            self.input.when_handled(callback)

    async def _start_when_ready(self) -> None:
        await self.ready.wait()
        self._ready_waiter = None
        waiting, self._waiting_for_ready = self._waiting_for_ready, set()
        for uri in waiting:
            session = self._sessions.get(uri)
            if session is not None and session.pending is not None:
                self._due(session, session.pending)

    def _start(self, session: DocumentSession, job: AnalysisJob) -> None:
        """Hand the job to the worker with the document's version as it is now."""
        session.pending, session.running = None, job
        job.started = True
        job.version, job.content, job.generation = session.version, session.content, session.generation
        future = asyncio.get_running_loop().run_in_executor(self._executor, self._analyse, session, job)
        future.add_done_callback(partial(self._finished, session, job))

    def _finished(
        self, session: DocumentSession, job: AnalysisJob, future: asyncio.Future[Snapshot | None]
    ) -> None:
        if session.running is job:
            session.running = None
        snapshot = None
        if not future.cancelled() and future.exception() is None:
            snapshot = future.result()
        elif not future.cancelled():
            log.error("analysing %s failed: %r", session.uri, future.exception())
        if snapshot is not None:
            session.latest = snapshot  # (a document's analyses run one at a time, newest text last)
            if not snapshot.analysis.dropped:
                session.complete = snapshot
            open_ = self._sessions.get(session.uri) is session
            if open_ and self._is_current(session, job):
                self._on_analysed(session, snapshot)
        self._drop(job, snapshot)
        pending = session.pending
        if pending is not None and pending.timer is None:
            self._due(session, pending)

    def _drop(self, job: AnalysisJob, snapshot: Snapshot | None = None) -> None:
        """The job is done (or dropped unstarted): its waiters woken, its timer gone."""
        if job.timer is not None:
            job.timer.cancel()
            job.timer = None
        if not job.done.done():
            job.done.set_result(snapshot)
        self._leave()

    @staticmethod
    def _is_current(session: DocumentSession, job: AnalysisJob) -> bool:
        return job.version == session.version and job.generation == session.generation

    def _enter(self) -> None:
        self._busy += 1
        self._idle.clear()

    def _leave(self) -> None:
        self._busy -= 1
        if self._busy == 0:
            self._busy_until = time.monotonic()
            self._idle.set()

    def _analyse(self, session: DocumentSession, job: AnalysisJob) -> Snapshot | None:
        """Worker thread: analyse one version, unless a newer one arrived while it was queued."""
        if not self._is_current(session, job) or job.content is None:
            return None
        failure = None
        start = time.perf_counter()
        log.debug("analysing %s v%d", session.uri, job.version)
        text = job.content.text  # joined here, on the worker, once per analysed version
        try:
            deps = self.dependencies
            modules = deps.lookup(session.uri) if deps is not None else None
            analysis = session.analyzer.update(text, job.content.plain_lines, modules, self._splice_budget())
            lines = session.analyzer.lines
            other_lines = {}
            if deps is not None:
                deps.analysed(session.uri, modules)
                other_lines = related_lines(analysis.diagnostics, deps.text_of, session.related)
        except Exception:
            failure = traceback.format_exc()
            log.error("analysis of %s (version %d) failed:\n%s", session.uri, job.version, failure)
            session.analyzer = open_document_analyzer()  # its cache may be half-updated
            analysis, lines, other_lines = FileAnalysis(), split_lines(text), {}
        snapshot = Snapshot(
            session.uri, job.version, text, lines, analysis, failure, job.generation, other_lines
        )
        log.debug(
            "analysed %s v%d in %.1f ms", session.uri, job.version, (time.perf_counter() - start) * 1000
        )
        return snapshot
