"""Signature help inside a call: a DSL op or construct (from the DSL surface table, the
argument it writes marked `⟵ written`), or a program function / jit kernel with the
directions its parameters declare.

Like completion, answered from the text before the cursor and the document's last analysis.
"""

from __future__ import annotations

from lsprotocol import types

from pypto_core import dsl_surface
from pypto_core.dsl_surface import Entry
from pypto_core.ir import Direction, Function
from pypto_core.printer import format_type

from .call_context import CallContext, call_before, program_class
from .describe import declared_param
from .dsl_docs import READ_WRITTEN, WRITTEN, SignatureLabel, markdown, signature_label, written_label
from .session import LiveText

_DIRECTION_MARKS = {Direction.In: "", Direction.Out: WRITTEN, Direction.InOut: READ_WRITTEN}


def signature_help(live: LiveText) -> types.SignatureHelp | None:
    snapshot = live.latest
    if snapshot is None or not snapshot.analysis.is_dsl or live.line >= len(live.lines):
        return None
    call = call_before(live.lines, live.line, live.col)
    if call is None:
        return None
    names = snapshot.analysis.dsl_names
    path = names.surface_path(call.callee)
    entry = dsl_surface.entry(path) if path else None
    if entry is not None and entry.signature is not None:
        return _entry_help(entry, call)
    function = _program_function(live, call.callee)
    return _function_help(function, call) if function is not None else None


def _entry_help(entry: Entry, call: CallContext) -> types.SignatureHelp:
    label = signature_label(entry)
    names = [p.name for p in entry.params]
    active = _active(
        call, names, [p.star == "*" for p in entry.params], [p.keyword_only for p in entry.params]
    )
    documentation = types.MarkupContent(kind=types.MarkupKind.Markdown, value=markdown(entry))
    return _help(label, documentation, active)


def _program_function(live: LiveText, callee: str) -> Function | None:
    """`self.f` in a `@pl.program` class (found in the text: the class may not parse while the
    call is typed), or a plain `f` that is a function of a jit program of the file."""
    assert live.latest is not None
    analysis = (live.complete or live.latest).analysis
    if callee.startswith("self."):
        found = program_class(live.lines, live.line, live.latest.analysis.dsl_names)
        if found is None:
            return None
        program = next(
            (p for p in analysis.programs if p.name == found[0] and p.source.origin == "program"), None
        )
        return program.source.get(callee.removeprefix("self.")) if program is not None else None
    if "." in callee:
        return None
    jit = (p.source.get(callee) for p in analysis.programs if p.source.origin == "jit")
    return next((f for f in jit if f is not None), None)


def _function_help(function: Function, call: CallContext) -> types.SignatureHelp:
    texts = []
    for param in function.params:
        text = declared_param(param.var.base_name, param.direction, format_type(param.var.type))
        mark = _DIRECTION_MARKS[param.direction]
        texts.append(f"{text} {mark}" if mark else text)
    names = [p.var.base_name for p in function.params]
    active = _active(call, names, [False] * len(names), [False] * len(names))
    kind = f"program function, `{function.type.value}`"
    return _help(written_label(function.name, texts), kind, active)


def _active(call: CallContext, names: list[str], star: list[bool], keyword_only: list[bool]) -> int | None:
    """The parameter the cursor is at: the keyword being given, else the positional slot (a
    `*args` parameter takes every later one)."""
    if call.keyword is not None:
        return names.index(call.keyword) if call.keyword in names else None
    positional = [i for i, k in enumerate(keyword_only) if not k]
    for slot, index in enumerate(positional):
        if star[index] or slot == call.arg_index:
            return index
    return None


def _help(
    label: SignatureLabel, documentation: str | types.MarkupContent, active: int | None
) -> types.SignatureHelp:
    parameters = [types.ParameterInformation(label=span) for span in label.params]
    information = types.SignatureInformation(
        label=label.label, documentation=documentation, parameters=parameters, active_parameter=active
    )
    return types.SignatureHelp(signatures=[information], active_signature=0, active_parameter=active)
