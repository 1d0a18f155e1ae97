"""Document symbols: program → function → outlined scope."""

from __future__ import annotations

import pytest
from dsl_examples import EXAMPLE_3, EXAMPLE_4, JIT_CALLS
from lsp_session import Doc, RecordingClient, open_doc
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def symbols(doc: Doc) -> list[types.DocumentSymbol]:
    found = await doc.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=doc.uri))
    )
    assert found is not None
    assert all(isinstance(s, types.DocumentSymbol) for s in found)
    return found  # type: ignore[return-value]


def tree(found: list[types.DocumentSymbol]) -> list[object]:
    return [(s.name, s.detail, tree(list(s.children or []))) for s in found]


async def test_program_function_scope_hierarchy_with_nested_scopes(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_3)
    found = await symbols(doc)
    assert tree(found) == [
        (
            "Ex3",
            "program",
            [
                (
                    "main",
                    "Opaque",
                    [
                        (
                            "main_cluster0_orch_0",
                            "Hierarchy",
                            [("main_cluster0_orch_0_host_0", "Hierarchy", [])],
                        ),
                        ("main_chip_1", "Hierarchy", []),
                    ],
                )
            ],
        )
    ]
    scope = found[0].children[0].children[0]  # type: ignore[index]
    assert scope.selection_range == doc.range("outer")
    assert scope.kind == types.SymbolKind.Function
    doc.close()


async def test_an_spmd_scope_nests_its_kernel_under_its_launch(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_4)
    assert tree(await symbols(doc)) == [
        (
            "Ex4",
            "program",
            [
                ("a_main", "Orchestration", [("proj_spmd", "Spmd", [("proj", "InCore", [])])]),
                ("b_main", "Orchestration", [("b_main_proj_spmd", "Spmd", [("b_main_proj", "InCore", [])])]),
            ],
        )
    ]
    doc.close()


async def test_a_jit_program_lists_its_functions_at_top_level(client: RecordingClient) -> None:
    doc = open_doc(client, JIT_CALLS)
    assert tree(await symbols(doc)) == [
        ("kernel", "InCore", []),
        ("entry", "Orchestration", [("entry_incore_0", "InCore", [])]),
    ]
    doc.close()
