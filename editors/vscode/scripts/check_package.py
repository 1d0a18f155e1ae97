"""Check built .vsix files: what each holds, and that its bundled server works with a bare Python.

    python scripts/check_package.py pypto-lsp-linux-x64.vsix pypto-lsp-universal.vsix

Each .vsix is unpacked into a temporary folder and its server started as the extension starts
it (`<python> extension/bundled/tool/launch.py`, in the extension's folder) by an interpreter
that cannot import pygls, lsprotocol, attrs, cattrs or libcst on its own: a fresh venv made
with `venv --without-pip` from the running Python (or `--python`). Over stdio it then checks,
with examples/quickstart.py: the start line names the bundled copy, PTO301 is published, and
the quick fix for it is offered (platform packages), or no action is offered and one warning
says quick fixes are off (the universal package, no libcst). Standard library only.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]
SAMPLE = REPO / "examples" / "quickstart.py"
DEPENDENCIES = ("pygls", "lsprotocol", "attrs", "cattrs", "libcst")
TIMEOUT_S = 60.0
FIX_TITLE = "Move 'n' out of the scope and remove the emptied scope"


class Server:
    """A server process spoken to with Content-Length frames on stdin/stdout."""

    def __init__(self, command: list[str], cwd: Path) -> None:
        self.process = subprocess.Popen(
            command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.notifications: list[dict[str, Any]] = []
        self.next_id = 0

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        length = 0
        while (line := self.process.stdout.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        if length == 0:
            raise SystemExit(f"the server closed its output; stderr:\n{self.stderr()}")
        message: dict[str, Any] = json.loads(self.process.stdout.read(length))
        return message

    def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        while True:
            message = self.read()
            if message.get("id") == self.next_id and "method" not in message:
                if "error" in message:
                    raise SystemExit(f"{method} failed: {message['error']}")
                return message.get("result")
            self.handle(message)

    def handle(self, message: dict[str, Any]) -> None:
        if "id" in message and "method" in message:  # a request to the client: answer it
            result = (
                [None] * len(message["params"]["items"])
                if message["method"] == "workspace/configuration"
                else None
            )
            self.send({"id": message["id"], "result": result})
        else:
            self.notifications.append(message)

    def wait_for(self, method: str, accept: Any) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            for note in self.notifications:
                if note.get("method") == method and accept(note["params"]):
                    return note
            self.handle(self.read())
        raise SystemExit(f"no {method} within {TIMEOUT_S:.0f} s")

    def stderr(self) -> str:
        self.process.kill()
        assert self.process.stderr is not None
        return self.process.stderr.read().decode(errors="replace")

    def finish(self) -> None:
        self.request("shutdown", None)
        self.send({"method": "exit"})
        self.process.wait(timeout=TIMEOUT_S)


def check_bare(python: str) -> None:
    probe = "import importlib.util as u, sys; sys.exit(any(u.find_spec(n) for n in sys.argv[1:]))"
    if subprocess.run([python, "-c", probe, *DEPENDENCIES]).returncode != 0:
        raise SystemExit(f"{python} can import one of {DEPENDENCIES} by itself: it proves nothing")


def check_contents(vsix: Path, manifest: dict[str, Any]) -> list[str]:
    with zipfile.ZipFile(vsix) as archive:
        names = archive.namelist()
        vsixmanifest = archive.read("extension.vsixmanifest").decode()
    natives = [n for n in names if n.startswith("extension/bundled/libs/libcst/native.")]
    target = manifest["target"]
    lines = [f"{vsix.name}: {len(names)} files, {vsix.stat().st_size / 1e6:.1f} MB, target {target}"]
    if target == "universal":
        assert not natives and "TargetPlatform" not in vsixmanifest, "the universal package carries libcst"
    else:
        assert f'TargetPlatform="{target}"' in vsixmanifest, f"the manifest does not say {target}"
        expected = [f"native.cpython-{v.replace('.', '')}-" for v in manifest["pythons"]]
        assert all(any(e in n for n in natives) for e in expected), f"libcst natives {natives}"
        lines.append(f"libcst native modules: {len(natives)}")
    assert "extension/bundled/tool/launch.py" in names and not any("__pycache__" in n for n in names)
    with zipfile.ZipFile(vsix) as archive:
        contributes = json.loads(archive.read("extension/package.json"))["contributes"]
    contributed = [lang["configuration"] for lang in contributes["languages"]]
    contributed += [grammar["path"] for grammar in contributes["grammars"]]
    missing = [f for f in contributed if f"extension/{f.removeprefix('./')}" not in names]
    assert not missing, f"files the manifest's languages and grammars name are not packaged: {missing}"
    return lines


def check_server(root: Path, python: str, quick_fixes: bool) -> list[str]:
    extension = root / "extension"
    server = Server([python, str(extension / "bundled" / "tool" / "launch.py")], extension)
    started = time.monotonic()
    server.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    server.send({"method": "initialized", "params": {}})
    uri = SAMPLE.resolve().as_uri()
    text = SAMPLE.read_text(encoding="utf-8")
    document = {"uri": uri, "languageId": "python", "version": 1, "text": text}
    server.send({"method": "textDocument/didOpen", "params": {"textDocument": document}})
    published = server.wait_for(
        "textDocument/publishDiagnostics", lambda p: p["uri"] == uri and p["diagnostics"] != []
    )
    elapsed = time.monotonic() - started
    (pto301,) = [d for d in published["params"]["diagnostics"] if d.get("code") == "PTO301"]
    actions = server.request(
        "textDocument/codeAction",
        {"textDocument": {"uri": uri}, "range": pto301["range"], "context": {"diagnostics": [pto301]}},
    )
    server.finish()
    logs = [n["params"]["message"] for n in server.notifications if n.get("method") == "window/logMessage"]
    shown = [n["params"]["message"] for n in server.notifications if n.get("method") == "window/showMessage"]
    (start,) = [line for line in logs if line.startswith("pypto-lsp ")]
    where = str((extension / "bundled" / "libs" / "pypto_lsp").resolve())
    assert f" from {where}, " in start, f"not the bundled server: {start}"
    titles = [a["title"] for a in actions or []]
    if quick_fixes:
        assert titles == [FIX_TITLE] and shown == [], f"quick fixes {titles}, messages {shown}"
    else:
        assert titles == [] and len(shown) == 1 and "quick fixes are off" in shown[0], (titles, shown)
    return [start, f"PTO301 published {elapsed:.1f} s after start; code actions {titles}; messages {shown}"]


def check(vsix: Path, python: str) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        with zipfile.ZipFile(vsix) as archive:
            archive.extractall(root)
        manifest = json.loads((root / "extension" / "bundled" / "libs" / "BUNDLE.json").read_text())
        lines = check_contents(vsix, manifest)
        lines += check_server(root, python, manifest["quickFixes"])
    print("\n".join(f"check-package: {line}" for line in lines))
    print(f"check-package: PASS {vsix.name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vsix", type=Path, nargs="+")
    parser.add_argument("--python", help="a bare interpreter (default: a fresh venv without packages)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        python = args.python
        if python is None:
            base = getattr(sys, "_base_executable", sys.executable)
            subprocess.run([base, "-m", "venv", "--without-pip", f"{scratch}/bare"], check=True)
            python = f"{scratch}/bare/bin/python"
        check_bare(python)
        for vsix in args.vsix:
            check(vsix, python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
