"""Core diagnostics as LSP diagnostics.

The hint (the fix in words) is appended to the message, because many clients show only the
message; related locations become `relatedInformation`; `data` carries what the quick fixes
read back (e.g. {"scalar": "n"}); `codeDescription` links the code to its entry in
docs/diagnostics.md (`<docs_url>#pto301`), so it is clickable in VS Code's Problems panel.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from lsprotocol import types

from pypto_core.diagnostics import Diagnostic, Related, Severity
from pypto_core.span import split_lines

from .convert import PositionMapper

SOURCE = "pypto"

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}


LinesOf = Callable[[str], Sequence[str]]
"""The lines of another file (by path), for a related location in it."""


def related_lines(
    diagnostics: Iterable[Diagnostic],
    text_of: Callable[[str], str | None],
    kept: dict[str, tuple[str, tuple[str, ...]]],
) -> dict[str, tuple[str, ...]]:
    """The lines of each other file the diagnostics' related locations point into, for their
    columns (`Snapshot.other_lines`). Read on the analysis worker, through the module index
    that analysed the imports (the text the analysis saw, an open document's live one):
    publishing used to read a file that is not open from disk on the event loop, once per
    publish, for up to the read deadline of a file system that does not answer. A file's
    lines are kept in `kept` (the document's, `DocumentSession.related`) with its text and
    split again only when that changed: splitting the helper modules of pypto-lib's
    prefill_cp_fwd_draft.py was 0.9 ms of every keystroke."""
    paths = {r.path for d in diagnostics for r in d.related if r.path}
    found = {}
    for path in sorted(paths):
        text = text_of(path) or ""
        last = kept.get(path)
        if last is None or (last[0] is not text and last[0] != text):
            last = kept[path] = (text, tuple(split_lines(text)))
        found[path] = last[1]
    for path in kept.keys() - paths:
        del kept[path]
    return found


def to_lsp(
    diagnostic: Diagnostic,
    uri: str,
    mapper: PositionMapper,
    lines_of: LinesOf,
    docs_url: str = "",
) -> types.Diagnostic:
    message = diagnostic.message
    if diagnostic.hint:
        message = f"{message}\nhint: {diagnostic.hint}"
    related = [_related(r, uri, mapper, lines_of) for r in diagnostic.related]
    return types.Diagnostic(
        range=mapper.range(diagnostic.span),
        message=message,
        severity=_SEVERITY[diagnostic.severity],
        code=diagnostic.code,
        code_description=types.CodeDescription(href=f"{docs_url}#{diagnostic.code.lower()}")
        if docs_url
        else None,
        source=SOURCE,
        related_information=related or None,
        data={key: _json_safe(value) for key, value in diagnostic.data.items()} or None,
    )


def _related(
    r: Related, uri: str, mapper: PositionMapper, lines_of: LinesOf
) -> types.DiagnosticRelatedInformation:
    """A location in this document, or in another file (an imported helper's): its own URI,
    its columns converted over its own lines."""
    if r.path:
        other = PositionMapper(mapper.codec, lines_of(r.path))
        location = types.Location(uri=Path(r.path).as_uri(), range=other.range(r.span))
    else:
        location = types.Location(uri=uri, range=mapper.range(r.span))
    return types.DiagnosticRelatedInformation(location=location, message=r.message)


def _json_safe(value: object) -> object:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return str(value)
