"""InlineFunctions: `@pl.inline` / `@pl.jit.inline` helpers spliced into their callers."""

from __future__ import annotations

import textwrap

from pypto_core import ir
from pypto_core.analysis import analyse_source
from pypto_core.diagnostics import Severity
from pypto_core.frontend import parse_module
from pypto_core.passes.inline_functions import inline_functions

from markers import extract

# `[ [` keeps the marker syntax `[[...]]` out of the DSL's nested-list shapes
T = "pl.Tensor[ [64], pl.FP32]"


def _module(src: str) -> tuple[str, ir.Program, list[str]]:
    text = textwrap.dedent(src).replace("T64", T)
    result = parse_module(text)
    assert len(result.programs) == 1
    return text, result.programs[0], [d.code for d in result.diagnostics]


def _statements(body: list[ir.Stmt]) -> list[ir.Stmt]:
    found: list[ir.Stmt] = []
    for stmt in body:
        found.append(stmt)
        for inner in ("body", "then_body", "else_body"):
            found += _statements(getattr(stmt, inner, None) or [])
    return found


def test_a_scope_in_a_helper_sits_in_the_caller_with_the_helpers_span() -> None:
    m = extract(
        """
        import pypto.language as pl

        @pl.inline
        def helper(x: T64, out: T64) -> T64:
            {|scope:with pl.at(level=pl.Level.CORE_GROUP):
                y = pl.load(x, [0], [64])
                out = pl.store(y, [0], out)|}
            return out

        @pl.program
        class P:
            @pl.function
            def main(self, a: T64, out: pl.Out[T64]) -> T64:
                out = helper(a, out)
                return out
        """
    )
    assert "T64" not in m.text.split("\n")[5]  # the marked lines carry no placeholder
    _, program, codes = _module(m.text)
    assert codes == []
    assert [f.name for f in program.functions] == ["main"]
    main = program.functions[0]
    scope = next(s for s in main.body if isinstance(s, ir.ScopeStmt))
    assert scope.span == m.named["scope"]
    params = {p.var.name: p.var for p in main.params}
    store = scope.body[1]
    assert isinstance(store, ir.AssignStmt)
    assert store.target is params["out"]  # parameters are replaced by the arguments
    load = scope.body[0]
    assert isinstance(load, ir.AssignStmt) and load.target.name == "y_inline0"
    assert isinstance(main.body[-1], ir.ReturnStmt)
    assert len(main.body) == 2  # `out = out` after the splice is dropped, as the compiler does


def test_each_splice_gets_fresh_variables() -> None:
    _, program, codes = _module(
        """
        import pypto.language as pl

        @pl.inline
        def twice(x: T64) -> T64:
            y = pl.add(x, x)
            return y

        @pl.jit
        def entry(a: T64) -> T64:
            b = twice(a)
            c = twice(b)
            return c
        """
    )
    assert codes == []
    body = program.functions[0].body
    names = [s.target.name for s in body if isinstance(s, ir.AssignStmt)]
    assert names == ["y_inline0", "b", "y_inline1", "c"]
    first, second = body[0], body[2]
    assert isinstance(first, ir.AssignStmt) and isinstance(second, ir.AssignStmt)
    assert first.target is not second.target
    assert isinstance(second.value, ir.Call) and second.value.args[0] is body[1].target  # type: ignore[union-attr]


def test_a_multi_value_helper_is_read_directly_and_statement_and_return_calls_splice() -> None:
    _, program, codes = _module(
        """
        import pypto.language as pl

        @pl.jit.inline
        def pair(x: T64) -> tuple[T64, T64]:
            s = pl.add(x, x)
            d = pl.sub(x, x)
            return s, d

        @pl.jit.inline
        def touch(x: T64):
            pl.add(x, x)

        @pl.jit
        def entry(a: T64) -> T64:
            s, d = pair(a)
            touch(s)
            e = pl.mul(s, d)
            return pair(e)
        """
    )
    assert codes == []
    (entry,) = program.functions
    unpacked = {
        s.target.name: s.value
        for s in _statements(entry.body)
        if isinstance(s, ir.AssignStmt) and s.target.name in "sd"
    }
    # `s, d = pair(a)` reads the returned values directly, no tuple is built
    assert {name: value.name for name, value in unpacked.items()} == {"s": "s_inline0", "d": "d_inline1"}  # type: ignore[union-attr]
    assert not any(isinstance(s, ir.Call) and s.callee for s in _statements(entry.body))
    final = entry.body[-1]
    assert isinstance(final, ir.ReturnStmt)
    assert [v.name for v in final.values] == ["s_inline2", "d_inline3"]  # type: ignore[union-attr]


