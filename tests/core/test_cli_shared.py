"""What `pypto-check` shares across the files of one run is exact: the module context its
index computed for a file's importers, handed to that file's own analysis
(`ModuleIndex.context`), gives the output computing it again gives, with one worker or
several. The workspace is the fixture one plus near-copy model files importing each other
(as pypto-lib's models do: a model file imported by its siblings, an import cycle)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pypto_core.cli import main
from pypto_core.frontend import module_context
from pypto_core.workspace import ModuleIndex, files

WORKSPACE = Path(__file__).resolve().parents[1] / "fixtures" / "workspace"


def _near_copies(tmp_path: Path) -> Path:
    """The fixture workspace, and three near-copies of its model: one importing the model
    (so the model, checked too, is imported first: the walk order), one with other shapes,
    one on the import cycle."""
    root = tmp_path / "tree"
    shutil.copytree(WORKSPACE, root)
    model = (root / "model.py").read_text()
    user = "import ring_a\nfrom model import W, T, decode\n" + model.replace("def decode", "def decode2")
    (root / "a_user.py").write_text(user)
    (root / "model_wide.py").write_text(model.replace("SMALL as M", "LARGE as M"))
    (root / "ring_c.py").write_text((root / "ring_a.py").read_text().replace("A_ROWS = 16", "A_ROWS = 32"))
    (root / "ring_b.py").write_text((root / "ring_b.py").read_text() + "\nimport ring_c\n")
    return root


def _check(capsys: pytest.CaptureFixture[str], root: Path, jobs: str) -> str:
    main(["--format", "json", "--jobs", jobs, str(root)])
    return capsys.readouterr().out


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_context_shared_from_the_index_gives_the_output_of_one_computed_again(
    tmp_path: Path, capsys, monkeypatch, jobs: str
) -> None:
    root = _near_copies(tmp_path)
    real = ModuleIndex.context
    shared: list[Path] = []

    def counted(self: ModuleIndex, path: Path, text: str):  # type: ignore[no-untyped-def]
        found = real(self, path, text)
        if found is not None:
            shared.append(path)
        return found

    monkeypatch.setattr(ModuleIndex, "context", counted)
    with_sharing = _check(capsys, root, jobs)
    if jobs == "1":  # the workers' counts stay in the workers
        assert {p.name for p in shared} >= {"model.py", "norms.py", "ring_a.py"}
    monkeypatch.setattr(ModuleIndex, "context", lambda self, path, text: None)
    without = _check(capsys, root, jobs)
    assert with_sharing == without
    assert '"outlined": [\n' in without and "attend" in without


def test_the_comparison_sees_a_wrong_shared_context(tmp_path: Path, capsys, monkeypatch) -> None:
    """The check above can fail: a shared context that misses what the file imports (as if
    computed without its imports) changes the output."""
    root = _near_copies(tmp_path)
    right = _check(capsys, root, "1")
    real = ModuleIndex.context

    def without_imports(self: ModuleIndex, path: Path, text: str):  # type: ignore[no-untyped-def]
        found = real(self, path, text)
        units = self.units(path, text)
        return None if found is None or units is None else module_context(units, None)

    monkeypatch.setattr(ModuleIndex, "context", without_imports)
    assert _check(capsys, root, "1") != right


def test_a_run_asks_the_file_system_no_stat_per_import_candidate_nor_for_a_checked_file_again(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    """Each reader round trip of a worker waits for another thread (`files.within_deadline`):
    the candidates of each import are answered from their folder's listing, and the checked
    files' own paths were resolved once when they were read."""
    root = _near_copies(tmp_path)
    trips: list[tuple[str, Path]] = []
    within = files.within_deadline

    def counted(path: Path, work, *args):  # type: ignore[no-untyped-def]
        trips.append((work.__name__, Path(path)))
        return within(path, work, *args)

    monkeypatch.setattr(files, "within_deadline", counted)
    checked = sorted(root.rglob("*.py"))
    _check(capsys, root, "1")
    assert not [path for work, path in trips if work == "_is_regular_file"]  # no stat per candidate
    assert not {path for work, path in trips if work == "resolve"} & set(checked)
    assert {path for work, path in trips if work == "_read_regular_file"} == set(checked)
