"""A long unit parsed as its statements, so that an edit re-parses the statement it touched.

Why: a real `@pl.jit` function or program class is 500-1,500 lines. Parsing it whole on each
keystroke cost 15-45 ms and hashing its whole tree for the unit's key another 8-18 ms (issue
13). Here a statement of `SPLIT_LINES` or more lines that holds blocks (a `def`, `class`,
`for`, `while`, `with`, `if`, `try`) is taken apart by a line scan into its skeleton (its
header and clause lines, each block cut to one `pass` on the block's first line) and the
statements of its blocks; each of those is split again when it is long, else parsed alone.
Every piece is cached by its text and place (its first line in the unit, the indentation of
the blocks around it), so after an edit only the pieces whose text changed are parsed again,
and every other statement of the unit is the same `ast` node object as before: the tree is
composed of the kept statements (a statement keeps its object while its text and first line
in the unit do; the compound statements around an edited one are new objects).

Exactness: a piece is parsed in a wrapper of `if 1:` lines, one per enclosing block, placed
just above its first line after blank lines, so its lines keep their numbers and columns and
the tokenizer begins it with the indentation stack the whole parse has there: the piece
yields the same tokens, hence the same statements. A piece begins only where the scan sees a
clean line start (no open bracket, string or backslash) at its block's indentation. Whatever
the scan cannot follow (a body on its header's line, an indentation that is not a plain
prefix of the deeper ones, a form feed) stays one piece, and when any piece fails to parse
the unit is parsed whole, so a syntax error is reported exactly as the whole parse reports
it. Where most pieces of a statement are not kept (a file's first analysis, a paste), the
statement is parsed whole and its pieces are taken from that tree, as their own parses would
have given them.

The key (`tree_key`) is a Merkle hash over statements: a statement of `SPLIT_LINES` or more
lines with blocks (and a module holding one) hashes its node with each node-valued field (each
block's statements one by one) replaced by its key, any other node the pickle of its node,
every position included. It is a function of the tree alone, however the tree was parsed, so
keys are equal exactly when trees are: an edit inside a comment changes no key (early
cut-off). Keys are kept per node object, so an edit pickles the edited statement and the few
nodes around it, not the unit.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import pickle
import re
import warnings
import weakref
from bisect import bisect_left
from dataclasses import dataclass
from itertools import pairwise
from typing import TypeVar

from ..diagnostics import Diagnostic
from ..sized_cache import sized_cache
from . import source
from .line_scan import has_code, scan_line

# What is kept of a unit's parse, by text, is bounded by the characters of text behind it, not
# by a count of entries (issue 20: 1,024 entries let typing into one 740-line unit keep 1,024
# trees of 3 MB). A tree costs 50-120 bytes per character of its text (tracemalloc / RSS), so
# the trees of 1,000,000 characters (some 25 real 1,000-line files) stay under ~110 MiB; they
# hold every unit of the documents being edited, and a document edited after many others is
# re-parsed once. Caches elsewhere that hold a unit's tree use the same budget; the pieces of
# long units (`_statement`) have one of their own, each counted by its whole text (so a piece
# holding other pieces counts them again: what is kept is at most the budget).
TREE_CACHE_CHARS = 1_000_000

SPLIT_LINES = 24  # a statement this long with blocks is parsed (and keyed) by its statements
_CLAUSE = re.compile(r"(?:else|elif|except|finally)\b")
_N = TypeVar("_N", bound=ast.AST)
# `tree_key` per node object, for as long as the node lives: the trees are never mutated, and
# the statements an edit left alone are the same objects in the next version's tree
_DIGESTS: weakref.WeakKeyDictionary[ast.AST, bytes] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class ParsedUnit:
    """A unit's parse: `module` (None with `error` when it does not parse) and `digest`, its
    `tree_key` (None without a tree, for a tree too deep to pickle, or when `deferred`)."""

    module: ast.Module | None
    error: Diagnostic | None
    digest: bytes | None
    deferred: bool = False  # a first split's whole parse: `digest` not computed (`digest_of`)


@dataclass(frozen=True)
class _Block:
    indent: str  # its statements' indentation
    starts: tuple[int, ...]  # each statement's first line (decorators included), in the piece
    end: int  # the line after it: the next clause's header, or the piece's end


@dataclass(frozen=True)
class _Child:
    """One statement of a block, as the piece it is parsed as."""

    text: str
    line: int  # its first line in the unit
    outer: tuple[str, ...]  # the indentation of each block around it, outermost first
    heads: list[int]  # its logical lines' first lines (`_heads`), from its own first line


@sized_cache(TREE_CACHE_CHARS, lambda text: len(text) + 1)
def parse(text: str) -> ParsedUnit:
    """One unit's parse, positions relative to its first line. Cached by text: on each edit the
    whole document is re-split, but only the units whose text changed are parsed again, and of
    a long one only the statements whose text changed (the trees are shared, never mutated)."""
    return _parse(text, None)


def prime(text: str, heads: list[int], previous: str | None) -> None:
    """Keep `parse(text)`, computed with the unit split's own scan of its lines (`_heads`).
    `previous`: the text of the unit this one replaces (the unit split's at the same line).

    The unit split's parse of a unit parsed whole takes no pieces from its tree: a file's
    first analysis parses every long unit so, and most are never edited (taking the pieces
    of the three largest pypto-lib model files was 30-60 ms of their cold open, and finding
    the pieces 25 ms more). A unit's first edit takes them from the tree of its `previous`
    text instead (`_harvest_previous`), so what it left alone are still the objects of that
    tree. Nor is its `tree_key` computed (pickling the three files' trees was 95-120 ms):
    such a unit is keyed by its text, and its first edit computes the key of that tree to
    compare (`digest_of`, `units._inherited`)."""
    if not parse.holds(text):
        parse.store(_parse(text, heads, previous), text)


def _parse(text: str, heads: list[int] | None, previous: str | None = "") -> ParsedUnit:
    """`parse(text)`; `previous`: None when the unit split has no earlier text for it (its
    whole parse takes no pieces, see `prime`), else the earlier text whose pieces to take
    first when most are not kept ("": none, and pieces taken from a whole parse)."""
    lines = text.split("\n")
    split = None if previous is None else _split(lines, "", heads, 0, ())
    new = split is not None and _mostly_new(split, text)
    if split is not None and new and previous and previous not in _PIECED:
        _harvest_previous(previous)
        new = _mostly_new(split, text)  # what the harvest kept counts now
    if split is not None and not new:
        stmts = _composed(split, lines, 0, ())
        if stmts is not None:
            module = ast.Module(body=list(stmts), type_ignores=[])
            _pieced(text)
            return ParsedUnit(module, None, _digest(module))
    whole, error = source.parse(text + "\n", lines, 0)  # a final `\` needs a line after it
    if whole is not None and split is not None and len(whole.body) == 1:
        _harvest(split, whole.body[0], 0)
        _pieced(text)
    if previous is None and whole is not None:
        return ParsedUnit(whole, error, None, deferred=True)  # see `digest_of`
    return ParsedUnit(whole, error, None if whole is None else _digest(whole))


# The last unit texts whose pieces were kept from their own parse (composed or harvested): the
# next edit of such a unit has its earlier text's pieces already, and harvesting that text's
# tree again (`_harvest_previous`) would only store them again (a line typed near the top of
# a long unit leaves most pieces moved, not kept, and harvested its earlier tree on every edit:
# 15-20 % of the split of prefill_cp_csa's 870-line entry, cProfile). Only a hint: a piece the
# bounded cache let go is parsed again.
_PIECED: dict[str, None] = {}
_PIECED_TEXTS = 8


def _pieced(text: str) -> None:
    _PIECED[text] = None
    while len(_PIECED) > _PIECED_TEXTS:
        del _PIECED[next(iter(_PIECED))]


def digest_of(text: str) -> bytes | None:
    """`parse(text).digest`, computed now for a first split's whole parse (`deferred`: its
    unit is keyed by its text, see `units._inherit_key`)."""
    parsed = parse(text)
    if parsed.deferred and parsed.module is not None:
        return _digest(parsed.module)
    return parsed.digest


def _harvest_previous(previous: str) -> None:
    """Keep the pieces of a unit's earlier text from its tree, while the parse cache holds it
    (else the unit is parsed whole, as a cold one is)."""
    if not parse.holds(previous):
        return
    module = parse(previous).module
    if module is None or len(module.body) != 1:
        return
    split = _split(previous.split("\n"), "", None, 0, ())
    if split is not None:
        _harvest(split, module.body[0], 0)


@dataclass(frozen=True)
class _Split:
    """A long statement's blocks and their statements (`_layout`, `_children`)."""

    blocks: tuple[_Block, ...]
    children: list[list[_Child]]


def _split(
    lines: list[str], own: str, heads: list[int] | None, line: int, outer: tuple[str, ...]
) -> _Split | None:
    """The statement on `lines` taken apart, if it is long and has blocks the scan can follow."""
    if len(lines) < SPLIT_LINES:
        return None
    heads = _heads(lines) if heads is None else heads
    blocks = _layout(lines, own, heads)
    return None if blocks is None else _Split(blocks, _children(blocks, heads, lines, line, outer))


def tree_key(node: ast.AST) -> bytes:
    """The Merkle key of a statement (or module, or `except` clause): see the module's
    docstring. A long one with blocks is pickled with each of its node-valued fields (its
    blocks' statements one by one) replaced by their keys, so what an edit left alone is not
    pickled again: keys are kept per node object (`_DIGESTS`) while the node lives."""
    if isinstance(node, ast.Module) and not any(_line_span(stmt) >= SPLIT_LINES for stmt in node.body):
        return _pickled(node)  # a short unit (one of 200,000 constants): one pickle, nothing kept
    found = _DIGESTS.get(node)
    if found is not None:
        return found
    shell = node
    if isinstance(node, ast.Module) or (_line_span(node) >= SPLIT_LINES and hasattr(node, "body")):
        shell = copy.copy(node)
        for name, value in ast.iter_fields(node):
            if isinstance(value, ast.AST):
                setattr(shell, name, tree_key(value))
            elif isinstance(value, list) and value and isinstance(value[0], ast.AST):
                setattr(shell, name, [tree_key(item) for item in value])
    key = _pickled(shell)
    _DIGESTS[node] = key
    return key


def _pickled(node: ast.AST) -> bytes:
    return hashlib.blake2b(pickle.dumps(node, protocol=5), digest_size=16).digest()


def _line_span(node: ast.AST) -> int:
    return (getattr(node, "end_lineno", None) or 0) - getattr(node, "lineno", 0) + 1


def _digest(module: ast.Module) -> bytes | None:
    """`tree_key` of the module; None for a tree too deep to pickle (pickle recurses)."""
    try:
        return tree_key(module)
    except RecursionError:
        return None


@sized_cache(TREE_CACHE_CHARS, lambda text, line, outer: len(text) + 1)
def _statement(text: str, line: int, outer: tuple[str, ...]) -> tuple[ast.stmt, ...] | None:
    """The statements of one piece: `text` (a block's statement) on unit lines from `line` on,
    inside blocks indented `outer`. None: it does not parse (then neither does its unit).
    Kept by `_piece`, which hands the scan of its enclosing statement on."""
    return _statement_of(text, line, outer, None)


def _piece(child: _Child) -> tuple[ast.stmt, ...] | None:
    """`_statement` of a child, computed from the lines its parent scanned."""
    if _statement.holds(child.text, child.line, child.outer):
        return _statement(child.text, child.line, child.outer)
    found = _statement_of(child.text, child.line, child.outer, child.heads)
    _statement.store(found, child.text, child.line, child.outer)
    return found


def _statement_of(
    text: str, line: int, outer: tuple[str, ...], heads: list[int] | None
) -> tuple[ast.stmt, ...] | None:
    lines = text.split("\n")
    split = _split(lines, outer[-1], heads, line, outer)
    if split is not None and not _mostly_new(split, text):
        return _composed(split, lines, line, outer)
    stmts = _parse_in(text, line, outer)
    if stmts is not None and split is not None and len(stmts) == 1:
        _harvest(split, stmts[0], line)
    return stmts


@sized_cache(TREE_CACHE_CHARS, lambda text, line, outer: len(text) + 1)
def _skeleton_parse(text: str, line: int, outer: tuple[str, ...]) -> ast.stmt | None:
    """A skeleton's one statement (`_skeleton`); cached: an edit inside a block leaves it, and a
    long header (a kernel's 200 lines of parameters) is not parsed again."""
    stmts = _parse_in(text, line, outer)
    return stmts[0] if stmts is not None and len(stmts) == 1 else None


def _parse_in(text: str, line: int, outer: tuple[str, ...]) -> tuple[ast.stmt, ...] | None:
    """`text`'s statements, parsed where it stands: after blank lines and one `if 1:` line per
    block around it (each at its enclosing block's indentation), so that positions and the
    tokenizer's indentation stack are those of the whole parse."""
    if line < len(outer):
        return None  # cannot be: each block around it has a header line above it
    wrapper = "".join(f"{indent}if 1:\n" for indent in ("", *outer[:-1])) if outer else ""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # as `source.parse`
            module = ast.parse("\n" * (line - len(outer)) + wrapper + text + "\n")
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    body = module.body
    for _ in outer:
        if len(body) != 1 or not isinstance(body[0], ast.If):
            return None
        body = body[0].body
    return tuple(body) if body else None


def _children(
    blocks: tuple[_Block, ...], heads: list[int], lines: list[str], line: int, outer: tuple[str, ...]
) -> list[list[_Child]]:
    """Each block's statements as pieces."""
    found = []
    for block in blocks:
        inner = (*outer, block.indent)
        pieces = []
        for start, end in pairwise((*block.starts, block.end)):
            own = heads[bisect_left(heads, start) : bisect_left(heads, end)]
            pieces.append(_Child("\n".join(lines[start:end]), line + start, inner, [h - start for h in own]))
        found.append(pieces)
    return found


def _mostly_new(split: _Split, text: str) -> bool:
    """Whether most of the statement's text is in pieces not kept, more than one: then it is
    parsed whole (one parse, not one per piece) and its pieces are taken from that tree. One
    new piece (an edit inside one statement) is parsed by itself, split again if long."""
    missing = [
        child
        for block in split.children
        for child in block
        if not _statement.holds(child.text, child.line, child.outer)
    ]
    return len(missing) > 1 and 2 * sum(len(child.text) for child in missing) > len(text)


def _composed(
    split: _Split, lines: list[str], line: int, outer: tuple[str, ...]
) -> tuple[ast.stmt, ...] | None:
    """The statement as its skeleton with each block's statements put in (kept or parsed)."""
    filled: dict[int, list[ast.stmt]] = {}
    for block, pieces in zip(split.blocks, split.children, strict=True):
        stmts: list[ast.stmt] = []
        for child in pieces:
            found = _piece(child)
            if found is None:
                return None
            stmts += found
        filled[line + block.starts[0] + 1] = stmts  # where the skeleton's `pass` is
    skeleton = _skeleton_parse(_skeleton(split.blocks, lines), line, outer)
    if skeleton is None:
        return None
    node = _filled(skeleton, filled)
    return None if filled else (node,)  # left: a block the skeleton did not show as one


def _skeleton(blocks: tuple[_Block, ...], lines: list[str]) -> str:
    """The statement's text with each block cut to a `pass` on its first line (line numbers kept)."""
    cut = list(lines)
    for block in blocks:
        first = block.starts[0]
        cut[first] = block.indent + "pass"
        cut[first + 1 : block.end] = [""] * (block.end - first - 1)
    return "\n".join(cut)


def _filled(node: _N, blocks: dict[int, list[ast.stmt]]) -> _N:
    """A copy of a skeleton's node with each `pass` at a line of `blocks` replaced by that
    block's statements (taken out of `blocks`), through `except` handlers and `elif`s, its end
    position the end of its last statement."""
    filled = copy.copy(node)
    last: ast.AST | None = None
    for name in ("body", "handlers", "orelse", "finalbody"):
        value = getattr(node, name, None)
        if not value:
            continue
        if name == "handlers":
            value = [_filled(handler, blocks) for handler in value]
        elif len(value) == 1 and isinstance(value[0], ast.Pass) and value[0].lineno in blocks:
            value = blocks.pop(value[0].lineno)
        elif name == "orelse" and len(value) == 1 and isinstance(value[0], ast.If):
            value = [_filled(value[0], blocks)]  # an `elif`
        setattr(filled, name, value)
        last = value[-1]
    if last is not None:
        filled.end_lineno, filled.end_col_offset = last.end_lineno, last.end_col_offset  # type: ignore[attr-defined]
    return filled


def _harvest(split: _Split, node: ast.stmt, line: int) -> None:
    """Keep the pieces of a statement parsed whole, from its tree: each block's statements as
    the pieces they would have parsed to (their first lines tell them apart). A tree that does
    not match the scan (a `match` statement) keeps the statement as one piece only."""
    found: dict[int, list[ast.stmt]] = {}
    firsts = {line + block.starts[0] + 1 for block in split.blocks}
    _block_lists(node, firsts, found)
    if len(found) != len(split.blocks):
        return
    for block, pieces in zip(split.blocks, split.children, strict=True):
        stmts = found[line + block.starts[0] + 1]
        at = 0
        for child in pieces:
            last = child.line + child.text.count("\n") + 1  # its last line, 1-based
            group = []
            while at < len(stmts) and _first_line(stmts[at]) <= last:
                group.append(stmts[at])
                at += 1
            if not group or _first_line(group[0]) != child.line + 1:
                return
            if len(group) == 1:
                inner = _split(child.text.split("\n"), child.outer[-1], child.heads, child.line, child.outer)
                if inner is not None:
                    _harvest(inner, group[0], child.line)
            _statement.store(tuple(group), child.text, child.line, child.outer)
        if at != len(stmts):
            return


def _block_lists(node: ast.AST, firsts: set[int], found: dict[int, list[ast.stmt]]) -> None:
    """The statement lists of `node` (through handlers and `elif`s) starting at `firsts`."""
    for name in ("body", "handlers", "orelse", "finalbody"):
        value = getattr(node, name, None)
        if not value:
            continue
        if name == "handlers":
            for handler in value:
                _block_lists(handler, firsts, found)
        elif _first_line(value[0]) in firsts:
            found[_first_line(value[0])] = value
        elif name == "orelse" and len(value) == 1 and isinstance(value[0], ast.If):
            _block_lists(value[0], firsts, found)


def _first_line(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", None)
    return decorators[0].lineno if decorators else stmt.lineno


def _layout(lines: list[str], own: str, heads: list[int]) -> tuple[_Block, ...] | None:
    """The blocks of the statement on `lines`, indented `own`, from a line scan: its header
    (decorators, then the line opening it), each block's statements (a deeper indentation,
    the same for the whole block), the clause lines between blocks (`else`, `elif`, `except`,
    `finally` at `own`). None where it is not that (a simple statement, a body on the header's
    line) or the scan cannot be sure (an indentation that is no plain prefix)."""
    if not heads or heads[0] != 0 or _indent(lines[0]) != own:
        return None
    if any(lines[head].lstrip(" \t")[0] in "\f\\" for head in heads):
        return None  # a form feed in the indentation; a backslash (the next line's indentation counts)
    at = 0
    while at < len(heads) and _indent(lines[heads[at]]) == own and lines[heads[at]].startswith("@", len(own)):
        at += 1  # decorators
    if at == len(heads) or _indent(lines[heads[at]]) != own:
        return None
    at += 1
    blocks = []
    while at < len(heads):
        indent = _indent(lines[heads[at]])
        if len(indent) <= len(own) or not indent.startswith(own):
            return None
        starts: list[int] = []
        decorated = False  # a decorator opened a statement whose `def`/`class` is still to come
        while at < len(heads):
            text = lines[heads[at]]
            found = _indent(text)
            if found == indent:
                if _CLAUSE.match(text, len(found)):
                    if not starts:
                        return None
                else:
                    if not decorated:
                        starts.append(heads[at])
                    decorated = text.startswith("@", len(found))
            elif found == own:
                break
            elif len(found) <= len(indent) or not found.startswith(indent):
                return None
            at += 1
        if decorated or not starts:
            return None
        blocks.append(_Block(indent, tuple(starts), heads[at] if at < len(heads) else len(lines)))
        if at < len(heads):
            if not _CLAUSE.match(lines[heads[at]], len(own)):
                return None
            at += 1
    return tuple(blocks) if blocks else None


def _heads(lines: list[str]) -> list[int]:
    """The lines on which a logical line with code begins (not inside brackets, a string or a
    backslash continuation): `units._Scan.heads` for one statement's lines."""
    heads = []
    depth, quote, continued = 0, None, False
    for n, line in enumerate(lines):
        if quote is None and depth == 0 and not continued and has_code(line):
            heads.append(n)
        depth, quote, continued = scan_line(line, depth, quote)
    return heads


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]
