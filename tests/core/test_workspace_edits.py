"""An edit in an imported helper module (issue 11): what the importer builds, splices and reads
again, counted, and each result equal to a fresh analysis of the same texts.

A host program holds its entry's functions; with the helpers imported it takes the entry's
splice too (they stand at the program's header until spliced), unless that splice reported
at the entry's header."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_analysis_incremental import full

from pypto_core import ir
from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.frontend import builder, splice_memo
from pypto_core.passes.outline_ir import walk_stmts
from pypto_core.workspace import ModuleIndex

HELPERS = """\
import pypto.language as pl


@pl.jit.inline
def scale(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.spmd(2, name_hint="scale"):
        t = pl.load(x, [0, 0], [32, 32])
        out = pl.store(pl.mul(t, t), [0, 0], out)
    return out


@pl.jit.inline
def shift(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="shift"):
        t = pl.load(x, [0, 0], [32, 32])
        out = pl.store(pl.add(t, t), [0, 0], out)
    return out
"""

MODEL = """\
import pypto.language as pl
from helpers import scale, shift


@pl.jit
def entry(x: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
    out = scale(x, out)
    out = shift(out, out)
    return out


@pl.jit.host
def host(x: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
    out = entry(x, out)
    return out
"""

# two imported helpers calling each other: the cycle is reported on the first one's name,
# which stands at the header of each program splicing them
CYCLE = """\
import pypto.language as pl


@pl.jit.inline
def scale(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    out = shift(x, out)
    return out


@pl.jit.inline
def shift(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    out = scale(x, out)
    return out
"""


@pytest.fixture
def splices(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Each splice computed: the kept functions it spliced into."""
    calls: list[list[str]] = []
    original = splice_memo.inline_functions

    def recording(program: ir.Program, *args: object) -> object:
        calls.append([fn.name for fn in program.functions if fn.type is not ir.FunctionType.Inline])
        return original(program, *args)

    monkeypatch.setattr(splice_memo, "inline_functions", recording)
    return calls


def _workspace(tmp_path: Path, helpers: str) -> tuple[ModuleIndex, Path, Path]:
    (tmp_path / "helpers.py").write_text(helpers)
    (tmp_path / "model.py").write_text(MODEL)
    return ModuleIndex(), (tmp_path / "helpers.py").resolve(), (tmp_path / "model.py").resolve()


def _fresh(index: ModuleIndex, model: Path) -> tuple[object, ...]:
    return full(analyse_source(MODEL, modules=ModuleIndex(index.sources).lookup_for(model)))


def test_a_host_takes_its_entrys_splice_of_imported_helpers(tmp_path: Path, splices: list) -> None:
    index, helpers, model = _workspace(tmp_path, HELPERS)
    analyzer = DocumentAnalyzer()
    first = analyzer.update(MODEL, modules=index.lookup_for(model))
    assert [p.name for p in first.programs] == ["entry", "host"]
    assert splices == [["entry"]]  # the host's own function calls no helper
    entry, host = first.programs
    assert host.source.get("entry") is entry.source.get("entry")
    splices.clear()
    index.sources.open(helpers, HELPERS.replace("pl.mul(t, t)", "pl.sub(t, t)"))
    after = analyzer.update(MODEL, modules=index.lookup_for(model))
    assert analyzer.rebuilt == 2
    assert splices == [["entry"]]  # the edited helper spliced again, once for both programs
    assert "op='tile.sub'" in repr(after.programs[1].source.get("entry"))
    assert full(after) == _fresh(index, model)


def test_a_splice_reporting_at_its_programs_header_is_not_taken_by_another(
    tmp_path: Path, splices: list
) -> None:
    index, _, model = _workspace(tmp_path, CYCLE)
    analyzer = DocumentAnalyzer()
    found = analyzer.update(MODEL, modules=index.lookup_for(model))
    cycles = [d for d in found.diagnostics if d.code == "PTO410"]
    # one at each program's header: the host's is its own, not the entry's moved there
    assert [d.span.start_line for d in cycles] == [5, 12]
    assert splices == [["entry"], ["entry"]]
    assert full(found) == _fresh(index, model)


OTHERS = """\
import pypto.language as pl


@pl.jit.inline
def clear(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="clear"):
        t = pl.load(x, [0, 0], [32, 32])
        out = pl.store(pl.sub(t, t), [0, 0], out)
    return out
"""


def test_a_rebuild_reads_the_signatures_of_the_edited_modules_functions_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "others.py").write_text(OTHERS)
    model_text = MODEL.replace(
        "from helpers import scale, shift", "from helpers import scale, shift\nfrom others import clear"
    )
    model_text = model_text.replace(
        "    out = shift(out, out)\n", "    out = shift(out, out)\n    out = clear(out, out)\n"
    )
    (tmp_path / "model.py").write_text(model_text)
    (tmp_path / "helpers.py").write_text(HELPERS)
    index, model = ModuleIndex(), (tmp_path / "model.py").resolve()
    read: list[str] = []
    original = builder.read_signature
    monkeypatch.setattr(
        builder, "read_signature", lambda node, *a, **k: read.append(node.name) or original(node, *a, **k)
    )
    analyzer = DocumentAnalyzer()
    analyzer.update(model_text, modules=index.lookup_for(model))
    assert sorted(read) == ["clear", "entry", "host", "scale", "shift"]  # once each, for both programs
    read.clear()
    index.sources.open((tmp_path / "helpers.py").resolve(), HELPERS.replace("pl.mul(t, t)", "pl.sub(t, t)"))
    after = analyzer.update(model_text, modules=index.lookup_for(model))
    assert analyzer.rebuilt == 2
    # none: the edited module's facts are new, but its helpers' headers and what reading them
    # reads are not (each resumes from its last read), and neither is the rest
    assert read == []
    assert full(after) == full(
        analyse_source(model_text, modules=ModuleIndex(index.sources).lookup_for(model))
    )
    renamed = HELPERS.replace("def scale(x: pl.Tensor,", "def scale(src: pl.Tensor,").replace(
        "t = pl.load(x, [0, 0], [32, 32])\n        out = pl.store(pl.mul",
        "t = pl.load(src, [0, 0], [32, 32])\n        out = pl.store(pl.mul",
    )
    assert renamed.count("src") == 2
    read.clear()
    index.sources.open((tmp_path / "helpers.py").resolve(), renamed)
    after = analyzer.update(model_text, modules=index.lookup_for(model))
    assert "scale" in read and "shift" not in read  # its header changed, `shift`'s did not
    assert full(after) == full(
        analyse_source(model_text, modules=ModuleIndex(index.sources).lookup_for(model))
    )


def test_an_edit_in_an_imported_helper_keeps_its_other_statements_where_it_is_spliced(tmp_path: Path) -> None:
    """An imported helper built again after an edit in its module is built from its last
    build, as a helper of the importer's own file is: its parameters and each statement the
    edit left alone are the objects of before, so its splice at a call takes the clones of
    before (and the passes after it their results) but for the edited statement. Its first
    build records nothing for the next (a cold open of the importer pays no bookkeeping, as
    ConvertToSSA's first conversion of a statement): that starts at its second build, the
    first edit in its module."""
    index, helpers, model = _workspace(tmp_path, HELPERS)
    analyzer = DocumentAnalyzer()
    before = analyzer.update(MODEL, modules=index.lookup_for(model))
    index.sources.open(helpers, HELPERS.replace("pl.mul(t, t)", "pl.sub(t, t)"))
    first = analyzer.update(MODEL, modules=index.lookup_for(model))
    index.sources.open(helpers, HELPERS.replace("pl.mul(t, t)", "pl.add(t, t)"))
    after = analyzer.update(MODEL, modules=index.lookup_for(model))
    assert analyzer.rebuilt == 2

    def spliced(analysis: object) -> list[ir.Stmt]:
        entry = analysis.programs[0].source.get("entry")  # type: ignore[attr-defined]
        return [
            stmt
            for stmt in walk_stmts(entry.body)
            if isinstance(stmt, ir.AssignStmt) and isinstance(stmt.value, ir.Call)
        ]

    old, new = spliced(first), spliced(after)
    # scale's load and store, then shift's: all but scale's store untouched, the clones of before
    assert [(s.target.name, s.value.op) for s in new] == [  # type: ignore[union-attr]
        ("t_inline0", "tile.load"),
        ("out", "tile.store"),
        ("t_inline1", "tile.load"),
        ("out_v1", "tile.store"),  # `out = scale(x, out)` binds `out_v1` (`jit_renames`)
    ]
    assert [a is b for a, b in zip(old, new, strict=True)] == [True, False, True, True]
    # the first edit built scale anew (its cold build kept nothing); shift was not built again
    assert [a is b for a, b in zip(spliced(before), old, strict=True)] == [False, False, True, True]
    assert full(after) == _fresh(index, model)
    # the edits undone: scale is built from the last build again, not the cold one taken back
    # (which shares none of its statements with the builds after it)
    index.sources.open(helpers, HELPERS)
    back = analyzer.update(MODEL, modules=index.lookup_for(model))
    assert [a is b for a, b in zip(new, spliced(back), strict=True)] == [True, False, True, True]
    assert full(back) == full(before)


def test_lines_added_above_an_imported_helper_rebuild_none_of_its_importers_programs(tmp_path: Path) -> None:
    """The helper's identity leaves out where it starts: its importer's programs are reused,
    and what they hold of that place (a finding's related location at the helper's `def`,
    `Program.spliced`) points at the new place, as a fresh analysis does."""
    leaky = HELPERS.replace(
        "        out = pl.store(pl.mul(t, t), [0, 0], out)\n    return out\n",
        "        out = pl.store(pl.mul(t, t), [0, 0], out)\n        s = pl.tensor.read(x, [0, 0])\n"
        "    out = pl.add(out, s)\n    return out\n",
        1,
    )
    index, helpers, model = _workspace(tmp_path, leaky)
    analyzer = DocumentAnalyzer()
    before = analyzer.update(MODEL, modules=index.lookup_for(model))
    related = [r.span.start_line for d in before.diagnostics for r in d.related if r.path == str(helpers)]
    assert related  # the leak is reported at the call, pointing at `scale`
    for added in (1, 3, 0):
        moved = leaky.replace(
            "import pypto.language as pl\n", "import pypto.language as pl\n" + "# note\n" * added, 1
        )
        index.sources.open(helpers, moved)
        after = analyzer.update(MODEL, modules=index.lookup_for(model))
        assert analyzer.rebuilt == 0
        assert [
            r.span.start_line for d in after.diagnostics for r in d.related if r.path == str(helpers)
        ] == [line + added for line in related]
        assert full(after) == _fresh(index, model)


def test_a_moved_importer_program_moves_the_calls_it_spliced_imported_helpers_at(tmp_path: Path) -> None:
    index, _, model = _workspace(tmp_path, HELPERS)
    analyzer = DocumentAnalyzer()
    analyzer.update(MODEL, modules=index.lookup_for(model))
    moved = "# note\n" + MODEL
    after = analyzer.update(moved, modules=index.lookup_for(model))
    assert analyzer.rebuilt == 0
    (entry, _) = after.programs
    assert sorted(at.start_line for at in entry.source.spliced) == [7, 8]  # the calls' lines
    fresh = analyse_source(moved, modules=ModuleIndex(index.sources).lookup_for(model))
    assert full(after) == full(fresh)


def test_a_line_typed_inside_an_imported_helper_that_changes_no_code_rebuilds_no_importer_program(
    tmp_path: Path,
) -> None:
    """A blank or comment line inside `scale` changes its unit's key (the tree's positions)
    but not its code: the importer's programs are reused, pointing at where `shift` (below
    it) now is, as a fresh analysis does. A line break inside a string is code."""
    leaky = HELPERS.replace(
        "def scale(x: pl.Tensor, out: pl.Out[pl.Tensor]):\n",
        'def scale(x: pl.Tensor, out: pl.Out[pl.Tensor]):\n    """Squares x."""\n',
    ).replace(
        "        out = pl.store(pl.add(t, t), [0, 0], out)\n    return out\n",
        "        out = pl.store(pl.add(t, t), [0, 0], out)\n        s = pl.tensor.read(x, [0, 0])\n"
        "    out = pl.add(out, s)\n    return out\n",
    )
    index, helpers, model = _workspace(tmp_path, leaky)
    analyzer = DocumentAnalyzer()
    before = analyzer.update(MODEL, modules=index.lookup_for(model))
    related = [r.span.start_line for d in before.diagnostics for r in d.related if r.path == str(helpers)]
    assert related  # the leak in `shift` is reported at its call, pointing at `shift`
    load = "        t = pl.load(x, [0, 0], [32, 32])\n"
    for typed, added, rebuilt in (
        ("\n", 1, 0),
        ("    \n\n", 2, 0),
        ("        # the square\n", 1, 0),
        ("", 0, 0),
        ("        t = pl.mul(t, t)\n", 1, 2),
    ):
        edited = leaky.replace(load, load + typed, 1)
        index.sources.open(helpers, edited)
        after = analyzer.update(MODEL, modules=index.lookup_for(model))
        assert analyzer.rebuilt == rebuilt, typed
        assert [
            r.span.start_line for d in after.diagnostics for r in d.related if r.path == str(helpers)
        ] == [line + added for line in related]
        assert full(after) == _fresh(index, model)
    index.sources.open(helpers, leaky.replace('"""Squares x."""', '"""Squares\n\n    x."""'))
    after = analyzer.update(MODEL, modules=index.lookup_for(model))
    assert analyzer.rebuilt == 2
    assert full(after) == _fresh(index, model)
