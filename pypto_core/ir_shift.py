"""Moving IR down or up the file: a copy of a program with every span shifted by a line delta
(or by pieces: `span.LineShift`)."""

from __future__ import annotations

from .ir import Program
from .ir_clone import clone
from .span import Shift


def shift_program(program: Program, line_delta: Shift) -> Program:
    """A deep copy of `program` with all spans moved by `line_delta` lines (by pieces for a
    `LineShift`; Vars stay shared within the copy, so identity-based IR invariants hold).
    `Program.spliced` is keyed by the spans of the calls: moved with them (its helpers stand
    in their own files)."""
    moved = clone(program, line_delta=line_delta)
    if program.spliced:
        moved.spliced = {at.shifted(line_delta): helper for at, helper in program.spliced.items()}
    return moved
