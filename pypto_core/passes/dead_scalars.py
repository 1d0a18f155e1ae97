"""Simplify's closing dead-code step (`TransformSimplify`, `utils/dead_code_elimination.cpp`):
dead call-free scalar assignments (`EliminateDeadScalarAssignments`), then if-statement phis
nothing reads with their yield slots, to a fixed point (`EliminateDeadIfReturnVars`), then dead
scalar assignments again. A dead phi is what made a scope's scalar look used after it (a false
PTO301); loop carries are never removed.

Liveness is function-wide (a statement's scalars are live when anything after it reads them),
so the step decides over the whole body. Its verdict (`_Verdict`: the dead targets, the phis
dropped) is a function of what the statements read and define, which each compound statement
keeps with it while it lives (`_Facts`): a digest in which an unchanged statement's part is the
same object as before, so comparing a body's digest with the last run's costs the path to what
changed, and the verdict is kept per function name under its digest (`_VERDICTS`, early
cut-off: a keystroke that changes no read or definition, as in a `name_hint`, decides nothing
again); and the flat lists the verdict is computed from, made on a miss only, in time
proportional to the candidates and phis. A compound statement is rewritten only when it holds
something dead, its rewrite kept under the verdict (taken by identity while the verdict is the
one it was made under) and what was dead in it (`_CLEANED`). Kept or not, the body is what the
three steps give run one after the other over the whole body.
"""

from __future__ import annotations

import operator
import weakref
from collections import Counter
from collections.abc import Callable
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
from .kept_ends import shared_ends
from .outline_ir import add_vars, expr_vars, stmt_children, stmt_exprs, sub_exprs, with_blocks

_COMPOUND = frozenset({ForStmt, WhileStmt, IfStmt, ScopeStmt})
_Candidate = tuple[AssignStmt, list[Var]]  # a removable assignment, with what its value reads
# A simple statement's facts, and its digest: whether it is a candidate, what it reads, and its
# target when it is an assignment.
_Simple = tuple[bool, list[Var], Var | None]


@dataclass(slots=True, eq=False)
class _Flat:
    """What the dead-code steps need of some statements, nested ones included, in pre-order:
    the variables the statements other than the candidates read (with repeats), the candidates
    (`_removable` assignments), each assignment's target with what its value reads when it is a
    candidate (else None: the liveness closure follows a target's last assignment only), and
    the `if`s with phis. A compound statement's own leave out the statement itself when it is
    such an `if` (kept with the statement, they must not hold it: `_FACTS` is weak)."""

    reads: list[Var]
    candidates: list[_Candidate]
    definitions: list[tuple[Var, list[Var] | None]]
    ifs: list[IfStmt]


@dataclass(slots=True, eq=False)
class _Facts:
    """A compound statement's facts. `digest`: everything of it the verdict reads, as values
    (its own reads, its phis and how each branch ends, then each block's statements' digests,
    a simple one's being its `_Simple`), holding variables only; compared with `==`, whose
    identity check skips every part a statement left alone shares with the digest before.
    `holds`: a candidate or an `if` with phis in it, itself included. `flat` is made when a
    verdict is computed from it (None before)."""

    digest: tuple[object, ...]
    holds: bool
    flat: _Flat | None = None


# Each compound statement's facts (`_Facts`), and each simple statement's (`_Simple`), kept
# while it lives: the passes never modify a statement, and after an edit most of a function's
# statements are the objects of before.
_FACTS: weakref.WeakKeyDictionary[Stmt, _Facts] = weakref.WeakKeyDictionary()
_SIMPLE: weakref.WeakKeyDictionary[Stmt, _Simple] = weakref.WeakKeyDictionary()


