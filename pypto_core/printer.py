"""The IR as DSL text: what "show the IR after a pass" displays, and what parses back to itself.

The output is `pypto.language` source in the compiler printer's shape: SSA loops print their
iter_args as `for i, (a,) in pl.range(n, init_values=(x,))` with a trailing
`r = pl.yield_(v)`, scopes print as the `with` forms that build them, calls print fully
qualified (`pl.tile.store`, `self.kernel`), and call attributes print as a trailing
`attrs={...}`. Printing, parsing the text and printing again gives the same text (tested).

`print_expr(..., display=True)`, `print_function(..., display=True)` and `format_type` are the
user-facing forms: names for people (D11, `display_names`) and types without the `pl.` prefix.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from enum import Enum
from functools import lru_cache
from typing import Any

from . import ir
from .display_names import display_names

INDENT = "    "

# Python operator precedence, loosest first; unary operators sit between `*` and `**`.
_BINARY_PRECEDENCE = {
    "or": 1,
    "and": 2,
    **dict.fromkeys(("==", "!=", "<", "<=", ">", ">=", "in", "not in", "is", "is not"), 4),
    "|": 5,
    "^": 6,
    "&": 7,
    "<<": 8,
    ">>": 8,
    "+": 9,
    "-": 9,
    "*": 10,
    "/": 10,
    "//": 10,
    "%": 10,
    "@": 10,
    "**": 12,
}
_SUBMIT_KEYWORDS = ("core_num", "sync_start", "predicate")
_NOT_PRECEDENCE = 3
_UNARY_PRECEDENCE = 11
_ATOM = 100
_COMPARISON = 4


# ---------------------------------------------------------------------------------------------
# Types


def _dim(d: ir.Dim) -> str:
    return str(d)


def _shape(shape: tuple[ir.Dim, ...]) -> str:
    return "[" + ", ".join(_dim(d) for d in shape) + "]"


def _render_type(t: ir.Type, pl: str, distributed: bool = False) -> str:
    if isinstance(t, (ir.TensorType, ir.TileType)):
        head = f"{pl}Tensor" if isinstance(t, ir.TensorType) else f"{pl}Tile"
        head = "DistributedTensor" if distributed else head
        parts = []
        if t.shape is not None:
            parts.append(_shape(t.shape))
        if t.dtype is not None:
            parts.append(pl + t.dtype)
        if isinstance(t, ir.TensorType) and t.layout is not None:
            parts.append(pl + t.layout)
        return f"{head}[{', '.join(parts)}]" if parts else head
    if isinstance(t, ir.ScalarType):
        return f"{pl}Scalar[{pl}{t.dtype}]"
    if isinstance(t, ir.ArrayType):
        return f"{pl}Array[{_dim(t.size)}, {pl}{t.dtype}]"
    if isinstance(t, ir.TupleType):
        return f"{pl}Tuple[{', '.join(_render_type(e, pl) for e in t.elements)}]"
    if isinstance(t, ir.HandleType):
        return pl + t.name
    return "Unknown"


def format_type(t: ir.Type) -> str:
    """The user-facing type: `Tensor[[64], FP32]`, `Scalar[INDEX]` (no `pl.` prefix), and a
    window-bound tensor as the compiler types it, `DistributedTensor[[2, 1], INT32]` (whether
    a tensor is window-bound is no part of its type's value, so it is part of the key)."""
    return _format_type(t, isinstance(t, ir.TensorType) and t.distributed is True)


@lru_cache(maxsize=1024)
def _format_type(t: ir.Type, distributed: bool) -> str:
    """Types are frozen values and a file uses few of them: each is rendered once."""
    return _render_type(t, "", distributed)


@lru_cache(maxsize=1024)
def print_type(t: ir.Type) -> str:
    """The DSL annotation: `pl.Tensor[[64], pl.FP32]` (cached like `format_type`)."""
    return _render_type(t, "pl.")


def _is_known(t: ir.Type | None) -> bool:
    return t is not None and not isinstance(t, ir.UnknownType)


# ---------------------------------------------------------------------------------------------
# Expressions


def _string(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _literal(v: object) -> str:
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, float):
        text = repr(v)
        return text if text not in ("inf", "-inf", "nan") else f'float("{text}")'
    return repr(v)


def _const(c: ir.Const) -> str:
    """A literal; a number whose dtype is not the one a bare literal gets (`INDEX` for ints,
    `FP32` for floats) prints as `pl.const(v, pl.DTYPE)` so the dtype survives a reparse."""
    v = c.value
    if isinstance(v, (int, float)) and not isinstance(v, bool) and isinstance(c.type, ir.ScalarType):
        default = "INDEX" if isinstance(v, int) else "FP32"
        if c.type.dtype != default:
            return f"pl.const({_literal(v)}, pl.{c.type.dtype})"
    return _literal(v)


@dataclass(frozen=True)
class _ExprPrinter:
    display: bool
    subscript_reads: bool = False  # `t[i, j]` for a tensor.read (the only form predicate= takes)
    names: Mapping[str, str] | None = None  # IR name -> shown name (`display_names`), if given

    def name(self, v: ir.Var) -> str:
        if self.names is not None:
            return self.names.get(v.name, v.base_name)
        return v.base_name if self.display else v.name

    def names_of(self, vs: list[ir.Var]) -> str:
        return ", ".join(self.name(v) for v in vs)

    def render(self, e: ir.Expr) -> tuple[str, int]:
        """The text of `e` and its precedence (how tightly it binds)."""
        if isinstance(e, ir.Var):
            return self.name(e), _ATOM
        if isinstance(e, ir.Const):
            text = _const(e)
            negative = isinstance(e.value, (int, float)) and not isinstance(e.value, bool) and e.value < 0
            return text, _UNARY_PRECEDENCE if negative else _ATOM
        if isinstance(e, ir.BinaryExpr):
            return self.binary(e)
        if isinstance(e, ir.UnaryExpr):
            return self.unary(e)
        if isinstance(e, ir.Call):
            return self.call(e), _ATOM
        if isinstance(e, ir.TupleExpr):
            return self.tuple_text(e.items), _ATOM
        if isinstance(e, ir.ListExpr):
            return "[" + ", ".join([self.text(i) for i in e.items]) + "]", _ATOM
        if isinstance(e, ir.TupleGetItem):
            return f"{self.operand(e.tuple, _ATOM)}[{e.index}]", _ATOM
        if isinstance(e, ir.EnumValue):
            return (f"pl.{e.enum}.{e.member}" if e.enum else f"pl.{e.member}"), _ATOM
        if isinstance(e, ir.OpaqueExpr):
            return f"({e.text})", _ATOM
        return "None", _ATOM

    def text(self, e: ir.Expr) -> str:
        if isinstance(e, ir.Var):  # most operands: skip building a (text, precedence) pair
            return self.name(e)
        return self.render(e)[0]

    def operand(self, e: ir.Expr, minimum: int) -> str:
        """`e`, parenthesised unless it binds at least as tightly as `minimum`."""
        text, precedence = self.render(e)
        return text if precedence >= minimum else f"({text})"

    def binary(self, e: ir.BinaryExpr) -> tuple[str, int]:
        p = _BINARY_PRECEDENCE.get(e.op, _COMPARISON)
        if e.op == "**":
            left_min, right_min = p + 1, _UNARY_PRECEDENCE
        elif p == _COMPARISON:
            left_min = right_min = p + 1  # comparisons chain in Python: never print a chain
        else:
            left_min, right_min = p, p + 1
        return f"{self.operand(e.left, left_min)} {e.op} {self.operand(e.right, right_min)}", p

    def unary(self, e: ir.UnaryExpr) -> tuple[str, int]:
        if e.op == "cast":
            return f"pl.cast({self.text(e.operand)}, pl.{e.cast_dtype})", _ATOM
        if e.op == "not":
            return f"not {self.operand(e.operand, _NOT_PRECEDENCE)}", _NOT_PRECEDENCE
        return f"{e.op}{self.operand(e.operand, _UNARY_PRECEDENCE)}", _UNARY_PRECEDENCE

    def tuple_text(self, items: list[ir.Expr]) -> str:
        if len(items) == 1:
            return f"({self.text(items[0])},)"
        return "(" + ", ".join([self.text(i) for i in items]) + ")"

    def call(self, c: ir.Call) -> str:
        if self.subscript_reads and c.op == "tensor.read" and len(c.args) == 2 and not c.kwargs:
            index = c.args[1]
            items = index.items if isinstance(index, (ir.ListExpr, ir.TupleExpr)) else [index]
            return f"{self.operand(c.args[0], _ATOM)}[{', '.join(self.text(i) for i in items)}]"
        kwargs: dict[str, Any] = dict(c.kwargs)
        attrs = dict(c.attrs)
        if c.submit:
            # A launch's spec is written as `pl.spmd_submit(..., core_num=N, sync_start=True)` /
            # `predicate=`, whether the front end or an outliner stored it.
            for key in _SUBMIT_KEYWORDS:
                if key in attrs:
                    kwargs.setdefault(key, attrs.pop(key))
            if kwargs.get("sync_start") is False:
                del kwargs["sync_start"]
        args = [self.text(a) for a in c.args]
        args += [f"{k}={self.value(v)}" for k, v in kwargs.items()]
        if attrs:
            args.append(f"attrs={self.value(attrs)}")
        if c.submit:
            launcher = "pl.spmd_submit" if "core_num" in kwargs else "pl.submit"
            return f"{launcher}({', '.join([f'self.{c.callee}', *args])})"
        if c.callee is not None:
            return f"self.{c.callee}({', '.join(args)})"
        return f"{_op_path(c.op)}({', '.join(args)})"

    def value(self, v: Any) -> str:
        """An attribute value (function or call attrs) as a Python literal."""
        if isinstance(v, bool) or v is None:
            return repr(v)
        if isinstance(v, Enum):
            return f"pl.{type(v).__name__}.{v.name}"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, str):
            return _string(v)
        if isinstance(v, list):
            return "[" + ", ".join(self.value(x) for x in v) + "]"
        if isinstance(v, tuple):
            inner = ", ".join(self.value(x) for x in v)
            return f"({inner},)" if len(v) == 1 else f"({inner})"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{self.value(k)}: {self.value(x)}" for k, x in v.items()) + "}"
        return self.text(v)


