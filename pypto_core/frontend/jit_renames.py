"""The jit specialiser's alpha-renames, made while a jit body is built.

The compiler does not parse a `@pl.jit` function as written: its specialiser rewrites the body
first (`jit/specializer.py`, `_BodyTransformer`), and one of its rewrites renames variables. A
plain-name assignment to a name already bound at the same block depth (For, If and With
bodies each one level deeper; the parameters are bound at depth 0) binds a new name, `x_v1`,
then `x_v2`, ... (skipping names the function binds itself), and the reads after it read the
new name; an assignment at a deeper depth rebinds whatever name is current. Before a `for`
whose body reads a name bound at the body's depth in a sibling block before writing it, a
bridge `x_v1 = x` is inserted and the body binds `x_v1`; a name such a body writes first is a
fresh local, forgotten, as are the names a then-branch bound first when an else-branch
follows. The compiler's outlined parameters, returns and call sites carry those names, so the
analysis builds with them: `JitRenamer` keeps the specialiser's bookkeeping per source name,
and the builder asks it at each plain-name assignment, `for`, `if` and `with`.

The builder's variable table stays keyed by the source name (what a statement spells, which
statement reuse reads, `stmt_memo`), its `Var` named as the compiler names it; each name's
bookkeeping is one immutable `NameState`, which a statement's record holds with the name's
other entries, its depth counted from the statement's (an edit that moves a statement to
another depth, its text unchanged, finds the records unlike).

Only plain single-name targets are renamed and recorded (as the specialiser's
`visit_Assign`/`visit_AnnAssign`); a tuple, augmented, loop or `as` target keeps its name.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..ir import AssignStmt, Stmt, Var

if TYPE_CHECKING:
    from .body_state import BodyState

_ALIAS = re.compile(r"(?<![.\w])[A-Za-z_]\w*_v\d+\b")  # a word a rename could make
_TAIL = re.compile(r"_v\d")  # what such a word holds: searched first (`_ALIAS` is 30x slower)


def alias_words(text: str) -> frozenset[str]:
    """The words of `text` shaped like a rename (`x_v1`): the names a rename skips are among
    them (nearly always none), so they are all a body's renames read of its whole text. Only
    the lines holding `_vN` are read word by word (a 3,000-line body is built at every
    keystroke in it)."""
    words: set[str] = set()
    end = 0
    for found in _TAIL.finditer(text):
        if found.start() < end:
            continue
        start = text.rfind("\n", 0, found.start()) + 1
        end = text.find("\n", found.end())
        end = len(text) if end < 0 else end
        words.update(_ALIAS.findall(text, start, end))
    return frozenset(words)


@dataclass(frozen=True, slots=True)
class NameState:
    """The specialiser's bookkeeping of one source name."""

    recorded: bool  # bound by a plain assignment (or a parameter) and not forgotten since
    depth: int  # the depth of that first binding (in a statement record: the record's depth less it)
    count: int  # the next rename number to try
    made: int  # the last rename number made (0: none)
    base: Var | None  # the name's own `Var` while a rename is current (None: the name is current)

    def at(self, depth: int) -> NameState:
        """This state with its depth counted from `depth` (and back: the map is its own
        inverse): itself where that is its own depth (a statement's at the top level)."""
        if depth == 2 * self.depth:
            return self
        return NameState(self.recorded, depth - self.depth, self.count, self.made, self.base)


