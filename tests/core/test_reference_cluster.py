"""OutlineClusterScopes (Cluster → Group, standalone Spmd → Spmd), checked against the cases of
the compiler's own unit tests (hw-native-sys/pypto,
tests/ut/ir/transforms/test_outline_cluster_scopes.py).

The compiler's tests that run only the cluster pass are checked on our whole pipeline, so an
InCore scope they leave in place is outlined here as pass 9 would do first.
"""

from __future__ import annotations

from reference_util import clean, outline

V64 = "pl.Tensor[[64], pl.FP32]"
T512 = "pl.Tensor[[512, 128], pl.FP32]"

KERNEL = f"""
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: {V64}, out: pl.Out[{V64}]) -> {V64}:
        x_tile: pl.Tile[[64], pl.FP32] = pl.load(x, [0], [64])
        y_tile: pl.Tile[[64], pl.FP32] = pl.add(x_tile, x_tile)
        out: {V64} = pl.store(y_tile, [0], out)
        return out
    """


def _flat(text: str) -> str:
    """Call text without spaces and with one quote style, for attr checks."""
    return text.replace(" ", "").replace("'", '"')


def test_cluster_scope_becomes_group_function_and_parent_keeps_its_type() -> None:
    """compiler: test_outline_simple_cluster_scope."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.cluster():
                y: {V64} = pl.add(x, x)
            return y
        """)
    assert r.summary() == {"main_cluster_0": ("Cluster", [("x", "In")], ("y",))}
    k = r.fns["main_cluster_0"]
    assert (k.function_type, k.parent) == ("Group", "main")
    assert (k.call.targets, k.call.args) == (("y",), ("x",))
    assert r.promoted == {}
    assert r.function_type("main") == "Opaque"


def test_cluster_holding_an_incore_scope_calls_the_outlined_kernel() -> None:
    """compiler: test_outline_cluster_with_incore (the compiler test runs the cluster pass alone,
    leaving the InCore scope inside the Group; our pipeline outlines it first, in pass order)."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.cluster():
                with pl.at(level=pl.Level.CORE_GROUP):
                    y: {V64} = pl.add(x, x)
            return y
        """)
    assert r.summary() == {
        "main_incore_0": ("InCore", [("x", "In")], ("y",)),
        "main_cluster_0": ("Cluster", [("x", "In")], ("y",)),
    }
    assert r.fns["main_incore_0"].parent == "main_cluster_0"
    assert r.fns["main_cluster_0"].parent == "main"


def test_two_cluster_scopes_are_numbered_in_order() -> None:
    """compiler: test_outline_multiple_cluster_scopes."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.cluster():
                y: {V64} = pl.add(x, x)
            with pl.cluster():
                z: {V64} = pl.mul(y, y)
            return z
        """)
    assert r.summary() == {
        "main_cluster_0": ("Cluster", [("x", "In")], ("y",)),
        "main_cluster_1": ("Cluster", [("y", "In")], ("z",)),
    }


def test_function_without_cluster_scope_is_unchanged() -> None:
    """compiler: test_no_cluster_scopes_passthrough."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            y: {V64} = pl.add(x, x)
            return y
        """)
    assert r.names == []


def test_incore_scope_is_not_a_cluster_target() -> None:
    """compiler: test_cluster_does_not_affect_incore_scopes."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                y: {V64} = pl.add(x, x)
            return y
        """)
    assert [(o.name, o.kind) for o in r.fns.values()] == [("main_incore_0", "InCore")]


def test_standalone_spmd_dispatch_becomes_spmd_wrapper_and_launch_spec_rides_the_call() -> None:
    """compiler: test_outline_standalone_spmd_scope."""
    r = clean(
        KERNEL
        + f"""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {V64}, out: pl.Out[{V64}]) -> {V64}:
        with pl.spmd(4, sync_start=True):
            out = self.kernel(x, out)
        return out
    """
    )
    assert r.summary() == {"main_spmd_0": ("Spmd", [("x", "In"), ("out", "Out")], ("out",))}
    k = r.fns["main_spmd_0"]
    assert k.function_type == "Spmd"
    assert (k.call.targets, k.call.args) == (("out",), ("x", "out"))
    assert '"core_num":4' in _flat(k.call.text)
    assert '"sync_start":True' in _flat(k.call.text)
    assert "core_num" not in r.function("main_spmd_0").attrs


