"""Documents whose lines are the LSP's lines, kept up to date without re-reading the whole text.

pygls splits a document with `str.splitlines`, which also breaks at form feed, `\\x1c`-`\\x1e`,
NEL and the Unicode line/paragraph separators; the LSP counts only `\\n`, `\\r\\n` and `\\r`.
A client's incremental change after a form feed (common in Python sources) would then land
on the wrong line and the server's text would silently drift from the editor's. This workspace
hands out documents that split as the protocol (and `pypto_core.span`) does.

pygls also re-splits and re-writes the whole document, line by line in Python, on every
incremental change: 2 ms per keystroke in a 5,000-line file, a tenth of the whole edit's
budget. Here the split lines are kept with the text they came from, and a change re-splits
only the lines around the edited range (one line either side, since a `\\r` and a `\\n` that
meet there join into one line break); the new text is then one C-level join. The edited lines
are cut exactly as pygls cuts them, so the text is the same as pygls would make.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

_LSP_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def lsp_lines(text: str) -> tuple[str, ...]:
    """`text` cut after each LSP line break, line breaks kept (as pygls's `lines`)."""
    return tuple(_LSP_LINE.findall(text))


def _without_break(line: str) -> str:
    return line[:-2] if line.endswith("\r\n") else line[:-1] if line.endswith(("\r", "\n")) else line


class LspTextDocument(TextDocument):
    # (source, its lines, the same lines without their line breaks), for the last source
    _split: tuple[str, tuple[str, ...], tuple[str, ...]] | None = None

    @property
    def lines(self) -> Sequence[str]:
        return self._current()[1]

    @property
    def plain_lines(self) -> tuple[str, ...]:
        """The lines without their line breaks, as `pypto_core.span.split_lines` cuts the
        text (a text ending in a line break has a last, empty line), kept up to date the same
        way: splitting a 5,000-line text again was a tenth of a keystroke's analysis."""
        source, _, plain = self._current()
        return (*plain, "") if not source or source.endswith(("\r", "\n")) else plain

    def _current(self) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
        source = self.source
        if self._split is None or self._split[0] is not source:
            lines = lsp_lines(source)
            self._split = (source, lines, tuple(map(_without_break, lines)))
        return self._split

    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        _, lines, plain = self._current()
        server_range = self._position_codec.range_from_client_units(lines, change.range)
        start, end = server_range.start, server_range.end
        if not start.line <= end.line < len(lines):
            super()._apply_incremental_change(change)  # an append at the end, or a reversed range
            return
        first, last = max(start.line - 1, 0), min(end.line + 2, len(lines))
        region = "".join(
            (
                *lines[first : start.line],
                lines[start.line][: start.character],
                change.text,
                lines[end.line][end.character :],
                *lines[end.line + 1 : last],
            )
        )
        region_lines = lsp_lines(region)
        new_lines = lines[:first] + region_lines + lines[last:]
        self._source = "".join(new_lines)
        self._split = (
            self._source,
            new_lines,
            plain[:first] + tuple(map(_without_break, region_lines)) + plain[last:],
        )


class LspWorkspace(Workspace):
    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return LspTextDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self.position_codec,
        )


def lsp_workspace(workspace: Workspace, sync_kind: types.TextDocumentSyncKind) -> LspWorkspace:
    """The same (still empty) workspace pygls made at `initialize`, with LSP line splitting."""
    return LspWorkspace(
        workspace.root_uri,
        sync_kind,
        list(workspace.folders.values()),
        workspace.position_encoding,
    )
