"""Memory under a day's use: it must level off, not grow with the number of edits.

Run: `.venv/bin/python bench/bench_memory.py` (50 open generated documents of ~2,000 lines,
one one-character edit in every document per round), or
`.venv/bin/python bench/bench_memory.py --type FILE [--chars N]`: type N characters (default
1,000), one per update, at the end of the first comment inside FILE's largest DSL unit, as a
user typing into a real file (issue 20: a pypto-lib model file). Each document is held by a
`DocumentAnalyzer`, as the server holds one per open document. Prints the resident set size
after opening and after each block of edits.

`--server FILE ... [--rounds R] [--cycles C]` is issue 15's shape through the real server
(`python -m pypto_lsp`, debounce 0, no workspace folder: each file's imports resolve from its
own folder, read in place): the files opened, R rounds of one character typed into a comment
of each file (each edit's publishDiagnostics awaited), then C open/close cycles (the next file
closed and opened again with its current text, its publish awaited). Prints the server's
resident set size and CPU time (/proc) after opening, every 5 rounds and every 25 cycles.
`--probe FILE` runs the server under `memory_probe.py` instead and has it append a report to
FILE at each of those points (traced memory before and after a full collection, the source
lines whose allocations grew most): what holds the memory that grows.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_burst import comment_position
from bench_server import TIMEOUT_SECONDS, Client, cpu_seconds, start_server, stop_server

from pypto_core.analysis import DocumentAnalyzer
from pypto_core.frontend import split_units

from gen_dsl import generate

DOCUMENTS = 50
LINES = 2_000
ROUNDS = 60


def rss_mib(pid: int | str = "self") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def server_state(pid: int) -> str:
    return f"{rss_mib(pid):.0f} MiB, {cpu_seconds(pid):.0f} s server CPU"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--type", metavar="FILE", type=Path, help="type into this file instead")
    parser.add_argument("--chars", type=int, default=1_000, help="characters to type (default 1,000)")
    parser.add_argument("--server", metavar="FILE", type=Path, nargs="+", help="open these in the server")
    parser.add_argument("--rounds", type=int, default=50, help="--server: edit rounds (default 50)")
    parser.add_argument("--cycles", type=int, default=200, help="--server: open/close cycles (default 200)")
    parser.add_argument("--probe", metavar="FILE", type=Path, help="--server: memory reports into FILE")
    args = parser.parse_args()
    if args.server:
        asyncio.run(server_cycles(args.server, args.rounds, args.cycles, args.probe))
    elif args.type is not None:
        type_into(args.type.read_text(encoding="utf-8"), args.chars)
    else:
        open_documents()


async def server_cycles(files: list[Path], rounds: int, cycles: int, probe: Path | None = None) -> None:
    if probe is not None:
        os.environ["PYPTO_MEMORY_PROBE"] = str(probe.resolve())  # the server inherits it
        client = await start_server(command=(str(Path(__file__).with_name("memory_probe.py")),))
    else:
        client = await start_server()
    pid = client.process.pid

    async def state() -> str:
        """The server's RSS and CPU; with a probe, after its report is written (the signal is
        handled on the server's main thread before it reads the request that follows)."""
        if probe is not None:
            os.kill(pid, signal.SIGUSR1)
            await client.request("textDocument/documentSymbol", {"textDocument": {"uri": uris[0]}})
        return server_state(pid)

    texts = [f.read_text(encoding="utf-8") for f in files]
    uris = [f.resolve().as_uri() for f in files]
    versions = [1] * len(files)
    at = [comment_position(text) for text in texts]
    start = time.perf_counter()
    for uri, text in zip(uris, texts, strict=True):
        await _await_publish(client, uri, 1, _open(uri, text))
    lines = sum(t.count(chr(10)) for t in texts)
    print(
        f"opened {len(files)} files ({lines:,} lines) in {time.perf_counter() - start:.0f} s: {await state()}"
    )
    for round_ in range(1, rounds + 1):
        for k, uri in enumerate(uris):
            line, column = at[k]
            texts[k] = _insert(texts[k], line, column, "x")
            at[k] = (line, column + 1)
            versions[k] += 1
            position = {"line": line, "character": column}
            change = {"range": {"start": position, "end": position}, "text": "x"}
            message = {
                "method": "textDocument/didChange",
                "params": {"textDocument": {"uri": uri, "version": versions[k]}, "contentChanges": [change]},
            }
            await _await_publish(client, uri, versions[k], message)
        if round_ % 5 == 0:
            print(f"after {round_ * len(files):>5} edits: {await state()}", flush=True)
    for cycle in range(1, cycles + 1):
        k = cycle % len(files)
        client.send({"method": "textDocument/didClose", "params": {"textDocument": {"uri": uris[k]}}})
        client.publishes.pop((uris[k], 1), None)
        await _await_publish(client, uris[k], 1, _open(uris[k], texts[k]))
        versions[k] = 1
        if cycle % 25 == 0:
            print(f"after {cycle:>5} open/close cycles: {await state()}", flush=True)
    await stop_server(client)


