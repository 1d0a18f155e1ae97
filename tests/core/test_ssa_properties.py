"""Properties of ConvertToSSA and the printer on generated DSL functions.

The generator writes functions from loops, ifs, scopes, rebinding and stores, reading only
names the source has definitely assigned (so it never relies on the compiler's zero-trip
escaping placeholder). For each one:

* the SSA form defines every name once and reads only values in scope where they are read
  (a small SSA verifier: loop bodies see their loop variable and iter_args, values after a
  loop or if come from its return vars, scope bodies are transparent);
* printing the parsed IR and the SSA IR, then parsing the text, gives equal IR and the same
  text again.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pypto_core import ir
from pypto_core.diagnostics import Severity
from pypto_core.frontend import parse_module
from pypto_core.ir_equal import ir_difference
from pypto_core.passes.ssa import convert_to_ssa, expr_vars
from pypto_core.printer import print_program

HEADER = "import pypto.language as pl\n\n\n"
SIGNATURE = (
    "@pl.program\nclass Gen:\n    @pl.function(auto_scope=False)\n"
    "    def main(self, n: pl.Scalar[pl.INDEX], m: pl.Scalar[pl.INDEX], a: pl.Tensor[[64], pl.FP32],"
    " out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:\n"
)
NAMES = ("x", "y", "z")


@dataclass
class _Writer:
    draw: st.DrawFn
    lines: list[str] = field(default_factory=list)
    loops: int = 0

    def scalar(self, visible: set[str]) -> str:
        choices = [*sorted(visible - {"a", "out"}), "1", "2"]
        left = self.draw(st.sampled_from(choices))
        if self.draw(st.booleans()):
            return left
        op = self.draw(st.sampled_from(["+", "-", "*"]))
        return f"{left} {op} {self.draw(st.sampled_from(choices))}"

    def block(self, indent: int, visible: set[str], depth: int, in_incore: bool) -> set[str]:
        """Writes 1-3 statements; returns the names definitely assigned afterwards."""
        for _ in range(self.draw(st.integers(1, 3))):
            visible = self.stmt(indent, visible, depth, in_incore)
        return visible

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def stmt(self, indent: int, visible: set[str], depth: int, in_incore: bool) -> set[str]:
        kinds = ["assign", "assign", "store", "bare_store"]
        if depth < 3:
            kinds += ["if", "for", "scope", "explicit_for", "explicit_if"]
        kind = self.draw(st.sampled_from(kinds))
        if kind == "assign":
            target = self.draw(st.sampled_from(NAMES))
            self.emit(indent, f"{target} = {self.scalar(visible)}")
            return visible | {target}
        if kind == "store":
            self.emit(indent, "out = pl.store(pl.load(a, [0], [64]), [0], out)")
            return visible
        if kind == "bare_store":
            self.emit(indent, "pl.store(pl.load(a, [0], [64]), [0], out)")
            return visible
        if kind == "if":
            self.emit(indent, f"if {self.scalar(visible)} < {self.scalar(visible)}:")
            then_visible = self.block(indent + 1, visible, depth + 1, in_incore)
            if not self.draw(st.booleans()):
                return visible
            self.emit(indent, "else:")
            else_visible = self.block(indent + 1, visible, depth + 1, in_incore)
            return then_visible & else_visible
        if kind == "for":
            self.loops += 1
            loop_var = f"i{self.loops}"
            self.emit(indent, f"for {loop_var} in pl.range({self.scalar(visible)}):")
            self.block(indent + 1, visible | {loop_var}, depth + 1, in_incore)
            return visible  # values first assigned in a loop are not read after it
        if kind == "explicit_for":
            self.loops += 1
            k = self.loops
            self.emit(indent, f"for i{k}, (c{k},) in pl.range(3, init_values=({self.scalar(visible)},)):")
            body_visible = self.block(indent + 1, visible | {f"i{k}", f"c{k}"}, depth + 1, in_incore)
            self.emit(indent + 1, f"r{k} = pl.yield_({self.scalar(body_visible)})")
            return visible | {f"r{k}"}
        if kind == "explicit_if":
            self.loops += 1
            k = self.loops
            self.emit(indent, f"if {self.scalar(visible)} < 2:")
            self.emit(indent + 1, f"r{k} = pl.yield_({self.scalar(visible)})")
            self.emit(indent, "else:")
            self.emit(indent + 1, f"r{k} = pl.yield_({self.scalar(visible)})")
            return visible | {f"r{k}"}
        incore = not in_incore and self.draw(st.booleans())
        self.emit(indent, "with pl.at(level=pl.Level.CORE_GROUP):" if incore else "with pl.scope():")
        return self.block(indent + 1, visible, depth + 1, in_incore or incore)


@st.composite
def dsl_functions(draw: st.DrawFn) -> str:
    writer = _Writer(draw)
    writer.block(2, {"n", "m", "a", "out"}, 0, False)
    writer.emit(2, "return out")
    return HEADER + SIGNATURE + "\n".join(writer.lines) + "\n"


def _scoping_violations(fn: ir.Function) -> list[str]:
    violations: list[str] = []

    def read(e: object, visible: set[ir.Var], where: str) -> None:
        violations.extend(f"{where}: {v.name} read out of scope" for v in expr_vars(e) if v not in visible)

    def block(stmts: list[ir.Stmt], visible: set[ir.Var]) -> set[ir.Var]:
        visible = set(visible)
        for s in stmts:
            if isinstance(s, ir.AssignStmt):
                read(s.value, visible, s.target.name)
                visible.add(s.target)
            elif isinstance(s, (ir.EvalStmt, ir.ReturnStmt, ir.YieldStmt)):
                read(s.expr if isinstance(s, ir.EvalStmt) else s.values, visible, type(s).__name__)
            elif isinstance(s, ir.ForStmt):
                read([s.start, s.stop, s.step, *(ia.init for ia in s.iter_args)], visible, "for")
                block(s.body, visible | {s.loop_var, *s.iter_args})
                visible |= set(s.return_vars)
            elif isinstance(s, ir.IfStmt):
                read(s.cond, visible, "if")
                block(s.then_body, visible)
                block(s.else_body or [], visible)
                visible |= set(s.return_vars)
            elif isinstance(s, ir.ScopeStmt):
                visible = block(s.body, visible)
        return visible

    block(fn.body, {p.var for p in fn.params})
    return violations


def _definitions(stmts: list[ir.Stmt]) -> list[str]:
    names: list[str] = []
    for s in stmts:
        if isinstance(s, ir.AssignStmt):
            names.append(s.target.name)
        elif isinstance(s, ir.ForStmt):
            names += [s.loop_var.name, *(v.name for v in [*s.iter_args, *s.return_vars])]
            names += _definitions(s.body)
        elif isinstance(s, ir.IfStmt):
            names += [v.name for v in s.return_vars]
            names += _definitions(s.then_body) + _definitions(s.else_body or [])
        elif isinstance(s, ir.ScopeStmt):
            names += _definitions(s.body)
    return names


def _reparse(text: str) -> ir.Program:
    module = parse_module(HEADER + text)
    assert [d for d in module.diagnostics if d.severity is Severity.ERROR] == []
    return module.programs[0]


SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(dsl_functions())
def test_ssa_output_is_well_scoped_single_assignment(source: str) -> None:
    module = parse_module(source)
    assert [d for d in module.diagnostics if d.severity is Severity.ERROR] == [], source
    fn = convert_to_ssa()(module.programs[0]).functions[0]
    repeated = [
        n for n, c in Counter([p.var.name for p in fn.params] + _definitions(fn.body)).items() if c > 1
    ]
    assert repeated == [], source
    assert _scoping_violations(fn) == [], source


@SETTINGS
@given(dsl_functions())
def test_printing_round_trips_before_and_after_ssa(source: str) -> None:
    program = parse_module(source).programs[0]
    for shown in (program, convert_to_ssa()(program)):
        text = print_program(shown)
        again = _reparse(text)
        assert ir_difference(shown, again) is None, text
        assert print_program(again) == text
