"""The function-body builder: signatures, statements, expressions and loops (dsl-reference §1, §3.1).

Scope constructs are in test_scopes.py, parser-level errors in test_pto1xx.py.
"""

from __future__ import annotations

import ast

import pytest
from builder_util import build, expr
from test_scopes import main

from pypto_core import ir
from pypto_core.frontend.exprs import _nesting_exceeds
from pypto_core.ir import Direction, ScalarType, TensorType, TileType, TupleType
from pypto_core.span import Span

# --- signatures -----------------------------------------------------------------------------------


def test_params_read_types_directions_and_fold_constant_extents() -> None:
    b = build(
        """
        @pl.function
        def main(self, ${a}a: pl.Tensor[ [ROWS, M, ROWS * 2], pl.FP16, pl.NZ], o: pl.InOut[pl.Tensor[ [8], pl.INT32] ],
                 n: pl.Scalar[pl.INDEX], t: pl.TaskId, w: pl.Tile[ [16, 16], pl.BF16], j: pl.Tensor):
            return a
        """,
        constants={"ROWS": 64},
        dynamic={"M"},
    )
    fn = b.fn()
    assert [p.var.name for p in fn.params] == ["a", "o", "n", "t", "w", "j"]
    assert [p.direction for p in fn.params] == [Direction.In, Direction.InOut] + [Direction.In] * 4
    assert [p.var.type for p in fn.params] == [
        TensorType((64, "M", 128), "FP16", "NZ"),
        TensorType((8,), "INT32"),
        ScalarType("INDEX"),
        ScalarType("TASK_ID"),
        TileType((16, 16), "BF16"),
        TensorType(None, None),
    ]
    line, col = b.marked.point("a")
    assert fn.params[0].var.span == Span(line, col, line, col + 1)
    assert fn.return_types == []


def test_return_annotations_single_tuple_and_pl_tuple() -> None:
    b = build(
        """
        @pl.function
        def one(self, a: T64) -> T64:
            return a

        @pl.function
        def two(self, a: T64) -> tuple[T64, pl.Scalar[pl.INT32] ]:
            return a, 1

        @pl.function
        def three(self, a: T64) -> pl.Tuple[T64, T64 ]:
            return a, a
        """
    )
    t64 = TensorType((64, 64), "FP32")
    assert b.fn("one").return_types == [t64]
    assert b.fn("two").return_types == [t64, ScalarType("INT32")]
    assert b.fn("three").return_types == [t64, t64]


def test_out_param_and_function_name_span() -> None:
    b = build(
        """
        @pl.function(type=pl.FunctionType.InCore)
        def {|name:kern|}(self, x: T64, out: OUT64) -> T64:
            return out
        """
    )
    fn = b.fn("kern")
    assert fn.type is ir.FunctionType.InCore
    assert fn.params[1].direction is Direction.Out
    assert fn.name_span == b.marked.named["name"]


# --- statements -----------------------------------------------------------------------------------


def test_rebinding_reuses_one_variable_per_name() -> None:
    b = build(
        """
        @pl.function
        def main(self, x: T64, n: pl.Scalar[pl.INDEX]) -> T64:
            y = pl.add(x, x)
            y = pl.mul(y, y)
            n = n + 1
            return y
        """
    )
    fn = b.fn()
    first, second, third, _ = fn.body
    assert first.target is second.target
    assert third.target is fn.params[1].var
    assert b.body() == ["y = tensor.add(x, x)", "y = tensor.mul(y, y)", "n = (n + 1)", "return y"]


def test_tuple_unpack_goes_through_a_tuple_temporary() -> None:
    b = build(
        """
        @pl.function
        def pair(self, a: T64) -> tuple[T64, pl.Scalar[pl.INDEX] ]:
            return a, 3

        @pl.function
        def main(self, a: T64) -> T64:
            t, k = self.pair(a)
            return t
        """
    )
    assert b.body() == [
        "_tuple_tmp_0 = self.pair(a)",
        "t = _tuple_tmp_0[0]",
        "k = _tuple_tmp_0[1]",
        "return t",
    ]
    assert b.fn().body[1].target.type == TensorType((64, 64), "FP32")
    assert b.fn().body[2].target.type == ScalarType("INDEX")


