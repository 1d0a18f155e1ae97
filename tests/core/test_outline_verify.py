"""The verifier properties the outliners establish (dsl-reference §4.7) as PTO5xx diagnostics,
each at the construct that breaks it. Codes only reachable from IR the front end never builds
are checked on hand-built IR."""

from __future__ import annotations

import textwrap

from outline_cases import T64, clean, run

from pypto_core import ir
from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.diagnostics import Severity
from pypto_core.passes.verify import verify_input, verify_output
from pypto_core.span import Span

HEADER_SPAN = Span(4, 13, 4, 40)


def _program(kind: ir.ScopeKind, fn_type: ir.FunctionType) -> ir.Program:
    x = ir.Var("x", ir.TensorType((64,), "FP32"))
    scope = ir.ScopeStmt(kind, [ir.EvalStmt(ir.Call("tile.load", [x]))], header_span=HEADER_SPAN)
    return ir.Program("P", [ir.Function("f", [ir.Param(x)], [scope], type=fn_type)])


def test_hierarchy_scope_left_in_an_opaque_function_is_pto501() -> None:
    [d] = verify_output(_program(ir.ScopeKind.Hierarchy, ir.FunctionType.Opaque), front_end_checked=True)
    assert (d.code, d.span) == ("PTO501", HEADER_SPAN)


def test_graph_scope_left_anywhere_is_pto502_unless_the_front_end_already_said_so() -> None:
    program = _program(ir.ScopeKind.Graph, ir.FunctionType.InCore)
    [d] = verify_output(program, front_end_checked=False)
    assert (d.code, d.span) == ("PTO502", HEADER_SPAN)
    assert verify_output(program, front_end_checked=True) == []  # PTO144 covers it


def test_incore_scope_left_in_a_device_function_is_a_pto503_warning() -> None:
    # the compiler leaves the scope in place without an error (it does not verify
    # SplitIncoreOrch when it compiles), so this is a warning, for a Group function too
    for fn_type in (ir.FunctionType.AIC, ir.FunctionType.Group):
        [d] = verify_output(_program(ir.ScopeKind.InCore, fn_type), front_end_checked=True)
        assert (d.code, d.span, d.severity) == ("PTO503", HEADER_SPAN, Severity.WARNING)
        assert fn_type.value in d.message


def test_compute_tensor_op_left_in_orchestration_is_a_pto504_warning_at_the_call() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {T64}) -> {T64}:
            y = {{|op:pl.add(x, x)|}}
            z = pl.tensor.reshape(y, [64])
            return z
        """)
    d = r.only("PTO504")
    assert (d.severity.value, d.span) == ("warning", r.range("op"))
    assert "tensor.add" in d.message and d.hint is not None and "CORE_GROUP" in d.hint


def test_device_function_returning_a_scalar_is_pto507_at_its_name() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def {{|name:k|}}(self, x: {T64}, s: pl.Scalar[pl.INT32]) -> tuple[{T64}, pl.Scalar[pl.INT32]]:
            return x, s
        """)
    d = r.only("PTO507")
    assert d.span == r.range("name")
    assert "#1" in d.message and "Scalar[INT32]" in d.message


def test_device_function_returning_a_task_id_is_pto508() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def {{|name:k|}}(self, x: {T64}, t: pl.Scalar[pl.TASK_ID]) -> pl.Scalar[pl.TASK_ID]:
            return t
        """)
    assert r.only("PTO508").span == r.range("name")


def test_incore_scope_nested_through_an_inline_helper_is_pto509_at_the_inner_header() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.Inline)
        def helper(self, x: {T64}) -> {T64}:
            with {{|inner:pl.at(level=pl.Level.CORE_GROUP)|}}:
                y = pl.add(x, x)
            return y

        @pl.function
        def main(self, x: {T64}) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                z = self.helper(x)
            return z
        """)
    assert r.only("PTO509").span == r.range("inner")


def test_textual_incore_nesting_is_reported_once_by_the_front_end() -> None:
    r = run(f"""
        @pl.function
        def main(self, x: {T64}) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                with pl.at(level=pl.Level.CORE_GROUP):
                    y = pl.add(x, x)
            return y
        """)
    assert r.codes.count("PTO509") == 1


