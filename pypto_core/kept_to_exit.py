"""What a `pypto-check` run keeps to its end instead of freeing: each file's analysis.

A run ends with `os._exit` once its output is out (`cli.run`, and each worker process,
`parallel._serve`), so nothing still alive then is ever torn down. Dropping each file's
analysis as soon as it is rendered freed its IR (millions of objects over pypto-lib's models)
object by object, each IR node's entries in the passes' weak tables removed by a callback as it
died: a tenth of a cold tree's CPU (bench/README.md, session 19). Kept, that is never paid; nor
is the cyclic collector run meanwhile (its full collections would walk everything kept: holding
the analyses with collections between files was slower than freeing them). What a file's
analysis leaves as cyclic garbage is kept as well, and is small beside the analysis itself.

Memory is what this costs (about 800 MB per worker for pypto-lib's 155 model files), so it is
bounded: once the process's peak resident memory reaches its share of the machine's or the
container's memory (`limit_for`), everything kept is let go, and from then on each analysis is
freed when its file is done and garbage cycles are collected as before
(`gc_pause.collect_if_grown`). The output is the same either way.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

_MAX_BYTES = 2 << 30  # a process never keeps more than this
_MACHINE_SHARE = 4  # nor more than the machine's memory divided by this and by the processes


# what a container's memory limit is read from (cgroup v2, v1), as the container sees its own
_CGROUP_LIMITS = (Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"))


def limit_for(processes: int) -> int:
    """The peak resident bytes each of `processes` processes of a run may keep its analyses to
    (0: none kept, where the machine's memory or the process's is not known)."""
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # Windows, or not reported
        return 0
    if _peak_resident() is None:
        return 0
    for limit in _CGROUP_LIMITS:  # a CI container's limit, far below the host's memory
        try:
            memory = min(memory, int(limit.read_text(encoding="ascii")))
        except (OSError, ValueError):  # none, or "max"
            continue
    return min(_MAX_BYTES, memory // (_MACHINE_SHARE * max(processes, 1)))


@dataclass
class KeptToExit:
    """The values one process keeps to its end (`keep`), below `limit` peak resident bytes."""

    limit: int
    kept: list[object] = field(default_factory=list)

    def keep(self, value: object) -> bool:
        """Whether `value` (a file's analysis, done with) is kept: while the process is below
        its limit. Past it, everything kept is let go, and the caller frees `value` and has
        garbage cycles collected when they may have piled up (`gc_pause.collect_if_grown`), as
        for every value after it."""
        if self.limit:
            peak = _peak_resident()
            if peak is not None and peak < self.limit:
                self.kept.append(value)
                return True
            self.limit = 0
            self.kept.clear()
        return False


def _peak_resident() -> int | None:
    """The process's peak resident set in bytes (None where `resource` is missing)."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # bytes on macOS, KiB elsewhere