def test_recursive_helpers_stop_with_a_diagnostic() -> None:
    m = extract(
        """
        import pypto.language as pl

        @pl.inline
        def {|ping:ping|}(x: T64) -> T64:
            y = pong(x)
            return y

        @pl.inline
        def pong(x: T64) -> T64:
            y = ping(x)
            return y

        @pl.inline
        def {|self_call:again|}(x: T64) -> T64:
            y = again(x)
            return y

        @pl.jit
        def entry(a: T64) -> T64:
            b = ping(a)
            c = again(b)
            return c
        """
    )
    result = parse_module(m.text.replace("T64", T))
    cycles = [d for d in result.diagnostics if d.code == "PTO410"]
    assert [d.span for d in cycles] == [m.named["self_call"], m.named["ping"]]
    assert "ping -> pong -> ping" in cycles[1].message
    (entry,) = result.programs[0].functions
    calls = [s.value for s in entry.body if isinstance(s, ir.AssignStmt)]
    assert all(isinstance(c, ir.Call) and c.callee is None for c in calls)  # left as unknown ops


def test_helpers_the_compiler_cannot_splice_are_reported() -> None:
    m = extract(
        """
        import pypto.language as pl

        @pl.inline
        def no_value(x: T64):
            pl.add(x, x)

        @pl.inline
        def one(x: T64) -> T64:
            return x

        @pl.jit
        def entry(a: T64) -> T64:
            {|no_return:b = no_value(a)|}
            {|arity:c = one(a, a)|}
            d = pl.add({|nested:one(a)|}, a)
            return d
        """
    )
    result = parse_module(m.text.replace("T64", T))
    found = {d.code: d.span for d in result.diagnostics}
    assert found == {
        "PTO412": m.named["no_return"],
        "PTO413": m.named["arity"],
        "PTO415": m.named["nested"],
    }
    assert [f.type for f in result.programs[0].functions] == [ir.FunctionType.Orchestration]


def test_an_early_return_in_a_helper_is_rejected() -> None:
    helper = ir.Function(
        "h",
        [ir.Param(ir.Var("x"))],
        [ir.IfStmt(ir.Const(True), [ir.ReturnStmt([ir.Const(1)])]), ir.ReturnStmt([ir.Const(2)])],
        type=ir.FunctionType.Inline,
    )
    r = ir.Var("r")
    caller = ir.Function("main", [], [ir.AssignStmt(r, ir.Call("h", [ir.Const(0)], callee="h"))])
    program, diagnostics = inline_functions(ir.Program("P", [helper, caller]))
    assert [d.code for d in diagnostics] == ["PTO411"]
    assert [f.name for f in program.functions] == ["main"]


def test_rebinding_a_parameter_bound_to_a_non_variable_is_rejected() -> None:
    x = ir.Var("x")
    helper = ir.Function(
        "h", [ir.Param(x)], [ir.AssignStmt(x, ir.Const(3)), ir.ReturnStmt([x])], type=ir.FunctionType.Inline
    )
    caller = ir.Function("main", [], [ir.AssignStmt(ir.Var("r"), ir.Call("h", [ir.Const(0)], callee="h"))])
    _, diagnostics = inline_functions(ir.Program("P", [helper, caller]))
    assert [d.code for d in diagnostics] == ["PTO414"]


def test_an_exponential_helper_chain_stops_with_a_warning() -> None:
    # the bound is the analysis's, not the compiler's (which splices any amount): a warning
    functions = []
    for level in range(40):
        x = ir.Var("x")
        calls: list[ir.Stmt] = [
            ir.EvalStmt(ir.Call(f"h{level + 1}", [x], callee=f"h{level + 1}")) for _ in range(2) if level < 39
        ]
        body = [*calls, ir.EvalStmt(ir.Call("tensor.add", [x, x]))]
        functions.append(ir.Function(f"h{level}", [ir.Param(x)], body, type=ir.FunctionType.Inline))
    caller = ir.Function("main", [], [ir.EvalStmt(ir.Call("h0", [ir.Const(0)], callee="h0"))])
    program, diagnostics = inline_functions(ir.Program("P", [*functions, caller]))
    [d] = [d for d in diagnostics if d.code == "PTO416"]
    assert d.severity is Severity.WARNING and "not analysed" in d.message
    assert [f.name for f in program.functions] == ["main"]


