"""`pypto/passTrace`: a program's text after each stage of the pipeline (`pypto_core.pass_trace`).

Params `{uri, program?, function?, position?, rawNames?}`: `program` names the program traced,
else the one holding `position`, else every program of the file; `function` traces only that
function and what is outlined from it. The result, `{programs: [...]}`, has per program its
stages (`key`, the compiler's dump `file` name, `text`, the functions `added` / `changed` /
`removed`, `unchanged`, and the `diagnostics` reported while it ran) and `lastChange`, the key of
the last stage that changed it: what a client shows first. Clients show two stages side by side
(VS Code's diff editor, a Neovim diff split).
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from pypto_core.pass_trace import ProgramTrace, Stage, trace_program
from pypto_core.results import ProgramAnalysis
from pypto_core.span import Span

from .convert import PositionMapper
from .session import Snapshot

PASS_TRACE_REQUEST = "pypto/passTrace"
SHOW_PASS_TRACE = "pypto.showPassTrace"  # the client's command (VS Code); the lens names it


def trace_result(
    snapshot: Snapshot,
    mapper: PositionMapper,
    *,
    program: str | None,
    function: str | None,
    position: types.Position | None,
    raw: bool,
) -> dict[str, Any]:
    """The answer to one request (run on the analysis worker: a trace re-runs the passes)."""
    chosen = _programs(snapshot, mapper, program, position)
    return {"programs": [_program_json(trace_program(p, raw=raw, function=function)) for p in chosen]}


def _programs(
    snapshot: Snapshot, mapper: PositionMapper, name: str | None, position: types.Position | None
) -> list[ProgramAnalysis]:
    programs = snapshot.analysis.programs
    if name is not None:
        return [p for p in programs if p.name == name]
    if position is not None:
        line, col = mapper.to_core(position)
        holding = [p for p in programs if p.span.contains(line, col)]
        if holding:
            return holding[:1]
    return list(programs)


def _program_json(trace: ProgramTrace) -> dict[str, Any]:
    last = trace.last_change()
    return {
        "name": trace.program,
        "function": trace.function,
        "stages": [_stage_json(s) for s in trace.stages],
        "lastChange": None if last is None else last.key,
    }


def _stage_json(stage: Stage) -> dict[str, Any]:
    return {
        "index": stage.index,
        "key": stage.key,
        "pass": stage.pass_name,
        "file": stage.file_name,
        "text": stage.text,
        "added": list(stage.added),
        "changed": list(stage.changed),
        "removed": list(stage.removed),
        "unchanged": stage.unchanged,
        "diagnostics": [
            {
                "code": d.code,
                "severity": d.severity.value,
                "message": d.message,
                "line": d.span.start_line,
            }
            for d in stage.diagnostics
        ],
    }


def program_lenses(snapshot: Snapshot, mapper: PositionMapper) -> list[types.CodeLens]:
    """One "pass trace" lens on each program's header, for clients that show traces."""
    return [
        types.CodeLens(
            range=mapper.range(
                Span(p.span.start_line, p.span.start_col, p.span.start_line, p.span.start_col)
            ),
            command=types.Command(
                title="pass trace", command=SHOW_PASS_TRACE, arguments=[snapshot.uri, p.name]
            ),
        )
        for p in snapshot.analysis.programs
        if p.outlined
    ]


def _header(span: Span) -> Span:
    return Span(span.start_line, span.start_col, span.start_line, span.start_col)
