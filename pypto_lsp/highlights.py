"""Document highlights of a captured variable inside a scope: its reads as `Read`, its writes
(assignments, slots an op writes) as `Write`, so the editor shows where a kernel writes a
tensor."""

from __future__ import annotations

from lsprotocol import types

from .captures import capture_uses, capturing_scope
from .convert import PositionMapper
from .queries import word_at
from .session import Snapshot


def document_highlights(
    snapshot: Snapshot, mapper: PositionMapper, position: types.Position
) -> list[types.DocumentHighlight] | None:
    line, col = mapper.to_core(position)
    word = word_at(snapshot.lines, line, col)
    if word is None or word.before.rstrip().endswith("."):
        return None
    found = capturing_scope(snapshot, word.text, line, col)
    if found is None:
        return None
    uses = capture_uses(snapshot, found[0], {word.text})
    return [
        types.DocumentHighlight(
            range=mapper.range(use.span),
            kind=types.DocumentHighlightKind.Write if use.write else types.DocumentHighlightKind.Read,
        )
        for use in uses
    ] or None
