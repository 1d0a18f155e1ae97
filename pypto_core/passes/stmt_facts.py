"""Per-statement facts the outliners read instead of walking a scope body's expressions again
for each question: the variables a statement mentions, the kinds of the scopes in it, and what
its own expressions read (in FlattenCallExpr's order) and call.

The facts are kept with each statement object while it lives (`_FACTS`), for every run of every
pass and every later analysis of the document: a statement no pass changed is the same object
in the next keystroke's passes (the front end, the splice, ConvertToSSA and the copy-on-write
passes keep it), so after an edit only the new statements are walked.
"""

from __future__ import annotations

import weakref
from collections.abc import Collection
from typing import NamedTuple

from ..ir import Call, ForStmt, IfStmt, ScopeKind, ScopeStmt, Stmt, Var, WhileStmt
from .flatten_calls import flattened_reads
from .outline_ir import stmt_children, stmt_defs, walk_stmts


class _Facts(NamedTuple):
    mentions: set[Var]  # defined or used in the statement, nested statements included
    kinds: frozenset[ScopeKind]  # of the scopes in it, itself included
    reads: list[Var]  # read by its own expressions, in FlattenCallExpr's order, with repeats
    calls: list[Call]  # made by its own expressions, pre-order


class StmtFacts:
    """Per statement: the variables it mentions (`vars_mentioned([stmt])`), the
    kinds of the scopes in it (itself included), what its own expressions read and call, and
    (for one holding blocks) what it binds at any depth.
    Each statement's facts are computed once, from its own and its children's, so asking for a
    statement and then for the statements nested in it costs one walk, not one per nesting
    level; the per-scope analyses read the reads and calls instead of walking the expressions
    of a scope body again each.

    Facts describe a statement as it was when first asked for. No pass modifies a statement
    once it is complete (copy-on-write: a loop or `if` a carry grows is a new statement, grown
    before anything reads it), so no answer goes stale. Callers must not modify the returned
    sets and lists."""

    def mentions(self, stmt: Stmt) -> set[Var]:
        return self._of(stmt).mentions

    def names(self, stmt: Stmt) -> frozenset[str]:
        """The names of the variables `stmt` mentions (a function's names are their union); of
        a compound statement, its own expressions' and bindings' with its children's (kept):
        a keystroke's new loop holding most of an entry costs the path to the edit, not a
        name per variable it mentions."""
        known = _NAMES.get(stmt)
        if known is None:
            children = stmt_children(stmt)
            if not children:
                known = frozenset(v.name for v in self._of(stmt).mentions)
            else:
                own = {v.name for v in self._of(stmt).reads}
                own.update(v.name for v in stmt_defs(stmt))
                if type(stmt) is ScopeStmt:
                    assert isinstance(stmt, ScopeStmt)
                    own.update(d.var.name for d in stmt.cache_policies)
                known = frozenset(own).union(*(self.names(child) for block in children for child in block))
            _NAMES[stmt] = known
        return known

    def scope_kinds(self, stmt: Stmt) -> frozenset[ScopeKind]:
        return self._of(stmt).kinds

    def reads(self, stmt: Stmt) -> list[Var]:
        """`flattened_reads(stmt)`."""
        return self._of(stmt).reads

    def own_calls(self, stmt: Stmt) -> list[Call]:
        """`[c for e in stmt_exprs(stmt) for c in expr_calls(e)]`."""
        return self._of(stmt).calls

    def calls_in(self, walked: list[Stmt]) -> list[Call]:
        """`walk_calls(stmts)`, given `walked = walk_stmts(stmts)`."""
        return [call for stmt in walked for call in self._of(stmt).calls]

    def binds(self, stmt: Stmt) -> Collection[Var]:
        """What `stmt` binds, nested statements included (`defs_in([stmt])`)."""
        children = stmt_children(stmt)
        if not children:
            return stmt_defs(stmt)
        known = _BINDS.get(stmt)
        if known is None:
            known = set(stmt_defs(stmt))
            for block in children:
                for child in block:
                    known.update(self.binds(child))
            _BINDS[stmt] = known
        return known

    def known_mentions(self, stmt: Stmt) -> set[Var] | None:
        """`mentions(stmt)` where `stmt`'s facts were asked for already (a complete statement,
        so one that is as they describe it), else None."""
        facts = _FACTS.get(stmt)
        return facts.mentions if facts is not None else None

    def _of(self, stmt: Stmt) -> _Facts:
        facts = _FACTS.get(stmt)
        if facts is None:
            calls: list[Call] = []
            reads = flattened_reads(stmt, calls)
            mentions = set(reads)
            mentions.update(stmt_defs(stmt))
            kinds = _NO_KINDS
            if type(stmt) is ScopeStmt:
                assert isinstance(stmt, ScopeStmt)
                mentions.update(d.var for d in stmt.cache_policies)
                kinds = frozenset((stmt.kind,))
            for block in stmt_children(stmt):
                for child in block:
                    child_facts = self._of(child)
                    mentions |= child_facts.mentions
                    if child_facts.kinds:
                        kinds = kinds | child_facts.kinds
            facts = _FACTS[stmt] = _Facts(mentions, kinds, reads, calls)
        return facts


