"""Simplify (the compiler's pass 5, after ConvertToSSA and before the outliners), the parts that
change what a scope captures and returns (`src/ir/transforms/simplify_pass.cpp`):

* constant propagation: a scalar assigned a constant at the function's top level (the body of
  no loop, branch or `pl.spmd`; other scopes are transparent) is replaced by that constant in
  every later use, so no scope captures it;
* the closing dead-code step (`TransformSimplify`): dead call-free scalar assignments, then
  if-statement phis nothing reads (with their yield slots, to a fixed point), then dead scalar
  assignments again (`utils/dead_code_elimination.cpp`). A dead phi is what made a scope's
  scalar look used after it (a false PTO301); loop carries are never removed.

Its control-flow folds: an `if` whose condition is a constant, or which the integer bounds
of its scalars decide (`int_bounds`: loop ranges, casts, INDEX scalars non-negative), is its
kept branch (Fold A); a plain loop of zero or one trip is its body (Fold B). The arithmetic
simplifier proper (symbolic rewriting) is not modelled: it changes what a scope captures only
in rare programs.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from ..ir import (
    TASK_ID,
    AssignStmt,
    BinaryExpr,
    Call,
    Const,
    EvalStmt,
    Expr,
    ForKind,
    ForStmt,
    Function,
    IfStmt,
    IterArg,
    OpaqueExpr,
    Program,
    ReturnStmt,
    ScalarType,
    ScopeKind,
    ScopeStmt,
    Stmt,
    TupleGetItem,
    TupleType,
    UnaryExpr,
    Var,
    WhileStmt,
    YieldStmt,
    copy_with,
)
from .const_fold import fold, folded_items
from .context import PassContext
from .int_bounds import IntBounds
from .outline_ir import (
    add_vars,
    expr_vars,
    loop_header_changes,
    rewritten_fields,
    stmt_children,
    stmt_exprs,
    sub_exprs,
    substitute_stmt,
    walk_stmts,
    with_blocks,
)


def simplify(context: PassContext | None = None) -> Callable[[Program], Program]:
    """The pass. Copy-on-write: the input is not modified, and a function (a statement) the
    pass does not change is the same object in its output. (`context` for the pass factories'
    shape: Simplify reports nothing.)"""

    def run(program: Program) -> Program:
        return dataclasses.replace(program, functions=[simplify_function(fn) for fn in program.functions])

    return run


def simplify_function(fn: Function) -> Function:
    """`fn` simplified: `fn` itself when nothing changes, else a new function sharing every
    statement nothing changed in."""
    body = _propagate_constants(fn.body, {}, IntBounds(), top_level=True)
    dead_code = _DeadScalars(body)
    body = dead_code.eliminate(body)
    body, dropped = _drop_dead_if_phis(body, dead_code)
    if dropped:
        body = dead_code.eliminate(body)
    return fn if body is fn.body else copy_with(fn, body=body)


# ---------------------------------------------------------------------------------------------
# Constant propagation


def _propagate_constants(
    stmts: list[Stmt], replaced: dict[Var, Expr], bounds: IntBounds, top_level: bool
) -> list[Stmt]:
    """In SSA form a use always follows its definition, so one walk in statement order both
    learns what to replace (constants, and the return variables of a folded `if` or loop) and
    replaces it in every later statement, function-wide; `bounds` learns each scalar's bound
    the same way. `stmts` itself when nothing changed in it."""
    result: list[Stmt] = []
    changed = False
    for stmt in stmts:
        new = _fold_statement(substitute_stmt(stmt, replaced) if replaced else stmt)
        kind = type(new)
        if kind is AssignStmt:
            assert isinstance(new, AssignStmt)
            if isinstance(new.target.type, ScalarType):
                if top_level and _is_constant(new.value):
                    replaced[new.target] = new.value
                bounds.bind_assignment(new.target, new.value)
        elif kind is IfStmt:
            assert isinstance(new, IfStmt)
            kept = _kept_branch(new, bounds)
            if kept is not None:  # Fold A: the condition is a constant, or the bounds prove it
                kept = _propagate_constants(kept, replaced, bounds, top_level=False)
                result += _lifted(kept, new.return_vars, replaced)
                changed = True
                continue
        elif kind is ForStmt:
            assert isinstance(new, ForStmt)
            trips = _trip_count(new)
            if trips is not None:  # Fold B: a plain sequential loop of zero or one iteration
                result += _folded_loop(new, trips, replaced, bounds)
                changed = True
                continue
            bounds.bind_loop(new.loop_var, new.start, new.stop)
        blocks = stmt_children(new)
        if blocks:
            inner = top_level and _transparent(new)
            new = with_blocks(new, [_propagate_constants(block, replaced, bounds, inner) for block in blocks])
        changed = changed or new is not stmt
        result.append(new)
    return result if changed else stmts


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


def _lifted(body: list[Stmt], return_vars: list[Var], replaced: dict[Var, Expr]) -> list[Stmt]:
    """`body` in place of its `if` or loop: the trailing yield goes, each return variable is
    replaced by its yielded value (`LiftBodyToReturnVars`)."""
    if return_vars and body and type(body[-1]) is YieldStmt:
        last = body[-1]
        assert isinstance(last, YieldStmt)
        replaced.update(zip(return_vars, last.values, strict=False))
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


def _folded_loop(loop: ForStmt, trips: int, replaced: dict[Var, Expr], bounds: IntBounds) -> list[Stmt]:
    """Zero trips: each return variable is its iter_arg's initial value. One trip: the body,
    with the loop variable its start and each iter_arg its initial value, in the loop's place."""
    initial: dict[Var, Expr] = {arg: arg.init for arg in loop.iter_args if arg.init is not None}
    if trips == 0:
        replaced.update(zip(loop.return_vars, [arg.init for arg in loop.iter_args], strict=False))  # type: ignore[misc]
        return []
    replaced[loop.loop_var] = loop.start
    replaced.update(initial)
    body = _propagate_constants(loop.body, replaced, bounds, top_level=False)
    return _lifted(body, loop.return_vars, replaced)


