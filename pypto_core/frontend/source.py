"""Turning bytes and parser errors into text and diagnostics, without ever raising.

Positions follow `pypto_core.span`: 0-based lines split the way LSP clients split them
(`\\r\\n`, `\\r`, `\\n`) and code-point columns. CPython's `ast` reports UTF-8 byte columns and
1-based lines; the conversions live here so every part of the front end agrees.
"""

from __future__ import annotations

import ast
import codecs
import io
import tokenize
import warnings

from ..diagnostics import Diagnostic, error
from ..span import Span, make_span

SYNTAX_ERROR = "PTO001"
ENCODING_ERROR = "PTO002"


def decode_source(data: bytes) -> tuple[str, list[Diagnostic]]:
    """Decode a file read from disk as Python does (BOM, PEP 263 cookie, else UTF-8).

    Undecodable bytes are replaced (U+FFFD) so the rest of the file is still analysed, and one
    PTO002 diagnostic names the encoding problem at the first bad byte.
    """
    diagnostics: list[Diagnostic] = []
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        diagnostics.append(
            error(
                ENCODING_ERROR,
                f"cannot determine the file's encoding: {exc.msg}",
                Span(0, 0, 0, 0),
                "declare a known encoding (`# -*- coding: utf-8 -*-`) or save the file as UTF-8",
            )
        )
        encoding = "utf-8"
    if encoding == "utf-8-sig" or data.startswith(codecs.BOM_UTF8):
        data = data.removeprefix(codecs.BOM_UTF8)
        encoding = "utf-8"
    if not codecs.lookup(encoding)._is_text_encoding:  # rot13, zlib, base64: CPython refuses them
        diagnostics.append(_not_a_text_encoding(data, encoding))
        encoding = "utf-8"
    try:
        return data.decode(encoding), diagnostics
    except UnicodeDecodeError as exc:
        good = data[: exc.start].decode(encoding, errors="replace")
        lines = good.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        where = Span(len(lines) - 1, len(lines[-1]), len(lines) - 1, len(lines[-1]) + 1)
        bad = data[exc.start : exc.end].hex(" ")
        diagnostics.append(
            error(
                ENCODING_ERROR,
                f"the file is not valid {encoding}: byte(s) {bad} cannot be decoded ({exc.reason}); "
                "they are shown as U+FFFD",
                where,
                f"save the file as {encoding} (or declare its real encoding in a coding comment)",
                encoding=encoding,
            )
        )
        return data.decode(encoding, errors="replace"), diagnostics


def _not_a_text_encoding(data: bytes, encoding: str) -> Diagnostic:
    """PTO002 on the coding cookie naming a codec that does not decode bytes to text."""
    lines = data.split(b"\n", 2)[:2]
    line = next((n for n, text in enumerate(lines) if b"coding" in text), 0)
    width = len(lines[line].rstrip(b"\r").decode("utf-8", errors="replace")) if lines else 0
    return error(
        ENCODING_ERROR,
        f"the coding comment names '{encoding}', which is not a text encoding; the file is read as UTF-8",
        Span(line, 0, line, width),
        "declare a text encoding (`# -*- coding: utf-8 -*-`) or remove the coding comment",
        encoding=encoding,
    )


def byte_to_col(line: str, byte_offset: int) -> int:
    """The code-point column of a UTF-8 byte offset into `line` (what `ast` col_offsets are)."""
    if line.isascii():
        return min(byte_offset, len(line))
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))


def _parse_failure(exc: BaseException, text: str, lines: list[str], line_offset: int) -> Diagnostic:
    """The PTO001 diagnostic for `ast.parse(text)` having raised `exc`.

    `lines` are `text`'s lines and `line_offset` the file line of its first line. SyntaxError
    offsets from a `str` source are 1-based code-point columns (end_offset 0 or -1 means
    "unknown", then the range covers one character).
    """
    if isinstance(exc, SyntaxError) and "null bytes" in str(exc.msg or exc):
        return _nul_byte(text, line_offset)
    if isinstance(exc, UnicodeEncodeError):
        return _lone_surrogate(text, exc.start, line_offset)
    if isinstance(exc, SyntaxError) and exc.lineno is not None:
        line = _clamp(exc.lineno - 1, lines)
        col = min(max((exc.offset or 1) - 1, 0), len(lines[line]))
        end_line, end_col = line, col + 1
        if exc.end_lineno is not None and exc.end_offset is not None and exc.end_offset > 0:
            end_line = _clamp(exc.end_lineno - 1, lines)
            end_col = exc.end_offset - 1
            if (end_line, end_col) <= (line, col):
                end_line, end_col = line, col + 1
        end_col = min(end_col, len(lines[end_line]))  # an error at a line's end is an empty range
        kind = type(exc).__name__
        return error(
            SYNTAX_ERROR,
            f"{kind}: {exc.msg}",
            Span(line + line_offset, col, end_line + line_offset, end_col),
            "fix the syntax error; the rest of the file is still analysed",
        )
    if isinstance(exc, (RecursionError, MemoryError)) or "too many nested" in str(exc):
        return error(
            SYNTAX_ERROR,
            "the code is nested too deeply for the Python parser",
            _first_line(lines, line_offset),
            "split the expression or statement into smaller ones",
        )
    return error(
        SYNTAX_ERROR,
        f"the Python parser rejected this code: {exc}",
        _first_line(lines, line_offset),
        "fix the syntax error; the rest of the file is still analysed",
    )


