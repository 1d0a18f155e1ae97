"""OutlineIncoreScopes: every example and rule of spec 000, dsl-reference §6 Examples 1, 2 and 5,
and the decisions of §7 that touch the pass. Each test checks what a user sees: names, parameter
order and directions, returns, the replacement call, and diagnostics with their ranges."""

from __future__ import annotations

from outline_cases import T64, clean, run

from pypto_core.printer import print_function

T128 = "pl.Tensor[[128, 64], pl.FP32]"


# --- spec 000 examples -----------------------------------------------------------------------


def test_spec_basic_outlining_returns_the_store_target_param() -> None:
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}) -> {T64}:
            y = x + 1
            with pl.at(level=pl.Level.CORE_GROUP):
                tile = pl.load(y, [0], [64])
                tile_sq = pl.mul(tile, tile)
                result_tile = tile_sq + 1
                result = pl.store(result_tile, [0], x)
            z = result + 2
            return z
        """)
    assert r.names == ["main_incore_0"]
    assert r.params("main_incore_0") == [("y", "In"), ("x", "Out")]
    assert r.returns("main_incore_0") == ("x",)  # the param, not `result`
    assert r.call("main_incore_0") == "x = self.main_incore_0(y, x)"
    assert r.scope("main_incore_0").function_type == "InCore"
    assert r.promoted == {"main": "Orchestration"}
    # `result` was the store's post-write alias: later uses read the call's fresh result
    text = print_function(r.function("main_incore_0"))
    assert "x__store = result" in text


def test_spec_multiple_outputs_put_the_store_target_at_its_first_store() -> None:
    r = clean(f"""
        @pl.function
        def main(self, a: {T64}, b: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                a_tile = pl.load(a, [0], [64])
                b_tile = pl.load(b, [0], [64])
                c_tile = pl.add(a_tile, b_tile)
                out_a = pl.store(c_tile, [0], out)
                out_b = pl.mul(c_tile, 2.0)
            x = out_a + out_b
            return x
        """)
    assert r.params("main_incore_0") == [("a", "In"), ("b", "In"), ("out", "Out")]
    assert r.returns("main_incore_0") == ("out", "out_b")  # D7: out_a -> param out; out_b kernel-local
    assert r.call("main_incore_0") == "out, out_b = self.main_incore_0(a, b, out)"


def test_spec_store_in_a_loop_threads_a_carry() -> None:
    r = clean("""
        @pl.function
        def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
            for i in pl.range(4):
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(a, [i * 64, 0], [64, 128])
                    pl.store(pl.mul(t, 2.0), [i * 64, 0], out)
            return out
        """)
    assert r.params("k_incore_0") == [("a", "In"), ("i", "In"), ("out", "Out")]
    assert r.call("k_incore_0") == "out = self.k_incore_0(a, i, out)"
    printed = print_function(r.function("k"))
    assert "for i__idx_v0, (out__iter_v1,) in pl.range(4, init_values=(out__ssa_v0,)):" in printed
    assert "out__ssa_v1 = self.k_incore_0(a__ssa_v0, i__idx_v0, out__iter_v1)" in printed
    assert "out__rv_v1 = pl.yield_(out__ssa_v1)" in printed
    assert "return out__rv_v1" in printed


def test_spec_store_in_an_if_synthesises_the_else_that_yields_the_incoming_value() -> None:
    r = clean(f"""
        @pl.function
        def main(self, a: {T64}, flag: pl.Scalar[pl.INDEX], out: pl.Out[{T64}]) -> {T64}:
            if flag > 0:
                with pl.at(level=pl.Level.CORE_GROUP):
                    pl.store(pl.load(a, [0], [64]), [0], out)
            return out
        """)
    printed = print_function(r.function("main"))
    assert "out__ssa_v1 = self.main_incore_0(a__ssa_v0, out__ssa_v0)" in printed
    assert "else:" in printed
    assert "pl.yield_(out__ssa_v0)" in printed
    assert "return out__rv_v1" in printed


def test_spec_scalar_output_is_hoisted_into_the_caller() -> None:
    r = clean(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def produce(self, x: {T64}, out: pl.Out[{T64}]) -> {T64}:
            return out

        @pl.function(type=pl.FunctionType.InCore)
        def consume(self, x: {T64}, off: pl.Scalar[pl.INDEX], tail: pl.Out[{T64}]) -> {T64}:
            return tail

        @pl.function
        def main(self, x: {T64}, base: pl.Scalar[pl.INDEX], out: pl.Out[{T64}], tail: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="scaled"):
                off = base * 32
                out = self.produce(x, out)
            tail = self.consume(x, off, tail)
            return tail
        """)
    # `off` moved out; the kernel returns tensors only and gains no `base`/`off` parameter
    assert r.params("scaled") == [("x", "In"), ("out", "Out")]  # D5: the callee's Out slot writes it
    assert r.returns("scaled") == ()
    assert r.call("scaled") == "self.scaled(x, out)"
    main = print_function(r.function("main"))
    assert main.index("off__ssa_v0 = base__ssa_v0 * 32") < main.index("self.scaled(")


