"""Document highlights and semantic tokens of captured variables (issue 18): reads as Read,
writes (assignments, slots an op writes) as Write; tokens carry the scope's direction."""

from __future__ import annotations

import pytest
from lsp_session import Doc, RecordingClient, open_doc
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")

SOURCE = """
@pl.program
class P:
    @pl.function
    def k(self, a: pl.Tensor[[256, 128], pl.FP32], acc: pl.InOut[pl.Tensor[[64, 128], pl.FP32]],
          out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load({|a1:a|}, [i * 64, 0], [64, 128])
                s = pl.load({|acc1:a${acc}cc|}, [0, 0], [64, 128])
                pl.store(pl.add(t, s), [0, 0], {|acc2:acc|})
                pl.store(pl.mul(t, 2.0), [i * 64, 0], {|out1:o${out}ut|})
        return out
"""


async def highlights(doc: Doc, point: str) -> list[types.DocumentHighlight] | None:
    return await doc.client.text_document_document_highlight_async(
        types.DocumentHighlightParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri), position=doc.position(point)
        )
    )


async def test_reads_are_read_and_the_store_destination_is_write(client: RecordingClient) -> None:
    doc = open_doc(client, SOURCE)
    await doc.diagnostics()
    found = await highlights(doc, "acc")
    assert found is not None
    assert [(h.range, h.kind) for h in found] == [
        (doc.range("acc1"), types.DocumentHighlightKind.Read),
        (doc.range("acc2"), types.DocumentHighlightKind.Write),
    ]
    found = await highlights(doc, "out")
    assert found is not None
    assert [(h.range, h.kind) for h in found] == [(doc.range("out1"), types.DocumentHighlightKind.Write)]
    doc.close()


async def test_an_assignment_inside_the_scope_is_a_write(client: RecordingClient) -> None:
    source = SOURCE.replace(
        "pl.store(pl.mul(t, 2.0), [i * 64, 0], {|out1:o${out}ut|})",
        "{|out1:o${out}ut|} = pl.store(pl.mul(t, 2.0), [i * 64, 0], {|out2:out|})",
    )
    doc = open_doc(client, source)
    await doc.diagnostics()
    found = await highlights(doc, "out")
    assert found is not None
    assert [(h.range, h.kind) for h in found] == [
        (doc.range("out1"), types.DocumentHighlightKind.Write),
        (doc.range("out2"), types.DocumentHighlightKind.Write),
    ]
    doc.close()


async def test_nothing_for_a_name_the_scope_does_not_capture(client: RecordingClient) -> None:
    doc = open_doc(client, SOURCE.replace("t = pl.load(", "t${t} = pl.load("))
    await doc.diagnostics()
    assert await highlights(doc, "t") is None  # `t` is the scope's own
    doc.close()


async def test_semantic_tokens_are_off_by_default(client: RecordingClient) -> None:
    doc = open_doc(client, SOURCE)
    await doc.diagnostics()
    found = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=types.TextDocumentIdentifier(uri=doc.uri))
    )
    assert found is None
    doc.close()
