"""Code lenses on scope headers and the command behind them."""

from __future__ import annotations

import pytest
from dsl_examples import EXAMPLE_1, EXAMPLE_2, EXAMPLE_3, EXAMPLE_4, SHARED_HELPER, THRICE
from lsp_session import Doc, RecordingClient, open_doc
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def lenses(doc: Doc) -> list[types.CodeLens]:
    """The scope lenses (an inline helper's callers lens, resolved later, is tested in
    test_helper_callers.py)."""
    found = await doc.client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=doc.uri))
    )
    return [lens for lens in found or [] if lens.data is None]


def by_range(found: list[types.CodeLens]) -> dict[tuple[int, int, int, int], set[str]]:
    titles: dict[tuple[int, int, int, int], set[str]] = {}
    for lens in found:
        assert lens.command is not None
        r = lens.range
        titles.setdefault((r.start.line, r.start.character, r.end.line, r.end.character), set()).add(
            lens.command.title
        )
    return titles


def key(doc: Doc, name: str) -> tuple[int, int, int, int]:
    r = doc.range(name)
    return (r.start.line, r.start.character, r.end.line, r.end.character)


async def test_each_scope_header_gets_a_resolved_lens_naming_its_function(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_1)
    found = await lenses(doc)
    assert by_range(found) == {
        key(doc, "first"): {"⇢ main_incore_0 · out: Out (+2 In)"},
        key(doc, "tail"): {"⇢ tail · out: Out (+2 In)"},
    }
    for lens in found:
        assert lens.command is not None
        assert lens.command.command == "pypto.showOutlinedFunction"
        assert list(lens.command.arguments or []) == [
            doc.uri,
            lens.command.title.split("⇢ ")[1].split(" ")[0],
        ]
    doc.close()


async def test_inout_and_several_returns(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_2)
    assert by_range(await lenses(doc)) == {key(doc, "scope"): {"⇢ k_incore_0 · acc: InOut, out: Out (+2 In)"}}
    doc.close()


async def test_nested_scopes_get_their_own_lens(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_3)
    assert by_range(await lenses(doc)) == {
        key(doc, "outer"): {"⇢ main_cluster0_orch_0 · 1 In"},
        key(doc, "inner"): {"⇢ main_cluster0_orch_0_host_0 · 1 In"},
        key(doc, "chip"): {"⇢ main_chip_1 · 2 In"},
    }
    doc.close()


async def test_an_spmd_scope_gets_one_lens_naming_its_kernel(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_4)
    found = await lenses(doc)
    assert len(found) == 2  # one per scope, not one per function (kernel + launch wrapper)
    assert by_range(found) == {
        key(doc, "a_spmd"): {"⇢ proj · out: Out (+1 In)"},
        key(doc, "b_spmd"): {"⇢ b_main_proj · out: Out (+1 In)"},
    }
    doc.close()


async def test_a_scope_in_a_helper_two_entries_reach_gets_one_lens_under_the_helpers_names(
    client: RecordingClient,
) -> None:
    doc = open_doc(client, SHARED_HELPER)
    # the callers pass `cur` / `h` for `hidden_states` and make different functions of the
    # scope (the second also captures `extra` and `wide`, and its kept `if` yields inv_rms, a
    # read: InOut there, Out in the first): one lens, saying so
    assert by_range(await lenses(doc)) == {
        key(doc, "recip"): {"⇢ rms_recip · inv_rms: Out/InOut (+3 In) · ×2 callers"}
    }
    doc.close()


def wide_program(params: str, hint: str, body: str, returned: str) -> str:
    """A program whose one scope (marked `wide`) has many parameters."""
    return f"""
@pl.program
class Wide:
    @pl.function
    def main(self, {params}):
        with {{|wide:pl.at(level=pl.Level.CORE_GROUP, name_hint="{hint}")|}}:
{body}
        return {returned}
"""


async def test_a_lens_stays_short_however_many_inputs_the_scope_reads(client: RecordingClient) -> None:
    inputs = [f"w{i}" for i in range(17)]
    params = ", ".join(f"{name}: pl.Tensor[[64], pl.FP32]" for name in inputs)
    reads = " + ".join(f"pl.load({name}, [0], [64])" for name in inputs)
    body = f"""            t = {reads}
            pl.store(pl.add(t, pl.load(q, [0], [64])), [0], q)
            pl.store(t, [0], out)"""
    params += ", q: pl.InOut[pl.Tensor[[64], pl.FP32]], out: pl.Out[pl.Tensor[[64], pl.FP32]]"
    doc = open_doc(client, wide_program(params, "fa_fused", body, "out"))
    assert by_range(await lenses(doc)) == {key(doc, "wide"): {"⇢ fa_fused · q: InOut, out: Out (+17 In)"}}
    doc.close()


async def test_a_lens_lists_the_written_parameters_that_fit_and_counts_the_others(
    client: RecordingClient,
) -> None:
    outputs = [f"output_buffer_{i}" for i in range(12)]
    params = ", ".join(f"{name}: pl.Out[pl.Tensor[[64], pl.FP32]]" for name in outputs)
    body = "            t = pl.load(x, [0], [64])\n" + "\n".join(
        f"            pl.store(t, [0], {name})" for name in outputs
    )
    doc = open_doc(client, wide_program(f"x: pl.Tensor[[64], pl.FP32], {params}", "many_outputs", body, "x"))
    listed = ", ".join(f"{name}: Out" for name in outputs[:4])
    assert by_range(await lenses(doc)) == {key(doc, "wide"): {f"⇢ many_outputs · {listed} (+8 more, +1 In)"}}
    doc.close()


async def test_the_lens_command_opens_the_outlined_program_at_the_function(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_1)
    await doc.diagnostics()
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="pypto.showOutlinedFunction", arguments=[doc.uri, "tail"])
    )
    outlined_uri = "pypto-outlined:" + doc.uri.removeprefix("file://") + "%20(outlined)"
    assert result["uri"] == outlined_uri
    assert result["name"] == "tail"
    assert result["text"].splitlines()[1].startswith("def tail(self, x: pl.Tensor[[128, 64], pl.FP32], off: ")
    shown = client.shown_documents[-1]
    assert shown.uri == outlined_uri
    assert shown.selection is not None
    program = await client.protocol.send_request_async("pypto/outlinedProgram", {"uri": doc.uri})
    line = program.text.splitlines()[shown.selection.start.line]
    assert line[shown.selection.start.character : shown.selection.end.character] == "tail"
    assert line.lstrip().startswith("def tail(")
    doc.close()


async def test_lenses_follow_edits(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_1)
    assert len(await lenses(doc)) == 2
    doc.replace(EXAMPLE_1.replace('name_hint={|hint:"ta${hint}il"|}', 'name_hint="last"'))
    assert {lens.command.title for lens in await lenses(doc) if lens.command} == {
        "⇢ main_incore_0 · out: Out (+2 In)",
        "⇢ last · out: Out (+2 In)",
    }
    doc.close()


async def test_a_scope_one_entry_reaches_three_times_gets_one_lens_counting_them(
    client: RecordingClient,
) -> None:
    doc = open_doc(client, THRICE)
    # stage, stage_0, stage_1 from one caller: not "×3 callers", and not three lenses
    assert by_range(await lenses(doc)) == {key(doc, "stage"): {"⇢ stage ×3 · o: Out (+1 In)"}}
    doc.close()
