"""The state a line leaves a scan of Python source in: bracket depth, an open string, a
backslash continuation. Why a module of its own: the unit split (`units`) and the split of a
long unit into its statements (`unit_parts`) both find where statements start with it, from
the text alone and far faster than a tokenizer; and the build's memo keys (`programs`) read
which names a function's code spells (`code_words`), in one regex pass, far faster than a tree walk."""

from __future__ import annotations

import re

from ..sized_cache import sized_cache

SCAN_CACHE_CHARS = 4_000_000  # the line scans hold line strings the documents hold anyway
_STRING_OR_COMMENT = re.compile("#|'''|\"\"\"|'|\"")
_SPECIAL = re.compile("[#'\"\\\\]")  # what only `_scan_special` reads
_WORD = re.compile(r"\w+")
_LITERAL_OR_COMMENT = re.compile(
    r"'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"|'(?:\\.|[^'\\\n])*'|\"(?:\\.|[^\"\\\n])*\"|#[^\n]*"
)


def scan_line(line: str, depth: int, quote: str | None) -> tuple[int, str | None, bool]:
    """Bracket depth, open string and backslash continuation after `line`.

    Brackets between strings and comments are counted in bulk (`str.count`), so a 1 MB line of
    brackets costs a few C-level passes rather than a Python step per bracket. A line of plain
    code (no quote, `#` or backslash, outside a string: most lines) is counted at once, which
    costs less than a cache lookup; the others are cached: every edit re-splits the whole
    document, and all but the edited lines were scanned before.
    """
    if quote is None and _SPECIAL.search(line) is None:
        opened = line.count("(") + line.count("[") + line.count("{")
        closed = line.count(")") + line.count("]") + line.count("}")
        return max(depth + opened - closed, 0), None, False
    return _scan_special(line, depth, quote)


@sized_cache(SCAN_CACHE_CHARS, lambda line, depth, quote: len(line) + 1)
def _scan_special(line: str, depth: int, quote: str | None) -> tuple[int, str | None, bool]:
    """`scan_line` of a line with a string, a comment or a backslash, or inside a string."""
    pos = 0
    if quote is not None:
        end = _string_end(line, pos, quote)
        if end is None:
            return depth, _still_open(line, quote), False
        pos = end
    while True:
        token = _STRING_OR_COMMENT.search(line, pos)
        code = line[pos : token.start() if token else len(line)]
        opened = code.count("(") + code.count("[") + code.count("{")
        closed = code.count(")") + code.count("]") + code.count("}")
        depth = max(depth + opened - closed, 0)
        if token is None:
            return depth, None, line.endswith("\\")
        kind = token.group()
        if kind == "#":
            return depth, None, False
        end = _string_end(line, token.end(), kind)
        if end is None:
            return depth, _still_open(line, kind), False
        pos = end


def _string_end(line: str, pos: int, quote: str) -> int | None:
    """Where the string whose body starts at `pos` ends (after its closing quote), if on this line."""
    while True:
        found = line.find(quote, pos)
        if found < 0:
            return None
        escapes = found
        while escapes > pos and line[escapes - 1] == "\\":
            escapes -= 1
        if (found - escapes) % 2 == 0:
            return found + len(quote)
        pos = found + 1


def _still_open(line: str, quote: str) -> str | None:
    """A triple-quoted string stays open across lines; a one-line string only before `\\`."""
    if len(quote) == 3:
        return quote
    return quote if line.endswith("\\") else None


def has_code(line: str) -> bool:
    """Whether a logical line beginning on `line` has code there (not blank, not a comment)."""
    code = line.lstrip(" \t")
    return bool(code) and code[0] != "#"


@sized_cache(SCAN_CACHE_CHARS, lambda text: len(text) + 1)
def code_words(text: str) -> frozenset[str]:
    """Every word (`\\w+`: identifiers, keywords, numbers) of this source outside comments;
    string contents count. A superset of the names the code spells, so a name not in it is
    certainly not read by the code: what a memo key may leave out. Cached: a member's key is
    asked for at every update. Found by pieces (`_segments`): a keystroke in a 1,500-line
    entry finds the words of the piece it touched, the others' are cached (a text analysed
    once: `code_words_at_once`, half the cost, the same words in code that parses)."""
    lines = text.split("\n")
    if len(lines) <= 2 * _WORD_PIECE_LINES:
        return code_words_at_once(text)
    return frozenset().union(*map(code_words_at_once, _segments(lines)))


_WORD_PIECE_LINES = 32


def _segments(lines: list[str]) -> list[str]:
    """The text cut into runs of whole pieces of `_WORD_PIECE_LINES` lines, each starting
    outside a string (`scan_line`'s state at its first line), so each run's words are found
    alone: a comment ends with its line, and no string crosses from one run into the next."""
    segments = []
    start, quote = 0, None
    for at in range(0, len(lines), _WORD_PIECE_LINES):
        if at > start and quote is None:
            segments.append("\n".join(lines[start:at]))
            start = at
        quote = _quote_after(tuple(lines[at : at + _WORD_PIECE_LINES]), quote)
    segments.append("\n".join(lines[start:]))
    return segments


@sized_cache(SCAN_CACHE_CHARS, lambda piece, quote: sum(map(len, piece)) + len(piece))
def _quote_after(piece: tuple[str, ...], quote: str | None) -> str | None:
    """The string left open after `piece`'s lines, scanned from `quote` (depths do not matter)."""
    for line in piece:
        _, quote, _ = scan_line(line, 0, quote)
    return quote


@sized_cache(SCAN_CACHE_CHARS, lambda text: len(text) + 1)
def code_words_at_once(text: str) -> frozenset[str]:
    """`code_words` of a text in one pass of C-level regex (1.6 ms for a 1,065-line function
    at load 8): strings are matched whole, so a `#` in one starts no comment."""
    return frozenset(_WORD.findall(_LITERAL_OR_COMMENT.sub(_without_comment, text)))


def _without_comment(match: re.Match[str]) -> str:
    found = match.group()
    return "" if found[0] == "#" else found
