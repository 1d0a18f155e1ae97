"""OutlineHierarchyScopes (spec 003, dsl-reference §4.3, Example 3, decisions D1, D3, D6)."""

from __future__ import annotations

import pytest
from outline_cases import T64, clean, run

from pypto_core.printer import print_function


def test_spec_example_host_orchestrator_scope() -> None:
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}) -> {T64}:
            with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
                y: {T64} = pl.add(x, x)
            return y
        """)
    k = r.scope("main_host_orch_0")
    assert (k.kind, k.function_type, k.level, k.role) == ("Hierarchy", "Opaque", "HOST", "Orchestrator")
    assert r.params("main_host_orch_0") == [("x", "In")]
    assert r.returns("main_host_orch_0") == ("y",)
    assert r.call("main_host_orch_0") == "y = self.main_host_orch_0(x)"
    assert r.function("main").type.value == "Opaque"  # parent type preserved
    assert r.promoted == {}


def test_spec_nested_example_chains_names_under_the_outlined_parent() -> None:
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}) -> {T64}:
            with pl.at(level=pl.Level.GLOBAL, role=pl.Role.Orchestrator):
                y: {T64} = pl.add(x, x)
                with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
                    z: {T64} = pl.mul(y, y)
            return z
        """)
    assert r.params("main_global_orch_0") == [("x", "In")]
    assert r.returns("main_global_orch_0") == ("z",)
    assert r.params("main_global_orch_0_host_orch_0") == [("y", "In")]
    assert r.returns("main_global_orch_0_host_orch_0") == ("z",)
    assert r.scope("main_global_orch_0_host_orch_0").parent == "main_global_orch_0"
    assert r.call("main_global_orch_0_host_orch_0") == "z = self.main_global_orch_0_host_orch_0(y)"
    assert r.call("main_global_orch_0") == "z = self.main_global_orch_0(x)"


def test_example3_aliases_shared_counter_and_nesting() -> None:
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}) -> {T64}:
            with pl.at(level=pl.Level.POD, role=pl.Role.Orchestrator):
                y = pl.add(x, x)
                with pl.at(level=pl.Level.HOST):
                    z = pl.mul(y, y)
            with pl.at(level=pl.Level.CHIP):
                w = pl.add(z, x)
            return w
        """)
    assert r.names == ["main_cluster0_orch_0", "main_cluster0_orch_0_host_0", "main_chip_1"]
    assert (r.params("main_cluster0_orch_0"), r.returns("main_cluster0_orch_0")) == ([("x", "In")], ("z",))
    assert r.params("main_cluster0_orch_0_host_0") == [("y", "In")]
    assert (r.params("main_chip_1"), r.returns("main_chip_1")) == ([("z", "In"), ("x", "In")], ("w",))
    assert r.scope("main_cluster0_orch_0").level == "CLUSTER_0"
    assert r.function("main").type.value == "Opaque"


@pytest.mark.parametrize(
    ("level", "suffix"),
    [
        ("AIV", "aiv"),
        ("AIC", "aic"),
        ("CHIP_DIE", "chip_die"),
        ("L2CACHE", "chip_die"),
        ("CHIP", "chip"),
        ("UMA", "chip"),
        ("PROCESSOR", "chip"),
        ("HOST", "host"),
        ("NODE", "host"),
        ("CLUSTER_0", "cluster0"),
        ("POD", "cluster0"),
        ("CLUSTER_1", "cluster1"),
        ("CLOS1", "cluster1"),
        ("CLUSTER_2", "cluster2"),
        ("CLOS2", "cluster2"),
        ("GLOBAL", "global"),
    ],
)
def test_level_names_use_the_canonical_suffix(level: str, suffix: str) -> None:
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}) -> {T64}:
            with pl.at(level=pl.Level.{level}):
                y = pl.add(x, x)
            return y
        """)
    assert r.names == [f"main_{suffix}_0"]


def test_worker_role_uses_the_seed_suffix() -> None:
    """D1: `Worker` -> `worker` (the compiler would print `sub_worker`)."""
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}) -> {T64}:
            with pl.at(level=pl.Level.CHIP, role=pl.Role.Worker):
                y = pl.add(x, x)
            return y
        """)
    assert r.names == ["main_chip_worker_0"]


def test_store_destination_stays_in_and_is_not_exported() -> None:
    """D3: a Hierarchy scope exports no store target; its destination stays `In`."""
    r = clean(f"""
        @pl.function
        def main(self, a: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.HOST):
                pl.store(pl.load(a, [0], [64]), [0], out)
            return out
        """)
    assert r.params("main_host_0") == [("a", "In"), ("out", "In")]
    assert r.returns("main_host_0") == ()
    assert r.call("main_host_0") == "self.main_host_0(a, out)"


def test_other_registry_writers_still_lift_a_hierarchy_capture() -> None:
    r = clean(f"""
        @pl.function
        def main(self, a: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.HOST):
                pl.tensor.write(out, [0], 1.0)
            return out
        """)
    assert r.params("main_host_0") == [("out", "Out")]


def test_post_store_binding_in_a_hierarchy_scope_is_an_ordinary_output() -> None:
    r = clean(f"""
        @pl.function
        def main(self, a: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.HOST):
                out = pl.store(pl.load(a, [0], [64]), [0], out)
            return out
        """)
    assert r.returns("main_host_0") == ("out",)
    assert r.params("main_host_0") == [("a", "In"), ("out", "In")]


def test_incore_scope_inside_is_lifted_later_and_promotes_the_hierarchy_function() -> None:
    """D6: the promoted hierarchy function keeps its level and role."""
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}) -> {T64}:
            with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
                with pl.at(level=pl.Level.CORE_GROUP):
                    y = pl.add(x, x)
            return y
        """)
    assert r.names == ["main_host_orch_0", "main_host_orch_0_incore_0"]
    assert r.scope("main_host_orch_0_incore_0").parent == "main_host_orch_0"
    host = r.function("main_host_orch_0")
    assert (host.type.value, host.level.value, host.role.value) == ("Orchestration", "HOST", "Orchestrator")
    assert r.function("main").type.value == "Opaque"


def test_a_hierarchy_function_promoted_later_is_described_by_its_final_type() -> None:
    """The compiler's OutlineIncoreScopes promotes the outlined Hierarchy function, so what it
    emits is an Orchestration function; its record says so. `promoted` lists the functions the
    user wrote (the oracle's: a function that existed before outlining and changed type), so
    the outlined one is not listed twice."""
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}) -> {T64}:
            with pl.at(level=pl.Level.CHIP, role=pl.Role.Orchestrator):
                with pl.at(level=pl.Level.CORE_GROUP):
                    y = pl.add(x, x)
            return y
        """)
    assert r.scope("main_chip_orch_0").function_type == "Orchestration"
    assert r.scope("main_chip_orch_0_incore_0").function_type == "InCore"
    assert r.promoted == {}


def test_only_opaque_functions_are_processed() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {T64}) -> {T64}:
            with {{|hdr:pl.at(level=pl.Level.HOST)|}}:
                y = pl.add(x, x)
            return y
        """)
    assert "main_host_0" not in r.names
    assert "with pl.at(level=pl.Level.HOST)" in print_function(r.function("main"))


def test_each_function_counts_from_zero() -> None:
    body = """
        @pl.function
        def {fn}(self, x: {t}) -> {t}:
            with pl.at(level=pl.Level.HOST):
                y = pl.add(x, x)
            return y
        """
    r = clean(body.format(fn="f1", t=T64) + body.format(fn="f2", t=T64))
    assert sorted(r.names) == ["f1_host_0", "f2_host_0"]