def _op_path(op: str) -> str:
    """`tile.store` -> `pl.tile.store`; `pld.tensor.put` -> `pld.tensor.put`."""
    return op if op.startswith("pld.") else f"pl.{op}"


def print_expr(e: ir.Expr, *, display: bool = False) -> str:
    """`display=True` shows variables by their user names (`out`, not `out__ssa_v1`)."""
    return (_DISPLAY if display else _PLAIN).text(e)


# ---------------------------------------------------------------------------------------------
# Statements

_PLAIN = _ExprPrinter(display=False)
_DISPLAY = _ExprPrinter(display=True)


def _is_placeholder_for(s: ir.Stmt, nxt: ir.Stmt | None) -> bool:
    """The parser's `tid = system.task_invalid()` before a scope `as tid`: printed by the
    scope's `as` clause instead."""
    return (
        isinstance(s, ir.AssignStmt)
        and isinstance(s.value, ir.Call)
        and s.value.op == "system.task_invalid"
        and isinstance(nxt, ir.ScopeStmt)
        and nxt.task_id_var is s.target
    )


def _subblock_binding(body: list[ir.Stmt]) -> ir.Var | None:
    """The `aiv_id = tile.get_subblock_idx()` the parser puts first in a split_aiv region."""
    first = body[0] if body else None
    if isinstance(first, ir.AssignStmt) and isinstance(first.value, ir.Call):
        return first.target if first.value.op == "tile.get_subblock_idx" else None
    return None


