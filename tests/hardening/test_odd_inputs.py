"""Inputs the first hardening list missed (issue 20): each used to fail a request, crash the
CLI or misplace a diagnostic."""

from __future__ import annotations

import io
import json
import sys
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec
from server_driver import RawServer
from test_adversarial import codes, program

from pypto_core import cli
from pypto_core.analysis import analyse_source
from pypto_core.span import split_lines
from pypto_lsp.convert import PositionMapper
from pypto_lsp.settings import MAX_DEBOUNCE_MS, Settings

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from gen_dsl import with_one_program


def test_a_huge_debounce_is_clamped() -> None:
    settings = Settings().overlaid({"analysis": {"debounceMs": 10**400}})
    assert settings.debounce_ms == MAX_DEBOUNCE_MS
    assert settings.debounce_seconds == MAX_DEBOUNCE_MS / 1000


def _check(tmp_path: Path, data: bytes) -> tuple[int, list[dict[str, Any]]]:
    path = tmp_path / "odd.py"
    path.write_bytes(data)
    out = io.StringIO()
    with redirect_stdout(out):
        status = cli.main(["--format", "json", str(path)])
    return status, json.loads(out.getvalue())["files"][0]["diagnostics"]


def hex_constant_program(digits: str) -> str:
    """A one-scope program after `N = 0x<digits>`."""
    return with_one_program(f"\nN = 0x{digits}\n")


def test_a_huge_hex_constant_is_unknown_not_a_crash(tmp_path: Path) -> None:
    """`N = 0x` + 3,600 digits: its decimal form is past Python's int-to-str limit, and the
    module fingerprint printed it (a traceback and exit 1; the server published nothing)."""
    status, diagnostics = _check(tmp_path, hex_constant_program("f" * 3600).encode())
    assert (status, diagnostics) == (0, [])
    assert analyse_source(hex_constant_program("f" * 3600)).outlined


@pytest.mark.parametrize("codec", ["rot13", "zlib", "base64", "hex"])
def test_a_coding_cookie_naming_a_non_text_codec_is_pto002(tmp_path: Path, codec: str) -> None:
    status, diagnostics = _check(tmp_path, f"# coding: {codec}\nx = 1\n".encode())
    assert status == 1
    assert [(d["code"], d["range"]["start"]["line"]) for d in diagnostics] == [("PTO002", 0)]


def test_a_lone_surrogate_is_reported_where_it_is() -> None:
    text = hex_constant_program("1").replace("y = pl.add(x, x)", 'y = pl.add(x, x)  # "\ud800"')
    line = text.split("\n").index(next(t for t in text.split("\n") if "\ud800" in t))
    (diagnostic,) = [d for d in analyse_source(text).diagnostics if d.code == "PTO001"]
    assert (diagnostic.span.start_line, diagnostic.span.start_col) == (
        line,
        text.split("\n")[line].index("\ud800"),
    )


def test_a_bom_kept_in_the_buffer_does_not_shift_line_0_columns() -> None:
    text = "\ufeffy = 1 +\nimport pypto.language as pl\n"
    (diagnostic,) = analyse_source(text).diagnostics
    mapper = PositionMapper(PositionCodec(), split_lines(text))
    assert mapper.range(diagnostic.span).start == types.Position(line=0, character=len("\ufeffy = 1 +"))
    assert mapper.to_core(types.Position(line=0, character=1)) == (0, 0)  # after the BOM: `y`


def _literal_program(literal: str) -> str:
    scope = "with pl.at(level=pl.Level.CORE_GROUP):"
    return program(
        ["n: pl.Scalar[pl.INT64] = 3", scope, f"    k = {literal}", "    x = pl.add(x, x)", "return x"]
    )


def test_a_twenty_thousand_digit_decimal_literal_is_pto001_at_the_literal() -> None:
    """CPython refuses an integer literal past its int-to-str limit (4,300 digits) as a syntax
    error: reported where the literal is, the rest of the file analysed."""
    text = _literal_program("1" * 20_000)
    analysis = analyse_source(text)
    (error,) = [d for d in analysis.diagnostics if d.code == "PTO001"]
    assert split_lines(text)[error.span.start_line].lstrip().startswith("k = 111")
    assert "PTO900" not in codes(analysis)


async def test_hover_and_the_outlined_program_answer_on_a_twenty_thousand_digit_hex_literal() -> None:
    """Issue 20: "a 20,000-digit literal in a scope breaks hover and the outlined program" (its
    decimal form is past the int-to-str limit). Not reproduced: pinned."""
    text = _literal_program("0x" + "f" * 20_000)
    header = next(line for line in split_lines(text) if "with pl.at" in line)
    line = split_lines(text).index(header)
    uri = "file:///tmp/pypto-lsp-tests/literal.py"
    server = await RawServer.start()
    await server.initialize()
    server.open(uri, text)
    assert "PTO900" not in {d["code"] for d in await server.published(uri)}
    position = {"line": line, "character": header.index("with") + 1}
    server.send(
        {
            "id": 1,
            "method": "textDocument/hover",
            "params": {"textDocument": {"uri": uri}, "position": position},
        }
    )
    server.send({"id": 2, "method": "pypto/outlinedProgram", "params": {"uri": uri}})
    hover, outlined = await server.answer(1), await server.answer(2)
    assert "error" not in hover and hover["result"] is not None
    assert "error" not in outlined and "main_incore_0" in outlined["result"]["text"]
    server.stdin.close()
    assert await server.exit_code(within=30) is not None
