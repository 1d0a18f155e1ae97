"""`make_span` (the front end's fast span constructor) makes ordinary, frozen `Span`s."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from pypto_core.span import Span, make_span


def test_a_made_span_is_a_span_equal_to_the_constructed_one() -> None:
    made, constructed = make_span(3, 4, 5, 6), Span(3, 4, 5, 6)
    assert type(made) is Span
    assert made == constructed and hash(made) == hash(constructed)
    assert repr(made) == repr(constructed) == "Span(start_line=3, start_col=4, end_line=5, end_col=6)"
    assert pickle.loads(pickle.dumps(made)) == made == copy.deepcopy(made)
    assert dataclasses.replace(made, end_col=9) == Span(3, 4, 5, 9)


def test_a_made_span_is_frozen() -> None:
    made = make_span(0, 1, 0, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.start_line = 7  # type: ignore[misc]
