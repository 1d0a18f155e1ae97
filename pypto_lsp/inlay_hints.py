"""Inlay hints: how a scope passes each variable it captures, at the variable's first use.

The lens on the header says what the scope becomes (the function, what it writes, how much it
reads); the hints put each captured variable's direction where the variable is, `t: In`,
`out: Out`, once per scope at its first mention in the body, so the two never repeat each
other on adjacent lines. A variable that callers of a shared helper pass differently shows
every direction (`In/InOut`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lsprotocol import types

from pypto_core.ir import Direction

from .convert import PositionMapper
from .queries import ScopeView, scope_views
from .session import Snapshot


def inlay_hints(snapshot: Snapshot, mapper: PositionMapper, visible: types.Range) -> list[types.InlayHint]:
    first, last = visible.start.line, visible.end.line
    hints = []
    for view in scope_views(snapshot):
        scope = view.main.scope_span
        if scope.end_line < first or scope.start_line > last:
            continue
        for name, directions, (line, col) in _first_uses(snapshot.lines, view):
            if not first <= line <= last:
                continue
            label = "/".join(d.value for d in directions)
            hints.append(
                types.InlayHint(
                    position=mapper.position(line, col),
                    label=f": {label}",
                    kind=types.InlayHintKind.Type,
                    tooltip=f"{name} is passed to {view.main.name} as {label}",
                )
            )
    return sorted(hints, key=lambda h: (h.position.line, h.position.character))


def _first_uses(lines: Sequence[str], view: ScopeView) -> list[tuple[str, list[Direction], tuple[int, int]]]:
    """(name, directions, end of its first mention after the header) per captured variable.
    A mention is the name as a whole word that is not an attribute (`pl.out`) or a keyword
    argument (`out=`)."""
    scope, header = view.main.scope_span, view.main.header_span
    found = []
    for name, directions in view.params:
        pattern = re.compile(rf"(?<![\w.]){re.escape(name)}\b(?!\s*=[^=])")
        for line in range(header.end_line + 1, min(scope.end_line + 1, len(lines))):
            text = lines[line]
            if line == scope.end_line:
                text = text[: scope.end_col]
            match = pattern.search(_code_part(text))
            if match is not None:
                found.append((name, directions, (line, match.end())))
                break
    return found


def _code_part(text: str) -> str:
    """The line without a trailing comment (a `#` outside a string literal)."""
    quote = ""
    for i, char in enumerate(text):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#":
            return text[:i]
    return text
