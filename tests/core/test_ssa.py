"""ConvertToSSA (dsl-reference §4.1) on hand-built pre-SSA IR: one test per rule."""

from __future__ import annotations

import pytest
from ir_builder import (
    BOOL,
    IDX,
    T64,
    TILE,
    FunctionBuilder,
    add,
    assign,
    call,
    const,
    for_range,
    function,
    load,
    program,
    span,
    store,
)

from pypto_core import ir
from pypto_core.passes.ssa import convert_to_ssa
from pypto_core.printer import print_program

OUT = ir.Direction.Out


def ssa(fn: ir.Function) -> ir.Function:
    result = convert_to_ssa()(program(fn)).functions[0]
    return result


def names(vs: list[ir.Var]) -> list[str]:
    return [v.name for v in vs]


def test_straight_line_versions_every_assignment_and_parameter() -> None:
    b = FunctionBuilder()
    x, y = b.v("x", IDX), b.v("y", IDX)
    fn = ssa(
        function(
            "f",
            [x],
            [assign(x, add(x, const(1))), assign(y, x), assign(x, add(y, x)), ir.ReturnStmt([x])],
        )
    )
    assert names([p.var for p in fn.params]) == ["x__ssa_v0"]
    first, copy_, second, ret = fn.body
    assert first.target.name == "x__ssa_v1" and first.value.left.name == "x__ssa_v0"
    assert copy_.target.name == "y__ssa_v0" and copy_.value.name == "x__ssa_v1"
    assert second.target.name == "x__ssa_v2"
    assert [second.value.left.name, second.value.right.name] == ["y__ssa_v0", "x__ssa_v1"]
    assert ret.values[0].name == "x__ssa_v2"


def test_versions_are_distinct_objects_and_uses_point_at_them() -> None:
    b = FunctionBuilder()
    x = b.v("x", IDX)
    fn = ssa(function("f", [x], [assign(x, add(x, const(1))), ir.ReturnStmt([x])]))
    assert fn.body[1].values[0] is fn.body[0].target
    assert fn.body[0].value.left is fn.params[0].var


def test_one_counter_per_variable_shared_by_ssa_iter_rv_and_idx() -> None:
    b = FunctionBuilder()
    acc, i = b.v("acc", IDX), b.v("i", IDX)
    body = [
        for_range(i, 4, [assign(acc, add(acc, i))]),
        for_range(i, 4, [assign(acc, add(acc, i))]),
        ir.ReturnStmt([acc]),
    ]
    first, second, ret = ssa(function("f", [acc], body)).body
    # acc: v0 param, loop 1 iter v1 / rv v2 / body v3, loop 2 iter v4 / rv v5 / body v6
    assert names(first.iter_args) == ["acc__iter_v1"] and names(first.return_vars) == ["acc__rv_v2"]
    assert first.body[0].target.name == "acc__ssa_v3"
    assert names(second.iter_args) == ["acc__iter_v4"] and second.iter_args[0].init is first.return_vars[0]
    assert names(second.return_vars) == ["acc__rv_v5"] and second.body[0].target.name == "acc__ssa_v6"
    assert (first.loop_var.name, second.loop_var.name) == ("i__idx_v0", "i__idx_v1")
    assert ret.values[0] is second.return_vars[0]


def test_phi_counter_continues_the_variable_counter() -> None:
    b = FunctionBuilder()
    c, x = b.v("c", BOOL), b.v("x", IDX)
    body = [assign(x, const(1)), ir.IfStmt(c, [assign(x, const(2))], span=span(5)), ir.ReturnStmt([x])]
    fn = ssa(function("f", [c], body))
    if_ = fn.body[1]
    assert names(if_.return_vars) == ["x__phi_v2"]  # x__ssa_v0 before, x__ssa_v1 in the arm
    assert if_.return_vars[0].span == span(5)
    assert fn.body[2].values[0] is if_.return_vars[0]


def test_if_without_else_gets_a_synthesised_else_yielding_the_pre_if_value() -> None:
    b = FunctionBuilder()
    c, x = b.v("c", BOOL), b.v("x")
    fn = ssa(function("f", [c, x], [ir.IfStmt(c, [assign(x, add(x, x))]), ir.ReturnStmt([x])]))
    if_ = fn.body[0]
    then_yield = if_.then_body[-1]
    assert isinstance(then_yield, ir.YieldStmt) and then_yield.values[0] is if_.then_body[0].target
    assert len(if_.else_body) == 1 and isinstance(if_.else_body[0], ir.YieldStmt)
    assert if_.else_body[0].values[0] is fn.params[1].var


