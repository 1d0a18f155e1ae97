"""A pass trace: one program after each stage of the pipeline, and what each stage changed
(issue 19; the compiler's `passes_dump`, live).

Nothing is kept while the analysis runs, so tracing costs nothing until someone asks. A trace
re-runs the pipeline of one program from the front end's IR (`ProgramAnalysis.source`, which no
pass modifies) with an observer, so the passes copy what they rewrite and each stage's program
stays as it was. A function that is the same object as in the stage before was not touched; one
that was rewritten is compared structurally (`ir_equal`), so a stage knows what it changed
without printing anything. Texts are printed when first read, each function once per trace.

Stages are numbered in our pipeline's order and named after the compiler's passes, as its dump
files are (`00_frontend.py`, `03_after_Simplify.py`): our front end has already spliced the
inline helpers (the compiler's InlineFunctions), and the passes we do not model as a program
(CtrlFlowTransform, NormalizeStmtStructure, FlattenCallExpr) have no stage.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

from .diagnostics import Diagnostic
from .ir import Function, Program
from .ir_equal import ir_equal
from .passes.pipeline import PASS_NAMES, run_pipeline
from .printer import print_method, program_text
from .results import OutlinedScope, ProgramAnalysis

# the short name of each stage (`pypto-check --emit STAGE`), in order
_KEYS = {
    "UnrollLoops": "unroll",
    "ConvertToSSA": "ssa",
    "Simplify": "simplify",
    "OutlineHierarchyScopes": "hierarchy",
    "OutlineGraphScopes": "graph",
    "OutlineIncoreScopes": "incore",
    "OutlineClusterScopes": "cluster",
}
STAGE_KEYS = ("frontend", *(_KEYS[name] for name in PASS_NAMES))


class _Printer:
    """Prints each function once per trace: an untouched function is the same object in every
    stage after the one that last rewrote it."""

    def __init__(self, display: bool) -> None:
        self.display = display
        self._texts: dict[int, tuple[Function, str]] = {}  # the function is kept: ids stay unique

    def function(self, fn: Function) -> str:
        found = self._texts.get(id(fn))
        if found is None:
            found = self._texts[id(fn)] = (fn, print_method(fn, display=self.display))
        return found[1]


@dataclass(frozen=True, slots=True)
class Stage:
    """The program (or the traced function and what is outlined from it) after one stage.
    `added` / `changed` / `removed` compare its functions with the previous stage's by name
    and structure; `diagnostics` are what the pipeline reported while this stage ran (the
    verifier's findings, which follow the last outliner, with the last stage). `text` is
    printed when first read."""

    index: int
    key: str
    pass_name: str | None  # None: the front end's program
    program: str
    functions: tuple[Function, ...]
    printer: _Printer = field(repr=False, compare=False)
    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def text(self) -> str:
        return program_text(self.program, [self.printer.function(fn) for fn in self.functions])

    @property
    def file_name(self) -> str:
        """The compiler's dump file name for this stage."""
        if self.pass_name is None:
            return f"{self.index:02d}_frontend.py"
        return f"{self.index:02d}_after_{self.pass_name}.py"

    @property
    def unchanged(self) -> bool:
        return not (self.added or self.changed or self.removed)


@dataclass(frozen=True, slots=True)
class ProgramTrace:
    program: str
    function: str | None  # the function traced (with what is outlined from it); None: all
    stages: tuple[Stage, ...]

    def stage(self, key: str) -> Stage | None:
        return next((s for s in self.stages if s.key == key), None)

    def last_change(self) -> Stage | None:
        """The last stage that changed the traced code: what a reader wants to see first."""
        return next((s for s in reversed(self.stages) if not s.unchanged and s.index > 0), None)


def trace_program(
    analysis: ProgramAnalysis, *, raw: bool = False, function: str | None = None
) -> ProgramTrace:
    """`raw`: the IR's own variable names instead of the reader's (as `--raw`). `function`: only
    that function of the program and the functions outlined from it, at every stage."""
    recorder = _Recorder(_Printer(display=not raw), keep=_lineage(analysis.outlined, function))
    recorder.record("", analysis.source, ())
    # only whether the front end failed matters to the pipeline (the verifier is skipped then)
    front_end = analysis.diagnostics if analysis.front_end_failed else ()
    result = run_pipeline(analysis.source, front_end, observe=recorder.record)
    recorder.finish(result.diagnostics)
    return ProgramTrace(analysis.name, function, tuple(recorder.stages))


def _lineage(records: Sequence[OutlinedScope], function: str | None) -> frozenset[str] | None:
    """`function` and every function outlined from it, directly or from one outlined from it."""
    if function is None:
        return None
    children: dict[str, list[str]] = {}
    for r in records:
        children.setdefault(r.parent, []).append(r.name)
    kept, todo = {function}, [function]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in kept:
                kept.add(child)
                todo.append(child)
    return frozenset(kept)


@dataclass
class _Recorder:
    printer: _Printer
    keep: frozenset[str] | None
    stages: list[Stage] = field(default_factory=list)
    _functions: dict[str, Function] = field(default_factory=dict)
    _seen: int = 0  # diagnostics already attached to a stage

    def record(self, pass_name: str, program: Program, diagnostics: Sequence[Diagnostic]) -> None:
        functions = {fn.name: fn for fn in program.functions if self.keep is None or fn.name in self.keep}
        before = self._functions
        index = len(self.stages)
        self.stages.append(
            Stage(
                index=index,
                key=_KEYS.get(pass_name, "frontend"),
                pass_name=pass_name or None,
                program=program.name,
                functions=tuple(functions.values()),
                printer=self.printer,
                added=tuple(n for n in functions if n not in before) if index else (),
                changed=tuple(n for n, fn in functions.items() if n in before and _rewritten(before[n], fn)),
                removed=tuple(n for n in before if n not in functions),
                diagnostics=tuple(diagnostics[self._seen :]),
            )
        )
        self._functions = functions
        self._seen = len(diagnostics)

    def finish(self, diagnostics: Sequence[Diagnostic]) -> None:
        """What the pipeline reported after its last pass (the verifier, an internal error)."""
        late = tuple(diagnostics[self._seen :])
        if late and self.stages:
            last = self.stages[-1]
            self.stages[-1] = dataclasses.replace(last, diagnostics=last.diagnostics + late)


def _rewritten(old: Function, new: Function) -> bool:
    return old is not new and not ir_equal(old, new)