def test_cluster_in_orchestration_function_with_user_kernel_call() -> None:
    """compiler: test_outline_cluster_in_orchestration_function."""
    r = clean(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def compute(self, x: {V64}) -> {V64}:
            y: {V64} = pl.add(x, x)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {V64}) -> {V64}:
            with pl.cluster():
                y: {V64} = self.compute(x)
            return y
        """)
    assert r.summary() == {"main_cluster_0": ("Cluster", [("x", "In")], ("y",))}
    assert r.function_type("main") == "Orchestration"


def test_cluster_whose_values_are_unused_after_has_no_returns_and_a_statement_call() -> None:
    """compiler: test_cluster_scope_no_outputs."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.cluster():
                _y: {V64} = pl.add(x, x)
            return x
        """)
    k = r.fns["main_cluster_0"]
    assert (k.params, k.returns) == ((("x", "In"),), ())
    assert k.call.targets == ()
    assert k.call.text.strip().startswith("self.main_cluster_0(")


def test_cluster_with_two_outputs() -> None:
    """compiler: test_cluster_multiple_outputs."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.cluster():
                y: {V64} = pl.add(x, x)
                z: {V64} = pl.mul(x, x)
            w: {V64} = pl.add(y, z)
            return w
        """)
    k = r.fns["main_cluster_0"]
    assert (k.returns, k.call.targets) == (("y", "z"), ("y", "z"))


_SPMD_LOOP = f"""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: {T512}, out: pl.Out[{T512}]) -> {T512}:
        for i in pl.spmd(4{{hint}}):
            offset = i * 128
            tile_a: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [offset, 0], [128, 128])
            out = pl.store(tile_a, [offset, 0], out)
        return out
    """


def test_spmd_loop_becomes_incore_kernel_plus_spmd_wrapper() -> None:
    """compiler: test_outline_spmd_for_loop_auto_outlines_incore."""
    r = clean(_SPMD_LOOP.replace("{hint}", ""))
    assert r.summary() == {
        "main_incore_0": ("InCore", [("a", "In"), ("out", "Out")], ("out",)),
        "main_spmd_0": ("Spmd", [("a", "In"), ("out", "Out")], ("out",)),
    }
    assert r.fns["main_incore_0"].parent == "main_spmd_0"
    assert r.fns["main_incore_0"].call.args == ("a", "out")
    spmd = r.fns["main_spmd_0"]
    assert (spmd.parent, spmd.call.targets, spmd.call.args) == ("main", ("out",), ("a", "out"))
    assert '"core_num":4' in _flat(spmd.call.text)


def test_spmd_loop_name_hint_names_wrapper_and_kernel() -> None:
    """compiler: test_outline_spmd_for_loop_uses_name_hint_on_incore."""
    r = clean(_SPMD_LOOP.replace("{hint}", ', name_hint="q_proj_spmd"'))
    assert set(r.names) == {"q_proj", "q_proj_spmd"}
    assert r.fns["q_proj"].kind == "InCore"
    assert r.fns["q_proj_spmd"].kind == "Spmd"
    assert r.fns["q_proj_spmd"].call.callee == "q_proj_spmd"


def test_spmd_loop_assembling_into_out_makes_it_out_on_kernel_and_wrapper() -> None:
    """compiler: test_outline_spmd_for_loop_marks_assemble_dest_as_written (issue #2415)."""
    r = clean(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: {T512}, out: pl.Out[{T512}]) -> {T512}:
            for n0 in pl.spmd(4):
                offset = n0 * 128
                chunk: pl.Tensor[[128, 128], pl.FP32] = pl.slice(a, [128, 128], [offset, 0])
                out = pl.assemble(out, chunk, [offset, 0])
            return out
        """)
    assert r.summary() == {
        "main_incore_0": ("InCore", [("a", "In"), ("out", "Out")], ("out",)),
        "main_spmd_0": ("Spmd", [("a", "In"), ("out", "Out")], ("out",)),
    }


def test_spmd_nested_in_cluster_is_unwrapped_into_the_group() -> None:
    """compiler: test_nested_spmd_in_cluster_propagates_sync_start."""
    r = clean(
        KERNEL
        + f"""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {V64}, out: pl.Out[{V64}]) -> {V64}:
        with pl.cluster():
            with pl.spmd(4, sync_start=True):
                out = self.kernel(x, out)
        return out
    """
    )
    assert r.summary() == {"main_cluster_0": ("Cluster", [("x", "In"), ("out", "Out")], ("out",))}
    group = r.function("main_cluster_0")
    assert group.attrs.get("spmd_unwrapped") is True
    assert "core_num" not in group.attrs
    text = _flat(r.fns["main_cluster_0"].call.text)
    assert '"core_num":4' in text
    assert '"sync_start":True' in text


def test_unwrapped_spmd_without_sync_start_puts_only_core_num_on_the_call() -> None:
    """compiler: test_nested_spmd_in_cluster_omits_sync_start_when_false."""
    r = clean(
        KERNEL
        + f"""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {V64}, out: pl.Out[{V64}]) -> {V64}:
        with pl.cluster():
            with pl.spmd(8):
                out = self.kernel(x, out)
        return out
    """
    )
    text = _flat(r.fns["main_cluster_0"].call.text)
    assert '"core_num":8' in text
    assert "sync_start" not in text


def test_callee_out_slot_does_not_demote_a_read_and_written_capture() -> None:
    """compiler: test_cluster_callee_out_slot_does_not_demote_inout."""
    r = clean("""
        @pl.function(type=pl.FunctionType.InCore)
        def helper(self, src: pl.Tensor[[16, 128], pl.FP32], dst: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
            t: pl.Tile[[16, 128], pl.FP32] = pl.load(src, [0, 0], [16, 128])
            dst = pl.store(t, [0, 0], dst)
            return dst

        @pl.function
        def main(self, x: pl.Tensor[[16, 128], pl.FP32], buf: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
            with pl.cluster():
                back: pl.Tile[[16, 128], pl.FP32] = pl.load(buf, [0, 0], [16, 128])
                keep: pl.Tile[[16, 128], pl.FP32] = pl.exp(back)
                pl.store(keep, [0, 0], buf)
                res = self.helper(x, buf)
            return res
        """)
    assert r.fns["main_cluster_0"].direction("buf") == "InOut"


def test_cluster_store_target_is_out_and_exported() -> None:
    """compiler: test_cluster_store_target_becomes_out."""
    r = clean("""
        @pl.function
        def main(self, x: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 128], pl.FP32]:
            buf: pl.Tensor[[16, 128], pl.FP32] = pl.create_tensor([16, 128], dtype=pl.FP32)
            with pl.cluster():
                tile = pl.tile.full([16, 128], dtype=pl.FP32, value=0.0)
                pl.store(tile, [0, 0], buf)
            result: pl.Tensor[[16, 128], pl.FP32] = pl.add(buf, x)
            return result
        """)
    k = r.fns["main_cluster_0"]
    assert (k.params, k.returns) == ((("buf", "Out"),), ("buf",))
    assert (k.call.targets, k.call.args) == (("buf",), ("buf",))
    assert r.promoted == {}


def test_cluster_name_hint_used_twice_gets_numeric_suffix() -> None:
    """compiler: test_cluster_duplicate_name_hint_dedups."""
    r = clean(f"""
        @pl.function
        def main(self, x: {V64}) -> {V64}:
            with pl.cluster(name_hint="grp"):
                y: {V64} = pl.add(x, x)
            with pl.cluster(name_hint="grp"):
                z: {V64} = pl.mul(y, y)
            return z
        """)
    assert r.summary() == {
        "grp": ("Cluster", [("x", "In")], ("y",)),
        "grp_0": ("Cluster", [("y", "In")], ("z",)),
    }


def test_cluster_inside_incore_function_is_reported() -> None:
    """compiler: test_cluster_outlined_verifier_rejects_cluster_in_incore (D12: reported at the
    scope as PTO505 rather than left to a verifier)."""
    r = outline(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def compute(self, x: {V64}) -> {V64}:
            with pl.cluster():
                y: {V64} = pl.add(x, x)
            return y
        """)
    assert r.codes == ["PTO505"]