class _Gathered:
    """The facts of one run's statements: each statement's from `_FACTS` / `_SIMPLE` when it is
    kept there (`reuse`), else made once; by id for the rewrite's look-ups."""

    def __init__(self, reuse: bool) -> None:
        self.reuse = reuse
        self.known: dict[int, _Facts] = {}
        self.simples: dict[int, _Simple] = {}  # without reuse

    def simple(self, stmt: Stmt) -> _Simple:
        """A simple statement's facts (`_Simple`)."""
        if self.reuse:
            found = _SIMPLE.get(stmt)
            if found is None:
                found = _SIMPLE[stmt] = _simple_facts(stmt)
            return found
        found = self.simples.get(id(stmt))
        if found is None:
            found = self.simples[id(stmt)] = _simple_facts(stmt)
        return found

    def of(self, stmt: Stmt) -> _Facts:
        """A compound statement's facts (`_Facts`), its flat lists as far as they were made."""
        facts = self.known.get(id(stmt))
        if facts is not None:
            return facts
        facts = _FACTS.get(stmt) if self.reuse else None
        if facts is None:
            own: list[Var] = []
            for expr in stmt_exprs(stmt):
                add_vars(expr, own)
            phis = type(stmt) is IfStmt and bool(stmt.return_vars)  # type: ignore[attr-defined]
            holds = phis
            blocks: list[tuple[object, ...]] = []
            for block in stmt_children(stmt):
                digests, held = self.block(block)
                blocks.append(digests)
                holds = holds or held
            ends = (
                (tuple(stmt.return_vars), *map(self._end, stmt_children(stmt)))  # type: ignore[union-attr]
                if phis
                else None
            )
            facts = _Facts((own, ends, *blocks), holds)
            if self.reuse:
                _FACTS[stmt] = facts
        self.known[id(stmt)] = facts
        return facts

    def block(self, stmts: list[Stmt]) -> tuple[tuple[object, ...], bool]:
        """The digests of `stmts`, and whether a candidate or an `if` with phis is in them."""
        digests: list[object] = []
        holds = False
        for stmt in stmts:
            digest, held = self.part(stmt)
            digests.append(digest)
            holds = holds or held
        return tuple(digests), holds

    def part(self, stmt: Stmt) -> tuple[object, bool]:
        """`stmt`'s digest, and whether a candidate or an `if` with phis is in it."""
        if type(stmt) in _COMPOUND:
            facts = self.of(stmt)
            return facts.digest, facts.holds
        simple = self.simple(stmt)
        return simple, simple[0]

    def _end(self, branch: list[Stmt]) -> tuple[object, ...]:
        """What the phi step reads of how a branch ends (`_trailing_values`): the targets of the
        candidates it ends with, last first, then its trailing yield's variables slot by slot
        (None: it ends otherwise)."""
        targets: list[object] = []
        for stmt in reversed(branch):
            if type(stmt) is AssignStmt and self.simple(stmt)[0]:
                targets.append(stmt.target)  # type: ignore[attr-defined]
                continue
            if type(stmt) is YieldStmt:
                targets.append(tuple(tuple(expr_vars(value)) for value in stmt.values))  # type: ignore[attr-defined]
                return tuple(targets)
            break
        targets.append(None)
        return tuple(targets)

    def flat(self, stmt: Stmt) -> _Flat:
        """A compound statement's flat lists (`_Flat`), made once."""
        facts = self.of(stmt)
        if facts.flat is None:
            flat = _Flat(list(facts.digest[0]), [], [], [])  # type: ignore[call-overload]
            for block in stmt_children(stmt):
                for inner in block:
                    self.add(inner, flat)
            facts.flat = flat
        return facts.flat

    def add(self, stmt: Stmt, into: _Flat) -> None:
        """`stmt`'s flat lists appended to `into`."""
        if type(stmt) not in _COMPOUND:
            candidate, reads, target = self.simple(stmt)
            if target is not None:
                into.definitions.append((target, reads if candidate else None))
                if candidate:
                    into.candidates.append((stmt, reads))  # type: ignore[arg-type]
                    return
            into.reads += reads
            return
        if type(stmt) is IfStmt and stmt.return_vars:  # type: ignore[attr-defined]
            into.ifs.append(stmt)  # type: ignore[arg-type]
        flat = self.flat(stmt)
        into.reads += flat.reads
        into.candidates += flat.candidates
        into.definitions += flat.definitions
        into.ifs += flat.ifs

    def removed(self, stmt: Stmt, targets: frozenset[Var] | set[Var]) -> bool:
        """Whether `stmt` is a candidate assigning one of `targets` (the dead ones: a
        candidate's verdict is its target's)."""
        return type(stmt) is AssignStmt and stmt.target in targets and self.simple(stmt)[0]  # type: ignore[attr-defined]


def _simple_facts(stmt: Stmt) -> _Simple:
    """Whether a simple statement is a candidate, what it reads (a candidate's reads count
    only when its target is live), and an assignment's target."""
    reads: list[Var] = []
    for expr in stmt_exprs(stmt):
        add_vars(expr, reads)
    if type(stmt) is AssignStmt:
        assert isinstance(stmt, AssignStmt)
        return _removable(stmt), reads, stmt.target
    return False, reads, None


