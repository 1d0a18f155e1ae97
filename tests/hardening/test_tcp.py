"""`pypto-lsp --tcp` serves one client (issue 15, "TCP"): a second connection to the port took
over the server's output (client A's answers went to B), could read A's unsaved buffers
without initializing, and its disconnecting shut the server down under A. Now the first
client is served until it goes; every other connection is refused, with a log line."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from lsp_session import SERVER_COMMAND
from server_driver import RawServer
from test_adversarial import program

SECRET = "unsaved_buffer_only_client_a_has"
WAIT = 30.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
async def tcp_server(tmp_path: Path) -> AsyncIterator[tuple[asyncio.subprocess.Process, int, Path]]:
    """A `--tcp` server on a free port, once it says it is listening (its log names the port)."""
    port, log = _free_port(), tmp_path / "server.log"
    process = await asyncio.create_subprocess_exec(
        *SERVER_COMMAND, "--tcp", "--port", str(port), "--log-level", "INFO", stderr=asyncio.subprocess.PIPE
    )
    assert process.stderr is not None
    while b"Serving on" not in await asyncio.wait_for(process.stderr.readline(), 60):
        pass
    reading = asyncio.ensure_future(_copy(process.stderr, log))
    try:
        yield process, port, log
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()
        await reading


async def _copy(stream: asyncio.StreamReader, path: Path) -> None:
    with path.open("wb") as out:
        while chunk := await stream.read(65536):
            out.write(chunk)
            out.flush()


async def _connect(process: asyncio.subprocess.Process, port: int) -> RawServer:
    return RawServer(process, await asyncio.open_connection("127.0.0.1", port))


def _uri(tmp_path: Path) -> str:
    return (tmp_path / "model.py").as_uri()


def _lens_request(request_id: int, uri: str) -> dict[str, object]:
    return {"id": request_id, "method": "textDocument/codeLens", "params": {"textDocument": {"uri": uri}}}


async def _everything_sent_to(client: RawServer) -> bytes:
    """What `client` receives until the server closes its connection."""
    return await asyncio.wait_for(client.stdout.read(), WAIT)


async def test_a_second_connection_is_refused_and_the_first_client_keeps_being_served(
    tcp_server: tuple[asyncio.subprocess.Process, int, Path], tmp_path: Path
) -> None:
    process, port, log = tcp_server
    uri = _uri(tmp_path)
    first = await _connect(process, port)
    await first.initialize()
    text = program(["with pl.at(level=pl.Level.CORE_GROUP):", "    x = pl.add(x, x)", "return x"])
    first.open(uri, text.replace("class P:", f"class P:  # {SECRET}"))
    first.send(_lens_request(1, uri))
    assert len((await first.answer(1))["result"]) == 1

    second = await _connect(process, port)  # B asks for A's buffer without initializing
    second.send({"id": 7, "method": "pypto/outlinedProgram", "params": {"uri": uri}})
    second.send(_lens_request(8, uri))
    refused = await _everything_sent_to(second)  # the server closes B's connection
    assert SECRET.encode() not in refused and b"main_incore_0" not in refused
    assert b"one client" in refused  # B is told why, in an error with a null id
    second.stdin.close()

    first.send(_lens_request(2, uri))  # A's answers still go to A
    first.send({"id": 3, "method": "pypto/outlinedProgram", "params": {"uri": uri}})
    assert len((await first.answer(2))["result"]) == 1
    assert "main_incore_0" in (await first.answer(3))["result"]["text"]
    assert process.returncode is None  # B's going did not shut the server down

    first.send({"id": 4, "method": "shutdown", "params": None})
    await first.answer(4)
    first.send({"method": "exit", "params": None})
    assert await first.exit_code(within=WAIT) == 0
    assert "refused a connection" in log.read_text()


async def test_the_server_ends_when_its_client_disconnects(
    tcp_server: tuple[asyncio.subprocess.Process, int, Path], tmp_path: Path
) -> None:
    process, port, _ = tcp_server
    first = await _connect(process, port)
    await first.initialize()
    first.stdin.close()  # gone without shutdown: as on stdio at end of input, status 1
    assert await first.exit_code(within=WAIT) == 1
