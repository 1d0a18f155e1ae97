"""Run a marked DSL snippet through the whole analysis and look at what the outliners made of it.

Snippets are written as the members of a `@pl.program class P` (or as a whole file starting with
`import`); markers (tests/markers.py) name the positions a test talks about.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pypto_core.analysis import analyse_source
from pypto_core.diagnostics import Diagnostic, Severity
from pypto_core.ir import Function
from pypto_core.results import FileAnalysis, OutlinedScope
from pypto_core.span import Span

from markers import Marked, extract

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from gen_dsl import generate, generate_jit

HEADER = "import pypto.language as pl\nimport pypto.language.distributed as pld\n\n\n"
T64 = "pl.Tensor[[64], pl.FP32]"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def source_text(name: str, own: Mapping[str, str] | None = None) -> str:
    """A test source by name: one of the test's `own` snippets, "generated" (small programs,
    300 lines of `gen_dsl.generate`), "jit" (one jit program of 600 lines, `generate_jit`), or
    a file of examples/."""
    if own is not None and name in own:
        return own[name]
    if name == "generated":
        return generate(300)
    if name == "jit":
        return generate_jit(600)
    return (EXAMPLES / name).read_text()


@dataclass
class Run:
    analysis: FileAnalysis
    marked: Marked

    def scope(self, name: str) -> OutlinedScope:
        for record in self.analysis.outlined:
            if record.name == name:
                return record
        raise AssertionError(f"no outlined {name!r}; got {self.names}")

    @property
    def names(self) -> list[str]:
        return [r.name for r in self.analysis.outlined]

    def params(self, name: str) -> list[tuple[str, str]]:
        return [(p.name, p.direction.value) for p in self.scope(name).params]

    def returns(self, name: str) -> tuple[str, ...]:
        return self.scope(name).returns

    def call(self, name: str) -> str:
        return self.scope(name).call

    def function(self, name: str) -> Function:
        for program in self.analysis.programs:
            if program.outlined_program is not None and (fn := program.outlined_program.get(name)):
                return fn
        raise AssertionError(f"no function {name!r}")

    @property
    def problems(self) -> list[Diagnostic]:
        return [d for d in self.analysis.diagnostics if d.severity in (Severity.ERROR, Severity.WARNING)]

    @property
    def errors(self) -> list[str]:
        return [d.code for d in self.analysis.diagnostics if d.severity is Severity.ERROR]

    @property
    def codes(self) -> list[str]:
        return [d.code for d in self.problems]

    def only(self, code: str) -> Diagnostic:
        found = [d for d in self.analysis.diagnostics if d.code == code]
        assert len(found) == 1, [(d.code, d.message) for d in self.analysis.diagnostics]
        return found[0]

    def range(self, name: str | None = None) -> Span:
        return self.marked.named[name] if name is not None else self.marked.range

    @property
    def promoted(self) -> dict[str, str]:
        return {p.function: p.to for p in self.analysis.promoted}


def run(members: str) -> Run:
    text = textwrap.dedent(members).strip("\n")
    if not text.startswith("import"):
        text = HEADER + "@pl.program\nclass P:\n" + textwrap.indent(text, "    ")
    marked = extract(text + "\n", dedent=False)
    return Run(analyse_source(marked.text), marked)


def clean(members: str) -> Run:
    """`run()` asserting that nothing went wrong: no errors, and no warning other than the
    compiler's own PTO504 for compute ops the example deliberately leaves in the parent."""
    result = run(members)
    assert [c for c in result.codes if c != "PTO504"] == [], [(d.code, d.message) for d in result.problems]
    return result
