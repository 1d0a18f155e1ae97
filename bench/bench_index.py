"""An open document's latency while the background workspace index runs (issues 11/13).

Run: `.venv/bin/python bench/bench_index.py --workspace DIR FILE`, e.g.
`--workspace /work/ext/pypto-lib/models/qwen3_14b decode_fwd.py`. The folder is copied to a
temporary one, the real server (`python -m pypto_lsp`, debounce 0) is started with the copy as
its workspace folder and with work-done progress, and, as an editor does when a folder opens
with a file in it, FILE is opened right after `initialized` and its code lenses asked for at
once. It prints:

* didOpen -> first publishDiagnostics, and -> the codeLens response;
* one character typed into the `name_hint` nearest the file's middle -> publishDiagnostics of
  that version (median and maximum), `--pause` seconds apart (default 1 s: the index may start
  a file between two keystrokes), for the edits sent while the index was still running (at
  most 20) and for 10 sent after its progress ended;
* when the index's work-done progress ended (seconds after `initialized`).

The server's CPU time is printed next to each figure (the machine is shared: wall-clock
includes waiting for a core).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_server import SERVER, TIMEOUT_SECONDS, Client, TypingHint, copy_folder, cpu_seconds, stop_server

AFTER_EDITS = 10
MAX_EDITS = 20  # while the index runs: it waits while keystrokes come closer than its quiet window


async def start_in(folder: Path) -> tuple[Client, float]:
    """The server with `folder` as its workspace; returns it and when `initialized` was sent."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, *SERVER, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    client = Client(process)
    await client.request(
        "initialize",
        {
            "processId": None,
            "rootUri": folder.as_uri(),
            "workspaceFolders": [{"uri": folder.as_uri(), "name": folder.name}],
            "capabilities": {"window": {"workDoneProgress": True}},
            "initializationOptions": {"analysis": {"debounceMs": 0}},
        },
    )
    client.send({"method": "initialized", "params": {}})
    return client, time.perf_counter()


def figures(spent: list[float]) -> str:
    if not spent:
        return "none"
    return f"median {statistics.median(spent) * 1000:6.0f} ms, max {max(spent) * 1000:6.0f} ms ({len(spent)} edits)"


async def measure(workspace: Path, name: str, pause: float) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        folder = copy_folder(workspace, Path(temporary, workspace.name))
        path = folder / name
        uri, text = path.as_uri(), path.read_text(encoding="utf-8")
        client, initialized = await start_in(folder)
        published = client.published(uri, 1)
        start = time.perf_counter()
        client.send(
            {
                "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
            }
        )
        lenses = await client.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
        lensed = time.perf_counter() - start
        first = await asyncio.wait_for(published, TIMEOUT_SECONDS) - start
        print(f"{name} in a copy of {workspace} ({sum(1 for _ in folder.rglob('*.py'))} .py files)")
        print(f"  didOpen -> first publishDiagnostics: {first * 1000:6.0f} ms")
        print(f"  didOpen -> codeLens response:        {lensed * 1000:6.0f} ms ({len(lenses or [])} lenses)")
        typing = TypingHint(text)
        during: list[float] = []
        after: list[float] = []
        cpu = {"during": 0.0, "after": 0.0}
        version = 1
        while len(after) < AFTER_EDITS:
            if len(during) == MAX_EDITS:  # stop typing until the index has ended
                await asyncio.wait_for(asyncio.shield(client.index_done), TIMEOUT_SECONDS)
            version += 1
            indexing = not client.index_done.done()
            arrived = client.published(uri, version)
            before, sent = cpu_seconds(client.process.pid), time.perf_counter()
            client.send(
                {
                    "method": "textDocument/didChange",
                    "params": {
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [typing.change(version)],
                    },
                }
            )
            (during if indexing else after).append(await asyncio.wait_for(arrived, TIMEOUT_SECONDS) - sent)
            cpu["during" if indexing else "after"] += cpu_seconds(client.process.pid) - before
            await asyncio.sleep(pause)  # between keystrokes
        ended = await asyncio.wait_for(client.index_done, TIMEOUT_SECONDS) - initialized
        print(f"  one character typed -> publishDiagnostics (debounce 0, {pause:.1f} s between keystrokes)")
        for label, spent in (("during", during), ("after", after)):
            mean_cpu = cpu[label] / max(len(spent), 1) * 1000
            print(f"    {label:<6} the index: {figures(spent)}   (server CPU {mean_cpu:5.0f} ms/edit)")
        print(f"  index progress ended {ended:.1f} s after initialized")
        await stop_server(client)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workspace", type=Path, required=True, help="the folder to copy and open")
    parser.add_argument("file", help="the file to open, relative to the folder")
    parser.add_argument("--pause", type=float, default=1.0, help="seconds between keystrokes")
    args = parser.parse_args()
    asyncio.run(measure(args.workspace.resolve(), args.file, args.pause))


if __name__ == "__main__":
    main()
