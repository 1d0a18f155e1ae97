"""What a scope body needs and produces: live-ins, the scalar-output hoist plan, outputs,
parameter directions and return lineage (dsl-reference §4.2.3–§4.2.9).

Everything here reads a body and answers a question; the rewriting lives in `outliner.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from functools import cached_property

from .. import ops
from ..ir import (
    AssignStmt,
    Call,
    Direction,
    Expr,
    ForKind,
    ForStmt,
    IfStmt,
    IterArg,
    ReturnStmt,
    ScalarType,
    ScopeKind,
    ScopeStmt,
    Stmt,
    TupleGetItem,
    Var,
    WhileStmt,
    YieldStmt,
)
from .flatten_calls import flattened_reads
from .outline_ir import (
    BOOKKEEPING_ATTRS,
    CONSTANT_TYPES,
    VAR_TYPES,
    attr_exprs,
    expr_calls,
    expr_vars,
    scope_attr_exprs,
    stmt_defs,
    stmt_exprs,
    sub_exprs,
    walk_calls,
    walk_stmts,
)

CalleeDirections = Callable[[Call], list[Direction] | None]
"""The declared parameter directions of a user call's callee, or None without callee resolution."""


# ---------------------------------------------------------------------------------------------
# Live-in (upward-exposed uses, §4.2.4)


OwnReads = Callable[[Stmt], list[Var]]
"""The variables a statement's own expressions read, in FlattenCallExpr's order
(`flattened_reads`, `StmtFacts.reads`)."""


def live_ins(stmts: list[Stmt], reads: OwnReads = flattened_reads) -> list[Var]:
    """Variables the body reads before defining them, in first-read order."""
    collector = _LiveIn(reads)
    collector.block(stmts, set())
    return collector.order


@dataclass
class _LiveIn:
    own_reads: OwnReads
    order: list[Var] = field(default_factory=list)
    seen: set[Var] = field(default_factory=set)

    def note(self, reads: list[Var], defined: set[Var]) -> None:
        for var in reads:
            if var not in defined and var not in self.seen:
                self.seen.add(var)
                self.order.append(var)

    def block(self, stmts: list[Stmt], defined: set[Var]) -> set[Var]:
        """What is defined after the block; `defined` (before it) is left as it is."""
        defined = set(defined)
        for stmt in stmts:
            self.stmt(stmt, defined)
        return defined

    def stmt(self, stmt: Stmt, defined: set[Var]) -> None:
        """Records the reads of `stmt` and adds what it defines to its block's `defined` (in
        place: a copy per statement made long bodies quadratic)."""
        if isinstance(stmt, AssignStmt):
            self.note(self.own_reads(stmt), defined)
            defined.add(stmt.target)
        elif isinstance(stmt, ForStmt):
            self.note(self.own_reads(stmt), defined)  # initial values and bounds
            self.block(stmt.body, defined | {stmt.loop_var, *stmt.return_vars, *stmt.iter_args})
            defined.update(stmt.return_vars)
        elif isinstance(stmt, WhileStmt):
            inner = defined | {*stmt.return_vars, *stmt.iter_args}
            self.note(self.own_reads(stmt), inner)  # initial values, then the condition
            self.block(stmt.body, inner)
            defined.update(stmt.return_vars)
        elif isinstance(stmt, IfStmt):
            self.note(self.own_reads(stmt), defined)
            defined.update(stmt.return_vars)
            then_defs = self.block(stmt.then_body, defined)
            else_defs = self.block(stmt.else_body, defined) if stmt.else_body is not None else defined
            defined.update(then_defs & else_defs)
        elif isinstance(stmt, ScopeStmt):
            self.note(self.own_reads(stmt), defined)  # attributes, then bookkeeping
            for inner_stmt in stmt.body:  # scopes leak their definitions
                self.stmt(inner_stmt, defined)
        else:
            self.note(self.own_reads(stmt), defined)


# ---------------------------------------------------------------------------------------------
# Definitions