def test_phis_are_sorted_by_name_and_yields_follow_that_order() -> None:
    b = FunctionBuilder()
    c, zeta, alpha = b.v("c", BOOL), b.v("zeta", IDX), b.v("alpha", IDX)
    body = [
        ir.IfStmt(c, [assign(zeta, const(1)), assign(alpha, const(2))], [assign(alpha, const(3))]),
        ir.ReturnStmt([alpha, zeta]),
    ]
    if_ = ssa(function("f", [c, zeta, alpha], body)).body[0]
    assert names(if_.return_vars) == ["alpha__phi_v3", "zeta__phi_v2"]
    assert names(if_.then_body[-1].values) == ["alpha__ssa_v1", "zeta__ssa_v1"]
    assert names(if_.else_body[-1].values) == ["alpha__ssa_v2", "zeta__ssa_v0"]


def test_phis_of_two_variables_of_one_name_keep_the_order_they_were_first_bound_in() -> None:
    """The sort by name is stable over the variable map's order (the front end makes a second
    variable of a name for a `pl.spmd` target or an `as tid`): the one bound first before the
    `if` comes first, whichever branch rebinds it first."""
    b = FunctionBuilder()
    c = b.v("c", BOOL)
    first, second = ir.Var("t", IDX, span(1)), ir.Var("t", IDX, span(2))
    body = [
        assign(first, const(1)),
        assign(second, const(2)),
        ir.IfStmt(c, [assign(second, const(3))], [assign(first, const(4))]),
        ir.ReturnStmt([first, second]),
    ]
    if_ = ssa(function("f", [c], body)).body[2]
    assert names(if_.return_vars) == ["t__phi_v2", "t__phi_v2"]  # one counter per variable
    assert names(if_.then_body[-1].values) == ["t__ssa_v0", "t__ssa_v1"]  # first's, then second's
    assert names(if_.else_body[-1].values) == ["t__ssa_v1", "t__ssa_v0"]


def test_variable_assigned_in_one_arm_only_is_not_visible_after_the_if() -> None:
    b = FunctionBuilder()
    c, only, both = b.v("c", BOOL), b.v("only", IDX), b.v("both", IDX)
    body = [
        ir.IfStmt(c, [assign(only, const(1)), assign(both, const(1))], [assign(both, const(2))]),
        ir.ReturnStmt([both, only]),
    ]
    fn = ssa(function("f", [c], body))
    assert names(fn.body[0].return_vars) == ["both__phi_v2"]
    ret = fn.body[1]
    assert ret.values[0] is fn.body[0].return_vars[0]
    assert ret.values[1] is only  # unresolved: the pre-SSA variable, no version in scope


def test_if_that_changes_nothing_outside_gets_no_return_vars() -> None:
    b = FunctionBuilder()
    c, tmp = b.v("c", BOOL), b.v("tmp", IDX)
    if_ = ssa(function("f", [c], [ir.IfStmt(c, [assign(tmp, const(1))])])).body[0]
    assert if_.return_vars == [] and if_.else_body is None
    assert not isinstance(if_.then_body[-1], ir.YieldStmt)


def test_explicit_if_yield_return_vars_are_versioned_as_rv() -> None:
    b = FunctionBuilder()
    c, x, r = b.v("c", BOOL), b.v("x", IDX), b.v("r", IDX)
    if_stmt = ir.IfStmt(c, [ir.YieldStmt([x])], [ir.YieldStmt([const(0)])], return_vars=[r])
    fn = ssa(function("f", [c, x], [if_stmt, ir.ReturnStmt([r])]))
    assert names(fn.body[0].return_vars) == ["r__rv_v0"]
    assert fn.body[1].values[0] is fn.body[0].return_vars[0]
    assert fn.body[0].then_body[0].values[0] is fn.params[1].var


