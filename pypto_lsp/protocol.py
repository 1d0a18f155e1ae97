"""pygls's LSP protocol, made to answer every request it can identify (issue 15).

pygls 2.1.1 leaves these unanswered, so a client waits for ever: a message whose params do not
fit the method's type (the exception escaped the read loop), a `"jsonrpc"` member other than
"2.0" (logged and dropped, or an AttributeError when missing), anything after `shutdown`
(dropped; the LSP says InvalidRequest), a second `shutdown`. It also accepted a second
`initialize`, which rebuilt the workspace and silently dropped every open document. Here every
request gets a response: parse errors and refused frames get one with a null id (JSON-RPC 2.0,
§5.1), the rest one with the request's id, and the lifecycle rules are the LSP's:
ServerNotInitialized before `initialize`, InvalidRequest for a second `initialize` (nothing
changes) and after `shutdown`. The exit status follows the LSP: 0 after `shutdown`, else 1.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import FeatureNotificationError, JsonRpcException, JsonRpcInternalError
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import RPCRequest

from .change_template import ChangeTemplate
from .text_sync import Edit, LspTextDocument

log = logging.getLogger(__name__)

_INT_MIN, _INT_MAX, _UINT_MAX = -(2**31), 2**31 - 1, 2**31 - 1  # the LSP's integer, uinteger

# A `didChange` that starts or continues a run with at least this many frames after it in the
# same batch is made the template the following ones are decoded by (`change_template`).
TEMPLATE_AFTER = 16

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
SERVER_NOT_INITIALIZED = -32002


class PyptoProtocol(LanguageServerProtocol):
    """`LanguageServerProtocol` plus the checks above; frames come from `framing.serve_frames`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._initialize_seen = False
        # What a `didChange` applied on the fast path is handed to: (uri, version, document),
        # after its changes were applied to the document (the server's `document_changed`).
        self.on_change: Callable[[str, int, LspTextDocument], None] | None = None
        self._template: ChangeTemplate | None = None  # the shape of the last burst's changes

    @property
    def exit_status(self) -> int:
        """The process's exit status: 0 after a `shutdown` request, 1 otherwise."""
        return 0 if self._shutdown else 1

    # -- frames -----------------------------------------------------------------------------

    def handle_frames(self, bodies: list[bytes]) -> None:
        """Frames' bodies in the order they came. A run of well-formed `didChange`
        notifications of one open document among them (a burst: thousands in one write) is
        applied to the document in one go and handed to the server once, with the run's last
        version (per change that was a fifth of the burst's cost in scheduling and dispatch,
        issue 15), the bodies after a run's first decoded by its template (`change_template`:
        JSON parsing was two thirds of the rest). Any other message, a malformed one included,
        ends the run first, so it is handled with the text as of its place in the stream (a
        request that waits for an analysis is answered from the version current when it is
        answered, as before). Nothing else can look at the document between two changes of a
        run: the frames are handled on the event loop without yielding to it."""
        run: _ChangeRun | None = None
        template, rebuilt = self._template, False
        index, count = 0, len(bodies)
        while index < count:
            if run is not None and template is not None and template.uri == run.uri:
                taken, version = template.decode_run(bodies, index, run.edits)
                if taken:
                    run.version = version
                    index += taken
                    continue
            body = bodies[index]
            index += 1
            try:
                raw: Any = _parse_json(body)
            except (ValueError, RecursionError) as exc:  # bad JSON, bad UTF-8, a 5,000-digit number
                raw = exc
            change = None if isinstance(raw, Exception) else self._run_change(raw)
            if change is not None:
                uri, version, edits = change
                if run is None or run.uri != uri:
                    if run is not None:
                        self._apply_run(run)
                    run = self._start_run(uri)
                if run is not None:
                    run.version = version
                    run.edits += edits
                    if not rebuilt and count - index >= TEMPLATE_AFTER:
                        rebuilt = True  # (at most once a batch: a shape the template cannot take)
                        if template is None or template.uri != uri or template.decode(body) is None:
                            template = self._template = ChangeTemplate.of(body, raw, uri) or template
                    continue
            elif run is not None:
                self._apply_run(run)
                run = None
            self._handle_parsed(body, raw)
        if run is not None:
            self._apply_run(run)

    def _handle_parsed(self, body: bytes, raw: Any) -> None:
        """One frame's body (parsed, or the parse's error): checked, and handled or answered
        with an error."""
        if isinstance(raw, Exception):
            log.warning("could not parse a message (%s): %r", raw, body[:200])
            self._send_error(None, PARSE_ERROR, f"the message is not valid JSON: {raw}")
            return
        if not isinstance(raw, dict):
            self._send_error(
                None, INVALID_REQUEST, "a message must be a JSON object (batches are not supported)"
            )
            return
        request_id = raw.get("id")
        known_id = isinstance(request_id, int | str) and not isinstance(request_id, bool)
        problem = _invalid(raw, known_id)
        if problem is not None:
            log.warning("invalid message (%s): %r", problem, body[:200])
            if "method" in raw or "id" in raw:  # a response-less notification is only logged
                self._send_error(request_id if known_id else None, INVALID_REQUEST, problem)
            return
        try:
            message = self.structure_message(raw)
        except JsonRpcException as error:  # params that do not fit the method's type
            if "method" in raw and isinstance(request_id, int | str):
                self._send_response(request_id, error=error.to_response_error())
            else:
                log.warning("dropped a malformed %s notification", raw.get("method"))
            return
        self.handle_message(message)

    def refuse_frame(self, reason: str) -> None:
        log.error("refused a frame: %s", reason)
        self._send_error(None, INVALID_REQUEST, f"refused a frame: {reason}")

    # -- lifecycle --------------------------------------------------------------------------

    def handle_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if method is None or method == types.EXIT:
            super().handle_message(message)  # responses to our requests; exit is always served
            return
        refusal = self._refusal(method)
        if refusal is not None:
            if isinstance(message, RPCRequest):  # (a Protocol: a slow check, made only here)
                self._send_error(message.id, *refusal)
            else:
                log.warning("dropped %s: %s", method, refusal[1])
            return
        if method == types.INITIALIZE:
            self._initialize_seen = True
        elif isinstance(message, types.DidChangeTextDocumentNotification):
            self._did_change(message.params)
            return
        super().handle_message(message)

    def _did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        """What pygls does for a `didChange`, called directly: its built-in handler applies the
        changes, then the server's handler (synchronous) runs. pygls's own dispatch (a context
        copy, a generator, two `uuid4`s and two thread futures with their locks per message) was
        half of what each change of a 5,000-change burst cost (issue 15)."""
        try:
            for change in params.content_changes:
                self.workspace.update_text_document(params.text_document, change)
            handler = self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)
            if handler is not None:
                handler(params)
        except Exception:
            self._report_failure()

    def _run_change(self, raw: Any) -> tuple[str, int, list[Edit]] | None:
        """A well-formed `didChange` notification (its document, version and changes) that
        may be applied without lsprotocol's structuring (a fifth of what each change of a
        5,000-change burst cost, issue 15); None: take the generic path, which answers what is
        odd about the message as before (or drops it before `initialize` and after
        `shutdown`)."""
        if (
            type(raw) is not dict
            or raw.get("method") != types.TEXT_DOCUMENT_DID_CHANGE
            or "id" in raw
            or raw.get("jsonrpc") != "2.0"
            or self.on_change is None
            or self._refusal(types.TEXT_DOCUMENT_DID_CHANGE) is not None
        ):
            return None
        return decode_did_change(raw.get("params"))

    def _start_run(self, uri: str) -> _ChangeRun | None:
        """A run of changes to the document at `uri`, when it is open with incremental sync;
        None: its change takes the generic path."""
        document = self.workspace.text_documents.get(unquote(uri))
        if isinstance(document, LspTextDocument) and document._is_sync_kind_incremental:
            return _ChangeRun(uri, document)
        return None

    def _apply_run(self, run: _ChangeRun) -> None:
        """A run of one document's changes applied in order and handed to the server's
        `on_change` once, with the last version (nothing reads the versions between: they are
        never analysed, as the scheduler takes the version current when an analysis starts)."""
        changed = self.on_change
        assert changed is not None  # (`_run_change` made the run only with it set)
        try:
            run.document.apply_edits(run.edits)
            run.document.version = run.version
            changed(run.uri, run.version, run.document)
        except Exception:
            self._report_failure()

    def _report_failure(self) -> None:
        log.exception("handling a didChange failed")
        error = JsonRpcInternalError.of(sys.exc_info())
        self._server._report_server_error(error, FeatureNotificationError)

    def _refusal(self, method: str) -> tuple[int, str] | None:
        if self._shutdown:
            return INVALID_REQUEST, "the server has been shut down: only exit is accepted"
        if method == types.INITIALIZE and self._initialize_seen:
            return INVALID_REQUEST, "initialize was already received; it is sent once"
        if method != types.INITIALIZE and not self._initialize_seen:
            return SERVER_NOT_INITIALIZED, "the server is not initialized yet: send initialize first"
        return None

    def _send_error(self, request_id: Any, code: int, message: str) -> None:
        self._send_data({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})

    def notify_json_text(self, method: str, params: str) -> None:
        """A notification whose parameters are JSON text already (ASCII, as `json.dumps`
        writes it: `published.PublishParams`), framed as `_send_data` frames a message,
        without serialising the parameters again. The writers this server sets (`StdoutWriter`,
        the TCP connection's `StreamWriter`) write at once."""
        if self.writer is None:
            log.error("unable to send %s: no transport", method)
            return
        body = f'{{"jsonrpc": "2.0", "method": {json.dumps(method)}, "params": {params}}}'
        if self._include_headers:
            kind = f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}"
            body = f"Content-Length: {len(body)}\r\n{kind}\r\n\r\n{body}"
        self.writer.write(body.encode(self.CHARSET))