def definition_sites(stmts: list[Stmt]) -> dict[Var, Stmt]:
    """Each variable defined in the body -> the statement that binds it."""
    return {var: stmt for stmt in walk_stmts(stmts) for var in stmt_defs(stmt)}


def output_candidates(stmts: list[Stmt]) -> list[Var]:
    """Body definitions that can become outputs, pre-order: assignment targets, and the return
    vars of loops/ifs (ahead of their bodies). Loop variables and iter_args never escape."""
    found: list[Var] = []
    for stmt in walk_stmts(stmts):
        if isinstance(stmt, AssignStmt):
            found.append(stmt.target)
        elif isinstance(stmt, (ForStmt, WhileStmt, IfStmt)):
            found.extend(stmt.return_vars)
    return found


def is_plain_var(expr: Expr | None) -> bool:
    return isinstance(expr, Var) and not isinstance(expr, IterArg)


def store_targets(calls: list[Call]) -> list[Var]:
    """Plain-variable destinations of every `tile.store` among a body's calls (`walk_calls`),
    first-store order."""
    found: list[Var] = []
    for call in calls:
        dest = ops.store_destination(call)
        if is_plain_var(dest) and dest not in found:
            assert isinstance(dest, Var)
            found.append(dest)
    return found


def is_scalar_value(var: Var) -> bool:
    return isinstance(var.type, ScalarType) and not var.type.is_task_id


# ---------------------------------------------------------------------------------------------
# Scalar-output hoist (§4.2.3)


@dataclass
class HoistPlan:
    hoisted: list[AssignStmt]  # removed from the body, emitted before the call, in order
    unhoistable: list[Var]  # scalar outputs only the device can compute (PTO301)


def plan_scalar_hoist(body: list[Stmt], used_after: set[Var], inputs: list[Var]) -> HoistPlan:
    if not any(is_scalar_value(v) for v in used_after):
        return HoistPlan([], [])  # the usual case, told without walking the body
    scalar_outputs = [v for v in output_candidates(body) if v in used_after and is_scalar_value(v)]
    if not scalar_outputs:
        return HoistPlan([], [])
    available: set[Var] = set(inputs)
    candidates: dict[Var, AssignStmt] = {}
    for stmt in body:
        if (
            isinstance(stmt, AssignStmt)
            and is_scalar_value(stmt.target)
            and ops.is_hoistable_scalar_expr(stmt.value, available.__contains__)
        ):
            candidates[stmt.target] = stmt
            available.add(stmt.target)
    needed: set[Var] = set()
    unhoistable: list[Var] = []
    pending = list(scalar_outputs)
    while pending:
        var = pending.pop()
        if var in needed:
            continue
        if var not in candidates:
            if var not in unhoistable:
                unhoistable.append(var)
            continue
        needed.add(var)
        pending.extend(v for v in expr_vars(candidates[var].value) if v in candidates)
    hoisted = [stmt for var, stmt in candidates.items() if var in needed]
    unhoistable.sort(key=scalar_outputs.index)
    return HoistPlan(hoisted, unhoistable)


# ---------------------------------------------------------------------------------------------
# Outputs (§4.2.5)


@dataclass(frozen=True)
class Output:
    var: Var  # the body's variable, or for a store-target export the captured tensor
    is_export: bool


@dataclass
class OutputPlan:
    outputs: list[Output]
    post_store_aliases: dict[Var, Var]  # body var bound to a store into an exported capture -> it


OwnCalls = Callable[[Stmt], list[Call]]
"""The calls a statement's own expressions make, pre-order (`StmtFacts.own_calls`)."""


def own_calls(stmt: Stmt) -> list[Call]:
    return [call for expr in stmt_exprs(stmt) for call in expr_calls(expr)]


