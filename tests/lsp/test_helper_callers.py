"""The lens on an inline helper's `def` lists where the workspace calls it (issue 11 item 5),
resolved on codeLens/resolve, with VS Code's showReferences command and the calls' locations."""

from __future__ import annotations

from pathlib import Path

import pytest_lsp
from caller_sources import NORMS, expected_calls, write
from lsp_session import RecordingClient, code_lenses, open_file, server_config, vscode_params
from lsprotocol import types
from pygls import uris


@pytest_lsp.fixture(config=server_config())
async def fresh(lsp_client: RecordingClient):
    yield
    await lsp_client.shutdown_session()


def position(line: int, col: int) -> types.Position:
    return types.Position(line=line, character=col)


async def test_the_helper_lens_lists_the_files_calling_it_and_shows_their_calls(
    fresh: RecordingClient, tmp_path: Path
) -> None:
    write(tmp_path)
    await fresh.initialize_session(vscode_params(root_uri=uris.from_fs_path(str(tmp_path))))
    norms = open_file(fresh, tmp_path / "norms.py")
    found = await code_lenses(fresh, norms.uri)
    line, col = NORMS.point("def")
    (helper,) = [lens for lens in found if lens.range.start == position(line, col)]
    assert helper.command is None  # resolved lazily: reading other files is not keystroke work
    resolved = await fresh.code_lens_resolve_async(helper)
    assert resolved.command is not None
    assert resolved.command.title == "called from decode.py ×2, norms.py, prefill.py"
    assert resolved.command.command == "editor.action.showReferences"
    uri, at, locations = resolved.command.arguments or []
    assert (uri, at) == (norms.uri, {"line": line, "character": col})
    assert [(loc["uri"], loc["range"]) for loc in locations] == [
        (
            uris.from_fs_path(str(path)),
            {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}},
        )
        for path, (sl, sc, el, ec) in expected_calls(tmp_path)
    ]
    # the helper `twice` is called from pkg/user.py only
    (other,) = [lens for lens in found if lens.command is None and lens != helper]
    assert (await fresh.code_lens_resolve_async(other)).command.title == "called from user.py"


async def test_a_caller_edited_in_the_editor_is_listed_from_its_buffer(
    fresh: RecordingClient, tmp_path: Path
) -> None:
    write(tmp_path)
    await fresh.initialize_session(vscode_params(root_uri=uris.from_fs_path(str(tmp_path))))
    norms = open_file(fresh, tmp_path / "norms.py")
    decode = open_file(fresh, tmp_path / "decode.py")
    decode.set_text(decode.text.replace("norm(out, out)", "out"))  # unsaved: one call left
    await decode.diagnostics()
    (helper,) = [
        lens for lens in await code_lenses(fresh, norms.uri) if lens.data and lens.data["helper"] == "rms"
    ]
    resolved = await fresh.code_lens_resolve_async(helper)
    assert resolved.command.title == "called from decode.py, norms.py, prefill.py"
