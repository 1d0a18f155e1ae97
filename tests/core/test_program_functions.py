"""PTO179: what the parser resolves against a program's own functions — a `self.f` call or
launch must name one, and a program class must define at least one."""

from __future__ import annotations

from outline_cases import HEADER, T64, run

KERNEL = f"""
@pl.function(type=pl.FunctionType.InCore)
def kernel(self, x: {T64}) -> {T64}:
    return x
"""


def test_a_call_of_an_undefined_program_function_is_pto179_at_the_callee() -> None:
    r = run(
        KERNEL
        + f"""
@pl.function(type=pl.FunctionType.Orchestration)
def main(self, x: {T64}) -> {T64}:
    y = {{|f:self.kernal|}}(x)
    return y
"""
    )
    d = r.only("PTO179")
    assert d.span == r.range("f") and d.message == "Function 'kernal' not defined in program"
    assert d.hint == "did you mean 'self.kernel'?"


def test_a_launch_of_an_undefined_program_function_is_pto179() -> None:
    r = run(
        KERNEL
        + f"""
@pl.function(type=pl.FunctionType.Orchestration)
def main(self, x: {T64}) -> {T64}:
    with pl.manual_scope():
        y, tid = pl.submit({{|f:self.missing|}}, x)
    return x
"""
    )
    assert r.only("PTO179").span == r.range("f")


def test_a_program_class_without_functions_is_pto179_at_its_name() -> None:
    r = run(
        HEADER
        + "@pl.program\nclass {|name:Empty|}:\n    ROWS = 4\n\n    def helper(self):\n        return 1\n"
    )
    d = r.only("PTO179")
    assert (
        d.span == r.range("name") and "Class 'Empty' contains no @pl.function decorated methods" in d.message
    )


def test_calls_and_launches_of_defined_functions_are_accepted() -> None:
    r = run(
        KERNEL
        + f"""
@pl.function(type=pl.FunctionType.Orchestration)
def main(self, x: {T64}) -> {T64}:
    y = self.kernel(x)
    with pl.manual_scope():
        z, tid = pl.submit(self.kernel, y)
    return z
"""
    )
    assert r.errors == []
