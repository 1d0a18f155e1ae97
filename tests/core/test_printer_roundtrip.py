"""Print -> parse -> print is a fixed point and the reparsed IR equals the printed one, for every
DSL sample (tests/core/printer_samples, examples/) both as parsed and after ConvertToSSA.

The SSA check also pins the pass's basic contract on real front-end output: every variable is
defined exactly once per function.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from pypto_core import ir
from pypto_core.diagnostics import Severity
from pypto_core.frontend import parse_module
from pypto_core.ir_equal import ir_difference
from pypto_core.passes.ssa import convert_to_ssa
from pypto_core.printer import print_program

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "tests" / "core" / "printer_samples").glob("*.py")) + sorted(
    (ROOT / "examples").glob("*.py")
)
HEADER = "import pypto.language as pl\nimport pypto.language.distributed as pld\n\n"


def programs(path: Path) -> list[ir.Program]:
    module = parse_module(path.read_text())
    errors = [d for d in module.diagnostics if d.severity is Severity.ERROR and d.code.startswith("PTO9")]
    assert not errors, errors
    assert module.programs, f"{path.name} holds no program"
    return module.programs


def reparse(text: str) -> ir.Program:
    module = parse_module(HEADER + text)
    assert len(module.programs) == 1
    assert [d for d in module.diagnostics if d.severity is Severity.ERROR] == []
    return module.programs[0]


def assert_round_trip(program: ir.Program) -> None:
    text = print_program(program)
    again = reparse(text)
    # a jit module prints as the @pl.program its specialisation is (dsl-reference §1.2), which
    # the specialiser does not rename again (its aliases are printed as names)
    again.origin, again.aliases = program.origin, program.aliases
    assert ir_difference(program, again) is None, text
    assert print_program(again) == text


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_parsed_programs_round_trip(path: Path) -> None:
    for program in programs(path):
        assert_round_trip(program)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_ssa_programs_round_trip(path: Path) -> None:
    for program in programs(path):
        assert_round_trip(convert_to_ssa()(program))


def definitions(stmts: list[ir.Stmt]) -> Iterator[str]:
    for s in stmts:
        if isinstance(s, ir.AssignStmt):
            yield s.target.name
        if isinstance(s, ir.ForStmt):
            yield s.loop_var.name
        if isinstance(s, (ir.ForStmt, ir.WhileStmt)):
            yield from (v.name for v in [*s.iter_args, *s.return_vars])
        if isinstance(s, ir.IfStmt):
            yield from (v.name for v in s.return_vars)
        for block in (
            [s.body]
            if isinstance(s, (ir.ForStmt, ir.WhileStmt, ir.ScopeStmt))
            else [s.then_body, s.else_body or []]
            if isinstance(s, ir.IfStmt)
            else []
        ):
            yield from definitions(block)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_ssa_defines_every_name_once(path: Path) -> None:
    for program in programs(path):
        for fn in convert_to_ssa()(program).functions:
            names = Counter([p.var.name for p in fn.params] + list(definitions(fn.body)))
            assert [n for n, count in names.items() if count > 1] == [], fn.name
