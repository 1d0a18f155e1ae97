"""Hypothesis profiles for the hardening suite.

`ci` (the default) keeps the suite fast: few examples, no per-example deadline (analysis time
varies with the machine). `long` is for a soak run: `HYPOTHESIS_PROFILE=long python -m pytest
tests/hardening` (1,500 examples, or `PYPTO_HARDENING_EXAMPLES`). Profiles live here, not in tests/conftest.py, so they only govern this suite.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest_lsp
from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lsp"))

from lsp_session import RecordingClient, server_config, vscode_params

settings.register_profile("ci", max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "long",
    # PYPTO_HARDENING_EXAMPLES sizes a soak to the time at hand (real files cost seconds per edit).
    max_examples=int(os.environ.get("PYPTO_HARDENING_EXAMPLES", "1500")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest_lsp.fixture(scope="module", config=server_config())
async def client(lsp_client: RecordingClient):  # type: ignore[no-untyped-def]
    """One real server per test module that asks for it (as in tests/lsp)."""
    await lsp_client.initialize_session(vscode_params())
    yield
    await lsp_client.shutdown_session()