class _ChangeRun:
    """Consecutive `didChange` notifications of one document, not applied yet."""

    __slots__ = ("document", "edits", "uri", "version")

    def __init__(self, uri: str, document: LspTextDocument) -> None:
        self.uri, self.document = uri, document
        self.version = 0  # the last change's, set with its edits
        self.edits: list[Edit] = []


_DECODER = json.JSONDecoder()


def _parse_json(body: bytes) -> Any:
    """`json.loads(body)`: a body that starts like a UTF-8 JSON object (`{` and no zero byte,
    what `json.detect_encoding` reads as UTF-8) is decoded and scanned directly, without
    `loads`'s wrappers (a third of its cost on a 300-byte `didChange`); anything else, or any
    error or trailing data, goes through `json.loads` itself, which raises what it raises."""
    if body[:1] == b"{" and body[1:2] != b"\x00":
        try:
            text = body.decode("utf-8", "surrogatepass")
            found, end = _DECODER.raw_decode(text)
            if end == len(text):
                return found
        except ValueError:
            pass
    return json.loads(body)


def _invalid(raw: dict[str, Any], known_id: bool) -> str | None:
    """What makes `raw` no JSON-RPC 2.0 message, if anything."""
    if raw.get("jsonrpc") != "2.0":
        return 'the "jsonrpc" member must be "2.0"'
    if "method" in raw and not isinstance(raw["method"], str):
        return 'the "method" member must be a string'
    if "id" in raw and not known_id and "method" in raw:
        return 'the "id" member must be a number or a string'
    if "method" not in raw and "id" not in raw:
        return 'a message needs a "method" or an "id"'
    return None


