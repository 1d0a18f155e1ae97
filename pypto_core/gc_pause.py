"""Pausing Python's cyclic garbage collector while an analysis builds its trees.

An analysis allocates hundreds of thousands of small, acyclic objects (AST nodes, IR nodes)
that reference counting frees on its own. The cyclic collector, triggered by allocation
counts, would meanwhile walk every live object again and again; on a 50k-line file that is
half the analysis time (bench/README.md). It is paused for the duration of one analysis and
resumes its normal schedule afterwards, so garbage cycles are still collected.

When it resumes, everything the analysis allocated and kept (its result) would still sit in
the youngest generation, and the first young collection would walk all of it: on 10k lines
that one walk cost as much as a third of the analysis. The survivors are long-lived by
nature, so they are moved straight to the oldest generation instead (`gc.freeze()` followed
by `gc.unfreeze()` is that move, in constant time). That is skipped when the host process
froze objects itself, since unfreezing would undo its choice.

That move is invisible to CPython's trigger for full collections (it counts only objects that
survived a young collection), so cyclic garbage the analyses dropped was never collected: a
builder holding a table of its own bound methods keeps its whole IR alive, 20,000 objects
(2.4 MB) per keystroke into a real 1,071-line file (issue 20). So the promotions are counted
here, and once they exceed what was alive after the last full collection, the tracked objects
are counted (a seventh of a collection's cost): only if they grew by that much (live objects
and cyclic garbage alike) does one run. So garbage cycles stay below the live heap's size, and
a collection's cost is spread over as many promoted objects as it walks.

The count matters because most promotions die soon after the block: the language server
keeps a document's previous result until the new one is published, so every keystroke
promotes a whole result that is freed a moment later. Counted as growth, those promotions set
off a full collection every few keystrokes into a real model file: a fifth of the server's
CPU time (bench/README.md, "Full collections in the server").

Nor is the first count growth: before any full collection has measured the live heap, what
the first analyses promoted is their results (opening a large file promotes a million objects
at once), so that becomes the baseline. Collecting there walked the whole new result to
find almost nothing: a seventh of a cold open of 8,418 real lines. Nor are those objects
counted: the net allocations the blocks promoted stand for them (the collector's count goes
down as tracked objects are freed), which leaves out only the heap from before the first
analysis (the server's imports) and so errs towards collecting sooner. Counting walks every
tracked object: 1.0 million after a cold open of pypto-lib's 3,123-line
`prefill_cp_fwd_draft.py`, 3-5 % of it (bench/README.md, session 16).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pausers = 0  # analyses currently running (the collector is process-wide)
_reenable = False  # whether the collector was enabled when the first of them started
_FULL_COLLECTION_FLOOR = 200_000  # promotions below this never trigger a full collection
_promoted = 0  # objects moved to the oldest generation since the last full collection
_live_baseline = 0  # objects alive after it, or at the first count before it (0: not counted yet)
_RUN_FLOOR = 2_500_000  # inside one long block, growth below this never triggers a collection
_run_live = 0  # objects alive after the long block's last collection (`collect_if_grown`)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic collector inside the block; re-entrant and thread-safe."""
    global _pausers, _reenable
    with _lock:
        if _pausers == 0:
            _reenable = gc.isenabled()
            gc.disable()
        _pausers += 1
    try:
        yield
    finally:
        with _lock:
            _pausers -= 1
            if _pausers == 0 and _reenable:
                _promote_survivors()
                gc.enable()


def collect_if_grown() -> None:
    """Between two pieces of work of one long `gc_paused` block (pypto-check's run holds one
    around all its files: the promotions and counts at each file's end were a tenth of a cold
    run over pypto-lib's models, its two full collections half of that, for no memory: what a
    file's analysis leaves is freed by reference counting). Garbage cycles must still not pile
    up without bound: once the tracked objects allocated (net) since the last collection exceed
    what was alive after it (and `_RUN_FLOOR`), everything is collected. Nothing outside such a
    block, or when the collector was off before it."""
    global _run_live
    if _pausers == 0 or not _reenable:
        return
    if gc.get_count()[0] > max(_RUN_FLOOR, _run_live):
        gc.collect()
        _run_live = _tracked()


def _promote_survivors() -> None:
    """Move every tracked object to the oldest generation without scanning it, or collect
    everything when enough has been moved there since the last full collection."""
    global _promoted, _live_baseline
    if gc.get_freeze_count() != 0:
        return  # the host froze objects: the collector keeps its own schedule
    _promoted += gc.get_count()[0]  # objects allocated (net) while the collector was paused
    allowance = max(_FULL_COLLECTION_FLOOR, _live_baseline)
    if _promoted > allowance:
        if _live_baseline == 0:  # the first time: what the first analyses kept is live
            _promoted, _live_baseline = 0, _promoted
        else:
            tracked = _tracked()
            if tracked - _live_baseline > allowance:  # what the promotions left behind
                gc.collect()
                _promoted, _live_baseline = 0, _tracked()
                return
            _promoted = max(tracked - _live_baseline, 0)
    gc.freeze()
    gc.unfreeze()


def _tracked() -> int:
    """The objects the collector tracks, counted in C: `gc.freeze()` moves them all to the
    permanent generation (in constant time), whose size `get_freeze_count` walks, and
    `unfreeze` moves them to the oldest one, where they go anyway. Half the CPU time of
    `len(gc.get_objects())`, which builds a list of them all (2 million objects in a cold
    `pypto-check` of pypto-lib's models, counted before most of its files' ends)."""
    gc.freeze()
    try:
        return gc.get_freeze_count()
    finally:
        gc.unfreeze()
