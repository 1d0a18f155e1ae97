"""What a burst of `didChange` notifications costs the server, next to what its final analysis costs.

Run: `.venv/bin/python bench/bench_burst.py FILE [--changes N] [--debounce MS]`. It opens FILE
(copied alone into a temporary folder, so its imports do not resolve, as in `bench_edit.py`),
then writes N one-character insertions (default 5,000) into the first comment of FILE's largest
DSL unit as one piece of stdin, followed by a `documentSymbol` request, and prints the wall time
to that request's answer, the server's CPU time meanwhile (issue 15: "make a burst cost what
its final analysis costs") and how long its threads waited for a core (a loaded machine's
share of the wall time). Next to it the same after a single change: the final analysis alone.
`--debounce` is the client's `debounceMs` (default: the server's own default). `--tcp` serves
the client over `pypto-lsp --tcp` on a loopback port instead of stdio.

`--interval MIN,MAX` types instead: the N changes are sent one at a time, each MIN-MAX ms after
the last (a fast typist: 30-50), and the CPU per keystroke is printed (what the burst's handling
must not add to).

`--py-spy OUT` samples the server during the burst with py-spy (collapsed stacks into OUT,
`--py-spy-bin` names the executable) to see where the burst's CPU goes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import shutil
import signal
import socket
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_server import SERVER, TIMEOUT_SECONDS, Client

from pypto_core.frontend import split_units


def comment_position(text: str) -> tuple[int, int]:
    """(line, column) at the end of the first comment line inside the file's largest DSL unit."""
    largest = max(split_units(text), key=lambda u: (u.kind != "other", len(u.text)))
    lines = text.split("\n")
    line = next(
        (n for n in range(largest.start_line, largest.end_line) if "#" in lines[n]), largest.start_line
    )
    return line, len(lines[line])


def change(uri: str, version: int, line: int, column: int) -> bytes:
    at = {"line": line, "character": column}
    message = {
        "jsonrpc": "2.0",
        "method": "textDocument/didChange",
        "params": {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {"start": at, "end": at}, "text": "x"}],
        },
    }
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def start(debounce_ms: int | None, tcp: bool) -> Client:
    if tcp:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = await asyncio.create_subprocess_exec(
            *(sys.executable, *SERVER, "--tcp", "--port", str(port), "--log-level", "INFO"),
            stderr=asyncio.subprocess.PIPE,
        )
        assert server.stderr is not None
        while b"Serving on" not in await asyncio.wait_for(server.stderr.readline(), TIMEOUT_SECONDS):
            pass
        drained = asyncio.ensure_future(_drain(server.stderr))  # (a full pipe would stop its log)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        # (what `Client` and `burst` use of a process, over the connection)
        process: Any = SimpleNamespace(
            stdin=writer, stdout=reader, pid=server.pid, wait=server.wait, drained=drained
        )
    else:
        process = await asyncio.create_subprocess_exec(
            sys.executable, *SERVER, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )
    client = Client(process)
    options: dict[str, Any] = (
        {"analysis": {}} if debounce_ms is None else {"analysis": {"debounceMs": debounce_ms}}
    )
    await client.request(
        "initialize", {"processId": None, "capabilities": {}, "initializationOptions": options}
    )
    client.send({"method": "initialized", "params": {}})
    return client


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.read(65536):
        pass


def sched_seconds(pid: int) -> tuple[float, float]:
    """(CPU seconds, seconds waiting for a core) the process's threads have had so far, summed
    over its threads (Linux schedstat, in nanoseconds: finer than /proc/PID/stat's 10 ms ticks).
    The second is how long a thread was runnable but not running: on a loaded machine the part
    of the wall time that is neither the server's CPU nor its waiting for input or a lock."""
    cpu = queued = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            fields = (task / "schedstat").read_text().split()
            cpu, queued = cpu + int(fields[0]), queued + int(fields[1])
    return cpu / 1e9, queued / 1e9


