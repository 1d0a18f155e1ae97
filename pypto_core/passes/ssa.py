"""ConvertToSSA (dsl-reference §4.1): what the outliners run on.

The pass reproduces the compiler's converter closely enough that the printed IR names match
(`out__ssa_v1`, `acc__iter_v1`, `x__phi_v2`, `i__idx_v0`): one version counter per source
variable shared by all roles, iter_arg and return var minted before the body, the loop
variable after the carries. Its quirks are kept on purpose because outlined parameters and
carries are named after these versions:

* a body of one statement inherits the "needed later" set of its parent (the compiler's
  single-statement bodies are bare statements, not sequences);
* explicit `init_values` loops keep their iter_arg and return var names; explicit `if` return
  vars are versioned `r__rv_vN`;
* scope attributes are renamed with the versions live at scope entry.

The input program is not modified: every statement and compound expression is rebuilt, or
taken from the statement's last conversion (`_Kept`: the passes after this one never modify
their input, so an output can be handed to them again), or at the top level of a function
from its last conversion with the state saved before the statement (`ssa_resume`). Variables
and constants are shared with the input: no pass modifies one.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from .. import ir, ops
from ..diagnostics import Diagnostic, Related, error
from ..ir import copy_with
from ..ir_clone import clone
from ..recurring import keeps_nothing, kept_at_first, mark, marked
from . import ssa_resume
from .names import ssa_name
from .ssa_resume import Logs, Mark, Resume, State

_TRANSPARENT_SCOPES = (ir.ScopeKind.Runtime, ir.ScopeKind.SplitAiv)
_RETRY = 32  # after a failed early cut-off, statements converted before trying again
SSA_VERIFY = "PTO511"  # the compiler's SSA verification after ConvertToSSA
SSA_SCOPE = "PTO517"  # ... a read of a value its loop or `if` did not hand out


def convert_to_ssa(diagnostics: list[Diagnostic] | None = None) -> Callable[[ir.Program], ir.Program]:
    """The pass object, in the compiler's `passes.convert_to_ssa()(program)` shape. What the
    compiler's SSA verification would reject in the result is appended to `diagnostics`."""
    return lambda program: _convert_program(program, diagnostics if diagnostics is not None else [])


def _convert_program(program: ir.Program, diagnostics: list[Diagnostic]) -> ir.Program:
    return ir.Program(
        program.name,
        [convert_function(fn, diagnostics) for fn in program.functions],
        program.span,
        program.name_span,
        program.origin,
        dict(program.declarations),
    )


def convert_function(fn: ir.Function, diagnostics: list[Diagnostic] | None = None) -> ir.Function:
    """One function in SSA form. HOST-level SubWorker functions are left as they are: their
    body is the user's Python, run verbatim by name."""
    if fn.role is ir.Role.SubWorker and fn.level is not None and fn.level.linqu >= 3:
        return clone(fn)
    converter = _SSAConverter(fn, reuse=not keeps_nothing())
    try:
        converted = converter.run()
    except _Retake:
        converter = _SSAConverter(fn, reuse=False)
        converted = converter.run()
    if diagnostics is not None:
        diagnostics += converter.problems
    return converted


# ---------------------------------------------------------------------------------------------
# Reads and definitions of the pre-SSA IR (variables by identity)


_LEAVES = (ir.Const, ir.EnumValue)  # expressions without sub-expressions (a Var aside)


def _expr_children(node: Any) -> list[Any]:
    """The sub-expressions of an expression or of an attr value holding expressions."""
    if isinstance(node, _LEAVES):
        return []
    if isinstance(node, ir.Call):
        return [*node.args, *node.kwargs.values(), *node.attrs.values()]
    if isinstance(node, ir.BinaryExpr):
        return [node.left, node.right]
    if isinstance(node, ir.UnaryExpr):
        return [node.operand]
    if isinstance(node, (ir.TupleExpr, ir.ListExpr)):
        return node.items
    if isinstance(node, ir.TupleGetItem):
        return [node.tuple]
    if isinstance(node, ir.OpaqueExpr):
        return node.operands
    if isinstance(node, (list, tuple)):
        return list(node)
    if isinstance(node, dict):
        return list(node.values())
    return []


def expr_vars(e: Any) -> set[ir.Var]:
    """Every variable an expression (or an attr value holding expressions) reads."""
    found: set[ir.Var] = set()
    _add_reads(e, found)
    return found


def _add_reads(node: Any, found: set[ir.Var]) -> None:
    # the liveness walk visits every expression once: the common kinds are matched by exact
    # type, and variables and constants are handled without a call (`_add_reads_of`)
    kind = type(node)
    if kind is ir.Call:
        _add_reads_of(node.args, found)
        _add_reads_of(node.kwargs.values(), found)
        _add_reads_of(node.attrs.values(), found)
    elif kind is ir.ListExpr or kind is ir.TupleExpr:
        _add_reads_of(node.items, found)
    elif isinstance(node, ir.Var):
        found.add(node)
    elif not isinstance(node, _LEAVES):
        _add_reads_of(_expr_children(node), found)


def _add_reads_of(nodes: Iterable[Any], found: set[ir.Var]) -> None:
    for node in nodes:
        kind = type(node)
        if kind is ir.Var:
            found.add(node)
        elif kind is not ir.Const and kind is not ir.EnumValue:
            _add_reads(node, found)


_NO_VARS: dict[ir.Var, None] = {}
_ABSENT: Any = None  # a write's "value before" for a key `cur` did not hold (`_SSAConverter.put`)


def child_blocks(s: ir.Stmt) -> list[list[ir.Stmt]]:
    if isinstance(s, (ir.ForStmt, ir.WhileStmt, ir.ScopeStmt)):
        return [s.body]
    if isinstance(s, ir.IfStmt):
        return [s.then_body] if s.else_body is None else [s.then_body, s.else_body]
    return []


class _Known:
    """What the converter learns of one pre-SSA statement that depends on nothing else: the
    variables it assigns and needs from before it, whether it holds a loop, and "needed later"
    for each of its blocks. None: not asked yet."""

    __slots__ = ("assigned", "converted", "has_loop", "kept", "live", "mentioned", "needed")

    def __init__(self) -> None:
        self.assigned: dict[ir.Var, None] | None = None
        self.mentioned: tuple[ir.Var, ...] | None = None  # every variable in it (`mentioned`)
        # its conversions in the last run that converted or took it (`_Kept`): one per time it
        # occurs in its function; kept from its second conversion on (`converted`), so a
        # statement made anew for every edit (and a cold open) costs no bookkeeping, and from
        # its first when it is the moved copy of one met before (`recurring.marked`)
        self.kept: list[_Kept] = []
        self.converted = False
        self.live: set[ir.Var] | None = None
        self.has_loop: bool | None = None
        self.needed: list[list[set[ir.Var]]] | None = None  # per child block, `needed_after`


# Kept with the statement while it lives: the input is never modified, and the front end keeps
# a function's build and splices copy-on-write, so after an edit most statements of a spliced
# entry are the same objects as before and their liveness is not walked again (it was a third
# of the pass on real entries). A statement shared by several functions is asked once.
_KNOWN: weakref.WeakKeyDictionary[ir.Stmt, _Known] = weakref.WeakKeyDictionary()


_BIND, _HIDDEN, _REPORTED, _MINT = "bind", "hidden", "reported", "mint"
_NO_POOL: tuple[str, dict[str, ir.Var]] = ("", {})


