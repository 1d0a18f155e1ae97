"""A `@pl.jit.host` calling a `@pl.jit` entry of another module (issue 11, found by running the
compiler as an oracle on pypto-lib's `l3_prefill_fwd`): the compiler's jit specialiser takes an
Orchestration dep in a host from the host's globals, an import, and compiles it with what it
reaches in its own module into the host's program, so its scopes are outlined there, named by
the host program's counters. As a same-file entry is, but shown at the host's call, as an
imported inline helper's spliced code is.

The fixture workspace, tests/fixtures/hosts, is written for these tests (see its README)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_analysis_incremental import full

from pypto_core import ir
from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.frontend import splice_memo
from pypto_core.results import FileAnalysis
from pypto_core.workspace import ModuleIndex

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "hosts"
CALL = "    out = head(hidden, w, acc, out)\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A private copy: tests edit its files."""
    root = tmp_path / "hosts"
    shutil.copytree(FIXTURE, root)
    return root


def _analyse(index: ModuleIndex, path: Path, analyzer: DocumentAnalyzer | None = None) -> FileAnalysis:
    text = index.sources.text(path)
    assert text is not None
    if analyzer is None:
        return analyse_source(text, str(path), index.lookup_for(path))
    return analyzer.update(text, modules=index.lookup_for(path))


def _fresh(index: ModuleIndex, path: Path) -> tuple[object, ...]:
    """A fresh analysis of the same texts, with a new index over the same sources."""
    return full(_analyse(ModuleIndex(index.sources), path))


def _line(path: Path, needle: str) -> int:
    return path.read_text().splitlines(keepends=True).index(needle)


def _records(analysis: FileAnalysis, program: str) -> dict[str, list[tuple[str, str, str]]]:
    return {
        r.name: [(p.name, p.direction.value, p.type) for p in r.params]
        for r in analysis.outlined
        if r.program == program
    }


def _parents(analysis: FileAnalysis) -> dict[str, str]:
    return {r.name: r.parent for r in analysis.outlined if r.program == "serve"}


TENSOR = "Tensor[[64, 32], FP32]"
HEAD_PARENTS = {"head_project_spmd": "head", "head_project": "head_project_spmd"}


def test_the_hosts_program_outlines_the_imported_entrys_scopes_at_its_call(workspace: Path) -> None:
    index = ModuleIndex()
    serve = workspace / "serve.py"
    found = _analyse(index, serve)
    assert found.diagnostics == []
    assert _records(found, "serve") == {
        "body_copy": [("x", "In", TENSOR), ("hidden", "Out", TENSOR)],
        "head_project_spmd": [("x", "In", TENSOR), ("w", "In", TENSOR), ("out", "Out", TENSOR)],
        "head_project": [("x", "In", TENSOR), ("w", "In", TENSOR), ("out", "Out", TENSOR)],
        # the helper's result, `out = project(...)` binding `out_v1` (`jit_renames`)
        "head_accumulate": [("acc", "InOut", TENSOR), ("out_v1", "In", "Tensor")],
    }
    call = _line(serve, CALL)
    assert _parents(found) == {"body_copy": "body", **HEAD_PARENTS, "head_accumulate": "head"}
    from_head = [r for r in found.outlined if r.program == "serve" and r.parent != "body"]
    assert {(r.scope_span.start_line, r.scope_span.end_line) for r in from_head} == {(call, call)}
    # the entry's program is the host's: the entry and the InCore kernel of its module it
    # calls are functions of it (not declarations), with their declared directions
    (host,) = [p for p in found.programs if p.name == "serve"]
    assert host.outlined_program is not None
    names = {fn.name for fn in host.outlined_program.functions}
    assert {"serve", "body", "head", "head_bias"} <= names
    assert "head" not in host.source.declarations
    head = host.source.get("head")
    assert head is not None and head.type is ir.FunctionType.Orchestration
    assert [(p.var.name, p.direction.value) for p in head.params] == [
        ("x", "In"),
        ("w", "In"),
        ("acc", "InOut"),
        ("out", "Out"),
    ]
    bias = host.outlined_program.get("head_bias")
    assert bias is not None and bias.type is ir.FunctionType.InCore
    # the records are those of the entry's own program in its own file, but for their places
    own = _analyse(index, workspace / "heads.py")
    assert _records(own, "head") == {k: v for k, v in _records(found, "serve").items() if k != "body_copy"}


