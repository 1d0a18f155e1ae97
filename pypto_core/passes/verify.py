"""The IR properties the outlining passes establish (dsl-reference §4.7), checked on the
pipeline's result and reported as PTO5xx diagnostics at the construct that breaks them.

The compiler verifies these at pass boundaries; a program the passes handled correctly only
trips them when the user wrote something the passes leave alone (a scope in a function type
they skip, a scalar return on a device function, ...).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TypeVar

from ..diagnostics import Diagnostic, Related, error, warning
from ..ir import (
    AssignStmt,
    Call,
    Direction,
    EnumValue,
    Expr,
    ForStmt,
    Function,
    FunctionType,
    IfStmt,
    Program,
    Role,
    ScalarType,
    ScopeKind,
    ScopeStmt,
    Stmt,
    TupleType,
    Type,
    Var,
    WhileStmt,
)
from ..ops import ORCHESTRATION_TENSOR_OPS
from ..span import Span
from .outline_ir import encloses, expr_calls, stmt_children, stmt_exprs, sub_exprs
from .stmt_facts import kinds_in, walk_kept

# every program function's name and parameter directions (`_directions_key`)
_Directions = tuple[tuple[str, tuple[Direction, ...]], ...]


def verify_structure(program: Program) -> list[Diagnostic]:
    """Properties the compiler verifies on its input, before any pass: InOutUseValid (PTO512),
    a variable passed to a callee's Out/InOut parameter is not read again before it is bound
    anew (the call's result is the value after the call)."""
    found: list[Diagnostic] = []
    killers = {fn.name for fn in program.functions if any(p.direction is not Direction.In for p in fn.params)}
    if not killers:
        return found  # no call can pass a variable to an Out/InOut parameter
    directions = _directions_key(program)
    for fn in program.functions:
        if fn.role is Role.SubWorker and fn.level is not None and fn.level.linqu >= 3:
            continue  # verbatim Python
        if fn.type in (FunctionType.Group, FunctionType.Spmd):
            continue  # wrappers hand the same Out tensor to parallel calls (the compiler skips them)
        if all(killers.isdisjoint(_callees(stmt)) for stmt in fn.body):
            continue  # nothing in it kills a variable: the checker's walk (5x a call walk) finds nothing
        checker = _InOutUse(program, found, directions=directions)
        checker.block(fn.body, top=True)
    return found


def _directions_key(program: Program) -> _Directions:
    """Every function's parameter directions: all a statement's InOutUse walk reads of the
    program. Interned (`_KEYS`), so a statement's kept walk compares it by identity."""
    key = tuple((fn.name, tuple(p.direction for p in fn.params)) for fn in program.functions)
    if len(_KEYS) > 64:
        _KEYS.clear()
    return _KEYS.setdefault(key, key)


_KEYS: dict[_Directions, _Directions] = {}


def _callees(stmt: Stmt) -> frozenset[str]:
    """The program functions `stmt` calls (not submits) at any depth, a compound statement's
    kept with it (`_CALLEES`): a keystroke's function shares all but the path to the edit with
    the last one's."""
    known = _CALLEES.get(stmt)
    if known is not None:
        return known
    found = {
        call.callee
        for expr in stmt_exprs(stmt)
        for call in expr_calls(expr)
        if call.callee is not None and not call.submit
    }
    for block in stmt_children(stmt):
        for child in block:
            found |= _callees(child)
    known = frozenset(found)
    if type(stmt) in _COMPOUND:
        _CALLEES[stmt] = known
    return known


_CALLEES: weakref.WeakKeyDictionary[Stmt, frozenset[str]] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class _Walked:
    """What the InOutUse walk of one statement found and did: it read `dead` at the variables
    in `touched` only, so another walk of the statement whose `dead` agrees there (`dead_in`)
    finds the same and leaves `dead` the same there (`dead_out`), the rest as it was."""

    directions: _Directions
    touched: frozenset[Var]
    dead_in: dict[Var, Span]
    found: list[Diagnostic]
    dead_out: dict[Var, Span]


_WALKED: weakref.WeakKeyDictionary[Stmt, _Walked] = weakref.WeakKeyDictionary()


class _InOutUse:
    """InOutUseDiscipline: walks a body in order with the set of variables a user call passed
    to an Out/InOut parameter ("dead", with the call that killed them); reading one is an
    error until an assignment binds it again. A loop body is entered with every variable it
    kills already dead (the next iteration reads what this one killed), its iter_args aside."""

    def __init__(
        self,
        program: Program,
        found: list[Diagnostic] | None,
        loop_kills: dict[int, dict[Var, Span]] | None = None,
        directions: _Directions | None = None,
    ) -> None:
        self.program = program
        self.found = found
        self.dead: dict[Var, Span] = {}
        self.loop_kills = {} if loop_kills is None else loop_kills  # by id of the loop statement
        self.directions = directions  # `_directions_key(program)`: keep walks (`_WALKED`)
        self.touched: set[Var] | None = None  # what the statements being kept read of `dead`

    def block(self, stmts: list[Stmt], top: bool = False) -> None:
        for stmt in stmts:
            if self.directions is not None and (top or type(stmt) in _COMPOUND):
                self._kept_stmt(stmt)
            else:
                self.stmt(stmt)

    def _kept_stmt(self, stmt: Stmt) -> None:
        """The walk of a top-level or compound statement, kept with it (`_Walked`): a jit
        entry's kernel call leaves the variable it passed dead for the rest of the entry (the
        specialiser names the result another version), so `dead` is rarely empty, but a
        statement reads it only at the variables it mentions. A keystroke in a generated
        2,000-line jit entry walked the whole entry (4.3 ms); now the path to the edit."""
        assert self.found is not None and self.directions is not None
        outer = self.touched
        kept = _WALKED.get(stmt)
        # the dead variables it mentions: `dead` is a few variables, what it touches may be
        # thousands (a loop holding most of an entry)
        inside = [] if kept is None else [v for v in self.dead if v in kept.touched]
        if (
            kept is None
            or kept.directions is not self.directions
            or {v: self.dead[v] for v in inside} != kept.dead_in
        ):
            touched = self.touched = set()
            dead_in = self.dead.copy()
            start = len(self.found)
            self.stmt(stmt)
            kept = _WALKED[stmt] = _Walked(
                self.directions,
                frozenset(touched),
                {v: s for v, s in dead_in.items() if v in touched},
                self.found[start:],
                {v: s for v, s in self.dead.items() if v in touched},
            )
            self.touched = outer
        else:
            self.found += kept.found
            for v in inside:
                del self.dead[v]
            self.dead.update(kept.dead_out)
        if outer is not None:
            outer |= kept.touched

    def stmt(self, stmt: Stmt) -> None:
        if isinstance(stmt, AssignStmt):
            self.expr(stmt.value, stmt)
            self.dead.pop(stmt.target, None)
            if self.touched is not None:
                self.touched.add(stmt.target)
        elif isinstance(stmt, IfStmt):
            self.expr(stmt.cond, stmt)
            before = dict(self.dead)
            self.block(stmt.then_body)
            after_then = self.dead
            self.dead = before
            if stmt.else_body is not None:
                self.block(stmt.else_body)
            self.dead = {**after_then, **self.dead}
        elif isinstance(stmt, (ForStmt, WhileStmt)):
            for expr in stmt_exprs(stmt):
                self.expr(expr, stmt)
            carried = set(stmt.iter_args)
            self.dead.update({v: s for v, s in self._kills(stmt).items() if v not in carried})
            self.block(stmt.body)
            for ia in stmt.iter_args:
                self.dead.pop(ia, None)
            if self.touched is not None:
                self.touched.update(stmt.iter_args)
        else:
            for expr in stmt_exprs(stmt):
                self.expr(expr, stmt)
            for child in stmt_children(stmt):
                self.block(child)

    def _kills(self, loop: ForStmt | WhileStmt) -> dict[Var, Span]:
        """What one pass over the loop's body leaves dead when nothing was: the same whichever
        walk reaches the loop (that walk reports nothing), so it is computed once per loop. A
        walk per reaching walk doubled the work at each level of loop nesting: 55 of the 75 s
        (profiled) of a real 2,000-line jit file whose helpers splice loops ten deep."""
        known = self.loop_kills.get(id(loop))
        if known is None:
            walker = _InOutUse(self.program, None, self.loop_kills)
            walker.block(loop.body)
            known = self.loop_kills[id(loop)] = walker.dead
        return known

    def expr(self, expr: Expr, stmt: Stmt) -> None:
        if isinstance(expr, Var):
            if self.touched is not None:
                self.touched.add(expr)
            origin = self.dead.get(expr)
            if origin is not None and self.found is not None:
                # The compiler's message names the killing call's line; here the call is a
                # related location instead, so the finding stays right when a kept program
                # is moved to new lines (a span shifts, a number in a message would not).
                found = error(
                    "PTO512",
                    f"variable '{expr.base_name}' was passed as InOut/Out to an earlier call; "
                    "read the post-call return value instead of the pre-call variable",
                    stmt.span,
                    hint=f"bind the call's result (`{expr.base_name} = callee(...)`) and read that",
                    variable=expr.base_name,
                )
                passed = Related(f"'{expr.base_name}' passed as InOut/Out here", origin)
                self.found.append(replace(found, related=(passed,)))
                self.dead.pop(expr)  # one report per kill
            return
        for sub in sub_exprs(expr):
            self.expr(sub, stmt)
        if (
            isinstance(expr, Call) and expr.callee is not None and not expr.submit
        ):  # a Submit is no call of it
            directions = self._directions(expr.callee)
            for arg, direction in zip(expr.args, directions, strict=False):
                if direction is not Direction.In and isinstance(arg, Var):
                    self.dead.setdefault(arg, expr.span)

    def _directions(self, name: str) -> tuple[Direction, ...]:
        """The directions of a callee the program defines (a declared-only kernel's calls are
        rewritten by the jit specialiser, so they are left out)."""
        fn = self.program.get(name)
        return tuple(p.direction for p in fn.params) if fn is not None else ()


def verify_input(program: Program, front_end_checked: bool) -> list[Diagnostic]:
    """Properties of the SSA input: NoNestedInCore (PTO509). The front end reports textual
    nesting itself; with `front_end_checked` only nesting it cannot see (through a spliced Inline
    helper, whose statements keep the helper's spans) is reported here."""
    found: list[Diagnostic] = []
    for fn in program.functions:
        for stmt in fn.body:
            found += _nesting_in(stmt, front_end_checked)
    return found


def _nesting_in(stmt: Stmt, front_end_checked: bool) -> list[Diagnostic]:
    """`_nested_incore` of `stmt` with no CORE_GROUP scope around it: nothing where it holds
    none, else kept with the (compound) statement, so a keystroke walks the edited path."""
    if ScopeKind.InCore not in kinds_in(stmt):
        return []
    known = _NESTING.setdefault(stmt, {})
    found = known.get(front_end_checked)
    if found is None:
        found = []
        if isinstance(stmt, ScopeStmt) and stmt.kind is ScopeKind.InCore:
            for child in stmt_children(stmt):
                _nested_incore(child, stmt, front_end_checked, found)
        else:
            for child in stmt_children(stmt):
                for inner in child:
                    found += _nesting_in(inner, front_end_checked)
        known[front_end_checked] = found
    return found


# a compound statement holding a CORE_GROUP scope -> its PTO509s by `front_end_checked`
_NESTING: weakref.WeakKeyDictionary[Stmt, dict[bool, list[Diagnostic]]] = weakref.WeakKeyDictionary()


def _nested_incore(
    stmts: list[Stmt], outer: ScopeStmt | None, front_end_checked: bool, found: list[Diagnostic]
) -> None:
    for stmt in stmts:
        is_incore = isinstance(stmt, ScopeStmt) and stmt.kind is ScopeKind.InCore
        if is_incore and outer is not None:
            assert isinstance(stmt, ScopeStmt)
            if not (front_end_checked and encloses(outer.span, stmt.span)):
                found.append(
                    error(
                        "PTO509",
                        "pl.at(level=pl.Level.CORE_GROUP) is nested inside another CORE_GROUP scope",
                        stmt.header_span,
                        hint="remove the inner pl.at",
                    )
                )
        inner_outer = outer
        if outer is None and isinstance(stmt, ScopeStmt) and is_incore:
            inner_outer = stmt
        for child in stmt_children(stmt):
            _nested_incore(child, inner_outer, front_end_checked, found)


def verify_output(program: Program, front_end_checked: bool) -> list[Diagnostic]:
    """Properties after the four outliners: no scope left where a pass should have lifted it,
    no misplaced compute op in orchestration code, no scalar return from a device function.
    A Cluster/Spmd scope in device code (PTO505/506) is the front end's to report (D12)."""
    found: list[Diagnostic] = []
    for fn in program.functions:
        if fn.type is FunctionType.Inline:
            continue  # spliced into its callers; the compiler keeps no such function
        known = _OUTPUT.get(fn)
        if known is None:
            known = _OUTPUT[fn] = {}
        own = known.get(front_end_checked)
        if own is None:
            own = known[front_end_checked] = _output_problems(fn, front_end_checked)
        found += own
    return found


def _output_problems(fn: Function, front_end_checked: bool) -> list[Diagnostic]:
    """`verify_output` of one function: what it finds reads the function alone."""
    found = _leftover_scopes(fn, front_end_checked) + _scalar_returns(fn)
    if fn.attrs.get("split_aiv") is True:
        found += _boundary_memory(fn)
    if fn.type.is_orchestration_like:
        found += _misplaced_tensor_ops(fn)
    return found


# a function of the outliners' output -> its `verify_output` findings by `front_end_checked`: no
# pass modifies a function, and a keystroke's program shares all but a few of its functions
# (hundreds in a whole-model program) with the last one's
_OUTPUT: weakref.WeakKeyDictionary[Function, dict[bool, list[Diagnostic]]] = weakref.WeakKeyDictionary()


# AivSplitValid (d): the memory a boundary op's operand must be in (the lane that produced it),
# and why, in the compiler's words
_BOUNDARY_OPERAND = {
    "tile.aiv_shard": (
        "Acc",
        "cube",
        "Only a cube-produced value reaches the vector lane through this boundary: Acc is the matmul "
        "result the c2v pipe can push. A Vec operand is vector-produced (pl.load / pl.full) and already "
        "lives on the AIV lane — drop the pl.aiv_shard and let the implicit affinity-gated split halve "
        "it. A Mat operand is not a supported producer pipe; move it through a pl.matmul, or load it on "
        "the vector lane instead.",
    ),
    "tile.aic_gather": (
        "Vec",
        "vector",
        "Gather the value only after it has been computed by vector ops on the AIV lane.",
    ),
}


def _boundary_memory(fn: Function) -> list[Diagnostic]:
    """PTO518: an AIV-split boundary op whose operand is a tile `pl.load` put in another memory
    than the op takes (a load's `target_memory=`, Vec by default, is its tile's memory from the
    start; other producers' memory is left to the compiler's inference and not checked)."""
    loaded: dict[Var, str] = {}
    found: list[Diagnostic] = []
    for stmt in walk_kept(fn.body):
        if isinstance(stmt, AssignStmt) and isinstance(stmt.value, Call) and stmt.value.op == "tile.load":
            target_memory = stmt.value.kwargs.get("target_memory")
            loaded[stmt.target] = target_memory.member if isinstance(target_memory, EnumValue) else "Vec"
        for expr in stmt_exprs(stmt):
            for call in expr_calls(expr):
                contract = _BOUNDARY_OPERAND.get(call.op)
                operand = call.args[0] if call.args else None
                memory = loaded.get(operand) if isinstance(operand, Var) else None
                if contract is None or memory is None or memory == contract[0]:
                    continue
                required, producer, hint = contract
                found.append(
                    error(
                        "PTO518",
                        f"'{call.op}' operand is in {memory}, but it transfers a {producer}-produced value "
                        f"across the cross-core boundary and requires {required}.",
                        call.span,
                        hint=hint,
                    )
                )
    return found


def _leftover_scopes(fn: Function, front_end_checked: bool) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for stmt in _kept_within(fn.body, _SCOPES, _scope_itself):
        problem = _leftover_problem(fn, stmt, front_end_checked)
        if problem is not None:
            code, message, hint = problem
            report = warning if code in _UNVERIFIED else error
            found.append(report(code, message, stmt.header_span, hint=hint, function=fn.name))
    return found


# Properties the compiler states but does not verify when it compiles (SplitIncoreOrch is not
# among its verified properties): the scope is silently left where it is, so a warning
_UNVERIFIED = frozenset({"PTO503"})


def _leftover_problem(fn: Function, scope: ScopeStmt, front_end_checked: bool) -> tuple[str, str, str] | None:
    kind, ftype = scope.kind, fn.type
    if kind is ScopeKind.Hierarchy and ftype is FunctionType.Opaque:
        return ("PTO501", f"Hierarchy scope left in function '{fn.name}' (should have been outlined)", "")
    if kind is ScopeKind.Graph and not front_end_checked:  # else the front end said PTO144
        return ("PTO502", f"pl.graph region left in function '{fn.name}' (should have been outlined)", "")
    if kind is ScopeKind.InCore and ftype is not FunctionType.InCore:
        return (
            "PTO503",
            f"pl.at(level=pl.Level.CORE_GROUP) left in {ftype.value} function '{fn.name}', which "
            "OutlineIncoreScopes does not process",
            "move the scope into an orchestration (or Opaque) function",
        )
    if kind is ScopeKind.SplitAiv and ftype is FunctionType.InCore and fn.attrs.get("split_aiv") is not True:
        # AivSplitValid (h): the `split_aiv` attribute is the verifier's provenance signal (the
        # outliner stamps it; a printed outlined function carries it in `attrs=`/`pl.func_attr`)
        return (
            "PTO510",
            f"pl.split_aiv region written directly in InCore function '{fn.name}'",
            "write the pl.split_aiv region inside a pl.at(level=pl.Level.CORE_GROUP) scope",
        )
    return None


def _scalar_returns(fn: Function) -> list[Diagnostic]:
    if not fn.type.is_device:
        return []
    found: list[Diagnostic] = []
    for i, t in enumerate(fn.return_types):
        for path, scalar in _scalars(t, f"#{i}"):
            code = "PTO508" if scalar.is_task_id else "PTO507"
            hint = (
                "capture TaskIds at the call site (`pl.submit`, `as tid`)"
                if scalar.is_task_id
                else "return it through a [1] tensor pl.Out parameter and read it with pl.tensor.read"
            )
            found.append(
                error(
                    code,
                    f"Device function '{fn.name}' return type {path} is a Scalar[{scalar.dtype}]. A task "
                    "cannot return a scalar",
                    fn.name_span,
                    hint=hint,
                    function=fn.name,
                )
            )
    return found


def _scalars(t: Type, path: str) -> list[tuple[str, ScalarType]]:
    if isinstance(t, ScalarType):
        return [(path, t)]
    if isinstance(t, TupleType):
        return [(f"{path} element #{j}", s) for j, e in enumerate(t.elements) for _, s in _scalars(e, path)]
    return []


def _misplaced_tensor_ops(fn: Function) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for call in _kept_within(fn.body, _COMPUTE_OPS, _compute_tensor_ops):
        found.append(
            warning(
                "PTO504",
                f"Compute tensor op '{call.op}' found in {fn.type.value} function '{fn.name}' (should be "
                "inside InCore)",
                call.span,
                hint="wrap it in `with pl.at(level=pl.Level.CORE_GROUP):`",
                op=call.op,
            )
        )
    return found


def _is_compute_tensor_op(call: Call) -> bool:
    return not call.is_user_call and call.op.startswith("tensor.") and call.op not in ORCHESTRATION_TENSOR_OPS


def _compute_tensor_ops(stmt: Stmt) -> list[Call]:
    """The compute tensor ops a statement's own expressions call, kept with it (`_OWN_OPS`):
    an orchestration entry's top-level statements are most of its statements (611 in
    pypto-lib's prefill_cp_csa.py), walked again at every keystroke otherwise."""
    found = _OWN_OPS.get(stmt)
    if found is None:
        found = _OWN_OPS[stmt] = [
            call for expr in stmt_exprs(stmt) for call in expr_calls(expr) if _is_compute_tensor_op(call)
        ]
    return found


def _scope_itself(stmt: Stmt) -> list[ScopeStmt]:
    return [stmt] if type(stmt) is ScopeStmt else []  # type: ignore[list-item]


_T = TypeVar("_T")


def _kept_within(
    stmts: list[Stmt], table: weakref.WeakKeyDictionary[Stmt, list[_T]], own: Callable[[Stmt], list[_T]]
) -> list[_T]:
    """What `own` finds in each of `stmts` at any depth, in pre-order, what is inside each
    compound statement kept with it in `table`: a keystroke's function shares all but the
    path to the edit with the last one's (the whole-model host's thousands of statements)."""
    found: list[_T] = []
    for stmt in stmts:
        found += own(stmt)
        if type(stmt) in _COMPOUND:
            inner = table.get(stmt)
            if inner is None:
                inner = table[stmt] = _kept_within(
                    [s for block in stmt_children(stmt) for s in block], table, own
                )
            found += inner
    return found


_COMPOUND = frozenset({ForStmt, WhileStmt, IfStmt, ScopeStmt})
# a compound statement -> the scopes inside it (not itself: no value holds its key) / the
# compute tensor ops called inside it, pre-order
_SCOPES: weakref.WeakKeyDictionary[Stmt, list[ScopeStmt]] = weakref.WeakKeyDictionary()
_COMPUTE_OPS: weakref.WeakKeyDictionary[Stmt, list[Call]] = weakref.WeakKeyDictionary()
_OWN_OPS: weakref.WeakKeyDictionary[Stmt, list[Call]] = weakref.WeakKeyDictionary()  # its own expressions''
