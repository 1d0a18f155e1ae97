"""OutlineGraphScopes (spec 004, dsl-reference §4.4, the graph half of Example 5, PTO401/402)."""

from __future__ import annotations

from outline_cases import T64, clean, run

from pypto_core import ir
from pypto_core.passes import PassContext, outline_graph_scopes
from pypto_core.printer import print_function
from pypto_core.span import Span


def test_spec_example_region_in_a_loop_becomes_a_graph_function_called_with_a_carry() -> None:
    r = clean("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def entry(self, w: pl.Tensor[[256, 128], pl.FP32], acc: pl.InOut[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
            for i in pl.range(4):
                with pl.graph("accumulate_band"):
                    base = i * 64
                    with pl.at(level=pl.Level.CORE_GROUP):
                        band = pl.load(w, [base, 0], [64, 128])
                        cur = pl.load(acc, [0, 0], [64, 128])
                        pl.store(pl.add(cur, band), [0, 0], acc)
            return acc
        """)
    k = r.scope("accumulate_band")
    assert (k.kind, k.function_type, k.parent) == ("Graph", "Graph", "entry")
    assert r.params("accumulate_band") == [("i", "In"), ("w", "In"), ("acc", "InOut")]  # capture order
    assert r.returns("accumulate_band") == ("acc",)
    assert r.call("accumulate_band") == "acc = self.accumulate_band(i, w, acc)"
    fn = r.function("accumulate_band")
    assert (fn.type.value, fn.level.value, fn.role.value) == ("Graph", "CHIP", "Orchestrator")
    # the region's InCore scope is outlined from the Graph function, which is not promoted
    assert r.params("accumulate_band_incore_0") == [("w", "In"), ("base", "In"), ("acc", "InOut")]
    assert r.scope("accumulate_band_incore_0").parent == "accumulate_band"
    entry = print_function(r.function("entry"))
    assert "init_values=(acc__ssa_v0,)" in entry and "return acc__rv_v" in entry


def test_example5_cache_policy_on_an_in_param_inside_a_region() -> None:
    r = clean("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, w: pl.Tensor[[256, 128], pl.FP32], acc: pl.InOut[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
            for i in pl.range(4):
                with pl.graph("band"):
                    base = i * 64
                    with pl.at(level=pl.Level.CORE_GROUP):
                        pl.set_cache_policy(w, pl.CachePolicy.BYPASS)
                        b = pl.load(w, [base, 0], [64, 128])
                        c = pl.load(acc, [0, 0], [64, 128])
                        pl.store(pl.add(c, b), [0, 0], acc)
            return acc
        """)
    assert r.params("band") == [("i", "In"), ("w", "In"), ("acc", "InOut")]
    assert r.params("band_incore_0") == [("w", "In"), ("base", "In"), ("acc", "InOut")]
    assert r.function("band_incore_0").attrs["cache_policy"] == [(0, 1)]
    assert r.function("band").type.value == "Graph"  # Graph functions keep their type


def test_two_regions_with_one_name_are_disambiguated_not_merged() -> None:
    r = clean(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {T64}) -> {T64}:
            with pl.graph("layer"):
                with pl.at(level=pl.Level.CORE_GROUP):
                    y = pl.add(x, x)
            with pl.graph("layer"):
                with pl.at(level=pl.Level.CORE_GROUP):
                    z = pl.add(y, y)
            return z
        """)
    assert [n for n in r.names if not n.endswith("_incore_0")] == ["layer", "layer_0"]


def test_opaque_parent_is_not_promoted() -> None:
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}) -> {T64}:
            with pl.graph("g"):
                with pl.at(level=pl.Level.CORE_GROUP):
                    y = pl.add(x, x)
            return y
        """)
    assert r.function("main").type.value == "Opaque"
    assert "main" not in r.promoted


def test_region_nested_through_an_inline_helper_is_pto401_naming_both_regions() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.Inline)
        def helper(self, x: {T64}) -> {T64}:
            with {{|inner:pl.graph("inner")|}}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    y: {T64} = pl.add(x, x)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {T64}) -> {T64}:
            with {{|outer:pl.graph("outer")|}}:
                z: {T64} = self.helper(x)
            return z
        """)
    d = r.only("PTO401")
    assert d.span == r.range("inner")
    assert "'inner'" in d.message and "'outer'" in d.message and "'main'" in d.message
    assert [rel.span for rel in d.related] == [r.range("outer")]
    assert "outer" in r.names  # the analysis carries on


def test_textual_nesting_is_left_to_the_parser() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {T64}) -> {T64}:
            with pl.graph("outer"):
                with pl.graph("inner"):
                    with pl.at(level=pl.Level.CORE_GROUP):
                        y = pl.add(x, x)
            return y
        """)
    assert "PTO146" in r.codes and "PTO401" not in r.codes


def _graph_in(fn_type: ir.FunctionType) -> ir.Program:
    x = ir.Var("x", ir.TensorType((64,), "FP32"))
    y = ir.Var("y", ir.TensorType((64,), "FP32"))
    region = ir.ScopeStmt(
        ir.ScopeKind.Graph, [ir.AssignStmt(y, ir.Call("tensor.add", [x, x], type=x.type))], name_hint="g"
    )
    fn = ir.Function(
        "k", [ir.Param(x)], [region, ir.ReturnStmt([y])], type=fn_type, name_span=Span(3, 8, 3, 9)
    )
    return ir.Program("P", [fn])


def test_region_in_a_function_type_the_pass_skips_is_an_internal_pto402() -> None:
    ctx = PassContext()
    outline_graph_scopes(ctx)(_graph_in(ir.FunctionType.Inline))
    [d] = ctx.diagnostics
    assert (d.code, d.span) == ("PTO402", Span(3, 8, 3, 9))
    assert "Inline" in d.message and ctx.outlined == []


def test_pass_object_leaves_its_input_untouched() -> None:
    program = _graph_in(ir.FunctionType.Orchestration)
    before = print_function(program.functions[0])
    result = outline_graph_scopes()(program)
    assert print_function(program.functions[0]) == before
    assert [f.name for f in result.functions] == ["g", "k"]
