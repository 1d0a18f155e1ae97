"""Position markers in test sources, in the style of Pyright's fourslash and rust-analyzer's `$0`.

A test writes its DSL source with markers instead of hard-coding line numbers:

* `[|` ... `|]` around an expected range (fourslash style; `[[` would clash with DSL shapes such
  as `pl.Tensor[[64], pl.FP32]`); several are allowed and returned in order;
* `${name}` (or `$0`) at a position;
* `{|name:` ... `|}` around a named range.

`extract(src)` removes the markers and returns the clean text with 0-based (line, code-point column)
positions, matching `pypto_core.span.Span`.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field

from pypto_core.span import Span

_TOKEN = re.compile(r"\[\||\|\]|\$\{(\w+)\}|\$0|\{\|(\w+):|\|\}")


@dataclass
class Marked:
    text: str
    ranges: list[Span] = field(default_factory=list)
    points: dict[str, tuple[int, int]] = field(default_factory=dict)
    named: dict[str, Span] = field(default_factory=dict)

    @property
    def range(self) -> Span:
        """The only `[|...|]` range."""
        assert len(self.ranges) == 1, f"expected one [|...|] range, found {len(self.ranges)}"
        return self.ranges[0]

    def point(self, name: str = "0") -> tuple[int, int]:
        return self.points[name]


def extract(src: str, *, dedent: bool = True) -> Marked:
    """Strip markers from `src` (dedented first unless told otherwise) and record positions."""
    if dedent:
        src = textwrap.dedent(src).lstrip("\n")
    out: list[str] = []
    line, col = 0, 0
    open_ranges: list[tuple[int, int]] = []
    open_named: list[tuple[str, int, int]] = []
    result = Marked("")
    pos = 0
    for m in _TOKEN.finditer(src):
        chunk = src[pos : m.start()]
        out.append(chunk)
        line, col = _advance(line, col, chunk)
        token = m.group(0)
        if token == "[|":
            open_ranges.append((line, col))
        elif token == "|]":
            sl, sc = open_ranges.pop()
            result.ranges.append(Span(sl, sc, line, col))
        elif token == "$0":
            result.points["0"] = (line, col)
        elif token == "|}":
            name, sl, sc = open_named.pop()
            result.named[name] = Span(sl, sc, line, col)
        elif m.group(1) is not None:
            result.points[m.group(1)] = (line, col)
        else:
            open_named.append((m.group(2), line, col))
        pos = m.end()
    out.append(src[pos:])
    assert not open_ranges and not open_named, "unclosed marker"
    result.ranges.sort(key=lambda s: (s.start_line, s.start_col))
    result.text = "".join(out)
    return result


def _advance(line: int, col: int, chunk: str) -> tuple[int, int]:
    newlines = chunk.count("\n")
    if newlines:
        return line + newlines, len(chunk) - chunk.rfind("\n") - 1
    return line, col + len(chunk)