class _StmtPrinter:
    def __init__(self, x: _ExprPrinter = _PLAIN) -> None:
        self.lines: list[str] = []
        self.x = x  # how expressions, and every variable name, are printed

    def emit(self, indent: int, text: str) -> None:
        self.lines.append(INDENT * indent + text)

    def block(self, stmts: list[ir.Stmt], indent: int, yield_targets: list[ir.Var]) -> None:
        start = len(self.lines)
        for i, s in enumerate(stmts):
            nxt = stmts[i + 1] if i + 1 < len(stmts) else None
            if not _is_placeholder_for(s, nxt):
                self.stmt(s, indent, yield_targets)
        if len(self.lines) == start:
            self.emit(indent, "pass")

    def stmt(self, s: ir.Stmt, indent: int, yield_targets: list[ir.Var]) -> None:
        x = self.x
        if isinstance(s, ir.AssignStmt):
            annotation = f": {print_type(s.annotation)}" if s.annotation and _is_known(s.annotation) else ""
            self.emit(indent, f"{x.name(s.target)}{annotation} = {x.text(s.value)}")
        elif isinstance(s, ir.EvalStmt):
            self.emit(indent, x.text(s.expr))
        elif isinstance(s, ir.ReturnStmt):
            values = ", ".join(x.text(v) for v in s.values)
            self.emit(indent, f"return {values}" if values else "return")
        elif isinstance(s, ir.YieldStmt):
            call = f"pl.yield_({', '.join(x.text(v) for v in s.values)})"
            self.emit(indent, f"{x.names_of(yield_targets)} = {call}" if yield_targets else call)
        elif isinstance(s, ir.BreakStmt):
            self.emit(indent, "break")
        elif isinstance(s, ir.ContinueStmt):
            self.emit(indent, "continue")
        elif isinstance(s, ir.ForStmt):
            self.for_stmt(s, indent)
        elif isinstance(s, ir.WhileStmt):
            self.while_stmt(s, indent)
        elif isinstance(s, ir.IfStmt):
            self.emit(indent, f"if {x.text(s.cond)}:")
            self.block(s.then_body, indent + 1, s.return_vars)
            if s.else_body is not None:
                self.emit(indent, "else:")
                self.block(s.else_body, indent + 1, s.return_vars)
        elif isinstance(s, ir.ScopeStmt):
            self.scope(s, indent, yield_targets)

    def for_stmt(self, s: ir.ForStmt, indent: int) -> None:
        x = self.x
        target = x.name(s.loop_var)
        if s.iter_args:
            target += f", {x.tuple_text(list(s.iter_args))}"
        args = _range_args(x, s.start, s.stop, s.step)
        args += [f"{k}={x.text(v)}" for k, v in s.kwargs.items()]
        if s.iter_args:
            args.append(f"init_values={_init_values(x, s.iter_args)}")
        self.emit(indent, f"for {target} in pl.{s.kind.value}({', '.join(args)}):")
        self.block(s.body, indent + 1, s.return_vars)

    def while_stmt(self, s: ir.WhileStmt, indent: int) -> None:
        x = self.x
        if not s.iter_args:
            self.emit(indent, f"while {x.text(s.cond)}:")
            self.block(s.body, indent + 1, s.return_vars)
            return
        target = x.tuple_text(list(s.iter_args))
        self.emit(indent, f"for {target} in pl.while_(init_values={_init_values(x, s.iter_args)}):")
        self.emit(indent + 1, f"pl.cond({x.text(s.cond)})")
        self.block(s.body, indent + 1, s.return_vars)

    def scope(self, s: ir.ScopeStmt, indent: int, yield_targets: list[ir.Var]) -> None:
        region = _wrapped_split_aiv(s)
        if region is not None:  # the parser adds this wrapper itself
            self.scope(region, indent, yield_targets)
            return
        body = s.body
        if s.kind is ir.ScopeKind.SplitAiv:
            var = _subblock_binding(body)
            body = body[1:] if var is not None else body
            mode = f", mode=pl.SplitMode.{s.split.value}" if s.split is not None else ""
            self.emit(indent, f"for {self.x.name(var) if var else '_'} in pl.split_aiv(2{mode}):")
        else:
            alias = f" as {self.x.name(s.task_id_var)}" if s.task_id_var is not None else ""
            self.emit(indent, f"with {_scope_header(self.x, s)}{alias}:")
        for decl in s.cache_policies:
            policy = f"pl.CachePolicy.{decl.policy.value}"
            self.emit(indent + 1, f"pl.set_cache_policy({self.x.name(decl.var)}, {policy})")
        if s.cache_policies and not body:
            return
        self.block(body, indent + 1, yield_targets)


