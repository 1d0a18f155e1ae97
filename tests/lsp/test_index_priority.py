"""The workspace index yields to open documents (issues 11/13): a document opened as the folder
opens is analysed and published before the index analyses any file, and the index's progress
still counts every file it walked."""

from __future__ import annotations

from pathlib import Path

import pytest_lsp
from dsl_examples import EXAMPLE_1, EXAMPLE_3
from lsp_session import RecordingClient, open_file, server_config, vscode_params, with_header
from lsprotocol import types
from pygls import uris


@pytest_lsp.fixture(config=server_config())
async def fresh(lsp_client: RecordingClient):
    yield
    await lsp_client.shutdown_session()


def workspace(root: Path) -> Path:
    """Three DSL files for the index, one plain Python file, and the file the user opens."""
    for name in ("a.py", "b.py", "c.py"):
        (root / name).write_text(with_header(EXAMPLE_3), encoding="utf-8")
    (root / "plain.py").write_text("x = 1\n", encoding="utf-8")
    opened = root / "opened.py"
    opened.write_text(with_header(EXAMPLE_1), encoding="utf-8")
    return opened


async def test_a_document_opened_with_the_folder_is_published_before_the_index_analyses_a_file(
    fresh: RecordingClient, tmp_path: Path
) -> None:
    opened = workspace(tmp_path)
    # VS Code's capabilities: the server asks for the settings, so the didOpen sent right after
    # `initialized` arrives while the index is still waiting for them
    await fresh.initialize_session(vscode_params(root_uri=uris.from_fs_path(str(tmp_path))))
    doc = open_file(fresh, opened)
    await doc.diagnostics()
    await fresh.workspace_symbol_async(types.WorkspaceSymbolParams(query="x"))  # waits for the index
    progress = [kind for event, kind in fresh.events if event == "progress"]
    assert progress == ["begin", "report", "report", "report", "report", "report", "end"]  # 5 files walked
    first_report = fresh.events.index(("progress", "report"))
    assert ("publish", doc.uri) in fresh.events[:first_report]


async def test_the_open_document_is_not_indexed_from_disk(fresh: RecordingClient, tmp_path: Path) -> None:
    opened = workspace(tmp_path)
    await fresh.initialize_session(vscode_params(root_uri=uris.from_fs_path(str(tmp_path))))
    doc = open_file(fresh, opened)
    await doc.diagnostics()
    found = await fresh.workspace_symbol_async(types.WorkspaceSymbolParams(query="tail"))
    assert [s.location.uri for s in found or []] == [doc.uri]  # type: ignore[union-attr]
    ends = [r for values in fresh.progress_reports.values() for r in values]
    assert isinstance(ends[-1], types.WorkDoneProgressEnd)
    assert ends[-1].message == "3 DSL files"  # a.py, b.py, c.py: opened.py is answered live
