"""PTO517: a read the compiler's SSA verification finds outside the defining scope of its value.

ConvertToSSA restores the versions of before a loop or `if` when it leaves one, adding only what
the statement hands out (carries, escaping values, phis, return vars). A value it did not hand
out is read unversioned after it, and the verifier rejects that read.
"""

from __future__ import annotations

from outline_cases import T64, clean, run


def test_a_loop_value_read_only_after_the_enclosing_scope_is_pto517_at_the_read() -> None:
    # the scope body is a block of its own: its loop sees only what that block reads later,
    # so `y` is not carried out of the loop, and the read after the scope has no version
    r = run(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {T64}) -> {T64}:
            with pl.manual_scope():
                z = pl.create_tensor([64], dtype=pl.FP32)
                {{|loop:for i in pl.range(4):
                    {{|def:y|}} = self.k(x)|}}
            {{|read:return y|}}

        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: {T64}) -> {T64}:
            return x
        """)
    d = r.only("PTO517")
    assert d.span == r.range("read")
    assert d.message.startswith("Variable 'y' used outside its defining scope")
    assert d.hint is not None and "before the loop" in d.hint
    assert [rel.span for rel in d.related] == [r.range("def"), r.range("loop")]


def test_an_inner_loop_result_read_after_the_outer_loop_is_pto517() -> None:
    # `acc_out` is the result of the inner loop; the outer loop carries no value named so
    r = run(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: {T64}, out: pl.Out[{T64}]) -> {T64}:
            for b in pl.range(2):
                for j, (acc,) in pl.range(4, init_values=(out,)):
                    t = pl.load(x, [0], [64])
                    nxt = pl.store(t, [0], acc)
                    acc_out = pl.yield_(nxt)
            {{|read:return acc_out|}}
        """)
    assert r.only("PTO517").span == r.range("read")


def test_a_loop_variable_read_after_its_loop_is_pto517() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {T64}, n: pl.Scalar[pl.INDEX]) -> {T64}:
            for i in pl.range(n):
                x = self.k(x)
            {{|read:m = i + 1|}}
            return x

        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: {T64}) -> {T64}:
            return x
        """)
    d = r.only("PTO517")
    assert d.span == r.range("read") and "variable of this loop" in d.message


def test_a_value_bound_in_one_branch_only_is_pto517_at_the_read_after_the_if() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {T64}, n: pl.Scalar[pl.INDEX]) -> {T64}:
            if n > 0:
                y = self.k(x)
            {{|read:return y|}}

        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: {T64}) -> {T64}:
            return x
        """)
    d = r.only("PTO517")
    assert d.span == r.range("read") and d.hint is not None and "both branches" in d.hint


def test_values_the_loop_or_if_hands_out_are_accepted() -> None:
    # a carried value, a value assigned in both branches, an inner loop's result carried by
    # the outer loop through `init_values`, and a read after an InCore scope of a value its
    # body bound outside any loop: all versioned where they are read
    clean(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: {T64}) -> {T64}:
            return x

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {T64}, n: pl.Scalar[pl.INDEX]) -> {T64}:
            y = self.k(x)
            for i in pl.range(n):
                y = self.k(y)
            if n > 0:
                z = self.k(y)
            else:
                z = self.k(x)
            for b, (outer,) in pl.range(2, init_values=(z,)):
                for j, (inner,) in pl.range(4, init_values=(outer,)):
                    inner_out = pl.yield_(self.k(inner))
                outer_out = pl.yield_(inner_out)
            with pl.at(level=pl.Level.CORE_GROUP):
                w = pl.add(outer_out, 1.0)
            return w
        """)


def test_a_value_bound_in_the_branch_that_does_not_continue_is_accepted() -> None:
    # CtrlFlowTransform moves the rest of the loop body into the other branch of an `if`
    # whose branch ends in `continue`, where `y` has its version
    r = run(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: {T64}) -> {T64}:
            for i, (acc,) in pl.range(8, init_values=(x,)):
                if i > 3:
                    y = pl.add(acc, acc)
                else:
                    continue
                acc = pl.yield_(y)
            return acc
        """)
    assert "PTO517" not in r.codes