def test_nested_incore_in_hand_built_ir_is_pto509() -> None:
    inner = ir.ScopeStmt(ir.ScopeKind.InCore, [], span=Span(5, 8, 6, 0), header_span=Span(5, 13, 5, 40))
    outer = ir.ScopeStmt(ir.ScopeKind.InCore, [inner], span=Span(4, 4, 6, 0), header_span=HEADER_SPAN)
    program = ir.Program("P", [ir.Function("f", [], [outer])])
    [d] = verify_input(program, front_end_checked=False)
    assert (d.code, d.span) == ("PTO509", Span(5, 13, 5, 40))


def test_split_aiv_region_written_in_an_incore_function_is_pto510() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: {T64}) -> {T64}:
            for s in {{|region:pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN)|}}:
                t = pl.load(a, [0], [64])
            return a
        """)
    d = r.only("PTO510")
    assert d.span.start_line == r.range("region").start_line


def test_split_aiv_region_the_outliner_moved_into_an_incore_function_is_fine() -> None:
    clean(f"""
        @pl.function
        def main(self, a: {T64}) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                for s in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                    t = pl.load(a, [0], [64])
            return a
        """)


def test_an_aiv_split_boundary_op_outside_a_split_aiv_region_is_pto510_at_the_call() -> None:
    r = run("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 128], pl.FP32], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [16, 128])
                {|shard:pl.aiv_shard(t)|}
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                    half = pl.aiv_shard(t)
                    pl.store(half, [0, 0], out)
            return out
        """)
    d = r.only("PTO510")
    assert (
        d.span == r.range("shard")
        and "'tile.aiv_shard' must appear inside a pl.split_aiv region" in d.message
    )


_KERNEL = """
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            out = pl.store(pl.load(x, [0], [64]), [0], out)
            return out
"""


_PTO512_MAIN = """
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            {|call:self.kernel(x, out)|}
            {|read:return out|}
        """


def test_reading_a_variable_after_passing_it_to_an_out_parameter_is_pto512_at_the_read() -> None:
    # InOutUseDiscipline: the call's result is the value after the call
    r = run(_KERNEL + _PTO512_MAIN)
    d = r.only("PTO512")
    assert d.span == r.range("read") and "variable 'out' was passed as InOut/Out" in d.message
    assert [(rel.span, rel.path) for rel in d.related] == [(r.range("call"), None)]


def test_pto512_moved_with_its_program_equals_a_fresh_analysis() -> None:
    # A program that only moved (a line typed above it) is the kept one shifted: the killing
    # call is a related location, so nothing in the finding is left at the old line.
    text = run(_KERNEL + _PTO512_MAIN).marked.text
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    moved = "# a line typed above\n" + text
    kept = analyzer.update(moved)
    (d,) = [d for d in kept.diagnostics if d.code == "PTO512"]
    assert d.related[0].span.start_line == text[: text.index("self.kernel(x, out)")].count("\n") + 1
    assert kept.diagnostics == analyse_source(moved).diagnostics


def test_a_read_in_the_next_iteration_of_a_loop_that_kills_the_variable_is_pto512() -> None:
    r = run(
        _KERNEL
        + """
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            for i in pl.range(4):
                {|read:y = pl.add(out, 1.0)|}
                r = self.kernel(x, out)
            return r
        """
    )
    assert r.only("PTO512").span == r.range("read")


def test_binding_the_call_result_or_submitting_keeps_the_discipline() -> None:
    r = run(
        _KERNEL
        + """
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            out = self.kernel(x, out)
            for i in pl.range(4):
                out = self.kernel(x, out)
            with pl.manual_scope():
                res, tid = pl.submit(self.kernel, x, out)
            return out
        """
    )
    assert "PTO512" not in r.codes


