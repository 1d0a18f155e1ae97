"""Simplify (the compiler's pass 5, after ConvertToSSA and before the outliners), the parts that
change what a scope captures and returns (`src/ir/transforms/simplify_pass.cpp`):

* constant propagation: a scalar assigned a constant at the function's top level (the body of
  no loop, branch or `pl.spmd`; other scopes are transparent) is replaced by that constant in
  every later use, so no scope captures it;
* the closing dead-code step (`dead_scalars`): dead call-free scalars and dead if-phis.

Its control-flow folds: an `if` whose condition is a constant, or which the integer bounds
of its scalars decide (`int_bounds`: loop ranges, casts, INDEX scalars non-negative), is its
kept branch (Fold A); a plain loop of zero or one trip is its body (Fold B). The arithmetic
simplifier proper (symbolic rewriting) is not modelled: it changes what a scope captures only
in rare programs.

What the propagation makes of a compound statement depends on the statement and on what the
walk has learnt of the variables it mentions (their constants and bounds), so it is kept with
the statement (`_KEPT`, from the statement's second propagation on) and taken again, its
effects on the walk replayed, where those read the same: after an edit the statements around
the edited one are taken, and the statements after it too when the edit changed nothing they
read (early cut-off). Taken or not, the output is what a propagation taking nothing gives
(taken statements are the objects of an earlier run where that run's equal ones would be new).
"""

from __future__ import annotations

import dataclasses
import operator
import weakref
from collections.abc import Callable, Collection
from dataclasses import dataclass

from ..ir import (
    AssignStmt,
    BinaryExpr,
    Const,
    EvalStmt,
    Expr,
    ForKind,
    ForStmt,
    Function,
    IfStmt,
    IterArg,
    Param,
    Program,
    ReturnStmt,
    ScalarType,
    ScopeKind,
    ScopeStmt,
    Stmt,
    UnaryExpr,
    Var,
    WhileStmt,
    YieldStmt,
    copy_with,
)
from ..recurring import kept_at_first
from .const_fold import fold, folded_items, is_constant
from .context import PassContext
from .dead_scalars import eliminate_dead_code
from .int_bounds import Bound, IntBounds
from .kept_ends import shared_ends
from .outline_ir import (
    loop_header_changes,
    rewritten_fields,
    stmt_children,
    substitute_stmt,
    with_blocks,
)
from .stmt_facts import StmtFacts


def simplify(context: PassContext | None = None, reuse: bool = True) -> Callable[[Program], Program]:
    """The pass. Copy-on-write: the input is not modified, and a function (a statement) the
    pass does not change is the same object in its output. (`context` for the pass factories'
    shape: Simplify reports nothing.) `reuse`: take what earlier runs made of a statement
    where it reads the same, and keep this run's (False: take and keep nothing)."""

    def run(program: Program) -> Program:
        functions = [simplify_function(fn, reuse) for fn in program.functions]
        return dataclasses.replace(program, functions=functions)

    return run


def simplify_function(fn: Function, reuse: bool = True) -> Function:
    """`fn` simplified: `fn` itself when nothing changes, else a new function sharing every
    statement nothing changed in."""
    body = _propagate_top(fn, _Env(reuse))
    body = eliminate_dead_code(body, reuse, fn.name, fn.params[0] if fn.params else None)
    return fn if body is fn.body else copy_with(fn, body=body)


# ---------------------------------------------------------------------------------------------
# Constant propagation


