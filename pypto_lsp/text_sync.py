"""Documents whose lines are the LSP's lines, kept up to date without re-reading the whole text.

pygls splits a document with `str.splitlines`, which also breaks at form feed, `\\x1c`-`\\x1e`,
NEL and the Unicode line/paragraph separators; the LSP counts only `\\n`, `\\r\\n` and `\\r`.
A client's incremental change after a form feed (common in Python sources) would then land
on the wrong line and the server's text would silently drift from the editor's. This workspace
hands out documents that split as the protocol (and `pypto_core.span`) does.

pygls also re-splits and re-writes the whole document, line by line in Python, on every
incremental change: 2 ms per keystroke in a 5,000-line file, a tenth of the whole edit's
budget. Here a document keeps its lines in lists edited in place, and a change re-splits only
the lines around the edited range (one line either side, since a `\\r` and a `\\n` that meet
there join into one line break); a version (`DocumentText`) is made from the lists only when
something reads it, and its text is joined only when something reads that. The edited lines
are cut exactly as pygls cuts them, so the text is the same as pygls would make.
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Sequence

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace
from pygls.workspace.position_codec import Utf16, Utf32

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


# CPython keeps a string in 1, 2 or 4 bytes per character, 4 only when a character needs them
# (a compact string's size is this header plus (length + 1) * that width): `sys.getsizeof`
# then tells without reading the line that it holds no astral character.
_STR_HEADER = sys.getsizeof("é" * 2) - 3 if sys.implementation.name == "cpython" else None


def _has_astral(line: str) -> bool:
    """Whether a UTF-16 client counts two units for some character of `line` (the encoder runs
    in C; the regex search it replaces walked a 5,000-character line at 70 us; the size check
    spares the encoder's copy of a long line on each change of a burst into it)."""
    if _STR_HEADER is not None and sys.getsizeof(line) < _STR_HEADER + 4 * (len(line) + 1):
        return False
    return len(line.encode("utf-16-le", "surrogatepass")) != 2 * len(line)


class DocumentText:
    """One version of a document, immutable: its LSP lines, the lines as the analysis splits
    them (`pypto_core.span.split_lines`) and the joined text, each made when first read.

    An editing document (`LspTextDocument`) makes one only when a version is read (an analysis
    starts, a request looks at the text), from the lines it keeps up to date: a burst of changes
    (issue 15: 5,000 `didChange` in one write) copies no line list per change.
    """

    __slots__ = ("_lines", "_plain", "_text")

    def __init__(
        self,
        text: str | None = None,
        lines: tuple[str, ...] | None = None,
        plain: tuple[str, ...] | None = None,
    ) -> None:
        """`text` or `lines` (or both, alike); `plain`: the analysis lines of the same text."""
        self._text = text
        self._lines = lines
        self._plain = plain

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
            self._plain = tuple(split_lines(self.text))
        return self._plain


# One `contentChanges` entry of a `didChange`, decoded without lsprotocol's structuring
# (`protocol.decode_did_change`): a range in client units (start line, start character, end
# line, end character) and its new text, or a whole document's new text.
RangeEdit = tuple[int, int, int, int, str]
Edit = RangeEdit | str

# Guards an editing document's lines while a version is made from them: the analysis worker
# reads open documents' texts (an importer's imports), the event loop edits them.
_LOCK = threading.Lock()


class LspTextDocument(TextDocument):
    """A document split the LSP way. Its lines are kept in two lists edited in place (the LSP
    lines and the analysis lines, which a change re-splits only around the edited range), and
    `content`, the current version, is made from them when first read after a change: a tuple
    copy of each list once per analysed or requested version, not per change."""

    _frozen: DocumentText | None = None  # the current version, once made (or set as a text)
    _lines: list[str] | None = None  # the LSP lines being edited (None: `_frozen` holds them)
    _plain: list[str] | None = None  # their analysis lines, one per LSP line

    @property  # type: ignore[override]
    def _source(self) -> str | None:
        if self._frozen is None and self._lines is None:
            return None
        return self.content.text

    @_source.setter
    def _source(self, source: str | None) -> None:
        with _LOCK:
            self._frozen = None if source is None else DocumentText(text=source)
            self._lines = self._plain = None

    @property
    def content(self) -> DocumentText:
        """The current version, what the scheduler is handed when an analysis starts."""
        with _LOCK:
            frozen = self._frozen
            if frozen is None and self._lines is not None and self._plain is not None:
                lines, plain = self._lines, self._plain
                last = ("",) if _ends_with_break(lines) else ()
                frozen = self._frozen = DocumentText(lines=tuple(lines), plain=(*plain, *last))
        return frozen if frozen is not None else DocumentText(text=self.source)

    @property
    def lines(self) -> Sequence[str]:
        return self.content.lines

    @property
    def plain_lines(self) -> tuple[str, ...]:
        """The lines without their line breaks, as `pypto_core.span.split_lines` cuts the
        text (a text ending in a line break has a last, empty line), kept up to date by the
        changes."""
        return self.content.plain_lines

    def apply_edits(self, edits: Sequence[Edit]) -> None:
        """Changes in order (one `didChange`'s, or a run of them: an incremental document's, as
        pygls applies them one by one); a stretch of typing into one line is applied to that
        line in one go (`_type_into_line`)."""
        at, count = 0, len(edits)
        while at < count:
            edit = edits[at]
            if isinstance(edit, str):
                self._source = edit
                at += 1
            else:
                at = self._type_into_line(edits, at)

    def _type_into_line(self, edits: Sequence[Edit], at: int) -> int:
        """Applies `edits[at]`, and the edits after it while each is `_edit_in_line`'s kind of
        edit into the same line with ASCII text (a burst of typing: thousands of one-character
        insertions), on a string held here and written to the lists once; the index after
        the last edit applied. ASCII text keeps a line whose client units are its code points
        so, which is then asked once. Each edit's columns are clamped and checked as `_apply_range`
        and `_edit_in_line` do, so the text is the one they would make; the first edit that
        is not of that kind is left to them."""
        first = edits[at]
        assert not isinstance(first, str)
        lines, plain = self._editing()
        line = first[0]
        if line >= len(lines) or line != first[2]:
            self._apply_range(*first)
            return at + 1
        old = lines[line]
        if (
            not self._units_are_code_points(old)
            or old.endswith(("\r", "\r\n"))
            or (line > 0 and lines[line - 1].endswith("\r"))
        ):
            self._apply_range(*first)
            return at + 1
        broken = old.endswith("\n")
        # the line without its break (it never holds a `\r`) as `head` joined + `tail`, with the
        # cursor between them: typing at the cursor appends to `head` (a burst of 5,000 copied
        # the growing line twice per character), any other edit joins them and splits again
        head, tail = [old[:-1] if broken else old], ""
        cursor = size = len(head[0])
        count, done = len(edits), at
        while done < count:
            edit = edits[done]
            if isinstance(edit, str) or edit[0] != line or edit[2] != line:
                break
            text = edit[4]
            if "\n" in text or "\r" in text or not text.isascii():
                break
            length = size + broken  # `_clamped`'s: a column past it is the last one's
            start = 0 if length == 0 else edit[1] if edit[1] <= length else length - 1
            end = 0 if length == 0 else edit[3] if edit[3] <= length else length - 1
            if start > size or end > size:  # (it would cut the line break)
                break
            if start == end == cursor and (text or size or broken):
                head.append(text)
                cursor += len(text)
                size += len(text)
            else:
                current = "".join(head) + tail
                new = current[:start] + text + current[end:]
                if not new and not broken:  # a last line emptied: it is no line any more
                    break
                cursor, size = start + len(text), len(new)
                head, tail = [new[:cursor]], new[cursor:]
            done += 1
        if done == at:
            self._apply_range(*first)
            return at + 1
        current = "".join(head) + tail
        with _LOCK:
            lines[line] = current + "\n" if broken else current
            plain[line] = current
            self._frozen = None
        return done

    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        start, end = change.range.start, change.range.end
        self._apply_range(start.line, start.character, end.line, end.character, change.text)

    def _apply_range(self, start_line: int, start_char: int, end_line: int, end_char: int, text: str) -> None:
        lines, plain = self._editing()
        if start_line == end_line < len(lines) and self._units_are_code_points(lines[start_line]):
            old = lines[start_line]
            start, end = (start_line, _clamped(old, start_char)), (end_line, _clamped(old, end_char))
            if self._edit_in_line(lines, plain, start_line, start[1], end[1], text):
                return
        else:
            start = self._to_code_points(lines, start_line, start_char)
            end = self._to_code_points(lines, end_line, end_char)
        if not start[0] <= end[0] < len(lines):  # an append at the end, or a reversed range
            at, to = types.Position(start_line, start_char), types.Position(end_line, end_char)
            change = types.TextDocumentContentChangePartial(range=types.Range(at, to), text=text)
            super()._apply_incremental_change(change)
            return
        first, last = max(start[0] - 1, 0), min(end[0] + 2, len(lines))
        region = "".join(
            (
                *lines[first : start[0]],
                lines[start[0]][: start[1]],
                text,
                lines[end[0]][end[1] :],
                *lines[end[0] + 1 : last],
            )
        )
        replaced = _fast_lsp_lines(region)
        with _LOCK:
            lines[first:last] = replaced
            plain[first:last] = map(_without_break, replaced)
            self._frozen = None

    def _edit_in_line(
        self, lines: list[str], plain: list[str], line: int, start: int, end: int, text: str
    ) -> bool:
        """Typing: an edit inside one line that keeps its line break and makes no other, when
        no `\\r` is near (a `\\r` ending the line before would join a `\\n` that starts this
        one), applied to that line alone, with no scan of it (an LSP line holds one line break,
        at its end). False: not such an edit, nothing done."""
        old = lines[line]
        if "\n" in text or "\r" in text or old.endswith(("\r", "\r\n")):
            return False
        broken = old.endswith("\n")
        limit = len(old) - 1 if broken else len(old)  # (a column past it would cut the break)
        if start > limit or end > limit or (line > 0 and lines[line - 1].endswith("\r")):
            return False
        new = old[:start] + text + old[end:]
        if not new:  # a last line emptied: it is no line any more
            return False
        with _LOCK:
            lines[line] = new
            plain[line] = new[:-1] if broken else new
            self._frozen = None
        return True

    def _editing(self) -> tuple[list[str], list[str]]:
        """The lists a change edits, made from the current version after a text was set."""
        if self._lines is None or self._plain is None:
            content = self.content
            lines, plain = list(content.lines), list(content.plain_lines[: len(content.lines)])
            with _LOCK:
                self._lines, self._plain = lines, plain
        return self._lines, self._plain

    def _to_code_points(self, lines: Sequence[str], line: int, character: int) -> tuple[int, int]:
        """pygls's `position_from_client_units`, without its loop over the line's characters
        in Python where a client unit is one code point (an ASCII line; a line without astral
        characters in UTF-16/32): typing 5,000 characters into one line cost 35 of a burst's 74
        CPU seconds there. Its clamping quirks are kept (`_clamped`), so the text is the one
        pygls would make."""
        if line < len(lines) and self._units_are_code_points(lines[line]):
            return line, _clamped(lines[line], character)
        found = self._position_codec.position_from_client_units(lines, types.Position(line, character))
        return found.line, found.character

    def _units_are_code_points(self, line: str) -> bool:
        """Whether the client's units on `line` are its code points."""
        return line.isascii() or (
            isinstance(self._position_codec.impl, Utf16 | Utf32) and not _has_astral(line)
        )


def _clamped(line: str, character: int) -> int:
    """pygls's column for `character` on `line` where units are code points: a column past the
    end of the line is taken as the last character's (its line break's, but for `\\r\\n`)."""
    length = len(line) - 1 if line.endswith("\r\n") else len(line)
    return 0 if length == 0 else character if character <= length else length - 1


class FixedText:
    """A text source that does not change (a document pygls made without this workspace)."""

    def __init__(self, text: str) -> None:
        self.content = DocumentText(text=text)


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