def test_a_composed_host_equals_the_full_run(workspace: Path) -> None:
    index = ModuleIndex()
    serve = workspace / "serve.py"
    composing = DocumentAnalyzer()
    composed = _analyse(index, serve, composing)
    assert composing.composed == 1  # from the runs of `body` and of `head` placed at the call
    assert "head_accumulate" in {r.name for r in composed.outlined if r.program == "serve"}
    assert full(composed) == full(_analyse(index, serve, DocumentAnalyzer(compose_hosts=False)))


def test_the_host_programs_counters_name_a_colliding_scope_of_the_entry(workspace: Path) -> None:
    """`body` and the entry both ask for `head_accumulate`: one program, one name each, as the
    outliners name across the host's program (functions in name order: `body` first), while
    the entry's own program keeps its name."""
    serve = workspace / "serve.py"
    serve.write_text(serve.read_text().replace('name_hint="body_copy"', 'name_hint="head_accumulate"'))
    index = ModuleIndex()
    found = _analyse(index, serve)
    assert _parents(found) == {"head_accumulate": "body", "head_head_accumulate": "head", **HEAD_PARENTS}
    assert [(d.code, d.span.start_line) for d in found.diagnostics] == [("PTO601", _line(serve, CALL))]
    assert "head_accumulate" in {r.name for r in _analyse(index, workspace / "heads.py").outlined}
    assert full(found) == full(_analyse(index, serve, DocumentAnalyzer(compose_hosts=False)))


LEAK = (
    "        acc = pl.store(pl.add(a, b), [0, 0], acc)\n",
    "        acc = pl.store(pl.add(a, b), [0, 0], acc)\n        s = pl.tensor.read(x, [0, 0])\n"
    "    out = pl.add(out, s)\n",
)


def test_a_finding_in_the_entry_is_reported_at_the_call_pointing_at_the_entry(workspace: Path) -> None:
    heads = workspace / "heads.py"
    heads.write_text(heads.read_text().replace(*LEAK))
    serve = workspace / "serve.py"
    index = ModuleIndex()
    found = _analyse(index, serve)
    # the scalar leak and the tensor op it leaves in the Orchestration entry, as in its own file
    assert [d.code for d in found.diagnostics] == ["PTO301", "PTO504"]
    for d in found.diagnostics:
        assert d.span.start_line == _line(serve, CALL)
        assert d.message.endswith(
            "(in jit entry 'head' of heads.py, compiled into this program at this call)"
        )
        (related,) = d.related
        assert (related.path, related.span.start_line) == (str(heads), _line(heads, "def head(\n"))
    assert [d.code for d in _analyse(index, heads).diagnostics] == ["PTO301", "PTO504"]


def test_an_edit_in_the_entrys_module_rebuilds_the_host_as_a_fresh_analysis(workspace: Path) -> None:
    index = ModuleIndex()
    serve, heads = workspace / "serve.py", (workspace / "heads.py").resolve()
    analyzer = DocumentAnalyzer()
    _analyse(index, serve, analyzer)
    text = heads.read_text()
    edits = [
        text.replace('name_hint="head_accumulate"', 'name_hint="head_sum"'),  # in the entry
        text.replace('name_hint="head_project"', 'name_hint="head_scale"'),  # in its inline helper
        text.replace("acc: pl.InOut[", "acc: pl.Out[", 1),  # in the InCore kernel of its module
    ]
    seen = []
    for edited in edits:
        assert edited != text
        index.sources.open(heads, edited)
        after = _analyse(index, serve, analyzer)
        assert analyzer.rebuilt == 1  # the host; `body` does not read the other module
        assert full(after) == _fresh(index, serve)
        host = after.programs[-1].outlined_program
        assert host is not None
        bias = host.get("head_bias")
        assert bias is not None
        seen.append(({r.name for r in after.outlined}, [p.direction.value for p in bias.params]))
    assert "head_sum" in seen[0][0] and "head_scale" in seen[1][0]
    assert [directions for _, directions in seen] == [["InOut", "In"], ["InOut", "In"], ["Out", "In"]]