def _same_type(a: ir.Type, b: ir.Type) -> bool:
    """Equal types, and alike in what type equality leaves out (`TensorType.distributed`)."""
    return a is b or (a == b and getattr(a, "distributed", None) == getattr(b, "distributed", None))


def _alike(var: ir.Var, type_: ir.Type, span: ir.Span, init: ir.Expr | None, carried: bool) -> bool:
    """Whether `var` is the variable `mint` would make (its name aside, the pool's key)."""
    if carried:
        if type(var) is not ir.IterArg or var.init is not init:  # type: ignore[attr-defined]
            return False
        return _same_type(var.type, type_) and var.span == span
    return type(var) is ir.Var and _same_type(var.type, type_) and var.span == span


# What is kept: every statement that reads a variable. A simple one too, though converting it
# costs about what looking it up does: the passes after this one key what they keep on the
# output's identity (Simplify per statement), and a new object for every unchanged assignment
# would make each of them do its statement again.
_KEPT_KINDS = frozenset(
    {
        ir.ForStmt,
        ir.WhileStmt,
        ir.IfStmt,
        ir.ScopeStmt,
        ir.AssignStmt,
        ir.EvalStmt,
        ir.ReturnStmt,
        ir.YieldStmt,
    }
)


@dataclass(eq=False, slots=True)
class _Kept:
    """One conversion of a pre-SSA statement: what it read of the converter (`reads`: for each
    variable the statement mentions, its current version, the statement hiding it, whether a
    read of it was reported, its version counter; `needed`: which of them are needed later,
    for a statement holding a loop), its output, and what it did (the versions it left current
    and the counters it advanced, then its binds, hidden variables, reports and minted
    variables in order, its problems, the last statement span and "needed later" it left).
    Converting the statement again where it reads the same is taking this again: the same
    output object, with the same effects (`_SSAConverter._replay`)."""

    function: str
    reads: list[tuple[ir.Var, ir.Var | None, weakref.ref[ir.Stmt] | None, bool, int]]
    needed: frozenset[ir.Var] | None
    output: ir.Stmt
    writes: list[tuple[ir.Var, ir.Var]]
    versions: list[tuple[ir.Var, int]]
    events: tuple[list[tuple[Any, ...]], int, int]  # its run's events, from, to
    problems: list[Diagnostic]
    span: ir.Span
    future: set[ir.Var] | None


# Per pre-SSA variable, the function and the versions of it (by name) the conversions in that
# function minted (`_SSAConverter.mint`), each name's latest. With each pre-SSA statement's last
# conversions (`_Known.kept`), after an edit a statement reading what it read before is taken as
# it was, and one converted again mints the variables it minted before, so the statements after
# it read what they read before too (early cut-off). A taken statement's output is the same
# object as before: the passes after ConvertToSSA never modify their input (copy-on-write).
# A run adds what it minted to its function's pools (another function's run replaces them), so
# a statement taken, which mints nothing new, costs the pools nothing: on prefill_cp_csa a
# keystroke takes 316 statements and converts 22, and rewriting every pool they touched was
# 400-600 weak-table writes per keystroke.
_POOLS: weakref.WeakKeyDictionary[ir.Var, tuple[str, dict[str, ir.Var]]] = weakref.WeakKeyDictionary()


class _Retake(Exception):
    """A conversion that took kept statements reached an `if` whose phis' order depends on the
    order of the versions live there (two variables of one name), which taking statements
    does not keep as a conversion made it: the function is converted again taking none."""


class _Facts:
    """Assignments and live-ins of the pre-SSA statements, computed once per statement (the
    converter asks again for every enclosing block, and again after an edit: `_KNOWN`)."""

    def __init__(self) -> None:
        self._known: dict[int, _Known] = {}  # by id: the converted function holds the statements

    def _of(self, s: ir.Stmt) -> _Known:
        known = self._known.get(id(s))
        if known is None:
            known = _KNOWN.get(s)
            if known is None:
                known = _KNOWN[s] = _Known()
            self._known[id(s)] = known
        return known

    def assigned(self, s: ir.Stmt) -> dict[ir.Var, None]:
        """Targets of every assignment in `s`, nested ones included, in first-assignment order
        (callers only read the result)."""
        if isinstance(s, ir.AssignStmt):
            return {s.target: None}
        if isinstance(s, ir.EvalStmt):
            return _NO_VARS
        known = self._of(s)
        found = known.assigned
        if found is None:
            found = {}
            for block in child_blocks(s):
                for inner in block:
                    found.update(self.assigned(inner))
            known.assigned = found
        return found

    def assigned_in(self, stmts: list[ir.Stmt]) -> list[ir.Var]:
        found: dict[ir.Var, None] = {}
        for s in stmts:
            found.update(self.assigned(s))
        return list(found)

    def live_in(self, s: ir.Stmt) -> set[ir.Var]:
        """Variables `s` needs from before it (order-aware: a value defined before its use
        inside a compound statement is not live-in). Scope attributes do not count, as in the
        compiler."""
        known = self._of(s)
        found = known.live
        if found is None:
            found = known.live = self._compute_live_in(s)
        return found

    def _compute_live_in(self, s: ir.Stmt) -> set[ir.Var]:
        if isinstance(s, ir.AssignStmt):
            return expr_vars(s.value)
        if isinstance(s, ir.EvalStmt):
            return expr_vars(s.expr)
        if isinstance(s, (ir.ReturnStmt, ir.YieldStmt)):
            return expr_vars(s.values)
        if isinstance(s, ir.ForStmt):
            used = expr_vars([s.start, s.stop, s.step, *(ia.init for ia in s.iter_args)])
            return used | (self.block_live_in(s.body) - {s.loop_var, *s.iter_args})
        if isinstance(s, ir.WhileStmt):
            used = expr_vars([s.cond, *(ia.init for ia in s.iter_args)])
            return used | (self.block_live_in(s.body) - set(s.iter_args))
        if isinstance(s, ir.IfStmt):
            used = expr_vars(s.cond) | self.block_live_in(s.then_body)
            if s.else_body is not None:
                used |= self.block_live_in(s.else_body)
            return used
        if isinstance(s, ir.ScopeStmt):
            used = self.block_live_in(s.body)
            if s.kind is ir.ScopeKind.Spmd and s.core_num is not None:
                used |= expr_vars(s.core_num)
            return used
        return set()

    def block_live_in(self, stmts: list[ir.Stmt]) -> set[ir.Var]:
        defined: set[ir.Var] = set()
        live: set[ir.Var] = set()
        for s in stmts:
            live |= self.live_in(s) - defined
            defined.update(self.assigned(s))
        return live

    def mentioned(self, s: ir.Stmt) -> tuple[ir.Var, ...]:
        """Every variable `s` defines, reads or names (scope attributes, loop keywords and seeds
        included), nested statements included: all the keys its conversion can look up."""
        known = self._of(s)
        found = known.mentioned
        if found is None:
            own: set[ir.Var] = set()
            _add_own_mentions(s, own)
            for block in child_blocks(s):
                for inner in block:
                    own.update(self.mentioned(inner))
            found = known.mentioned = tuple(own)
        return found

    def has_loop(self, s: ir.Stmt) -> bool:
        """Whether `s` is or contains a loop: only a loop reads "needed later"."""
        if type(s) is ir.AssignStmt or type(s) is ir.EvalStmt:
            return False
        known = self._of(s)
        found = known.has_loop
        if found is None:
            found = known.has_loop = isinstance(s, ir.ForStmt | ir.WhileStmt) or any(
                self.has_loop(inner) for block in child_blocks(s) for inner in block
            )
        return found

    def needed_in(self, s: ir.Stmt, index: int) -> list[set[ir.Var]]:
        """`needed_after` of `s`'s block `index` (`child_blocks`), kept with `s`."""
        known = self._of(s)
        if known.needed is None:
            known.needed = [self.needed_after(block) for block in child_blocks(s)]
        return known.needed[index]

    def needed_after(self, stmts: list[ir.Stmt]) -> list[set[ir.Var]]:
        """For each statement, what the statements after it in this block need from before
        them (the compiler's `future_needs`). Only loops read it, so the walk back stops at
        the first statement with a loop inside, and the statements before it get an empty
        set: most blocks (scope bodies) never pay for their live-ins here. Likewise a statement
        without a loop inside gets an empty set, and the one set the walk updates in place is
        copied only for the others (a whole-model program's top block holds thousands of
        statements, and what they need later as many variables). The sets are only read."""
        first = next((i for i, s in enumerate(stmts) if self.has_loop(s)), len(stmts))
        needed: list[set[ir.Var]] = []
        later: set[ir.Var] = set()  # what the statements from the current one on need
        for s in reversed(stmts[first + 1 :]):
            needed.append(set(later) if self.has_loop(s) else set())
            later.difference_update(self.assigned(s))
            later |= self.live_in(s)
        if first < len(stmts):
            needed.append(later)
        needed += [set() for _ in range(first)]
        needed.reverse()
        return needed


