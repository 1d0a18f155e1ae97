"""Completion and signature help on a large file: the handlers' own time per request.

Issue 18's target: completion and signature help answer within 20 ms p50 on a 5,000-line
file. They read only the text before the cursor and the last analysis, so their cost should
not grow with the file; this measures it where the cursor sits at the end of a 5,000-line file
(the worst case for the look-back) and in its middle, for `pl.`, `pl.Level.`, a keyword inside
`pl.at(`, `self.` and signature help in `pl.store(` / `self.f(`.

Usage: python bench/bench_completion.py [--lines 5000] [--runs 200]
"""

from __future__ import annotations

import argparse
import statistics
import time

from pygls.workspace.position_codec import PositionCodec

from pypto_core.analysis import analyse_source
from pypto_core.span import split_lines
from pypto_lsp.completion import completion
from pypto_lsp.convert import PositionMapper
from pypto_lsp.session import LiveText, Snapshot
from pypto_lsp.signature_help import signature_help

from gen_dsl import generate

CASES = {
    "completion pl.": ("            x = pl.", completion),
    "completion pl.Level.": ("            x = pl.Level.", completion),
    "completion pl.at( keyword": ("        with pl.at(level=pl.Level.HOST, ", completion),
    "completion self.": ("            x = self.", completion),
    "signature pl.store(": ("            pl.store(t, [0, 0], ", signature_help),
    "signature self.f(": ("            x = self.main(x, ", signature_help),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    text = generate(args.lines)
    snapshot = Snapshot("file:///bench.py", 1, text, split_lines(text), analyse_source(text))
    lines = split_lines(text)
    anchor = max(i for i, line in enumerate(lines) if line.strip() == "return out")  # last function's end
    middle = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].strip() == "return out")
    print(f"{len(lines)} lines, {len(snapshot.analysis.programs)} programs; ms per request (p50 / p90)")
    for name, (typed, handler) in CASES.items():
        for where, line in (("end", anchor), ("middle", middle)):
            edited = [*lines[:line], typed, *lines[line:]]
            mapper = PositionMapper(PositionCodec(), edited)
            live = LiveText(snapshot, snapshot, edited, mapper, line, len(typed))
            assert handler(live) is not None, name  # type: ignore[operator]
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                handler(live)  # type: ignore[operator]
                times.append((time.perf_counter() - start) * 1000)
            times.sort()
            p90 = times[int(len(times) * 0.9)]
            print(f"{name:30} {where:6} {statistics.median(times):6.2f} / {p90:6.2f}")


if __name__ == "__main__":
    main()