def test_subscript_write_is_an_assemble_on_the_destination() -> None:
    b = build(
        """
        @pl.function
        def main(self, a: T64, out: OUT64) -> T64:
            t = pl.load(a, [0, 0], [16, 64])
            out[16:32, 0] = a
            t[0:8, 0:64] = t
            return out
        """
    )
    assert b.body()[1:3] == [
        "out = tensor.assemble(out, a, [16, 0])",
        "t = tile.assemble(t, t, [0, 0])",
    ]


def test_annotated_and_augmented_assignments() -> None:
    b = build(
        """
        @pl.function
        def main(self, a: T64, n: pl.Scalar[pl.INDEX]) -> T64:
            t: TILE64 = pl.load(a, [0, 0], [64, 64])
            n += 2
            return a
        """
    )
    assign = b.fn().body[0]
    assert assign.annotation == TileType((64, 64), "FP32")
    assert b.body()[1] == "n = (n + 2)"


def test_compile_time_statements_leave_no_ir_and_func_attr_reaches_the_function() -> None:
    b = build(
        """
        @pl.function
        def main(self, a: T64) -> T64:
            \"\"\"Docstring.\"\"\"
            pl.func_attr({"tile_size": 64, "mode": pl.SplitMode.UP_DOWN})
            pl.static_print(a)
            pl.static_assert(True, "ok")
            pl.store(pl.load(a, [0, 0], [64, 64]), [0, 0], a)
            return a
        """
    )
    assert b.fn().attrs == {"tile_size": 64, "mode": ir.SplitMode.UP_DOWN}
    assert b.body() == ["tile.store(tile.load(a, [0, 0], [64, 64]), [0, 0], a)", "return a"]


def test_a_func_attr_prologue_of_several_calls_is_merged() -> None:
    b = build(
        """
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: T64, out: OUT64):
            pl.func_attr({"split": pl.SplitMode.UP_DOWN})
            pl.func_attr({"windowize": True})
            out[0:64, 0:64] = a[0:64, 0:64]
        """
    )
    assert b.diagnostics == []
    assert b.fn().attrs == {"split": ir.SplitMode.UP_DOWN, "windowize": True}


# --- expressions ----------------------------------------------------------------------------------


def _value_of(b, index: int):  # type: ignore[no-untyped-def]
    stmt = b.fn().body[index]
    return stmt.value if isinstance(stmt, ir.AssignStmt) else stmt.expr


def test_unified_ops_dispatch_on_the_first_operand_kind() -> None:
    b = build(
        """
        @pl.function
        def main(self, a: T64, out: OUT64, s: pl.Scalar[pl.INDEX]) -> T64:
            x = pl.add(a, a)
            t = pl.load(a, [0, 0], [16, 64])
            u = pl.add(t, 1.0)
            v = pl.read(a, [0, 0])
            w = pl.add(s, 4)
            out = pl.store(u, [0, 0], out)
            c = pl.create_tensor([32, 16], pl.BF16)
            d = pl.dim(a, 0)
            e = pl.tensor.exp(a)
            f = pl.tile.exp(t)
            g = pld.tensor.put(a, out)
            return out
        """
    )
    assert b.body()[:11] == [
        "x = tensor.add(a, a)",
        "t = tile.load(a, [0, 0], [16, 64])",
        "u = tile.add(t, 1.0)",
        "v = tensor.read(a, [0, 0])",
        "w = (s + 4)",
        "out = tile.store(u, [0, 0], out)",
        "c = tensor.create([32, 16], BF16)",
        "d = tensor.dim(a, 0)",
        "e = tensor.exp(a)",
        "f = tile.exp(t)",
        "g = pld.tensor.put(a, out)",
    ]
    types = [_value_of(b, i).type for i in range(11)]
    assert types[1] == TileType((16, 64), "FP32")
    assert types[2] == TileType((16, 64), "FP32")
    assert types[3] == ScalarType("FP32")
    assert types[4] == ScalarType("INDEX")
    assert types[5] == TensorType((64, 64), "FP32")
    assert types[6] == TensorType((32, 16), "BF16")
    assert types[7] == ScalarType("INDEX")
    assert types[10] == ir.UNKNOWN


