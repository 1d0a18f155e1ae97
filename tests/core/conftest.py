"""Fixtures shared by the splicing tests of tests/core."""

from __future__ import annotations

import pytest

from pypto_core.passes import inline_functions as splicing


@pytest.fixture
def clones(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The helper named by each body cloned anew (a clone taken from the memo is not)."""
    made: list[str] = []
    original = splicing._Splicer._cloned

    def recording(self, helper, *args):
        made.append(helper.name)
        return original(self, helper, *args)

    monkeypatch.setattr(splicing._Splicer, "_cloned", recording)
    return made
