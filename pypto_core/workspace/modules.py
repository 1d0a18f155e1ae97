"""The facts each module of a workspace exports to its importers, computed statically.

`ModuleIndex.lookup_for(path)` is the `ModuleLookup` a file's analysis reads its imports
through. Facts are computed bottom-up over the import graph and cached per file: a module's
facts are recomputed only when its text or the facts of what it imports change (its `key`
covers both), so an importer's fingerprints stay equal and its programs are reused.

Each `lookup_for` starts a round: within it a module's text is read (an open document's
looked up, a file's `stat`ed) once, and its facts computed once, however many imports reach it;
an analysis asks for the same module once per import path that leads there (a keystroke in
pypto-lib's `decode_csa.py` read its twelve modules 51 times, each `stat` on a thread of its
own, `files.within_deadline`: more than half of the importer's re-analysis).

A module's facts are those it has when it is the first module a run executes; another module
that assigns its attributes before importing it (`config.X = ...`, `runs.py`) makes it execute
otherwise in that importer's run (`ModuleIndex.executed`).

Import cycles: the modules of one strongly connected component of the import graph see each
other as not found. That makes a module's facts the same whichever file was asked for first
(Python's answer depends on the order the modules ran in: that order is not known statically).
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic
from ..frontend import ModuleContext, UnitSplitter, block_units, module_context
from ..frontend.imports import ModuleFacts
from ..frontend.module import assigned_context, module_level
from ..frontend.units import Unit
from ..span import split_lines
from .files import resolve_within_deadline
from .resolver import SearchPath, resolve_module
from .runs import ImportRun, assigned_key, derived_key
from .sources import ModuleSources

_Import = tuple[str, int]  # (dotted name, level) as an import statement spells it
_KEPT_RUNS = 256  # module facts kept per kind of `ModuleIndex._executed` / `_assigned`
# a unit that is a definition (a decorator, `def`, `class`), its comment lines before it aside
_DEFINITION = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\n)*[ \t]*(?:@|(?:async[ \t]+)?def\b|class\b)")


@dataclass
class _Module:
    """What is known of one file at one text: its units, the modules its imports name."""

    text: str
    units: list[Unit]
    lines: list[str]
    imports: dict[_Import, Path | None]
    # splits its next text from this one, and forgets the trees its units read (`next_round`)
    splitter: UnitSplitter
    facts: ModuleFacts | None = None  # at `facts.key`, once computed
    # with its facts: the modules its imports may execute (its own import cycle's aside), its
    # import cycle, and what its run as the first module did to them (`ModuleIndex.executed`)
    reach: frozenset[Path] = frozenset()
    component: frozenset[Path] = frozenset()
    effect: ImportRun = field(default_factory=ImportRun)
    # what computing its context found (the file's own analysis reports them, `context`)
    context_diagnostics: list[Diagnostic] = field(default_factory=list)
    # what its facts' key was made of besides its text (`ModuleIndex._compute`): the imported
    # modules' paths and keys, its import cycle
    key_inputs: tuple[tuple[tuple[str, str], ...], frozenset[Path]] | None = None


@dataclass
class WorkspaceLookup:
    """The imports of one file, answered from the index; `read` collects every file the
    answers depended on (the server re-analyses the file when one of them changes)."""

    index: ModuleIndex
    importer: Path | None  # None: a document that is not a file (only the roots are searched)
    read: set[str] = field(default_factory=set)
    _cut: frozenset[Path] | None = None  # the importer's import cycle, once one was found
    _clear: set[Path] = field(default_factory=set)  # modules found not to import the importer
    _run: ImportRun = field(default_factory=ImportRun)  # the importer's run of its imports

    def module(self, name: str, level: int) -> ModuleFacts | None:
        path = self.index.resolve(name, level, self.importer)
        if path is None or self._on_cycle(path):
            return None
        facts = self.index.imported(path, self._run)
        if facts is not None:
            self.read.add(facts.path)
            self.read.update(facts.depends_on)
        return facts

    def assign(self, path: str, name: str, value: Any) -> None:
        self._run.assign(Path(path), name, value)

    def restart(self) -> None:
        self._run = ImportRun()

    def _on_cycle(self, path: Path) -> bool:
        """Whether `path` is on the importer's import cycle (its facts would need the
        importer's own). Only a module that imports the importer, directly or not, can be:
        for the others the importer's text is not read, so a keystroke into an open document
        does not split it a second time here."""
        if self.importer is None:
            return False
        if self._cut is None:
            if not self.index.imports_of_reach(path, self.importer, self._clear):
                return False
            self._cut = self.index.component_of(self.importer)
        return path in self._cut


class ModuleIndex:
    """Module facts by file. Not thread-safe: one caller at a time."""

    def __init__(self, sources: ModuleSources | None = None, search: SearchPath | None = None) -> None:
        self.sources = sources or ModuleSources()
        self.search = search or SearchPath()
        self._modules: dict[Path, _Module] = {}
        self._resolved: dict[tuple[str, int, Path | None], Path | None] = {}  # by importer folder
        self._importers: dict[Path, Path] = {}  # each importer's path resolved, as `_resolved`
        self._canonical: set[Path] = set()  # paths found resolved so far, as `_resolved`
        # this round's (`lookup_for`): the files whose text was read, and the facts computed
        self._read: dict[Path, _Module | None] = {}
        self._facts: dict[Path, ModuleFacts | None] = {}
        self._last_read: list[Path] = []  # the files the last round that read any read
        # facts of modules a run executed otherwise than first (`executed`), by what they read
        # of it, with what executing them did to it; and facts read after attributes were
        # assigned (`imported`), by the facts and the assignments
        self._executed: dict[tuple[Path, str, str], tuple[ModuleFacts, ImportRun]] = {}
        self._assigned: dict[tuple[str, str], ModuleFacts] = {}
        # each root's import graph components, with the modules read to find them (`_components`)
        self._graphs: dict[Path, tuple[list[frozenset[Path]], dict[Path, _Module | None]]] = {}
        self.computed = 0  # module facts computed so far (observability for tests/bench)

    def set_search(self, search: SearchPath) -> None:
        if search != self.search:
            self.search = search
            self._resolved.clear()
            self._importers.clear()
            self._canonical.clear()
            self._modules.clear()
            self._graphs.clear()
            self._end_round()

    def changed(self, path: Path) -> None:
        """A file appeared, changed or was deleted on disk: forget what was read and resolved."""
        self.sources.forget(path)
        self._modules.pop(path, None)
        self._resolved.clear()  # a new file may shadow another on the search path
        self._importers.clear()
        self._canonical.clear()
        self._end_round()

    def next_round(self) -> None:
        """Read every module's text again when next asked (a document or a file may have
        changed since the last round): the files the last round that read any read are
        stated now, all on one reader (`ModuleSources.prefetch`), as the next analysis of a
        document reads what its last did."""
        self._end_round()
        self.sources.prefetch(self._last_read)  # the files this round will most likely read

    def _end_round(self) -> None:
        """Forget this round's texts and facts. The trees the round's units read are dropped
        (the bounded parse cache may still hold them): the index keeps every module's units
        and facts, and with their trees it held half a cold `pypto-check`'s memory (208 MiB
        at the end of pypto-lib's models in one process, peak 405 MiB; 277 without). No
        stat here: a round ended by a change on disk stats its files when the next begins."""
        for module in self._read.values():
            if module is not None:
                module.splitter.release()
        if self._read:
            self._last_read = list(self._read)
        self._read.clear()
        self._facts.clear()

    def lookup_for(self, importer: Path | None) -> WorkspaceLookup:
        """The imports of the file `importer`, or of a document that is not a file (None),
        read in a round of their own (`next_round`)."""
        self.next_round()
        if importer is None:
            return WorkspaceLookup(self, None)
        resolved = self._importers.get(importer)
        if resolved is None:  # a reader round trip a keystroke otherwise (`files.within_deadline`)
            resolved = self._importers[importer] = resolve_within_deadline(importer)
            self._canonical.add(resolved)
        return WorkspaceLookup(self, resolved)

    def resolved_as(self, importer: Path, resolved: Path) -> None:
        """`importer` resolves to `resolved` (until a file changes), as its caller found:
        `pypto-check` resolves each checked file once, before its workers fork, and each
        worker's `lookup_for` of it, and `resolve` of it as a module another file imports,
        was a reader round trip otherwise."""
        self._importers[importer] = resolved
        self._canonical.add(resolved)

    def text(self, path: Path) -> str | None:
        """`path`'s text as this round read it (what the analysis of its importer saw), else as
        its sources give it now (`ModuleSources.text`: a `stat` at least)."""
        module = self._read.get(path)
        return module.text if module is not None else self.sources.text(path)

    def units(self, path: Path, text: str) -> list[Unit] | None:
        """The units of `path` (a resolved path) as its importers read them in this round,
        if its text there is `text`: the checker analyses each file with them, instead of
        splitting it a second time (4 % of a cold run over pypto-lib's models)."""
        module = self._module(path)
        return module.units if module is not None and module.text == text else None

    def context(self, path: Path, text: str) -> tuple[ModuleContext, list[Diagnostic]] | None:
        """The module context of `path` (a resolved path) at `text` as its facts hold it,
        with what computing it found: the file's own analysis in this round would compute the
        same (the same units, its imports through the same lookups with the same import cycle
        cut), and 110 of pypto-lib's 155 model files are imported by another, so a cold
        `pypto-check` computed their contexts twice. None: not a DSL module (its analysis
        wants an empty context, importers read its constants) or not at this text."""
        module = self._module(path)
        if module is None or module.text != text or module.facts is None:
            return None  # not imported so far: its facts may cost more than its analysis
        facts = self.facts(path)
        if facts is None or not facts.ctx.analysed:
            return None
        return facts.ctx, self._modules[path].context_diagnostics

    def resolve(self, name: str, level: int, importer: Path | None) -> Path | None:
        # `resolve_module` reads only the importer's folder, so one folder's files share each
        # answer: pypto-check over pypto-lib's models asked `is_file` 6,288 times (a reader
        # thread's round trip each) for 2,026 paths, keyed by importer
        key = (name, level, importer.parent if importer is not None else None)
        if key not in self._resolved:
            found = resolve_module(name, level, importer, self.search, self.sources.is_file)
            if found is not None and found not in self._canonical:  # (a resolved path resolves to itself)
                found = resolve_within_deadline(found)
                self._canonical.add(found)
            self._resolved[key] = found
        return self._resolved[key]

    # -- facts ------------------------------------------------------------------------------

    def facts(self, path: Path) -> ModuleFacts | None:
        """The facts `path` exports, computed for it and every module it imports that changed."""
        if path in self._facts:
            return self._facts[path]
        order = self._components(path)
        for component in order:
            for member in sorted(component):
                if member not in self._facts:
                    self._compute(member, component)
                    self._facts[member] = self._modules[member].facts
        module = self._modules.get(path)
        facts = self._facts[path] = module.facts if module is not None else None
        return facts

    def imported(self, path: Path, run: ImportRun) -> ModuleFacts | None:
        """`path` as an import statement of `run` finds it: executed at its first import (the
        run updated with what that did), and read with the attributes assigned to it since."""
        facts = run.executed.get(path) or self.executed(path, run)
        assigned = run.assigned.get(path)
        if facts is None or not assigned:
            return facts
        key = (facts.key, assigned_key(assigned))
        seen = self._assigned.get(key)
        if seen is None:
            if len(self._assigned) >= _KEPT_RUNS:
                self._assigned.clear()
            ctx = assigned_context(facts.ctx, assigned)
            seen = self._assigned[key] = _derived(facts, ctx, derived_key(*key), facts.names | set(assigned))
        return seen

    def executed(self, path: Path, run: ImportRun) -> ModuleFacts | None:
        """The facts of `path` executed now in `run`, which is updated with what executing it
        did (the modules its imports executed, the attributes it assigned). As its facts (the
        first module of a run) unless the run executed a module it reaches otherwise, or
        assigned an attribute of one: then computed over the run, and kept by what they read
        of it."""
        facts = self.facts(path)
        if facts is None:
            return None
        module = self._modules[path]
        if not self._run_differs(module, run):
            run.merge(module.effect)
            run.executed[path] = facts
            return facts
        key = (path, facts.key, run.fingerprint(module.reach))
        kept = self._executed.get(key)
        if kept is None:
            lookup = _RunLookup(self, path, module.component, run)
            ctx, _ = module_context(module.units, lookup, exported=True)
            names = ctx.bound_names | set(ctx.functions)
            executed = _derived(facts, ctx, derived_key(facts.key, key[2]), names)
            if len(self._executed) >= _KEPT_RUNS:
                self._executed.clear()
            kept = self._executed[key] = (executed, run.restricted(module.reach))
        else:
            run.merge(kept[1])
        run.executed[path] = kept[0]
        return kept[0]

    def _run_differs(self, module: _Module, run: ImportRun) -> bool:
        """Whether `run` holds a module `module` reaches otherwise than `module`'s run as the
        first module would: assigned an attribute, or executed with other facts."""
        for path in module.reach:
            if path in run.assigned:
                return True
            done = run.executed.get(path)
            if done is not None and done is not module.effect.executed.get(path):
                return True
        return False

    def component_of(self, path: Path) -> frozenset[Path]:
        """The files on an import cycle with `path` (itself included), from its current text."""
        path = resolve_within_deadline(path)
        for component in self._components(path):
            if path in component:
                return component
        return frozenset({path})

    def imports_of_reach(self, start: Path, target: Path, clear: set[Path]) -> bool:
        """Whether `start` is `target` or imports it, directly or through other modules;
        `clear`: modules known not to, to which those found not to are added."""
        seen: set[Path] = set()
        pending = [start]
        while pending:
            path = pending.pop()
            if path == target:
                return True
            if path in seen or path in clear:
                continue
            seen.add(path)
            module = self._module(path)
            if module is not None:
                pending += [p for p in module.imports.values() if p is not None]
        clear |= seen
        return False

    def _module(self, path: Path) -> _Module | None:
        if path in self._read:
            return self._read[path]
        module = self._read[path] = self._text_module(path)
        return module

    def _text_module(self, path: Path) -> _Module | None:
        text = self.sources.text(path)
        if text is None:
            self._modules.pop(path, None)
            return None
        module = self._modules.get(path)
        if module is not None and module.text == text:
            return module
        lines = split_lines(text.removeprefix("\ufeff"))
        splitter = module.splitter if module is not None else UnitSplitter()
        units = block_units(splitter.split(lines))
        module = _Module(text, units, lines, self._imports(units, path), splitter)
        self._modules[path] = module
        return module

    def _imports(self, units: list[Unit], importer: Path) -> dict[_Import, Path | None]:
        found: dict[_Import, Path | None] = {}
        for spelled in _import_statements(units):
            found[spelled] = self.resolve(*spelled, importer)
        return found

    def _components(self, root: Path) -> list[frozenset[Path]]:
        """`_tarjan(root)`, kept while the modules it read are the same objects (each holds
        one text and the paths its imports resolved to): a round asks for them once per
        module imported, and a keystroke in an importer changes none of them."""
        kept = self._graphs.get(root)
        if kept is not None and all(self._module(path) is module for path, module in kept[1].items()):
            return kept[0]
        read: dict[Path, _Module | None] = {}
        found = self._tarjan(root, read)
        self._graphs[root] = (found, read)
        return found

    def _tarjan(self, root: Path, read: dict[Path, _Module | None]) -> list[frozenset[Path]]:
        """Tarjan's strongly connected components of the import graph reachable from `root`,
        dependencies first (`read`: filled with each module it read). Iterative: an import
        chain of any length cannot overflow."""

        def module(path: Path) -> _Module | None:
            found = read[path] = self._module(path)
            return found

        index: dict[Path, int] = {}
        low: dict[Path, int] = {}
        on_stack: set[Path] = set()
        stack: list[Path] = []
        result: list[frozenset[Path]] = []
        if module(root) is None:
            return result
        work: list[tuple[Path, list[Path]]] = []

        def enter(path: Path) -> None:
            index[path] = low[path] = len(index)
            stack.append(path)
            on_stack.add(path)
            imports = self._modules[path].imports
            targets = [p for p in dict.fromkeys(imports.values()) if p is not None]
            work.append((path, [p for p in targets if module(p) is not None]))

        enter(root)
        while work:
            path, pending = work[-1]
            if pending:
                target = pending.pop()
                if target not in index:
                    enter(target)
                elif target in on_stack:
                    low[path] = min(low[path], index[target])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[path])
            if low[path] == index[path]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == path:
                        break
                result.append(frozenset(component))
        return result

    def _compute(self, path: Path, component: frozenset[Path]) -> None:
        module = self._modules[path]
        deps = sorted({p for p in module.imports.values() if p is not None and p not in component})
        dep_facts = [self._modules[p].facts for p in deps if p in self._modules]
        inputs = (tuple((f.path, f.key) for f in dep_facts if f is not None), component)
        if module.facts is not None and module.key_inputs == inputs:
            return  # what the key hashes is as it was (a `_Module` holds one text): every round
        digest = hashlib.blake2b(module.text.encode("utf-8", "surrogatepass"), digest_size=16)
        for dep_path, dep_key in inputs[0]:
            digest.update(f"{dep_path}\0{dep_key}\0".encode("utf-8", "surrogatepass"))
        digest.update(repr(sorted(str(p) for p in component)).encode())
        key = digest.hexdigest()
        module.key_inputs = inputs
        if module.facts is not None and module.facts.key == key:
            return
        run = ImportRun()
        ctx, module.context_diagnostics = module_context(
            module.units, _RunLookup(self, path, component, run), exported=True
        )
        module.reach = frozenset(
            reached for dep in deps if dep in self._modules for reached in (dep, *self._modules[dep].reach)
        )
        module.component = component
        module.effect = run.restricted(module.reach)
        depends_on = set()
        for facts in dep_facts:
            if facts is not None:
                depends_on.add(facts.path)
                depends_on.update(facts.depends_on)
        names = ctx.bound_names | set(ctx.functions)
        module.facts = ModuleFacts(
            _module_name(path),
            str(path),
            module.units,
            ctx,
            module.lines,
            key,
            frozenset(names),
            frozenset(depends_on),
        )
        self.computed += 1