@dataclass(frozen=True, slots=True)
class _Verdict:
    """What the three steps remove from one function body: the targets of the dead candidates
    (first elimination), the return variables of `if`s dropped, the targets dead after (second
    elimination). Kept per function name under the body's digest (`_VERDICTS`), and the rewrite
    of each statement under the verdict object (`_CLEANED`)."""

    dead: frozenset[Var]
    dropped: frozenset[Var]
    dead_after: frozenset[Var]


_VERDICTS: dict[str, list[tuple[tuple[object, ...], _Verdict]]] = {}
_VERDICTS_PER_NAME = 4  # a name several programs (or a host and its entry) define
_NAMES = 256


def _kept_verdict(name: str, digest: tuple[object, ...]) -> _Verdict | None:
    for kept, verdict in _VERDICTS.get(name, ()):
        if kept == digest:
            return verdict
    return None


def _keep_verdict(name: str, digest: tuple[object, ...], verdict: _Verdict) -> _Verdict:
    """`verdict` kept under `digest`: an equal one kept before is returned instead (so the
    rewrites kept under it are taken by identity)."""
    entries = _VERDICTS.pop(name, [])
    verdict = next((v for _, v in entries if v == verdict), verdict)
    _VERDICTS[name] = [(digest, verdict), *entries[: _VERDICTS_PER_NAME - 1]]
    if len(_VERDICTS) > _NAMES:
        del _VERDICTS[next(iter(_VERDICTS))]
    return verdict


@dataclass(slots=True, eq=False)
class _Top:
    """A function body's last run (`eliminate_dead_code`): its statements (held, so no other
    object takes their ids while it lives), each one's digest and whether it holds a
    candidate or an `if` with phis, the verdict it was cleaned under and what each statement
    became (None: removed; both None when nothing was cleaned)."""

    name: str
    body: list[Stmt]
    digests: list[object]
    holds: list[bool]
    verdict: _Verdict | None = None
    cleaned: list[Stmt | None] | None = None


# Each function body's last run, by an object the caller keeps while the function's build
# lives (Simplify: the function's first `Param`, the object of ConvertToSSA's last conversion
# while the header is unchanged; no statement holds one): a keystroke's body is the last one
# but for the path to the edit, so its digest and cleaning take the others' parts of before.
_TOPS: weakref.WeakKeyDictionary[object, _Top] = weakref.WeakKeyDictionary()


def eliminate_dead_code(
    body: list[Stmt], reuse: bool = True, name: str = "", owner: object = None
) -> list[Stmt]:
    """`body` (function `name`'s) without its dead scalars and dead if-phis: `body` itself
    when nothing is dead. `reuse`: take each statement's facts and rewrite and the function's
    verdict from the last runs that met them, and keep this run's (False: walk everything, keep
    nothing). `owner`: what this function's last run is kept by (`_TOPS`): the digest of each
    top-level statement it shares with that run is taken from it, and under the same verdict
    what cleaning made of it (a flat entry of 611 statements: the step walked each per run)."""
    gathered = _Gathered(reuse)
    last = _TOPS.get(owner) if reuse and owner is not None else None
    if last is not None and last.name != name:
        last = None
    head, tail, old_tail = shared_ends(last.body, body) if last is not None else (0, 0, 0)
    parts = (
        [gathered.part(stmt) for stmt in body[head:tail]]
        if last is not None
        else list(map(gathered.part, body))
    )
    digests = [digest for digest, _ in parts]
    holds = [held for _, held in parts]
    if last is not None:
        digests = [*last.digests[:head], *digests, *last.digests[old_tail:]]
        holds = [*last.holds[:head], *holds, *last.holds[old_tail:]]
    top = _Top(name, list(body), digests, holds)
    if reuse and owner is not None:
        _TOPS[owner] = top
    if not any(holds):
        return body  # the usual case for kernels: every scalar comes from a call
    digest = tuple(digests)
    verdict = _kept_verdict(name, digest) if reuse else None
    if verdict is None:
        verdict = _verdict(gathered, body)
        if reuse:
            verdict = _keep_verdict(name, digest, verdict)
    if not (verdict.dead or verdict.dropped or verdict.dead_after):
        return body
    cleaner = _Cleaner(gathered, verdict)
    if last is not None and last.verdict is verdict and last.cleaned is not None:
        middle = list(map(cleaner.one, body[head:tail]))
        cleaned = [*last.cleaned[:head], *middle, *last.cleaned[old_tail:]]
    else:
        cleaned = list(map(cleaner.one, body))
    top.verdict, top.cleaned = verdict, cleaned
    if len(cleaned) == len(body) and all(map(operator.is_, cleaned, body)):
        return body
    return [stmt for stmt in cleaned if stmt is not None]


