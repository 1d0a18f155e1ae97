"""A run of `didChange` frames is applied in one go (issue 15: make a burst cost what its final
analysis costs) with the LSP's semantics of one change at a time: a request between two changes
sees the text as of its place in the stream, other documents' changes and full-text changes
inside a run land where they stand, a malformed frame inside a run is answered as before and the
changes after it still apply, and each document ends on the version its last change named.
Through the real server over stdio, each burst written in one piece (so the server reads it
as a few pieces holding hundreds of whole frames)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygls.workspace import PositionCodec
from server_driver import RawServer, frame
from test_adversarial import program
from test_burst import _serve_burst
from test_protocol_framing import PARSE_ERROR, _symbols

from pypto_lsp import protocol
from pypto_lsp.change_template import ChangeTemplate
from pypto_lsp.framing import READ_SIZE
from pypto_lsp.protocol import _parse_json as parse_json
from pypto_lsp.protocol import decode_did_change
from pypto_lsp.text_sync import LspTextDocument

A = "file:///tmp/pypto-lsp-tests/runs_a.py"
B = "file:///tmp/pypto-lsp-tests/runs_b.py"
TEXT = program(["x = pl.add(x, x)", "y = ", "return x"])
CLASS_LINE = TEXT.split("\n").index("class P:")  # the program's name is typed into, at column 7
BODY_LINE, BODY_COLUMN = TEXT.split("\n").index("        y = "), len("        y = ")


def _typed(uri: str, version: int, column: int, text: str) -> dict[str, Any]:
    at = {"line": CLASS_LINE, "character": column}
    change = {"range": {"start": at, "end": at}, "text": text}
    return _change(uri, version, [change])


def _change(uri: str, version: int, changes: list[dict[str, Any]]) -> dict[str, Any]:
    params = {"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}
    return {"method": "textDocument/didChange", "params": params}


async def _answers_and_publishes(
    server: RawServer, ids: set[int]
) -> tuple[dict[int | None, dict[str, Any]], dict[str, list[int]]]:
    """Every response until those with `ids` came (a null-id one under None), and the versions
    of the publishes read meanwhile, per document."""
    answers: dict[int | None, dict[str, Any]] = {}
    versions: dict[str, list[int]] = {A: [], B: []}
    while not ids <= answers.keys():
        message = await server.message()
        if message.get("method") == "textDocument/publishDiagnostics":
            versions[message["params"]["uri"]].append(message["params"]["version"])
        elif "method" not in message:
            answers[message.get("id")] = message
    return answers, versions


def _complete(class_line: str) -> str:
    """The program, its `y = ` line completed (so it parses), named by `class_line`."""
    return TEXT.replace("y = \n", "y = x\n").replace("class P:", class_line)


def _completion(request_id: int, uri: str) -> dict[str, Any]:
    position = {"line": BODY_LINE, "character": BODY_COLUMN + 3}
    params = {"textDocument": {"uri": uri}, "position": position}
    return {"id": request_id, "method": "textDocument/completion", "params": params}


def _labels(answer: dict[str, Any]) -> list[str]:
    result = answer["result"]
    items = (result or {}).get("items", []) if not isinstance(result, list) else result
    return [item["label"] for item in items]


def _program_name(answer: dict[str, Any]) -> str:
    return str(answer["result"][0]["name"])


@pytest.mark.asyncio(loop_scope="module")
async def test_requests_errors_documents_and_full_texts_inside_a_run_see_their_place() -> None:
    """Completion answers from the text as it is when the request is handled (never waiting
    for an analysis), so it shows where in the stream a request is handled: after the changes
    before it, before those after it. Requests that wait for an analysis (document symbols)
    are answered from the newest version when they are answered, as before runs."""
    server = await RawServer.start()
    await server.initialize()
    for uri in (A, B):
        server.open(uri, TEXT)
        await server.published(uri)
    stream: list[bytes] = []
    version = {A: 1, B: 1}
    column = {A: 7, B: 7}

    def typed(uri: str, text: str, times: int, line: int = CLASS_LINE) -> None:
        for _ in range(times):
            version[uri] += 1
            at = {"line": line, "character": column[uri] if line == CLASS_LINE else body_column[0]}
            change = {"range": {"start": at, "end": at}, "text": text}
            stream.append(frame(_change(uri, version[uri], [change])))
            if line == CLASS_LINE:
                column[uri] += len(text)
            else:
                body_column[0] += len(text)

    body_column = [BODY_COLUMN]
    typed(A, "a", 60)
    typed(A, "p", 1, BODY_LINE)
    typed(A, "l", 1, BODY_LINE)
    typed(A, ".", 1, BODY_LINE)
    stream.append(frame(_completion(1, A)))  # `y = pl.`: the DSL's names
    version[A] += 1  # the `pl.` replaced by `zz.` right after the request
    span = {
        "start": {"line": BODY_LINE, "character": BODY_COLUMN},
        "end": {"line": BODY_LINE, "character": BODY_COLUMN + 3},
    }
    stream.append(frame(_change(A, version[A], [{"range": span, "text": "zz."}])))
    typed(A, "b", 40)
    # a frame whose body is cut short, in the middle of the run: a parse error, and the run
    # goes on after it
    cut = b'{"jsonrpc": "2.0", "method": "textDocument/'
    stream.append(b"Content-Length: %d\r\n\r\n" % len(cut) + cut)
    stream.append(b"didChange\r\n")  # (the rest of the cut frame's bytes, skipped as garbage)
    typed(A, "c", 40)
    for _ in range(30):  # two documents' changes interleaved
        typed(B, "d", 1)
        typed(A, "e", 1)
    stream.append(frame(_completion(2, A)))  # `y = zz.`: nothing to complete
    version[A] += 1  # a full text in the middle of incremental changes
    stream.append(frame(_change(A, version[A], [{"text": _complete("class Q:")}])))
    column[A] = 7
    typed(A, "f", 50)
    version[B] += 1  # one frame holding a full text and then an incremental change
    at = {"line": CLASS_LINE, "character": 7}
    full_then_typed = [{"text": _complete("class R:")}, {"range": {"start": at, "end": at}, "text": "g"}]
    stream.append(frame(_change(B, version[B], full_then_typed)))
    stream.append(frame(_symbols(3, A)))
    stream.append(frame(_symbols(4, B)))
    server.stdin.write(b"".join(stream))
    answers, versions = await _answers_and_publishes(server, {1, 2, 3, 4})
    assert "add" in _labels(answers[1])
    assert _labels(answers[2]) == []
    assert _program_name(answers[3]) == "Q" + "f" * 50
    assert _program_name(answers[4]) == "Rg"
    assert answers[None]["error"]["code"] == PARSE_ERROR
    while versions[A][-1:] != [version[A]] or versions[B][-1:] != [version[B]]:
        message = await server.message()
        if message.get("method") == "textDocument/publishDiagnostics":
            versions[message["params"]["uri"]].append(message["params"]["version"])
    # each document ends on its last version, and never publishes one it was not sent
    assert set(versions[A]) <= set(range(1, version[A] + 1))
    assert set(versions[B]) <= set(range(1, version[B] + 1))
    server.stdin.close()
    assert await server.exit_code(within=30) == 1


@pytest.mark.asyncio(loop_scope="module")
async def test_a_stale_version_inside_a_run_is_taken_as_sent_and_odd_params_take_the_generic_path() -> None:
    """Versions are the client's: a run's last change names the document's version even when it
    is lower than one before it (as one change at a time did); a change whose params are not
    the LSP's exact shape (a line given as a string) ends the run and is converted by
    lsprotocol as before, so it still applies where it stands."""
    server = await RawServer.start()
    await server.initialize()
    server.open(A, _complete("class P:"))
    await server.published(A)
    stream = [frame(_typed(A, 100 + k, 7 + k, "a")) for k in range(40)]
    odd = _typed(A, 140, 47, "b")
    odd["params"]["contentChanges"][0]["range"]["start"]["line"] = str(CLASS_LINE)
    stream.append(frame(odd))
    stream += [frame(_typed(A, 141 + k, 48 + k, "c")) for k in range(40)]
    stream.append(frame(_typed(A, 50, 88, "d")))  # stale: lower than the versions before it
    stream.append(frame(_symbols(1, A)))
    server.stdin.write(b"".join(stream))
    answers, versions = await _answers_and_publishes(server, {1})
    assert _program_name(answers[1]) == "P" + "a" * 40 + "b" + "c" * 40 + "d"
    while versions[A][-1:] != [50]:
        message = await server.message()
        if message.get("method") == "textDocument/publishDiagnostics":
            versions[A].append(message["params"]["version"])
    server.stdin.close()
    assert await server.exit_code(within=30) == 1


# -- the template and the batched application, against the one-at-a-time path ----------------

_SEPARATORS = st.sampled_from([(", ", ": "), (",", ":")])
_NUMBER = st.sampled_from([0, 1, 9, 10, 123, 999_999_999, 1_000_000_000, 2**31 - 1, 2**31, -1, -(2**31)])
_TEXT = st.text(
    alphabet=st.sampled_from(["x", " ", "é", "😋", '"', "\\", "\n", "\x00", "\u2028", "/"]), max_size=4
)


def _body(
    version: int,
    numbers: tuple[int, int, int, int],
    text: str,
    length: int | None,
    separators: tuple[str, str],
) -> bytes:
    start = {"line": numbers[0], "character": numbers[1]}
    change: dict[str, Any] = {"range": {"start": start, "end": {"line": numbers[2], "character": numbers[3]}}}
    if length is not None:
        change["rangeLength"] = length
    change["text"] = text
    params = {"textDocument": {"uri": A, "version": version}, "contentChanges": [change]}
    message = {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": params}
    return json.dumps(message, separators=separators).encode()


@settings(max_examples=300)
@given(
    separators=_SEPARATORS,
    length=st.none() | st.just(0),
    version=_NUMBER,
    numbers=st.tuples(_NUMBER, _NUMBER, _NUMBER, _NUMBER),
    text=_TEXT,
    ascii_only=st.booleans(),
    damage=st.none() | st.tuples(st.integers(0, 400), st.integers(0, 255)),
)
def test_a_body_the_template_decodes_is_what_json_and_decode_did_change_make_of_it(
    separators: tuple[str, str],
    length: int | None,
    version: int,
    numbers: tuple[int, int, int, int],
    text: str,
    ascii_only: bool,
    damage: tuple[int, int] | None,
) -> None:
    first = _body(1, (2, 7, 2, 7), "x", length, separators)
    template = ChangeTemplate.of(first, json.loads(first), A)
    assert template is not None
    body = json.dumps(
        json.loads(_body(version, numbers, text, length, separators)),
        separators=separators,
        ensure_ascii=ascii_only,
    ).encode("utf-8", "surrogatepass")
    if damage is not None and damage[0] < len(body):
        body = body[: damage[0]] + bytes([damage[1]]) + body[damage[0] + 1 :]
    decoded = template.decode(body)
    try:
        expected = decode_did_change(json.loads(body)["params"])
    except (ValueError, KeyError, TypeError):
        expected = None
    if damage is None and min(numbers) >= 0 and max(numbers) < 10**9 and abs(version) < 10**9:
        assert decoded is not None  # a body of the template's shape is decoded by it
    if decoded is not None:
        assert expected is not None and expected[0] == A and len(expected[2]) == 1
        assert decoded == (expected[1], expected[2][0])


def test_a_template_is_not_made_where_a_value_it_would_take_is_named_twice() -> None:
    body = _body(1, (2, 7, 2, 7), "x", None, (", ", ": "))
    doubled = body.replace(b'"text": "x"', b'"text": "x", "text": "y"')
    assert ChangeTemplate.of(doubled, json.loads(doubled), A) is None


_EDIT = st.one_of(
    st.tuples(
        st.just(1), st.integers(0, 40), st.just(1), st.integers(0, 40), st.sampled_from(["a", "", "bc"])
    ).map(lambda edit: (edit[0], edit[1], edit[2], max(edit[1], edit[3]), edit[4])),
    st.tuples(
        st.integers(0, 4),
        st.integers(0, 9),
        st.integers(0, 4),
        st.integers(0, 9),
        _TEXT | st.sampled_from(["\r", "\r\n"]),
    ),
    st.sampled_from(["one\ntwo\r\nthree\n", "é😋\n\n", ""]),
)


@settings(max_examples=300)
@given(
    source=st.sampled_from(["a\n# " + "c" * 30 + "\nb\n", "x\r\n# é\rz", "\n", "", "# 😋 c\n"]),
    edits=st.lists(_EDIT, max_size=30),
    encoding=st.sampled_from(["utf-16", "utf-8", "utf-32"]),
)
def test_a_run_applied_in_one_go_makes_the_text_one_change_at_a_time_makes(
    source: str, edits: list[Any], encoding: str
) -> None:
    together = LspTextDocument(A, source=source, position_codec=PositionCodec(encoding))
    alone = LspTextDocument(A, source=source, position_codec=PositionCodec(encoding))
    together.apply_edits(edits)
    for edit in edits:
        alone.apply_edits([edit])
    assert together.source == alone.source
    assert together.lines == alone.lines
    assert together.plain_lines == alone.plain_lines


def test_the_changes_of_a_run_after_its_first_are_not_parsed_as_json(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Per change of a burst the server decodes the body by the run's template: JSON parses
    are per piece of input read (each piece's first change starts a run), not per change."""
    parsed = []

    def counted(body: bytes) -> Any:
        parsed.append(body)
        return parse_json(body)

    monkeypatch.setattr(protocol, "_parse_json", counted)
    _serve_burst(10)
    few = len(parsed)
    parsed.clear()
    _serve_burst(1_010)
    pieces = 1_010 * len(parsed[-1]) // READ_SIZE + 1
    assert len(parsed) <= few + 2 * pieces  # 1,010 more before
