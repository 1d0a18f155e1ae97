"""Core spans (0-based lines, code-point columns) to and from LSP positions.

All unit conversion goes through pygls's position codec, which knows the encoding negotiated
with the client (UTF-16 unless the client offered otherwise); nothing here counts code units.
The lines are the analysed text split the way the core splits it, so a span and the text it
was computed on always agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec, ServerTextPosition

from pypto_core.span import Span


@dataclass(frozen=True)
class PositionMapper:
    codec: PositionCodec
    lines: Sequence[str]

    def position(self, line: int, col: int) -> types.Position:
        if line == 0 and self._bom:
            col += 1
        if line >= len(self.lines):
            last = len(self.lines) - 1
            return self.codec.position_to_client_units(
                self.lines, ServerTextPosition(last, len(self.lines[last]))
            )
        return self.codec.position_to_client_units(self.lines, ServerTextPosition(line, col))

    def range(self, span: Span) -> types.Range:
        return types.Range(
            start=self.position(span.start_line, span.start_col),
            end=self.position(span.end_line, span.end_col),
        )

    def to_core(self, position: types.Position) -> tuple[int, int]:
        """An LSP position as (line, code-point column) in the analysed text."""
        copy = types.Position(line=position.line, character=position.character)  # the codec may clamp it
        server = self.codec.position_from_client_units(self.lines, copy)
        if server.line == 0 and self._bom:
            return 0, max(server.character - 1, 0)
        return server.line, server.character

    @property
    def _bom(self) -> bool:
        """A U+FEFF kept at the start of the buffer: the analysis drops it, so its line-0
        columns are one less than the buffer's (they were shown shifted by one)."""
        return bool(self.lines) and self.lines[0].startswith("\ufeff")


def lsp_range_contains(outer: types.Range, inner: types.Range) -> bool:
    return _key(outer.start) <= _key(inner.start) and _key(inner.end) <= _key(outer.end)


def lsp_ranges_overlap(a: types.Range, b: types.Range) -> bool:
    return _key(a.start) <= _key(b.end) and _key(b.start) <= _key(a.end)


def _key(position: types.Position) -> tuple[int, int]:
    return position.line, position.character
