"""PTO203: what the parser checks on a call of a program function before building it (keywords
a plain call / submit / spmd submit takes, the argument count, `attrs=` and `dumps=`), and
PTO125: the `deps=` rules every construct taking one shares (submits and
`pl.system.task_dummy` included)."""

from __future__ import annotations

import pytest
from outline_cases import Run, run

from pypto_core.analysis import DocumentAnalyzer, analyse_source

KERNEL = """
@pl.function(type=pl.FunctionType.InCore)
def k(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
    t = pl.load(x, [0], [64])
    out = pl.store(t, [0], out)
    return out

@pl.function(type=pl.FunctionType.Orchestration)
def chip(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    return x

@pl.function(type=pl.FunctionType.Orchestration)
def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
    with pl.manual_scope():
        tids = pl.array.create(2, pl.TASK_ID)
        a, t0 = pl.submit(self.k, x, out)
        tids[0] = t0
        BODY
    return out
"""


def _run(body: str) -> Run:
    return run(KERNEL.replace("BODY", body))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("out = self.k(x, out, {|r:deps=[t0]|})", "Function 'k' does not accept keyword argument 'deps'"),
        (
            "out, t1 = pl.submit(self.k, x, out, {|r:core_num=4|})",
            "does not accept keyword argument 'core_num'",
        ),
        ("out = self.k(x, out, {|r:dumps=[x]|})", "does not accept keyword argument 'dumps'"),
        ("out = self.k(x, out, {|r:device=0|})", "does not accept keyword argument 'device'"),
        ("out = {|r:self.k(x)|}", "Function 'k' expects 2 argument(s), got 1"),
        ("out, t1 = {|r:pl.submit(self.k)|}", "Function 'k' expects 1..2 argument(s), got 0"),
        (
            "out = self.k(x, out, attrs={{|r:'manual_dep_edges'|}: [t0]})",
            "'manual_dep_edges': ...} is not accepted",
        ),
        ("out, t1 = pl.submit(self.k, x, out, dumps=[{|r:a|}])", "'k' dumps= entry 'a' is not an argument"),
    ],
)
def test_a_program_function_call_the_parser_rejects_is_pto203(body: str, message: str) -> None:
    r = _run(body)
    d = r.only("PTO203")
    assert d.span == r.range("r") and message in d.message
    assert d.hint


@pytest.mark.parametrize(
    "body",
    [
        "out = self.k(x, out, attrs={'core_num': 4})",
        "out, t1 = pl.submit(self.k, x)",  # an Out parameter may be left out of a submit
        "out, t1 = pl.spmd_submit(self.k, x, out, core_num=4, sync_start=True, deps=[t0], dumps=[x])",
        "y = self.chip(x, device=0)",  # an Orchestration function is an Orchestrator: device= is its
    ],
)
def test_a_program_function_call_the_parser_takes_is_not_pto203(body: str) -> None:
    assert "PTO203" not in _run(body).codes


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("out, t1 = pl.submit(self.k, x, out, deps=[{|r:a|}])", "'k' deps= entry 'a' is not a TaskId"),
        (
            "b = pl.system.task_dummy(deps=[{|r:x|}])",
            "'pl.system.task_dummy' deps= entry 'x' is not a TaskId",
        ),
        ("b = {|r:pl.system.task_dummy()|}", "pl.system.task_dummy requires keyword argument 'deps'"),
        (
            "out, t1 = pl.submit(self.k, x, out, deps=[tids, {|r:tids[0]|}])",
            "cannot mix a whole TASK_ID array",
        ),
        ("out, t1 = pl.submit(self.k, x, out, deps=[tids[1], {|r:tids|}])", "got array entry 'tids' after"),
        (
            "out, t1 = pl.submit(self.k, x, out, deps=[tids[i] for i in {|r:pl.range(2)|}])",
            "comprehension iterable is a DSL loop",
        ),
        (
            "for j in pl.range(2):\n            out, t1 = pl.submit(self.k, x, out, "
            "deps=[tids[i] for i in range(2) if {|r:i != j|}])",
            "comprehension filter depends on an IR variable",
        ),
    ],
)
def test_a_deps_entry_the_parser_rejects_is_pto125_at_the_entry(body: str, message: str) -> None:
    r = _run(body)
    d = r.only("PTO125")
    assert d.span == r.range("r") and message in d.message


@pytest.mark.parametrize(
    "body",
    [
        "out, t1 = pl.submit(self.k, x, out, deps=[t0, None, tids[1]])",
        "out, t1 = pl.submit(self.k, x, out, deps=[tids])",
        "out, t1 = pl.submit(self.k, x, out, deps=[tids[i] for i in range(2) if i != 0])",
        "b = pl.system.task_dummy(deps=[])",
    ],
)
def test_deps_the_parser_takes_are_not_pto125(body: str) -> None:
    assert "PTO125" not in _run(body).codes


SHAPES = """
import pypto.language as pl

M = pl.dynamic("M")
N = pl.dynamic("N")
ROWS = pl.dynamic("R")


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[M, 64], pl.FP32]) -> pl.Tensor[[M, N], pl.FP32]:
        return a

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[128, 32], pl.FP32], b: pl.Tensor[[B_ROWS, 64], pl.FP32],
             m: pl.Tensor[[M, 64], pl.FP32], r: pl.Tensor[[ROWS, 64], pl.FP32]) -> pl.Tensor[[128, 32], pl.FP32]:
        c = CALL
        return c
"""


def test_a_dynamic_extent_bound_to_two_literals_by_one_call_is_pto209() -> None:
    r = run(SHAPES.replace("B_ROWS", "127").replace("CALL", "self.k(a, {|r:b|})"))
    d = r.only("PTO209")
    assert d.span == r.range("r") and d.hint
    assert d.message.startswith(
        "Dynamic type variable 'M' has conflicting bindings 128 and 127 that are not provably equal at "
        "argument 1 physical shape[0]"
    )


def test_a_dynamic_extent_bound_to_a_literal_and_another_symbol_is_pto209() -> None:
    """`R` (of `ROWS = pl.dynamic("R")`) is not provably 128: the compiler's parser says so
    (the oracle, on an Inline callee given `[ROWS]` and `[16, 64]`: "conflicting bindings ROWS
    and 16")."""
    r = run(SHAPES.replace("B_ROWS", "128").replace("CALL", "self.k(a, {|r:r|})"))
    d = r.only("PTO209")
    assert d.span == r.range("r")
    assert d.message.startswith("Dynamic type variable 'M' has conflicting bindings 128 and R that are not")


@pytest.mark.parametrize(
    "call", ["self.k(a, b)", "self.k(a, m)", "self.k(m, m)", "self.k(m, a)", "self.k(r, r)"]
)
def test_agreeing_or_symbolic_extents_are_taken(call: str) -> None:
    assert "PTO209" not in run(SHAPES.replace("B_ROWS", "128").replace("CALL", call)).errors


def test_editing_the_callees_parameter_types_reaches_pto209_incrementally() -> None:
    conflicting = SHAPES.replace("B_ROWS", "127").replace("CALL", "self.k(a, b)")
    literal = conflicting.replace(
        "b: pl.Tensor[[M, 64], pl.FP32]) ->", "b: pl.Tensor[[127, 64], pl.FP32]) ->"
    )
    assert literal != conflicting
    analyzer = DocumentAnalyzer()
    for text, expected in ((conflicting, 1), (literal, 0), (conflicting, 1)):
        result = analyzer.update(text)
        assert sum(d.code == "PTO209" for d in result.diagnostics) == expected
        assert result.diagnostics == analyse_source(text).diagnostics
