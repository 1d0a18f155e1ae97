"""Decoding a burst's `didChange` frames by the shape of the first one (issue 15).

In a burst of typing every `didChange` body a client sends is the same bytes but for the
version, the range's four numbers, the range length and the inserted text: the client
serialises one shape. Parsing each body as JSON (and checking its params' shape) was two
thirds of what a change of a 5,000-change burst still cost once the run was applied and
scheduled once. A `ChangeTemplate` is made from one body that the full path parsed and
accepted (`PyptoProtocol._run_change`): a regex of that body's bytes in which those values
are groups that match only a JSON integer or a JSON string, everything else literal. A body
that matches it is that body with some integers and strings replaced by others, so it is
valid JSON exactly when its strings decode, and `json.loads` would give the first body's
object with those values replaced; its values are decoded and range-checked as
`protocol.decode_did_change` does. Anything else (another method, another document, another
key order or spacing, a float, an odd escape, bytes that are not UTF-8, a value out of range)
does not match or is refused, and takes the full path, which answers it as before.
"""

from __future__ import annotations

import re
from itertools import islice
from json.decoder import scanstring  # type: ignore[attr-defined]  # (json's own, in C)
from typing import Any

from .text_sync import Edit, RangeEdit

# A JSON string's characters between its quotes: any but a quote, a backslash or a control
# character, or an escape (what follows a backslash is checked when the string is decoded).
_STRING_CHARS = rb'(?:[^"\\\x00-\x1f]|\\.)*'
# One JSON token, with the whitespace JSON allows before it: a string, a number, a structural
# character, a literal name. Enough to find where the first body's values are; the body was
# parsed by `json` before a template is made of it.
_TOKEN = re.compile(
    rb'[ \t\n\r]*(?:("' + _STRING_CHARS + rb'")|(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)'
    rb"|([{}\[\]:,])|(true|false|null))"
)
# What a value the template takes from each body may be: a JSON integer of at most 9 digits,
# so within the LSP's `integer` and `uinteger` (a negative one only for the version:
# `decode_did_change` refuses a negative position), or a JSON string's characters between its
# quotes. A body with another value takes the full path, which answers it as before.
_VERSION = rb"(-?(?:0|[1-9][0-9]{0,8}))"
_UINTEGER = rb"(0|[1-9][0-9]{0,8})"
_STRING = rb'"(' + _STRING_CHARS + rb')"'

_CHANGE = ("params", "contentChanges", 0)
_INTEGER_PATHS = (
    ("params", "textDocument", "version"),
    (*_CHANGE, "range", "start", "line"),
    (*_CHANGE, "range", "start", "character"),
    (*_CHANGE, "range", "end", "line"),
    (*_CHANGE, "range", "end", "character"),
)
_NUMBERS = ("version", "start line", "start character", "end line", "end character")
_LENGTH_PATH = (*_CHANGE, "rangeLength")
_TEXT_PATH = (*_CHANGE, "text")


