"""`span.utf16_column`: a code-point column as UTF-16 code units (the CLI's JSON ranges)."""

from __future__ import annotations

import pytest

from pypto_core.span import utf16_column


@pytest.mark.parametrize(
    ("line", "col", "units"),
    [
        ("x = pl.read(a)", 4, 4),  # ASCII: the column itself
        ("é = 中", 4, 4),  # in the BMP: one unit each
        ("s = '😀'; n = 1", 9, 10),  # beyond the BMP: two units
        ("😀😀x", 3, 5),
        ("\ud800x", 2, 2),  # a lone surrogate: one unit
        ("😀", 4, 5),  # a column past the line's end keeps its distance beyond it
        ("", 0, 0),
    ],
)
def test_a_column_counts_two_units_for_each_character_beyond_the_bmp(line: str, col: int, units: int) -> None:
    assert utf16_column(line, col) == units
