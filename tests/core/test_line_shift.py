"""A move by pieces (`span.LineShift`): each line by its piece's delta, one delta an `int`, and
two moves in a row (`then`) the same as one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pypto_core.span import NO_SPAN, LineShift, Span, line_shift, then


def test_each_line_moves_by_the_delta_of_its_piece() -> None:
    shift = line_shift([10, 40, 90], [0, 2, 5])
    assert isinstance(shift, LineShift)
    assert [shift.line(n) for n in (3, 10, 39, 40, 89, 90, 200)] == [3, 10, 39, 42, 91, 95, 205]
    assert Span(39, 4, 41, 0).shifted(shift) == Span(39, 4, 43, 0)  # each end by its own piece


def test_pieces_that_move_alike_are_one_move() -> None:
    assert line_shift([10, 40], [3, 3]) == 3
    assert line_shift([10, 40, 90], [0, 2, 2]) == LineShift((10, 40), (0, 2))
    assert Span(5, 1, 6, 2).shifted(line_shift([0], [0])) == Span(5, 1, 6, 2)


_SHIFTS = st.one_of(
    st.integers(-20, 20),
    st.lists(st.tuples(st.integers(0, 60), st.integers(-5, 5)), min_size=1, max_size=5).map(
        lambda pieces: line_shift(
            sorted({s for s, _ in pieces}), [d for _, d in sorted(dict(pieces).items())]
        )
    ),
)


def _line(shift: int | LineShift, line: int) -> int:
    return line + shift if isinstance(shift, int) else shift.line(line)


@given(_SHIFTS, _SHIFTS)
def test_two_moves_in_a_row_are_the_move_then_gives(first, second) -> None:
    both = then(first, second)
    for line in range(-30, 120):
        assert _line(both, line) == _line(second, _line(first, line)), line


def test_no_position_is_moved_by_no_shift() -> None:
    # a node the passes give no position (`NO_SPAN`: an argument an outliner adds) stays
    # without one in a moved program, as a fresh analysis of the moved text leaves it
    assert NO_SPAN.shifted(3) is NO_SPAN
    assert NO_SPAN.shifted(line_shift([0, 10], [2, 5])) is NO_SPAN
    assert Span(0, 0, 0, 1).shifted(3) == Span(3, 0, 3, 1)