class ChangeTemplate:
    """The shape of one document's `didChange` bodies with one range change each."""

    __slots__ = ("_numbers", "_pattern", "_text", "uri")

    def __init__(self, uri: str, pattern: re.Pattern[bytes], order: list[str]) -> None:
        self.uri = uri
        self._pattern = pattern
        # the groups (numbered from 1) of the version and the range's numbers, and of the
        # text's characters between its quotes (a range length is only checked: by its group)
        self._numbers = tuple(order.index(name) + 1 for name in _NUMBERS)
        self._text = order.index("text") + 1

    @classmethod
    def of(cls, body: bytes, raw: Any, uri: str) -> ChangeTemplate | None:
        """The template of `body`, whose JSON `raw` the full path accepted as a `didChange`
        of `uri`; None when it holds other than one range change, or a value the template
        places twice (a duplicate key)."""
        changes = raw["params"]["contentChanges"]
        if len(changes) != 1 or "range" not in changes[0]:
            return None
        wanted = dict(zip(_INTEGER_PATHS, _NUMBERS, strict=True))
        wanted[_TEXT_PATH] = "text"
        if changes[0].get("rangeLength") is not None:
            wanted[_LENGTH_PATH] = "length"
        elif "rangeLength" in changes[0]:  # (a null: a literal the template would keep)
            return None
        found = _value_spans(body, wanted)
        if found is None or len(found) != len(wanted):
            return None
        parts: list[bytes] = []
        order: list[str] = []
        at = 0
        for start, end, name in sorted(found):
            group = _STRING if name == "text" else _VERSION if name == "version" else _UINTEGER
            parts += (re.escape(body[at:start]), group)
            order.append(name)
            at = end
        parts.append(re.escape(body[at:]))
        return cls(uri, re.compile(b"".join(parts)), order)

    def decode(self, body: bytes) -> tuple[int, RangeEdit] | None:
        """The version and the change of a body of this shape; None for any other body (or
        one whose values `decode_did_change` would refuse)."""
        edits: list[Edit] = []
        taken, version = self.decode_run([body], 0, edits)
        return (version, edits[0]) if taken else None  # type: ignore[return-value]

    def decode_run(self, bodies: list[bytes], at: int, edits: list[Edit]) -> tuple[int, int]:
        """Decodes `bodies[at:]` while they are of this shape, appending each one's change to
        `edits`: how many were, and the last one's version (0 when none was). A loop of its
        own, since per body it is a few C calls: a call and a tuple per body were a fifth."""
        fullmatch, numbers, characters = self._pattern.fullmatch, self._numbers, self._text
        append = edits.append
        version, taken = 0, 0
        for body in islice(bodies, at, None):
            match = fullmatch(body)
            if match is None:
                break
            version, start_line, start_character, end_line, end_character = map(int, match.group(*numbers))
            try:
                text = match.group(characters).decode("utf-8", "surrogatepass")
                if "\\" in text:  # (the pattern leaves no quote unescaped: the scan ends at the end)
                    text = scanstring(text + '"', 0)[0]
            except ValueError:  # (UnicodeDecodeError is one) bytes that are not UTF-8, a bad escape
                break
            append((start_line, start_character, end_line, end_character, text))
            taken += 1
        return taken, version


def _value_spans(body: bytes, wanted: dict[tuple[Any, ...], str]) -> list[tuple[int, int, str]] | None:
    """Where in `body` the values at the `wanted` paths are (their tokens' byte spans), by a
    walk over its tokens; None when a wanted path is met twice or the walk fails."""
    found: list[tuple[int, int, str]] = []
    seen: set[tuple[Any, ...]] = set()
    # per open container: [is an object, its current key or index, whether a key comes next];
    # a value's path is the containers' keys and indices
    stack: list[list[Any]] = []
    at = 0
    while at < len(body):
        token = _TOKEN.match(body, at)
        if token is None:
            return None if body[at:].strip(b" \t\n\r") else found
        at = token.end()
        string, mark = token.group(1), token.group(3)
        top = stack[-1] if stack else None
        if mark in (b"}", b"]"):
            stack.pop()
        elif mark == b":":
            top[2] = False  # type: ignore[index]
        elif mark == b",":
            if top[0]:  # type: ignore[index]
                top[2] = True  # type: ignore[index]
            else:
                top[1] += 1  # type: ignore[index]
        elif string is not None and top is not None and top[0] and top[2]:
            top[1] = scanstring(string.decode("utf-8", "surrogatepass"), 1)[0]
        elif mark in (b"{", b"["):
            stack.append([mark == b"{", None if mark == b"{" else 0, mark == b"{"])
        else:  # a value: a string, a number or a literal name
            where = tuple(entry[1] for entry in stack)
            name = wanted.get(where)
            if name is not None:
                if where in seen:
                    return None
                seen.add(where)
                found.append((token.start(token.lastindex or 0), at, name))
    return found
