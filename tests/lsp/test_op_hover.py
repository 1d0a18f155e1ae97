"""Hover on DSL names (issue 18): the IR op an op call became, what each argument is, the
result's alias and the scalar hoist; enums and constructs from the same table."""

from __future__ import annotations

import pytest
from lsp_session import RecordingClient, open_doc
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")

SOURCE = """
import pypto.language.distributed as pld


@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.C${level}ORE_GROUP):
            t = pl.tile.lo${tile_load}ad(a, [0, 0], [64, 64])
            u = pl.a${add}dd(t, t)
            m = pl.m${min}in(n, 4)
            out = {|store:pl.st${store}ore|}(u, [0, 0], out)
        return out
"""


async def hover_text(client: RecordingClient, doc_source: str, point: str) -> tuple[str, types.Hover]:
    doc = open_doc(client, doc_source)
    await doc.diagnostics()
    found = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri), position=doc.position(point)
        )
    )
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    doc.close()
    return found.contents.value, found


async def test_a_store_is_a_write_of_its_destination(client: RecordingClient) -> None:
    text, found = await hover_text(client, SOURCE, "store")
    assert "becomes IR op `tile.store`" in text
    assert "- `tile`: read" in text
    assert "- `output_tensor`: written (read-written with atomic=pl.AtomicType.Add)" in text
    assert "the result names `output_tensor`" in text
    assert "blocks the scalar hoist" in text
    doc = open_doc(client, SOURCE)
    assert found.range == doc.range("store")
    doc.close()


async def test_a_unified_op_names_the_form_the_call_became(client: RecordingClient) -> None:
    text, _ = await hover_text(client, SOURCE, "add")
    assert "becomes IR op `tile.add`" in text  # its operand is a tile
    assert "tensor.add" not in text.split("```")[-1]
    assert "the result is a fresh value" in text


async def test_a_namespaced_op(client: RecordingClient) -> None:
    text, _ = await hover_text(client, SOURCE, "tile_load")
    assert "becomes IR op `tile.load`" in text and "- `tensor`: read" in text


async def test_a_scalar_min_does_not_block_the_hoist(client: RecordingClient) -> None:
    text, _ = await hover_text(client, SOURCE, "min")
    assert "does not block the scalar hoist" in text


async def test_an_enum_member(client: RecordingClient) -> None:
    text, _ = await hover_text(client, SOURCE, "level")
    assert "InCore scope" in text and "enum member" not in text


async def test_a_distributed_op_and_its_conditional_write(client: RecordingClient) -> None:
    source = SOURCE.replace(
        "out = {|store:pl.st${store}ore|}(u, [0, 0], out)",
        "pld.system.no${notify}tify(out, 0, [0], 1, op=pld.NotifyOp.Set)",
    )
    text, _ = await hover_text(client, source, "notify")
    assert "becomes IR op `pld.system.notify`" in text
    assert "- `target`: read-written (written with op=pld.NotifyOp.Set)" in text
