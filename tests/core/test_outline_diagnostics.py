"""The shared outliner's remaining user errors (PTO305-PTO307, PTO403/404/408) with their ranges,
and decisions D9 and D13. Codes the front end pre-empts for DSL source are checked on hand-built
IR run through the pass objects, as the compiler's own backstops would see it."""

from __future__ import annotations

from outline_cases import T64, clean, run

from pypto_core import ir
from pypto_core.passes import PassContext, outline_hierarchy_scopes, outline_incore_scopes
from pypto_core.span import Span

TENSOR = ir.TensorType((64,), "FP32")
TILE = ir.TileType((64,), "FP32")
HEADER = Span(4, 13, 4, 50)
_SIGNAL = "signal: pld.DistributedTensor[[1, 1], pl.INT32]"
_WAIT = "pld.system.defer_wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)"


def _incore(body: list[ir.Stmt], params: list[ir.Var], **scope: object) -> ir.Program:
    fields: dict[str, object] = {"header_span": HEADER, **scope}
    region = ir.ScopeStmt(ir.ScopeKind.InCore, body, **fields)  # type: ignore[arg-type]
    return ir.Program("P", [ir.Function("main", [ir.Param(p) for p in params], [region])])


def test_function_split_with_split_aiv_regions_is_pto305_for_ir_the_parser_did_not_check() -> None:
    a = ir.Var("a", TENSOR)
    region = ir.ScopeStmt(
        ir.ScopeKind.SplitAiv, [ir.EvalStmt(ir.Call("tile.load", [a]))], split=ir.SplitMode.NONE
    )
    ctx = PassContext()
    outline_incore_scopes(ctx)(_incore([region], [a], split=ir.SplitMode.UP_DOWN))
    [d] = ctx.diagnostics
    assert (d.code, d.span) == ("PTO305", HEADER)
    assert "UP_DOWN" in d.message and d.hint is not None and "cross_core_slot" in d.hint
    assert [r.name for r in ctx.outlined] == ["main_incore_0"]


def test_deferred_waiter_outside_an_incore_scope_is_pto306a() -> None:
    signal = ir.Var("signal", TENSOR)
    wait_span = Span(5, 8, 5, 60)
    wait = ir.EvalStmt(ir.Call("pld.system.defer_wait", [signal], span=wait_span))
    region = ir.ScopeStmt(ir.ScopeKind.Hierarchy, [wait], level=ir.Level.HOST, header_span=HEADER)
    ctx = PassContext()
    outline_hierarchy_scopes(ctx)(ir.Program("P", [ir.Function("main", [ir.Param(signal)], [region])]))
    assert [(d.code, d.span) for d in ctx.diagnostics] == [("PTO306a", wait_span)]


def test_deferred_waiter_nested_in_a_launch_scope_is_pto306b_at_the_wait() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, {_SIGNAL}):
            with pl.spmd(1, allow_early_resolve=True):
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="nested_waiter"):
                    {{|wait:{_WAIT}|}}
        """)
    d = r.only("PTO306b")
    assert d.span == r.range("wait") and "nested_waiter" in d.message


def test_deferred_waiter_with_a_predicate_is_pto306c_at_the_wait() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, {_SIGNAL}, gate: pl.Tensor[[1], pl.INT32]):
            with pl.at(level=pl.Level.CORE_GROUP, predicate=(gate[0] > 0)):
                {{|wait:{_WAIT}|}}
        """)
    d = r.only("PTO306c")
    assert d.span == r.range("wait") and "predicate" in d.message