async def burst(
    client: Client,
    uri: str,
    first: int,
    count: int,
    line: int,
    column: int,
    interval: tuple[float, float] | None = None,
) -> tuple[float, float, float]:
    """Wall, server CPU and server run-queue seconds from writing `count` changes in one piece
    (or, with `interval`, one at a time, each a random span in it after the last, seeded) to
    the answer of a request that follows them."""
    assert client.process.stdin is not None
    frames = [change(uri, first + k, line, column + k) for k in range(count)]
    pid = client.process.pid
    chance = random.Random(15)
    cpu, queued = sched_seconds(pid)
    begin = time.perf_counter()
    if interval is None:
        client.process.stdin.write(b"".join(frames))
    for one in frames if interval is not None else ():
        client.process.stdin.write(one)
        await asyncio.sleep(chance.uniform(*interval) / 1000)
    await asyncio.wait_for(
        client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}}), TIMEOUT_SECONDS
    )
    wall = time.perf_counter() - begin
    cpu_after, queued_after = sched_seconds(pid)
    return wall, cpu_after - cpu, queued_after - queued


async def main(
    path: Path,
    changes: int,
    debounce_ms: int | None,
    py_spy: tuple[str, Path] | None,
    tcp: bool,
    interval: tuple[float, float] | None,
) -> None:
    text = path.read_text(encoding="utf-8")
    line, column = comment_position(text)
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder, path.name)
        shutil.copyfile(path, copy)
        uri = copy.as_uri()
        client = await start(debounce_ms, tcp)
        opened = client.published(uri, 1)
        client.send(
            {
                "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
            }
        )
        await asyncio.wait_for(opened, TIMEOUT_SECONDS)
        single = await burst(client, uri, 2, 1, line, column)
        sampler = None
        if py_spy is not None:
            command = (
                py_spy[0],
                "record",
                "--pid",
                str(client.process.pid),
                "-f",
                "raw",
                "-o",
                str(py_spy[1]),
            )
            sampler = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.DEVNULL)
        many = await burst(client, uri, 3, changes, line, column + 1, interval)
        if sampler is not None:
            sampler.send_signal(signal.SIGINT)
            await sampler.wait()
        await client.request("shutdown", None)
        client.send({"method": "exit", "params": None})
        await client.process.wait()
        client.reader.cancel()
    print(
        f"{path} ({text.count(chr(10))} lines), debounce {'default' if debounce_ms is None else debounce_ms}"
        f"{', over TCP' if tcp else ''}"
    )
    typed = "" if interval is None else f" typed every {interval[0]:g}-{interval[1]:g} ms"
    for name, (wall, cpu, queued) in (("1 change", single), (f"{changes:,} changes{typed}", many)):
        print(
            f"  {name + ' + documentSymbol:':30} {wall:7.2f} s wall, {cpu:6.3f} s server CPU,"
            f" {queued:6.2f} s waiting for a core (thread-seconds)"
        )
    if interval is not None:
        print(f"  server CPU per keystroke: {many[1] / changes * 1000:.3f} ms")
        return
    extra = (many[1] - single[1]) / max(changes - 1, 1) * 1000
    print(f"  CPU per change beyond the final analysis: {extra:.3f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--changes", type=int, default=5_000)
    parser.add_argument("--debounce", type=int, default=None, help="the client's debounceMs")
    parser.add_argument("--py-spy", type=Path, default=None, help="sample the burst into this file")
    parser.add_argument("--py-spy-bin", default="py-spy")
    parser.add_argument("--tcp", action="store_true", help="serve over --tcp on a loopback port")
    parser.add_argument("--interval", default=None, help="MIN,MAX ms between changes sent one at a time")
    args = parser.parse_args()
    sampling = None if args.py_spy is None else (args.py_spy_bin, args.py_spy)
    span = None if args.interval is None else tuple(float(ms) for ms in args.interval.split(","))
    assert span is None or len(span) == 2, "--interval MIN,MAX"
    asyncio.run(main(args.file, args.changes, args.debounce, sampling, args.tcp, span))  # type: ignore[arg-type]
