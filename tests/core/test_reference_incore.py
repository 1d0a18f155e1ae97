"""OutlineIncoreScopes, checked against the cases of the compiler's own unit tests.

Each test names the compiler case it re-expresses (hw-native-sys/pypto,
tests/ut/ir/transforms/test_outline_incore_scopes.py) in its docstring. Inputs are compact DSL
snippets; expected outcomes are written as the compiler's `Expected` program would show them:
outlined names, parameter (base name, direction) lists, returned names and the replacement
call. Where a §7 decision deliberately departs from the compiler, the test pins our decision
and says so; docs/helpers/reference-notes.md keeps the full table.
"""

from __future__ import annotations

import textwrap

import pytest
from reference_util import clean, dispatches, outline, statements

from pypto_core.ir import AssignStmt, Call, Function, Stmt

V64 = "pl.Tensor[[64], pl.FP32]"


def _dim_reads(fn: Function) -> list[Stmt]:
    return [
        s
        for s in statements(fn.body)
        if isinstance(s, AssignStmt) and isinstance(s.value, Call) and s.value.op == "tensor.dim"
    ]


def _attr(fn: Function, key: str) -> object:
    value = fn.attrs.get(key)
    return getattr(value, "value", value)


# --- basic shapes -------------------------------------------------------------------------------


def test_single_scope_becomes_incore_function_and_parent_is_promoted() -> None:
    """compiler: test_outline_simple_incore_scope (also test_opaque_promotion_still_works)."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                y: {V64} = pl.add(x, x)
            return y
        """)
    assert r.summary() == {"main_incore_0": ("InCore", [("x", "In")], ("y",))}
    k = r.fns["main_incore_0"]
    assert (k.function_type, k.parent) == ("InCore", "main")
    assert (k.call.targets, k.call.callee, k.call.args) == (("y",), "main_incore_0", ("x",))
    assert r.promoted == {"main": "Orchestration"}
    assert r.function_type("main") == "Orchestration"


def test_two_scopes_are_numbered_in_source_order_and_chain_through_the_parent() -> None:
    """compiler: test_outline_multiple_incore_scopes."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                y: {V64} = pl.add(x, x)
            with pl.at(level=pl.Level.CORE_GROUP):
                z: {V64} = pl.mul(y, y)
            return z
        """)
    assert r.names == ["main_incore_0", "main_incore_1"]
    assert r.summary() == {
        "main_incore_0": ("InCore", [("x", "In")], ("y",)),
        "main_incore_1": ("InCore", [("y", "In")], ("z",)),
    }
    assert r.fns["main_incore_1"].call.args == ("y",)


def test_function_without_scope_keeps_its_type() -> None:
    """compiler: test_outline_preserves_non_incore_functions."""
    r = clean(f"""
        @pl.function
        def helper(self, x: {V64}) -> {V64}:
            result: {V64} = pl.add(x, x)
            return result

        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                y: {V64} = pl.mul(x, x)
            return y
        """)
    assert r.names == ["main_incore_0"]
    assert r.function_type("helper") == "Opaque"
    assert r.promoted == {"main": "Orchestration"}


def test_parameters_follow_first_read_order_of_outer_values() -> None:
    """compiler: test_outline_scope_with_multiple_inputs."""
    r = clean(
        f"""
        @pl.function
        def main(self, x: {V64}, y: {V64}) -> {V64}:
            a: {V64} = pl.add(x, y)
            b: {V64} = pl.mul(x, y)
            with pl.at(level=pl.Level.CORE_GROUP):
                result: {V64} = pl.add(a, b)
            return result
        """,
        "PTO504",  # compute op left in the promoted orchestration body
    )
    k = r.fns["main_incore_0"]
    assert k.params == (("a", "In"), ("b", "In"))
    assert k.returns == ("result",)
    assert k.call.args == ("a", "b")


def test_two_values_used_after_the_scope_are_both_returned_in_definition_order() -> None:
    """compiler: test_outline_scope_with_multiple_outputs."""
    r = clean(
        f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                y: {V64} = pl.add(x, x)
                z: {V64} = pl.mul(x, x)
            result: {V64} = pl.add(y, z)
            return result
        """,
        "PTO504",  # compute op left in the promoted orchestration body
    )
    k = r.fns["main_incore_0"]
    assert k.params == (("x", "In"),)
    assert k.returns == ("y", "z")
    assert k.call.targets == ("y", "z")


def test_nested_incore_scope_is_reported() -> None:
    """compiler: test_nested_incore_scopes_rejected_by_verifier (NoNestedInCore)."""
    r = outline(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                y: {V64} = pl.add(x, x)
                with pl.at(level=pl.Level.CORE_GROUP):
                    z: {V64} = pl.mul(y, y)
            return z
        """)
    assert "PTO509" in r.codes


