"""Running a real editor headless against the real server, shared by the editor tests.

A missing editor is a failure, never a skip: these tests exist to prove the set-ups work in
the editors people use, so an absent binary must be visible (and .ci/install-editors.sh fixes it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
E2E_CACHE = Path(os.environ.get("PYPTO_E2E_CACHE", REPO / ".e2e" / "cache"))
SERVER_CMD = [sys.executable, "-m", "pypto_lsp"]
PROBE_TIMEOUT_S = 60


def require_binary(name: str, install_hint: str) -> str:
    """Path of `name` on PATH, or a test failure that says how to install it."""
    path = shutil.which(name)
    if path is None:
        pytest.fail(
            f"`{name}` is not installed: {install_hint} (or run .ci/install-editors.sh)", pytrace=False
        )
    return path


def require_file(path: Path, install_hint: str) -> str:
    if not path.is_file():
        pytest.fail(f"{path} is missing: {install_hint}", pytrace=False)
    return str(path)


def isolated_home(folder: Path) -> dict[str, str]:
    """HOME and XDG folders inside `folder`, so an editor neither reads the user's set-up nor
    leaves state (Neovim's lsp.log, Emacs' ~/.emacs.d) in the user's home."""
    home = folder / "home"
    env = {"HOME": str(home)}
    for var, sub in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_STATE_HOME", ".local/state"),
        ("XDG_CACHE_HOME", ".cache"),
    ):
        env[var] = str(home / sub)
    home.mkdir(parents=True, exist_ok=True)
    return env


def server_logs(home: Path) -> str:
    """The tail of every LSP log an editor wrote under `home` (server stderr ends up there)."""
    tails = [
        f"--- {log}\n" + log.read_text(errors="replace")[-3000:] for log in sorted(home.rglob("lsp.log"))
    ]
    return "\n".join(tails)


def run_probe(argv: list[str], env: dict[str, str], cwd: Path) -> dict:
    """Run an editor probe with an isolated home in `cwd` and return the JSON report it prints
    as its last stdout line. Failures carry the editor's stderr and the server's log."""
    env = {**isolated_home(cwd), **env}
    home = Path(env["HOME"])
    try:
        proc = subprocess.run(
            argv,
            env={**os.environ, **env},
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(
            f"{argv[0]} did not finish in {PROBE_TIMEOUT_S} s; stderr:\n{exc.stderr}\n{server_logs(home)}",
            pytrace=False,
        )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if not lines:
        pytest.fail(
            f"{argv[0]} printed no report (exit {proc.returncode})\nstdout:\n{proc.stdout}\n"
            f"stderr:\n{proc.stderr}\n{server_logs(home)}",
            pytrace=False,
        )
    report = json.loads(lines[-1])
    if report.get("error"):
        pytest.fail(
            f"{argv[0]} probe failed: {report['error']}\nstderr:\n{proc.stderr[-4000:]}\n"
            f"{report.get('server_stderr') or ''}\n{server_logs(home)}",
            pytrace=False,
        )
    return report
