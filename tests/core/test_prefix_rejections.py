"""Code the compiler's parser accepts and its passes before the outliners reject (e2d0f78):
CtrlFlowTransform's `break` lowering in core functions (PTO515/516) and Simplify's scalar
analyzer on bool literals and float comparisons (PTO513/514). Each shape below was run through
the compiler (the oracle) first; the accepted neighbours pin where each rule stops."""

from __future__ import annotations

from outline_cases import T64, run

SCALAR = "pl.Scalar[pl.FP32]"


def test_a_bool_literal_bound_at_function_level_is_pto513_at_the_assignment() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: {T64}, n: pl.Scalar[pl.INT64]) -> {T64}:
            {{|flag:flag = True|}}
            for i in pl.range(n):
                if flag:
                    x = pl.add(x, 1.0)
            return x
        """)
    d = r.only("PTO513")
    assert d.span == r.range("flag") and "'flag'" in d.message and "bool dtype" in d.message
    assert d.hint is not None and "INT32" in d.hint


def test_a_bool_literal_in_a_core_group_scope_is_still_function_level() -> None:
    # Simplify's depth counts loops, ifs and pl.spmd bodies only
    r = run(f"""
        @pl.function
        def main(self, x: {T64}, n: pl.Scalar[pl.INT64]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                flag = False
                for i in pl.range(n):
                    if flag:
                        x = pl.add(x, 1.0)
            return x
        """)
    assert r.errors == ["PTO513"]


def test_a_bool_from_a_comparison_or_a_literal_inside_an_if_is_accepted() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: {T64}, n: pl.Scalar[pl.INT64]) -> {T64}:
            flag = n > 3
            if n > 2:
                other = True
                if other:
                    x = pl.add(x, 2.0)
            if flag:
                x = pl.add(x, 1.0)
            return x
        """)
    assert r.errors == []


def test_an_if_comparing_float_scalars_is_pto514_at_the_condition() -> None:
    r = run(f"""
        @pl.function
        def main(self, x: {SCALAR}, n: pl.Scalar[pl.INT64]) -> {SCALAR}:
            y = x
            if n > 2 and {{|cond:x > 1.5|}}:
                y = x * 2.0
            return y
        """)
    d = r.only("PTO514")
    assert d.span.start_line == r.range("cond").start_line and "float" in d.message
    assert d.hint is not None and "if big:" in d.hint


def test_a_float_comparison_kept_in_a_bool_variable_or_of_a_read_is_accepted() -> None:
    # the analyzer only relates variables and constants: a call operand leaves it alone
    r = run(f"""
        @pl.function
        def main(self, x: {SCALAR}, t: {T64}) -> {SCALAR}:
            y = x
            big = x > 1.5
            if big:
                y = x * 2.0
            if pl.tensor.read(t, [0]) == x:
                y = x * 3.0
            v = pl.tensor.read(t, [1])
            w = pl.tensor.read(t, [2])
            if v == w:  # values the body computed (pypto-lib's greedy_sample.py compiles this)
                y = x * 4.0
            return y
        """)
    assert r.errors == []


def test_break_in_a_loop_with_init_values_in_a_core_function_is_pto515_at_the_break() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x0: {T64}, n: pl.Scalar[pl.INT64]) -> {T64}:
            for j in pl.range(2):
                for i, (x,) in pl.range(n, init_values=(x0,)):
                    if i > 5:
                        {{|brk:break|}}
                    y = pl.add(x, 1.0)
                    x = pl.yield_(y)
            return x0
        """)
    d = r.only("PTO515")
    assert d.span == r.range("brk") and "init_values" in d.message


def test_break_in_a_function_level_loop_of_a_core_function_is_pto516() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.AIV)
        def main(self, x: {T64}, n: pl.Scalar[pl.INT64]) -> {T64}:
            for i in pl.range(n):
                if i > 5:
                    {{|brk:break|}}
                x = pl.add(x, 1.0)
            return x
        """)
    d = r.only("PTO516")
    assert d.span == r.range("brk") and "brk = False" in d.message


def test_break_in_a_nested_loop_or_outside_core_functions_is_accepted() -> None:
    # the lowering's flag lands inside the outer loop / if; Opaque and Orchestration functions
    # are not lowered by CtrlFlowTransform at all
    r = run(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: {T64}, n: pl.Scalar[pl.INT64]) -> {T64}:
            for j in pl.range(2):
                for i in pl.range(n):
                    if i > 5:
                        break
                    x = pl.add(x, 1.0)
            if n > 2:
                for i in pl.range(n):
                    if i > 5:
                        break
                    x = pl.add(x, 1.0)
            return x

        @pl.function
        def main(self, x: {T64}, n: pl.Scalar[pl.INT64]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                for i in pl.range(n):
                    if i > 5:
                        break
                    x = pl.add(x, 1.0)
            return x
        """)
    assert r.errors == []


def test_a_statement_met_again_at_another_depth_or_with_other_parameters_is_judged_again() -> None:
    """A compound statement's findings are kept with it (`_FOUND`) under its depth and its
    function's parameters: the same object elsewhere is judged where it is."""
    from ir_builder import BOOL, IDX, FunctionBuilder, const, span

    from pypto_core import ir
    from pypto_core.passes.prefix_rejections import simplify_problems

    b = FunctionBuilder()
    p, flag, i = b.v("p", ir.ScalarType("FP32")), b.v("flag", BOOL), b.v("i", IDX)
    compares = ir.IfStmt(ir.BinaryExpr(">", p, ir.Const(1.5, ir.ScalarType("FP32")), BOOL), [], span=span(1))
    binds = ir.ScopeStmt(
        ir.ScopeKind.InCore, [ir.AssignStmt(flag, ir.Const(True, BOOL), span(3))], span=span(2)
    )
    in_loop = ir.ForStmt(i, const(0), const(4), const(1), [binds], span=span(4))

    def codes(params: list[ir.Var], *body: ir.Stmt) -> list[str]:
        fn = ir.Function("f", [ir.Param(v) for v in params], list(body), type=ir.FunctionType.InCore)
        return [d.code for d in simplify_problems(ir.Program("P", [fn]))]

    for _ in range(2):
        assert codes([p], compares, binds) == ["PTO514", "PTO513"]
        assert codes([p], compares, in_loop) == ["PTO514"]
        assert codes([], compares, binds) == ["PTO513"]
