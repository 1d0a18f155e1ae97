"""`pypto/passTrace`: a program's text after each stage of the pipeline (`pypto_core.pass_trace`).

Params `{uri, program?, function?, position?, rawNames?, stages?}`: `program` names the program
traced, else the one holding `position`, else every program of the file; `function` traces only
that function and what is outlined from it; `stages` (keys or dump file names) limits which
stages carry their `text` (all when absent: printing is most of a trace's cost). The result,
`{programs: [...]}`, has per program its stages (`key`, the compiler's dump `file` name, `text`
or null, the functions `added` / `changed` / `removed`, `unchanged`, and the `diagnostics`
reported while it ran) and `lastChange`, the key of the last stage that changed it: what a
client shows first. Clients show two stages side by side (VS Code's diff editor, a Neovim diff
split) and ask for each side's text after the summary: `TraceCache` keeps the last traces of a
document version, so those requests print and do not run the passes again.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types

from pypto_core.pass_trace import ProgramTrace, Stage, trace_program
from pypto_core.results import ProgramAnalysis
from pypto_core.span import Span

from .convert import PositionMapper
from .session import Snapshot

PASS_TRACE_REQUEST = "pypto/passTrace"
SHOW_PASS_TRACE = "pypto.showPassTrace"  # the client's command (VS Code); the lens names it


_TraceKey = tuple[str, str | None, bool]  # program, function, raw names


@dataclass
class TraceCache:
    """The traces of the newest analysis of each document asked about: the summary a client
    asks for first and the stage texts it asks for next come from one pipeline run. An entry
    is the snapshot's (version, generation): a dependency's edit re-analyses at one version."""

    entries: dict[str, tuple[tuple[int, int], dict[_TraceKey, ProgramTrace]]] = field(default_factory=dict)

    def trace(
        self, snapshot: Snapshot, program: ProgramAnalysis, function: str | None, raw: bool
    ) -> ProgramTrace:
        analysed = (snapshot.version, snapshot.generation)
        found = self.entries.get(snapshot.uri)
        if found is None or found[0] != analysed:
            found = self.entries[snapshot.uri] = (analysed, {})
        traces = found[1]
        key = (program.name, function, raw)
        if key not in traces:
            traces[key] = trace_program(program, raw=raw, function=function)
        return traces[key]

    def forget(self, uri: str) -> None:
        self.entries.pop(uri, None)


def trace_result(
    snapshot: Snapshot,
    mapper: PositionMapper,
    cache: TraceCache,
    *,
    program: str | None,
    function: str | None,
    position: types.Position | None,
    raw: bool,
    stages: Collection[str] | None,
) -> dict[str, Any]:
    """The answer to one request (run on the analysis worker: a trace re-runs the passes)."""
    chosen = _programs(snapshot, mapper, program, position)
    traces = [cache.trace(snapshot, p, function, raw) for p in chosen]
    return {"programs": [_program_json(t, stages) for t in traces]}


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


def _program_json(trace: ProgramTrace, texts: Collection[str] | None) -> dict[str, Any]:
    last = trace.last_change()
    return {
        "name": trace.program,
        "function": trace.function,
        "stages": [
            _stage_json(s, texts is None or s.key in texts or s.file_name in texts) for s in trace.stages
        ],
        "lastChange": None if last is None else last.key,
    }


def _stage_json(stage: Stage, with_text: object) -> dict[str, Any]:
    return {
        "index": stage.index,
        "key": stage.key,
        "pass": stage.pass_name,
        "file": stage.file_name,
        "text": stage.text if with_text else None,
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