def plan_outputs(
    walked: list[Stmt], used_after: set[Var], inputs: set[Var], kind: ScopeKind, calls: OwnCalls = own_calls
) -> OutputPlan:
    """Outputs in order of first definition; a store-target export sits at its first store
    (D7). Hierarchy scopes export no store target (D3) and so keep post-store bindings as
    ordinary outputs. `walked`: every statement of the body, pre-order (`walk_stmts`)."""
    exports_enabled = kind is not ScopeKind.Hierarchy
    outputs: list[Output] = []
    exported: set[Var] = set()
    aliases: dict[Var, Var] = {}
    for stmt in walked:
        if exports_enabled:
            for call in calls(stmt):
                dest = ops.store_destination(call)
                if is_plain_var(dest) and dest in inputs and dest not in exported:
                    assert isinstance(dest, Var)
                    exported.add(dest)
                    outputs.append(Output(dest, True))
        if isinstance(stmt, AssignStmt):
            dest = ops.store_destination(stmt.value)
            root = (aliases.get(dest, dest) if isinstance(dest, Var) else None) if exports_enabled else None
            if is_plain_var(root) and root in inputs:
                assert isinstance(root, Var)
                aliases[stmt.target] = root  # a post-store state of an exported capture
            elif stmt.target in used_after:
                outputs.append(Output(stmt.target, False))
        elif isinstance(stmt, (ForStmt, WhileStmt, IfStmt)):
            outputs.extend(Output(v, False) for v in stmt.return_vars if v in used_after)
    return OutputPlan(outputs, aliases)


# ---------------------------------------------------------------------------------------------
# Parameter directions (§4.2.7)


def merge_direction(a: Direction, b: Direction) -> Direction:
    """The wider of the two: In < Out < InOut (Out and InOut merge to InOut)."""
    return a if _WIDTH[a] >= _WIDTH[b] else b


_WIDTH = {Direction.In: 0, Direction.Out: 1, Direction.InOut: 2}


def callee_slots(call: Call, callee_directions: CalleeDirections) -> list[Direction | None]:
    """Per argument of a user call, the direction of the callee parameter it binds (None: no
    callee resolution, or no parameter). A Submit's arguments are a prefix of the callee's
    parameters; a plain call of the wrong arity binds nothing."""
    directions = callee_directions(call)
    count = len(call.args)
    if directions is None or (not call.submit and len(directions) != count):
        return [None] * count
    return [*directions[:count], *[None] * (count - len(directions))]


