"""Reading DSL decorators: what `@pl.program`, `@pl.function(...)`, `@pl.jit.*` and
`@pl.inline` say about the program or function they decorate.

Unknown keyword arguments are accepted silently (D13): the compiler grows options faster than
a static front end learns them, and a decorator that works must never be flagged.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Diagnostic, error
from ..ir import LEVEL_ALIASES, FunctionType, Level, Role
from ..span import Span
from .context import ModuleContext
from .module import fold_constant
from .source import node_span

DECORATOR_ERROR = "PTO003"
ARG_DIRECTION_OVERRIDES = "arg_direction_overrides"  # the one attr key holding a list of integers

# jit decorator variant -> (function type, level, role)
_JIT_VARIANTS: dict[tuple[str, ...], tuple[FunctionType, Level | None, Role | None]] = {
    ("jit",): (FunctionType.Orchestration, None, None),
    ("jit", "host"): (FunctionType.Opaque, Level.HOST, Role.Orchestrator),
    ("jit", "incore"): (FunctionType.InCore, None, None),
    ("jit", "inline"): (FunctionType.Inline, None, None),
    ("jit", "opaque"): (FunctionType.Opaque, None, None),
    ("jit", "graph"): (FunctionType.Graph, None, None),
}
# `@pl.jit.extern(core_type=...)` -> the type of the declaration the specializer emits for it
# ("mixed" becomes a Group wrapper of an AIC and an AIV member, called by the stub's name)
_EXTERN_TYPES = {"aiv": FunctionType.AIV, "aic": FunctionType.AIC, "mixed": FunctionType.Group}
_ENUMS: dict[str, dict[str, Any]] = {
    "FunctionType": {m.value: m for m in FunctionType},
    "Level": LEVEL_ALIASES,
    "Role": {m.value: m for m in Role},
}


@dataclass
class FunctionHeader:
    """What a function's decorator declares; `span` is the decorator expression."""

    type: FunctionType
    level: Level | None
    role: Role | None
    strict_ssa: bool
    attrs: dict[str, Any]
    span: Span
    declaration_only: bool = False  # a `@pl.jit.extern` stub: its signature is all there is

    @property
    def host_python(self) -> bool:
        """A HOST-level (or higher) SubWorker: its body is the user's own Python, run verbatim on
        the host, and its signature is taken as written (no `self` is stripped)."""
        return self.role is Role.SubWorker and self.level is not None and self.level.linqu >= 3


