"""The language server with a memory probe, for `bench_memory.py --server ... --probe FILE`.

Run as the server (`python bench/memory_probe.py`), each SIGUSR1 appends a report to the path
in `PYPTO_MEMORY_PROBE`: the objects the cyclic collector tracks and the interpreter's
allocated blocks, `gc_pause`'s promotion count, then the same after a full collection, and the
20 object types whose live count grew most since the previous report's collection, and the
types of the garbage the collection found (what makes reference cycles). So growth
that a full collection frees (garbage cycles waiting for `gc_pause`'s trigger) is told apart
from objects something still holds, and their type names the holder. A report walks every
object (a second or so with a few million); `PYPTO_MEMORY_PROBE_TRACE=1` also traces
allocations (tracemalloc, one frame: the source lines that grew most), which slows the server
down about eightfold.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import time
import tracemalloc
from collections import Counter
from types import FrameType

_previous_types: list[Counter[str]] = []
_previous_trace: list[tracemalloc.Snapshot] = []


def _report(signum: int, frame: FrameType | None) -> None:
    import pypto_core.gc_pause as gc_pause

    tracked, blocks = len(gc.get_objects()), sys.getallocatedblocks()
    promoted, baseline = gc_pause._promoted, gc_pause._live_baseline
    gc.set_debug(gc.DEBUG_SAVEALL)  # what the collection finds is kept in gc.garbage, to count
    found = gc.collect()
    gc.set_debug(0)
    garbage = Counter(type(o).__name__ for o in gc.garbage)
    gc.garbage.clear()
    gc.collect()
    types = Counter(type(o).__name__ for o in gc.get_objects())
    lines = [
        f"== {time.strftime('%H:%M:%S', time.gmtime())}: {tracked:,} tracked objects, {blocks:,} blocks,"
        f" promoted {promoted:,} (baseline {baseline:,}); a full collection found {found:,}:"
        f" {types.total():,} tracked, {sys.getallocatedblocks():,} blocks"
    ]
    lines.append("  garbage: " + ", ".join(f"{name} {count:,}" for name, count in garbage.most_common(12)))
    if _previous_types:
        grown = Counter(types)
        grown.subtract(_previous_types[0])
        lines += [f"  {name}: {count:+,}" for name, count in grown.most_common(20) if count > 0]
    _previous_types[:] = [types]
    if tracemalloc.is_tracing():
        snapshot = tracemalloc.take_snapshot()
        stats = snapshot.compare_to(_previous_trace[0], "lineno") if _previous_trace else []
        lines += [f"  {stat}" for stat in stats[:20]]
        _previous_trace[:] = [snapshot]
    with open(os.environ["PYPTO_MEMORY_PROBE"], "a", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    if os.environ.get("PYPTO_MEMORY_PROBE_TRACE") == "1":
        tracemalloc.start(1)
    signal.signal(signal.SIGUSR1, _report)
    from pypto_lsp.__main__ import main

    sys.exit(main())
