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

from .text_sync import Edit, LspTextDocument

log = logging.getLogger(__name__)

_INT_MIN, _INT_MAX, _UINT_MAX = -(2**31), 2**31 - 1, 2**31 - 1  # the LSP's integer, uinteger

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

    @property
    def exit_status(self) -> int:
        """The process's exit status: 0 after a `shutdown` request, 1 otherwise."""
        return 0 if self._shutdown else 1

    # -- frames -----------------------------------------------------------------------------

    def handle_frame(self, body: bytes) -> None:
        """One frame's body: parsed, checked, and handled or answered with an error."""
        try:
            raw = _parse_json(body)
        except (ValueError, RecursionError) as exc:  # bad JSON, bad UTF-8, a 5,000-digit number
            log.warning("could not parse a message (%s): %r", exc, body[:200])
            self._send_error(None, PARSE_ERROR, f"the message is not valid JSON: {exc}")
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
        if raw.get("method") == types.TEXT_DOCUMENT_DID_CHANGE and "id" not in raw:
            change = decode_did_change(raw.get("params"))
            if change is not None and self._fast_did_change(*change):
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

    def _fast_did_change(self, uri: str, version: int, edits: list[Edit]) -> bool:
        """A well-formed `didChange` of an open document, applied without lsprotocol's
        structuring (a fifth of what each change of a 5,000-change burst cost, issue 15) and
        handed to the server's `on_change`. False: take the generic path (which answers what
        is odd about the message as before)."""
        refusal = self._refusal(types.TEXT_DOCUMENT_DID_CHANGE)
        if refusal is not None:
            log.warning("dropped %s: %s", types.TEXT_DOCUMENT_DID_CHANGE, refusal[1])
            return True
        document = self.workspace.text_documents.get(unquote(uri))
        changed = self.on_change
        if (
            not isinstance(document, LspTextDocument)
            or not document._is_sync_kind_incremental
            or changed is None
        ):
            return False
        try:
            document.apply_edits(edits)
            document.version = version
            changed(uri, version, document)
        except Exception:
            self._report_failure()
        return True

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
