"""The analysed code is text, never run: module code with side effects (a file created,
`os.system`, `print`) has none through the server or pypto-check; the TCP mode listens on
loopback only; the server writes no file but its optional log."""

from __future__ import annotations

import asyncio
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
