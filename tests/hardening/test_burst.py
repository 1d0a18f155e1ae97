"""A burst of edits costs what its final analysis costs (issue 15: 5,000 `didChange` took 22 s
to settle with the default debounce, 55 s with debounce 0). Typing thousands of characters into
one line made each change convert its position with pygls's loop over the line's characters
in Python (35 of the burst's 74 CPU seconds); the conversion must give pygls's result without
that loop wherever a client unit is one code point."""

from __future__ import annotations

import asyncio
import io
import sys
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from pygls.protocol.json_rpc import JsonRPCProtocol
from pygls.workspace import PositionCodec, TextDocument
from pygls.workspace.position_codec import Utf16
from server_driver import frame

from pypto_lsp.framing import READ_SIZE, BufferedStdinReader, serve_frames
from pypto_lsp.server import PyptoLanguageServer, create_server
from pypto_lsp.text_sync import DocumentText, LspTextDocument, lsp_lines

LINES = st.lists(
    st.text(alphabet=st.sampled_from(["a", " ", "é", "中", "😋", "\t"]), max_size=12).map(
        lambda text: text + "\n"
    )
    | st.sampled_from(["x\r\n", "\r\n", "\n", "tail"]),
    min_size=1,
    max_size=5,
)


@given(
    lines=LINES,
    line=st.integers(0, 6),
    character=st.integers(0, 20),
    encoding=st.sampled_from(["utf-16", "utf-8", "utf-32"]),
)
def test_the_position_conversion_is_pygls_s(
    lines: list[str], line: int, character: int, encoding: str
) -> None:
    codec = PositionCodec(encoding)
    document = LspTextDocument("file:///t.py", source="".join(lines), position_codec=codec)
    split = lsp_lines("".join(lines))
    ours = document._to_code_points(split, line, character)
    theirs = codec.position_from_client_units(split, types.Position(line, character))
    assert ours == (theirs.line, theirs.character)


def test_typing_into_a_long_line_does_not_walk_it_character_by_character(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    walked = []
    monkeypatch.setattr(Utf16, "code_units_for_char", lambda self, char: walked.append(char) or 1)
    document = LspTextDocument("file:///t.py", source="# " + "x" * 5_000 + "\nprint()\n")
    for k in range(200):
        at = types.Position(0, 5_002 + k)
        document.apply_change(types.TextDocumentContentChangePartial(range=types.Range(at, at), text="y"))
    assert document.source == "# " + "x" * 5_000 + "y" * 200 + "\nprint()\n"
    assert walked == []


class _CountingStdin(io.BytesIO):
    """stdin holding a whole burst, counting the reads the server makes of it."""

    reads = 0

    def read1(self, size: int = -1) -> bytes:
        self.reads += 1
        return super().read1(size)

    def readline(self, size: int | None = -1) -> bytes:
        self.reads += 1
        return super().readline(size)

    def read(self, size: int | None = -1) -> bytes:
        self.reads += 1
        return super().read(size)


class _Bodies:
    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    def handle_frames(self, bodies: list[bytes]) -> None:
        self.bodies += bodies

    def refuse_frame(self, reason: str) -> None:
        raise AssertionError(reason)


def test_a_burst_of_five_thousand_frames_is_read_in_a_few_pieces_not_three_hops_a_frame() -> None:
    """Each read of stdin is an executor round trip that waits for the GIL the analysis holds."""
    change = {
        "method": "textDocument/didChange",
        "params": {"textDocument": {"uri": "file:///t.py", "version": 2}},
    }
    one = frame(change)
    burst = one * 5_000
    stdin = _CountingStdin(burst)
    sink = _Bodies()
    with ThreadPoolExecutor(1) as executor:
        asyncio.run(serve_frames(threading.Event(), BufferedStdinReader(stdin, executor), sink))
    assert sink.bodies == [one.split(b"\r\n\r\n", 1)[1]] * 5_000
    assert stdin.reads <= len(burst) // READ_SIZE + 2  # was 15,000: two header lines and a body each


_BURST_URI = "file:///burst_test.py"
_BURST_TEXT = "import pypto.language as pl\n\n" + "# a comment line\n" * 2_000


def _serve_burst(changes: int) -> PyptoLanguageServer:
    """An in-process server fed `changes` one-character insertions into line 2 after its
    `initialize` and `didOpen`, all in one piece of stdin (a debounce no change outlasts)."""
    options = {"analysis": {"debounceMs": 10_000}}
    initialize = {"capabilities": {}, "processId": None, "initializationOptions": options}
    document = {"uri": _BURST_URI, "languageId": "python", "version": 1, "text": _BURST_TEXT}
    messages: list[dict[str, object]] = [
        {"id": 0, "method": "initialize", "params": initialize},
        {"method": "initialized", "params": {}},
        {"method": "textDocument/didOpen", "params": {"textDocument": document}},
    ]
    for k in range(changes):
        at = {"line": 2, "character": 16 + k}
        messages.append(
            {
                "method": "textDocument/didChange",
                "params": {
                    "textDocument": {"uri": _BURST_URI, "version": 2 + k},
                    "contentChanges": [{"range": {"start": at, "end": at}, "text": "y"}],
                },
            }
        )
    server = create_server()
    interval = sys.getswitchinterval()
    try:
        server.start_io(io.BytesIO(b"".join(map(frame, messages))), io.BytesIO())
    finally:
        sys.setswitchinterval(interval)  # (the server sets its own)
    return server


def test_a_change_in_a_burst_does_no_whole_text_work_no_path_resolution_and_no_generic_dispatch(
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    """Per change the server applies the change to the lines it touches and moves the end of
    the debounce; a version of the text is made (its line lists copied), joined and split for
    the analysis once, when an analysis starts. It used to read the joined text per change,
    resolve the document's path twice (a `stat` per path component, on the event loop), go
    through pygls's generic dispatch (a generator, two thread futures), have lsprotocol
    structure the message, make a version (a copy of the line tuple) and start an asyncio task
    (with a timer and an event for its debounce)."""
    counts: Counter[str] = Counter()

    def counted(name: str, function: Callable[..., object]) -> Callable[..., object]:
        def wrapper(*args: object, **kwargs: object) -> object:
            counts[name] += 1
            return function(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(Path, "resolve", counted("resolve", Path.resolve))
    monkeypatch.setattr(
        LspTextDocument,
        "source",
        property(counted("text read", TextDocument.source.fget)),  # type: ignore[attr-defined]
    )
    monkeypatch.setattr(
        JsonRPCProtocol, "_execute_handler", counted("dispatch", JsonRPCProtocol._execute_handler)
    )
    monkeypatch.setattr(
        JsonRPCProtocol, "structure_message", counted("structured", JsonRPCProtocol.structure_message)
    )
    monkeypatch.setattr(DocumentText, "__init__", counted("version made", DocumentText.__init__))
    loop = asyncio.BaseEventLoop
    monkeypatch.setattr(loop, "create_task", counted("task", loop.create_task))
    monkeypatch.setattr(loop, "call_at", counted("timer", loop.call_at))
    _serve_burst(10)
    few = dict(counts)
    counts.clear()
    server = _serve_burst(1_010)
    assert dict(counts) == few  # nothing of it is done per change
    session = server.scheduler.session(_BURST_URI)
    assert session is not None and session.version == 1_011
    assert session.text == _BURST_TEXT.replace(
        "# a comment line\n", "# a comment line" + "y" * 1_010 + "\n", 1
    )