def test_loop_carries_are_sorted_by_name_with_matching_yield_and_return_vars() -> None:
    b = FunctionBuilder()
    i, zeta, alpha = b.v("i", IDX), b.v("zeta", IDX), b.v("alpha", IDX)
    loop = for_range(i, 4, [assign(zeta, add(zeta, i)), assign(alpha, add(alpha, zeta))], line=7)
    fn = ssa(function("f", [zeta, alpha], [loop, ir.ReturnStmt([alpha, zeta])]))
    loop = fn.body[0]
    assert names(loop.iter_args) == ["alpha__iter_v1", "zeta__iter_v1"]
    assert [ia.init for ia in loop.iter_args] == [fn.params[1].var, fn.params[0].var]
    assert names(loop.return_vars) == ["alpha__rv_v2", "zeta__rv_v2"]
    assert names(loop.body[-1].values) == ["alpha__ssa_v3", "zeta__ssa_v3"]
    assert all(ia.span == span(7) for ia in loop.iter_args)
    # inside the body, reads before the reassignment see the iter_arg
    assert loop.body[0].value.left is loop.iter_args[1]
    assert fn.body[1].values == loop.return_vars


def test_loop_local_variable_is_neither_carried_nor_visible_after() -> None:
    b = FunctionBuilder()
    i, t, a = b.v("i", IDX), b.v("t", TILE), b.v("a")
    loop = ssa(function("f", [a], [for_range(i, 4, [assign(t, load(a))]), ir.ReturnStmt([a])])).body[0]
    assert loop.iter_args == [] and loop.return_vars == []
    assert not any(isinstance(s, ir.YieldStmt) for s in loop.body)


def test_store_rebinding_in_a_loop_is_carried_and_bare_store_is_not() -> None:
    b = FunctionBuilder()
    i, t, a, out = b.v("i", IDX), b.v("t", TILE), b.v("a"), b.v("out")
    rebinding = ssa(
        function(
            "f",
            [a, (out, OUT)],
            [for_range(i, 4, [assign(t, load(a)), assign(out, store(t, out))]), ir.ReturnStmt([out])],
        )
    )
    loop = rebinding.body[0]
    assert names(loop.iter_args) == ["out__iter_v1"] and loop.iter_args[0].init is rebinding.params[1].var
    assert loop.body[1].value.args[2] is loop.iter_args[0]  # the store's destination is the iter_arg
    assert rebinding.body[1].values[0] is loop.return_vars[0]

    b = FunctionBuilder()
    i, t, a, out = b.v("i", IDX), b.v("t", TILE), b.v("a"), b.v("out")
    bare = ssa(
        function(
            "f",
            [a, (out, OUT)],
            [for_range(i, 4, [assign(t, load(a)), ir.EvalStmt(store(t, out))]), ir.ReturnStmt([out])],
        )
    )
    loop = bare.body[0]
    assert loop.iter_args == [] and loop.return_vars == []
    assert loop.body[1].expr.args[2] is bare.params[1].var
    assert bare.body[1].values[0] is bare.params[1].var


def test_escaping_variable_is_promoted_with_a_matching_out_parameter_as_init() -> None:
    b = FunctionBuilder()
    i, t, a, c, res = b.v("i", IDX), b.v("t", TILE), b.v("a"), b.v("c"), b.v("res")
    body = [for_range(i, 4, [assign(t, load(a)), assign(res, store(t, c))]), ir.ReturnStmt([res])]
    fn = ssa(function("f", [a, (c, OUT)], body, return_types=[T64]))
    loop = fn.body[0]
    assert names(loop.iter_args) == ["res__iter_v0"]
    assert loop.iter_args[0].init is fn.params[1].var  # `c`, the Out param, not the In `a`
    assert names(loop.return_vars) == ["res__rv_v1"]
    assert loop.body[1].target.name == "res__ssa_v2"
    assert loop.body[-1].values == [loop.body[1].target]
    assert fn.body[1].values[0] is loop.return_vars[0]


def test_escaping_init_falls_back_to_the_earliest_pre_loop_variable_of_that_type() -> None:
    b = FunctionBuilder()
    i, n, m, s = b.v("i", IDX), b.v("n", IDX), b.v("m", IDX), b.v("s", IDX)
    body = [for_range(i, 4, [assign(s, add(i, n))]), ir.ReturnStmt([s])]
    loop = ssa(function("f", [n, m], body)).body[0]
    assert names(loop.iter_args) == ["s__iter_v0"] and loop.iter_args[0].init.name == "n__ssa_v0"


def test_escaping_without_any_matching_value_uses_an_unversioned_placeholder() -> None:
    b = FunctionBuilder()
    i, s = b.v("i", IDX), b.v("s", TILE)
    body = [for_range(i, 4, [assign(s, call("tile.full", const(0), type_=TILE))]), ir.ReturnStmt([s])]
    loop = ssa(function("f", [], body)).body[0]
    assert loop.iter_args[0].init.name == "s"


