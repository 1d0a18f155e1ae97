"""Deep but legal expressions (issue 15, "Inputs that cost too much"): `a and b and ...`,
`a < b < ...` and `n + n + ...` with hundreds or thousands of operands are reported with the
nesting diagnostic (PTO199) or folded, never an internal error (PTO900) nor a RecursionError
out of the analysis, the printer, the outlined program or a request."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from server_driver import RawServer
from test_adversarial import HEADER, codes, program

from pypto_core.analysis import DocumentAnalyzer, analyse_source, outlined_program_text
from pypto_core.results import FileAnalysis

OPERATORS = [" and ", " or ", " < ", " == ", " + "]
SCALAR = "n: pl.Scalar[pl.INT64] = 3"
ADD = "x = pl.add(x, x)"


def chain(operator: str, operands: int) -> str:
    return operator.join(["n"] * operands)


def placements(expression: str) -> Iterator[tuple[str, str]]:
    """(where, file text) with `expression` in a function body, a scope body, a scope's `if`
    condition and a module-level constant."""
    scope = "with pl.at(level=pl.Level.CORE_GROUP):"
    yield "function", program([SCALAR, f"c = {expression}", scope, "    if c:", f"        {ADD}", "return x"])
    yield (
        "scope",
        program([SCALAR, scope, f"    c = {expression}", "    if c:", f"        {ADD}", "return x"]),
    )
    yield "condition", program([SCALAR, scope, f"    if {expression}:", f"        {ADD}", "return x"])
    module = HEADER + f"n = 3\nK = {expression}\n\n\n"
    yield "module", module + program([scope, "    if K:", f"        {ADD}", "return x"]).removeprefix(HEADER)


def _checked(analysis: FileAnalysis) -> str:
    assert "PTO900" not in codes(analysis)
    assert len(analysis.outlined) == 1
    return outlined_program_text(analysis)  # printed: the hover and Outlined Program text


@pytest.mark.parametrize("operator", OPERATORS)
@pytest.mark.parametrize("operands", [150, 1_000, 2_500])
def test_long_chains_are_reported_or_folded_never_an_internal_error(operator: str, operands: int) -> None:
    for where, text in placements(chain(operator, operands)):
        analysis = analyse_source(text)
        printed = _checked(analysis)
        if where == "module":  # folded: the module's constants are evaluated over the tree
            assert codes(analysis) == set(), where
        else:  # in a function: deeper than the builder models, said where it is
            deep = [d for d in analysis.diagnostics if d.code == "PTO199"]
            assert [d.span.start_line for d in deep] == [text.splitlines().index(_line(text, "n" + operator))]
            assert "self.main_incore_0(" in printed, where


def _line(text: str, fragment: str) -> str:
    return next(line for line in text.splitlines() if fragment in line)


def test_a_flat_and_chain_of_ten_thousand_operands_is_reported() -> None:
    """BoolOp and Compare are flat in Python's tree: the parser takes any length."""
    for operator in (" and ", " < "):
        for _, text in placements(chain(operator, 10_000)):
            _checked(analyse_source(text))


def test_short_chains_are_still_analysed() -> None:
    for operator in OPERATORS:
        for where, text in placements(chain(operator, 40)):
            analysis = analyse_source(text)
            assert codes(analysis) == set(), (operator, where)


def test_typing_a_chain_longer_keeps_incremental_equal_to_fresh() -> None:
    analyzer = DocumentAnalyzer()
    for operands in (50, 99, 100, 101, 400, 1_000, 120):
        for _, text in placements(chain(" and ", operands)):
            incremental, fresh = analyzer.update(text), analyse_source(text)
            assert incremental.diagnostics == fresh.diagnostics
            assert outlined_program_text(incremental) == outlined_program_text(fresh)


URI = "file:///tmp/pypto-lsp-tests/deep.py"


async def test_the_server_answers_every_request_on_a_file_with_a_two_thousand_operand_chain() -> None:
    text = next(text for where, text in placements(chain(" and ", 2_000)) if where == "scope")
    header_line = _line(text, "with pl.at")
    line = text.splitlines().index(header_line)
    server = await RawServer.start()
    await server.initialize()
    server.open(URI, text)
    published = await server.published(URI)
    assert {d["code"] for d in published} == {"PTO199"}
    document = {"textDocument": {"uri": URI}}
    everything = {
        "start": {"line": 0, "character": 0},
        "end": {"line": len(text.splitlines()), "character": 0},
    }
    requests = {
        "textDocument/hover": {
            **document,
            "position": {"line": line, "character": header_line.index("with") + 1},
        },
        "textDocument/codeLens": document,
        "textDocument/documentSymbol": document,
        "textDocument/inlayHint": {**document, "range": everything},
        "textDocument/semanticTokens/full": document,
        "textDocument/documentHighlight": {
            **document,
            "position": {"line": line + 1, "character": header_line.index("with") + 4},
        },
        "textDocument/codeAction": {
            **document,
            "range": everything,
            "context": {"diagnostics": published},
        },
        "pypto/outlinedProgram": {"uri": URI},
    }
    for request_id, (method, params) in enumerate(requests.items(), start=1):
        server.send({"id": request_id, "method": method, "params": params})
    answers = {method: await server.answer(i) for i, method in enumerate(requests, start=1)}
    assert {method: "error" in answer for method, answer in answers.items()} == dict.fromkeys(requests, False)
    assert "main_incore_0" in answers["pypto/outlinedProgram"]["result"]["text"]
    assert answers["textDocument/hover"]["result"] is not None
    server.stdin.close()
    assert await server.exit_code(within=30) is not None