def _add_own_mentions(s: ir.Stmt, found: set[ir.Var]) -> None:
    """The variables `s` itself (not its nested statements) defines, reads or names."""
    exprs: list[Any]
    if isinstance(s, ir.AssignStmt):
        found.add(s.target)
        exprs = [s.value]
    elif isinstance(s, ir.EvalStmt):
        exprs = [s.expr]
    elif isinstance(s, (ir.ReturnStmt, ir.YieldStmt)):
        exprs = s.values
    elif isinstance(s, (ir.ForStmt, ir.WhileStmt)):
        found.update(s.iter_args)
        found.update(s.return_vars)
        exprs = [ia.init for ia in s.iter_args if ia.init is not None]
        if isinstance(s, ir.ForStmt):
            found.add(s.loop_var)
            exprs += [s.start, s.stop, s.step, *s.kwargs.values()]
        else:
            exprs.append(s.cond)
    elif isinstance(s, ir.IfStmt):
        found.update(s.return_vars)
        exprs = [s.cond]
    elif isinstance(s, ir.ScopeStmt):
        found.update(s.no_dep_args)
        found.update(s.dump_vars)
        found.update(d.var for d in s.cache_policies)
        exprs = [*s.deps, s.task_id_var, s.predicate, s.core_num]
    else:
        return
    _add_reads_of([e for e in exprs if e is not None], found)


def _assignment_type(target: ir.Var, value: ir.Expr) -> ir.Type:
    """The compiler's "authoritative" type of an assignment: the value's when it is a variable
    or carries a shape, else the target's."""
    vtype = value.type
    if isinstance(vtype, ir.UnknownType):
        return target.type
    if isinstance(value, ir.Var) or isinstance(vtype, (ir.TensorType, ir.TileType, ir.TupleType)):
        return vtype
    return target.type


def _last_assignment_types(stmts: list[ir.Stmt], out: dict[ir.Var, ir.Type]) -> dict[ir.Var, ir.Type]:
    for s in stmts:
        if isinstance(s, ir.AssignStmt):
            out[s.target] = _assignment_type(s.target, s.value)
        for block in child_blocks(s):
            _last_assignment_types(block, out)
    return out


def _first_assignment(stmts: list[ir.Stmt], key: ir.Var) -> ir.AssignStmt | None:
    for s in stmts:
        if isinstance(s, ir.AssignStmt) and s.target is key:
            return s
        for block in child_blocks(s):
            found = _first_assignment(block, key)
            if found is not None:
                return found
    return None


def _may_share_a_type(body: list[ir.Stmt], key: ir.Var) -> bool:
    """Whether the compiler could find a stand-in for escaping `key`: it takes a pre-loop
    variable whose type is the very type object of `key`, which happens only when `key` is
    first bound to another variable or to an op result that names its argument's buffer (a
    fresh op result gets a type object of its own)."""
    first = _first_assignment(body, key)
    if first is None:
        return True
    value = first.value
    if isinstance(value, ir.Var):
        return True
    return isinstance(value, ir.Call) and ops.result_alias_index(value) is not None


def _leaves(body: list[ir.Stmt]) -> bool:
    """Whether the block ends by leaving the enclosing loop iteration or function."""
    return bool(body) and isinstance(body[-1], (ir.BreakStmt, ir.ContinueStmt, ir.ReturnStmt))


def _scope_violation(key: ir.Var, owner: ir.Stmt, read: ir.Span) -> Diagnostic:
    """PTO517 at the read of `key`, which `owner` (a loop or `if`) versioned and did not hand
    out; the definition and `owner` are the related locations."""
    name = key.base_name
    if isinstance(owner, ir.IfStmt):
        where = "in only one branch of this `if`"
        hint = f"assign '{name}' in both branches, or give it a value before the `if`"
    elif isinstance(owner, ir.ForStmt) and owner.loop_var is key:
        where = "as the variable of this loop, which does not exist after it"
        hint = f"copy '{name}' into a variable carried out of the loop (init_values=... and pl.yield_)"
    else:
        where = "inside this loop, which does not carry it out"
        hint = (
            f"give '{name}' a value before the loop, in the same block, so the loop carries it "
            "(or carry it with init_values=(...) and pl.yield_)"
        )
    diag = error(
        SSA_SCOPE,
        f"Variable '{name}' used outside its defining scope: it is bound {where}",
        read,
        hint=hint,
        variable=name,
    )
    bound = Related(f"'{name}' is bound here", key.span)
    return replace(diag, related=(bound, Related("the statement that hides it", owner.span)))


def _creation_order(fn: ir.Function) -> dict[ir.Var, int]:
    """The order the front end creates variables in (parameters, then definitions as the body
    is read; a yield's return vars after the body), standing in for the compiler's unique ids
    when it breaks ties between candidate init values."""
    order: dict[ir.Var, int] = {}

    def add(vs: list[ir.Var]) -> None:
        for v in vs:
            order.setdefault(v, len(order))

    def visit(stmts: list[ir.Stmt]) -> None:
        for s in stmts:
            if isinstance(s, ir.AssignStmt):
                add([s.target])
            elif isinstance(s, ir.ForStmt):
                add([s.loop_var, *s.iter_args])
            elif isinstance(s, ir.WhileStmt):
                add(list(s.iter_args))
            for block in child_blocks(s):
                visit(block)
            if isinstance(s, (ir.ForStmt, ir.WhileStmt, ir.IfStmt)):
                add(s.return_vars)

    add([p.var for p in fn.params])
    visit(fn.body)
    return order


# ---------------------------------------------------------------------------------------------
# Yield placement (the compiler's trailing-yield rules, transparent through Runtime/SplitAiv)


