"""Quick fixes: each one applied, the document re-analysed, the diagnostic gone and nothing
else changed (the rest of the diagnostics, and every line the fix does not own)."""

from __future__ import annotations

import pytest
from lsp_session import (
    Doc,
    RecordingClient,
    apply_text_edits,
    open_doc,
    with_header,
    workspace_edits,
)
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")

SIGNATURE = """
@pl.program
class Fix:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, w: pl.Tensor[[256, 128], pl.FP32], v: pl.Tensor[[64, 128], pl.FP32],
             cfg: pl.Tensor[[1], pl.INT32],
             acc: pl.InOut[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
"""


def program(body: str) -> str:
    """A program whose `main` has `body` (written at 8 spaces) as its body."""
    return SIGNATURE + body.strip("\n") + "\n        return acc\n"


async def actions_for(doc: Doc, code: str) -> tuple[types.Diagnostic, list[types.CodeAction]]:
    diagnostics = await doc.diagnostics()
    (target,) = [d for d in diagnostics if d.code == code]
    found = await doc.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri),
            range=target.range,
            context=types.CodeActionContext(diagnostics=[target]),
        )
    )
    actions = [a for a in found or [] if isinstance(a, types.CodeAction)]
    assert all(a.kind == types.CodeActionKind.QuickFix for a in actions)
    return target, actions


async def apply_fix(doc: Doc, code: str, title: str) -> str:
    """Apply the fix titled `title` for the document's one `code` diagnostic; check that
    re-analysis drops exactly that diagnostic (and any the edit's own text carried)."""
    before = await doc.diagnostics()
    target, actions = await actions_for(doc, code)
    (action,) = [a for a in actions if a.title == title]
    assert action.edit is not None
    edits = workspace_edits(action.edit, doc.uri)
    assert len(edits) == 1
    doc.set_text(apply_text_edits(doc.text, edits))
    after = await doc.diagnostics()
    touched = edits[0].range
    kept = [
        (d.code, d.message)
        for d in before
        if d is not target and not (touched.start.line <= d.range.start.line <= touched.end.line)
    ]
    assert [(d.code, d.message) for d in after] == kept
    return doc.text


async def test_pto140_names_the_region(client: RecordingClient) -> None:
    body = """
        with pl.graph():  # the band
            with pl.at(level=pl.Level.CORE_GROUP):
                b = pl.load(w, [0, 0], [64, 128])
                pl.store(b, [0, 0], acc)
    """
    doc = open_doc(client, program(body))
    fixed = await apply_fix(doc, "PTO140", 'Name the region: pl.graph("region")')
    assert fixed == with_header(program(body.replace("pl.graph()", 'pl.graph("region")')))
    doc.close()


async def test_pto146_unwraps_the_inner_graph_keeping_its_comments(client: RecordingClient) -> None:
    body = """
        with pl.graph("outer"):
            # the inner region
            with pl.graph("inner"):  # why nested
                with pl.at(level=pl.Level.CORE_GROUP):
                    b = pl.load(w, [0, 0], [64, 128])  # load
                    pl.store(b, [0, 0], acc)
    """
    unwrapped = """
        with pl.graph("outer"):
            # the inner region
            # why nested
            with pl.at(level=pl.Level.CORE_GROUP):
                b = pl.load(w, [0, 0], [64, 128])  # load
                pl.store(b, [0, 0], acc)
    """
    doc = open_doc(client, program(body))
    fixed = await apply_fix(doc, "PTO146", "Unwrap the nested pl.graph region")
    assert fixed == with_header(program(unwrapped))
    doc.close()


@pytest.mark.parametrize(
    ("code", "declared"),
    [
        ("PTO302", "pl.set_cache_policy(v, pl.CachePolicy.BYPASS)"),
        ("PTO303", "pl.set_cache_policy(acc, pl.CachePolicy.BYPASS)"),
    ],
)
async def test_cache_policy_errors_drop_the_declaration(
    client: RecordingClient, code: str, declared: str
) -> None:
    body = f"""
        with pl.at(level=pl.Level.CORE_GROUP):
            # policy for the scope
            {declared}
            b = pl.load(w, [0, 0], [64, 128])
            c = pl.load(acc, [0, 0], [64, 128])
            pl.store(pl.add(b, c), [0, 0], acc)
    """
    doc = open_doc(client, program(body))
    fixed = await apply_fix(doc, code, "Remove the pl.set_cache_policy(...) declaration")
    assert fixed == with_header(program(body.replace(f"            {declared}\n", "")))  # the comment stays
    doc.close()


