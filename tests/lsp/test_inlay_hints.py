"""Inlay hints: parameter directions after each scope header."""

from __future__ import annotations

import pytest
from dsl_examples import EXAMPLE_1, EXAMPLE_4
from lsp_session import Doc, RecordingClient, open_doc
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def hints(doc: Doc, lines: range | None = None) -> list[types.InlayHint]:
    lines = lines or range(len(doc.lines))
    visible = types.Range(
        start=types.Position(line=lines.start, character=0), end=types.Position(line=lines.stop, character=0)
    )
    found = await doc.client.text_document_inlay_hint_async(
        types.InlayHintParams(text_document=types.TextDocumentIdentifier(uri=doc.uri), range=visible)
    )
    return list(found or [])


async def test_directions_follow_each_scope_header(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_1)
    found = await hints(doc)
    assert [(h.position, h.label) for h in found] == [
        (doc.position("first_end"), "x: In, off: In, out: Out"),
        (doc.position("tail_end"), "x: In, off: In, out: Out"),
    ]
    assert all(h.padding_left for h in found)
    doc.close()


async def test_only_hints_in_the_requested_range(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_1)
    tail_line = doc.position("tail_end").line
    found = await hints(doc, range(tail_line, tail_line + 1))
    assert [h.position for h in found] == [doc.position("tail_end")]
    doc.close()


async def test_an_spmd_header_with_equal_parameter_lists_gets_one_hint(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_4)
    assert [h.label for h in await hints(doc)] == ["a: In, out: Out", "a: In, out: Out"]
    doc.close()
