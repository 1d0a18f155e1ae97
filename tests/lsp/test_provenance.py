"""The server says which copy of it runs, and works without libcst, minus its quick fixes.

The VS Code extension's universal package ships no libcst (a compiled package); the server it
runs must still give diagnostics, say once that quick fixes are off and why, and offer none.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest_lsp
from lsp_session import SERVER_COMMAND, RecordingClient, make_client, open_doc, vscode_params
from lsprotocol import types
from pytest_lsp import ClientServerConfig

import pypto_lsp

QUICKSTART = (Path(__file__).parents[2] / "examples" / "quickstart.py").read_text(encoding="utf-8")
PACKAGE_DIR = str(Path(pypto_lsp.__file__).resolve().parent)
# `import libcst` raises ImportError, as in an interpreter without it
WITHOUT_LIBCST = [
    sys.executable,
    "-c",
    "import sys; sys.modules['libcst'] = None; from pypto_lsp.__main__ import main; main()",
]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND, client_factory=make_client))
async def client(lsp_client: RecordingClient):
    await lsp_client.initialize_session(vscode_params())
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=WITHOUT_LIBCST, client_factory=make_client))
async def bare(lsp_client: RecordingClient):
    await lsp_client.initialize_session(vscode_params())
    yield
    await lsp_client.shutdown_session()


async def quick_fixes_on_pto301(client: RecordingClient) -> tuple[list[str], list[types.CodeAction]]:
    """The codes published for the quickstart example, and the actions offered at its PTO301."""
    doc = open_doc(client, QUICKSTART, header=False)
    diagnostics = await doc.diagnostics()
    (target,) = [d for d in diagnostics if d.code == "PTO301"]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri),
            range=target.range,
            context=types.CodeActionContext(diagnostics=[target]),
        )
    )
    return [str(d.code) for d in diagnostics], [a for a in actions or [] if isinstance(a, types.CodeAction)]


def start_lines(client: RecordingClient) -> list[str]:
    return [m.message for m in client.log_messages if m.message.startswith("pypto-lsp ")]


async def test_the_log_names_version_package_folder_interpreter_and_libcst(client: RecordingClient) -> None:
    _, actions = await quick_fixes_on_pto301(client)  # a round trip: the start line came before
    (line,) = start_lines(client)
    assert line.startswith(f"pypto-lsp {pypto_lsp.__version__} from {PACKAGE_DIR}, Python ")
    assert sys.executable in line and ", libcst 1." in line
    assert [a.title for a in actions] == ["Move 'n' out of the scope and remove the emptied scope"]
    assert client.messages == []  # nothing to tell the user


async def test_without_libcst_diagnostics_stay_quick_fixes_go_and_it_is_said_once(
    bare: RecordingClient,
) -> None:
    codes, actions = await quick_fixes_on_pto301(bare)
    codes_again, actions_again = await quick_fixes_on_pto301(bare)
    assert "PTO301" in codes and codes_again == codes
    assert actions == [] and actions_again == []
    (line,) = start_lines(bare)
    assert line.endswith(", no libcst")
    (message,) = bare.messages
    assert message.type == types.MessageType.Warning
    assert message.message.startswith(
        f"PyPTO: quick fixes are off because libcst cannot be loaded by {sys.executable}"
    )
    assert f"'{sys.executable} -m pip install libcst'" in message.message