def test_spec_live_in_of_a_rebound_store_target_makes_it_a_write_parameter() -> None:
    r = clean("""
        @pl.function
        def main(self, a: pl.Tensor[[128, 128], pl.FP32], c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [128, 128])
                c = pl.store(t, [0, 0], c)
            return c
        """)
    assert r.params("main_incore_0") == [("a", "In"), ("c", "Out")]
    assert r.returns("main_incore_0") == ("c",)
    fn = r.function("main_incore_0")
    assigned = [s.target.name for s in fn.body if hasattr(s, "target")]
    assert "c__store" in assigned and fn.params[1].var.name not in assigned


# --- §6 worked examples ----------------------------------------------------------------------


def test_example1_two_scopes_hoist_and_name_hint() -> None:
    r = clean(f"""
        @pl.function
        def main(self, x: {T128}, base: pl.Scalar[pl.INDEX],
                 out: pl.Out[{T128}]) -> {T128}:
            with pl.at(level=pl.Level.CORE_GROUP):
                off = base * 64
                t = pl.load(x, [off, 0], [64, 64])
                e = pl.exp(t)
                pl.store(e, [off, 0], out)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail"):
                u = pl.load(x, [off, 0], [64, 64])
                out = pl.store(pl.neg(u), [0, 0], out)
            return out
        """)
    assert r.names == ["main_incore_0", "tail"]
    assert r.params("main_incore_0") == [("x", "In"), ("off", "In"), ("out", "Out")]
    assert r.params("tail") == [("x", "In"), ("off", "In"), ("out", "Out")]
    assert r.returns("main_incore_0") == r.returns("tail") == ("out",)
    assert r.call("main_incore_0") == "out = self.main_incore_0(x, off, out)"
    assert r.call("tail") == "out = self.tail(x, off, out)"
    main = print_function(r.function("main"))
    assert "out__ssa_v2 = self.main_incore_0(x__ssa_v0, off__ssa_v0, out__ssa_v0)" in main
    assert "out__ssa_v3 = self.tail(x__ssa_v0, off__ssa_v0, out__ssa_v2)" in main
    assert "return out__ssa_v3" in main
    assert r.function("main").type.value == "Orchestration"
    assert (r.function("main").level.value, r.function("main").role.value) == ("CHIP", "Orchestrator")


def test_example2_inout_carries_and_return_ordering() -> None:
    r = clean("""
        @pl.function
        def k(self, a: pl.Tensor[[256, 128], pl.FP32], acc: pl.InOut[pl.Tensor[[64, 128], pl.FP32]],
              out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
            for i in pl.range(4):
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(a, [i * 64, 0], [64, 128])
                    s = pl.load(acc, [0, 0], [64, 128])
                    pl.store(pl.add(t, s), [0, 0], acc)
                    pl.store(pl.mul(t, 2.0), [i * 64, 0], out)
            return out
        """)
    assert r.params("k_incore_0") == [("a", "In"), ("i", "In"), ("acc", "InOut"), ("out", "Out")]
    assert r.returns("k_incore_0") == ("acc", "out")
    assert r.call("k_incore_0") == "acc, out = self.k_incore_0(a, i, acc, out)"
    k = print_function(r.function("k"))
    for line in (
        "for i__idx_v0, (acc__iter_v1, out__iter_v1) in pl.range(4, init_values=(acc__ssa_v0, out__ssa_v0)):",
        "ret__tmp_v0 = self.k_incore_0(a__ssa_v0, i__idx_v0, acc__iter_v1, out__iter_v1)",
        "acc__ssa_v1 = ret__tmp_v0[0]",
        "out__ssa_v1 = ret__tmp_v0[1]",
        "acc__rv_v1, out__rv_v1 = pl.yield_(acc__ssa_v1, out__ssa_v1)",
        "return out__rv_v1",
    ):
        assert line in k


