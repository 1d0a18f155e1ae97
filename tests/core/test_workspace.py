"""Across modules (issue 11): imports resolved statically, what comes across them (constants and
config objects, inline helpers spliced as if written in the caller, kernels as callee evidence),
import cycles, missing modules, and incremental == fresh when an imported module changes.

The fixture workspace, tests/fixtures/workspace, is written for these tests in the shapes of
real projects (see its README)."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from spliced_sources import LEAKY_CALLER, LEAKY_HELPER

from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.diagnostics import Diagnostic, Severity
from pypto_core.frontend.units import UNPARSED
from pypto_core.results import FileAnalysis
from pypto_core.workspace import ModuleIndex, ModuleSources, SearchPath, files, resolve_module

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "workspace"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A private copy: tests edit its files."""
    root = tmp_path / "ws"
    shutil.copytree(FIXTURE, root)
    return root


def analyse(index: ModuleIndex, path: Path) -> FileAnalysis:
    text = index.sources.text(path)
    assert text is not None
    return analyse_source(text, str(path), index.lookup_for(path))


def params(analysis: FileAnalysis, name: str) -> list[tuple[str, str, str]]:
    (record,) = [o for o in analysis.outlined if o.name == name]
    return [(p.name, p.direction.value, p.type) for p in record.params]


def summary(a: FileAnalysis) -> tuple[object, ...]:
    return (a.is_dsl, a.diagnostics, a.outlined, a.promoted, [p.name for p in a.programs])


# -- resolution ---------------------------------------------------------------------------------


