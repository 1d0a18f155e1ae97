"""A module's attributes assigned by another module before it imports what reads them (issue
11, fidelity): `import settings; settings.ROWS = settings.WIDE_ROWS` and then `from kernels
import fill`. Python runs `kernels` once, at its first import, with the value assigned, so the
compiler builds `fill` with it; another importer that assigns nothing sees the value as
written. The facts of a module are therefore those of the run of each importing file's
imports (`workspace/runs.py`), never executed."""

from __future__ import annotations

import textwrap
from pathlib import Path

from test_analysis_incremental import full

from pypto_core.analysis import DocumentAnalyzer, FileAnalysis, analyse_source
from pypto_core.workspace import ModuleIndex

SETTINGS = """\
ROWS = 8
WIDE_ROWS = 64
"""

# reads `ROWS` as a module constant when it runs, and in a helper's tile shapes
KERNELS = """\
import pypto.language as pl
from settings import ROWS

R = ROWS


@pl.jit.inline
def fill(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="fill"):
        t = pl.load(x, [0, 0], [R, 32])
        out = pl.store(pl.add(t, t), [0, 0], out)
    return out
"""

ENTRY = """\
import pypto.language as pl
{before}
from kernels import R, fill
from settings import ROWS


@pl.jit
def entry(x: pl.Tensor[[R, 32], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, 32], pl.FP32]]):
    out = fill(x, out)
    return out
"""

ASSIGNS = "import settings\nsettings.ROWS = settings.WIDE_ROWS\n"

# assigns the attribute before importing `kernels`, as `moe.py` assigns `config.FLASH`
# before importing `gate`; its own later `from settings import ROWS` reads it too
ROUTER = """\
import settings

settings.ROWS = settings.WIDE_ROWS * 2

from kernels import fill
from settings import ROWS as ROUTED_ROWS
"""


def _workspace(tmp_path: Path, **files: str) -> ModuleIndex:
    for name, text in {"settings": SETTINGS, "kernels": KERNELS, **files}.items():
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(text))
    return ModuleIndex()


def _analyse(index: ModuleIndex, tmp_path: Path, name: str) -> FileAnalysis:
    path = (tmp_path / f"{name}.py").resolve()
    return analyse_source(path.read_text(), modules=index.lookup_for(path))


def _shapes(analysis: FileAnalysis) -> list[tuple[str, str, str]]:
    return [(r.name, p.name, str(p.type)) for r in analysis.outlined for p in r.params]


def test_an_assignment_before_the_import_is_what_the_imported_module_runs_with(tmp_path: Path) -> None:
    index = _workspace(tmp_path, assigning=ENTRY.format(before=ASSIGNS), plain=ENTRY.format(before=""))
    assigning = _analyse(index, tmp_path, "assigning")
    # `R` of kernels and `ROWS` of settings read after the assignment: both 64
    assert _shapes(assigning) == [
        ("fill", "x", "Tensor[[64, 32], FP32]"),
        ("fill", "out", "Tensor[[64, 32], FP32]"),
    ]
    assert not [d for d in assigning.diagnostics if d.severity.name == "ERROR"]
    # the same modules as another importer reads them, in the same index: as written
    assert [t for _, _, t in _shapes(_analyse(index, tmp_path, "plain"))] == ["Tensor[[8, 32], FP32]"] * 2
    # and the module's own analysis reads its import as written
    assert index.facts((tmp_path / "kernels.py").resolve()).ctx.constants["R"] == 8  # type: ignore[union-attr]


def test_an_imported_module_assigning_before_its_own_imports_changes_what_they_and_the_importer_read(
    tmp_path: Path,
) -> None:
    entry = ENTRY.replace("from kernels import R, fill", "from router import fill, ROUTED_ROWS as R")
    index = _workspace(tmp_path, router=ROUTER, entry=entry.format(before=""))
    # `kernels` runs inside `router`'s run after the assignment (128 rows), and the entry's
    # `from settings import ROWS` reads the module as `router` left it
    assert [t for _, _, t in _shapes(_analyse(index, tmp_path, "entry"))] == ["Tensor[[128, 32], FP32]"] * 2
    router = index.facts((tmp_path / "router.py").resolve())
    assert router is not None and router.ctx.constants["ROUTED_ROWS"] == 128


