"""Source positions.

Every IR node and diagnostic carries a `Span`: 0-based lines and code-point columns, which is
what Python strings index by. LSP and the CLI's JSON speak UTF-16 code units; the single
conversion point is `utf16_column` (the server itself lets pygls convert).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True, init=False)
class Span:
    """A half-open source range: (start_line, start_col) up to (end_line, end_col)."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int

    def __init__(self, start_line: int, start_col: int, end_line: int, end_col: int) -> None:
        # The front end makes a span for nearly every node (~33k per 10k lines), and a frozen
        # dataclass's own __init__ stores each field through object.__setattr__, which made
        # it ~7 % of the front end. The slots' descriptors store the same values 40 % faster;
        # every other write still raises FrozenInstanceError.
        _set_start_line(self, start_line)
        _set_start_col(self, start_col)
        _set_end_line(self, end_line)
        _set_end_col(self, end_col)

    def shifted(self, line_delta: Shift) -> Span:
        """The same range moved down by `line_delta` lines (used to reuse an unchanged unit);
        by a `LineShift`, each end by the delta of the piece it is in."""
        if line_delta == 0 or not (self.end_line or self.end_col or self.start_line or self.start_col):
            return self  # `NO_SPAN` is no position: a fresh analysis leaves it where it is
        if line_delta.__class__ is not int:
            return line_delta.span(self)  # type: ignore[union-attr]
        # `make_span`: a moved copy makes one span per node it copies
        return make_span(
            self.start_line + line_delta,  # type: ignore[operator]
            self.start_col,
            self.end_line + line_delta,  # type: ignore[operator]
            self.end_col,
        )

    def contains(self, line: int, col: int) -> bool:
        """True when the position lies inside the range (end exclusive, but a point span matches)."""
        start = (self.start_line, self.start_col)
        end = (self.end_line, self.end_col)
        return start <= (line, col) < end or start == end == (line, col)


@dataclass(frozen=True, slots=True)
class LineShift:
    """Lines moved by pieces, each piece by its own delta, their order kept: a program whose
    units moved apart (a line typed inside one of them moves the units below it, not those
    above). `starts` are the pieces' first lines before the move, increasing; a line moves by
    the delta of the last piece starting at or before it (a line before the first piece, by
    the first piece's). Made by `line_shift`, which gives a plain `int` for one delta."""

    starts: tuple[int, ...]
    deltas: tuple[int, ...]

    def line(self, line: int) -> int:
        return line + self.deltas[max(bisect_right(self.starts, line) - 1, 0)]

    def span(self, span: Span) -> Span:
        starts, deltas = self.starts, self.deltas
        start, end = span.start_line, span.end_line
        return make_span(
            start + deltas[max(bisect_right(starts, start) - 1, 0)],
            span.start_col,
            end + deltas[max(bisect_right(starts, end) - 1, 0)],
            span.end_col,
        )


Shift = int | LineShift  # a move down the file: every line by one delta, or by pieces


def line_shift(starts: Sequence[int], deltas: Sequence[int]) -> Shift:
    """The move of the pieces starting at `starts` (increasing) by `deltas`: an `int` when they
    all move alike, else a `LineShift` with the pieces of equal delta next to each other merged."""
    kept_starts, kept_deltas = [starts[0]], [deltas[0]]
    for start, delta in zip(starts[1:], deltas[1:], strict=True):
        if delta != kept_deltas[-1]:
            kept_starts.append(start)
            kept_deltas.append(delta)
    if len(kept_deltas) == 1:
        return kept_deltas[0]
    return LineShift(tuple(kept_starts), tuple(kept_deltas))


def then(first: Shift, second: Shift) -> Shift:
    """The move `first` followed by `second` (whose lines are those after `first`)."""
    if first.__class__ is int and second.__class__ is int:
        return first + second  # type: ignore[operator]
    one = first if isinstance(first, LineShift) else LineShift((0,), (first,))  # type: ignore[arg-type]
    two = second if isinstance(second, LineShift) else LineShift((0,), (second,))  # type: ignore[arg-type]
    cuts = set(one.starts)
    for at, delta in enumerate(one.deltas):
        low = one.starts[at] if at else None
        high = one.starts[at + 1] if at + 1 < len(one.starts) else None
        for start in two.starts:
            line = start - delta  # where a piece of `second` begins, before `first`
            if (low is None or line >= low) and (high is None or line < high):
                cuts.add(line)
    starts = sorted(cuts)
    return line_shift(starts, [two.line(one.line(line)) - line for line in starts])


_set_start_line = vars(Span)["start_line"].__set__
_set_start_col = vars(Span)["start_col"].__set__
_set_end_line = vars(Span)["end_line"].__set__
_set_end_col = vars(Span)["end_col"].__set__


class _OpenSpan:
    """A `Span` being made: its slots, in its order, without the frozen guard."""

    __slots__ = Span.__slots__
    start_line: int
    start_col: int
    end_line: int
    end_col: int


def make_span(start_line: int, start_col: int, end_line: int, end_col: int) -> Span:
    """`Span(start_line, start_col, end_line, end_col)` at about half the cost, for the
    front end's one span per node built (~30k per 10k lines, a quarter of building them).

    Calling a class whose `__init__` is Python code is slow in CPython, and a frozen class
    can only store through its slot descriptors. An `_OpenSpan` has no `__init__` and plain
    slot stores; assigning `__class__` (allowed: the two layouts are identical) then makes it
    an ordinary, frozen `Span`, equal to and indistinguishable from one made by `Span(...)`."""
    span = _OpenSpan()
    span.start_line = start_line
    span.start_col = start_col
    span.end_line = end_line
    span.end_col = end_col
    span.__class__ = Span  # type: ignore[assignment]
    return span  # type: ignore[return-value]


NO_SPAN = Span(0, 0, 0, 0)


def utf16_column(line_text: str, col: int) -> int:
    """Convert a code-point column on `line_text` to a UTF-16 code-unit column."""
    prefix = line_text[:col]
    if prefix.isascii():  # nearly every column: no walk over the line's characters
        return col
    # each character beyond the BMP is two code units (a lone surrogate stays one)
    return col + len(prefix.encode("utf-16-le", "surrogatepass")) // 2 - len(prefix)


def split_lines(text: str) -> list[str]:
    """Lines as LSP clients count them: `\r\n`, `\r` and `\n` each end a line (no line ends kept)."""
    if "\r" not in text:
        return text.split("\n")  # the common case, several times faster than the regex
    return _LINE_BREAK.split(text)
