"""Moving IR down or up the file: a copy of a program with every span shifted by a line delta."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from .ir import Program
from .span import Span


def shift_program(program: Program, line_delta: int) -> Program:
    """A deep copy of `program` with all spans moved by `line_delta` lines (Vars stay shared
    within the copy, so identity-based IR invariants hold)."""
    moved = copy.deepcopy(program)
    _shift(moved, line_delta, set())
    return moved


def _shift(node: Any, delta: int, seen: set[int]) -> None:
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, (list, tuple)):
        for item in node:
            _shift(item, delta, seen)
        return
    if isinstance(node, dict):
        for item in node.values():
            _shift(item, delta, seen)
        return
    if not dataclasses.is_dataclass(node) or isinstance(node, type):
        return
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        if isinstance(value, Span):
            if not type(node).__dataclass_params__.frozen:
                setattr(node, f.name, value.shifted(delta))
        else:
            _shift(value, delta, seen)
