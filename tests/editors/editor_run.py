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


def run_probe(argv: list[str], env: dict[str, str], cwd: Path) -> dict:
    """Run an editor probe and return the JSON report it prints as its last stdout line."""
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
        pytest.fail(f"{argv[0]} did not finish in {PROBE_TIMEOUT_S} s; stderr:\n{exc.stderr}", pytrace=False)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if not lines:
        pytest.fail(
            f"{argv[0]} printed no report (exit {proc.returncode})\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}",
            pytrace=False,
        )
    report = json.loads(lines[-1])
    if report.get("error"):
        pytest.fail(
            f"{argv[0]} probe failed: {report['error']}\nstderr:\n{proc.stderr[-4000:]}", pytrace=False
        )
    return report