def test_example2_variant_atomic_store_keeps_the_accumulator_inout_and_plain_store_is_out() -> None:
    body = """
        @pl.function
        def k(self, a: pl.Tensor[[64, 128], pl.FP32], acc: pl.InOut[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [64, 128])
                pl.store(t, [0, 0], acc{atomic})
            return acc
        """
    assert clean(body.format(atomic=", atomic=pl.AtomicType.Add")).params("k_incore_0")[1] == ("acc", "InOut")
    assert clean(body.format(atomic="")).params("k_incore_0")[1] == ("acc", "Out")


def test_example5_device_scalar_used_after_the_scope_is_pto301_at_its_assignment() -> None:
    r = run("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, cfg: pl.Tensor[[1], pl.INT32], x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                {|n:n = pl.read(cfg, [0])|}
            m = pl.read(cfg, [n])
            return x
        """)
    d = r.only("PTO301")
    assert d.span == r.range("n")
    assert "main_incore_0" in d.message and "'n'" in d.message
    assert d.data["scalar"] == "n"
    assert d.hint is not None and "pl.tensor.read(t, [0])" in d.hint
    assert r.names == ["main_incore_0"]  # the scope still gets its name
    assert r.returns("main_incore_0") == ()  # and no unrepresentable scalar return
    assert "PTO507" not in r.codes


def test_block_index_scalar_is_not_hoistable_either() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {T64}) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                {{|b:b = pl.tile.get_block_idx()|}}
            c = pl.read(x, [b])
            return x
        """)
    assert r.only("PTO301").span == r.range("b")


def test_a_spmd_loop_target_is_a_fresh_variable_never_a_phi_or_a_carry() -> None:
    # The parser makes `b` anew at each `for b in pl.spmd(...)`, so the second loop's `b` is
    # neither an if-statement phi nor a carry of the enclosing pl.range of the first `b`.
    r = clean(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: {T64}, out: pl.Out[{T64}], n: pl.Scalar[pl.INDEX]) -> {T64}:
            for b in pl.spmd(2, name_hint="first"):
                out[b * 32 : b * 32 + 32] = pl.add(a[b * 32 : b * 32 + 32], 1.0)
            if n > 0:
                for b in pl.spmd(2, name_hint="second"):
                    out[b * 32 : b * 32 + 32] = pl.add(a[b * 32 : b * 32 + 32], 2.0)
            for k in pl.range(2):
                for b in pl.spmd(2, name_hint="third"):
                    out[b * 32 : b * 32 + 32] = pl.add(a[b * 32 : b * 32 + 32], 3.0)
            return out
        """)
    assert r.returns("first") == r.returns("second") == r.returns("third") == ("out",)


def test_pto301_on_a_dead_loop_carry_says_the_later_scope_overwrites_the_value() -> None:
    # `n0` of `first` is carried into `second`'s loop only because that loop assigns `n0` too;
    # the compiler returns it as a scalar (PTO301 stands), the hint says how to avoid it.
    r = run(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: {T64}, out: pl.Out[{T64}]) -> {T64}:
            for b in pl.spmd(2, name_hint="first"):
                {{|def:n0 = b * 32|}}
                out[n0 : n0 + 32] = pl.add(a[n0 : n0 + 32], 1.0)
            for c in pl.spmd(2, name_hint="second"):
                for k in pl.range(2):
                    {{|again:n0 = c * 32 + k|}}
                    out[n0 : n0 + 32] = pl.add(a[n0 : n0 + 32], 2.0)
            return out
        """)
    d = r.only("PTO301")
    assert d.span == r.range("def")
    assert d.hint is not None and "overwrites 'n0'" in d.hint and "another name" in d.hint
    assert [rel.span for rel in d.related] == [r.range("again")]


