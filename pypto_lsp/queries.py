"""Questions features ask about a snapshot: what is at a position, where functions are called.

Answers come from the analysis (outlined scopes, the front end's IR) plus the identifier under
the cursor; nothing here re-derives what a pass decides.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from pypto_core.ir import Call, Direction, Function, Program
from pypto_core.results import FileAnalysis, OutlinedScope, ProgramAnalysis
from pypto_core.span import Span

from .session import Snapshot

_IDENT = re.compile(r"\w+")
_SELF_ATTRIBUTE = re.compile(r"\bself\s*\.\s*$")


@dataclass(frozen=True)
class Word:
    text: str
    span: Span
    before: str  # the line's text before the word
    after: str  # the line's text after the word


def word_at(lines: Sequence[str], line: int, col: int) -> Word | None:
    if line >= len(lines):
        return None
    text = lines[line]
    for match in _IDENT.finditer(text):
        if match.start() <= col <= match.end() and not match.group().isdigit():
            return Word(
                match.group(),
                Span(line, match.start(), line, match.end()),
                text[: match.start()],
                text[match.end() :],
            )
    return None


def scopes_at_header(snapshot: Snapshot, line: int, col: int) -> list[OutlinedScope]:
    """Scopes whose header line(s) hold the position: from the `with`/`for` keyword to the end
    of the header (`as tid:` included); a `pl.spmd` header has two."""
    return [scope for scope in snapshot.analysis.outlined if _on_header(scope, line, col)]


def _on_header(scope: OutlinedScope, line: int, col: int) -> bool:
    start = scope.scope_span
    if not start.start_line <= line <= scope.header_span.end_line:
        return False
    return line > start.start_line or col >= start.start_col


@dataclass(frozen=True)
class ScopeView:
    """One scope as the reader sees it: the function it becomes (`main`, the innermost of a
    `pl.spmd` scope's kernel and launch wrapper), and every record of it (`records`: the
    wrapper too, one per program when two jit entries reach the scope's helper, and one per
    time a program reaches it: a helper called in an unrolled loop). `copies` is how many
    functions the scope becomes in one program; `variants` how many different sets of them the
    programs make (1 when all callers agree)."""

    main: OutlinedScope
    records: tuple[OutlinedScope, ...]
    variants: int
    copies: int = 1

    @property
    def params(self) -> list[tuple[str, list[Direction]]]:
        """Every captured name (over all callers) with the directions it is passed with."""
        found: dict[str, list[Direction]] = {}
        for record in self.records:
            for param in record.params:
                directions = found.setdefault(param.shown, [])
                if param.direction not in directions:
                    directions.append(param.direction)
        return list(found.items())


def reader_signature(record: OutlinedScope) -> tuple[object, ...]:
    """What the reader can tell two functions of one scope apart by: its kind, parameters and
    returns under the names on screen (not the function's name, nor the caller's variables)."""
    return (
        record.function_type,
        tuple((p.shown, p.direction, p.type) for p in record.params),
        record.shown_returns,
    )


def scope_views(snapshot: Snapshot) -> list[ScopeView]:
    """One view per scope header, in source order."""
    groups: dict[Span, list[OutlinedScope]] = {}
    for record in snapshot.analysis.outlined:
        groups.setdefault(record.header_span, []).append(record)
    views = []
    for records in groups.values():
        names = {r.name for r in records}
        # the kernel a launch wrapper calls is the function holding the scope's body
        kernels = [r for r in records if r.parent in names] or records
        per_program: dict[str, list[OutlinedScope]] = {}
        for kernel in kernels:
            per_program.setdefault(kernel.program, []).append(kernel)
        made = {tuple(sorted(map(repr, map(reader_signature, ks)))) for ks in per_program.values()}
        copies = max(len(ks) for ks in per_program.values())
        views.append(ScopeView(kernels[0], tuple(records), len(made), copies))
    return views


def innermost_scopes(snapshot: Snapshot, line: int, col: int) -> list[OutlinedScope]:
    """The scopes most tightly around the position (several when they share one span)."""
    around = [s for s in snapshot.analysis.outlined if s.scope_span.contains(line, col)]
    if not around:
        return []
    smallest = min(around, key=lambda s: _extent(s.scope_span))
    return [s for s in around if _extent(s.scope_span) == _extent(smallest.scope_span)]


def program_at(snapshot: Snapshot, line: int, col: int) -> ProgramAnalysis | None:
    for program in snapshot.analysis.programs:
        if program.span.contains(line, col) or any(
            fn.span.contains(line, col) for fn in program.source.functions
        ):
            return program
    return None


def program_at_line(analysis: FileAnalysis, line: int) -> ProgramAnalysis | None:
    """The program whose class or functions hold `line` (completion asks the last analysis,
    whose columns may be a keystroke old, so only lines are compared)."""
    for program in analysis.programs:
        spans = [program.span, *(fn.span for fn in program.source.functions)]
        if any(span.start_line <= line <= span.end_line for span in spans):
            return program
    return None


@dataclass(frozen=True)
class FunctionReference:
    """A program function named at a position: by its `def`, or by a call of it."""

    program: ProgramAnalysis
    function: Function
    span: Span  # the name at the position


def function_at(snapshot: Snapshot, line: int, col: int) -> FunctionReference | None:
    """The program function whose name is under the cursor, in a `self.f(...)` call, a jit
    sub-function call `f(...)`, or its own `def f`."""
    word = word_at(snapshot.lines, line, col)
    program = program_at(snapshot, line, col)
    if word is None or program is None:
        return None
    function = program.source.get(word.text)
    if function is None:
        return None
    if function.name_span == word.span:
        return FunctionReference(program, function, word.span)
    called = word.after.lstrip().startswith("(")
    by_self = _SELF_ATTRIBUTE.search(word.before) is not None
    by_name = program.source.origin == "jit" and not word.before.rstrip().endswith(".")
    if called and (by_self or by_name):
        return FunctionReference(program, function, word.span)
    return None


def node_at(program: Program, line: int, col: int) -> object | None:
    """The front end's expression node that starts at (line, col): a DSL call `pl.add(...)`
    is a `Call` of the IR op it became, a scalar `pl.min(a, b)` a `BinaryExpr`."""
    for function in program.functions:
        if not function.span.start_line <= line <= function.span.end_line:
            continue
        for node in _walk(function.body):
            span = getattr(node, "span", None)
            starts_here = isinstance(span, Span) and (span.start_line, span.start_col) == (line, col)
            if starts_here and hasattr(node, "type"):
                return node
    return None


def call_sites(program: Program, callee: str, lines: Sequence[str]) -> list[Span]:
    """The callee's name in every call of program function `callee` (`self.f(...)`/`f(...)`)."""
    found = []
    for node in _walk([fn.body for fn in program.functions]):
        if isinstance(node, Call) and node.callee == callee:
            span = _name_in_call(node.span, callee, lines)
            if span is not None:
                found.append(span)
    return sorted(set(found), key=lambda s: (s.start_line, s.start_col))


def _name_in_call(call: Span, name: str, lines: Sequence[str]) -> Span | None:
    if call.start_line >= len(lines):
        return None
    text = lines[call.start_line]
    for match in re.finditer(rf"\b{re.escape(name)}\b", text):
        if match.start() >= call.start_col:
            return Span(call.start_line, match.start(), call.start_line, match.end())
    return None


def _walk(root: object) -> Iterator[object]:
    """Every node reachable from `root` through dataclass fields, lists and dicts."""
    stack = [root]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen or isinstance(node, (str, int, float, bool, Span)) or node is None:
            continue
        seen.add(id(node))
        yield node
        if isinstance(node, (list, tuple)):
            stack.extend(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif dataclasses.is_dataclass(node):
            stack.extend(getattr(node, f.name) for f in dataclasses.fields(node))


def _extent(span: Span) -> tuple[int, int]:
    return (span.end_line - span.start_line, span.end_col - span.start_col)
