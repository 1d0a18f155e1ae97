"""InParamWritten (hw-native-sys/pypto#2457): a warning for a parameter declared `In` that
its own function body writes.

The compiler runs it after its whole pipeline, reading the same two declarations direction
inference reads: an operator's registry write effects (`ops.written_args`) and a callee's
declared Out/InOut parameters. A written `In` parameter drops the dependency edge its writer
needs, so the program races on device instead of failing. Checked here on the functions the
user wrote (an outlined function's directions are inferred from the same facts, so they
cannot contradict them): not Orchestration functions, whose parameters are the host ABI
the user declares, and not Group/Spmd wrappers, whose directions the compiler derives later
(DeriveCallDirections). Only buffers (tensors, tiles, arrays) can be written through; a
scalar is passed by value. One warning per parameter, at the first call that writes it.
"""

from __future__ import annotations

from ..diagnostics import Diagnostic, Related, Severity
from ..ir import (
    ArrayType,
    Call,
    Direction,
    Function,
    FunctionType,
    Program,
    Role,
    TensorType,
    TileType,
)
from .scope_analysis import writing_calls

IN_PARAM_WRITTEN = "PTO165"

_SKIPPED = (FunctionType.Orchestration, FunctionType.Inline, FunctionType.Group, FunctionType.Spmd)


def in_params_written(program: Program, outlined_names: set[str]) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for fn in program.functions:
        if fn.name in outlined_names or fn.type in _SKIPPED or not fn.body:
            continue
        if fn.role is Role.SubWorker and fn.level is not None and fn.level.linqu >= 3:
            continue  # verbatim Python
        found += _check(program, fn)
    return found


def _check(program: Program, fn: Function) -> list[Diagnostic]:
    params = [
        p
        for p in fn.params
        if p.direction is Direction.In and isinstance(p.var.type, (TensorType, TileType, ArrayType))
    ]
    if not params:
        return []

    def callee_directions(call: Call) -> list[Direction] | None:
        callee = program.get(call.callee) if call.callee is not None else None
        if callee is not None:
            return [p.direction for p in callee.params]
        declared = program.declarations.get(call.callee) if call.callee is not None else None
        return list(declared.directions) if declared is not None else None

    writes, read = writing_calls(fn.body, [p.var for p in params], callee_directions)
    found: list[Diagnostic] = []
    for param in params:
        call = writes.get(param.var)
        if call is None:
            continue
        name = param.var.base_name
        writer = (
            f"'{call.callee}', which declares that parameter Out or InOut"
            if call.callee is not None
            else f"operator '{call.op}', which declares that write in its registry effects"
        )
        suggested = "pl.InOut" if param.var in read else "pl.Out"
        found.append(
            Diagnostic(
                IN_PARAM_WRITTEN,
                Severity.WARNING,
                f"parameter '{name}' of function '{fn.name}' is declared In but is written by {writer}. "
                "A written parameter read as an input drops the dependency edge its writer needs, so "
                "the program races or deadlocks on device instead of failing here",
                call.span,
                "Declare the parameter pl.Out (written, never read) or pl.InOut (read and written)"
                f": here {suggested}, the body {'reads' if param.var in read else 'never reads'} it",
                (Related(f"'{name}' is declared here", param.span),),
                {"param": name, "function": fn.name, "direction": suggested.removeprefix("pl.")},
            )
        )
    return found
