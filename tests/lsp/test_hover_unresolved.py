"""A value the analysis needed from a module it could not read is marked in the hover of what
used it (issue 11 item 1): the scope's hover, a capture's hover, and the name itself say the
value is unknown, why (module not found / not defined statically), and the setting to fix it."""

from __future__ import annotations

from pathlib import Path

import pytest_lsp
from lsp_session import RecordingClient, open_file, server_config, vscode_params
from lsprotocol import types
from pygls import uris

from markers import extract

MODEL = extract(
    """
    import pypto.language as pl
    from cfg import N, M
    from local_cfg import K, ROWS


    @pl.program
    class P:
        @pl.function
        def main(self, x: pl.Tensor[[${n}N, ROWS], pl.FP32]) -> pl.Tensor[[N, ROWS], pl.FP32]:
            ${scope}with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(${x}x, [0, 0], [M, K])
                x = pl.store(t, [0, 0], x)
            return x
    """
)
LOCAL_CFG = "import os\n\nK = int(os.environ['K'])\nROWS = 64\n"

NOT_FOUND = "module `cfg` was not found"
NOT_STATIC = "`K`: value unknown, module `local_cfg` does not define it statically"
SETTING = "`pypto.analysis.extraPaths`"


@pytest_lsp.fixture(config=server_config())
async def fresh(lsp_client: RecordingClient):
    yield
    await lsp_client.shutdown_session()


async def hover_text(client: RecordingClient, uri: str, point: str) -> str:
    line, col = MODEL.point(point)
    found = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=col),
        )
    )
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    return found.contents.value


async def test_hovers_say_which_imported_values_are_unknown_and_why(
    fresh: RecordingClient, tmp_path: Path
) -> None:
    (tmp_path / "model.py").write_text(MODEL.text)
    (tmp_path / "local_cfg.py").write_text(LOCAL_CFG)
    await fresh.initialize_session(vscode_params(root_uri=uris.from_fs_path(str(tmp_path))))
    doc = open_file(fresh, tmp_path / "model.py")
    await doc.diagnostics()
    scope = await hover_text(fresh, doc.uri, "scope")
    assert f"`N`, `M`: values unknown, {NOT_FOUND}" in scope
    assert NOT_STATIC in scope and SETTING in scope
    assert "`ROWS`" not in scope.split("```")[-1]  # found and folded: not in the note
    capture = await hover_text(fresh, doc.uri, "x")
    assert capture.startswith("`x`: **InOut**")
    assert f"`N`: value unknown, {NOT_FOUND}" in capture and "`K`" not in capture
    name = await hover_text(fresh, doc.uri, "n")
    assert (
        name
        == f"*`N`: value unknown, {NOT_FOUND} (add the folder that holds it to the {SETTING} setting (or `pypto-check --path DIR`))*"
    )
