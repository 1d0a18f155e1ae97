"""What the text right before the cursor is in the middle of: a call's arguments, or a dotted
name. Completion and signature help ask this on every keystroke, so it reads only the few
lines before the cursor (never the analysis, never the whole file)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pypto_core.dsl_names import DslNames

# how far back an unclosed call is looked for: DSL calls span a few lines, not dozens
LOOKBACK_LINES = 30
_DOTTED_BEFORE = re.compile(r"([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*)\s*$")
_ATTRIBUTE = re.compile(r"([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*)\s*\.\s*(\w*)$")
_KEYWORD_VALUE = re.compile(r"^\s*([A-Za-z_]\w*)\s*=(?!=)\s*(.*)$", re.S)
_NAME_START = re.compile(r"^\s*(\w*)$")
_CLOSERS = {")": "(", "]": "[", "}": "{"}


@dataclass(frozen=True)
class CallContext:
    callee: str  # the dotted text before the `(`, spaces removed: "pl.at", "self.kernel"
    arg_index: int  # how many top-level commas precede the cursor in the call
    keyword: str | None  # the keyword whose value is being written (`level=` typed)
    used_keywords: frozenset[str]  # keywords given before the cursor
    at_name_start: bool  # where a keyword name or a fresh argument may start
    partial: str  # the identifier being typed (after `(`/`,`, or after `keyword=`)


@dataclass(frozen=True)
class Attribute:
    base: str  # "pl.tile" in `pl.tile.lo|`, spaces removed
    partial: str  # "lo"
    start_col: int  # where `base` starts on the line


def attribute_before(line_prefix: str) -> Attribute | None:
    """`pl.tile.lo` right before the cursor: the dotted base and the partial member name."""
    match = _ATTRIBUTE.search(line_prefix)
    if match is None or _in_string_or_comment(line_prefix[: match.start()]):
        return None
    return Attribute(re.sub(r"\s+", "", match.group(1)), match.group(2), match.start())


def call_before(lines: Sequence[str], line: int, col: int) -> CallContext | None:
    """The innermost call whose `(` is open at (line, col)."""
    first = max(0, line - LOOKBACK_LINES)
    text = "\n".join([*lines[first:line], lines[line][:col] if line < len(lines) else ""])
    frames = _open_frames(text)
    if frames is None:
        return None
    while frames and frames[-1].bracket != "(":
        if frames[-1].bracket == "{":
            return None  # a dict literal's keys are not keywords
        frames.pop()  # inside a list argument (`deps=[...]`): the call around it is what matters
    if not frames:
        return None
    frame = frames[-1]
    head = _DOTTED_BEFORE.search(text[: frame.start])
    if head is None:
        return None
    segment = text[frame.segment_start :]
    value = _KEYWORD_VALUE.match(segment)
    name = _NAME_START.match(segment)
    return CallContext(
        callee=re.sub(r"\s+", "", head.group(1)),
        arg_index=frame.commas,
        keyword=value.group(1) if value else None,
        used_keywords=frozenset(frame.keywords),
        at_name_start=name is not None,
        partial=(name.group(1) if name else _trailing_word(value.group(2)) if value else ""),
    )


@dataclass
class _Frame:
    bracket: str
    start: int  # index of the bracket in the text
    segment_start: int  # after the last top-level comma
    commas: int = 0
    keywords: list[str] = field(default_factory=list)


def _open_frames(text: str) -> list[_Frame] | None:
    """The brackets still open at the end of `text`, outermost first (strings and comments
    skipped); None when the text ends inside a string or comment."""
    frames: list[_Frame] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "#":
            end = text.find("\n", i)
            if end < 0:
                return None
            i = end
        elif ch in "'\"":
            end = _string_end(text, i)
            if end < 0:
                return None
            i = end
            continue
        elif ch in "([{":
            frames.append(_Frame(ch, i, i + 1))
        elif ch in _CLOSERS:
            while frames and frames[-1].bracket != _CLOSERS[ch]:
                frames.pop()
            if frames:
                frames.pop()
        elif frames and ch == ",":
            frames[-1].commas += 1
            frames[-1].segment_start = i + 1
        elif frames and ch == "=" and text[i + 1 : i + 2] != "=" and text[i - 1 : i] not in "=!<>":
            keyword = re.search(r"([A-Za-z_]\w*)\s*$", text[frames[-1].segment_start : i])
            if keyword is not None:
                frames[-1].keywords.append(keyword.group(1))
        i += 1
    return frames


def _string_end(text: str, start: int) -> int:
    """The index after the string literal starting at `start`, -1 when it is not closed."""
    quote = text[start]
    triple = text[start : start + 3] == quote * 3
    delimiter = quote * 3 if triple else quote
    i = start + len(delimiter)
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text.startswith(delimiter, i):
            return i + len(delimiter)
        if text[i] == "\n" and not triple:
            return -1
        i += 1
    return -1


def _in_string_or_comment(line_prefix: str) -> bool:
    return _open_frames(line_prefix) is None


def _trailing_word(text: str) -> str:
    match = re.search(r"[\w.]*$", text)
    return match.group() if match else ""


_CLASS = re.compile(r"^(\s*)class\s+(\w+)")
_DEF = re.compile(r"^(\s*)def\s+(\w+)\s*\(")
_DECORATOR = re.compile(r"^\s*@\s*([\w.]+)")


def program_class(lines: Sequence[str], line: int, names: DslNames) -> tuple[str, list[str]] | None:
    """The name and method names of the `@pl.program` class holding `line`, from the text."""
    for start in range(min(line, len(lines) - 1), -1, -1):
        match = _CLASS.match(lines[start])
        if match is None or (start < line and not _indented_deeper(lines, start, line, len(match.group(1)))):
            continue
        decorators = [d.group(1) for d in map(_DECORATOR.match, lines[max(0, start - 3) : start]) if d]
        if not any(names.surface_path(d) == "pl.program" for d in decorators):
            return None
        indent = len(match.group(1))
        methods = []
        for text in lines[start + 1 :]:
            if (
                text.strip()
                and len(text) - len(text.lstrip()) <= indent
                and not text.lstrip().startswith(("#", ")"))
            ):
                break
            found = _DEF.match(text)
            if found is not None and found.group(2) not in methods:
                methods.append(found.group(2))
        return match.group(2), methods
    return None


def _indented_deeper(lines: Sequence[str], start: int, line: int, indent: int) -> bool:
    """Whether every non-blank line after `start` up to `line` is indented past `indent`."""
    return all(
        len(text) - len(text.lstrip()) > indent for text in lines[start + 1 : line + 1] if text.strip()
    )