class JitRenamer:
    """The rename bookkeeping of one jit body's build (`BodyState.renamer`)."""

    def __init__(self, params: list[str], taken: frozenset[str]) -> None:
        self.depth = 0
        self.states: dict[str, NameState] = {name: NameState(True, 0, 1, 0, None) for name in params}
        self._taken = taken
        self._params = frozenset(params)

    @staticmethod
    def taken(node: ast.FunctionDef, words: frozenset[str]) -> frozenset[str]:
        """The rename-shaped names the function binds or takes as parameters (a rename skips
        them: the specialiser's `used_names`)."""
        if not words:
            return frozenset()
        bound = {arg.arg for arg in node.args.args}
        bound.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
        return words & frozenset(bound)

    def assigned(self, state: BodyState, name: str) -> str | None:
        """A plain assignment to `name` at the current depth: the new name it binds, or None
        when it binds the current one (a first binding, or a rebinding deeper down)."""
        known = self.states.get(name)
        if known is None or not known.recorded:
            made = known.made if known is not None else 0
            self.states[name] = NameState(True, self.depth, 1, made, None)
            return None
        if known.depth != self.depth:
            return None
        return self._rename(state, name, known)

    def record(self, name: str) -> None:
        """A binding the specialiser records without renaming it (`_record_first_assign`)."""
        known = self.states.get(name)
        if known is None or not known.recorded:
            self.states[name] = NameState(True, self.depth, 1, known.made if known is not None else 0, None)

    def unpacked(self, node: ast.Assign) -> None:
        """`m, n = p.shape` of a parameter `p`: its names recorded (see `shape_read`)."""
        target = node.targets[0]
        if isinstance(target, ast.Tuple) and self.shape_read(node.value, indexed=False):
            for element in target.elts:
                if isinstance(element, ast.Name):
                    self.record(element.id)

    def shape_read(self, value: ast.expr | None, *, indexed: bool) -> bool:
        """`p.shape[i]` (`indexed`) or `p.shape` of a parameter `p`, assigned to a name or
        unpacked into names: the specialiser inlines the extents (taken as static: a dynamic
        one is read through `pl.tensor.dim`) and only records the names bound to them."""
        if indexed:
            if not (
                isinstance(value, ast.Subscript)
                and isinstance(value.slice, ast.Constant)
                and type(value.slice.value) is int
            ):
                return False
            value = value.value
        return (
            isinstance(value, ast.Attribute)
            and value.attr == "shape"
            and isinstance(value.value, ast.Name)
            and value.value.id in self._params
        )

    def current_name(self, name: str) -> str:
        """What a read of `name` reads: its last rename while one is current."""
        known = self.states.get(name)
        return f"{name}_v{known.made}" if known is not None and known.base is not None else name

    def _rename(self, state: BodyState, name: str, known: NameState) -> str:
        count = known.count
        while count <= known.made or f"{name}_v{count}" in self._taken:
            count += 1
        base = known.base if known.base is not None else state.variables.get(name)
        self.states[name] = replace(known, count=count + 1, made=count, base=base)
        return f"{name}_v{count}"

    def bridges(self, state: BodyState, node: ast.For) -> list[Stmt]:
        """Before a `for`: a bridge `x_vN = x` for each name its body reads before writing
        that a sibling block bound at the body's depth (the loop then carries `x_vN`), and
        the names such a body writes first forgotten (`_classify_loop_locals`)."""
        inner = self.depth + 1
        candidates: dict[str, None] = {}
        for stmt in node.body:
            if isinstance(stmt, ast.Assign):
                targets = stmt.targets
            elif isinstance(stmt, ast.AnnAssign):
                targets = [stmt.target]
            else:
                continue
            for target in targets:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                        known = self.states.get(n.id)
                        if known is not None and known.recorded and known.depth == inner:
                            candidates[n.id] = None
        if not candidates:
            return []
        exposed: set[str] = set()
        _upward_exposed(node.body, set(), exposed)
        made: list[Stmt] = []
        for name in candidates:
            if name not in exposed:
                self.forget(state, name)
                continue
            current = state.variables.get(name)
            alias = self._rename(state, name, self.states[name])
            self.states[name] = replace(self.states[name], depth=self.depth)
            if current is None:
                continue
            span = state.span(node)
            var = state.rename(name, alias, span, current.type)
            made.append(AssignStmt(var, current, span))
        return made

    def aliases(self) -> frozenset[str]:
        """Every name this body's renames made (`x_v1`, ...): a name's rename numbers only grow
        (forgetting it keeps its last, `made`) and skip only the names the function binds, so
        they are its numbers up to the last made, less those. The statement records hand the
        states on (`stmt_memo`), so a body built from them has its renames' too."""
        made = set()
        for name, known in self.states.items():
            for number in range(1, known.made + 1):
                alias = f"{name}_v{number}"
                if alias not in self._taken:
                    made.add(alias)
        return frozenset(made)

    def recorded(self) -> set[str]:
        """The names recorded now (an `if` forgets those its then-branch added)."""
        return {name for name, known in self.states.items() if known.recorded}

    def forget(self, state: BodyState, name: str) -> None:
        """Drop `name`'s bookkeeping (`_forget_rename_bookkeeping`): its next binding is a
        first one, of its own name, which reads read again."""
        known = self.states.get(name)
        if known is None:
            return
        if known.base is not None:
            state.variables[name] = known.base
            state.current_types[name] = known.base.type
        self.states[name] = NameState(False, 0, 1, known.made, None)


def _stores(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _loads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _upward_exposed(statements: list[ast.stmt], written: set[str], exposed: set[str]) -> None:
    """The names `statements` read before writing them, in execution order (the specialiser's
    `_collect_upward_exposed`): an `if`'s branches each from what was written before it, a name
    written after it only when both branches write it."""
    for stmt in statements:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            if stmt.value is not None:
                exposed.update(_loads(stmt.value) - written)
            for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                exposed.update(_loads(target) - written)
                written.update(_stores(target))
        elif isinstance(stmt, ast.AugAssign):
            exposed.update(_loads(stmt.value) - written)
            names = _stores(stmt.target)
            exposed.update(names - written)
            written.update(names)
        elif isinstance(stmt, ast.For):
            exposed.update(_loads(stmt.iter) - written)
            written.update(_stores(stmt.target))
            _upward_exposed(stmt.body, written, exposed)
            _upward_exposed(stmt.orelse, written, exposed)
        elif isinstance(stmt, ast.If):
            exposed.update(_loads(stmt.test) - written)
            then_written = set(written)
            _upward_exposed(stmt.body, then_written, exposed)
            if stmt.orelse:
                else_written = set(written)
                _upward_exposed(stmt.orelse, else_written, exposed)
                written.update(then_written & else_written)
        elif isinstance(stmt, ast.With):
            for item in stmt.items:
                exposed.update(_loads(item.context_expr) - written)
                if item.optional_vars is not None:
                    written.update(_stores(item.optional_vars))
            _upward_exposed(stmt.body, written, exposed)
        else:
            exposed.update(_loads(stmt) - written)
