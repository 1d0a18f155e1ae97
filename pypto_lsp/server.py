"""The pygls language server: state, settings, publishing, and thin feature handlers.

Handlers do protocol work only: find the snapshot of the document, call the feature module,
return its LSP objects. Text-sync notifications update state on the event loop and schedule
analysis; everything CPU-bound runs on the scheduler's worker.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import traceback
import uuid
from collections.abc import Coroutine, Iterable
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO

from lsprotocol import types
from pygls import uris
from pygls.exceptions import JsonRpcInvalidParams
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import default_converter

from pypto_core.analysis import analyse_source, outlined_program_text
from pypto_core.span import split_lines
from pypto_core.workspace.files import NotReadable, read_regular_file, resolve_within_deadline

from . import __version__
from .code_actions import code_actions
from .code_lens import SHOW_OUTLINED_FUNCTION, code_lenses, helper_lenses, helper_of, resolved_helper_lens
from .completion import completion
from .completion import resolve as resolve_completion
from .convert import PositionMapper
from .definition import definition, definition_from_outlined, references
from .dependencies import Dependencies
from .framing import BufferedReader, BufferedStdinReader, serve_frames
from .highlights import document_highlights
from .hover import hover
from .inlay_hints import inlay_hints
from .outlined import (
    OUTLINED_PROGRAM_REQUEST,
    document_text,
    function_under,
    is_outlined_uri,
    outlined_function,
    selection_in,
    source_uri,
)
from .pass_trace import PASS_TRACE_REQUEST, TraceCache, program_lenses, trace_result
from .protocol import PyptoProtocol
from .provenance import quick_fixes_off_message, start_line
from .published import PublishedDiagnostics
from .rename import prepare_rename, python_files, target_at, valid_name, workspace_edit
from .scheduler import AnalysisScheduler
from .semantic_tokens import LEGEND, data_edits, token_data
from .session import DocumentSession, LiveText, Snapshot, TextSource
from .settings import Settings
from .signature_help import signature_help
from .symbols import SymbolEntry, document_symbols, symbol_entries, workspace_symbols
from .tcp import serve_first_client
from .text_sync import FixedText, LspTextDocument, lsp_workspace
from .workspace_index import WorkspaceIndex

log = logging.getLogger(__name__)

CONFIGURATION_SECTION = "pypto"
CONFIGURATION_TIMEOUT_SECONDS = 5.0
# A client that never sends `initialized` is served anyway, this long after `initialize`
# (requests used to wait for ever for the settings that notification pulls, issue 20).
INITIALIZED_GRACE_SECONDS = 2.0


# How long the analysis worker may hold the GIL before a waiting thread gets it (CPython's
# default is 5 ms). A request that arrives during an analysis (completion while typing) waits
# for the GIL at each hop from the stdin reader to the event loop to the writer: a thread
# sleeping 1 ms beside a looping 5,000-line analysis woke after 17.7 ms p50 at 5 ms, 9.2 ms at
# 1 ms, with as many analyses done in 5 s (72 and 66, within the run-to-run noise).
SWITCH_INTERVAL_SECONDS = 0.001


class PyptoLanguageServer(LanguageServer):
    def __init__(self) -> None:
        # Threaded handlers are not used; the pool only hosts pygls's stdin reader.
        super().__init__(
            "pypto-lsp",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=PyptoProtocol,
            max_workers=2,
        )
        self.protocol: PyptoProtocol
        self.initial_settings = Settings()
        self.settings = Settings()
        self.dependencies = Dependencies(self._open_text)
        self.scheduler = AnalysisScheduler(
            self._on_analysed,
            lambda: self.settings.debounce_seconds,
            self.dependencies,
            lambda: self.settings.splice_budget,
        )
        self._background: set[asyncio.Task[Any]] = set()
        self.index = WorkspaceIndex(
            self.scheduler.run, self.scheduler.run_background, self._is_open, self.scheduler.documents_waiting
        )
        self.traces = TraceCache()  # `pypto/passTrace`, used on the analysis worker
        self.indexed: asyncio.Task[None] | None = None
        self._showing_diagnostics: set[str] = set()  # URIs published to since their last clear
        self._published = PublishedDiagnostics(default_converter())  # (the converter pygls serves with)
        self.initialized_seen = False
        self.protocol.on_change = self.document_changed

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve stdin/stdout until `exit` or end of input, reading frames with `framing`
        (pygls's loop is deafened by one malformed frame)."""
        self._stop_event = threading.Event()
        reader = BufferedStdinReader(stdin or sys.stdin.buffer, self.thread_pool)
        self._reading(reader)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        self._serve(serve_frames(self._stop_event, reader, self.protocol))

    def start_tcp(self, host: str, port: int) -> None:
        """Serve the first client that connects to host:port until it goes; refuse the others
        (`tcp.py`: pygls's own `start_tcp` let a second connection take the first one over)."""
        self._stop_event = threading.Event()
        self._serve(serve_first_client(host, port, self._stop_event, self.protocol, self._reading))

    def _reading(self, reader: BufferedReader) -> None:
        """The client's frames are read by `reader`: the scheduler holds analyses back while
        it has input pending (a burst's newer versions)."""
        self.scheduler.input = reader

    def _serve(self, serving: Coroutine[Any, Any, None]) -> None:
        sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)
        try:
            asyncio.run(serving)
        except BrokenPipeError:
            log.error("the client's end of the connection is closed; stopping")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    # -- helpers used by handlers ---------------------------------------------------------

    def _open_text(self, uri: str) -> str | None:
        """An open document's current text (read by the analysis worker: one attribute read)."""
        session = self.scheduler.session(uri)
        return session.text if session is not None else None

    def _is_open(self, uri: str) -> bool:
        """Whether `uri` is an open document (also read by the analysis worker: one dict look-up)."""
        return self.scheduler.session(uri) is not None

    def document_changed(self, uri: str, version: int, source: TextSource) -> None:
        """After a `didChange` was applied to the document (`PyptoProtocol` calls it directly
        for a well-formed one): analyse it and what imports it."""
        if self.scheduler.session(uri) is None and is_outlined_uri(uri):  # (never has a session)
            return
        self.scheduler.change(uri, version, source)
        self.reanalyse_dependents(self.dependencies.dependents_of_uri(uri))

    def reanalyse_dependents(self, uris_: Iterable[str]) -> None:
        for uri in uris_:
            self.scheduler.reanalyse(uri)

    def workspace_folders(self) -> list[Path]:
        """The workspace folders (else the root) that are absolute paths: a relative one would
        be the server's working directory, which the user never named (issue 15)."""
        folders = [Path(p) for f in self.workspace.folders.values() if (p := uris.to_fs_path(f.uri))]
        if not folders and self.workspace.root_path:
            folders = [Path(self.workspace.root_path)]
        return [f for f in folders if f.is_absolute()]

    async def watch_python_files(self) -> None:
        """Ask the client to report changes of `**/*.py` on disk (when it can register that
        dynamically): an imported module may change outside the editor."""
        if not self.supports("workspace", "did_change_watched_files", "dynamic_registration"):
            return
        watcher = types.FileSystemWatcher(glob_pattern="**/*.py")
        registration = types.Registration(
            id=str(uuid.uuid4()),
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=[watcher]),
        )
        try:
            await self.client_register_capability_async(
                types.RegistrationParams(registrations=[registration])
            )
        except Exception as error:  # a client may refuse: imports are then re-read on open/edit
            log.warning("could not register for file changes: %s", error)

    async def files_changed(self, params: types.DidChangeWatchedFilesParams) -> None:
        paths = [Path(p) for c in params.changes if (p := uris.to_fs_path(c.uri)) and Path(p).is_absolute()]
        await self.scheduler.run(self.dependencies.files_changed, paths)
        for change in params.changes:
            path = self.servable_path(change.uri)
            if path is not None and change.type is types.FileChangeType.Created and path.suffix == ".py":
                self.index.files.add(path)
            elif path is not None and change.type is types.FileChangeType.Deleted:
                self.index.files.discard(path)
        if any(change.type is not types.FileChangeType.Changed for change in params.changes):
            dependents = [session.uri for session in self.scheduler.sessions()]  # may resolve now
        else:
            dependents = self.dependencies.dependents(paths)
        self.reanalyse_dependents(dependents)

    def live(self, uri: str, position: types.Position) -> LiveText | None:
        """For features answered while typing (completion, signature help): the document's
        current lines and the cursor, with its newest analyses. Never waits for an analysis."""
        session = None if is_outlined_uri(uri) else self.scheduler.session(uri)
        if session is None:
            return None
        lines = session.lines
        mapper = PositionMapper(self.workspace.position_codec, lines)
        line, col = mapper.to_core(position)
        return LiveText(session.latest, session.complete, lines, mapper, line, col)

    async def semantic_tokens(self, uri: str) -> tuple[str, list[int]] | None:
        """The document's tokens with a fresh result id, remembered in its session for the
        next delta request; None when they are off or the document is not open."""
        if not self.settings.semantic_tokens_enable:
            return None
        snapshot = await self.open_snapshot(uri)
        session = self.scheduler.session(uri)
        if snapshot is None or session is None:
            return None
        found = (str(uuid.uuid4()), token_data(snapshot, self.mapper(snapshot)))
        session.semantic_tokens = found
        return found

    def mapper(self, snapshot: Snapshot) -> PositionMapper:
        return snapshot.mapper(self.workspace.position_codec)

    async def snapshot(self, uri: str) -> Snapshot | None:
        """The analysis of an open document's current version, or of a file on disk under the
        workspace folders or extra paths (nothing else is read: issue 15)."""
        uri = source_uri(uri)
        if self.scheduler.session(uri) is not None:
            return await self.scheduler.snapshot(uri)
        path = self.servable_path(uri)
        if path is None:
            log.warning("not serving %s: not an open document nor a file under the workspace", uri)
            return None
        read = await self.scheduler.run(_read_text, path)  # on the worker: never the event loop
        if read is None:
            return None
        analysis = await self.scheduler.run(analyse_source, read, str(path))
        return Snapshot(uri, -1, read, split_lines(read), analysis)

    def servable_path(self, uri: str) -> Path | None:
        """The file a `file:` URI names when it lies under a workspace folder or an extra path
        (symlinks and `..` resolved first), else None."""
        raw = uris.to_fs_path(uri)
        if not raw or not Path(raw).is_absolute():
            return None
        path = resolve_within_deadline(Path(raw))  # (a hung mount would block the event loop)
        roots = (*self.dependencies.roots, *self.dependencies.extra)
        return path if any(path.is_relative_to(root) for root in roots) else None

    async def open_snapshot(self, uri: str) -> Snapshot | None:
        """The analysis of an open source document (None for the outlined-program document,
        whose positions are not the source's)."""
        if is_outlined_uri(uri):
            return None
        return await self.scheduler.snapshot(uri)

    async def outlined_text(self, snapshot: Snapshot, raw: bool | None = None) -> str:
        """The Outlined Program document's text, with the IR's names when `raw` (by default
        when the `outlinedProgram.rawNames` setting says so)."""
        if raw is None:
            raw = self.settings.outlined_raw_names
        return await self.scheduler.run(partial(outlined_program_text, raw=raw), snapshot.analysis)

    def spawn(self, coroutine: Any) -> None:
        """Run background work, keeping a reference so the task is not collected mid-flight."""
        task = asyncio.ensure_future(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def resolves_documentation(self) -> bool:
        """Whether the client asks `completionItem/resolve` for an item's documentation."""
        value: Any = self.client_capabilities
        for name in ("text_document", "completion", "completion_item", "resolve_support"):
            value = getattr(value, name, None)
        return "documentation" in (getattr(value, "properties", None) or [])

    def supports(self, *path: str) -> bool:
        """Whether the client declared the capability at `path`, e.g. ("workspace", "configuration")."""
        value: Any = self.client_capabilities
        for name in path:
            value = getattr(value, name, None)
        return bool(value)

    # -- diagnostics ----------------------------------------------------------------------

    def _on_analysed(self, session: DocumentSession, snapshot: Snapshot) -> None:
        if snapshot.failure is not None:
            message = f"analysis of {snapshot.uri} failed:\n{snapshot.failure}"
            self.log_to_client(types.MessageType.Error, message)
            return
        if self.settings.diagnostics_enable:
            self.publish(snapshot)

    def publish(self, snapshot: Snapshot) -> None:
        params = self._published.params(
            snapshot.uri,
            snapshot.version,
            snapshot.analysis.diagnostics,
            self.mapper(snapshot),
            snapshot.lines_of,
            self.settings.diagnostics_docs_url,
        )
        self._showing_diagnostics.add(snapshot.uri)
        self.protocol.notify_json_text(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, params.json())

    def clear_diagnostics(self, uri: str) -> None:
        self._showing_diagnostics.discard(uri)
        self._published.forget(uri)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    # -- settings -------------------------------------------------------------------------

    def apply_settings(self, settings: Settings) -> None:
        previous, self.settings = self.settings, settings
        if previous == settings:
            return
        log.info("settings: %s", settings)
        if previous.extra_paths != settings.extra_paths:
            self.set_search_path()
        if previous.extra_paths != settings.extra_paths or previous.splice_budget != settings.splice_budget:
            self.reanalyse_dependents([session.uri for session in self.scheduler.sessions()])
        relink = (
            previous.diagnostics_docs_url != settings.diagnostics_docs_url and settings.diagnostics_enable
        )
        if previous.diagnostics_enable != settings.diagnostics_enable or relink:
            for session in self.scheduler.sessions():
                current = session.current_snapshot()
                if settings.diagnostics_enable and current is not None:
                    self.publish(current)
                elif not settings.diagnostics_enable and session.uri in self._showing_diagnostics:
                    self.clear_diagnostics(session.uri)
        if previous.code_lens_enable != settings.code_lens_enable and self.supports(
            "workspace", "code_lens", "refresh_support"
        ):
            self.workspace_code_lens_refresh(None).add_done_callback(_log_failure)
        if previous.inlay_hints_enable != settings.inlay_hints_enable and self.supports(
            "workspace", "inlay_hint", "refresh_support"
        ):
            self.workspace_inlay_hint_refresh(None).add_done_callback(_log_failure)
        if previous.semantic_tokens_enable != settings.semantic_tokens_enable and self.supports(
            "workspace", "semantic_tokens", "refresh_support"
        ):
            self.workspace_semantic_tokens_refresh(None).add_done_callback(_log_failure)

    async def pull_settings(self) -> None:
        """Ask the client for the `pypto` section and overlay it on the initialisation options.
        A client that does not answer in time must not stall analysis: the answer is then
        applied whenever it comes."""
        if not self.supports("workspace", "configuration"):
            return
        request = asyncio.ensure_future(
            self.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=CONFIGURATION_SECTION)])
            )
        )
        await asyncio.wait({request}, timeout=CONFIGURATION_TIMEOUT_SECONDS)
        if request.done():
            self._apply_pulled(request)
        else:
            log.warning("no answer to workspace/configuration yet; using the initialisation options")
            request.add_done_callback(self._apply_pulled)

    def _apply_pulled(self, request: asyncio.Future[Any]) -> None:
        if request.cancelled() or request.exception() is not None:
            log.error(
                "workspace/configuration failed: %r", None if request.cancelled() else request.exception()
            )
            return
        result = request.result()
        self.apply_settings(self.initial_settings.overlaid(result[0] if result else None))

    # -- workspace index ------------------------------------------------------------------

    def set_search_path(self) -> None:
        """Workspace folders, then `pypto.analysis.extraPaths` (relative ones from the first
        folder; with no folder they are ignored). Read by the worker at its next analysis."""
        folders = self.workspace_folders()
        self.dependencies.roots = tuple(f.resolve() for f in folders)
        extra = [Path(p).expanduser() for p in self.settings.extra_paths]
        if not folders and any(not p.is_absolute() for p in extra):
            # never the server's working directory: it is not a root the user named (issue 15)
            log.warning("relative pypto.analysis.extraPaths ignored: there is no workspace folder")
        self.dependencies.extra = tuple(
            (p if p.is_absolute() else folders[0] / p).resolve() for p in extra if p.is_absolute() or folders
        )

    async def index_workspace(self) -> None:
        try:
            await self._index_folders()
        finally:
            self.index.listed.set()  # also with no folder, or a failure before the walk

    async def _index_folders(self) -> None:
        folders = self.workspace_folders()
        if not folders:
            return
        token = str(uuid.uuid4())
        progress = self.supports("window", "work_done_progress")
        if progress:
            await self.work_done_progress.create_async(token)
            begin = types.WorkDoneProgressBegin(title="Indexing PyPTO files", percentage=0)
            self.work_done_progress.begin(token, begin)

        def report(done: int, total: int, name: str) -> None:
            if progress:
                self.work_done_progress.report(
                    token, types.WorkDoneProgressReport(message=name, percentage=done * 100 // max(total, 1))
                )

        codec = self.workspace.position_codec
        count = await self.index.index_folders(folders, codec, report)
        if progress:
            self.work_done_progress.end(token, types.WorkDoneProgressEnd(message=f"{count} DSL files"))

    async def symbol_entries(self) -> list[SymbolEntry]:
        """Open documents from their live analysis, every other DSL file from the index."""
        if self.indexed is not None:
            await asyncio.shield(self.indexed)
        entries = []
        open_uris = set()
        for session in self.scheduler.sessions():
            snapshot = await self.scheduler.snapshot(session.uri)
            if snapshot is not None:
                open_uris.add(snapshot.uri)
                entries += symbol_entries(snapshot.uri, snapshot.analysis, self.mapper(snapshot))
        return entries + self.index.entries(excluding=open_uris)

    # -- errors ---------------------------------------------------------------------------

    def log_to_client(self, kind: types.MessageType, message: str) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def announce(self) -> None:
        """Which copy of the server answers (the client's log), and, once per process, that
        quick fixes are off when libcst cannot be loaded (a message the user sees)."""
        self.log_to_client(types.MessageType.Info, start_line())
        off = quick_fixes_off_message()
        if off is not None:
            self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=off))

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log every handler failure with its traceback (stderr and the client's log); the
        failing request itself is answered with an error by pygls, and serving goes on."""
        text = _traceback_text(error)
        log.error("%s:\n%s", getattr(source, "__name__", source), text)
        try:
            self.log_to_client(types.MessageType.Error, f"pypto-lsp internal error:\n{text}")
        except Exception:
            log.exception("could not send the error to the client")


def _traceback_text(error: Exception) -> str:
    """The traceback of the handler's exception: pygls wraps it in a JsonRpcInternalError that
    keeps the original frames in `data`."""
    data = getattr(error, "data", None)
    if isinstance(data, dict) and data.get("traceback"):
        return "Traceback (most recent call last):\n" + "".join(data["traceback"]) + str(error)
    return "".join(traceback.format_exception(type(error), error, error.__traceback__))


def _read_text(path: Path) -> str | None:
    """A regular file's text (a FIFO or a device is refused unopened), None if it cannot be read."""
    try:
        return read_regular_file(path).decode("utf-8")
    except (NotReadable, UnicodeDecodeError):
        return None


def _source(ls: PyptoLanguageServer, uri: str) -> TextSource:
    """Where a document's current version is read (made when an analysis or a request reads it)."""
    document = ls.workspace.get_text_document(uri)
    return document if isinstance(document, LspTextDocument) else FixedText(document.source)


def _optional_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _log_failure(request: Any) -> None:
    """Done-callback for requests to the client whose answer does not matter."""
    if not request.cancelled() and request.exception() is not None:
        log.warning("client request failed: %s", request.exception())


class _OrdinaryCancels(logging.Filter):
    """Drops pygls's warning for a `$/cancelRequest` whose request has already been answered:
    clients cancel lenses and hovers as the user types, and a cancel that arrives after the
    answer is the ordinary case, not a problem (VS Code showed it as an error, 7 lines in 13)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Cancel notification for unknown message id")


ORDINARY_CANCELS = _OrdinaryCancels()


def _ready_without_initialized(ls: PyptoLanguageServer) -> None:
    if not ls.initialized_seen:
        log.warning(
            "no initialized notification %.0f s after initialize: serving anyway", INITIALIZED_GRACE_SECONDS
        )
        ls.scheduler.ready.set()


def create_server() -> PyptoLanguageServer:
    logging.getLogger("pygls.protocol.json_rpc").addFilter(ORDINARY_CANCELS)
    server = PyptoLanguageServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: PyptoLanguageServer, params: types.InitializeParams) -> None:
        ls.protocol._workspace = lsp_workspace(ls.workspace, types.TextDocumentSyncKind.Incremental)
        ls.initial_settings = Settings().overlaid(params.initialization_options)
        ls.settings = ls.initial_settings
        asyncio.get_running_loop().call_later(INITIALIZED_GRACE_SECONDS, _ready_without_initialized, ls)
        ls.set_search_path()

    @server.feature(types.INITIALIZED)
    async def initialized(ls: PyptoLanguageServer, params: types.InitializedParams) -> None:
        ls.initialized_seen = True
        ls.announce()
        ls.indexed = asyncio.ensure_future(ls.index_workspace())
        ls.spawn(ls.watch_python_files())
        await ls.pull_settings()
        ls.scheduler.ready.set()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: PyptoLanguageServer, params: types.DidChangeConfigurationParams) -> None:
        if ls.supports("workspace", "configuration"):
            ls.spawn(ls.pull_settings())
        else:
            ls.apply_settings(ls.initial_settings.overlaid(params.settings))

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: PyptoLanguageServer, params: None) -> None:
        ls.scheduler.shutdown()

    # -- text sync ------------------------------------------------------------------------

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PyptoLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        document = params.text_document
        if is_outlined_uri(document.uri):
            return  # our own output, shown read-only: nothing to analyse
        ls.dependencies.opened(document.uri)
        ls.scheduler.open(document.uri, document.version, _source(ls, document.uri))
        ls.reanalyse_dependents(ls.dependencies.dependents_of_uri(document.uri))  # open wins over disk

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PyptoLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.document_changed(uri, params.text_document.version, _source(ls, uri))

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PyptoLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        if is_outlined_uri(uri):
            return
        ls.scheduler.close(uri)
        ls.traces.forget(uri)
        ls.clear_diagnostics(uri)
        dependents = ls.dependencies.dependents_of_uri(uri)  # they read the disk's text again
        ls.dependencies.closed(uri)
        ls.reanalyse_dependents(dependents)
        path = ls.servable_path(uri)
        if path is not None:
            ls.spawn(ls.index.index_file(path, ls.workspace.position_codec))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def did_change_watched_files(
        ls: PyptoLanguageServer, params: types.DidChangeWatchedFilesParams
    ) -> None:
        await ls.files_changed(params)

    # -- features -------------------------------------------------------------------------

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=True))
    async def code_lens(ls: PyptoLanguageServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        if not ls.settings.code_lens_enable:
            return []
        snapshot = await ls.open_snapshot(params.text_document.uri)
        if snapshot is None:
            return []
        mapper = ls.mapper(snapshot)
        lenses = code_lenses(snapshot, mapper) + helper_lenses(snapshot, mapper)
        if ls.settings.code_lens_pass_trace:
            lenses += program_lenses(snapshot, mapper)
        return lenses

    @server.feature(types.CODE_LENS_RESOLVE)
    async def code_lens_resolve(ls: PyptoLanguageServer, lens: types.CodeLens) -> types.CodeLens:
        found = helper_of(lens)
        if found is None:
            return lens
        if ls.indexed is not None:
            await ls.index.listed.wait()  # the workspace's files (their analyses are not needed)
        sites = await ls.scheduler.run(ls.dependencies.callers_of, *found, sorted(ls.index.files))
        codec = ls.workspace.position_codec
        callers = ls.dependencies.callers
        return resolved_helper_lens(lens, sites, lambda path: PositionMapper(codec, callers.lines(path)))

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: PyptoLanguageServer, params: types.HoverParams) -> types.Hover | None:
        snapshot = await ls.open_snapshot(params.text_document.uri)
        return None if snapshot is None else hover(snapshot, ls.mapper(snapshot), params.position)

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    async def on_prepare_rename(
        ls: PyptoLanguageServer, params: types.PrepareRenameParams
    ) -> types.PrepareRenamePlaceholder | None:
        snapshot = await ls.open_snapshot(params.text_document.uri)
        return None if snapshot is None else prepare_rename(snapshot, ls.mapper(snapshot), params.position)

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    async def on_rename(ls: PyptoLanguageServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
        snapshot = await ls.open_snapshot(params.text_document.uri)
        if snapshot is None:
            return None
        target = target_at(snapshot, *ls.mapper(snapshot).to_core(params.position))
        if target is None:
            raise JsonRpcInvalidParams(
                "only a program function or a name_hint / pl.graph name can be renamed"
            )
        if not valid_name(params.new_name):
            raise JsonRpcInvalidParams(f"'{params.new_name}' is not a Python identifier")
        others: list[tuple[str, str]] = []
        if target.module_level:
            others = await ls.scheduler.run(python_files, ls.workspace_folders(), ls._open_text)
            listed = {uri for uri, _ in others}
            others += [(s.uri, s.text) for s in ls.scheduler.sessions() if s.uri not in listed]
        return workspace_edit(snapshot, ls.workspace.position_codec, target, params.new_name, others)

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
    async def on_document_highlight(
        ls: PyptoLanguageServer, params: types.DocumentHighlightParams
    ) -> list[types.DocumentHighlight] | None:
        snapshot = await ls.open_snapshot(params.text_document.uri)
        return (
            None if snapshot is None else document_highlights(snapshot, ls.mapper(snapshot), params.position)
        )

    @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
    async def on_semantic_tokens(
        ls: PyptoLanguageServer, params: types.SemanticTokensParams
    ) -> types.SemanticTokens | None:
        found = await ls.semantic_tokens(params.text_document.uri)
        return None if found is None else types.SemanticTokens(data=found[1], result_id=found[0])

    @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA, LEGEND)
    async def on_semantic_tokens_delta(
        ls: PyptoLanguageServer, params: types.SemanticTokensDeltaParams
    ) -> types.SemanticTokens | types.SemanticTokensDelta | None:
        session = ls.scheduler.session(params.text_document.uri)
        previous = session.semantic_tokens if session is not None else None
        found = await ls.semantic_tokens(params.text_document.uri)
        if found is None:
            return None
        if previous is None or previous[0] != params.previous_result_id:
            return types.SemanticTokens(data=found[1], result_id=found[0])
        return types.SemanticTokensDelta(edits=data_edits(previous[1], found[1]), result_id=found[0])

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=[".", "(", ",", "="], resolve_provider=True),
    )
    def on_completion(ls: PyptoLanguageServer, params: types.CompletionParams) -> types.CompletionList | None:
        live = ls.live(params.text_document.uri, params.position)
        return None if live is None else completion(live, ls.resolves_documentation())

    @server.feature(types.COMPLETION_ITEM_RESOLVE)
    def on_completion_resolve(ls: PyptoLanguageServer, item: types.CompletionItem) -> types.CompletionItem:
        return resolve_completion(item)

    @server.feature(
        types.TEXT_DOCUMENT_SIGNATURE_HELP,
        types.SignatureHelpOptions(trigger_characters=["(", ","], retrigger_characters=[",", "="]),
    )
    def on_signature_help(
        ls: PyptoLanguageServer, params: types.SignatureHelpParams
    ) -> types.SignatureHelp | None:
        live = ls.live(params.text_document.uri, params.position)
        return None if live is None else signature_help(live)

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def on_document_symbol(
        ls: PyptoLanguageServer, params: types.DocumentSymbolParams
    ) -> list[types.DocumentSymbol]:
        snapshot = await ls.open_snapshot(params.text_document.uri)
        return [] if snapshot is None else document_symbols(snapshot.analysis, ls.mapper(snapshot))

    @server.feature(types.WORKSPACE_SYMBOL)
    async def on_workspace_symbol(
        ls: PyptoLanguageServer, params: types.WorkspaceSymbolParams
    ) -> list[types.SymbolInformation]:
        return workspace_symbols(params.query, await ls.symbol_entries())

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    async def on_definition(ls: PyptoLanguageServer, params: types.DefinitionParams) -> types.Location | None:
        uri = params.text_document.uri
        snapshot = await ls.snapshot(uri)
        if snapshot is None:
            return None
        if not is_outlined_uri(uri):
            return definition(snapshot, ls.mapper(snapshot), params.position)
        text = await ls.outlined_text(snapshot)
        lines = split_lines(text)
        line, col = PositionMapper(ls.workspace.position_codec, lines).to_core(params.position)
        return definition_from_outlined(snapshot, ls.mapper(snapshot), text, lines, line, col)

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    async def on_references(ls: PyptoLanguageServer, params: types.ReferenceParams) -> list[types.Location]:
        snapshot = await ls.open_snapshot(params.text_document.uri)
        if snapshot is None:
            return []
        return references(snapshot, ls.mapper(snapshot), params.position, params.context.include_declaration)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix], resolve_provider=False),
    )
    async def on_code_action(
        ls: PyptoLanguageServer, params: types.CodeActionParams
    ) -> list[types.CodeAction]:
        snapshot = await ls.open_snapshot(params.text_document.uri)
        if snapshot is None:
            return []
        return code_actions(
            snapshot,
            ls.mapper(snapshot),
            params.range,
            params.context.only,
            ls.supports("workspace", "workspace_edit", "document_changes"),
        )

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    async def on_inlay_hint(ls: PyptoLanguageServer, params: types.InlayHintParams) -> list[types.InlayHint]:
        if not ls.settings.inlay_hints_enable:
            return []
        snapshot = await ls.open_snapshot(params.text_document.uri)
        return [] if snapshot is None else inlay_hints(snapshot, ls.mapper(snapshot), params.range)

    @server.feature(OUTLINED_PROGRAM_REQUEST)
    async def outlined_program(ls: PyptoLanguageServer, params: Any) -> dict[str, Any]:
        snapshot = await ls.snapshot(params.uri)
        if snapshot is None:
            return {"text": ""}
        # a client may say which names it wants (VS Code does, so a changed setting shows at
        # once instead of after the server has pulled it)
        raw = getattr(params, "rawNames", None)
        printed = await ls.outlined_text(snapshot, raw if isinstance(raw, bool) else None)
        result: dict[str, Any] = {"text": document_text(snapshot.analysis, printed)}
        position = getattr(params, "position", None)  # the cursor: open the document there
        if position is not None:
            at = types.Position(line=int(position.line), character=int(position.character))
            found = function_under(snapshot, *ls.mapper(snapshot).to_core(at))
            selection = selection_in(printed, *found, ls.workspace.position_codec) if found else None
            if selection is not None:
                result["selection"] = selection
        return result

    @server.feature(PASS_TRACE_REQUEST)
    async def pass_trace(ls: PyptoLanguageServer, params: Any) -> dict[str, Any]:
        snapshot = await ls.snapshot(params.uri)
        if snapshot is None:
            return {"programs": []}
        position = getattr(params, "position", None)
        at = None if position is None else types.Position(int(position.line), int(position.character))
        raw = getattr(params, "rawNames", None)
        stages = getattr(params, "stages", None)
        job = partial(
            trace_result,
            snapshot,
            ls.mapper(snapshot),
            ls.traces,
            stages=[s for s in stages if isinstance(s, str)] if isinstance(stages, list) else None,
            program=_optional_str(getattr(params, "program", None)),
            function=_optional_str(getattr(params, "function", None)),
            position=at,
            raw=raw if isinstance(raw, bool) else ls.settings.outlined_raw_names,
        )
        return await ls.scheduler.run(job)

    @server.command(SHOW_OUTLINED_FUNCTION)
    async def show_outlined_function(ls: PyptoLanguageServer, uri: str, name: str) -> dict[str, Any] | None:
        snapshot = await ls.snapshot(uri)
        if snapshot is None:
            return None
        text = await ls.outlined_text(snapshot)
        target = outlined_function(snapshot, name, text, ls.workspace.position_codec)
        if target is None:
            return None
        if ls.supports("window", "show_document", "support"):
            await ls.window_show_document_async(
                types.ShowDocumentParams(uri=target.uri, take_focus=True, selection=target.selection)
            )
        return target.as_json()

    return server
