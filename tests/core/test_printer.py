"""The IR printer on hand-built IR: exact text for each construct's printed form."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from ir_builder import (
    BOOL,
    IDX,
    T64,
    TILE,
    FunctionBuilder,
    add,
    assign,
    const,
    for_range,
    function,
    load,
    program,
    store,
)

from pypto_core import ir
from pypto_core.ir_equal import ir_difference, ir_equal
from pypto_core.passes.ssa import convert_to_ssa
from pypto_core.printer import format_type, print_expr, print_function, print_program, print_stmt, print_type

OUT = ir.Direction.Out


def dedent(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


@pytest.mark.parametrize(
    ("type_", "dsl", "user"),
    [
        (ir.TensorType((64,), "FP32"), "pl.Tensor[[64], pl.FP32]", "Tensor[[64], FP32]"),
        (
            ir.TensorType(("M", 128), "BF16", "NZ"),
            "pl.Tensor[[M, 128], pl.BF16, pl.NZ]",
            "Tensor[[M, 128], BF16, NZ]",
        ),
        (ir.TensorType(None, None), "pl.Tensor", "Tensor"),
        (ir.TileType((64, 64), "FP32"), "pl.Tile[[64, 64], pl.FP32]", "Tile[[64, 64], FP32]"),
        (ir.INDEX, "pl.Scalar[pl.INDEX]", "Scalar[INDEX]"),
        (ir.ArrayType(8, "INT32"), "pl.Array[8, pl.INT32]", "Array[8, INT32]"),
        (
            ir.TupleType((ir.INDEX, T64)),
            "pl.Tuple[pl.Scalar[pl.INDEX], pl.Tensor[[64], pl.FP32]]",
            "Tuple[Scalar[INDEX], Tensor[[64], FP32]]",
        ),
    ],
)
def test_types_print_as_annotations_and_for_users(type_: ir.Type, dsl: str, user: str) -> None:
    assert print_type(type_) == dsl
    assert format_type(type_) == user


def test_display_names_are_base_names() -> None:
    v = ir.Var("out__ssa_v3", T64)
    e = store(ir.Var("t__ssa_v0", TILE), v)
    assert print_expr(e) == "pl.tile.store(t__ssa_v0, [0], out__ssa_v3)"
    assert print_expr(e, display=True) == "pl.tile.store(t, [0], out)"


@pytest.mark.parametrize(
    ("expr", "text"),
    [
        (ir.BinaryExpr("*", ir.BinaryExpr("+", ir.Var("a"), ir.Var("b")), ir.Var("c")), "(a + b) * c"),
        (ir.BinaryExpr("+", ir.Var("a"), ir.BinaryExpr("*", ir.Var("b"), ir.Var("c"))), "a + b * c"),
        (ir.BinaryExpr("-", ir.Var("a"), ir.BinaryExpr("-", ir.Var("b"), ir.Var("c"))), "a - (b - c)"),
        (ir.BinaryExpr("-", ir.BinaryExpr("-", ir.Var("a"), ir.Var("b")), ir.Var("c")), "a - b - c"),
        (ir.BinaryExpr("**", ir.Var("a"), ir.BinaryExpr("**", ir.Var("b"), ir.Var("c"))), "a ** b ** c"),
        (ir.BinaryExpr("<", ir.BinaryExpr("<", ir.Var("a"), ir.Var("b")), ir.Var("c")), "(a < b) < c"),
        (ir.UnaryExpr("-", ir.BinaryExpr("+", ir.Var("a"), ir.Var("b"))), "-(a + b)"),
        (ir.UnaryExpr("not", ir.BinaryExpr("and", ir.Var("a"), ir.Var("b"))), "not (a and b)"),
        (ir.UnaryExpr("cast", ir.Var("s"), cast_dtype="INT32"), "pl.cast(s, pl.INT32)"),
        (ir.BinaryExpr("*", ir.Const(-1), ir.Var("a")), "-1 * a"),
        (ir.TupleGetItem(ir.Var("ret__tmp_v0"), 1), "ret__tmp_v0[1]"),
        (ir.TupleExpr([ir.Var("a")]), "(a,)"),
        (ir.Const(2.0), "2.0"),
        (ir.Const('x"y'), '"x\\"y"'),
        (ir.EnumValue("", "FP32"), "pl.FP32"),
        (ir.EnumValue("AtomicType", "Add"), "pl.AtomicType.Add"),
        (ir.Call("tensor.put", [ir.Var("a")]), "pl.tensor.put(a)"),
        (ir.Call("pld.tensor.put", [ir.Var("a")]), "pld.tensor.put(a)"),
        (
            ir.Call(
                "tile.store",
                [ir.Var("t"), ir.ListExpr([ir.Const(0)]), ir.Var("o")],
                {"atomic": ir.EnumValue("AtomicType", "Add")},
            ),
            "pl.tile.store(t, [0], o, atomic=pl.AtomicType.Add)",
        ),
        (
            ir.Call(
                "",
                [ir.Var("a"), ir.Var("o")],
                callee="proj_spmd",
                attrs={"core_num": ir.Const(4), "sync_start": True},
            ),
            'self.proj_spmd(a, o, attrs={"core_num": 4, "sync_start": True})',
        ),
        (
            ir.Call("", [ir.Var("a")], {"deps": ir.ListExpr([ir.Var("tid")])}, callee="k", submit=True),
            "pl.submit(self.k, a, deps=[tid])",
        ),
        (
            ir.Call(
                "",
                [ir.Var("a")],
                {"deps": ir.ListExpr([ir.Var("t0")])},
                callee="k_spmd",
                submit=True,
                attrs={"core_num": ir.Var("n"), "sync_start": True, "dump_vars": [ir.Var("a")]},
            ),
            'pl.spmd_submit(self.k_spmd, a, deps=[t0], core_num=n, sync_start=True, attrs={"dump_vars": [a]})',
        ),
        (ir.OpaqueExpr("lambda: 1"), "(lambda: 1)"),
    ],
)
def test_expressions(expr: ir.Expr, text: str) -> None:
    assert print_expr(expr) == text


def test_ssa_program_prints_loops_with_init_values_and_yield_bindings() -> None:
    b = FunctionBuilder()
    a, out, i, t = b.v("a"), b.v("out"), b.v("i", IDX), b.v("t", TILE)
    fn = function(
        "main",
        [a, (out, OUT)],
        [for_range(i, 4, [assign(t, load(a)), assign(out, store(t, out))]), ir.ReturnStmt([out])],
        return_types=[T64],
    )
    text = print_program(convert_to_ssa()(program(fn, name="Ex")))
    assert (
        text
        == dedent(
            """
        @pl.program
        class Ex:
            @pl.function
            def main(self, a__ssa_v0: pl.Tensor[[64], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                for i__idx_v0, (out__iter_v1,) in pl.range(4, init_values=(out__ssa_v0,)):
                    t__ssa_v0 = pl.tile.load(a__ssa_v0, [0], [64])
                    out__ssa_v3 = pl.tile.store(t__ssa_v0, [0], out__iter_v1)
                    out__rv_v2 = pl.yield_(out__ssa_v3)
                return out__rv_v2
        """
        )
        + "\n"
    )


def test_if_with_phis_prints_yield_bindings_in_both_arms() -> None:
    b = FunctionBuilder()
    c, x, y = b.v("c", BOOL), b.v("x", IDX), b.v("y", IDX)
    fn = function(
        "f",
        [c, x],
        [ir.IfStmt(c, [assign(x, const(1)), assign(y, x)], [assign(y, x)]), ir.ReturnStmt([x, y])],
    )
    text = print_function(convert_to_ssa()(program(fn)).functions[0])
    assert text == dedent(
        """
        @pl.function
        def f(self, c__ssa_v0: pl.Scalar[pl.BOOL], x__ssa_v0: pl.Scalar[pl.INDEX]):
            if c__ssa_v0:
                x__ssa_v1 = 1
                y__ssa_v0 = x__ssa_v1
                x__phi_v2, y__phi_v2 = pl.yield_(x__ssa_v1, y__ssa_v0)
            else:
                y__ssa_v1 = x__ssa_v0
                x__phi_v2, y__phi_v2 = pl.yield_(x__ssa_v0, y__ssa_v1)
            return x__phi_v2, y__phi_v2
        """
    )


def test_loop_forms_bounds_kinds_and_kwargs() -> None:
    i = ir.Var("i", IDX)
    body: list[ir.Stmt] = [ir.BreakStmt()]
    assert (
        print_stmt(ir.ForStmt(i, const(2), const(8), const(1), body)).splitlines()[0]
        == "for i in pl.range(2, 8):"
    )
    assert print_stmt(ir.ForStmt(i, const(0), const(8), const(2), body, ir.ForKind.Parallel)).splitlines()[
        0
    ] == ("for i in pl.parallel(0, 8, 2):")
    pipeline = ir.ForStmt(
        i, const(0), const(8), const(1), [], ir.ForKind.Pipeline, kwargs={"stage": const(2)}
    )
    assert print_stmt(pipeline) == "for i in pl.pipeline(8, stage=2):\n    pass"


def test_while_with_iter_args_prints_the_while_form_with_cond_first() -> None:
    k = ir.IterArg("k", IDX, init=ir.Var("k0", IDX))
    r = ir.Var("r", IDX)
    loop = ir.WhileStmt(ir.BinaryExpr("<", k, const(10)), [ir.YieldStmt([add(k, const(1))])], [k], [r])
    assert print_stmt(loop) == dedent(
        """
        for (k,) in pl.while_(init_values=(k0,)):
            pl.cond(k < 10)
            r = pl.yield_(k + 1)
        """
    )


def incore(body: list[ir.Stmt], **fields: object) -> ir.ScopeStmt:
    return ir.ScopeStmt(ir.ScopeKind.InCore, body, **fields)  # type: ignore[arg-type]


NOOP = ir.EvalStmt(ir.Call("tile.noop", []))


@pytest.mark.parametrize(
    ("scope", "header"),
    [
        (incore([NOOP]), "with pl.at(level=pl.Level.CORE_GROUP):"),
        (
            incore([NOOP], split=ir.SplitMode.UP_DOWN, slot_num=4, name_hint="k", windowize=True),
            'with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=4)], name_hint="k", windowize=True):',
        ),
        (
            incore(
                [NOOP],
                deps=[ir.Var("t0")],
                no_dep_args=[ir.Var("a")],
                dump_vars=[ir.Var("o")],
                allow_early_resolve=True,
                predicate=ir.BinaryExpr(">", ir.Var("n"), const(0)),
            ),
            "with pl.at(level=pl.Level.CORE_GROUP, deps=[t0], no_dep_args=[a], dumps=[o], allow_early_resolve=True, predicate=(n > 0)):",
        ),
        (
            ir.ScopeStmt(ir.ScopeKind.Hierarchy, [NOOP], level=ir.Level.CLUSTER_0, role=ir.Role.Orchestrator),
            "with pl.at(level=pl.Level.CLUSTER_0, role=pl.Role.Orchestrator):",
        ),
        (ir.ScopeStmt(ir.ScopeKind.Cluster, [NOOP], name_hint="c"), 'with pl.cluster(name_hint="c"):'),
        (ir.ScopeStmt(ir.ScopeKind.Graph, [NOOP], name_hint="band"), 'with pl.graph("band"):'),
        (
            ir.ScopeStmt(
                ir.ScopeKind.Spmd, [NOOP], core_num=ir.Var("n"), sync_start=True, name_hint="p_spmd"
            ),
            'with pl.spmd(n, sync_start=True, name_hint="p_spmd"):',
        ),
        (ir.ScopeStmt(ir.ScopeKind.Runtime, [NOOP]), "with pl.scope():"),
        (
            ir.ScopeStmt(ir.ScopeKind.Runtime, [NOOP], runtime_mode="MANUAL"),
            "with pl.scope(mode=pl.ScopeMode.MANUAL):",
        ),
    ],
)
def test_scope_headers(scope: ir.ScopeStmt, header: str) -> None:
    lines = print_stmt(scope).splitlines()
    assert lines == [header, "    pl.tile.noop()"]


def test_task_id_placeholder_is_printed_as_the_scope_alias() -> None:
    tid = ir.Var("tid", ir.TASK_ID)
    placeholder = ir.AssignStmt(tid, ir.Call("system.task_invalid", [], type=ir.TASK_ID))
    fn = function("f", [], [placeholder, incore([NOOP], task_id_var=tid), ir.ReturnStmt([])])
    assert print_function(fn).splitlines()[2:] == [
        "    with pl.at(level=pl.Level.CORE_GROUP) as tid:",
        "        pl.tile.noop()",
        "    return",
    ]


def test_cache_policies_print_as_statements_at_the_top_of_the_scope_body() -> None:
    w = ir.Var("w", T64)
    scope = incore([NOOP], cache_policies=[ir.CachePolicyDecl(w, ir.CachePolicy.BYPASS)])
    assert print_stmt(scope).splitlines()[1:] == [
        "    pl.set_cache_policy(w, pl.CachePolicy.BYPASS)",
        "    pl.tile.noop()",
    ]


def test_split_aiv_prints_its_loop_form_and_absorbs_the_subblock_binding() -> None:
    aiv = ir.Var("aiv_id", IDX)
    bind = ir.AssignStmt(aiv, ir.Call("tile.get_subblock_idx", [], type=IDX))
    scope = ir.ScopeStmt(ir.ScopeKind.SplitAiv, [bind, NOOP], split=ir.SplitMode.LEFT_RIGHT)
    assert (
        print_stmt(scope)
        == "for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):\n    pl.tile.noop()"
    )


def test_the_parsers_unnamed_incore_wrapper_around_split_aiv_is_left_to_the_parser() -> None:
    aiv = ir.Var("aiv", IDX)
    region = ir.ScopeStmt(
        ir.ScopeKind.SplitAiv,
        [ir.AssignStmt(aiv, ir.Call("tile.get_subblock_idx", [], type=IDX)), NOOP],
        split=ir.SplitMode.UP_DOWN,
    )
    assert (
        print_stmt(incore([region])).splitlines()[0]
        == "for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):"
    )
    written = incore([region], level=ir.Level.CORE_GROUP)
    assert print_stmt(written).splitlines()[0] == "with pl.at(level=pl.Level.CORE_GROUP):"


def test_a_predicate_reads_its_tensor_element_by_subscript() -> None:
    read = ir.Call("tensor.read", [ir.Var("t"), ir.ListExpr([ir.Var("i"), const(0)])])
    spmd = ir.ScopeStmt(
        ir.ScopeKind.Spmd, [NOOP], core_num=const(4), predicate=ir.BinaryExpr(">", read, const(0))
    )
    assert print_stmt(spmd).splitlines()[0] == "with pl.spmd(4, predicate=(t[i, 0] > 0)):"
    assert print_expr(read) == "pl.tensor.read(t, [i, 0])"


def test_function_decorator_attrs_and_tuple_returns() -> None:
    a = ir.Var("a", T64)
    fn = ir.Function(
        "k",
        [ir.Param(a, ir.Direction.InOut)],
        [ir.ReturnStmt([a, a])],
        [T64, T64],
        ir.FunctionType.InCore,
        attrs={"split": ir.SplitMode.UP_DOWN, "cache_policy": [(0, 1)], "split_aiv": True},
    )
    assert print_function(fn).splitlines()[:2] == [
        '@pl.function(type=pl.FunctionType.InCore, attrs={"split": pl.SplitMode.UP_DOWN, "cache_policy": [(0, 1)], "split_aiv": True})',
        "def k(self, a: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]]:",
    ]
    hier = ir.Function(
        "h", [], [], type=ir.FunctionType.Opaque, level=ir.Level.HOST, role=ir.Role.Orchestrator
    )
    assert (
        print_function(hier)
        == "@pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)\ndef h(self):\n    pass"
    )


def test_a_hand_placed_auto_scope_prints_auto_scope_false_on_its_function() -> None:
    auto = ir.ScopeStmt(ir.ScopeKind.Runtime, [NOOP], runtime_mode="AUTO")
    manual = ir.ScopeStmt(ir.ScopeKind.Runtime, [NOOP], runtime_mode="MANUAL")
    i = ir.Var("i", IDX)
    nested = function("f", [], [ir.ForStmt(i, const(0), const(2), const(1), [auto])])
    assert print_function(nested).splitlines()[0] == "@pl.function(auto_scope=False)"
    assert print_function(function("g", [], [manual])).splitlines()[0] == "@pl.function"


def test_ir_equality_ignores_spans_and_identity_but_not_names_or_structure() -> None:
    def build(name: str, line: int) -> ir.Program:
        b = FunctionBuilder()
        a, out, i, t = b.v("a"), b.v(name), b.v("i", IDX), b.v("t", TILE)
        loop = for_range(i, 4, [assign(t, load(a), line), assign(out, store(t, out), line)], line)
        return convert_to_ssa()(program(function("main", [a, (out, OUT)], [loop, ir.ReturnStmt([out])])))

    assert ir_equal(build("out", 1), build("out", 7))
    assert (
        ir_difference(build("out", 1), build("dst", 1))
        == "functions[0].params[1].var.name: 'out__ssa_v0' != 'dst__ssa_v0'"
    )
    changed = build("out", 1)
    changed.functions[0].body[0].iter_args[0].init = changed.functions[0].params[0].var
    assert ir_difference(build("out", 1), changed) == (
        "functions[0].body[0].iter_args[0].init.name: 'out__ssa_v0' != 'a__ssa_v0'"
    )


@pytest.mark.parametrize(
    "module",
    [
        "pypto_core.printer",
        "pypto_core.passes",
        "pypto_core.frontend",
        "pypto_core.analysis",
        "pypto_lsp.server",
    ],
)
def test_each_module_imports_first_in_a_fresh_interpreter(module: str) -> None:
    """The printer sits below the passes: importing it first used to run into the passes'
    import of the printer (an import cycle that only the order of imports hid)."""
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