def test_value_computed_before_the_scope_is_the_only_parameter() -> None:
    """compiler: test_outline_scope_with_single_input_single_output."""
    r = clean(
        f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            a: {V64} = pl.add(x, x)
            with pl.at(level=pl.Level.CORE_GROUP):
                y: {V64} = pl.mul(a, a)
            result: {V64} = pl.add(y, y)
            return result
        """,
        "PTO504",  # compute op left in the promoted orchestration body
    )
    assert r.summary() == {"main_incore_0": ("InCore", [("a", "In")], ("y",))}


def test_each_function_numbers_its_scopes_from_zero() -> None:
    """compiler: test_outline_multiple_functions_with_scopes."""
    r = clean(f"""
        @pl.function
        def func1(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                y: {V64} = pl.add(x, x)
            return y

        @pl.function
        def func2(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                y: {V64} = pl.mul(x, x)
            return y
        """)
    assert r.summary() == {
        "func1_incore_0": ("InCore", [("x", "In")], ("y",)),
        "func2_incore_0": ("InCore", [("x", "In")], ("y",)),
    }
    assert (r.fns["func1_incore_0"].parent, r.fns["func2_incore_0"].parent) == ("func1", "func2")
    assert r.promoted == {"func1": "Orchestration", "func2": "Orchestration"}


def test_scope_inside_an_if_arm_is_outlined_in_place() -> None:
    """compiler: test_outline_scope_in_control_flow."""
    r = clean(
        f"""
        @pl.function
        def main(self, x: {V64}, cond: pl.Scalar[pl.BOOL]) -> {V64}:
            if cond:
                with pl.at(level=pl.Level.CORE_GROUP):
                    y: {V64} = pl.add(x, x)
            else:
                y: {V64} = pl.mul(x, x)
            return y
        """,
        "PTO504",  # compute op left in the promoted orchestration body
    )
    assert r.summary() == {"main_incore_0": ("InCore", [("x", "In")], ("y",))}
    assert r.fns["main_incore_0"].call.targets == ("y",)


def test_if_with_yields_inside_the_scope_reads_the_condition_first() -> None:
    """compiler: test_outline_incore_with_if_yield (issue #233)."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}, cond: pl.Scalar[pl.BOOL]) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                if cond:
                    y: {V64} = pl.add(x, x)
                    z = pl.yield_(y)
                else:
                    y2: {V64} = pl.mul(x, x)
                    z = pl.yield_(y2)
            return z
        """)
    k = r.fns["main_incore_0"]
    assert k.params == (("cond", "In"), ("x", "In"))
    assert k.returns == ("z",)
    assert k.call.args == ("cond", "x")


def test_scope_local_temporaries_are_neither_parameters_nor_returns() -> None:
    """compiler: test_outline_scope_with_intermediate_computation."""
    r = clean(
        f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            a: {V64} = pl.add(x, x)
            b: {V64} = pl.mul(a, a)
            with pl.at(level=pl.Level.CORE_GROUP):
                c: {V64} = pl.add(b, b)
                d: {V64} = pl.mul(c, c)
            e: {V64} = pl.add(d, d)
            return e
        """,
        "PTO504",  # compute op left in the promoted orchestration body
    )
    assert r.summary() == {"main_incore_0": ("InCore", [("b", "In")], ("d",))}


# --- store targets --------------------------------------------------------------------------------


def test_store_only_scope_exports_its_store_target_as_out() -> None:
    """compiler: test_outline_scope_with_store_only_outputs."""
    r = clean(
        """
        @pl.function
        def main(self, x: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 128], pl.FP32]:
            buf: pl.Tensor[[16, 128], pl.FP32] = pl.create_tensor([16, 128], dtype=pl.FP32)
            with pl.at(level=pl.Level.CORE_GROUP):
                tile = pl.tile.full([16, 128], dtype=pl.FP32, value=0.0)
                pl.store(tile, [0, 0], buf)
            result: pl.Tensor[[16, 128], pl.FP32] = pl.add(buf, x)
            return result
        """,
        "PTO504",
    )
    k = r.fns["main_incore_0"]
    assert (k.params, k.returns) == ((("buf", "Out"),), ("buf",))
    assert (k.call.targets, k.call.args) == (("buf",), ("buf",))


def test_several_store_targets_are_returned_in_parameter_order() -> None:
    """compiler: test_outline_scope_with_multiple_store_targets.

    Deliberate difference (D7): the compiler returns `(buf_b, buf_a)` (hash-set order of its
    store-target set); we return the exports in parameter order, `(buf_a, buf_b)`.
    """
    r = clean(
        """
        @pl.function
        def main(self, x: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 128], pl.FP32]:
            buf_a: pl.Tensor[[16, 128], pl.FP32] = pl.create_tensor([16, 128], dtype=pl.FP32)
            buf_b: pl.Tensor[[16, 1], pl.FP32] = pl.create_tensor([16, 1], dtype=pl.FP32)
            with pl.at(level=pl.Level.CORE_GROUP):
                tile_a = pl.tile.full([16, 128], dtype=pl.FP32, value=0.0)
                tile_b = pl.tile.full([16, 1], dtype=pl.FP32, value=0.0)
                pl.store(tile_a, [0, 0], buf_a)
                pl.store(tile_b, [0, 0], buf_b)
            result: pl.Tensor[[16, 128], pl.FP32] = pl.add(buf_a, x)
            return result
        """,
        "PTO504",
    )
    k = r.fns["main_incore_0"]
    assert k.params == (("buf_a", "Out"), ("buf_b", "Out"))
    assert k.returns == ("buf_a", "buf_b")
    assert k.call.targets == ("buf_a", "buf_b")


def test_repeated_store_target_is_threaded_from_call_to_call() -> None:
    """compiler: test_outline_repeated_store_target_keeps_body_in_sync (issue #1462)."""
    block = """
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [32, 32])
                pl.store(t, [0, 0], out)"""
    r = clean(f"""
        @pl.function
        def main(self, a: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:{block * 4}
            return out
        """)
    assert r.names == [f"main_incore_{i}" for i in range(4)]
    for name in r.names:
        assert r.fns[name].params == (("a", "In"), ("out", "Out"))
        assert r.fns[name].returns == ("out",)
    calls = dispatches(r.function("main"))
    assert [c.callee for _, c in calls] == r.names
    # every call passes the value the previous call bound, and all bound names are distinct
    bound = [target for target, _ in calls]
    passed = [c.args[1].name for _, c in calls[1:]]  # type: ignore[attr-defined]
    assert passed == bound[:-1]
    assert len(set(bound)) == 4


def test_inner_loop_seeded_from_outer_iter_arg_returns_that_parameter() -> None:
    """compiler: test_outline_scope_with_loop_carried_init_values (issue #369)."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}, y: {V64}) -> {V64}:
            for i, (acc,) in pl.range(3, init_values=(x,)):
                with pl.at(level=pl.Level.CORE_GROUP):
                    for j, (inner,) in pl.range(2, init_values=(acc,)):
                        updated: {V64} = pl.add(inner, y)
                        inner_rv = pl.yield_(updated)
                acc_rv = pl.yield_(inner_rv)
            return acc_rv
        """)
    k = r.fns["main_incore_0"]
    assert k.params == (("acc", "In"), ("y", "In"))
    assert k.returns == ("acc",)  # the loop result traces back to the parameter it was seeded with
    assert (k.call.targets, k.call.args) == (("inner_rv",), ("acc", "y"))


def test_outer_loop_init_value_is_not_captured() -> None:
    """compiler: test_outline_scope_does_not_capture_outer_init_value."""
    r = clean(f"""
        @pl.function
        def main(self, init: {V64}, y: {V64}) -> {V64}:
            for sb, (acc,) in pl.range(4, init_values=(init,)):
                with pl.at(level=pl.Level.CORE_GROUP):
                    result: {V64} = pl.add(acc, y)
                acc_rv = pl.yield_(result)
            return acc_rv
        """)
    assert r.summary() == {"main_incore_0": ("InCore", [("acc", "In"), ("y", "In")], ("result",))}


def test_scope_in_while_body_captures_the_iter_arg() -> None:
    """compiler: test_outline_scope_inside_while_captures_iter_arg."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}, y: {V64}, n: pl.Scalar[pl.INDEX]) -> {V64}:
            for acc, c in pl.while_(init_values=(x, 0)):
                pl.cond(c < n)
                with pl.at(level=pl.Level.CORE_GROUP):
                    updated: {V64} = pl.add(acc, y)
                c_new: pl.Scalar[pl.INDEX] = c + 1
                acc_rv, c_rv = pl.yield_(updated, c_new)
            return acc_rv
        """)
    assert r.summary() == {"main_incore_0": ("InCore", [("acc", "In"), ("y", "In")], ("updated",))}


# --- directions -----------------------------------------------------------------------------------


def test_write_only_assemble_destination_is_out_and_returned() -> None:
    """compiler: test_outline_write_only_assemble_dest_becomes_out (issue #2415)."""
    r = clean("""
        @pl.function
        def main(self, dst: pl.Tensor[[64], pl.FP32], src: pl.Tensor[[32], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                updated: pl.Tensor[[64], pl.FP32] = pl.assemble(dst, src, [0])
            return updated
        """)
    k = r.fns["main_incore_0"]
    assert (k.params, k.returns) == ((("dst", "Out"), ("src", "In")), ("dst",))
    assert (k.call.targets, k.call.args) == (("updated",), ("dst", "src"))


def test_assemble_destination_that_is_also_read_is_inout() -> None:
    """compiler: test_outline_read_assemble_dest_stays_inout."""
    r = clean("""
        @pl.function
        def main(self, dst: pl.Tensor[[64], pl.FP32], src: pl.Tensor[[32], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                head: pl.Tensor[[32], pl.FP32] = pl.tensor.slice(dst, [32], [0], [], [])
                mixed: pl.Tensor[[32], pl.FP32] = pl.add(head, src)
                updated: pl.Tensor[[64], pl.FP32] = pl.assemble(dst, mixed, [0])
            return updated
        """)
    k = r.fns["main_incore_0"]
    assert (k.params, k.returns) == ((("dst", "InOut"), ("src", "In")), ("dst",))


def test_reading_the_post_store_alias_makes_the_target_inout() -> None:
    """compiler: test_outline_read_through_post_write_alias_is_inout."""
    r = clean("""
        @pl.function
        def main(self, a: pl.Tensor[[512, 128], pl.FP32], out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [0, 0], [128, 128])
                out2 = pl.store(t, [0, 0], out)
                back: pl.Tile[[128, 128], pl.FP32] = pl.load(out2, [256, 0], [128, 128])
                out3 = pl.store(back, [384, 0], out2)
            return out3
        """)
    assert r.fns["main_incore_0"].direction("out") == "InOut"


def test_atomic_store_destination_is_inout() -> None:
    """compiler: test_outline_atomic_store_dest_is_inout."""
    r = clean("""
        @pl.function
        def main(self, a: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [0, 0], [128, 128])
                out = pl.store(t, [0, 0], out, atomic=pl.AtomicType.Add)
            return out
        """)
    k = r.fns["main_incore_0"]
    assert k.params == (("a", "In"), ("out", "InOut"))
    assert k.returns == ("out",)


def test_atomic_assemble_destination_is_inout() -> None:
    """compiler: test_outline_atomic_assemble_dest_is_inout."""
    r = clean("""
        @pl.function
        def main(self, src: pl.Tensor[[32], pl.FP32], dst: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                dst = pl.assemble(dst, src, [0], atomic=pl.AtomicType.Add)
            return dst
        """)
    assert r.fns["main_incore_0"].direction("dst") == "InOut"


def test_dumps_list_is_bookkeeping_not_a_read() -> None:
    """compiler: test_outline_bookkeeping_attr_is_not_a_read."""
    r = clean("""
        @pl.function
        def main(self, a: pl.Tensor[[512, 128], pl.FP32], out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, dumps=[out]):
                t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [0, 0], [128, 128])
                out = pl.store(t, [0, 0], out)
            return out
        """)
    assert r.fns["main_incore_0"].direction("out") == "Out"


def test_spmd_loop_assembling_rows_keeps_destination_out() -> None:
    """compiler: test_outline_spmd_assemble_keeps_out_param_out (issue #2415)."""
    r = clean("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def outline_out_direction(self, src: pl.Tensor[[8, 8], pl.INT32], dst: pl.Out[pl.Tensor[[8, 8], pl.INT32]]) -> pl.Tensor[[8, 8], pl.INT32]:
            for row in pl.spmd(8, name_hint="fill_rows"):
                t: pl.Tensor[[1, 8], pl.INT32] = pl.tensor.slice(src, [1, 8], [row, 0], [], [])
                dst = pl.assemble(dst, t, [row, 0])
            return dst
        """)
    k = r.fns["fill_rows"]
    assert k.kind == "InCore"
    assert k.params == (("src", "In"), ("dst", "Out"))
    assert "row" not in k.param_names  # bound to the block index inside the kernel
    assert r.fns["fill_rows_spmd"].direction("dst") == "Out"


def test_spmd_store_in_chip_orchestrator_function_keeps_destination_out() -> None:
    """compiler: test_out_direction_survives_to_the_chip_formal (outlining half only; the
    ConvertTensorToTileOps half is past the passes we model)."""
    r = clean("""
        @pl.function(level=pl.Level.CHIP, role=pl.Role.Orchestrator)
        def chip_orch(self, src: pl.Tensor[[8, 128], pl.FP32], dst: pl.Out[pl.Tensor[[8, 128], pl.FP32]]) -> pl.Tensor[[8, 128], pl.FP32]:
            for row in pl.spmd(8, name_hint="fill_rows"):
                t: pl.Tile[[1, 128], pl.FP32] = pl.load(src, [row, 0], [1, 128])
                dst = pl.store(t, [row, 0], dst)
            return dst
        """)
    assert r.fns["fill_rows"].params == (("src", "In"), ("dst", "Out"))
    assert r.fns["fill_rows"].returns == ("dst",)


# --- task ids and deps ----------------------------------------------------------------------------


def test_scope_with_task_id_is_dispatched_as_a_submit() -> None:
    """compiler: TestOutlineSubmitTaskId.test_outline_scope_with_task_id_emits_submit."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP) as tid:
                y: {V64} = pl.add(x, x)
            return y
        """)
    k = r.fns["main_incore_0"]
    assert (k.params, k.returns) == ((("x", "In"),), ("y",))
    assert k.call.submit
    assert k.call.targets == ("y", "tid")
    assert k.call.args == ("x",)


def test_deps_on_an_earlier_task_id_fold_into_the_second_submit() -> None:
    """compiler: test_outline_chained_task_id_deps_fold_into_submit_deps."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP) as tid0:
                y: {V64} = pl.add(x, x)
            with pl.at(level=pl.Level.CORE_GROUP, deps=[tid0]) as tid1:
                z: {V64} = pl.mul(y, y)
            return z
        """)
    first, second = r.fns["main_incore_0"], r.fns["main_incore_1"]
    assert first.call.submit and second.call.submit
    assert first.call.targets == ("y", "tid0")
    assert second.call.targets == ("z", "tid1")
    assert second.params == (("y", "In"),)  # the TaskId is a dependency, not a kernel argument
    assert "deps=[tid0]" in second.call.text.replace(" ", "")


def test_deps_without_as_clause_still_dispatches_a_submit() -> None:
    """compiler: test_outline_deps_only_scope_emits_submit."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP) as tid0:
                y: {V64} = pl.add(x, x)
            with pl.at(level=pl.Level.CORE_GROUP, deps=[tid0]):
                z: {V64} = pl.mul(y, y)
            return z
        """)
    second = r.fns["main_incore_1"]
    assert second.call.submit
    assert second.call.targets[0] == "z"
    assert len(second.call.targets) == 2  # plus a synthesised TaskId


# --- deferred waiters (pld.system.defer_wait) -----------------------------------------------------

_SIGNAL = "signal: pld.DistributedTensor[[1, 1], pl.INT32]"
_WAIT = "pld.system.defer_wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)"


def test_deferred_waiter_with_early_resolve_is_rejected() -> None:
    """compiler: test_deferred_wait_rejects_allow_early_resolve."""
    r = outline(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, {_SIGNAL}):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="deferred_wait", allow_early_resolve=True) as wait_tid:
                {_WAIT}
        """)
    assert r.codes == ["PTO306d"]


def test_terminal_deferred_waiter_is_an_ordinary_dispatch() -> None:
    """compiler: test_terminal_deferred_waiter_needs_no_task_id_capture."""
    r = clean(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, {_SIGNAL}):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="terminal_waiter"):
                {_WAIT}
        """)
    k = r.fns["terminal_waiter"]
    assert not k.call.submit
    assert k.call.targets == ()
    assert k.params == (("signal", "In"),)
    # the compiler's marker, shown in the printed outlined function
    assert r.function("terminal_waiter").attrs.get("deferred_completion_waiter") is True


def test_deferred_waiter_nested_in_early_resolving_spmd_is_rejected() -> None:
    """compiler: test_deferred_waiter_rejects_nested_early_resolve_launch."""
    r = outline(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, {_SIGNAL}):
            with pl.spmd(1, allow_early_resolve=True):
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="nested_waiter"):
                    {_WAIT}
        """)
    assert r.codes == ["PTO306b"]


