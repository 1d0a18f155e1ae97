"""Splitting a module into top-level units, each parsed on its own.

Why per unit: a syntax error in one program must not hide the others, and an edit should
re-parse only the unit it touched. The split is a cheap line scan that tracks brackets,
strings, comments and backslash continuations to find where top-level statements start;
decorators stay with their `def`/`class`. When some unit does not parse but the whole file
does, the scan guessed wrong (an exotic string or bracket layout), and the statement starts are
taken from the whole-file parse instead.
"""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass
from typing import Literal

from ..diagnostics import Diagnostic
from ..span import split_lines
from . import source

UnitKind = Literal["program", "jit", "inline", "other"]

_TOKEN = re.compile(r"""#|'''|\"\"\"|'|"|[(\[{]|[)\]}]""")
_STRING_END = {
    q: re.compile(r"(?:\\.|(?!" + re.escape(q) + r")[^\\])*" + re.escape(q), re.S)
    for q in ("'''", '"""', "'", '"')
}
_CLAUSE_CONTINUATION = re.compile(r"(?:else|elif|except|finally)\b")
_DEF_OR_CLASS = re.compile(r"(?:async\s+def|def|class)\s")
_NAMED_DEF = re.compile(r"^(?:async\s+def|def|class)\s+(\w+)", re.M)
_DECORATOR = re.compile(r"@\s*([A-Za-z_][\w.]*)")
_JIT = re.compile(r"(?:^|\.)jit(?:\.(\w+))?$")


@dataclass
class Unit:
    """A top-level unit of a module: a DSL program/function with its decorators, or one other
    top-level statement. Positions are file lines; `node` positions are relative to `text`
    (line 1 of the node is file line `start_line`)."""

    kind: UnitKind
    name: str | None
    text: str
    start_line: int
    end_line: int
    key: str
    node: ast.AST | None
    syntax_error: Diagnostic | None
    decorator: str = ""  # the DSL decorator's dotted name as written ("pl.jit.incore"), "" for other


def split_units(text: str) -> list[Unit]:
    """The module's units in source order (a leading U+FEFF is dropped, as editors do)."""
    lines = split_lines(text.removeprefix("\ufeff"))
    starts = _statement_starts(lines)
    units = _make_units(lines, starts)
    if any(u.syntax_error for u in units):
        whole, _ = source.parse("\n".join(lines), lines, 0)
        if whole is not None:
            units = _make_units(lines, [_first_line(stmt) for stmt in whole.body])
    return units


def _first_line(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", None)
    return (decorators[0].lineno if decorators else stmt.lineno) - 1


def _statement_starts(lines: list[str]) -> list[int]:
    """0-based lines where a top-level statement (with its decorators) begins."""
    starts: list[int] = []
    depth = 0
    quote: str | None = None  # the open string's delimiter
    continued = False  # previous line ended with a backslash
    open_decorator = False  # a decorator was seen and its def/class not yet
    for number, line in enumerate(lines):
        first = line[:1]
        code_at_col0 = bool(first) and first not in " \t\f#"
        if code_at_col0 and quote is None:
            if depth > 0 and _is_unit_head(line):
                depth, continued = 0, False  # an unclosed bracket cannot swallow a def/class
            if depth == 0 and not continued and not _CLAUSE_CONTINUATION.match(line):
                if not open_decorator:
                    starts.append(number)
                open_decorator = line.startswith("@")
        depth, quote, continued = _scan_line(line, depth, quote)
    head = starts[0] if starts else len(lines)
    if any(not _is_blank_or_comment(line) for line in lines[:head]):
        starts.insert(0, 0)  # stray indented code before the first statement: Python rejects it
    return starts


def _is_unit_head(line: str) -> bool:
    return line.startswith("@") or bool(_DEF_OR_CLASS.match(line))


def _scan_line(line: str, depth: int, quote: str | None) -> tuple[int, str | None, bool]:
    """Bracket depth, open string and backslash continuation after `line`."""
    pos = 0
    if quote is not None:
        end = _STRING_END[quote].match(line, pos)
        if end is None:
            return depth, _still_open(line, quote), False
        pos, quote = end.end(), None
    while True:
        token = _TOKEN.search(line, pos)
        if token is None:
            return depth, None, line.endswith("\\")
        kind = token.group()
        if kind == "#":
            return depth, None, False
        if kind in _STRING_END:
            end = _STRING_END[kind].match(line, token.end())
            if end is None:
                return depth, _still_open(line, kind), False
            pos = end.end()
            continue
        depth = depth + 1 if kind in "([{" else max(depth - 1, 0)
        pos = token.end()


def _still_open(line: str, quote: str) -> str | None:
    """A triple-quoted string stays open across lines; a one-line string only before `\\`."""
    if len(quote) == 3:
        return quote
    return quote if line.endswith("\\") else None


def _make_units(lines: list[str], starts: list[int]) -> list[Unit]:
    units = []
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(lines)
        while end > start + 1 and _is_blank_or_comment(lines[end - 1]):
            end -= 1
        units.append(_make_unit(lines, start, end))
    return units


def _is_blank_or_comment(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _make_unit(lines: list[str], start: int, end: int) -> Unit:
    unit_lines = lines[start:end]
    text = "\n".join(unit_lines)
    kind, decorator = _classify(unit_lines)
    named = _NAMED_DEF.search(text) if kind != "other" else None
    module, syntax_error = source.parse(text, unit_lines, start)
    node: ast.AST | None = module
    if module is not None and kind != "other":
        node = next((s for s in module.body if isinstance(s, (ast.ClassDef, ast.FunctionDef))), None)
        if node is None:
            kind, decorator = "other", ""
    return Unit(
        kind=kind,
        name=named.group(1) if named else None,
        text=text,
        start_line=start,
        end_line=end,
        key=hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest(),
        node=node,
        syntax_error=syntax_error,
        decorator=decorator,
    )


def _classify(unit_lines: list[str]) -> tuple[UnitKind, str]:
    """The unit kind from its decorators' dotted names (resolved against imports later)."""
    for line in unit_lines:
        if _DEF_OR_CLASS.match(line):
            break
        match = _DECORATOR.match(line)
        if match is None:
            continue
        dotted = match.group(1)
        last = dotted.rsplit(".", 1)[-1]
        if last == "program":
            return "program", dotted
        if _JIT.search(dotted):
            return "jit", dotted
        if last == "inline":
            return "inline", dotted
    return "other", ""
