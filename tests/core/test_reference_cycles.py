"""An analysis leaves no reference cycles behind (`gc_pause.py` relies on it: what an analysis
drops is freed by reference counting, and the cyclic collector only runs when the promoted
objects exceed the live heap). A cycle that reached a frame kept the locals of the whole call
stack alive until a full collection: a failed `stat` per import candidate did that, and a cold
`pypto-check` over pypto-lib's models peaked at 625 MB instead of 474 (bench/README.md).

Counted with the collector off: `gc.collect()` returns the unreachable objects it found."""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from garbage_cycles import collector_off, garbage

from pypto_core.analysis import analyse_source
from pypto_core.workspace import ModuleIndex, files

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "workspace"


@pytest.fixture(name="collector_off")
def _collector_off() -> Iterator[None]:
    with collector_off():
        yield


def test_analyses_across_imports_leave_no_garbage_cycles(collector_off: None) -> None:
    # the fixture imports found modules, missing ones (`torch`, `fused_ops`), an import cycle,
    # a package, constants folded through module-level calls, helpers spliced from other files
    index = ModuleIndex()
    paths = sorted(FIXTURE.rglob("*.py"))
    assert len(paths) >= 9
    outlined = 0
    for path in paths:
        analysis = analyse_source(path.read_text(), str(path), index.lookup_for(path))
        outlined += len(analysis.outlined)
        del analysis
        assert garbage() == [], path.name
    assert outlined >= 8  # the fixture's scopes were analysed, not skipped


def test_a_read_error_handed_to_its_caller_keeps_no_frame_alive(tmp_path: Path, collector_off: None) -> None:
    class Local:
        pass

    def caller() -> weakref.ref[Local]:
        local = Local()  # a local of a frame the error's traceback passes through
        with contextlib.suppress(OSError):
            files.stat_within_deadline(tmp_path / "missing.py")
        return weakref.ref(local)

    assert caller()() is None  # freed on return, not kept by error -> traceback -> frame -> error
    assert not files.is_file_within_deadline(tmp_path / "missing.py")
    assert garbage() == []
