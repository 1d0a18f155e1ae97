"""File-level assembly of the analysis: what a shared jit helper reports, and where."""

from __future__ import annotations

from pypto_core.analysis import analyse_source

from markers import extract

SHARED_HELPER = """
import pypto.language as pl


@pl.jit.opaque
def helper(x: pl.Tensor[ [64], pl.FP32], out: pl.Out[pl.Tensor[ [64], pl.FP32]]):
    with ${scope}pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0], [64])
        {|n:n = pl.read(x, [0])|}
        pl.store(t, [0], out)
    m = pl.read(x, [n])
    return out


@pl.jit
def first(x: pl.Tensor[ [64], pl.FP32], out: pl.Out[pl.Tensor[ [64], pl.FP32]]):
    out = helper(x, out)
    return out


@pl.jit
def second(x: pl.Tensor[ [64], pl.FP32], out: pl.Out[pl.Tensor[ [64], pl.FP32]]):
    out = helper(x, out)
    return out
"""


def test_a_helper_shared_by_two_jit_entries_is_outlined_in_each_and_its_error_reported_once() -> None:
    # the compiler builds each entry as its own program, the helper's scope in both
    marked = extract(SHARED_HELPER)
    analysis = analyse_source(marked.text)
    assert [p.name for p in analysis.programs] == ["first", "second"]
    assert [(o.name, o.program) for o in analysis.outlined] == [
        ("helper_incore_0", "first"),
        ("helper_incore_0", "second"),
    ]
    assert {o.header_span.start_line for o in analysis.outlined} == {marked.point("scope")[0]}
    (error,) = analysis.diagnostics
    assert (error.code, error.span) == ("PTO301", marked.named["n"])
    assert {(p.program, p.function) for p in analysis.promoted} == {("first", "helper"), ("second", "helper")}


def test_a_scalar_read_from_a_bare_jit_tensor_still_cannot_leave_its_scope() -> None:
    marked = extract(
        """
        import pypto.language as pl


        @pl.jit
        def entry(x: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                {|n:n = pl.read(x, [0])|}
                pl.store(pl.load(x, [0], [64]), [0], out)
            m = pl.read(x, [n])
            return out
        """
    )
    (error,) = analyse_source(marked.text).diagnostics
    assert (error.code, error.span) == ("PTO301", marked.named["n"])


def test_a_graph_region_becomes_a_chip_level_orchestrator() -> None:
    """Spec (OutlineGraphScopes): the Function constructor derives level CHIP and role
    Orchestrator for a Graph function, like a hand-written @pl.jit.graph one."""
    analysis = analyse_source(
        extract(
            """
            import pypto.language as pl

            @pl.program
            class P:
                @pl.function(type=pl.FunctionType.Orchestration)
                def main(self, x: pl.Tensor[ [64], pl.FP32]) -> pl.Tensor[ [64], pl.FP32]:
                    with pl.graph("layer"):
                        y = pl.add(x, x)
                    return y
            """
        ).text
    )
    (graph,) = analysis.outlined
    assert (graph.name, graph.kind, graph.function_type, graph.level, graph.role) == (
        "layer",
        "Graph",
        "Graph",
        "CHIP",
        "Orchestrator",
    )
