"""The JSON a publish sends is what converting each diagnostic afresh gives, whatever was kept
from the publish before: the kept object is taken only where the diagnostic, its data and the
text of the lines its ranges fall on are the same (`published.PublishedDiagnostics`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace

from lsprotocol import types
from pygls.protocol import default_converter
from pygls.workspace import PositionCodec

from pypto_core.diagnostics import Diagnostic, Related, error, info
from pypto_core.span import Span
from pypto_lsp.convert import PositionMapper
from pypto_lsp.diagnostics import to_lsp
from pypto_lsp.published import PublishedDiagnostics

URI = "file:///work/model.py"
HELPER = "/work/helpers.py"
DOCS = "https://example.invalid/diagnostics.md"


def fresh(
    diagnostics: Sequence[Diagnostic], lines: list[str], others: dict[str, tuple[str, ...]]
) -> list[object]:
    mapper = PositionMapper(PositionCodec(types.PositionEncodingKind.Utf16), lines)
    converter = default_converter()
    return [
        converter.unstructure(to_lsp(d, URI, mapper, lambda p: others.get(p, ()), DOCS)) for d in diagnostics
    ]


def test_a_publish_equals_a_fresh_conversion_across_edits_and_keeps_what_did_not_change() -> None:
    published = PublishedDiagnostics(default_converter())
    codec = PositionCodec(types.PositionEncodingKind.Utf16)
    leak = replace(
        error("PTO301", "scope 'tail' computes scalar 'n'", Span(2, 4, 2, 5), "move it out", scalar="n"),
        related=(Related("'leaky' is defined here", Span(1, 4, 1, 9), HELPER),),
    )
    note = info("PTO601", "a copy of 'x'", Span(9, 0, 9, 3))  # past the end: clamped to the last line
    lines = ["import pypto.language as pl", "", "    n = pl.read(cfg, [0])", "x = 1"]
    others = {HELPER: ("", "def leaky(x):")}

    texts: list[list[str]] = []

    def publish(version: int) -> list[dict]:
        mapper = PositionMapper(codec, lines)
        params = published.params(URI, version, [leak, note], mapper, lambda p: others.get(p, ()), DOCS)
        sent = json.loads(params.json())
        assert sent["uri"] == URI and sent["version"] == version
        assert sent["diagnostics"] == fresh([leak, note], lines, others)
        texts.append(params.diagnostics)
        return sent["diagnostics"]

    first = publish(1)
    assert first[0]["data"] == {"scalar": "n"} and first[1]["range"]["start"] == {"line": 3, "character": 5}
    publish(2)
    assert texts[1][0] is texts[0][0] and texts[1][1] is texts[0][1]  # nothing changed: both kept
    lines[2] = "😋   n = pl.read(cfg, [0])"  # an astral character before its columns
    moved = publish(3)
    assert moved[0]["range"]["start"] == {"line": 2, "character": 5} and texts[2][1] is texts[0][1]
    others[HELPER] = ("", "😋 = 1; def leaky(x):")  # the other file's line changed
    assert publish(4)[0]["relatedInformation"][0]["location"]["range"]["start"]["character"] == 5
    lines.append("y = 2")  # a new last line: the clamped note moves to it
    assert publish(5)[1]["range"]["start"] == {"line": 4, "character": 5}
    relabelled = replace(leak, data={"scalar": "m"})
    mapper = PositionMapper(codec, lines)
    params = published.params(URI, 6, [relabelled], mapper, lambda p: others.get(p, ()), DOCS)
    assert json.loads(params.json())["diagnostics"][0]["data"] == {
        "scalar": "m"
    }  # equal diagnostics, other data
    published.forget(URI)
    empty = published.params(URI, None, [], mapper, lambda p: (), DOCS).json()
    assert json.loads(empty) == {"uri": URI, "diagnostics": []} and empty.isascii()
