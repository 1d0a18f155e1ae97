"""Bad input never raises out of the front end, and positions stay right (pypto_core.frontend)."""

from __future__ import annotations

import codecs

from hypothesis import given, settings
from hypothesis import strategies as st

from pypto_core.frontend import decode_source, module_context, parse_module, program_plans, split_units
from pypto_core.frontend.source import byte_to_col
from pypto_core.span import Span, split_lines

from markers import extract

PROGRAMS = """\
import pypto.language as pl

@pl.jit
def first(a):
    return a

@pl.jit
def second(a):
    return a
"""


def test_decode_strips_a_utf8_bom() -> None:
    text, diagnostics = decode_source(codecs.BOM_UTF8 + b"import pypto.language as pl\n")
    assert text == "import pypto.language as pl\n" and diagnostics == []


def test_decode_honours_a_coding_cookie() -> None:
    text, diagnostics = decode_source("# -*- coding: latin-1 -*-\nNAME = 'café'\n".encode("latin-1"))
    assert "café" in text and diagnostics == []


def test_undecodable_bytes_give_one_pto002_at_the_first_bad_byte_and_the_rest_is_kept() -> None:
    data = "x = 1\ny = 'é".encode() + b"\xff\xfe" + b"'\nz = 3\n"
    text, diagnostics = decode_source(data)
    assert [d.code for d in diagnostics] == ["PTO002"]
    assert diagnostics[0].span == Span(1, 6, 1, 7)
    assert "utf-8" in diagnostics[0].message and "byte(s) ff " in diagnostics[0].message
    assert text.endswith("'\nz = 3\n") and "\ufffd" in text


def test_an_unknown_coding_cookie_is_reported_and_utf8_assumed() -> None:
    text, diagnostics = decode_source(b"# coding: no-such-codec\nx = 1\n")
    assert [d.code for d in diagnostics] == ["PTO002"] and text.endswith("x = 1\n")


def test_a_nul_byte_is_reported_at_its_position_and_other_units_are_analysed() -> None:
    m = extract(PROGRAMS.replace("    return a\n", "    x = 1${nul}\n    return a\n", 1), dedent=False)
    text = m.text.replace("x = 1", "x = 1\0", 1)
    units = split_units(text)
    broken = next(u for u in units if u.name == "first")
    assert broken.syntax_error is not None and broken.syntax_error.code == "PTO001"
    line, col = m.point("nul")
    assert broken.syntax_error.span == Span(line, col, line, col + 1)
    ctx, _ = module_context(units)
    assert [p.name for p in program_plans(units, ctx)] == ["second"]


def test_crlf_and_lone_cr_line_ends_give_the_same_positions_as_lf() -> None:
    broken = PROGRAMS.replace("return a\n\n@pl.jit\ndef second", "return a +\n\n@pl.jit\ndef second")
    expected = split_units(broken)
    for line_end in ("\r\n", "\r"):
        units = split_units(broken.replace("\n", line_end))
        assert [(u.start_line, u.end_line, u.name) for u in units] == [
            (u.start_line, u.end_line, u.name) for u in expected
        ]
        assert [u.syntax_error.span if u.syntax_error else None for u in units] == [
            u.syntax_error.span if u.syntax_error else None for u in expected
        ]


def test_a_bom_character_in_editor_text_is_ignored() -> None:
    units = split_units("\ufeff" + PROGRAMS)
    assert all(u.syntax_error is None for u in units) and units[1].name == "first"


def test_tabs_count_as_one_column() -> None:
    m = extract("import pypto.language as pl\n@pl.jit\ndef f(a):\n\tx = a +{|err:*|} 1\n", dedent=False)
    units = split_units(m.text)
    assert units[1].syntax_error is not None and units[1].syntax_error.span == m.named["err"]


def test_non_ascii_text_gives_code_point_columns() -> None:
    m = extract("import pypto.language as pl\n@pl.jit\ndef f(a):\n    s = 'é𝄞' +{|err:*|} 1\n", dedent=False)
    units = split_units(m.text)
    assert units[1].syntax_error is not None and units[1].syntax_error.span == m.named["err"]
    assert byte_to_col("é𝄞x", len("é𝄞".encode())) == 2


def test_deep_nesting_is_a_diagnostic_not_a_crash() -> None:
    deep = "import pypto.language as pl\nx = " + "(" * 300 + "1" + ")" * 300 + "\n" + PROGRAMS
    units = split_units(deep)
    assert units[1].syntax_error is not None and units[1].syntax_error.code == "PTO001"
    assert units[1].syntax_error.span.start_line == 1
    deeper = "import pypto.language as pl\nx = " + "-" * 200_000 + "1\n"
    errors = [u.syntax_error for u in split_units(deeper) if u.syntax_error]
    assert [e.code for e in errors] == ["PTO001"] and errors[0].span.start_line == 1


def test_a_one_megabyte_line_is_handled() -> None:
    line = "BIG = '" + "x" * 1_000_000 + "'\n"
    units = split_units(PROGRAMS + line)
    assert units[-1].syntax_error is None and units[-1].end_line == units[-1].start_line + 1
    ctx, _ = module_context(units)
    assert ctx.constants["BIG"] == "x" * 1_000_000


def test_parse_module_on_garbage_never_raises_and_reports_pto001() -> None:
    garbage = "import pypto.language as pl\n" + "\0\x01\x02 def class ((( '''\n@@@\n\r\r\t\t)))\n"
    result = parse_module(garbage)
    assert result.is_dsl and result.programs == []
    assert {d.code for d in result.diagnostics} == {"PTO001"}


_DSL_FRAGMENTS = st.sampled_from(
    [
        "import pypto.language as pl\n",
        "@pl.program\nclass P:\n",
        "    @pl.function(type=pl.FunctionType.InCore)\n",
        "    def main(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n",
        "@pl.jit\ndef entry(a):\n",
        "@pl.inline\ndef helper(a):\n",
        "        with pl.at(level=pl.Level.CORE_GROUP):\n",
        "            t = pl.load(a, [0], [64])\n",
        "        return helper(a)\n",
        "    return entry(a)\n",
        "        for i in pl.range(4):\n",
        "x = (",
        ")",
        "'",
        "\n",
        "\r",
        "\t",
        "é",
        "\0",
        "ROWS = 64\n",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_DSL_FRAGMENTS, max_size=30).map("".join))
def test_every_diagnostic_of_any_text_lies_inside_the_document(text: str) -> None:
    lines = split_lines(text)
    for diagnostic in parse_module(text).diagnostics:
        span = diagnostic.span
        assert 0 <= span.start_line <= span.end_line < len(lines)
        assert 0 <= span.start_col <= len(lines[span.start_line])
        assert 0 <= span.end_col <= len(lines[span.end_line])
        assert (span.start_line, span.start_col) <= (span.end_line, span.end_col)
        assert diagnostic.code != "PTO900", diagnostic.message