_BARE_INCORE = ir.ScopeStmt(ir.ScopeKind.InCore, [])


def _wrapped_split_aiv(s: ir.ScopeStmt) -> ir.ScopeStmt | None:
    """The split_aiv region inside the unnamed InCore scope (no level written) the parser puts
    around a region that sits outside any InCore context."""
    region = s.body[0] if len(s.body) == 1 else None
    if s.kind is not ir.ScopeKind.InCore or s.level is not None or not isinstance(region, ir.ScopeStmt):
        return None
    plain = all(
        getattr(s, f.name) == getattr(_BARE_INCORE, f.name)
        for f in fields(s)
        if f.name not in ("kind", "body", "shown_names") and not f.name.endswith("span")
    )
    return region if plain and region.kind is ir.ScopeKind.SplitAiv else None


def _range_args(x: _ExprPrinter, start: ir.Expr, stop: ir.Expr, step: ir.Expr) -> list[str]:
    def is_int(e: ir.Expr, n: int) -> bool:
        return isinstance(e, ir.Const) and type(e.value) is int and e.value == n

    if is_int(step, 1):
        return [x.text(stop)] if is_int(start, 0) else [x.text(start), x.text(stop)]
    return [x.text(start), x.text(stop), x.text(step)]


def _init_values(x: _ExprPrinter, iter_args: list[ir.IterArg]) -> str:
    return x.tuple_text([ia.init if ia.init is not None else ir.Const(None) for ia in iter_args])


