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