def decode_did_change(params: Any) -> tuple[str, int, list[Edit]] | None:
    """A `didChange`'s document, version and changes when its params are exactly what the
    LSP says (JSON types, integers within their LSP ranges), without lsprotocol's generic
    structuring; None for anything else, which then takes the generic path: cattrs converts
    some odd values (a line `"2"`, a text `null` becomes `"None"`) and refuses others, and
    that behaviour is kept for them."""
    if type(params) is not dict:
        return None
    document, changes = params.get("textDocument"), params.get("contentChanges")
    if type(document) is not dict or type(changes) is not list:
        return None
    uri, version = document.get("uri"), document.get("version")
    if type(uri) is not str or type(version) is not int or not _INT_MIN <= version <= _INT_MAX:
        return None
    edits: list[Edit] = []
    for change in changes:
        if type(change) is not dict or type(text := change.get("text")) is not str:
            return None
        if "range" not in change:
            edits.append(text)
            continue
        span, length = change["range"], change.get("rangeLength")
        if type(span) is not dict or not (length is None or _is_uinteger(length)):
            return None
        start, end = span.get("start"), span.get("end")
        if type(start) is not dict or type(end) is not dict:
            return None
        try:
            numbers = (start["line"], start["character"], end["line"], end["character"])
        except KeyError:
            return None
        if not (_is_uinteger(numbers[0]) and _is_uinteger(numbers[1])):
            return None
        if not (_is_uinteger(numbers[2]) and _is_uinteger(numbers[3])):
            return None
        edits.append((*numbers, text))
    return uri, version, edits


def _is_uinteger(value: object) -> bool:
    return type(value) is int and 0 <= value <= _UINT_MAX
