"""Code actions: quick fixes for the diagnostics under the requested range.

Each fix rewrites only the top-level unit holding the diagnostic (see `quick_fixes`); the edit
sent is the smallest replacement that turns the old unit text into the new one, so the client
moves nothing else (cursor, folds, other diagnostics).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lsprotocol import types

from pypto_core.diagnostics import Diagnostic
from pypto_core.frontend import split_units
from pypto_core.ir import Direction
from pypto_core.span import Span

from .convert import PositionMapper, lsp_ranges_overlap
from .diagnostics import to_lsp
from .provenance import quick_fixes_available
from .queries import innermost_scopes
from .session import Snapshot


def code_actions(
    snapshot: Snapshot,
    mapper: PositionMapper,
    requested: types.Range,
    only: Sequence[str] | None,
    document_changes: bool,
) -> list[types.CodeAction]:
    if only is not None and not any(types.CodeActionKind.QuickFix.value.startswith(kind) for kind in only):
        return []
    if not quick_fixes_available():  # the server said so once at start (see provenance)
        return []
    from .quick_fixes import FIXABLE_CODES, fixes_for  # imports libcst: only once it is known to load

    wanted = [
        d
        for d in snapshot.analysis.diagnostics
        if d.code in FIXABLE_CODES and lsp_ranges_overlap(mapper.range(d.span), requested)
    ]
    if not wanted:
        return []
    units = split_units(snapshot.text)
    actions = []
    for diagnostic in wanted:
        unit = next((u for u in units if u.start_line <= diagnostic.span.start_line < u.end_line), None)
        if unit is None:
            continue
        line = diagnostic.span.start_line - unit.start_line + 1
        data = _with_scope_inputs(snapshot, diagnostic)
        fixes = fixes_for(diagnostic.code, unit.text, line, diagnostic.span.start_col, data)
        for title, new_text in fixes:
            edit = _minimal_edit(unit.text, new_text, unit.start_line, mapper)
            actions.append(_action(snapshot, title, diagnostic, mapper, edit, document_changes))
    return actions


def _with_scope_inputs(snapshot: Snapshot, diagnostic: Diagnostic) -> dict[str, Any]:
    """The diagnostic's data plus, for PTO301, what the scope around it only reads (`inputs`)
    and which of those are scalars: what decides whether its scalar can move to the caller."""
    if diagnostic.code != "PTO301":
        return diagnostic.data
    span = diagnostic.span
    records = innermost_scopes(snapshot, span.start_line, span.start_col)
    inputs = [p for r in records for p in r.params if p.direction is Direction.In]
    return {
        **diagnostic.data,
        "inputs": [p.shown for p in inputs],
        "scalar_inputs": [p.shown for p in inputs if p.type.startswith("Scalar")],
    }


def _action(
    snapshot: Snapshot,
    title: str,
    diagnostic: Diagnostic,
    mapper: PositionMapper,
    edit: types.TextEdit,
    document_changes: bool,
) -> types.CodeAction:
    if document_changes:
        workspace_edit = types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=snapshot.uri, version=snapshot.version
                    ),
                    edits=[edit],
                )
            ]
        )
    else:
        workspace_edit = types.WorkspaceEdit(changes={snapshot.uri: [edit]})
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[to_lsp(diagnostic, snapshot.uri, mapper, snapshot.lines_of)],
        is_preferred=True,
        edit=workspace_edit,
    )


def _minimal_edit(old: str, new: str, first_line: int, mapper: PositionMapper) -> types.TextEdit:
    """One edit replacing only the differing middle of `old` (a unit starting at `first_line`)."""
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    start = _position_in(old, prefix, first_line)
    end = _position_in(old, len(old) - suffix, first_line)
    return types.TextEdit(range=mapper.range(Span(*start, *end)), new_text=new[prefix : len(new) - suffix])


def _position_in(text: str, offset: int, first_line: int) -> tuple[int, int]:
    """(file line, code-point column) of an offset into a unit's `\\n`-joined text."""
    before = text[:offset]
    line = before.count("\n")
    return first_line + line, offset - (before.rfind("\n") + 1)
