"""Workspace symbols: program and outlined function names across open documents and the
workspace's DSL files, indexed in the background with work-done progress."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import pytest_lsp
from dsl_examples import EXAMPLE_1, EXAMPLE_3
from lsp_session import RecordingClient, open_doc, server_config, vscode_params, with_header
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("ws")
    (root / "kernels").mkdir()
    (root / "kernels" / "hierarchy.py").write_text(with_header(EXAMPLE_3), encoding="utf-8")
    # Python that does not import pypto is not indexed, however DSL-like it looks.
    (root / "plain.py").write_text(with_header(EXAMPLE_3).replace("import pypto.language as pl", ""))
    (root / ".hidden").mkdir()
    (root / ".hidden" / "skipped.py").write_text(with_header(EXAMPLE_3), encoding="utf-8")
    yield root


@pytest_lsp.fixture(scope="module", config=server_config())
async def ws_client(lsp_client: RecordingClient, workspace: Path):
    await lsp_client.initialize_session(vscode_params(root_uri=workspace.as_uri()))
    yield
    await lsp_client.shutdown_session()


async def query(client: RecordingClient, text: str) -> list[types.SymbolInformation]:
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=text))
    assert all(isinstance(s, types.SymbolInformation) for s in found or [])
    return list(found or [])  # type: ignore[arg-type]


async def test_disk_files_that_import_pypto_are_indexed(ws_client: RecordingClient, workspace: Path) -> None:
    found = await query(ws_client, "orch")
    assert {(s.name, s.location.uri) for s in found} == {  # type: ignore[union-attr]
        ("main_cluster0_orch_0", (workspace / "kernels" / "hierarchy.py").as_uri()),
        ("main_cluster0_orch_0_host_0", (workspace / "kernels" / "hierarchy.py").as_uri()),
    }
    nested = next(s for s in found if s.name == "main_cluster0_orch_0_host_0")
    assert nested.container_name == "Ex3.main_cluster0_orch_0"


async def test_indexing_reported_progress(ws_client: RecordingClient) -> None:
    await query(ws_client, "x")
    reports = [r for values in ws_client.progress_reports.values() for r in values]
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert reports[0].title == "Indexing PyPTO files"
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert reports[-1].message == "1 DSL files"


async def test_open_documents_are_searched_with_their_current_text(ws_client: RecordingClient) -> None:
    doc = open_doc(ws_client, EXAMPLE_1)
    found = await query(ws_client, "tail")
    assert [(s.name, s.location.uri) for s in found] == [("tail", doc.uri)]  # type: ignore[union-attr]
    location = found[0].location
    assert isinstance(location, types.Location)
    assert location.range == doc.range("tail")
    doc.replace(EXAMPLE_1.replace('"ta${hint}il"', '"renamed"'))
    assert [s.name for s in await query(ws_client, "renamed")] == ["renamed"]
    assert await query(ws_client, "tail") == []
    doc.close()


async def test_program_functions_match_fuzzily(ws_client: RecordingClient) -> None:
    names = {s.name for s in await query(ws_client, "mcc")}
    assert names == {"main_cluster0_orch_0", "main_cluster0_orch_0_host_0"}
    assert {s.name for s in await query(ws_client, "main")} == {
        "main",
        "main_chip_1",
        "main_cluster0_orch_0",
        "main_cluster0_orch_0_host_0",
    }
