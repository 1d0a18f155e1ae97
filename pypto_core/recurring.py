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

An open document's first analysis keeps every statement's result at its first meeting
(`keeping_all`): a whole-model file's first keystrokes otherwise pay each pass's bookkeeping
for the whole program in turn (ConvertToSSA's at the first, Simplify's at the second, which
meets ConvertToSSA's kept outputs for the first time, the outliners' at the first two): about
1.5 s, 0.9 s and 0.3 s of CPU on `decode_fwd_mtp.py`, against 0.2 s once kept. A one-shot
analysis (`pypto-check`) and the workspace index, which no keystroke follows, keep nothing.

Nor does a one-shot analysis keep what a pass records only to resume its next run of the same
function from the last (ConvertToSSA's logs, version pools and resume record, Simplify's per
statement tables and its function's run): within `met_once` no analysis of the same text
follows (`DocumentAnalyzer(one_shot=True)`), so each pass runs as a fresh one does, its output
the same (`keeps_nothing`).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar

from .ir import Stmt

# by identity, while the statement lives
_MARKED: weakref.WeakSet[Stmt] = weakref.WeakSet()
_ANY_MARKED = False  # whether anything was marked in this process (`marked`)
_KEEPING_ALL: ContextVar[bool] = ContextVar("keeping_all", default=False)
_MET_ONCE: ContextVar[bool] = ContextVar("met_once", default=False)


def mark(stmts: Iterable[Stmt]) -> None:
    """`stmts` are moved copies of statements met before (their passes' results are kept at
    the first meeting)."""
    global _ANY_MARKED
    _ANY_MARKED = True
    _MARKED.update(stmts)


def marked(stmt: Stmt) -> bool:
    # asked of every statement each pass meets; nothing is marked in a one-shot analysis
    # (`pypto-check`) nor before a document's first moved statement, and a `WeakSet` makes a
    # weak reference per question (0.6 % of a cold `pypto-check` of pypto-lib's models)
    return _ANY_MARKED and stmt in _MARKED


def keeping_all() -> AbstractContextManager[None]:
    """Within it, every statement's results are kept at its first meeting (`kept_at_first`)."""
    return _within(_KEEPING_ALL)


def all_kept() -> bool:
    """Whether this is within `keeping_all`."""
    return _KEEPING_ALL.get()


def kept_at_first(stmt: Stmt) -> bool:
    """Whether a pass meeting `stmt` for the first time keeps its result: a moved copy of a
    statement met before (`marked`), or anything within `keeping_all`."""
    return _KEEPING_ALL.get() or marked(stmt)


def met_once() -> AbstractContextManager[None]:
    """Within it, no pass keeps anything for a next run (`keeps_nothing`): what it analyses
    is met once (a one-shot analysis)."""
    return _within(_MET_ONCE)


def keeps_nothing() -> bool:
    """Whether this is within `met_once`."""
    return _MET_ONCE.get()


@contextmanager
def _within(flag: ContextVar[bool]) -> Iterator[None]:
    token = flag.set(True)
    try:
        yield
    finally:
        flag.reset(token)
