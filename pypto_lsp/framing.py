"""Reading LSP frames (`Content-Length: N\\r\\n\\r\\n` + N bytes) from a stream that may be broken.

Why not pygls's own read loop (`pygls.io_.run_async`): one malformed frame deafened it for
good (issue 15). A Content-Length one byte short (a client counting characters, not bytes)
left a `}` in front of the next header, which its exact `^Content-Length: (\\d+)\\r\\n$` match
then never recognised, nor any header after it; a lower-case `content-length:` was never
recognised at all; `Content-Length: 100000000000000000000` made it read that many bytes
(OverflowError / MemoryError ended the process). Here:

* header names are case-insensitive (as in HTTP, where the LSP base protocol took them from);
* a header found after stray bytes on its line is read from where it starts: the loop
  resynchronises on the next frame after any damage;
* a frame longer than `MAX_CONTENT_LENGTH` is refused (an error response with a null id,
  since its id is unknown) and skipped: its bytes are read as lines, in bounded pieces, until
  the next header;
* every body read in full goes to `protocol.handle_frames`, which answers what it cannot parse;
  the frames already whole in the buffer go together (a burst's run of `didChange` frames of one
  document is applied and scheduled once, issue 15).
"""

from __future__ import annotations

import asyncio
import logging
import re
import select
import threading
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import BinaryIO, Protocol, SupportsIndex

log = logging.getLogger(__name__)

# The largest frame served: the largest real DSL file is ~150 KB; a 100,000-line file sent as
# one didOpen is ~5 MB. A bigger frame is refused, which costs the sender that one message.
MAX_CONTENT_LENGTH = 64 * 1024 * 1024
MAX_HEADER_LINE = 8192  # a longer header line is read in pieces of this size (and is garbage)
READ_SIZE = 1 << 16  # stdin is read in pieces of at most this many bytes
# A TCP stream's piece: more than its reader buffers (64 KiB before it pauses the socket), so a
# read takes all it holds.
STREAM_READ_SIZE = 1 << 20

_CONTENT_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*([^\r\n]*?)[ \t]*\r?\n$", re.IGNORECASE)
_HEADER = re.compile(rb"[!-9;-~]+[ \t]*:[^\r\n]*\r?\n$")  # any other `Name: value` line
_BLANK = (b"\r\n", b"\n")
# The usual header, all a well-behaved client sends (digits enough for `MAX_CONTENT_LENGTH`)
_USUAL_HEADER = re.compile(rb"Content-Length: ([0-9]{1,%d})\r\n\r\n" % len(str(MAX_CONTENT_LENGTH)))


class FrameSink(Protocol):
    """What the loop hands frames to (`PyptoProtocol`)."""

    def handle_frames(self, bodies: list[bytes]) -> None:
        """Frames' bodies in the order they came (one or more)."""
        ...

    def refuse_frame(self, reason: str) -> None: ...


class AsyncLineReader(Protocol):
    """pygls's reader shape (`StdinAsyncReader`, `asyncio.StreamReader`)."""

    def readline(self) -> Awaitable[bytes]: ...

    def readexactly(self, n: int) -> Awaitable[bytes]: ...


class BufferedReader:
    """Input read in pieces of whatever has arrived and served from a buffer on the event loop
    (`readline`, `readexactly`, `frames_now` for `serve_frames`), with the signal the scheduler
    coalesces a burst's analyses by: `pending` (input is already there that the loop has not
    handled: a burst's later frames hold newer versions) and `when_handled` (a callback run
    once the loop has handled what was there and is about to wait for more). A header line is
    cut at `MAX_HEADER_LINE` bytes (a 1 GB line without a newline is never held whole); a body
    short at end of input comes back short, as from pygls's reader. Subclasses say how a piece
    is read and whether more is already waiting beyond the buffer."""

    def __init__(self) -> None:
        self._buffer = b""
        self._start = 0  # what is before it has been handed out
        self._ended = False
        self._on_handled: list[Callable[[], None]] = []
        self._fd: int | None = None  # a file descriptor to `select`, if any

    async def _read_piece(self) -> bytes:
        """The next piece of input (empty at its end)."""
        raise NotImplementedError

    def _waiting(self) -> bool:
        """Whether more input than the buffer holds is already there to be read."""
        raise NotImplementedError

    def pending(self) -> bool:
        """Whether input is already there that the loop has not handled yet: bytes left in the
        buffer or waiting to be read."""
        return self._start < len(self._buffer) or self._waiting()

    def _readable(self) -> bool:
        """Whether `_fd` (when a subclass has one) has bytes to read, by a zero-timeout
        `select`; not known (False, and not asked again) where it cannot be selected (a pipe
        on Windows)."""
        if self._fd is None:
            return False
        try:
            return bool(select.select([self._fd], [], [], 0)[0])
        except (OSError, ValueError):
            self._fd = None
            return False

    def when_handled(self, callback: Callable[[], None]) -> None:
        """Run `callback` (once) when the loop next waits for input that is not there yet: the
        scheduler's signal to start an analysis held back while input was `pending` (it used
        to poll `pending` every 2 ms)."""
        self._on_handled.append(callback)

    async def _fill(self) -> None:
        if self._on_handled and not self.pending():
            callbacks, self._on_handled = self._on_handled, []
            for callback in callbacks:
                callback()
        piece = await self._read_piece()
        self._buffer = self._buffer[self._start :] + piece
        self._start = 0
        self._ended = not piece

    def _take(self, end: int) -> bytes:
        taken = self._buffer[self._start : end]
        self._start = end
        return taken

    def frames_now(self) -> list[bytes]:
        """The bodies of the frames that are whole in the buffer, in order, up to the first that
        is not or whose header is not the usual one (`Content-Length: N` and the blank line,
        nothing else), taken without the line-by-line reads (a sixth of a burst's cost per
        change); the rest stays for the loop to read line by line."""
        bodies: list[bytes] = []
        buffer, start, size = self._buffer, self._start, len(self._buffer)
        while (header := _USUAL_HEADER.match(buffer, start)) is not None:
            length, body = int(header.group(1)), header.end()
            if length > MAX_CONTENT_LENGTH or size - body < length:
                break
            start = body + length
            bodies.append(buffer[body:start])
        self._start = start
        return bodies

    async def readline(self) -> bytes:
        while True:
            limit = min(len(self._buffer), self._start + MAX_HEADER_LINE)
            newline = self._buffer.find(b"\n", self._start, limit)
            if newline >= 0:
                return self._take(newline + 1)
            if limit - self._start >= MAX_HEADER_LINE or self._ended:
                return self._take(limit)
            await self._fill()

    async def readexactly(self, n: int) -> bytes:
        while len(self._buffer) - self._start < n and not self._ended:
            await self._fill()
        return self._take(min(self._start + n, len(self._buffer)))


