"""What the function-body builder carries while it walks one `def`.

The expression, statement and scope builders all need the same few things: where a node sits
in the file (spans), which local names mean `pypto.language`, the pre-SSA variable table (one
`Var` per source name), the lexical stack of enclosing scopes and loops, and a place to put
diagnostics. Keeping them in one object lets those builders stay free functions of the tree.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import diagnostics
from ..diagnostics import Related
from ..ir import (
    INDEX,
    UNKNOWN,
    Expr,
    FunctionType,
    IterArg,
    Level,
    ScopeKind,
    ScopeStmt,
    Type,
    UnknownType,
    Var,
)
from ..passes.names import is_reserved
from ..span import NO_SPAN, Span
from .context import FunctionContext
from .jit_renames import JitRenamer
from .module import fold_constant, fold_extent
from .source import UnitSpans
from .static_eval import DynamicSymbol
from .stmt_memo import FrameStack, StatementReuse

Scalar = int | float | str | bool

RESERVED_NAME = "PTO186"  # a variable named with the auto-name delimiter `__`


@dataclass
class ScopeFrame:
    """One lexically enclosing scope construct, for the nesting rules of dsl-reference §2.2."""

    kind: ScopeKind
    construct: str  # how messages name it: "pl.at(...)", "pl.cluster()", "pl.spmd(...)", ...
    header_span: Span
    declares_split: bool = False  # an InCore scope written with `pl.split(...)` (PTO171)
    parser_made: bool = False  # an InCore scope the parser adds around a spmd / split_aiv body
    runtime_mode: str | None = None  # Runtime scopes: "AUTO" / "MANUAL"


@dataclass
class BodyState:
    ctx: FunctionContext
    function_type: FunctionType = FunctionType.Opaque
    level: Level | None = None  # the decorator's `level=` (host-only ops need HOST)
    strict_ssa: bool = False
    auto_scope: bool = True  # `@pl.function(auto_scope=False)` lets the author place AUTO scopes
    in_signature: bool = False  # reading a parameter annotation (`FunctionContext.symbol_name`)
    variables: dict[str, Var] = field(default_factory=dict)
    current_types: dict[str, Type] = field(default_factory=dict)
    scopes: list[ScopeFrame] = field(default_factory=FrameStack)
    # enclosing loop-like constructs, innermost last: a ForKind value, "while", "spmd", "split_aiv"
    loops: list[str] = field(default_factory=FrameStack)
    defined: set[str] = field(default_factory=set)  # names bound so far (strict_ssa rebinding)
    func_attrs: dict[str, object] = field(default_factory=dict)
    # tensor name -> (TaskId of the launch scope that last wrote it, that scope's header),
    # for the launch scopes finished before the ones still in `unindexed_launches`
    producers: dict[str, tuple[Var | None, Span]] = field(default_factory=dict)
    unindexed_launches: list[ScopeStmt] = field(default_factory=list)
    temp_counter: int = 0
    in_expression: bool = False  # building an expression's parts (see exprs.MAX_EXPR_DEPTH)
    # the call that is the whole value of the assignment being built, with its one target
    # (the parser takes window-buffer allocations and task launches only from there)
    assignment: tuple[ast.Call, ast.expr] | None = None
    symbols: dict[str, Var] = field(default_factory=dict)  # dynamic extent symbols read in the body
    # module and class constants not shadowed by a variable of the function
    constants: dict[str, Scalar] = field(default_factory=dict)
    # the module's other static values (config objects, tuples) not shadowed either
    values: dict[str, Any] = field(default_factory=dict)
    # the statement records of this build and the last (`stmt_memo`); None: every statement built
    reuse: StatementReuse | None = None
    # a jit body's renames as the compiler's specialiser makes them (`jit_renames`)
    renamer: JitRenamer | None = None
    # The file span of a node of this function's unit (asked for nearly every node built, so
    # it is the table's bound method itself rather than a method that calls it).
    span: Callable[[ast.AST], Span] = field(init=False, repr=False, compare=False)
    # `pl.tensor.add` -> ("pl", "tensor", "add"); `pld.tensor.put` -> ("pld", "tensor", "put");
    # None when the expression does not name something in the DSL modules (the module's
    # answer, asked as often as spans).
    dsl_path: Callable[[ast.expr], tuple[str, ...] | None] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.constants = {**self.ctx.module.constants, **self.ctx.class_constants}
        self.values = dict(self.ctx.module.values)
        self.span = UnitSpans(self.ctx.source_lines, self.ctx.line_offset).span
        self.dsl_path = self.ctx.module.dsl_path

    # -- positions ---------------------------------------------------------------------------

    def line_text(self, ast_line: int) -> str:
        index = ast_line - 1 + self.ctx.line_offset
        lines = self.ctx.source_lines
        return lines[index] if 0 <= index < len(lines) else ""

    def span_between(self, first: ast.AST, last: ast.AST) -> Span:
        start, end = self.span(first), self.span(last)
        return Span(start.start_line, start.start_col, end.end_line, end.end_col)

    # -- names -------------------------------------------------------------------------------

    def fold(self, node: ast.expr) -> Scalar | None:
        """The compile-time value of a literal, a module/class constant (`self.ROWS` too) or
        arithmetic on them, as the real parser gets it by evaluating closure constants."""
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return self.ctx.class_constants.get(node.attr)
        return fold_constant(node, self.constants, self.values)

    def fold_extent(self, node: ast.expr) -> Scalar | DynamicSymbol | None:
        """`fold`, or the `pl.dynamic` symbol a module value holds (an annotation's extent)."""
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return self.ctx.class_constants.get(node.attr)
        return fold_extent(node, self.constants, self.values)

    def symbol(self, name: str, symbol: str) -> Var:
        """The one `Var` standing for dynamic extent symbol `symbol` in this function, read
        through the variable `name` (`name = pl.dynamic("symbol")`): a caller-computable index
        value that is never assigned in the body. Kept by the name the code spells, as the
        statement records (`stmt_memo`) key what a statement reads."""
        var = self.symbols.get(name)
        if var is None:
            var = self.symbols[name] = self.new_var(symbol, INDEX, NO_SPAN)
        return var

    def new_var(self, name: str, value_type: Type, span: Span) -> Var:
        """A new variable: the last build's alike one when a statement is built again
        (`StatementReuse.new_var`)."""
        if self.reuse is not None:
            return self.reuse.new_var(name, value_type, span)
        return Var(name, value_type, span)

    def new_iter_arg(self, name: str, value_type: Type, span: Span, init: Expr | None) -> IterArg:
        """A new loop-carried variable, as `new_var`."""
        if self.reuse is not None:
            var = self.reuse.new_var(name, value_type, span, init, carried=True)
            assert isinstance(var, IterArg)
            return var
        return IterArg(name, value_type, span, init)

    # -- variables ---------------------------------------------------------------------------

    def bind(self, name: str, where: ast.AST | Span, value_type: Type = UNKNOWN) -> Var:
        """The one pre-SSA `Var` of `name` (created on first binding at `where`); records its type."""
        var = self.variables.get(name)
        if var is None:
            self.constants.pop(name, None)
            self.values.pop(name, None)
            var = self.new_var(name, value_type, where if isinstance(where, Span) else self.span(where))
            self.variables[name] = var
            if is_reserved(name):
                self._reserved_name(var)
        elif isinstance(var.type, UnknownType):  # `== UNKNOWN`, without a dataclass __eq__ call
            if self.reuse is not None and not isinstance(value_type, UnknownType):
                self.reuse.tainted = True  # a Var a kept statement may hold is modified
            var.type = value_type
        self.current_types[name] = var.type if isinstance(value_type, UnknownType) else value_type
        return var

    def rename(self, name: str, alias: str, span: Span, value_type: Type) -> Var:
        """A new pre-SSA `Var` named `alias` that reads of `name` read from now on (a jit
        specialiser's rename, `jit_renames`)."""
        self.constants.pop(name, None)
        self.values.pop(name, None)
        var = self.new_var(alias, value_type, span)
        self.variables[name] = var
        self.current_types[name] = value_type
        return var

    def fresh(self, name: str, where: ast.AST, value_type: Type, shown: str | None = None) -> Var:
        """A new pre-SSA `Var` for `name` (named `shown`, a jit body's rename of it, when
        given), replacing any earlier one: the parser makes the variable of a
        `pl.spmd`/`pl.split_aiv` loop target and of an `as tid` target anew at each construct,
        so it is never a phi or a loop carry of an earlier binding."""
        self.constants.pop(name, None)
        self.values.pop(name, None)
        var = self.new_var(shown or name, value_type, self.span(where))
        self.variables[name] = var
        self.current_types[name] = value_type
        if is_reserved(name):
            self._reserved_name(var)
        return var

    def _reserved_name(self, var: Var) -> None:
        self.error(
            RESERVED_NAME,
            f"IR auto-name base cannot contain reserved delimiter '__': {var.name}",
            var.span,
            hint="rename it without '__' (ConvertToSSA appends '__ssa_v0'-style suffixes to names)",
        )

    def note_definition(self, name: str, node: ast.AST) -> None:
        """Under `strict_ssa=True` a second binding of a name is an error (PTO196)."""
        if self.strict_ssa and name in self.defined:
            self.error(
                "PTO196",
                f"Variable '{name}' is already defined; rebinding is not allowed with strict_ssa=True",
                node,
                hint="use a new name, or carry the value with init_values=/pl.yield_()",
            )
        self.defined.add(name)

    def type_of_name(self, name: str) -> Type:
        if name in self.current_types:
            return self.current_types[name]
        var = self.variables.get(name)
        return var.type if var is not None else UNKNOWN

    def new_temp(self, prefix: str) -> str:
        self.temp_counter += 1
        return f"_{prefix}_tmp_{self.temp_counter - 1}"

    # -- scopes ------------------------------------------------------------------------------

    def innermost(self, *kinds: ScopeKind) -> ScopeFrame | None:
        for frame in reversed(self.scopes):
            if frame.kind in kinds:
                return frame
        return None

    # -- diagnostics -------------------------------------------------------------------------

    def error(
        self,
        code: str,
        message: str,
        where: ast.AST | Span,
        *,
        hint: str | None = None,
        related: tuple[Related, ...] = (),
    ) -> None:
        span = where if isinstance(where, Span) else self.span(where)
        diag = diagnostics.error(code, message, span, hint)
        if related:
            diag = diagnostics.Diagnostic(diag.code, diag.severity, diag.message, span, hint, related)
        self.ctx.diagnostics.append(diag)

    def info(self, code: str, message: str, where: ast.AST | Span, *, hint: str | None = None) -> None:
        span = where if isinstance(where, Span) else self.span(where)
        self.ctx.diagnostics.append(diagnostics.info(code, message, span, hint))
