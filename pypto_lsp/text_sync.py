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
meet there join into one line break); the new text is joined only when something reads it
(`DocumentText`). The edited lines are cut exactly as pygls cuts them, so the text is the same
as pygls would make.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace
from pygls.workspace.position_codec import ServerTextPosition, Utf16, Utf32

from pypto_core.span import split_lines

_LSP_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def lsp_lines(text: str) -> tuple[str, ...]:
    """`text` cut after each LSP line break, line breaks kept (as pygls's `lines`)."""
    return tuple(_LSP_LINE.findall(text))


def _fast_lsp_lines(text: str) -> tuple[str, ...]:
    """`lsp_lines`, split in C where no `\\r` makes the regex necessary (the edited region of
    a long line: the regex was a fifth of a keystroke's text sync)."""
    if "\r" in text:
        return lsp_lines(text)
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return tuple(lines)


def _without_break(line: str) -> str:
    return line[:-2] if line.endswith("\r\n") else line[:-1] if line.endswith(("\r", "\n")) else line


def _ends_with_break(lines: Sequence[str]) -> bool:
    return not lines or lines[-1].endswith(("\r", "\n"))


def _has_astral(line: str) -> bool:
    """Whether a UTF-16 client counts two units for some character of `line` (the encoder runs
    in C; the regex search it replaces walked a 5,000-character line at 70 us)."""
    return len(line.encode("utf-16-le", "surrogatepass")) != 2 * len(line)


class DocumentText:
    """One version of a document: its LSP lines, with the joined text and the lines as the
    analysis splits them (`pypto_core.span.split_lines`) made when first read.

    A burst of changes (issue 15: 5,000 `didChange` in one write) is then applied without
    joining the whole text or copying its line list twice per change: only the version an
    analysis starts from is joined. When the version it was edited from had its analysis lines
    made (one keystroke after an analysis), this version's are made from them, re-splitting only
    the edited lines, so typing does not split the whole text again either.
    """

    __slots__ = ("_lines", "_pending", "_plain", "_text")

    def __init__(
        self,
        text: str | None = None,
        lines: tuple[str, ...] | None = None,
        pending: tuple[tuple[str, ...], int, int, tuple[str, ...]] | None = None,
    ) -> None:
        """`text` or `lines` (or both, alike); `pending`: (the edited version's analysis lines,
        one per LSP line, without the last empty one; the first and end index of the lines
        replaced; the replacing lines' analysis lines)."""
        self._text = text
        self._lines = lines
        self._plain: tuple[str, ...] | None = None
        self._pending = pending

    @property
    def lines(self) -> tuple[str, ...]:
        """The lines, each with its line break (as pygls's `lines`)."""
        if self._lines is None:
            self._lines = lsp_lines(self.text)
        return self._lines

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = "".join(self._lines or ())
        return self._text

    @property
    def plain_lines(self) -> tuple[str, ...]:
        """The lines without their line breaks, as `split_lines` cuts the text (a text ending
        in a line break has a last, empty line)."""
        if self._plain is None:
            pending = self._pending
            if pending is not None:
                before, first, last, region = pending  # `before` aligned with the old lines
                plain = before[:first] + region + before[last:]
                self._plain = (*plain, "") if _ends_with_break(self.lines) else plain
            else:
                self._plain = tuple(split_lines(self.text))
            self._pending = None
        return self._plain

    def edited(self, first: int, last: int, region: tuple[str, ...]) -> DocumentText:
        """This version with lines `first` to `last` (exclusive) replaced by `region`."""
        lines = self.lines
        pending = None
        if self._plain is not None:
            plain = self._plain[:-1] if _ends_with_break(lines) else self._plain
            pending = (plain, first, last, tuple(map(_without_break, region)))
        return DocumentText(lines=lines[:first] + region + lines[last:], pending=pending)


class LspTextDocument(TextDocument):
    # The current version; pygls's `_source` reads and writes it (None: not opened with a text)
    _content: DocumentText | None = None

    @property  # type: ignore[override]
    def _source(self) -> str | None:
        return None if self._content is None else self._content.text

    @_source.setter
    def _source(self, source: str | None) -> None:
        self._content = None if source is None else DocumentText(text=source)

    @property
    def content(self) -> DocumentText:
        """The current version, what the scheduler is handed per change."""
        return self._content if self._content is not None else DocumentText(text=self.source)

    @property
    def lines(self) -> Sequence[str]:
        return self.content.lines

    @property
    def plain_lines(self) -> tuple[str, ...]:
        """The lines without their line breaks, as `pypto_core.span.split_lines` cuts the
        text (a text ending in a line break has a last, empty line), kept up to date by the
        changes (`DocumentText`)."""
        return self.content.plain_lines

    def _to_code_points(self, lines: Sequence[str], position: types.Position) -> ServerTextPosition:
        """pygls's `position_from_client_units`, without its loop over the line's characters
        in Python where a client unit is one code point (an ASCII line; a line without astral
        characters in UTF-16/32): typing 5,000 characters into one line cost 35 of a burst's 74
        CPU seconds there. Its clamping quirks are kept (a column past the end of the line is
        taken as the last character's), so the text is the one pygls would make."""
        if position.line < len(lines):
            line = lines[position.line]
            if line.isascii() or (self._code_points_are_units and not _has_astral(line)):
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
        content = self.content
        lines = content.lines
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
        self._content = content.edited(first, last, _fast_lsp_lines(region))


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
