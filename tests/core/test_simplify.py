"""Simplify runs between ConvertToSSA and the outliners (compiler pass 5): constant propagation
takes constant scalars out of the captures, and its dead-code step removes if-statement phis
and call-free scalar assignments nothing reads, so a scalar reaching only a dead phi is no
scalar live-out (no PTO301). Loop carries are never removed."""

from __future__ import annotations

from outline_cases import T64, clean, run

from pypto_core.printer import print_function

REPRO_IF = """
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
             n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        for b in pl.spmd(2, name_hint="first"):
            n0 = b * 32
            out[n0 : n0 + 32, :] = pl.add(a[n0 : n0 + 32, :], 1.0)
        if n > 0:
            for b in pl.spmd(2, name_hint="second"):
                n0 = b * 32
                out[n0 : n0 + 32, :] = pl.add(a[n0 : n0 + 32, :], 2.0)
        return out
    """


def test_a_scalar_reaching_only_a_dead_if_phi_is_not_a_live_out() -> None:
    r = clean(REPRO_IF)
    assert r.returns("first") == ("out",) and r.returns("second") == ("out",)
    printed = print_function(r.function("main"))
    assert "n0__phi" not in printed and "b__phi" not in printed
    assert "out__phi_v3 = pl.yield_(out__ssa_v1)" in printed  # the live phi keeps its slot


def test_a_phi_read_only_by_a_dead_phi_goes_too() -> None:
    r = clean(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {T64}, out: pl.Out[{T64}], n: pl.Scalar[pl.INDEX]) -> {T64}:
            k = n + 1
            if n > 0:
                with pl.at(level=pl.Level.CORE_GROUP):
                    k = pl.tile.get_block_idx()
                    pl.store(pl.load(x, [k], [64]), [0], out)
                if n > 1:
                    k = k + 2
            return out
        """)
    assert r.returns("main_incore_0") == ("out",)
    assert "k__phi" not in print_function(r.function("main"))


def test_a_top_level_constant_scalar_is_no_capture() -> None:
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}, out: pl.Out[{T64}]) -> {T64}:
            rows = 4
            offset = rows * 8
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(x, [offset], [rows]), [0], out)
            return out
        """)
    assert r.params("main_incore_0") == [("x", "In"), ("out", "Out")]
    assert "pl.tile.load(x, [32], [4])" in r.scope("main_incore_0").function_text
    assert "rows" not in print_function(r.function("main"))  # dead once propagated


def test_a_constant_assigned_inside_a_loop_is_not_propagated() -> None:
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}, out: pl.Out[{T64}]) -> {T64}:
            for i in pl.range(2):
                offset = 8
                with pl.at(level=pl.Level.CORE_GROUP):
                    pl.store(pl.load(x, [offset], [8]), [i], out)
            return out
        """)
    assert ("offset", "In") in r.params("main_incore_0")


def test_a_scalar_computed_from_a_module_constant_of_unknown_value_is_no_capture() -> None:
    """`N_EXPERTS` comes from a module the analysis cannot evaluate (a configuration picked at
    import); to the compiler it is a Python number, so `blocks` is a constant its Simplify
    propagates into the scope and the launch count (deepseek_v4_pro `gate.py`'s
    `GATE_N_BLOCKS`)."""
    r = clean(f"""
        import os
        import pypto.language as pl
        N_EXPERTS = int(os.environ.get("N_EXPERTS", "64"))

        @pl.jit
        def main(x: {T64}, out: pl.Out[{T64}], n: pl.Scalar[pl.INDEX]):
            blocks = N_EXPERTS // 16
            for b in pl.spmd(n * blocks, name_hint="gate"):
                t = b // blocks
                out[t : t + 1] = pl.add(x[t : t + 1], 1.0)
            return out
        """)
    assert r.params("gate") == [("x", "In"), ("out", "Out")]
    assert "blocks" not in print_function(r.function("main"))  # dead once propagated


def test_a_cast_of_a_constant_stays_a_capture() -> None:
    """The compiler's analyzer does not fold `pl.cast(0 - EPOCH, pl.INT32)` to a literal, so
    Simplify does not propagate it and the scope takes it as a scalar parameter (deepseek_v4_pro
    `decode_mtp.py`'s `neg_epochs`), whether or not `EPOCH`'s value is known here."""
    r = clean(f"""
        import os
        import pypto.language as pl
        EPOCH = 1
        N_LOCAL = int(os.environ.get("N_LOCAL", "8"))

        @pl.jit
        def main(x: {T64}, out: pl.Out[pl.Tensor[[64], pl.INT32]]):
            neg = pl.cast(0 - EPOCH, pl.INT32)
            neg_local = pl.cast(0 - EPOCH * N_LOCAL, pl.INT32)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="retire"):
                pl.write(out, [0], neg)
                pl.write(out, [1], neg_local)
            return out
        """)
    assert [name for name, _ in r.params("retire")] == ["out", "neg", "neg_local"]


def test_a_dead_call_free_scalar_reads_nothing_but_a_dead_call_result_stays() -> None:
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}, idx: pl.Tensor[[4], pl.INDEX], n: pl.Scalar[pl.INDEX], out: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                unused = n * 3
                kept = pl.tensor.read(idx, [0])
                pl.store(pl.load(x, [0], [64]), [0], out)
            return out
        """)
    assert [name for name, _ in r.params("main_incore_0")] == ["idx", "x", "out"]


