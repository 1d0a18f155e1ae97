"""UnrollLoops runs before ConvertToSSA (compiler pass 2): a `pl.unroll` loop becomes one copy of
its body per iteration with the loop variable a constant, so a scope inside is outlined once
per copy, under the collision names, and captures no loop variable."""

from __future__ import annotations

from outline_cases import clean, run

from pypto_core import ir
from pypto_core.passes.unroll_loops import unroll_loops

T256 = "pl.Tensor[[256], pl.FP32]"


def test_each_copy_of_a_named_scope_is_outlined_under_the_next_collision_name() -> None:
    r = clean(f"""
        @pl.function
        def main(self, x: {T256}, out: pl.Out[{T256}]) -> {T256}:
            for g in pl.unroll(3):
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="ctx"):
                    out = pl.store(pl.load(x, [g * 64], [64]), [g * 64], out)
            return out
        """)
    assert r.names == ["ctx", "ctx_0", "ctx_1"]
    assert all(r.params(name) == [("x", "In"), ("out", "Out")] for name in r.names)  # no `g`
    assert "pl.tile.load(x, [128], [64])" in r.scope("ctx_1").function_text  # Simplify folds 2 * 64
    assert r.call("ctx_0") == "out = self.ctx_0(x, out)"
    # one note for the copies, not one per copy, and no advice: no name_hint tells copies apart
    (note,) = [d for d in r.analysis.diagnostics if d.code == "PTO601"]
    assert note.data["names"] == ["ctx", "ctx_0", "ctx_1"] and note.hint is None
    assert note.message.endswith("as 'ctx', 'ctx_0', 'ctx_1'")


def test_an_error_in_an_unrolled_body_is_reported_once_at_its_statement() -> None:
    # each copy's scope computes the same device scalar: one finding of the source, not three
    r = run(f"""
        @pl.function
        def main(self, x: {T256}, out: pl.Out[{T256}]) -> {T256}:
            n = 0
            for g in pl.unroll(3):
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="ctx"):
                    {{|loop:for b in pl.range(4):|}}
                        n = b * 2
                    out = pl.store(pl.load(x, [g * 64], [64]), [g * 64], out)
                for k in pl.range(n):
                    out = pl.store(pl.load(x, [0], [64]), [0], out)
            return out
        """)
    [d] = [d for d in r.problems if d.code == "PTO301"]
    assert d.span.start_line == r.range("loop").start_line and "'ctx'" in d.message


def test_nested_unroll_loops_inside_a_scope_are_expanded_in_each_copy() -> None:
    r = clean(f"""
        @pl.function
        def main(self, x: {T256}, out: pl.Out[{T256}]) -> {T256}:
            with pl.at(level=pl.Level.CORE_GROUP):
                for h in pl.unroll(0, 4, 2):
                    for k in pl.unroll(2):
                        out = pl.store(pl.load(x, [h + k], [64]), [k], out)
            return out
        """)
    text = r.scope("main_incore_0").function_text
    loads = [line.split("pl.tile.load(x, [")[1].split("]")[0] for line in text.splitlines() if "load" in line]
    assert loads == ["0", "1", "2", "3"]  # h + k, folded
    assert "for " not in text


def test_the_front_ends_program_is_left_as_it_is() -> None:
    r = run(f"""
        @pl.function
        def main(self, x: {T256}, out: pl.Out[{T256}]) -> {T256}:
            for g in pl.unroll(2):
                out = pl.store(pl.load(x, [g], [64]), [g], out)
            return out
        """)
    (source,) = [p.source for p in r.analysis.programs]
    before = source.get("main")
    assert before is not None and isinstance(before.body[0], ir.ForStmt)
    after = unroll_loops(source).get("main")
    assert after is not None and after is not before
    assert [type(s).__name__ for s in after.body] == ["AssignStmt", "AssignStmt", "ReturnStmt"]
    assert isinstance(before.body[0], ir.ForStmt) and len(before.body) == 2


def _unrolled_body(body: list[ir.Stmt], loop_var: ir.Var, trips: int) -> list[ir.Stmt]:
    """The body of a one-function program holding `for loop_var in pl.unroll(trips): body`."""
    loop = ir.ForStmt(loop_var, ir.Const(0), ir.Const(trips), ir.Const(1), body, ir.ForKind.Unroll)
    fn = ir.Function("main", [], [loop])
    unrolled = unroll_loops(ir.Program("P", [fn])).get("main")
    assert unrolled is not None
    return unrolled.body


def test_a_copy_shares_the_statements_that_do_not_read_the_loop_variable() -> None:
    g, x, y, z = ir.Var("g", ir.INDEX), ir.Var("x"), ir.Var("y"), ir.Var("z")
    reads_g = ir.AssignStmt(y, ir.Call("tile.load", [x, ir.ListExpr([g])]))
    plain = ir.AssignStmt(z, ir.Call("tile.add", [y, y]))
    scope = ir.ScopeStmt(ir.ScopeKind.InCore, [plain, reads_g])
    body = _unrolled_body([reads_g, plain, scope], g, 2)
    assert [s is plain for s in body] == [False, True, False, False, True, False]
    for i, (first, _, copied_scope) in enumerate([body[:3], body[3:]]):
        assert isinstance(first, ir.AssignStmt) and isinstance(copied_scope, ir.ScopeStmt)
        assert first is not reads_g and first.target is y  # variables are kept
        assert isinstance(first.value, ir.Call) and first.value.args[0] is x
        (index,) = first.value.args[1].items  # type: ignore[union-attr]
        assert isinstance(index, ir.Const) and index.value == i
        # the scope is a copy around its statement that reads `g`; the other is shared
        assert copied_scope is not scope and copied_scope.body[0] is plain
        assert copied_scope.body[1] is not reads_g
    assert body[2].body[1] is not body[5].body[1]  # type: ignore[union-attr]
    assert isinstance(reads_g.value, ir.Call) and reads_g.value.args[1].items == [g]  # type: ignore[union-attr]


def test_a_loop_variable_in_a_call_attribute_dict_is_replaced_in_each_copy() -> None:
    # an attribute value the variable walks (vars_mentioned) do not read is copied all the same
    g = ir.Var("g", ir.INDEX)
    call = ir.EvalStmt(ir.Call("kernel", [], callee="kernel", attrs={"meta": {"at": g}}))
    first, second = _unrolled_body([call], g, 2)
    for i, stmt in enumerate([first, second]):
        assert isinstance(stmt, ir.EvalStmt) and stmt is not call and isinstance(stmt.expr, ir.Call)
        meta = stmt.expr.attrs["meta"]
        assert isinstance(meta["at"], ir.Const) and meta["at"].value == i
    assert call.expr.attrs["meta"]["at"] is g  # type: ignore[union-attr]
