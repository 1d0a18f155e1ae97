"""Builder functions, helper-only modules and scopes outside any program, through the server."""

from __future__ import annotations

import pytest
from lsp_session import Doc, RecordingClient, open_doc
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")

BUILDER = """
ROWS = 64


def build(batch=16):
    tile = ROWS * 2

    @pl.program
    class Built:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[tile, ROWS], pl.FP32], out: pl.Out[pl.Tensor[[tile, ROWS], pl.FP32]]):
            with {|scope:pl.at(level=pl.Level.CORE_GROUP, name_hint="rows")|}:
                out = pl.store(pl.exp(pl.load(x, [0, 0], [16, ROWS])), [0, 0], out)
            return out

    return Built
"""

HELPER = """
@pl.jit.inline
def helper(x: pl.Tensor[[64], pl.FP32], out: pl.Tensor[[64], pl.FP32]):
    with {|scope:pl.at(level=pl.Level.CORE_GROUP)|}:
        pl.store(pl.load(x, [0], [64]), [0], out)
    return out


def plain():
    with {|loose:pl.at(level=pl.Level.CORE_GROUP)|}:
        pass
"""


async def lenses(doc: Doc) -> list[types.CodeLens]:
    return await doc.client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=doc.uri))
    )


async def test_show_outlined_program_prints_a_builders_program(client: RecordingClient) -> None:
    doc = open_doc(client, BUILDER)
    assert await doc.diagnostics() == []
    result = await client.protocol.send_request_async("pypto/outlinedProgram", {"uri": doc.uri})
    lines = result.text.splitlines()
    assert "class Built:" in lines
    assert any(line.strip().startswith("def rows(") for line in lines)
    (lens,) = await lenses(doc)
    assert lens.range == doc.range("scope")
    assert lens.command is not None and lens.command.title.startswith("⇢ rows ")
    doc.close()


async def test_a_helper_only_module_gets_standalone_lenses_and_hovers(client: RecordingClient) -> None:
    doc = open_doc(client, HELPER)
    (hint,) = await doc.diagnostics()
    assert (hint.code, hint.severity, hint.range) == (
        "PTO605",
        types.DiagnosticSeverity.Hint,
        doc.range("loose"),
    )
    lens, callers = await lenses(doc)
    assert lens.command is not None
    assert lens.command.title == "⇢ helper_incore_0 · out: Out (+1 In) · standalone"
    assert callers.data["helper"] == "helper"  # where the workspace calls it: on resolve
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri), position=doc.range("scope").start
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "standalone analysis of the inline helper `helper`" in hover.contents.value
    doc.close()


async def test_show_outlined_program_says_why_a_file_has_nothing_to_outline(client: RecordingClient) -> None:
    doc = open_doc(client, "def plain():\n    return 1\n")
    await doc.diagnostics()
    result = await client.protocol.send_request_async("pypto/outlinedProgram", {"uri": doc.uri})
    assert result.text.startswith("# No @pl.program class, jit kernel, or inline helper holding a scope")
    doc.close()
