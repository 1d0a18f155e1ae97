"""A burst of edits costs what its final analysis costs (issue 15: 5,000 `didChange` took 22 s
to settle with the default debounce, 55 s with debounce 0). Typing thousands of characters into
one line made each change convert its position with pygls's loop over the line's characters
in Python (35 of the burst's 74 CPU seconds); the conversion must give pygls's result without
that loop wherever a client unit is one code point."""

from __future__ import annotations

import asyncio
import io
import threading
from concurrent.futures import ThreadPoolExecutor

from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace import PositionCodec
from pygls.workspace.position_codec import Utf16
from server_driver import frame

from pypto_lsp.framing import READ_SIZE, BufferedStdinReader, serve_frames
from pypto_lsp.text_sync import LspTextDocument, lsp_lines

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
    ours = document._to_code_points(split, types.Position(line, character))
    theirs = codec.position_from_client_units(split, types.Position(line, character))
    assert (ours.line, ours.character) == (theirs.line, theirs.character)


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

    def handle_frame(self, body: bytes) -> None:
        self.bodies.append(body)

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
