"""Driving the real server from tests: a recording client and a document helper.

The client records every `publishDiagnostics` (uri, version, diagnostics) so a test can wait
for the publish of one exact document version, whatever else arrived before or in between
(pytest-lsp's own `wait_for_notification` only sees notifications after it is called).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls import uris
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from pypto_core.span import Span

from markers import Marked, extract

TIMEOUT = 30.0
SERVER_COMMAND = [sys.executable, "-m", "pypto_lsp"]
DSL_HEADER = "import pypto.language as pl\n\n\n"
_names = count()


class RecordingClient(LanguageClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.published: list[types.PublishDiagnosticsParams] = []
        self.refreshes: list[str] = []  # workspace/*/refresh requests from the server
        self.registrations: list[types.Registration] = []  # client/registerCapability from the server
        # ("publish", uri) and ("progress", kind) in the order they arrived
        self.events: list[tuple[str, str]] = []
        self.publish_waiters: list[
            tuple[Callable[[types.PublishDiagnosticsParams], bool], asyncio.Future[Any]]
        ] = []


def _record_publish(client: RecordingClient, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.published.append(params)
    client.events.append(("publish", params.uri))
    for condition, future in list(client.publish_waiters):
        if not future.done() and condition(params):
            future.set_result(params)


def _record_progress(client: RecordingClient, params: types.ProgressParams) -> None:
    if isinstance(params.value, dict):
        client.events.append(("progress", str(params.value.get("kind"))))
    DEFAULT_CLIENT_FEATURES[types.PROGRESS](client, params)


def _record_registration(client: RecordingClient, params: types.RegistrationParams) -> None:
    client.registrations.extend(params.registrations)


def _record_code_lens_refresh(client: RecordingClient, params: None) -> None:
    client.refreshes.append(types.WORKSPACE_CODE_LENS_REFRESH)


def _record_inlay_hint_refresh(client: RecordingClient, params: None) -> None:
    client.refreshes.append(types.WORKSPACE_INLAY_HINT_REFRESH)


def make_client() -> RecordingClient:
    client = RecordingClient(converter_factory=default_converter)
    features = {
        **DEFAULT_CLIENT_FEATURES,
        types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: _record_publish,
        types.WORKSPACE_CODE_LENS_REFRESH: _record_code_lens_refresh,
        types.CLIENT_REGISTER_CAPABILITY: _record_registration,
        types.PROGRESS: _record_progress,
        types.WORKSPACE_INLAY_HINT_REFRESH: _record_inlay_hint_refresh,
    }
    register_lsp_features(client, features)
    return client


def server_config() -> ClientServerConfig:
    return ClientServerConfig(server_command=SERVER_COMMAND, client_factory=make_client)


def vscode_params(
    options: dict[str, Any] | None = None, root_uri: str | None = None
) -> types.InitializeParams:
    """Initialise as VS Code does (its capabilities), with debounce 0 unless told otherwise."""
    return types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        initialization_options=options if options is not None else {"analysis": {"debounceMs": 0}},
        root_uri=root_uri,
        workspace_folders=[types.WorkspaceFolder(uri=root_uri, name="ws")] if root_uri else None,
    )


async def wait_for_publish(
    client: RecordingClient, uri: str, version: int | None = None, *, since: int = 0
) -> types.PublishDiagnosticsParams:
    """The newest publish for `uri` at `version` (any version if None) among those from the
    `since`-th on, waiting for it if it has not arrived yet."""

    def matches(params: types.PublishDiagnosticsParams) -> bool:
        return params.uri == uri and (version is None or params.version == version)

    for params in reversed(client.published[since:]):
        if matches(params):
            return params
    future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    client.publish_waiters.append((matches, future))
    try:
        return await asyncio.wait_for(future, TIMEOUT)
    finally:
        client.publish_waiters.remove((matches, future))


@dataclass
class Doc:
    client: RecordingClient
    uri: str
    marked: Marked
    header: bool = True
    version: int = 1
    text: str = field(init=False)

    def __post_init__(self) -> None:
        self.text = self.marked.text

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    def position(self, name: str = "0") -> types.Position:
        line, col = self.marked.point(name)
        return utf16_position(self.lines, line, col)

    def range(self, name: str) -> types.Range:
        """The LSP range of the `{|name:...|}` marker."""
        return self.lsp_range(self.marked.named[name])

    def lsp_range(self, span: Span) -> types.Range:
        return types.Range(
            start=utf16_position(self.lines, span.start_line, span.start_col),
            end=utf16_position(self.lines, span.end_line, span.end_col),
        )

    async def diagnostics(self) -> list[types.Diagnostic]:
        return list((await wait_for_publish(self.client, self.uri, self.version)).diagnostics)

    def replace(self, source: str) -> None:
        """Send a whole new text (a full-document change); markers as for `open_doc`."""
        self.marked = _marked(source, self.header)
        self.set_text(self.marked.text)

    def set_text(self, text: str) -> None:
        """Send `text` as the whole new content (no markers)."""
        self.text = text
        self.version += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def edit(self, lsp_range: types.Range, new_text: str) -> None:
        """Send one incremental change and apply it to the local copy the same way."""
        self.text = apply_text_edits(self.text, [types.TextEdit(range=lsp_range, new_text=new_text)])
        self.version += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
                content_changes=[types.TextDocumentContentChangePartial(range=lsp_range, text=new_text)],
            )
        )

    def close(self) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=self.uri))
        )


def open_doc(client: RecordingClient, source: str, *, header: bool = True, stem: str = "doc") -> Doc:
    """Open a document whose text is `source` (markers removed), after the DSL import if `header`."""
    uri = f"file:///tmp/pypto-lsp-tests/{stem}_{next(_names)}.py"
    doc = Doc(client, uri, _marked(source, header), header=header)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=doc.text)
        )
    )
    return doc


def _marked(source: str, header: bool) -> Marked:
    """Markers removed; with `header`, the DSL import prepended and every marker moved down."""
    marked = extract(source)
    if not header:
        return marked
    shift = DSL_HEADER.count("\n")
    return Marked(
        DSL_HEADER + marked.text,
        [s.shifted(shift) for s in marked.ranges],
        {k: (line + shift, col) for k, (line, col) in marked.points.items()},
        {k: s.shifted(shift) for k, s in marked.named.items()},
    )


def utf16_position(lines: list[str], line: int, col: int) -> types.Position:
    """The test's own code-point -> UTF-16 conversion (independent of the server's)."""
    return types.Position(line=line, character=len(lines[line][:col].encode("utf-16-le")) // 2)


def apply_text_edits(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP edits (UTF-16 ranges, non-overlapping) to `text`, last first."""
    lines = text.split("\n")

    def offset(position: types.Position) -> int:
        line = lines[position.line] if position.line < len(lines) else ""
        units, col = 0, 0
        while col < len(line) and units < position.character:
            units += 2 if ord(line[col]) > 0xFFFF else 1
            col += 1
        return sum(len(item) + 1 for item in lines[: position.line]) + col

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


def with_header(source: str) -> str:
    """What `open_doc` makes of a marker-free source: dedented, after the DSL import."""
    return _marked(source, True).text


def workspace_edits(edit: types.WorkspaceEdit, uri: str) -> list[types.TextEdit]:
    """The text edits a workspace edit makes to `uri`, from `changes` or `documentChanges`."""
    if edit.changes:
        return list(edit.changes.get(uri, []))
    found: list[types.TextEdit] = []
    for change in edit.document_changes or []:
        if isinstance(change, types.TextDocumentEdit) and change.text_document.uri == uri:
            found += [e for e in change.edits if isinstance(e, types.TextEdit)]
    return found


def open_file(client: RecordingClient, path: Path) -> Doc:
    """Open a file of a test workspace under its own URI, with its text on disk (no markers)."""
    doc = Doc(client, uris.from_fs_path(str(path)) or "", extract(path.read_text()), header=False)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=doc.uri, language_id="python", version=1, text=doc.text)
        )
    )
    return doc


async def code_lenses(client: RecordingClient, uri: str) -> list[types.CodeLens]:
    """The lenses the server answers for `uri` (none: an empty list)."""
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return list(found or [])
