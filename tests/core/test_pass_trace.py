"""Pass traces (issue 19): the program after each stage, what each stage changed, the
findings of each stage, and stage texts that are DSL our own front end reads back."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pypto_core import ir
from pypto_core.analysis import analyse_source
from pypto_core.diagnostics import Severity
from pypto_core.pass_trace import STAGE_KEYS, ProgramTrace, trace_program
from pypto_core.passes.pipeline import run_pipeline
from pypto_core.printer import print_method, print_program
from pypto_core.results import ProgramAnalysis

ROOT = Path(__file__).resolve().parents[2]

LAYERED = textwrap.dedent("""
    import pypto.language as pl


    @pl.program
    class Layered:
        @pl.function
        def main(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
            for i in pl.unroll(2):
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="half"):
                    t = pl.load(x, [i * 32, 0], [32, 64])
                    pl.store(pl.exp(t), [i * 32, 0], out)
            return out

        @pl.function
        def other(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0], [64])
                pl.store(t, [0], out)
            return out
""")


def _program(source: str, name: str | None = None) -> ProgramAnalysis:
    analysis = analyse_source(source)
    return next(p for p in analysis.programs if name is None or p.name == name)


def _trace(source: str, **kwargs: object) -> ProgramTrace:
    return trace_program(_program(source), **kwargs)  # type: ignore[arg-type]


def test_stages_follow_the_pipeline_and_carry_the_compilers_dump_names() -> None:
    trace = _trace(LAYERED)
    assert [s.key for s in trace.stages] == list(STAGE_KEYS)
    assert [s.file_name for s in trace.stages] == [
        "00_frontend.py",
        "01_after_UnrollLoops.py",
        "02_after_ConvertToSSA.py",
        "03_after_Simplify.py",
        "04_after_OutlineHierarchyScopes.py",
        "05_after_OutlineGraphScopes.py",
        "06_after_OutlineIncoreScopes.py",
        "07_after_OutlineClusterScopes.py",
    ]


def test_each_stage_says_which_functions_it_added_or_changed() -> None:
    stages = {s.key: s for s in _trace(LAYERED).stages}
    assert stages["unroll"].changed == ("main",)  # one body copy per iteration
    assert stages["simplify"].changed == ("main",)  # the unrolled `i * 32` folded
    assert stages["incore"].added == ("half", "half_0", "other_incore_0")  # a repeated name_hint gets _0
    assert set(stages["incore"].changed) == {"main", "other"}
    assert stages["hierarchy"].unchanged and stages["graph"].unchanged and stages["cluster"].unchanged
    assert _trace(LAYERED).last_change().key == "incore"  # type: ignore[union-attr]


def test_the_last_stage_is_the_analysis_outlined_program() -> None:
    program = _program(LAYERED)
    assert program.outlined_program is not None
    expected = "\n\n".join(print_method(fn) for fn in program.outlined_program.functions)
    assert _trace(LAYERED, raw=True).stages[-1].text.endswith(expected + "\n")


def test_a_function_is_traced_with_what_is_outlined_from_it() -> None:
    trace = _trace(LAYERED, function="main")
    last = trace.stages[-1]
    assert "def main(" in last.text and "def half(" in last.text and "def half_0(" in last.text
    assert "def other" not in last.text
    assert trace.stage("incore") is not None and trace.stage("incore").added == ("half", "half_0")  # type: ignore[union-attr]


def test_findings_come_with_the_stage_that_reported_them() -> None:
    program = _program((ROOT / "examples" / "quickstart.py").read_text(), "ReadBack")
    stages = trace_program(program).stages
    reported = {s.key: [d.code for d in s.diagnostics] for s in stages if s.diagnostics}
    assert reported == {"incore": ["PTO301"]}
    assert [d for s in stages for d in s.diagnostics] == [
        d for d in program.diagnostics if d.severity is Severity.ERROR
    ]


@pytest.mark.parametrize("example", ["quickstart.py", "scopes_tour.py"])
def test_every_raw_stage_reads_back_without_a_front_end_error(example: str) -> None:
    for program in analyse_source((ROOT / "examples" / example).read_text()).programs:
        for stage in trace_program(program, raw=True).stages:
            again = analyse_source("import pypto.language as pl\n\n" + stage.text)
            front_end = [d for d in again.diagnostics if d.code.startswith(("PTO0", "PTO1"))]
            assert front_end == [], (program.name, stage.file_name, front_end)


def test_tracing_leaves_the_analysis_as_it_was() -> None:
    program = _program(LAYERED)
    before = [print_method(fn) for fn in program.source.functions]
    trace_program(program)
    assert [print_method(fn) for fn in program.source.functions] == before


@pytest.mark.parametrize("source", ["layered", "quickstart.py", "scopes_tour.py"])
def test_a_stage_read_later_shows_the_program_as_that_stage_left_it(source: str) -> None:
    """The texts are printed lazily, after the run: no later pass may have rewritten a stage's
    functions in place. Printed while the pipeline runs, each stage reads the same."""
    text = LAYERED if source == "layered" else (ROOT / "examples" / source).read_text()
    for program in analyse_source(text).programs:
        eager: list[str] = []

        def keep(_name: str, stage: ir.Program, _found: object, into: list[str] = eager) -> None:
            into.append(print_program(stage))

        front_end = program.diagnostics if program.front_end_failed else ()
        run_pipeline(program.source, front_end, observe=keep)
        lazy = [stage.text for stage in trace_program(program, raw=True).stages[1:]]
        assert lazy == eager
