"""Structural IR equality: what "the printed IR parses back to the same IR" means.

Spans are ignored (printed text has other positions) and variables compare by name and type,
not identity (a reparse creates new objects). `ir_difference` names the first mismatch as a
path (`functions[0].body[2].iter_args[0].init.name`), which is what a failing test should say.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from . import ir


def _ignored(field: str) -> bool:
    return field == "span" or field.endswith("_span") or field == "shown_names"


def _var_difference(a: ir.Var, b: ir.Var, path: str, *, defining: bool) -> str | None:
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} != {type(b).__name__}"
    if a.name != b.name:
        return f"{path}.name: {a.name!r} != {b.name!r}"
    if a.type != b.type:
        return f"{path}.type: {a.type} != {b.type}"
    if defining and isinstance(a, ir.IterArg) and isinstance(b, ir.IterArg):
        return ir_difference(a.init, b.init, f"{path}.init")
    return None


def ir_difference(a: Any, b: Any, path: str = "") -> str | None:
    """The first place `a` and `b` differ, or None when they are structurally equal."""
    if isinstance(a, ir.Var) or isinstance(b, ir.Var):
        if not (isinstance(a, ir.Var) and isinstance(b, ir.Var)):
            return f"{path}: {a!r} != {b!r}"
        return _var_difference(a, b, path, defining=False)
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        if type(a) is not type(b):
            return f"{path}: {type(a).__name__} != {type(b).__name__}"
        for f in dataclasses.fields(a):
            if _ignored(f.name) or not f.compare:
                continue  # a `compare=False` field is no part of the value (TensorType.distributed)
            x, y = getattr(a, f.name), getattr(b, f.name)
            where = f"{path}.{f.name}" if path else f.name
            if f.name == "iter_args":
                diff = _sequence_difference(x, y, where, defining=True)
            else:
                diff = ir_difference(x, y, where)
            if diff:
                return diff
        return None
    if isinstance(a, (list, tuple)):
        if not isinstance(b, (list, tuple)) or type(a) is not type(b):
            return f"{path}: {a!r} != {b!r}"
        return _sequence_difference(a, b, path, defining=False)
    if isinstance(a, dict):
        if not isinstance(b, dict) or list(a) != list(b):
            return f"{path}: {a!r} != {b!r}"
        for k in a:
            diff = ir_difference(a[k], b[k], f"{path}[{k!r}]")
            if diff:
                return diff
        return None
    if type(a) is not type(b) or a != b:
        return f"{path}: {a!r} != {b!r}"
    return None


def _sequence_difference(a: Any, b: Any, path: str, *, defining: bool) -> str | None:
    if len(a) != len(b):
        return f"{path}: length {len(a)} != {len(b)}"
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        where = f"{path}[{i}]"
        if defining and isinstance(x, ir.Var) and isinstance(y, ir.Var):
            diff = _var_difference(x, y, where, defining=True)
        else:
            diff = ir_difference(x, y, where)
        if diff:
            return diff
    return None


def ir_equal(a: Any, b: Any) -> bool:
    return ir_difference(a, b) is None
