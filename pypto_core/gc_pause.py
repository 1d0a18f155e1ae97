"""Pausing Python's cyclic garbage collector while an analysis builds its trees.

An analysis allocates hundreds of thousands of small, acyclic objects (AST nodes, IR nodes)
that reference counting frees on its own. The cyclic collector, triggered by allocation
counts, would meanwhile walk every live object again and again; on a 50k-line file that is
half the analysis time (bench/README.md). It is paused for the duration of one analysis and
resumes its normal schedule afterwards, so garbage cycles are still collected.

When it resumes, everything the analysis allocated and kept (its result) would still sit in
the youngest generation, and the first young collection would walk all of it: on 10k lines
that one walk cost as much as a third of the analysis. The survivors are long-lived by
nature, so they are moved straight to the oldest generation instead (`gc.freeze()` followed
by `gc.unfreeze()` is that move, in constant time). That is skipped when the host process
froze objects itself, since unfreezing would undo its choice.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pausers = 0  # analyses currently running (the collector is process-wide)
_reenable = False  # whether the collector was enabled when the first of them started


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic collector inside the block; re-entrant and thread-safe."""
    global _pausers, _reenable
    with _lock:
        if _pausers == 0:
            _reenable = gc.isenabled()
            gc.disable()
        _pausers += 1
    try:
        yield
    finally:
        with _lock:
            _pausers -= 1
            if _pausers == 0 and _reenable:
                _promote_survivors()
                gc.enable()


def _promote_survivors() -> None:
    """Move every tracked object to the oldest generation without scanning it."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
