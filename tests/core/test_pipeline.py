"""run_pipeline: pass order (D2), the records it hands to the CLI and the server, and the rule
that an exception in a pass is one PTO900 on the program, never a crash."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from outline_cases import T64, run, source_text
from test_ir_clone import _mutable_objects

from pypto_core import ir
from pypto_core.analysis import analyse_source
from pypto_core.diagnostics import Severity, error
from pypto_core.passes import convert_to_ssa, pipeline, records
from pypto_core.passes.context import PassContext
from pypto_core.passes.outline_incore import outline_incore_scopes
from pypto_core.passes.pipeline import run_pipeline
from pypto_core.printer import print_function, print_program
from pypto_core.span import Span


def test_record_describes_the_scope_for_the_user() -> None:
    r = run(f"""
        @pl.function
        def main(self, x: {T64}, out: pl.Out[{T64}]) -> {T64}:
            {{|scope:with {{|header:pl.at(level=pl.Level.CORE_GROUP, name_hint={{|name:"k"|}})|}}:
                pl.store(pl.load(x, [0], [64]), [0], out)|}}
            return out
        """)
    k = r.scope("k")
    assert (k.kind, k.function_type, k.program, k.parent) == ("InCore", "InCore", "P", "main")
    assert (k.level, k.role) == ("CORE_GROUP", None)
    assert [(p.name, p.direction.value, p.type) for p in k.params] == [
        ("x", "In", "Tensor[[64], FP32]"),
        ("out", "Out", "Tensor[[64], FP32]"),
    ]
    assert k.header_span == r.range("header") and k.name_span == r.range("name")
    assert k.scope_span.start_line == r.range("scope").start_line
    # the function as people read it: base names, the stored-to version marked (display_names)
    assert k.function_text.splitlines()[:2] == [
        "@pl.function(type=pl.FunctionType.InCore)",
        "def k(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:",
    ]
    assert k.call == "out = self.k(x, out)"


def test_a_record_prints_its_function_and_call_when_first_read(monkeypatch: pytest.MonkeyPatch) -> None:
    printed: list[str] = []

    def counting(print_text: Callable[..., str]) -> Callable[..., str]:
        def counted(node: Any, **options: Any) -> str:
            printed.append(print_text(node, **options))
            return printed[-1]

        return counted

    monkeypatch.setattr(records, "print_function", counting(records.print_function))
    monkeypatch.setattr(records, "display_call", counting(records.display_call))
    r = run(f"""
        @pl.function
        def main(self, x: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
                pl.store(pl.load(x, [0], [64]), [0], out)
            return out
        """)
    k = r.scope("k")
    moved = k.shifted(3)  # a reused program's records move without being printed
    assert printed == []
    assert k.call == "out = self.k(x, out)" and printed == [k.call]
    assert k.function_text == print_function(r.function("k"), display=True)
    assert printed == [k.call, k.function_text]
    assert (moved.call, moved.function_text) == (k.call, k.function_text)


def test_records_come_in_source_order_across_passes() -> None:
    r = run(f"""
        @pl.function
        def main(self, x: {T64}) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                a = pl.add(x, x)
            with pl.at(level=pl.Level.HOST):
                b = pl.add(a, a)
            with pl.cluster():
                with pl.at(level=pl.Level.CORE_GROUP):
                    c = pl.add(b, b)
            return c
        """)
    assert r.names == ["main_incore_0", "main_host_0", "main_cluster_0", "main_incore_1"]


def test_passes_run_hierarchy_graph_incore_cluster() -> None:
    assert [(name, f.__name__) for name, f in pipeline.OUTLINERS] == [
        ("OutlineHierarchyScopes", "outline_hierarchy_scopes"),
        ("OutlineGraphScopes", "outline_graph_scopes"),
        ("OutlineIncoreScopes", "outline_incore_scopes"),
        ("OutlineClusterScopes", "outline_cluster_scopes"),
    ]


def test_an_exception_in_a_pass_is_one_pto900_on_the_program_header(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(_context: object = None) -> object:
        def fail(_program: ir.Program) -> ir.Program:
            raise RuntimeError("boom")

        return fail

    monkeypatch.setattr(pipeline, "OUTLINERS", (("Broken", broken),))
    header = Span(3, 6, 3, 7)
    program = ir.Program("P", [ir.Function("main", [], [])], name_span=header)
    with caplog.at_level(logging.ERROR):
        result = run_pipeline(program)
    [d] = result.diagnostics
    assert (d.code, d.severity, d.span) == ("PTO900", Severity.ERROR, header)
    assert "boom" in d.message
    assert "boom" in caplog.text  # the traceback is logged, not lost
    assert result.program.get("main") is not None


def test_after_an_exception_the_program_is_the_last_completed_pass_output(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """No pass modifies its input (copy-on-write), so a pass that fails half-way leaves the
    program the pass before it completed as it was: that is the result."""
    x = ir.Var("x", ir.TensorType((64,), "FP32"))
    y = ir.Var("y", ir.TensorType((64,), "FP32"))
    scope = ir.ScopeStmt(ir.ScopeKind.InCore, [ir.AssignStmt(y, ir.Call("tensor.add", [x, x], type=x.type))])
    program = ir.Program("P", [ir.Function("main", [ir.Param(x)], [scope, ir.ReturnStmt([y])])])
    seen: list[ir.Program] = []

    def failing(_context: PassContext) -> object:
        def outline_then_fail(current: ir.Program) -> ir.Program:
            seen.append(current)
            outline_incore_scopes(PassContext())(current)  # a rewrite of its own, then the bug
            raise RuntimeError("boom")

        return outline_then_fail

    incore = ("OutlineIncoreScopes", outline_incore_scopes)
    monkeypatch.setattr(pipeline, "OUTLINERS", (incore,))
    expected = print_program(run_pipeline(program).program)
    monkeypatch.setattr(pipeline, "OUTLINERS", (incore, ("Failing", failing)))
    with caplog.at_level(logging.ERROR):
        result = run_pipeline(program)
    assert [d.code for d in result.diagnostics] == ["PTO900"]
    assert result.program is seen[0]
    assert print_program(result.program) == expected
    assert [r.name for r in result.outlined] == ["main_incore_0"]


@pytest.mark.parametrize("source", ["generated", "scopes_tour.py", "quickstart.py"])
def test_the_ssa_program_shares_only_vars_and_constants_with_the_front_ends(source: str) -> None:
    """ConvertToSSA rebuilds every statement and compound expression it returns (the front end's
    IR is kept for the server, and what ConvertToSSA keeps of a statement is its output, never
    its input). Plain Vars and constants may be shared: no pass modifies one."""
    for analysed in analyse_source(source_text(source)).programs:
        program = analysed.source
        converted = convert_to_ssa()(program)
        shared = set(_mutable_objects(program)) & set(_mutable_objects(converted))
        shared_types = {type(obj) for obj in _mutable_objects(program).values() if id(obj) in shared}
        assert shared_types <= {ir.Var, ir.Const, ir.EnumValue}


def test_after_a_front_end_error_the_verifier_warnings_are_left_out() -> None:
    x = ir.Var("x", ir.TensorType((64,), "FP32"))
    y = ir.Var("y", ir.TensorType((64,), "FP32"))
    body: list[ir.Stmt] = [ir.AssignStmt(y, ir.Call("tensor.add", [x, x], type=x.type)), ir.ReturnStmt([y])]
    fn = ir.Function("main", [ir.Param(x)], body, type=ir.FunctionType.Orchestration)
    program = ir.Program("P", [fn])
    assert [d.code for d in run_pipeline(program).diagnostics] == ["PTO504"]
    parse_error = error("PTO140", "bad", Span(1, 0, 1, 1))
    assert run_pipeline(program, [parse_error]).diagnostics == []
