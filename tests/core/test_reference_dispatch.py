"""Task-dispatch metadata on scopes (TaskIds, deps, no_dep_args, predicates) and the runtime
scopes around them, checked against the compiler's parser tests that feed the outliners:
hw-native-sys/pypto tests/ut/language/parser/test_manual_scope_parsing.py,
test_submit_predicate.py and test_auto_scope_parsing.py.

The compiler inspects the parsed scope attributes; we check what they become after outlining
(the dispatch in the parent), or the diagnostic for a rejected source.
"""

from __future__ import annotations

import pytest
from reference_util import clean, dispatch_of, outline

V64 = "pl.Tensor[[64], pl.FP32]"
F = "pl.Tensor[[512, 128], pl.FP32]"
I32 = "pl.Tensor[[512, 128], pl.INT32]"

EXPERT_AND_GATE = f"""
@pl.function(type=pl.FunctionType.InCore)
def expert(self, x: {F}, out: pl.Out[{F}]) -> {F}:
    t = pl.load(x, [0, 0], [128, 128])
    out = pl.store(t, [0, 0], out)
    return out

@pl.function(type=pl.FunctionType.InCore)
def gate(self, g: pl.Out[{I32}]) -> {I32}:
    t = pl.load(g, [0, 0], [128, 128])
    g = pl.store(t, [0, 0], g)
    return g
"""


def _flat(text: str) -> str:
    return text.replace(" ", "")


# --- TaskIds and deps on pl.at ----------------------------------------------------------------------


def test_task_ids_and_deps_on_pl_at_become_submits_and_copies_return_their_source() -> None:
    """compiler: test_manual_scope_parsing.py::test_pl_at_deps_and_as_tid_attach_scope_attrs.

    Each scope body is a plain copy (`y = x`), so its output traces back to the parameter it
    copies and the kernel returns that parameter (§4.2.9)."""
    r = clean(f"""
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="s1") as t1:
                y: {V64} = x
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="s2", deps=[t1]) as _t2:
                z: {V64} = y
            return z
        """)
    assert r.summary() == {
        "s1": ("InCore", [("x", "In")], ("x",)),
        "s2": ("InCore", [("y", "In")], ("y",)),
    }
    assert (r.fns["s1"].call.submit, r.fns["s1"].call.targets) == (True, ("y", "t1"))
    assert (r.fns["s2"].call.submit, r.fns["s2"].call.targets) == (True, ("z", "_t2"))
    assert "deps=[t1]" in _flat(r.fns["s2"].call.text)


def test_no_dep_args_deps_and_task_id_combine_on_one_dispatch() -> None:
    """compiler: test_no_dep_args_combines_with_deps_and_tid (and test_no_dep_args_records_arg_direction_overrides_vars)."""
    r = clean(f"""
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: {V64}, w: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="s1") as t1:
                a: {V64} = x
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="s2", deps=[t1], no_dep_args=[w]) as _t2:
                b: {V64} = pl.add(a, w)
            return b
        """)
    s2 = r.fns["s2"]
    assert s2.params == (("a", "In"), ("w", "In"))
    assert s2.call.submit
    assert "deps=[t1]" in _flat(s2.call.text)
    main = r.function("main")
    call = dispatch_of(main, "s2")
    assert call.attrs.get("arg_direction_overrides") == [1]


def test_empty_no_dep_args_leaves_the_dispatch_plain() -> None:
    """compiler: test_no_dep_args_empty_list_is_noop."""
    r = clean(f"""
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[]):
                y: {V64} = pl.add(x, x)
            return y
        """)
    [(name, k)] = r.fns.items()
    assert not k.call.submit
    main = r.function("main")
    call = dispatch_of(main, name)
    assert "arg_direction_overrides" not in call.attrs


@pytest.mark.parametrize(
    "header",
    [
        pytest.param("no_dep_args=nope", id="test_no_dep_args_rejects_non_list_literal"),
        pytest.param("no_dep_args=[pl.no_dep(x)]", id="test_no_dep_args_rejects_non_name_entry"),
        pytest.param("no_dep_args=[ghost]", id="test_no_dep_args_rejects_unknown_name"),
        pytest.param("no_dep_args=[x, x]", id="test_no_dep_args_rejects_duplicate"),
    ],
)
def test_malformed_no_dep_args_is_reported(header: str) -> None:
    r = outline(f"""
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: {V64}) -> {V64}:
            nope = [x]
            with pl.at(level=pl.Level.CORE_GROUP, {header}):
                y: {V64} = pl.add(x, x)
            return y
        """)
    assert "PTO123" in r.errors, r.codes


# --- runtime scopes ---------------------------------------------------------------------------------