class _Env:
    """What the propagation has learnt so far in one function: the variables it replaces (each
    with its value's `_value_key`) and the scalars' bounds, each write also logged, so what a
    kept statement wrote can be written again."""

    __slots__ = ("bound_writes", "bounds", "keys", "replaced", "replacements", "reuse")

    def __init__(self, reuse: bool) -> None:
        self.reuse = reuse
        self.replaced: dict[Var, Expr] = {}
        self.keys: dict[Var, object] = {}
        self.bounds = IntBounds()
        self.replacements: list[tuple[Var, Expr, object]] = []
        self.bound_writes: list[tuple[Var, Bound]] = []

    def replace(self, var: Var, value: Expr) -> None:
        key = _value_key(value)
        self.replaced[var] = value
        self.keys[var] = key
        self.replacements.append((var, value, key))

    def bind(self, bound: Bound | None, var: Var) -> None:
        if bound is not None:
            self.bound_writes.append((var, bound))

    def replay(self, kept: _Propagated) -> None:
        for var, value, key in kept.replacements:
            self.replaced[var] = value
            self.keys[var] = key
        self.replacements += kept.replacements
        self.bounds.known.update(kept.bound_writes)
        self.bound_writes += kept.bound_writes

    def knows_none_of(self, variables: Collection[Var]) -> bool:
        """Whether nothing is learnt yet of `variables` (a statement's own definitions: in
        SSA form each is defined once, so the walk meets them first inside the statement)."""
        return self.keys.keys().isdisjoint(variables) and self.bounds.known.keys().isdisjoint(variables)


_NONE = object()  # the key of a replacement by None (a zero-trip loop's unseeded carry)


def _value_key(value: Expr | None) -> object:
    """What decides a replacement's effect: a constant (new at every propagation that folds it)
    by its value, type and place, arithmetic over constants by its parts, anything else by
    identity (variables are the same objects across edits)."""
    kind = type(value)
    if kind is Const:
        assert isinstance(value, Const)
        return (Const, type(value.value), value.value, value.type, value.span)
    if kind is BinaryExpr:
        assert isinstance(value, BinaryExpr)
        return (BinaryExpr, value.op, _value_key(value.left), _value_key(value.right), value.type, value.span)
    if kind is UnaryExpr:
        assert isinstance(value, UnaryExpr)
        return (UnaryExpr, value.op, _value_key(value.operand), value.type, value.span, value.cast_dtype)
    return _NONE if value is None else value


@dataclass(slots=True, eq=False)
class _Propagated:
    """One propagation of a statement: what it read (for each variable the statement reads
    from outside it, its replacement's key and its bound; of those it defines, nothing was
    known), what it made of the statement (None: the statement itself; else the statements in
    its place) and its writes, in order."""

    top_level: bool
    keys: tuple[object, ...]
    bounds: tuple[Bound | None, ...]
    output: list[Stmt] | None
    replacements: list[tuple[Var, Expr, object]]
    bound_writes: list[tuple[Var, Bound]]


class _Kept:
    """A statement's last propagations (newest first), the variables it mentions but does not
    define (`free`) and those it defines (`local`): None until its second propagation (a
    statement made anew for every edit, and a cold analysis, cost no bookkeeping; the moved copy
    of a statement met before, `recurring.marked`, is kept from its first). A propagation reads
    of the walk only what it knows of the variables the statement mentions, and of those it
    defines nothing is known on entry (SSA; checked, `_Env.knows_none_of`) but what the
    propagation itself learns, so its key is the free ones': a statement holding most of a
    whole-model entry defines thousands of variables and reads a few tens from outside."""

    __slots__ = ("entries", "free", "local")

    def __init__(self) -> None:
        self.free: tuple[Var, ...] | None = None
        self.local: Collection[Var] = ()  # the statement facts' own (never modified)
        self.entries: list[_Propagated] = []


# Kept with the statement while it lives (never holding it: an unchanged output is None). The
# passes never modify a statement, and ConvertToSSA hands out a compound statement it converted
# alike as the object of before, so after an edit most compound statements are met again.
_KEPT: weakref.WeakKeyDictionary[Stmt, _Kept] = weakref.WeakKeyDictionary()
_FACTS = StmtFacts()
_ENTRIES = 4  # a statement an unrolled loop shares between copies is met once per copy
_KEPT_KINDS = frozenset({ForStmt, WhileStmt, IfStmt, ScopeStmt, AssignStmt, EvalStmt, ReturnStmt, YieldStmt})