def test_deferred_waiter_nested_in_predicated_spmd_is_rejected() -> None:
    """compiler: test_deferred_waiter_rejects_nested_predicated_launch."""
    r = outline(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, {_SIGNAL}, gate: pl.Tensor[[1], pl.INT32]):
            with pl.spmd(1, predicate=(gate[0] > 0)):
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="nested_waiter"):
                    {_WAIT}
        """)
    assert r.codes == ["PTO306b"]


def test_consumer_of_a_deferred_waiter_may_resolve_early() -> None:
    """compiler: test_deferred_wait_consumer_may_allow_early_resolve."""
    r = clean(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, {_SIGNAL}, payload: pl.Tensor[[1], pl.INT32]):
            with pl.at(level=pl.Level.CORE_GROUP) as wait_tid:
                {_WAIT}
            with pl.at(level=pl.Level.CORE_GROUP, deps=[wait_tid], allow_early_resolve=True):
                payload_value = pl.read(payload, [0])
        """)
    assert r.fns["main_incore_0"].call.submit
    assert r.fns["main_incore_1"].call.submit


def test_signal_waiter_and_notifier_capture_the_signal_as_input() -> None:
    """compiler: test_deferred_wait_does_not_order_later_notify_behind_waiter (outlining half:
    `defer_wait` and a Set `notify` leave the signal In; the dependency derivation that follows
    is past the passes we model). Our registry (§3.2) makes `notify(op=Set)` a Write, so the
    notifier's signal is Out here — recorded in reference-notes as a deliberate difference."""
    r = clean(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, {_SIGNAL}, peer: pl.Scalar[pl.INT32], payload: pl.Tensor[[1], pl.INT32]):
            with pl.manual_scope():
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="deferred_wait") as wait_tid:
                    {_WAIT}
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="notifier"):
                    pld.system.notify(signal, peer=peer, offsets=[0, 0], value=1, op=pld.NotifyOp.Set)
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="consumer", deps=[wait_tid]):
                    payload_value = pl.read(payload, [0])
        """)
    assert r.fns["deferred_wait"].params == (("signal", "In"),)
    assert r.fns["deferred_wait"].call.submit
    assert r.fns["notifier"].params == (("signal", "Out"), ("peer", "In"))
    assert not r.fns["notifier"].call.submit
    assert r.fns["consumer"].call.submit


# --- deferred waiters: the registration-loop contract ---------------------------------------------
# The compiler validates what a waiter body may do around its `defer_wait` registrations. Our
# catalogue (dsl-reference §5) has codes only for PTO306a-d, so these rejections assert "some
# PTO306 error"; the accepted shapes must stay clean.


def _waiter(params: str, body: str, *, after: str = "") -> str:
    inner = textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8)
    return f"""
