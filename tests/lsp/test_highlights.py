"""Document highlights and semantic tokens of captured variables (issue 18): reads as Read,
writes (assignments, slots an op writes) as Write; tokens carry the scope's direction."""

from __future__ import annotations

import pytest
from dsl_examples import CAPTURES
from lsp_session import Doc, RecordingClient, open_doc
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def highlights(doc: Doc, point: str) -> list[types.DocumentHighlight] | None:
    return await doc.client.text_document_document_highlight_async(
        types.DocumentHighlightParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri), position=doc.position(point)
        )
    )


async def test_reads_are_read_and_the_store_destination_is_write(client: RecordingClient) -> None:
    doc = open_doc(client, CAPTURES)
    await doc.diagnostics()
    found = await highlights(doc, "acc")
    assert found is not None
    assert [(h.range, h.kind) for h in found] == [
        (doc.range("acc1"), types.DocumentHighlightKind.Read),
        (doc.range("acc2"), types.DocumentHighlightKind.Write),
    ]
    found = await highlights(doc, "out")
    assert found is not None
    assert [(h.range, h.kind) for h in found] == [(doc.range("out"), types.DocumentHighlightKind.Write)]
    doc.close()


async def test_an_assignment_inside_the_scope_is_a_write(client: RecordingClient) -> None:
    source = CAPTURES.replace(
        "pl.store(pl.mul(t, 2.0), [{|i2:i|} * 64, 0], {|out:o${out}ut|})",
        "{|out:o${out}ut|} = pl.store(pl.mul(t, 2.0), [i * 64, 0], {|out2:out|})",
    )
    doc = open_doc(client, source)
    await doc.diagnostics()
    found = await highlights(doc, "out")
    assert found is not None
    assert [(h.range, h.kind) for h in found] == [
        (doc.range("out"), types.DocumentHighlightKind.Write),
        (doc.range("out2"), types.DocumentHighlightKind.Write),
    ]
    doc.close()


async def test_nothing_for_a_name_the_scope_does_not_capture(client: RecordingClient) -> None:
    doc = open_doc(client, CAPTURES)
    await doc.diagnostics()
    assert await highlights(doc, "t") is None  # `t` is the scope's own
    doc.close()


async def test_semantic_tokens_are_off_by_default(client: RecordingClient) -> None:
    doc = open_doc(client, CAPTURES)
    await doc.diagnostics()
    found = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=types.TextDocumentIdentifier(uri=doc.uri))
    )
    assert found is None
    doc.close()
