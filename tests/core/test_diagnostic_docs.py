"""docs/diagnostics.md is where every diagnostic's code links to (LSP `codeDescription`)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_code_the_analysis_emits_has_one_anchor_in_docs_diagnostics() -> None:
    """Each `PTO` code in pypto_core has exactly one `<a id="ptoNNN">` for the link to land on."""
    emitted = {
        code
        for path in (ROOT / "pypto_core").rglob("*.py")
        for code in re.findall(r'"(PTO\d{3})"', path.read_text())
    }
    anchors = Counter(re.findall(r'<a id="(pto\d{3})"></a>', (ROOT / "docs" / "diagnostics.md").read_text()))
    assert len(emitted) > 100
    assert sorted(c for c in emitted if anchors[c.lower()] != 1) == []