def _propagate(stmts: list[Stmt], env: _Env, top_level: bool) -> list[Stmt]:
    """In SSA form a use always follows its definition, so one walk in statement order both
    learns what to replace (constants, and the return variables of a folded `if` or loop) and
    replaces it in every later statement, function-wide; the bounds learn each scalar's bound
    the same way. `stmts` itself when nothing changed in it."""
    result: list[Stmt] = []
    changed = False
    for stmt in stmts:
        output = _propagated(stmt, env, top_level)
        if output is None:
            result.append(stmt)
        else:
            result += output
            changed = True
    return result if changed else stmts


@dataclass(slots=True, eq=False)
class _Run:
    """A function's last top-level propagation (`_propagate_top`): its name and parameters
    (weakly: the table's key is the first), the statements it propagated (held, so
    no other object takes their ids while it lives), the output, the walk's logs at the end,
    and before each statement and at the end how long the logs and the output were."""

    name: str
    params: tuple[weakref.ref[Param], ...]
    stmts: list[Stmt]
    output: list[Stmt]
    replacements: list[tuple[Var, Expr, object]]
    bound_writes: list[tuple[Var, Bound]]
    marks: list[tuple[int, int, int]]  # (replacements, bound writes, output statements)
    # the walk's maps at the end where they hold each logged write, each variable written once
    # (SSA: nearly always; not after a cut-off, which takes the logs and leaves the maps): a
    # resume near the end takes them with the writes after its mark taken out (`_resumed`)
    maps: tuple[dict[Var, Expr], dict[Var, object], dict[Var, Bound]] | None


# Each function's last propagation, by its first parameter: ConvertToSSA hands out a function's
# `Param`s as the objects of its last conversion while the header is unchanged
# (`ssa_resume.Resume.out_params`), and its record holds them while the build does. No
# statement holds a `Param` (a variable would be the key held by its own value).
_RUNS: weakref.WeakKeyDictionary[Param, _Run] = weakref.WeakKeyDictionary()
_RETRY = 32  # after a failed cut-off, statements until the next try


def _last_run(fn: Function) -> _Run | None:
    if not fn.params:
        return None
    run = _RUNS.get(fn.params[0])
    if run is None or run.name != fn.name or len(run.params) != len(fn.params):
        return None
    return run if all(held() is p for held, p in zip(run.params, fn.params, strict=True)) else None


def _propagate_top(fn: Function, env: _Env) -> list[Stmt]:
    """`_propagate` of the function's body, resumed from its last propagation (`_Run`): what the
    walk learns before a top-level statement depends only on the statements before it (the
    walk starts knowing nothing), so the output of the statements before the first one that is
    not the object of last time is taken with the walk's state there (made from the logs cut at
    its mark, at C speed); and once the statements left are the last run's last ones, the same
    objects, and what the walk learnt since it resumed is what the last run learnt over the
    statements they replaced (each replacement by its key and each bound, in order: what the
    kept propagations compare), the rest is the last run's output (early cut-off). A keystroke
    in a flat entry of 611 top-level statements propagates the statement it edited: 609 kept
    propagations compared and replayed were 0.7 of Simplify (prefill_cp_csa.py)."""
    stmts = fn.body
    run = _last_run(fn) if env.reuse else None
    out: list[Stmt] = []
    marks: list[tuple[int, int, int]] = []
    start, tail = 0, len(stmts)
    if run is not None:
        start, tail = _resumed(run, stmts, env)
        out, marks = run.output[: run.marks[start][2]], run.marks[:start]
    begun = (len(env.replacements), len(env.bound_writes))
    cut = False
    for i in range(start, len(stmts)):
        j = len(run.stmts) - len(stmts) + i if run is not None else 0
        if run is not None and i >= tail and (i - tail) % _RETRY == 0 and _learnt_alike(env, begun, run, j):
            _take_rest(run, j, env, out, marks)
            cut = True
            break
        marks.append((len(env.replacements), len(env.bound_writes), len(out)))
        output = _propagated(stmts[i], env, True)
        if output is None:
            out.append(stmts[i])
        else:
            out += output
    marks.append((len(env.replacements), len(env.bound_writes), len(out)))
    if env.reuse and fn.params:
        params = tuple(weakref.ref(p) for p in fn.params)
        _RUNS[fn.params[0]] = _Run(
            fn.name,
            params,
            list(stmts),
            out,
            env.replacements,
            env.bound_writes,
            marks,
            None if cut else _maps(env),
        )
    same_output = len(out) == len(stmts) and all(map(operator.is_, out, stmts))
    return stmts if same_output else out


