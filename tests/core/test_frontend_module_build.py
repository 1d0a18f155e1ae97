"""Program assembly (`build_program` / `parse_module`) with the real body builder."""

from __future__ import annotations

import textwrap

import pytest

from pypto_core import ir
from pypto_core.frontend import (
    build_program,
    module_context,
    parse_module,
    program_plans,
    split_units,
)
from pypto_core.frontend.stmt_memo import StatementReuse
from pypto_core.span import split_lines

from markers import extract

# `[ [` keeps the marker syntax `[[...]]` out of the DSL's nested-list shapes
T = "pl.Tensor[ [64], pl.FP32]"

JIT = """
import pypto.language as pl

@pl.jit.incore
def kernel(a: T64, out: pl.Out[T64]) -> T64:
    t = pl.load(a, [0], [64])
    out = pl.store(t, [0], out)
    return out
first_kernel = kernel

@pl.jit.incore(level=pl.Level.CORE_GROUP)
def kernel(a: T64, out: pl.Out[T64]) -> T64:
    t = pl.load(a, [0], [64])
    out = pl.store(t, [0], out)
    return out

@pl.jit
def entry(a: T64, out: pl.Out[T64]) -> T64:
    out = kernel(a, out)
    out = first_kernel(a, out)
    return out

@pl.jit.host
def host(a: T64, out: pl.Out[T64]) -> T64:
    out = entry(a, out)
    return out
"""


def _parse(src: str) -> tuple[list[ir.Program], list[str]]:
    result = parse_module(textwrap.dedent(src).replace("T64", T))
    return result.programs, [d.code for d in result.diagnostics]


def _calls(fn: ir.Function) -> list[str | None]:
    return [s.value.callee for s in fn.body if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call)]


def test_a_host_program_holds_its_entry_and_kernels_and_a_shared_def_name_gets_a_suffix() -> None:
    programs, codes = _parse(JIT)
    assert codes == []
    entry_alone, host = programs  # the entry is also specialised on its own
    assert entry_alone.name == "entry"
    assert (host.name, host.origin) == ("host", "jit")
    kinds = {f.name: (f.type, f.level, f.role) for f in host.functions}
    assert kinds == {
        "host": (ir.FunctionType.Opaque, ir.Level.HOST, ir.Role.Orchestrator),
        "entry": (ir.FunctionType.Orchestration, None, None),
        "kernel": (ir.FunctionType.InCore, ir.Level.CORE_GROUP, None),  # the later def wins the name
        "kernel__2": (ir.FunctionType.InCore, None, None),  # reached through `first_kernel`
    }
    entry = host.get("entry")
    assert entry is not None and _calls(entry) == ["kernel", "kernel__2"]
    host_fn = host.get("host")
    assert host_fn is not None and _calls(host_fn) == ["entry"]


def test_an_entry_alone_is_a_program_named_after_it() -> None:
    programs, codes = _parse(JIT.split("@pl.jit.host")[0])
    assert codes == []
    assert [(p.name, sorted(f.name for f in p.functions)) for p in programs] == [
        ("entry", ["entry", "kernel", "kernel__2"])
    ]


def test_program_methods_subworkers_and_constants() -> None:
    programs, codes = _parse(
        """
        import pypto.language as pl
        ROWS = 32
        COLS = ROWS * 2

        @pl.program
        class P:
            WIDTH = COLS + 1

            @pl.function(role=pl.Role.SubWorker)
            def sub(a: pl.Tensor[[ROWS, COLS], pl.FP32]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
                return a

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[ROWS, WIDTH], pl.FP32]) -> pl.Tensor[[ROWS, WIDTH], pl.FP32]:
                b = self.sub(a)
                return b
        """
    )
    assert codes == []
    (program,) = programs
    sub, main = program.get("sub"), program.get("main")
    assert sub is not None and main is not None
    assert [p.var.name for p in sub.params] == ["a"]  # written without `self`
    assert sub.params[0].var.type == ir.TensorType((32, 64), "FP32")
    assert main.params[0].var.type == ir.TensorType((32, 65), "FP32")
    assert _calls(main) == ["sub"]


def test_a_syntax_error_in_one_program_leaves_the_other_program_built() -> None:
    m = extract(
        """
        import pypto.language as pl

        @pl.program
        class Broken:
            @pl.function
            def main(self, a):
                return a +{|err:*|} 2

        @pl.program
        class Good:
            @pl.function
            def main(self, a):
                return a
        """
    )
    result = parse_module(m.text)
    assert [p.name for p in result.programs] == ["Good"]
    assert [(d.code, d.span) for d in result.diagnostics] == [("PTO001", m.named["err"])]


def test_an_unexpected_exception_is_one_pto900_on_that_program_and_others_still_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pypto_core.frontend import builder

    real = builder.build_function

    def explode(start: builder.FunctionStart, reuse: StatementReuse | None = None) -> ir.Function:
        if start.node.name == "boom":
            raise RuntimeError("kaboom")
        return real(start, reuse)

    monkeypatch.setattr(builder, "build_function", explode)
    m = extract(
        """
        import pypto.language as pl

        @pl.jit
        def {|header:boom|}(a):
            return a

        @pl.jit
        def fine(a):
            return a
        """
    )
    result = parse_module(m.text)
    assert [(p.name, len(p.functions)) for p in result.programs] == [("boom", 0), ("fine", 1)]
    assert [(d.code, d.span) for d in result.diagnostics] == [("PTO900", m.named["header"])]
    assert "kaboom" in result.diagnostics[0].message


def test_a_bom_in_the_analysed_lines_does_not_move_columns() -> None:
    text = textwrap.dedent(JIT).replace("T64", T)
    units = split_units("\ufeff" + text)
    ctx, _ = module_context(units)
    plan = program_plans(units, ctx)[-1]
    with_bom, _ = build_program(plan, units, ctx, split_lines("\ufeff" + text))
    plain_units = split_units(text)
    plain, _ = build_program(program_plans(plain_units, ctx)[-1], plain_units, ctx, split_lines(text))
    assert [f.name_span for f in with_bom.functions] == [f.name_span for f in plain.functions]
