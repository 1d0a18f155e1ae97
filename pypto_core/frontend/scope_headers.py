"""Where a file writes a scope construct (`pl.at`, `pl.spmd`, `pl.graph`, `pl.cluster`), and
why one that no program outlines gets no function (PTO605).

The compiler outlines only the scopes of the programs it parses; a construct elsewhere (module
code, a plain function, a definition a later one replaces) is never seen by it. Saying so on the
header is what keeps the analysis from being silent about a scope it shows no lens for.

Headers are found from each top-level unit's syntax tree alone and cached by its text; only
whether the call really names the DSL is settled against the imports each time.
"""

from __future__ import annotations

import ast
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial

from ..diagnostics import Diagnostic, Severity
from ..sized_cache import sized_cache
from ..span import Span
from .context import ModuleContext
from .source import node_span
from .tree_memo import TreeMemo
from .units import SCOPE_CONSTRUCT_NAMES, TREE_CACHE_CHARS, Unit, classify_node, dotted_name, notable_indices

NOT_OUTLINED = "PTO605"

CONSTRUCTS = frozenset((name,) for name in SCOPE_CONSTRUCT_NAMES)
_NAMES = frozenset(SCOPE_CONSTRUCT_NAMES)


@dataclass(frozen=True)
class ScopeHeader:
    """A `with`/`for` header calling what may be a scope construct, positioned in its unit's
    parse; `owner` is the innermost DSL-decorated `def` around it ("" when there is none)."""

    call: ast.Call
    dotted: str
    owner: str


def scope_headers(unit: Unit) -> tuple[ScopeHeader, ...]:
    """The headers in a top-level unit, in source order (a unit whose text names no construct
    is passed over without its tree: `Unit.opens_scope`)."""
    if not unit.opens_scope:
        return ()
    node = unit.node
    return () if node is None else _headers(unit.text, node)


def construct_lines(units: list[Unit], ctx: ModuleContext, notable: list[int] | None = None) -> list[int]:
    """The file lines holding a header that names a scope construct, in order (`notable`:
    `notable_indices(units)`, when the caller has it; the other units hold no header)."""
    found: list[int] = []
    for unit in map(units.__getitem__, notable_indices(units) if notable is None else notable):
        if not unit.opens_scope or (node := unit.node) is None:
            continue
        rows = _CONSTRUCT_ROWS.get(node, ctx, 0, partial(_construct_rows, unit.text, node, ctx))
        offset = unit.node_offset
        found += [row + offset for row in rows]
    return found


def _construct_rows(text: str, node: ast.AST, ctx: ModuleContext) -> tuple[int, ...]:
    return tuple(h.call.lineno - 1 for h in _headers(text, node) if ctx.resolve(h.dotted) in CONSTRUCTS)


# a unit's construct headers' lines in the unit (independent of its place): a keystroke plans the
# file again, and resolved every header of every unit
_CONSTRUCT_ROWS: TreeMemo[tuple[int, ...]] = TreeMemo()


def not_outlined(
    units: list[Unit],
    ctx: ModuleContext,
    covered: list[Unit],
    source_lines: list[str],
    notable: list[int] | None = None,
) -> list[Diagnostic]:
    """A hint on every construct header of the top-level `units` outside the units some
    program is built from (`covered`). `notable`: `notable_indices(units)`, when the caller
    has it (the other units hold neither a header nor a definition)."""
    ranges = sorted((u.start_line, u.end_line) for u in covered)
    if notable is None:
        notable = notable_indices(units)
    shadowed = {  # module-level DSL definitions a later one of the same name replaces
        units[i].name
        for i in notable
        if units[i].kind != "other" and units[i].name and ctx.functions.get(units[i].name or "", i) != i
    }
    untaken = [(units[i].start_line, units[i].end_line) for i in ctx.untaken_units if i < len(units)]
    found = []
    for unit in map(units.__getitem__, notable):
        for header in scope_headers(unit):
            path = ctx.resolve(header.dotted)
            line = header.call.lineno - 1 + unit.node_offset
            if path not in CONSTRUCTS or any(start <= line < end for start, end in ranges):
                continue
            span = node_span(header.call, source_lines, unit.node_offset)
            in_untaken = any(start <= line < end for start, end in untaken)
            found.append(_hint(f"pl.{path[0]}", header.owner, header.owner in shadowed, span, in_untaken))
    return found