def test_operator_sugar_subscript_reads_and_casts() -> None:
    b = build(
        """
        @pl.function
        def main(self, a: T64, s: pl.Scalar[pl.INDEX]) -> T64:
            x = a + 1
            y = a[s, 0]
            z = a[0:16, 8:64]
            f = pl.cast(s, pl.INT32)
            g = -s
            h = not (s < 3)
            m = pl.max(s, 2)
            return x
        """
    )
    assert b.body()[:7] == [
        "x = tensor.add(a, 1)",
        "y = tensor.read(a, [s, 0])",
        "z = tensor.slice(a, [16, 56], [0, 8])",
        "f = cast(s, INT32)",
        "g = (- s)",
        "h = (not (s < 3))",
        "m = (s max 2)",
    ]
    assert _value_of(b, 3).type == ScalarType("INT32")
    assert _value_of(b, 2).type == TensorType((16, 56), "FP32")


def test_tensor_subscripts_are_full_rank_slices_as_the_compilers_parser_builds_them() -> None:
    """`:` spans the whole dimension, missing trailing indices are whole, an index is an
    offset of extent 1 whose dimension the result drops (the 5th operand), and `k : k + C`
    has extent C: the outlined function's parameter types come out of these."""
    b = build(
        """
        @pl.function
        def main(self, a: pl.Tensor[[16, 1024], pl.FP32], k: pl.Scalar[pl.INDEX]) -> T64:
            w = a[:, k : k + 512]
            x = a[2, k : 512 + k]
            y = a[2:4]
            z = a[:, 512:]
            v = a[:8]
            u = a[k]
            return w
        """
    )
    assert b.body()[:6] == [
        "w = tensor.slice(a, [16, 512], [0, k])",
        "x = tensor.slice(a, [1, 512], [2, k], [], [0])",
        "y = tensor.slice(a, [2, 1024], [2, 0])",
        "z = tensor.slice(a, [16, 512], [0, 512])",
        "v = tensor.slice(a, [8, 1024], [0, 0])",
        "u = tensor.slice(a, [1, 1024], [k, 0], [], [0])",
    ]
    shapes = [_value_of(b, i).type.shape for i in range(6)]  # type: ignore[union-attr]
    assert shapes == [(16, 512), (512,), (2, 1024), (16, 512), (8, 1024), (1024,)]


def test_constants_fold_and_keywords_keep_enums() -> None:
    b = build(
        """
        @pl.function
        def main(self, a: T64, out: OUT64, i: pl.Scalar[pl.INDEX]) -> T64:
            off = i * ROWS
            n = ROWS * 2
            k = pl.const(7, pl.INT32)
            pl.store(pl.load(a, [off, 0], [16, 64]), [0, 0], out, atomic=pl.AtomicType.Add)
            return out
        """,
        constants={"ROWS": 64},
    )
    assert b.body()[:3] == ["off = (i * 64)", "n = 128", "k = 7"]
    assert _value_of(b, 2).type == ScalarType("INT32")
    store = _value_of(b, 3)
    assert store.op == "tile.store"
    assert isinstance(store.kwargs["atomic"], ir.EnumValue)
    assert (store.kwargs["atomic"].enum, store.kwargs["atomic"].member) == ("AtomicType", "Add")


def test_dynamic_symbols_read_in_the_body_are_one_index_variable() -> None:
    b = build(
        """
        @pl.function
        def main(self, a: pl.Tensor[ [M, 64], pl.FP32], i: pl.Scalar[pl.INDEX]) -> T64:
            off = i * M
            end = M - 1
            return a
        """,
        dynamic={"M"},
    )
    first, second = _value_of(b, 0).right, _value_of(b, 1).left
    assert isinstance(first, ir.Var) and first is second
    assert (first.name, first.type) == ("M", ScalarType("INDEX"))
    assert b.fn().params[0].var.type == TensorType(("M", 64), "FP32")


