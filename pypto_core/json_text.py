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
    if isinstance(value, str):
        out.append(encode_basestring(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif type(value) is int:
        out.append(int.__repr__(value))
    elif type(value) is dict and all(type(k) is str for k in value):
        if not value:
            out.append("{}")
            return
        inner = newline + "  "
        separator = "{"
        for key, item in value.items():
            out.append(separator)
            out.append(inner)
            out.append(encode_basestring(key))
            out.append(": ")
            _write(item, inner, out)
            separator = ","
        out.append(newline)
        out.append("}")
    elif type(value) is list:
        if not value:
            out.append("[]")
            return
        inner = newline + "  "
        separator = "["
        for item in value:
            out.append(separator)
            out.append(inner)
            _write(item, inner, out)
            separator = ","
        out.append(newline)
        out.append("]")
    else:  # floats, tuples, subclasses: json's own rules
        out.append(json.dumps(value, indent=2, ensure_ascii=False).replace("\n", newline))