def test_a_module_that_ran_before_the_assignment_is_not_run_again(tmp_path: Path) -> None:
    entry = ENTRY.format(before="from kernels import R as FIRST\n" + ASSIGNS)
    index = _workspace(tmp_path, entry=entry)
    shapes = _shapes(_analyse(index, tmp_path, "entry"))
    # `kernels` ran at its first import, with 8 rows; `settings.ROWS` is 64 after it
    assert shapes == [("fill", "x", "Tensor[[8, 32], FP32]"), ("fill", "out", "Tensor[[64, 32], FP32]")]


def test_an_assigned_value_that_does_not_fold_leaves_the_attribute_unknown(tmp_path: Path) -> None:
    before = "import os\nimport settings\nsettings.ROWS = int(os.environ['ROWS'])\n"
    index = _workspace(tmp_path, entry=ENTRY.format(before=before))
    path = (tmp_path / "entry.py").resolve()
    lookup = index.lookup_for(path)
    analysis = analyse_source(path.read_text(), modules=lookup)
    # not the written 8: the compiler's value is not known, so neither extent is
    assert "8" not in " ".join(t for _, _, t in _shapes(analysis))
    kernels = lookup.module("kernels", 0)  # the run goes on: kernels ran as imported above
    assert kernels is not None and "R" not in kernels.ctx.constants


def test_an_attribute_of_a_name_that_is_no_module_binds_as_before(tmp_path: Path) -> None:
    entry = ENTRY.format(before="") + "\nentry.__name__ = 'renamed'\n"
    index = _workspace(tmp_path, entry=entry)
    path = (tmp_path / "entry.py").resolve()
    lookup = index.lookup_for(path)
    analysis = analyse_source(path.read_text(), modules=lookup)
    assert [p.name for p in analysis.programs] == ["entry"]
    assert [t for _, _, t in _shapes(analysis)] == ["Tensor[[8, 32], FP32]"] * 2


def test_incremental_equals_fresh_across_edits_of_the_assignment_and_the_imported_module(
    tmp_path: Path,
) -> None:
    # `FIRST` reads the attribute before the assignment: a replay that ran the assignment must
    # not leave it assigned for the run after it
    before = ASSIGNS.replace("settings.ROWS =", "FIRST = settings.ROWS\nsettings.ROWS =")
    text = ENTRY.format(before=before).replace("x: pl.Tensor[[R, 32]", "x: pl.Tensor[[FIRST, R]")
    index = _workspace(tmp_path, entry=text)
    path = (tmp_path / "entry.py").resolve()
    kernels = tmp_path / "kernels.py"
    analyzer = DocumentAnalyzer()

    def check(text: str) -> FileAnalysis:
        (tmp_path / "entry.py").write_text(text)
        index.changed(path)
        incremental = analyzer.update(text, modules=index.lookup_for(path))
        fresh = analyse_source(text, modules=ModuleIndex(index.sources).lookup_for(path))
        assert full(incremental) == full(fresh)
        return incremental

    assert "64" in _shapes(check(text))[0][2]
    # a keystroke elsewhere: the context is replayed, its assignment told again in its place
    text = text.replace("out = fill(x, out)", "out = fill(x, out)  # filled")
    assert "64" in _shapes(check(text))[0][2]
    assert analyzer._contexts.reused
    # the imported module changes: the replay's answer differs, and the run starts again
    kernels.write_text(KERNELS.replace("R = ROWS", "R = ROWS // 2"))
    index.changed(kernels.resolve())
    assert [t for _, _, t in _shapes(check(text))] == ["Tensor[[8, 32], FP32]", "Tensor[[64, 32], FP32]"]
    assert not analyzer._contexts.reused
    # the assignment itself edited
    text = text.replace("settings.WIDE_ROWS", "16")
    assert [t for _, _, t in _shapes(check(text))] == ["Tensor[[8, 8], FP32]", "Tensor[[16, 32], FP32]"]
