"""Failures stay contained: a failing handler answers with an error and the server goes on;
stdout carries nothing but protocol; every prefix of a file is served."""

from __future__ import annotations

import asyncio
import json

import pytest
from dsl_examples import EXAMPLE_1
from lsp_session import SERVER_COMMAND, RecordingClient, open_doc, wait_for_publish, with_header
from lsprotocol import types
from pygls.exceptions import JsonRpcException

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_a_failing_handler_answers_with_an_error_and_the_server_keeps_serving(
    client: RecordingClient,
) -> None:
    logged = len(client.log_messages)
    with pytest.raises(JsonRpcException):
        await client.protocol.send_request_async("pypto/outlinedProgram", {"no_uri": 1})
    doc = open_doc(client, EXAMPLE_1)
    found = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri), position=doc.position("first")
        )
    )
    assert found is not None
    # The log message was sent before the hover's answer, so it has arrived by now.
    errors = [m for m in client.log_messages[logged:] if m.type == types.MessageType.Error]
    assert any("Traceback" in m.message and "AttributeError" in m.message for m in errors)
    doc.close()


async def test_every_prefix_of_a_file_is_analysed_and_served(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_1)
    full = doc.text
    await doc.diagnostics()
    cuts = sorted({len(full) * i // 40 for i in range(40)})
    for cut in cuts:
        doc.set_text(full[:cut])
        published = await wait_for_publish(client, doc.uri, doc.version)
        assert all(d.source == "pypto" for d in published.diagnostics)
        lenses = await client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=doc.uri))
        )
        assert all(lens.command is not None for lens in lenses or [])
    doc.set_text(full)
    assert await doc.diagnostics() == []
    doc.close()


async def _read_frame(stream: asyncio.StreamReader, raw: bytearray) -> dict[str, object]:
    """One LSP frame; fails on anything on stdout that is not `Content-Length` framed JSON."""
    header = await stream.readuntil(b"\r\n\r\n")
    raw += header
    fields = dict(line.split(": ", 1) for line in header.decode("ascii").strip().split("\r\n"))
    assert set(fields) <= {"Content-Length", "Content-Type"}, header
    body = await stream.readexactly(int(fields["Content-Length"]))
    raw += body
    message = json.loads(body)
    assert message.get("jsonrpc") == "2.0"
    return message


def _frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body


async def test_stdout_carries_only_protocol_messages() -> None:
    uri = "file:///tmp/pypto-lsp-tests/stdout.py"
    text = with_header(EXAMPLE_1)
    process = await asyncio.create_subprocess_exec(
        *SERVER_COMMAND,
        "--log-level",
        "DEBUG",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    raw = bytearray()

    async def answer(request_id: int) -> dict[str, object]:
        while (message := await asyncio.wait_for(_read_frame(process.stdout, raw), 60)).get(
            "id"
        ) != request_id:
            pass
        return message

    def send(message: dict[str, object]) -> None:
        process.stdin.write(_frame({"jsonrpc": "2.0", **message}))  # type: ignore[union-attr]

    send({"id": 1, "method": "initialize", "params": {"capabilities": {}, "processId": None}})
    await answer(1)
    send({"method": "initialized", "params": {}})
    document = {"uri": uri, "languageId": "python", "version": 1, "text": text}
    send({"method": "textDocument/didOpen", "params": {"textDocument": document}})
    send({"id": 2, "method": "textDocument/codeLens", "params": {"textDocument": {"uri": uri}}})
    lenses = await answer(2)
    assert len(lenses["result"]) == 2  # type: ignore[arg-type]
    send({"id": 3, "method": "shutdown", "params": None})
    await answer(3)
    send({"method": "exit", "params": None})
    rest = await asyncio.wait_for(process.stdout.read(), 60)
    assert rest == b"" or rest.startswith(b"Content-Length")
    stderr = await process.stderr.read()
    assert await process.wait() == 0
    assert b"DEBUG" in stderr  # the log went to stderr


async def test_version_flag() -> None:
    process = await asyncio.create_subprocess_exec(
        *SERVER_COMMAND, "--version", stdout=asyncio.subprocess.PIPE
    )
    stdout, _ = await asyncio.wait_for(process.communicate(), 60)
    assert stdout.decode().startswith("pypto-lsp ")
    assert process.returncode == 0


async def test_tcp_mode_serves_on_loopback() -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = await asyncio.create_subprocess_exec(
        *SERVER_COMMAND, "--tcp", "--port", str(port), "--log-level", "INFO", stderr=asyncio.subprocess.PIPE
    )
    assert process.stderr is not None
    try:
        # pygls logs "Serving on ('127.0.0.1', port)" once the socket listens
        while b"Serving on" not in (line := await asyncio.wait_for(process.stderr.readline(), 60)):
            assert line, "the server exited before listening"
        assert b"127.0.0.1" in line
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            _frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
        )
        answer = await asyncio.wait_for(_read_frame(reader, bytearray()), 60)
        assert answer["id"] == 1
        assert answer["result"]["serverInfo"]["name"] == "pypto-lsp"  # type: ignore[index]
        writer.close()
    finally:
        process.terminate()
        await process.wait()
