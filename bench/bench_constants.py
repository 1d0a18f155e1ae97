"""Module constants: what a keystroke inside a program costs next to N module-level constants.

Run: `.venv/bin/python bench/bench_constants.py [N ...] [--server]` (default 2,000 and 20,000).
The file is the DSL import, a chain of N constants `C{i} = {i} * 2 + C{i-1}` (each its own
top-level unit) and one program; the keystroke types a comment into the program's body
(issue 20: 2k constants 0.08 s, 20k 5.0 s per analysis, 200k over 300 s; "the module context
is rebuilt ... on every edit"). In process it prints the CPU time of the fresh analysis, of a
keystroke, and the module context's share of the keystroke (`frontend.module_context`);
`--server` also types through the real server (debounce 0) and prints the server's CPU time
per keystroke, to its publishDiagnostics.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_server import TIMEOUT_SECONDS, cpu_seconds, open_document, start_server, stop_server

from pypto_core import analysis, frontend
from pypto_core.analysis import DocumentAnalyzer

from gen_dsl import ONE_SCOPE_ANCHOR as ANCHOR
from gen_dsl import constant_chain, with_one_program

KEYSTROKES = 5


def source(constants: int) -> str:
    return with_one_program(constant_chain(constants))


def typed(text: str, k: int) -> str:
    """The text after `k` keystrokes of a comment after the anchor statement."""
    return text.replace(ANCHOR, ANCHOR + "  #" + "x" * k)


def in_process(constants: int) -> None:
    spent = [0.0]
    build = frontend.module_context

    def timed(*args: object, **kwargs: object) -> object:
        start = time.process_time()
        try:
            return build(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            spent[0] += time.process_time() - start

    text = source(constants)
    analyzer = DocumentAnalyzer()
    start = time.process_time()
    analyzer.update(text)
    fresh = time.process_time() - start
    analysis.frontend.module_context = timed  # type: ignore[assignment]
    try:
        start = time.process_time()
        for k in range(1, KEYSTROKES + 1):
            analyzer.update(typed(text, k))
        keystroke = (time.process_time() - start) / KEYSTROKES
    finally:
        analysis.frontend.module_context = build  # type: ignore[assignment]
    context = spent[0] / KEYSTROKES
    print(
        f"{constants:>7,} constants in process: fresh {fresh:6.2f} s, keystroke {keystroke:6.3f} s CPU"
        f" (module context {context:6.3f} s)"
    )


async def through_server(constants: int) -> None:
    text = source(constants)
    client = await start_server()
    with tempfile.TemporaryDirectory() as folder:
        uri = Path(folder, "consts.py").as_uri()
        wall, cpu = await open_document(client, uri, text)
        before = cpu_seconds(client.process.pid)
        for k in range(1, KEYSTROKES + 1):
            arrived = client.published(uri, 1 + k)
            anchor = text.index(ANCHOR) + len(ANCHOR)
            line = text.count("\n", 0, anchor)
            end = anchor - text.rfind("\n", 0, anchor) - 1
            column, insert = (end, "  #x") if k == 1 else (end + 4 + (k - 2), "x")
            at = {"line": line, "character": column}
            change = {"range": {"start": at, "end": at}, "text": insert}
            client.send(
                {
                    "method": "textDocument/didChange",
                    "params": {"textDocument": {"uri": uri, "version": 1 + k}, "contentChanges": [change]},
                }
            )
            await asyncio.wait_for(arrived, TIMEOUT_SECONDS)
        per_keystroke = (cpu_seconds(client.process.pid) - before) / KEYSTROKES
    await stop_server(client)
    print(
        f"{constants:>7,} constants through the server: open {wall:6.2f} s ({cpu:6.2f} s CPU),"
        f" keystroke {per_keystroke:6.3f} s server CPU"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("constants", type=int, nargs="*", default=[2_000, 20_000])
    parser.add_argument("--server", action="store_true", help="also type through the real server")
    args = parser.parse_args()
    for n in args.constants:
        in_process(n)
        if args.server:
            asyncio.run(through_server(n))
