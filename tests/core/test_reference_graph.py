"""OutlineGraphScopes and the `pl.graph` surface, checked against the cases of the compiler's own
unit tests. The stored copy of that file is in a fork of the compiler
(noabauma/pypto, tests/ut/ir/transforms/test_outline_graph_scopes.py, commit 07a0a9a); the
hw-native-sys/pypto snapshot we mirror predates it.
"""

from __future__ import annotations

from reference_util import clean, outline

V64 = "pl.Tensor[[64], pl.FP32]"


def test_graph_region_becomes_graph_function_named_after_the_region() -> None:
    """compiler: test_outline_simple_graph_scope, test_outlined_function_carries_orchestration_level_and_role,
    test_opaque_parent_is_not_promoted."""
    r = clean(
        f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.graph("layer"):
                y: {V64} = pl.add(x, x)
            return y
        """,
        "PTO504",  # a compute op directly in a Graph body: the compiler's verifier warns too
    )
    assert r.summary() == {"layer": ("Graph", [("x", "In")], ("y",))}
    k = r.fns["layer"]
    assert (k.function_type, k.parent) == ("Graph", "main")
    assert (k.call.targets, k.call.callee, k.call.args) == (("y",), "layer", ("x",))
    layer = r.function("layer")
    assert (layer.level.value if layer.level else None, layer.role.value if layer.role else None) == (
        "CHIP",
        "Orchestrator",
    )
    assert r.promoted == {}
    assert r.function_type("main") == "Opaque"


def test_scope_form_outlines_like_the_decorator_form() -> None:
    """compiler: test_scope_form_matches_decorator_form and
    test_incore_scopes_inside_a_graph_region_outline_afterwards."""
    scope_form = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.graph("layer"):
                with pl.at(level=pl.Level.CORE_GROUP):
                    y: {V64} = pl.add(x, x)
            return y
        """)
    decorator_form = clean(f"""
        @pl.function(type=pl.FunctionType.Graph)
        def layer(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                y: {V64} = pl.add(x, x)
            return y
        """)
    assert scope_form.summary() == {
        "layer": ("Graph", [("x", "In")], ("y",)),
        "layer_incore_0": ("InCore", [("x", "In")], ("y",)),
    }
    assert scope_form.fns["layer_incore_0"].parent == "layer"
    assert scope_form.function_type("layer") == "Graph"
    assert decorator_form.summary() == {"layer_incore_0": ("InCore", [("x", "In")], ("y",))}
    assert scope_form.promoted == decorator_form.promoted == {}


def test_orchestration_parent_stays_orchestration() -> None:
    """compiler: test_orchestration_parent_stays_orchestration."""
    r = clean(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {V64}) -> {V64}:
            with pl.graph("layer"):
                with pl.at(level=pl.Level.CORE_GROUP):
                    y: {V64} = pl.add(x, x)
            return y
        """)
    assert r.function_type("main") == "Orchestration"
    assert r.fns["layer"].parent == "main"


def test_capture_written_by_a_called_kernel_is_inout() -> None:
    """compiler: test_capture_written_only_by_an_inner_kernel_is_not_left_In (callee evidence)."""
    r = clean(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def writer(self, src: {V64}, dst: pl.InOut[{V64}]) -> {V64}:
            t: pl.Tile[[64], pl.FP32] = pl.load(src, [0], [64])
            dst = pl.store(t, [0], dst)
            return dst

        @pl.function
        def main(self, x: {V64}, out: pl.InOut[{V64}]) -> {V64}:
            with pl.graph("layer"):
                out = self.writer(x, out)
            return out
        """)
    k = r.fns["layer"]
    assert k.params == (("x", "In"), ("out", "InOut"))
    assert k.returns == ("out",)  # traced through the callee's returned parameter


def test_capture_read_by_a_submit_predicate_is_inout() -> None:
    """compiler: test_capture_read_by_a_submit_predicate_is_not_left_Out."""
    t = "pl.Tensor[[512, 128], pl.INT32]"
    r = clean(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def gate(self, g: pl.Out[{t}]) -> {t}:
            t = pl.load(g, [0, 0], [128, 128])
            g = pl.store(t, [0, 0], g)
            return g

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, rc: pl.InOut[{t}]) -> {t}:
            with pl.graph("layer"):
                with pl.manual_scope():
                    rc, _ = pl.spmd_submit(self.gate, rc, core_num=1, predicate=(rc[0, 0] > 0))
            return rc
        """)
    assert r.fns["layer"].direction("rc") == "InOut"


def test_two_regions_with_one_name_get_distinct_functions() -> None:
    """compiler: test_two_regions_sharing_a_name_get_distinct_functions."""
    r = clean(
        f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.graph("layer"):
                y: {V64} = pl.add(x, x)
            with pl.graph("layer"):
                z: {V64} = pl.add(y, y)
            return z
        """,
        "PTO504",
    )
    assert r.names == ["layer", "layer_0"]
    assert r.fns["layer_0"].params == (("y", "In"),)
    assert "PTO601" in r.info_codes


