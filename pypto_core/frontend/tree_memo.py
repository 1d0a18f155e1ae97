"""A value kept per syntax tree while the module context and the unit's place it was computed
with are the ones asked with.

Some front-end readings of a function or unit (a module-level function's decorator, a host's
window-buffer allocations, the lines of its construct headers) depend only on its tree, the
context its names resolve in and where its unit stands in the file; a keystroke plans and
rebuilds programs whose unchanged members would read them all again. The context is held
weakly: it holds the trees of its inline helpers, which are keys here, so holding it would keep
every earlier keystroke's context alive (tests/core/test_tables_freed.py)."""

from __future__ import annotations

import ast
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from .context import ModuleContext

_V = TypeVar("_V")


class TreeMemo(Generic[_V]):
    """One reading per tree (weakly: it lives as long as the tree)."""

    def __init__(self) -> None:
        self._kept: weakref.WeakKeyDictionary[ast.AST, tuple[weakref.ref[ModuleContext], int, _V]] = (
            weakref.WeakKeyDictionary()
        )

    def get(self, tree: ast.AST, ctx: ModuleContext, offset: int, compute: Callable[[], _V]) -> _V:
        """The value read from `tree` in `ctx` with its unit at line `offset`: the kept one
        when it was read so, else `compute()`d and kept."""
        kept = self._kept.get(tree)
        if kept is not None and kept[0]() is ctx and kept[1] == offset:
            return kept[2]
        value = compute()
        self._kept[tree] = (weakref.ref(ctx), offset, value)
        return value
