"""The deferred-waiter kernel contract: what a `pl.at(CORE_GROUP)` scope holding
`pld.system.defer_wait` may do (the compiler's DeferredWaitContractValidator).

A waiter registers completion conditions and nothing else: scalar bookkeeping and sequential
scalar control flow around the registrations are fine; payload tensors, calls other than a
pre-registration `tensor.read`, and any tensor read once registration has begun are not; the
number of registrations must be provably at most 64. The compiler stops at the first violation,
so this reports the first one (PTO306e; dsl-reference §5 lists only PTO306a-d, see
docs/compatibility.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ops
from ..ir import (
    AssignStmt,
    BinaryExpr,
    Call,
    Const,
    EnumValue,
    EvalStmt,
    Expr,
    ForKind,
    ForStmt,
    IfStmt,
    ListExpr,
    OpaqueExpr,
    ReturnStmt,
    Stmt,
    TensorType,
    TileType,
    TupleExpr,
    TupleGetItem,
    UnaryExpr,
    Var,
    YieldStmt,
)
from ..span import Span

MAX_CONDITIONS = 64  # the runtime's MAX_COMPLETIONS_PER_TASK


class ContractViolation(Exception):
    """The first statement breaking the contract; caught by `check_deferred_waiter`."""

    def __init__(self, message: str, span: Span) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


@dataclass
class _Summary:
    registers: bool = False
    max_count: int = 0
    safe_after_registration: bool = True  # no tensor read / continuation work


def check_deferred_waiter(body: list[Stmt], header: Span) -> tuple[str, Span] | None:
    """The first contract violation of a waiter body as (message, span), or None."""
    try:
        summary = _block(body)
        if summary.max_count > MAX_CONDITIONS:
            raise ContractViolation(
                f"deferred waiter supports at most {MAX_CONDITIONS} conditions, but may statically "
                f"register {summary.max_count}",
                header,
            )
    except ContractViolation as violation:
        return violation.message, violation.span
    return None


def _block(stmts: list[Stmt]) -> _Summary:
    total = _Summary()
    for stmt in stmts:
        part = _stmt(stmt)
        if total.registers and not part.safe_after_registration:
            raise ContractViolation(
                "deferred waiter cannot execute tensor reads, payload, cache, communication, or "
                "continuation work after pld.system.defer_wait registration begins",
                stmt.span,
            )
        total.registers = total.registers or part.registers
        total.max_count += part.max_count
        total.safe_after_registration = total.safe_after_registration and part.safe_after_registration
    return total


def _stmt(stmt: Stmt) -> _Summary:
    if isinstance(stmt, EvalStmt):
        return _call(stmt.expr, stmt.span)
    if isinstance(stmt, AssignStmt):
        if isinstance(stmt.value, Call) and stmt.value.op == ops.DEFER_WAIT_OP:
            raise ContractViolation(
                "pld.system.defer_wait is side-effect-only and must be used as a standalone statement",
                stmt.span,
            )
        if _is_tensor_like(stmt.target):
            raise ContractViolation(
                "deferred waiter is registration-only and cannot create or update payload tensors", stmt.span
            )
        pure = _scalar(stmt.value, stmt.span, allow_tensor_read=True)
        return _Summary(False, 0, pure)
    if isinstance(stmt, ReturnStmt):
        if stmt.values:
            raise ContractViolation(
                "deferred waiter is registration-only and cannot return a value", stmt.span
            )
        return _Summary()
    if isinstance(stmt, ForStmt):
        return _loop(stmt)
    if isinstance(stmt, IfStmt):
        _scalar(stmt.cond, stmt.span, allow_tensor_read=False)
        then = _block(stmt.then_body)
        other = _block(stmt.else_body) if stmt.else_body is not None else _Summary()
        return _Summary(
            then.registers or other.registers,
            max(then.max_count, other.max_count),
            then.safe_after_registration and other.safe_after_registration,
        )
    if isinstance(stmt, YieldStmt):  # SSA carries: bookkeeping, but no memory read may hide in them
        for value in stmt.values:
            _scalar(value, stmt.span, allow_tensor_read=False)
        return _Summary()
    raise ContractViolation(
        "deferred waiter body supports only scalar assignments/control flow and pld.system.defer_wait "
        "registrations",
        stmt.span,
    )


def _loop(loop: ForStmt) -> _Summary:
    if loop.kind not in (ForKind.Range, ForKind.Unroll):
        raise ContractViolation(
            "deferred waiter supports only sequential/unrolled scalar registration loops", loop.span
        )
    for bound in (loop.start, loop.stop, loop.step):
        _scalar(bound, loop.span, allow_tensor_read=False)
    body = _block(loop.body)
    if not body.registers:
        return body
    trips = _trip_count(loop)
    if trips <= 0:
        raise ContractViolation(
            "deferred waiter registration loop must have a statically known positive trip count so the "
            "per-waiter condition budget can be proved",
            loop.span,
        )
    if trips > 1 and not body.safe_after_registration:
        raise ContractViolation(
            "deferred waiter loop may execute tensor reads or continuation work after registering its first "
            "condition; loop bodies may contain only pure scalar bookkeeping, control flow, and defer_wait "
            "registrations",
            loop.span,
        )
    body.max_count = min(body.max_count * trips, MAX_CONDITIONS + 1)
    return body


def _trip_count(loop: ForStmt) -> int:
    values = [b.value for b in (loop.start, loop.stop, loop.step) if isinstance(b, Const)]
    ints = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    if len(ints) != 3:
        return 0
    start, stop, step = ints
    if step <= 0:
        return 0
    return max(0, (stop - start + step - 1) // step)


def _call(expr: Expr, span: Span) -> _Summary:
    if not isinstance(expr, Call):
        raise ContractViolation("deferred waiter contains a non-call side-effect statement", span)
    if expr.op != ops.DEFER_WAIT_OP or expr.is_user_call:
        raise ContractViolation(
            f"deferred waiter is registration-only; unexpected operation '{expr.op}'", span
        )
    for arg in [*expr.args[1:], *(v for k, v in expr.kwargs.items() if k != "cmp")]:
        _scalar(arg, span, allow_tensor_read=False)
    return _Summary(True, 1, True)


def _scalar(expr: Expr | None, span: Span, *, allow_tensor_read: bool) -> bool:
    """Validate scalar bookkeeping; True when it is pure (no tensor read)."""
    if expr is None or isinstance(expr, (Const, EnumValue)):
        return True
    if isinstance(expr, Var):
        if _is_tensor_like(expr):
            raise ContractViolation("deferred waiter scalar bookkeeping cannot produce a tensor value", span)
        return True
    if isinstance(expr, Call):
        if _is_tensor_like(expr) or not (
            allow_tensor_read and expr.op == "tensor.read" and not expr.is_user_call
        ):
            raise ContractViolation(
                "deferred waiter scalar bookkeeping supports only a pre-registration tensor.read call; "
                f"unexpected operation '{expr.op}'",
                span,
            )
        for arg in expr.args[1:]:
            _scalar(arg, span, allow_tensor_read=False)
        return False
    if isinstance(expr, BinaryExpr):
        left = _scalar(expr.left, span, allow_tensor_read=allow_tensor_read)
        right = _scalar(expr.right, span, allow_tensor_read=allow_tensor_read)
        return left and right
    if isinstance(expr, UnaryExpr):
        return _scalar(expr.operand, span, allow_tensor_read=allow_tensor_read)
    if isinstance(expr, (TupleExpr, ListExpr)):
        return all([_scalar(item, span, allow_tensor_read=allow_tensor_read) for item in expr.items])
    if isinstance(expr, TupleGetItem):
        return _scalar(expr.tuple, span, allow_tensor_read=allow_tensor_read)
    if isinstance(expr, OpaqueExpr) and not expr.operands:
        return True  # a dynamic-extent symbol
    raise ContractViolation("deferred waiter scalar bookkeeping contains an unsupported expression", span)


def _is_tensor_like(expr: Expr) -> bool:
    return isinstance(expr.type, (TensorType, TileType))
