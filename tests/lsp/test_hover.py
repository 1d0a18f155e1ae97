"""Hover on scope headers, name strings, program function calls and captured variables."""

from __future__ import annotations

import pytest
from dsl_examples import (
    EXAMPLE_1,
    EXAMPLE_2,
    EXAMPLE_4,
    EXAMPLE_5_GRAPH,
    JIT_CALLS,
    KERNEL_CALLS,
    SHARED_HELPER,
    THRICE,
)
from lsp_session import Doc, RecordingClient, open_doc
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def hover_at(doc: Doc, point: str) -> types.Hover | None:
    return await doc.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri), position=doc.position(point)
        )
    )


def markdown(found: types.Hover | None) -> str:
    assert found is not None
    assert isinstance(found.contents, types.MarkupContent)
    assert found.contents.kind == types.MarkupKind.Markdown
    return found.contents.value


async def test_scope_header_shows_the_outlined_function(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_1)
    found = await hover_at(doc, "first")
    text = markdown(found)
    assert text.startswith("**main_incore_0**: InCore scope → `InCore` function")
    assert "level `CORE_GROUP`" in text
    assert "replaced by `out = self.main_incore_0(x, off, out)` in `main`" in text
    assert (
        "```python\n@pl.function(type=pl.FunctionType.InCore)\ndef main_incore_0(self, x: pl.Tensor" in text
    )
    # names for people: the stored-to version is marked, since the function returns `out` itself
    assert "outʹ1 = pl.tile.store(e, [off, 0], out)" in text and "__" not in text
    assert found is not None and found.range == doc.range("first")
    doc.close()


async def test_the_with_keyword_of_a_header_shows_the_scope_too(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_1)
    assert markdown(await hover_at(doc, "with_keyword")).startswith("**main_incore_0**: InCore scope")
    doc.close()


async def test_the_name_hint_string_shows_its_function(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_1)
    text = markdown(await hover_at(doc, "hint"))
    assert text.startswith("**tail**: InCore scope")
    assert "def tail(self" in text
    doc.close()


async def test_the_graph_name_shows_the_graph_function_with_its_level_and_role(
    client: RecordingClient,
) -> None:
    doc = open_doc(client, EXAMPLE_5_GRAPH)
    text = markdown(await hover_at(doc, "band"))
    assert text.startswith("**band**: Graph scope → `Graph` function")
    assert "@pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)" in text
    assert "replaced by `acc = self.band(i, w, acc)` in `main`" in text
    doc.close()


async def test_an_spmd_header_shows_both_functions(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_4)
    text = markdown(await hover_at(doc, "a_spmd"))
    sections = text.split("\n\n---\n\n")
    assert sorted(s.split("**")[1] for s in sections) == ["proj", "proj_spmd"]
    assert any("InCore scope → `InCore` function" in s for s in sections)
    assert any("Spmd scope → `Spmd` function" in s for s in sections)
    doc.close()


async def test_a_self_call_shows_the_called_functions_signature(client: RecordingClient) -> None:
    doc = open_doc(client, KERNEL_CALLS)
    found = await hover_at(doc, "call")
    text = markdown(found)
    assert text.startswith(
        "```python\ndef kernel(self, a: Tensor[[64], FP32], out: Out[Tensor[[64], FP32]]) -> Tensor[[64], FP32]\n```"
    )
    assert "program function, `InCore`" in text
    assert found is not None and found.range == doc.range("call1")
    doc.close()


@pytest.mark.parametrize(
    ("point", "expected"),
    [
        ("a", "`a`: **In** in `k_incore_0` (read only by the scope)"),
        ("acc", "`acc`: **InOut** in `k_incore_0` (read and written by the scope)"),
        ("out", "`out`: **Out** in `k_incore_0` (written by the scope)"),
    ],
)
async def test_a_captured_variable_shows_its_direction_and_why(
    client: RecordingClient, point: str, expected: str
) -> None:
    doc = open_doc(client, EXAMPLE_2)
    text = markdown(await hover_at(doc, point))
    assert text.startswith(expected)
    assert "passed as `acc, out = self.k_incore_0(a, i, acc, out)`" in text
    doc.close()


async def test_a_scope_local_variable_has_no_hover(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_2)
    assert await hover_at(doc, "t") is None
    doc.close()


async def test_a_jit_sub_function_call_shows_its_signature_without_self(client: RecordingClient) -> None:
    doc = open_doc(client, JIT_CALLS)
    text = markdown(await hover_at(doc, "call"))
    assert text.startswith(
        "```python\ndef kernel(a: Tensor[[64], FP32], out: Out[Tensor[[64], FP32]]) -> Tensor[[64], FP32]\n```"
    )
    assert "program function, `InCore`" in text
    doc.close()


async def test_captured_names_in_a_shared_inline_helper_answer_under_the_names_on_screen(
    client: RecordingClient,
) -> None:
    """The callers pass `cur` and `h` for `hidden_states`: hovering the helper's own name
    answers, with the direction."""
    doc = open_doc(client, SHARED_HELPER)
    assert markdown(await hover_at(doc, "hidden")).startswith("`hidden_states`: **In** in `rms_recip`")
    assert markdown(await hover_at(doc, "inv")).startswith("`inv_rms`: **Out** in `rms_recip`")
    doc.close()


async def test_a_header_reached_from_two_entries_shows_what_each_makes_of_it(client: RecordingClient) -> None:
    doc = open_doc(client, SHARED_HELPER)
    sections = markdown(await hover_at(doc, "recip")).split("\n\n---\n\n")
    assert sorted(s.split("(called from `")[1].split("`")[0] for s in sections) == ["decode", "decode_layers"]
    # the function itself is the compiler's: its parameters are each caller's variables
    assert any("def rms_recip(self, cur:" in s for s in sections)
    assert any("def rms_recip(self, h:" in s for s in sections)
    doc.close()


async def test_a_header_reached_three_times_shows_the_function_once_and_names_the_others(
    client: RecordingClient,
) -> None:
    doc = open_doc(client, THRICE.replace("{|stage:pl.at(", "{|stage:p${stage_at}l.at("))
    text = markdown(await hover_at(doc, "stage_at"))
    assert text.count("```python") == 1
    assert "also outlined as `stage_0`, `stage_1`: the scope is reached 3 times" in text
    doc.close()
