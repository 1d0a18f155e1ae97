"""jit programs as the compiler builds them: which functions make a program, and what a scope
calling a jit sub-function learns from its declared signature."""

from __future__ import annotations

from outline_cases import run

T64 = "pl.Tensor[[64], pl.FP32]"
SIGNATURE = f"a: {T64}, out: pl.Out[{T64}], q: pl.InOut[{T64}]) -> {T64}"


def test_a_scope_calling_a_same_file_extern_kernel_takes_its_declared_directions() -> None:
    r = run(f"""
import pypto.language as pl


@pl.jit.extern(core_type="aiv", source="fused.cpp")
def fused({SIGNATURE}: ...


@pl.jit
def entry(a: {T64}, o: pl.Out[{T64}], r: pl.InOut[{T64}]) -> {T64}:
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="calls_extern"):
        o = fused(a, o, r)
    return o
""")
    assert r.errors == []
    assert r.params("calls_extern") == [("a", "In"), ("o", "Out"), ("r", "InOut")]
    [program] = r.analysis.programs
    assert [f.name for f in program.source.functions] == ["entry"]  # the stub has no body to build


def test_an_extern_kernel_no_entry_calls_makes_no_program() -> None:
    r = run(f"""
import pypto.language as pl


@pl.jit.extern(core_type="aic", source="k.cpp")
def unused({SIGNATURE}: ...
""")
    assert r.analysis.programs == [] and r.errors == []
