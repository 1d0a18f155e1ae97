"""Captured variables at their occurrences: which scope captures a name where it is written,
and its reads and writes there (`pypto_core.capture_uses`). Document highlights and semantic
tokens both read this, so they agree on what is a write."""

from __future__ import annotations

from collections.abc import Iterator

from pypto_core.capture_uses import Use, scope_uses
from pypto_core.ir import Direction
from pypto_core.results import OutlinedScope

from .session import Snapshot


def capture_uses(snapshot: Snapshot, scope: OutlinedScope, names: set[str]) -> list[Use]:
    program = next((p for p in snapshot.analysis.programs if p.name == scope.program), None)
    if program is None:
        return []
    return scope_uses(snapshot.lines, scope.scope_span, names, program.source)


def capturing_scope(
    snapshot: Snapshot, name: str, line: int, col: int
) -> tuple[OutlinedScope, Direction] | None:
    """The innermost scope around (line, col) that captures `name`, with its direction."""
    around = [s for s in snapshot.analysis.outlined if s.scope_span.contains(line, col)]
    for scope in sorted(around, key=_extent):
        for param in scope.params:
            if param.shown == name:
                return scope, param.direction
    return None


def all_capture_uses(snapshot: Snapshot) -> Iterator[tuple[Use, Direction]]:
    """Every occurrence of a captured variable inside a scope with the direction its innermost
    capturing scope passes it with, in source order."""
    found: dict[tuple[int, int], tuple[Use, Direction]] = {}
    seen: set[tuple[object, ...]] = set()
    for scope in sorted(snapshot.analysis.outlined, key=_extent, reverse=True):  # inner ones win
        key = (scope.scope_span, scope.program)
        if key in seen:
            continue
        seen.add(key)
        directions = {p.shown: p.direction for p in scope.params}
        for use in capture_uses(snapshot, scope, set(directions)):
            found[(use.span.start_line, use.span.start_col)] = (use, directions[use.name])
    for position in sorted(found):
        yield found[position]


def _extent(scope: OutlinedScope) -> tuple[int, int]:
    span = scope.scope_span
    return (span.end_line - span.start_line, span.end_col - span.start_col)
