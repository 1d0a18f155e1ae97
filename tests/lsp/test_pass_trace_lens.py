"""The "pass trace" code lens (issue 19): on each program header, for clients that show
traces (the VS Code extension turns `pypto.codeLens.passTrace` on)."""

from __future__ import annotations

import pytest_lsp
from dsl_examples import EXAMPLE_1, EXAMPLE_3
from lsp_session import RecordingClient, code_lenses, open_doc, server_config, vscode_params


@pytest_lsp.fixture(config=server_config())
async def fresh(lsp_client: RecordingClient):
    yield
    await lsp_client.shutdown_session()


async def test_a_pass_trace_lens_on_each_program_header(fresh: RecordingClient) -> None:
    await fresh.initialize_session(
        vscode_params({"analysis": {"debounceMs": 0}, "codeLens": {"passTrace": True}})
    )
    doc = open_doc(fresh, EXAMPLE_1 + "\n\n" + EXAMPLE_3)
    await doc.diagnostics()
    traces = [
        lens for lens in await code_lenses(fresh, doc.uri) if lens.command.command == "pypto.showPassTrace"
    ]
    assert [list(lens.command.arguments or []) for lens in traces] == [[doc.uri, "Ex1"], [doc.uri, "Ex3"]]
    headers = [i for i, line in enumerate(doc.text.splitlines()) if line.startswith("@pl.program")]
    assert [lens.range.start.line for lens in traces] == headers
    doc.close()