def _verdict(gathered: _Gathered, body: list[Stmt]) -> _Verdict:
    """The three steps' verdict on `body`, from its flat lists."""
    facts = _Flat([], [], [], [])
    for stmt in body:
        gathered.add(stmt, facts)
    reads = Counter(facts.reads)  # by the statements that are no candidate
    definitions = dict(facts.definitions)  # each target's last assignment
    dead = _dead(facts.candidates, definitions, reads)
    live = [c for c in facts.candidates if c[0].target not in dead] if dead else facts.candidates
    dropped = _dead_phis(facts.ifs, lambda stmt: gathered.removed(stmt, dead), reads, live)
    dead_after = _dead(live, definitions, reads) if dropped else set()
    return _Verdict(frozenset(dead), frozenset(dropped), frozenset(dead_after))


def _dead(
    candidates: list[_Candidate], definitions: dict[Var, list[Var] | None], reads: Counter[Var]
) -> set[Var]:
    """`EliminateDeadScalarAssignments`' verdict: the targets of the candidates nothing live
    reads (a candidate's verdict is its target's). Live: what `reads` counts, and transitively
    what the candidate a live target was last assigned by reads; walked from the candidates'
    targets (the only variables with a definition to follow), so it costs what they are."""
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
    return {stmt.target for stmt, _ in candidates if stmt.target not in live and reads[stmt.target] <= 0}


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


Removed = Callable[[Stmt], bool]  # whether a statement is gone (`_Gathered.removed`)


def _trailing_values(branch: list[Stmt] | None, removed: Removed) -> list[Expr] | None:
    """The values of `branch`'s trailing yield once the `removed` statements are gone."""
    for stmt in reversed(branch or ()):
        if not removed(stmt):
            return stmt.values if type(stmt) is YieldStmt else None  # type: ignore[union-attr]
    return None


def _dead_phis(
    ifs: list[IfStmt],
    dead: Removed,
    reads: Counter[Var],
    candidates: list[_Candidate],
) -> set[Var]:
    """`EliminateDeadIfReturnVars` after the first elimination (the `dead` statements gone,
    `candidates` left): drops the return variables of if-statements that nothing reads, with
    their slot in each branch's trailing yield; a dropped slot may leave an outer phi unread,
    hence the fixed point (each round judges every `if` by the reads at its start, and the
    values a round drops are no longer counted in `reads` from the next). The return variables
    dropped (what is left of an `if`'s phis follows from them: `_Cleaner._phis`)."""
    dropped: set[Var] = set()
    if not ifs:
        return dropped
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
        narrowed = False
        for _, phis in pending:
            kept = [i for i, var in enumerate(phis.return_vars) if reads[var] > 0 or by_candidates[var] > 0]
            if len(kept) == len(phis.return_vars):
                continue
            dropped.update(var for i, var in enumerate(phis.return_vars) if i not in kept)
            phis.return_vars = [phis.return_vars[i] for i in kept]
            for branch, values in enumerate(phis.yields):
                if values is not None:
                    for i, value in enumerate(values):
                        if i not in kept:
                            add_vars(value, gone)
                    phis.yields[branch] = [values[i] for i in kept] if kept else None
            narrowed = True
        if not narrowed:
            break
        for var, n in Counter(gone).items():  # `reads -= gone`, touching only `gone`'s variables
            left = reads[var] - n
            if left > 0:
                reads[var] = left
            else:
                reads.pop(var, None)
    return dropped


_UNSEEN = object()  # the spec of a statement rewritten without its flat lists made


