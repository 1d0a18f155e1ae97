"""A tiny pre-SSA IR builder for pass and printer tests that do not go through the front end.

Pre-SSA, one `Var` object stands for one source name within a function, so `FunctionBuilder.v`
returns the same object for a name every time (as the front end does).
"""

from __future__ import annotations

from pypto_core import ir
from pypto_core.span import Span

T64 = ir.TensorType((64,), "FP32")
TILE = ir.TileType((64,), "FP32")
IDX = ir.INDEX
BOOL = ir.ScalarType("BOOL")


def span(line: int) -> Span:
    """A distinct span per source line, so tests can tell which node a new one came from."""
    return Span(line, 0, line, 10)


class FunctionBuilder:
    def __init__(self) -> None:
        self.vars: dict[str, ir.Var] = {}

    def v(self, name: str, type_: ir.Type = T64) -> ir.Var:
        if name not in self.vars:
            self.vars[name] = ir.Var(name, type_, span(900 + len(self.vars)))
        return self.vars[name]


def const(value: int | float) -> ir.Const:
    return ir.Const(value, IDX if isinstance(value, int) else ir.ScalarType("FP32"))


def call(op: str, *args: ir.Expr, type_: ir.Type = T64, **kwargs: ir.Expr) -> ir.Call:
    return ir.Call(op, list(args), dict(kwargs), type_)


def load(src: ir.Expr) -> ir.Call:
    return call("tile.load", src, ir.ListExpr([const(0)]), ir.ListExpr([const(64)]), type_=TILE)


def store(tile: ir.Expr, dst: ir.Expr) -> ir.Call:
    return call("tile.store", tile, ir.ListExpr([const(0)]), dst)


def add(a: ir.Expr, b: ir.Expr) -> ir.BinaryExpr:
    return ir.BinaryExpr("+", a, b, a.type)


def assign(target: ir.Var, value: ir.Expr, line: int = 0) -> ir.AssignStmt:
    return ir.AssignStmt(target, value, span(line))


def for_range(
    loop_var: ir.Var, stop: int, body: list[ir.Stmt], line: int = 0, **fields: object
) -> ir.ForStmt:
    return ir.ForStmt(loop_var, const(0), const(stop), const(1), body, span=span(line), **fields)  # type: ignore[arg-type]


def function(
    name: str, params: list[ir.Var | tuple[ir.Var, ir.Direction]], body: list[ir.Stmt], **fields: object
) -> ir.Function:
    ps = [ir.Param(*p) if isinstance(p, tuple) else ir.Param(p) for p in params]
    return ir.Function(name, ps, body, **fields)  # type: ignore[arg-type]


def program(*functions: ir.Function, name: str = "P") -> ir.Program:
    return ir.Program(name, list(functions))