# --- spmd with task ids ---------------------------------------------------------------------------

_STAGE = """
        with pl.spmd(4, name_hint="{name}"{extra}) as {tid}:
            {i} = pl.tile.get_block_idx()
            {t}: pl.Tile[[128, 128], pl.FP32] = pl.load({src}, [{i} * 128, 0], [128, 128])
            out = pl.store(pl.add({t}, {t}), [{i} * 128, 0], out)"""


def _stages(*blocks: str) -> str:
    return f"""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: {T512}, out: pl.Out[{T512}]) -> {T512}:{"".join(blocks)}
        return out
    """


def test_spmd_with_task_id_is_dispatched_as_submit_with_core_num() -> None:
    """compiler: TestOutlineSpmdScopeTaskId.test_as_tid_outlines_to_submit."""
    r = clean(_stages(_STAGE.format(name="stage1", extra="", tid="tid", i="i", t="t", src="a")))
    assert set(r.names) == {"stage1", "stage1_spmd"}
    wrapper = r.fns["stage1_spmd"]
    assert wrapper.kind == "Spmd"
    assert wrapper.call.submit
    assert wrapper.call.targets == ("out", "tid")
    assert "core_num" in wrapper.call.text
    assert "deps" not in wrapper.call.text
    assert "core_num" not in r.function("stage1_spmd").attrs


