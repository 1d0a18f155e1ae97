"""Settings (initializationOptions, workspace/configuration, didChangeConfiguration) and the
analysis scheduling they control. Each test starts its own server: settings are per process."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest_lsp
from dsl_examples import EXAMPLE_1
from lsp_session import RecordingClient, open_doc, server_config, vscode_params, wait_for_publish
from lsprotocol import types

READ_BACK = """
@pl.program
class ReadBack:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, cfg: pl.Tensor[[1], pl.INT32],
             acc: pl.InOut[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            n = pl.read(cfg, [0])
        m = pl.read(cfg, [n + 1])
        return acc
"""


@pytest_lsp.fixture(config=server_config())
async def fresh(lsp_client: RecordingClient):
    yield
    await lsp_client.shutdown_session()


async def start(client: RecordingClient, options: dict[str, Any], configuration: Any = None) -> None:
    if configuration is not None:
        client.set_configuration(configuration, section="pypto")
    await client.initialize_session(vscode_params(options))


async def lens_titles(client: RecordingClient, uri: str) -> list[str]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return sorted(lens.command.title for lens in found or [] if lens.command)


async def test_edits_within_the_debounce_are_analysed_once_for_the_last_version(
    fresh: RecordingClient,
) -> None:
    await start(fresh, {"analysis": {"debounceMs": 400}})
    doc = open_doc(fresh, READ_BACK)
    await doc.diagnostics()
    for value in ("2", "3", "n + 4"):
        doc.replace(READ_BACK.replace("[n + 1]", f"[{value}]"))
    final = await wait_for_publish(fresh, doc.uri, doc.version)
    assert [d.code for d in final.diagnostics] == ["PTO301"]
    assert [p.version for p in fresh.published if p.uri == doc.uri] == [1, 4]


async def test_a_request_does_not_wait_out_the_debounce(fresh: RecordingClient) -> None:
    # A debounce of ten minutes: only the request cutting it short can produce an answer.
    await start(fresh, {"analysis": {"debounceMs": 600_000}})
    doc = open_doc(fresh, EXAMPLE_1)
    assert len(await asyncio.wait_for(lens_titles(fresh, doc.uri), 30)) == 2
    doc.replace(EXAMPLE_1.replace('"ta${hint}il"', '"last"'))
    titles = await asyncio.wait_for(lens_titles(fresh, doc.uri), 30)
    assert "⇢ last · out: Out (+2 In)" in titles
    # the expedited analysis of the current version was also published
    assert (await wait_for_publish(fresh, doc.uri, doc.version)).version == 2


async def test_initialization_options_switch_features_off(fresh: RecordingClient) -> None:
    await start(
        fresh, {"analysis": {"debounceMs": 0}, "codeLens": {"enable": False}, "inlayHints": {"enable": False}}
    )
    doc = open_doc(fresh, EXAMPLE_1)
    await doc.diagnostics()
    assert await lens_titles(fresh, doc.uri) == []
    found = await fresh.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri),
            range=types.Range(
                start=types.Position(line=0, character=0), end=types.Position(line=30, character=0)
            ),
        )
    )
    assert list(found or []) == []


async def test_configuration_is_pulled_and_re_pulled_on_change(fresh: RecordingClient) -> None:
    await start(fresh, {"analysis": {"debounceMs": 0}}, configuration={"diagnostics": {"enable": False}})
    doc = open_doc(fresh, READ_BACK)
    # The lens answer comes after the analysis finished: a publish would have come first.
    await lens_titles(fresh, doc.uri)
    assert [p for p in fresh.published if p.uri == doc.uri] == []

    fresh.set_configuration({"diagnostics": {"enable": True}, "codeLens": {"enable": False}}, section="pypto")
    fresh.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    published = await wait_for_publish(fresh, doc.uri, 1)
    assert [d.code for d in published.diagnostics] == ["PTO301"]
    assert await lens_titles(fresh, doc.uri) == []
    assert fresh.refreshes == [types.WORKSPACE_CODE_LENS_REFRESH]

    mark = len(fresh.published)
    fresh.set_configuration({"diagnostics": {"enable": False}}, section="pypto")
    fresh.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    cleared = await wait_for_publish(fresh, doc.uri, since=mark)
    assert list(cleared.diagnostics) == []


async def test_settings_of_the_wrong_type_are_ignored(fresh: RecordingClient) -> None:
    await start(fresh, {"analysis": {"debounceMs": "soon"}, "codeLens": {"enable": "yes"}})
    doc = open_doc(fresh, EXAMPLE_1)
    assert len(await lens_titles(fresh, doc.uri)) == 2


async def test_a_client_without_configuration_pull_pushes_settings_with_the_change(
    fresh: RecordingClient,
) -> None:
    params = vscode_params({"analysis": {"debounceMs": 0}})
    params.capabilities = types.ClientCapabilities()
    await fresh.initialize_session(params)
    doc = open_doc(fresh, EXAMPLE_1)
    assert len(await lens_titles(fresh, doc.uri)) == 2
    fresh.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"pypto": {"codeLens": {"enable": False}}})
    )
    assert await lens_titles(fresh, doc.uri) == []


async def test_raw_names_setting_shows_the_ir_names_in_the_outlined_program(fresh: RecordingClient) -> None:
    params = vscode_params({"analysis": {"debounceMs": 0}, "outlinedProgram": {"rawNames": True}})
    params.capabilities = types.ClientCapabilities()  # settings pushed with each change
    await fresh.initialize_session(params)
    doc = open_doc(fresh, EXAMPLE_1)
    result = await fresh.protocol.send_request_async("pypto/outlinedProgram", {"uri": doc.uri})
    assert "        out__ssa_v2 = self.main_incore_0(x__ssa_v0, off__ssa_v0, out__ssa_v0)" in result.text
    fresh.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"pypto": {"outlinedProgram": {"rawNames": False}}})
    )
    result = await fresh.protocol.send_request_async("pypto/outlinedProgram", {"uri": doc.uri})
    assert "        out = self.main_incore_0(x, off, out)" in result.text


SPLICED = (
    """
@pl.jit.inline
def helper(x: pl.Tensor[[64], pl.FP32]):
"""
    + "".join(f"    t{i} = pl.add(x, {i}.0)\n" for i in range(12))
    + """    return x


@pl.jit
def entry(x: pl.Tensor[[64], pl.FP32]):
    y = helper(x)
    return y
"""
)


async def test_the_splice_budget_setting_bounds_splicing_and_a_change_reanalyses(
    fresh: RecordingClient,
) -> None:
    await start(fresh, {"analysis": {"debounceMs": 0}}, configuration={"analysis": {"spliceBudget": 5}})
    doc = open_doc(fresh, SPLICED)
    published = await wait_for_publish(fresh, doc.uri, 1)
    [warning] = [d for d in published.diagnostics if d.code == "PTO416"]
    assert "more than 5 statements" in warning.message
    mark = len(fresh.published)
    fresh.set_configuration({"analysis": {"spliceBudget": 100}}, section="pypto")
    fresh.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    republished = await wait_for_publish(fresh, doc.uri, since=mark)
    # all 12 spliced adds are analysed now (each is a compute op in an Orchestration body)
    assert [d.code for d in republished.diagnostics] == ["PTO504"] * 12
