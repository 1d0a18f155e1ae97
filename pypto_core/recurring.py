"""Statements an analysis will meet again: the moved copies of statements it met before.

The passes that keep a result with each statement (ConvertToSSA's `_Kept`, Simplify's
`_KEPT`) keep it only from the statement's second meeting on, so a statement made anew for
every edit (the edited one) and a cold analysis cost no bookkeeping. A statement the front end
took moved (a line typed above it: `stmt_memo.StatementReuse._take_moved`, a member moved
whole, `programs._moved_function`) is a new object too, but it is no edited statement: the next
keystroke meets it again at its place, the same object (the build takes it as kept), so a pass
meeting a marked statement keeps its result at once and the next keystroke takes it, instead
of keeping it on the next and taking it on the one after (two keystrokes after a line break
cost what the line break did). Marked are the top-level statements of what was moved (each
statement taken moved, a moved member's body, and what splicing, UnrollLoops and ConvertToSSA
make of them); the statements inside one are kept at their second meeting as any: keeping them
at the first costs the line break about as much as it saves the keystroke after it, which
converts only the statements around the one it edits (bench/README.md, session 12).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable

from .ir import Stmt

# by identity, while the statement lives
_MARKED: weakref.WeakSet[Stmt] = weakref.WeakSet()


def mark(stmts: Iterable[Stmt]) -> None:
    """`stmts` are moved copies of statements met before (their passes' results are kept at
    the first meeting)."""
    _MARKED.update(stmts)


def marked(stmt: Stmt) -> bool:
    return stmt in _MARKED