@pl.function(type=pl.FunctionType.Orchestration)
def main(self, {params}):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="waiter") as wait_tid:
{inner}
{after}"""


_CONSUMER = """    with pl.at(level=pl.Level.CORE_GROUP, deps=[wait_tid]):
        pl.system.cacheinvalid()
"""

_WAITER_REJECTED = {
    "test_deferred_waiter_rejects_scalar_returning_helper_call": (
        "signal: pld.DistributedTensor[[1, 1], pl.INT32], expected: pl.Scalar[pl.INT32]",
        """
        hidden: pl.Scalar[pl.INT32] = self.scalar_helper(expected)
        pld.system.defer_wait(signal, offsets=[0, 0], expected=hidden, cmp=pld.WaitCmp.Ge)
        """,
    ),
    "test_deferred_wait_rejects_tensor_read_in_registration_loop": (
        "signal: pld.DistributedTensor[[2, 1], pl.INT32], expected_values: pl.Tensor[[2], pl.INT32]",
        """
        for src in pl.range(2):
            wanted = pl.read(expected_values, [src])
            pld.system.defer_wait(signal, offsets=[src, 0], expected=wanted, cmp=pld.WaitCmp.Ge)
        """,
    ),
    "test_deferred_wait_rejects_tensor_carried_across_iterations": (
        "signal: pld.DistributedTensor[[4, 1], pl.INT32], payload: pl.Tensor[[4], pl.INT32]",
        """
        carried = payload
        for src in pl.range(4):
            pld.system.defer_wait(signal, offsets=[src, 0], expected=1, cmp=pld.WaitCmp.Ge)
            carried = carried
        _ = carried
        """,
    ),
    "test_deferred_wait_rejects_more_than_64_static_conditions": (
        "signal: pld.DistributedTensor[[65, 1], pl.INT32], my_rank: pl.Scalar[pl.INT32]",
        """
        for src in pl.range(65):
            if src != my_rank:
                pld.system.defer_wait(signal, offsets=[src, 0], expected=1, cmp=pld.WaitCmp.Ge)
        """,
    ),
    "test_deferred_wait_rejects_dynamic_registration_loop": (
        "signal: pld.DistributedTensor[[64, 1], pl.INT32], limit: pl.Scalar[pl.INDEX]",
        """
        for src in pl.range(limit):
            pld.system.defer_wait(signal, offsets=[src, 0], expected=1, cmp=pld.WaitCmp.Ge)
        """,
    ),
    "test_deferred_wait_rejects_nested_tensor_read_after_registration": (
        "signal: pld.DistributedTensor[[1, 1], pl.INT32], expected_values: pl.Tensor[[1], pl.INT32], my_rank: pl.Scalar[pl.INT32]",
        """
        pld.system.defer_wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
        if my_rank >= 0:
            next_expected = pl.read(expected_values, [0])
        """,
    ),
}

_SCALAR_HELPER = """
@pl.function(type=pl.FunctionType.InCore)
def scalar_helper(self, value: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT32]:
    return value
