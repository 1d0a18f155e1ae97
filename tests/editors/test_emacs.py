"""Emacs (batch) drives the real pypto-lsp through editors/emacs/pypto-eglot.el and Eglot.

Debian's emacs-nox 28.2 with elpa-eglot 1.9. Eglot has no code-lens support; the set-up's own
`pypto-eglot-lens-mode` requests them and draws them as overlays, and those are what is checked.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dsl_sample import write_sample
from editor_run import REPO, SERVER_CMD, require_binary, run_probe
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

PROBE = Path(__file__).with_name("eglot_probe.el")
SETUP_DIR = REPO / "editors" / "emacs"


@pytest.fixture(scope="module")
def emacs_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Marked]:
    """One Emacs session; the tests below read its report."""
    emacs = require_binary("emacs", "install the Debian packages `emacs-nox` and `elpa-eglot`")
    folder = tmp_path_factory.mktemp("emacs")
    path, marked = write_sample(folder)
    line, col = marked.point("scope_main")
    report = run_probe(
        [emacs, "--batch", "-Q", "-l", str(PROBE)],
        env={
            "PYPTO_EMACS_DIR": str(SETUP_DIR),
            "PYPTO_LSP_CMD": json.dumps(SERVER_CMD),
            "TARGET_FILE": str(path),
            "PROBE_HOVER": f"{line}:{col}",
            "PROBE_RENAME": "{}:{}".format(*marked.point("hint")),
        },
        cwd=folder,
    )
    return report, marked


def test_diagnostics_reach_flymake(emacs_report) -> None:
    report, marked = emacs_report
    seen = [SeenDiagnostic(d["line"], d["col"], d["code"]) for d in report["diagnostics"]]
    check_diagnostics(seen, marked)


def test_code_lenses_are_drawn_above_their_scopes(emacs_report) -> None:
    report, marked = emacs_report
    check_code_lenses([SeenLens(lens["line"], lens["title"]) for lens in report["lenses"]], marked)


def test_eglot_hover_on_a_scope_header_shows_the_outlined_function(emacs_report) -> None:
    report, _ = emacs_report
    check_hover_on_scope_header(report.get("hover"))


def test_outlined_program_buffer_shows_the_outlined_functions(emacs_report) -> None:
    report, _ = emacs_report
    check_outlined_program(report["outlined"])


def test_eglot_sees_the_standard_features_and_completes_dsl_names(emacs_report) -> None:
    report, _ = emacs_report
    assert set(report["capabilities"]) == {
        "completionProvider",
        "signatureHelpProvider",
        "documentHighlightProvider",
        "renameProvider",
    }
    check_completion(report["completion"])


def test_eglot_rename_applies_to_the_buffer(emacs_report) -> None:
    report, marked = emacs_report
    check_rename(report["renamed_line"], marked)
