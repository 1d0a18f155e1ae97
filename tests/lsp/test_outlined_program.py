"""The `pypto/outlinedProgram` request."""

from __future__ import annotations

import pytest
from dsl_examples import EXAMPLE_1, EXAMPLE_3
from lsp_session import RecordingClient, open_doc

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_returns_the_printed_outlined_program(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_1)
    result = await client.protocol.send_request_async("pypto/outlinedProgram", {"uri": doc.uri})
    lines = result.text.splitlines()
    assert lines[:2] == ["@pl.program", "class Ex1:"]
    defs = [line.strip().split("(")[0] for line in lines if line.strip().startswith("def ")]
    assert defs == ["def main", "def main_incore_0", "def tail"]
    assert "        out = self.main_incore_0(x, off, out)" in lines  # names for people by default
    assert "__" not in result.text
    doc.close()


async def test_several_programs_are_printed_one_after_another(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_1 + "\n\n" + EXAMPLE_3)
    result = await client.protocol.send_request_async("pypto/outlinedProgram", {"uri": doc.uri})
    classes = [line for line in result.text.splitlines() if line.startswith("class ")]
    assert classes == ["class Ex1:", "class Ex3:"]
    doc.close()


async def test_follows_the_current_text(client: RecordingClient) -> None:
    doc = open_doc(client, EXAMPLE_1)
    doc.replace(EXAMPLE_1.replace('"ta${hint}il"', '"renamed"'))
    result = await client.protocol.send_request_async("pypto/outlinedProgram", {"uri": doc.uri})
    assert "def renamed(" in result.text and "def tail(" not in result.text
    doc.close()


async def test_given_the_cursor_it_says_where_the_function_holding_it_is_printed(
    client: RecordingClient,
) -> None:
    doc = open_doc(client, EXAMPLE_1)
    for point, name in (("hint", "tail"), ("first", "main_incore_0")):
        result = await client.protocol.send_request_async(
            "pypto/outlinedProgram", {"uri": doc.uri, "position": doc.position(point)}
        )
        start, end = result.selection.start, result.selection.end
        line = result.text.splitlines()[start.line]
        assert line[start.character : end.character] == name and line.lstrip().startswith(f"def {name}(")
    doc.close()
