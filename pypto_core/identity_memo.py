"""A value kept with the objects it was computed from, taken again while they are the same.

Much of what a keystroke recomputes program-wide is a function of lists whose elements are the
same objects as at the last keystroke (the passes hand on the objects of every function, record
and finding they keep): a whole-model entry's 680 records, 681 functions and 294 findings were
walked again by the host composition and the findings' rewriting at every keystroke. Comparing
two lists element by element by identity is a C loop (`map(is_, ...)`); comparing by value, or
hashing, calls Python code per element. Where a few elements changed (the edited scope's record
and function), the value may be revised at their positions (`revise`) instead of computed anew.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from itertools import compress
from operator import is_not
from typing import Generic, TypeVar

_V = TypeVar("_V")

# the last value's objects, the value, and the positions where the new objects differ from
# those: the revised value, or None when it must be computed anew
Revise = Callable[[Sequence[object], _V, list[int]], "_V | None"]


class IdentityMemo(Generic[_V]):
    """The last value computed per slot, with the objects it was computed from (held: the
    value may hold them too). At most `limit` slots: a slot is one program of one document
    (by name), so a long session with many documents clears it now and then."""

    def __init__(self, limit: int = 256) -> None:
        self._kept: dict[Hashable, tuple[tuple[object, ...], _V]] = {}
        self._limit = limit

    def last(self, slot: Hashable) -> _V | None:
        """The value `slot` was last computed to, whatever from."""
        known = self._kept.get(slot)
        return None if known is None else known[1]

    def get(
        self,
        slot: Hashable,
        objects: Sequence[object],
        compute: Callable[[], _V],
        revise: Revise[_V] | None = None,
    ) -> _V:
        """The value of `slot` computed from `objects` (by identity, in order): the last one
        when they are its objects; `revise`d from it when as many objects differ at a few
        positions and `revise` can; else `compute()`d."""
        known = self._kept.get(slot)
        value: _V | None = None
        if known is not None and len(known[0]) == len(objects):
            changed = list(compress(range(len(objects)), map(is_not, known[0], objects)))
            if not changed:
                return known[1]
            if revise is not None:
                value = revise(known[0], known[1], changed)
        if value is None:
            value = compute()
        if len(self._kept) >= self._limit:
            self._kept.clear()
        self._kept[slot] = (tuple(objects), value)
        return value
