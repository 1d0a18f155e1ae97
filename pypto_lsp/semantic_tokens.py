"""Semantic tokens for captured variables inside scope bodies: token type `variable`, one
modifier for the direction the scope passes the variable with (`pyptoIn`, `pyptoOut`,
`pyptoInOut`) and `modification` where the occurrence writes it. The VS Code extension maps
them to theme scopes (`semanticTokenScopes`) so written tensors stand out.

Off unless `pypto.semanticTokens.enable` is set: a Python file's tokens come from Pylance too,
and an editor shows one provider's tokens per document."""

from __future__ import annotations

from lsprotocol import types

from pypto_core.ir import Direction

from .captures import all_capture_uses
from .convert import PositionMapper
from .session import Snapshot

MODIFIERS = ("pyptoIn", "pyptoOut", "pyptoInOut", "modification")
LEGEND = types.SemanticTokensLegend(token_types=["variable"], token_modifiers=list(MODIFIERS))
_DIRECTION_BIT = {Direction.In: 1, Direction.Out: 2, Direction.InOut: 4}
_WRITE_BIT = 8


def token_data(snapshot: Snapshot, mapper: PositionMapper) -> list[int]:
    """The tokens, encoded as LSP wants: (line delta, start delta, length, type, modifiers)."""
    data: list[int] = []
    last_line, last_start = 0, 0
    for use, direction in all_capture_uses(snapshot):
        span = mapper.range(use.span)
        line, start = span.start.line, span.start.character
        data += [
            line - last_line,
            start - last_start if line == last_line else start,
            span.end.character - start,
            0,
            _DIRECTION_BIT[direction] | (_WRITE_BIT if use.write else 0),
        ]
        last_line, last_start = line, start
    return data


def data_edits(previous: list[int], current: list[int]) -> list[types.SemanticTokensEdit]:
    """One edit turning `previous` into `current`: the middle between their common prefix
    and suffix (an edit usually changes tokens in one place)."""
    if previous == current:
        return []
    prefix = 0
    limit = min(len(previous), len(current))
    while prefix < limit and previous[prefix] == current[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and previous[-1 - suffix] == current[-1 - suffix]:
        suffix += 1
    return [
        types.SemanticTokensEdit(
            start=prefix,
            delete_count=len(previous) - prefix - suffix,
            data=current[prefix : len(current) - suffix],
        )
    ]
