"""Inlay hints: parameter directions after each scope header."""

from __future__ import annotations

import pytest
from dsl_examples import SHARED_HELPER
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


FIRST_USES = """
@pl.program
class Uses:
    @pl.function
    def k(self, a: pl.Tensor[[256, 128], pl.FP32], acc: pl.InOut[pl.Tensor[[64, 128], pl.FP32]],
          out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a${a}, [i${i} * 64, 0], [64, 128])  # out is named in a comment
                s = pl.load(acc${acc}, [0, 0], [64, 128])
                pl.store(pl.add(t, s), [0, 0], acc)
                pl.store(pl.mul(t, 2.0), [i * 64, 0], out${out})
        return out
"""


async def test_each_captured_variable_gets_its_direction_at_its_first_use_in_the_scope(
    client: RecordingClient,
) -> None:
    doc = open_doc(client, FIRST_USES)
    found = await hints(doc)
    # once per name and scope, where the body first mentions it (comments do not count);
    # never on the header, where the lens is
    assert [(h.position, h.label) for h in found] == [
        (doc.position("a"), ": In"),
        (doc.position("i"), ": In"),
        (doc.position("acc"), ": InOut"),
        (doc.position("out"), ": Out"),
    ]
    doc.close()


async def test_only_hints_in_the_requested_range(client: RecordingClient) -> None:
    doc = open_doc(client, FIRST_USES)
    line = doc.position("out").line
    found = await hints(doc, range(line, line + 1))
    assert [h.label for h in found] == [": Out"]
    doc.close()


async def test_a_helper_reached_from_two_entries_hints_each_name_once(client: RecordingClient) -> None:
    doc = open_doc(client, SHARED_HELPER)
    found = await hints(doc)
    labels = {(h.position.line, h.label) for h in found}
    # `decode` folds `wide > 1` away (Out); `decode_layers` keeps the if, whose yield reads
    # inv_rms (InOut): both directions, one hint
    assert (doc.position("hidden").line, ": In") in labels and (
        doc.position("inv").line,
        ": Out/InOut",
    ) in labels
    assert len(found) == 4  # hidden_states, inv_rms, wide, extra: the union over both callers
    doc.close()