def test_aiv_shard_of_a_loaded_tile_is_pto518_at_the_shard() -> None:
    # a load puts its tile in Vec (or its target_memory=): a vector-lane value, which the
    # cube-to-vector boundary op does not carry
    r = run("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                t = pl.load(a, [aiv_id * 128, 0], [128, 64])
                m = pl.load(a, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
                x = {|vec:pl.aiv_shard(t)|}
                y = {|mat:pl.aiv_shard(m)|}
                out = pl.store(x, [aiv_id * 128, 0], out)
            return out
        """)
    found = {d.span: d.message for d in r.analysis.diagnostics if d.code == "PTO518"}
    assert found.keys() == {r.range("vec"), r.range("mat")}
    assert found[r.range("vec")].startswith(
        "'tile.aiv_shard' operand is in Vec, but it transfers a cube-produced"
    )
    assert found[r.range("mat")].startswith("'tile.aiv_shard' operand is in Mat")


def test_aiv_shard_of_a_matmul_result_is_accepted() -> None:
    r = run("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[64, 64], pl.BF16], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                l = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
                acc = pl.matmul(l, l)
                half = pl.aiv_shard(acc)
                out = pl.store(half, [aiv_id * 32, 0], out)
            return out
        """)
    assert "PTO518" not in r.codes


_AT_DEPTH = "import pypto.language as pl\n\n\n@pl.program\nclass P:" + textwrap.indent(
    textwrap.dedent(_KERNEL)
    + """
@pl.function(type=pl.FunctionType.Orchestration)
def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
    for i in pl.range(4):
        for j in pl.range(2):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="inner"):
                t = pl.load(x, [0], [64])
                out = pl.store(t, [0], out)
            y = pl.add(x, x)
        self.kernel(x, out)
        z = pl.add(out, 1.0)
    return out
""",
    "    ",
)


def test_the_findings_the_verifier_keeps_per_function_and_statement_equal_a_fresh_analysis_s() -> None:
    """The verifier keeps each function's findings and what each compound statement holds (its
    callees, scopes, compute tensor ops): after edits at depth in a loop nest, and back, the
    findings are a fresh analysis's (PTO504 in the inner loop, PTO512 in the outer one)."""
    edits = [
        _AT_DEPTH.replace('name_hint="inner"', 'name_hint="innerx"'),  # nothing found changes
        _AT_DEPTH.replace("y = pl.add(x, x)", "y = pl.tensor.reshape(x, [64])"),  # a PTO504 less
        _AT_DEPTH.replace("        self.kernel(x, out)", "        out = self.kernel(x, out)"),  # no PTO512
        _AT_DEPTH.replace(
            "z = pl.add(out, 1.0)", "z = pl.add(out, 1.0)\n        w = pl.mul(x, x)"
        ),  # one more
        _AT_DEPTH,
    ]
    analyzer = DocumentAnalyzer()
    codes = [d.code for d in analyzer.update(_AT_DEPTH).diagnostics]
    assert codes.count("PTO504") == 2 and "PTO512" in codes and "PTO511" not in codes, codes
    assert len(set(edits)) == len(edits)
    for text in edits + edits:
        assert analyzer.update(text).diagnostics == analyse_source(text).diagnostics


_KILL_ABOVE = "import pypto.language as pl\n\n\n@pl.program\nclass P:" + textwrap.indent(
    textwrap.dedent(_KERNEL)
    + """
@pl.function(type=pl.FunctionType.Orchestration)
def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
    r = self.kernel(x, out)
    for i in pl.range(4):
        if i > 1:
            y = pl.add(out, 1.0)
    z = pl.add(x, 1.0)
    return r
""",
    "    ",
)


def test_a_statement_kept_below_a_kill_that_changes_reports_as_a_fresh_analysis() -> None:
    """The InOutUse walk of each statement is kept with what it read of the dead variables: the
    loop below the call is the same object whether the call kills `out` (PTO512 in the loop)
    or `x` (PTO512 at `z`), and after each edit back it reports as before."""
    other = _KILL_ABOVE.replace("r = self.kernel(x, out)", "r = self.kernel(x, x)")
    analyzer = DocumentAnalyzer()
    lines = []
    for text in [_KILL_ABOVE, other, _KILL_ABOVE, other]:
        diagnostics = analyzer.update(text).diagnostics
        assert diagnostics == analyse_source(text).diagnostics
        lines.append([d.span.start_line for d in diagnostics if d.code == "PTO512"])
    loop_read, z = (
        _KILL_ABOVE.splitlines().index(line) for line in _KILL_ABOVE.splitlines() if "pl.add(" in line
    )
    assert lines == [[loop_read], [z], [loop_read], [z]]
