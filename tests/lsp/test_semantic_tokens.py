"""Semantic tokens (issue 18) with `pypto.semanticTokens.enable`: captured variables inside
scope bodies, with the scope's direction and `modification` at writes; full and delta."""

from __future__ import annotations

import pytest
import pytest_lsp
from dsl_examples import CAPTURES
from lsp_session import RecordingClient, open_doc, server_config, vscode_params
from lsprotocol import types

from pypto_lsp.semantic_tokens import MODIFIERS

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(scope="module", config=server_config())
async def client(lsp_client: RecordingClient):
    lsp_client.initialized_with = await lsp_client.initialize_session(  # type: ignore[attr-defined]
        vscode_params({"analysis": {"debounceMs": 0}, "semanticTokens": {"enable": True}})
    )
    yield
    await lsp_client.shutdown_session()


def decode(data: list[int]) -> list[tuple[int, int, int, set[str]]]:
    """(line, start, length, modifiers) per token."""
    tokens, line, start = [], 0, 0
    for i in range(0, len(data), 5):
        delta_line, delta_start, length, kind, bits = data[i : i + 5]
        assert kind == 0
        line += delta_line
        start = start + delta_start if delta_line == 0 else delta_start
        tokens.append((line, start, length, {m for b, m in enumerate(MODIFIERS) if bits & (1 << b)}))
    return tokens


async def test_captured_variables_carry_their_direction(client: RecordingClient) -> None:
    doc = open_doc(client, CAPTURES)
    await doc.diagnostics()
    found = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=types.TextDocumentIdentifier(uri=doc.uri))
    )
    assert found is not None and found.result_id
    expected = []
    for name, modifiers in [
        ("a", {"pyptoIn"}),
        ("i", {"pyptoIn"}),
        ("acc1", {"pyptoInOut"}),
        ("acc2", {"pyptoInOut", "modification"}),
        ("i2", {"pyptoIn"}),
        ("out", {"pyptoOut", "modification"}),
    ]:
        r = doc.range(name)
        expected.append((r.start.line, r.start.character, r.end.character - r.start.character, modifiers))
    assert decode(found.data) == expected
    doc.close()


async def test_a_delta_after_an_edit_equals_the_full_result(client: RecordingClient) -> None:
    doc = open_doc(client, CAPTURES)
    await doc.diagnostics()
    identifier = types.TextDocumentIdentifier(uri=doc.uri)
    first = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=identifier)
    )
    assert first is not None
    doc.edit(doc.range("i2"), "(i + 1)")  # the token moves right by one
    await doc.diagnostics()
    delta = await client.text_document_semantic_tokens_full_delta_async(
        types.SemanticTokensDeltaParams(text_document=identifier, previous_result_id=first.result_id or "")
    )
    assert isinstance(delta, types.SemanticTokensDelta) and len(delta.edits) == 1
    data = list(first.data)
    edit = delta.edits[0]
    data[edit.start : edit.start + edit.delete_count] = edit.data or []
    full = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=identifier)
    )
    assert full is not None and data == list(full.data)
    assert len(data) == len(first.data)  # the same tokens, one moved
    doc.close()


async def test_the_legend_and_delta_support_are_announced(client: RecordingClient) -> None:
    provider = client.initialized_with.capabilities.semantic_tokens_provider  # type: ignore[attr-defined]
    assert isinstance(provider, types.SemanticTokensOptions)
    assert list(provider.legend.token_types) == ["variable"]
    assert list(provider.legend.token_modifiers) == list(MODIFIERS)
    assert isinstance(provider.full, types.SemanticTokensFullDelta) and provider.full.delta
