"""Completion of the DSL surface (issue 18): `pl.` members under the file's aliases, enum
members, construct and decorator keywords with their values, `self.` functions, snippets;
nothing outside DSL files."""

from __future__ import annotations

import pytest
from dsl_examples import KERNEL_AND_CALLER
from lsp_session import Doc, RecordingClient, open_doc
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def complete(doc: Doc, position: types.Position) -> list[types.CompletionItem]:
    found = await doc.client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=doc.uri), position=position)
    )
    if found is None:
        return []
    return list(found.items if isinstance(found, types.CompletionList) else found)


async def typed(client: RecordingClient, source: str, text: str) -> tuple[Doc, list[types.CompletionItem]]:
    """Open `source`, wait for its analysis, then type `text` at `${end}` (a new line in
    `main`'s body unless the text says otherwise) and complete at its end."""
    doc = open_doc(client, source)
    await doc.diagnostics()
    start = doc.position("end")
    doc.edit(types.Range(start=start, end=start), text)
    lines = text.split("\n")
    line = start.line + len(lines) - 1
    character = (start.character if len(lines) == 1 else 0) + len(lines[-1])
    return doc, await complete(doc, types.Position(line=line, character=character))


def by_label(items: list[types.CompletionItem]) -> dict[str, types.CompletionItem]:
    return {item.label: item for item in items if item.kind != types.CompletionItemKind.Snippet}


async def test_pl_dot_offers_ops_constructs_types_and_enums(client: RecordingClient) -> None:
    doc, items = await typed(client, KERNEL_AND_CALLER, "        x = pl.")
    found = by_label(items)
    assert {
        "store",
        "load",
        "add",
        "at",
        "spmd",
        "cluster",
        "graph",
        "Tensor",
        "Level",
        "FP32",
        "tile",
    } <= set(found)
    store = found["store"]
    assert store.kind == types.CompletionItemKind.Function
    assert store.detail == (
        "pl.store(tile: Tile, offsets: Sequence[IntLike], output_tensor ⟵ written, "
        "shapes: Sequence[IntLike] | None = None, atomic: AtomicType = AtomicType.None_)"
    )
    # the client resolves documentation (VS Code does): the list carries none, resolve adds it
    assert store.documentation is None
    resolved = await client.completion_item_resolve_async(store)
    assert isinstance(resolved.documentation, types.MarkupContent)
    text = resolved.documentation.value
    assert "becomes IR op `tile.store`" in text
    assert "`output_tensor`: written (read-written with atomic=pl.AtomicType.Add)" in text
    assert found["Level"].kind == types.CompletionItemKind.Enum
    assert found["tile"].kind == types.CompletionItemKind.Module
    doc.close()


async def test_a_namespace_offers_its_ops(client: RecordingClient) -> None:
    doc, items = await typed(client, KERNEL_AND_CALLER, "        x = pl.tile.")
    found = by_label(items)
    assert {"load", "store", "matmul_acc", "add"} <= set(found)
    assert "at" not in found and "Level" not in found
    assert found["matmul_acc"].detail is not None and "acc: Tile ⟷ read-written" in found["matmul_acc"].detail
    doc.close()


async def test_an_enum_offers_its_members_with_the_aliases_last(client: RecordingClient) -> None:
    doc, items = await typed(client, KERNEL_AND_CALLER, "        x = pl.Level.")
    labels = [item.label for item in items]
    assert labels[:3] == ["AIV", "AIC", "CORE_GROUP"]
    assert {"POD", "NODE"} <= set(labels) and labels.index("POD") > labels.index("GLOBAL")
    pod = await client.completion_item_resolve_async(by_label(items)["POD"])
    assert (
        isinstance(pod.documentation, types.MarkupContent)
        and "alias of `CLUSTER_0`" in pod.documentation.value
    )
    doc.close()


async def test_the_file_s_own_alias_is_followed(client: RecordingClient) -> None:
    source = (
        "import pypto.language as dsl\nimport pypto.language.distributed as dist\n"
        + KERNEL_AND_CALLER.replace("pl.", "dsl.")
    )
    doc = open_doc(client, source, header=False)
    await doc.diagnostics()
    start = doc.position("end")
    doc.edit(types.Range(start=start, end=start), "        x = dist.system.")
    items = await complete(doc, types.Position(line=start.line, character=start.character + 24))
    assert {"notify", "wait", "world_size"} <= set(by_label(items))
    doc.edit(
        types.Range(start=start, end=types.Position(line=start.line, character=start.character + 24)),
        "        dsl.CachePolicy.",
    )
    items = await complete(doc, types.Position(line=start.line, character=start.character + 24))
    assert [item.label for item in items] == ["DEFAULT", "BYPASS"]
    doc.close()