def test_pto301_on_a_carry_the_later_loop_reads_keeps_the_general_hint() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: {T64}, out: pl.Out[{T64}]) -> {T64}:
            for b in pl.spmd(2, name_hint="first"):
                n0 = b * 32
                out[n0 : n0 + 32] = pl.add(a[n0 : n0 + 32], 1.0)
            for c in pl.spmd(2, name_hint="second"):
                for k in pl.range(2):
                    n0 = n0 + k
                    out[n0 : n0 + 32] = pl.add(a[n0 : n0 + 32], 2.0)
            return out
        """)
    d = r.only("PTO301")
    assert d.hint is not None and "pl.tensor.read(t, [0])" in d.hint and d.related == ()


def test_hoist_moves_only_the_chain_a_scalar_output_needs() -> None:
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}, base: pl.Scalar[pl.INDEX], out: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                a = base + 1
                b = a * 2
                unused = base * 3
                t = pl.load(x, [unused], [64])
                pl.store(t, [0], out)
            with pl.at(level=pl.Level.CORE_GROUP):
                u = pl.load(x, [b], [64])
                pl.store(u, [0], out)
            return out
        """)
    # `a` and `b` move to the caller; `unused` stays in the body, so `base` remains a parameter
    assert r.params("main_incore_0") == [("base", "In"), ("x", "In"), ("out", "Out")]
    assert r.params("main_incore_1") == [("x", "In"), ("b", "In"), ("out", "Out")]


# --- write directions (spec 000 "Write direction: Out unless the body reads") ----------------


def _direction_of_out(*statements: str) -> str:
    body = "\n".join(f"                {line}" for line in statements)
    r = clean(f"""
        @pl.function
        def main(self, a: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0], [64])
{body}
            return out
        """)
    return dict(r.params("main_incore_0"))["out"]


def test_a_destination_slot_alone_is_not_a_read() -> None:
    assert _direction_of_out("pl.store(t, [0], out)") == "Out"


def test_reading_the_destination_makes_it_inout() -> None:
    assert _direction_of_out("pl.store(pl.add(t, pl.load(out, [0], [64])), [0], out)") == "InOut"


def test_reading_the_post_store_alias_reads_the_destination() -> None:
    assert _direction_of_out("o2 = pl.store(t, [0], out)", "v = pl.load(o2, [0], [64])") == "InOut"


def test_chained_writes_through_the_alias_stay_write_only() -> None:
    assert _direction_of_out("o2 = pl.store(t, [0], out)", "o3 = pl.store(t, [0], o2)") == "Out"


def test_registry_writers_beyond_store_lift_the_capture() -> None:
    r = clean(f"""
        @pl.function
        def main(self, a: {T64}, dst: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.tensor.expand_clone(a, dst)
            return dst
        """)
    assert r.params("main_incore_0") == [("a", "In"), ("dst", "Out")]  # D10: target slot is Write


def test_bookkeeping_attrs_are_not_reads() -> None:
    r = clean(f"""
        @pl.function
        def main(self, a: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[out], dumps=[out]):
                pl.store(pl.load(a, [0], [64]), [0], out)
            return out
        """)
    assert r.params("main_incore_0") == [("a", "In"), ("out", "Out")]
    call = r.call("main_incore_0")
    assert "arg_direction_overrides" in call and "dump_vars" in call


