"""`pypto-check --jobs N`: files checked on worker processes, the output the same for any N,
and a file whose check fails (an exception, a worker that dies) loses no other file."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from test_cli import CLEAN

import pypto_core.cli as cli
from pypto_core.cli import main
from pypto_core.parallel import Failure, Work, run_all

WORKSPACE = Path(__file__).resolve().parents[1] / "fixtures" / "workspace"


def _tree(tmp_path: Path) -> Path:
    """The fixture workspace (files importing each other) plus files whose lengths are not in
    path order, so the costliest-first start order differs from the output's."""
    root = tmp_path / "tree"
    shutil.copytree(WORKSPACE, root)
    (root / "a_long.py").write_text(CLEAN + "\n# padding\n" * 400)
    (root / "b_short.py").write_text(
        CLEAN.replace("t = pl.load", "u = undefined_name\n            t = pl.load")
    )
    (root / "c_medium.py").write_text(CLEAN + "\n# padding\n" * 40)
    return root


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


@pytest.mark.parametrize("form", [["--format", "json"], ["--show-outlined"], ["--emit", "outlined"]])
def test_output_is_byte_identical_for_one_and_several_workers(tmp_path: Path, capsys, form) -> None:
    root = _tree(tmp_path)
    one = _run(capsys, *form, "--jobs", "1", str(root))
    several = _run(capsys, *form, "--jobs", "3", str(root))
    assert one == several
    assert one[0] == 1  # b_short.py's undefined name
    assert "model.py" in one[1] and "attend" in one[1]  # model.py analysed over its imports


def test_files_come_out_in_walk_order_not_in_the_order_they_were_started(tmp_path: Path, capsys) -> None:
    root = _tree(tmp_path)
    _, out = _run(capsys, "--format", "json", "--jobs", "2", str(root))
    paths = [Path(f["path"]).relative_to(root).as_posix() for f in json.loads(out)["files"]]
    top = sorted(p.name for p in root.glob("*.py"))
    below = sorted(p.relative_to(root).as_posix() for p in root.glob("pkg/**/*.py"))
    assert top[:3] == ["a_long.py", "b_short.py", "c_medium.py"]
    assert paths == top + below  # a folder's files, then its subfolders'


def test_an_empty_tree_writes_the_same_json_as_json_dump(tmp_path: Path, capsys) -> None:
    code, out = _run(capsys, "--format", "json", str(tmp_path))
    assert code == 0
    assert out == json.dumps({"version": 1, "files": []}, indent=2) + "\n"


def test_a_file_whose_analysis_raises_gets_one_pto900_and_the_others_are_checked(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    root = _tree(tmp_path)
    real = cli.analyse_source

    def broken(text: str, path: str | None = None, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        if path is not None and path.endswith("c_medium.py"):
            raise RuntimeError("boom")
        return real(text, path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cli, "analyse_source", broken)
    code = main(["--format", "json", "--jobs", "1", str(root)])
    captured = capsys.readouterr()
    files = {Path(f["path"]).name: f for f in json.loads(captured.out)["files"]}
    assert code == 1
    (failed,) = files["c_medium.py"]["diagnostics"]
    assert failed["code"] == "PTO900" and "RuntimeError: boom" in failed["message"]
    assert failed["range"] == {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
    assert files["a_long.py"]["outlined"] and files["model.py"]["outlined"]
    assert f"internal error while checking {root / 'c_medium.py'}: RuntimeError: boom" in captured.err
    assert "Traceback" in captured.err


def _work(i: int) -> int:
    if i == 2:
        raise ValueError(f"piece {i}")
    if i == 4:
        os._exit(3)  # the worker dies: the pool breaks
    return i * 10


def _nothing() -> None:
    pass


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_piece_that_raises_is_a_failure_and_every_other_result_is_kept_in_order(jobs: int) -> None:
    count = 4 if jobs == 1 else 7  # in this process, os._exit would end the test run
    results = run_all(Work(count, _work, _nothing, order=list(reversed(range(count)))), jobs)
    failure = results[2]
    assert isinstance(failure, Failure) and failure.reason == "ValueError: piece 2"
    assert "Traceback" in failure.details
    expected = [i * 10 for i in range(count)]
    assert [r for i, r in enumerate(results) if i not in (2, 4)] == [
        e for i, e in enumerate(expected) if i not in (2, 4)
    ]
    if jobs == 2:
        assert results[4] == Failure("the process checking it ended abruptly")


def test_jobs_must_be_a_positive_count(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--jobs", "0", str(tmp_path)])
    assert exited.value.code == 2
    assert "at least 1" in capsys.readouterr().err


def test_files_start_folder_by_folder_the_longest_first(tmp_path: Path) -> None:
    """Near-copy files of one folder share imports and unit texts (the parse cache's hits):
    several workers start one folder's files together, the folder with the longest file
    first and each folder's longest first; one process takes the walk order."""
    sizes = {"a/one.py": 10, "a/two.py": 300, "b/big.py": 500, "b/small.py": 1, "c/mid.py": 200}
    sources = [cli._Source(tmp_path / name, "x" * size, []) for name, size in sizes.items()]
    order = cli._start_order(sources, 2)
    assert order is not None
    assert [sources[i].path.relative_to(tmp_path).as_posix() for i in order] == [
        "b/big.py",
        "b/small.py",
        "a/two.py",
        "a/one.py",
        "c/mid.py",
    ]
    assert cli._start_order(sources, 1) is None


def test_a_worker_keeps_to_its_group_then_starts_a_new_one_then_helps_the_longest() -> None:
    """What a group's pieces share (one folder's imports) is computed by one worker: each
    worker stays in its group while it has pieces, takes a group nobody started next, and
    only then takes pieces of the group with the most left."""
    from pypto_core.parallel import _Schedule

    groups = ["a", "a", "a", "a", "b", "c", "c"]
    schedule = _Schedule([0, 1, 2, 3, 4, 5, 6], groups)
    first, second = schedule.next(None), schedule.next(None)
    assert (first, second) == (0, 4)  # one group each
    assert schedule.next("b") == 5  # b is done: the unstarted c, not a's pieces
    assert schedule.next("a") == 1  # a's worker stays in a
    assert schedule.next("c") == 6
    assert schedule.next("c") == 2  # nothing unstarted: the group with the most left
    assert schedule.next("a") == 3
    assert schedule.next("a") is None and schedule.next(None) is None


def _dies_once(i: int) -> int:
    """Piece 1 ends its worker the first time it runs (a marker file says it ran)."""
    marker = Path(os.environ["PYPTO_TEST_MARKER"])
    if i == 1 and not marker.exists():
        marker.write_text("ran")
        os._exit(3)
    return i * 10


def test_a_piece_whose_worker_was_killed_once_is_run_again(tmp_path: Path, monkeypatch) -> None:
    """A worker may be killed from outside (out of memory): its piece gets a fresh worker,
    and every other piece's result is kept."""
    monkeypatch.setenv("PYPTO_TEST_MARKER", str(tmp_path / "marker"))
    results = run_all(Work(5, _dies_once, _nothing, groups=["a", "a", "b", "b", "b"]), 2)
    assert results == [0, 10, 20, 30, 40]
    assert (tmp_path / "marker").exists()
