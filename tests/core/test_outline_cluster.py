"""OutlineClusterScopes: `pl.cluster()` -> Group, then standalone `pl.spmd` -> Spmd
(dsl-reference §4.6, Example 4, PTO405/406)."""

from __future__ import annotations

from outline_cases import T64, clean, run

from pypto_core import ir
from pypto_core.passes import PassContext, outline_cluster_scopes

T512 = "pl.Tensor[[512, 128], pl.FP32]"


def test_example4_spmd_loops_in_two_functions_collide_across_functions() -> None:
    body = f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def {{fn}}(self, a: {T512}, out: pl.Out[{T512}]) -> {T512}:
            for i in pl.spmd(4, name_hint="proj"):
                t = pl.load(a, [i * 128, 0], [128, 128])
                out = pl.store(t, [i * 128, 0], out)
            return out
        """
    r = clean(body.format(fn="b_main") + body.format(fn="a_main"))
    assert sorted(r.names) == ["b_main_proj", "b_main_proj_spmd", "proj", "proj_spmd"]
    for name in r.names:
        assert r.params(name) == [("a", "In"), ("out", "Out")]
        assert r.returns(name) == ("out",)
    assert (r.scope("proj").kind, r.scope("proj_spmd").kind) == ("InCore", "Spmd")
    assert r.scope("proj").parent == "proj_spmd" and r.scope("proj_spmd").parent == "a_main"
    assert r.scope("b_main_proj_spmd").parent == "b_main"
    assert r.call("proj_spmd") == 'out = self.proj_spmd(a, out, attrs={"core_num": 4})'
    assert r.call("proj") == "out = self.proj(a, out)"
    assert r.function("a_main").type.value == "Orchestration"
    infos = [d for d in r.analysis.diagnostics if d.code == "PTO601"]
    assert {d.data["name"] for d in infos} == {"b_main_proj", "b_main_proj_spmd"}


def test_cluster_becomes_a_group_and_its_parent_keeps_its_type() -> None:
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with pl.cluster():
                with pl.at(level=pl.Level.CORE_GROUP):
                    pl.store(pl.load(x, [0], [64]), [0], out)
            return out
        """)
    assert r.scope("main_cluster_0").function_type == "Group"
    assert r.params("main_cluster_0") == [("x", "In"), ("out", "Out")]  # callee Out slot (D5)
    assert r.returns("main_cluster_0") == ("out",)
    assert r.scope("main_incore_0").parent == "main_cluster_0"


def test_spmd_in_a_cluster_is_unwrapped_and_its_block_count_rides_the_dispatch() -> None:
    r = clean(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {T64}, n: pl.Scalar[pl.INDEX], out: pl.Out[{T64}]) -> {T64}:
            with pl.cluster():
                with pl.spmd(n * 2, sync_start=True):
                    with pl.at(level=pl.Level.CORE_GROUP):
                        pl.store(pl.load(x, [0], [64]), [0], out)
            return out
        """)
    group = r.function("main_cluster_0")
    assert group.attrs.get("spmd_unwrapped") is True
    call = r.call("main_cluster_0")
    assert '"core_num": n * 2' in call and '"sync_start": True' in call
    assert not any(n.endswith("_spmd_0") for n in r.names)


def test_block_count_defined_inside_the_cluster_is_pto405() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {T64}, n: pl.Scalar[pl.INDEX], out: pl.Out[{T64}]) -> {T64}:
            with pl.cluster():
                m = n * 2
                with {{|count:pl.spmd(m)|}}:
                    with pl.at(level=pl.Level.CORE_GROUP):
                        pl.store(pl.load(x, [0], [64]), [0], out)
            return out
        """)
    d = r.only("PTO405")
    assert d.span == r.range("count") and "'m'" in d.message


def _two_spmds_in_a_cluster() -> ir.Program:
    x = ir.Var("x", ir.TensorType((64,), "FP32"))

    def spmd(line: int) -> ir.ScopeStmt:
        span = ir.Span(line, 4, line, 20)
        return ir.ScopeStmt(ir.ScopeKind.Spmd, [], span=span, header_span=span, core_num=ir.Const(4))

    cluster = ir.ScopeStmt(ir.ScopeKind.Cluster, [spmd(3), spmd(5)])
    fn = ir.Function("main", [ir.Param(x)], [cluster], type=ir.FunctionType.Orchestration)
    return ir.Program("P", [fn])


def test_cluster_nested_spmd_with_launch_options_is_an_internal_pto407() -> None:
    program = _two_spmds_in_a_cluster()
    cluster = program.functions[0].body[0]
    assert isinstance(cluster, ir.ScopeStmt)
    cluster.body = cluster.body[:1]
    first = cluster.body[0]
    assert isinstance(first, ir.ScopeStmt)
    first.allow_early_resolve = True
    ctx = PassContext()
    outline_cluster_scopes(ctx)(program)
    assert [(d.code, d.span) for d in ctx.diagnostics] == [("PTO407", ir.Span(3, 4, 3, 20))]


def test_second_spmd_in_one_cluster_is_pto406_at_its_header() -> None:
    ctx = PassContext()
    result = outline_cluster_scopes(ctx)(_two_spmds_in_a_cluster())
    [d] = ctx.diagnostics
    assert (d.code, d.span) == ("PTO406", ir.Span(5, 4, 5, 20))
    assert result.get("main_cluster_0") is not None


def test_standalone_spmd_dispatch_body_becomes_an_spmd_wrapper() -> None:
    r = clean(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: {T64}, out: pl.Out[{T64}]) -> {T64}:
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with pl.spmd(8):
                out = self.kernel(x, out)
            return out
        """)
    assert r.params("main_spmd_0") == [("x", "In"), ("out", "Out")]
    assert r.returns("main_spmd_0") == ("out",)
    assert r.call("main_spmd_0") == 'out = self.main_spmd_0(x, out, attrs={"core_num": 8})'


def test_cluster_and_spmd_counters_are_independent() -> None:
    r = clean(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: {T64}, out: pl.Out[{T64}]) -> {T64}:
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with pl.cluster():
                out = self.kernel(x, out)
            with pl.spmd(2):
                out = self.kernel(x, out)
            return out
        """)
    assert r.names == ["main_cluster_0", "main_spmd_0"]
