"""Cost of one keystroke in the static core: `DocumentAnalyzer.update` after a one-character
edit inside one program, in a generated 5,000-line file and in a 100-line file.

Run: `.venv/bin/python bench/bench_edit.py`. Only the edited program is re-analysed; what this
measures is that program plus the per-edit fixed costs over the whole document (unit split,
module context, fingerprints, result assembly). Target (issue 3): <= 30 ms for the big file.
Each edit types one more character into a scope's name, so every text is new (no parse cache
hit for the edited unit), as when a user types. CPU time is printed next to wall time because
the machine this runs on may be shared.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pypto_core.analysis import DocumentAnalyzer

from gen_dsl import generate

EDITS = 40


def typed_versions(text: str, count: int) -> list[str]:
    """`count` successive texts, each one character longer inside the middle program's
    `name_hint` string."""
    anchors = [i for i in range(len(text)) if text.startswith('name_hint="tail', i)]
    anchor = anchors[len(anchors) // 2] + len('name_hint="tail')
    return [text[:anchor] + "x" * k + text[anchor:] for k in range(1, count + 1)]


def per_edit(text: str) -> tuple[float, float]:
    """Median wall and CPU seconds per edit (each edit must re-analyse exactly one program)."""
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    walls, cpus, rebuilt = [], [], set()
    for version in typed_versions(text, EDITS):
        wall, cpu = time.perf_counter(), time.process_time()
        analyzer.update(version)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        rebuilt.add(analyzer.rebuilt)
    assert rebuilt == {1}, f"an edit re-analysed {rebuilt} programs, expected 1"
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    print(f"{'lines':>7} {'programs':>8} {'wall/edit':>10} {'cpu/edit':>9}")
    for lines in (100, 5_000):
        text = generate(lines)
        wall, cpu = per_edit(text)
        print(
            f"{text.count(chr(10)):>7} {text.count('@pl.program'):>8} {wall * 1000:>7.1f} ms {cpu * 1000:>6.1f} ms"
        )


if __name__ == "__main__":
    main()
