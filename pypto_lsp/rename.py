"""Rename of a program function (its `def`, every `self.f(...)` and jit call, and for a
module-level jit function the files importing it) and of a `name_hint` / `pl.graph` region name
(the string's contents). `prepareRename` refuses every other position, and a new name that is
not an identifier.

The edit is one `WorkspaceEdit`: the document itself from its analysis, other files (open
documents' current text, else the disk) from their own text: an importer names the function in
its `from ... import` and wherever it uses it.
"""

from __future__ import annotations

import ast
import keyword
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls import uris
from pygls.workspace.position_codec import PositionCodec

from pypto_core.span import Span, split_lines

from .convert import PositionMapper
from .queries import call_sites, function_at
from .session import Snapshot


@dataclass(frozen=True)
class Target:
    """What a rename at a position renames: `span` is the name (or the string's contents)."""

    kind: str  # "function" or "name"
    name: str
    span: Span
    module_level: bool = False  # a jit function other modules may import


def target_at(snapshot: Snapshot, line: int, col: int) -> Target | None:
    reference = function_at(snapshot, line, col)
    if reference is not None:
        jit = reference.program.source.origin == "jit"
        return Target("function", reference.function.name, reference.span, module_level=jit)
    for scope in snapshot.analysis.outlined:
        literal = scope.name_span
        if literal is not None and literal.contains(line, col) and literal.start_line == literal.end_line:
            inner = Span(literal.start_line, literal.start_col + 1, literal.end_line, literal.end_col - 1)
            text = snapshot.lines[literal.start_line][inner.start_col : inner.end_col]
            return Target("name", text, inner)
    return None


def prepare_rename(
    snapshot: Snapshot, mapper: PositionMapper, position: types.Position
) -> types.PrepareRenamePlaceholder | None:
    target = target_at(snapshot, *mapper.to_core(position))
    if target is None:
        return None
    return types.PrepareRenamePlaceholder(range=mapper.range(target.span), placeholder=target.name)


def valid_name(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name)


def own_spans(snapshot: Snapshot, target: Target) -> list[Span]:
    """Where the document itself names the target."""
    if target.kind == "name":
        return [target.span]
    spans: set[Span] = set()
    for program in snapshot.analysis.programs:
        function = program.source.get(target.name)
        if function is None:
            continue
        spans.add(function.name_span)
        spans.update(call_sites(program.source, target.name, snapshot.lines))
    return sorted(spans, key=lambda s: (s.start_line, s.start_col))


def importer_spans(text: str, module: str, name: str) -> list[Span]:
    """Where a file that imports `name` from a module called `module` (its last component, or
    relative) names it: in the import, and every use when it is not imported under an alias."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return []
    lines = split_lines(text)
    found: list[Span] = []
    bare = False
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == module:
            for alias in node.names:
                if alias.name == name:
                    found += _name_in_import(lines, node, name)
                    bare = bare or alias.asname is None
    if bare:
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id == name:
                column = len(lines[node.lineno - 1].encode()[: node.col_offset].decode(errors="ignore"))
                found.append(Span(node.lineno - 1, column, node.lineno - 1, column + len(name)))
    return sorted(set(found), key=lambda s: (s.start_line, s.start_col))


def _name_in_import(lines: list[str], node: ast.ImportFrom, name: str) -> list[Span]:
    """The imported name in a `from m import a, name as b` statement (its own lines only)."""
    for line in range(node.lineno - 1, (node.end_lineno or node.lineno)):
        text = lines[line]
        start = text.find("import") if line == node.lineno - 1 else 0
        for match in re.finditer(rf"\b{re.escape(name)}\b", text):
            if match.start() > start:
                return [Span(line, match.start(), line, match.end())]
    return []


def workspace_edit(
    snapshot: Snapshot,
    codec: PositionCodec,
    target: Target,
    new_name: str,
    other_files: Iterable[tuple[str, str]],
) -> types.WorkspaceEdit:
    """`other_files`: (uri, text) of the files that may import the function (ignored for a
    region name)."""
    changes: dict[str, list[types.TextEdit]] = {}
    mapper = PositionMapper(codec, snapshot.lines)
    changes[snapshot.uri] = [
        types.TextEdit(range=mapper.range(s), new_text=new_name) for s in own_spans(snapshot, target)
    ]
    if target.kind == "function" and target.module_level:
        path = uris.to_fs_path(snapshot.uri)
        module = Path(path).stem if path else ""
        for uri, text in other_files:
            if uri == snapshot.uri:
                continue
            spans = importer_spans(text, module, target.name)
            if spans:
                other = PositionMapper(codec, split_lines(text))
                changes[uri] = [types.TextEdit(range=other.range(s), new_text=new_name) for s in spans]
    return types.WorkspaceEdit(changes=changes)


def python_files(folders: Iterable[Path], read_open: Callable[[str], str | None]) -> list[tuple[str, str]]:
    """(uri, text) of every Python file under `folders` that mentions `import` (open documents'
    current text over the disk's)."""
    found = []
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            if any(part.startswith(".") or part in ("node_modules", "__pycache__") for part in path.parts):
                continue
            uri = uris.from_fs_path(str(path)) or path.as_uri()
            text = read_open(uri)
            if text is None:
                try:
                    text = path.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
            if "import" in text:
                found.append((uri, text))
    return found