async def test_pto301_moves_a_live_in_only_definition_before_the_scope(client: RecordingClient) -> None:
    body = """
        with pl.at(level=pl.Level.CORE_GROUP):
            b = pl.load(w, [0, 0], [64, 128])
            # the count
            n = pl.read(cfg, [0])
            pl.store(b, [0, 0], acc)
        m = pl.read(cfg, [n + 1])
    """
    moved = """
        # the count
        n = pl.read(cfg, [0])
        with pl.at(level=pl.Level.CORE_GROUP):
            b = pl.load(w, [0, 0], [64, 128])
            pl.store(b, [0, 0], acc)
        m = pl.read(cfg, [n + 1])
    """
    doc = open_doc(client, program(body))
    fixed = await apply_fix(doc, "PTO301", "Move 'n' before the scope")
    assert fixed == with_header(program(moved))
    doc.close()


async def test_pto301_is_not_fixed_when_the_definition_reads_scope_values(client: RecordingClient) -> None:
    body = """
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(w, [0, 0], [64, 128])
            n = pl.read(t, [0, 0])
            pl.store(t, [0, 0], acc)
        m = pl.read(cfg, [n + 1])
    """
    doc = open_doc(client, program(body))
    _, actions = await actions_for(doc, "PTO301")
    assert actions == []
    doc.close()


async def test_pto121_drops_role(client: RecordingClient) -> None:
    body = """
        with pl.at(level=pl.Level.CORE_GROUP, role=pl.Role.Orchestrator):
            b = pl.load(w, [0, 0], [64, 128])
            pl.store(b, [0, 0], acc)
    """
    doc = open_doc(client, program(body))
    fixed = await apply_fix(doc, "PTO121", "Remove role= (not supported with level=pl.Level.CORE_GROUP)")
    assert fixed == with_header(program(body.replace(", role=pl.Role.Orchestrator", "")))
    doc.close()


SPLIT_WITH_SLOTS = """
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN, slot_num=4)]):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                b = pl.load(w, [0, 0], [64, 128])
                pl.store(b, [0, 0], acc)
"""


async def test_pto171_drops_the_split_entry(client: RecordingClient) -> None:
    doc = open_doc(client, program(SPLIT_WITH_SLOTS))
    fixed = await apply_fix(doc, "PTO171", "Remove pl.split(...) from optimizations")
    expected = SPLIT_WITH_SLOTS.replace(", optimizations=[pl.split(pl.SplitMode.UP_DOWN, slot_num=4)]", "")
    assert fixed == with_header(program(expected))
    doc.close()


async def test_pto171_turns_a_split_with_slots_into_cross_core_slot(client: RecordingClient) -> None:
    doc = open_doc(client, program(SPLIT_WITH_SLOTS))
    fixed = await apply_fix(doc, "PTO171", "Replace with pl.cross_core_slot(slot_num=4)")
    expected = SPLIT_WITH_SLOTS.replace(
        "pl.split(pl.SplitMode.UP_DOWN, slot_num=4)", "pl.cross_core_slot(slot_num=4)"
    )
    assert fixed == with_header(program(expected))
    doc.close()


async def test_pto171_keeps_the_other_optimizations(client: RecordingClient) -> None:
    body = """
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.NONE), pl.cross_core_slot(slot_num=2)]):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                b = pl.load(w, [0, 0], [64, 128])
                pl.store(b, [0, 0], acc)
    """
    doc = open_doc(client, program(body))
    _, actions = await actions_for(doc, "PTO171")
    assert [a.title for a in actions] == ["Remove pl.split(...) from optimizations"]
    fixed = await apply_fix(doc, "PTO171", "Remove pl.split(...) from optimizations")
    assert fixed == with_header(program(body.replace("pl.split(pl.SplitMode.NONE), ", "")))
    doc.close()


async def test_no_actions_away_from_fixable_diagnostics(client: RecordingClient) -> None:
    doc = open_doc(client, program("        m = 1\n"))
    await doc.diagnostics()
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri),
            range=types.Range(
                start=types.Position(line=0, character=0), end=types.Position(line=9, character=0)
            ),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert list(found or []) == []
    doc.close()
