"""A burst's versions are analysed once, not once per piece of input (issue 20: 5,000 `didChange`
in one write took 55 s to settle with debounce 0; 24 analyses of a 5,000-change burst into
qwen3_14b/decode_fwd.py were still started and thrown away at the start of this work), and a
`didChange` is decoded without lsprotocol's structuring only when that gives what the
structuring gives. These count analyses and hand-offs, never time."""

from __future__ import annotations

import asyncio
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from pygls.protocol import default_converter
from server_driver import RawServer, frame
from test_burst import _Bodies

from pypto_core.analysis import DocumentAnalyzer
from pypto_lsp.framing import (
    BufferedReader,
    BufferedStdinReader,
    BufferedStreamReader,
    CountingStreamReader,
    serve_frames,
)
from pypto_lsp.protocol import decode_did_change
from pypto_lsp.scheduler import AnalysisScheduler
from pypto_lsp.session import DocumentSession, Snapshot
from pypto_lsp.text_sync import FixedText

URI = "file:///coalesce.py"
_SERVED = "file:///tmp/pypto-lsp-tests/coalesce.py"


def _text(version: int) -> str:
    return f"import pypto.language as pl\n\n# version {version}\n"


class _Recorded:
    """A scheduler with debounce 0 whose analyses, hand-offs to the worker and publishes are
    counted; `hold` keeps the worker inside the next analysis until released."""

    def __init__(self, monkeypatch: Any) -> None:
        self.analysed: list[str] = []
        self.published: list[int] = []
        self.hold = threading.Event()
        self.hold.set()
        self.entered = threading.Event()  # the worker is inside an analysis
        self.input_waiting = False
        self.input_asked = 0
        self.on_handled: list[Any] = []
        self.last: asyncio.Event | None = None
        self.last_version = -1
        original = DocumentAnalyzer.update

        def update(analyzer: DocumentAnalyzer, text: str, *args: Any, **kwargs: Any) -> Any:
            self.analysed.append(text)
            self.entered.set()
            self.hold.wait(60)
            return original(analyzer, text, *args, **kwargs)

        monkeypatch.setattr(DocumentAnalyzer, "update", update)

    def start(self) -> AnalysisScheduler:
        self.last = asyncio.Event()
        scheduler = AnalysisScheduler(self._on_analysed, lambda: 0.0)
        scheduler.ready.set()
        scheduler.input = self
        submit = scheduler._executor.submit
        self.handed: list[object] = []

        def counted(fn: Any, *args: Any) -> Any:
            self.handed.append(fn)
            return submit(fn, *args)

        scheduler._executor.submit = counted  # type: ignore[method-assign]
        return scheduler

    # -- the frame reader's signal (`scheduler.InputSignal`) ----------------------------------

    def pending(self) -> bool:
        self.input_asked += 1
        return self.input_waiting

    def when_handled(self, callback: Any) -> None:
        self.on_handled.append(callback)

    def handled(self) -> None:
        """The reader has handled the input that was there and waits for more."""
        self.input_waiting = False
        callbacks, self.on_handled = self.on_handled, []
        for callback in callbacks:
            callback()

    def _on_analysed(self, session: DocumentSession, snapshot: Snapshot) -> None:
        self.published.append(snapshot.version)
        if snapshot.version == self.last_version and self.last is not None:
            self.last.set()