def _open(uri: str, text: str) -> dict[str, object]:
    document = {"uri": uri, "languageId": "python", "version": 1, "text": text}
    return {"method": "textDocument/didOpen", "params": {"textDocument": document}}


async def _await_publish(client: Client, uri: str, version: int, message: dict[str, object]) -> None:
    arrived = client.published(uri, version)
    client.send(message)
    await asyncio.wait_for(arrived, TIMEOUT_SECONDS)


def _insert(text: str, line: int, column: int, insert: str) -> str:
    lines = text.split("\n")
    lines[line] = lines[line][:column] + insert + lines[line][column:]
    return "\n".join(lines)


def type_into(text: str, chars: int) -> None:
    largest = max(split_units(text), key=lambda u: (u.kind != "other", len(u.text)))
    lines = text.split("\n")
    comment, column = comment_position(text)
    offset = sum(len(line) + 1 for line in lines[:comment]) + column
    analyzer = DocumentAnalyzer()
    start = time.process_time()
    analyzer.update(text)
    print(f"opened {len(lines)} lines in {time.process_time() - start:.2f} s CPU: {rss_mib():.0f} MiB")
    print(
        f"typing {chars} characters at the end of line {comment + 1} ({largest.name}, {len(largest.text)} chars)"
    )
    start = time.process_time()
    for typed in range(1, chars + 1):
        text = f"{text[:offset]}{'ab c'[typed % 4]}{text[offset:]}"
        offset += 1
        analyzer.update(text)
        if typed % 100 == 0:
            cpu_ms = (time.process_time() - start) * 1000 / typed
            print(
                f"after {typed:>5} characters: {rss_mib():.0f} MiB ({cpu_ms:.0f} ms CPU per keystroke)",
                flush=True,
            )


def open_documents() -> None:
    base = generate(LINES)
    marker = "t = pl.load(x, [off, 0], [ROWS, COLS])"
    texts = [base.replace("class Prog", f"class Doc{d}Prog") for d in range(DOCUMENTS)]
    analyzers = [DocumentAnalyzer() for _ in texts]
    start = time.perf_counter()
    for analyzer, text in zip(analyzers, texts, strict=True):
        analyzer.update(text)
    gc.collect()
    print(
        f"opened {DOCUMENTS} x {base.count(chr(10))} lines in {time.perf_counter() - start:.1f} s: {rss_mib():.0f} MiB"
    )
    edits = 0
    for round_ in range(1, ROUNDS + 1):
        for d, analyzer in enumerate(analyzers):
            # a different program and a different character each round: a fresh text every time
            nth = (round_ * 7 + d) % base.count(marker)
            head, sep, tail = texts[d].partition(marker) if nth == 0 else _split_at(texts[d], marker, nth)
            texts[d] = f"{head}{sep}  # {round_}{tail}" if round_ % 2 else f"{head}{sep}{tail}"
            analyzer.update(texts[d])
            edits += 1
        if round_ % 20 == 0:
            gc.collect()
            print(f"after {edits:>5} edits: {rss_mib():.0f} MiB")


def _split_at(text: str, marker: str, nth: int) -> tuple[str, str, str]:
    index = -1
    for _ in range(nth + 1):
        index = text.index(marker, index + 1)
    end = text.index("\n", index)
    return text[:index], text[index:end], text[end:]


if __name__ == "__main__":
    main()