@dataclass
class DecoratorReader:
    """Reads the decorators of one unit (positions are relative to that unit)."""

    ctx: ModuleContext
    source_lines: list[str]
    line_offset: int
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def dsl_decorator(self, node: ast.FunctionDef | ast.ClassDef) -> tuple[tuple[str, ...], ast.expr] | None:
        """The first decorator naming a DSL object, with its DSL path (`("jit", "incore")`)."""
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            path = self.ctx.resolve(target)
            if path:
                return path, decorator
        return None

    def program_strict_ssa(self, node: ast.ClassDef) -> bool | None:
        """`strict_ssa` of a `@pl.program` class, or None when the class is not a program."""
        found = self.dsl_decorator(node)
        if found is None or found[0] != ("program",):
            return None
        return bool(self._bool_kwarg(found[1], "strict_ssa"))

    def method_header(self, node: ast.FunctionDef, program_strict: bool) -> FunctionHeader | None:
        """The header of a `@pl.function` method, or None when the method is not one."""
        found = self.dsl_decorator(node)
        if found is None or found[0] != ("function",):
            return None
        decorator = found[1]
        return FunctionHeader(
            type=self._enum_kwarg(decorator, "type", "FunctionType") or FunctionType.Opaque,
            level=self._enum_kwarg(decorator, "level", "Level"),
            role=self._enum_kwarg(decorator, "role", "Role"),
            strict_ssa=program_strict or bool(self._bool_kwarg(decorator, "strict_ssa")),
            attrs=self._attrs(decorator),
            span=self._span(decorator),
        )

    def module_header(self, node: ast.FunctionDef) -> FunctionHeader | None:
        """The header of a module-level `@pl.jit*` / `@pl.inline` function (None otherwise)."""
        found = self.dsl_decorator(node)
        if found is None:
            return None
        path, decorator = found
        if path == ("inline",):
            return FunctionHeader(FunctionType.Inline, None, None, False, {}, self._span(decorator))
        if path == ("jit", "extern"):
            written = self._kwarg(decorator, "core_type")
            core = fold_constant(written, self.ctx.constants) if written is not None else "aiv"
            function_type = _EXTERN_TYPES.get(core if isinstance(core, str) else "aiv", FunctionType.AIV)
            return FunctionHeader(function_type, None, None, False, {}, self._span(decorator), True)
        variant = _JIT_VARIANTS.get(path)
        if variant is None:
            return None
        function_type, level, role = variant
        written_level = self._kwarg(decorator, "level")
        if path == ("jit", "incore"):
            level = self._enum_kwarg(decorator, "level", "Level") or level
        elif written_level is not None:
            self.diagnostics.append(
                error(
                    DECORATOR_ERROR,
                    f"@{'.'.join(('pl', *path))} does not accept level= (only @pl.jit.incore does)",
                    self._span(written_level),
                    "remove level=, or use @pl.jit.incore(level=...) for a kernel at another level",
                )
            )
        return FunctionHeader(
            function_type,
            level,
            role,
            bool(self._bool_kwarg(decorator, "strict_ssa")),
            self._attrs(decorator),
            self._span(decorator),
        )

    # -- keyword arguments ------------------------------------------------------------------

    def _kwarg(self, decorator: ast.expr, name: str) -> ast.expr | None:
        if not isinstance(decorator, ast.Call):
            return None
        for kw in decorator.keywords:
            if kw.arg == name:
                return kw.value
        return None

    def _bool_kwarg(self, decorator: ast.expr, name: str) -> bool | None:
        value = self._kwarg(decorator, name)
        if value is None:
            return None
        folded = fold_constant(value, self.ctx.constants)
        return folded if isinstance(folded, bool) else None

    def _enum_kwarg(self, decorator: ast.expr, name: str, enum: str) -> Any:
        value = self._kwarg(decorator, name)
        if value is None:
            return None
        path = self.ctx.resolve(value)
        if path is None or len(path) != 2 or path[0] != enum:
            return None  # a variable or an expression: not knowable statically
        member = _ENUMS[enum].get(path[1])
        if member is None:
            self.diagnostics.append(
                error(
                    DECORATOR_ERROR,
                    f"pl.{enum} has no member '{path[1]}'",
                    self._span(value),
                    f"use one of: {', '.join(_ENUMS[enum])}",
                )
            )
        return member

    def _attrs(self, decorator: ast.expr) -> dict[str, Any]:
        """`attrs={...}` with string keys; values folded when constant, else their source."""
        value = self._kwarg(decorator, "attrs")
        if not isinstance(value, ast.Dict):
            return {}
        attrs: dict[str, Any] = {}
        for key, item in zip(value.keys, value.values, strict=True):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                folded = fold_constant(item, self.ctx.constants)
                attrs[key.value] = folded if folded is not None else ast.unparse(item)
                self._check_attr_list(key.value, item)
        return attrs

    def _check_attr_list(self, key: str, item: ast.expr) -> None:
        """A list-valued attr the IR cannot hold (the compiler's conversion of attrs): under
        any key but `arg_direction_overrides` (integers), a list holds variables or
        `ArgDirection`s, never literals; a decorator can name no variable, so a literal first
        element is the mistake."""
        if key == ARG_DIRECTION_OVERRIDES or not isinstance(item, (ast.List, ast.Tuple)) or not item.elts:
            return
        if fold_constant(item.elts[0], self.ctx.constants) is None:
            return
        self.diagnostics.append(
            error(
                DECORATOR_ERROR,
                f"Unsupported list element type for key: {key}. A list-valued attr under an arbitrary "
                "key may hold Var (a reference) or ArgDirection. Integer lists are accepted only for "
                f"the reserved key '{ARG_DIRECTION_OVERRIDES}'.",
                self._span(item),
                "pass a scalar, or a list of pl.ArgDirection members",
            )
        )

    def _span(self, node: ast.AST) -> Span:
        return node_span(node, self.source_lines, self.line_offset)
