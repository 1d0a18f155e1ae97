"""A least-recently-used cache bounded by the size of what it holds, not by its entry count.

Why: `functools.lru_cache(maxsize=1024)` keyed by a unit's text kept up to 1,024 syntax trees;
typing into a 740-line program unit makes a new 2-4 MB tree per keystroke, so a count bound let
one document reach gigabytes (issue 20). Here every entry has a weight (the characters of the
text it was computed from, a fair proxy for the tree, the key and the facts built from it) and
the least recently used entries go once the weights sum past the budget.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import update_wrapper
from typing import Any, Generic, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


@dataclass
class CacheInfo:
    entries: int
    weight: int
    budget: int


class SizedCache(Generic[P, R]):
    """`fn` memoised on its (hashable) positional arguments; `weight(*args)` says what an
    entry costs. An entry heavier than the whole budget is computed but not kept. Thread-safe:
    the server's analysis worker and its workspace indexing may share the caches."""

    def __init__(self, fn: Callable[P, R], budget: int, weight: Callable[P, int]) -> None:
        self._fn = fn
        self._budget = budget
        self._weight = weight
        self._entries: OrderedDict[Hashable, tuple[R, int]] = OrderedDict()
        self._total = 0
        self._lock = threading.Lock()
        update_wrapper(self, fn)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        key: Any = (args, tuple(sorted(kwargs.items()))) if kwargs else args
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return found[0]
        value = self._fn(*args, **kwargs)  # outside the lock: it may be slow (a parse)
        cost = self._weight(*args, **kwargs)
        if cost > self._budget:
            return value
        with self._lock:
            self._put(key, value, cost)
        return value

    def _put(self, key: Hashable, value: R, cost: int) -> None:
        """Under the lock: keep `value` (a value already kept stays), evicting the oldest."""
        if key not in self._entries:
            self._entries[key] = (value, cost)
            self._total += cost
            while self._total > self._budget:
                _, (_, evicted) = self._entries.popitem(last=False)
                self._total -= evicted

    def holds(self, *args: P.args, **kwargs: P.kwargs) -> bool:
        """Whether `fn(*args)` is kept (a caller choosing between computing it and another way)."""
        key: Any = (args, tuple(sorted(kwargs.items()))) if kwargs else args
        with self._lock:
            return key in self._entries

    def store(self, value: R, *args: P.args, **kwargs: P.kwargs) -> None:
        """Keep `value` as `fn(*args)`: what a caller derived from a larger computation."""
        key: Any = (args, tuple(sorted(kwargs.items()))) if kwargs else args
        cost = self._weight(*args, **kwargs)
        if cost > self._budget:
            return
        with self._lock:
            self._put(key, value, cost)

    def cache_clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._total = 0

    def cache_info(self) -> CacheInfo:
        with self._lock:
            return CacheInfo(len(self._entries), self._total, self._budget)


def sized_cache(budget: int, weight: Callable[P, int]) -> Callable[[Callable[P, R]], SizedCache[P, R]]:
    """Decorator form of `SizedCache`."""

    def decorate(fn: Callable[P, R]) -> SizedCache[P, R]:
        return SizedCache(fn, budget, weight)

    return decorate