class _Cleaner:
    """The body with the dead statements gone and the narrowed `if`s given what is left of
    their phis, in one walk that makes what the three steps make one after the other (`_narrow`
    says where that needs care). The walk enters only the statements holding something it
    changes, and each compound statement's rewrite is kept with it under the verdict and what
    was dead in it (`_CLEANED`), so a statement a keystroke left is rewritten to the object of
    before, and one that is new (the path to an edit) is walked into only as far as its
    statements are new."""

    def __init__(self, gathered: _Gathered, verdict: _Verdict):
        self.gathered = gathered
        self.verdict = verdict
        self.removed_targets = verdict.dead | verdict.dead_after

    def _dead_first(self, stmt: Stmt) -> bool:
        return self.gathered.removed(stmt, self.verdict.dead)

    def body(self, stmts: list[Stmt]) -> list[Stmt]:
        """`stmts` without the removed statements, each compound one rewritten (`_statement`)."""
        result: list[Stmt] = []
        changed = False
        gathered, removed = self.gathered, self.removed_targets
        for stmt in stmts:
            if gathered.removed(stmt, removed):
                changed = True
                continue
            new = self._statement(stmt) if type(stmt) in _COMPOUND else stmt
            changed = changed or new is not stmt
            result.append(new)
        return result if changed else stmts

    def one(self, stmt: Stmt) -> Stmt | None:
        """What `body` makes of one statement: None when it is removed."""
        if self.gathered.removed(stmt, self.removed_targets):
            return None
        return self._statement(stmt) if type(stmt) in _COMPOUND else stmt

    def _statement(self, stmt: Stmt) -> Stmt:
        reuse = self.gathered.reuse
        cleaned = _CLEANED.get(stmt) if reuse else None
        if cleaned is not None and cleaned[0] is self.verdict:
            return stmt if cleaned[2] is None else cleaned[2]
        flat = self.gathered.of(stmt).flat
        spec: object = _UNSEEN
        if flat is None:  # new since the verdict was computed: walked into
            new = self._rewritten(stmt)
        else:
            spec = self._spec(stmt, flat)
            if spec is None:
                new = stmt
            elif cleaned is not None and cleaned[1] == spec and cleaned[2] is not None:
                new = cleaned[2]
            else:
                new = self._rewritten(stmt)
        if reuse:
            _CLEANED[stmt] = (self.verdict, spec, None if new is stmt else new)
        return new

    def _rewritten(self, stmt: Stmt) -> Stmt:
        new = with_blocks(stmt, [self.body(block) for block in stmt_children(stmt)])
        if type(stmt) is IfStmt:
            assert isinstance(stmt, IfStmt)
            phis = self._phis(stmt)
            if phis is not None:
                new = self._narrow(stmt, new, phis)
        return new

    def _spec(self, stmt: Stmt, flat: _Flat) -> tuple[object, ...] | None:
        """What is dead or narrowed in `stmt` (None: nothing): the key of its rewrite."""
        verdict = self.verdict
        dead = tuple(i for i, (c, _) in enumerate(flat.candidates) if c.target in verdict.dead)
        dead_after = tuple(i for i, (c, _) in enumerate(flat.candidates) if c.target in verdict.dead_after)
        ifs = [stmt, *flat.ifs] if type(stmt) is IfStmt else flat.ifs
        phis = (
            tuple(
                (i, tuple(p.return_vars), tuple(None if y is None else tuple(y) for y in p.yields))
                for i, s in enumerate(ifs)
                if (p := self._phis(s))
            )
            if verdict.dropped
            else ()
        )
        if not (dead or dead_after or phis):
            return None
        return (dead, phis, dead_after)

    def _phis(self, stmt: IfStmt) -> _Phis | None:
        """What is left of `stmt`'s phis (None: none is dropped): the return variables not
        dropped, and each branch's trailing yield (after the first removals) at their slots."""
        dropped = self.verdict.dropped
        if not stmt.return_vars or dropped.isdisjoint(stmt.return_vars):
            return None
        kept = [i for i, var in enumerate(stmt.return_vars) if var not in dropped]
        yields: list[list[Expr] | None] = []
        for branch in (stmt.then_body, stmt.else_body):
            values = _trailing_values(branch, self._dead_first)
            yields.append([values[i] for i in kept] if values is not None and kept else None)
        return _Phis([stmt.return_vars[i] for i in kept], yields)

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
            left = [s for s in stmt.else_body if not self._dead_first(s)]
            if left and not (len(left) == 1 and type(left[0]) is YieldStmt and phis.yields[1] is None):
                else_body = self._with_yield(stmt.else_body, new.else_body, phis.yields[1])
        return copy_with(new, return_vars=phis.return_vars, then_body=then_body, else_body=else_body)

    def _with_yield(self, branch: list[Stmt], rewritten: list[Stmt], values: list[Expr] | None) -> list[Stmt]:
        """`rewritten` (`branch` rewritten) with its trailing yield yielding `values` (None:
        without it), when `branch` has one once the first removals are gone."""
        if _trailing_values(branch, self._dead_first) is None:
            return rewritten
        if values is None:
            return rewritten[:-1]
        return [*rewritten[:-1], copy_with(rewritten[-1], values=values)]


# Each compound statement's last rewrite (None: the statement itself), under the verdict it was
# made under and what was dead in it (`_Cleaner._spec`; `_UNSEEN` when not looked at).
_CLEANED: weakref.WeakKeyDictionary[Stmt, tuple[_Verdict, object, Stmt | None]] = weakref.WeakKeyDictionary()