def _is_transparent_scope(s: ir.Stmt) -> bool:
    return isinstance(s, ir.ScopeStmt) and s.kind in _TRANSPARENT_SCOPES


def _trailing_yield(stmts: list[ir.Stmt]) -> ir.YieldStmt | None:
    if not stmts:
        return None
    last = stmts[-1]
    if isinstance(last, ir.YieldStmt):
        return last
    if _is_transparent_scope(last):
        assert isinstance(last, ir.ScopeStmt)
        return _trailing_yield(last.body)
    return None


def _put_yield_on(s: ir.Stmt, values: list[ir.Expr], span: ir.Span) -> list[ir.Stmt]:
    if isinstance(s, ir.YieldStmt):
        return [ir.YieldStmt(values, s.span)]
    if isinstance(s, ir.ScopeStmt) and s.kind in _TRANSPARENT_SCOPES:
        return [copy_with(s, body=_put_yield(s.body, values, span))]
    return [s, ir.YieldStmt(values, span)]


def _put_yield(stmts: list[ir.Stmt], values: list[ir.Expr], span: ir.Span) -> list[ir.Stmt]:
    """Replace the block's trailing yield by one yielding `values`, or append one."""
    if len(stmts) == 1:
        return _put_yield_on(stmts[0], values, span)
    if stmts and _trailing_yield(stmts) is not None:
        return stmts[:-1] + _put_yield_on(stmts[-1], values, span)
    return [*stmts, ir.YieldStmt(values, span)]


# ---------------------------------------------------------------------------------------------
# The converter


@dataclass
class _Top:
    """A function body's conversion: its statements, "needed later" of each and which hold a
    loop (None: not known yet), the parameters' versions, the last conversion resumed from
    and the statement it was resumed at, the output and the mark before each statement."""

    stmts: list[ir.Stmt]
    versions: list[ir.Var]
    params: list[ir.Param]  # the output's
    record: Resume | None
    needed: list[set[ir.Var]] = field(default_factory=list)
    loops: list[int] | None = None
    start: int = 0
    out: list[ir.Stmt] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    # the last conversion's logs from `base` on, and whether its record was taken apart for
    # this one (`ssa_resume.start_at`)
    old: Logs = field(default_factory=Logs)
    base: Mark = ssa_resume.NOWHERE
    consumed: bool = False


@dataclass
class _Loop:
    """A converted loop's parts (the loop variable for `for`, the condition for `while`)."""

    loop_var: ir.Var | None
    cond: ir.Expr | None
    iter_args: list[ir.IterArg]
    body: list[ir.Stmt]
    return_vars: list[ir.Var]


