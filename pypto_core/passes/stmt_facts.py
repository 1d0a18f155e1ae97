"""Per-statement facts the outliners read instead of walking a scope body's expressions again
for each question: the variables a statement mentions, the kinds of the scopes in it, and what
its own expressions read (in FlattenCallExpr's order) and call.
"""

from __future__ import annotations

from typing import NamedTuple

from ..ir import Call, ScopeKind, ScopeStmt, Stmt, Var
from .flatten_calls import flattened_reads
from .outline_ir import stmt_children, stmt_defs, walk_stmts


class _Facts(NamedTuple):
    mentions: set[Var]  # defined or used in the statement, nested statements included
    kinds: frozenset[ScopeKind]  # of the scopes in it, itself included
    reads: list[Var]  # read by its own expressions, in FlattenCallExpr's order, with repeats
    calls: list[Call]  # made by its own expressions, pre-order


class StmtFacts:
    """Per statement of one body: the variables it mentions (`vars_mentioned([stmt])`), the
    kinds of the scopes in it (itself included), and what its own expressions read and call.
    Each statement's facts are computed once, from its own and its children's, so asking for a
    statement and then for the statements nested in it costs one walk, not one per nesting
    level; the per-scope analyses read the reads and calls instead of walking the expressions
    of a scope body again each.

    Facts describe a statement as it was when first asked for. The outliner asks for a statement
    only before it visits (rewrites) it, and the IR below a function is a tree apart from its
    `Var`s (no statement or expression node is reachable twice), so no answer goes stale while
    it can still be asked for. Callers must not modify the returned sets and lists."""

    def __init__(self) -> None:
        self._facts: dict[Stmt, _Facts] = {}  # keyed by identity

    def mentions(self, stmt: Stmt) -> set[Var]:
        return self._of(stmt).mentions

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

    def described(self) -> set[Stmt]:
        """The statements whose facts are known (as they were when first asked for)."""
        return set(self._facts)

    def restricted_to(self, stmts: list[Stmt]) -> StmtFacts:
        """The facts known of `stmts` and of the statements nested in them, alone."""
        kept = StmtFacts()
        for stmt in walk_stmts(stmts):
            facts = self._facts.get(stmt)
            if facts is not None:
                kept._facts[stmt] = facts
        return kept

    def _of(self, stmt: Stmt) -> _Facts:
        facts = self._facts.get(stmt)
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
            facts = self._facts[stmt] = _Facts(mentions, kinds, reads, calls)
        return facts


_NO_KINDS: frozenset[ScopeKind] = frozenset()
