"""Rename (issue 18): a program function (def, self calls), a jit kernel across the files that
import it, a name_hint / pl.graph name; prepareRename refuses anything else."""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest
from dsl_examples import EXAMPLE_5_GRAPH
from lsp_session import Doc, RecordingClient, open_doc, workspace_edits
from lsprotocol import types
from pygls.exceptions import JsonRpcException

pytestmark = pytest.mark.asyncio(loop_scope="module")

PROGRAM = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def {|def:ker${def}nel|}(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(a, [0], [64])
        out = pl.store(t, [0], out)
        return out

    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        out = self.{|call1:kernel|}(a, out)
        out = self.{|call2:ker${call}nel|}(a, out)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="{|hint:ta${hint}il|}"):
            t = pl.l${op}oad(a, [0], [64])
            out = pl.store(t, [0], out)
        return out
"""


def identifier(doc: Doc) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=doc.uri)


async def prepare(doc: Doc, point: str) -> types.PrepareRenameResult | None:
    return await doc.client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=identifier(doc), position=doc.position(point))
    )


async def rename(doc: Doc, point: str, new_name: str) -> types.WorkspaceEdit | None:
    return await doc.client.text_document_rename_async(
        types.RenameParams(text_document=identifier(doc), position=doc.position(point), new_name=new_name)
    )


def edited_ranges(edit: types.WorkspaceEdit | None, uri: str, new_name: str) -> list[types.Range]:
    assert edit is not None
    edits = workspace_edits(edit, uri)
    assert all(e.new_text == new_name for e in edits)
    return sorted((e.range for e in edits), key=lambda r: (r.start.line, r.start.character))


async def test_a_program_function_is_renamed_at_its_def_and_every_call(client: RecordingClient) -> None:
    doc = open_doc(client, PROGRAM)
    await doc.diagnostics()
    found = await prepare(doc, "call")
    assert isinstance(found, types.PrepareRenamePlaceholder)
    assert found.range == doc.range("call2") and found.placeholder == "kernel"
    edit = await rename(doc, "def", "scale")
    assert edited_ranges(edit, doc.uri, "scale") == [doc.range("def"), doc.range("call1"), doc.range("call2")]
    doc.close()


async def test_a_name_hint_is_renamed_inside_its_quotes(client: RecordingClient) -> None:
    doc = open_doc(client, PROGRAM)
    await doc.diagnostics()
    found = await prepare(doc, "hint")
    assert isinstance(found, types.PrepareRenamePlaceholder)
    assert found.range == doc.range("hint") and found.placeholder == "tail"
    assert edited_ranges(await rename(doc, "hint", "head"), doc.uri, "head") == [doc.range("hint")]
    doc.close()


async def test_a_graph_region_name_is_renamed_inside_its_quotes(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_5_GRAPH)
    await doc.diagnostics()
    found = await prepare(doc, "band")
    literal = doc.range("name")
    inside = types.Range(
        start=types.Position(line=literal.start.line, character=literal.start.character + 1),
        end=types.Position(line=literal.end.line, character=literal.end.character - 1),
    )
    assert isinstance(found, types.PrepareRenamePlaceholder)
    assert found.range == inside and found.placeholder == "band"
    assert edited_ranges(await rename(doc, "band", "stripe"), doc.uri, "stripe") == [inside]
    doc.close()


async def test_other_positions_and_bad_names_are_refused(client: RecordingClient) -> None:
    doc = open_doc(client, PROGRAM)
    await doc.diagnostics()
    assert await prepare(doc, "op") is None  # a DSL op
    with pytest.raises(JsonRpcException, match="not a Python identifier"):
        await rename(doc, "def", "not a name")
    with pytest.raises(JsonRpcException, match="can be renamed"):
        await rename(doc, "op", "x")
    doc.close()


async def test_a_jit_kernel_is_renamed_in_the_files_that_import_it(client: RecordingClient) -> None:
    kernels = open_doc(
        client,
        """
        @pl.jit.incore
        def {|def:sc${def}ale|}(a: pl.Tensor, acc: pl.InOut[pl.Tensor]):
            t = pl.load(a, [0], [64])
            pl.store(t, [0], acc)


        @pl.jit
        def entry(a: pl.Tensor, acc: pl.InOut[pl.Tensor]):
            {|call:scale|}(a, acc)
        """,
        stem="kernels",
    )
    await kernels.diagnostics()
    module = PurePosixPath(kernels.uri).stem
    user = open_doc(
        client,
        f"""
        from {module} import {{|import:scale|}}


        @pl.jit
        def other(a: pl.Tensor, acc: pl.InOut[pl.Tensor]):
            {{|use:scale|}}(a, acc)
        """,
        stem="user",
    )
    await user.diagnostics()
    edit = await rename(kernels, "def", "rescale")
    assert edited_ranges(edit, kernels.uri, "rescale") == [kernels.range("def"), kernels.range("call")]
    assert edited_ranges(edit, user.uri, "rescale") == [user.range("import"), user.range("use")]
    kernels.close()
    user.close()