def test_user_callee_out_slot_is_a_write_not_a_read() -> None:
    """D5: the callee's declared directions are evidence in the InCore pass too."""
    r = clean(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def fill(self, src: {T64}, dst: pl.Out[{T64}]) -> {T64}:
            return dst

        @pl.function
        def main(self, a: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                out = self.fill(a, out)
            return out
        """)
    assert r.params("main_incore_0") == [("a", "In"), ("out", "Out")]
    assert r.returns("main_incore_0") == ("out",)  # traced through the callee to its param


# --- returns --------------------------------------------------------------------------------


def test_kernel_allocated_output_keeps_its_own_value() -> None:
    r = clean(f"""
        @pl.function
        def main(self, a: {T64}) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                fresh = pl.add(a, a)
            return fresh
        """)
    assert r.returns("main_incore_0") == ("fresh",)
    assert r.call("main_incore_0") == "fresh = self.main_incore_0(a)"


def test_outputs_resolving_to_distinct_write_params_are_returned_in_parameter_order() -> None:
    r = clean(f"""
        @pl.function
        def main(self, a: {T64}, p: pl.Out[{T64}], q: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0], [64])
                q2 = pl.store(t, [0], q)
                p2 = pl.store(t, [0], p)
            r = pl.add(q2, p2)
            return r
        """)
    assert r.params("main_incore_0") == [("a", "In"), ("q", "Out"), ("p", "Out")]
    assert r.returns("main_incore_0") == ("q", "p")


def test_a_fresh_output_keeps_definition_order() -> None:
    r = clean(f"""
        @pl.function
        def main(self, a: {T64}, p: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                f = pl.add(a, a)
                t = pl.load(a, [0], [64])
                pl.store(t, [0], p)
            r = pl.add(f, p)
            return r
        """)
    assert r.returns("main_incore_0") == ("f", "p")


# --- naming ---------------------------------------------------------------------------------


def test_same_name_hint_twice_in_one_function_gets_a_numeric_suffix_and_an_info() -> None:
    r = run(f"""
        @pl.function
        def main(self, a: {T64}) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="my_kernel"):
                b = pl.add(a, a)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint={{|second:"my_kernel"|}}):
                c = pl.add(b, b)
            return c
        """)
    assert r.names == ["my_kernel", "my_kernel_0"]
    info = r.only("PTO601")
    assert info.severity.value == "info" and info.span == r.range("second")
    assert "my_kernel" in info.message and "my_kernel_0" in info.message
    assert r.codes == []


def test_a_helper_spliced_twice_gets_one_note_for_both_copies_and_no_advice() -> None:
    r = run(f"""
        import pypto.language as pl

        @pl.inline
        def norm(a: {T64}) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint={{|hint:"norm"|}}):
                b = pl.add(a, a)
            return b

        @pl.program
        class P:
            @pl.function
            def main(self, a: {T64}) -> {T64}:
                b = norm(a)
                c = norm(b)
                return c
        """)
    assert r.names == ["norm", "norm_0"]
    note = r.only("PTO601")
    assert note.span == r.range("hint") and note.hint is None
    assert note.data["names"] == ["norm", "norm_0"] and "'norm', 'norm_0'" in note.message


def test_same_name_hint_in_two_functions_prefixes_the_later_one() -> None:
    body = """
        @pl.function
        def {fn}(self, a: {t}) -> {t}:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="dup_scope"):
                b = pl.add(a, a)
            return b
        """
    r = clean(body.format(fn="single_b", t=T64) + body.format(fn="single_a", t=T64))
    assert sorted(r.names) == ["dup_scope", "single_b_dup_scope"]
    assert r.scope("dup_scope").parent == "single_a"  # name order decides who keeps the bare hint


def test_a_named_scope_consumes_a_counter_slot() -> None:
    r = clean(f"""
        @pl.function
        def main(self, a: {T64}) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="first"):
                b = pl.add(a, a)
            with pl.at(level=pl.Level.CORE_GROUP):
                c = pl.add(b, b)
            return c
        """)
    assert r.names == ["first", "main_incore_1"]


# --- cache policy ---------------------------------------------------------------------------


def test_cache_policy_becomes_sorted_param_indices() -> None:
    r = clean(f"""
        @pl.function
        def main(self, a: {T64}, b: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.set_cache_policy(b, pl.CachePolicy.BYPASS)
                pl.set_cache_policy(a, pl.CachePolicy.DEFAULT)
                pl.store(pl.add(pl.load(a, [0], [64]), pl.load(b, [0], [64])), [0], out)
            return out
        """)
    assert r.function("main_incore_0").attrs["cache_policy"] == [(0, 0), (1, 1)]


def test_cache_policy_on_a_tensor_the_scope_does_not_capture_is_pto302() -> None:
    r = run(f"""
        @pl.function
        def main(self, a: {T64}, b: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                {{|decl:pl.set_cache_policy(b, pl.CachePolicy.BYPASS)|}}
                pl.store(pl.load(a, [0], [64]), [0], out)
            return out
        """)
    d = r.only("PTO302")
    assert d.span == r.range("decl") and "'b'" in d.message
    assert r.params("main_incore_0") == [("a", "In"), ("out", "Out")]


def test_bypass_on_a_written_tensor_is_pto303_naming_the_direction() -> None:
    r = run(f"""
        @pl.function
        def main(self, a: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                {{|decl:pl.set_cache_policy(out, pl.CachePolicy.BYPASS)|}}
                pl.store(pl.load(a, [0], [64]), [0], out)
            return out
        """)
    d = r.only("PTO303")
    assert d.span == r.range("decl")
    assert "'out'" in d.message and "Out" in d.message
    assert "cache_policy" not in r.function("main_incore_0").attrs


# --- no_dep_args ----------------------------------------------------------------------------


def test_no_dep_arg_the_scope_does_not_capture_is_pto304() -> None:
    r = run(f"""
        @pl.function
        def main(self, a: {T64}, b: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with {{|hdr:pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[b])|}}:
                pl.store(pl.load(a, [0], [64]), [0], out)
            return out
        """)
    d = r.only("PTO304")
    assert d.span == r.range("hdr")  # the IR keeps no span per no_dep_args entry and "'b'" in d.message


# --- split_aiv attributes -------------------------------------------------------------------


def _split_attrs(modes: tuple[str, ...]) -> dict[str, object]:
    regions = "\n".join(
        f"        for s{i} in pl.split_aiv(2, mode=pl.SplitMode.{m}):\n            t{i} = pl.load(a, [0], [64])"
        for i, m in enumerate(modes)
    )
    r = clean(
        f"@pl.function\ndef main(self, a: {T64}) -> {T64}:\n"
        f"    with pl.at(level=pl.Level.CORE_GROUP):\n{regions}\n    return a\n"
    )
    attrs = r.function("main_incore_0").attrs
    return {k: getattr(v, "value", v) for k, v in attrs.items() if k in ("split", "split_aiv")}


def test_uniform_split_aiv_mode_is_bridged_onto_the_function() -> None:
    assert _split_attrs(("UP_DOWN", "UP_DOWN")) == {"split_aiv": True, "split": "UP_DOWN"}


def test_split_aiv_none_or_mixed_modes_leave_no_function_split() -> None:
    assert _split_attrs(("NONE",)) == {"split_aiv": True}
    assert _split_attrs(("UP_DOWN", "LEFT_RIGHT")) == {"split_aiv": True}


# --- which functions, promotion -------------------------------------------------------------


def test_orchestration_parent_keeps_its_type_and_incore_functions_are_left_alone() -> None:
    r = clean(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: {T64}) -> {T64}:
            b = pl.add(a, a)
            return b

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: {T64}) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                c = pl.add(a, a)
            d = self.kernel(c)
            return d
        """)
    assert r.promoted == {}
    assert r.names == ["main_incore_0"]
    assert r.function("main").type.value == "Orchestration"


def test_promotion_folds_param_dim_reads_onto_the_symbol() -> None:
    r = clean("""
        import pypto.language as pl

        M = pl.dynamic("M")


        @pl.program
        class P:
            @pl.function
            def main(self, a: pl.Tensor[[M, 64], pl.FP32], out: pl.Out[pl.Tensor[[M, 64], pl.FP32]]) -> pl.Tensor[[M, 64], pl.FP32]:
                m = pl.tensor.dim(a, 0)
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(a, [m - 16, 0], [16, 64])
                    pl.store(t, [0, 0], out)
                return out
        """)
    assert r.params("main_incore_0") == [("a", "In"), ("M", "In"), ("out", "Out")]
    assert "tensor.dim" not in print_function(r.function("main"))