def test_a_dead_loop_carry_is_kept() -> None:
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}, out: pl.Out[{T64}], n: pl.Scalar[pl.INDEX]) -> {T64}:
            acc = n
            for i in pl.range(4):
                acc = acc + i
                with pl.at(level=pl.Level.CORE_GROUP):
                    pl.store(pl.load(x, [0], [64]), [i], out)
            return out
        """)
    printed = print_function(r.function("main"))
    assert "acc__iter_v1" in printed and "acc__ssa_v0 = n__ssa_v0" in printed


def test_a_scalar_the_next_statement_really_reads_is_still_pto301() -> None:
    r = run("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, cfg: pl.Tensor[[4], pl.INT32], x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                n = pl.read(cfg, [0])
            m = n + 1
            if m > 2:
                x = pl.add(x, 1.0)
            return x
        """)
    assert r.errors == ["PTO301"]


def test_a_scalar_read_only_by_a_dead_assignment_after_the_scope_is_no_live_out() -> None:
    r = clean("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, cfg: pl.Tensor[[4], pl.INT32], x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                n = pl.read(cfg, [0])
            m = n + 1
            return x
        """)
    assert r.returns("main_incore_0") == ()


def test_a_constant_condition_keeps_one_branch_and_its_scopes() -> None:
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}, y: {T64}, out: pl.Out[{T64}]) -> {T64}:
            t = x
            if 4 > 8:
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="never"):
                    out = pl.store(pl.load(y, [0], [64]), [0], out)
                t = y
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="always"):
                out = pl.store(pl.load(t, [0], [64]), [0], out)
            return out
        """)
    assert r.names == ["always"]  # Fold A happens before the outliners
    assert r.params("always") == [("t", "In"), ("out", "Out")]  # the phi of `t` is its else value
    assert "pl.tile.load(t, [0], [64])" in r.scope("always").function_text
    assert "if " not in print_function(r.function("main"))


