"""Hover on a DSL name (`pl.store`, `pl.tile.load`, `pld.system.notify`, `pl.Level.CORE_GROUP`):
what the surface table says of it; for an op, the IR op the call at that place became (a
unified op's Tensor or Tile form), each argument read / written / read-written, the result's
alias, and the scalar hoist."""

from __future__ import annotations

import re

from lsprotocol import types

from pypto_core import dsl_surface
from pypto_core.dsl_surface import Kind
from pypto_core.ir import BinaryExpr, Call
from pypto_core.span import Span

from .convert import PositionMapper
from .dsl_docs import markdown, op_facts, signature_label
from .queries import node_at, program_at
from .session import Snapshot

_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*")


def dsl_hover(snapshot: Snapshot, mapper: PositionMapper, line: int, col: int) -> types.Hover | None:
    if not snapshot.analysis.is_dsl or line >= len(snapshot.lines):
        return None
    text = snapshot.lines[line]
    for match in _DOTTED.finditer(text):
        if match.start() <= col <= match.end():
            break
    else:
        return None
    # up to the component under the cursor: `tile` in `pl.tile.load` is the namespace
    end = col + len(_word_rest(text, col))
    dotted = re.sub(r"\s+", "", text[match.start() : end])
    path = snapshot.analysis.dsl_names.surface_path(dotted)
    entry = dsl_surface.entry(path) if path else None
    if entry is None:
        return None
    value = markdown(entry)
    if entry.kind is Kind.OP:
        value = _at_call(snapshot, line, match.start(), entry) or value
    span = Span(line, match.start(), line, end)
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value), range=mapper.range(span)
    )


def _word_rest(text: str, col: int) -> str:
    rest = re.match(r"\w*", text[col:])
    return rest.group() if rest else ""


def _at_call(snapshot: Snapshot, line: int, col: int, entry: dsl_surface.Entry) -> str | None:
    """The op's facts for the IR op the call here became, when the analysis built one."""
    program = program_at(snapshot, line, col)
    node = node_at(program.source, line, col) if program is not None else None
    head = f"```python\n{signature_label(entry).label}\n```"
    if isinstance(node, Call) and node.op in entry.ir_ops:
        return f"{head}\n\n{op_facts(entry, (node.op,))}"
    if isinstance(node, BinaryExpr):
        return (
            f"{head}\n\non scalars this is the scalar expression `{node.op}`, not an op call: "
            "the caller can compute it, so it does not block the scalar hoist"
        )
    return None
