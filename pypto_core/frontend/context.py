"""What the front end knows while it builds one function: module facts and program facts.

`ModuleContext` is computed once per module from its non-program units (imports, constants,
`pl.dynamic` symbols, inline helpers) and is what a program's analysis depends on besides its
own text. `FunctionContext` adds the program around the function being built.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..diagnostics import Diagnostic
from ..ir import Direction, FunctionType, Type


@dataclass
class ModuleContext:
    pl_names: set[str] = field(default_factory=set)  # local names bound to pypto.language
    pld_names: set[str] = field(default_factory=set)  # local names bound to pypto.language.distributed
    # `from pypto.language import Tensor as T` -> {"T": "Tensor"} (local name -> pl attribute)
    pl_members: dict[str, str] = field(default_factory=dict)
    constants: dict[str, int | float | str | bool] = field(default_factory=dict)
    dynamic_symbols: set[str] = field(default_factory=set)  # `M = pl.dynamic("M")` -> "M"
    inline_functions: dict[str, ast.FunctionDef] = field(default_factory=dict)

    @property
    def is_dsl(self) -> bool:
        return bool(self.pl_names or self.pld_names or self.pl_members)


@dataclass(frozen=True)
class CalleeSignature:
    """What a call site needs to know about a program function it calls."""

    name: str
    type: FunctionType
    param_names: tuple[str, ...]
    directions: tuple[Direction, ...]
    return_types: tuple[Type, ...]


@dataclass
class FunctionContext:
    module: ModuleContext
    source_lines: list[str]  # the whole file's lines (for byte -> code-point columns)
    line_offset: int  # added to `ast` line numbers (a unit parsed on its own starts at 1)
    # Program functions a body may call: `self.f` in a program, a plain name in a jit program.
    callees: dict[str, CalleeSignature] = field(default_factory=dict)
    class_constants: dict[str, int | float | str | bool] = field(default_factory=dict)
    in_jit: bool = False
    diagnostics: list[Diagnostic] = field(default_factory=list)