def _derived(facts: ModuleFacts, ctx: ModuleContext, key: str, names: Iterable[str]) -> ModuleFacts:
    """`facts` of the same file with another context (a run's): what is kept per facts object
    (signatures, plans) starts afresh."""
    return replace(
        facts,
        ctx=ctx,
        key=key,
        names=frozenset(names),
        signatures={},
        plans=None,
        derived={},
        _body_fingerprint=None,
    )


@dataclass
class _RunLookup:
    """Imports of a module while its facts are computed, in `run`: the modules of its own
    import cycle are not found; every other one was computed before it (dependencies first)."""

    index: ModuleIndex
    importer: Path
    component: frozenset[Path]
    run: ImportRun

    def module(self, name: str, level: int) -> ModuleFacts | None:
        path = self.index.resolve(name, level, self.importer)
        if path is None or path in self.component:
            return None
        return self.index.imported(path, self.run)

    def assign(self, path: str, name: str, value: Any) -> None:
        self.run.assign(Path(path), name, value)


def _import_statements(units: list[Unit]) -> list[_Import]:
    """The modules a file's module-level import statements name (and the submodules a
    `from pkg import x` may mean), in source order. A definition's unit holds no module-level
    import and is not parsed for one: a module's functions are otherwise parsed only when an
    analysis builds them."""
    nodes = [
        node
        for unit in units
        if not _DEFINITION.match(unit.text) and isinstance(unit.node, ast.Module)
        for node in module_level(unit.node.body)
    ]
    return _spelled(nodes)


def _spelled(nodes: list[ast.stmt]) -> list[_Import]:
    spelled: list[_Import] = []
    for node in nodes:
        if isinstance(node, ast.Import):
            spelled += [(alias.name, 0) for alias in node.names if not _is_pypto(alias.name)]
        elif isinstance(node, ast.ImportFrom) and not (node.level == 0 and _is_pypto(node.module or "")):
            module = node.module or ""
            spelled.append((module, node.level))
            for alias in node.names:
                if alias.name != "*":
                    spelled.append((f"{module}.{alias.name}" if module else alias.name, node.level))
    return list(dict.fromkeys(spelled))


def _is_pypto(module: str) -> bool:
    return module == "pypto" or module.startswith("pypto.")


def _module_name(path: Path) -> str:
    return path.parent.name if path.name == "__init__.py" else path.stem
