"""Hover: what a scope becomes, what a called program function looks like, and how a scope
uses a variable it captures."""

from __future__ import annotations

import re

from lsprotocol import types

from pypto_core.ir import Direction, Function
from pypto_core.printer import format_type
from pypto_core.results import OutlinedScope

from .convert import PositionMapper
from .describe import access, declared_param, placement, signature, standalone_note, unresolved_note
from .op_hover import dsl_hover
from .queries import function_at, innermost_scopes, reader_signature, scopes_at_header, word_at
from .session import Snapshot

_IDENT = re.compile(r"\b[A-Za-z_]\w*")


def hover(snapshot: Snapshot, mapper: PositionMapper, position: types.Position) -> types.Hover | None:
    line, col = mapper.to_core(position)
    scopes = scopes_at_header(snapshot, line, col)
    if scopes:
        unresolved = snapshot.analysis.unresolved
        text = "\n\n---\n\n".join(_scope_markdown(*g, unresolved) for g in _distinct(scopes))
        return _markdown(text, mapper.range(scopes[0].header_span))
    reference = function_at(snapshot, line, col)
    if reference is not None:
        outlined = reference.program.outlined_program
        final = outlined.get(reference.function.name) if outlined is not None else None
        in_class = reference.program.source.origin == "program"
        text = _function_markdown(reference.function, final, in_class)
        return _markdown(text, mapper.range(reference.span))
    dsl = dsl_hover(snapshot, mapper, line, col)
    if dsl is not None:
        return dsl
    word = word_at(snapshot.lines, line, col)
    if word is None or word.before.rstrip().endswith("."):
        return None
    unresolved = snapshot.analysis.unresolved
    for scope in innermost_scopes(snapshot, line, col):
        for param in scope.params:
            if param.shown == word.text:
                text = _capture_markdown(scope, param.shown, param.direction, param.type)
                if note := unresolved_note(_IDENT.findall(param.type), unresolved):
                    text += f"\n\n*{note}*"
                return _markdown(text, mapper.range(word.span))
    called = word.after.lstrip().startswith("(")  # an unresolved callee is PTO604's
    if not called and (note := unresolved_note([word.text], unresolved)):
        return _markdown(f"*{note}*", mapper.range(word.span))
    return None


def _markdown(text: str, at: types.Range) -> types.Hover:
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text), range=at)


def _distinct(scopes: list[OutlinedScope]) -> list[tuple[OutlinedScope, list[OutlinedScope], bool]]:
    """The records of one header as few sections as they differ: each distinct function (by
    what the reader sees of it, `reader_signature`) once, with the other records that are the
    same (the other programs reaching the helper, the other times one program reaches it), and
    whether the sections need to say which program they are from."""
    groups: dict[tuple[object, ...], list[OutlinedScope]] = {}
    for scope in scopes:
        groups.setdefault(reader_signature(scope), []).append(scope)
    programs = {s.program for s in scopes}
    differ = len(programs) > 1 and any({s.program for s in g} != programs for g in groups.values())
    return [(group[0], group[1:], differ) for group in groups.values()]


def _scope_markdown(
    scope: OutlinedScope,
    same: list[OutlinedScope],
    with_program: bool,
    unresolved: dict[str, tuple[str, bool]],
) -> str:
    programs = list(dict.fromkeys(s.program for s in [scope, *same]))
    caller = f" (called from {', '.join(f'`{p}`' for p in programs)})" if with_program else ""
    lines = [f"**{scope.name}**: {scope.kind} scope → `{scope.function_type}` function{caller}"]
    others = list(dict.fromkeys(s.name for s in same if s.name != scope.name))
    if others:
        listed = ", ".join(f"`{name}`" for name in others[:4]) + (", …" if len(others) > 4 else "")
        lines.append(f"also outlined as {listed}: the scope is reached {len(others) + 1} times")
    if where := placement(scope):
        lines.append(where)
    lines.append(f"replaced by `{scope.call}` in `{scope.parent}`")
    if note := standalone_note(scope):
        lines.append(f"*{note}*")
    if scope.function_text:
        lines.append(f"```python\n{scope.function_text.rstrip()}\n```")
    else:
        lines.append(f"`{signature(scope)}`")
    if missing := unresolved_note(_IDENT.findall(scope.function_text), unresolved):
        lines.append(f"*{missing}*")
    return "\n\n".join(lines)


def _function_markdown(function: Function, final: Function | None, in_class: bool) -> str:
    """The signature as the user wrote it (`self` only for a program method, not a jit function)."""
    written = [declared_param(p.var.base_name, p.direction, format_type(p.var.type)) for p in function.params]
    params = ", ".join(["self", *written] if in_class else written)
    returns = ", ".join(format_type(t) for t in function.return_types)
    if len(function.return_types) > 1:
        returns = f"tuple[{returns}]"
    header = f"def {function.name}({params})" + (f" -> {returns}" if returns else "")
    kind = (final or function).type.value
    note = f"program function, `{kind}`"
    if final is not None and final.type is not function.type:
        note += f" (was `{function.type.value}` before outlining)"
    return f"```python\n{header}\n```\n\n{note}"


def _capture_markdown(scope: OutlinedScope, name: str, direction: Direction, type_text: str) -> str:
    return (
        f"`{name}`: **{direction.value}** in `{scope.name}` ({access(direction)} by the scope)\n\n"
        f"type `{type_text}`; passed as `{scope.call}`"
    )
