"""The analysed code is text, never run: module code with side effects (a file created,
`os.system`, `print`) has none through the server or pypto-check; the TCP mode listens on
loopback only; the server writes no file but its optional log."""

from __future__ import annotations

import asyncio
import re
import socket
import subprocess
import sys
from pathlib import Path

from lsp_session import SERVER_COMMAND
from server_driver import RawServer
from test_adversarial import program

MARKER = "pwned-by-analysed-code"


def hostile_source(target: Path) -> str:
    """A DSL file whose module code would leave traces if it were ever run or imported."""
    side_effects = (
        "import os\n"
        f"open({str(target)!r}, 'w').write('x')\n"
        f"os.system('touch {target}.system')\n"
        f"print({MARKER!r})\n"
    )
    return side_effects + program(
        ["with pl.at(level=pl.Level.CORE_GROUP):", "    x = pl.add(x, x)", "return x"]
    )


def test_pypto_check_never_runs_the_checked_file(tmp_path: Path) -> None:
    target = tmp_path / "created"
    source = tmp_path / "hostile.py"
    source.write_text(hostile_source(target))
    done = subprocess.run(
        [sys.executable, "-m", "pypto_core.cli", str(source)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert "checked" in done.stdout  # it did analyse the file
    assert MARKER not in done.stdout + done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hostile.py"]


async def test_the_server_never_runs_the_analysed_code_and_writes_only_its_log(tmp_path: Path) -> None:
    target = tmp_path / "created"
    server = await RawServer.start("--log-file", str(tmp_path / "server.log"), cwd=str(tmp_path))
    await server.initialize()
    uri = (tmp_path / "hostile.py").as_uri()  # not on disk: the editor's buffer only
    server.open(uri, hostile_source(target))
    server.send({"id": 1, "method": "textDocument/codeLens", "params": {"textDocument": {"uri": uri}}})
    lenses = (await server.answer(1))["result"]
    assert len(lenses) == 1
    server.send({"id": 2, "method": "shutdown", "params": None})
    await server.answer(2)
    server.send({"method": "exit", "params": None})
    assert await server.exit_code(within=30) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["server.log"]
    assert MARKER not in (tmp_path / "server.log").read_text()


def _listening_addresses(port: int) -> set[str]:
    """Local addresses (hex, as the kernel prints them) listening on TCP `port`."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            local, state = row.split()[1], row.split()[3]
            address, hex_port = local.rsplit(":", 1)
            if int(hex_port, 16) == port and state == "0A":  # 0A: LISTEN
                found.add(address)
    return found


async def test_tcp_mode_listens_on_loopback_only_by_default() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = await asyncio.create_subprocess_exec(
        *SERVER_COMMAND, "--tcp", "--port", str(port), "--log-level", "INFO", stderr=asyncio.subprocess.PIPE
    )
    assert process.stderr is not None
    try:
        while b"Serving on" not in await asyncio.wait_for(process.stderr.readline(), 60):
            pass
        assert _listening_addresses(port) == {"0100007F"}  # 127.0.0.1, nothing else
    finally:
        process.kill()
        await process.wait()


# -- the server's own imports, started in a hostile checkout (issue 15) --------------------------

_IMPORTED_BY_THE_SERVER = (
    "import sys\n"
    "before = set(sys.modules)\n"
    "import pypto_lsp.__main__, pypto_lsp.server, pypto_lsp.quick_fixes\n"
    "print(' '.join(sorted({name.split('.')[0] for name in set(sys.modules) - before})))\n"
)


def _plant_hostile_modules(folder: Path, names: list[str]) -> None:
    """A module for each name in `folder`, leaving `NAME.imported` beside it when imported
    (with builtins only: any module it imported could be one of the planted ones)."""
    for name in names:
        (folder / f"{name}.py").write_text("open(__file__[:-3] + '.imported', 'w').close()\n")


def _planted_and_imported(folder: Path) -> list[str]:
    return sorted(p.stem for p in folder.glob("*.imported"))


async def _serve_one_request(server: RawServer, folder: Path) -> None:
    await server.initialize()
    uri = (folder / "model.py").as_uri()
    server.open(uri, program(["with pl.at(level=pl.Level.CORE_GROUP):", "    x = pl.add(x, x)", "return x"]))
    server.send({"id": 1, "method": "textDocument/codeLens", "params": {"textDocument": {"uri": uri}}})
    assert len((await server.answer(1))["result"]) == 1
    server.send({"id": 2, "method": "shutdown", "params": None})
    await server.answer(2)
    server.send({"method": "exit", "params": None})
    assert await server.exit_code(within=30) == 0


async def test_python_m_pypto_lsp_in_a_hostile_checkout_imports_nothing_from_it(tmp_path: Path) -> None:
    """`python -m` puts the working directory first on sys.path: a repository holding a module
    named like one the server imports (`argparse.py`, `lsprotocol.py`, `pypto_core/`...) ran
    its code when the editor started the server there. Every module the server imports after
    the interpreter's start is planted; none may be imported. (A planted `pypto_lsp` itself is
    beyond any remedy of the package: only the console script avoids it, see the next test.)"""
    clean = tmp_path / "clean"
    clean.mkdir()
    listed = subprocess.run(
        [sys.executable, "-c", _IMPORTED_BY_THE_SERVER], capture_output=True, text=True, cwd=clean, check=True
    )
    names = [name for name in listed.stdout.split() if name != "pypto_lsp"]
    assert {"argparse", "asyncio", "json", "lsprotocol", "pygls", "pypto_core", "libcst"} <= set(names)
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    _plant_hostile_modules(checkout, names)
    server = await RawServer.start(cwd=str(checkout))
    await _serve_one_request(server, checkout)
    assert _planted_and_imported(checkout) == []


async def test_the_console_script_in_a_hostile_checkout_imports_nothing_from_it(tmp_path: Path) -> None:
    """What the editor configurations start (`pypto-lsp`): its sys.path[0] is the script's own
    folder, so even a planted `pypto_lsp` package is not picked up."""
    script = Path(sys.executable).with_name("pypto-lsp")
    assert script.is_file()
    _plant_hostile_modules(tmp_path, ["pypto_lsp", "pypto_core", "argparse", "lsprotocol", "pygls"])
    process = await asyncio.create_subprocess_exec(
        str(script),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        cwd=tmp_path,
    )
    await _serve_one_request(RawServer(process), tmp_path)
    assert _planted_and_imported(tmp_path) == []


_EDITOR_DOCS = ["README.md", "editors/neovim", "editors/emacs"]
_MODULE_RUN = re.compile(r"""['"]-m['"][, ]+['"]pypto_lsp['"]""")  # a command line as a list


def test_no_editor_set_up_suggests_python_m_pypto_lsp_without_safe_path() -> None:
    """The Neovim and Emacs READMEs suggested `python -m pypto_lsp`, which imports from the
    directory the editor starts it in (the project being edited); `-P` / `-I` do not."""
    root = Path(__file__).resolve().parents[2]
    files = [
        p
        for entry in _EDITOR_DOCS
        for p in ([root / entry] if (root / entry).is_file() else (root / entry).rglob("*"))
    ]
    offending = [
        f"{path.relative_to(root)}: {line.strip()}"
        for path in files
        if path.suffix in {".md", ".lua", ".el"}
        for line in path.read_text(encoding="utf-8").splitlines()
        if _MODULE_RUN.search(line) and not re.search(r"""['"]-[IP]['"]""", line)
    ]
    assert offending == []