def test_as_clause_on_manual_scope_is_rejected() -> None:
    """compiler: test_pl_at_as_on_non_at_scope_is_rejected."""
    r = outline(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {V64}) -> {V64}:
            with pl.manual_scope() as not_supported:
                return x
        """)
    assert r.errors == ["PTO103"]


@pytest.mark.parametrize(
    "header",
    [
        pytest.param('pl.manual_scope(name="foo")', id="test_parse_manual_scope_rejects_arguments"),
        pytest.param("pl.scope(1)", id="test_auto_scope_parsing.py::test_scope_rejects_positional_args"),
    ],
)
def test_runtime_scope_with_arguments_it_does_not_take_is_rejected(header: str) -> None:
    """The compiler raises ParserSyntaxError; our code for it is PTO132 (added to the front end
    after §2.3 was written)."""
    r = outline(f"""
        @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
        def main(self, x: {V64}) -> {V64}:
            with {header}:
                a = x
            return a
        """)
    assert r.errors == ["PTO132"]


def test_scopes_inside_a_manual_scope_are_outlined_as_usual() -> None:
    """compiler: test_parse_manual_scope_creates_runtime_scope_with_manual_true (runtime scopes
    are transparent to the outliners, §1.5)."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.manual_scope():
                with pl.at(level=pl.Level.CORE_GROUP):
                    a: {V64} = pl.add(x, x)
            return a
        """)
    assert r.summary() == {"main_incore_0": ("InCore", [("x", "In")], ("a",))}
    assert r.fns["main_incore_0"].parent == "main"


# --- pl.submit / pl.spmd_submit inside pl.cluster ------------------------------------------------


@pytest.mark.parametrize(
    "submit",
    [
        pytest.param("pl.submit(self.k2, x, deps=[a_tid])", id="deps"),
        pytest.param("pl.submit(self.k2, x, allow_early_resolve=True)", id="allow_early_resolve"),
        pytest.param("pl.submit(self.k2, a, deps=[a_tid], predicate=(a[0] > 0))", id="predicate"),
        pytest.param("pl.spmd_submit(self.k2, x, core_num=2)", id="core_num"),
        pytest.param("pl.spmd_submit(self.k2, x, core_num=2, sync_start=True)", id="sync_start"),
    ],
)
def test_submit_inside_cluster_cannot_carry_dispatch_metadata(submit: str) -> None:
    """compiler: test_cluster_nested_submit_rejects_per_task_dispatch_metadata."""
    t = "pl.Tensor[[64], pl.INT32]"
    r = outline(f"""
        @pl.function(type=pl.FunctionType.AIC)
        def k1(self, x: {t}) -> {t}:
            return x

        @pl.function(type=pl.FunctionType.AIV)
        def k2(self, x: {t}) -> {t}:
            return x

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {t}) -> {t}:
            with pl.cluster():
                a, a_tid = pl.submit(self.k1, x)
                b, _ = {submit}
            return b
        """)
    assert "PTO163" in r.errors, r.codes


# --- predicates on pl.spmd --------------------------------------------------------------------------


def _predicated(predicate: str, deps: str, rc: str = f"pl.Out[{I32}]") -> str:
    return (
        EXPERT_AND_GATE
        + f"""
@pl.function(type=pl.FunctionType.Orchestration)
def main(self, x: {F}, out: pl.Out[{F}], rc: {rc}) -> {F}:
    with pl.spmd(1) as g_tid:
        rc = self.gate(rc)
    with pl.spmd(1, {deps}predicate=({predicate})) as t:
        out = self.expert(x, out)
    return out
"""
    )


def test_predicate_rides_the_dispatch_not_the_kernel() -> None:
    """compiler: test_submit_predicate.py::test_scope_predicate_lands_on_scope_attrs and
    test_scope_producer_is_tracked_for_the_deps_contract (accepted half)."""
    r = clean(_predicated("rc[0, 0] > 0", "deps=[g_tid], "))
    wrapper = r.fns["main_spmd_1"]
    assert wrapper.params == (("x", "In"), ("out", "Out"))  # the predicate is evaluated by the caller
    assert wrapper.call.submit
    text = _flat(wrapper.call.text)
    assert "predicate=" in text
    assert "deps=[g_tid]" in text


def test_predicate_on_plain_with_form_still_dispatches_a_submit() -> None:
    """compiler: test_scope_predicate_plain_with_form."""
    r = clean(
        EXPERT_AND_GATE
        + f"""
@pl.function(type=pl.FunctionType.Orchestration)
def main(self, x: {F}, out: pl.Out[{F}], rc: {I32}) -> {F}:
    with pl.spmd(1, predicate=(rc[0, 0] > 0)):
        out = self.expert(x, out)
    return out
