"""Text sync and published diagnostics, end to end against the real server."""

from __future__ import annotations

import pytest
from lsp_session import RecordingClient, open_doc, wait_for_publish
from lsprotocol import types

from pypto_lsp.settings import DEFAULT_DOCS_URL

pytestmark = pytest.mark.asyncio(loop_scope="module")

READ_BACK = """
@pl.program
class ReadBack:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, cfg: pl.Tensor[[1], pl.INT32],
             acc: pl.InOut[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            {|def:n = pl.read(cfg, [0])|}
        m = pl.read(cfg, [n + 1])
        return acc
"""


async def test_a_diagnostic_carries_code_source_version_range_and_hint(client: RecordingClient) -> None:
    doc = open_doc(client, READ_BACK)
    (diagnostic,) = await doc.diagnostics()
    assert diagnostic.code == "PTO301"
    assert diagnostic.source == "pypto"
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.range == doc.range("def")
    assert "scalar 'n'" in diagnostic.message
    assert "\nhint: " in diagnostic.message and "pl.tensor.read" in diagnostic.message
    assert diagnostic.data == {"scalar": "n", "function": "main_incore_0"}
    assert (await wait_for_publish(client, doc.uri, 1)).version == 1
    doc.close()


async def test_related_information_points_at_the_outer_region(client: RecordingClient) -> None:
    doc = open_doc(
        client,
        """
        @pl.program
        class Nested:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, w: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                with {|outer:pl.graph("outer")|}:
                    with {|inner:pl.graph("inner")|}:
                        with pl.at(level=pl.Level.CORE_GROUP):
                            z = pl.add(w, w)
                return w
        """,
    )
    nested = [d for d in await doc.diagnostics() if d.code == "PTO146"]
    assert len(nested) == 1
    assert nested[0].message.startswith('`pl.graph("inner")` cannot be nested inside `pl.graph("outer")`')
    assert nested[0].range == doc.range("inner")
    (related,) = nested[0].related_information or []
    assert related.location.uri == doc.uri
    assert related.location.range == doc.range("outer")
    doc.close()


async def test_ranges_are_utf16_after_emoji_and_cjk_on_the_same_line(client: RecordingClient) -> None:
    doc = open_doc(
        client,
        """
        @pl.program
        class Wide:
            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP, name_hint={|hint:"中😀"|}, {|role:role=pl.Role.Orchestrator|}):
                    y = pl.add(x, x)
                return y


        @pl.program
        class Broken:
            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                s = "😀😀中" + {|paren:)|}
                return x
        """,
    )
    by_code = {d.code: d for d in await doc.diagnostics()}
    assert set(by_code) == {"PTO117", "PTO121", "PTO001"}
    # One astral emoji inside the hint: every later column on that line moves by one UTF-16 unit.
    assert by_code["PTO117"].range == doc.range("hint")
    assert by_code["PTO121"].range == doc.range("role")
    assert by_code["PTO121"].range.start.character == doc.marked.named["role"].start_col + 1
    # Two emoji before the syntax error: two extra units.
    assert by_code["PTO001"].range == doc.range("paren")
    assert by_code["PTO001"].range.start.character == doc.marked.named["paren"].start_col + 2
    doc.close()


async def test_incremental_edits_are_applied_and_republished(client: RecordingClient) -> None:
    doc = open_doc(client, READ_BACK)
    assert [d.code for d in await doc.diagnostics()] == ["PTO301"]
    # Replace `n + 1` (the use after the scope) by `1`: nothing is read after the scope.
    line = doc.lines.index("        m = pl.read(cfg, [n + 1])")
    doc.edit(
        types.Range(
            start=types.Position(line=line, character=26), end=types.Position(line=line, character=31)
        ),
        "1",
    )
    assert await doc.diagnostics() == []
    doc.edit(
        types.Range(
            start=types.Position(line=line, character=26), end=types.Position(line=line, character=27)
        ),
        "n * 2",
    )
    assert [d.code for d in await doc.diagnostics()] == ["PTO301"]
    assert "m = pl.read(cfg, [n * 2])" in doc.text
    doc.close()


async def test_did_close_clears_the_documents_diagnostics(client: RecordingClient) -> None:
    doc = open_doc(client, READ_BACK)
    assert len(await doc.diagnostics()) == 1
    mark = len(client.published)
    doc.close()
    cleared = await wait_for_publish(client, doc.uri, since=mark)
    assert list(cleared.diagnostics) == []


async def test_a_file_without_the_dsl_import_has_no_diagnostics(client: RecordingClient) -> None:
    doc = open_doc(client, "def f(:\n    pass\n", header=False)
    assert await doc.diagnostics() == []
    doc.close()


async def test_a_burst_of_edits_never_publishes_an_outdated_version(client: RecordingClient) -> None:
    doc = open_doc(client, READ_BACK)
    await doc.diagnostics()
    mark = len(client.published)
    for value in range(2, 12):
        doc.set_text(
            doc.text.replace("m = n + ", "m = n - ", 1)
            if value % 2
            else doc.text.replace("m = n - ", "m = n + ", 1)
        )
    final = await wait_for_publish(client, doc.uri, doc.version, since=mark)
    versions = [p.version for p in client.published[mark:] if p.uri == doc.uri]
    assert versions == sorted(set(versions)) and versions[-1] == doc.version == 11
    assert [d.code for d in final.diagnostics] == ["PTO301"]
    doc.close()


async def test_every_code_links_to_its_entry_in_the_diagnostics_docs(client: RecordingClient) -> None:
    doc = open_doc(client, READ_BACK)
    (found,) = await doc.diagnostics()
    assert found.code_description is not None
    assert found.code_description.href == DEFAULT_DOCS_URL + "#pto301"
    doc.close()
