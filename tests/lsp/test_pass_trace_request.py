"""The `pypto/passTrace` request (issue 19); the lens is in test_pass_trace_lens.py."""

from __future__ import annotations

from typing import Any

import pytest
from dsl_examples import EXAMPLE_1, EXAMPLE_3
from lsp_session import RecordingClient, code_lenses, open_doc

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def trace(client: RecordingClient, params: dict[str, Any]) -> Any:
    return await client.protocol.send_request_async("pypto/passTrace", params)


async def test_each_stage_of_the_program_with_what_it_changed(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_1)
    [program] = (await trace(client, {"uri": doc.uri})).programs
    assert program.name == "Ex1"
    assert [s.file for s in program.stages][::4] == ["00_frontend.py", "04_after_OutlineHierarchyScopes.py"]
    incore = next(s for s in program.stages if s.key == "incore")
    assert (incore.added, incore.changed, incore.unchanged) == (["main_incore_0", "tail"], ["main"], False)
    assert "def tail(self" in incore.text and "def tail(self" not in program.stages[0].text
    assert program.lastChange == "incore"
    assert "__ssa_v" not in incore.text  # names for people unless asked for raw names
    [raw] = (await trace(client, {"uri": doc.uri, "rawNames": True})).programs
    assert "__ssa_v" in raw.stages[-1].text
    doc.close()


async def test_the_program_under_the_cursor_or_the_one_named(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_1 + "\n\n" + EXAMPLE_3)
    every = (await trace(client, {"uri": doc.uri})).programs
    assert [p.name for p in every] == ["Ex1", "Ex3"]
    under = (await trace(client, {"uri": doc.uri, "position": doc.position("hint")})).programs
    assert [p.name for p in under] == ["Ex1"]
    named = (await trace(client, {"uri": doc.uri, "program": "Ex3"})).programs
    assert [p.name for p in named] == ["Ex3"]
    doc.close()


async def test_a_function_is_traced_alone_and_a_stage_keeps_its_findings(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_1)
    [program] = (await trace(client, {"uri": doc.uri, "function": "main"})).programs
    last = program.stages[-1]
    assert "def main(" in last.text and "def main_incore_0(" in last.text and "def tail(" in last.text
    first = "l.at(level=pl.Level.CORE_GROUP)|}"
    doc.replace(EXAMPLE_1.replace(first, first.replace(")", ', name_hint="tail")')))
    [clashing] = (await trace(client, {"uri": doc.uri})).programs
    incore = next(s for s in clashing.stages if s.key == "incore")
    assert [d.code for d in incore.diagnostics] == ["PTO601"]  # the name collision, reported there
    doc.close()


async def test_an_unknown_document_has_no_trace(client: RecordingClient) -> None:
    assert (await trace(client, {"uri": "file:///nowhere/missing.py"})).programs == []


async def test_the_pass_trace_lens_only_for_clients_that_ask_for_it(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_1)
    await doc.diagnostics()
    assert all(lens.command.command != "pypto.showPassTrace" for lens in await code_lenses(client, doc.uri))
    doc.close()


async def test_only_the_stages_asked_for_carry_their_text(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_1)
    [summary] = (await trace(client, {"uri": doc.uri, "stages": []})).programs
    assert [s.text for s in summary.stages] == [None] * len(summary.stages)
    assert summary.lastChange == "incore"  # what changed is known without any text
    [one] = (await trace(client, {"uri": doc.uri, "stages": ["incore", "00_frontend.py"]})).programs
    assert [s.key for s in one.stages if s.text is not None] == ["frontend", "incore"]
    assert "def tail(self" in next(s.text for s in one.stages if s.key == "incore")
    doc.close()