def _transparent(stmt: Stmt) -> bool:
    """Scope bodies other than `pl.spmd`'s stay at the level of the scope (the compiler counts
    nesting depth only for loops, branches and spmd bodies)."""
    return type(stmt) is ScopeStmt and stmt.kind is not ScopeKind.Spmd  # type: ignore[union-attr]


def _is_constant(expr: Expr) -> bool:
    """A number, or arithmetic over numbers and module-level names whose value the analysis
    cannot fold (`N_EXPERTS // GATE_N_TILE` with `N_EXPERTS` read from a configuration chosen
    at import): the compiler sees every such name as the Python number it is when the function
    is parsed (the jit specialiser inlines it), and its analyzer folds the arithmetic to the
    literal its Simplify propagates (`IsConstScalar`). The expression holds no variable, so
    sharing it between its uses is safe."""
    kind = type(expr)
    if kind is Const:
        return isinstance(expr.value, (bool, int, float))  # type: ignore[union-attr]
    if kind is BinaryExpr:
        return _is_constant(expr.left) and _is_constant(expr.right)  # type: ignore[union-attr]
    if kind is UnaryExpr:  # not a cast: the analyzer leaves `pl.cast(0 - EPOCH, pl.INT32)` a cast
        return expr.op != "cast" and _is_constant(expr.operand)  # type: ignore[union-attr]
    if kind is OpaqueExpr:  # a module-level name or an attribute of one (`M.n_routed_experts`)
        return _MODULE_NAME.fullmatch(expr.text) is not None and all(map(_is_constant, expr.operands))  # type: ignore[union-attr]
    return False


_MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


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


# ---------------------------------------------------------------------------------------------
# Dead code


class _DeadScalars:
    """`EliminateDeadScalarAssignments` over one function body, run again after
    `_drop_dead_if_phis`: removes every removable assignment (`_removable`) whose target nothing
    live reads. Live: what the other statements read, loop and branch headers, scope
    attributes, and transitively what a live assignment reads.

    The body's expressions are walked once: what the statements other than the candidates read
    is counted (`reads`), and `unread` takes back the yield values `_drop_dead_if_phis` drops,
    so the second run and the fixed point's read sets come from the counts, not from new walks
    of the whole body (each as costly as the propagation)."""

    def __init__(self, stmts: list[Stmt]) -> None:
        found: list[Var] = []
        # each target's last assignment when that is a candidate (the only definitions the
        # liveness closure follows: a kept assignment's reads are counted already)
        self.definitions: dict[Var, Expr | None] = {}
        self.candidates: list[AssignStmt] = []
        for stmt in walk_stmts(stmts):
            if type(stmt) is AssignStmt:
                assert isinstance(stmt, AssignStmt)
                if _removable(stmt):
                    self.definitions[stmt.target] = stmt.value
                    self.candidates.append(stmt)
                    continue
                self.definitions[stmt.target] = None
            for expr in stmt_exprs(stmt):
                add_vars(expr, found)
        self.reads = Counter(found)  # by the statements that are no candidate
        self._all_reads: Counter[Var] | None = None  # `reads` plus the kept candidates'

    def eliminate(self, stmts: list[Stmt]) -> list[Stmt]:
        """`stmts` (the body, or what an earlier step made of it) without the candidates
        nothing live reads."""
        if not self.candidates:
            return stmts  # the usual case for kernels: every scalar comes from a call
        live = {var for var, n in self.reads.items() if n}
        pending = list(live)
        while pending:
            value = self.definitions.get(pending.pop())
            if value is None:
                continue
            for var in expr_vars(value):
                if var not in live:
                    live.add(var)
                    pending.append(var)
        dead = {id(stmt) for stmt in self.candidates if stmt.target not in live}
        if dead:
            stmts = _removed(stmts, dead)
            self.candidates = [stmt for stmt in self.candidates if id(stmt) not in dead]
        self._all_reads = None
        return stmts

    def read(self) -> set[Var]:
        """What the statements' expressions read now."""
        if self._all_reads is None:
            found: list[Var] = []
            for stmt in self.candidates:
                add_vars(stmt.value, found)
            self._all_reads = self.reads + Counter(found)
        return {var for var, n in self._all_reads.items() if n}

    def unread(self, values: list[Expr]) -> None:
        """`values` (a trailing yield's, which is no candidate) are no longer read."""
        gone = Counter([var for value in values for var in expr_vars(value)])
        _take_back(self.reads, gone)
        if self._all_reads is not None:
            _take_back(self._all_reads, gone)