def test_unknown_ops_and_foreign_calls_still_read_their_arguments() -> None:
    b = build(
        """
        @pl.function
        def main(self, a: T64, s: pl.Scalar[pl.INDEX]) -> T64:
            x = pl.some_future_op(a, s)
            y = len(a)
            z = [a, s]
            return a
        """
    )
    assert b.diagnostics == []
    x, y = _value_of(b, 0), _value_of(b, 1)
    assert isinstance(x, ir.Call) and x.args == [b.fn().params[0].var, b.fn().params[1].var]
    assert isinstance(y, ir.OpaqueExpr) and y.operands[-1] is b.fn().params[0].var
    assert expr(_value_of(b, 2)) == "[a, s]"


def test_program_calls_submit_and_spmd_submit() -> None:
    b = build(
        """
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: T64, out: OUT64) -> T64:
            return out

        @pl.function
        def main(self, a: T64, out: OUT64) -> T64:
            out = self.k(a, out)
            out, t1 = pl.submit(self.k, a, out, deps=[])
            out, t2 = pl.spmd_submit(self.k, a, out, core_num=4, deps=[t1])
            return out
        """
    )
    body = b.body()
    assert body[0] == "out = self.k(a, out)"
    assert body[1] == "_tuple_tmp_0 = submit self.k(a, out, deps=[])"
    assert body[4] == "_tuple_tmp_1 = submit self.k(a, out, core_num=4, deps=[t1])"
    submit = _value_of(b, 1)
    assert submit.callee == "k"
    assert submit.type == TupleType((TensorType((64, 64), "FP32"), ScalarType("TASK_ID")))
    assert b.fn().body[3].target.type == ScalarType("TASK_ID")


def test_jit_functions_call_each_other_by_plain_name() -> None:
    b = build(
        """
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor, out: pl.Out[pl.Tensor]) -> pl.Tensor:
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor, out: pl.Out[pl.Tensor]) -> pl.Tensor:
            out = kernel(a, out)
            with pl.spmd(4):
                out = kernel(a, out)
            return out
        """,
        in_jit=True,
    )
    assert b.diagnostics == []
    call = _value_of(b, 0)
    assert (call.op, call.callee, call.type) == ("kernel", "kernel", TensorType(None, None))
    # the first `out = ...` rebinds the parameter at its depth: `out_v1`, which the deeper
    # rebinding in the scope then binds again (`jit_renames`)
    assert b.body()[1:3] == ["Spmd core_num=4:", "  out_v1 = self.kernel(a, out_v1)"]


def test_columns_count_code_points_after_non_ascii_text() -> None:
    b = build(
        """
        @pl.function
        def main(self, a: T64) -> T64:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="é-1", [|windowize=1|]):
                pass
            return a
        """
    )
    assert b.only("PTO115").span == Span(
        b.marked.range.start_line,
        b.marked.range.start_col + len("windowize="),
        b.marked.range.end_line,
        b.marked.range.end_col,
    )


# --- control flow ---------------------------------------------------------------------------------


def test_if_with_yields_binds_return_vars_and_plain_if_keeps_rebinding() -> None:
    b = build(
        """
        @pl.function
        def main(self, a: T64, s: pl.Scalar[pl.INDEX]) -> T64:
            if s > 0:
                r = pl.yield_(pl.add(a, a))
            else:
                r = pl.yield_(a)
            if s == 1:
                a = pl.mul(a, a)
            return r
        """
    )
    assert b.body() == [
        "if (s > 0) -> r:",
        "  yield tensor.add(a, a)",
        "else:",
        "  yield a",
        "if (s == 1):",
        "  a = tensor.mul(a, a)",
        "return r",
    ]
    assert b.fn().body[0].return_vars[0].type == TensorType((64, 64), "FP32")


