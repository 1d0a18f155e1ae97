"""The real server, driven from synchronous (hypothesis) tests.

Hypothesis cannot drive `async def` tests, so the client lives on an event loop in a thread of
its own and each test step is a coroutine submitted to it. Positions are computed with the
LSP's line model (`\\n`, `\\r\\n`, `\\r` only) and UTF-16 columns, independently of the server.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from lsp_session import SERVER_COMMAND, RecordingClient, server_config, vscode_params
from lsprotocol import types

T = TypeVar("T")
STEP_TIMEOUT = 120.0
_LSP_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class ServerThread:
    """One server process and its client, on a private event loop."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        self.client: RecordingClient = self.run(server_config().start())  # type: ignore[assignment]
        self.run(self.client.initialize_session(vscode_params()))

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(STEP_TIMEOUT)

    def close(self) -> None:
        self.run(self.client.shutdown_session())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()


def lsp_position(text: str, offset: int) -> types.Position:
    """The LSP position of code-point `offset` in `text`."""
    line, line_start = 0, 0
    for brk in _LSP_LINE_BREAK.finditer(text, 0, offset):
        if brk.end() > offset:
            break
        line, line_start = line + 1, brk.end()
    prefix = text[line_start:offset]
    return types.Position(line=line, character=len(prefix.encode("utf-16-le")) // 2)


def safe_offset(text: str, offset: int) -> int:
    """`offset`, moved off the middle of a CRLF pair (not a position the LSP can name)."""
    if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
        return offset - 1
    return offset


@dataclass
class Counters:
    edits: int = 0
    requests: int = 0


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
    return f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body


class RawServer:
    """A server process spoken to frame by frame, for what a well-behaved client never does."""

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        connection: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None,
    ) -> None:
        """Spoken to over the process's stdin/stdout, or over `connection` (`--tcp`)."""
        self.process = process
        if connection is None:
            assert process.stdin is not None and process.stdout is not None
            self.stdout, self.stdin = process.stdout, process.stdin
        else:
            self.stdout, self.stdin = connection

    @classmethod
    async def start(cls, *args: str, cwd: str | None = None, log: bool = False) -> RawServer:
        """The server, its log on `process.stderr` when `log` (read it: a full pipe blocks it)."""
        process = await asyncio.create_subprocess_exec(
            *SERVER_COMMAND,
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE if log else asyncio.subprocess.DEVNULL,
            cwd=cwd,
        )
        return cls(process)

    def send(self, message: dict[str, Any]) -> None:
        self.stdin.write(frame(message))

    async def message(self) -> dict[str, Any]:
        header = await asyncio.wait_for(self.stdout.readuntil(b"\r\n\r\n"), STEP_TIMEOUT)
        length = int(header.decode("ascii").split("Content-Length: ")[1].split("\r\n")[0])
        return json.loads(await self.stdout.readexactly(length))  # type: ignore[no-any-return]

    async def answer(self, request_id: int) -> dict[str, Any]:
        while (message := await self.message()).get("id") != request_id or "method" in message:
            pass
        return message

    async def initialize(self, root_uri: str | None = None, analysis: dict[str, Any] | None = None) -> None:
        options = {"analysis": {"debounceMs": 0, **(analysis or {})}}
        params: dict[str, Any] = {"capabilities": {}, "processId": None, "initializationOptions": options}
        if root_uri is not None:
            params["rootUri"] = root_uri
            params["workspaceFolders"] = [{"uri": root_uri, "name": "ws"}]
        self.send({"id": 0, "method": "initialize", "params": params})
        await self.answer(0)
        self.send({"method": "initialized", "params": {}})

    def open(self, uri: str, text: str) -> None:
        document = {"uri": uri, "languageId": "python", "version": 1, "text": text}
        self.send({"method": "textDocument/didOpen", "params": {"textDocument": document}})

    async def published(self, uri: str) -> list[dict[str, Any]]:
        """The diagnostics of the next publish for `uri` (other messages are passed over)."""
        while True:
            message = await self.message()
            params = message.get("params") or {}
            if message.get("method") == "textDocument/publishDiagnostics" and params.get("uri") == uri:
                return list(params["diagnostics"])

    async def exit_code(self, within: float) -> int:
        """The exit status, waiting at most `within` seconds (bounded wait, not a sleep)."""
        return await asyncio.wait_for(self.process.wait(), within)
