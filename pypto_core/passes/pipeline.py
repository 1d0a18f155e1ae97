"""The analysis the CLI and the language server run on one program: UnrollLoops, ConvertToSSA,
Simplify, then the outliners in the compiler's order (D2: Hierarchy -> Graph -> InCore ->
Cluster(+Spmd)), then the verifier. (InlineFunctions ran in the front end; FlattenCallExpr is
modelled as the order the outliners read a statement in, `flatten_calls.py`.)

A user error never stops the pipeline (the passes report and carry on). An exception is a bug
in this code: it is logged with its traceback and reported once, as PTO900 on the program's
header, and the program analysed so far is returned.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..diagnostics import Diagnostic, Severity, error
from ..ir import Program
from ..results import OutlinedScope, Promotion
from ..span import NO_SPAN, Span
from .context import PassContext
from .outline_cluster import outline_cluster_scopes
from .outline_graph import outline_graph_scopes
from .outline_hierarchy import outline_hierarchy_scopes
from .outline_incore import outline_incore_scopes
from .records import finalise_records
from .simplify import simplify
from .ssa import convert_to_ssa
from .unroll_loops import unroll_loops
from .verify import verify_input, verify_output, verify_structure

log = logging.getLogger(__name__)

OUTLINERS = (outline_hierarchy_scopes, outline_graph_scopes, outline_incore_scopes, outline_cluster_scopes)


@dataclass
class PipelineResult:
    program: Program
    outlined: list[OutlinedScope]
    promoted: list[Promotion]
    diagnostics: list[Diagnostic]


def run_pipeline(program: Program, front_end_diagnostics: Sequence[Diagnostic] = ()) -> PipelineResult:
    """`front_end_diagnostics` are what the front end reported for this program: after a parse
    error the compiler stops, so the verifier's warnings (consequences the compiler would never
    reach) are left out; pass-level errors are still reported for every other scope."""
    # only the last program is kept: the passes rewrite ConvertToSSA's output in place (_stages)
    ctx = PassContext(front_end_checked=True, owned=set())
    current = program
    try:
        for completed in _stages(program, front_end_diagnostics, ctx):
            current = completed
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
        current = _last_complete(program, front_end_diagnostics)
    outlined = sorted(finalise_records(ctx.outlined, current), key=lambda r: _span_key(r.scope_span))
    return PipelineResult(current, outlined, ctx.promoted, ctx.diagnostics)


def _stages(
    program: Program, front_end_diagnostics: Sequence[Diagnostic], ctx: PassContext
) -> Iterator[Program]:
    """The pipeline, yielding each program as soon as the pass producing it has completed."""
    ctx.diagnostics += verify_structure(program)
    current = convert_to_ssa(ctx.diagnostics)(unroll_loops(program))
    if ctx.owned is not None:
        ctx.owned.update(current.functions)  # rebuilt by ConvertToSSA: only its Vars are shared
    yield current
    current = simplify(ctx)(current)
    yield current
    ctx.diagnostics += verify_input(current, ctx.front_end_checked)
    for factory in OUTLINERS:
        current = factory(ctx)(current)
        yield current
    if not any(d.severity is Severity.ERROR for d in front_end_diagnostics):
        ctx.diagnostics += verify_output(current, {r.name for r in ctx.outlined}, ctx.front_end_checked)


def _last_complete(program: Program, front_end_diagnostics: Sequence[Diagnostic]) -> Program:
    """After a pass raised: the program the last completed pass produced. The failed run
    rewrote that program in place, so the passes run again, copying, up to the failing one (a
    bug path: its cost does not matter, a consistent program does)."""
    current = program
    try:
        for completed in _stages(program, front_end_diagnostics, PassContext(front_end_checked=True)):
            current = completed
    except Exception:
        log.debug("the rerun of program %s failed where the first run did", program.name)
    return current


def _span_key(span: Span) -> tuple[int, int]:
    return (span.start_line, span.start_col)
