"""The import resolver's candidate files answered from folder listings (`FolderListings`): the
answers `os.stat` gives, one `scandir` per folder and round instead of a reader round trip per
candidate, nothing listed below a folder that is missing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pypto_core.workspace import ModuleIndex, ModuleSources, files


def _trips(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Path]]:
    """Every reader round trip from now on: what it ran, on which path."""
    trips: list[tuple[str, Path]] = []
    within = files.within_deadline

    def counted(path: Path, work: Any, *args: Any) -> Any:
        trips.append((work.__name__, path))
        return within(path, work, *args)

    monkeypatch.setattr(files, "within_deadline", counted)
    return trips


def test_each_candidate_is_answered_as_stat_would_from_one_listing_per_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.py").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/__init__.py").write_text("")
    (tmp_path / "linked.py").symlink_to(tmp_path / "a.py")
    (tmp_path / "dangling.py").symlink_to(tmp_path / "gone.py")
    (tmp_path / "linked_pkg").symlink_to(tmp_path / "pkg")
    (tmp_path / "folder.py").mkdir()
    os.mkfifo(tmp_path / "fifo.py")
    expected = {
        "a.py": True,
        "linked.py": True,
        "dangling.py": False,
        "folder.py": False,
        "fifo.py": False,
        "torch.py": False,
        "pkg/__init__.py": True,
        "linked_pkg/__init__.py": True,
        "torch/__init__.py": False,
        "torch/nn/__init__.py": False,  # below a missing package: nothing to list
    }
    trips = _trips(monkeypatch)
    sources = ModuleSources()
    assert {name: sources.is_file(tmp_path / name) for name in expected} == expected
    assert {name: (tmp_path / name).is_file() for name in expected} == expected  # as stat says
    assert trips == [
        ("_list_folder", tmp_path),
        ("_list_folder", tmp_path / "pkg"),
        ("_list_folder", tmp_path / "linked_pkg"),
    ]


def test_a_file_created_on_disk_is_found_in_the_next_round(tmp_path: Path) -> None:
    importer = tmp_path / "main.py"
    importer.write_text("import helpers\n")
    index = ModuleIndex()
    assert index.resolve("helpers", 0, importer) is None
    (tmp_path / "helpers.py").write_text("")
    index.changed(tmp_path / "helpers.py")  # the client says so; the next round lists again
    assert index.resolve("helpers", 0, importer) == (tmp_path / "helpers.py").resolve()
    sources = ModuleSources()
    assert not sources.is_file(tmp_path / "later.py")
    (tmp_path / "later.py").write_text("")
    sources.prefetch([])  # the next round
    assert sources.is_file(tmp_path / "later.py")


def test_a_folder_that_cannot_be_listed_has_each_file_stated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.py").write_text("")

    def refused(folder: Path) -> files.Listing | None:
        raise PermissionError(13, "Permission denied", str(folder))  # entered, not read: --x

    monkeypatch.setattr(files, "_list_folder", refused)
    sources = ModuleSources()
    assert sources.is_file(tmp_path / "a.py")
    assert not sources.is_file(tmp_path / "b.py")


def test_a_folder_whose_file_system_does_not_answer_holds_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.py").write_text("")

    def hung(folder: Path) -> files.Listing | None:
        raise files.NotReadable("no answer from the file system within 2 s")

    monkeypatch.setattr(files, "_list_folder", hung)
    trips = _trips(monkeypatch)
    sources = ModuleSources()
    assert not sources.is_file(tmp_path / "a.py")  # as `is_file_within_deadline` answers then
    assert not sources.is_file(tmp_path / "b.py")
    assert [path for _, path in trips] == [tmp_path]  # asked once in the round, not per candidate