def _hint(construct: str, owner: str, is_shadowed: bool, span: Span, untaken: bool = False) -> Diagnostic:
    if untaken:
        message = (
            f"{construct} scope is not outlined: '{owner}' is defined in a branch the module does not "
            "take (its `if` condition folds the other way)"
        )
        hint = "the compiler sees only the branch that runs: change the condition's constants to see this one"
    elif not owner:
        message = f"{construct} scope is not inside a @pl.program function or jit kernel: nothing outlines it"
        hint = (
            "the compiler outlines only the scopes of the programs it parses: move it into a "
            "@pl.function method of a @pl.program class, or a @pl.jit function"
        )
    elif is_shadowed:
        message = f"{construct} scope is not outlined: a later definition of '{owner}' replaces this one"
        hint = "rename one of the two definitions if both are meant to be kept"
    else:
        message = f"{construct} scope is not outlined: '{owner}' is not part of any program of this file"
        hint = "call it from a @pl.program function or a @pl.jit entry"
    return Diagnostic(NOT_OUTLINED, Severity.HINT, message, span, hint)


@sized_cache(TREE_CACHE_CHARS, lambda text, node: len(text) + 1)  # the key holds the unit's tree
def _headers(text: str, node: ast.AST) -> tuple[ScopeHeader, ...]:
    if not any(f"{name}(" in text for name in _NAMES):
        return ()
    return tuple(sorted(_walk(node), key=lambda h: (h.call.lineno, h.call.col_offset)))


# the fields of a statement (or handler, or match case) that hold statements: a header is a
# statement, and no expression holds one, so the walk never enters an expression
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _walk(root: ast.AST) -> Iterator[ScopeHeader]:
    """Over statements only (walking every node was 4 % of a cold run over pypto-lib's
    models, profiled), each compound statement's headers kept with its node (`_below`): an
    edit re-parses the statement it touched, and every statement it left alone is the same
    node in the new tree (`unit_parts`), so a keystroke in an 870-line unit walks the
    statements around the edit, not the unit."""
    for call, dotted, owner in _below(root, 0):
        yield ScopeHeader(call, dotted, owner or "")


# A header below a statement, and its owner there: None while no DSL definition below the
# statement encloses it (the owner is then that of the statement itself)
_Found = tuple[ast.Call, str, str | None]
_BELOW: weakref.WeakKeyDictionary[ast.AST, tuple[_Found, ...]] = weakref.WeakKeyDictionary()
# how deep `_below` recurses before walking the rest without keeping (an `elif` chain nests
# each `if` in the one before without indentation: a parse can be deeper than Python's
# recursion limit)
_DEEPEST = 100


def _below(node: ast.AST, depth: int) -> tuple[_Found, ...]:
    """The headers in `node` (itself included), unordered."""
    blocks = [block for field in _BLOCKS if type(block := getattr(node, field, None)) is list]
    if not blocks and not isinstance(node, ast.With | ast.AsyncWith | ast.For | ast.AsyncFor):
        return ()
    if depth > _DEEPEST:
        return tuple(_plain(node))
    known = _BELOW.get(node)
    if known is not None:
        return known
    owner = None
    if (
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and classify_node(node)[0] != "other"
    ):
        owner = node.name
    found = [(call, dotted, owner) for call, dotted in _own_headers(node)]
    for block in blocks:
        for child in block:
            for header in _below(child, depth + 1):
                found.append(header if header[2] is not None or owner is None else (*header[:2], owner))
    known = _BELOW[node] = tuple(found)
    return known


def _plain(root: ast.AST) -> Iterator[_Found]:
    """`_below` of a node too deep to recurse into, iteratively and keeping nothing."""
    stack: list[tuple[ast.AST, str | None]] = [(root, None)]
    while stack:
        node, owner = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            owner = node.name if classify_node(node)[0] != "other" else owner
        for call, dotted in _own_headers(node):
            yield call, dotted, owner
        for field in _BLOCKS:
            block = getattr(node, field, None)
            if type(block) is list:
                stack.extend((child, owner) for child in block)


def _own_headers(node: ast.AST) -> list[tuple[ast.Call, str]]:
    """The calls of `node`'s own `with` items or `for` iterable that may name a construct."""
    calls: list[ast.expr] = []
    if isinstance(node, ast.With | ast.AsyncWith):
        calls = [item.context_expr for item in node.items]
    elif isinstance(node, ast.For | ast.AsyncFor):
        calls = [node.iter]
    return [
        (call, dotted)
        for call in calls
        if isinstance(call, ast.Call) and (dotted := dotted_name(call.func)).rsplit(".", 1)[-1] in _NAMES
    ]
