"""Go to definition and references of program functions; back from the outlined program."""

from __future__ import annotations

import pytest
from dsl_examples import EXAMPLE_1, JIT_CALLS, KERNEL_CALLS
from lsp_session import Doc, RecordingClient, open_doc
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def definition(doc: Doc, uri: str, position: types.Position) -> types.Location:
    found = await doc.client.text_document_definition_async(
        types.DefinitionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=position)
    )
    assert isinstance(found, types.Location), found
    return found


async def test_a_self_call_goes_to_the_def(client: RecordingClient) -> None:
    doc = open_doc(client, KERNEL_CALLS)
    found = await definition(doc, doc.uri, doc.position("call"))
    assert found.uri == doc.uri
    assert found.range == doc.range("def")
    doc.close()


async def test_a_jit_sub_function_call_goes_to_the_def(client: RecordingClient) -> None:
    doc = open_doc(client, JIT_CALLS)
    found = await definition(doc, doc.uri, doc.position("call"))
    assert found.range == doc.range("def")
    doc.close()


async def test_references_are_the_def_and_every_self_call(client: RecordingClient) -> None:
    doc = open_doc(client, KERNEL_CALLS)
    for include_declaration, expected in ((True, ["def", "call1", "call2"]), (False, ["call1", "call2"])):
        found = await client.text_document_references_async(
            types.ReferenceParams(
                text_document=types.TextDocumentIdentifier(uri=doc.uri),
                position=doc.position("call"),
                context=types.ReferenceContext(include_declaration=include_declaration),
            )
        )
        assert [loc.range for loc in found or []] == [doc.range(name) for name in expected]
    doc.close()


async def test_an_outlined_name_in_the_outlined_program_goes_back_to_its_scope(
    client: RecordingClient,
) -> None:
    doc = open_doc(client, EXAMPLE_1)
    program = await client.protocol.send_request_async("pypto/outlinedProgram", {"uri": doc.uri})
    lines = program.text.splitlines()
    outlined_uri = "pypto-outlined:" + doc.uri.removeprefix("file://") + "%20(outlined)"
    for name, scope in (("main_incore_0", "first"), ("tail", "tail")):
        # the call in `main`, and the outlined function's own def
        call_line = next(i for i, line in enumerate(lines) if f"self.{name}(" in line)
        def_line = next(i for i, line in enumerate(lines) if line.strip().startswith(f"def {name}("))
        for line in (call_line, def_line):
            position = types.Position(line=line, character=lines[line].index(name) + 1)
            found = await definition(doc, outlined_uri, position)
            assert found.uri == doc.uri
            assert found.range == doc.range(scope)
    doc.close()


@pytest.mark.parametrize(
    ("source", "outlined"),
    [
        ("untitled:Untitled-7", "pypto-outlined:Untitled-7%20(outlined)"),
        ("untitled:Untitled-7", "pypto-outlined:Untitled-7 (outlined)"),
        ("untitled:Untitled-7", "pypto-outlined:Untitled-7"),  # the form before the title suffix
        ("untitled:Untitled-7", "pypto-outlined:Untitled-7%20%28outlined%29?untitled%3AUntitled-7"),
    ],
)
async def test_an_untitled_buffer_maps_to_and_from_its_outlined_document(
    client: RecordingClient, source: str, outlined: str
) -> None:
    doc = open_doc(client, EXAMPLE_1)
    doc.close()
    doc.uri = source
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=source, language_id="python", version=1, text=doc.text)
        )
    )
    await doc.diagnostics()
    shown = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="pypto.showOutlinedFunction", arguments=[source, "tail"])
    )
    assert shown["uri"] == "pypto-outlined:Untitled-7%20(outlined)"  # its tab: "Untitled-7 (outlined)"
    program = await client.protocol.send_request_async("pypto/outlinedProgram", {"uri": outlined})
    lines = program.text.splitlines()
    line = next(i for i, text in enumerate(lines) if text.strip().startswith("def tail("))
    found = await definition(doc, outlined, types.Position(line=line, character=lines[line].index("tail")))
    assert found.uri == source
    assert found.range == doc.range("tail")
    doc.close()