async def test_keywords_of_pl_at_with_the_values_they_take(client: RecordingClient) -> None:
    doc, items = await typed(client, KERNEL_AND_CALLER, "        with pl.at(level=pl.Level.HOST, ")
    labels = {item.label for item in items}
    assert {"role=", "name_hint=", "deps=", "optimizations=", "windowize="} <= labels
    assert "level=" not in labels  # already given
    doc.close()
    doc, items = await typed(client, KERNEL_AND_CALLER, "        with pl.at(level=")
    labels = [item.label for item in items]
    assert labels[:3] == ["pl.Level.AIV", "pl.Level.AIC", "pl.Level.CORE_GROUP"]
    doc.close()
    doc, items = await typed(client, KERNEL_AND_CALLER, "        with pl.at(pl.Level.HOST, role=")
    assert [item.label for item in items] == ["pl.Role.Orchestrator", "pl.Role.SubWorker"]
    doc.close()


async def test_the_first_positional_slot_offers_its_values_too(client: RecordingClient) -> None:
    doc, items = await typed(client, KERNEL_AND_CALLER, "        with pl.at(")
    labels = {item.label for item in items}
    assert {"pl.Level.CORE_GROUP", "level=", "role=", "name_hint="} <= labels
    doc.close()


async def test_keywords_of_spmd_cluster_graph_and_the_decorators(client: RecordingClient) -> None:
    cases = {
        "        with pl.spmd(4, ": {"sync_start=", "name_hint=", "deps=", "optimizations="},
        "        with pl.cluster(": {"name_hint="},
        "    @pl.function(": {"type=", "level=", "role=", "strict_ssa="},
        "    @pl.jit.incore(": {"level="},
    }
    for text, expected in cases.items():
        doc, items = await typed(client, KERNEL_AND_CALLER, text)
        labels = {item.label for item in items}
        assert expected <= labels, text
        doc.close()
    doc, items = await typed(client, KERNEL_AND_CALLER, "    @pl.function(type=")
    assert "pl.FunctionType.InCore" in {item.label for item in items}
    doc.close()
    doc, items = await typed(client, KERNEL_AND_CALLER, "        with pl.spmd(4, sync_start=")
    assert [item.label for item in items] == ["True", "False"]
    doc.close()


async def test_self_offers_the_program_s_functions(client: RecordingClient) -> None:
    doc, items = await typed(client, KERNEL_AND_CALLER, "        out = self.")
    found = by_label(items)
    assert set(found) == {"kernel", "main"}
    assert found["kernel"].detail == "kernel(a, out)"
    assert found["kernel"].documentation == "program function of `P`, `InCore`"
    doc.close()


async def test_scope_constructs_come_as_snippets_replacing_the_typed_statement(
    client: RecordingClient,
) -> None:
    doc, items = await typed(client, KERNEL_AND_CALLER, "        with pl.")
    snippets = {item.label: item for item in items if item.kind == types.CompletionItemKind.Snippet}
    assert {"with pl.at", "with pl.spmd", "for ${1:i} in pl.spmd", "with pl.cluster", "with pl.graph"} <= set(
        snippets
    )
    at = snippets["with pl.at"]
    assert at.insert_text_format == types.InsertTextFormat.Snippet
    assert isinstance(at.text_edit, types.TextEdit)
    assert at.text_edit.new_text == 'with pl.at(level=pl.Level.CORE_GROUP, name_hint="${1}"):\n\t$0'
    start = doc.position("end")
    assert at.text_edit.range.start == types.Position(line=start.line, character=8)
    assert at.text_edit.range.end == types.Position(line=start.line, character=16)
    assert at.filter_text == "with pl.at"
    doc.close()


async def test_a_file_importing_the_dsl_only_in_a_builder_function(client: RecordingClient) -> None:
    source = """
        def build():
            import pypto.language as pl

            @pl.program
            class P:
                @pl.function
                def main(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                    return a

            return P
        ${end}"""
    doc = open_doc(client, source, header=False)
    await doc.diagnostics()
    start = doc.position("end")
    doc.edit(types.Range(start=start, end=start), "    x = pl.Level.")
    items = await complete(doc, types.Position(line=start.line, character=start.character + 17))
    assert [item.label for item in items][:3] == ["AIV", "AIC", "CORE_GROUP"]
    doc.close()


async def test_nothing_outside_dsl_files_strings_or_comments(client: RecordingClient) -> None:
    plain = open_doc(client, "import os\n\nx = os.${0}\n", header=False)
    await plain.diagnostics()
    assert await complete(plain, plain.position()) == []
    plain.close()
    doc, items = await typed(client, KERNEL_AND_CALLER, '        x = "pl.')
    assert items == []
    doc.close()
    doc, items = await typed(client, KERNEL_AND_CALLER, "        # pl.")
    assert items == []
    doc.close()
