"""Hostile inputs get an answer: the analysis completes (bounded by construction, no timing
assertions) and reports what it should instead of crashing or recursing away."""

from __future__ import annotations

from pypto_core.analysis import analyse_source
from pypto_core.results import FileAnalysis

HEADER = "import pypto.language as pl\n\n\n"
SIGNATURE = "def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:"


def program(body: list[str]) -> str:
    """A one-function program whose body is `body` (lines indented relative to the function)."""
    lines = ["@pl.program", "class P:", "    @pl.function", f"    {SIGNATURE}"]
    return HEADER + "\n".join(lines + [f"        {line}" for line in body]) + "\n"


def codes(analysis: FileAnalysis) -> set[str]:
    return {d.code for d in analysis.diagnostics}


def test_thousands_of_nested_brackets_are_a_syntax_error_not_a_crash() -> None:
    analysis = analyse_source(program([f"y = {'(' * 5000}x{')' * 5000}", "return y"]))
    assert analysis.is_dsl
    assert "PTO900" not in codes(analysis)
    assert codes(analysis)  # CPython's parser refuses this depth: reported, not raised


def test_hundreds_of_nested_with_scopes_are_analysed() -> None:
    depth = 200
    body = [("    " * i) + "with pl.at(level=pl.Level.CORE_GROUP):" for i in range(depth)]
    body += ["    " * depth + "x = pl.add(x, x)", "return x"]
    analysis = analyse_source(program(body))
    assert "PTO900" not in codes(analysis)
    assert analysis.diagnostics  # nested CORE_GROUP scopes are a user error, reported


def test_a_one_megabyte_line_is_analysed() -> None:
    long_line = "y = x" + " + x" * 250_000
    analysis = analyse_source(program([long_line, "return y"]))
    assert analysis.is_dsl
    assert "PTO900" not in codes(analysis)


def test_a_hundred_thousand_line_file_is_analysed() -> None:
    filler = [f"# comment line {i}" for i in range(100_000)]
    text = program(["with pl.at(level=pl.Level.CORE_GROUP):", "    y = pl.add(x, x)", "return y"])
    analysis = analyse_source("\n".join(filler) + "\n" + text)
    assert [o.header_span.start_line for o in analysis.outlined] == [100_000 + 7]
    assert codes(analysis) == set()


def test_nul_bytes_bom_crlf_and_lone_cr_are_analysed() -> None:
    clean = program(["with pl.at(level=pl.Level.CORE_GROUP):", "    y = pl.add(x, x)", "return y"])
    assert len(analyse_source(clean).outlined) == 1
    assert len(analyse_source("\ufeff" + clean).outlined) == 1
    assert len(analyse_source(clean.replace("\n", "\r\n")).outlined) == 1
    lone_cr = analyse_source(clean.replace("\n", "\r"))
    assert len(lone_cr.outlined) == 1
    with_nul = analyse_source(clean.replace("y = pl.add", "y = pl.\x00add"))
    assert "PTO900" not in codes(with_nul)
    assert with_nul.diagnostics  # a NUL in source is a syntax error


def test_a_function_that_calls_itself_is_analysed() -> None:
    text = HEADER + "\n".join(
        [
            "@pl.program",
            "class P:",
            "    @pl.function",
            f"    {SIGNATURE}",
            "        y = self.main(x)",
            "        return y",
        ]
    )
    analysis = analyse_source(text)
    assert analysis.is_dsl
    assert "PTO900" not in codes(analysis)


def test_jit_inline_helpers_calling_each_other_in_a_cycle_are_reported() -> None:
    text = HEADER + "\n".join(
        [
            "@pl.jit.inline",
            "def ping(a: pl.Tensor[[64], pl.FP32]):",
            "    return pong(a)",
            "",
            "@pl.jit.inline",
            "def pong(a: pl.Tensor[[64], pl.FP32]):",
            "    return ping(a)",
            "",
            "@pl.jit",
            "def entry(a: pl.Tensor[[64], pl.FP32]):",
            "    b = ping(a)",
            "    return b",
        ]
    )
    analysis = analyse_source(text)
    assert "PTO410" in codes(analysis)  # inline cycle
    assert "PTO900" not in codes(analysis)


def test_ten_thousand_scopes_in_one_function_are_all_outlined() -> None:
    scopes = 10_000
    body: list[str] = []
    for _ in range(scopes):
        body += ["with pl.at(level=pl.Level.CORE_GROUP):", "    x = pl.add(x, x)"]
    analysis = analyse_source(program([*body, "return x"]))
    assert len(analysis.outlined) == scopes
    assert "PTO900" not in codes(analysis)
