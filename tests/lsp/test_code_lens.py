"""Code lenses on scope headers and the command behind them."""

from __future__ import annotations

import pytest
from dsl_examples import EXAMPLE_1, EXAMPLE_2, EXAMPLE_3, EXAMPLE_4
from lsp_session import Doc, RecordingClient, open_doc
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def lenses(doc: Doc) -> list[types.CodeLens]:
    return await doc.client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=doc.uri))
    )


def by_range(found: list[types.CodeLens]) -> dict[tuple[int, int, int, int], set[str]]:
    titles: dict[tuple[int, int, int, int], set[str]] = {}
    for lens in found:
        assert lens.command is not None
        r = lens.range
        titles.setdefault((r.start.line, r.start.character, r.end.line, r.end.character), set()).add(
            lens.command.title
        )
    return titles


def key(doc: Doc, name: str) -> tuple[int, int, int, int]:
    r = doc.range(name)
    return (r.start.line, r.start.character, r.end.line, r.end.character)


async def test_each_scope_header_gets_a_resolved_lens_naming_its_function(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_1)
    found = await lenses(doc)
    assert by_range(found) == {
        key(doc, "first"): {"⇢ main_incore_0(x: In, off: In, out: Out) -> out"},
        key(doc, "tail"): {"⇢ tail(x: In, off: In, out: Out) -> out"},
    }
    for lens in found:
        assert lens.command is not None
        assert lens.command.command == "pypto.showOutlinedFunction"
        assert list(lens.command.arguments or []) == [
            doc.uri,
            lens.command.title.split("⇢ ")[1].split("(")[0],
        ]
    doc.close()


async def test_inout_and_several_returns(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_2)
    assert by_range(await lenses(doc)) == {
        key(doc, "scope"): {"⇢ k_incore_0(a: In, i: In, acc: InOut, out: Out) -> (acc, out)"}
    }
    doc.close()


async def test_nested_scopes_get_their_own_lens(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_3)
    assert by_range(await lenses(doc)) == {
        key(doc, "outer"): {"⇢ main_cluster0_orch_0(x: In) -> z"},
        key(doc, "inner"): {"⇢ main_cluster0_orch_0_host_0(y: In) -> z"},
        key(doc, "chip"): {"⇢ main_chip_1(z: In, x: In) -> w"},
    }
    doc.close()


async def test_an_spmd_scope_shows_both_functions_it_becomes(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_4)
    assert by_range(await lenses(doc)) == {
        key(doc, "a_spmd"): {"⇢ proj(a: In, out: Out) -> out", "⇢ proj_spmd(a: In, out: Out) -> out"},
        key(doc, "b_spmd"): {
            "⇢ b_main_proj(a: In, out: Out) -> out",
            "⇢ b_main_proj_spmd(a: In, out: Out) -> out",
        },
    }
    doc.close()


async def test_the_lens_command_opens_the_outlined_program_at_the_function(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_1)
    await doc.diagnostics()
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="pypto.showOutlinedFunction", arguments=[doc.uri, "tail"])
    )
    outlined_uri = "pypto-outlined:" + doc.uri.removeprefix("file://")
    assert result["uri"] == outlined_uri
    assert result["name"] == "tail"
    assert result["text"].splitlines()[1].startswith("def tail(self, x: pl.Tensor[[128, 64], pl.FP32], off: ")
    shown = client.shown_documents[-1]
    assert shown.uri == outlined_uri
    assert shown.selection is not None
    program = await client.protocol.send_request_async("pypto/outlinedProgram", {"uri": doc.uri})
    line = program.text.splitlines()[shown.selection.start.line]
    assert line[shown.selection.start.character : shown.selection.end.character] == "tail"
    assert line.lstrip().startswith("def tail(")
    doc.close()


async def test_lenses_follow_edits(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_1)
    assert len(await lenses(doc)) == 2
    doc.replace(EXAMPLE_1.replace('name_hint={|hint:"ta${hint}il"|}', 'name_hint="last"'))
    assert {lens.command.title for lens in await lenses(doc) if lens.command} == {
        "⇢ main_incore_0(x: In, off: In, out: Out) -> out",
        "⇢ last(x: In, off: In, out: Out) -> out",
    }
    doc.close()