def _scope_header(x: _ExprPrinter, s: ir.ScopeStmt) -> str:
    """The call that builds the scope: `pl.at(...)`, `pl.cluster(...)`, `pl.graph("n")`, ..."""
    kind = s.kind
    if kind is ir.ScopeKind.Graph:
        return f"pl.graph({_string(s.name_hint)})"
    if kind is ir.ScopeKind.Runtime:
        return "pl.scope(mode=pl.ScopeMode.MANUAL)" if s.runtime_mode == "MANUAL" else "pl.scope()"
    name = [f"name_hint={_string(s.name_hint)}"] if s.name_hint else []
    if kind is ir.ScopeKind.Cluster:
        return f"pl.cluster({', '.join(name)})"
    launch = _launch_options(x, s)
    if kind is ir.ScopeKind.Spmd:
        core_num = x.text(s.core_num) if s.core_num is not None else "1"
        sync = ["sync_start=True"] if s.sync_start else []
        return f"pl.spmd({', '.join([core_num, *sync, *launch, *name])})"
    level = ir.Level.CORE_GROUP if kind is ir.ScopeKind.InCore else (s.level or ir.Level.CORE_GROUP)
    head = [f"level=pl.Level.{level.value}"]
    if s.role is not None:
        head.append(f"role=pl.Role.{s.role.value}")
    optimizations = []
    if s.split is not None:
        optimizations.append(f"pl.split(pl.SplitMode.{s.split.value})")
    if s.slot_num is not None:
        optimizations.append(f"pl.cross_core_slot(slot_num={s.slot_num})")
    if optimizations:
        head.append(f"optimizations=[{', '.join(optimizations)}]")
    tail = ["windowize=True"] if s.windowize else []
    return f"pl.at({', '.join([*head, *launch, *name, *tail])})"


def _launch_options(x: _ExprPrinter, s: ir.ScopeStmt) -> list[str]:
    options = []
    if s.deps:
        options.append(f"deps=[{', '.join(x.text(d) for d in s.deps)}]")
    if s.no_dep_args:
        options.append(f"no_dep_args=[{x.names_of(s.no_dep_args)}]")
    if s.dump_vars:
        options.append(f"dumps=[{x.names_of(s.dump_vars)}]")
    if s.allow_early_resolve:
        options.append("allow_early_resolve=True")
    if s.predicate is not None:
        predicate = replace(x, subscript_reads=True).operand(s.predicate, _ATOM)
        options.append(f"predicate={predicate}")
    return options


