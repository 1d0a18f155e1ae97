"""What the front end knows while it builds one function: module facts and program facts.

`ModuleContext` is computed once per module from its non-program units (imports, constants,
`pl.dynamic` symbols, inline helpers) and is what a program's analysis depends on besides its
own text. `FunctionContext` adds the program around the function being built.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from itertools import compress
from operator import is_not
from typing import TYPE_CHECKING, Any

from ..diagnostics import Diagnostic
from ..dsl_names import DslNames, resolve_parts
from ..ir import CalleeSignature
from .static_eval import dotted_name

if TYPE_CHECKING:
    from .declared import Declared
    from .imports import FileLookup, ForeignFunction, ModuleFacts, ModuleLookup
    from .types import AnnotationMemo
    from .units import Unit

PL = "pl"  # how the body builder spells a path into pypto.language
PLD = "pld"  # ... and into pypto.language.distributed


@dataclass
class ModuleContext:
    pl_names: set[str] = field(default_factory=set)  # local names bound to pypto.language
    pld_names: set[str] = field(default_factory=set)  # local names bound to pypto.language.distributed
    # `from pypto.language import Tensor as T` -> {"T": "Tensor"} (local name -> pl attribute)
    pl_members: dict[str, str] = field(default_factory=dict)
    constants: dict[str, int | float | str | bool] = field(default_factory=dict)
    # other static values (`static_eval`): tuples, dicts, frozen dataclass configs and classes,
    # modules; read through `fold`, never turned into IR constants themselves
    values: dict[str, Any] = field(default_factory=dict)
    # `M = pl.dynamic("M")` -> {"M": "M"}; `ROWS = pl.dynamic("M")` -> {"ROWS": "M"}: the compiler
    # names the extent by its string (its DynVar), whatever variable the code reads it through
    dynamic_symbols: dict[str, str] = field(default_factory=dict)
    inline_functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    # name -> index of the unit holding that `@pl.inline` helper (its node's line 1 is the unit start)
    inline_units: dict[str, int] = field(default_factory=dict)
    inline_keys: dict[str, str] = field(default_factory=dict)  # name -> that unit's content hash
    # undecorated module-level `def`s, which a module-level call runs (`static_exec`); not in the
    # fingerprint: what they return is, as the constants and values it gives
    python_functions: dict[str, ast.FunctionDef] = field(default_factory=dict, repr=False, compare=False)
    # module-level name -> index of the unit whose decorated `def` the name is bound to at the end
    # of the module (a later `def` shadows, `alias = kernel` binds `alias` too); jit calls resolve here
    functions: dict[str, int] = field(default_factory=dict)
    # decorated functions imported from other modules, by local name (`imports`)
    foreign: dict[str, ForeignFunction] = field(default_factory=dict)
    # names imported from a module that was not found or does not define them -> (that module
    # as written, whether it was found)
    unresolved: dict[str, tuple[str, bool]] = field(default_factory=dict)
    # names bound to a module-level `@pl.function`, a plain `def`, a `pl.MemRef(...)`
    # declaration: what the parser checks calls and Tile annotations against (`declared`)
    declared: dict[str, Declared] = field(default_factory=dict)
    # names imported from a module that binds them to something not static (`K = int(env)`, a
    # plain function) -> that module's name: unknown to folding like any other name, and named
    # in hovers (no program reads this, so it is not in the fingerprint)
    opaque_imports: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    # every name bound at module level (what another module may import from this one)
    bound_names: set[str] = field(default_factory=set, repr=False, compare=False)
    # dotted name -> `resolve`'s / `dsl_path`'s answer (imports never change once names are resolved)
    _paths: dict[str, tuple[str, ...] | None] = field(default_factory=dict, repr=False, compare=False)
    _dsl_paths: dict[str, tuple[str, ...] | None] = field(default_factory=dict, repr=False, compare=False)
    # annotation source text -> its type and the constants it was folded with (`types`)
    annotation_types: dict[str, AnnotationMemo] = field(default_factory=dict, repr=False, compare=False)
    # `functions` inverted (unit index -> names), built on first use, once `functions` is final
    _names_by_unit: dict[int, list[str]] | None = field(default=None, repr=False, compare=False)
    # `fingerprint` and `body_fingerprint` once computed, for a context that is final (`freeze`):
    # a module context kept across keystrokes (`ContextMemo`) is hashed on every analysis, and
    # with 20,000 constants a hash is 0.09 s
    _digests: dict[str, str] | None = field(default=None, repr=False, compare=False)

    # the module does not import the DSL, but a function body does (`def build(): import
    # pypto.language as pl; @pl.program ...`): its builder bodies are analysed
    dsl_in_bodies: bool = False
    # units of DSL definitions in module-level block branches a folded condition rules out
    untaken_units: set[int] = field(default_factory=set)

    @property
    def is_dsl(self) -> bool:
        return bool(self.pl_names or self.pld_names or self.pl_members)

    @property
    def analysed(self) -> bool:
        """Whether the file is a DSL file: it imports the DSL, at module level or in a body."""
        return self.is_dsl or self.dsl_in_bodies

    def resolve(self, expr: ast.expr | str) -> tuple[str, ...] | None:
        """The DSL path an expression names, relative to `pypto.language`, however imported:
        `pl.jit.incore` -> ("jit", "incore"), `pld.x` -> ("distributed", "x"), `FP32` (from
        `from pypto.language import FP32`) -> ("FP32",). None when it is not a DSL name.

        Asked for most names and attributes of every body, which spell only a few distinct
        dotted names, so the answer is kept per dotted name (imports are all recorded before
        the first question)."""
        dotted = expr if isinstance(expr, str) else dotted_name(expr)
        if dotted is None:
            return None
        try:
            return self._paths[dotted]
        except KeyError:
            path = self._paths[dotted] = self._resolve_parts(dotted.split("."))
            return path

    def dsl_path(self, expr: ast.expr) -> tuple[str, ...] | None:
        """`resolve` in the body builder's spelling: `pl.tensor.add` -> ("pl", "tensor", "add"),
        `pld.tensor.put` -> ("pld", "tensor", "put"); None when it is not a DSL name."""
        dotted = dotted_name(expr)
        if dotted is None:
            return None
        try:
            return self._dsl_paths[dotted]
        except KeyError:
            path = self.resolve(dotted)
            if path is not None:
                path = (PLD, *path[1:]) if path[:1] == ("distributed",) else (PL, *path)
            self._dsl_paths[dotted] = path
            return path

    def _resolve_parts(self, parts: list[str]) -> tuple[str, ...] | None:
        return resolve_parts(parts, self.pl_names, self.pld_names, self.pl_members)

    def dsl_names(self) -> DslNames:
        """The module's DSL names; for a module importing the DSL only inside function bodies,
        the conventional `pl` / `pld` (what those bodies import it as, by far most often)."""
        if not self.is_dsl and self.dsl_in_bodies:
            return DslNames(frozenset({"pl"}), frozenset({"pld"}))
        return DslNames(
            frozenset(self.pl_names), frozenset(self.pld_names), tuple(sorted(self.pl_members.items()))
        )

    def names_of_unit(self, index: int) -> list[str]:
        """The module-level names bound to unit `index`'s decorated function, in `functions`
        order (a program asks for each of its members: inverting once keeps that linear)."""
        if self._names_by_unit is None:
            self._names_by_unit = {}
            for name, unit in self.functions.items():
                self._names_by_unit.setdefault(unit, []).append(name)
        return self._names_by_unit.get(index, [])

    def freeze(self) -> None:
        """Its facts are final (the module's context once built): its hashes are kept. A copy
        (`nested`, to extend with a body's names) is not frozen."""
        if self._digests is None:
            self._digests = {}

    def fingerprint(self) -> str:
        """A stable hash of everything a program's analysis reads from the module besides its
        own units: DSL aliases, constants, dynamic symbols and inline helpers (the hash of each
        helper's text, so positions relative to the helper are covered)."""
        return self._kept("module", lambda: [*self._shared_facts(), sorted(self.inline_keys.items())])

    def body_fingerprint(self) -> str:
        """A stable hash of what building one function's body reads from the module: as
        `fingerprint`, but the inline helpers by name only (a body never reads a helper's
        text: splicing does), and the names bound to decorated functions, here and imported
        (a body tells a call of one from an op by them)."""
        return self._kept(
            "body",
            lambda: [
                *self._shared_facts(),
                sorted(self.inline_functions),
                sorted(self.functions),
                sorted(self.foreign),
            ],
        )

    def _kept(self, which: str, parts: Callable[[], list[object]]) -> str:
        if self._digests is None:
            return _digest(parts())
        found = self._digests.get(which)
        if found is None:
            found = self._digests[which] = _digest(parts())
        return found

    def _shared_facts(self) -> list[object]:
        return [
            sorted(self.pl_names),
            sorted(self.pld_names),
            sorted(self.pl_members.items()),
            sorted((name, type(value).__name__, repr(value)) for name, value in self.constants.items()),
            sorted((name, repr(value)) for name, value in self.values.items()),
            sorted(self.dynamic_symbols.items()),
            sorted(self.unresolved.items()),
            sorted((name, repr(value)) for name, value in self.declared.items()),
        ]


@dataclass
class FunctionContext:
    module: ModuleContext
    source_lines: list[str]  # the whole file's lines (for byte -> code-point columns)
    # a unit is parsed on its own: 0-based file line = ast lineno - 1 + line_offset
    line_offset: int
    # Program functions a body may call: `self.f` in a program, a plain name in a jit program.
    callees: dict[str, CalleeSignature] = field(default_factory=dict)
    class_constants: dict[str, int | float | str | bool] = field(default_factory=dict)
    in_jit: bool = False
    # a jit function's `p.bind_dynamic(i, ROWS)` symbols: the specialiser names those by the
    # variable (`ROWS`), the others by their string (`ModuleContext.dynamic_symbols`); and
    # the axes they bind, (parameter, axis, variable): those axes are the variable's symbol
    bound_symbols: frozenset[str] = frozenset()
    bound_axes: tuple[tuple[str, int, str], ...] = ()
    aliases: frozenset[str] = frozenset()  # the names a jit body's renames made (`jit_renames`)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def symbol_name(self, name: str, signature: bool = False) -> str | None:
        """The compiler's name of the dynamic symbol the variable `name` holds, else None. In
        a parameter annotation (`signature`) a symbol is its string even where the body binds
        the variable: the specialiser names each axis by its own source (`bound_axes`)."""
        symbol = self.module.dynamic_symbols.get(name)
        return name if symbol is not None and not signature and name in self.bound_symbols else symbol

    dump_tags: bool = False  # a `pl.dump_tag` was built: `apply_dump_tags` has work to do


ContextBuilder = Callable[["list[Unit]", "ModuleLookup | None"], "tuple[ModuleContext, list[Diagnostic]]"]


class ContextMemo:
    """One document's last module context, handed out again while what it was built from is
    unchanged (issue 20: with 20,000 module constants a keystroke inside a program spent 0.7
    of its 1.2 s CPU refolding every constant).

    What `module_context` reads of a unit: of a program or jit definition, only its header
    facts (kind, name, decorator, where it is bound); of any other unit (statements, inline
    helpers, block units) its whole tree, by `Unit.key`. Positions enter as each unit's line
    relative to the unit before it (a nested definition's, to its enclosing unit): every line
    the context holds is relative to a unit, so a line break typed into a program, which moves
    every later unit, keeps the context. Its imports are asked again on reuse (in order: the
    caller's record of the files read stays whole) and must answer with the same modules (path
    and key); anything else builds afresh."""

    def __init__(self) -> None:
        self._isolated: bool | None = None
        # the units the context was built from and what it read of each (`_part`)
        self._units: list[Unit] = []
        self._parts: list[Hashable] = []
        self._answers: list[tuple[tuple[str, int] | _Assignment, tuple[str, str] | None]] = []
        self._built: tuple[ModuleContext, list[Diagnostic]] | None = None
        self.reused = False  # whether the last `module_context` call reused (for tests)
        self.compared = 0  # units whose parts the last call compared (the rest were the same objects)

    def module_context(
        self, units: list[Unit], modules: FileLookup | None, build: ContextBuilder
    ) -> tuple[ModuleContext, list[Diagnostic]]:
        isolated = modules is None
        parts = self._parts_of(units) if isolated == self._isolated else None
        known = self._built is not None and parts is not None
        replayed = known and modules is not None
        self.reused = known and (modules is None or self._same_answers(modules))
        if self.reused:
            assert self._built is not None and parts is not None
            self._units, self._parts = units, parts
            return self._built
        if replayed and modules is not None:
            modules.restart()  # the replay ran some of its imports
        recording = None if modules is None else _RecordingLookup(modules)
        self._built = build(units, recording)
        self._built[0].freeze()
        self._isolated, self._units, self._parts = isolated, units, _parts(units)
        self._answers = [] if recording is None else recording.answers
        return self._built

    def _parts_of(self, units: list[Unit]) -> list[Hashable] | None:
        """The parts of `units` if they equal the last ones', else None. A unit that is the
        same object as the last call's at its index has the same part unless the unit before
        it changed (its place is relative to that one), so with 200,000 units kept by the
        splitter only the edited ones and their successors are looked at (issue 20)."""
        old = self._units
        self.compared = 0
        if len(units) != len(old):
            return None
        changed = list(compress(range(len(units)), map(is_not, units, old)))
        if not changed:
            return self._parts
        parts = list(self._parts)
        for index in sorted({i for c in changed for i in _placed_by(units, c)}):
            part = _part(units, index)
            self.compared += 1
            if part != parts[index]:
                return None
            parts[index] = part
        return parts

    def _same_answers(self, modules: FileLookup) -> bool:
        """Whether `modules` answers the questions in the order they were asked (an attribute
        assignment told again where it was, since the answers after it may read it) as
        before: the statements that asked them read the same, so they assign the same."""
        for query, answer in self._answers:
            if isinstance(query, _Assignment):
                modules.assign(query.path, query.name, query.value)
            elif _identity(modules.module(*query)) != answer:
                return False
        return True


@dataclass(frozen=True)
class _Assignment:
    """What a module told its lookup it assigned (`ModuleLookup.assign`)."""

    path: str
    name: str
    value: Any


class _RecordingLookup:
    """A `ModuleLookup` noting each question and the module it answered, and each assignment
    in its place among them."""

    def __init__(self, modules: ModuleLookup) -> None:
        self._modules = modules
        self.answers: list[tuple[tuple[str, int] | _Assignment, tuple[str, str] | None]] = []

    def module(self, name: str, level: int) -> ModuleFacts | None:
        facts = self._modules.module(name, level)
        self.answers.append(((name, level), _identity(facts)))
        return facts

    def assign(self, path: str, name: str, value: Any) -> None:
        self._modules.assign(path, name, value)
        self.answers.append((_Assignment(path, name, value), None))


def _identity(facts: ModuleFacts | None) -> tuple[str, str] | None:
    return None if facts is None else (facts.path, facts.key)


_DEFINITIONS = ("program", "jit")


def _parts(units: list[Unit]) -> list[Hashable]:
    return [_part(units, index) for index in range(len(units))]


def _placed_by(units: list[Unit], index: int) -> Iterator[int]:
    """`index` and the units whose place `_part` counts from it: up to the next top-level unit."""
    yield index
    for after in range(index + 1, len(units)):
        yield after
        if units[after].node_line is None:
            return


def _part(units: list[Unit], index: int) -> Hashable:
    """What `module_context` reads of `units[index]`: its header facts (a definition) or its
    tree's key, and its first line relative to the top-level unit before it (a nested unit's,
    to its enclosing unit)."""
    unit = units[index]
    if unit.node_line is None:
        previous_end = 0
        for before in range(index - 1, -1, -1):
            if units[before].node_line is None:
                previous_end = units[before].end_line
                break
        place = unit.start_line - previous_end
    else:
        place = unit.start_line - unit.node_line
    if unit.kind in _DEFINITIONS:
        node = unit.node
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            return (unit.kind, unit.name, unit.decorator, node.name, node.lineno, unit.returned_by, place)
    return (unit.kind, unit.key, unit.returned_by, unit.node_line is None, place)


def _digest(parts: list[object]) -> str:
    digest = hashlib.blake2b(digest_size=16)
    digest.update(repr(parts).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()