def _resumed(run: _Run, stmts: list[Stmt], env: _Env) -> tuple[int, int]:
    """Where this propagation starts (the first statement that is not the object the last run
    met there) and where the statements that are the last run's last ones start; `env` set to
    the walk's state before the first."""
    start, tail, _ = shared_ends(run.stmts, stmts)
    replaced, bound, _ = run.marks[start]
    env.replacements = run.replacements[:replaced]
    env.bound_writes = run.bound_writes[:bound]
    later = len(run.replacements) - replaced + len(run.bound_writes) - bound
    if run.maps is not None and later < replaced + bound:  # fewer writes to take out than to make
        values, keys, known = run.maps[0].copy(), run.maps[1].copy(), run.maps[2].copy()
        for var, _, _ in run.replacements[replaced:]:
            del values[var], keys[var]
        for var, _ in run.bound_writes[bound:]:
            del known[var]
        env.replaced, env.keys, env.bounds.known = values, keys, known
    else:
        env.replaced = {var: value for var, value, _ in env.replacements}
        env.keys = {var: key for var, _, key in env.replacements}
        env.bounds.known = dict(env.bound_writes)
    return start, tail


def _maps(env: _Env) -> tuple[dict[Var, Expr], dict[Var, object], dict[Var, Bound]] | None:
    """`_Run.maps` of a walk that ran to the end: its maps where each logged write is in them
    once (as many entries as writes)."""
    writes = len(env.replacements)
    if (
        len(env.replaced) != writes
        or len(env.keys) != writes
        or len(env.bounds.known) != len(env.bound_writes)
    ):
        return None
    return env.replaced, env.keys, env.bounds.known


def _take_rest(run: _Run, j: int, env: _Env, out: list[Stmt], marks: list[tuple[int, int, int]]) -> None:
    """The last run's output and logs from its statement `j` on, after `out` (the walk's state
    being the last run's before `j`: its maps are not read again)."""
    replaced, bound, made = run.marks[j]
    env.replacements += run.replacements[replaced:]
    env.bound_writes += run.bound_writes[bound:]
    shift = len(out) - made
    marks += [(r, b, o + shift) for r, b, o in run.marks[j:-1]]
    out += run.output[made:]


def _learnt_alike(env: _Env, begun: tuple[int, int], run: _Run, j: int) -> bool:
    """Whether what the walk learnt since it resumed (`begun`: the logs' lengths then, the
    last run's too) is what the last run learnt from there to its statement `j`."""
    replaced, bound, _ = run.marks[j]
    new, old = env.replacements[begun[0] :], run.replacements[begun[0] : replaced]
    if len(new) != len(old) or env.bound_writes[begun[1] :] != run.bound_writes[begun[1] : bound]:
        return False
    return all(a[0] is b[0] and a[2] == b[2] for a, b in zip(new, old, strict=True))


def _propagated(stmt: Stmt, env: _Env, top_level: bool) -> list[Stmt] | None:
    """`_statement`, or `_taken` where the statement's propagation may be kept."""
    if env.reuse and type(stmt) in _KEPT_KINDS:
        return _taken(stmt, env, top_level)
    return _statement(stmt, env, top_level)


