"""Files and workspaces a hostile or odd checkout holds (issue 15, "The workspace and URIs"):
`pypto-check` on a folder with FIFOs, devices, symlink loops, dangling links, unreadable files
and directories named `*.py` checks every other file and names what it skipped; the server
never opens anything but a regular file, serves files under the workspace only, handles
non-file URIs, and never resolves an import against its own working directory."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from server_driver import RawServer
from test_adversarial import program

from pypto_core import cli

SCOPE = ["with pl.at(level=pl.Level.CORE_GROUP):", "    x = pl.add(x, x)", "return x"]
CLEAN = program(SCOPE)
CHECK_TIMEOUT = 60  # seconds: a bound for a hang, far above the run's cost


def odd_folder(root: Path) -> Path:
    """A folder with two DSL files among every kind of entry that is not a regular file."""
    root.mkdir()
    (root / "a.py").write_text(CLEAN)
    os.mkfifo(root / "fifo.py")
    (root / "devnull.py").symlink_to("/dev/null")
    (root / "loop.py").symlink_to("loop.py")
    (root / "dangling.py").symlink_to("nowhere.py")
    (root / "pkg.py").mkdir()  # a directory named like a module is walked, not read
    (root / "pkg.py" / "b.py").write_text(CLEAN)
    (root / "up").symlink_to(".")  # a folder loop: never entered
    return root


def test_pypto_check_on_a_folder_of_odd_entries_checks_the_rest_and_says_what_it_skipped(
    tmp_path: Path,
) -> None:
    root = odd_folder(tmp_path / "ws")
    done = subprocess.run(
        [sys.executable, "-m", "pypto_core.cli", "--show-outlined", str(root)],
        capture_output=True,
        text=True,
        timeout=CHECK_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "2 file(s) checked: 0 error(s), 0 warning(s) (4 skipped, see above)" in done.stdout
    assert done.stdout.count("main_incore_0(") == 2  # a.py and pkg.py/b.py
    skipped = sorted(line for line in done.stderr.splitlines() if "skipped" in line)
    assert skipped == [
        f"pypto-check: skipped {root / 'dangling.py'}: a dangling symlink",
        f"pypto-check: skipped {root / 'devnull.py'}: a device, not a regular file",
        f"pypto-check: skipped {root / 'fifo.py'}: a FIFO (named pipe), not a regular file",
        f"pypto-check: skipped {root / 'loop.py'}: a symlink loop",
    ]


def test_a_fifo_named_on_the_command_line_is_refused_not_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.py")
    done = subprocess.run(
        [sys.executable, "-m", "pypto_core.cli", str(tmp_path / "fifo.py")],
        capture_output=True,
        text=True,
        timeout=CHECK_TIMEOUT,
        check=False,
    )
    assert done.returncode == 2  # a file the user named could not be read: an I/O error
    assert "a FIFO (named pipe), not a regular file" in done.stderr


def test_a_venv_folder_above_the_checked_folder_does_not_hide_its_files(tmp_path: Path, capsys) -> None:
    project = tmp_path / "venv" / "project"  # a checkout under ~/venv/ is still a project
    project.mkdir(parents=True)
    (project / "a.py").write_text(CLEAN)
    (project / "venv").mkdir()
    (project / "venv" / "lib.py").write_text(CLEAN)  # a venv inside the checked folder is skipped
    assert cli.main(["--show-outlined", str(project)]) == 0
    out = capsys.readouterr().out
    assert "1 file(s) checked" in out
    assert f"{project / 'a.py'}:8: main_incore_0" in out


def test_an_unreadable_file_is_skipped_and_the_others_are_checked(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Root reads every file whatever its mode, so the denial is made at the system call."""
    (tmp_path / "a.py").write_text(CLEAN)
    secret = tmp_path / "secret.py"
    secret.write_text(CLEAN)
    secret.chmod(0)
    real_open = os.open
    real_io_open = open

    def denying(path: Any, *args: Any, **kwargs: Any) -> Any:
        if os.fspath(path) == str(secret):
            raise PermissionError(errno.EACCES, "Permission denied", str(secret))
        return real_open(path, *args, **kwargs)

    def denying_io(path: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(path, int) and os.fspath(path) == str(secret):
            raise PermissionError(errno.EACCES, "Permission denied", str(secret))
        return real_io_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", denying)
    monkeypatch.setattr("io.open", denying_io)
    monkeypatch.setattr("builtins.open", denying_io)
    assert cli.main([str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert f"pypto-check: skipped {secret}: permission denied" in captured.err
    assert "1 file(s) checked: 0 error(s), 0 warning(s) (1 skipped, see above)" in captured.out


# -- the server ---------------------------------------------------------------------------------


async def _request(server: RawServer, request_id: int, method: str, params: dict[str, Any]) -> Any:
    server.send({"id": request_id, "method": method, "params": params})
    answer = await server.answer(request_id)
    assert "error" not in answer, answer
    return answer["result"]


async def _stop(server: RawServer) -> int:
    server.send({"id": 999, "method": "shutdown", "params": None})
    await server.answer(999)
    server.send({"method": "exit", "params": None})
    return await server.exit_code(within=30)


async def test_a_fifo_in_the_workspace_blocks_neither_indexing_nor_analysis(tmp_path: Path) -> None:
    root = odd_folder(tmp_path / "ws")
    server = await RawServer.start(cwd=str(tmp_path))
    await server.initialize((root).as_uri())
    uri = (root / "a.py").as_uri()
    server.open(uri, CLEAN)
    lenses = await _request(server, 1, "textDocument/codeLens", {"textDocument": {"uri": uri}})
    assert len(lenses) == 1
    symbols = await _request(server, 2, "workspace/symbol", {"query": "main_incore_0"})
    assert sorted(s["location"]["uri"] for s in symbols) == sorted([uri, (root / "pkg.py" / "b.py").as_uri()])
    assert await _stop(server) == 0


async def test_files_outside_the_workspace_and_fifos_are_not_read_for_unopened_uris(
    tmp_path: Path,
) -> None:
    root = odd_folder(tmp_path / "ws")
    outside = tmp_path / "outside.py"
    outside.write_text(CLEAN)
    server = await RawServer.start(cwd=str(tmp_path))
    await server.initialize(root.as_uri())
    refused = [
        outside.as_uri(),  # a DSL file, but outside every workspace folder
        f"{root.as_uri()}/../outside.py",  # `..` out of the workspace
        f"{root.as_uri()}/%2e%2e/outside.py",
        (root / "fifo.py").as_uri(),  # under the workspace, but opening it would block for ever
        "file:///dev/stdin",
    ]
    for n, uri in enumerate(refused, start=1):
        result = await _request(server, n, "pypto/outlinedProgram", {"uri": uri})
        assert result == {"text": ""}, uri
    served = await _request(server, 50, "pypto/outlinedProgram", {"uri": (root / "a.py").as_uri()})
    assert "def main_incore_0(" in served["text"]  # an unopened file under the workspace is served
    assert await _stop(server) == 0


KERNELS = (
    "import pypto.language as pl\n\n\n"
    "@pl.jit.extern\n"
    "def k(a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]): ...\n"
)
IMPORTER = "from kernels import k\n" + program(
    ["with pl.at(level=pl.Level.CORE_GROUP):", "    x = k(x, x)", "return x"]
)


async def _codes_of_importer(
    tmp_path: Path, uri: str, *, root: Path | None, analysis: dict | None
) -> list[str]:
    """The codes published for IMPORTER opened at `uri`, with `kernels.py` (which would resolve
    the import) in the server's working directory and in its `lib/` folder."""
    cwd = tmp_path / "cwd"
    (cwd / "lib").mkdir(parents=True)
    (cwd / "kernels.py").write_text(KERNELS)
    (cwd / "lib" / "kernels.py").write_text(KERNELS)
    server = await RawServer.start(cwd=str(cwd))
    await server.initialize(root.as_uri() if root else None, analysis)
    server.open(uri, IMPORTER)
    codes = [d["code"] for d in await server.published(uri)]
    assert await _stop(server) == 0
    return codes


async def test_a_relative_file_uri_does_not_import_from_the_servers_working_directory(
    tmp_path: Path,
) -> None:
    codes = await _codes_of_importer(tmp_path, "file:model.py", root=None, analysis=None)
    assert codes == ["PTO604"]  # `kernels` is not found: the cwd is not a root


async def test_relative_extra_paths_without_a_workspace_folder_are_not_read_from_the_cwd(
    tmp_path: Path,
) -> None:
    (tmp_path / "elsewhere").mkdir()
    uri = (tmp_path / "elsewhere" / "model.py").as_uri()
    codes = await _codes_of_importer(tmp_path, uri, root=None, analysis={"extraPaths": ["lib"]})
    assert codes == ["PTO604"]


async def test_untitled_and_notebook_cell_documents_are_served(tmp_path: Path) -> None:
    server = await RawServer.start(cwd=str(tmp_path))
    await server.initialize()
    for n, uri in enumerate(["untitled:Untitled-1", "vscode-notebook-cell:/nb/x.ipynb#W0sZmlsZQ%3D%3D"]):
        server.open(uri, IMPORTER)
        assert [d["code"] for d in await server.published(uri)] == ["PTO604"]
        base = 10 * (n + 1)
        lenses = await _request(server, base, "textDocument/codeLens", {"textDocument": {"uri": uri}})
        assert [lens["command"]["title"].split(" · ")[0] for lens in lenses] == ["⇢ main_incore_0"]
        position = {"line": 8, "character": 9}  # on `with`
        hover = await _request(
            server, base + 1, "textDocument/hover", {"textDocument": {"uri": uri}, "position": position}
        )
        assert "main_incore_0" in hover["contents"]["value"]
        printed = await _request(server, base + 2, "pypto/outlinedProgram", {"uri": uri})
        assert "def main_incore_0(" in printed["text"]
    assert await _stop(server) == 0