def test_variable_defined_in_the_loop_but_not_needed_after_is_not_promoted() -> None:
    b = FunctionBuilder()
    i, t, a, c, res = b.v("i", IDX), b.v("t", TILE), b.v("a"), b.v("c"), b.v("res")
    body = [for_range(i, 4, [assign(t, load(a)), assign(res, store(t, c))]), ir.ReturnStmt([c])]
    loop = ssa(function("f", [a, (c, OUT)], body)).body[0]
    assert loop.iter_args == []


def test_escaping_is_order_aware_a_later_redefinition_before_use_does_not_count() -> None:
    b = FunctionBuilder()
    i, t, a, c, res = b.v("i", IDX), b.v("t", TILE), b.v("a"), b.v("c"), b.v("res")
    body = [
        for_range(i, 4, [assign(t, load(a)), assign(res, store(t, c))]),
        assign(res, a),
        ir.ReturnStmt([res]),
    ]
    loop = ssa(function("f", [a, (c, OUT)], body)).body[0]
    assert loop.iter_args == []


def test_escaping_variable_reassigned_in_one_if_arm_gets_a_phi_inside_the_loop() -> None:
    b = FunctionBuilder()
    i, t, a, c, res, flag = b.v("i", IDX), b.v("t", TILE), b.v("a"), b.v("c"), b.v("res"), b.v("flag", BOOL)
    inner_if = ir.IfStmt(flag, [assign(t, load(a)), assign(res, store(t, c))])
    body = [for_range(i, 4, [inner_if]), ir.ReturnStmt([res])]
    fn = ssa(function("f", [a, (c, OUT), flag], body))
    loop = fn.body[0]
    assert names(loop.iter_args) == ["res__iter_v0"]
    if_ = loop.body[0]
    assert names(if_.return_vars) == ["res__phi_v3"]
    assert if_.else_body[0].values == [loop.iter_args[0]]
    assert loop.body[-1].values == [if_.return_vars[0]]


def test_nested_loops_carry_an_outer_variable_through_both_levels() -> None:
    b = FunctionBuilder()
    i, j, acc = b.v("i", IDX), b.v("j", IDX), b.v("acc", IDX)
    body = [for_range(i, 2, [for_range(j, 2, [assign(acc, add(acc, j))])]), ir.ReturnStmt([acc])]
    outer = ssa(function("f", [acc], body)).body[0]
    inner = outer.body[0]
    assert names(outer.iter_args) == ["acc__iter_v1"] and names(inner.iter_args) == ["acc__iter_v3"]
    assert inner.iter_args[0].init is outer.iter_args[0]
    assert outer.body[-1].values == [inner.return_vars[0]]


def test_explicit_init_values_loop_keeps_its_iter_arg_and_return_var_names() -> None:
    b = FunctionBuilder()
    i, x, n = b.v("i", IDX), b.v("x", IDX), b.v("n", IDX)
    acc = ir.IterArg("acc", IDX, span(3), x)
    r = ir.Var("r", IDX, span(4))
    loop = for_range(
        i, 4, [assign(n, add(acc, i)), ir.YieldStmt([n], span(4))], line=3, iter_args=[acc], return_vars=[r]
    )
    fn = ssa(function("f", [x], [loop, ir.ReturnStmt([r])]))
    loop = fn.body[0]
    assert names(loop.iter_args) == ["acc"] and loop.iter_args[0].init is fn.params[0].var
    assert names(loop.return_vars) == ["r"]
    assert loop.body[0].value.left is loop.iter_args[0]
    assert loop.body[-1].values == [loop.body[0].target] and loop.body[-1].span == span(4)
    assert fn.body[1].values[0] is loop.return_vars[0]


def test_explicit_loop_also_carrying_a_rebound_variable_appends_the_carry() -> None:
    b = FunctionBuilder()
    i, x, s = b.v("i", IDX), b.v("x", IDX), b.v("s", IDX)
    acc = ir.IterArg("acc", IDX, span(3), x)
    r = ir.Var("r", IDX)
    body = [assign(s, add(s, i)), ir.YieldStmt([acc])]
    loop = for_range(i, 4, body, iter_args=[acc], return_vars=[r])
    loop = ssa(function("f", [x, s], [loop, ir.ReturnStmt([r, s])])).body[0]
    assert names(loop.iter_args) == ["acc", "s__iter_v1"]
    assert names(loop.return_vars) == ["r", "s__rv_v2"]
    assert names(loop.body[-1].values) == ["acc", "s__ssa_v3"]
    assert sum(isinstance(st, ir.YieldStmt) for st in loop.body) == 1