"""


@pytest.mark.parametrize(("params", "body"), [pytest.param(*v, id=k) for k, v in _WAITER_REJECTED.items()])
def test_deferred_waiter_breaking_the_registration_contract_is_rejected(params: str, body: str) -> None:
    helper = _SCALAR_HELPER if "scalar_helper" in body else ""
    r = outline(helper + _waiter(params, body, after=_CONSUMER))
    assert any(code.startswith("PTO306") for code in r.errors), r.codes


def test_a_zero_trip_registration_loop_is_gone_before_the_waiter_is_checked() -> None:
    """compiler: test_deferred_wait_rejects_zero_trip_registration_loop runs the outliner alone;
    in the real prefix Simplify removes the zero-trip loop first (Fold B), so the scope
    registers nothing and is an ordinary one."""
    r = outline(
        _waiter(
            "signal: pld.DistributedTensor[[1, 1], pl.INT32]",
            """
            for src in pl.range(0):
                pld.system.defer_wait(signal, offsets=[src, 0], expected=1, cmp=pld.WaitCmp.Ge)
            """,
            after=_CONSUMER,
        )
    )
    assert not any(code.startswith("PTO306") for code in r.errors), r.codes
    assert "waiter" in r.names


_WAITER_ACCEPTED = {
    "test_deferred_wait_accepts_pure_scalar_temporary_in_registration_loop": (
        "signal: pld.DistributedTensor[[4, 1], pl.INT32], epoch: pl.Scalar[pl.INT32]",
        """
        for src in pl.range(4):
            wanted = epoch * 4
            pld.system.defer_wait(signal, offsets=[src, 0], expected=wanted, cmp=pld.WaitCmp.Ge)
        """,
    ),
    "test_deferred_wait_accepts_phi_carried_scalar_threshold": (
        "signal: pld.DistributedTensor[[4, 1], pl.INT32], my_rank: pl.Scalar[pl.INT32], low: pl.Scalar[pl.INT32], high: pl.Scalar[pl.INT32]",
        """
        if my_rank == 0:
            wanted = low
        else:
            wanted = high
        pld.system.defer_wait(signal, offsets=[0, 0], expected=wanted, cmp=pld.WaitCmp.Ge)
        """,
    ),
    "test_deferred_wait_accepts_iter_arg_carried_scalar_threshold": (
        "signal: pld.DistributedTensor[[4, 1], pl.INT32], epoch: pl.Scalar[pl.INT32], step: pl.Scalar[pl.INT32]",
        """
        wanted = epoch
        for src in pl.range(4):
            pld.system.defer_wait(signal, offsets=[src, 0], expected=wanted, cmp=pld.WaitCmp.Ge)
            wanted = wanted + step
        """,
    ),
    "test_deferred_wait_accepts_pure_scalar_loop_that_registers_nothing": (
        "signal: pld.DistributedTensor[[8, 1], pl.INT32], my_rank: pl.Scalar[pl.INT32], epoch: pl.Scalar[pl.INT32]",
        """
        coord = my_rank
        for _ in pl.range(3):
            coord = coord + my_rank
        pld.system.defer_wait(signal, offsets=[coord, 0], expected=epoch, cmp=pld.WaitCmp.Ge)
        """,
    ),
    "test_deferred_wait_accepts_exactly_64_static_conditions": (
        "signal: pld.DistributedTensor[[64, 1], pl.INT32]",
        """
        for src in pl.range(64):
            pld.system.defer_wait(signal, offsets=[src, 0], expected=1, cmp=pld.WaitCmp.Ge)
        """,
    ),
}


@pytest.mark.parametrize(("params", "body"), [pytest.param(*v, id=k) for k, v in _WAITER_ACCEPTED.items()])
def test_deferred_waiter_within_the_registration_contract_is_accepted(params: str, body: str) -> None:
    r = clean(_waiter(params, body, after=_CONSUMER))
    assert r.fns["waiter"].call.submit
    assert r.fns["waiter"].returns == ()  # registration only: nothing flows out of a waiter


def test_static_conditional_registration_loop_feeds_an_spmd_consumer() -> None:
    """compiler: test_deferred_wait_accepts_static_conditional_registration_loop."""
    r = clean(
        _waiter(
            "signal: pld.DistributedTensor[[8, 1], pl.INT32], indices: pl.Tensor[[1, 1], pl.INT32], "
            "payload: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]], "
            "my_rank: pl.Scalar[pl.INT32], epoch: pl.Scalar[pl.INT32]",
            """
            idx_anchor = pl.read(indices, [0, 0])
            for src in pl.range(8):
                if src != my_rank:
                    pld.system.defer_wait(signal, offsets=[src, 0], expected=epoch, cmp=pld.WaitCmp.Ge)
            """,
            after="""    with pl.spmd(4, name_hint="dispatch_gather", deps=[wait_tid]) as _gather_tid:
        block = pl.tile.get_block_idx()
        offset = block * 16
        value = pl.load(payload, [offset], [16])
        out = pl.store(value, [offset], out)
    return out
