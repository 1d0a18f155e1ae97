"""Names a DSL body resolves by what the module bound them to (`frontend/declared.py`): calls
of a module-level `@pl.function` (PTO206) or of a plain `def` (PTO207), and the slots of a
`pl.MemRef(...)` declaration a Tile annotation picks (PTO208), in the parser's words."""

from __future__ import annotations

import textwrap

import pytest
from outline_cases import Run, run

from pypto_core.analysis import DocumentAnalyzer, analyse_source

T = "pl.Tensor[[64], pl.FP32]"

EXTERNALS = f"""
import pypto.language as pl


@pl.function
def scale(x: {T}, out: pl.Out[{T}]) -> {T}:
    r: {T} = pl.mul(x, 2.0)
    return r


def plain(x):
    return x


aliased = scale


@pl.program
class P:
    @pl.function
    def main(self, x: {T}, o: pl.Out[{T}]) -> {T}:
        BODY
        return x
"""


def _body(body: str) -> Run:
    return run(EXTERNALS.replace("BODY", body))


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        ("y = {|r:scale(x)|}", "PTO206", "Function 'scale' expects 2 argument(s), got 1"),
        ("y = {|r:aliased(x, o, x)|}", "PTO206", "Function 'scale' expects 2 argument(s), got 3"),
        ("y = scale(x, {|r:out=o|})", "PTO206", "Function 'scale' does not accept keyword argument 'out'"),
        ("y = {|r:plain(x)|}", "PTO207", "Unsupported function call: plain(x)"),
        ("y = pl.add({|r:plain(x)|}, 1.0)", "PTO207", "Unsupported function call: plain(x)"),
    ],
)
def test_a_call_of_a_module_function_the_parser_rejects(body: str, code: str, message: str) -> None:
    r = _body(body)
    d = r.only(code)
    assert d.span == r.range("r") and d.message == message
    assert d.hint


def test_a_well_formed_external_call_and_a_shadowing_local_are_not_reported() -> None:
    r = _body("y = aliased(x, o)\n        plain = x\n        z = pl.add(plain, 1.0)")
    assert not {"PTO206", "PTO207"} & set(r.errors), r.problems


def test_an_external_named_like_a_program_function_conflicts() -> None:
    text = EXTERNALS.replace("BODY", "y = {|r:scale(x, o)|}") + textwrap.indent(
        f"\n@pl.function\ndef scale(self, x: {T}) -> {T}:\n    return x\n", "    "
    )
    r = run(text)
    d = r.only("PTO206")
    assert d.span == r.range("r")
    assert d.message == "External function 'scale' conflicts with program function 'scale'"


def test_two_different_externals_of_one_name_conflict_across_functions() -> None:
    text = f"""
import pypto.language as pl


@pl.function
def helper(x: {T}) -> {T}:
    return x
first = helper


@pl.function
def helper(x: {T}) -> {T}:
    return x


@pl.program
class P:
    @pl.function
    def a(self, x: {T}) -> {T}:
        y = [|first(x)|]
        return y

    @pl.function
    def b(self, x: {T}) -> {T}:
        y = {{|r:helper(x)|}}
        z = helper(y)
        return z
"""
    r = run(text)
    d = r.only("PTO206")
    assert d.message == "Conflicting external functions with name 'helper'"
    assert d.span == r.range("r")
    assert d.related and d.related[0].span.start_line == r.range().start_line


def test_the_rules_hold_in_a_builder_body_with_its_own_definitions() -> None:
    text = f"""
import pypto.language as pl


def test_case():
    @pl.function
    def compute(x: {T}, y: {T}) -> {T}:
        return x

    @pl.program
    class P:
        @pl.function
        def main(self, x: {T}) -> {T}:
            r = {{|r:compute(x)|}}
            return r
"""
    r = run(text)
    assert r.only("PTO206").span == r.range("r")


MEMREFS = """
import pypto.language as pl

l0c = pl.MemRef(slots=2)
scratch = pl.MemRef()
named = pl.MemRef("buf", slots=4)


@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], i: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32, SLOT, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
        return a
"""


@pytest.mark.parametrize(
    ("slot", "message"),
    [
        ("{|r:l0c[2]|}", "Slot index 2 is out of range for 'l0c', declared with 2 slot(s)"),
        ("{|r:named[-1]|}", "Slot index -1 is out of range for 'buf', declared with 4 slot(s)"),
        ("{|r:scratch[0]|}", "'scratch' was declared with a single slot, so it cannot be subscripted"),
    ],
)
def test_a_slot_a_memref_declaration_does_not_have_is_pto208(slot: str, message: str) -> None:
    r = run(MEMREFS.replace("SLOT", slot))
    d = r.only("PTO208")
    assert d.span == r.range("r") and d.message == message and d.hint


@pytest.mark.parametrize("slot", ["l0c[1]", "l0c[i % 2]", "named[3]", "scratch"])
def test_a_slot_in_range_or_a_runtime_index_is_taken(slot: str) -> None:
    assert "PTO208" not in run(MEMREFS.replace("SLOT", slot)).errors


def test_editing_an_externals_signature_reaches_its_callers_incrementally() -> None:
    before = EXTERNALS.replace("BODY", "y = scale(x, o)")
    after = before.replace(f"def scale(x: {T}, out", f"def scale(x: {T}, w: {T}, out")
    analyzer = DocumentAnalyzer()
    analyzer.update(before)
    edited = analyzer.update(after)
    assert [d.code for d in edited.diagnostics if d.code == "PTO206"] == ["PTO206"]
    assert edited.diagnostics == analyse_source(after).diagnostics
