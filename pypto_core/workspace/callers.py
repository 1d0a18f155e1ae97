"""Where the workspace calls an inline helper (issue 11, item 5), found statically.

A helper-only module's `@pl.jit.inline` helper becomes code only where it is called; its file
alone cannot say where that is. `CallerIndex.callers(helper_file, name, files)` reads each file
that mentions the name (open documents over the disk, through `ModuleSources`), resolves its
imports the way the analysis does (`ModuleIndex.resolve`: own folder, package, roots, extra
paths) and lists the calls of the names bound to the helper: `from m import h as g` then
`g(...)`, `import m as a` / `from pkg import m as a` then `a.h(...)`, and in the helper's own
file `h(...)`. Imports anywhere in a file count (a builder function imports inside its body).
A later rebinding of the name is not followed (a call through it is still listed).

What a file says is parsed once per text and kept as light facts (import bindings, calls by
name), so asking again after a keystroke elsewhere costs one `stat` and a substring test per
file; per top-level unit (`UnitSplitter`), so a keystroke into an open document parses the unit
it changed, not the whole file (a helper lens is resolved again at every keystroke into its
file: two lenses of a 1,800-line model parsed it twice, 36 ms), and a unit that does not parse
hides only its own calls. Nothing is imported or run.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..frontend.source import node_span
from ..frontend.units import Unit, UnitSplitter
from ..span import Span, split_lines
from .files import resolve_within_deadline
from .modules import ModuleIndex

_Binding = tuple[str, int, str | None, str]  # (module, level, member or None for `import m`, local)


@dataclass(frozen=True)
class CallSite:
    """One call of the helper: the callee's name in the call (code points, 0-based)."""

    path: Path
    span: Span


@dataclass
class _Calls:
    """What one text says: its import bindings and calls by name, spans counted on its lines."""

    bindings: list[_Binding] = field(default_factory=list)
    by_name: dict[str, list[Span]] = field(default_factory=dict)  # `f(...)`
    by_attribute: dict[tuple[str, str], list[Span]] = field(default_factory=dict)  # `a.f(...)`


@dataclass
class _FileCalls:
    """A file's calls: each top-level unit's (`_Calls`, kept by the unit's text) and the line
    it starts on."""

    text: str
    lines: list[str]  # the text's lines (a leading U+FEFF dropped), which the spans count on
    units: list[tuple[int, _Calls]]

    @property
    def bindings(self) -> list[_Binding]:
        return [binding for _, calls in self.units for binding in calls.bindings]

    def calls_of(self, name: str) -> list[Span]:
        return [s.shifted(at) for at, calls in self.units for s in calls.by_name.get(name, ())]

    def attribute_calls(self, local: str, name: str) -> list[Span]:
        return [s.shifted(at) for at, calls in self.units for s in calls.by_attribute.get((local, name), ())]