""",
        )
    )
    assert r.fns["waiter"].call.submit
    gather = r.fns["dispatch_gather_spmd"]
    assert gather.call.submit
    assert "deps=[wait_tid]" in gather.call.text.replace(" ", "")


# --- spmd wrapper, verifier-level checks ----------------------------------------------------------


def test_spmd_loop_body_becomes_incore_kernel_inside_the_spmd_wrapper() -> None:
    """compiler: test_outline_inner_incore_keeps_spmd_wrapper (our pipeline then also outlines
    the Spmd wrapper, as pass 10 would)."""
    r = clean("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[512, 128], pl.FP32], out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
            for i in pl.spmd(4):
                offset = i * 128
                t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [offset, 0], [128, 128])
                out = pl.store(t, [offset, 0], out)
            return out
        """)
    assert r.summary() == {
        "main_incore_0": ("InCore", [("a", "In"), ("out", "Out")], ("out",)),
        "main_spmd_0": ("Spmd", [("a", "In"), ("out", "Out")], ("out",)),
    }
    assert r.fns["main_spmd_0"].call.callee == "main_spmd_0"
    assert r.fns["main_spmd_0"].call.args == ("a", "out")
    assert "core_num" in r.fns["main_spmd_0"].call.text


def test_compute_op_left_in_orchestration_is_a_warning_not_an_error() -> None:
    """compiler: TestSplitIncoreOrchVerifier.test_compute_op_in_orchestration_does_not_fail and
    test_outline_with_compute_outside_incore_verification_passes."""
    r = outline(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            a: {V64} = pl.add(x, x)
            with pl.at(level=pl.Level.CORE_GROUP):
                y: {V64} = pl.mul(a, a)
            result: {V64} = pl.add(y, y)
            return result
        """)
    assert {d.severity.value for d in r.problems} == {"warning"}
    assert set(r.codes) == {"PTO504"}
    assert r.summary() == {"main_incore_0": ("InCore", [("a", "In")], ("y",))}


def test_reinterpret_view_in_orchestration_is_metadata() -> None:
    """compiler: test_reinterpret_view_is_classified_as_metadata."""
    clean("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[8, 16], pl.FP32]) -> pl.Tensor[[8, 32], pl.INT16]:
            return pl.tensor.reinterpret_view(x, pl.INT16)
        """)


def test_clean_program_has_no_diagnostics() -> None:
    """compiler: test_clean_orchestration_passes_verification, test_outline_does_not_throw_for_clean_program."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                y: {V64} = pl.add(x, x)
            return y
        """)
    assert r.analysis.diagnostics == [d for d in r.analysis.diagnostics if d.severity.value == "info"]


# --- names ----------------------------------------------------------------------------------------


def test_name_hint_names_the_function() -> None:
    """compiler: TestOutlineNamedIncoreScopes.test_outline_named_incore_scope."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="fused_add"):
                y: {V64} = pl.add(x, x)
            return y
        """)
    assert r.summary() == {"fused_add": ("InCore", [("x", "In")], ("y",))}
    assert r.fns["fused_add"].call.callee == "fused_add"


def test_named_scope_consumes_a_counter_slot() -> None:
    """compiler: test_outline_mixed_named_and_unnamed_scopes."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}, y: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="first_kernel"):
                a: {V64} = pl.add(x, x)
            with pl.at(level=pl.Level.CORE_GROUP):
                b: {V64} = pl.add(y, a)
            return b
        """)
    assert r.summary() == {
        "first_kernel": ("InCore", [("x", "In")], ("a",)),
        "main_incore_1": ("InCore", [("y", "In"), ("a", "In")], ("b",)),
    }


def test_repeated_name_hint_in_one_function_gets_a_numeric_suffix() -> None:
    """compiler: test_outline_duplicate_name_hint_auto_dedup."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}, y: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="my_kernel"):
                a: {V64} = pl.add(x, x)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="my_kernel"):
                b: {V64} = pl.add(y, a)
            return b
        """)
    assert r.names == ["my_kernel", "my_kernel_0"]
    assert r.fns["my_kernel_0"].params == (("y", "In"), ("a", "In"))
    assert "PTO601" in r.info_codes


def test_same_name_hint_in_two_functions_is_prefixed_with_the_later_function() -> None:
    """compiler: test_outline_duplicate_name_hint_across_functions (issue #1711)."""
    r = clean(f"""
        @pl.function
        def fn_a(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="dup"):
                a: {V64} = pl.add(x, x)
            return a

        @pl.function
        def fn_b(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="dup"):
                b: {V64} = pl.add(x, x)
            return b
        """)
    assert r.summary() == {
        "dup": ("InCore", [("x", "In")], ("a",)),
        "fn_b_dup": ("InCore", [("x", "In")], ("b",)),
    }
    assert (r.fns["dup"].parent, r.fns["fn_b_dup"].parent) == ("fn_a", "fn_b")


# --- no_dep_args ----------------------------------------------------------------------------------


def test_no_dep_args_become_argument_indices_on_the_call() -> None:
    """compiler: TestOutlineNoDepArgs.test_outline_translates_no_dep_args_to_indices (and the
    outlining half of test_outline_plus_derive_marks_slot_no_dep)."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}, w: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[w]):
                y: {V64} = pl.add(x, w)
            return y
        """)
    assert r.fns["main_incore_0"].params == (("x", "In"), ("w", "In"))
    [(_, call)] = dispatches(r.function("main"))
    assert call.attrs.get("arg_direction_overrides") == [1]
    assert "arg_direction_overrides_vars" not in call.attrs


def test_no_dep_arg_written_by_assemble_is_out() -> None:
    """compiler: test_outline_plus_derive_no_dep_on_mutated_capture (outlining half)."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}, k_cache: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[k_cache]):
                k_cache = pl.assemble(k_cache, x, [0])
            return k_cache
        """)
    k = r.fns["main_incore_0"]
    assert k.direction("k_cache") == "Out"
    [(_, call)] = dispatches(r.function("main"))
    assert call.attrs.get("arg_direction_overrides") == [k.param_names.index("k_cache")]


# --- split_aiv ------------------------------------------------------------------------------------

_SPLIT_AIV_MAIN = """
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[512, 128], pl.FP32], b: pl.Tensor[[512, 128], pl.FP32], out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            offset = aiv_id * 128
            tile_a: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [offset, 0], [128, 128])
            tile_b: pl.Tile[[128, 128], pl.FP32] = pl.load(b, [offset, 0], [128, 128])
            out = pl.store(pl.add(tile_a, tile_b), [offset, 0], out)
        return out
    """