def test_lines_added_above_the_entry_in_its_module_rebuild_nothing_and_move_what_points_there(
    workspace: Path,
) -> None:
    heads = (workspace / "heads.py").resolve()
    leaky = heads.read_text().replace(*LEAK)
    heads.write_text(leaky)
    index = ModuleIndex()
    serve = workspace / "serve.py"
    analyzer = DocumentAnalyzer()
    before = _analyse(index, serve, analyzer)
    lines = [r.span.start_line for d in before.diagnostics for r in d.related]
    assert lines == [_line(heads, "def head(\n")] * 2
    for added in (2, 0):
        index.sources.open(heads, leaky.replace("COLS = 32\n", "COLS = 32\n" + "# note\n" * added))
        after = _analyse(index, serve, analyzer)
        assert analyzer.rebuilt == 0
        assert [r.span.start_line for d in after.diagnostics for r in d.related] == [n + added for n in lines]
        assert full(after) == _fresh(index, serve)
    # a comment typed inside the inline helper the entry splices changes no code of its program
    index.sources.open(heads, leaky.replace("    return out\n", "    # the product\n    return out\n", 1))
    after = _analyse(index, serve, analyzer)
    assert analyzer.rebuilt == 0
    assert [r.span.start_line for d in after.diagnostics for r in d.related] == [n + 1 for n in lines]
    assert full(after) == _fresh(index, serve)


def test_an_edit_in_the_host_file_keeps_the_entrys_placed_run(workspace: Path) -> None:
    """A keystroke in the same-file entry rebuilds both programs; the host is composed again
    from the entry's new run and the imported entry's run at the same call, kept."""
    index = ModuleIndex()
    serve = workspace / "serve.py"
    analyzer = DocumentAnalyzer()
    before = _analyse(index, serve, analyzer)
    index.sources.open(
        serve.resolve(), serve.read_text().replace('name_hint="body_copy"', 'name_hint="body_move"')
    )
    after = _analyse(index, serve, analyzer)
    assert (analyzer.rebuilt, analyzer.composed) == (2, 1)
    (old,) = [p for p in before.programs if p.name == "serve"]
    (new,) = [p for p in after.programs if p.name == "serve"]
    assert old.outlined_program is not None and new.outlined_program is not None
    head = new.outlined_program.get("head")
    assert head is not None and head is old.outlined_program.get("head")
    assert full(after) == _fresh(index, serve)


def test_the_host_takes_its_same_file_entrys_splice(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled entry is spliced into nothing and splices nothing in the host's program,
    so the host's splice is its same-file entry's, computed once for both programs; the
    entry's own program is spliced once, in its module's build."""
    calls: list[list[str]] = []
    original = splice_memo.inline_functions

    def recording(program: ir.Program, *args: object) -> object:
        calls.append([fn.name for fn in program.functions if fn.type is not ir.FunctionType.Inline])
        return original(program, *args)

    monkeypatch.setattr(splice_memo, "inline_functions", recording)
    serve = workspace / "serve.py"
    text = serve.read_text().replace(
        "@pl.jit\ndef body(",
        "@pl.jit.inline\ndef twice(t: pl.Tile):\n    return pl.add(t, t)\n\n\n@pl.jit\ndef body(",
    )
    serve.write_text(text.replace("pl.exp(t)", "twice(t)"))
    found = _analyse(ModuleIndex(), serve, DocumentAnalyzer())
    assert calls == [["body"], ["head"]]
    assert "head_accumulate" in {r.name for r in found.outlined if r.program == "serve"}