class _SSAConverter:
    """State of one function's conversion. Keys of `cur` are pre-SSA variables (identity);
    values are their current SSA versions."""

    def __init__(self, fn: ir.Function, reuse: bool = False) -> None:
        """`reuse`: take kept statements (`_Kept`) where they fit, and keep this run's."""
        self.fn = fn
        self.cur: dict[ir.Var, ir.Var] = {}
        # Inside a loop or `if`, each write to `cur` as (key, value before it, `_ABSENT` for a new
        # key): leaving a body or branch takes its writes back (`_undo`) instead of restoring a
        # copy of `cur` taken at entry, and a branch's changes are read from its writes, so an
        # `if` or loop costs what its body writes, not the size of `cur` (hundreds of variables
        # in a real entry, copied and compared for each of its thousands of constructs).
        self._writes: list[tuple[ir.Var, ir.Var | None]] = []
        self._open = 0  # loops and `if`s being converted: writes are logged while one is
        self.counters: dict[ir.Var, int] = {}
        self.future: set[ir.Var] = set()
        # creation order, then variables bound by the pass: only an escaping value's tie-break
        # reads it (`_escaping_init`), so it is computed then, replaying the binds made so far
        self._order: dict[ir.Var, int] | None = None
        # what the conversion does to the state, in order (`ssa_resume`): a conversion resumed
        # from the last one's state starts from a prefix of its logs
        self.logs = Logs()
        self._bound: list[ir.Var] = self.logs.binds
        self.facts = _Facts()
        self.problems: list[Diagnostic] = self.logs.problems  # what the compiler's SSA verification rejects
        # a variable a loop or `if` versioned and then dropped on exit -> that statement, held
        # weakly: a kept conversion (`_Kept.reads`, `.events`) of a statement inside or after
        # it holds what it read here, and a strong reference would keep the loop, and so the
        # statement inside it, alive through `_KNOWN`'s value (a cycle a weak table never frees)
        self.hidden: dict[ir.Var, weakref.ref[ir.Stmt]] = {}
        self.reported: set[ir.Var] = set()
        self.stmt_span: ir.Span = fn.span  # the statement being converted (reads are reported there)
        # what a statement's conversion does besides `cur` and `counters`, in order (`_Kept`),
        # and how many conversions read state no `_Kept` records (`_escaping_init`)
        self._events: list[tuple[Any, ...]] = []
        self._taints = 0
        self._claimed: set[int] = set()  # ids of the kept variables this run has handed out
        self._kept: dict[_Known, list[_Kept]] = {}  # this run's, for `_Known.kept` when it ends
        self._used: set[int] = set()  # ids of the `_Kept` entries this run took
        self._reuse = reuse
        self._took = False  # whether a kept statement was taken (`_Retake`)
        self._old_pool: dict[ir.Var, dict[str, ir.Var]] = {}  # `_POOLS`' entries read so far
        self._pool: dict[ir.Var, dict[str, ir.Var]] = {}  # what this run minted, for `_POOLS` when it ends

    # -- versions ------------------------------------------------------------------------------

    def next_version(self, key: ir.Var) -> int:
        n = self.counters.get(key, 0)
        self.counters[key] = n + 1
        self.logs.counts.append((key, n + 1))
        self.logs.counts_was.append(n or None)  # a counter is never 0
        return n

    def alloc(self, key: ir.Var, type_: ir.Type, span: ir.Span) -> ir.Var:
        var = self.mint(key, ssa_name(key.name, "ssa", self.next_version(key)), type_, span)
        self.put(key, var)
        return var

    def bind(self, key: ir.Var, value: ir.Var) -> None:
        self._events.append((_BIND, key))
        self._bind_order(key)
        self.put(key, value)

    def _bind_order(self, key: ir.Var) -> None:
        self._bound.append(key)
        if self._order is not None:
            self._order.setdefault(key, len(self._order))

    def put(self, key: ir.Var, value: ir.Var) -> None:
        """`key`'s current version is `value` (logged inside a loop or `if`)."""
        if self._open:
            self._writes.append((key, self.cur.get(key, _ABSENT)))
        else:
            self.logs.puts.append((key, value))
            self.logs.puts_was.append(self.cur.get(key))
        self.cur[key] = value

    def _enter(self) -> int:
        """Start logging writes; the mark to `_changes` and `_undo` them by."""
        self._open += 1
        return len(self._writes)

    def _changes(self, mark: int) -> dict[ir.Var, ir.Var | None]:
        """Each key written since `mark` (and not taken back), in first-write order, with its
        value at `mark` (`_ABSENT`: a key new since)."""
        found: dict[ir.Var, ir.Var | None] = {}
        for key, old in self._writes[mark:]:
            found.setdefault(key, old)
        return found

    def _undo(self, mark: int, leave: bool = True) -> None:
        """Take back the writes since `mark`: `cur` is as it was then, its order too (keys new
        since are deleted; the others kept their places). `leave`: the construct is done."""
        cur, writes = self.cur, self._writes
        while len(writes) > mark:
            key, old = writes.pop()
            if old is _ABSENT:
                del cur[key]
            else:
                cur[key] = old  # type: ignore[assignment]
        if leave:
            self._open -= 1

    def order(self) -> dict[ir.Var, int]:
        if self._order is None:
            self._order = _creation_order(self.fn)
            for key in self._bound:
                self._order.setdefault(key, len(self._order))
        return self._order

    # -- expressions ---------------------------------------------------------------------------

    def subst(self, e: ir.Expr) -> ir.Expr:
        if type(e) is ir.Var:
            return self.cur.get(e) or self._out_of_scope(e)
        return _SUBST.get(type(e), _SSAConverter._subst_other)(self, e)

    def _out_of_scope(self, key: ir.Var) -> ir.Var:
        """A read of a variable with no current version. When a loop or `if` versioned it and
        dropped it on exit (a value first bound in a loop that its own block does not read
        later, a loop variable, a value bound in one branch only, an inner loop's return var),
        the compiler's converter leaves the read unversioned and its SSA verification rejects
        it: "used outside its defining scope". Other misses (dynamic extent symbols, the
        placeholder of an escaping value) are free variables the verifier accepts."""
        owner = self.hidden.get(key)
        if owner is not None and key not in self.reported:
            self.reported.add(key)
            self.logs.reports.append(key)
            self._events.append((_REPORTED, key))
            hider = owner()
            assert hider is not None  # a statement of this function, or inside one taken
            self.problems.append(_scope_violation(key, hider, self.stmt_span))
        return key

    def _subst_other(self, e: ir.Expr) -> ir.Expr:
        """Subclasses of the expression types (an `IterArg` read as a value, ...)."""
        if isinstance(e, ir.Var):
            return self.cur.get(e) or self._out_of_scope(e)
        if isinstance(e, _LEAVES):
            return e
        for kind, rebuild in _SUBST.items():
            if isinstance(e, kind):
                return rebuild(self, e)
        return copy_with(e)

    def _subst_call(self, e: ir.Call) -> ir.Call:
        return copy_with(
            e,
            args=list(map(self.subst, e.args)),
            kwargs={k: self.subst(v) for k, v in e.kwargs.items()} if e.kwargs else {},
            attrs={k: self.subst_value(v) for k, v in e.attrs.items()} if e.attrs else {},
        )

    def _subst_items(self, e: ir.TupleExpr | ir.ListExpr) -> ir.Expr:
        return copy_with(e, items=list(map(self.subst, e.items)))

    def _subst_binary(self, e: ir.BinaryExpr) -> ir.BinaryExpr:
        return copy_with(e, left=self.subst(e.left), right=self.subst(e.right))

    def _subst_unary(self, e: ir.UnaryExpr) -> ir.UnaryExpr:
        return copy_with(e, operand=self.subst(e.operand))

    def _subst_get_item(self, e: ir.TupleGetItem) -> ir.TupleGetItem:
        return copy_with(e, tuple=self.subst(e.tuple))

    def _subst_opaque(self, e: ir.OpaqueExpr) -> ir.OpaqueExpr:
        return copy_with(e, operands=list(map(self.subst, e.operands)))

    def _share(self, e: ir.Expr) -> ir.Expr:
        return e

    def subst_value(self, v: Any) -> Any:
        """An attribute value: expressions are renamed, containers walked, the rest copied."""
        if isinstance(v, ir.Expr):
            return self.subst(v)
        if isinstance(v, list):
            return [self.subst_value(x) for x in v]
        if isinstance(v, tuple):
            return tuple(self.subst_value(x) for x in v)
        if isinstance(v, dict):
            return {k: self.subst_value(x) for k, x in v.items()}
        return clone(v)

    def subst_var(self, v: ir.Var) -> ir.Var:
        return self.cur.get(v) or self._out_of_scope(v)

    def hide(self, owner: ir.Stmt, inside: dict[ir.Var, ir.Var | None]) -> None:
        """After leaving `owner` (a loop or `if`): what had a version inside it (`inside`: the
        changes made there, `_changes`) and has none after it is hidden by `owner`."""
        cur = self.cur
        for key, old in inside.items():
            if old is _ABSENT and key not in cur:
                held = weakref.ref(owner)
                self.logs.hides_was.append(self.hidden.get(key))
                self.hidden[key] = held
                self.logs.hides.append((key, held))
                self._events.append((_HIDDEN, key, held))

    # -- function ------------------------------------------------------------------------------

    def run(self) -> ir.Function:
        fn = self.fn
        record = ssa_resume.last(fn) if self._reuse else None
        if record is None:
            versions = [self.alloc(p.var, p.var.type, p.var.span) for p in fn.params]
            params = [ir.Param(v, p.direction, p.span) for v, p in zip(versions, fn.params, strict=True)]
        else:  # the same `Param`s in: the same out (Simplify keeps its last run by them)
            versions, params = record.versions, record.out_params
        body = self.top(fn.body, versions, params, record)
        for known, entries in self._kept.items():
            known.kept = entries
        if not keeps_nothing():  # (a one-shot analysis: nothing for a next run)
            for key, pool in self._pool.items():
                function, old = _POOLS.get(key, _NO_POOL)
                if function and function == fn.name:
                    old.update(pool)
                else:
                    _POOLS[key] = (fn.name, pool)
        return ir.Function(
            fn.name,
            params,
            body,
            list(fn.return_types),
            fn.type,
            fn.level,
            fn.role,
            {k: self.subst_value(v) for k, v in fn.attrs.items()},
            fn.span,
            fn.name_span,
            fn.strict_ssa,
        )

    # -- statements ----------------------------------------------------------------------------

    def top(
        self, stmts: list[ir.Stmt], versions: list[ir.Var], params: list[ir.Param], record: Resume | None
    ) -> list[ir.Stmt]:
        """The function's body, `block` at the top level, noting the state before each
        statement (`ssa_resume.Mark`) for the next conversion; with the last conversion's
        `record`, resumed where the last conversion's state fits and its rest taken where it
        fits again (`ssa_resume`: the result is what converting every statement gives)."""
        facts = self.facts
        body = _Top(stmts, versions, params, record)
        head, tail = 0, len(stmts)
        if record is not None:
            head = ssa_resume.common_head(record, stmts)
            tail = ssa_resume.common_tail(record, stmts, head)
            alike = ssa_resume.Facts(facts.live_in, facts.assigned, facts.has_loop)
            needed = ssa_resume.needed_alike(record, stmts, head, tail, alike)
            if needed is not None:
                body.needed, body.loops = needed, record.loops
        if not body.needed:
            body.needed = [self.future] if len(stmts) == 1 else facts.needed_after(stmts)
        if record is not None:
            body.start = ssa_resume.resume_point(record, stmts, body.needed, head, facts.mentioned)
            self._resume_at(body, record, body.start)
            body.out, body.marks = record.out[: body.start], record.marks[: body.start]
        begun = self.logs.mark(self._taints)
        for i in range(body.start, len(stmts)):
            if i >= tail and (i == tail or (i - tail) % _RETRY == 0) and self._fits(body, begun, i):
                return self._take_rest(body, i)
            body.marks.append(self.logs.mark(self._taints))
            self.future = body.needed[i]
            body.out.append(self.stmt(stmts[i]))
        body.marks.append(self.logs.mark(self._taints))
        final = State(self.cur, self.counters, self.hidden, self.reported, self._claimed, self._used)
        self._keep_record(body, final, len(stmts))
        return body.out

    def _resume_at(self, body: _Top, record: Resume, start: int) -> None:
        """The state the last conversion had before its statement `start` (its maps at the end
        taken back, or made from its logs: no statement replayed; `ssa_resume.start_at`)."""
        at = record.marks[start]
        begin = ssa_resume.start_at(record, start, self.fn.params[0])
        body.old, body.base, body.consumed = begin.old, begin.base, begin.consumed
        self.logs = logs = begin.logs
        state = begin.state
        self.cur, self.counters, self.hidden = state.cur, state.counters, state.hidden
        self.reported, self._claimed, self._used = state.reported, state.claimed, state.used
        self._bound, self.problems = logs.binds, logs.problems
        self._taints = at.taints
        self._took = True  # the versions' order in `cur` is the last conversion's (`_Retake`)

    def _fits(self, body: _Top, begun: Mark, i: int) -> bool:
        """Whether the state before statement `i` is the last conversion's before the same
        object (its `j`, counted from the end), as far as its statements from `j` on read it
        (`ssa_resume.same_changes`: a variable hidden by another statement matters only where
        they mention it, and not while it has a version, which it keeps to the end: the top
        level never drops one)."""
        record = body.record
        if record is None:
            return False
        j = i + len(record.stmts) - len(body.stmts)
        hidden = ssa_resume.same_changes(self.logs, begun, record, j, body.old, body.base)
        if hidden is None:
            return False
        hidden.difference_update(self.cur)
        return not hidden or not ssa_resume.mentioned_from(
            record, hidden, len(record.stmts) - j, self.facts.mentioned
        )

    def _take_rest(self, body: _Top, i: int) -> list[ir.Stmt]:
        """From statement `i` on (the last conversion's `j` on, the same objects, the state
        before it the same): the last conversion's output and effects."""
        record = body.record
        assert record is not None
        j = i + len(record.stmts) - len(body.stmts)
        here, since = self.logs.mark(self._taints), record.marks[j]
        rest = ssa_resume.relative(since, body.base)
        self.logs.extend(body.old, rest)
        body.out += record.out[j:]
        body.marks += ssa_resume.shifted(record.marks[j:], since, here)
        self._taints = body.marks[-1].taints
        if body.consumed:  # the maps are the record's, taken back: the rest's done again on them
            final = State(self.cur, self.counters, self.hidden, self.reported, self._claimed, self._used)
            final.replay(body.old, rest)
        else:
            final = record.final  # the state at the end is the last conversion's
            self.cur, self.hidden, self.reported = (
                final.cur,
                final.hidden,
                final.reported,
            )  # attributes read them
        self._keep_record(body, final, i)
        return body.out

    def _keep_record(self, body: _Top, final: State, stop: int) -> None:
        """This conversion kept for the next (`ssa_resume.Resume`), which converted the
        statements from `body.start` to `stop` and took the others from `body.record`."""
        if not self._reuse:
            return
        stmts = body.stmts
        loops = body.loops
        if loops is None:
            loops = [i for i, s in enumerate(stmts) if self.facts.has_loop(s)]
        mentions = None
        if body.record is not None:
            mentions = ssa_resume.handed_on(body.record, stmts, range(body.start, stop), self.facts.mentioned)
        record = Resume(
            self.fn.name,
            ssa_resume.params_of(self.fn),
            list(stmts),
            body.needed,
            loops,
            body.versions,
            body.params,
            body.out,
            self.logs,
            body.marks,
            final,
            mentions,
        )
        ssa_resume.keep(self.fn, record)

    def block(self, stmts: list[ir.Stmt], owner: ir.Stmt | None = None, index: int = 0) -> list[ir.Stmt]:
        """A statement list (`owner`'s block `index`, None: the function's body). "Needed
        later" for statement i is the live-in of the statements after it in this block; a
        single statement keeps the inherited set (see module doc)."""
        if len(stmts) == 1:
            return [self.stmt(stmts[0])]
        facts = self.facts
        needed_after = facts.needed_after(stmts) if owner is None else facts.needed_in(owner, index)
        out = []
        for s, needed in zip(stmts, needed_after, strict=True):
            self.future = needed
            out.append(self.stmt(s))
        return out

    def stmt(self, s: ir.Stmt) -> ir.Stmt:
        """`s` converted; or, when its last conversion read what converting it would read now,
        that conversion's output, with its effects on the converter replayed (`_Kept`)."""
        if not self._reuse or type(s) not in _KEPT_KINDS:
            return self.convert(s)
        known = self.facts._of(s)
        recurring = marked(s)
        if not known.converted:
            known.converted = True
            if not (recurring or kept_at_first(s)):
                return self.convert(s)
        deps = self.facts.mentioned(s)
        cur, counters, reported = self.cur, self.counters, self.reported
        version, hider, count = cur.get, self.hidden.get, counters.get
        reads = [(v, version(v), hider(v), v in reported, count(v, 0)) for v in deps]
        needed = frozenset(v for v in deps if v in self.future) if self.facts.has_loop(s) else None
        name = self.fn.name
        for kept in known.kept:
            fits = kept.function == name and kept.needed == needed and kept.reads == reads
            if fits and id(kept) not in self._used:
                done = kept.events[0][kept.events[1] : kept.events[2]]
                if all(e[0] is not _MINT or id(e[3]) not in self._claimed for e in done):
                    return self._replay(known, kept, done)
        taints, events, problems, future = self._taints, len(self._events), len(self.problems), self.future
        out = self.convert(s)
        if recurring:
            mark((out,))
        if self._taints == taints and all(h is None or h() is not s for _, _, h, _, _ in reads):
            # the versions it left current (a version current before stays so: `_undo`)
            writes = [
                (v, now) for v, was, _, _, _ in reads if (now := cur.get(v)) is not was and now is not None
            ]
            versions = [(v, counters[v]) for v, _, _, _, n in reads if counters.get(v, 0) != n]
            kept = _Kept(
                name,
                reads,
                needed,
                out,
                writes,
                versions,
                (self._events, events, len(self._events)),
                self.problems[problems:],
                self.stmt_span,
                None if self.future is future else self.future,
            )
            self._kept.setdefault(known, []).append(kept)
        return out

    def _replay(self, known: _Known, kept: _Kept, done: list[tuple[Any, ...]]) -> ir.Stmt:
        """What the conversion `kept` records (of the statement `known` is of) did, done again
        (`done`: its events): its writes to `cur` (logged like any write inside a loop or `if`),
        versions, binds, hidden variables, reports and problems. None of the variables it
        minted has been handed out by this run (the caller checks): a statement occurring twice
        in its function mints its unversioned loop results alike each time."""
        logs = self.logs
        self._used.add(id(kept))
        logs.useds.append(id(kept))
        self._took = True
        self._kept.setdefault(known, []).append(kept)
        for key, value in kept.writes:
            self.put(key, value)
        counters = self.counters
        logs.counts_was += [counters.get(key) for key, _ in kept.versions]
        counters.update(kept.versions)
        logs.counts += kept.versions
        for event in done:
            kind, key = event[0], event[1]
            if kind is _BIND:
                self._bind_order(key)
            elif kind is _HIDDEN:
                logs.hides_was.append(self.hidden.get(key))
                self.hidden[key] = event[2]
                logs.hides.append((key, event[2]))
            elif kind is _REPORTED:
                self.reported.add(key)
                logs.reports.append(key)
            else:  # _MINT
                self._claimed.add(id(event[3]))  # in its function's pool since it was minted
                logs.claims.append(id(event[3]))
        self._events += done
        self.problems += kept.problems
        self.stmt_span = kept.span
        if kept.future is not None:
            self.future = kept.future
        return kept.output

    def mint(
        self,
        key: ir.Var,
        name: str,
        type_: ir.Type,
        span: ir.Span,
        init: ir.Expr | None = None,
        carried: bool = False,
    ) -> ir.Var:
        """A new version of `key` (an `IterArg` seeded with `init` when `carried`): the one the
        last conversion made alike (same function, name, type, place and seed) unless this run
        has handed it out already, so the statements reading it can be kept (`_Kept`)."""
        var = None
        if self._reuse:
            old = self._old_pool.get(key)
            if old is None:
                function, old = _POOLS.get(key, _NO_POOL)
                self._old_pool[key] = old = old if function == self.fn.name else {}
            var = old.get(name)
        if var is None or id(var) in self._claimed or not _alike(var, type_, span, init, carried):
            var = ir.IterArg(name, type_, span, init) if carried else ir.Var(name, type_, span)
        self._claimed.add(id(var))
        self.logs.claims.append(id(var))
        self._pool.setdefault(key, {})[name] = var
        self._events.append((_MINT, key, name, var))
        return var

    def convert(self, s: ir.Stmt) -> ir.Stmt:
        self.stmt_span = s.span
        if isinstance(s, ir.AssignStmt):
            value = self.subst(s.value)
            target = self.alloc(s.target, _assignment_type(s.target, value), s.target.span)
            return ir.AssignStmt(target, value, s.span, s.annotation)
        if isinstance(s, ir.EvalStmt):
            return ir.EvalStmt(self.subst(s.expr), s.span)
        if isinstance(s, ir.ReturnStmt):
            return ir.ReturnStmt([self.subst(v) for v in s.values], s.span)
        if isinstance(s, ir.YieldStmt):
            return ir.YieldStmt([self.subst(v) for v in s.values], s.span)
        if isinstance(s, ir.ForStmt):
            return self.for_stmt(s)
        if isinstance(s, ir.WhileStmt):
            return self.while_stmt(s)
        if isinstance(s, ir.IfStmt):
            return self.if_stmt(s)
        if isinstance(s, ir.ScopeStmt):
            return self.scope(s)
        return copy_with(s)

    def for_stmt(self, s: ir.ForStmt) -> ir.ForStmt:
        start, stop, step = self.subst(s.start), self.subst(s.stop), self.subst(s.step)
        loop = self.loop(s, s.loop_var, None)
        assert loop.loop_var is not None
        return copy_with(
            s,
            loop_var=loop.loop_var,
            start=start,
            stop=stop,
            step=step,
            body=loop.body,
            iter_args=loop.iter_args,
            return_vars=loop.return_vars,
            kwargs={k: self.subst(v) for k, v in s.kwargs.items()},
        )

    def while_stmt(self, s: ir.WhileStmt) -> ir.WhileStmt:
        loop = self.loop(s, None, s.cond)
        assert loop.cond is not None
        return copy_with(
            s, cond=loop.cond, body=loop.body, iter_args=loop.iter_args, return_vars=loop.return_vars
        )

    def loop(self, s: ir.ForStmt | ir.WhileStmt, loop_var: ir.Var | None, cond: ir.Expr | None) -> _Loop:
        """§4.1 step 3: carried variables (assigned in the body, existing before) and escaping
        ones (first assigned in the body, needed after it) become iter_args + return vars,
        minted before the loop variable and the body."""
        needed_after = self.future
        before = self.cur  # as it is until the loop variable is bound (`mark` below)

        iter_args: list[ir.IterArg] = []
        source: dict[ir.IterArg, ir.Var] = {}
        for ia in s.iter_args:
            init = self.subst(ia.init) if ia.init is not None else None
            new_ia = self.mint(ia, ia.name, ia.type, ia.span, init, carried=True)
            assert isinstance(new_ia, ir.IterArg)
            iter_args.append(new_ia)
            source[new_ia] = ia

        explicit = set(s.iter_args)
        assigned = [v for v in self.facts.assigned_in(s.body) if v is not loop_var and v not in explicit]
        carried = sorted((v for v in assigned if v in before), key=lambda v: v.name)
        escaping = sorted(
            (v for v in assigned if v not in before and v in needed_after), key=lambda v: v.name
        )

        return_vars: list[ir.Var] = []
        for key in carried:
            init_var = before[key]
            return_vars.append(self._carry(key, init_var.type, init_var, s.span, iter_args, source))
        types = _last_assignment_types(s.body, {}) if escaping else {}  # a walk of the body: rare
        for key in escaping:
            type_ = types[key]
            found = self._escaping_init(type_, before)
            if found is None or not _may_share_a_type(s.body, key):
                self._no_value_before(key, s.body, s.span)
            init_var = found or ir.Var(key.name, type_, s.span)
            return_vars.append(self._carry(key, type_, init_var, s.span, iter_args, source))

        mark = self._enter()
        new_loop_var = None
        if loop_var is not None:
            name = ssa_name(loop_var.name, "idx", self.next_version(loop_var))
            new_loop_var = self.mint(loop_var, name, loop_var.type, loop_var.span)
            self.put(loop_var, new_loop_var)
        for ia in iter_args:
            self.put(source[ia], ia)
            self.bind(ia, ia)
        new_cond = self.subst(cond) if cond is not None else None
        body = self.block(s.body, s)
        auto = carried + escaping
        yielded = [self.cur[key] for key in auto]  # each carry's version at the body's end
        inside = self._changes(mark)
        self._undo(mark)

        existing_rvs = [self.mint(rv, rv.name, rv.type, rv.span) for rv in s.return_vars]
        for old, new in zip(s.return_vars, existing_rvs, strict=True):
            self.bind(old, new)
        for ia, rv in zip(iter_args, existing_rvs, strict=False):
            self.put(source[ia], rv)
        for key, rv in zip(auto, return_vars, strict=True):
            self.put(key, rv)
        self.hide(s, inside)

        trailing = _trailing_yield(body)
        yields = [*(trailing.values if trailing else []), *yielded]
        if yields:
            body = _put_yield(body, yields, s.span)
        return _Loop(new_loop_var, new_cond, iter_args, body, existing_rvs + return_vars)

    def _carry(
        self,
        key: ir.Var,
        type_: ir.Type,
        init: ir.Expr,
        span: ir.Span,
        iter_args: list[ir.IterArg],
        source: dict[ir.IterArg, ir.Var],
    ) -> ir.Var:
        """Mint `x__iter_vN` (appended to `iter_args`) and return `x__rv_vN+1`."""
        ia = self.mint(
            key, ssa_name(key.name, "iter", self.next_version(key)), type_, span, init, carried=True
        )
        assert isinstance(ia, ir.IterArg)
        iter_args.append(ia)
        source[ia] = key
        return self.mint(key, ssa_name(key.name, "rv", self.next_version(key)), type_, span)

    def _no_value_before(self, key: ir.Var, body: list[ir.Stmt], loop_span: ir.Span) -> None:
        """A value first defined in the loop and read after it that has no stand-in value
        before the loop: the compiler's converter puts an undefined placeholder there, which
        its SSA verification rejects. Reported at the value's first definition in the loop."""
        first = _first_assignment(body, key)
        self.problems.append(
            error(
                SSA_VERIFY,
                f"Variable '{key.base_name}' used outside its defining scope: it is first defined "
                "inside this loop and read after it, with no value before the loop",
                first.span if first is not None else loop_span,
                hint=f"give '{key.base_name}' a value before the loop, or carry it with "
                "init_values=(...) and pl.yield_",
                variable=key.base_name,
            )
        )

    def _escaping_init(self, type_: ir.Type, before: dict[ir.Var, ir.Var]) -> ir.Var | None:
        """An escaping value's loop-entry stand-in: an Out/InOut parameter of the same type
        first, else the earliest-created pre-loop variable of that type. (It reads every
        version live at the loop: the statements around it are not kept, `_Kept`.)"""
        self._taints += 1
        for p in self.fn.params:
            if p.direction is not ir.Direction.In and p.var in before and before[p.var].type == type_:
                return before[p.var]
        candidates = [k for k, v in before.items() if v.type == type_]
        if not candidates:
            return None
        order = self.order()
        return before[min(candidates, key=lambda k: order.get(k, len(order)))]

    def if_stmt(self, s: ir.IfStmt) -> ir.IfStmt:
        """§4.1 step 2: a phi for every pre-existing variable either arm reassigns and every new
        one both arms assign, sorted by name; a missing else is synthesised."""
        cond = self.subst(s.cond)
        before = self.cur  # as it is again after each branch (`_undo`)
        mark = self._enter()
        then_body = self.block(s.then_body, s)
        then_changes = self._changes(mark)
        then_ver = {key: self.cur[key] for key in then_changes}  # what the branch changed
        self._undo(mark, leave=False)
        else_body = self.block(s.else_body, s, 1) if s.else_body is not None else None
        else_changes = self._changes(mark)
        else_ver = {key: self.cur[key] for key in else_changes}
        self._undo(mark)

        # a phi for each variable bound before that either branch rebinds, and each new one
        # both bind; by name, a tie in the order of `cur` (before's keys, then the `then`
        # branch's new ones), as the compiler's walk of its variable map gives them
        rebound = [key for key in {**then_changes, **else_changes} if self._rebound(key, then_ver, else_ver)]
        if len({key.name for key in rebound}) < len(rebound):  # rare: their order in `cur`
            if self._took:
                raise _Retake
            rebound = [key for key in before if self._rebound(key, then_ver, else_ver)]
            self._taints += 1  # it reads the order of every version live at the `if`
        new = [key for key, old in then_changes.items() if old is _ABSENT and key in else_ver]
        phis = sorted(rebound + new, key=lambda v: v.name)
        if self._took and len({key.name for key in phis}) < len(phis):
            raise _Retake  # a tie broken by the order of the branches' writes, which taking changes

        return_vars: list[ir.Var] = []
        then_yields: list[ir.Expr] = []
        else_yields: list[ir.Expr] = []
        for key in phis:
            then_v = then_ver.get(key, before.get(key))
            else_v = else_ver.get(key, before.get(key))
            assert then_v is not None and else_v is not None
            phi = self.mint(key, ssa_name(key.name, "phi", self.next_version(key)), then_v.type, s.span)
            self.bind(key, phi)
            return_vars.append(phi)
            then_yields.append(then_v)
            else_yields.append(else_v)
        phi_keys = set(phis)
        for rv in s.return_vars:
            if rv not in phi_keys:
                new_rv = self.mint(rv, ssa_name(rv.name, "rv", self.next_version(rv)), rv.type, rv.span)
                self.bind(rv, new_rv)
                return_vars.append(new_rv)
        if not (_leaves(s.then_body) or (s.else_body is not None and _leaves(s.else_body))):
            # CtrlFlowTransform moves what follows a branch that ends in `continue`/`break`
            # into the other branch, where that branch's values are visible
            self.hide(s, then_changes)
            self.hide(s, else_changes)

        if phis:
            then_body = self._with_phi_yield(then_body, then_yields, s.span)
            if else_body is None:
                else_body = [ir.YieldStmt(else_yields, s.span)]
            else:
                else_body = self._with_phi_yield(else_body, else_yields, s.span)
        return ir.IfStmt(cond, then_body, else_body, return_vars, s.span)

    def _rebound(self, key: ir.Var, then_ver: dict[ir.Var, ir.Var], else_ver: dict[ir.Var, ir.Var]) -> bool:
        """Whether `key`, bound before an `if`, has another version after either branch."""
        was = self.cur.get(key)
        return was is not None and (then_ver.get(key, was) is not was or else_ver.get(key, was) is not was)

    @staticmethod
    def _with_phi_yield(body: list[ir.Stmt], phi_values: list[ir.Expr], span: ir.Span) -> list[ir.Stmt]:
        """Phi values first, then what an explicit `r = pl.yield_(v)` already yielded (keeps
        return vars and yield values aligned)."""
        trailing = _trailing_yield(body)
        return _put_yield(body, [*phi_values, *(trailing.values if trailing else [])], span)

    def scope(self, s: ir.ScopeStmt) -> ir.ScopeStmt:
        """§4.1 step 4: transparent; attrs read the versions live at entry; "needed later" is
        trimmed to pre-existing variables except for Runtime and SplitAiv scopes."""
        renamed = copy_with(
            s,
            deps=list(map(self.subst, s.deps)),
            no_dep_args=list(map(self.subst_var, s.no_dep_args)),
            dump_vars=list(map(self.subst_var, s.dump_vars)),
            task_id_var=self.subst_var(s.task_id_var) if s.task_id_var is not None else None,
            predicate=self.subst(s.predicate) if s.predicate is not None else None,
            cache_policies=[copy_with(d, var=self.subst_var(d.var)) for d in s.cache_policies],
            core_num=self.subst(s.core_num) if s.core_num is not None else None,
        )
        boundary = s.kind not in _TRANSPARENT_SCOPES
        saved = self.future
        if boundary:
            # the trim to pre-existing variables, `{v for v in self.future if v in self.cur}`,
            # leaves nothing a reader asks for: only a loop in the body reads it, and only for
            # variables first bound in that loop, so unbound at its entry, hence at the
            # scope's (`cur` only gains keys in between: ifs and loops restore snapshots
            # taken inside the body)
            self.future = set()
        renamed.body = self.block(s.body, s)
        if boundary:
            self.future = saved
        return renamed


# `subst` by exact expression type: the pass visits every expression node, and one dict lookup
# is cheaper than a chain of isinstance tests
_SUBST: dict[type, Callable[[_SSAConverter, Any], ir.Expr]] = {
    ir.Const: _SSAConverter._share,
    ir.Call: _SSAConverter._subst_call,
    ir.ListExpr: _SSAConverter._subst_items,
    ir.TupleExpr: _SSAConverter._subst_items,
    ir.BinaryExpr: _SSAConverter._subst_binary,
    ir.UnaryExpr: _SSAConverter._subst_unary,
    ir.TupleGetItem: _SSAConverter._subst_get_item,
    ir.OpaqueExpr: _SSAConverter._subst_opaque,
    ir.EnumValue: _SSAConverter._share,
}
