"""Across modules (issue 11): a whole models tree checked cold, and a keystroke in an open
helper module to the republished diagnostics of an open document importing it.

Run: `.venv/bin/python bench/bench_workspace.py [--models DIR] [IMPORTER HELPER]` (defaults:
the fixture workspace's model.py / norms.py; a real pair: pypto-lib's
models/deepseek_v4_flash_dspark/decode_csa.py and its sibling rmsnorm.py). It prints:

* the wall and CPU time (the process and its workers) of one `pypto-check --format json
  MODELS_DIR` run in a fresh process (`--jobs N`: its worker processes; default its own
  default, the usable CPUs), the files that hold a `pl.at` / `pl.spmd` / `pl.graph` / `pl.cluster` scope but show no outlined
  function, and the outlined functions per such file;
* the median time from a one-character `didChange` in HELPER (a digit toggled on the line
  after its first scope header, or on the first line matching `--line REGEX`: an edit that
  changes the helper's code, where the default one may only change a comment or spacing) to the
  next `publishDiagnostics` of IMPORTER, both open, debounce 0; `--newline`: a line break
  typed at the end of that line and taken back, in turn (every line below it moves). The edits
  start once the workspace index of IMPORTER's folder has ended (its work-done progress), as a
  user types after opening a folder; `--during-index` starts them at once, while each may wait
  for one program of the index.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_server import SERVER, TIMEOUT_SECONDS, Client, cpu_seconds, open_document

EDITS = 21
_SCOPE = re.compile(r"\bpl\.(?:at|spmd|graph|cluster)\(")
FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "workspace"


def cold_check(models: Path, jobs: int | None) -> None:
    start = time.perf_counter()
    cpu_start = _children_cpu()
    jobs_args = ["--jobs", str(jobs)] if jobs is not None else []
    done = subprocess.run(
        [sys.executable, "-m", "pypto_core.cli", "--format", "json", *jobs_args, str(models)],
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    cpu = _children_cpu() - cpu_start
    files = json.loads(done.stdout)["files"]
    with_scope = [f for f in files if _SCOPE.search(Path(f["path"]).read_text(errors="replace"))]
    silent = [f["path"] for f in with_scope if not f["outlined"]]
    outlined = sum(len(f["outlined"]) for f in with_scope)
    workers = f"--jobs {jobs}" if jobs is not None else "default --jobs"
    print(f"cold pypto-check of {len(files)} files ({workers}): {wall:.2f} s wall, {cpu:.2f} s CPU")
    print(f"files with a scope: {len(with_scope)}, with no outlined function: {len(silent)}")
    print(f"outlined functions: {outlined} ({outlined / max(len(with_scope), 1):.1f} per file with a scope)")
    for path in silent:
        print(f"  no outlined function: {path}")


def _children_cpu() -> float:
    """User + system time of the waited-for child processes (a pool's workers included)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _uri(path: Path) -> str:
    return path.resolve().as_uri()


async def keystroke(
    importer: Path, helper: Path, pattern: str | None, newline: bool = False, during_index: bool = False
) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *SERVER,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=1 << 26,
    )
    client = Client(process)
    root = _uri(importer.parent)
    await client.request(
        "initialize",
        {
            "processId": None,
            "rootUri": root,
            "capabilities": {"window": {"workDoneProgress": True}},
            "initializationOptions": {"analysis": {"debounceMs": 0}},
        },
    )
    client.send({"method": "initialized", "params": {}})
    initialized = time.perf_counter()
    helper_text = helper.read_text()
    open_wall, _ = await open_document(client, _uri(importer), importer.read_text())
    await open_document(client, _uri(helper), helper_text)
    if not during_index:
        indexed = await asyncio.wait_for(client.index_done, TIMEOUT_SECONDS) - initialized
    lines = helper_text.split("\n")
    if pattern is not None:
        line = next(i for i, text in enumerate(lines) if re.search(pattern, text))
    else:
        line = next(i for i, text in enumerate(lines) if _SCOPE.search(text)) + 1
    column = (
        next(i for i, ch in enumerate(lines[line]) if ch.isdigit())
        if any(ch.isdigit() for ch in lines[line])
        else len(lines[line])
    )
    original = lines[line][column : column + 1]
    latencies, cpu = [], []
    for version in range(2, EDITS + 2):
        client.publishes.pop((_uri(importer), 1), None)
        arrived = client.published(_uri(importer), 1)
        text = ("7" if version % 2 == 0 else original) if original else (" " if version % 2 == 0 else "")
        end = column + (1 if original else (1 if version % 2 == 1 else 0))
        start_at = end_at = {"line": line, "character": column}
        if newline:
            text = "\n" if version % 2 == 0 else ""
            start_at = end_at = {"line": line, "character": len(lines[line])}
            if version % 2 == 1:
                end_at = {"line": line + 1, "character": 0}
        else:
            end_at = {"line": line, "character": end}
        start, cpu_start = time.perf_counter(), cpu_seconds(process.pid)
        client.send(
            {
                "method": "textDocument/didChange",
                "params": {
                    "textDocument": {"uri": _uri(helper), "version": version},
                    "contentChanges": [
                        {
                            "range": {"start": start_at, "end": end_at},
                            "text": text,
                        }
                    ],
                },
            }
        )
        latencies.append(await asyncio.wait_for(arrived, TIMEOUT_SECONDS) - start)
        cpu.append(cpu_seconds(process.pid) - cpu_start)
    await client.request("shutdown", None)
    client.reader.cancel()
    client.send({"method": "exit"})
    await process.wait()
    spent, spent_cpu = latencies[1:], cpu[1:]
    waited = "while the folder is indexed" if during_index else f"after the folder's index ({indexed:.1f} s)"
    print(
        f"open {importer.name}: {open_wall * 1000:.0f} ms; {waited}, keystroke in {helper.name} -> {importer.name} "
        f"republished: median {statistics.median(spent) * 1000:.1f} ms "
        f"(min {min(spent) * 1000:.1f}, max {max(spent) * 1000:.1f}, {len(spent)} edits); "
        f"server CPU median {statistics.median(spent_cpu) * 1000:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=Path, help="check this tree cold in one pypto-check run first")
    parser.add_argument("--jobs", type=int, help="pypto-check's --jobs for --models")
    parser.add_argument("--line", metavar="REGEX", help="edit the first line of HELPER matching this")
    parser.add_argument("--newline", action="store_true", help="type a line break at that line's end")
    parser.add_argument(
        "--during-index", action="store_true", help="type while the workspace index runs (default: after it)"
    )
    parser.add_argument("importer", type=Path, nargs="?", default=FIXTURE / "model.py")
    parser.add_argument("helper", type=Path, nargs="?", default=FIXTURE / "norms.py")
    args = parser.parse_args()
    if args.models is not None:
        cold_check(args.models, args.jobs)
    asyncio.run(keystroke(args.importer, args.helper, args.line, args.newline, args.during_index))


if __name__ == "__main__":
    main()
