"""Document symbols (program → function → outlined scope) and workspace symbol entries.

Scopes are named by the function they become, so the outline reads like the outlined program;
a nested scope sits under the scope whose function now contains its call.
"""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types

from pypto_core.results import FileAnalysis, OutlinedScope, ProgramAnalysis
from pypto_core.span import Span

from .convert import PositionMapper


def document_symbols(analysis: FileAnalysis, mapper: PositionMapper) -> list[types.DocumentSymbol]:
    symbols: list[types.DocumentSymbol] = []
    for program in analysis.programs:
        functions = _function_symbols(program, mapper)
        if program.source.origin == "jit":
            symbols += functions  # a jit program is its top-level functions, not one class
            continue
        symbols.append(
            types.DocumentSymbol(
                name=program.name,
                kind=types.SymbolKind.Class,
                detail="program",
                range=mapper.range(program.span),
                selection_range=mapper.range(program.source.name_span or program.span),
                children=functions,
            )
        )
    return symbols


def _function_symbols(program: ProgramAnalysis, mapper: PositionMapper) -> list[types.DocumentSymbol]:
    by_parent: dict[str, list[OutlinedScope]] = {}
    for scope in program.outlined:
        by_parent.setdefault(scope.parent, []).append(scope)

    def scopes_under(parent: str) -> list[types.DocumentSymbol]:
        return [
            types.DocumentSymbol(
                name=scope.name,
                kind=types.SymbolKind.Function,
                detail=scope.kind,
                range=mapper.range(scope.scope_span),
                selection_range=mapper.range(scope.header_span),
                children=scopes_under(scope.name),
            )
            for scope in by_parent.get(parent, [])
        ]

    functions = sorted(program.source.functions, key=lambda f: (f.span.start_line, f.span.start_col))
    return [
        types.DocumentSymbol(
            name=fn.name,
            kind=types.SymbolKind.Method if program.source.origin == "program" else types.SymbolKind.Function,
            detail=fn.type.value,
            range=mapper.range(fn.span),
            selection_range=mapper.range(fn.name_span),
            children=scopes_under(fn.name),
        )
        for fn in functions
    ]


@dataclass(frozen=True)
class SymbolEntry:
    """One workspace symbol, already in LSP units (computed where the file's lines are known)."""

    name: str
    kind: types.SymbolKind
    container: str
    location: types.Location


def symbol_entries(uri: str, analysis: FileAnalysis, mapper: PositionMapper) -> list[SymbolEntry]:
    """Every program function and outlined function of a file."""
    entries = []
    for program in analysis.programs:
        for fn in program.source.functions:
            entries.append(
                SymbolEntry(
                    fn.name, types.SymbolKind.Function, program.name, _location(uri, mapper, fn.name_span)
                )
            )
        for scope in program.outlined:
            entries.append(
                SymbolEntry(
                    scope.name,
                    types.SymbolKind.Function,
                    f"{program.name}.{scope.parent}",
                    _location(uri, mapper, scope.header_span),
                )
            )
    return entries


def _location(uri: str, mapper: PositionMapper, span: Span) -> types.Location:
    return types.Location(uri=uri, range=mapper.range(span))


def matches(query: str, name: str) -> bool:
    """Fuzzy match as editors do: the query's characters appear in order (case-insensitive)."""
    remaining = iter(name.lower())
    return all(ch in remaining for ch in query.lower())


def workspace_symbols(query: str, entries: list[SymbolEntry]) -> list[types.SymbolInformation]:
    """`SymbolInformation` rather than `WorkspaceSymbol`: every client version understands it."""
    return [
        types.SymbolInformation(name=e.name, kind=e.kind, container_name=e.container, location=e.location)
        for e in entries
        if matches(query, e.name)
    ]
