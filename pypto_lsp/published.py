"""The `publishDiagnostics` parameters of a document, as JSON, each diagnostic's object kept from
one publish to the next.

A whole-model file is published after every keystroke with hundreds of diagnostics
(pypto-lib's `prefill_cp_fwd_draft.py`: 294, 246 KB of JSON), and most are the same as in the
last publish. Made through lsprotocol's types and cattrs, their JSON cost 140 µs each (41 ms a
publish on a busy machine, more than the keystroke's analysis of some files); kept, a
diagnostic costs a dictionary lookup. A diagnostic's JSON is a function of the diagnostic (its
`data` too, which `Diagnostic` equality leaves out), the document, the docs link, the position
encoding and the text of the lines its ranges fall on (code points become UTF-16 units there,
a BOM shifts line 0, a line past the end is clamped to the last): that is its key. What is kept
is the diagnostic's JSON text: serialising the whole publish again was 3.5 ms a keystroke on
that file (py-spy of the server, session 18), joining the kept texts is a copy.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from cattrs import Converter

from pypto_core.diagnostics import Diagnostic
from pypto_core.span import Span

from .convert import PositionMapper
from .diagnostics import LinesOf, to_lsp


@dataclass(frozen=True)
class PublishParams:
    """`PublishDiagnosticsParams`, each diagnostic as its JSON text (ASCII, as `json.dumps`
    writes it)."""

    uri: str
    version: int | None
    diagnostics: list[str]

    def json(self) -> str:
        version = "" if self.version is None else f', "version": {int(self.version)}'
        return f'{{"uri": {json.dumps(self.uri)}, "diagnostics": [{", ".join(self.diagnostics)}]{version}}}'


class PublishedDiagnostics:
    """Each open document's last published diagnostics as JSON texts, by their key."""

    def __init__(self, converter: Converter) -> None:
        self._converter = converter
        self._last: dict[str, dict[Hashable, str]] = {}

    def params(
        self,
        uri: str,
        version: int | None,
        diagnostics: Sequence[Diagnostic],
        mapper: PositionMapper,
        lines_of: LinesOf,
        docs_url: str,
    ) -> PublishParams:
        """The publish's parameters; what they hold is kept for the next publish."""
        last = self._last.get(uri, {})
        now: dict[Hashable, str] = {}
        found = []
        for diagnostic in diagnostics:
            key = _key(diagnostic, mapper, lines_of, docs_url)
            made = now.get(key)
            if made is None:
                made = last.get(key)
            if made is None:
                made = json.dumps(
                    self._converter.unstructure(to_lsp(diagnostic, uri, mapper, lines_of, docs_url))
                )
            now[key] = made
            found.append(made)
        self._last[uri] = now
        return PublishParams(uri, version, found)

    def forget(self, uri: str) -> None:
        """The document was cleared or closed: nothing of it is kept."""
        self._last.pop(uri, None)


def _key(diagnostic: Diagnostic, mapper: PositionMapper, lines_of: LinesOf, docs_url: str) -> Hashable:
    lines = mapper.lines
    texts = [*_lines_at(lines, diagnostic.span)]
    for related in diagnostic.related:
        texts += _lines_at(lines_of(related.path) if related.path else lines, related.span)
    data = tuple((key, repr(value)) for key, value in diagnostic.data.items()) if diagnostic.data else ()
    return diagnostic, data, docs_url, mapper.codec.encoding, tuple(texts)


def _lines_at(lines: Sequence[str], span: Span) -> tuple[object, object]:
    return _line(lines, span.start_line), _line(lines, span.end_line)


def _line(lines: Sequence[str], index: int) -> object:
    """What the position of a column on line `index` depends on: the line's text (with its
    BOM on line 0); past the end, the last line, which the position is clamped to."""
    if index < len(lines):
        return lines[index]
    return len(lines), lines[-1] if lines else ""
