"""Simplify's closing dead-code step (`TransformSimplify`, `utils/dead_code_elimination.cpp`):
dead call-free scalar assignments (`EliminateDeadScalarAssignments`), then if-statement phis
nothing reads with their yield slots, to a fixed point (`EliminateDeadIfReturnVars`), then dead
scalar assignments again. A dead phi is what made a scope's scalar look used after it (a false
PTO301); loop carries are never removed.

Liveness is function-wide (a statement's scalars are live when anything after it reads them),
so the step decides over the whole body, but from what each statement holds (`_Facts`: what
its statements read, its candidates, its definitions, its `if`s with phis), kept with each
compound statement while it lives: after an edit only the new statements are walked, the
decision costs what the candidates and phis are, not the body, and a top-level statement is
rewritten only when it holds something dead, its rewrite kept under what was dead in it
(`_CLEANED`). Kept or not, the body is what the three steps give run one after the other over
the whole body.
"""

from __future__ import annotations

import weakref
from collections import Counter
from dataclasses import dataclass

from ..ir import (
    TASK_ID,
    AssignStmt,
    Call,
    Expr,
    ForStmt,
    IfStmt,
    OpaqueExpr,
    ScalarType,
    ScopeStmt,
    Stmt,
    TupleGetItem,
    TupleType,
    Var,
    WhileStmt,
    YieldStmt,
    copy_with,
)
from .const_fold import is_constant
from .outline_ir import add_vars, stmt_children, stmt_exprs, sub_exprs, with_blocks

_COMPOUND = frozenset({ForStmt, WhileStmt, IfStmt, ScopeStmt})
_Candidate = tuple[AssignStmt, list[Var]]  # a removable assignment, with what its value reads


@dataclass(slots=True, eq=False)
class _Facts:
    """What the dead-code steps need of some statements, nested ones included, in pre-order:
    the variables the statements other than the candidates read (with repeats), the candidates
    (`_removable` assignments), each assignment's target with what its value reads when it is a
    candidate (else None: the liveness closure follows a target's last assignment only), and
    the `if`s with phis. A compound statement's own facts leave out the statement itself when
    it is such an `if` (kept with the statement, they must not hold it: `_FACTS` is weak)."""

    reads: list[Var]
    candidates: list[_Candidate]
    definitions: list[tuple[Var, list[Var] | None]]
    ifs: list[IfStmt]


# Each compound statement's facts (`_Facts`), and each simple statement's (whether it is a
# candidate, what it reads), kept while it lives: the passes never modify a
# statement, and after an edit most of a function's statements are the objects of before.
_FACTS: weakref.WeakKeyDictionary[Stmt, _Facts] = weakref.WeakKeyDictionary()
_SIMPLE: weakref.WeakKeyDictionary[Stmt, tuple[bool, list[Var]]] = weakref.WeakKeyDictionary()


class _Gathered:
    """The facts of one run's statements: each compound statement's from `_FACTS` when it is
    kept there (`reuse`), else walked once; by id for the rewrite's look-ups."""

    def __init__(self, reuse: bool) -> None:
        self.reuse = reuse
        self.known: dict[int, _Facts] = {}

    def add(self, stmt: Stmt, into: _Facts) -> None:
        """`stmt`'s facts appended to `into`."""
        kind = type(stmt)
        if kind not in _COMPOUND:
            simple = _SIMPLE.get(stmt) if self.reuse else None
            if simple is None:
                simple = _simple_facts(stmt)
                if self.reuse:
                    _SIMPLE[stmt] = simple
            candidate, reads = simple
            if isinstance(stmt, AssignStmt):
                into.definitions.append((stmt.target, reads if candidate else None))
                if candidate:
                    into.candidates.append((stmt, reads))
                    return
            into.reads += reads
            return
        if kind is IfStmt and stmt.return_vars:  # type: ignore[union-attr]
            into.ifs.append(stmt)  # type: ignore[arg-type]
        facts = self.of(stmt)
        into.reads += facts.reads
        into.candidates += facts.candidates
        into.definitions += facts.definitions
        into.ifs += facts.ifs

    def of(self, stmt: Stmt) -> _Facts:
        """A compound statement's own facts (`_Facts`)."""
        facts = self.known.get(id(stmt))
        if facts is not None:
            return facts
        facts = _FACTS.get(stmt) if self.reuse else None
        if facts is None:
            facts = _Facts([], [], [], [])
            for expr in stmt_exprs(stmt):
                add_vars(expr, facts.reads)
            for block in stmt_children(stmt):
                for inner in block:
                    self.add(inner, facts)
            if self.reuse:
                _FACTS[stmt] = facts
        self.known[id(stmt)] = facts
        return facts


def _simple_facts(stmt: Stmt) -> tuple[bool, list[Var]]:
    """Whether a simple statement is a candidate, and what it reads (a candidate's reads count
    only when its target is live)."""
    reads: list[Var] = []
    for expr in stmt_exprs(stmt):
        add_vars(expr, reads)
    return type(stmt) is AssignStmt and _removable(stmt), reads  # type: ignore[arg-type]