def test_deps_on_a_previous_spmd_task_fold_into_the_second_submit() -> None:
    """compiler: test_as_tid_deps_fold_into_submit_deps."""
    r = clean(
        _stages(
            _STAGE.format(name="stage1", extra="", tid="tid0", i="i", t="t", src="a"),
            _STAGE.format(name="stage2", extra=", deps=[tid0]", tid="tid1", i="j", t="u", src="out"),
        )
    )
    assert [o.name for o in r.fns.values() if o.kind == "Spmd"] == ["stage1_spmd", "stage2_spmd"]
    first, second = r.fns["stage1_spmd"], r.fns["stage2_spmd"]
    assert first.call.submit and second.call.submit
    assert "deps" not in first.call.text
    assert "deps=[tid0]" in _flat(second.call.text)


def test_early_resolve_with_task_id_is_a_submit() -> None:
    """compiler: test_allow_early_resolve_threads_onto_submit."""
    r = clean(
        _stages(
            _STAGE.format(name="stage1", extra=", allow_early_resolve=True", tid="tid", i="i", t="t", src="a")
        )
    )
    wrapper = r.fns["stage1_spmd"]
    assert wrapper.call.submit
    assert "allow_early_resolve=True" in _flat(wrapper.call.text)


def test_early_resolve_without_task_id_still_submits() -> None:
    """compiler: test_allow_early_resolve_without_as_tid_still_submits."""
    r = clean(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: {T512}, out: pl.Out[{T512}]) -> {T512}:
            t = pl.load(a, [0, 0], [512, 128])
            out = pl.store(t, [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: {T512}, out: pl.Out[{T512}]) -> {T512}:
            with pl.spmd(4, allow_early_resolve=True):
                out = self.kernel(a, out)
            return out
        """)
    wrapper = r.fns["main_spmd_0"]
    assert wrapper.call.submit
    assert wrapper.call.targets[0] == "out"
    assert "core_num" in wrapper.call.text


# --- dynamic launch spec --------------------------------------------------------------------------

_DYN_HEADER = 'import pypto.language as pl\n\nM_DYN = pl.dynamic("M_DYN")\n\n\n@pl.program\nclass Prog:\n'


def test_dynamic_core_num_is_an_expression_on_the_dispatch() -> None:
    """compiler: TestDynamicSpmdLaunchSpec.test_dynamic_core_num_rides_the_dispatch (the parser
    folds `m = pl.tensor.dim(a, 0)` in an Orchestration body, so the count reads the symbol)."""
    r = clean(
        _DYN_HEADER
        + """    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M_DYN, 128], pl.FP32], out: pl.InOut[pl.Tensor[[M_DYN, 128], pl.FP32]]) -> pl.Tensor[[M_DYN, 128], pl.FP32]:
        m = pl.tensor.dim(a, 0)
        with pl.spmd(m // 16):
            i = pl.tile.get_block_idx()
            t: pl.Tile[[16, 128], pl.FP32] = pl.load(a, [i * 16, 0], [16, 128])
            out = pl.store(pl.add(t, t), [i * 16, 0], out)
        return out
"""
    )
    [wrapper] = [o for o in r.fns.values() if o.kind == "Spmd"]
    assert "core_num" not in r.function(wrapper.name).attrs
    assert '"core_num":M_DYN//16' in _flat(wrapper.call.text)


def test_cluster_nested_dynamic_core_num_is_translated_to_the_callers_values() -> None:
    """compiler: test_cluster_nested_dynamic_core_num_rides_the_dispatch."""
    r = clean(
        _DYN_HEADER
        + """    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M_DYN, 128], pl.FP32], out: pl.InOut[pl.Tensor[[M_DYN, 128], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[M_DYN, 128], pl.FP32]:
        with pl.cluster():
            with pl.spmd(n // 16):
                i = pl.tile.get_block_idx()
                t: pl.Tile[[16, 128], pl.FP32] = pl.load(a, [i * 16, 0], [16, 128])
                out = pl.store(pl.add(t, t), [i * 16, 0], out)
        return out
"""
    )
    group = r.fns["main_cluster_0"]
    assert r.function("main_cluster_0").attrs.get("spmd_unwrapped") is True
    assert "core_num" not in r.function("main_cluster_0").attrs
    assert "n" in group.call.args
    assert '"core_num":n//16' in _flat(group.call.text)
    assert [o.kind for o in r.fns.values()].count("Spmd") == 0


# --- returns name parameters ----------------------------------------------------------------------


def test_spmd_wrapper_around_multi_output_kernel_returns_only_the_used_out_param() -> None:
    """compiler: TestOutlinedReturnParamsExplicit.test_spmd_wrapper_tuple_destructure_returns_param."""
    t = "pl.Tensor[[64, 64], pl.FP32]"
    r = clean(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: {t}, pre: pl.InOut[{t}], post: pl.InOut[{t}], out: pl.Out[{t}]) -> tuple[{t}, {t}, {t}]:
            tile = pl.load(a, [0, 0], [64, 64])
            pre = pl.store(tile, [0, 0], pre)
            post = pl.store(tile, [0, 0], post)
            t2 = pl.add(tile, tile)
            out = pl.store(t2, [0, 0], out)
            return pre, post, out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: {t}, pre: pl.InOut[{t}], post: pl.InOut[{t}], out: pl.Out[{t}]) -> {t}:
            with pl.spmd(4):
                pre, post, out = self.kernel(a, pre, post, out)
            return out
        """)
    k = r.fns["main_spmd_0"]
    assert k.params == (("a", "In"), ("pre", "InOut"), ("post", "InOut"), ("out", "Out"))
    assert k.returns == ("out",)


def test_spmd_store_target_output_is_returned_as_the_parameter() -> None:
    """compiler: test_store_target_output_returns_inout_param."""
    r = clean(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: {T512}, out: pl.Out[{T512}]) -> {T512}:
            with pl.spmd(4) as tid:
                i = pl.tile.get_block_idx()
                t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [i * 128, 0], [128, 128])
                out = pl.store(pl.add(t, t), [i * 128, 0], out)
            return out
        """)
    [wrapper] = [o for o in r.fns.values() if o.kind == "Spmd"]
    assert wrapper.returns == ("out",)
    assert wrapper.direction("out") == "Out"
