"""Debounced, version-guarded analysis on a dedicated worker thread.

Why a dedicated single-thread executor: pygls reads stdin through its own thread pool, so CPU
work there can starve the reader; one worker also serialises every use of a document's
incremental analyzer (which is not thread-safe) and keeps analyses from competing for the GIL.

An edit schedules a job for the new version. A job still in its debounce is cancelled by the
next edit; a job queued behind the worker skips itself if its version is no longer current; a
job that already ran stores its snapshot but only the current version's result is handed on
(published). Requests wait for the analysis of the current version, cutting its debounce short.

Background work (the workspace index, one file per call of `run_background`) yields to the
documents: the worker is one thread and a call cannot be interrupted, so a background call is
only handed to it when no document job is scheduled or running, no request's work (`run`) is
in flight, and none was for `BACKGROUND_QUIET_SECONDS` (a typist's next keystroke usually comes
sooner, so the index does not start a 3 s file between two keystrokes). An open document then
waits for at most the one background call already running (issues 11/13).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from pypto_core.analysis import DocumentAnalyzer
from pypto_core.passes.inline_functions import SPLICE_BUDGET
from pypto_core.results import FileAnalysis
from pypto_core.span import split_lines

from .dependencies import Dependencies
from .session import AnalysisJob, DocumentSession, Snapshot
from .text_sync import DocumentText

log = logging.getLogger(__name__)

T = TypeVar("T")

BACKGROUND_QUIET_SECONDS = 0.5


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

    # -- document lifecycle (called on the event loop) ------------------------------------

    def open(self, uri: str, version: int, content: DocumentText) -> None:
        self.close(uri)
        session = DocumentSession(uri, version, content)
        self._sessions[uri] = session
        self._schedule(session)

    def change(self, uri: str, version: int, content: DocumentText) -> None:
        session = self._sessions.get(uri)
        if session is None:
            self.open(uri, version, content)
            return
        session.version, session.content = version, content
        self._schedule(session)

    def reanalyse(self, uri: str) -> None:
        """Analyse the document's current version again: a module it imports changed."""
        session = self._sessions.get(uri)
        if session is not None:
            session.generation += 1
            self._schedule(session)

    def close(self, uri: str) -> None:
        session = self._sessions.pop(uri, None)
        if session is not None and session.job is not None and not session.job.started:
            assert session.job.task is not None
            session.job.task.cancel()

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
            job = session.job
            if job is None or job.version != session.version:
                job = self._schedule(session)
            assert job.task is not None
            job.expedite.set()
            try:
                await asyncio.shield(job.task)
            except asyncio.CancelledError:
                if not job.task.cancelled():
                    raise
                # superseded during its debounce: wait for the newer version instead

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

    def _schedule(self, session: DocumentSession) -> AnalysisJob:
        previous = session.job
        if previous is not None and not previous.started and previous.task is not None:
            previous.task.cancel()
        job = AnalysisJob(session.version, session.content, session.generation)
        job.task = asyncio.ensure_future(self._run(session, job))
        self._enter()
        job.task.add_done_callback(lambda _: self._leave())
        session.job = job
        return job

    def _enter(self) -> None:
        self._busy += 1
        self._idle.clear()

    def _leave(self) -> None:
        self._busy -= 1
        if self._busy == 0:
            self._busy_until = time.monotonic()
            self._idle.set()

    async def _run(self, session: DocumentSession, job: AnalysisJob) -> Snapshot | None:
        await self.ready.wait()
        delay = self._debounce_seconds()
        if delay > 0:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(job.expedite.wait(), delay)
        job.started = True
        snapshot = await self.run(self._analyse, session, job)
        if snapshot is None:
            return None
        # The newest scheduled job is the newest text even if a client sent a lower version number.
        if job is session.job or session.latest is None or snapshot.version >= session.latest.version:
            session.latest = snapshot
            if not snapshot.analysis.dropped:
                session.complete = snapshot
        current = snapshot.version == session.version and snapshot.generation == session.generation
        if self._sessions.get(session.uri) is session and current:
            self._on_analysed(session, snapshot)
        return snapshot

    def _analyse(self, session: DocumentSession, job: AnalysisJob) -> Snapshot | None:
        """Worker thread: analyse one version, unless a newer one arrived while it was queued."""
        if job.version != session.version or job.generation != session.generation:
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
            if deps is not None:
                deps.analysed(session.uri, modules)
        except Exception:
            failure = traceback.format_exc()
            log.error("analysis of %s (version %d) failed:\n%s", session.uri, job.version, failure)
            session.analyzer = DocumentAnalyzer()  # its cache may be half-updated
            analysis, lines = FileAnalysis(), split_lines(text)
        snapshot = Snapshot(session.uri, job.version, text, lines, analysis, failure, job.generation)
        log.debug(
            "analysed %s v%d in %.1f ms", session.uri, job.version, (time.perf_counter() - start) * 1000
        )
        return snapshot
