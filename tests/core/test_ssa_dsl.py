"""ConvertToSSA on DSL sources, checked through the printed IR: the versioned names are what
the outlined functions and the "show IR" view display, so the exact text is the contract.

Several cases are the compiler's own regression scenarios (issues #592, #642, #1351) with the
names our pass produces (the compiler's tests compare structure only).
"""

from __future__ import annotations

import textwrap

from pypto_core.diagnostics import Severity
from pypto_core.frontend import parse_module
from pypto_core.passes.ssa import convert_to_ssa
from pypto_core.printer import print_function

HEADER = "import pypto.language as pl\n\n\n@pl.program\nclass P:\n"


def ssa_body(function_source: str) -> str:
    """The SSA form of the (only) function, body lines only, dedented."""
    source = HEADER + textwrap.indent(textwrap.dedent(function_source).strip("\n"), "    ") + "\n"
    module = parse_module(source)
    assert [d for d in module.diagnostics if d.severity is Severity.ERROR] == []
    (fn,) = convert_to_ssa()(module.programs[0]).functions
    lines = print_function(fn).splitlines()[2:]
    return textwrap.dedent("\n".join(lines))


def expect(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


def test_loop_local_values_are_not_carried_issue_642() -> None:
    body = ssa_body(
        """
        @pl.function
        def main(self, x: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 128], pl.FP32]:
            result = pl.create_tensor([16, 1], dtype=pl.FP32)
            result = pl.mul(result, 0.0)
            for b0 in pl.range(0, 16, 4):
                result = pl.mul(result, 2.0)
            out = pl.mul(result, 2.0)
            for b0 in pl.range(0, 16, 4):
                local_var = pl.create_tensor([4, 1], dtype=pl.FP32)
                local_var = pl.mul(local_var, 0.0)
                for kb in pl.range(0, 40):
                    local_var = pl.add(local_var, 1.0)
                tmp = pl.mul(local_var, 3.0)
            return out
        """
    )
    assert body == expect(
        """
        result__ssa_v0 = pl.tensor.create([16, 1], dtype=pl.FP32)
        result__ssa_v1 = pl.tensor.mul(result__ssa_v0, 0.0)
        for b0__idx_v0, (result__iter_v2,) in pl.range(0, 16, 4, init_values=(result__ssa_v1,)):
            result__ssa_v4 = pl.tensor.mul(result__iter_v2, 2.0)
            result__rv_v3 = pl.yield_(result__ssa_v4)
        out__ssa_v0 = pl.tensor.mul(result__rv_v3, 2.0)
        for b0__idx_v1 in pl.range(0, 16, 4):
            local_var__ssa_v0 = pl.tensor.create([4, 1], dtype=pl.FP32)
            local_var__ssa_v1 = pl.tensor.mul(local_var__ssa_v0, 0.0)
            for kb__idx_v0, (local_var__iter_v2,) in pl.range(40, init_values=(local_var__ssa_v1,)):
                local_var__ssa_v4 = pl.tensor.add(local_var__iter_v2, 1.0)
                local_var__rv_v3 = pl.yield_(local_var__ssa_v4)
            tmp__ssa_v0 = pl.tensor.mul(local_var__rv_v3, 3.0)
        return out__ssa_v0
        """
    )


def test_temporaries_redefined_in_a_later_loop_do_not_escape_issue_592() -> None:
    body = ssa_body(
        """
        @pl.function
        def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
            a = x
            b = pl.mul(x, 2.0)
            for i in pl.range(4):
                tmp = pl.add(x, 1.0)
                a = pl.add(a, tmp)
            for j in pl.range(4):
                tmp = pl.add(x, 2.0)
                b = pl.add(b, tmp)
            return pl.add(a, b)
        """
    )
    assert body == expect(
        """
        a__ssa_v0 = x__ssa_v0
        b__ssa_v0 = pl.tensor.mul(x__ssa_v0, 2.0)
        for i__idx_v0, (a__iter_v1,) in pl.range(4, init_values=(a__ssa_v0,)):
            tmp__ssa_v0 = pl.tensor.add(x__ssa_v0, 1.0)
            a__ssa_v3 = pl.tensor.add(a__iter_v1, tmp__ssa_v0)
            a__rv_v2 = pl.yield_(a__ssa_v3)
        for j__idx_v0, (b__iter_v1,) in pl.range(4, init_values=(b__ssa_v0,)):
            tmp__ssa_v1 = pl.tensor.add(x__ssa_v0, 2.0)
            b__ssa_v3 = pl.tensor.add(b__iter_v1, tmp__ssa_v1)
            b__rv_v2 = pl.yield_(b__ssa_v3)
        return pl.tensor.add(a__rv_v2, b__rv_v2)
        """
    )


def test_scope_local_value_used_after_the_scope_is_not_promoted_by_inner_loops_issue_1351() -> None:
    body = ssa_body(
        """
        @pl.function
        def main(self, x: pl.Tensor[[256], pl.FP32], result: pl.Out[pl.Tensor[[256], pl.FP32]]) -> pl.Tensor[[256], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                for ob in pl.parallel(4):
                    for kb in pl.range(4):
                        k0 = kb * 16
                        t = pl.load(x, [k0], [16])
                        pl.store(t, [k0], result)
            leaked = k0
            return result
        """
    )
    assert body == expect(
        """
        with pl.at(level=pl.Level.CORE_GROUP):
            for ob__idx_v0 in pl.parallel(4):
                for kb__idx_v0 in pl.range(4):
                    k0__ssa_v0 = kb__idx_v0 * 16
                    t__ssa_v0 = pl.tile.load(x__ssa_v0, [k0__ssa_v0], [16])
                    pl.tile.store(t__ssa_v0, [k0__ssa_v0], result__ssa_v0)
        leaked__ssa_v0 = k0
        return result__ssa_v0
        """
    )


def test_the_same_escape_through_a_runtime_scope_is_promoted() -> None:
    body = ssa_body(
        """
        @pl.function(auto_scope=False)
        def main(self, x: pl.Tensor[[256], pl.FP32], result: pl.Out[pl.Tensor[[256], pl.FP32]]) -> pl.Tensor[[256], pl.FP32]:
            with pl.scope():
                for kb in pl.range(4):
                    t = pl.load(x, [kb * 16], [16])
                    r = pl.store(t, [kb * 16], result)
            return r
        """
    )
    assert body == expect(
        """
        with pl.scope():
            for kb__idx_v0, (r__iter_v0,) in pl.range(4, init_values=(result__ssa_v0,)):
                t__ssa_v0 = pl.tile.load(x__ssa_v0, [kb__idx_v0 * 16], [16])
                r__ssa_v2 = pl.tile.store(t__ssa_v0, [kb__idx_v0 * 16], result__ssa_v0)
                r__rv_v1 = pl.yield_(r__ssa_v2)
        return r__rv_v1
        """
    )


def test_a_variable_existing_before_the_scope_is_still_carried_inside_it() -> None:
    body = ssa_body(
        """
        @pl.function
        def main(self, x: pl.Tensor[[64], pl.FP32], result: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                for i in pl.range(4):
                    result = pl.add(result, x)
            return result
        """
    )
    assert body == expect(
        """
        with pl.at(level=pl.Level.CORE_GROUP):
            for i__idx_v0, (result__iter_v1,) in pl.range(4, init_values=(result__ssa_v0,)):
                result__ssa_v3 = pl.tensor.add(result__iter_v1, x__ssa_v0)
                result__rv_v2 = pl.yield_(result__ssa_v3)
        return result__rv_v2
        """
    )


def test_carry_yield_goes_inside_a_trailing_runtime_scope() -> None:
    body = ssa_body(
        """
        @pl.function(auto_scope=False)
        def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            k = 0
            for j in pl.range(n):
                with pl.scope():
                    k = k + j
            return k
        """
    )
    assert body == expect(
        """
        k__ssa_v0 = 0
        for j__idx_v0, (k__iter_v1,) in pl.range(n__ssa_v0, init_values=(k__ssa_v0,)):
            with pl.scope():
                k__ssa_v3 = k__iter_v1 + j__idx_v0
                k__rv_v2 = pl.yield_(k__ssa_v3)
        return k__rv_v2
        """
    )


def test_store_rebinding_is_carried_but_a_bare_store_is_not() -> None:
    body = ssa_body(
        """
        @pl.function
        def k(self, a: pl.Tensor[[256, 128], pl.FP32], acc: pl.InOut[pl.Tensor[[64, 128], pl.FP32]], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
            for i in pl.range(4):
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(a, [i * 64, 0], [64, 128])
                    acc = pl.store(t, [0, 0], acc)
                    pl.store(pl.mul(t, 2.0), [i * 64, 0], out)
            return out
        """
    )
    assert body == expect(
        """
        for i__idx_v0, (acc__iter_v1,) in pl.range(4, init_values=(acc__ssa_v0,)):
            with pl.at(level=pl.Level.CORE_GROUP):
                t__ssa_v0 = pl.tile.load(a__ssa_v0, [i__idx_v0 * 64, 0], [64, 128])
                acc__ssa_v3 = pl.tile.store(t__ssa_v0, [0, 0], acc__iter_v1)
                pl.tile.store(pl.tile.mul(t__ssa_v0, 2.0), [i__idx_v0 * 64, 0], out__ssa_v0)
            acc__rv_v2 = pl.yield_(acc__ssa_v3)
        return out__ssa_v0
        """
    )


def test_spmd_core_num_and_scope_attrs_read_the_versions_live_at_entry() -> None:
    body = ssa_body(
        """
        @pl.function
        def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            n = 2
            n = n * 2
            with pl.at(level=pl.Level.CORE_GROUP, dumps=[out]) as tid:
                out = pl.store(pl.load(a, [0], [64]), [0], out)
            with pl.spmd(n, deps=[tid]):
                with pl.at(level=pl.Level.CORE_GROUP):
                    n = n + 1
                    out = pl.store(pl.load(a, [0], [64]), [0], out)
            return out
        """
    )
    assert body == expect(
        """
        n__ssa_v0 = 2
        n__ssa_v1 = n__ssa_v0 * 2
        with pl.at(level=pl.Level.CORE_GROUP, dumps=[out__ssa_v0]) as tid__ssa_v0:
            out__ssa_v1 = pl.tile.store(pl.tile.load(a__ssa_v0, [0], [64]), [0], out__ssa_v0)
        with pl.spmd(n__ssa_v1, deps=[tid__ssa_v0]):
            with pl.at(level=pl.Level.CORE_GROUP):
                n__ssa_v2 = n__ssa_v1 + 1
                out__ssa_v2 = pl.tile.store(pl.tile.load(a__ssa_v0, [0], [64]), [0], out__ssa_v1)
        return out__ssa_v2
        """
    )


def test_if_inside_a_loop_threads_phis_into_the_carry() -> None:
    body = ssa_body(
        """
        @pl.function
        def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            acc = 0
            for i in pl.range(n):
                if i % 2 == 0:
                    acc = acc + i
            return acc
        """
    )
    assert body == expect(
        """
        acc__ssa_v0 = 0
        for i__idx_v0, (acc__iter_v1,) in pl.range(n__ssa_v0, init_values=(acc__ssa_v0,)):
            if i__idx_v0 % 2 == 0:
                acc__ssa_v3 = acc__iter_v1 + i__idx_v0
                acc__phi_v4 = pl.yield_(acc__ssa_v3)
            else:
                acc__phi_v4 = pl.yield_(acc__iter_v1)
            acc__rv_v2 = pl.yield_(acc__phi_v4)
        return acc__rv_v2
        """
    )


def test_an_as_tid_target_is_a_fresh_variable_so_a_loop_does_not_carry_it() -> None:
    # The parser makes the TaskId anew at each `as tid`: the loop's `deps=[tid]` reads the one
    # bound before the loop, and the loop's own `tid` is not a carry of it.
    body = ssa_body(
        """
        @pl.function
        def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP) as tid:
                out = pl.store(pl.load(a, [0], [64]), [0], out)
            for k in pl.range(2):
                with pl.at(level=pl.Level.CORE_GROUP, deps=[tid]) as tid:
                    out = pl.store(pl.load(a, [0], [64]), [0], out)
            return out
        """
    )
    assert "tid__iter" not in body
    assert "deps=[tid__ssa_v0]" in body
