"""Pausing Python's cyclic garbage collector while an analysis builds its trees.

An analysis allocates hundreds of thousands of small, acyclic objects (AST nodes, IR nodes)
that reference counting frees on its own. The cyclic collector, triggered by allocation
counts, would meanwhile walk every live object again and again; on a 50k-line file that is
half the analysis time (bench/README.md). It is paused for the duration of one analysis and
resumes its normal schedule afterwards, so garbage cycles are still collected.
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
                gc.enable()