def test_region_inside_a_loop_is_outlined_once() -> None:
    """compiler: test_region_inside_a_loop_is_outlined_once."""
    r = clean(
        f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            for _ in pl.range(4):
                with pl.graph("layer"):
                    x = pl.add(x, x)
            return x
        """,
        "PTO504",
    )
    assert r.names == ["layer"]
    assert r.fns["layer"].params == (("x", "In"),)
    assert r.fns["layer"].returns == ("x",)


def test_graph_region_reaching_another_through_an_inline_helper_is_rejected() -> None:
    """compiler: test_nested_graph_regions_are_rejected. The compiler builds the nested IR by
    hand (the parser refuses the textual form); the DSL reaches the same shape by calling an
    Inline helper that holds a region from inside another region, which only the pass sees."""
    r = outline(f"""
        @pl.function(type=pl.FunctionType.Inline)
        def helper(self, x: {V64}) -> {V64}:
            with pl.graph("inner"):
                with pl.at(level=pl.Level.CORE_GROUP):
                    y: {V64} = pl.add(x, x)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {V64}) -> {V64}:
            with pl.graph("outer"):
                z: {V64} = self.helper(x)
            return z
        """)
    assert "PTO401" in r.codes


def test_inline_helper_holding_a_region_is_spliced_before_outlining() -> None:
    """compiler: test_inline_graph_region_is_rejected_by_pre_verification and
    test_inline_graph_region_is_rejected_without_verification. Those run OutlineGraphScopes
    before InlineFunctions on purpose and expect a rejection; in pipeline order (ours) the helper
    is spliced into `main` first, so the region is outlined from `main` and nothing is wrong."""
    r = clean(
        f"""
        @pl.function(type=pl.FunctionType.Inline)
        def helper(self, x: {V64}) -> {V64}:
            with pl.graph("layer"):
                y: {V64} = pl.add(x, x)
            return y

        @pl.function
        def main(self, x: {V64}) -> {V64}:
            z: {V64} = self.helper(x)
            return z
        """,
        "PTO504",
    )
    assert r.names == ["layer"]
    assert r.fns["layer"].parent == "main"
    assert "PTO402" not in r.codes


def test_program_without_a_region_has_no_graph_function() -> None:
    """compiler: TestOutlineGraphScopesFastPath.test_graph_free_program_is_returned_unchanged."""
    r = clean(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                y: {V64} = pl.add(x, x)
            return y
        """)
    assert [o.kind for o in r.fns.values()] == ["InCore"]


# --- the pl.graph surface (TestGraphScopeParsing) --------------------------------------------------


def _graph_error(header: str, *, function: str = "@pl.function", wrap: str = "") -> list[str]:
    """Error codes for `main` holding one region headed `header` (optionally inside `wrap`).
    Warnings are left out: the analysis recovers from the error and may warn about the body."""
    inner = f"""
            with {header}:
                y: {V64} = pl.add(x, x)"""
    if wrap:
        inner = f"""
            with {wrap}:""" + inner.replace("\n", "\n    ")
    return outline(f"""
        {function}
        def main(self, x: {V64}) -> {V64}:{inner}
            return y
        """).errors


def test_region_name_is_required() -> None:
    """compiler: TestGraphScopeParsing.test_region_name_is_required."""
    assert _graph_error("pl.graph()") == ["PTO140"]


def test_region_name_must_be_a_string_literal() -> None:
    """compiler: test_region_name_must_be_a_string_literal."""
    assert _graph_error("pl.graph(4)") == ["PTO141"]


def test_region_inside_an_incore_scope_is_rejected() -> None:
    """compiler: test_rejected_inside_an_incore_scope."""
    assert _graph_error('pl.graph("layer")', wrap="pl.at(level=pl.Level.CORE_GROUP)") == ["PTO145"]


def test_region_inside_a_hierarchy_scope_is_rejected() -> None:
    """compiler: test_rejected_inside_a_hierarchy_scope."""
    codes = _graph_error(
        'pl.graph("layer")',
        function="@pl.function(type=pl.FunctionType.Orchestration)",
        wrap="pl.at(level=pl.Level.HOST)",
    )
    assert codes == ["PTO145"]


def test_region_inside_an_incore_function_is_rejected() -> None:
    """compiler: test_rejected_inside_an_incore_function."""
    r = outline(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: {V64}) -> {V64}:
            with pl.graph("layer"):
                y: {V64} = pl.add(x, x)
            return y
        """)
    assert r.errors == ["PTO144"]  # the region is not reported again by the GraphOutlined verifier
    assert "not valid inside a InCore function" in r.message("PTO144")


def test_textually_nested_regions_are_rejected() -> None:
    """compiler: test_textually_nested_regions_are_rejected_at_parse_time."""
    assert _graph_error('pl.graph("inner")', wrap='pl.graph("outer")') == ["PTO146"]


def test_as_clause_on_a_region_is_rejected() -> None:
    """compiler: test_as_clause_is_rejected."""
    assert _graph_error('pl.graph("layer") as _tid') == ["PTO103"]


def test_graph_method_is_a_chip_level_orchestrator_and_its_scope_is_outlined() -> None:
    """compiler: tests/ut/ir/test_graph_function.py::test_graph_derives_chip_level_and_orchestrator_role
    (and the GraphInProgram fixture it uses)."""
    r = clean("""
        @pl.function(type=pl.FunctionType.Graph)
        def layer(self, a: pl.Tensor[[128, 128], pl.FP32], c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [0, 0], [128, 128])
                pl.store(t, [0, 0], c)
            return c
        """)
    layer = r.function("layer")
    assert (layer.type.value, getattr(layer.level, "value", None), getattr(layer.role, "value", None)) == (
        "Graph",
        "CHIP",
        "Orchestrator",
    )
    assert r.summary() == {"layer_incore_0": ("InCore", [("a", "In"), ("c", "Out")], ("c",))}
    assert r.promoted == {}
