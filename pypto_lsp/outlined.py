"""The outlined program as a document of its own.

`pypto/outlinedProgram {uri, rawNames?, position?}` returns the printed outlined program(s) of a
file (`text`) and, given a position in the source, where the function holding it is printed
(`selection`, so the document opens there); clients show it as a read-only document at
`pypto-outlined:<path of the file> (outlined)`. The lens command
`pypto.showOutlinedFunction(uri, name)` opens that document at the function. This module maps
between the two documents: where a function is printed, and which function a printed name is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from pypto_core.results import FileAnalysis, OutlinedScope
from pypto_core.span import Span, split_lines

from .convert import PositionMapper
from .session import Snapshot

OUTLINED_SCHEME = "pypto-outlined"
OUTLINED_PROGRAM_REQUEST = "pypto/outlinedProgram"

_CLASS = re.compile(r"^class\s+(\w+)")
_DEF = re.compile(r"^\s*def\s+(\w+)\s*\(")


# The document's name is the source's with this after it, so its tab reads `b.py (outlined)`
# instead of repeating the source's title.
TITLE_SUFFIX = " (outlined)"
_ENCODED_SUFFIXES = (TITLE_SUFFIX, "%20(outlined)", "%20%28outlined%29")


def outlined_uri(source_uri: str) -> str:
    """`file:///a/b.py` -> `pypto-outlined:/a/b.py%20(outlined)`; `untitled:Untitled-1` ->
    `pypto-outlined:Untitled-1%20(outlined)`."""
    parts = urlsplit(source_uri)
    return f"{OUTLINED_SCHEME}:{parts.path}%20(outlined)"


def source_uri(uri: str) -> str:
    """The document an outlined-program URI shows (any other URI is returned unchanged).

    Clients may carry the source URI in the query (VS Code does for non-file sources); without
    one, an absolute path names a file and any other path an untitled buffer."""
    parts = urlsplit(uri)
    if parts.scheme != OUTLINED_SCHEME:
        return uri
    if parts.query:
        return unquote(parts.query)
    path = parts.path
    for suffix in _ENCODED_SUFFIXES:  # clients encode the space and the parentheses or not
        path = path.removesuffix(suffix)
    if path.startswith("/"):
        return urlunsplit(("file", "", path, "", ""))
    return f"untitled:{path}"


def is_outlined_uri(uri: str) -> bool:
    return urlsplit(uri).scheme == OUTLINED_SCHEME


def document_text(analysis: FileAnalysis, printed: str) -> str:
    """The outlined-program document: the printed programs, or a comment saying why there are
    none (an empty document made clients say the file has no program when it had one)."""
    if printed.strip():
        return printed
    if analysis.programs:
        names = ", ".join(p.name for p in analysis.programs)
        return f"# The outlined program could not be built for {names}: see the file's diagnostics.\n"
    if not analysis.is_dsl:
        return "# This file does not import pypto.language: there is nothing to outline.\n"
    return (
        "# No @pl.program class, jit kernel, or inline helper holding a scope in this file: "
        "there is nothing to outline.\n"
    )


@dataclass(frozen=True)
class PrintedFunction:
    """Where `def <name>` is printed; `span` covers the name."""

    program: str
    name: str
    span: Span


def printed_functions(text: str) -> list[PrintedFunction]:
    """Every `def` of the printed program text, with the class it is printed in."""
    found = []
    program = ""
    for number, line in enumerate(text.splitlines()):
        if (klass := _CLASS.match(line)) is not None:
            program = klass.group(1)
        elif (fn := _DEF.match(line)) is not None:
            found.append(PrintedFunction(program, fn.group(1), Span(number, fn.start(1), number, fn.end(1))))
    return found


def find_printed(text: str, program: str, name: str) -> PrintedFunction | None:
    candidates = [f for f in printed_functions(text) if f.name == name]
    for candidate in candidates:
        if candidate.program == program:
            return candidate
    return candidates[0] if candidates else None


def program_at_line(text: str, line: int) -> str:
    """The class a line of the printed text belongs to ("" before any class)."""
    program = ""
    for number, text_line in enumerate(text.splitlines()):
        if number > line:
            break
        if (klass := _CLASS.match(text_line)) is not None:
            program = klass.group(1)
    return program


def scope_named(analysis: FileAnalysis, name: str, program: str | None = None) -> OutlinedScope | None:
    matches = [s for s in analysis.outlined if s.name == name]
    for scope in matches:
        if program is None or scope.program == program:
            return scope
    return matches[0] if matches else None


@dataclass(frozen=True)
class OutlinedFunction:
    """Where the lens command shows a function: its `def` in the outlined-program document."""

    uri: str
    name: str
    text: str  # the function printed as DSL
    selection: types.Range

    def as_json(self) -> dict[str, Any]:
        start, end = self.selection.start, self.selection.end
        return {
            "uri": self.uri,
            "name": self.name,
            "text": self.text,
            "range": {
                "start": {"line": start.line, "character": start.character},
                "end": {"line": end.line, "character": end.character},
            },
        }


def outlined_function(
    snapshot: Snapshot, name: str, outlined_text: str, codec: PositionCodec
) -> OutlinedFunction | None:
    scope = scope_named(snapshot.analysis, name)
    if scope is None:
        return None
    printed = find_printed(outlined_text, scope.program, name)
    span = printed.span if printed is not None else Span(0, 0, 0, 0)
    selection = PositionMapper(codec, split_lines(outlined_text)).range(span)
    return OutlinedFunction(outlined_uri(snapshot.uri), name, scope.function_text, selection)


def function_under(snapshot: Snapshot, line: int, col: int) -> tuple[str, str] | None:
    """(program, function) whose printed `def` a source position belongs to: the innermost
    scope around it (the function it becomes), else the user's function holding it."""
    around = [s for s in snapshot.analysis.outlined if s.scope_span.contains(line, col)]
    if around:
        innermost = min(
            around, key=lambda s: (s.scope_span.end_line - s.scope_span.start_line, -s.scope_span.start_col)
        )
        return innermost.program, innermost.name
    for program in snapshot.analysis.programs:
        for function in program.source.functions:
            if function.span.contains(line, col):
                return program.name, function.name
    return None


def selection_in(outlined_text: str, program: str, name: str, codec: PositionCodec) -> dict[str, Any] | None:
    """The LSP range of `def name` in the printed text, as JSON."""
    printed = find_printed(outlined_text, program, name)
    if printed is None:
        return None
    selection = PositionMapper(codec, split_lines(outlined_text)).range(printed.span)
    return {
        "start": {"line": selection.start.line, "character": selection.start.character},
        "end": {"line": selection.end.line, "character": selection.end.character},
    }