def walk_kept(stmts: list[Stmt]) -> list[Stmt]:
    """`walk_stmts(stmts)`, the statements inside each one kept with it (`_WALKED`), so the
    walks over every statement of a function (the verifier's, the splice's
    size of a helper) cost what an edit made anew: a keystroke leaves most of a 300-statement
    entry's top-level statements the same objects. For complete statements only (no pass
    modifies one: the passes' inputs and outputs, a helper's build)."""
    found: list[Stmt] = []
    for stmt in stmts:
        found.append(stmt)
        if type(stmt) in _COMPOUND:
            inner = _WALKED.get(stmt)
            if inner is None:
                inner = _WALKED[stmt] = tuple(walk_stmts([s for block in stmt_children(stmt) for s in block]))
            found += inner
    return found


def holds_kind(stmts: list[Stmt], kinds: Collection[ScopeKind]) -> bool:
    """Whether a scope of one of `kinds` is among `stmts` at any depth (each pass asks it of
    every function body), the kinds in each compound statement kept with it (`_KINDS`, or its
    facts where asked for already). For complete statements only, as `walk_kept`."""
    return any(not kinds_in(stmt).isdisjoint(kinds) for stmt in stmts)


def kinds_in(stmt: Stmt) -> frozenset[ScopeKind]:
    """The kinds of the scopes in `stmt` at any depth, itself included (`holds_kind` of one
    statement, without the list and generator: a pass asks it of each of a flat entry's
    hundreds of top-level statements)."""
    kind = type(stmt)
    if kind not in _COMPOUND:
        return _NO_KINDS
    facts = _FACTS.get(stmt)
    if facts is not None:
        return facts.kinds
    known = _KINDS.get(stmt)
    if known is None:
        found: set[ScopeKind] = {stmt.kind} if isinstance(stmt, ScopeStmt) else set()
        for block in stmt_children(stmt):
            for child in block:
                found.update(kinds_in(child))
        known = _KINDS[stmt] = frozenset(found)
    return known


_COMPOUND = frozenset({ForStmt, WhileStmt, IfStmt, ScopeStmt})
_NO_KINDS: frozenset[ScopeKind] = frozenset()
# keyed by identity; the facts hold the statement's `Var`s and `Call`s, never the statement
_FACTS: weakref.WeakKeyDictionary[Stmt, _Facts] = weakref.WeakKeyDictionary()
_BINDS: weakref.WeakKeyDictionary[Stmt, set[Var]] = weakref.WeakKeyDictionary()  # compound ones
_NAMES: weakref.WeakKeyDictionary[Stmt, frozenset[str]] = weakref.WeakKeyDictionary()
_KINDS: weakref.WeakKeyDictionary[Stmt, frozenset[ScopeKind]] = weakref.WeakKeyDictionary()  # compound
# a compound statement -> the statements inside it, pre-order (not itself: no value holds its key)
_WALKED: weakref.WeakKeyDictionary[Stmt, tuple[Stmt, ...]] = weakref.WeakKeyDictionary()
