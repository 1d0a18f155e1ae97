"""Copying IR an order of magnitude faster than `copy.deepcopy`, with the same result.

The passes copy the functions they rewrite so that their input stays intact (the language
server keeps both the source and the outlined program of every program). `copy.deepcopy`
spends most of its time on the generic `__reduce_ex__` protocol and on copying immutable
values (spans, types). This clone knows the IR's shape: frozen values (spans, types, enums,
strings, numbers) are shared, not copied, and every mutable object (IR node, list, dict) is
copied exactly once per clone, so two references to one `Var` (or one list) in the original
are two references to one copy, as with `deepcopy`'s memo. Anything else falls back to
`copy.deepcopy` with the same memo, so sharing is kept across that boundary as well.

The same walk moves a copy down or up the file (`line_delta`): a reused program result whose
text only shifted gets its IR that way, in one pass instead of a copy and a second walk.
"""

from __future__ import annotations

import copy
import dataclasses
from enum import Enum
from typing import Any, TypeVar, get_args

from . import ir
from .span import Shift, Span

_T = TypeVar("_T")

_NODE_TYPES: frozenset[type] = frozenset(
    {*get_args(ir.Expr), *get_args(ir.Stmt), ir.CachePolicyDecl, ir.Param, ir.Function, ir.Program}
)
"""Mutable IR classes: plain (non-slotted) dataclasses whose whole state is their `__dict__`."""

_SHARED_TYPES: frozenset[type] = frozenset(
    {
        str,
        int,
        float,
        bool,
        type(None),
        bytes,
        Span,
        ir.TensorType,
        ir.TileType,
        ir.ScalarType,
        ir.ArrayType,
        ir.TupleType,
        ir.HandleType,
        ir.UnknownType,
        ir.CalleeSignature,
        *(member for member in vars(ir).values() if isinstance(member, type) and issubclass(member, Enum)),
    }
)
"""Immutable values: a copy would be equal and never mutated, so the original is shared."""


_SHARED_ANNOTATIONS = frozenset(
    {"str", "int", "float", "bool", "None", "Span", "Type", "Dim"}
    | {t.__name__ for t in _SHARED_TYPES if issubclass(t, Enum)}
)
"""Annotation words naming only values in `_SHARED_TYPES` (`Type` is the union of the types)."""

_LEAF_TYPES = frozenset({ir.Const, ir.EnumValue})

_SHARED_IN_PLACE: frozenset[type] = _SHARED_TYPES | _LEAF_TYPES
"""Also shared by a copy that keeps every span where it is: constants and enum values, whose
fields are all immutable and which no pass modifies (ConvertToSSA shares them with its input
too). A third of the nodes a cold `pypto-check` of pypto-lib's models cloned were constants."""