def eliminate_dead_code(body: list[Stmt], reuse: bool = True) -> list[Stmt]:
    """`body` (a function's) without its dead scalars and dead if-phis: `body` itself when
    nothing is dead. `reuse`: take each compound statement's facts and rewrite from the last
    runs that met it, and keep this run's (False: walk everything, keep nothing)."""
    gathered = _Gathered(reuse)
    facts = _Facts([], [], [], [])
    for stmt in body:
        gathered.add(stmt, facts)
    if not facts.candidates and not facts.ifs:
        return body  # the usual case for kernels: every scalar comes from a call
    reads = Counter(facts.reads)  # by the statements that are no candidate
    definitions = dict(facts.definitions)  # each target's last assignment
    dead = _dead(facts.candidates, definitions, reads)
    live = [c for c in facts.candidates if id(c[0]) not in dead] if dead else facts.candidates
    narrowed = _dead_phis(facts.ifs, dead, reads, live)
    dead_after = _dead(live, definitions, reads) if narrowed else set()
    if not (dead or narrowed or dead_after):
        return body
    return _Cleaner(gathered, dead, narrowed, dead_after).body(body)


def _dead(
    candidates: list[_Candidate], definitions: dict[Var, list[Var] | None], reads: Counter[Var]
) -> set[int]:
    """`EliminateDeadScalarAssignments`' verdict: the ids of the candidates whose target
    nothing live reads. Live: what `reads` counts, and transitively what the candidate a live
    target was last assigned by reads; walked from the candidates' targets (the only variables
    with a definition to follow), so it costs what the candidates are."""
    live: set[Var] = set()
    pending: list[Var] = []
    for stmt, _ in candidates:
        target = stmt.target
        if target not in live and reads[target] > 0 and definitions.get(target) is not None:
            live.add(target)
            pending.append(target)
    while pending:
        value = definitions.get(pending.pop())
        if value is None:
            continue
        for var in value:
            if var not in live:
                live.add(var)
                pending.append(var)
    return {id(stmt) for stmt, _ in candidates if stmt.target not in live and reads[stmt.target] <= 0}


def _removable(stmt: AssignStmt) -> bool:
    """A scalar assignment without a call (the IR has no purity annotations, so any call may
    have an effect), unless it takes the task id out of a submit's result tuple."""
    return (
        isinstance(stmt.target.type, ScalarType)
        and _call_free(stmt.value)
        and not _is_task_id_element(stmt.value)
    )


def _call_free(expr: Expr) -> bool:
    """No call in `expr`, nor an expression the front end does not model (it may hide one)
    but a module-level name."""
    kind = type(expr)
    if kind is OpaqueExpr:
        return is_constant(expr)
    if kind is Call:
        return False
    return all(_call_free(sub) for sub in sub_exprs(expr))


def _is_task_id_element(value: Expr) -> bool:
    if type(value) is not TupleGetItem:
        return False
    assert isinstance(value, TupleGetItem)
    tuple_type = value.tuple.type
    return (
        isinstance(tuple_type, TupleType)
        and len(tuple_type.elements) > 0
        and value.index == len(tuple_type.elements) - 1
        and tuple_type.elements[-1] == TASK_ID
    )


@dataclass
class _Phis:
    """An `if` whose return variables `_dead_phis` narrows: what is left of them and of each
    branch's trailing yield (None: the branch has none, or it was dropped)."""

    return_vars: list[Var]
    yields: list[list[Expr] | None]


def _trailing_values(branch: list[Stmt] | None, dead: set[int]) -> list[Expr] | None:
    """The values of `branch`'s trailing yield once the `dead` statements are gone."""
    for stmt in reversed(branch or ()):
        if id(stmt) not in dead:
            return stmt.values if type(stmt) is YieldStmt else None  # type: ignore[union-attr]
    return None


def _dead_phis(
    ifs: list[IfStmt],
    dead: set[int],
    reads: Counter[Var],
    candidates: list[_Candidate],
) -> dict[int, _Phis]:
    """`EliminateDeadIfReturnVars` after the first elimination (`dead` gone, `candidates` left):
    drops the return variables of if-statements that nothing reads, with their slot in each
    branch's trailing yield; a dropped slot may leave an outer phi unread, hence the fixed point
    (each round judges every `if` by the reads at its start, and the values a round drops are no
    longer counted in `reads` from the next). What is left of each narrowed `if`'s phis, by id."""
    narrowed: dict[int, _Phis] = {}
    if not ifs:
        return narrowed
    by_candidates = Counter([var for _, value in candidates for var in value])
    pending = [
        (stmt, _Phis(stmt.return_vars, [_trailing_values(b, dead) for b in (stmt.then_body, stmt.else_body)]))
        for stmt in ifs
    ]
    while True:
        pending = [(stmt, phis) for stmt, phis in pending if phis.return_vars]
        if not pending:
            break
        gone: list[Var] = []
        dropped = False
        for stmt, phis in pending:
            kept = [i for i, var in enumerate(phis.return_vars) if reads[var] > 0 or by_candidates[var] > 0]
            if len(kept) == len(phis.return_vars):
                continue
            phis.return_vars = [phis.return_vars[i] for i in kept]
            for branch, values in enumerate(phis.yields):
                if values is not None:
                    for i, value in enumerate(values):
                        if i not in kept:
                            add_vars(value, gone)
                    phis.yields[branch] = [values[i] for i in kept] if kept else None
            narrowed[id(stmt)] = phis
            dropped = True
        if not dropped:
            break
        for var, n in Counter(gone).items():  # `reads -= gone`, touching only `gone`'s variables
            left = reads[var] - n
            if left > 0:
                reads[var] = left
            else:
                reads.pop(var, None)
    return narrowed


