"""`json.dumps(value, indent=2, ensure_ascii=False)`, byte for byte, without its generators.

With `indent`, `json` falls back to its pure-Python encoder, which yields every token through
a chain of generators: rendering `pypto-check --format json` over pypto-lib's models spent
2 % of the run there. This writes the same text with one recursive function over the values
`pypto-check` emits (dicts with string keys, lists, strings, ints, booleans, None), strings
escaped by `json`'s own C escaper; anything else is left to `json.dumps`.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring  # the C escaper where CPython has it
from typing import Any


def dumps_indented(value: Any, level: int = 0) -> str:
    """`json.dumps(value, indent=2, ensure_ascii=False)` as it reads nested `level` deep in
    an indented document: each line after the first indented by `2 * level` more spaces."""
    out: list[str] = []
    _write(value, "\n" + "  " * level, out)
    return "".join(out)


def _write(value: Any, newline: str, out: list[str]) -> None:
    """Append `value`'s text; `newline` is a line break and the indent of its own lines."""
    text = _scalar(value)
    if text is not None:
        out.append(text)
    elif type(value) is dict:
        _write_dict(value, newline, out)
    elif type(value) is list:
        if not value:
            out.append("[]")
            return
        inner = newline + "  "
        separator = "[" + inner
        for item in value:
            text = _scalar(item)
            if text is not None:
                out.append(separator + text)
            else:
                out.append(separator)
                _write(item, inner, out)
            separator = "," + inner
        out.append(newline + "]")
    else:  # floats, tuples, subclasses: json's own rules
        out.append(json.dumps(value, indent=2, ensure_ascii=False).replace("\n", newline))


def _write_dict(value: dict[Any, Any], newline: str, out: list[str]) -> None:
    if not value:
        out.append("{}")
        return
    start = len(out)
    inner = newline + "  "
    separator = "{" + inner
    for key, item in value.items():
        if type(key) is not str:  # json's rules for other keys: the whole object is its
            del out[start:]
            out.append(json.dumps(value, indent=2, ensure_ascii=False).replace("\n", newline))
            return
        text = _scalar(item)
        if text is not None:  # most values: one piece for the line, no call of `_write`
            out.append(f"{separator}{encode_basestring(key)}: {text}")
        else:
            out.append(f"{separator}{encode_basestring(key)}: ")
            _write(item, inner, out)
        separator = "," + inner
    out.append(newline + "}")


def _scalar(value: Any) -> str | None:
    """The text of a string, an int, a boolean or None (None for anything else)."""
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if kind is int:
        return int.__repr__(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    return None
