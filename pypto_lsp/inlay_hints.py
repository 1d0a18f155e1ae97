"""Inlay hints: the captured variables' directions at the end of each scope header."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from .convert import PositionMapper, lsp_ranges_overlap
from .describe import param_list
from .session import Snapshot


def inlay_hints(snapshot: Snapshot, mapper: PositionMapper, visible: types.Range) -> list[types.InlayHint]:
    hints = []
    seen_headers: dict[tuple[int, int], list[str]] = {}
    for scope in snapshot.analysis.outlined:
        if not scope.params:
            continue
        line, col = _header_end(snapshot.lines, scope.header_span.end_line, scope.header_span.end_col)
        labels = seen_headers.setdefault((line, col), [])
        label = param_list(scope)
        if label in labels:
            continue  # a pl.spmd header: both functions usually take the same parameters
        labels.append(label)
        position = mapper.position(line, col)
        if not lsp_ranges_overlap(visible, types.Range(start=position, end=position)):
            continue
        hints.append(
            types.InlayHint(
                position=position,
                label=label,
                kind=types.InlayHintKind.Parameter,
                padding_left=True,
                tooltip=f"{scope.name}: parameter directions",
            )
        )
    return hints


def _header_end(lines: Sequence[str], line: int, col: int) -> tuple[int, int]:
    """Just after the `:` that ends the header (the end of the header call if none is found)."""
    text = lines[line] if line < len(lines) else ""
    colon = text.find(":", col)
    return (line, colon + 1) if colon >= 0 else (line, col)