@dataclass
class _ReadScan:
    """Which captures the body reads (§4.2.7 step 0), and the calls steps 1 and 2 look at
    (builtins that write an argument, user calls), so the body is walked once."""

    names: dict[Var, Var]  # capture or alias -> capture
    callee_directions: CalleeDirections
    read: set[Var] = field(default_factory=set)
    writes: list[tuple[Call, list[tuple[int, ops.Effect]]]] = field(default_factory=list)  # builtins
    user_calls: list[Call] = field(default_factory=list)

    def expr(self, expr: Expr) -> None:
        kind = type(expr)
        if kind in VAR_TYPES:
            self._read(expr)  # type: ignore[arg-type]
        elif kind is Call:
            self._call(expr)  # type: ignore[arg-type]
        elif kind not in CONSTANT_TYPES:
            self._exprs(sub_exprs(expr))

    def _exprs(self, exprs: Iterable[Expr]) -> None:
        """`expr` of each, with the leaves handled in the loop (most sub-expressions are)."""
        for expr in exprs:
            kind = type(expr)
            if kind in VAR_TYPES:
                self._read(expr)  # type: ignore[arg-type]
            elif kind not in CONSTANT_TYPES:
                self.expr(expr)

    def _read(self, var: Var) -> None:
        capture = self.names.get(var)
        if capture is not None:
            self.read.add(capture)

    def _call(self, call: Call) -> None:
        written = self._write_only_slots(call, self._note(call))
        if written:
            for index, arg in enumerate(call.args):
                if index not in written:
                    self.expr(arg)
                else:  # not a read, but it may hold a call
                    self._note_calls(arg)
        else:
            self._exprs(call.args)
        if call.kwargs:
            self._exprs(list(call.kwargs.values()))
        for key, value in call.attrs.items():
            for sub in attr_exprs(value):
                if key not in BOOKKEEPING_ATTRS:
                    self.expr(sub)
                else:
                    self._note_calls(sub)

    def _note_calls(self, expr: Expr) -> None:
        """The calls in an expression that is not a read, for steps 1 and 2."""
        for call in expr_calls(expr):
            self._note(call)

    def _note(self, call: Call) -> list[tuple[int, ops.Effect]]:
        """Keeps the call for steps 1 and 2; a builtin's written slots."""
        if call.callee is not None:  # a user call
            self.user_calls.append(call)
            return []
        written = ops.written_args(call)
        if written:
            self.writes.append((call, written))
        return written

    def _write_only_slots(self, call: Call, written: list[tuple[int, ops.Effect]]) -> Collection[int]:
        """The arguments the call overwrites without reading them (not reads of a capture);
        `written`: what `_note` said."""
        if call.callee is not None:
            slots = callee_slots(call, self.callee_directions)
            return {index for index, slot in enumerate(slots) if slot is Direction.Out}
        if not written:
            return ()  # most calls
        return {index for index, effect in written if effect is ops.Effect.Write}

    def block(self, stmts: list[Stmt]) -> None:
        for stmt in stmts:
            if isinstance(stmt, AssignStmt):
                self.expr(stmt.value)
                self._register_alias(stmt)
            elif isinstance(stmt, ScopeStmt):
                for expr in scope_attr_exprs(stmt):
                    self.expr(expr)
                self.block(stmt.body)
            elif isinstance(stmt, (ForStmt, WhileStmt)):
                self._loop(stmt)
            elif isinstance(stmt, ReturnStmt):
                for value in stmt.values:
                    if not (isinstance(value, Var) and value in self.names):
                        self.expr(value)  # returning a buffer moves no data (a yield is a read)
            else:
                for expr in stmt_exprs(stmt):
                    self.expr(expr)
                for child in _children(stmt):
                    self.block(child)

    def _loop(self, stmt: ForStmt | WhileStmt) -> None:
        """A loop carrying a capture names the same buffer: its iter_arg (and return var) are
        aliases, so a write through the carry writes the capture (spec: "a captured tensor the
        scope writes" is lifted off In, however the write is spelled). Seeding the carry is a
        use outside a write slot, hence a read (spec: "anything else ... makes it InOut"; the
        compiler's ParamReadCollector visits every iter-arg init), as is yielding a capture. A
        `pl.unroll` loop still here has a bound only the compiler knows (a `pl.constexpr`): it
        unrolls it before ConvertToSSA, so there is no carry to seed or to yield."""
        bounds = [stmt.start, stmt.stop, stmt.step] if isinstance(stmt, ForStmt) else [stmt.cond]
        unrolled = isinstance(stmt, ForStmt) and stmt.kind is ForKind.Unroll
        for arg, result in zip(
            stmt.iter_args, [*stmt.return_vars, *[None] * len(stmt.iter_args)], strict=False
        ):
            capture = self.names.get(arg.init) if isinstance(arg.init, Var) else None
            if arg.init is not None and not (unrolled and capture is not None):
                self.expr(arg.init)
            if capture is None:
                continue
            self.names[arg] = capture
            if result is not None:
                self.names[result] = capture
        for bound in bounds:
            self.expr(bound)
        last = stmt.body[-1] if stmt.body else None
        if unrolled and isinstance(last, YieldStmt):  # nor a carry to yield
            self.block(stmt.body[:-1])
            self._exprs(v for v in last.values if not (isinstance(v, Var) and v in self.names))
        else:
            self.block(stmt.body)

    def _register_alias(self, stmt: AssignStmt) -> None:
        value = stmt.value
        if isinstance(value, Call):
            index = ops.result_alias_index(value)
            arg = value.args[index] if index is not None else None
            if isinstance(arg, Var):
                capture = self.names.get(arg)
                if capture is not None:
                    self.names[stmt.target] = capture


