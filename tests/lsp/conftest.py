"""One server process per test module (start-up is mostly imports); tests reset by closing
their documents and use fresh URIs, so they do not see each other's state."""

from __future__ import annotations

import pytest_lsp
from lsp_session import RecordingClient, server_config, vscode_params


@pytest_lsp.fixture(scope="module", config=server_config())
async def client(lsp_client: RecordingClient):
    await lsp_client.initialize_session(vscode_params())
    yield
    await lsp_client.shutdown_session()
