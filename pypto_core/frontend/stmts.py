"""Statements and loops -> pre-SSA IR statements (dsl-reference §1.4).

Pre-SSA, one `Var` stands for one source name (rebinding reuses it); ConvertToSSA versions
them later. Desugarings follow the compiler's parser: tuple unpacking goes through a tuple
temporary and `TupleGetItem`s, `dst[...] = src` is `dst = <kind>.assemble(dst, src, offsets)`,
an explicit `init_values=` loop binds its results through the trailing `pl.yield_`. Scope
constructs (`with pl.at(...)`, `for i in pl.spmd(...)`, ...) are delegated to `scopes`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from ..ir import (
    INDEX,
    UNKNOWN,
    AssignStmt,
    BreakStmt,
    Call,
    Const,
    ContinueStmt,
    EvalStmt,
    Expr,
    ForKind,
    ForStmt,
    IfStmt,
    IterArg,
    ListExpr,
    ReturnStmt,
    ScopeKind,
    ScopeStmt,
    Stmt,
    TupleGetItem,
    TupleType,
    Type,
    UnknownType,
    Var,
    WhileStmt,
    YieldStmt,
)
from .body_state import BodyState
from .context import PL
from .exprs import OPERATORS, binary, build_expr, build_exprs, kind_of, slice_bounds
from .op_types import op_result_type
from .scopes import ScopeBuilder
from .types import annotation_type

LOOP_KINDS = {
    "range": ForKind.Range,
    "parallel": ForKind.Parallel,
    "unroll": ForKind.Unroll,
    "pipeline": ForKind.Pipeline,
}
LOOP_KEYWORDS = ("init_values", "chunk", "chunk_policy", "attrs", "stage")
_COMPILE_TIME = ("static_print", "static_assert")
MAX_UNROLL_ITERATIONS = 1024  # UnrollLoops' kMaxUnrollIterations
_BREAKABLE = (ForKind.Range.value, "while")


class StmtBuilder:
    """Builds statement lists; owns the yield bookkeeping that ties a trailing
    `r = pl.yield_(v)` to the loop or `if` around it."""

    def __init__(self, state: BodyState) -> None:
        self.state = state
        self.scopes = ScopeBuilder(state, self)
        self.yield_targets: dict[int, list[ast.expr]] = {}

    def block(self, nodes: list[ast.stmt]) -> list[Stmt]:
        """The statements built, each taken as kept from the last build when it can be
        (`stmt_memo`)."""
        result: list[Stmt] = []
        reuse = self.state.reuse
        for node in nodes:
            result.extend(self.stmt(node) if reuse is None else reuse.stmt(self, node))
        return result

    def stmt(self, node: ast.stmt) -> list[Stmt]:
        handler = _HANDLERS.get(type(node))
        if handler is None:
            self.state.error(
                "PTO199",
                f"Unsupported statement '{type(node).__name__}' in a PyPTO function",
                node,
                hint="only assignments, calls, if/for/with, return, break and continue are supported",
            )
            return []
        return handler(self, node)

    # -- assignment ------------------------------------------------------------------------

    def assign_name(
        self,
        target: ast.Name,
        value: Expr,
        stmt: ast.stmt,
        annotation: Type | None = None,
        *,
        plain: bool = False,
    ) -> AssignStmt:
        """`target = value`; `plain`: the statement's one target, which a jit body's
        specialiser may rename (`jit_renames`)."""
        state = self.state
        state.note_definition(target.id, target)
        alias = self._renamed(target, stmt) if plain and state.renamer is not None else None
        value_type = annotation or value.type
        if alias is None:
            var = state.bind(target.id, target, value_type)
        else:
            # a value of unknown type (an unannotated helper's result) keeps the type the name
            # had, as a rebinding of the one variable does
            known = state.type_of_name(target.id) if isinstance(value_type, UnknownType) else value_type
            var = state.rename(target.id, alias, state.span(target), known)
        return AssignStmt(var, value, state.span(stmt), annotation)

    def _renamed(self, target: ast.Name, stmt: ast.stmt) -> str | None:
        """The name a jit body's plain assignment binds when the specialiser renames it; a
        static `p.shape[i]` read of a parameter only records the name (it is inlined)."""
        renamer = self.state.renamer
        assert renamer is not None
        value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
        if renamer.shape_read(value, indexed=True):
            renamer.record(target.id)
            return None
        return renamer.assigned(self.state, target.id)

    def _assign(self, node: ast.Assign) -> list[Stmt]:
        plain = len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        if self._is_dsl_call(node.value, "yield_"):
            if plain and self.state.renamer is not None:
                self._renamed(node.targets[0], node)  # type: ignore[arg-type]
            return [self._yield(node.value, node, node.targets[0])]  # type: ignore[arg-type]
        value = self._value(node)
        if self.state.renamer is not None:
            self.state.renamer.unpacked(node)
        result: list[Stmt] = []
        for target in node.targets:
            if plain:
                result.append(self.assign_name(target, value, node, plain=True))  # type: ignore[arg-type]
                break
            result.extend(self._assign_target(target, value, node))
            if isinstance(target, ast.Name):
                value = self.state.variables[target.id]
        return result

    def _value(self, node: ast.Assign | ast.AnnAssign) -> Expr:
        """The assigned value; a call that is all of it is marked, with the target, while it is
        built (the parser takes allocations and launches only from there). A value of a kind
        the parser's expression reader does not take (a comprehension, `a if c else b`, a
        lambda, an f-string) is PTO199; a jit body is left to its specialiser."""
        state = self.state
        assert node.value is not None
        if type(node.value) not in _PARSED_EXPRESSIONS and not state.ctx.in_jit:
            state.error(
                "PTO199",
                f"Unsupported expression type: {type(node.value).__name__}",
                node.value,
                hint="Use supported expressions like variables, constants, operations, or function calls",
            )
        if isinstance(node.value, ast.Call):
            if isinstance(node, ast.AnnAssign):
                state.assignment = (node.value, node.target)
            elif len(node.targets) == 1:
                state.assignment = (node.value, node.targets[0])
        value = build_expr(state, node.value)
        state.assignment = None
        return value

    def _assign_target(self, target: ast.expr, value: Expr, stmt: ast.stmt) -> list[Stmt]:
        if isinstance(target, ast.Name):
            return [self.assign_name(target, value, stmt)]
        if isinstance(target, (ast.Tuple, ast.List)):
            return self._unpack(target, value, stmt)
        if isinstance(target, ast.Subscript):
            return self._subscript_write(target, value, stmt)
        self.state.error("PTO199", "Unsupported assignment target", target, hint="assign to a plain name")
        return [EvalStmt(value, self.state.span(stmt))]

    def _unpack(self, target: ast.Tuple | ast.List, value: Expr, stmt: ast.stmt) -> list[Stmt]:
        """`a, b = f(...)` -> `tmp = f(...)`, `a = tmp[0]`, `b = tmp[1]`."""
        temp = self.state.bind(self.state.new_temp("tuple"), target, value.type)
        result: list[Stmt] = [AssignStmt(temp, value, self.state.span(stmt))]
        elements = value.type.elements if isinstance(value.type, TupleType) else ()
        for index, element in enumerate(target.elts):
            if isinstance(element, ast.Starred):
                self.state.error("PTO199", "Starred assignment targets are not supported", element)
                continue
            element_type = elements[index] if index < len(elements) else UNKNOWN
            item = TupleGetItem(temp, index, element_type, self.state.span(element))
            result.extend(self._assign_target(element, item, stmt))
        return result

    def _subscript_write(self, target: ast.Subscript, value: Expr, stmt: ast.stmt) -> list[Stmt]:
        """`dst[i:j, k] = src` -> `dst = tensor.assemble(dst, src, [i, k])` (tile/array alike)."""
        state = self.state
        if state.strict_ssa:
            state.error(
                "PTO197",
                "Subscript assignment is not supported with strict_ssa=True",
                target,
                hint="write dst = pl.assemble(dst, src, offsets)",
            )
        if not isinstance(target.value, ast.Name) or target.value.id not in state.variables:
            state.error("PTO199", "Subscript assignment needs a variable on the left", target.value)
            return [EvalStmt(value, state.span(stmt))]
        dst = state.variables[target.value.id]
        kind = kind_of(state.type_of_name(target.value.id)) or "tensor"
        indices = list(target.slice.elts) if isinstance(target.slice, ast.Tuple) else [target.slice]
        offsets, _ = slice_bounds(state, indices)
        span = state.span(target)
        if kind == "array":
            op, args = "array.update_element", [dst, offsets[0], value]
        else:
            op, args = f"{kind}.assemble", [dst, value, ListExpr(offsets, UNKNOWN, span)]
        call = Call(op, args, {}, op_result_type(op, args, {}), state.span(stmt))
        return [AssignStmt(dst, call, state.span(stmt))]

    def _ann_assign(self, node: ast.AnnAssign) -> list[Stmt]:
        if node.value is None:
            return []
        if self._is_dsl_call(node.value, "yield_"):
            if isinstance(node.target, ast.Name) and self.state.renamer is not None:
                self._renamed(node.target, node)
            return [self._yield(node.value, node, node.target)]  # type: ignore[arg-type]
        value = self._value(node)
        if not isinstance(node.target, ast.Name):
            return self._assign_target(node.target, value, node)
        annotation = annotation_type(self.state, node.annotation)
        known = None if annotation == UNKNOWN else annotation
        return [self.assign_name(node.target, value, node, known, plain=True)]

    def _aug_assign(self, node: ast.AugAssign) -> list[Stmt]:
        """The parser rejects `x += v` in every DSL body, a jit body's included (the compiler
        run on it: "Unsupported statement type: AugAssign"): PTO199, and the statement built as
        `x = x + v`, so the rest of the function is analysed as the user means it."""
        name = node.target.id if isinstance(node.target, ast.Name) else "x"
        operator = OPERATORS.get(type(node.op), "+")
        self.state.error(
            "PTO199",
            "Unsupported statement type: AugAssign",
            node,
            hint=f"write it as an assignment: `{name} = {name} {operator} ...`",
        )
        if not isinstance(node.target, ast.Name) or node.target.id not in self.state.variables:
            self.state.error(
                "PTO199", "Augmented assignment needs a defined variable on the left", node.target
            )
            return []
        current = self.state.variables[node.target.id]
        value = binary(
            self.state, node, OPERATORS.get(type(node.op), "?"), current, build_expr(self.state, node.value)
        )
        return [self.assign_name(node.target, value, node)]

    # -- expression statements ---------------------------------------------------------------

    def _expr_stmt(self, node: ast.Expr) -> list[Stmt]:
        state = self.state
        value = node.value
        if isinstance(value, ast.Constant):
            return []  # docstrings and bare literals
        name = self._dsl_name(value)
        if name == "yield_":
            return [self._yield(value, node, None)]  # type: ignore[arg-type]
        if name in _COMPILE_TIME:
            return []
        if name == "func_attr":
            state.error(
                "PTO199",
                "pl.func_attr() must appear before every other statement of the function",
                node,
                hint="move the pl.func_attr(...) call to the top of the function body",
            )
            return []
        if name == "set_cache_policy":
            state.error(
                "PTO180",
                "pl.set_cache_policy() must be a standalone statement directly inside a "
                "pl.at(...) / pl.spmd(...) scope body",
                node,
                hint="move it to the top level of the pl.at(...) body that reads the tensor",
            )
            return []
        if name == "cond":
            state.error("PTO199", "pl.cond() must be the first statement of a pl.while_() loop", node)
            return []
        return [EvalStmt(build_expr(state, value), state.span(node))]

    def _dsl_name(self, node: ast.expr) -> str | None:
        if not isinstance(node, ast.Call):
            return None
        path = self.state.dsl_path(node.func)
        if path is None or path[0] != PL or len(path) != 2:
            return None
        return path[1]

    def _is_dsl_call(self, node: ast.expr, name: str) -> bool:
        func = node.func if isinstance(node, ast.Call) else None
        if isinstance(func, ast.Attribute) and func.attr != name:
            return False  # a DSL path read from `a.b.x` ends in `x`: no need to resolve it
        return self._dsl_name(node) == name

    def _yield(self, call: ast.Call, stmt: ast.stmt, target: ast.expr | None) -> YieldStmt:
        result = YieldStmt(build_exprs(self.state, call.args), self.state.span(stmt))
        if target is not None:
            self.yield_targets[id(result)] = list(target.elts) if isinstance(target, ast.Tuple) else [target]
        return result

    def trailing_yield(self, body: list[Stmt]) -> tuple[YieldStmt | None, list[ast.expr]]:
        """The yield ending `body` (runtime scopes are transparent: a yield may end the body of
        a `pl.scope()` that ends `body`) and the targets it binds in the enclosing block."""
        if body and isinstance(body[-1], ScopeStmt) and body[-1].kind is ScopeKind.Runtime:
            return self.trailing_yield(body[-1].body)
        if body and isinstance(body[-1], YieldStmt):
            return body[-1], self.yield_targets.get(id(body[-1]), [])
        return None, []

    def bind_results(self, targets: list[ast.expr], values: list[Expr], stmt: ast.stmt) -> list[Var]:
        result: list[Var] = []
        for index, target in enumerate(targets):
            if not isinstance(target, ast.Name):
                self.state.error("PTO199", "pl.yield_() results must be bound to plain names", target)
                continue
            value_type = values[index].type if index < len(values) else UNKNOWN
            self.state.note_definition(target.id, target)
            # a new variable, as the parser's `define_var` of the statement's return var: the
            # body's own binding of the name is another variable, never read after the loop
            renamer = self.state.renamer
            shown = renamer.current_name(target.id) if renamer is not None else target.id
            result.append(self.state.fresh(target.id, target, value_type, shown))
        return result

    def _return(self, node: ast.Return) -> list[Stmt]:
        if node.value is None:
            values: list[Expr] = []
        elif isinstance(node.value, ast.Tuple):
            values = build_exprs(self.state, node.value.elts)
        else:
            values = [build_expr(self.state, node.value)]
        return [ReturnStmt(values, self.state.span(node))]

    # -- control flow ----------------------------------------------------------------------

    def _if(self, node: ast.If) -> list[Stmt]:
        state = self.state
        cond = build_expr(state, node.test)
        before = set(state.defined)
        renamer = state.renamer
        if renamer is not None:
            renamer.depth += 1
            recorded = renamer.recorded()
        then_body = self.block(node.body)
        then_defined = state.defined
        state.defined = set(before)
        if renamer is not None and node.orelse:
            # the then-branch's own names are not the else-branch's (`visit_If`)
            for name in renamer.recorded() - recorded:
                renamer.forget(state, name)
        else_body = self.block(node.orelse) if node.orelse else None
        if renamer is not None:
            renamer.depth -= 1
        state.defined |= then_defined
        then_yield, targets = self.trailing_yield(then_body)
        if not targets and else_body is not None:
            then_yield, targets = self.trailing_yield(else_body)
        values = then_yield.values if then_yield is not None else []
        self._check_branch_yields(then_body, else_body)
        return_vars = self.bind_results(targets, values, node)
        return [IfStmt(cond, then_body, else_body, return_vars, state.span(node))]

    def _check_branch_yields(self, then_body: list[Stmt], else_body: list[Stmt] | None) -> None:
        """The SSA verifier's rule for an `if` with results: each branch's trailing yield
        yields one value per result, the results being the names both branches' yields bind
        (the parser's union, the then branch's first). Reported at the branch's yield."""
        if else_body is None:
            return
        yields = [self.trailing_yield(then_body), self.trailing_yield(else_body)]
        names: list[str] = []
        for _, targets in yields:
            names += [t.id for t in targets if isinstance(t, ast.Name) and t.id not in names]
        if not names:
            return
        for branch, (yield_stmt, _) in zip(("then", "else"), yields, strict=True):
            if yield_stmt is not None and len(yield_stmt.values) != len(names):
                self.state.error(
                    "PTO191",
                    f"IfStmt {branch}-branch YieldStmt value count ({len(yield_stmt.values)}) != "
                    f"return_vars count ({len(names)})",
                    yield_stmt.span,
                    hint=f"yield one value for each of {', '.join(names)} in both branches",
                )

    def _break(self, node: ast.Break | ast.Continue) -> list[Stmt]:
        word = "break" if isinstance(node, ast.Break) else "continue"
        loops = self.state.loops
        if not loops or loops[-1] not in _BREAKABLE:
            where = f"a pl.{loops[-1]}(...) loop" if loops else "a loop"
            self.state.error(
                "PTO198",
                f"'{word}' is only supported in sequential (pl.range) and while loops, not in {where}",
                node,
                hint="restructure the loop, or use pl.range for a sequential loop",
            )
        return [BreakStmt(self.state.span(node)) if word == "break" else ContinueStmt(self.state.span(node))]

    def _while(self, node: ast.While) -> list[Stmt]:
        cond = build_expr(self.state, node.test)
        body = self._loop_body("while", node.body)
        return [WhileStmt(cond, body, [], [], self.state.span(node))]

    def _loop_body(self, kind: str, nodes: list[ast.stmt]) -> list[Stmt]:
        self.state.loops.append(kind)
        try:
            return self.block(nodes)
        finally:
            self.state.loops.pop()

    def _for(self, node: ast.For) -> list[Stmt]:
        renamer = self.state.renamer
        if renamer is None:
            return self._loop(node)
        bridges = renamer.bridges(self.state, node)
        renamer.depth += 1
        try:
            return bridges + self._loop(node)
        finally:
            renamer.depth -= 1

    def _with(self, node: ast.With) -> list[Stmt]:
        renamer = self.state.renamer
        if renamer is None:
            return self.scopes.build_with(node)
        renamer.depth += 1
        try:
            return self.scopes.build_with(node)
        finally:
            renamer.depth -= 1

    def _loop(self, node: ast.For) -> list[Stmt]:
        state = self.state
        if node.orelse:
            state.error("PTO199", "for ... else is not supported", node.orelse[0])
        iterator = node.iter
        name = self._dsl_name(iterator)
        if name in LOOP_KINDS:
            return self._range_loop(node, iterator, LOOP_KINDS[name])  # type: ignore[arg-type]
        if name == "while_":
            return self._while_loop(node, iterator)  # type: ignore[arg-type]
        if name == "spmd":
            return self.scopes.build_spmd_for(node, iterator)  # type: ignore[arg-type]
        if name == "split_aiv":
            return self.scopes.build_split_aiv(node, iterator)  # type: ignore[arg-type]
        if (
            isinstance(iterator, ast.Call)
            and isinstance(iterator.func, ast.Name)
            and iterator.func.id == "range"
            and "range" not in state.variables
        ):
            return self._range_loop(node, iterator, ForKind.Range)
        if not isinstance(iterator, ast.Call) or state.dsl_path(iterator.func) is None:
            state.error(
                "PTO199",
                f"Unsupported iterator '{ast.unparse(iterator)}' in for loop",
                iterator,
                hint="iterate over pl.range(...), pl.parallel(...), pl.unroll(...) or pl.pipeline(...)",
            )
        return self._opaque_loop(node)

    def _opaque_loop(self, node: ast.For) -> list[Stmt]:
        """A loop over an iterator the front end does not model (a `pl.*` loop form it does not
        know yet is not an error, D13): sequential, with an opaque trip count that reads the
        iterator's arguments, so carries through it are still found."""
        state = self.state
        stop = build_expr(state, node.iter)
        for name in _names(node.target):
            state.bind(name.id, name, UNKNOWN)
        target = node.target if isinstance(node.target, ast.Name) else None
        loop_name = target.id if target is not None else state.new_temp("loop")
        loop_var = state.bind(loop_name, node.target, INDEX)
        body = self._loop_body(ForKind.Range.value, node.body)
        span = state.span(node.iter)
        zero, one = Const(0, INDEX, span), Const(1, INDEX, span)
        return [ForStmt(loop_var, zero, stop, one, body, ForKind.Range, span=state.span(node))]

    def _range_loop(self, node: ast.For, call: ast.Call, kind: ForKind) -> list[Stmt]:
        state = self.state
        construct = f"pl.{kind.value}()"
        bounds = self._bounds(call, kind, construct)
        init_node: ast.expr | None = None
        kwargs: dict[str, Expr] = {}
        for kw in call.keywords:
            if kw.arg == "init_values":
                init_node = kw.value
            elif kw.arg in LOOP_KEYWORDS:
                kwargs[kw.arg] = build_expr(state, kw.value)
            else:
                shown = kw.arg if kw.arg is not None else "**"
                state.error(
                    "PTO194",
                    f"Unknown keyword argument '{shown}' in {construct}",
                    kw,
                    hint="valid keywords: " + ", ".join(LOOP_KEYWORDS),
                )
        if init_node is not None and kind is ForKind.Unroll:
            state.error("PTO192", "pl.unroll() does not accept init_values=", init_node)
        self._check_stage(call, kind)
        inits = self._init_values(init_node)
        loop_target, carried = self._loop_targets(node.target, inits is not None)
        if loop_target is None:
            loop_var = state.bind(state.new_temp("loop"), node.target, INDEX)
        else:
            loop_var = state.bind(loop_target.id, loop_target, INDEX)
        iter_args, saved = self._open_iter_args(carried, inits or [], _carried_node(node.target))
        body = self._loop_body(kind.value, node.body)
        return_vars = self._close_iter_args(iter_args, saved, body, node)
        start, stop, step = bounds
        loop = ForStmt(
            loop_var, start, stop, step, body, kind, iter_args, return_vars, kwargs, state.span(node)
        )
        return [loop]

    def _bounds(self, call: ast.Call, kind: ForKind, construct: str) -> tuple[Expr, Expr, Expr]:
        state = self.state
        span = state.span(call)
        positional = call.args
        if not 1 <= len(positional) <= 3:
            where = state.span_between(positional[3], positional[-1]) if len(positional) > 3 else call
            state.error(
                "PTO193",
                f"{construct} takes 1 to 3 positional arguments (stop | start, stop | start, stop, step), "
                f"got {len(positional)}",
                where,
            )
        values = build_exprs(state, positional[:3])
        zero, one = Const(0, INDEX, span), Const(1, INDEX, span)
        bounds: tuple[Expr, Expr, Expr]
        if len(values) == 0:
            bounds = (zero, zero, one)
        elif len(values) == 1:
            bounds = (zero, values[0], one)
        elif len(values) == 2:
            bounds = (values[0], values[1], one)
        else:
            bounds = (values[0], values[1], values[2])
        if kind is ForKind.Unroll:
            self._check_unroll(positional[:3])
        return bounds

    def _check_stage(self, call: ast.Call, kind: ForKind) -> None:
        """`stage=` is required on `pl.pipeline` (a compile-time integer >= 1) and accepted
        nowhere else (the parser's rules and wording)."""
        state = self.state
        stage = next((kw.value for kw in call.keywords if kw.arg == "stage"), None)
        if kind is not ForKind.Pipeline:
            if stage is not None:
                state.error(
                    "PTO194",
                    f"stage= is only supported on pl.pipeline(), not pl.{kind.value}()",
                    stage,
                    hint="Use pl.pipeline() for software pipelining.",
                )
            return
        if stage is None:
            state.error(
                "PTO194",
                "pl.pipeline() requires stage= (positive integer)",
                call,
                hint="Use pl.pipeline(stop, stage=F).",
            )
        elif _certainly_not_constant(state, stage):
            state.error(
                "PTO194",
                "pl.pipeline() stage must be a compile-time constant integer",
                stage,
                hint="Use an integer literal: stage=4",
            )
        elif type(value := state.fold(stage)) is int and value < 1:
            state.error(
                "PTO194",
                f"pl.pipeline() stage must be >= 1, got {value}",
                stage,
                hint="Use a positive integer for stage: stage=4",
            )

    def _check_unroll(self, positional: list[ast.expr]) -> None:
        """The parser's and UnrollLoops' rules for `pl.unroll` bounds (only `pl.unroll`: the
        other loop kinds accept any step, zero included)."""
        state = self.state
        for node in positional:
            if _certainly_not_constant(state, node):
                state.error("PTO192", "pl.unroll() bounds must be compile-time integer literals", node)
        values = [state.fold(node) for node in positional]
        if not all(type(v) is int for v in values):
            return
        start, stop, step = (0, values[0], 1) if len(values) == 1 else (*values, 1)[:3]
        assert isinstance(start, int) and isinstance(stop, int) and isinstance(step, int)
        if step == 0:
            state.error(
                "PTO192",
                "pl.unroll() step cannot be zero",
                positional[2],
                hint="Use a non-zero step in pl.unroll(start, stop, step).",
            )
            return
        trips = max(0, -((start - stop) // step)) if step > 0 else max(0, -((stop - start) // -step))
        if trips > MAX_UNROLL_ITERATIONS:
            state.error(
                "PTO192",
                f"Unroll loop trip count {trips} exceeds maximum allowed ({MAX_UNROLL_ITERATIONS}). "
                "Reduce the loop range or use pl.range() instead",
                state.span_between(positional[0], positional[-1]),
                hint="use pl.range() for long loops; pl.unroll() copies the body once per iteration",
            )

    def _init_values(self, node: ast.expr | None) -> list[Expr] | None:
        if node is None:
            return None
        if not isinstance(node, (ast.List, ast.Tuple)):
            self.state.error(
                "PTO195",
                "init_values must be a list or tuple",
                node,
                hint="write init_values=(a, b)",
            )
            return [build_expr(self.state, node)]
        return build_exprs(self.state, node.elts)

    def _loop_targets(self, target: ast.expr, with_inits: bool) -> tuple[ast.Name | None, list[ast.Name]]:
        """`i` or, with init_values, `i, (c1, c2)`."""
        if not with_inits:
            if isinstance(target, ast.Name):
                return target, []
            self.state.error("PTO190", "for-loop target must be a single variable", target)
            return None, []
        if (
            isinstance(target, ast.Tuple)
            and len(target.elts) == 2
            and isinstance(target.elts[0], ast.Name)
            and isinstance(target.elts[1], (ast.Tuple, ast.List))
            and all(isinstance(e, ast.Name) for e in target.elts[1].elts)
        ):
            return target.elts[0], list(target.elts[1].elts)  # type: ignore[arg-type]
        self.state.error(
            "PTO190",
            "a loop with init_values= must use the target form `i, (c1, c2, ...)`",
            target,
            hint="write `for i, (acc,) in pl.range(n, init_values=(acc0,)):`",
        )
        return None, []

    def _open_iter_args(
        self, names: list[ast.Name], inits: list[Expr], where: ast.expr
    ) -> tuple[list[IterArg], dict[str, Var | None]]:
        """Bind the carried names to fresh `IterArg`s for the loop body; returns what they
        shadowed so `_close_iter_args` can restore it. A count mismatch leaves an `IterArg`
        without `init`, which also tells `_close_iter_args` not to report the yield count."""
        state = self.state
        if names and len(names) != len(inits):
            state.error(
                "PTO191",
                f"Mismatch: {len(names)} iter_args but {len(inits)} init_values",
                where,
            )
        iter_args: list[IterArg] = []
        saved: dict[str, Var | None] = {}
        for index, name in enumerate(names):
            init = inits[index] if index < len(inits) else None
            arg_type = init.type if init is not None else UNKNOWN
            iter_arg = state.new_iter_arg(name.id, arg_type, state.span(name), init)
            saved.setdefault(name.id, state.variables.get(name.id))
            state.variables[name.id] = iter_arg
            state.current_types[name.id] = arg_type
            iter_args.append(iter_arg)
        return iter_args, saved

    def _close_iter_args(
        self, iter_args: list[IterArg], saved: dict[str, Var | None], body: list[Stmt], node: ast.stmt
    ) -> list[Var]:
        state = self.state
        for name, previous in saved.items():
            if previous is None:
                state.variables.pop(name, None)
                state.current_types.pop(name, None)
            else:
                state.variables[name] = previous
                state.current_types[name] = previous.type
        final_yield, targets = self.trailing_yield(body)
        if iter_args and final_yield is None:
            state.error(
                "PTO191",
                "a loop with init_values= must end with `r1, r2 = pl.yield_(v1, v2)`",
                node.iter if isinstance(node, ast.For) else node,  # type: ignore[arg-type]
                hint="add the yield of the carried values as the last statement of the body",
            )
        elif (
            iter_args
            and final_yield is not None
            and len(final_yield.values) != len(iter_args)
            and all(arg.init is not None for arg in iter_args)
        ):
            state.error(
                "PTO191",
                f"Mismatch: {len(iter_args)} iter_args but pl.yield_() yields "
                f"{len(final_yield.values)} values",
                final_yield.span,
            )
        values = final_yield.values if final_yield is not None else []
        return self.bind_results(targets, values, node)

    def _while_loop(self, node: ast.For, call: ast.Call) -> list[Stmt]:
        """`for (x,) in pl.while_(init_values=(...)):` with `pl.cond(c)` first."""
        state = self.state
        init_node = None
        for kw in call.keywords:
            if kw.arg == "init_values":
                init_node = kw.value
            else:
                shown = kw.arg if kw.arg is not None else "**"
                state.error("PTO194", f"Unknown keyword argument '{shown}' in pl.while_()", kw)
        inits = self._init_values(init_node) or []
        target = node.target
        names: list[ast.Name] = []
        if isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in target.elts):
            names = list(target.elts)  # type: ignore[arg-type]
        else:
            state.error("PTO190", "a pl.while_() loop target must be a tuple of names `(x, y)`", target)
        iter_args, saved = self._open_iter_args(names, inits, node.target)
        statements = node.body
        cond: Expr = Const(True, UNKNOWN, state.span(call))
        first = statements[0] if statements else None
        if isinstance(first, ast.Expr) and self._is_dsl_call(first.value, "cond"):
            cond_call = first.value
            assert isinstance(cond_call, ast.Call)
            cond = build_expr(state, cond_call.args[0]) if cond_call.args else cond
            statements = statements[1:]
        else:
            state.error(
                "PTO199",
                "a pl.while_() loop body must start with pl.cond(<condition>)",
                first or node,
                hint="add `pl.cond(x < n)` as the first statement",
            )
        body = self._loop_body("while", statements)
        return_vars = self._close_iter_args(iter_args, saved, body, node)
        return [WhileStmt(cond, body, iter_args, return_vars, state.span(node))]


_HANDLERS: dict[type, Callable[[StmtBuilder, Any], list[Stmt]]] = {
    ast.Assign: StmtBuilder._assign,
    ast.AnnAssign: StmtBuilder._ann_assign,
    ast.AugAssign: StmtBuilder._aug_assign,
    ast.Expr: StmtBuilder._expr_stmt,
    ast.Return: StmtBuilder._return,
    ast.If: StmtBuilder._if,
    ast.For: StmtBuilder._for,
    ast.While: StmtBuilder._while,
    ast.With: StmtBuilder._with,
    ast.Break: StmtBuilder._break,
    ast.Continue: StmtBuilder._break,
    ast.Pass: lambda builder, node: [],
}
"""How `StmtBuilder.stmt` builds each kind of statement: a table of the class's functions, not
of each builder's bound methods, which made every builder a reference cycle that held the IR
it built until a full collection (issue 20)."""


# the expression kinds the parser's `parse_expression` reads; it rejects every other kind
_PARSED_EXPRESSIONS = frozenset(
    {
        ast.Name,
        ast.Constant,
        ast.BinOp,
        ast.Compare,
        ast.Call,
        ast.Attribute,
        ast.UnaryOp,
        ast.List,
        ast.Tuple,
        ast.Subscript,
        ast.BoolOp,
    }
)


def _names(target: ast.expr) -> list[ast.Name]:
    return [node for node in ast.walk(target) if isinstance(node, ast.Name)]


def _carried_node(target: ast.expr) -> ast.expr:
    """The `(c1, c2)` part of an `i, (c1, c2)` loop target (the target itself otherwise)."""
    if isinstance(target, ast.Tuple) and len(target.elts) == 2:
        return target.elts[1]
    return target


def _certainly_not_constant(state: BodyState, node: ast.expr) -> bool:
    """A bound we cannot fold is only wrong when it reads a runtime value (a parameter, a local,
    a dynamic symbol) or folds to a non-integer: names imported from another module, or
    attributes of imported objects, are constants to the compiler, which evaluates them."""
    value = state.fold(node)
    if value is not None:
        return not isinstance(value, int)
    runtime = state.variables.keys() | state.ctx.module.dynamic_symbols.keys()
    return any(isinstance(n, ast.Name) and n.id in runtime for n in ast.walk(node))
