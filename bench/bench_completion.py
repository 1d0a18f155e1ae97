"""Completion and signature help on a large file: the handlers' own time per request.

Issue 18's target: completion and signature help answer within 20 ms p50 on a 5,000-line
file. They read only the text before the cursor and the last analysis, so their cost should
not grow with the file; this measures it where the cursor sits at the end of a 5,000-line file
(the worst case for the look-back) and in its middle, for `pl.`, `pl.Level.`, a keyword inside
`pl.at(`, `self.` and signature help in `pl.store(` / `self.f(`.

`--server` (with `--debounce MS`, default 0) measures the same requests through the real server over stdio instead: each run
types the line (an incremental didChange, which schedules an analysis on the worker), asks at
once, deletes the line again and waits for that version's diagnostics before the next run;
the figure is the request's round trip, with the edit's analysis competing for the CPU when the
debounce is 0.

Usage: python bench/bench_completion.py [--lines 5000] [--runs 200] [--server]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from bench_server import open_document, start_server, stop_server
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


_METHODS = {completion: "textDocument/completion", signature_help: "textDocument/signatureHelp"}


async def through_server(text: str, runs: int, debounce_ms: int) -> None:
    lines = split_lines(text)
    anchor, middle = _anchors(lines)
    # as VS Code: item documentation is resolved when shown, not sent with the list
    resolve = {"resolveSupport": {"properties": ["documentation", "detail", "additionalTextEdits"]}}
    client = await start_server({"textDocument": {"completion": {"completionItem": resolve}}})
    settings = {"analysis": {"debounceMs": debounce_ms}}
    client.send({"method": "workspace/didChangeConfiguration", "params": {"settings": settings}})
    uri = "file:///tmp/bench_completion.py"
    await open_document(client, uri, text)
    version = 1
    print(f"{len(lines)} lines through the server, debounce {debounce_ms} ms; round trip ms (p50 / p90)")

    def change(start: int, end: int, new_text: str) -> None:
        nonlocal version
        version += 1
        edit = {"range": {"start": {"line": start, "character": 0}, "end": {"line": end, "character": 0}}}
        client.send(
            {
                "method": "textDocument/didChange",
                "params": {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{**edit, "text": new_text}],
                },
            }
        )

    for name, (typed, handler) in CASES.items():
        for where, line in (("end", anchor), ("middle", middle)):
            times = []
            for _ in range(runs):
                change(line, line, typed + "\n")
                params = {"textDocument": {"uri": uri}, "position": {"line": line, "character": len(typed)}}
                start = time.perf_counter()
                found = await client.request(_METHODS[handler], params)
                times.append((time.perf_counter() - start) * 1000)
                assert found, name
                change(line, line + 1, "")
                await asyncio.wait_for(client.published(uri, version), 120)  # typing resumes later
            times.sort()
            p90 = times[int(len(times) * 0.9)]
            print(f"{name:30} {where:6} {statistics.median(times):6.2f} / {p90:6.2f}")
    await stop_server(client)


def _anchors(lines: list[str]) -> tuple[int, int]:
    """The line after the last function's `return out`, and one in the middle of the file."""
    anchor = max(i for i, line in enumerate(lines) if line.strip() == "return out")
    middle = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].strip() == "return out")
    return anchor, middle


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--server", action="store_true")
    parser.add_argument("--debounce", type=int, default=0, help="with --server: pypto.analysis.debounceMs")
    args = parser.parse_args()
    text = generate(args.lines)
    if args.server:
        asyncio.run(through_server(text, args.runs, args.debounce))
        return
    snapshot = Snapshot("file:///bench.py", 1, text, split_lines(text), analyse_source(text))
    lines = split_lines(text)
    anchor, middle = _anchors(lines)
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