def test_a_helper_shared_by_two_programs_reports_its_errors_once() -> None:
    m = extract(
        """
        import pypto.language as pl

        @pl.inline
        def helper(x: T64) -> T64:
            {|bad:with pl.cluster(bogus=1):
                y = pl.add(x, x)|}
            return y

        @pl.jit
        def first(a: T64) -> T64:
            b = helper(a)
            return b

        @pl.jit
        def second(a: T64) -> T64:
            b = helper(a)
            return b
        """
    )
    result = parse_module(m.text.replace("T64", T))
    assert [p.name for p in result.programs] == ["first", "second"]
    assert [d.code for d in result.diagnostics] == ["PTO131"]
    assert result.diagnostics[0].span.start_line == m.named["bad"].start_line


def test_a_dump_tag_before_the_call_reaches_a_scope_of_the_spliced_helper() -> None:
    _, program, codes = _module(
        """
        import pypto.language as pl

        @pl.jit.inline
        def helper(x: T64, out: T64) -> T64:
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0], [64])
                pl.store(t, [0], out)
            return out

        @pl.jit
        def entry(a: T64, out: pl.Out[T64]) -> T64:
            pl.dump_tag(a)
            out = helper(a, out)
            return out
        """
    )
    assert codes == []
    (entry,) = program.functions
    scope = next(s for s in entry.body if isinstance(s, ir.ScopeStmt))
    assert scope.dump_vars == [entry.params[0].var]
    assert not any(isinstance(s, ir.EvalStmt) for s in entry.body)  # tag statements are resolved


def test_an_inline_call_as_a_yield_value_is_spliced_before_the_yield() -> None:
    # the compiler's parser expands `pl.yield_(helper(x))`: the helper's statements, then the
    # yield of its return value
    source = """
import pypto.language as pl


@pl.inline
def twice(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    doubled = pl.mul(x, 2.0)
    return doubled


@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], flag: pl.Scalar[pl.INT64]) -> pl.Tensor[[64], pl.FP32]:
        if flag == 0:
            out = pl.yield_(twice(x))
        else:
            out = pl.yield_(x)
        for i, (acc,) in pl.range(2, init_values=(x,)):
            acc = pl.yield_(twice(acc))
        return out
"""
    module = parse_module(source)
    assert module.diagnostics == []
    [main] = module.programs[0].functions
    then_body = main.body[0].then_body
    assert [type(s).__name__ for s in then_body] == ["AssignStmt", "YieldStmt"]
    assert then_body[1].values == [then_body[0].target]
    loop_body = main.body[1].body
    assert [type(s).__name__ for s in loop_body] == ["AssignStmt", "YieldStmt"]


def test_a_scope_in_a_nested_helper_names_its_parameters_as_that_helper_does() -> None:
    """entry passes `c` to `outer(a)`, which passes `a` to `inner(x)`, whose scope captures `x`:
    the record says `x` (what the code around the scope says); the IR keeps the caller's `c`."""
    from pypto_core.analysis import analyse_source

    text = textwrap.dedent(
        """
        import pypto.language as pl

        @pl.jit.inline
        def inner(x: T64, o: T64):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
                o = pl.assemble(o, pl.add(x, x), [0])
            return o

        @pl.jit.inline
        def outer(a: T64, b: T64):
            local = pl.add(a, a)
            r = inner(local, b)
            return r

        @pl.jit
        def entry(c: T64, out: pl.Out[T64]):
            out = outer(c, out)
            return out
        """
    ).replace("T64", T)
    (record,) = analyse_source(text).outlined
    assert sorted(p.shown for p in record.params) == ["o", "x"]  # not `local`, `out`
    assert sorted(p.name for p in record.params) == ["local", "out"]  # the compiler's names
    assert record.call.startswith("out = self.k(")


