"""Frames and messages no well-behaved client sends (issue 15, "Protocol"; issue 20): the
server answers every request it can identify, logs the rest, and keeps serving."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from server_driver import RawServer, frame
from test_adversarial import program

pytestmark = pytest.mark.asyncio(loop_scope="module")

URI = "file:///tmp/pypto-lsp-tests/framing.py"
SCOPE = ["with pl.at(level=pl.Level.CORE_GROUP):", "    x = pl.add(x, x)"]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002


def _symbols(request_id: int, uri: str = URI) -> dict[str, Any]:
    return {
        "id": request_id,
        "method": "textDocument/documentSymbol",
        "params": {"textDocument": {"uri": uri}},
    }


async def _all_answered(server: RawServer, ids: range) -> None:
    for request_id in ids:
        server.send(_symbols(request_id))
    for request_id in ids:
        assert "result" in await server.answer(request_id)


async def _error_for(server: RawServer, request_id: int | None) -> int:
    """The error code of the next response with `request_id` (None: a response whose id is null)."""
    while True:
        message = await server.message()
        if "method" not in message and message.get("id") == request_id and "error" in message:
            return int(message["error"]["code"])


async def _finish(server: RawServer) -> None:
    """End of input: the server exits (and is reaped before the next test starts one)."""
    server.stdin.close()
    assert await server.exit_code(within=30) is not None


async def _started() -> RawServer:
    server = await RawServer.start()
    await server.initialize()
    return server


async def test_a_frame_one_byte_short_is_answered_with_a_parse_error_and_serving_goes_on() -> None:
    """A client counting characters instead of bytes, with one `é` in the text."""
    server = await _started()
    body = json.dumps({"jsonrpc": "2.0", "id": 1, **_symbols(1), "x": "é"}, ensure_ascii=False)
    server.stdin.write(f"Content-Length: {len(body)}\r\n\r\n{body}".encode())
    assert await _error_for(server, None) == PARSE_ERROR
    await _all_answered(server, range(10, 20))
    await _finish(server)


async def test_a_lower_case_header_name_is_read() -> None:
    server = await _started()
    body = json.dumps({"jsonrpc": "2.0", **_symbols(1)}).encode()
    server.stdin.write(b"content-length: %d\r\n\r\n" % len(body) + body)
    assert "result" in await server.answer(1)
    await _all_answered(server, range(10, 20))
    await _finish(server)


@pytest.mark.parametrize("length", ["100000000000000000000", "100000000000"])
async def test_a_huge_content_length_is_refused_and_serving_goes_on(length: str) -> None:
    server = await _started()
    server.stdin.write(f"Content-Length: {length}\r\n\r\n".encode() + b'{"jsonrpc": "2.0"}')
    assert await _error_for(server, None) == INVALID_REQUEST
    await _all_answered(server, range(10, 20))
    await _finish(server)


async def test_garbage_between_frames_is_skipped() -> None:
    server = await _started()
    server.stdin.write(b"hello\r\nContent-Type: nothing\r\n\r\n}}}")
    await _all_answered(server, range(10, 13))
    await _finish(server)


async def test_malformed_params_are_answered_with_invalid_params() -> None:
    server = await _started()
    server.send({"id": 5, "method": "textDocument/hover", "params": {"textDocument": 3, "position": "x"}})
    assert await _error_for(server, 5) == INVALID_PARAMS
    await _all_answered(server, range(10, 13))
    await _finish(server)


@pytest.mark.parametrize("member", [{"jsonrpc": "1.0"}, {"jsonrpc": None}, {"jsonrpc": 2}])
async def test_a_wrong_jsonrpc_member_is_answered_with_invalid_request(member: dict[str, Any]) -> None:
    server = await _started()
    server.send({**_symbols(6), **member})
    assert await _error_for(server, 6) == INVALID_REQUEST
    await _all_answered(server, range(10, 13))
    await _finish(server)


async def test_a_message_without_the_jsonrpc_member_is_answered() -> None:
    server = await _started()
    body = json.dumps(_symbols(6)).encode()
    server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    assert await _error_for(server, 6) == INVALID_REQUEST
    server.stdin.write(frame({"id": 7, "method": "nosuch/method", "params": None}) + b"")
    await _all_answered(server, range(10, 13))
    await _finish(server)


async def test_a_batch_is_answered_with_invalid_request() -> None:
    server = await _started()
    body = json.dumps([{"jsonrpc": "2.0", **_symbols(1)}]).encode()
    server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    assert await _error_for(server, None) == INVALID_REQUEST
    await _all_answered(server, range(10, 13))
    await _finish(server)


async def test_requests_after_shutdown_and_a_second_shutdown_are_invalid_requests() -> None:
    server = await _started()
    server.send({"id": 1, "method": "shutdown", "params": None})
    assert "result" in await server.answer(1)
    server.send(_symbols(2))
    assert await _error_for(server, 2) == INVALID_REQUEST
    server.send({"id": 3, "method": "shutdown", "params": None})
    assert await _error_for(server, 3) == INVALID_REQUEST
    server.send({"method": "exit", "params": None})
    assert await server.exit_code(within=10) == 0


async def test_a_second_initialize_is_an_error_and_changes_nothing() -> None:
    server = await _started()
    server.open(URI, program([*SCOPE, "return x"]))
    server.send({"id": 1, "method": "initialize", "params": {"capabilities": {}, "processId": None}})
    assert await _error_for(server, 1) == INVALID_REQUEST
    renamed = program([*SCOPE, "return x"]).replace("class P:", "class Renamed:")
    change = {"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": renamed}]}
    server.send({"method": "textDocument/didChange", "params": change})
    server.send(_symbols(2))
    symbols = (await server.answer(2))["result"]
    assert [symbol["name"] for symbol in symbols] == ["Renamed"]
    await _finish(server)


async def test_requests_before_initialize_are_refused() -> None:
    server = await RawServer.start()
    server.send(_symbols(1))
    assert await _error_for(server, 1) == SERVER_NOT_INITIALIZED
    await server.initialize()
    await _all_answered(server, range(10, 13))
    await _finish(server)


async def test_requests_are_answered_when_the_client_never_sends_initialized() -> None:
    server = await RawServer.start()
    server.send({"id": 0, "method": "initialize", "params": {"capabilities": {}, "processId": None}})
    await server.answer(0)
    server.open(URI, program([*SCOPE, "return x"]))
    server.send(_symbols(1))
    assert [symbol["name"] for symbol in (await server.answer(1))["result"]] == ["P"]
    await _finish(server)


async def test_exit_without_shutdown_exits_with_status_1() -> None:
    server = await _started()
    server.send({"method": "exit", "params": None})
    assert await server.exit_code(within=10) == 1


async def test_stdin_closed_during_a_long_analysis_ends_the_process_before_the_analysis() -> None:
    """The process lingered until the analysis ended (9.1 s into a 10,000-scope file). Ordered
    by the server's own log, not by a time bound (a 1 s bound failed at load 10-15): the
    analysis has started when stdin is closed, and the process is gone without finishing it."""
    server = await RawServer.start("--log-level", "DEBUG", log=True)
    assert server.process.stderr is not None
    await server.initialize()
    server.open(URI, program([*SCOPE * 10_000, "return x"]))
    started = f"analysing {URI} v1".encode()
    while started not in await asyncio.wait_for(server.process.stderr.readline(), 120):
        pass
    server.stdin.close()
    rest = await asyncio.wait_for(server.process.stderr.read(), 120)  # to the end: the process is gone
    assert await server.exit_code(within=30) is not None
    assert f"analysed {URI}".encode() not in rest
