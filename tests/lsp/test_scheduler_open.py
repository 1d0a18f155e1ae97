"""An open document's first analysis is not debounced (there is no burst to wait out; the
user waits for its first diagnostics), while a change is, as before (issue 13: a cold open's
first diagnostics)."""

from __future__ import annotations

import asyncio

from pypto_lsp.scheduler import AnalysisScheduler
from pypto_lsp.session import DocumentSession, Snapshot
from pypto_lsp.text_sync import FixedText

URI = "file:///opened.py"
AN_HOUR = 3600.0


def _text(version: int) -> str:
    return f"import pypto.language as pl\n\n# version {version}\n"


def test_an_open_is_analysed_at_once_and_a_change_after_it_waits_out_the_debounce() -> None:
    published: list[int] = []

    async def run() -> None:
        first = asyncio.Event()
        loop = asyncio.get_running_loop()

        def on_analysed(session: DocumentSession, snapshot: Snapshot) -> None:
            published.append(snapshot.version)
            loop.call_soon_threadsafe(first.set)

        scheduler = AnalysisScheduler(on_analysed, lambda: AN_HOUR)
        scheduler.ready.set()
        scheduler.open(URI, 1, FixedText(_text(1)))
        await asyncio.wait_for(first.wait(), 60)  # an hour's debounce would not end in time
        session = scheduler.session(URI)
        assert session is not None and session.pending is None
        scheduler.change(URI, 2, FixedText(_text(2)))
        assert session.pending is not None
        assert session.pending.due > loop.time() + AN_HOUR / 2
        scheduler.shutdown()

    asyncio.run(run())
    assert published == [1]
