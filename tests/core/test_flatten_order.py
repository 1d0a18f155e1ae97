"""FlattenCallExpr runs before the outliners (pass 6): a call nested in another call's arguments
is evaluated first, as a temporary of its own, so a scope's captures come in the order the
flattened statements read them (compiler run as an oracle: `[src0, src1, out]` for
`out = pl.assemble(out, pl.part_add(src0, src1), [0, 0])`). The printed IR keeps the nesting."""

from __future__ import annotations

from outline_cases import T64, clean


def test_a_nested_call_argument_is_read_before_the_enclosing_calls_other_arguments() -> None:
    r = clean(f"""
        @pl.function
        def main(self, a: {T64}, b: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                out = pl.assemble(out, pl.add(a, b), [0])
            return out
        """)
    assert r.params("main_incore_0") == [("a", "In"), ("b", "In"), ("out", "Out")]
    assert "pl.tensor.assemble(out, pl.tensor.add(a, b), [0])" in (r.scope("main_incore_0").function_text)


def test_calls_are_hoisted_innermost_first() -> None:
    r = clean(f"""
        @pl.function
        def main(self, a: {T64}, b: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                out = pl.assemble(out, pl.add(a, pl.mul(b, 2.0)), [0])
            return out
        """)
    # t0 = pl.mul(b, 2.0); t1 = pl.add(a, t0); out = pl.assemble(out, t1, [0])
    assert r.params("main_incore_0") == [("b", "In"), ("a", "In"), ("out", "Out")]


def test_a_direct_argument_ahead_of_a_nested_call_is_read_after_it() -> None:
    r = clean(f"""
        @pl.function
        def main(self, a: {T64}, b: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0], [64])
                out = pl.store(t, [0], out)
                u = pl.add(pl.load(b, [0], [64]), t)
                out = pl.store(u, [0], out)
            return out
        """)
    # statement order still rules: `a` and `out` are read by earlier statements
    assert r.params("main_incore_0") == [("a", "In"), ("out", "Out"), ("b", "In")]


def test_a_call_in_a_scalar_operand_is_hoisted_ahead_of_the_other_operand() -> None:
    r = clean(f"""
        @pl.function
        def main(self, a: {T64}, idx: pl.Tensor[[4], pl.INDEX], n: pl.Scalar[pl.INDEX], out: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                k = n + pl.tensor.read(idx, [0])
                out = pl.store(pl.load(a, [k], [64]), [0], out)
            return out
        """)
    assert [name for name, _ in r.params("main_incore_0")] == ["idx", "n", "a", "out"]


def test_a_call_in_a_loop_bound_is_read_before_the_loops_initial_values() -> None:
    r = clean(f"""
        @pl.function
        def main(self, a: {T64}, lens: pl.Tensor[[4], pl.INDEX], out: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                for i, (acc,) in pl.range(pl.tensor.read(lens, [0]), init_values=(out,)):
                    acc = pl.store(pl.load(a, [0], [64]), [0], acc)
                    acc = pl.yield_(acc)
            return acc
        """)
    assert [name for name, _ in r.params("main_incore_0")][:2] == ["lens", "out"]
