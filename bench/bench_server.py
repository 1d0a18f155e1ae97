"""Latency of the real language server over stdio, with debounce 0.

Run: `.venv/bin/python bench/bench_server.py`. It starts `python -m pypto_lsp`, speaks
JSON-RPC to it directly (no client library in the measured path) and prints:

* the median time from a one-character `didChange` inside one program to the
  `publishDiagnostics` of that version, for a generated 5,000-line file of 60 programs and for
  a 100-line file holding one program of the same shape (target: <= 30 ms, and the big file
  <= 1.3x the small one);
* the time from `didOpen` of a generated 10,000-line file to its first diagnostics (target: < 1 s).

`--files F ...` measures real files instead: each is opened in a temporary copy of its folder
(so its sibling imports resolve, as in the user's checkout and in `bench_edit.py`) and typed
into, one more character per edit inside the `name_hint` string nearest its middle (every text
new), next to the same edit in the 100-line generated jit file; then each file is opened cold in
a server of its own (to first diagnostics) and its first three keystrokes timed, and last the
files concatenated into one, in a
folder of its own (their imports unresolved: the shape of the earlier figures). Targets
(issue 13): <= 25 ms per edit, cold open of 8,000 lines <= 400 ms.

Next to each latency it prints the CPU time the server process spent (user + system, from
/proc): on a shared machine the wall-clock figures include waiting for a core, the CPU figures
do not. The edit CPU figure is the mean over the edits (the kernel counts in 10 ms ticks, too
coarse for one edit). The two documents are edited in turn, one edit each per round, so drift
in the machine's speed over the run affects both alike.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_edit import edit_anchor

from gen_dsl import generate_jit

EDITS = 41
# `python -P -m pypto_lsp`: without -P the current directory comes first on sys.path, so a server
# started from inside a checkout runs that checkout's code whatever PYTHONPATH says (a base
# measured so was the branch itself); with it, the server runs the code this bench imports
SERVER = ("-P", "-m", "pypto_lsp")
AFTER_OPEN = 3  # keystrokes timed right after a cold open (`keystrokes_after_open`)
TIMEOUT_SECONDS = 600

HEADER = "import pypto.language as pl\n\nROWS = 64\n\n"

PROGRAM_HEAD = """
@pl.program
class Prog{n}:
    @pl.function
    def main(
        self,
        x: pl.Tensor[[256, 128], pl.FP32],
        base: pl.Scalar[pl.INDEX],
        acc: pl.InOut[pl.Tensor[[ROWS, 128], pl.FP32]],
        out: pl.Out[pl.Tensor[[256, 128], pl.FP32]],
    ) -> pl.Tensor[[256, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            off = base * ROWS
            t = pl.load(x, [off, 0], [ROWS, 128])
            pl.store(pl.exp(t), [off, 0], out)
"""

PROGRAM_TAIL = """        with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail{n}"):
            u = pl.load(x, [off, 0], [ROWS, 128])
            out = pl.store(pl.neg(u), [0, 0], out)
        return out
"""

PROGRAM_BLOCK = """
    @pl.function
    def step{k}(
        self,
        x: pl.Tensor[[256, 128], pl.FP32],
        acc: pl.InOut[pl.Tensor[[ROWS, 128], pl.FP32]],
    ) -> pl.Tensor[[ROWS, 128], pl.FP32]:
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                a = pl.load(x, [i * ROWS, 0], [ROWS, 128])
                s = pl.load(acc, [0, 0], [ROWS, 128])
                pl.store(pl.add(a, s), [0, 0], acc)
        return acc
"""


def generate(programs: int, lines: int, blocks: int | None = None) -> str:
    """A module of `programs` programs and about `lines` lines: more functions pad each
    program, or, when `blocks` fixes the functions per program, comment lines at the end."""
    fixed = len(PROGRAM_HEAD.splitlines()) + len(PROGRAM_TAIL.splitlines())
    per_program = -(-(lines - HEADER.count("\n")) // programs)
    if blocks is None:
        blocks = max(-(-(per_program - fixed) // len(PROGRAM_BLOCK.splitlines())), 1)
    parts = [HEADER]
    for n in range(programs):
        parts.append(PROGRAM_HEAD.format(n=n) + PROGRAM_TAIL.format(n=n))
        parts += [PROGRAM_BLOCK.format(k=k) for k in range(blocks)]
    padding = lines - "".join(parts).count("\n")
    parts += [f"# note {k}\n" for k in range(padding)]
    return "".join(parts)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (Linux /proc)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Client:
    """A minimal JSON-RPC client: requests by id, and publishDiagnostics by (uri, version)."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.next_id = 0
        self.responses: dict[int, asyncio.Future[Any]] = {}
        self.publishes: dict[tuple[str, int | None], asyncio.Future[float]] = {}
        # the perf_counter() time a work-done progress (the workspace index's) ended
        self.index_done: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.reader = asyncio.ensure_future(self._read())

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.responses[self.next_id] = future
        self.send({"id": self.next_id, "method": method, "params": params})
        return await future

    def published(self, uri: str, version: int) -> asyncio.Future[float]:
        """Resolves to the perf_counter() time the publish for (uri, version) was read."""
        return self.publishes.setdefault((uri, version), asyncio.get_running_loop().create_future())

    async def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        while True:
            header = await stdout.readuntil(b"\r\n\r\n")
            length = int(header.split(b"Content-Length: ")[1].split(b"\r\n")[0])
            message = json.loads(await stdout.readexactly(length))
            now = time.perf_counter()
            if "id" in message and "method" not in message:
                self.responses.pop(message["id"]).set_result(message.get("result"))
            elif message.get("method") == "textDocument/publishDiagnostics":
                params = message["params"]
                future = self.published(params["uri"], params.get("version"))
                if not future.done():
                    future.set_result(now)
            elif message.get("method") == "$/progress" and message["params"]["value"]["kind"] == "end":
                if not self.index_done.done():
                    self.index_done.set_result(now)
            elif "id" in message:  # a request from the server: answer it empty
                self.send({"id": message["id"], "result": None})


async def open_document(client: Client, uri: str, text: str) -> tuple[float, float]:
    """Seconds from didOpen to the first publish, and the server's CPU seconds meanwhile."""
    arrived = client.published(uri, 1)
    cpu = cpu_seconds(client.process.pid)
    start = time.perf_counter()
    client.send(
        {
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
        }
    )
    wall = await asyncio.wait_for(arrived, TIMEOUT_SECONDS) - start
    return wall, cpu_seconds(client.process.pid) - cpu


def edit_position(text: str, program: int) -> tuple[int, int]:
    """(line, column) of the digit the benchmark toggles, inside program `program`."""
    lines = text.split("\n")
    start = lines.index(f"class Prog{program}:")
    line = next(i for i in range(start, len(lines)) if "s = pl.load(acc, [0, 0]" in lines[i])
    return line, lines[line].index("[0, 0]") + 1


def core_update_ms(documents: list[tuple[str, int]]) -> list[list[float]]:
    """The core's share of the edit latency: incremental updates for the same edits, the
    documents' edits interleaved as in `edit_latencies`."""
    from pypto_core.analysis import DocumentAnalyzer

    analyzers = [DocumentAnalyzer() for _ in documents]
    edits = [Typing(text, program) for text, program in documents]
    for analyzer, (text, _) in zip(analyzers, documents, strict=True):
        analyzer.update(text)
    times: list[list[float]] = [[] for _ in documents]
    for version in range(2, EDITS + 2):
        for analyzer, typing, spent in zip(analyzers, edits, times, strict=True):
            edited = typing.text_after(version)
            start = time.perf_counter()
            analyzer.update(edited)
            spent.append((time.perf_counter() - start) * 1000)
    return [spent[1:] for spent in times]


class Typing:
    """The one-character edits of a benchmark: a digit inside program `program` toggles."""

    def __init__(self, text: str, program: int) -> None:
        self.lines = text.split("\n")
        self.line, self.column = edit_position(text, program)

    def digit(self, version: int) -> str:
        return "1" if version % 2 == 0 else "0"

    def change(self, version: int) -> dict[str, Any]:
        return {
            "range": {
                "start": {"line": self.line, "character": self.column},
                "end": {"line": self.line, "character": self.column + 1},
            },
            "text": self.digit(version),
        }

    def text_after(self, version: int) -> str:
        line = self.lines[self.line]
        self.lines[self.line] = line[: self.column] + self.digit(version) + line[self.column + 1 :]
        return "\n".join(self.lines)


class TypingHint(Typing):
    """Typing into the middle `name_hint` string: one more character per edit, so every text
    is new (no cache keyed by a unit's text can answer it)."""

    def __init__(self, text: str, program: int = 0) -> None:
        anchor = edit_anchor(text)
        self.lines = text.split("\n")
        self.line = text.count("\n", 0, anchor)
        self.column = anchor - (text.rfind("\n", 0, anchor) + 1)

    def change(self, version: int) -> dict[str, Any]:
        at = {"line": self.line, "character": self.column}
        return {"range": {"start": at, "end": at}, "text": "x"}

    def text_after(self, version: int) -> str:
        line = self.lines[self.line]
        self.lines[self.line] = line[: self.column] + "x" + line[self.column :]
        return "\n".join(self.lines)


async def edit_latencies(
    client: Client, documents: list[tuple[str, str, int]], typing: type[Typing] = Typing
) -> list[tuple[list[float], float]]:
    """For each (uri, text, program): seconds from each one-character didChange (inside
    `program`) to its publish, and the server's mean CPU seconds per edit.

    The documents' edits are interleaved (one edit to each, round after round), so a machine
    whose speed drifts over the run, as a shared one does, slows all of them alike."""
    for uri, text, _ in documents:
        await open_document(client, uri, text)
    edits = [typing(text, program) for _, text, program in documents]
    latencies: list[list[float]] = [[] for _ in documents]
    cpu = [0.0 for _ in documents]
    for version in range(2, EDITS + 2):
        for index, ((uri, _, _), typing) in enumerate(zip(documents, edits, strict=True)):
            wall, spent_cpu = await timed_change(client, uri, version, typing.change(version))
            latencies[index].append(wall)
            if version > 2:  # the first edit after opening warms caches
                cpu[index] += spent_cpu
    for uri, _, _ in documents:
        client.send({"method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}})
    return [(spent[1:], total / (EDITS - 1)) for spent, total in zip(latencies, cpu, strict=True)]


async def keystrokes_after_open(client: Client, uri: str, text: str) -> list[tuple[float, float]]:
    """Seconds from each of the first `AFTER_OPEN` characters typed into the middle `name_hint`
    string of a document just opened to its publish, and the server's CPU seconds meanwhile:
    what a user who opens a file and starts typing waits (the passes keep their per-statement
    results from the open on)."""
    typing = TypingHint(text)
    return [
        await timed_change(client, uri, version, typing.change(version))
        for version in range(2, AFTER_OPEN + 2)
    ]


async def timed_change(client: Client, uri: str, version: int, change: dict[str, Any]) -> tuple[float, float]:
    """Seconds from one `didChange` to the publish of its version, and the server's CPU seconds
    meanwhile."""
    arrived = client.published(uri, version)
    before = cpu_seconds(client.process.pid)
    start = time.perf_counter()
    client.send(
        {
            "method": "textDocument/didChange",
            "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
        }
    )
    wall = await asyncio.wait_for(arrived, TIMEOUT_SECONDS) - start
    return wall, cpu_seconds(client.process.pid) - before


def describe(text: str) -> str:
    return f"{text.count(chr(10)):>6} lines, {text.count('@pl.program'):>3} programs"


async def start_server(
    capabilities: dict[str, Any] | None = None, command: tuple[str, ...] = SERVER
) -> Client:
    """`python -P -m pypto_lsp` (`SERVER`), or Python running `command` (a script that serves as it does)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    client = Client(process)
    await client.request(
        "initialize",
        {
            "processId": None,
            "capabilities": capabilities or {},
            "initializationOptions": {"analysis": {"debounceMs": 0}},
        },
    )
    client.send({"method": "initialized", "params": {}})
    return client


async def stop_server(client: Client) -> None:
    await client.request("shutdown", None)
    client.send({"method": "exit", "params": None})
    await client.process.wait()
    client.reader.cancel()


def copy_folder(folder: Path, into: Path) -> Path:
    """A copy of `folder` at `into` (its `.py` files and the rest; no caches, nothing hidden):
    the benchmarks never write into the user's checkout."""
    shutil.copytree(folder, into, ignore=shutil.ignore_patterns("__pycache__", ".*"))
    return into


async def real_files(files: list[Path]) -> None:
    """Edits in real files (each in a copy of its folder) next to the 100-line jit file, then
    a cold open of each, and of the files concatenated."""
    client = await start_server()
    small = generate_jit(100)
    with tempfile.TemporaryDirectory() as folder:
        documents = [(Path(folder, "small.py").as_uri(), small, 0)]
        copies = [copy_folder(path.parent, Path(folder, f"f{k}")) / path.name for k, path in enumerate(files)]
        for copy in copies:
            documents.append((copy.as_uri(), copy.read_text(encoding="utf-8"), 0))
        results = await edit_latencies(client, documents, TypingHint)
        print(f"one character typed into a name_hint -> publishDiagnostics (median of {EDITS - 1} edits)")
        labels = ["generated jit, 100 lines", *(str(p)[-48:] for p in files)]
        for label, (_, text, _), (spent, cpu) in zip(labels, documents, results, strict=True):
            print(
                f"  {label:<48} {text.count(chr(10)):>6} lines: {statistics.median(spent) * 1000:7.1f} ms"
                f"   (server CPU {cpu * 1000:6.1f} ms/edit)"
            )
        await stop_server(client)
        print(
            "cold open -> first diagnostics, each file in its folder, a new server each; then the"
            f" first {AFTER_OPEN} keystrokes in it"
        )
        for label, copy in zip(labels[1:], copies, strict=True):
            client = await start_server()
            text = copy.read_text(encoding="utf-8")
            cold, cold_cpu = await open_document(client, copy.as_uri(), text)
            first = await keystrokes_after_open(client, copy.as_uri(), text)
            print(
                f"  {label:<48} {text.count(chr(10)):>6} lines: {cold * 1000:7.0f} ms"
                f"   (server CPU {cold_cpu * 1000:6.0f} ms); then "
                + " / ".join(f"{wall * 1000:.0f} ({cpu * 1000:.0f})" for wall, cpu in first)
                + " ms"
            )
            await stop_server(client)
        client = await start_server()
        joined = "\n\n".join(path.read_text(encoding="utf-8") for path in files)
        big = Path(folder, "joined", "joined.py")
        big.parent.mkdir()
        big.write_text(joined, encoding="utf-8")
        cold, cold_cpu = await open_document(client, big.as_uri(), joined)
        print(
            f"cold open -> first diagnostics, the {len(files)} files in one (imports unresolved), "
            f"{joined.count(chr(10))} lines: {cold * 1000:.0f} ms   (server CPU {cold_cpu * 1000:.0f} ms; "
            "target <= 400 ms)"
        )
    await stop_server(client)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=Path, nargs="*", default=[], help="real files to edit and open")
    args = parser.parse_args()
    if args.files:
        await real_files(args.files)
        return
    client = await start_server()
    large = generate(programs=60, lines=5_000)
    # the same program as each of the large file's (so the edit is the same), padded to 100 lines
    small = generate(programs=1, lines=100, blocks=large.count("def step") // 60)
    huge = generate(programs=120, lines=10_000)
    (small_s, small_cpu), (large_s, large_cpu) = await edit_latencies(
        client, [("file:///bench/small.py", small, 0), ("file:///bench/large.py", large, 30)]
    )
    cold, cold_cpu = await open_document(client, "file:///bench/huge.py", huge)

    small_median, large_median = statistics.median(small_s) * 1000, statistics.median(large_s) * 1000
    print(f"one-character edit -> publishDiagnostics (median of {len(small_s)} edits, debounce 0)")
    print(f"  {describe(small)}: {small_median:6.1f} ms   (server CPU {small_cpu * 1000:5.1f} ms/edit)")
    print(f"  {describe(large)}: {large_median:6.1f} ms   (server CPU {large_cpu * 1000:5.1f} ms/edit)")
    print(
        f"  ratio large/small: {large_median / small_median:.2f}x, in CPU {large_cpu / small_cpu:.2f}x"
        "   (targets: <= 30 ms, <= 1.3x)"
    )
    print(
        f"cold open -> first diagnostics, {describe(huge)}: {cold * 1000:.0f} ms"
        f"   (server CPU {cold_cpu * 1000:.0f} ms; target: < 1000 ms)"
    )

    await stop_server(client)

    print("the same edits analysed in process, without the server (DocumentAnalyzer.update):")
    for text, spent in zip((small, large), core_update_ms([(small, 0), (large, 30)]), strict=True):
        print(f"  {describe(text)}: {statistics.median(spent):6.1f} ms")


if __name__ == "__main__":
    asyncio.run(main())
