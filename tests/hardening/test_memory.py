"""Memory that must level off however long the editor types (issues 15 and 20)."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from garbage_cycles import collector_off, garbage

from pypto_core.analysis import DocumentAnalyzer
from pypto_core.frontend import unit_parts, units
from pypto_core.gc_pause import gc_paused
from pypto_core.workspace import ModuleIndex, SearchPath


class _Node:
    """Stands for an analysis object caught in a reference cycle (a builder holding a table
    of its own bound methods, a recursive closure)."""

    def __init__(self) -> None:
        self.me = self
        self.payload = [[index] for index in range(50)]


def test_garbage_cycles_made_during_analyses_are_collected() -> None:
    """The survivors of each analysis are moved to the oldest generation in one step, which
    CPython's full-collection trigger never counts: cyclic garbage the analyses dropped was
    kept for good (20,000 objects, 2.4 MB per keystroke into a real 1,071-line file)."""
    gc.collect()
    first: list[weakref.ref[_Node]] = []
    for round_ in range(40):
        with gc_paused():
            garbage = [_Node() for _ in range(2_000)]  # ~100,000 tracked objects per round
            if round_ == 0:
                first = [weakref.ref(node) for node in garbage]
            del garbage
    assert sum(ref() is not None for ref in first) == 0


def test_the_parse_cache_is_bounded_by_text_size_not_entry_count() -> None:
    """Typing into one 740-line unit made a new 2-4 MB tree per keystroke, and 1,024 of them
    were kept. The tree cache now holds a bounded number of characters, however large each
    unit is."""
    unit_parts.parse.cache_clear()
    body = "\n".join(f"    x{n} = {n}  # {'c' * 40}" for n in range(800))
    for keystroke in range(60):
        units.split_units(f"def f():\n{body}\n    # {'k' * keystroke}\n")
    info = unit_parts.parse.cache_info()
    assert info.weight <= info.budget
    assert info.weight < 60 * len(body)


def test_promotions_freed_after_their_analysis_set_off_no_full_collection(monkeypatch) -> None:
    """The server frees a document's previous result only after the next one is published, so
    each analysis promotes a whole result that dies a moment later. Counted as growth, those
    promotions made a full collection run every few keystrokes (a fifth of the server's CPU on
    a real model file); they leave nothing behind, so none may run."""
    collections: list[int] = []
    real_collect = gc.collect
    monkeypatch.setattr(gc, "collect", lambda *args: collections.append(1) or real_collect(*args))
    real_collect()
    previous: list[list[list[int]]] = []
    for _ in range(40):
        with gc_paused():
            result = [[index] for index in range(50_000)]  # the new result, kept...
        previous = result  # ...and the previous one freed only now, outside the block
    assert collections == []
    assert len(previous) == 50_000


def test_the_first_large_result_is_taken_as_live_not_collected(monkeypatch) -> None:
    """Opening a large file promotes its whole result at once, before any full collection
    has measured the live heap: counted as growth it set off a full collection that walked
    the new result and found almost nothing (a seventh of a cold open of 8,418 real lines).
    What it promoted is taken as the live baseline instead, without counting the tracked
    objects (a walk over all of them, 3-5 % of a cold open of a 3,000-line model); growth
    beyond it still collects (`test_garbage_cycles_made_during_analyses_are_collected`)."""
    import pypto_core.gc_pause as gc_pause

    monkeypatch.setattr(gc_pause, "_promoted", 0)
    monkeypatch.setattr(gc_pause, "_live_baseline", 0)
    collections: list[int] = []
    real_collect = gc.collect
    monkeypatch.setattr(gc, "collect", lambda *args: collections.append(1) or real_collect(*args))
    counts: list[int] = []
    monkeypatch.setattr(gc_pause, "_tracked", lambda: counts.append(1) or 0)
    with gc_paused():
        result = [[index] for index in range(300_000)]  # the first analysis: all of it live
    assert collections == [] and counts == []
    assert gc_pause._live_baseline >= 300_000  # the lists it made
    assert len(result) == 300_000


CYCLE_SOURCE = """
import pypto.language as pl

ROWS = 64
COLS = ROWS * 2


def _block():
    return ROWS // 4


BLOCK = _block()
N = pl.dynamic("N")


@pl.program
class P:
    @pl.function
    def main(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
        y: pl.Tensor[[N], pl.FP32],
    ) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        # a comment typed into
        for k in pl.range(0, ROWS, BLOCK):
            part = pl.create_tensor([BLOCK, COLS], dtype=pl.FP32)
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x[k : k + BLOCK, 0:COLS], [0, 0], [BLOCK, COLS])
                pl.store(pl.exp(t), [0, 0], part)
            with pl.at(level=pl.Level.CORE_GROUP):
                u = pl.load(part, [0, 0], [BLOCK, COLS])
                out = pl.store(u, [k, 0], out)
        return out
"""


def test_an_analysis_and_an_edit_leave_no_garbage_cycles() -> None:
    """Closures that named themselves (the module's name lookup, once per statement folded;
    the outliner's store rewrite, once per scope; `ast.dump`'s, once per slice compared; the
    dynamic-dim fold's, once per function with a dynamic extent) left
    reference cycles that only a full collection frees, holding what they read: through the
    server, 20 real files grew 279 -> 349 MiB from 1,300 to 3,000 comment edits, and level at
    259 MiB when the probe collected every 100 edits (bench_memory.py --server --probe)."""
    analyzer = DocumentAnalyzer()
    with collector_off():
        first = analyzer.update(CYCLE_SOURCE)
        second = analyzer.update(CYCLE_SOURCE.replace("typed into", "typed into, more"))
        found = garbage()
    assert found == []
    assert [d.code for d in second.diagnostics] == [d.code for d in first.diagnostics]
    assert len(second.outlined) == 2


def test_an_analysis_whose_imports_are_not_found_leaves_no_garbage_cycles(tmp_path: Path) -> None:
    """A `stat` that fails on the reader thread is raised again in the caller, and its
    traceback held the raising frame, which held the error: a cycle that kept that frame and
    every frame above it (the analysis, its text, the previous result) until a full
    collection, for each import candidate not found (a real model file's `torch`)."""
    path = tmp_path / "model.py"
    source = "import torch\nfrom missing_helpers import rows\n" + CYCLE_SOURCE
    path.write_text(source, encoding="utf-8")
    index = ModuleIndex(search=SearchPath())
    analyzer = DocumentAnalyzer()
    with collector_off():
        analyzer.update(source, modules=index.lookup_for(path))
        result = analyzer.update(
            source.replace("typed into", "typed into, more"), modules=index.lookup_for(path)
        )
        found = garbage()
    assert found == []
    assert len(result.outlined) == 2