def test_while_loop_carries_like_a_for_loop_and_reads_the_iter_arg_in_its_condition() -> None:
    b = FunctionBuilder()
    k = b.v("k", IDX)
    cond = ir.BinaryExpr("<", k, const(10), BOOL)
    loop = ir.WhileStmt(cond, [assign(k, add(k, const(1)))])
    loop = ssa(function("f", [k], [loop, ir.ReturnStmt([k])])).body[0]
    assert names(loop.iter_args) == ["k__iter_v1"] and loop.cond.left is loop.iter_args[0]
    assert names(loop.return_vars) == ["k__rv_v2"] and names(loop.body[-1].values) == ["k__ssa_v3"]


def at(body: list[ir.Stmt], kind: ir.ScopeKind = ir.ScopeKind.InCore, **fields: object) -> ir.ScopeStmt:
    return ir.ScopeStmt(kind, body, span=span(20), **fields)  # type: ignore[arg-type]


def test_scope_is_transparent_its_definitions_are_visible_after_it() -> None:
    b = FunctionBuilder()
    a, y = b.v("a"), b.v("y")
    fn = ssa(function("f", [a], [at([assign(y, add(a, a))]), ir.ReturnStmt([y])]))
    assert fn.body[0].body[0].target.name == "y__ssa_v0"
    assert fn.body[1].values[0] is fn.body[0].body[0].target


@pytest.mark.parametrize(
    ("kind", "promoted"),
    [
        (ir.ScopeKind.InCore, False),
        (ir.ScopeKind.Hierarchy, False),
        (ir.ScopeKind.Cluster, False),
        (ir.ScopeKind.Spmd, False),
        (ir.ScopeKind.Runtime, True),
        (ir.ScopeKind.SplitAiv, True),
    ],
)
def test_needed_later_is_trimmed_at_every_scope_but_runtime_and_split_aiv(
    kind: ir.ScopeKind, promoted: bool
) -> None:
    b = FunctionBuilder()
    a, c, i, t, res = b.v("a"), b.v("c"), b.v("i", IDX), b.v("t", TILE), b.v("res")
    loop = for_range(i, 4, [assign(t, load(a)), assign(res, store(t, c))])
    scope = at([loop], kind)  # a one-statement body inherits "needed later" from the scope
    fn = ssa(function("f", [a, (c, OUT)], [scope, ir.ReturnStmt([res])]))
    inner = fn.body[0].body[0]
    assert bool(inner.iter_args) is promoted
    if promoted:
        assert fn.body[1].values[0] is inner.return_vars[0]


def test_a_loop_inside_a_longer_scope_body_only_sees_needs_of_that_body() -> None:
    b = FunctionBuilder()
    a, c, i, t, res = b.v("a"), b.v("c"), b.v("i", IDX), b.v("t", TILE), b.v("res")
    loop = for_range(i, 4, [assign(t, load(a)), assign(res, store(t, c))])
    scope = at([loop, ir.EvalStmt(call("tile.noop"))], ir.ScopeKind.Runtime)
    fn = ssa(function("f", [a, (c, OUT)], [scope, ir.ReturnStmt([res])]))
    assert fn.body[0].body[0].iter_args == []


def test_trimming_keeps_variables_that_existed_at_scope_entry() -> None:
    b = FunctionBuilder()
    a, c, i, t, res = b.v("a"), b.v("c"), b.v("i", IDX), b.v("t", TILE), b.v("res")
    body = [
        assign(res, a),
        at([for_range(i, 4, [assign(t, load(a)), assign(res, store(t, c))]), ir.EvalStmt(call("tile.noop"))]),
        ir.ReturnStmt([res]),
    ]
    fn = ssa(function("f", [a, (c, OUT)], body))
    inner = fn.body[1].body[0]
    assert names(inner.iter_args) == ["res__iter_v1"]  # carried (existed before), not escaping
    assert fn.body[2].values[0] is inner.return_vars[0]