def test_range_forms_and_loop_kinds() -> None:
    b = build(
        """
        @pl.function
        def main(self, a: T64, n: pl.Scalar[pl.INDEX]) -> T64:
            for i in pl.range(n):
                pass
            for i in pl.range(2, n):
                pass
            for i in pl.parallel(0, n, 2):
                pass
            for i in pl.unroll(4):
                pass
            for i in pl.pipeline(8, stage=2):
                pass
            return a
        """
    )
    assert b.body()[:5] == [
        "for i in range(0, n, 1):",
        "for i in range(2, n, 1):",
        "for i in parallel(0, n, 2):",
        "for i in unroll(0, 4, 1):",
        "for i in pipeline(0, 8, 1):",
    ]
    assert expr(b.fn().body[4].kwargs["stage"]) == "2"
    loop_vars = {s.loop_var for s in b.fn().body[:5]}
    assert len(loop_vars) == 1 and next(iter(loop_vars)).type == ScalarType("INDEX")


def test_init_values_loop_carries_iter_args_and_binds_results_from_the_yield() -> None:
    b = build(
        """
        @pl.function
        def main(self, a: T64, out: OUT64) -> T64:
            for i, (acc, o) in pl.range(4, init_values=(a, out)):
                acc = pl.add(acc, a)
                r1, r2 = pl.yield_(acc, o)
            return r1
        """
    )
    assert b.body() == [
        "for i, acc=a, o=out in range(0, 4, 1) -> r1, r2:",
        "  acc = tensor.add(acc, a)",
        "  yield acc, o",
        "return r1",
    ]
    loop = b.fn().body[0]
    assert all(isinstance(arg, ir.IterArg) for arg in loop.iter_args)
    assert loop.body[0].value.args[0] is loop.iter_args[0]
    assert loop.body[0].target is loop.iter_args[0]  # pre-SSA: one variable per name, iter args too
    assert isinstance(loop.body[-1], ir.YieldStmt)


def test_while_loops_and_break_continue() -> None:
    b = build(
        """
        @pl.function
        def main(self, a: T64, n: pl.Scalar[pl.INDEX]) -> T64:
            for (x,) in pl.while_(init_values=(0,)):
                pl.cond(x < n)
                x2 = pl.yield_(x + 1)
            while n > 0:
                n = n - 1
                if n == 3:
                    break
                continue
            return a
        """
    )
    assert b.body() == [
        "while (x < n), x=0 -> x2:",
        "  yield (x + 1)",
        "while (n > 0):",
        "  n = (n - 1)",
        "  if (n == 3):",
        "    break",
        "  continue",
        "return a",
    ]
    assert b.diagnostics == []


def test_yield_at_the_end_of_a_runtime_scope_binds_the_enclosing_if() -> None:
    b = build(
        """
        @pl.function(type=pl.FunctionType.InCore)
        def k1(self, x: T64) -> T64:
            return x

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: T64) -> T64:
            for i, (acc,) in pl.range(4, init_values=(x,)):
                if i == 0:
                    with pl.manual_scope():
                        a: T64 = self.k1(acc)
                        val: T64 = pl.yield_(a)
                else:
                    with pl.manual_scope():
                        val: T64 = pl.yield_(acc)
                acc2 = pl.yield_(val)
            return acc2
        """
    )
    assert b.diagnostics == []
    assert b.body() == [
        "for i, acc=x in range(0, 4, 1) -> acc2:",
        "  if (i == 0) -> val:",
        "    Runtime:",
        "      a = self.k1(acc)",
        "      yield a",
        "  else:",
        "    Runtime:",
        "      yield acc",
        "  yield val",
        "return acc2",
    ]


ODD_BODIES = [
    "with pl.at():\n    pass",
    "with pl.at(level=x.y.z) as a.b:\n    pass",
    "with pl.spmd(*args):\n    pass",
    "for i in pl.range(*a):\n    pass",
    "for i, (x,) in pl.range(4, init_values=(a,)):\n    x, y = pl.yield_(x)",
    "x = pl.yield_()\npl.yield_(a)",
    "a[...] = a\na[1:2:3] = a\nx = a[:]\nx = a[n]",
    "x = lambda: a\nx = [i for i in a]\nx = {a: 1}\nx = f'{a}'\nx = a if a else a",
    "x = pl.cast()\nx = pl.const()\nx = pl.submit()\nx = pl.submit(self.kernel)\nx = pl.spmd_submit(a)",
    "x = self.nothing(a)\nx = self.kernel\nx: int\ndel a\nimport os",
    "with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(), pl.cross_core_slot(1, slot_num=2, x=1)]):\n"
    "    pass",
    "for x in pl.split_aiv(2, mode=1):\n    pass\nfor (x,) in pl.while_():\n    pl.cond()",
    "with pl.at(level=pl.Level.CORE_GROUP):\n    pl.set_cache_policy()\n    pl.set_cache_policy(a, 1)",
    "pl.func_attr(1)\npl.dump_tag()\npl.dump_tag(a[0])",
    "x = 1 / 0\nx = 2 ** 100000\na[0] += 1\n(a, b) = (b, a)\n[a, *b] = c\nx = y = 1",
    "for i in pl.range(3):\n    pass\nelse:\n    pass\ntry:\n    pass\nexcept Exception:\n    pass",
    "with pl.scope(mode=1, name_hint=2):\n    pass\nx = pl.add()\nx = pl.load()\nx = a + out[0:4]",
]