def test_the_splicers_walks_read_every_field_that_can_hold_a_node() -> None:
    """The walks behind the cycle check, leftover calls and tuple items read a table of
    node-holding fields per IR class; a field added to the IR must be listed or named here as
    holding no node, else a call or `r[i]` in it would be missed."""
    import dataclasses

    from pypto_core.passes.inline_functions import _NODE_FIELDS

    no_node = {"name", "type", "span", "op", "value", "index", "callee", "submit", "enum", "member"}
    no_node |= {"text", "cast_dtype", "annotation", "kind", "header_span", "name_hint", "name_span"}
    no_node |= {"level", "role", "split", "slot_num", "windowize", "allow_early_resolve", "policy"}
    no_node |= {"sync_start", "runtime_mode", "shown_names"}
    classes = {*_NODE_FIELDS} | {ir.IterArg, ir.CachePolicyDecl}
    expected_classes = {*ir.Expr.__args__, *ir.Stmt.__args__, ir.CachePolicyDecl}  # type: ignore[attr-defined]
    assert classes == expected_classes
    for cls, names in _NODE_FIELDS.items():
        fields = [f.name for f in dataclasses.fields(cls)]
        assert [f for f in fields if f in names] == list(names), cls  # declaration order
        assert set(fields) - set(names) <= no_node, (cls, set(fields) - set(names) - no_node)


def _chain(levels: int, own: int) -> list[ir.Function]:
    """h0 -> h1 -> ... : each helper `own` statements of its own, then a call to the next."""
    functions = []
    for level in range(levels):
        x = ir.Var("x")
        body: list[ir.Stmt] = [ir.EvalStmt(ir.Call("tensor.add", [x, x])) for _ in range(own)]
        if level + 1 < levels:
            body.append(ir.EvalStmt(ir.Call(f"h{level + 1}", [x], callee=f"h{level + 1}")))
        functions.append(ir.Function(f"h{level}", [ir.Param(x)], body, type=ir.FunctionType.Inline))
    return functions


def test_the_splice_budget_counts_each_statement_the_caller_gains_once() -> None:
    # 5 helpers of 100 statements in a chain: the caller gains 500. Splicing each helper into
    # the one calling it first and then the expanded helpers into the caller counted 1,500.
    caller = ir.Function("main", [], [ir.EvalStmt(ir.Call("h0", [ir.Const(0)], callee="h0"))])
    program, diagnostics = inline_functions(ir.Program("P", [*_chain(5, 100), caller]), budget=520)
    assert diagnostics == []
    assert len(program.functions[0].body) == 500
    caller = ir.Function("main", [], [ir.EvalStmt(ir.Call("h0", [ir.Const(0)], callee="h0"))])
    _, diagnostics = inline_functions(ir.Program("P", [*_chain(5, 100), caller]), budget=480)
    [d] = diagnostics
    assert d.code == "PTO416" and "480 statements" in d.message
    assert d.hint is not None and "pypto.analysis.spliceBudget" in d.hint and "--splice-budget" in d.hint


def test_a_statement_call_drops_the_helpers_tail_call_unless_another_helper_brought_it() -> None:
    # `mid(...)` as a statement drops what `mid` returns; its last line `return inner(...)` is
    # kept only where the compiler's rounds had spliced `inner` into `mid` before the call was
    # spliced: the call came into the entry with another helper (the oracle: `entry_a` outlines
    # nothing, `entry_b` the inner scope, `entry_c`, one helper deeper, nothing again).
    text = textwrap.dedent(
        """
        import pypto.language as pl

        @pl.jit.inline
        def inner(a: T64, out: pl.Out[T64]):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="inner_scope"):
                t = pl.load(a, [0], [64])
                out = pl.store(pl.add(t, 1.0), [0], out)
            return out

        @pl.jit.inline
        def mid(a: T64, out: pl.Out[T64]):
            return inner(a, out)

        @pl.jit.inline
        def outer(a: T64, out: pl.Out[T64]):
            mid(a, out)
            return out

        @pl.jit.inline
        def outermost(a: T64, out: pl.Out[T64]):
            outer(a, out)
            return out

        @pl.jit
        def entry_a(a: T64, out: pl.Out[T64]):
            mid(a, out)
            return out

        @pl.jit
        def entry_b(a: T64, out: pl.Out[T64]):
            outer(a, out)
            return out

        @pl.jit
        def entry_c(a: T64, out: pl.Out[T64]):
            outermost(a, out)
            return out
        """
    ).replace("T64", T)
    outlined = analyse_source(text).outlined
    assert {(r.program, r.name) for r in outlined} == {("entry_b", "inner_scope")}