def test_deferred_waiter_with_early_resolve_is_pto306d_at_the_wait() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, {_SIGNAL}):
            with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=True) as tid:
                {{|wait:{_WAIT}|}}
        """)
    assert r.only("PTO306d").span == r.range("wait")


def test_capture_rebound_without_a_store_is_an_internal_pto307() -> None:
    a = ir.Var("a", TENSOR)
    rebind_span = Span(6, 8, 6, 30)
    body: list[ir.Stmt] = [ir.AssignStmt(a, ir.Call("tensor.add", [a, a], type=TENSOR), rebind_span)]
    ctx = PassContext()
    outline_incore_scopes(ctx)(_incore(body, [a]))
    [d] = ctx.diagnostics
    assert (d.code, d.span) == ("PTO307", rebind_span)
    assert "'a'" in d.message and "ConvertToSSA" in (d.hint or "")


def test_store_rebinding_its_own_destination_is_the_one_pre_ssa_shape_allowed() -> None:
    a, c, t = ir.Var("a", TENSOR), ir.Var("c", TENSOR), ir.Var("t", TILE)
    body: list[ir.Stmt] = [
        ir.AssignStmt(t, ir.Call("tile.load", [a], type=TILE)),
        ir.AssignStmt(c, ir.Call("tile.store", [t, ir.ListExpr([]), c], type=TENSOR)),
    ]
    ctx = PassContext()
    result = outline_incore_scopes(ctx)(_incore(body, [a, c]))
    assert ctx.diagnostics == []
    [k] = ctx.outlined
    assert [(p.name, p.direction.value) for p in k.params] == [("a", "In"), ("c", "Out")]
    kernel = result.get("main_incore_0")
    assert kernel is not None and kernel.body[1].target.name == "c__store"  # type: ignore[union-attr]


def test_predicated_incore_scope_left_in_a_device_function_is_pto403() -> None:
    a = ir.Var("a", TENSOR)
    region = ir.ScopeStmt(ir.ScopeKind.InCore, [], header_span=HEADER, predicate=ir.Const(True))
    program = ir.Program("P", [ir.Function("k", [ir.Param(a)], [region], type=ir.FunctionType.AIV)])
    ctx = PassContext()
    outline_incore_scopes(ctx)(program)
    assert [(d.code, d.span) for d in ctx.diagnostics] == [("PTO403", HEADER)]


INNER_HEADER = Span(5, 17, 5, 60)


def _predicated_inner(a: ir.Var) -> ir.ScopeStmt:
    """A predicated InCore scope: inside another one, its dispatch ends up in device code."""
    t = ir.Var("t", TILE)
    return ir.ScopeStmt(
        ir.ScopeKind.InCore,
        [ir.AssignStmt(t, ir.Call("tile.load", [a], type=TILE))],
        header_span=INNER_HEADER,
        predicate=ir.Const(True),
    )


def test_predicated_dispatch_ending_up_in_device_code_is_pto404() -> None:
    a = ir.Var("a", TENSOR)
    ctx = PassContext()
    outline_incore_scopes(ctx)(_incore([_predicated_inner(a)], [a]))
    assert [(d.code, d.span) for d in ctx.diagnostics] == [("PTO404", INNER_HEADER)]


def test_left_predicates_are_found_again_on_every_run_and_not_on_a_new_function() -> None:
    """PTO403/404 are kept with each function for the next run (`outline_incore._LEFT`): a
    run over the same functions reports them again, and a function made anew without the
    predicate reports nothing."""
    a = ir.Var("a", TENSOR)
    region = ir.ScopeStmt(ir.ScopeKind.InCore, [], header_span=HEADER, predicate=ir.Const(True))
    device = ir.Function("k", [ir.Param(a)], [region], type=ir.FunctionType.AIV)
    [main] = _incore([_predicated_inner(a)], [a]).functions
    for _ in range(2):
        ctx = PassContext()
        outline_incore_scopes(ctx)(ir.Program("P", [device, main]))
        assert sorted((d.code, d.span) for d in ctx.diagnostics) == [
            ("PTO403", HEADER),
            ("PTO404", INNER_HEADER),
        ]
    unpredicated = ir.ScopeStmt(ir.ScopeKind.InCore, [], header_span=HEADER)
    ctx = PassContext()
    outline_incore_scopes(ctx)(
        ir.Program("P", [ir.Function("k", [ir.Param(a)], [unpredicated], type=ir.FunctionType.AIV), main])
    )
    assert [(d.code, d.span) for d in ctx.diagnostics] == [("PTO404", INNER_HEADER)]


def test_hierarchy_scope_with_a_predicate_is_an_internal_pto408() -> None:
    a = ir.Var("a", TENSOR)
    region = ir.ScopeStmt(
        ir.ScopeKind.Hierarchy, [], level=ir.Level.HOST, header_span=HEADER, predicate=ir.Const(True)
    )
    ctx = PassContext()
    outline_hierarchy_scopes(ctx)(ir.Program("P", [ir.Function("main", [ir.Param(a)], [region])]))
    assert [(d.code, d.span) for d in ctx.diagnostics] == [("PTO408", HEADER)]


def test_scalar_hoist_applies_to_hierarchy_scopes_too() -> None:
    """D9: the hoist lives in the shared outliner."""
    r = clean(f"""
        @pl.function
        def main(self, x: {T64}, base: pl.Scalar[pl.INDEX]) -> {T64}:
            with pl.at(level=pl.Level.HOST):
                off = base + 1
                y = pl.add(x, x)
            z = pl.tensor.slice(y, [16], [off])
            return z
        """)
    assert r.params("main_host_0") == [("x", "In")]
    assert r.returns("main_host_0") == ("y",)


def test_device_scalar_in_a_hierarchy_scope_is_pto301_as_well() -> None:
    r = run(f"""
        @pl.function
        def main(self, cfg: pl.Tensor[[1], pl.INT32], x: {T64}) -> {T64}:
            with pl.at(level=pl.Level.HOST):
                {{|n:n = pl.read(cfg, [0])|}}
            y = pl.tensor.slice(x, [16], [n])
            return y
        """)
    d = r.only("PTO301")
    assert d.span == r.range("n") and "main_host_0" in d.message


def test_unknown_op_reads_every_argument_and_raises_nothing() -> None:
    """D13: an op the registry does not know is a plain read of each argument."""
    r = clean(f"""
        @pl.function
        def main(self, a: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.tile.some_future_op(out, a)
            return out
        """)
    assert r.params("main_incore_0") == [("out", "In"), ("a", "In")]


def test_tensor_read_after_a_registration_is_pto306e_at_the_offending_statement() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, {_SIGNAL}, expected: pl.Tensor[[1], pl.INT32], rank: pl.Scalar[pl.INT32]):
            with pl.at(level=pl.Level.CORE_GROUP):
                {_WAIT}
                {{|late:if rank >= 0:
                    nxt = pl.read(expected, [0])|}}
        """)
    d = r.only("PTO306e")
    assert d.span.start_line == r.range("late").start_line
    assert "after pld.system.defer_wait registration begins" in d.message