"""
    )
    wrapper = r.fns["main_spmd_0"]
    assert wrapper.call.submit
    assert wrapper.call.targets[0] == "out"
    assert "predicate=" in wrapper.call.text


def test_predicate_on_spmd_loop_rides_the_wrapper_dispatch() -> None:
    """compiler: test_scope_predicate_for_form."""
    r = clean(
        EXPERT_AND_GATE
        + f"""
@pl.function(type=pl.FunctionType.Orchestration)
def main(self, x: {F}, out: pl.Out[{F}], rc: {I32}) -> {F}:
    for i in pl.spmd(4, predicate=(rc[0, 0] > 0)):
        t = pl.load(x, [i * 128, 0], [128, 128])
        out = pl.store(t, [i * 128, 0], out)
    return out
"""
    )
    wrapper = r.fns["main_spmd_0"]
    assert wrapper.call.submit
    assert "predicate=" in wrapper.call.text
    assert "rc" not in r.fns["main_incore_0"].param_names


def test_scope_without_predicate_is_a_plain_call() -> None:
    """compiler: test_scope_without_predicate_has_no_attr."""
    r = clean(
        EXPERT_AND_GATE
        + f"""
@pl.function(type=pl.FunctionType.Orchestration)
def main(self, x: {F}, out: pl.Out[{F}]) -> {F}:
    with pl.spmd(1):
        out = self.expert(x, out)
    return out
"""
    )
    assert not r.fns["main_spmd_0"].call.submit
    assert "predicate" not in r.fns["main_spmd_0"].call.text


def test_predicate_on_an_operand_produced_by_an_unlisted_task_is_rejected() -> None:
    """compiler: test_scope_predicate_operand_producer_must_be_in_deps and the rejected half of
    test_scope_producer_is_tracked_for_the_deps_contract ("produced by the task")."""
    r = outline(_predicated("rc[0, 0] > 0", ""))
    assert r.errors == ["PTO127"]


@pytest.mark.parametrize(
    "predicate",
    [
        pytest.param("rc[0, 0] % 8 == 0", id="must compare one tensor element"),
        pytest.param("0 < rc[0, 0] < 8", id="Only simple comparisons"),
    ],
)
def test_predicate_of_an_unsupported_shape_is_rejected(predicate: str) -> None:
    """compiler: test_scope_predicate_shape_validation_is_shared."""
    r = outline(_predicated(predicate, "deps=[g_tid], "))
    assert r.errors == ["PTO126"]


def test_predicate_on_spmd_inside_cluster_is_rejected() -> None:
    """compiler: test_scope_predicate_rejected_inside_cluster."""
    r = outline(
        EXPERT_AND_GATE
        + f"""
@pl.function(type=pl.FunctionType.Orchestration)
def main(self, x: {F}, out: pl.Out[{F}], rc: {I32}) -> {F}:
    with pl.cluster():
        with pl.spmd(1, predicate=(rc[0, 0] > 0)):
            out = self.expert(x, out)
    return out
"""
    )
    assert "PTO160" in r.errors


K1 = f"""
@pl.function(type=pl.FunctionType.InCore)
def k1(self, x: {V64}) -> {V64}:
    return x
"""


@pytest.mark.parametrize(
    ("function", "body", "code"),
    [
        pytest.param(
            "@pl.function(type=pl.FunctionType.Orchestration)",
            "with pl.scope():\n        a = self.k1(x)",
            "PTO133",
            id="test_auto_scope_rejected_in_default_mode",
        ),
        pytest.param(
            "@pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)",
            "with pl.scope(mode=pl.ScopeMode.MANUAL):\n        with pl.scope():\n            a = self.k1(x)",
            "PTO134",
            id="test_auto_scope_rejected_inside_manual_scope",
        ),
    ],
)
def test_auto_runtime_scope_where_the_runtime_forbids_it_is_rejected(
    function: str, body: str, code: str
) -> None:
    """compiler: test_auto_scope_parsing.py (ParserSyntaxError; PTO133/PTO134 here)."""
    r = outline(K1 + f"\n{function}\ndef main(self, x: {V64}) -> {V64}:\n    {body}\n    return a\n")
    assert r.errors == [code]


def test_manual_scopes_in_if_arms_keep_the_yielded_value() -> None:
    """compiler: test_auto_scope_parsing.py::test_manual_scope_in_if_branch_registers_yield_var."""
    clean(
        K1
        + f"""
@pl.function(type=pl.FunctionType.Orchestration)
def main(self, x: {V64}) -> {V64}:
    for i, (acc,) in pl.range(4, init_values=(x,)):
        if i == 0:
            with pl.manual_scope():
                a: {V64} = self.k1(acc)
                val: {V64} = pl.yield_(a)
        else:
            with pl.manual_scope():
                b: {V64} = self.k1(acc)
                val: {V64} = pl.yield_(b)
        acc = pl.yield_(val)
    return acc
"""
    )