def _layout(kind: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A node class's fields that may hold something to copy (a node, a list, a dict, a
    tuple), and those that may hold a span, read from its annotations once: the clone visits
    only those instead of testing every field of every node."""
    deep, spans = [], []
    for f in dataclasses.fields(kind):
        words = {word.strip() for word in str(f.type).split("|")}
        if not words <= _SHARED_ANNOTATIONS:
            deep.append(f.name)
        if "Span" in words:
            spans.append(f.name)
    return tuple(deep), tuple(spans)


_LAYOUTS: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {kind: _layout(kind) for kind in _NODE_TYPES}


def clone(
    value: _T, memo: dict[int, Any] | None = None, *, line_delta: Shift = 0, span_at: Span | None = None
) -> _T:
    """A deep copy of `value` (a program, function, statement list, expression...).

    Pass one `memo` to several calls to copy several parts as one: a `Var` reached from two of
    them is copied once. The memo is `copy.deepcopy`-compatible. With `line_delta`, every span
    an IR node holds in one of its fields is moved by that many lines, or by pieces for a
    `LineShift` (values that are not IR, which only attributes may hold, are copied unmoved).
    With `span_at`, every such span is that one instead: code spliced from another file is
    shown at its call site.
    """
    if memo is None:
        return _Cloner({}, line_delta, span_at).copy(value)
    # the memo is keyed by id: what it has seen must outlive it, or a later call could meet a
    # new object at a recycled id (`copy.deepcopy` keeps its originals in the same place)
    memo.setdefault(id(memo), []).append(value)
    return _Cloner(memo, line_delta, span_at).copy(value)


class _Cloner:
    def __init__(self, memo: dict[int, Any], line_delta: Shift, span_at: Span | None = None) -> None:
        self.memo = memo
        self.line_delta = line_delta
        self.span_at = span_at
        # a copy that moves spans must copy the leaves holding one
        self.shared = _SHARED_TYPES if line_delta or span_at is not None else _SHARED_IN_PLACE
        # ... but one that puts every span at `span_at` needs one copy per value (`_leaf`)
        self.leaves: dict[tuple[Any, ...], Any] | None = {} if span_at is not None else None

    def copy(self, value: Any) -> Any:
        kind = type(value)
        if kind in self.shared:
            return value
        done = self.memo.get(id(value))
        if done is not None:
            return done
        if kind in _NODE_TYPES:
            return self._node(kind, value)
        if kind is list:
            return self._list(value)
        if kind is dict:
            mapping: dict[Any, Any] = {}
            self.memo[id(value)] = mapping
            if value:  # most are a call's empty kwargs and attrs
                mapping.update({self.copy(key): self.copy(item) for key, item in value.items()})
            return mapping
        if kind is tuple:
            return tuple([self.copy(item) for item in value])
        if isinstance(value, Enum):
            return value
        return copy.deepcopy(value, self.memo)

    def _node(self, kind: type, node: Any) -> Any:
        """Only the fields `_LAYOUTS` names are looked at (most hold names, spans, types), and
        a value already copied is taken from the memo without a call: this loop is where a
        clone spends its time."""
        if self.leaves is not None and kind in _LEAF_TYPES:
            return self._leaf(kind, node)
        new: Any = object.__new__(kind)
        memo = self.memo
        memo[id(node)] = new
        state = new.__dict__
        state.update(node.__dict__)
        deep, spans = _LAYOUTS[kind]
        shared = self.shared
        for name in deep:
            item = state[name]
            kind = type(item)
            if kind not in shared:
                done = memo.get(id(item))
                if done is None:
                    done = self._node(kind, item) if kind in _NODE_TYPES else self.copy(item)
                state[name] = done
        if self.span_at is not None:
            for name in spans:
                if state[name] is not None:
                    state[name] = self.span_at
        elif self.line_delta:
            for name in spans:
                item = state[name]
                if item is not None:
                    state[name] = item.shifted(self.line_delta)
        return new

    def _leaf(self, kind: type, node: ir.Const | ir.EnumValue) -> Any:
        """The copy of a constant or enum value at `span_at`: one per value and type object in
        this clone, however many of them the original holds (a third of the nodes of a helper
        body spliced from another module are constants). A float is copied alone:
        `-0.0 == 0.0`."""
        assert self.leaves is not None and self.span_at is not None
        if kind is ir.Const:
            assert isinstance(node, ir.Const)
            if type(node.value) is float:
                key: tuple[Any, ...] | None = None
            else:
                key = (type(node.value), node.value, id(node.type))
        else:
            assert isinstance(node, ir.EnumValue)
            key = (node.enum, node.member, id(node.type))
        new: Any = self.leaves.get(key) if key is not None else None
        if new is None:
            new = object.__new__(kind)
            new.__dict__.update(node.__dict__)
            new.span = self.span_at
            if key is not None:
                self.leaves[key] = new
        self.memo[id(node)] = new
        return new

    def _list(self, items: list[Any]) -> list[Any]:
        copied: list[Any] = []
        memo = self.memo
        memo[id(items)] = copied
        if items:
            get, copy, shared = memo.get, self.copy, self.shared
            copied.extend(
                [
                    item
                    if type(item) in shared
                    else done
                    if (done := get(id(item))) is not None
                    else copy(item)
                    for item in items
                ]
            )
        return copied