class _Cleaner:
    """The body with the dead statements gone and the narrowed `if`s given what is left of
    their phis, in one walk that makes what the three steps make one after the other (`_narrow`
    says where that needs care). The walk enters only the statements holding something it
    changes, and each compound statement's rewrite is kept with it under what was dead in it
    (`_CLEANED`), so a statement a keystroke left is rewritten to the object of before."""

    def __init__(self, gathered: _Gathered, dead: set[int], narrowed: dict[int, _Phis], dead_after: set[int]):
        self.gathered = gathered
        self.dead = dead
        self.narrowed = narrowed
        self.dead_after = dead_after
        self.removed = dead | dead_after

    def body(self, stmts: list[Stmt]) -> list[Stmt]:
        """`stmts` without the removed statements, each compound one rewritten (`_statement`)."""
        result: list[Stmt] = []
        changed = False
        removed = self.removed
        for stmt in stmts:
            if id(stmt) in removed:
                changed = True
                continue
            new = self._statement(stmt) if type(stmt) in _COMPOUND else stmt
            changed = changed or new is not stmt
            result.append(new)
        return result if changed else stmts

    def _statement(self, stmt: Stmt) -> Stmt:
        facts = self.gathered.known.get(id(stmt))
        if facts is None and self.gathered.reuse:
            facts = _FACTS.get(stmt)
        if facts is None:
            facts = self.gathered.of(stmt)
        spec = self._spec(stmt, facts)
        if spec is None:
            return stmt
        if self.gathered.reuse:
            cleaned = _CLEANED.get(stmt)
            if cleaned is not None and cleaned[0] == spec:
                return cleaned[1]
        new = with_blocks(stmt, [self.body(block) for block in stmt_children(stmt)])
        phis = self.narrowed.get(id(stmt))
        if phis is not None:
            new = self._narrow(stmt, new, phis)
        if self.gathered.reuse:
            _CLEANED[stmt] = (spec, new)
        return new

    def _spec(self, stmt: Stmt, facts: _Facts) -> tuple[object, ...] | None:
        """What is dead or narrowed in `stmt` (None: nothing): the key of its rewrite."""
        dead = tuple(i for i, (c, _) in enumerate(facts.candidates) if id(c) in self.dead)
        dead_after = tuple(i for i, (c, _) in enumerate(facts.candidates) if id(c) in self.dead_after)
        ifs = [stmt, *facts.ifs] if type(stmt) is IfStmt else facts.ifs
        phis = tuple(
            (i, tuple(p.return_vars), tuple(None if y is None else tuple(y) for y in p.yields))
            for i, s in enumerate(ifs)
            if (p := self.narrowed.get(id(s)))
        )
        if not (dead or dead_after or phis):
            return None
        return (dead, phis, dead_after)

    def _narrow(self, stmt: Stmt, new: Stmt, phis: _Phis) -> Stmt:
        """`new` (`stmt` with its blocks rewritten) given what is left of its phis. Done one
        after the other, the narrowing meets each branch after the first removals (`dead`) and
        before the second: a trailing yield is one there (the last statement not in `dead`),
        and an else left empty there (it held only the synthesised yield of the incoming
        values) is no else, though the second removals could empty it too."""
        assert isinstance(stmt, IfStmt) and isinstance(new, IfStmt)
        then_body = self._with_yield(stmt.then_body, new.then_body, phis.yields[0])
        else_body = None
        if stmt.else_body is not None and new.else_body is not None:
            left = [s for s in stmt.else_body if id(s) not in self.dead]
            if left and not (len(left) == 1 and type(left[0]) is YieldStmt and phis.yields[1] is None):
                else_body = self._with_yield(stmt.else_body, new.else_body, phis.yields[1])
        return copy_with(new, return_vars=phis.return_vars, then_body=then_body, else_body=else_body)

    def _with_yield(self, branch: list[Stmt], rewritten: list[Stmt], values: list[Expr] | None) -> list[Stmt]:
        """`rewritten` (`branch` rewritten) with its trailing yield yielding `values` (None:
        without it), when `branch` has one once the first removals are gone."""
        if _trailing_values(branch, self.dead) is None:
            return rewritten
        if values is None:
            return rewritten[:-1]
        return [*rewritten[:-1], copy_with(rewritten[-1], values=values)]


# Each compound statement's last rewrite, under what was dead in it (`_Cleaner._spec`).
_CLEANED: weakref.WeakKeyDictionary[Stmt, tuple[tuple[object, ...], Stmt]] = weakref.WeakKeyDictionary()
