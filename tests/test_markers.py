from markers import extract


def test_ranges_points_and_named_ranges_are_located_after_marker_removal() -> None:
    m = extract(
        """
        x = [|foo|](1)
        y = ${here}bar
        z = {|call:baz()|}
        """
    )
    assert m.text == "x = foo(1)\ny = bar\nz = baz()\n"
    assert (m.range.start_line, m.range.start_col, m.range.end_line, m.range.end_col) == (0, 4, 0, 7)
    assert m.point("here") == (1, 4)
    assert (m.named["call"].start_col, m.named["call"].end_col) == (4, 9)