@pytest.mark.parametrize("body", ODD_BODIES)
def test_odd_bodies_build_and_every_diagnostic_lies_in_the_source(body: str) -> None:
    b = build(main(body, params="a: T64, out: OUT64, n: pl.Scalar[pl.INDEX]"))
    lines = b.marked.text.splitlines()
    assert b.fn().name == "main"
    for d in b.diagnostics:
        span = d.span
        assert 0 <= span.start_line <= span.end_line < len(lines), d
        assert (span.start_line, span.start_col) <= (span.end_line, span.end_col), d
        assert span.end_col <= len(lines[span.end_line]), d


def test_an_expression_too_deep_to_walk_is_reported_and_still_reads_its_variables() -> None:
    chain = " + ".join(["n"] * 2000)
    b = build(
        f"@pl.function\ndef main(self, n: pl.Scalar[pl.INDEX]) -> T64:\n    x = [|{chain}|]\n    return x\n"
    )
    assert b.only("PTO199").span == b.marked.range
    value = _value_of(b, 0)
    assert isinstance(value, ir.OpaqueExpr) and value.operands == [b.fn().params[0].var]


def _depth(node: ast.AST) -> int:
    return 1 + max((_depth(child) for child in ast.iter_child_nodes(node)), default=0)


@pytest.mark.parametrize(
    "source",
    [
        "x",
        "~~~~~~~~~~~~x",
        "------------1",
        "not not not not x",
        "a.b.c.d.e.f.g",
        "f()()()()()",
        "[[[[[[x]]]]]]",
        "a[b][c][d][e]",
        "a[1:2, ::3][:]",
        "x ** y ** z ** w",
        "a + b + c + d + e + f",
        "f(k=g(k=h(k=x)))",
        "f(*a, **b)",
        "lambda: lambda: lambda: x",
        "[y for y in [z for z in w if z]]",
        "f\"{x:{y}}{f'{z}'}\"",
        "{a: {b: {c: d}}}",
        "(a := (b := c))",
        "a if b else c if d else e",
        "-(~(+(not x)))",
    ],
)
def test_the_depth_guard_shortcut_never_changes_its_answer(source: str) -> None:
    """`_nesting_exceeds` lets a one-line expression narrower than half the limit through
    without walking it: each level of an expression spells at least one character."""
    node = ast.parse(source, mode="eval").body
    depth = _depth(node)
    assert depth <= node.end_col_offset - node.col_offset + 1
    for limit in range(1, 2 * len(source) + 4):
        assert _nesting_exceeds(node, limit) == (depth > limit), limit


def test_a_loop_over_an_unknown_dsl_iterator_is_an_opaque_sequential_loop() -> None:
    b = build(
        """
        @pl.function
        def main(self, a: T64, n: pl.Scalar[pl.INDEX]) -> T64:
            for i in pl.future_loop(n, 4):
                a = pl.add(a, a)
            for j in helper(n):
                a = pl.mul(a, a)
            return a
        """
    )
    assert b.codes == ["PTO199"]  # only the non-DSL iterator
    assert b.body()[0] == "for i in range(0, tensor.future_loop(n, 4), 1):"  # an unknown op reads n
    assert b.body()[2] == "for j in range(0, opaque<helper(n)>, 1):"