def test_with_debounce_0_a_burst_whose_input_is_already_there_is_analysed_once(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """While the frames of a burst are read but not yet handled, their newer versions are there:
    no analysis starts (each one used to start at every pause of the read loop, 64 KiB apart,
    and be thrown away by the next)."""
    recorded = _Recorded(monkeypatch)

    async def burst() -> None:
        scheduler = recorded.start()
        scheduler.open(URI, 1, FixedText(_text(1)))
        assert await scheduler.snapshot(URI) is not None
        recorded.input_waiting = True
        recorded.last_version = 301
        for version in range(2, 302):
            scheduler.change(URI, version, FixedText(_text(version)))
            await asyncio.sleep(0)  # the loop turns: each change's debounce (0) ends
        assert recorded.analysed == [_text(1)]
        assert recorded.input_asked > 0
        handed = len(recorded.handed)
        recorded.handled()
        assert len(recorded.handed) == handed + 1  # started by the signal, not by a timer
        assert recorded.last is not None
        await asyncio.wait_for(recorded.last.wait(), 60)
        scheduler.shutdown()

    asyncio.run(burst())
    assert recorded.analysed == [_text(1), _text(301)]
    assert recorded.published == [1, 301]


def test_changes_during_a_running_analysis_are_handed_to_the_worker_once(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """One analysis of a document waits behind its running one, and takes the newest version
    when it starts; each change used to queue one (which then skipped itself)."""
    recorded = _Recorded(monkeypatch)

    async def burst() -> None:
        scheduler = recorded.start()
        recorded.hold.clear()
        recorded.last_version = 101
        scheduler.open(URI, 1, FixedText(_text(1)))
        await asyncio.get_running_loop().run_in_executor(None, recorded.entered.wait, 60)
        for version in range(2, 102):
            scheduler.change(URI, version, FixedText(_text(version)))
            await asyncio.sleep(0)
        await asyncio.sleep(0)
        recorded.hold.set()
        assert recorded.last is not None
        await asyncio.wait_for(recorded.last.wait(), 60)
        scheduler.shutdown()

    asyncio.run(burst())
    assert recorded.analysed == [_text(1), _text(101)]
    assert len(recorded.handed) == 2
    assert recorded.published == [101]  # version 1 was no longer current when it was done


def test_a_request_during_a_burst_is_answered_from_the_current_version(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A request does not wait for the input to drain: it cuts the wait short."""
    recorded = _Recorded(monkeypatch)

    async def burst() -> Snapshot | None:
        scheduler = recorded.start()
        recorded.input_waiting = True
        scheduler.open(URI, 1, FixedText(_text(1)))
        for version in range(2, 52):
            scheduler.change(URI, version, FixedText(_text(version)))
            await asyncio.sleep(0)
        found = await asyncio.wait_for(scheduler.snapshot(URI), 60)
        scheduler.shutdown()
        return found

    found = asyncio.run(burst())
    assert found is not None and (found.version, found.text) == (51, _text(51))
    assert recorded.analysed == [_text(51)]


# -- didChange decoded directly -------------------------------------------------------------

_NUMBER = st.one_of(
    st.integers(0, 5),
    st.sampled_from([-1, 2**31 - 1, 2**31, True, 1.0, "2", None]),
)
_POSITION = st.fixed_dictionaries({"line": _NUMBER, "character": _NUMBER}) | st.sampled_from(
    [{}, {"line": 1}, None, [1, 2]]
)
_CHANGE = st.one_of(
    st.fixed_dictionaries(
        {"range": st.fixed_dictionaries({"start": _POSITION, "end": _POSITION}), "text": st.just("x")},
        optional={"rangeLength": _NUMBER},
    ),
    st.fixed_dictionaries({"text": st.sampled_from(["whole", None, 5])}),
    st.sampled_from([None, "x", {"range": None, "text": "x"}, {"range": {"start": {"line": 0}}}]),
)
_PARAMS = st.fixed_dictionaries(
    {
        "textDocument": st.fixed_dictionaries(
            {
                "uri": st.sampled_from(["file:///a.py", 5]),
                "version": st.sampled_from([2, -3, 2**31, "3", None, False]),
            }
        ),
        "contentChanges": st.lists(_CHANGE, max_size=3) | st.sampled_from([{}, "x", None]),
    }
)


def _structured(params: Any) -> tuple[str, int, list[object]] | None:
    """What lsprotocol's structuring makes of the params, in `decode_did_change`'s terms."""
    message = {"jsonrpc": "2.0", "method": types.TEXT_DOCUMENT_DID_CHANGE, "params": params}
    try:
        found = default_converter().structure(message, types.DidChangeTextDocumentNotification).params
    except Exception:
        return None
    changes: list[object] = []
    for change in found.content_changes:
        if isinstance(change, types.TextDocumentContentChangePartial):
            start, end = change.range.start, change.range.end
            changes.append((start.line, start.character, end.line, end.character, change.text))
        else:
            changes.append(change.text)
    return found.text_document.uri, found.text_document.version, changes


@given(params=_PARAMS)
def test_a_did_change_decoded_directly_is_what_the_structuring_makes_of_it(params: Any) -> None:
    """Where the direct decoding answers, lsprotocol agrees value for value; what it leaves to
    the generic path includes everything lsprotocol refuses (handled there as before: logged,
    dropped) and everything it converts (a line `"2"`, a text `null` taken as `"None"`)."""
    decoded = decode_did_change(params)
    if decoded is not None:
        assert _structured(params) == decoded


async def test_odd_did_change_params_still_take_the_generic_path_through_the_server() -> None:
    """A negative line is refused (logged, the change dropped) and a line sent as a string is
    converted, as lsprotocol's structuring did before the direct decoding; serving goes on."""
    server = await RawServer.start()
    await server.initialize()
    text = "import pypto.language as pl\n\n\n@pl.program\nclass P:\n    pass\n"
    server.open(_SERVED, text)
    line = text.split("\n").index("class P:")

    def renamed(version: int, start: dict[str, Any], name: str) -> dict[str, Any]:
        end = {"line": line, "character": 7}
        change = {"range": {"start": start, "end": end}, "text": name}
        document = {"uri": _SERVED, "version": version}
        return {
            "method": "textDocument/didChange",
            "params": {"textDocument": document, "contentChanges": [change]},
        }

    server.send(renamed(2, {"line": -1, "character": 6}, "Never"))
    server.send(renamed(3, {"line": str(line), "character": 6}, "Q"))
    server.send(
        {"id": 1, "method": "textDocument/documentSymbol", "params": {"textDocument": {"uri": _SERVED}}}
    )
    assert [symbol["name"] for symbol in (await server.answer(1))["result"]] == ["Q"]
    server.stdin.close()
    assert await server.exit_code(within=30) is not None


async def _signalled(reader: BufferedReader, feed: Any, end: Any) -> list[int]:
    """Feed two frames, then serve them: the frames handled when `when_handled` ran (asked
    while they were pending), and that nothing was pending then."""
    sink = _Bodies()
    feed(frame({"method": "a"}) + frame({"method": "b"}))
    assert reader.pending()
    ran = asyncio.Event()
    at: list[int] = []

    def handled() -> None:
        at.append(len(sink.bodies))
        assert not reader.pending()
        ran.set()

    reader.when_handled(handled)
    serving = asyncio.ensure_future(serve_frames(threading.Event(), reader, sink))
    await asyncio.wait_for(ran.wait(), 60)
    end()
    await asyncio.wait_for(serving, 60)
    return at


def test_the_stdin_reader_signals_when_the_input_that_was_there_is_handled() -> None:
    """The scheduler's signal to start an analysis held back for pending input (it polled
    `pending` every 2 ms, for up to 1 s): run once both frames are handled and the reader
    waits for more."""
    read, write = os.pipe()

    async def run() -> list[int]:
        with ThreadPoolExecutor(1) as executor, os.fdopen(read, "rb", buffering=0) as stdin:
            reader = BufferedStdinReader(stdin, executor)  # type: ignore[arg-type]
            return await _signalled(reader, lambda data: os.write(write, data), lambda: os.close(write))

    assert asyncio.run(run()) == [2]


def test_a_tcp_connection_s_reader_gives_the_same_signal() -> None:
    """Over `--tcp` there was no input-pending signal (asyncio's stream buffer is private):
    an analysis could start at any pause in a burst."""

    async def run() -> list[int]:
        stream = CountingStreamReader()
        reader = BufferedStreamReader(stream, None)
        return await _signalled(reader, stream.feed_data, stream.feed_eof)

    assert asyncio.run(run()) == [2]