class CallerIndex:
    """Call facts per file, on top of a `ModuleIndex` (used on its thread only)."""

    def __init__(self, modules: ModuleIndex) -> None:
        self.modules = modules
        self._files: dict[Path, _FileCalls] = {}
        self._splitters: dict[Path, UnitSplitter] = {}
        self._units: dict[Path, dict[str, _Calls]] = {}  # each file's units' calls, by unit text
        self._paths: dict[Path, Path] = {}  # as given -> resolved (symlinks read once)
        self.parsed = 0  # files parsed so far, wholly or in part (observability for tests/bench)
        self.units_parsed = 0  # their top-level units parsed

    def callers(self, helper_file: Path, name: str, files: Iterable[Path]) -> list[CallSite]:
        """Every call of helper `name` of `helper_file` in `files`, by file then position."""
        helper_file = resolve_within_deadline(helper_file)
        # an importer spells the helper's module in an import statement (`from norms import`,
        # `import pkg.norms`, `from . import norms`): a substring test and a search for such a
        # line keep most files unparsed
        stem = helper_file.parent.name if helper_file.name == "__init__.py" else helper_file.stem
        importing = re.compile(rf"^[ \t]*(?:from|import)[ \t][^\n]*\b{re.escape(stem)}\b[^\n]*", re.M)
        found: list[CallSite] = []
        for path in sorted({self._resolved(p) for p in files} | {helper_file}):
            text = self.modules.sources.text(path)
            if text is None:
                for known in (self._files, self._splitters, self._units):
                    known.pop(path, None)  # deleted
                continue
            if name not in text or (
                path != helper_file and not self._imports(path, text, stem, importing, helper_file)
            ):
                continue
            facts = self._facts(path, text)
            spans = facts.calls_of(name) if path == helper_file else []
            for module, level, member, local in facts.bindings:
                if member is None:  # `import m as a`: `a.h(...)`
                    if self.modules.resolve(module, level, path) == helper_file:
                        spans += facts.attribute_calls(local, name)
                    continue
                if member == name and self.modules.resolve(module, level, path) == helper_file:
                    spans += facts.calls_of(local)  # `from m import h as g`: `g(...)`
                dotted = f"{module}.{member}" if module else member
                if self.modules.resolve(dotted, level, path) == helper_file:
                    spans += facts.attribute_calls(local, name)  # `from pkg import m as a`
            found += [CallSite(path, s) for s in sorted(set(spans), key=_order)]
        return found

    def _imports(
        self, path: Path, text: str, stem: str, importing: re.Pattern[str], helper_file: Path
    ) -> bool:
        """Whether one of `path`'s import statements naming `stem` resolves to `helper_file`
        (read from those lines alone: a file importing another folder's `norms` is not parsed)."""
        if stem not in text:
            return False
        for match in importing.finditer(text):
            try:
                tree = ast.parse(match.group().strip())
            except (SyntaxError, ValueError):
                return True  # a statement over several lines: the whole file will tell
            calls = _Calls()
            _collect(tree, [], calls)
            for module, level, member, _ in calls.bindings:
                dotted = f"{module}.{member}" if member and module else member or module
                if helper_file in (
                    self.modules.resolve(module, level, path),
                    self.modules.resolve(dotted, level, path),
                ):
                    return True
        return False

    def _resolved(self, path: Path) -> Path:
        found = self._paths.get(path)
        if found is None:
            found = self._paths[path] = resolve_within_deadline(path)
        return found

    def lines(self, path: Path) -> list[str]:
        """The lines a `CallSite` of `path` from the last `callers` counts its columns on."""
        facts = self._files.get(self._resolved(path))
        return facts.lines if facts is not None else []

    def _facts(self, path: Path, text: str) -> _FileCalls:
        cached = self._files.get(path)
        if cached is not None and (cached.text is text or cached.text == text):
            return cached
        lines = split_lines(text.removeprefix("\ufeff"))
        splitter = self._splitters.setdefault(path, UnitSplitter())
        known, kept = self._units.get(path, {}), dict[str, _Calls]()
        units = []
        parsed = self.units_parsed
        for unit in splitter.split(lines):
            calls = kept.get(unit.text) or known.get(unit.text)
            if calls is None:
                calls = _unit_calls(unit)
                self.units_parsed += 1
            kept[unit.text] = calls
            units.append((unit.start_line, calls))
        splitter.release()
        self.parsed += self.units_parsed > parsed
        self._units[path] = kept
        facts = self._files[path] = _FileCalls(text, lines, units)
        return facts


def _unit_calls(unit: Unit) -> _Calls:
    """What `unit` says, its spans counted from its first line (its tree from the bounded parse
    cache, where an open document's analysis put it; None when it does not parse)."""
    calls = _Calls()
    if unit.node is not None:
        _collect(unit.node, split_lines(unit.text), calls)
    return calls


def _collect(tree: ast.AST, lines: list[str], facts: _Calls) -> None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname is not None:
                    facts.bindings.append((alias.name, 0, None, alias.asname))
                else:  # `import a.b` binds `a`; `a.b.h(...)` is not followed
                    top = alias.name.split(".")[0]
                    facts.bindings.append((top, 0, None, top))
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    local = alias.asname or alias.name
                    facts.bindings.append((node.module or "", node.level, alias.name, local))
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                facts.by_name.setdefault(func.id, []).append(node_span(func, lines, 0))
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                whole = node_span(func, lines, 0)  # `a.h`: the name is its last characters
                span = Span(whole.end_line, whole.end_col - len(func.attr), whole.end_line, whole.end_col)
                facts.by_attribute.setdefault((func.value.id, func.attr), []).append(span)


def _order(span: Span) -> tuple[int, int]:
    return (span.start_line, span.start_col)