def _taken(stmt: Stmt, env: _Env, top_level: bool) -> list[Stmt] | None:
    """`_statement`, taken from the statement's kept propagation that read what this one
    reads (its writes replayed), else done and kept."""
    kept = _KEPT.get(stmt)
    if kept is None:
        kept = _KEPT[stmt] = _Kept()
        if not kept_at_first(stmt):
            return _statement(stmt, env, top_level)
    if kept.free is None:
        # from the facts each statement keeps, a compound one's made from its children's: a
        # walk of each statement's whole subtree was one walk per nesting level when a whole
        # program is kept at its first meeting (an open: prefill_cp_fwd_draft's 12,435)
        kept.local = _FACTS.binds(stmt)
        kept.free = tuple(_FACTS.mentions(stmt).difference(kept.local))
    if not env.knows_none_of(kept.local):  # not SSA: a definition met twice (taken nor kept)
        return _statement(stmt, env, top_level)
    keys = tuple(map(env.keys.get, kept.free))
    bounds = tuple(map(env.bounds.known.get, kept.free))
    for entry in kept.entries:
        if entry.top_level is top_level and entry.keys == keys and entry.bounds == bounds:
            env.replay(entry)
            return entry.output
    replaced, bound = len(env.replacements), len(env.bound_writes)
    output = _statement(stmt, env, top_level)
    entry = _Propagated(
        top_level, keys, bounds, output, env.replacements[replaced:], env.bound_writes[bound:]
    )
    kept.entries = [entry, *kept.entries[: _ENTRIES - 1]]
    return output


def _statement(stmt: Stmt, env: _Env, top_level: bool) -> list[Stmt] | None:
    """What the propagation makes of one statement: None when it is left as it is, else the
    statements in its place (a rewritten one, or a folded `if`'s or loop's body)."""
    new = _fold_statement(substitute_stmt(stmt, env.replaced) if env.replaced else stmt)
    kind = type(new)
    if kind is AssignStmt:
        assert isinstance(new, AssignStmt)
        if isinstance(new.target.type, ScalarType):
            if top_level and is_constant(new.value):
                env.replace(new.target, new.value)
            env.bind(env.bounds.bind_assignment(new.target, new.value), new.target)
    elif kind is IfStmt:
        assert isinstance(new, IfStmt)
        kept = _kept_branch(new, env.bounds)
        if kept is not None:  # Fold A: the condition is a constant, or the bounds prove it
            kept = _propagate(kept, env, top_level=False)
            return _lifted(kept, new.return_vars, env)
    elif kind is ForStmt:
        assert isinstance(new, ForStmt)
        trips = _trip_count(new)
        if trips is not None:  # Fold B: a plain sequential loop of zero or one iteration
            return _folded_loop(new, trips, env, top_level)
        env.bind(env.bounds.bind_loop(new.loop_var, new.start, new.stop), new.loop_var)
        single = _single_value(new)
        if single is not None:  # its analyzer's range of the variable holds one value
            env.replace(new.loop_var, single)
    blocks = stmt_children(new)
    if blocks:
        inner = top_level and _transparent(new)
        new = with_blocks(new, [_propagate(block, env, inner) for block in blocks])
    return None if new is stmt else [new]


def _kept_branch(stmt: IfStmt, bounds: IntBounds) -> list[Stmt] | None:
    cond = stmt.cond
    truth: object = cond.value if type(cond) is Const else bounds.decide(cond)  # type: ignore[union-attr]
    if not isinstance(truth, (bool, int, float)):
        return None
    if truth:
        return stmt.then_body
    if stmt.else_body is None and stmt.return_vars:
        return None  # not well-formed; ConvertToSSA always gives a phi's `if` an else
    return stmt.else_body or []


def _lifted(body: list[Stmt], return_vars: list[Var], env: _Env) -> list[Stmt]:
    """`body` in place of its `if` or loop: the trailing yield goes, each return variable is
    replaced by its yielded value (`LiftBodyToReturnVars`)."""
    if return_vars and body and type(body[-1]) is YieldStmt:
        last = body[-1]
        assert isinstance(last, YieldStmt)
        for var, value in zip(return_vars, last.values, strict=False):
            env.replace(var, value)
        return body[:-1]
    return body


def _trip_count(loop: ForStmt) -> int | None:
    if loop.kind is not ForKind.Range or loop.kwargs:
        return None
    step = _int_value(loop.step)
    extent = _extent(loop.start, loop.stop)
    if step is None or step < 1 or extent is None:
        return None
    if extent <= 0:
        return 0
    return 1 if extent <= step else None


