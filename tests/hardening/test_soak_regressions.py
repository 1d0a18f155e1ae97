"""False positives found by running the analysis over pypto-lib (models the real compiler
accepts), each pinned by a small program in the same shape."""

from __future__ import annotations

from pypto_core.analysis import analyse_source
from pypto_core.results import FileAnalysis

from markers import extract


def analyse(source: str) -> tuple[FileAnalysis, object]:
    marked = extract(source)
    return analyse_source(marked.text), marked


def codes(analysis: FileAnalysis) -> list[str]:
    return [d.code for d in analysis.diagnostics]


def test_unroll_bound_imported_from_another_module_is_a_constant() -> None:
    analysis, _ = analyse(
        """
        import pypto.language as pl
        from settings import BLOCKS, MODEL as CFG

        @pl.program
        class P:
            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                for i in pl.unroll(BLOCKS):
                    x = pl.add(x, x)
                for j in pl.unroll(CFG.layers // 2):
                    x = pl.add(x, x)
                return x
        """
    )
    assert "PTO192" not in codes(analysis)


def test_unroll_bound_read_from_a_parameter_is_still_reported() -> None:
    analysis, marked = analyse(
        """
        import pypto.language as pl

        @pl.program
        class P:
            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
                for i in pl.unroll([|n + 1|]):
                    x = pl.add(x, x)
                return x
        """
    )
    assert [(d.code, d.span) for d in analysis.diagnostics] == [("PTO192", marked.range)]


DEPS_SOURCE = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        tids = pl.array.create(4, pl.TASK_ID)
        for k in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP) as tid:
                x = pl.add(x, x)
            tids[k] = tid
        with pl.at(level=pl.Level.CORE_GROUP, deps=[tids[0], None]):
            x = pl.add(x, x)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[tids[i] for i in range(4)]):
            x = pl.add(x, x)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[tids]):
            x = pl.add(x, x)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[{|bad:3|}]):
            x = pl.add(x, x)
        return x
"""


def test_deps_accept_array_elements_comprehensions_and_whole_arrays() -> None:
    analysis, marked = analyse(DEPS_SOURCE)
    found = [(d.code, d.span) for d in analysis.diagnostics if d.code == "PTO125"]
    assert found == [("PTO125", marked.named["bad"])]


def test_a_spliced_inline_helper_local_is_shown_by_its_own_name() -> None:
    analysis, marked = analyse(
        """
        import pypto.language as pl

        @pl.jit.inline
        def helper(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            for b in pl.spmd(4, name_hint="first"):
                [|row = b * 16|]
                out[row : row + 16, :] = pl.slice(a, [16, 64], [row, 0])
            out[row : row + 16, :] = pl.slice(a, [16, 64], [0, 0])
            return out

        @pl.jit
        def entry(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            out = helper(a, out)
            return out
        """
    )
    pto301 = [d for d in analysis.diagnostics if d.code == "PTO301"]
    assert [(d.span, d.message.split("'")[3]) for d in pto301] == [(marked.range, "row")]


def test_an_spmd_body_launching_a_jit_extern_kernel_is_a_dispatch() -> None:
    analysis, _ = analyse(
        """
        import pypto.language as pl

        @pl.jit.extern(core_type="aiv", source="plan.cpp")
        def plan(lens: pl.Tensor, table: pl.Out[pl.Tensor]) -> pl.Tensor: ...

        @pl.jit
        def entry(lens: pl.Tensor[[64], pl.INT32], table: pl.Out[pl.Tensor[[64], pl.INT32]]):
            with pl.spmd(1, name_hint="planner") as tid:
                table = plan(lens, table)
            return table
        """
    )
    assert "PTO156" not in codes(analysis)


def test_min_of_an_imported_constant_and_a_scalar_is_a_scalar_op() -> None:
    analysis, _ = analyse(
        """
        import pypto.language as pl
        from settings import WIDTH

        @pl.jit
        def entry(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]):
            for k in pl.range(4):
                rows = pl.min(WIDTH, n - k)
                with pl.at(level=pl.Level.CORE_GROUP):
                    x = pl.add(x, x)
            return x
        """
    )
    assert "PTO504" not in codes(analysis)


def test_an_spmd_body_launching_an_imported_kernel_is_a_dispatch() -> None:
    analysis, _ = analyse(
        """
        import pypto.language as pl
        from kernels import attention

        @pl.jit
        def entry(q: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]):
            with pl.spmd(8, name_hint="attn") as tid:
                out = attention(q, out)
            return out
        """
    )
    assert "PTO156" not in codes(analysis)