def _children(stmt: Stmt) -> list[list[Stmt]]:
    if isinstance(stmt, (ForStmt, WhileStmt)):
        return [stmt.body]
    if isinstance(stmt, IfStmt):
        return [stmt.then_body] + ([stmt.else_body] if stmt.else_body is not None else [])
    return []


def infer_directions(
    body: list[Stmt],
    captures: list[Var],
    kind: ScopeKind,
    exports: list[Var],
    callee_directions: CalleeDirections,
) -> list[Direction]:
    scan = _ReadScan({c: c for c in captures}, callee_directions)
    scan.block(body)
    names = scan.names

    def written(capture: Var) -> Direction:
        return Direction.InOut if capture in scan.read else Direction.Out

    directions = {c: Direction.In for c in captures}
    for capture in exports:
        directions[capture] = merge_direction(directions[capture], written(capture))
    callee_read: set[Var] = set()
    callee_write: set[Var] = set()
    # the order does not matter: directions only ever widen
    for call, written_args in scan.writes:
        _collect_call_writes(call, written_args, kind, names, directions, written)
    for call in scan.user_calls:
        _collect_callee_slots(call, names, callee_directions, callee_read, callee_write)
    for capture in captures:
        if capture in callee_write:
            evidence = Direction.InOut if capture in callee_read or capture in scan.read else Direction.Out
            directions[capture] = merge_direction(directions[capture], evidence)
    return [directions[c] for c in captures]


def writing_calls(
    body: list[Stmt], buffers: list[Var], callee_directions: CalleeDirections
) -> tuple[dict[Var, Call], set[Var]]:
    """Each of `buffers` the body writes, with the first call (in source order) that writes it
    (a builtin through its declared write slot, `ops.written_args`, or a user call through a
    callee parameter declared Out/InOut), and the buffers it reads: reached through the same
    aliases (carries, copies, result aliases) direction inference follows."""
    scan = _ReadScan({b: b for b in buffers}, callee_directions)
    scan.block(body)
    candidates: list[tuple[Var, Call]] = []
    for call, written_args in scan.writes:
        for index, _effect in written_args:
            arg = call.args[index]
            buffer = scan.names.get(arg) if isinstance(arg, Var) else None
            if buffer is not None:
                candidates.append((buffer, call))
    for call in scan.user_calls:
        for arg, slot in zip(call.args, callee_slots(call, callee_directions), strict=True):
            buffer = scan.names.get(arg) if isinstance(arg, Var) else None
            if buffer is not None and slot in (Direction.Out, Direction.InOut):
                candidates.append((buffer, call))
    found: dict[Var, Call] = {}
    for buffer, call in sorted(candidates, key=lambda c: (c[1].span.start_line, c[1].span.start_col)):
        found.setdefault(buffer, call)
    return found, scan.read


def _collect_call_writes(
    call: Call,
    written_args: list[tuple[int, ops.Effect]],
    kind: ScopeKind,
    names: dict[Var, Var],
    directions: dict[Var, Direction],
    written: Callable[[Var], Direction],
) -> None:
    """§4.2.7 step 1b: a builtin's declared write slot (`written_args`) lifts the capture it
    names."""
    if kind is ScopeKind.Hierarchy and ops.is_store(call):
        return  # D3: a Hierarchy tile.store destination stays In
    for index, _effect in written_args:
        arg = call.args[index]
        capture = names.get(arg) if isinstance(arg, Var) else None
        if capture is not None:
            directions[capture] = merge_direction(directions[capture], written(capture))


def _collect_callee_slots(
    call: Call,
    names: dict[Var, Var],
    callee_directions: CalleeDirections,
    callee_read: set[Var],
    callee_write: set[Var],
) -> None:
    """§4.2.7 step 2: the two independent flags a callee's declared slots contribute."""
    for arg, slot in zip(call.args, callee_slots(call, callee_directions), strict=True):
        capture = names.get(arg) if isinstance(arg, Var) else None
        if capture is None or slot is None:
            continue
        if slot in (Direction.In, Direction.InOut):
            callee_read.add(capture)
        if slot in (Direction.Out, Direction.InOut):
            callee_write.add(capture)


