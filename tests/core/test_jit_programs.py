"""Programs as the compiler builds them: which functions make a program, what of a function's
prologue and body is DSL, and what a scope calling a jit sub-function learns from its declared
signature."""

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


def test_a_func_attr_key_given_twice_is_an_error_at_the_second_call() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.InCore, attrs={{"windowize": False}})
        def kernel(self, a: {T64}, out: pl.Out[{T64}]):
            pl.func_attr({{"split": pl.SplitMode.UP_DOWN}})
            {{|split:pl.func_attr({{"split": pl.SplitMode.LEFT_RIGHT, "windowize": True}})|}}
            out[0:64] = a[0:64]
        """)
    found = [(d.code, d.span, d.message) for d in r.analysis.diagnostics]
    assert found == [
        ("PTO199", r.range("split"), "Duplicate function attribute 'split' in pl.func_attr({...})"),
        ("PTO199", r.range("split"), "Duplicate function attribute 'windowize' in pl.func_attr({...})"),
    ]


def test_a_host_sub_worker_body_is_python_and_is_not_built() -> None:
    r = run(f"""
        @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)
        def verify(f: {T64}):
            import torch
            assert f is not None
            if f is None:
                raise ValueError("no tensor")
        """)
    assert r.analysis.diagnostics == []
    [program] = r.analysis.programs
    [verify] = program.source.functions
    assert verify.body == [] and [p.var.name for p in verify.params] == ["f"]


def test_a_host_sub_worker_declaring_self_is_pto201_at_the_parameter() -> None:
    r = run(f"""
        @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)
        def verify({{|self:self|}}, f: {T64}):
            pass
        """)
    d = r.only("PTO201")
    assert d.span == r.range("self") and "must not declare 'self'" in d.message


def test_a_device_level_sub_worker_written_with_self_drops_it_like_a_method() -> None:
    # only a HOST-level SubWorker keeps its signature as written; below HOST the parser strips
    # a leading `self` as for any method, so the call's arguments map onto `data`, `n`
    r = run(f"""
        @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
        def comm(self, data: pl.InOut[{T64}], n: {T64}) -> {T64}:
            return data

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, data: pl.InOut[{T64}], n: {T64}) -> {T64}:
            data = self.comm(data, n)
            tail = self.comm(data, n)
            return pl.add(n, 1.0)
        """)
    assert r.errors == []
    [program] = r.analysis.programs
    comm = program.source.get("comm")
    assert comm is not None and [p.var.name for p in comm.params] == ["data", "n"]


HELPER_AND_TWO_ENTRIES = f"""
import pypto.language as pl


@pl.jit.inline
def helper(a: {T64}, out: pl.Out[{T64}]) -> {T64}:
    for b in pl.spmd(2, name_hint="shared"):
        out = pl.store(pl.load(a, [b * 32], [32]), [b * 32], out)
    return out


@pl.jit
def first(a: {T64}, out: pl.Out[{T64}]) -> {T64}:
    out = helper(a, out)
    return out


@pl.jit
def second(a: {T64}, out: pl.Out[{T64}]) -> {T64}:
    out = helper(a, out)
    return out
"""


def test_a_kernel_of_a_helper_two_entries_share_is_listed_under_both() -> None:
    r = run(HELPER_AND_TWO_ENTRIES)
    assert r.errors == []
    # the kernel's parent is the wrapper `shared_spmd` in both programs: records equal but for
    # their program
    assert sorted((o.program, o.name) for o in r.analysis.outlined) == [
        ("first", "shared"),
        ("first", "shared_spmd"),
        ("second", "shared"),
        ("second", "shared_spmd"),
    ]


def test_an_entry_a_host_calls_is_also_a_program_of_its_own() -> None:
    # the compiler specialises every @pl.jit entry on its own, and the host with its entries
    r = run(
        HELPER_AND_TWO_ENTRIES
        + f"""

@pl.jit.host
def host(a: {T64}, out: pl.Out[{T64}]) -> {T64}:
    out = first(a, out)
    return out
"""
    )
    assert [p.source.name for p in r.analysis.programs] == ["first", "second", "host"]
    host = next(p for p in r.analysis.programs if p.source.name == "host")
    assert {f.name for f in host.source.functions} == {"host", "first"}
    assert sorted(o.program for o in r.analysis.outlined if o.name == "shared") == ["first", "host", "second"]


KEYWORD_CALLS = f"""
import pypto.language as pl


@pl.jit.inline
def helper(a: {T64}, out: pl.Out[{T64}], scale: pl.Scalar[pl.FP32]) -> {T64}:
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="in_helper"):
        out = pl.store(pl.mul(pl.load(a, [0], [64]), scale), [0], out)
    return out


@pl.jit.incore
def kernel(a: {T64}, out: pl.Out[{T64}]) -> {T64}:
    out = pl.store(pl.load(a, [0], [64]), [0], out)
    return out


@pl.jit
def entry(x: {T64}, y: pl.Out[{T64}], z: pl.Out[{T64}]) -> {T64}:
    y = helper(x, scale=2.0, out=y)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="calls_kernel"):
        z = kernel(out=z, a=x)
    return z
"""


def test_keyword_arguments_of_a_jit_call_bind_to_the_declared_parameters() -> None:
    # the specialiser rewrites `dep(a, out=o)` to `self.dep(a, o)`, by declaration order
    r = run(KEYWORD_CALLS)
    assert r.errors == []
    assert r.params("in_helper") == [("x", "In"), ("y", "Out")]
    assert r.params("calls_kernel") == [("x", "In"), ("z", "Out")]


def test_a_keyword_naming_no_parameter_of_an_inline_helper_is_pto413() -> None:
    r = run(
        KEYWORD_CALLS.replace("y = helper(x, scale=2.0, out=y)", "{|call:y = helper(x, scael=2.0, out=y)|}")
    )
    d = r.only("PTO413")
    assert d.span == r.range("call")
    assert "'scael'" in d.message and d.hint is not None and "(a, out, scale)" in d.hint


def test_jit_imported_from_pypto_jit_is_the_dsl_decorator() -> None:
    """`from pypto.jit import jit` (or `pypto.jit.decorator`) binds the decorator `pl.jit`
    re-exports: its kernels are programs, their annotations checked."""
    for module in ("pypto.jit", "pypto.jit.decorator"):
        r = run(f"""
import pypto.language as pl
from {module} import jit


@jit
def kernel(a: pl.Tensor[[64, 128], pl.FP16, [|pl.DN|]], c: pl.Out[pl.Tensor[[64, 128], pl.FP16]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy"):
        t = pl.load(a, [0, 0], [64, 128])
        c = pl.store(t, [0, 0], c)
    return c
""")
        assert r.errors == ["PTO105"] and r.only("PTO105").span == r.range()
        assert [p.name for p in r.analysis.programs] == ["kernel"]
