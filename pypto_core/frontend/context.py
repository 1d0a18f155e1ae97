"""What the front end knows while it builds one function: module facts and program facts.

`ModuleContext` is computed once per module from its non-program units (imports, constants,
`pl.dynamic` symbols, inline helpers) and is what a program's analysis depends on besides its
own text. `FunctionContext` adds the program around the function being built.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..diagnostics import Diagnostic
from ..dsl_names import DslNames, resolve_parts
from ..ir import CalleeSignature
from .static_eval import dotted_name

if TYPE_CHECKING:
    from .declared import Declared
    from .imports import ForeignFunction
    from .types import AnnotationMemo

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
    dynamic_symbols: set[str] = field(default_factory=set)  # `M = pl.dynamic("M")` -> "M"
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

    def fingerprint(self) -> str:
        """A stable hash of everything a program's analysis reads from the module besides its
        own units: DSL aliases, constants, dynamic symbols and inline helpers (the hash of each
        helper's text, so positions relative to the helper are covered)."""
        return _digest([*self._shared_facts(), sorted(self.inline_keys.items())])

    def body_fingerprint(self) -> str:
        """A stable hash of what building one function's body reads from the module: as
        `fingerprint`, but the inline helpers by name only (a body never reads a helper's
        text: splicing does), and the names bound to decorated functions, here and imported
        (a body tells a call of one from an op by them)."""
        names = [sorted(self.inline_functions), sorted(self.functions), sorted(self.foreign)]
        return _digest([*self._shared_facts(), *names])

    def _shared_facts(self) -> list[object]:
        return [
            sorted(self.pl_names),
            sorted(self.pld_names),
            sorted(self.pl_members.items()),
            sorted((name, type(value).__name__, repr(value)) for name, value in self.constants.items()),
            sorted((name, repr(value)) for name, value in self.values.items()),
            sorted(self.dynamic_symbols),
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
    diagnostics: list[Diagnostic] = field(default_factory=list)
    dump_tags: bool = False  # a `pl.dump_tag` was built: `apply_dump_tags` has work to do


def _digest(parts: list[object]) -> str:
    digest = hashlib.blake2b(digest_size=16)
    digest.update(repr(parts).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()
