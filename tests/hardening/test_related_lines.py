"""A related location in another file (an imported helper's `def`) is converted over that
file's lines as the analysis read them, read on the analysis worker with the analysis (issue
11): publishing read a file that is not open from disk on the event loop, once per publish,
for up to the read deadline of a file system that does not answer, and converted the
location over whatever the disk held by then."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import pytest
from pygls.protocol import default_converter
from pygls.workspace import PositionCodec
from spliced_sources import LEAKY_CALLER, LEAKY_HELPER

import pypto_core.workspace.files as files
from pypto_core.diagnostics import Related, error
from pypto_core.span import Span, split_lines
from pypto_lsp.dependencies import Dependencies
from pypto_lsp.diagnostics import related_lines
from pypto_lsp.published import PublishedDiagnostics
from pypto_lsp.scheduler import AnalysisScheduler
from pypto_lsp.text_sync import FixedText


async def test_a_related_location_in_a_closed_file_is_converted_over_the_lines_the_analysis_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    helper, model = tmp_path / "helpers.py", tmp_path / "model.py"
    helper.write_text(LEAKY_HELPER)
    model.write_text(LEAKY_CALLER)
    uri = model.resolve().as_uri()
    dependencies = Dependencies(lambda _uri: None)
    scheduler = AnalysisScheduler(lambda session, snapshot: None, lambda: 0.0, dependencies)
    scheduler.ready.set()
    dependencies.opened(uri)
    scheduler.open(uri, 1, FixedText(LEAKY_CALLER))
    snapshot = await asyncio.wait_for(scheduler.snapshot(uri), 120)
    scheduler.shutdown()
    assert snapshot is not None
    read = str(helper.resolve())
    assert snapshot.other_lines == {read: tuple(split_lines(LEAKY_HELPER))}

    # The helper changes on disk after the analysis (a line of astral characters where its
    # `def` was: its columns would convert differently); publishing reads no file.
    helper.write_text(LEAKY_HELPER.replace("def leaky", "😋😋😋 = 1  # def leaky"))

    def no_read(*args: object) -> bytes:
        raise AssertionError("a file was read while publishing")

    monkeypatch.setattr(files, "_read_regular_file", no_read)
    monkeypatch.setattr(Path, "read_bytes", no_read)
    codec = PositionCodec()
    published = PublishedDiagnostics(default_converter()).params(
        uri, 1, snapshot.analysis.diagnostics, snapshot.mapper(codec), snapshot.lines_of, ""
    )
    (leak,) = [d for d in json.loads(published.json())["diagnostics"] if d["code"] == "PTO301"]
    (related,) = leak["relatedInformation"]
    assert related["location"]["uri"] == helper.resolve().as_uri()
    assert related["location"]["range"] == {
        "start": {"line": 4, "character": 4},
        "end": {"line": 4, "character": 9},
    }


def test_a_related_files_lines_are_split_again_only_when_its_text_changed() -> None:
    texts = {"/h.py": "a = 1\nb = 2\n", "/g.py": "c = 3\n"}
    found = [
        replace(error("PTO301", "m", Span(0, 0, 0, 1)), related=(Related("here", Span(1, 0, 1, 1), path),))
        for path in texts
    ]
    kept: dict[str, tuple[str, tuple[str, ...]]] = {}
    first = related_lines(found, texts.get, kept)
    assert first == {path: tuple(split_lines(text)) for path, text in texts.items()}
    again = related_lines(found, lambda path: "".join(texts[path]), kept)  # equal texts, new objects
    assert again["/h.py"] is first["/h.py"] and again["/g.py"] is first["/g.py"]
    texts["/h.py"] = "a = 1\n😋 = 2\n"
    changed = related_lines(found[:1], texts.get, kept)
    assert changed == {"/h.py": ("a = 1", "😋 = 2", "")} and set(kept) == {"/h.py"}  # /g.py no longer read
