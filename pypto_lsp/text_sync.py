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
from pygls.workspace.position_codec import ServerTextPosition, Utf16, Utf32

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")  # two UTF-16 code units each
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

    def _to_code_points(self, lines: Sequence[str], position: types.Position) -> ServerTextPosition:
        """pygls's `position_from_client_units`, without its loop over the line's characters
        in Python where a client unit is one code point (an ASCII line; a line without astral
        characters in UTF-16/32): typing 5,000 characters into one line cost 35 of a burst's 74
        CPU seconds there. Its clamping quirks are kept (a column past the end of the line is
        taken as the last character's), so the text is the one pygls would make."""
        if position.line < len(lines):
            line = lines[position.line]
            if line.isascii() or (self._code_points_are_units and _ASTRAL.search(line) is None):
                length = len(line) - 1 if line.endswith("\r\n") else len(line)
                if length == 0:
                    return ServerTextPosition(position.line, 0)
                character = length - 1 if position.character > length else position.character
                return ServerTextPosition(position.line, min(character, length))
        return self._position_codec.position_from_client_units(lines, position)

    @property
    def _code_points_are_units(self) -> bool:
        return isinstance(self._position_codec.impl, Utf16 | Utf32)

    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        _, lines, plain = self._current()
        start = self._to_code_points(lines, change.range.start)
        end = self._to_code_points(lines, change.range.end)
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