def test_more_than_64_registrations_is_pto306e_at_the_scope_header() -> None:
    r = run("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, signal: pld.DistributedTensor[[65, 1], pl.INT32]):
            with {|hdr:pl.at(level=pl.Level.CORE_GROUP)|}:
                for src in pl.range(65):
                    pld.system.defer_wait(signal, offsets=[src, 0], expected=1, cmp=pld.WaitCmp.Ge)
        """)
    d = r.only("PTO306e")
    assert d.span == r.range("hdr") and "65" in d.message


def test_a_registration_only_waiter_with_scalar_bookkeeping_is_accepted() -> None:
    r = clean("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, signal: pld.DistributedTensor[[64, 1], pl.INT32], epoch: pl.Scalar[pl.INT32]):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="waiter"):
                for src in pl.range(64):
                    wanted = epoch * 4
                    pld.system.defer_wait(signal, offsets=[src, 0], expected=wanted, cmp=pld.WaitCmp.Ge)
        """)
    assert r.function("waiter").attrs.get("deferred_completion_waiter") is True


def test_a_value_first_defined_in_a_loop_and_read_after_it_is_pto511_at_its_definition() -> None:
    # ConvertToSSA finds no stand-in value before the loop (a fresh op result has a type of
    # its own), so the compiler's SSA verification rejects the placeholder it puts there
    r = run(f"""
        @pl.function
        def main(self, n: pl.Scalar[pl.INT64], x: {T64}) -> {T64}:
            for i in pl.range(n):
                {{|y:y = pl.add(x, 1.0)|}}
            return y
        """)
    d = r.only("PTO511")
    assert d.span == r.range("y") and "Variable 'y' used outside its defining scope" in d.message
    assert d.hint is not None and "before the loop" in d.hint


def test_a_loop_value_copied_from_a_variable_has_a_stand_in_and_is_accepted() -> None:
    # `y = x` gives `y` the very type of `x`, which the compiler's converter takes as the value
    # before the loop
    r = run(f"""
        @pl.function
        def main(self, n: pl.Scalar[pl.INT64], x: {T64}) -> {T64}:
            for i in pl.range(n):
                y = x
            return y
        """)
    assert "PTO511" not in r.codes


def test_a_loop_result_named_like_a_body_value_is_the_loop_result_not_an_escaping_value() -> None:
    # `y = pl.yield_(y)` binds a new variable, the loop's result: the body's own `y` is never
    # read after the loop, so no stand-in for it is needed
    r = run(f"""
        @pl.function
        def main(self, x: {T64}) -> {T64}:
            for i, (acc,) in pl.range(4, init_values=(x,)):
                y = pl.add(acc, 1.0)
                y = pl.yield_(y)
            return pl.add(y, 2.0)
        """)
    assert "PTO511" not in r.codes


_DEAD_CARRY = f"""
    @pl.function
    def main(self, cfg: pl.Tensor[[1], pl.INT32], x: {T64}) -> {T64}:
        y = pl.add(x, x)
        with pl.at(level=pl.Level.CORE_GROUP):
            {{|first:n0 = pl.read(cfg, [0])|}}
        z = pl.add(y, x)
        READ
        for i in pl.range(4):
            w = pl.add(z, y)
            with pl.at(level=pl.Level.CORE_GROUP):
                {{|over:n0 = pl.read(cfg, [0])|}}
                pl.tensor.write(cfg, [0], n0)
        return z
    """


def test_a_device_scalar_only_a_later_loop_carries_and_overwrites_is_pto301_naming_the_overwrite() -> None:
    """The first scope's `n0` reaches the loop only as its carry's initial value (the loop body
    reuses the name, and its scope overwrites it before reading): the hint says so, pointing at
    the overwrite; the statements around it mention other variables only."""
    r = run(_DEAD_CARRY.replace("READ", "v = pl.add(z, y)"))
    first = next(d for d in r.analysis.diagnostics if d.code == "PTO301" and d.span == r.range("first"))
    assert first.hint is not None and "overwrites 'n0' before reading it" in first.hint
    assert [(rel.message, rel.span) for rel in first.related] == [
        ("'n0' is overwritten here", r.range("over"))
    ]


def test_a_device_scalar_read_before_the_loop_too_is_pto301_without_the_dead_carry_hint() -> None:
    """A statement before the loop (one the pass has not reached when it outlines the first
    scope) reads the first `n0` itself: the value is used, so the usual hint, nothing related."""
    r = run(_DEAD_CARRY.replace("READ", "v = pl.tensor.slice(x, [16], [n0])"))
    first = next(d for d in r.analysis.diagnostics if d.code == "PTO301" and d.span == r.range("first"))
    assert first.hint is not None and first.hint.startswith("write it into a [1] tensor output")
    assert first.related == ()