def _single_value(loop: ForStmt) -> Expr | None:
    """The start of a loop Fold B leaves (a `pl.parallel`, `pl.pipeline`, a loop with
    attributes) whose constant bounds hold one value (`pl.parallel(0, 1, 1)`): the compiler's
    Simplify binds the variable to `[start, stop)` and its analyzer rewrites each use to that
    value, so no scope in the body reads the variable (the loop stays, its variable unused)."""
    first, last = _int_value(loop.start), _int_value(loop.stop)
    return loop.start if first is not None and last is not None and last == first + 1 else None


def _extent(start: Expr, stop: Expr) -> int | None:
    """`stop - start` when Simplify's analyzer knows it: both constants, or `stop` written
    `start + k` (`pl.range(t0, t0 + TILE, TILE)` runs once whatever `t0` is)."""
    first, last = _int_value(start), _int_value(stop)
    if first is not None and last is not None:
        return last - first
    if type(stop) is BinaryExpr and stop.op == "+":  # type: ignore[union-attr]
        left, right = stop.left, stop.right  # type: ignore[union-attr]
        if left is start:
            return _int_value(right)
        if right is start:
            return _int_value(left)
    return None


def _int_value(expr: Expr) -> int | None:
    return expr.value if type(expr) is Const and type(expr.value) is int else None  # type: ignore[union-attr,return-value]


def _folded_loop(loop: ForStmt, trips: int, env: _Env, top_level: bool) -> list[Stmt]:
    """Zero trips: each return variable is its iter_arg's initial value. One trip: the body,
    with the loop variable its start and each iter_arg its initial value, in the loop's place,
    propagated at the loop's own level: the compiler visits the lifted body without entering a
    nested region (Fold B), so a constant assigned in it at the function's top level is
    propagated as one assigned beside the loop."""
    if trips == 0:
        for var, arg in zip(loop.return_vars, loop.iter_args, strict=False):
            env.replace(var, arg.init)  # type: ignore[arg-type]
        return []
    env.replace(loop.loop_var, loop.start)
    for arg in loop.iter_args:
        if arg.init is not None:
            env.replace(arg, arg.init)
    body = _propagate(loop.body, env, top_level)
    return _lifted(body, loop.return_vars, env)


def _transparent(stmt: Stmt) -> bool:
    """Scope bodies other than `pl.spmd`'s stay at the level of the scope (the compiler counts
    nesting depth only for loops, branches and spmd bodies)."""
    return type(stmt) is ScopeStmt and stmt.kind is not ScopeKind.Spmd  # type: ignore[union-attr]


_LEAVES = frozenset({Var, IterArg, Const})


def _fold_statement(stmt: Stmt) -> Stmt:
    """`stmt` with the expressions it evaluates folded (Simplify folds at every arithmetic
    node): `stmt` itself when nothing folds."""
    kind = type(stmt)
    if kind is AssignStmt:
        value = stmt.value  # type: ignore[union-attr]
        if type(value) in _LEAVES:
            return stmt
        folded = fold(value)
        return stmt if folded is value else copy_with(stmt, value=folded)
    if kind is EvalStmt:
        assert isinstance(stmt, EvalStmt)
        folded = fold(stmt.expr)
        return stmt if folded is stmt.expr else copy_with(stmt, expr=folded)
    if kind is ReturnStmt or kind is YieldStmt:
        assert isinstance(stmt, (ReturnStmt, YieldStmt))
        values = folded_items(stmt.values)
        return stmt if values is stmt.values else copy_with(stmt, values=values)
    if kind is ForStmt or kind is WhileStmt:
        assert isinstance(stmt, (ForStmt, WhileStmt))
        changes = loop_header_changes(stmt, fold)
    elif kind is IfStmt:
        changes = rewritten_fields(stmt, ("cond",), fold)
    elif kind is ScopeStmt:
        changes = rewritten_fields(stmt, ("core_num",), fold)
    else:
        return stmt
    return copy_with(stmt, **changes) if changes else stmt
