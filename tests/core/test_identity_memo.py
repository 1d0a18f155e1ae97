"""`IdentityMemo`: a value taken again only while it is asked for with the same objects."""

from __future__ import annotations

from pypto_core.identity_memo import IdentityMemo


def test_a_value_is_taken_again_for_the_same_objects_and_computed_for_equal_ones() -> None:
    memo: IdentityMemo[int] = IdentityMemo()
    calls: list[int] = []

    def compute(value: int) -> int:
        calls.append(value)
        return value

    a, b = [1, 2], [3]
    assert memo.get("slot", [a, b], lambda: compute(1)) == 1
    assert memo.get("slot", [a, b], lambda: compute(2)) == 1  # the same objects: kept
    assert memo.get("slot", [a, [3]], lambda: compute(3)) == 3  # an equal list is no same object
    assert memo.get("slot", [a], lambda: compute(4)) == 4  # fewer objects
    assert memo.get("other", [a], lambda: compute(5)) == 5  # slots apart
    assert memo.last("slot") == 4 and memo.last("none") is None
    assert calls == [1, 3, 4, 5]


def test_the_slots_are_bounded() -> None:
    memo: IdentityMemo[int] = IdentityMemo(limit=2)
    objects = [object()]
    for slot in range(3):
        memo.get(slot, objects, lambda slot=slot: slot)  # type: ignore[misc]
    assert memo.last(2) == 2 and memo.last(0) is None


def test_a_value_is_revised_at_the_positions_that_changed_or_computed_when_revise_cannot() -> None:
    memo: IdentityMemo[tuple[int, ...]] = IdentityMemo()
    first = [object(), object(), object()]
    seen: list[list[int]] = []

    def revise(old: object, last: tuple[int, ...], changed: list[int]) -> tuple[int, ...] | None:
        seen.append(changed)
        return None if len(changed) > 1 else tuple(v + 1 if i in changed else v for i, v in enumerate(last))

    assert memo.get("s", first, lambda: (0, 0, 0), revise) == (0, 0, 0)
    second = [first[0], object(), first[2]]
    assert memo.get("s", second, lambda: (9, 9, 9), revise) == (0, 1, 0)
    third = [object(), object(), second[2]]
    assert memo.get("s", third, lambda: (9, 9, 9), revise) == (9, 9, 9)  # revise declined
    assert memo.get("s", third[:2], lambda: (5, 5), revise) == (5, 5)  # another length: computed
    assert seen == [[1], [0, 1]]
