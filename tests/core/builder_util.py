"""Drive the function-body builder directly, without the module front end.

`build(members)` wraps the given methods in `@pl.program class P:`, reads each method's
`@pl.function(type=..., strict_ssa=...)` itself, registers every method as a callee and builds
the bodies. `dump(stmts)` renders statements as short indented lines so tests can compare IR
shapes at a glance. Markers (tests/markers.py) in the members text are resolved on the wrapped
text, so their positions are the positions the builder reports.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, field

from pypto_core import ir
from pypto_core.diagnostics import Diagnostic
from pypto_core.frontend.builder import build_function, read_signature
from pypto_core.frontend.context import CalleeSignature, FunctionContext, ModuleContext
from pypto_core.frontend.decorators import FunctionHeader
from pypto_core.span import NO_SPAN

from markers import Marked, extract

# Shorthands for the types most test sources use.
ABBREVIATIONS = {
    "OUT64": "pl.Out[pl.Tensor[ [64, 64], pl.FP32] ]",
    "T64": "pl.Tensor[ [64, 64], pl.FP32]",
    "TILE64": "pl.Tile[ [64, 64], pl.FP32]",
}


@dataclass
class Built:
    marked: Marked
    functions: dict[str, ir.Function]
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def fn(self, name: str = "main") -> ir.Function:
        return self.functions[name]

    @property
    def codes(self) -> list[str]:
        return [d.code for d in self.diagnostics]

    def only(self, code: str) -> Diagnostic:
        found = [d for d in self.diagnostics if d.code == code]
        assert len(found) == 1, [(d.code, d.message) for d in self.diagnostics]
        return found[0]

    def body(self, name: str = "main") -> list[str]:
        return dump(self.fn(name).body)

    def scopes(self, name: str = "main") -> list[ir.ScopeStmt]:
        """Every scope of the function, outermost first, in source order."""
        return [s for s in walk(self.fn(name).body) if isinstance(s, ir.ScopeStmt)]


def build(
    members: str,
    *,
    constants: dict[str, int | float | str | bool] | None = None,
    dynamic: set[str] | None = None,
    program_kwargs: str = "",
    in_jit: bool = False,
) -> Built:
    """`in_jit=True` reads the methods as the functions of a jit module: plain-name calls of
    one another are program-function calls."""
    body = textwrap.indent(textwrap.dedent(members).strip("\n"), "    ")
    for short, spelled in ABBREVIATIONS.items():
        body = body.replace(short, spelled)
    text = f"@pl.program{program_kwargs}\nclass P:\n{body}"
    marked = extract(text + "\n", dedent=False)
    tree = ast.parse(marked.text)
    cls = next(node for node in tree.body if isinstance(node, ast.ClassDef))
    module = ModuleContext(pl_names={"pl"}, pld_names={"pld"}, constants=dict(constants or {}))
    module.dynamic_symbols = {name: name for name in dynamic or ()}
    lines = marked.text.splitlines()
    methods = [node for node in cls.body if isinstance(node, ast.FunctionDef)]
    callees: dict[str, CalleeSignature] = {}
    starts = []
    for node in methods:
        header = _header(node, strict="strict_ssa=True" in program_kwargs)
        ctx = FunctionContext(module, lines, 0, callees=callees, in_jit=in_jit)
        start = read_signature(node, ctx, is_method=True, header=header)
        starts.append(start)
        callees[node.name] = CalleeSignature(
            node.name,
            header.type,
            tuple(p.var.name for p in start.params),
            tuple(p.direction for p in start.params),
            tuple(start.return_types),
        )
    result = Built(marked, {})
    for start in starts:
        result.functions[start.node.name] = build_function(start)
        result.diagnostics += start.state.ctx.diagnostics
    return result


def _header(node: ast.FunctionDef, *, strict: bool) -> FunctionHeader:
    function_type = ir.FunctionType.Opaque
    for decorator in node.decorator_list:
        if not isinstance(decorator, ast.Call):
            continue
        for kw in decorator.keywords:
            if kw.arg == "type" and isinstance(kw.value, ast.Attribute):
                function_type = ir.FunctionType(kw.value.attr)
            elif kw.arg == "strict_ssa" and isinstance(kw.value, ast.Constant):
                strict = bool(kw.value.value)
    return FunctionHeader(function_type, None, None, strict, {}, NO_SPAN)


def walk(stmts: list[ir.Stmt]) -> list[ir.Stmt]:
    found: list[ir.Stmt] = []
    for stmt in stmts:
        found.append(stmt)
        for block in _blocks(stmt):
            found += walk(block)
    return found


def _blocks(stmt: ir.Stmt) -> list[list[ir.Stmt]]:
    if isinstance(stmt, (ir.ForStmt, ir.WhileStmt, ir.ScopeStmt)):
        return [stmt.body]
    if isinstance(stmt, ir.IfStmt):
        return [stmt.then_body, stmt.else_body or []]
    return []


# -- rendering ---------------------------------------------------------------------------------


def dump(stmts: list[ir.Stmt], indent: str = "") -> list[str]:
    lines: list[str] = []
    for stmt in stmts:
        lines.append(indent + _head(stmt))
        for block in _blocks(stmt):
            if isinstance(stmt, ir.IfStmt) and block is stmt.else_body:
                if not block:
                    continue
                lines.append(indent + "else:")
            lines += dump(block, indent + "  ")
    return lines


def _head(stmt: ir.Stmt) -> str:
    if isinstance(stmt, ir.AssignStmt):
        return f"{stmt.target.name} = {expr(stmt.value)}"
    if isinstance(stmt, ir.EvalStmt):
        return expr(stmt.expr)
    if isinstance(stmt, ir.ReturnStmt):
        return "return " + ", ".join(expr(v) for v in stmt.values)
    if isinstance(stmt, ir.YieldStmt):
        return "yield " + ", ".join(expr(v) for v in stmt.values)
    if isinstance(stmt, ir.BreakStmt):
        return "break"
    if isinstance(stmt, ir.ContinueStmt):
        return "continue"
    if isinstance(stmt, ir.ForStmt):
        carried = "".join(f", {a.name}={expr(a.init) if a.init else '?'}" for a in stmt.iter_args)
        results = f" -> {', '.join(v.name for v in stmt.return_vars)}" if stmt.return_vars else ""
        bounds = ", ".join(expr(e) for e in (stmt.start, stmt.stop, stmt.step))
        return f"for {stmt.loop_var.name}{carried} in {stmt.kind.value}({bounds}){results}:"
    if isinstance(stmt, ir.WhileStmt):
        carried = "".join(f", {a.name}={expr(a.init) if a.init else '?'}" for a in stmt.iter_args)
        results = f" -> {', '.join(v.name for v in stmt.return_vars)}" if stmt.return_vars else ""
        return f"while {expr(stmt.cond)}{carried}{results}:"
    if isinstance(stmt, ir.IfStmt):
        results = f" -> {', '.join(v.name for v in stmt.return_vars)}" if stmt.return_vars else ""
        return f"if {expr(stmt.cond)}{results}:"
    return _scope_head(stmt)


def _scope_head(scope: ir.ScopeStmt) -> str:
    parts = [scope.kind.value]
    if scope.name_hint:
        parts.append(f"'{scope.name_hint}'")
    if scope.level is not None and scope.kind is ir.ScopeKind.Hierarchy:
        parts.append(scope.level.value)
    if scope.role is not None:
        parts.append(scope.role.value)
    if scope.split is not None:
        parts.append(f"split={scope.split.value}")
    if scope.core_num is not None:
        parts.append(f"core_num={expr(scope.core_num)}")
    if scope.task_id_var is not None:
        parts.append(f"tid={scope.task_id_var.name}")
    return " ".join(parts) + ":"


def expr(e: ir.Expr) -> str:
    if isinstance(e, ir.Var):
        return e.name
    if isinstance(e, ir.Const):
        return repr(e.value)
    if isinstance(e, ir.BinaryExpr):
        return f"({expr(e.left)} {e.op} {expr(e.right)})"
    if isinstance(e, ir.UnaryExpr):
        if e.op == "cast":
            return f"cast({expr(e.operand)}, {e.cast_dtype})"
        return f"({e.op} {expr(e.operand)})"
    if isinstance(e, ir.Call):
        args = [expr(a) for a in e.args] + [f"{k}={expr(v)}" for k, v in e.kwargs.items()]
        head = f"self.{e.callee}" if e.callee else e.op
        return ("submit " if e.submit else "") + f"{head}({', '.join(args)})"
    if isinstance(e, ir.TupleExpr):
        return "(" + ", ".join(expr(i) for i in e.items) + ")"
    if isinstance(e, ir.ListExpr):
        return "[" + ", ".join(expr(i) for i in e.items) + "]"
    if isinstance(e, ir.TupleGetItem):
        return f"{expr(e.tuple)}[{e.index}]"
    if isinstance(e, ir.EnumValue):
        return f"{e.enum}.{e.member}" if e.enum else e.member
    return f"opaque<{e.text}>"
