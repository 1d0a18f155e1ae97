"""Splitting a module into top-level units, each parsed on its own.

Why per unit: a syntax error in one program must not hide the others, and an edit should
re-parse only the unit it touched. The split is a cheap line scan that tracks brackets,
strings, comments and backslash continuations to find where top-level statements start;
decorators stay with their `def`/`class`. Where the scan had to guess (a column-0 decorator or
def inside open brackets) and some unit then fails to parse, the whole file is parsed once: if
it parses, the guess was wrong and the statement starts are taken from that parse.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Container, Iterator
from dataclasses import dataclass, field
from itertools import chain, compress, count, islice, pairwise
from operator import attrgetter
from typing import Literal

from ..diagnostics import Diagnostic
from ..sized_cache import sized_cache
from ..span import split_lines
from . import source, unit_parts
from .line_scan import SCAN_CACHE_CHARS, has_code, scan_line
from .unit_parts import TREE_CACHE_CHARS as TREE_CACHE_CHARS  # what caches of trees are bounded by

UnitKind = Literal["program", "jit", "inline", "other"]


_NOT_CODE_AT_COL0 = " \t\f#"
_CODE_AT_COL0 = re.compile(r"[^ \t\f#]")  # a line's first character is none of them
_CLAUSE_CONTINUATION = re.compile(r"(?:else|elif|except|finally)\b")
_DEF_OR_CLASS = re.compile(r"(?:async\s+def|def|class)\s")
_NAMED_DEF = re.compile(r"^(?:async\s+def|def|class)\s+(\w+)", re.M)
_DECORATOR = re.compile(r"@\s*([A-Za-z_][\w.]*)")
_JIT = re.compile(r"(?:^|\.)jit(?:\.(\w+))?$")


# What two later stages look for in a unit's text before they read its tree, kept as facts of
# the unit: a keystroke passes over every other unit without its tree (issue 20: 200,000 module
# constants, whose trees the bounded parse cache cannot all hold, were parsed again per keystroke)


def has_indented_decorator(text: str) -> bool:
    r"""Whether a line of `text` is an indented `@` (a nested DSL definition may be there,
    `nested`): the `@`s looked at one by one, for what a multi-line `^[ \t]+@` regex says;
    the regex tried every line start of a 900-line unit at each keystroke in it (about
    0.4 ms on prefill_cp_csa's non-ASCII text), an `@` is rare in a body."""
    at = text.find("@")
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        if start < at and not text[start:at].strip(" \t"):
            return True
        at = text.find("@", at + 1)
    return False


SCOPE_CONSTRUCT_NAMES = ("at", "spmd", "graph", "cluster")  # `scope_headers.CONSTRUCTS`, by name


@dataclass(frozen=True)
class UnitFacts:
    """What a unit is, from its text alone (positions relative to its first line); light: no
    syntax tree, so a document's units can keep theirs across keystrokes."""

    kind: UnitKind
    name: str | None
    key: str
    relative_error: Diagnostic | None
    decorator: str
    parses: bool
    # its `X = f()` statements as (X, f) (`binder_call`): what `nested.block_units` looks for
    binder_calls: tuple[tuple[str, str], ...] = ()
    nests: bool = False  # it has an indented decorator (`has_indented_decorator`)
    opens_scope: bool = False  # a scope construct's name is called in its text (`scope_headers`)

    @property
    def notable(self) -> bool:
        """A DSL definition, a syntax error, a binder call, a possible nested definition or
        scope header."""
        return bool(
            self.kind != "other" or self.relative_error or self.binder_calls or self.nests or self.opens_scope
        )


class _Unparsed:
    """`Unit.tree` before the unit's tree was read."""


UNPARSED = _Unparsed()


@dataclass
class Unit:
    """A top-level unit of a module: a DSL program/function with its decorators, or one other
    top-level statement. Positions are file lines; `node` positions are relative to `text`
    (line 1 of the node is file line `start_line`).

    `node_line` is set for a definition nested in a function body (`nested`): it keeps the
    parse of its enclosing top-level unit, whose first line is then its line 1.

    `kind` is syntactic, from the decorator's dotted name: "program" for a `*.program` class,
    "jit" for every `*.jit` / `*.jit.<variant>` function (`@pl.jit.inline` included), "inline"
    for `*.inline`. Whether that name really is the DSL is settled against the imports by
    `module_context` / `program_plans`. `node` is the class/def for those kinds, the parsed
    `ast.Module` for "other", None when the unit does not parse.

    `node` is read from the bounded parse cache when first asked for (`tree` holds it from
    then on): a unit that no stage reads the tree of (a constant, while the module context is
    reused) is never parsed again. A `UnitSplitter`'s units are noted in its `trees` when they
    read theirs, and forget them after the analysis (`UnitSplitter.release`): the splitter
    keeps its units across keystrokes, not their trees.
    """

    kind: UnitKind
    name: str | None
    text: str
    start_line: int
    end_line: int
    key: str  # its syntax tree's hash, positions included (`_key`)
    syntax_error: Diagnostic | None
    decorator: str = ""  # the DSL decorator's dotted name as written ("pl.jit.incore"), "" for other
    node_line: int | None = None
    # a definition a module-level function returns (`nested.block_units`): bound where the
    # module calls that function (`hc_pre = _bind_hc_pre()`), not where it is written
    returned_by: str | None = None
    facts: UnitFacts | None = field(default=None, repr=False, compare=False)  # None: a nested unit
    # whether a stage other than the module context may look at it (`UnitFacts.notable`; a
    # nested unit is a DSL definition): with 200,000 constants those stages pass over the
    # others (`notable_indices`)
    notable: bool = field(default=True, repr=False, compare=False)
    tree: ast.AST | _Unparsed | None = field(default=UNPARSED, repr=False, compare=False)
    trees: list[Unit] | None = field(default=None, repr=False, compare=False)

    @property
    def node(self) -> ast.AST | None:
        tree = self.tree
        if isinstance(tree, _Unparsed):
            module, _ = parse_unit(self.text)
            tree = module if module is None or self.kind == "other" else module.body[0]
            self.tree = tree
            if self.trees is not None:
                self.trees.append(self)
        return tree

    @property
    def node_offset(self) -> int:
        """The file line of `node`'s line 1."""
        return self.start_line if self.node_line is None else self.node_line

    @property
    def binder_calls(self) -> tuple[tuple[str, str], ...]:
        return () if self.facts is None else self.facts.binder_calls

    @property
    def nests(self) -> bool:
        """Whether it may hold a nested DSL definition (a nested unit: never)."""
        return self.facts is not None and self.facts.nests

    @property
    def opens_scope(self) -> bool:
        """Whether it may hold a scope construct's header (asked before its tree is read)."""
        return self.facts.opens_scope if self.facts is not None else self.node is not None

    def moved(self, delta: int) -> Unit:
        """The same unit `delta` lines further down (its tree is not carried: it is released)."""
        error = self.syntax_error.shifted(delta) if self.syntax_error is not None else None
        return Unit(
            self.kind,
            self.name,
            self.text,
            self.start_line + delta,
            self.end_line + delta,
            self.key,
            error,
            self.decorator,
            self.node_line,
            self.returned_by,
            self.facts,
            notable=self.notable,
            trees=self.trees,
        )


def notable_indices(units: list[Unit]) -> list[int]:
    """The indices of the `notable` units, in order: what the stages after the module context
    iterate, a pass in C over the list (with 200,000 constants a Python loop over every unit
    is 20-40 ms, and a keystroke ran a dozen of them: issue 20)."""
    return list(compress(range(len(units)), map(_NOTABLE, units)))


_NOTABLE = attrgetter("notable")


def split_units(text: str, lines: list[str] | None = None) -> list[Unit]:
    """The module's units in source order (a leading U+FEFF is dropped, as editors do).
    `lines` are that text's lines (`split_lines`) when the caller has them already."""
    if lines is None:
        lines = split_lines(text.removeprefix("\ufeff"))
    return _split(lines)[0]


def _split(
    lines: list[str], trees: list[Unit] | None = None, previous: Callable[[int], str] | None = None
) -> tuple[list[Unit], bool]:
    """The units, and whether their bounds are the plain scan's (not a guess or a re-parse).
    `trees`: where the units note that they read their tree (`UnitSplitter`); `previous`:
    the text of the unit an earlier version had at a line (`_make_units`)."""
    scan = _statement_starts(lines)
    units = _make_units(
        lines, scan.starts, scan.in_string, len(lines), trees, None if scan.guessed else scan.heads, previous
    )
    if scan.guessed and any(u.syntax_error for u in units):
        whole, _ = source.parse("\n".join(lines), lines, 0)
        if whole is not None:
            units = _make_units(lines, _whole_parse_starts(whole, lines), scan.in_string, len(lines), trees)
    return units, not scan.guessed


class UnitSplitter:
    """`split_units` for successive versions of one document.

    An edit changes a few lines. The units before them are the previous version's; the scan
    restarts at the first changed unit and stops as soon as it reaches, in a clean state, the
    start of a unit whose lines (up to the next unit) are unchanged: from there on the units
    are the previous version's again, moved by the change in line count. The unchanged lines
    at either end are found by comparing slices of the line lists (C loops), and the units
    kept are the previous `Unit` objects themselves (moved ones are copies): with 200,000
    one-line units (issue 20) an edit costs the edited region, a few passes over the line
    list and, when the line count changed, one copy per unit after the edit. The result
    equals `split_units` on every text (tested with random edits)."""

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._units: list[Unit] = []
        self._bounds: list[int] = []  # the lines each unit owns: [bounds[i], bounds[i + 1])
        self._scanned = False  # the previous bounds are the plain scan's
        # the units whose trees were read since the last `release`: the units are kept
        # across edits, their trees live in the bounded parse cache only (or fifty open
        # documents would hold every tree they have)
        self._trees: list[Unit] = []

    def split(self, lines: list[str]) -> list[Unit]:
        found = self._incremental(lines) if self._scanned else None
        if found is None:
            units, self._scanned = _split(lines, self._trees, self._previous if self._units else None)
            bounds = [0, *(u.start_line for u in units[1:]), len(lines)]
        else:
            units, bounds = found
        self._lines, self._units, self._bounds = lines, units, bounds
        return list(units)

    def _previous(self, line: int) -> str:
        """The text of the previous version's unit starting at `line` ("" when none does): a
        long unit's first edit takes the pieces of its parse from that text's tree
        (`unit_parts.prime`)."""
        at = bisect_right(self._bounds, line) - 1
        if 0 <= at < len(self._units) and self._units[at].start_line == line:
            return self._units[at].text
        return ""

    def release(self) -> None:
        """Forget the trees the units read (the analysis that read them is over)."""
        for unit in self._trees:
            unit.tree = UNPARSED
        self._trees.clear()

    def _incremental(self, lines: list[str]) -> tuple[list[Unit], list[int]] | None:
        old_lines, old, bounds = self._lines, self._units, self._bounds
        if not old:
            return None
        prefix = _common_prefix(lines, old_lines)
        if prefix == len(lines) == len(old_lines):
            return old, bounds  # nothing changed
        # the first unit whose lines are not all in the unchanged prefix (the last unit's run
        # to the end of the file, so they must still do)
        first = min(bisect_right(bounds, prefix) - 1, len(old) - 1)
        if first == 0 or bounds[first] >= len(lines):
            return None  # the first unit decides about stray code before it; or the file ends there
        delta = len(lines) - len(old_lines)
        # old[keep:] are unchanged after the edit, moved by `delta`: their lines are all in
        # the unchanged suffix
        suffix = _common_suffix(lines, old_lines)
        keep = bisect_left(bounds, len(old_lines) - suffix, first + 1, len(old))
        resume = _Resume(bounds, keep, len(old), delta)
        scan = _statement_starts(lines, bounds[first], resume)
        if scan.guessed or scan.starts[:1] != [bounds[first]]:
            return None  # a guess, or the changed unit's first line no longer starts a statement
        region = _make_units(
            lines, scan.starts, scan.in_string, scan.stopped_at, self._trees, scan.heads, self._previous
        )
        tail_start = resume.index(scan.stopped_at)
        tail = old[tail_start:] if delta == 0 else [u.moved(delta) for u in old[tail_start:]]
        tail_bounds = bounds[tail_start:-1] if delta == 0 else [b + delta for b in bounds[tail_start:-1]]
        return (
            [*old[:first], *region, *tail],
            [*bounds[:first], *scan.starts, *tail_bounds, len(lines)],
        )


@dataclass(frozen=True)
class _Resume:
    """The lines where the scan of an edit may stop: the first lines of the units kept after
    it (`bounds[keep:end]`), `delta` lines further down, without a set of them all."""

    bounds: list[int]
    keep: int
    end: int
    delta: int

    def __contains__(self, line: object) -> bool:
        return isinstance(line, int) and self.index(line) < self.end

    def index(self, line: int) -> int:
        """The kept unit starting at `line`; `end` if none does."""
        found = bisect_left(self.bounds, line - self.delta, self.keep, self.end)
        return found if found < self.end and self.bounds[found] == line - self.delta else self.end


_CHUNK = 1024  # lines compared per slice while looking for the first difference


def _common_prefix(new: list[str], old: list[str]) -> int:
    """How many leading lines the two lists share."""
    size = min(len(new), len(old))
    at = 0
    while at < size:
        end = min(at + _CHUNK, size)
        if new[at:end] != old[at:end]:
            while new[at] == old[at]:
                at += 1
            return at
        at = end
    return size


def _common_suffix(new: list[str], old: list[str]) -> int:
    """How many trailing lines the two lists share."""
    return _common_prefix(new[::-1], old[::-1])


def _whole_parse_starts(whole: ast.Module, lines: list[str]) -> list[int]:
    """Where each statement of the whole file's parse begins. Lines that end in a backslash
    just before a statement are its own first lines (`ast` gives the line after them); a
    statement starting on the line where the one before ends (`a; b`) is in that one's unit."""
    starts: list[int] = []
    previous_end = 0
    for stmt in whole.body:
        decorators = getattr(stmt, "decorator_list", None)
        start = (decorators[0].lineno if decorators else stmt.lineno) - 1
        while start > previous_end and lines[start - 1].endswith("\\"):
            start -= 1
        if not starts or start >= previous_end:
            starts.append(start)
        previous_end = stmt.end_lineno or stmt.lineno
    return starts


@dataclass
class _Scan:
    starts: list[int]  # 0-based lines where a top-level statement (with its decorators) begins
    # a decorator or def/class line at column 0 inside open brackets was taken as a new
    # statement: broken code far more often than an `@` operator continuation
    guessed: bool
    in_string: set[int]  # lines that begin inside a string (a `#` there starts no comment)
    stopped_at: int  # the line the scan stopped at (the number of lines if it ran to the end)
    # the lines on which a logical line with code begins (not in brackets, a string or a
    # backslash continuation), in order: what a long unit is split into statements by
    heads: list[int] = field(default_factory=list)


def _statement_starts(lines: list[str], first: int = 0, stops: Container[int] = ()) -> _Scan:
    """Scan from line `first` (the first line or a statement start) up to the first line in
    `stops` where a statement starts with nothing open before it.

    Only lines with code at column 0 can begin a statement. The lines from one of them up to
    the next form a chunk, scanned as a whole and cached by its text and the state it starts
    in: on an edit, only the edited chunk is scanned again."""
    scan = _Scan([], False, set(), len(lines))
    depth = 0
    quote: str | None = None  # the open string's delimiter
    continued = False  # previous line ended with a backslash
    open_decorator = False  # a decorator was seen and its def/class not yet
    heads = _code_at_col0(lines, first)
    leading = next(heads, None)  # None: no code at column 0 from `first` on
    if leading != first:
        heads = chain([leading], heads) if leading is not None else heads
    for chunk_start, chunk_end in pairwise(chain([first], heads, [len(lines)])):
        line = lines[chunk_start]
        is_head = chunk_start != first or leading == first
        if is_head and quote is None:
            clean = depth == 0 and not continued and not open_decorator
            if clean and chunk_start in stops:
                scan.stopped_at = chunk_start
                break
            if depth > 0 and _is_unit_head(line):
                depth, continued, scan.guessed = 0, False, True
            if depth == 0 and not continued and not _CLAUSE_CONTINUATION.match(line):
                if not open_decorator:
                    scan.starts.append(chunk_start)
                open_decorator = line.startswith("@")
        if quote is None and depth == 0 and not continued and has_code(line):
            scan.heads.append(chunk_start)
        chunk = tuple(lines[chunk_start:chunk_end])
        depth, quote, continued, strings, inner_heads = _scan_chunk(chunk, depth, quote)
        scan.in_string.update(chunk_start + offset for offset in strings)
        scan.heads.extend(chunk_start + offset for offset in inner_heads)
    head = scan.starts[0] if scan.starts else len(lines)
    if first == 0 and any(not _is_blank_or_comment(line) for line in lines[:head]):
        scan.starts.insert(0, 0)  # stray indented code before the first statement: Python rejects it
    return scan


def _code_at_col0(lines: list[str], first: int) -> Iterator[int]:
    """The lines from `first` on that are neither blank nor indented nor a comment at column 0,
    found lazily by a regular expression matched in C (`_starts_at_col0` for a lone backslash):
    an edit's scan walks every line of the function it is in to the next unit's first."""
    found = compress(count(first), map(_CODE_AT_COL0.match, islice(lines, first, None)))
    return (n for n in found if lines[n] != "\\" or _starts_at_col0(lines, n))


def _starts_at_col0(lines: list[str], n: int) -> bool:
    line = lines[n]
    if line == "\\":
        # A lone backslash at column 0 joins the next line, and CPython's tokenizer takes the
        # indentation of that line: `def f():` / `\` / `    return 1` is one statement.
        return n + 1 < len(lines) and _starts_at_col0(lines, n + 1)
    return bool(line) and line[0] not in _NOT_CODE_AT_COL0


@sized_cache(SCAN_CACHE_CHARS, lambda chunk, depth, quote: sum(map(len, chunk)) + len(chunk))
def _scan_chunk(
    chunk: tuple[str, ...], depth: int, quote: str | None
) -> tuple[int, str | None, bool, tuple[int, ...], tuple[int, ...]]:
    """The scan state after `chunk` (depth, open string, backslash continuation), the offsets
    of its lines that begin inside a string, and of those after its first on which a logical
    line with code begins. Scanned by pieces of `_PIECE_LINES` lines, each cached by its text
    and the state it starts in: a function is one chunk, and a keystroke in an 870-line one
    scans the piece it touched, not the function."""
    continued = False
    strings: list[int] = []
    heads: list[int] = []
    for start in range(0, len(chunk), _PIECE_LINES):
        piece = chunk[start : start + _PIECE_LINES]
        depth, quote, continued, in_string, inner_heads = _scan_piece(
            piece, depth, quote, continued, start == 0
        )
        strings.extend(start + offset for offset in in_string)
        heads.extend(start + offset for offset in inner_heads)
    return depth, quote, continued, tuple(strings), tuple(heads)


_PIECE_LINES = 32


@sized_cache(
    SCAN_CACHE_CHARS,
    lambda piece, depth, quote, continued, first: sum(map(len, piece)) + len(piece),
)
def _scan_piece(
    piece: tuple[str, ...], depth: int, quote: str | None, continued: bool, first: bool
) -> tuple[int, str | None, bool, tuple[int, ...], tuple[int, ...]]:
    """`_scan_chunk` of the lines of one piece, from the state the lines before it left
    (`first`: the piece begins the chunk, whose first line is no inner head)."""
    strings = []
    heads = []
    for offset, line in enumerate(piece):
        if quote is not None:
            strings.append(offset)
        elif (offset or not first) and depth == 0 and not continued and has_code(line):
            heads.append(offset)
        depth, quote, continued = scan_line(line, depth, quote)
    return depth, quote, continued, tuple(strings), tuple(heads)


def _is_unit_head(line: str) -> bool:
    return line.startswith("@") or bool(_DEF_OR_CLASS.match(line))


def _make_units(
    lines: list[str],
    starts: list[int],
    in_string: set[int],
    stop: int,
    trees: list[Unit] | None = None,
    heads: list[int] | None = None,
    previous: Callable[[int], str] | None = None,
) -> list[Unit]:
    """The units that begin at `starts`; the last one runs up to line `stop`. `heads`: the
    scan's (`_Scan.heads`), when the units begin where it found statements to. `previous`:
    the text of the earlier version's unit at a line ("" if none); None: there is no earlier
    version (a document's first split)."""
    units = []
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else stop
        while (
            end > start + 1
            and end - 1 not in in_string
            and _is_blank_or_comment(lines[end - 1])
            and not lines[end - 2].endswith("\\")
        ):
            end -= 1  # trailing blank and comment lines are not part of the unit
        text = "\n".join(lines[start:end])
        if heads is not None and end - start >= unit_parts.SPLIT_LINES and not _unit_facts.holds(text):
            own = heads[bisect_left(heads, start) : bisect_left(heads, end)]
            earlier = None if previous is None else previous(start)
            unit_parts.prime(text, [line - start for line in own], earlier)  # its lines not scanned again
            if earlier:
                _inherit_key(text, earlier)
        units.append(_unit(text, start, end, trees))
    return units


def _is_blank_or_comment(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _unit(text: str, start: int, end: int, trees: list[Unit] | None) -> Unit:
    """The unit of `text` on file lines [start, end)."""
    facts = _unit_facts(text)
    error = facts.relative_error.shifted(start) if facts.relative_error else None
    return Unit(
        facts.kind,
        facts.name,
        text,
        start,
        end,
        facts.key,
        error,
        facts.decorator,
        facts=facts,
        notable=facts.notable,
        trees=trees,
    )


def _facts_of(text: str) -> UnitFacts:
    """`_unit_facts`, not cached."""
    module, relative_error = parse_unit(text)
    binders: tuple[tuple[str, str], ...] = ()
    if module is None:
        kind, decorator = _classify_text(text.split("\n"))
        named = _NAMED_DEF.search(text) if kind != "other" else None
        name = named.group(1) if named else None
    else:
        definition = module.body[0] if len(module.body) == 1 else None
        kind, decorator = classify_node(definition)
        name = definition.name if isinstance(definition, ast.FunctionDef | ast.ClassDef) else None
        if kind == "other":
            binders = tuple(call for call in map(binder_call, module.body) if call is not None)
    return UnitFacts(
        kind,
        name,
        _key(text, unit_parts.parse(text).digest),
        relative_error,
        decorator,
        parses=module is not None,
        binder_calls=binders,
        nests=has_indented_decorator(text),
        opens_scope=any(f"{construct}(" in text for construct in SCOPE_CONSTRUCT_NAMES),
    )


# Cached by text, like the parse: on each edit only the edited units are classified and hashed
# again. Facts hold no tree, so far more of them are kept than trees (`TREE_CACHE_CHARS`): a
# unit's text, its key and a few small tuples
_unit_facts = sized_cache(SCAN_CACHE_CHARS, lambda text: len(text) + 1)(_facts_of)


def _inherit_key(text: str, earlier: str) -> None:
    """Give the unit of `text` the key of `earlier`'s, the unit it replaces, when their trees
    (and `_shape`s: what `_key` hashes) are equal. A document's first
    split keys a long unit by its text (`unit_parts.prime` computes no `tree_key` there), so
    without this its first edit inside a comment would change the key (no early cut-off),
    and after it the key stays that first one. Keys stay equal only where trees are: a text's
    own key, or one handed on along edits that left the tree as it was."""
    if not _unit_facts.holds(earlier):
        return
    digest = unit_parts.parse(text).digest
    if digest is None or _shape(text) != _shape(earlier) or digest != unit_parts.digest_of(earlier):
        return
    if not _unit_facts.holds(text):  # as it is not when the unit split primes its parse
        _unit_facts.store(dataclasses.replace(_facts_of(text), key=_unit_facts(earlier).key), text)


def binder_call(stmt: ast.stmt) -> tuple[str, str] | None:
    """(X, f) for `X = f()`: a name bound to what a call without arguments returns."""
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return None
    target, value = stmt.targets[0], stmt.value
    if not isinstance(target, ast.Name) or not isinstance(value, ast.Call) or value.args or value.keywords:
        return None
    return (target.id, value.func.id) if isinstance(value.func, ast.Name) else None


def _key(text: str, digest: bytes | None) -> str:
    """What the unit's analysis reads of it, hashed: its syntax tree with every position
    (`unit_parts.tree_key`), its line count and its last line's length (a unit's span ends
    there), or its text when it does not parse. Early cut-off: an edit that leaves the tree as
    it was (typing in a comment, spaces at a line's end) leaves the key, so nothing built from
    the unit is built again. Nothing else of a unit's text reaches a program's analysis:
    columns are converted from the text before a node, which a comment never is. A tree too
    deep to pickle (`n + n + ...` of 1,000 operands: pickle recurses) is keyed by its text
    too: no early cut-off, still a key that changes with everything the analysis reads."""
    data = text.encode("utf-8", "surrogatepass")
    if digest is not None:
        data = b"%d %d " % _shape(text) + digest
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _shape(text: str) -> tuple[int, int]:
    """What `_key` hashes of a unit's text besides its tree: its line count (less one) and its
    last line's length."""
    return text.count("\n"), len(text.rsplit("\n", 1)[-1])


def parse_unit(text: str) -> tuple[ast.Module | None, Diagnostic | None]:
    """Parse one unit's text, positions relative to its first line (`unit_parts.parse`: cached
    by text, a long unit parsed by its statements)."""
    parsed = unit_parts.parse(text)
    return parsed.module, parsed.error


def classify_node(node: ast.stmt | None) -> tuple[UnitKind, str]:
    """The unit kind from its decorators' dotted names (resolved against imports later)."""
    if not isinstance(node, ast.FunctionDef | ast.ClassDef):
        return "other", ""
    for decorator in node.decorator_list:
        dotted = dotted_name(decorator.func if isinstance(decorator, ast.Call) else decorator)
        kind = _kind(dotted, isinstance(node, ast.ClassDef)) if dotted else "other"
        if kind != "other":
            return kind, dotted
    return "other", ""


def _classify_text(unit_lines: list[str]) -> tuple[UnitKind, str]:
    """The same for a unit that does not parse, from the decorator lines before its def/class."""
    dotted_names: list[str] = []
    for line in unit_lines:
        match = _DECORATOR.match(line)
        if match is not None:
            dotted_names.append(match.group(1))
        elif _DEF_OR_CLASS.match(line):
            is_class = line.startswith("class")
            kinds = ((_kind(dotted, is_class), dotted) for dotted in dotted_names)
            return next((found for found in kinds if found[0] != "other"), ("other", ""))
    return "other", ""


def _kind(dotted: str, is_class: bool) -> UnitKind:
    last = dotted.rsplit(".", 1)[-1]
    if is_class:
        return "program" if last == "program" else "other"
    if _JIT.search(dotted):
        return "jit"
    return "inline" if last == "inline" else "other"


def dotted_name(expr: ast.expr) -> str:
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    return ".".join([expr.id, *reversed(parts)]) if isinstance(expr, ast.Name) else ""