class BufferedStdinReader(BufferedReader):
    """stdin read in pieces of up to `READ_SIZE` on the executor. pygls's reader made one
    executor round trip per header line and per body (three per frame), each waiting for the
    GIL the analysis worker holds: 5,000 `didChange` notifications were 15,000 hops (issue 15,
    the burst). More is waiting when a read has returned or stdin is readable (a zero-timeout
    `select`)."""

    def __init__(self, stdin: BinaryIO, executor: ThreadPoolExecutor | None = None) -> None:
        super().__init__()
        self.stdin = stdin
        self.executor = executor
        self._reading: Future[bytes] | None = None  # the read in flight, on the executor
        try:
            self._fd = stdin.fileno()
        except (OSError, ValueError):  # (io.UnsupportedOperation is both)
            self._fd = None

    def _waiting(self) -> bool:
        if self._reading is not None and self._reading.done():
            return True
        return self._readable()

    async def _read_piece(self) -> bytes:
        read = getattr(self.stdin, "read1", self.stdin.read)
        if self.executor is None:
            return await asyncio.get_running_loop().run_in_executor(None, read, READ_SIZE)  # type: ignore[no-any-return]
        self._reading = self.executor.submit(read, READ_SIZE)
        try:
            return await asyncio.wrap_future(self._reading)
        finally:
            self._reading = None


class CountingStreamReader(asyncio.StreamReader):
    """An `asyncio.StreamReader` that counts what its transport fed it (its buffer is private),
    so that `BufferedStreamReader` can tell whether bytes are waiting in it."""

    fed = 0

    def feed_data(self, data: Iterable[SupportsIndex]) -> None:
        self.fed += len(data)  # type: ignore[arg-type]  # (bytes from the transport)
        super().feed_data(data)


class BufferedStreamReader(BufferedReader):
    """A `--tcp` connection, read in pieces of whatever its stream holds. More is waiting when
    the stream was fed bytes not yet read from it, or its socket is readable: so a burst over
    TCP is coalesced as over stdin (there was no signal: an analysis could start at any pause
    in the input)."""

    def __init__(self, stream: CountingStreamReader, fd: int | None) -> None:
        super().__init__()
        self._stream = stream
        self._fd = fd
        self._read = 0

    def _waiting(self) -> bool:
        return self._stream.fed > self._read or self._readable()

    async def _read_piece(self) -> bytes:
        piece = await self._stream.read(STREAM_READ_SIZE)
        self._read += len(piece)
        return piece


async def serve_frames(stop: threading.Event, reader: AsyncLineReader, sink: FrameSink) -> None:
    """Read frames until end of input (or `stop`), handing each body to `sink`."""
    length: int | None = None
    frames_now = getattr(reader, "frames_now", None)
    while not stop.is_set():
        bodies = frames_now() if frames_now is not None and length is None else None
        if bodies:
            sink.handle_frames(bodies)
            continue
        try:
            line = await reader.readline()
        except ValueError:  # asyncio.StreamReader: a line over its limit (already discarded)
            log.warning("discarded an over-long line between frames")
            length = None
            continue
        if not line:
            return
        if line in _BLANK:
            if length is None:
                continue  # a blank line outside a frame's headers: nothing to do
            try:
                body = await reader.readexactly(length)
            except asyncio.IncompleteReadError:
                return
            if len(body) < length:
                return  # end of input inside the body (pygls's stdin reader returns short)
            length = None
            sink.handle_frames([body])
            continue
        match = _CONTENT_LENGTH.search(line)
        if match is not None:
            if match.start() > 0:
                log.warning("skipped %d bytes before a frame header: %r", match.start(), line[:80])
            length = _length(match.group(1), sink)
        elif _HEADER.match(line) is None:
            log.warning("skipped bytes outside any frame: %r", line[:80])
            length = None


def _length(value: bytes, sink: FrameSink) -> int | None:
    """The frame length a Content-Length value gives, or None (refused) when it is not a
    number or above the limit."""
    if not value.isdigit():
        sink.refuse_frame(f"bad Content-Length header value {value[:40]!r}")
        return None
    if len(value) > len(str(MAX_CONTENT_LENGTH)) or int(value) > MAX_CONTENT_LENGTH:
        shown = value.decode("ascii") if len(value) <= 40 else f"a {len(value)}-digit number"
        sink.refuse_frame(f"a frame of {shown} bytes is over the limit of {MAX_CONTENT_LENGTH} bytes")
        return None
    return int(value)
