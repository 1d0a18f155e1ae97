"""Counting the reference cycles an analysis leaves behind. `gc_pause.py` relies on there being
none: what an analysis drops must be freed by reference counting, since the cyclic collector
only runs when the promoted objects exceed the live heap. With the collector off, what a full
collection finds unreachable is exactly such garbage."""

from __future__ import annotations

import collections
import contextlib
import gc
import types
from collections.abc import Iterator


@contextlib.contextmanager
def collector_off() -> Iterator[None]:
    """The cyclic collector off (after one collection), so cycles made meanwhile stay."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def garbage() -> list[str]:
    """What the collector finds unreachable now, by type (most common first; functions by
    their qualified name, which names the closure that made a cycle)."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
    finally:
        gc.set_debug(0)
    found = collections.Counter(
        o.__qualname__ if isinstance(o, types.FunctionType) else type(o).__qualname__ for o in gc.garbage
    )
    gc.garbage.clear()
    return [f"{count} {name}" for name, count in found.most_common(8)]