def test_scope_attrs_are_renamed_with_the_versions_live_at_scope_entry() -> None:
    b = FunctionBuilder()
    a, out, t, tid, n, flag = (
        b.v("a"),
        b.v("out"),
        b.v("t", TILE),
        b.v("tid", ir.TASK_ID),
        b.v("n", IDX),
        b.v("p", BOOL),
    )
    placeholder = assign(tid, call("system.task_invalid", type_=ir.TASK_ID))
    scope = at(
        [assign(t, load(a)), assign(out, store(t, out)), assign(n, add(n, const(1))), assign(flag, flag)],
        ir.ScopeKind.InCore,
        deps=[tid],
        no_dep_args=[a],
        dump_vars=[out],
        task_id_var=tid,
        predicate=flag,
        cache_policies=[ir.CachePolicyDecl(a, ir.CachePolicy.BYPASS)],
    )
    spmd = ir.ScopeStmt(ir.ScopeKind.Spmd, [scope], core_num=n)
    fn = ssa(function("f", [a, (out, OUT), n, flag], [placeholder, spmd, ir.ReturnStmt([out])]))
    spmd = fn.body[1]
    scope = spmd.body[0]
    a0, out0, n0, p0 = (p.var for p in fn.params)
    assert spmd.core_num is n0
    assert scope.deps == [fn.body[0].target] and scope.task_id_var is fn.body[0].target
    assert scope.no_dep_args == [a0] and scope.dump_vars == [out0] and scope.predicate is p0
    assert scope.cache_policies[0].var is a0 and scope.cache_policies[0].policy is ir.CachePolicy.BYPASS
    assert scope.body[1].target.name == "out__ssa_v1"


def test_call_kwargs_and_attrs_are_renamed() -> None:
    b = FunctionBuilder()
    a, out, n = b.v("a"), b.v("out"), b.v("n", IDX)
    kernel = ir.Call(
        "", [a, out], {"deps": ir.ListExpr([n])}, T64, callee="k", attrs={"core_num": n, "dump_vars": [a]}
    )
    fn = ssa(function("f", [a, (out, OUT), n], [assign(out, kernel), ir.ReturnStmt([out])]))
    a0, _, n0 = (p.var for p in fn.params)
    value = fn.body[0].value
    assert value.kwargs["deps"].items == [n0]
    assert value.attrs == {"core_num": n0, "dump_vars": [a0]}


def test_function_attrs_naming_parameters_are_renamed() -> None:
    b = FunctionBuilder()
    a = b.v("a")
    fn = ssa(function("f", [a], [ir.ReturnStmt([a])], attrs={"marker": a, "split": ir.SplitMode.UP_DOWN}))
    assert fn.attrs == {"marker": fn.params[0].var, "split": ir.SplitMode.UP_DOWN}


def test_spans_of_rebuilt_nodes_come_from_their_sources() -> None:
    b = FunctionBuilder()
    x, i = b.v("x", IDX), b.v("i", IDX)
    loop = for_range(i, 4, [assign(x, add(x, i), line=11)], line=10)
    fn = ssa(function("f", [x], [loop, ir.ReturnStmt([x], span(12))]))
    loop = fn.body[0]
    assert loop.span == span(10) and loop.body[0].span == span(11) and fn.body[1].span == span(12)
    assert loop.loop_var.span == i.span and fn.params[0].var.span == x.span
    assert loop.return_vars[0].span == span(10) and loop.body[-1].span == span(10)


def test_the_input_program_is_not_modified() -> None:
    b = FunctionBuilder()
    c, x, i = b.v("c", BOOL), b.v("x", IDX), b.v("i", IDX)
    body = [for_range(i, 4, [ir.IfStmt(c, [assign(x, add(x, i))])]), ir.ReturnStmt([x])]
    source = program(function("f", [c, x], body))
    before = print_program(source)
    result = convert_to_ssa()(source)
    assert print_program(source) == before
    assert result is not source and result.functions[0] is not source.functions[0]


def test_auto_named_source_variables_are_rebased_not_stacked() -> None:
    b = FunctionBuilder()
    x = b.v("x__tmp_v3", IDX)
    fn = ssa(function("f", [x], [assign(x, add(x, const(1))), ir.ReturnStmt([x])]))
    assert fn.params[0].var.name == "x__ssa_v0" and fn.body[0].target.name == "x__ssa_v1"


def test_host_subworker_functions_are_left_alone() -> None:
    b = FunctionBuilder()
    x = b.v("x", IDX)
    fn = function("w", [x], [ir.ReturnStmt([x])], level=ir.Level.HOST, role=ir.Role.SubWorker)
    assert ssa(fn).params[0].var.name == "x"
