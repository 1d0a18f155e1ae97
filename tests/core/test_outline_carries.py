"""Carry threading through control flow (spec 000 "Store Targets Written Inside Control Flow",
dsl-reference §4.2.12): one test per row of the spec's rules table, checked on the printed IR of
the parent (the carries are SSA bookkeeping, visible only there)."""

from __future__ import annotations

from outline_cases import T64, clean

from pypto_core.printer import print_function

SIG = f"self, a: {T64}, out: pl.Out[{T64}]"


def _parent(body: str, sig: str = SIG) -> str:
    lines = "\n".join(f"    {line}" for line in body.strip("\n").splitlines())
    r = clean(f"@pl.function\ndef main({sig}) -> {T64}:\n{lines}\n    return out\n")
    return print_function(r.function("main"))


def test_sibling_scopes_writing_one_target_share_one_slot_yielding_the_last_value() -> None:
    printed = _parent("""
for i in pl.range(4):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.load(a, [0], [64]), [0], out)
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.load(a, [0], [64]), [0], out)
""")
    assert printed.count("init_values=") == 1 and "for i__idx_v0, (out__iter_v" in printed
    assert "out__ssa_v1 = self.main_incore_0(a__ssa_v0, out__iter_v" in printed
    assert "out__ssa_v2 = self.main_incore_1(a__ssa_v0, out__ssa_v1)" in printed
    assert "pl.yield_(out__ssa_v2)" in printed


def test_target_defined_in_the_same_body_is_only_renamed_locally() -> None:
    printed = _parent("""
for i in pl.range(4):
    scratch = pl.create_tensor([64], dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.load(a, [0], [64]), [0], scratch)
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.load(scratch, [0], [64]), [0], out)
""")
    assert "scratch__iter" not in printed and "scratch__rv" not in printed
    assert "scratch__ssa_v1 = self.main_incore_0(a__ssa_v0, scratch__ssa_v0)" in printed
    assert "self.main_incore_1(scratch__ssa_v1, out__iter_v" in printed  # later use sees the rename


def test_nested_loops_carry_the_target_out_of_both() -> None:
    printed = _parent("""
for i in pl.range(2):
    for j in pl.range(3):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.load(a, [0], [64]), [0], out)
""")
    assert printed.count("init_values=(out__") == 2  # both loops carry it
    assert "return out__rv_v" in printed


def test_inner_carry_of_a_target_defined_in_the_outer_body_stays_inside_it() -> None:
    printed = _parent("""
for i in pl.range(2):
    scratch = pl.create_tensor([64], dtype=pl.FP32)
    for j in pl.range(3):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.load(a, [0], [64]), [0], scratch)
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.load(scratch, [0], [64]), [0], out)
""")
    assert printed.count("init_values=(scratch__") == 1  # inner loop only
    assert "scratch__rv_v" in printed
    inner_rv = printed.split("scratch__rv_v")[1].split(" ")[0].split(")")[0].split(",")[0]
    assert f"self.main_incore_1(scratch__rv_v{inner_rv}" in printed


def test_target_that_already_is_the_loops_iter_arg_gets_no_new_slot() -> None:
    printed = _parent("""
for i in pl.range(4):
    with pl.at(level=pl.Level.CORE_GROUP):
        out = pl.store(pl.load(a, [0], [64]), [0], out)
""")
    assert printed.count("init_values=") == 1  # the SSA carry only
    assert "out__rv_v2 = pl.yield_(out__ssa_v3)" in printed  # the call binds the SSA store result


def test_scope_at_the_function_top_level_needs_no_carry() -> None:
    printed = _parent("""
with pl.at(level=pl.Level.CORE_GROUP):
    pl.store(pl.load(a, [0], [64]), [0], out)
""")
    assert "__iter_v" not in printed and "pl.yield_" not in printed
    assert "return out__ssa_v1" in printed


def test_if_with_an_else_yields_the_untouched_value_from_the_other_arm() -> None:
    printed = _parent(
        """
if flag > 0:
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.load(a, [0], [64]), [0], out)
else:
    b = flag + 1
""",
        sig=f"{SIG}, flag: pl.Scalar[pl.INDEX]",
    )
    assert "pl.yield_(out__ssa_v1)" in printed
    assert "pl.yield_(out__ssa_v0)" in printed
    assert "return out__rv_v1" in printed


def test_while_loop_threads_the_carry_like_a_for_loop() -> None:
    printed = _parent(
        """
for (k,) in pl.while_(init_values=(n,)):
    pl.cond(k > 0)
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.load(a, [0], [64]), [0], out)
    k2 = k - 1
    k3 = pl.yield_(k2)
""",
        sig=f"{SIG}, n: pl.Scalar[pl.INDEX]",
    )
    assert "out__iter_v1" in printed and "return out__rv_v1" in printed


def test_a_captured_enclosing_loop_carry_the_scope_writes_is_lifted_off_in() -> None:
    """Deliberate (docs/compatibility.md): the compiler's direction inference matches plain
    variables only, so an enclosing loop's iter_arg written by `pl.assemble` / `pl.store` stays
    `In` there; spec 000 lifts every captured tensor the scope writes."""
    r = clean(f"""
        @pl.function
        def main({SIG}) -> {T64}:
            for i in pl.range(4):
                with pl.at(level=pl.Level.CORE_GROUP):
                    out = pl.assemble(out, pl.add(a[i * 16 : i * 16 + 16], 1.0), [i * 16])
            for j in pl.range(4):
                with pl.at(level=pl.Level.CORE_GROUP):
                    out = pl.store(pl.load(a, [j * 16], [16]), [j * 16], out)
            return out
        """)
    assert "out__iter_v1" in print_function(r.function("main"))  # the capture is the loop's carry
    assert r.params("main_incore_0") == [("a", "In"), ("i", "In"), ("out", "Out")]
    assert r.params("main_incore_1") == [("a", "In"), ("j", "In"), ("out", "Out")]


def test_a_write_in_one_arm_of_an_if_inside_the_scope_makes_the_capture_in_out() -> None:
    """The phi of an `if` that writes `out` in one arm yields `out` unchanged from the other:
    that yield is a use outside a write slot, a read (spec 000: "anything else ... makes it
    InOut"; the compiler's read scan visits every yield), so the written capture is `InOut`,
    as the compiler says (pypto-lib `gate.py`'s `biased_scores_buf`)."""
    r = clean(f"""
        @pl.function
        def main({SIG}, n: pl.Scalar[pl.INDEX]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                if n > 0:
                    out[0:16] = pl.add(a[0:16], 1.0)
            return out
        """)
    assert r.params("main_incore_0") == [("n", "In"), ("a", "In"), ("out", "InOut")]


def test_seeding_a_loop_carry_with_a_stored_capture_is_a_read() -> None:
    """`out` is stored directly (a plain write) and also seeds the carry of a loop that
    assembles into it: the seed is a read, so `InOut` (the compiler agrees; pypto-lib
    `qkv_proj_rope.py`'s `kv_view`). Without the loop the store alone leaves it `Out`."""
    r = clean(f"""
        @pl.function
        def main({SIG}) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [0], [16]), [0], out)
                for i in pl.range(1, 4):
                    out[i * 16 : i * 16 + 16] = pl.add(a[i * 16 : i * 16 + 16], 1.0)
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [0], [16]), [16], out)
            return out
        """)
    assert r.params("main_incore_0") == [("a", "In"), ("out", "InOut")]
    assert r.params("main_incore_1") == [("a", "In"), ("out", "Out")]
