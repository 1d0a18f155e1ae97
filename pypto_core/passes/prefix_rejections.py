"""What the compiler's passes before the outliners reject in code its parser accepts, where
nothing we model would notice: CtrlFlowTransform's lowering of `break` in a core function, and
Simplify's scalar analyzer meeting a bool constant or a float comparison. Each is reported at
the statement the user wrote, in the compiler's words, with the way around it (hw-native-sys/
pypto at e2d0f78; the oracle confirms every shape).

- PTO513 (Simplify): a bool scalar bound to a literal outside every loop, `if` and `pl.spmd`
  body (the analyzer's `Bind` builds `flag == True`, and `==` rejects bool operands).
- PTO514 (Simplify): an `if` whose condition compares float parameters (with each other or a
  constant): the analyzer's transitive comparison mixes the float difference with an integer
  offset.
- PTO515 (CtrlFlowTransform, then ConvertToSSA's verifier): `break` in a loop with
  `init_values=` in a core function: the lowered `if` yields fewer values than its results.
- PTO516 (CtrlFlowTransform, then Simplify): `break` in a loop of a core function outside
  every loop, `if` and `pl.spmd` body: the lowering's `brk = False` is a PTO513 bool literal.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from ..diagnostics import Diagnostic, error
from ..ir import (
    AssignStmt,
    BinaryExpr,
    BreakStmt,
    Const,
    Expr,
    ForStmt,
    Function,
    FunctionType,
    IfStmt,
    Param,
    Program,
    ScalarType,
    ScopeKind,
    ScopeStmt,
    Stmt,
    UnaryExpr,
    Var,
    WhileStmt,
)
from .kept_ends import shared_ends
from .outline_ir import stmt_children

_CORE_TYPES = (FunctionType.InCore, FunctionType.AIC, FunctionType.AIV)  # CtrlFlowTransform's
_COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!="})
_BOOL_EQ = "Operator 'eq' does not accept bool dtype"


def break_lowering_problems(program: Program) -> list[Diagnostic]:
    """PTO515/516 on the IR CtrlFlowTransform sees (after UnrollLoops, before ConvertToSSA)."""
    found: list[Diagnostic] = []
    for fn in program.functions:
        if fn.type in _CORE_TYPES:
            _breaks(fn.body, None, (False, False), True, found)
    return found


def simplify_problems(program: Program) -> list[Diagnostic]:
    """PTO513/514 on the IR Simplify sees (ConvertToSSA's output: one binding per variable)."""
    found: list[Diagnostic] = []
    for fn in program.functions:
        if fn.type is not FunctionType.Inline:  # spliced away before Simplify
            found += _function_problems(fn)
    return found


@dataclass(slots=True, eq=False)
class _Top:
    """A function's last look (`_function_problems`): its parameters (weakly: the table's key
    is the first) and their variables, its top-level statements (held, so no other object
    takes their ids while it lives) and what each one holds."""

    params: tuple[weakref.ref[Param], ...]
    variables: frozenset[Var]
    body: list[Stmt]
    found: list[list[Diagnostic]]


# Each function's last look, by its first parameter (ConvertToSSA hands out a function's
# `Param`s as the objects of its last conversion while its header is unchanged; no statement
# holds one): after a keystroke only the top-level statements that are not the last look's are
# looked at (a flat entry of 611 statements, each with a hundred parameters to compare, was
# looked at whole per keystroke).
_TOPS: weakref.WeakKeyDictionary[Param, _Top] = weakref.WeakKeyDictionary()


def _function_problems(fn: Function) -> list[Diagnostic]:
    last = _TOPS.get(fn.params[0]) if fn.params else None
    if last is not None and not (
        len(last.params) == len(fn.params)
        and all(held() is p for held, p in zip(last.params, fn.params, strict=True))
    ):
        last = None
    params = last.variables if last is not None else frozenset(p.var for p in fn.params)
    head, tail, old_tail = shared_ends(last.body, fn.body) if last is not None else (0, 0, 0)
    own = []
    for stmt in fn.body[head:tail] if last is not None else fn.body:
        problems: list[Diagnostic] = []
        _simplify([stmt], True, params, problems)
        own.append(problems)
    found = [*last.found[:head], *own, *last.found[old_tail:]] if last is not None else own
    if fn.params:
        _TOPS[fn.params[0]] = _Top(tuple(weakref.ref(p) for p in fn.params), params, list(fn.body), found)
    return [problem for problems in found for problem in problems]


def _breaks(
    stmts: list[Stmt],
    loop: ForStmt | WhileStmt | None,
    where: tuple[bool, bool],
    top: bool,
    found: list[Diagnostic],
) -> None:
    """`loop`: the innermost loop around `stmts`; `where`: whether that loop sits outside every
    loop, `if` and `pl.spmd` body (Simplify's depth 0, where the lowering's flag lands), and
    whether `stmts` are inside an `if` of its body; `top`: whether `stmts` are at depth 0."""
    for stmt in stmts:
        if isinstance(stmt, BreakStmt) and loop is not None:
            problem = _break_problem(stmt, loop, *where)
            if problem is not None:
                found.append(problem)
        elif isinstance(stmt, (ForStmt, WhileStmt)):
            _breaks(stmt.body, stmt, (top, False), False, found)
        else:
            inner = (where[0], where[1] or isinstance(stmt, IfStmt))
            for child in stmt_children(stmt):
                _breaks(child, loop, inner, top and _keeps_depth(stmt), found)


def _break_problem(
    stmt: BreakStmt, loop: ForStmt | WhileStmt, loop_top: bool, in_if: bool
) -> Diagnostic | None:
    """A conditional `break` of a carrying loop breaks the lowered `if`'s yields (PTO515);
    any other one fails only through its flag at function level (PTO516)."""
    if loop.iter_args and in_if:
        return error(
            "PTO515",
            "IfStmt then-branch YieldStmt value count != return_vars count: CtrlFlowTransform's "
            "lowering of this `break` leaves the loop's init_values= carries out of the `if` it "
            "builds, and ConvertToSSA's verification rejects it",
            stmt.span,
            hint="drop the `break`: test the stop condition in a `pl.while_` loop's `pl.cond(...)`, "
            "carrying an INT32 0/1 flag if the body decides it",
        )
    if not loop_top:
        return None
    return error(
        "PTO516",
        f"{_BOOL_EQ}: CtrlFlowTransform lowers this `break` with a flag `brk = False` before the "
        "loop, which Simplify cannot bind at function level",
        stmt.span,
        hint="nest the loop in another loop or `if`, or end it with a `pl.while_` condition",
    )


def _simplify(stmts: list[Stmt], top: bool, params: frozenset[Var], found: list[Diagnostic]) -> None:
    for stmt in stmts:
        if stmt_children(stmt):
            _compound(stmt, top, params, found)
            continue
        if top and isinstance(stmt, AssignStmt) and _is_bool_literal(stmt):
            found.append(
                error(
                    "PTO513",
                    f"{_BOOL_EQ}: Simplify cannot bind the bool scalar '{stmt.target.base_name}' "
                    "to a literal at function level",
                    stmt.span,
                    hint="compute it from a comparison (`flag = n > 0`), or keep the flag as an INT32 0/1",
                    variable=stmt.target.base_name,
                )
            )


def _compound(stmt: Stmt, top: bool, params: frozenset[Var], found: list[Diagnostic]) -> None:
    """`_simplify` of a compound statement: what it found the last time it met the statement
    at the same depth in a function of the same parameters (`_FOUND`), else looked for."""
    kept = _FOUND.get(stmt)
    if kept is not None and kept[0] is top and kept[1] == params:
        found += kept[2]
        return
    own: list[Diagnostic] = []
    if isinstance(stmt, IfStmt) and _compares_floats(stmt.cond, params):
        own.append(
            error(
                "PTO514",
                "Operator 'add' requires same numeric dtype category, got fp32 and int64: "
                "Simplify cannot analyse an `if` that compares float scalars",
                getattr(stmt.cond, "span", stmt.span),
                hint="compare in a bool variable first (`big = x > 1.5`, then `if big:`)",
            )
        )
    for child in stmt_children(stmt):
        _simplify(child, top and _keeps_depth(stmt), params, own)
    _FOUND[stmt] = (top, params, own)
    found += own


# A compound statement's findings, kept while it lives (the passes never modify a statement, and
# ConvertToSSA hands out a statement it converted alike as the object of before): whether it
# was at depth 0, the function's parameters, what it holds.
_Found = tuple[bool, frozenset[Var], list[Diagnostic]]
_FOUND: weakref.WeakKeyDictionary[Stmt, _Found] = weakref.WeakKeyDictionary()


def _keeps_depth(stmt: Stmt) -> bool:
    """Whether Simplify visits `stmt`'s bodies at its own depth: every scope but `pl.spmd`
    (loops and `if` branches go one deeper)."""
    return isinstance(stmt, ScopeStmt) and stmt.kind is not ScopeKind.Spmd


def _is_bool_literal(stmt: AssignStmt) -> bool:
    return (
        isinstance(stmt.target.type, ScalarType)
        and stmt.target.type.dtype == "BOOL"
        and isinstance(stmt.value, Const)
        and isinstance(stmt.value.value, bool)
    )


def _compares_floats(cond: Expr, params: frozenset[Var]) -> bool:
    """A comparison of float parameters and constants in `cond`, through `and` / `or` / `not`
    (the shape the oracle rejects; a comparison of values the body computed, such as two
    `pl.read` results, passes)."""
    if isinstance(cond, UnaryExpr) and cond.op == "not":
        return _compares_floats(cond.operand, params)
    if not isinstance(cond, BinaryExpr):
        return False
    if cond.op in ("and", "or"):
        return _compares_floats(cond.left, params) or _compares_floats(cond.right, params)
    operands = (cond.left, cond.right)
    return (
        cond.op in _COMPARISONS
        and all(_is_float(e) and (isinstance(e, Const) or e in params) for e in operands)
        and any(e in params for e in operands)
    )


def _is_float(expr: Expr) -> bool:
    t = getattr(expr, "type", None)
    return isinstance(t, ScalarType) and (t.dtype.startswith("FP") or t.dtype == "BF16")