def test_a_one_trip_loop_is_its_body_with_the_loop_variable_a_constant() -> None:
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}, out: pl.Out[{T64}]) -> {T64}:
            for t in pl.range(2, 3):
                with pl.at(level=pl.Level.CORE_GROUP):
                    out = pl.store(pl.load(x, [t], [64]), [t], out)
            for z in pl.range(0):
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="never"):
                    out = pl.store(pl.load(x, [z], [64]), [z], out)
            return out
        """)
    assert r.names == ["main_incore_0"]
    assert r.params("main_incore_0") == [("x", "In"), ("out", "Out")]
    assert "pl.tile.load(x, [2], [64])" in r.scope("main_incore_0").function_text
    assert "for " not in print_function(r.function("main"))


def test_a_constant_in_a_one_trip_loop_at_top_level_is_propagated() -> None:
    """The compiler lifts a one-trip loop's body without entering a nested region (Fold B), so
    a constant assigned there is propagated like one beside the loop: the scope takes no
    `blocks` (pypto-lib `prefill_layer.py`'s `GATE_N_BLOCKS` inside `for b in
    pl.range(USER_BATCH)` with one batch). Under a loop of two trips it stays a capture."""
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}, out: pl.Out[{T64}], n: pl.Scalar[pl.INDEX]) -> {T64}:
            for b in pl.range(1):
                blocks = 16
                for g in pl.spmd(n * blocks, name_hint="once"):
                    t = g // blocks
                    out[t : t + 1] = pl.add(x[t : t + 1], 1.0)
            for b in pl.range(2):
                blocks2 = 16
                for g in pl.spmd(n * blocks2, name_hint="twice"):
                    t = g // blocks2
                    out[t : t + 1] = pl.add(x[t : t + 1], 2.0)
            return out
        """)
    assert r.params("once") == [("x", "In"), ("out", "Out")]
    assert [name for name, _ in r.params("twice")] == ["blocks2", "x", "out"]


def test_a_loop_of_two_trips_or_a_parallel_one_stays() -> None:
    """A one-trip `pl.parallel` is no Fold B (not a plain sequential loop): it stays, but its
    variable's range holds one value, which the analyzer writes for each use, so the scope
    does not capture it (the compiler, e2d0f78, on this shape: pypto-lib's
    `deepseek_v3_2/prefill_back.py`, `for b in pl.parallel(0, BATCH, 1)` with one batch)."""
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}, out: pl.Out[{T64}]) -> {T64}:
            for t in pl.range(2):
                with pl.at(level=pl.Level.CORE_GROUP):
                    out = pl.store(pl.load(x, [t], [64]), [t], out)
            for p in pl.parallel(1):
                with pl.at(level=pl.Level.CORE_GROUP):
                    out = pl.store(pl.load(x, [p], [64]), [p], out)
            return out
        """)
    assert ("t", "In") in r.params("main_incore_0")
    assert r.params("main_incore_1") == [("x", "In"), ("out", "Out")]
    assert "pl.tile.load(x, [0], [64])" in r.scope("main_incore_1").function_text
    assert "pl.parallel(" in print_function(r.function("main"))


def test_a_loop_from_t0_to_t0_plus_its_step_runs_once_whatever_t0_is() -> None:
    """`pl.range(t0, t0 + 16, 16)` with `t0` unknown: Simplify's analyzer proves one trip, so
    the body replaces the loop, `out` is no longer carried through it, and the capture order
    follows the body (pypto-lib `decode_o_proj.py`'s `proj_b_act`: the compiler reads the
    loop's inputs before `attn_out`). `t0 + 32` with step 16 stays a loop."""
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}, out: pl.Out[{T64}], n: pl.Scalar[pl.INDEX]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                t0 = n * 16
                for t in pl.range(t0, t0 + 16, 16):
                    out[t : t + 16] = pl.add(x[t : t + 16], 1.0)
            with pl.at(level=pl.Level.CORE_GROUP):
                t1 = n * 16
                for u in pl.range(t1, t1 + 32, 16):
                    out[u : u + 16] = pl.add(x[u : u + 16], 1.0)
            return out
        """)
    assert r.params("main_incore_0") == [("n", "In"), ("x", "In"), ("out", "Out")]
    assert "for " not in r.scope("main_incore_0").function_text
    assert r.params("main_incore_1") == [("n", "In"), ("out", "InOut"), ("x", "In")]


def test_a_branch_on_a_helper_parameter_bound_to_a_cast_constant_is_decided() -> None:
    """InlineFunctions substitutes `layer` by `pl.cast(5, pl.INT32)`; Simplify's integer-bound
    analysis decides `layer >= 3`, so the `if` goes and `out` is written, never yielded
    unchanged: `Out`, as the compiler says (pypto-lib `decode_mtp.py`'s `gate`)."""
    r = clean("""
import pypto.language as pl


@pl.jit.inline
def bias(a: pl.Tensor[[64], pl.FP32], out: pl.Tensor[[64], pl.FP32], layer: pl.Scalar[pl.INT32]) -> pl.Tensor[[64], pl.FP32]:
    with pl.at(level=pl.Level.CORE_GROUP):
        if layer >= 3:
            out[0:16] = pl.add(a[0:16], 1.0)
    return out


@pl.jit
def entry(a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
    out = bias(a, out, pl.cast(5, pl.INT32))
    return out
""")
    assert r.params("entry_incore_0") == [("a", "In"), ("out", "Out")]


def test_a_parallel_loop_whose_range_holds_more_than_one_value_keeps_its_variable() -> None:
    """`pl.parallel(0, 4, 4)` runs once, but the analyzer binds the variable to `[0, 4)`, which
    holds four values: nothing is rewritten, the scope captures it."""
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}, out: pl.Out[{T64}]) -> {T64}:
            for p in pl.parallel(0, 4, 4):
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="stride"):
                    out = pl.store(pl.load(x, [p], [64]), [p], out)
            return out
        """)
    assert ("p", "In") in r.params("stride")


def test_a_slice_from_k_plus_a_to_k_plus_b_has_the_constant_extent_b_minus_a() -> None:
    """`q[b : b + 1, c + 128 : c + 192]`: Simplify cancels `c` in `(c + 192) - (c + 128)`, so
    the shape reads no variable and the scope meets `b` (an offset) before `c` (the compiler,
    e2d0f78: `q, b, q_col`, pypto-lib `deepseek_v3_2/decode_front.py`'s `s4_q_pe_load`)."""
    r = clean("""
        @pl.function
        def main(self, q: pl.Tensor[[16, 4096], pl.BF16], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            for b in pl.parallel(16):
                for h in pl.parallel(8):
                    q_col = h * 192
                    with pl.at(level=pl.Level.CORE_GROUP, name_hint="pe"):
                        q_pe = pl.cast(q[b : b + 1, q_col + 128 : q_col + 192], target_type=pl.FP32)
                        y = pl.assemble(y, q_pe, [b, 0])
            return y
        """)
    assert [name for name, _ in r.params("pe")] == ["q", "b", "q_col", "y"]
    assert "[1, 64]" in r.scope("pe").function_text
