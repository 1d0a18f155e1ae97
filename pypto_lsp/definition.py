"""Go to definition and find references for program functions, and the way back from the
outlined-program document to the scope a function came from."""

from __future__ import annotations

from lsprotocol import types

from .convert import PositionMapper
from .outlined import program_at_line, scope_named
from .queries import call_sites, function_at, word_at
from .session import Snapshot


def definition(snapshot: Snapshot, mapper: PositionMapper, position: types.Position) -> types.Location | None:
    line, col = mapper.to_core(position)
    reference = function_at(snapshot, line, col)
    if reference is None:
        return None
    return types.Location(uri=snapshot.uri, range=mapper.range(reference.function.name_span))


def references(
    snapshot: Snapshot, mapper: PositionMapper, position: types.Position, include_declaration: bool
) -> list[types.Location]:
    line, col = mapper.to_core(position)
    reference = function_at(snapshot, line, col)
    if reference is None:
        return []
    spans = call_sites(reference.program.source, reference.function.name, snapshot.lines)
    if include_declaration:
        spans.insert(0, reference.function.name_span)
    return [types.Location(uri=snapshot.uri, range=mapper.range(span)) for span in spans]


def definition_from_outlined(
    source: Snapshot,
    source_mapper: PositionMapper,
    outlined_text: str,
    outlined_lines: list[str],
    line: int,
    col: int,
) -> types.Location | None:
    """From a name in the printed outlined program to the scope it came from, or to the
    user's `def` for a function that was not outlined."""
    word = word_at(outlined_lines, line, col)
    if word is None:
        return None
    program = program_at_line(outlined_text, line)
    scope = scope_named(source.analysis, word.text, program or None)
    if scope is not None:
        return types.Location(uri=source.uri, range=source_mapper.range(scope.header_span))
    for analysed in source.analysis.programs:
        function = analysed.source.get(word.text)
        if function is not None and (not program or analysed.name == program):
            return types.Location(uri=source.uri, range=source_mapper.range(function.name_span))
    return None
