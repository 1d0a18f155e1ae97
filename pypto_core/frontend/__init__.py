"""The front end: source text -> units -> module context -> IR programs.

Everything here is static: the analysed code is parsed with `ast`, never imported or run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..diagnostics import Diagnostic
from ..ir import Program
from ..span import split_lines
from .context import CalleeSignature, ContextMemo, FunctionContext, ModuleContext
from .decorators import FunctionHeader
from .module import module_context
from .nested import block_units
from .programs import (
    FilePlans,
    ProgramPlan,
    build_program,
    file_plans,
    inline_helper_defs,
    program_plans,
    spliced_helpers,
)
from .scope_headers import not_outlined
from .source import decode_source
from .units import Unit, UnitSplitter, notable_indices, split_units

__all__ = [
    "CalleeSignature",
    "ContextMemo",
    "FilePlans",
    "FunctionContext",
    "FunctionHeader",
    "ModuleContext",
    "ModuleIR",
    "ProgramPlan",
    "Unit",
    "UnitSplitter",
    "block_units",
    "build_program",
    "decode_source",
    "file_plans",
    "inline_helper_defs",
    "module_context",
    "not_outlined",
    "notable_indices",
    "parse_module",
    "program_plans",
    "spliced_helpers",
    "split_units",
]


@dataclass
class ModuleIR:
    """A whole module's front-end result: programs in source order and every diagnostic the
    front end reported (syntax errors, module-level issues, program building)."""

    programs: list[Program] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    is_dsl: bool = False
    units: list[Unit] = field(default_factory=list)


def parse_module(text: str) -> ModuleIR:
    """Parse a whole module. A file that does not import the DSL yields nothing at all."""
    units = block_units(split_units(text))
    ctx, diagnostics = module_context(units)
    if not ctx.analysed:
        return ModuleIR(units=units)
    diagnostics = [u.syntax_error for u in units if u.syntax_error is not None] + diagnostics
    source_lines = split_lines(text.removeprefix("\ufeff"))
    programs = []
    found = file_plans(units, ctx)
    for plan, plan_ctx in found.plans:
        program, program_diagnostics = build_program(plan, found.units, plan_ctx, source_lines)
        programs.append(program)
        diagnostics += program_diagnostics
    # an inline helper or jit kernel shared by two programs reports its findings once
    return ModuleIR(programs, list(dict.fromkeys(diagnostics)), True, units)