def parse(text: str, lines: list[str], line_offset: int) -> tuple[ast.Module | None, Diagnostic | None]:
    """`ast.parse(text)`, turning every way it can fail into one PTO001 diagnostic.

    CPython's SyntaxWarnings (`1if x`, invalid escapes) are silenced: they would go to the
    CLI's stderr or the server's log on every keystroke, and they are not ours to report."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            return ast.parse(text), None
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as exc:
        return None, _parse_failure(exc, text, lines, line_offset)


def _lone_surrogate(text: str, index: int, line_offset: int) -> Diagnostic:
    """PTO001 where the text holds a lone surrogate (U+D800-U+DFFF: an editor can hold one,
    UTF-8 cannot encode it). It was reported on the unit's first line."""
    line = text.count("\n", 0, index)
    col = index - (text.rfind("\n", 0, index) + 1)
    return error(
        SYNTAX_ERROR,
        f"the code contains a lone surrogate (U+{ord(text[index]):04X}), which Python source cannot hold",
        Span(line + line_offset, col, line + line_offset, col + 1),
        "delete the character (half of a UTF-16 pair, left by a broken paste or conversion)",
    )


def _nul_byte(text: str, line_offset: int) -> Diagnostic:
    index = text.find("\0")
    line = text.count("\n", 0, max(index, 0))
    col = index - (text.rfind("\n", 0, index) + 1) if index >= 0 else 0
    return error(
        SYNTAX_ERROR,
        "the code contains a NUL byte (\\x00), which Python source cannot contain",
        Span(line + line_offset, col, line + line_offset, col + 1),
        "delete the NUL character (the file may have been saved in a binary or UTF-16 format)",
    )


def _first_line(lines: list[str], line_offset: int) -> Span:
    return Span(line_offset, 0, line_offset, len(lines[0]) if lines else 0)


def _clamp(line: int, lines: list[str]) -> int:
    return max(0, min(line, len(lines) - 1))


_UNREAD = -2  # a line `UnitSpans` has not looked at yet


class UnitSpans:
    """`node_span` for the nodes of one unit, the common case answered from a table.

    The body builder asks for the span of nearly every node it builds (~30k per 10k lines).
    Per unit line (ast line - 1) the table holds the line's length when it is ASCII (where
    byte columns are code-point columns) and -1 otherwise, so a node on ASCII lines needs no
    call per line or column. A line enters the table the first time a node on it is asked
    about; until then, and for anything unusual, `node_span` answers, which gives the same
    span."""

    __slots__ = ("_lines", "_offset", "_widths")

    def __init__(self, source_lines: list[str], line_offset: int) -> None:
        self._lines = source_lines
        self._offset = line_offset
        self._widths: list[int] = []

    def span(self, node: ast.AST) -> Span:
        try:
            first = node.lineno - 1  # type: ignore[attr-defined]
            last = node.end_lineno - 1  # type: ignore[attr-defined]
            col, end_col = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
            widths = self._widths
            if 0 <= first <= last and col <= widths[first] and end_col <= widths[last]:
                offset = self._offset
                return make_span(first + offset, col, last + offset, end_col)
        except (AttributeError, TypeError, IndexError):  # no (end) position, or a line not in the table
            pass
        self._read_lines(node)
        return node_span(node, self._lines, self._offset)

    def _read_lines(self, node: ast.AST) -> None:
        """Enter the lines `node` spans (those inside the file) into the table."""
        first, last = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        if not isinstance(first, int) or not isinstance(last, int):
            return
        widths, lines, offset = self._widths, self._lines, self._offset
        stop = min(last, len(lines) - offset)  # table indices below `stop`
        if stop > len(widths):
            widths.extend([_UNREAD] * (stop - len(widths)))
        for index in range(max(first - 1, 0), stop):
            if widths[index] == _UNREAD:
                line = lines[index + offset]
                widths[index] = len(line) if line.isascii() else -1


def node_span(node: ast.AST, source_lines: list[str], line_offset: int) -> Span:
    """The file span of a node of a unit parsed on its own (its line 1 is file line
    `line_offset`), with `ast`'s byte columns turned into code-point columns: missing positions
    default to the unit's first line, out-of-range columns are clamped. The body builder,
    which asks for nearly every node, answers the common case from a table (`UnitSpans`)."""
    lineno = getattr(node, "lineno", 1)
    end_lineno = getattr(node, "end_lineno", None) or lineno
    col = getattr(node, "col_offset", 0)
    end_col = getattr(node, "end_col_offset", None)
    start, end = lineno - 1 + line_offset, end_lineno - 1 + line_offset
    return make_span(
        start,
        byte_to_col(_line(source_lines, start), col),
        end,
        byte_to_col(_line(source_lines, end), col if end_col is None else end_col),
    )


def name_span(node: ast.FunctionDef | ast.ClassDef, source_lines: list[str], line_offset: int) -> Span:
    """The span of the name in `def name` / `class name` (`ast` records only the statement)."""
    line = node.lineno - 1 + line_offset
    text = _line(source_lines, line)
    keyword = "class" if isinstance(node, ast.ClassDef) else "def"
    at = text.find(keyword, byte_to_col(text, node.col_offset))
    found = text.find(node.name, at + len(keyword)) if at >= 0 else -1
    if found < 0:
        return node_span(node, source_lines, line_offset)
    return make_span(line, found, line, found + len(node.name))


def _line(source_lines: list[str], index: int) -> str:
    return source_lines[index] if 0 <= index < len(source_lines) else ""
