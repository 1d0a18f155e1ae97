"""Signature help (issue 18): DSL ops and constructs with the written argument marked, program
functions and jit kernels with their declared directions."""

from __future__ import annotations

import pytest
from dsl_examples import KERNEL_AND_CALLER
from lsp_session import RecordingClient, open_doc
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")

JIT = """
@pl.jit.incore
def scale(a: pl.Tensor, acc: pl.InOut[pl.Tensor]):
    t = pl.load(a, [0], [64])
    pl.store(t, [0], acc)


@pl.jit
def entry(a: pl.Tensor, acc: pl.InOut[pl.Tensor]):
    scale(a, acc)
${end}"""


async def help_after(client: RecordingClient, source: str, text: str) -> types.SignatureHelp | None:
    doc = open_doc(client, source)
    await doc.diagnostics()
    start = doc.position("end")
    doc.edit(types.Range(start=start, end=start), text)
    found = await client.text_document_signature_help_async(
        types.SignatureHelpParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri),
            position=types.Position(line=start.line, character=start.character + len(text)),
        )
    )
    doc.close()
    return found


def active_label(found: types.SignatureHelp | None) -> tuple[str, str]:
    """The signature's label and the text of its active parameter."""
    assert found is not None and len(found.signatures) == 1
    signature = found.signatures[0]
    assert signature.parameters is not None and found.active_parameter is not None
    start, end = signature.parameters[found.active_parameter].label
    return signature.label, signature.label[start:end]


async def test_an_op_marks_the_argument_it_writes(client: RecordingClient) -> None:
    label, active = active_label(await help_after(client, KERNEL_AND_CALLER, "        pl.store(t, [0], "))
    assert label.startswith("pl.store(tile: Tile, offsets: Sequence[IntLike], output_tensor ⟵ written, ")
    assert active == "output_tensor ⟵ written"


async def test_the_active_parameter_follows_commas_and_keywords(client: RecordingClient) -> None:
    _, active = active_label(await help_after(client, KERNEL_AND_CALLER, "        pl.store("))
    assert active == "tile: Tile"
    _, active = active_label(
        await help_after(client, KERNEL_AND_CALLER, "        pl.store(t, [0], out, atomic=")
    )
    assert active == "atomic: AtomicType = AtomicType.None_"
    _, active = active_label(await help_after(client, KERNEL_AND_CALLER, "        pl.tile.matmul_acc("))
    assert active == "acc: Tile ⟷ read-written"


async def test_a_construct_shows_its_keywords(client: RecordingClient) -> None:
    label, active = active_label(
        await help_after(
            client, KERNEL_AND_CALLER, '        with pl.at(level=pl.Level.CORE_GROUP, name_hint="x", deps=['
        )
    )
    assert label.startswith("pl.at(level: Level, role: Role | None = None, optimizations: list | None = None")
    assert active == "deps: list | None = None"


async def test_a_program_function_shows_its_declared_directions(client: RecordingClient) -> None:
    label, active = active_label(await help_after(client, KERNEL_AND_CALLER, "        out = self.kernel(a, "))
    assert label == "kernel(a: Tensor[[64], FP32], out: Out[Tensor[[64], FP32]] ⟵ written)"
    assert active == "out: Out[Tensor[[64], FP32]] ⟵ written"


async def test_a_jit_kernel_shows_its_declared_directions(client: RecordingClient) -> None:
    label, active = active_label(await help_after(client, JIT, "    scale(a, "))
    assert label.startswith("scale(a: ")
    assert active.startswith("acc: InOut[") and active.endswith("⟷ read-written")


async def test_nothing_for_calls_the_dsl_does_not_define(client: RecordingClient) -> None:
    assert await help_after(client, KERNEL_AND_CALLER, "        print(") is None
    assert await help_after(client, KERNEL_AND_CALLER, "        out = self.missing(") is None
