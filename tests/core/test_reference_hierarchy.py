"""OutlineHierarchyScopes, checked against the cases of the compiler's own unit tests
(hw-native-sys/pypto, tests/ut/ir/transforms/test_outline_hierarchy_scopes.py).

Our pipeline runs all four passes, so a case whose compiler test stops after the hierarchy pass
is checked on the final result: hierarchy functions are Opaque with the scope's level and role,
their parent is not promoted, and scopes of other kinds are left to their own passes.
"""

from __future__ import annotations

from reference_util import clean, outline

V64 = "pl.Tensor[[64], pl.FP32]"


def test_orchestrator_scope_becomes_opaque_function_with_level_and_role() -> None:
    """compiler: test_outline_single_orchestrator_scope, test_outline_preserves_parent_function_type."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
                y: {V64} = pl.add(x, x)
            return y
        """)
    assert r.summary() == {"main_host_orch_0": ("Hierarchy", [("x", "In")], ("y",))}
    k = r.fns["main_host_orch_0"]
    assert (k.function_type, k.level, k.role, k.parent) == ("Opaque", "HOST", "Orchestrator", "main")
    assert (k.call.targets, k.call.callee, k.call.args) == (("y",), "main_host_orch_0", ("x",))
    assert r.promoted == {}
    assert r.function_type("main") == "Opaque"


def test_level_only_scope_has_no_role_suffix() -> None:
    """compiler: test_outline_hierarchy_level_only."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.GLOBAL):
                y: {V64} = pl.add(x, x)
            return y
        """)
    k = r.fns["main_global_0"]
    assert (k.level, k.role) == ("GLOBAL", None)
    assert k.params == (("x", "In"),)


def test_counter_is_shared_across_levels_within_a_function() -> None:
    """compiler: test_outline_multiple_sequential_scopes_independent_counter."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CHIP):
                a: {V64} = pl.add(x, x)
            with pl.at(level=pl.Level.GLOBAL, role=pl.Role.Orchestrator):
                z: {V64} = pl.mul(a, a)
            return z
        """)
    assert r.summary() == {
        "main_chip_0": ("Hierarchy", [("x", "In")], ("a",)),
        "main_global_orch_1": ("Hierarchy", [("a", "In")], ("z",)),
    }
    assert r.fns["main_global_orch_1"].call.args == ("a",)


def test_nested_scope_is_named_after_its_outlined_parent() -> None:
    """compiler: test_outline_nested_orchestrator_scopes_chained_name."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.GLOBAL, role=pl.Role.Orchestrator):
                y: {V64} = pl.add(x, x)
                with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
                    z: {V64} = pl.mul(y, y)
            return z
        """)
    assert r.summary() == {
        "main_global_orch_0": ("Hierarchy", [("x", "In")], ("z",)),
        "main_global_orch_0_host_orch_0": ("Hierarchy", [("y", "In")], ("z",)),
    }
    inner = r.fns["main_global_orch_0_host_orch_0"]
    assert inner.parent == "main_global_orch_0"
    assert (inner.call.targets, inner.call.args) == (("z",), ("y",))
    assert r.fns["main_global_orch_0"].parent == "main"


def test_two_captured_values_in_first_use_order() -> None:
    """compiler: test_outline_multiple_inputs."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}, y: {V64}) -> {V64}:
            a: {V64} = pl.add(x, y)
            b: {V64} = pl.mul(x, y)
            with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
                c: {V64} = pl.add(a, b)
            return c
        """)
    assert r.summary() == {"main_host_orch_0": ("Hierarchy", [("a", "In"), ("b", "In")], ("c",))}


def test_two_outputs_are_returned_and_unpacked_at_the_call() -> None:
    """compiler: test_outline_multi_output_tuple_get_item."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}, w: {V64}) -> {V64}:
            with pl.at(level=pl.Level.GLOBAL, role=pl.Role.Orchestrator):
                a: {V64} = pl.add(x, x)
                b: {V64} = pl.mul(w, w)
            y: {V64} = pl.add(a, b)
            return y
        """)
    k = r.fns["main_global_orch_0"]
    assert (k.params, k.returns) == ((("x", "In"), ("w", "In")), ("a", "b"))
    assert k.call.targets == ("a", "b")


def test_computation_around_the_scope_stays_in_the_parent() -> None:
    """compiler: test_outline_with_intermediate_computation."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            a: {V64} = pl.add(x, x)
            b: {V64} = pl.mul(a, a)
            with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
                c: {V64} = pl.add(b, b)
            e: {V64} = pl.add(c, c)
            return e
        """)
    assert r.summary() == {"main_host_orch_0": ("Hierarchy", [("b", "In")], ("c",))}


def test_scope_inside_if_arm_is_outlined_in_place() -> None:
    """compiler: test_outline_in_control_flow."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}, cond: pl.Scalar[pl.BOOL]) -> {V64}:
            if cond:
                with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
                    y0: {V64} = pl.add(x, x)
                y: {V64} = pl.add(y0, x)
            else:
                y: {V64} = pl.mul(x, x)
            return y
        """)
    assert r.summary() == {"main_host_orch_0": ("Hierarchy", [("x", "In")], ("y0",))}


