"""A file whose read never returns (a hung FUSE or network mount) must not stall the analysis
(issue 15): reads and stats of workspace files run on a reader thread that the caller waits
for at most `files.READ_DEADLINE_SECONDS`; past it the file is not readable ("no answer from
the file system"), and while that read still hangs the path is refused at once, never waited
for again. The hung read is simulated by an `os.read` that blocks on one file until the test
ends, since no test can mount FUSE."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_adversarial import HEADER, codes

from pypto_core.analysis import analyse_source
from pypto_core.workspace import ModuleIndex, SearchPath, files
from pypto_core.workspace.files import NotReadable, read_regular_file

HELPER = HEADER + (
    "@pl.inline\n"
    "def twice(t: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n"
    "    return pl.add(t, t)\n"
)
MAIN = HEADER.replace("\n\n\n", "\nfrom slow import twice\n\n\n") + (
    "@pl.program\n"
    "class P:\n"
    "    @pl.function\n"
    "    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n"
    "        with pl.at(level=pl.Level.CORE_GROUP):\n"
    "            x = twice(x)\n"
    "        return x\n"
)


class HungFile:
    """`os.read` of one file (by inode) blocks until `release`; counts the reads started."""

    def __init__(self, path: Path) -> None:
        self.inode = path.stat().st_ino
        self.released = threading.Event()
        self.reads = 0
        self._read = os.read

    def read(self, fd: int, n: int) -> bytes:
        if os.fstat(fd).st_ino == self.inode:
            self.reads += 1
            self.released.wait(120)  # released at the end of the test (a bound if it never is)
        return self._read(fd, n)


@pytest.fixture
def hung(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HungFile]:
    (tmp_path / "slow.py").write_text(HELPER)
    hung = HungFile(tmp_path / "slow.py")
    monkeypatch.setattr(files.os, "read", hung.read)
    monkeypatch.setattr(files, "READ_DEADLINE_SECONDS", 0.2)
    yield hung
    hung.released.set()


def test_a_read_that_never_returns_is_given_up(hung: HungFile, tmp_path: Path) -> None:
    with pytest.raises(NotReadable, match="no answer"):
        read_regular_file(tmp_path / "slow.py")
    with pytest.raises(NotReadable, match="no answer"):  # refused at once: no second reader
        read_regular_file(tmp_path / "slow.py")
    assert hung.reads == 1
    assert not hung.released.is_set()  # given up while the read still hangs


def test_an_import_of_a_hung_file_is_a_missing_module_and_the_analysis_completes(
    hung: HungFile, tmp_path: Path
) -> None:
    (tmp_path / "main.py").write_text(MAIN)
    index = ModuleIndex(search=SearchPath(roots=(tmp_path,), extra=()))
    analysis = analyse_source(MAIN, str(tmp_path / "main.py"), index.lookup_for(tmp_path / "main.py"))
    assert not hung.released.is_set()  # the analysis did not wait for the read
    assert len(analysis.outlined) == 1
    assert "PTO900" not in codes(analysis)


def test_a_read_that_answers_in_time_is_served(tmp_path: Path) -> None:
    (tmp_path / "slow.py").write_text(HELPER)
    assert read_regular_file(tmp_path / "slow.py").decode() == HELPER


class HungFolder:
    """`os.stat` / `os.lstat` of any path under one folder (a hung mount) block until
    `release` (or a 10 s bound); `hanging` counts the calls still blocked."""

    def __init__(self, folder: Path) -> None:
        self.folder = os.fspath(folder)
        self.released = threading.Event()
        self.calls = self.hanging = 0
        self._stat, self._lstat = os.stat, os.lstat

    def stat(self, path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        self._hang(path)
        return self._stat(path, *args, **kwargs)

    def lstat(self, path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        self._hang(path)
        return self._lstat(path, *args, **kwargs)

    def _hang(self, path: Any) -> None:
        if isinstance(path, str | os.PathLike) and os.fspath(path).startswith(self.folder):
            self.calls += 1
            self.hanging += 1
            self.released.wait(10)
            self.hanging -= 1


@pytest.fixture
def hung_mount(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HungFolder]:
    mount = tmp_path / "mnt"
    mount.mkdir()
    (mount / "slow.py").write_text(HELPER)
    hung = HungFolder(mount)
    monkeypatch.setattr(os, "stat", hung.stat)
    monkeypatch.setattr(os, "lstat", hung.lstat)
    monkeypatch.setattr(files, "READ_DEADLINE_SECONDS", 0.2)
    yield hung
    hung.released.set()


def test_a_stat_that_never_returns_leaves_the_import_missing_and_the_analysis_complete(
    hung_mount: HungFolder, tmp_path: Path
) -> None:
    """The resolver asks whether `mnt/slow.py` is a file (and resolves what it finds): on a
    hung mount each such `stat` used to block the analysis until the mount answered."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "main.py").write_text(MAIN)
    index = ModuleIndex(search=SearchPath(roots=(tmp_path / "mnt",), extra=()))
    main = tmp_path / "app" / "main.py"
    analysis = analyse_source(MAIN, str(main), index.lookup_for(main))
    assert hung_mount.hanging >= 1  # the analysis did not wait for the stat
    assert len(analysis.outlined) == 1
    assert "PTO604" in codes(analysis)  # `slow` is not found
    assert "PTO900" not in codes(analysis)


def test_a_document_on_a_hung_mount_is_analysed(hung_mount: HungFolder, tmp_path: Path) -> None:
    """Its own path is resolved (symlinks followed) to find its folder and package."""
    main = tmp_path / "mnt" / "main.py"
    index = ModuleIndex(search=SearchPath(extra=()))
    analysis = analyse_source(MAIN, str(main), index.lookup_for(main))
    assert hung_mount.hanging >= 1
    assert len(analysis.outlined) == 1
    assert "PTO900" not in codes(analysis)


def _read_or_fail(path: Path) -> None:
    try:
        read_regular_file(path)
    except NotReadable:
        os._exit(1)
    os._exit(0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX only")
def test_a_forked_worker_reads_with_readers_of_its_own(tmp_path: Path) -> None:
    """`pypto-check --jobs` forks its workers after the parent has read files: the parent's
    idle reader threads do not exist in the child, which must not hand them its reads (its
    first read waited out the deadline and failed, and its path stayed refused)."""
    import multiprocessing

    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    read_regular_file(path)  # the parent now has an idle reader
    child = multiprocessing.get_context("fork").Process(target=_read_or_fail, args=(path,))
    child.start()
    child.join(60)
    assert child.exitcode == 0
