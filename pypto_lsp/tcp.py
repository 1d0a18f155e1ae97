"""`--tcp`: one client per server (issue 15).

pygls's `start_tcp` handed every connection to the same protocol object: a second connection
became the writer (client A's answers went to B), its requests were served from A's open
documents without any `initialize`, and its end of input shut the server down under A. Here
the first connection is the client, served by `framing.serve_frames` exactly as stdio is
(its input read through a `framing.BufferedStreamReader`, which gives the scheduler the same
input-pending signal as stdin's reader), and the server ends when it goes (as at the end of
stdin). Any other connection is refused
while it lasts: told why in one error response with a null id, closed, and logged; nothing it
sends is served.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Callable

from .framing import BufferedReader, BufferedStreamReader, CountingStreamReader, serve_frames
from .protocol import INVALID_REQUEST, PyptoProtocol

log = logging.getLogger(__name__)

REFUSAL = "this pypto-lsp server already has a client (one client per server): start another server"


async def serve_first_client(
    host: str,
    port: int,
    stop: threading.Event,
    protocol: PyptoProtocol,
    reading: Callable[[BufferedReader], None] = lambda reader: None,
) -> None:
    """Listen on host:port, serve the first client that connects until it disconnects (or
    `stop`), refusing every other connection meanwhile; `reading` is handed the client's
    reader when it connects."""
    client: list[str] = []  # the served client's address, once connected
    loop = asyncio.get_running_loop()
    finished: asyncio.Future[None] = loop.create_future()

    async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = str(writer.get_extra_info("peername"))
        if client:
            log.warning("refused a connection from %s: serving the client at %s already", peer, client[0])
            await _refuse(reader, writer)
            return
        client.append(peer)
        log.info("serving the client at %s", peer)
        protocol.set_writer(writer)
        assert isinstance(reader, CountingStreamReader)
        socket = writer.get_extra_info("socket")
        buffered = BufferedStreamReader(reader, socket.fileno() if socket is not None else None)
        reading(buffered)
        try:
            await serve_frames(stop, buffered, protocol)
        finally:
            log.info("the client at %s is gone", peer)
            if not finished.done():
                finished.set_result(None)

    def stream() -> asyncio.StreamReaderProtocol:  # (what `asyncio.start_server` makes, counting)
        return asyncio.StreamReaderProtocol(CountingStreamReader(loop=loop), connected, loop=loop)

    server = await loop.create_server(stream, host, port)
    log.info("Serving on %s", ", ".join(str(sock.getsockname()) for sock in server.sockets))
    async with server:
        await finished


async def _refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Tell the connection why, then close our side and discard what it sends until it closes
    its own: closing with its requests unread would reset the connection, and the reset could
    destroy the error before the other side reads it."""
    writer.write(_error_frame(REFUSAL))
    try:
        writer.write_eof()
        while await reader.read(65536):
            pass
    except ConnectionError:
        pass
    finally:
        writer.close()


def _error_frame(message: str) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": message}})
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body.encode("ascii"))