def _take_back(counts: Counter[Var], gone: Counter[Var]) -> None:
    """`counts -= gone` for counts that are all positive, touching only `gone`'s variables:
    `Counter.__isub__` goes over every count for the ones left at zero, and a whole-model
    program's yields drop thousands of slots one if-statement at a time."""
    for var, n in gone.items():
        left = counts.get(var, 0) - n
        if left > 0:
            counts[var] = left
        else:
            counts.pop(var, None)


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
        return _is_constant(expr)
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


def _removed(stmts: list[Stmt], dead: set[int]) -> list[Stmt]:
    """`stmts` without the statements in `dead` (by id), at any depth (copy-on-write)."""
    result: list[Stmt] = []
    changed = False
    for stmt in stmts:
        if id(stmt) in dead:
            changed = True
            continue
        blocks = stmt_children(stmt)
        new = with_blocks(stmt, [_removed(block, dead) for block in blocks]) if blocks else stmt
        changed = changed or new is not stmt
        result.append(new)
    return result if changed else stmts


@dataclass
class _Phis:
    """An `if` whose return variables `_drop_dead_if_phis` narrows: what is left of them and
    of each branch's trailing yield (None: the branch has none, or it was dropped)."""

    return_vars: list[Var]
    yields: list[list[Expr] | None]


def _trailing_yields(stmt: Stmt) -> list[list[Expr] | None]:
    assert isinstance(stmt, IfStmt)
    return [_trailing_values(stmt.then_body), _trailing_values(stmt.else_body)]


def _trailing_values(branch: list[Stmt] | None) -> list[Expr] | None:
    if not branch or type(branch[-1]) is not YieldStmt:
        return None
    return branch[-1].values  # type: ignore[union-attr]


def _drop_dead_if_phis(stmts: list[Stmt], dead_code: _DeadScalars) -> tuple[list[Stmt], bool]:
    """`EliminateDeadIfReturnVars`: drops the return variables of if-statements that nothing
    reads, with their slot in each branch's trailing yield; a dropped slot may leave an outer
    phi unread, hence the fixed point (each round judges every `if` by the reads at its start).
    The body with the narrowed `if`s, and whether anything was dropped."""
    # found once: a round only narrows phis and yields (an else branch it drops was empty)
    ifs = [s for s in walk_stmts(stmts) if type(s) is IfStmt and s.return_vars]  # type: ignore[union-attr]
    narrowed: dict[int, _Phis] = {}
    pending = [(stmt, _Phis(stmt.return_vars, _trailing_yields(stmt))) for stmt in ifs]  # type: ignore[union-attr]
    while True:
        pending = [(stmt, phis) for stmt, phis in pending if phis.return_vars]
        if not pending:
            break
        read = dead_code.read()
        dropped = False
        for stmt, phis in pending:
            kept = [i for i, var in enumerate(phis.return_vars) if var in read]
            if len(kept) == len(phis.return_vars):
                continue
            phis.return_vars = [phis.return_vars[i] for i in kept]
            for branch, values in enumerate(phis.yields):
                if values is not None:
                    dead_code.unread([value for i, value in enumerate(values) if i not in kept])
                    phis.yields[branch] = [values[i] for i in kept] if kept else None
            narrowed[id(stmt)] = phis
            dropped = True
        if not dropped:
            break
    if not narrowed:
        return stmts, False
    return _narrowed(stmts, narrowed), True


def _narrowed(stmts: list[Stmt], narrowed: dict[int, _Phis]) -> list[Stmt]:
    """`stmts` with each `if` in `narrowed` (by id, at any depth) given what is left of its
    phis and trailing yields (copy-on-write)."""
    result: list[Stmt] = []
    changed = False
    for stmt in stmts:
        blocks = stmt_children(stmt)
        new = with_blocks(stmt, [_narrowed(block, narrowed) for block in blocks]) if blocks else stmt
        phis = narrowed.get(id(stmt))
        if phis is not None:
            assert isinstance(new, IfStmt)
            then_body = _with_yield(new.then_body, phis.yields[0])
            else_body = _with_yield(new.else_body, phis.yields[1]) if new.else_body is not None else None
            # an else left empty held only the synthesised yield of the incoming values
            new = copy_with(
                new, return_vars=phis.return_vars, then_body=then_body, else_body=else_body or None
            )
        changed = changed or new is not stmt
        result.append(new)
    return result if changed else stmts


def _with_yield(branch: list[Stmt], values: list[Expr] | None) -> list[Stmt]:
    """`branch` with its trailing yield yielding `values` (None: without it)."""
    if not branch or type(branch[-1]) is not YieldStmt:
        return branch
    if values is None:
        return branch[:-1]
    return [*branch[:-1], copy_with(branch[-1], values=values)]