def test_task_ids_and_deps_turn_the_calls_into_submits() -> None:
    """compiler: test_outline_submit_emission_with_deps."""
    r = clean(f"""
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.GLOBAL, role=pl.Role.Orchestrator, name_hint="s1") as t1:
                y: {V64} = pl.add(x, x)
            with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator, name_hint="s2", deps=[t1]) as _t2:
                z: {V64} = pl.mul(y, y)
            return z
        """)
    assert r.summary() == {
        "s1": ("Hierarchy", [("x", "In")], ("y",)),
        "s2": ("Hierarchy", [("y", "In")], ("z",)),
    }
    s1, s2 = r.fns["s1"], r.fns["s2"]
    assert (s1.level, s2.level) == ("GLOBAL", "HOST")
    assert s1.call.submit and s2.call.submit
    assert (s1.call.targets, s2.call.targets) == (("y", "t1"), ("z", "_t2"))
    assert "deps=[t1]" in s2.call.text.replace(" ", "")


def test_single_output_with_task_id_still_binds_both() -> None:
    """compiler: test_outline_submit_single_output."""
    r = clean(f"""
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.GLOBAL, role=pl.Role.Orchestrator, name_hint="s1") as t1:
                y: {V64} = pl.add(x, x)
            return y
        """)
    assert r.fns["s1"].call.submit
    assert r.fns["s1"].call.targets == ("y", "t1")


def test_incore_scope_is_left_to_the_incore_pass() -> None:
    """compiler: test_hierarchy_does_not_affect_incore_scopes."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                y: {V64} = pl.add(x, x)
            return y
        """)
    assert [(o.name, o.kind) for o in r.fns.values()] == [("main_incore_0", "InCore")]


def test_cluster_scope_is_left_to_the_cluster_pass() -> None:
    """compiler: test_hierarchy_does_not_affect_cluster_scopes."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.cluster():
                y: {V64} = pl.add(x, x)
            return y
        """)
    assert [(o.name, o.kind, o.function_type) for o in r.fns.values()] == [
        ("main_cluster_0", "Cluster", "Group")
    ]


def test_function_without_hierarchy_scope_is_unchanged() -> None:
    """compiler: test_no_hierarchy_scopes_passthrough, TestHierarchyOutlinedVerifier.test_program_without_hierarchy_passes_verification."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            y: {V64} = pl.add(x, x)
            return y
        """)
    assert r.names == []
    assert r.function_type("main") == "Opaque"


def test_only_opaque_functions_are_searched_and_incore_functions_keep_their_type() -> None:
    """compiler: test_outline_skips_non_opaque_functions."""
    r = clean(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def compute(self, x: {V64}) -> {V64}:
            y: {V64} = pl.add(x, x)
            return y

        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
                y: {V64} = pl.add(x, x)
            return y
        """)
    assert r.function_type("compute") == "InCore"
    k = r.fns["main_host_orch_0"]
    assert (k.level, k.role) == ("HOST", "Orchestrator")


def test_each_function_has_its_own_counter() -> None:
    """compiler: test_outline_independent_counter_across_functions."""
    r = clean(f"""
        @pl.function
        def func1(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
                y: {V64} = pl.add(x, x)
            return y

        @pl.function
        def func2(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.GLOBAL, role=pl.Role.Orchestrator):
                y: {V64} = pl.mul(x, x)
            return y
        """)
    assert set(r.names) == {"func1_host_orch_0", "func2_global_orch_0"}
    assert r.fns["func2_global_orch_0"].level == "GLOBAL"


def test_level_alias_is_named_and_stored_canonically() -> None:
    """compiler: test_outline_hierarchy_with_alias_level (positional level, POD = CLUSTER_0)."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.at(pl.Level.POD):
                y: {V64} = pl.add(x, x)
            return y
        """)
    assert r.names == ["main_cluster0_0"]
    assert r.fns["main_cluster0_0"].level == "CLUSTER_0"


def test_no_hierarchy_scope_survives_the_pipeline() -> None:
    """compiler: TestHierarchyOutlinedVerifier.test_clean_program_passes_verification and
    test_remaining_hierarchy_scope_fails_verification (the verifier never fires after our
    pipeline: PTO501 is absent)."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
                y: {V64} = pl.add(x, x)
            return y
        """)
    assert "PTO501" not in r.codes
    assert r.names == ["main_host_orch_0"]


# --- our decisions where the compiler differs (no compiler case; pinned for the notes table) ----


def test_store_target_of_a_hierarchy_scope_stays_in_and_is_not_exported() -> None:
    """§7 D3 (seed rule): a `tile.store` destination captured by a Hierarchy scope stays `In`
    and is not returned; the newest compiler would make it `Out` and export it."""
    r = outline("""
        @pl.function
        def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            with pl.at(level=pl.Level.HOST):
                t = pl.load(a, [0], [64])
                pl.store(t, [0], out)
            return out
        """)
    k = r.fns["main_host_0"]
    assert k.params == (("a", "In"), ("out", "In"))
    assert k.returns == ()


def test_subworker_role_in_inline_scope_is_rejected_at_every_level() -> None:
    """§7 D1: `pl.Role.SubWorker` in an inline `pl.at` is rejected at every level (the
    compiler accepts it below HOST and would name the function `..._sub_worker_N`)."""
    r = outline(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CHIP, role=pl.Role.SubWorker):
                y: {V64} = pl.add(x, x)
            return y
        """)
    assert r.codes == ["PTO122"]
