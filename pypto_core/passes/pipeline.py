"""The analysis the CLI and the language server run on one program: UnrollLoops, ConvertToSSA,
Simplify, then the outliners in the compiler's order (D2: Hierarchy -> Graph -> InCore ->
Cluster(+Spmd)), then the verifier. (InlineFunctions ran in the front end; FlattenCallExpr is
modelled as the order the outliners read a statement in, `flatten_calls.py`.)

A user error never stops the pipeline (the passes report and carry on). An exception is a bug
in this code: it is logged with its traceback and reported once, as PTO900 on the program's
header, and the program analysed so far is returned.

Every pass is copy-on-write: it never modifies its input (nor any node it did not create in its
own run), and a function or statement it does not change is the same object in its output. So
each stage's program stays as it was while the later passes run, and the stages share what no
pass between them changed.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from operator import attrgetter

from ..diagnostics import Diagnostic, Severity, error
from ..ir import Program
from ..results import OutlinedScope, Promotion
from ..span import NO_SPAN
from .context import PassContext
from .in_param_written import in_params_written
from .outline_cluster import outline_cluster_scopes
from .outline_graph import outline_graph_scopes
from .outline_hierarchy import outline_hierarchy_scopes
from .outline_incore import outline_incore_scopes
from .prefix_rejections import break_lowering_problems, simplify_problems
from .records import finalise_records
from .simplify import simplify
from .ssa import convert_to_ssa
from .symbol_scope import symbol_scope_problems
from .unroll_loops import unroll_loops
from .verify import verify_input, verify_output, verify_structure

log = logging.getLogger(__name__)

OUTLINERS = (
    ("OutlineHierarchyScopes", outline_hierarchy_scopes),
    ("OutlineGraphScopes", outline_graph_scopes),
    ("OutlineIncoreScopes", outline_incore_scopes),
    ("OutlineClusterScopes", outline_cluster_scopes),
)

# The compiler's name of each pass whose program the pipeline yields, in order: what a pass
# trace (`pass_trace.py`) shows after the front end's program.
PASS_NAMES = ("UnrollLoops", "ConvertToSSA", "Simplify", *(name for name, _ in OUTLINERS))

# Told each completed pass's name, its program and the diagnostics so far, while the pipeline
# runs. Every program it is shown stays as it was (the passes are copy-on-write): a function
# that is the same object in two stages was not touched in between.
Observer = Callable[[str, Program, Sequence[Diagnostic]], None]


@dataclass
class PipelineResult:
    program: Program
    outlined: list[OutlinedScope]
    promoted: list[Promotion]
    diagnostics: list[Diagnostic]


def run_pipeline(
    program: Program, front_end_diagnostics: Sequence[Diagnostic] = (), observe: Observer | None = None
) -> PipelineResult:
    """`front_end_diagnostics` are what the front end reported for this program: after a parse
    error the compiler stops, so the verifier's warnings (consequences the compiler would never
    reach) are left out; pass-level errors are still reported for every other scope.
    `observe` sees each pass's program as it completes (a pass trace; nothing when None)."""
    ctx = PassContext(front_end_checked=True)
    current = program
    try:
        for name, completed in _stages(program, front_end_diagnostics, ctx):
            current = completed
            if observe is not None:
                observe(name, completed, ctx.diagnostics)
    except Exception as exc:  # a bug in a pass: report once, never crash the analysis
        log.exception("internal error while analysing program %s", program.name)
        header = program.name_span if program.name_span != NO_SPAN else program.span
        ctx.diagnostics.append(
            error(
                "PTO900",
                f"internal error in pypto-lsp while analysing program '{program.name}': "
                f"{type(exc).__name__}: {exc}",
                header,
                hint="please report this with the file that triggers it",
            )
        )
    outlined = sorted(finalise_records(ctx.outlined, current), key=_SCOPE_START)
    # The functions the user wrote whose type changed; an outlined function's record already
    # carries its final type.
    names = {record.name for record in outlined}
    promoted = [p for p in ctx.promoted if p.function not in names]
    return PipelineResult(current, outlined, promoted, once_per_statement(ctx.diagnostics))


def once_per_statement(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The first of the diagnostics one statement's copies raise alike (UnrollLoops copies a
    body once per iteration, each copy's scope named `<name>_<i>`): equal but for the function
    they name, they are one finding of the source, which the compiler reports once."""
    seen: dict[int, list[tuple[object, ...]]] = {}
    kept: list[Diagnostic] = []
    known = _KEYS
    for d in diagnostics:
        entry = known.get(id(d))  # a keystroke's run meets again nearly all its findings
        if entry is None or entry[0]() is not d:
            entry = _key(d)
        alike = seen.setdefault(entry[1], [])
        if entry[2] not in alike:
            alike.append(entry[2])
            kept.append(d)
    return kept


# a finding (by identity: it compares by value) -> what `once_per_statement` compares of it, its
# hash first (a span's is computed in Python), while the finding lives
_KEYS: dict[int, tuple[weakref.ref[Diagnostic], int, tuple[object, ...]]] = {}


def _key(d: Diagnostic) -> tuple[weakref.ref[Diagnostic], int, tuple[object, ...]]:
    key = (d.code, d.span, tuple(sorted((k, repr(v)) for k, v in d.data.items() if k != "function")))
    at = id(d)
    entry = _KEYS[at] = (weakref.ref(d, lambda _, at=at: _KEYS.pop(at, None)), hash(key), key)  # type: ignore[misc]
    return entry


def _stages(
    program: Program, front_end_diagnostics: Sequence[Diagnostic], ctx: PassContext
) -> Iterator[tuple[str, Program]]:
    """The pipeline, yielding each program (with its pass's name, `PASS_NAMES`) as soon as the
    pass producing it has completed."""
    ctx.diagnostics += verify_structure(program)
    current = unroll_loops(program)
    yield "UnrollLoops", current
    ctx.diagnostics += break_lowering_problems(current)
    current = convert_to_ssa(ctx.diagnostics)(current)
    ctx.diagnostics += symbol_scope_problems(current, program)
    yield "ConvertToSSA", current
    ctx.diagnostics += simplify_problems(current)
    current = simplify(ctx)(current)
    yield "Simplify", current
    ctx.diagnostics += verify_input(current, ctx.front_end_checked)
    for name, factory in OUTLINERS:
        current = factory(ctx)(current)
        yield name, current
    if not any(d.severity is Severity.ERROR for d in front_end_diagnostics):
        ctx.diagnostics += verify_output(current, ctx.front_end_checked)
        ctx.diagnostics += in_params_written(current, {r.name for r in ctx.outlined})


# a record's place: its scope's start (in C: a whole-model program has hundreds of records)
_SCOPE_START = attrgetter("scope_span.start_line", "scope_span.start_col")
