"""Where a scope's body reads and writes the variables it captures, occurrence by occurrence.

Editors highlight a captured tensor's reads and writes and colour it by its direction; for
that they need each occurrence of the name in the scope, and whether it writes: an assignment
target, or an argument in a slot its op writes (`ops.py`, asked of the call the front end built
at that place, so `atomic=` and the unified ops' Tensor/Tile forms count as the passes count
them). The IR keeps one `Var` per source name, not per use, so the occurrences come from the
scope's own text, parsed with `ast` on its own.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from .ir import Call, Program
from .ops import written_args
from .passes.outline_ir import walk_calls
from .span import Span


@dataclass(frozen=True)
class Use:
    name: str
    span: Span
    write: bool


def scope_uses(lines: Sequence[str], scope: Span, names: Collection[str], program: Program) -> list[Use]:
    """Every occurrence of `names` in the scope spanning `scope` (header included), in order;
    empty when the scope's text does not parse on its own."""
    tree = _parse(lines, scope)
    if tree is None or not names:
        return []
    calls = _calls_by_start(program, scope)
    written: set[tuple[int, int]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            call = calls.get(_position(lines, scope, node))
            slots = {index for index, _ in written_args(call)} if call is not None else set()
            for index, arg in enumerate(node.args):
                if index in slots and isinstance(arg, ast.Name):
                    written.add(_position(lines, scope, arg))
    uses = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in names:
            line, col = _position(lines, scope, node)
            store = isinstance(node.ctx, (ast.Store, ast.Del))
            uses.append(
                Use(node.id, Span(line, col, line, col + len(node.id)), store or (line, col) in written)
            )
    return sorted(uses, key=lambda u: (u.span.start_line, u.span.start_col))


def _parse(lines: Sequence[str], scope: Span) -> ast.Module | None:
    """The scope's lines as a block under `if 1:` (their indentation kept, so columns match)."""
    if scope.end_line >= len(lines) or scope.start_col == 0:
        return None
    first = " " * scope.start_col + lines[scope.start_line][scope.start_col :]
    body = [first, *lines[scope.start_line + 1 : scope.end_line + 1]]
    try:
        return ast.parse("if 1:\n" + "\n".join(body))
    except (SyntaxError, ValueError, RecursionError):
        return None


def _position(lines: Sequence[str], scope: Span, node: ast.expr) -> tuple[int, int]:
    """An `ast` position in the parsed block as (line, code-point column) in the file."""
    line = scope.start_line + node.lineno - 2
    text = lines[line].encode("utf-8")
    return line, len(text[: node.col_offset].decode("utf-8", errors="ignore"))


def _calls_by_start(program: Program, scope: Span) -> dict[tuple[int, int], Call]:
    found = {}
    for function in program.functions:
        span = function.span
        if span.start_line <= scope.end_line and scope.start_line <= span.end_line:
            for call in walk_calls(function.body):
                if scope.start_line <= call.span.start_line <= scope.end_line:
                    found[(call.span.start_line, call.span.start_col)] = call
    return found