def test_split_aiv_region_stamps_split_and_split_aiv_on_the_kernel() -> None:
    """compiler: test_outline_propagates_split_aiv_attr, test_split_aiv_preserved_in_outlined_func,
    test_split_aiv_aiv_id_not_outlined_param."""
    r = clean(_SPLIT_AIV_MAIN)
    assert r.summary() == {"main_incore_0": ("InCore", [("a", "In"), ("b", "In"), ("out", "Out")], ("out",))}
    k = r.fns["main_incore_0"]
    assert (k.call.targets, k.call.args) == (("out",), ("a", "b", "out"))
    fn = r.function("main_incore_0")
    assert _attr(fn, "split") == "UP_DOWN"
    assert fn.attrs.get("split_aiv") is True


def test_function_split_combined_with_split_aiv_region_is_rejected() -> None:
    """compiler: test_function_split_with_split_aiv_region_rejected."""
    r = outline("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[512, 128], pl.FP32], out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="k", optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                    offset = aiv_id * 128
                    t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [offset, 0], [128, 128])
                    out = pl.store(t, [offset, 0], out)
            return out
        """)
    assert r.codes == ["PTO171"]
    assert "mutually exclusive" in r.message("PTO171")


def test_split_none_combined_with_split_aiv_region_is_rejected_too() -> None:
    """compiler: test_function_split_none_with_split_aiv_region_rejected (RFC #1820)."""
    r = outline("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[512, 128], pl.FP32], out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="k", optimizations=[pl.split(pl.SplitMode.NONE)]):
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                    offset = aiv_id * 128
                    t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [offset, 0], [128, 128])
                    out = pl.store(t, [offset, 0], out)
            return out
        """)
    assert r.codes == ["PTO171"]


def test_cross_core_slot_coexists_with_split_aiv_region() -> None:
    """compiler: test_cross_core_slot_with_split_aiv_region_accepted."""
    r = clean("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[512, 128], pl.FP32], out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="k", optimizations=[pl.cross_core_slot(slot_num=4)]):
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                    offset = aiv_id * 128
                    t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [offset, 0], [128, 128])
                    out = pl.store(t, [offset, 0], out)
            return out
        """)
    fn = r.function("k")
    assert fn.attrs.get("slot_num") == 4
    assert fn.attrs.get("split_aiv") is True
    assert _attr(fn, "split") == "UP_DOWN"