def print_stmt(s: ir.Stmt, indent: int = 0) -> str:
    """One statement (a compound one with its body). A bare yield prints as `pl.yield_(...)`."""
    printer = _StmtPrinter()
    printer.stmt(s, indent, [])
    return "\n".join(printer.lines)


# ---------------------------------------------------------------------------------------------
# Functions and programs


def _decorator(fn: ir.Function) -> str:
    options = []
    if fn.type is not ir.FunctionType.Opaque:
        options.append(f"type=pl.FunctionType.{fn.type.value}")
    if fn.level is not None:
        options.append(f"level=pl.Level.{fn.level.value}")
    if fn.role is not None:
        options.append(f"role=pl.Role.{fn.role.value}")
    if fn.strict_ssa:
        options.append("strict_ssa=True")
    if _has_auto_runtime_scope(fn.body):
        options.append("auto_scope=False")  # only then may the author place AUTO scopes
    if fn.attrs:
        options.append(f"attrs={_PLAIN.value(fn.attrs)}")
    return f"@pl.function({', '.join(options)})" if options else "@pl.function"


def _has_auto_runtime_scope(stmts: list[ir.Stmt]) -> bool:
    """Whether the body holds a hand-placed AUTO `pl.scope()`, which the function can only have
    with `auto_scope=False` (the IR keeps no other trace of that flag)."""
    for s in stmts:
        if isinstance(s, ir.ScopeStmt) and s.kind is ir.ScopeKind.Runtime and s.runtime_mode != "MANUAL":
            return True
        blocks = (
            [s.then_body, s.else_body or []]
            if isinstance(s, ir.IfStmt)
            else [s.body]
            if isinstance(s, (ir.ForStmt, ir.WhileStmt, ir.ScopeStmt))
            else []
        )
        if any(_has_auto_runtime_scope(b) for b in blocks):
            return True
    return False


def _param(x: _ExprPrinter, p: ir.Param) -> str:
    if not _is_known(p.var.type):
        return x.name(p.var)
    annotation = print_type(p.var.type)
    if p.direction is not ir.Direction.In:
        annotation = f"pl.{p.direction.value}[{annotation}]"
    return f"{x.name(p.var)}: {annotation}"


def _returns(types: list[ir.Type]) -> str:
    if not types:
        return ""
    if len(types) == 1:
        return f" -> {print_type(types[0])}"
    return f" -> tuple[{', '.join(print_type(t) for t in types)}]"


def _function_lines(fn: ir.Function, indent: int, display: bool) -> list[str]:
    x = _ExprPrinter(display=True, names=display_names(fn)) if display else _PLAIN
    params = ", ".join(["self", *(_param(x, p) for p in fn.params)])
    printer = _StmtPrinter(x)
    printer.emit(indent, _decorator(fn))
    printer.emit(indent, f"def {fn.name}({params}){_returns(fn.return_types)}:")
    printer.block(fn.body, indent + 1, [])
    return printer.lines


def print_function(fn: ir.Function, *, display: bool = False) -> str:
    """The function as DSL; `display=True` names its variables for people (`display_names`):
    what hovers and the Outlined Program show. The default, raw IR names, parses back to
    the same IR."""
    return "\n".join(_function_lines(fn, 0, display))


def print_program(p: ir.Program, *, display: bool = False, order: Sequence[str] | None = None) -> str:
    """`@pl.program class P:` with every function, in the program's (name-sorted) order, or in
    `order` (function names; functions it leaves out follow in program order)."""
    functions = list(p.functions)
    if order is not None:
        rank = {name: i for i, name in enumerate(order)}
        functions.sort(key=lambda fn: rank.get(fn.name, len(rank)))
    return program_text(p.name, [print_method(fn, display=display) for fn in functions])


def print_method(fn: ir.Function, *, display: bool = False) -> str:
    """The function as `print_function` prints it, indented as a method of its program class."""
    return "\n".join(_function_lines(fn, 1, display))


def program_text(name: str, methods: Sequence[str]) -> str:
    """`@pl.program class <name>:` around functions printed by `print_method`."""
    body = "\n\n".join(methods) if methods else INDENT + "pass"
    return f"@pl.program\nclass {name}:\n{body}\n"
