"""Where a function body is its last run's: a keystroke's body is the body a pass met last time
but for the path to the edit, every other top-level statement the object of before (the front
end and the passes before keep them), so a pass that keeps its last run of a function takes
that run's results for the statements before the first new one and after the last."""

from __future__ import annotations

from collections.abc import Sequence


def shared_ends(old: Sequence[object], new: Sequence[object]) -> tuple[int, int, int]:
    """How many of `new`'s first items are `old`'s (the same objects, in order: `head`), where
    its items that are `old`'s last ones start (`tail`, never before `head`), and where those
    start in `old`: `new[:head]` is `old[:head]`, `new[tail:]` is `old[old_tail:]`."""
    limit = min(len(old), len(new))
    head = 0
    while head < limit and new[head] is old[head]:
        head += 1
    same = 0
    while same < limit - head and new[-1 - same] is old[-1 - same]:
        same += 1
    return head, len(new) - same, len(old) - same