def test_regions_with_different_modes_leave_no_function_level_split() -> None:
    """compiler: test_outline_multi_mode_regions_omits_func_split."""
    r = clean("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32], out_ud: pl.Out[pl.Tensor[[128, 128], pl.FP32]], out_lr: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                    off_ud = aiv_id * 64
                    ta: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [0, 0], [128, 128])
                    out_ud = pl.store(pl.add(ta, ta), [off_ud, 0], out_ud)
                for aiv_id2 in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                    off_lr = aiv_id2 * 64
                    tb: pl.Tile[[128, 128], pl.FP32] = pl.load(b, [0, 0], [128, 128])
                    out_lr = pl.store(pl.add(tb, tb), [0, off_lr], out_lr)
            return out_ud
        """)
    fn = r.function("k")
    assert fn.attrs.get("split_aiv") is True
    assert "split" not in fn.attrs


def test_split_aiv_none_region_stamps_only_split_aiv() -> None:
    """compiler: test_split_aiv_none_region_stamps_no_function_level_split."""
    r = clean("""
        @pl.function
        def main(self, a: pl.Tensor[[128, 128], pl.FP32], c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                base = aiv_id * 64
                c = pl.store(pl.exp(pl.load(a, [base, 0], [64, 128])), [base, 0], c)
            return c
        """)
    assert r.function("main_incore_0").attrs == {"split_aiv": True}
    assert r.fns["main_incore_0"].params == (("a", "In"), ("c", "Out"))


def test_split_aiv_up_down_region_stamps_the_function_level_split() -> None:
    """compiler: test_split_aiv_up_down_region_stamps_function_level_split."""
    r = clean("""
        @pl.function
        def main(self, a: pl.Tensor[[128, 128], pl.FP32], c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                c = pl.store(pl.exp(pl.load(a, [0, 0], [128, 128])), [0, 0], c)
            return c
        """)
    fn = r.function("main_incore_0")
    assert {k: getattr(v, "value", v) for k, v in fn.attrs.items()} == {"split_aiv": True, "split": "UP_DOWN"}


# --- rebound Out capture --------------------------------------------------------------------------


def test_rebound_out_capture_is_an_out_parameter_passed_through_the_call() -> None:
    """compiler: TestOutlineReboundOutCapture.test_rebound_out_capture_becomes_out_param and
    test_matches_the_convert_to_ssa_prefixed_result."""
    r = clean("""
        @pl.function
        def main(self, a: pl.Tensor[[128, 128], pl.FP32], c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                c = pl.store(pl.exp(pl.load(a, [0, 0], [128, 128])), [0, 0], c)
            return c
        """)
    k = r.fns["main_incore_0"]
    assert (k.params, k.returns) == ((("a", "In"), ("c", "Out")), ("c",))
    assert (k.call.targets, k.call.args) == (("c",), ("a", "c"))


def test_rebound_out_capture_in_split_aiv_region() -> None:
    """compiler: test_rebound_out_capture_in_split_aiv_region_reparses (signature half)."""
    r = clean("""
        @pl.function
        def main(self, a: pl.Tensor[[128, 128], pl.FP32], c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                base = aiv_id * 64
                c = pl.store(pl.exp(pl.load(a, [base, 0], [64, 128])), [base, 0], c)
            return c
        """)
    assert r.fns["main_incore_0"].param_names == ("a", "c")


def test_two_stores_to_a_rebound_capture_keep_it_out_and_return_it_once() -> None:
    """compiler: test_rebound_out_capture_body_is_single_assignment."""
    r = clean("""
        @pl.function
        def main(self, a: pl.Tensor[[128, 128], pl.FP32], c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                c = pl.store(pl.exp(pl.load(a, [0, 0], [64, 128])), [0, 0], c)
                c = pl.store(pl.exp(pl.load(a, [64, 0], [64, 128])), [64, 0], c)
            return c
        """)
    k = r.fns["main_incore_0"]
    assert k.params == (("a", "In"), ("c", "Out"))
    assert k.returns == ("c",)
    fn = r.function("main_incore_0")
    param_c = fn.params[1].var.name
    assigned = [s.target.name for s in statements(fn.body) if isinstance(s, AssignStmt)]
    assert param_c not in assigned
    assert len(assigned) == len(set(assigned))


# --- promotion: dyn-dim fold ----------------------------------------------------------------------

_DYN = 'import pypto.language as pl\n\nM_DYN = pl.dynamic("M_DYN")\n\n\n@pl.program\nclass Prog:\n'


def _dyn(members: str) -> str:
    return _DYN + textwrap.indent(textwrap.dedent(members).strip("\n"), "    ") + "\n"


def test_promotion_folds_a_dim_read_of_a_parameter_symbol() -> None:
    """compiler: TestPromotionFoldsParamDimReads.test_promotion_matches_the_parser_folded_form."""
    r = clean(
        _dyn("""
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, a: pl.Tensor[[M_DYN, 128], pl.FP32], out: pl.InOut[pl.Tensor[[M_DYN, 128], pl.FP32]]) -> pl.Tensor[[M_DYN, 128], pl.FP32]:
            m = pl.tensor.dim(a, 0)
            with pl.spmd(m // 16):
                i = pl.tile.get_block_idx()
                t: pl.Tile[[16, 128], pl.FP32] = pl.load(a, [i * 16, 0], [16, 128])
                out = pl.store(pl.add(t, t), [i * 16, 0], out)
            return out
        """)
    )
    assert r.promoted == {"main": "Orchestration"}
    assert _dim_reads(r.function("main")) == []


def test_promotion_folds_dim_reads_transitively() -> None:
    """compiler: test_promotion_folds_transitive_dim_read."""
    r = clean(
        _dyn("""
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, a: pl.Tensor[[M_DYN, 128], pl.FP32], out: pl.InOut[pl.Tensor[[M_DYN, 128], pl.FP32]]) -> pl.Tensor[[M_DYN, 128], pl.FP32]:
            m = pl.tensor.dim(a, 0)
            tmp: pl.Tensor[[M_DYN, 128], pl.FP32] = pl.create_tensor([m, 128], dtype=pl.FP32)
            n = pl.tensor.dim(tmp, 0)
            with pl.spmd(n // 16):
                i = pl.tile.get_block_idx()
                t: pl.Tile[[16, 128], pl.FP32] = pl.load(a, [i * 16, 0], [16, 128])
                out = pl.store(pl.add(t, t), [i * 16, 0], out)
            return out
        """)
    )
    assert _dim_reads(r.function("main")) == []


def test_folded_symbol_used_inside_the_kernel_is_captured_as_the_symbol() -> None:
    """compiler: test_promotion_folds_symbol_used_inside_incore_body."""
    r = clean(
        _dyn("""
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, a: pl.Tensor[[M_DYN, 128], pl.FP32], out: pl.InOut[pl.Tensor[[M_DYN, 128], pl.FP32]]) -> pl.Tensor[[M_DYN, 128], pl.FP32]:
            m = pl.tensor.dim(a, 0)
            with pl.spmd(m // 16):
                i = pl.tile.get_block_idx()
                lim = m - 16
                t: pl.Tile[[16, 128], pl.FP32] = pl.load(a, [pl.min(i * 16, lim), 0], [16, 128])
                out = pl.store(pl.add(t, t), [i * 16, 0], out)
            return out
        """)
    )
    assert _dim_reads(r.function("main")) == []
    [kernel] = [o for o in r.fns.values() if o.kind == "InCore"]
    assert kernel.params[0] == ("M_DYN", "In")
    assert r.fns[kernel.name].params[0][0] == "M_DYN"


def test_dim_read_of_a_static_extent_is_kept() -> None:
    """compiler: test_static_extent_dim_read_is_kept."""
    r = clean(
        _dyn("""
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, a: pl.Tensor[[M_DYN, 128], pl.FP32], out: pl.InOut[pl.Tensor[[M_DYN, 128], pl.FP32]]) -> pl.Tensor[[M_DYN, 128], pl.FP32]:
            cols = pl.tensor.dim(a, 1)
            with pl.spmd(cols // 16):
                i = pl.tile.get_block_idx()
                t: pl.Tile[[16, 128], pl.FP32] = pl.load(a, [i * 16, 0], [16, 128])
                out = pl.store(pl.add(t, t), [i * 16, 0], out)
            return out
        """)
    )
    assert len(_dim_reads(r.function("main"))) == 1


def test_opaque_function_without_scope_is_not_promoted_and_keeps_its_dim_read() -> None:
    """compiler: test_opaque_without_incore_scope_keeps_dim_read."""
    r = clean(
        _dyn("""
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, a: pl.Tensor[[M_DYN, 128], pl.FP32]) -> pl.Scalar[pl.INDEX]:
            m = pl.tensor.dim(a, 0)
            return m
        """)
    )
    assert r.promoted == {}
    assert r.function_type("main") == "Opaque"
    assert len(_dim_reads(r.function("main"))) == 1


# --- Graph functions ------------------------------------------------------------------------------


def test_graph_function_with_a_scope_is_outlined_and_stays_graph() -> None:
    """compiler: TestGraphFunctionTypeIsPreserved.test_graph_with_incore_scope_is_outlined_and_stays_graph."""
    r = clean(f"""
        @pl.function(type=pl.FunctionType.Graph)
        def layer(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                y: {V64} = pl.add(x, x)
            return y
        """)
    assert r.summary() == {"layer_incore_0": ("InCore", [("x", "In")], ("y",))}
    assert r.function_type("layer") == "Graph"
    assert r.promoted == {}


def test_graph_function_without_scope_stays_graph() -> None:
    """compiler: test_graph_without_incore_scope_stays_graph."""
    r = clean("""
        @pl.function(type=pl.FunctionType.Graph)
        def layer(self, x: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT32]:
            return x
        """)
    assert r.names == []
    assert r.function_type("layer") == "Graph"


# --- legacy chunked-loop scope (test_outline_incore_interleaved_ops.py) ---------------------------


def test_legacy_optimization_scope_is_one_kernel_and_leaves_no_compute_in_orchestration() -> None:
    """compiler: test_outline_incore_interleaved_ops.py::test_interleaved_scalar_op_gets_incore and
    test_all_ops_outlined_end_to_end. The compiler first runs InterchangeChunkLoops, which splits
    the scope into one kernel per chunk (>= 3); we do not model that pass (§7 D14 reads the
    legacy form as one InCore scope, with an informational note), so the whole body is one
    kernel. What both agree on: no compute op stays in the orchestration function."""
    r = clean(
        """
        @pl.function
        def main(self, x: pl.Tensor[[8, 64], pl.FP32]) -> pl.Tensor[[8, 64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, optimization=pl.chunked_loop_optimizer):
                for b in pl.range(0, 8, 4):
                    for i in pl.parallel(4, chunk=2):
                        x = pl.tensor.adds(x, 1.0)
                    y: pl.Tensor[[8, 64], pl.FP32] = pl.tensor.muls(x, 2.0)
                    for j in pl.parallel(4, chunk=2):
                        x = pl.tensor.add(x, y)
            return x
        """
    )
    assert r.summary() == {"main_incore_0": ("InCore", [("x", "In")], ("x",))}
    assert "PTO504" not in r.codes
    assert r.info_codes != []