# ---------------------------------------------------------------------------------------------
# Return lineage (§4.2.9)

CalleeReturnParam = Callable[[Call, int], int | None]
"""For a user call and a return position: the index of the callee parameter it returns."""


@dataclass
class Lineage:
    """Traces a body value back to the captured parameter whose buffer it names."""

    body: list[Stmt]
    captures: set[Var]
    callee_return_param: CalleeReturnParam
    through_ifs: bool  # InCore only: an if result resolves when every arm agrees

    @cached_property
    def _sites(self) -> dict[Var, Stmt]:
        """Found on the first trace: a scope whose outputs are all store-target exports (most
        InCore scopes) traces nothing."""
        return definition_sites(self.body)

    def trace(self, var: Var) -> Var | None:
        return self._trace(var, set())

    def _trace(self, expr: Expr, seen: set[Var]) -> Var | None:
        if not isinstance(expr, Var):
            return self._trace_value(expr, 0, seen) if isinstance(expr, (Call, TupleGetItem)) else None
        if expr in self.captures:
            return expr
        if expr in seen:
            return None
        seen = seen | {expr}
        if isinstance(expr, IterArg):
            return self._trace(expr.init, seen) if expr.init is not None else None
        site = self._sites.get(expr)
        if isinstance(site, AssignStmt):
            return self._trace_value(site.value, None, seen)
        if isinstance(site, (ForStmt, WhileStmt)) and expr in site.return_vars:
            arg = site.iter_args[site.return_vars.index(expr)]
            return self._trace(arg.init, seen) if arg.init is not None else None
        if isinstance(site, IfStmt) and self.through_ifs and expr in site.return_vars:
            return self._trace_if(site, site.return_vars.index(expr), seen)
        return None

    def _trace_value(self, value: Expr, position: int | None, seen: set[Var]) -> Var | None:
        if isinstance(value, Var):
            return self._trace(value, seen)
        if isinstance(value, TupleGetItem):
            inner = value.tuple
            if isinstance(inner, Var) and isinstance(self._sites.get(inner), AssignStmt):
                site = self._sites[inner]
                assert isinstance(site, AssignStmt)
                return self._trace_value(site.value, value.index, seen | {inner})
            return self._trace_value(inner, value.index, seen)
        if isinstance(value, Call):
            if value.is_user_call:
                index = self.callee_return_param(value, position or 0)
                return self._trace(value.args[index], seen) if index is not None else None
            alias = ops.result_alias_index(value)
            return self._trace(value.args[alias], seen) if alias is not None else None
        return None

    def _trace_if(self, stmt: IfStmt, index: int, seen: set[Var]) -> Var | None:
        arms = [stmt.then_body, stmt.else_body] if stmt.else_body is not None else [stmt.then_body]
        found: set[Var | None] = set()
        for arm in arms:
            yields = [s for s in arm if isinstance(s, YieldStmt)]
            if not yields or index >= len(yields[-1].values):
                return None
            found.add(self._trace(yields[-1].values[index], seen))
        if len(found) == 1 and len(arms) == 2:
            return found.pop()
        return None


def returned_params(body: list[Stmt], params: list[Var]) -> list[int | None]:
    """For a function body: per return position, the index of the parameter it returns."""
    returns = [s for s in body if isinstance(s, ReturnStmt)]
    if not returns:
        return []
    result: list[int | None] = []
    for value in returns[-1].values:
        result.append(params.index(value) if isinstance(value, Var) and value in params else None)
    return result


def contains_op(stmts: list[Stmt], op: str) -> bool:
    return calls_op(walk_calls(stmts), op)


def calls_op(calls: list[Call], op: str) -> bool:
    return any(call.op == op for call in calls)