def test_imports_resolve_sibling_first_then_roots_then_extra_paths(tmp_path: Path) -> None:
    for rel in ("app/main.py", "app/m.py", "root/m.py", "root/only_root.py", "extra/only_extra.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    (tmp_path / "root/pkg/sub").mkdir(parents=True)
    (tmp_path / "root/pkg/sub/__init__.py").write_text("")
    search = SearchPath(roots=(tmp_path / "root",), extra=(tmp_path / "extra",))
    importer = tmp_path / "app/main.py"

    def find(name: str, level: int = 0) -> Path | None:
        return resolve_module(name, level, importer, search, Path.is_file)

    assert find("m") == tmp_path / "app/m.py"  # the importing file's own folder wins
    assert find("only_root") == tmp_path / "root/only_root.py"
    assert find("only_extra") == tmp_path / "extra/only_extra.py"
    assert find("pkg.sub") == tmp_path / "root/pkg/sub/__init__.py"  # pkg has no __init__: namespace
    assert find("torch") is None
    assert find("m", 1) == tmp_path / "app/m.py"
    assert find("only_root", 1) is None  # a relative import looks in the package only


def test_the_files_of_one_folder_share_each_resolution(tmp_path: Path) -> None:
    """A module is looked for from the importer's folder alone, so its siblings' imports of
    it are answered once (each candidate a `stat` on a reader thread): pypto-lib's model
    files each import torch, typing, their config..."""
    (tmp_path / "app").mkdir()
    for name in ("a", "b", "m"):
        (tmp_path / f"app/{name}.py").write_text("")

    asked: list[Path] = []

    class Counted(ModuleSources):
        def is_file(self, path: Path) -> bool:
            asked.append(path)
            return super().is_file(path)

    index = ModuleIndex(Counted())
    for importer in ("a", "b"):
        assert index.resolve("m", 0, tmp_path / f"app/{importer}.py") == tmp_path / "app/m.py"
        assert index.resolve("torch", 0, tmp_path / f"app/{importer}.py") is None
    assert asked == [tmp_path / "app/m.py", tmp_path / "app/torch.py", tmp_path / "app/torch/__init__.py"]


def test_an_open_document_wins_over_the_disk_and_the_disk_is_read_once_per_change(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("A = 1\n")
    sources = ModuleSources()
    assert sources.text(path) == "A = 1\n" and sources.text(path) == "A = 1\n"
    assert sources.disk_reads == 1  # cached by modification time and size
    path.write_text("A = 22\n")  # a different size
    assert sources.text(path) == "A = 22\n" and sources.disk_reads == 2
    sources.open(path, "A = 3\n")
    assert sources.text(path) == "A = 3\n"
    unsaved = tmp_path / "unsaved.py"
    sources.open(unsaved, "B = 1\n")
    assert sources.is_file(unsaved) and not unsaved.exists()


# -- what comes across --------------------------------------------------------------------------


def test_the_model_sees_its_imports_as_the_compiler_does(workspace: Path) -> None:
    analysis = analyse(ModuleIndex(), workspace / "model.py")
    names = [(o.name, o.kind, o.program) for o in analysis.outlined]
    assert names == [
        ("norm", "Spmd", "decode"),  # the imported inline helper's scope, outlined in the caller
        ("attend", "Spmd", "decode"),
        ("gate", "Spmd", "decode"),
        ("rows", "InCore", "decode"),
        ("copy", "InCore", "copy_rows"),
    ]
    f32 = "Tensor[[32, 128], FP32]"  # ROWS and SMALL.width from the config module
    assert params(analysis, "norm") == [("x", "In", f32), ("w", "In", f32), ("normed", "Out", f32)]
    # the imported extern's declared directions (D5)
    assert params(analysis, "attend") == [
        ("out", "Out", f32),
        ("q", "InOut", f32),
        ("cache", "InOut", f32),
        ("table", "In", "Tensor[[32, 128], INT32]"),  # LARGE.half // 4 through `import shapes`
    ]
    # an imported @pl.jit.incore kernel, called under an alias, reading `normed` as the
    # spliced call rebound it (`normed_v1`, `jit_renames`)
    assert [p[:2] for p in params(analysis, "rows")] == [("normed_v1", "In"), ("out", "Out")]


def test_spliced_code_is_shown_at_its_call_site_in_the_caller(workspace: Path) -> None:
    text = (workspace / "model.py").read_text()
    analysis = analyse(ModuleIndex(), workspace / "model.py")
    (norm,) = [o for o in analysis.outlined if o.name == "norm"]
    call_line = text.split("\n").index("    normed = scaled_norm(x, w, normed)")
    assert (norm.scope_span.start_line, norm.scope_span.end_line) == (call_line, call_line)


def test_a_callee_from_a_module_that_is_not_found_is_an_information_naming_the_setting(
    workspace: Path,
) -> None:
    analysis = analyse(ModuleIndex(), workspace / "model.py")
    (d,) = analysis.diagnostics  # `import torch` itself is no diagnostic
    assert (d.code, d.severity) == ("PTO604", Severity.INFO)
    assert "'fused_gate'" in d.message and "'fused_ops' was not found" in d.message
    assert d.hint is not None and "pypto.analysis.extraPaths" in d.hint
    assert params(analysis, "gate")[0][:2] == ("q", "In")
    # found on an extra path, it is resolved
    extra = workspace.parent / "elsewhere"
    extra.mkdir()
    (extra / "fused_ops.py").write_text(
        "import pypto.language as pl\n\n\n@pl.jit.extern(core_type='aiv', source='g.cpp')\n"
        "def fused_gate(q: pl.InOut[pl.Tensor], table: pl.Tensor) -> pl.Tensor: ...\n"
    )
    found = analyse(ModuleIndex(search=SearchPath(extra=(extra,))), workspace / "model.py")
    assert found.diagnostics == []
    assert params(found, "gate")[0][:2] == ("q", "InOut")


def test_a_helper_that_calls_a_helper_of_its_own_module_splices_both(workspace: Path) -> None:
    model = workspace / "model.py"
    text = model.read_text().replace(
        "normed = scaled_norm(x, w, normed)", "normed = double_norm(x, w, normed)"
    )
    model.write_text(text)
    analysis = analyse(ModuleIndex(), model)
    assert [o.name for o in analysis.outlined][:2] == ["norm", "norm_0"]  # the compiler's collision rule
    assert analysis.diagnostics[0].code == "PTO601"


def test_an_imported_helper_is_built_once_and_splicing_never_changes_it(workspace: Path) -> None:
    """Every importer splices a copy of one build of the helper; `double_norm` calls
    `scaled_norm`, which is spliced into (a copy of) it first: no analysis may see another's
    splices, whichever ran first."""
    from pypto_core.analysis import outlined_program_text
    from pypto_core.frontend import programs

    model = workspace / "model.py"
    model.write_text(
        model.read_text().replace("normed = scaled_norm(x, w, normed)", "normed = double_norm(x, w, normed)")
    )
    programs._HELPERS_BUILT.clear()
    first = analyse(ModuleIndex(), model)
    built = len(programs._HELPERS_BUILT)
    assert built == 2  # double_norm, scaled_norm
    again = [analyse(ModuleIndex(), model) for _ in range(2)]
    assert len(programs._HELPERS_BUILT) == built  # reused, not built again
    programs._HELPERS_BUILT.clear()
    fresh = analyse(ModuleIndex(), model)
    for other in [*again, fresh]:
        assert summary(other) == summary(first)
        assert outlined_program_text(other, raw=True) == outlined_program_text(first, raw=True)


def test_relative_imports_in_a_package(workspace: Path) -> None:
    analysis = analyse(ModuleIndex(), workspace / "pkg" / "kernel.py")
    assert params(analysis, "pkg_scope")[0] == ("x", "In", "Tensor[[48, 48], FP32]")


def test_an_import_cycle_terminates_and_its_members_see_each_other_as_unknown(workspace: Path) -> None:
    first, second = ModuleIndex(), ModuleIndex()
    ring_a, ring_b = workspace / "ring_a.py", workspace / "ring_b.py"
    a_first = analyse(first, ring_a)
    facts_b_first = second.facts(ring_b.resolve())
    a_second = analyse(second, ring_a)
    assert summary(a_first) == summary(a_second)  # whichever file was read first
    assert facts_b_first is not None and "B_ROWS" not in facts_b_first.ctx.constants
    assert params(a_first, "ring_scope") == [
        ("x", "In", "Tensor[[16, 64], FP32]"),
        ("out", "Out", "Tensor[[16, 64], FP32]"),
    ]


def test_an_edit_that_makes_or_breaks_an_import_cycle_reads_as_a_fresh_index(tmp_path: Path) -> None:
    """The index keeps each module's facts key inputs and each root's import graph while the
    modules it read hold the same texts: an edit of one module that imports another back
    changes the graph, and every round answers as a fresh index over the same texts."""
    (tmp_path / "top.py").write_text("from mid import M\nT = M + 1\n")
    (tmp_path / "mid.py").write_text("from low import L\nM = L + 1\n")
    low = (tmp_path / "low.py").resolve()
    index = ModuleIndex()
    top = (tmp_path / "top.py").resolve()
    for text in ("L = 1\n", "from top import T\nL = 1\n", "L = 2\n", "from mid import M\nL = 3\n", "L = 1\n"):
        index.sources.open(low, text)
        index.next_round()
        kept = index.facts(top)
        fresh_index = ModuleIndex(index.sources)
        fresh = fresh_index.facts(top)
        assert kept is not None and fresh is not None
        assert (kept.key, kept.ctx.constants) == (fresh.key, fresh.ctx.constants), text
        assert index.component_of(low) == fresh_index.component_of(low), text
    assert index.facts(top).ctx.constants["T"] == 3  # type: ignore[union-attr]


class _CountedSources(ModuleSources):
    def __init__(self) -> None:
        super().__init__()
        self.reads: list[str] = []

    def text(self, path: Path) -> str | None:
        self.reads.append(path.name)
        return super().text(path)


@pytest.mark.parametrize(("importer", "read"), [("model.py", False), ("ring_a.py", True)])
def test_the_index_reads_the_importer_itself_only_on_an_import_cycle(
    workspace: Path, importer: str, read: bool
) -> None:
    """Whether a module is cut off as the importer's own import cycle needs the importer's
    imports only when that module imports it back: otherwise the index never reads the file
    being analysed (a keystroke into an open document split it a second time there)."""
    sources = _CountedSources()
    index = ModuleIndex(sources)
    path = (workspace / importer).resolve()
    analysis = analyse_source(path.read_text(), str(path), index.lookup_for(path))
    assert analysis.outlined  # its imports were answered
    assert (importer in sources.reads) is read


# -- incremental across files -------------------------------------------------------------------


def test_an_edit_to_an_imported_helper_reanalyses_exactly_the_programs_that_use_it(workspace: Path) -> None:
    index = ModuleIndex()
    model, norms = workspace / "model.py", (workspace / "norms.py").resolve()
    text = model.read_text()
    analyzer = DocumentAnalyzer()
    analyzer.update(text, modules=index.lookup_for(model))
    assert analyzer.rebuilt == 2
    analyzer.update(text, modules=index.lookup_for(model))
    assert analyzer.rebuilt == 0  # nothing changed anywhere
    index.sources.open(norms, norms.read_text().replace('name_hint="norm"', 'name_hint="renamed"'))
    after = analyzer.update(text, modules=index.lookup_for(model))
    assert analyzer.rebuilt == 1  # `decode` splices the helper; `copy_rows` does not use it
    assert "renamed" in [o.name for o in after.outlined]
    assert summary(after) == summary(
        analyse_source(text, modules=ModuleIndex(index.sources).lookup_for(model))
    )
    # a constant of the config module is read by both programs
    shapes = (workspace / "shapes.py").resolve()
    index.sources.open(shapes, shapes.read_text().replace("ROWS = 32", "ROWS = 64"))
    again = analyzer.update(text, modules=index.lookup_for(model))
    assert analyzer.rebuilt == 2
    assert params(again, "copy")[0] == ("x", "In", "Tensor[[64, 128], FP32]")
    assert summary(again) == summary(
        analyse_source(text, modules=ModuleIndex(index.sources).lookup_for(model))
    )


def test_a_file_changed_on_disk_is_read_again(workspace: Path) -> None:
    index = ModuleIndex()
    model = workspace / "model.py"
    before = analyse(index, model)
    externs = workspace / "externs.py"
    externs.write_text(externs.read_text().replace("query: pl.InOut[pl.Tensor]", "query: pl.Tensor"))
    index.changed(externs.resolve())
    after = analyse(index, model)
    assert params(before, "attend")[1][:2] == ("q", "InOut")
    assert params(after, "attend")[1][:2] == ("q", "In")
    lookup = index.lookup_for(model)
    analyse_source(model.read_text(), modules=lookup)
    assert {str((workspace / f).resolve()) for f in ("shapes.py", "norms.py", "externs.py")} <= lookup.read


class _CountingSources(ModuleSources):
    """Counts each module's text look-ups (a file's is a `stat` on a reader thread)."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: dict[Path, int] = {}

    def text(self, path: Path) -> str | None:
        self.asked[path] = self.asked.get(path, 0) + 1
        return super().text(path)


def test_one_analysis_reads_each_module_once_and_the_next_reads_it_again(workspace: Path) -> None:
    # model.py reaches shapes.py twice: by `import shapes` and `from shapes import`, and through norms.py
    sources = _CountingSources()
    index = ModuleIndex(sources)
    model = (workspace / "model.py").resolve()
    text = model.read_text()
    analyse_source(text, str(model), index.lookup_for(model))
    shapes = (workspace / "shapes.py").resolve()
    assert sources.asked[shapes] == 1
    assert set(sources.asked.values()) == {1}
    sources.asked.clear()
    (workspace / "shapes.py").write_text(shapes.read_text().replace("ROWS = 32", "ROWS = 64"))
    again = analyse_source(text, str(model), index.lookup_for(model))  # a new round: stat again
    assert sources.asked[shapes] == 1
    assert params(again, "copy")[0] == ("x", "In", "Tensor[[64, 128], FP32]")


def test_a_round_after_the_first_stats_its_modules_on_one_reader_round_trip(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = ModuleIndex()
    model = (workspace / "model.py").resolve()
    text = model.read_text()
    first = analyse_source(text, str(model), index.lookup_for(model))
    trips: list[str] = []
    within = files.within_deadline

    def counted(path: Path, work: Any, *args: Any) -> Any:
        trips.append(work.__name__)
        return within(path, work, *args)

    monkeypatch.setattr(files, "within_deadline", counted)
    again = analyse_source(text, str(model), index.lookup_for(model))
    assert trips == ["_stat_all"]  # the importer's path resolved before, every module stated at once
    assert params(again, "copy") == params(first, "copy")
    shapes = (workspace / "shapes.py").resolve()
    assert index.text(shapes) == shapes.read_text() and trips == ["_stat_all"]  # as the round read it
    (workspace / "shapes.py").write_text(
        (workspace / "shapes.py").read_text().replace("ROWS = 32", "ROWS = 64")
    )
    changed = analyse_source(text, str(model), index.lookup_for(model))
    assert params(changed, "copy")[0] == ("x", "In", "Tensor[[64, 128], FP32]")  # stated in its own round
    trips.clear()
    index.changed(shapes)  # the client said so: a round ends, nothing is stated until the next
    assert trips == []
    again = analyse_source(text, str(model), index.lookup_for(model))
    assert trips.count("_stat_all") == 1 and "stat" not in trips
    assert params(again, "copy") == params(changed, "copy")


def test_a_prefetched_stat_serves_its_round_only_and_a_hung_batch_stats_each_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.py"
    path.write_text("A = 1\n")
    sources = ModuleSources()
    sources.prefetch([path, tmp_path / "missing.py"])
    path.write_text("A = 22\n")  # after this round's stat
    sources.prefetch([])  # the next round: the stat above is dropped
    assert sources.text(path) == "A = 22\n"
    sources.prefetch([tmp_path / "missing.py"])
    assert sources.text(tmp_path / "missing.py") is None  # its stat's error, taken from the batch
    monkeypatch.setattr(files, "_stat_all", lambda paths: (_ for _ in ()).throw(files.NotReadable("hung")))
    sources.prefetch([path])  # no answer in time: nothing is prefetched
    path.write_text("A = 333\n")
    assert sources.text(path) == "A = 333\n"  # stated by itself


def test_file_reads_reuse_an_idle_reader_thread(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("A = 1\n")
    readers = {files.within_deadline(path, threading.current_thread) for _ in range(30)}
    assert threading.current_thread() not in readers  # still off the caller's thread
    assert len(readers) == 1  # the calls came one at a time: one reader served them all
    assert files.read_regular_file(path) == b"A = 1\n"


# `other` is a `@pl.inline` helper: the text of every such helper is in its module's
# `ModuleContext.fingerprint`, which an importer's programs no longer depend on as a whole
TWO_HELPERS = (
    LEAKY_HELPER
    + """

@pl.inline
def other(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="other"):
        t = pl.load(x, [0, 0], [32, 32])
        out = pl.store(t, [0, 0], out)
    return out
"""
)
TWO_CALLERS = (
    LEAKY_CALLER.replace("import leaky", "import leaky, other")
    + """

@pl.jit
def entry2(x: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
    out = other(x, out)
    return out
"""
)


def _two_helpers(tmp_path: Path) -> tuple[ModuleIndex, Path, Path, DocumentAnalyzer]:
    helpers, model = tmp_path / "helpers.py", tmp_path / "model.py"
    helpers.write_text(TWO_HELPERS)
    model.write_text(TWO_CALLERS)
    index = ModuleIndex()
    analyzer = DocumentAnalyzer()
    analyzer.update(TWO_CALLERS, modules=index.lookup_for(model))
    assert analyzer.rebuilt == 2
    return index, helpers.resolve(), model, analyzer


def test_an_edit_to_one_helper_rebuilds_only_the_programs_reaching_it(tmp_path: Path) -> None:
    index, helpers, model, analyzer = _two_helpers(tmp_path)
    index.sources.open(helpers, TWO_HELPERS.replace('name_hint="other"', 'name_hint="renamed"'))
    after = analyzer.update(TWO_CALLERS, modules=index.lookup_for(model))
    assert analyzer.rebuilt == 1  # entry2; entry splices `leaky` of the same module only
    assert "renamed" in [o.name for o in after.outlined]
    fresh = analyse_source(TWO_CALLERS, modules=ModuleIndex(index.sources).lookup_for(model))
    assert summary(after) == summary(fresh)


def test_a_helper_moved_down_its_file_moves_what_its_importers_point_at(tmp_path: Path) -> None:
    index, helpers, model, analyzer = _two_helpers(tmp_path)
    before = analyzer.update(TWO_CALLERS, modules=index.lookup_for(model))
    moved = TWO_HELPERS.replace(
        "import pypto.language as pl\n", "import pypto.language as pl\n# notes\n\n\n", 1
    )
    index.sources.open(helpers, moved)  # no fact of the module changed, only where `leaky` is
    after = analyzer.update(TWO_CALLERS, modules=index.lookup_for(model))
    fresh = analyse_source(TWO_CALLERS, modules=ModuleIndex(index.sources).lookup_for(model))
    assert summary(after) == summary(fresh)
    related = [r.span.start_line for d in after.diagnostics for r in d.related if r.path == str(helpers)]
    assert related and related == [r.span.start_line + 3 for d in before.diagnostics for r in d.related]


def test_a_finding_in_an_imported_helper_said_before_is_said_again_as_a_fresh_analysis_says_it(
    tmp_path: Path,
) -> None:
    """A finding the passes hand on is said to be in the helper as it was (the same object);
    each is what a fresh analysis says, after an edit of the helper or a line typed above
    the call too."""
    index, helpers, model, analyzer = _two_helpers(tmp_path)

    def in_helper(analysis: FileAnalysis) -> list[Diagnostic]:
        return [d for d in analysis.diagnostics if d.code == "PTO301" and d.related[-1].path == str(helpers)]

    (before,) = in_helper(analyzer.update(TWO_CALLERS, modules=index.lookup_for(model)))
    edited = TWO_CALLERS.replace("    out = leaky(x, out)\n", "    out = leaky(x, out)\n    kept = out\n")
    moved = TWO_CALLERS.replace("from helpers import", "\nfrom helpers import")
    for text, helper_text, same in [
        (edited, TWO_HELPERS, True),  # entry rebuilt, the helper's finding handed on
        (edited, TWO_HELPERS.replace("pl.range(s)", "pl.range(s + 1)"), False),
        (moved, TWO_HELPERS, False),
        (TWO_CALLERS, TWO_HELPERS, False),
    ]:
        index.sources.open(helpers, helper_text)
        after = analyzer.update(text, modules=index.lookup_for(model))
        fresh = analyse_source(text, modules=ModuleIndex(index.sources).lookup_for(model))
        assert summary(after) == summary(fresh)
        (found,) = in_helper(after)
        assert found is before or not same
        before = found


def test_the_index_keeps_its_modules_units_but_not_the_trees_a_round_read(workspace: Path) -> None:
    """What importers read stays (units, facts); the trees an analysis read of them are the
    bounded parse cache's to keep once the next round starts (a cold check held every tree
    of every module so: half its memory)."""
    index = ModuleIndex()
    model = (workspace / "model.py").resolve()

    def held() -> set[tuple[str, str | None]]:
        return {
            (p.name, u.name) for p, m in index._modules.items() for u in m.units if u.tree is not UNPARSED
        }

    first = analyse(index, model)
    assert ("norms.py", "scaled_norm") in held()
    index.lookup_for(model)
    assert held() == set()
    assert summary(analyse(index, model)) == summary(first)


def test_an_imported_helper_copied_by_an_unrolled_loop_gets_one_note_per_name_hint(tmp_path: Path) -> None:
    """Its scopes' problems are shown at the call (the helper is in another file), so every
    copy of each of its scopes is at one site: each name_hint still gets its own PTO601,
    listing that scope's copies only."""
    (tmp_path / "blocks.py").write_text(
        "import pypto.language as pl\n\n\n@pl.jit.inline\n"
        "def block(x: pl.Tensor, out: pl.Out[pl.Tensor], row: pl.Scalar[pl.INDEX]):\n"
        '    with pl.at(level=pl.Level.CORE_GROUP, name_hint="load"):\n'
        "        t = pl.load(x, [row, 0], [32, 32])\n"
        "        out = pl.store(t, [row, 0], out)\n"
        '    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale"):\n'
        "        u = pl.load(out, [row, 0], [32, 32])\n"
        "        out = pl.store(pl.mul(u, u), [row, 0], out)\n"
        "    return out\n"
    )
    model = tmp_path / "model.py"
    model.write_text(
        "import pypto.language as pl\nfrom blocks import block\n\n\n@pl.jit\n"
        "def entry(x: pl.Tensor[[128, 32], pl.FP32], out: pl.Out[pl.Tensor[[128, 32], pl.FP32]]):\n"
        "    for k in pl.unroll(3):\n"
        "        out = block(x, out, k * 32)\n"
        "    return out\n"
    )
    analysis = analyse(ModuleIndex(), model)
    notes = [d for d in analysis.diagnostics if d.code == "PTO601"]
    assert [(d.data["requested"], d.data["names"]) for d in notes] == [
        ("load", ["load", "load_0", "load_1"]),
        ("scale", ["scale", "scale_0", "scale_1"]),
    ]
    assert {d.span.start_line for d in notes} == {7}  # the call
    assert "name_hint 'scale'" in notes[1].message and "'scale', 'scale_0', 'scale_1'" in notes[1].message
