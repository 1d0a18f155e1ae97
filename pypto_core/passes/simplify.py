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
)
from ..ir_clone import clone
from .const_fold import fold
from .context import PassContext
from .int_bounds import IntBounds
from .outline_ir import (
    add_vars,
    expr_vars,
    stmt_children,
    stmt_exprs,
    sub_exprs,
    substitute_stmt,
    walk_stmts,
)


def simplify(context: PassContext | None = None) -> Callable[[Program], Program]:
    """The pass. Functions the context owns are rewritten in place, the others are copied."""
    owned = context.owned if context is not None else None

    def run(program: Program) -> Program:
        functions: list[Function] = []
        for fn in program.functions:
            if owned is None or fn not in owned:
                fn = clone(fn)
                if owned is not None:
                    owned.add(fn)
            simplify_function(fn)
            functions.append(fn)
        return dataclasses.replace(program, functions=functions)

    return run


def simplify_function(fn: Function) -> None:
    """Rewrites `fn`'s body in place."""
    _propagate_constants(fn.body, {}, IntBounds(), top_level=True)
    dead_code = _DeadScalars(fn.body)
    dead_code.eliminate()
    if _drop_dead_if_phis(fn.body, dead_code):
        dead_code.eliminate()


# ---------------------------------------------------------------------------------------------
# Constant propagation


def _propagate_constants(
    stmts: list[Stmt], replaced: dict[Var, Expr], bounds: IntBounds, top_level: bool
) -> None:
    """In SSA form a use always follows its definition, so one walk in statement order both
    learns what to replace (constants, and the return variables of a folded `if` or loop) and
    replaces it in every later statement, function-wide; `bounds` learns each scalar's bound
    the same way."""
    result: list[Stmt] = []
    for stmt in stmts:
        if replaced:
            substitute_stmt(stmt, replaced)
        _fold_statement(stmt)
        kind = type(stmt)
        if kind is AssignStmt:
            assert isinstance(stmt, AssignStmt)
            if isinstance(stmt.target.type, ScalarType):
                if top_level and _is_constant(stmt.value):
                    replaced[stmt.target] = stmt.value
                bounds.bind_assignment(stmt.target, stmt.value)
        elif kind is IfStmt:
            assert isinstance(stmt, IfStmt)
            kept = _kept_branch(stmt, bounds)
            if kept is not None:  # Fold A: the condition is a constant, or the bounds prove it
                _propagate_constants(kept, replaced, bounds, top_level=False)
                result += _lifted(kept, stmt.return_vars, replaced)
                continue
        elif kind is ForStmt:
            assert isinstance(stmt, ForStmt)
            trips = _trip_count(stmt)
            if trips is not None:  # Fold B: a plain sequential loop of zero or one iteration
                result += _folded_loop(stmt, trips, replaced, bounds)
                continue
            bounds.bind_loop(stmt.loop_var, stmt.start, stmt.stop)
        for block in stmt_children(stmt):
            _propagate_constants(block, replaced, bounds, top_level and _transparent(stmt))
        result.append(stmt)
    stmts[:] = result


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
    _propagate_constants(loop.body, replaced, bounds, top_level=False)
    return _lifted(loop.body, loop.return_vars, replaced)


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


def _fold_statement(stmt: Stmt) -> None:
    """Folds the expressions `stmt` evaluates (Simplify folds at every arithmetic node)."""
    kind = type(stmt)
    if kind is AssignStmt:
        value = stmt.value  # type: ignore[union-attr]
        if type(value) is Call:
            fold(value)  # in place: a call never folds itself
        elif type(value) not in _LEAVES:
            stmt.value = fold(value)  # type: ignore[union-attr]
    elif isinstance(stmt, EvalStmt):
        stmt.expr = fold(stmt.expr)
    elif isinstance(stmt, (ReturnStmt, YieldStmt)):
        stmt.values = [fold(value) for value in stmt.values]
    elif isinstance(stmt, (ForStmt, WhileStmt)):
        for arg in stmt.iter_args:
            if arg.init is not None:
                arg.init = fold(arg.init)
        if isinstance(stmt, ForStmt):
            stmt.start, stmt.stop, stmt.step = fold(stmt.start), fold(stmt.stop), fold(stmt.step)
        else:
            stmt.cond = fold(stmt.cond)
    elif isinstance(stmt, IfStmt):
        stmt.cond = fold(stmt.cond)
    elif isinstance(stmt, ScopeStmt) and stmt.core_num is not None:
        stmt.core_num = fold(stmt.core_num)


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
        self.stmts = stmts
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

    def eliminate(self) -> None:
        """Removes the candidates nothing live reads."""
        if not self.candidates:
            return  # the usual case for kernels: every scalar comes from a call
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
            _remove(self.stmts, dead)
            self.candidates = [stmt for stmt in self.candidates if id(stmt) not in dead]
        self._all_reads = None

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


def _remove(stmts: list[Stmt], dead: set[int]) -> None:
    stmts[:] = [stmt for stmt in stmts if id(stmt) not in dead]
    for stmt in stmts:
        for block in stmt_children(stmt):
            _remove(block, dead)


def _drop_dead_if_phis(stmts: list[Stmt], dead_code: _DeadScalars) -> bool:
    """`EliminateDeadIfReturnVars`: drops the return variables of if-statements that nothing
    reads, with their slot in each branch's trailing yield; a dropped slot may leave an outer
    phi unread, hence the fixed point (each round judges every `if` by the reads at its start).
    Says whether anything was dropped."""
    dropped_any = False
    # found once: a round only narrows phis and yields (an else branch it drops was empty)
    ifs = [s for s in walk_stmts(stmts) if type(s) is IfStmt and s.return_vars]  # type: ignore[union-attr]
    while True:
        ifs = [s for s in ifs if s.return_vars]  # type: ignore[union-attr]
        if not ifs:
            return dropped_any
        read = dead_code.read()
        dropped = False
        for stmt in ifs:
            assert isinstance(stmt, IfStmt)
            kept = [i for i, var in enumerate(stmt.return_vars) if var in read]
            if len(kept) == len(stmt.return_vars):
                continue
            stmt.return_vars = [stmt.return_vars[i] for i in kept]
            _keep_yield_slots(stmt.then_body, kept, dead_code)
            if stmt.else_body is not None:
                _keep_yield_slots(stmt.else_body, kept, dead_code)
                if not stmt.else_body:
                    stmt.else_body = None  # only the synthesised yield of the incoming values was there
            dropped = True
        if not dropped:
            return dropped_any
        dropped_any = True


def _keep_yield_slots(branch: list[Stmt], kept: list[int], dead_code: _DeadScalars) -> None:
    if not branch or type(branch[-1]) is not YieldStmt:
        return
    last = branch[-1]
    assert isinstance(last, YieldStmt)
    if kept:
        dead_code.unread([value for i, value in enumerate(last.values) if i not in kept])
        last.values = [last.values[i] for i in kept]
    else:
        dead_code.unread(last.values)
        branch.pop()
