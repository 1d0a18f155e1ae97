"""The background workspace index gives way to documents inside a file, between two of its
programs (`WorkspaceIndex(should_yield=...)`), and finishes the file afterwards without
analysing again the programs it had finished (issues 11/13: a real file is seconds of analysis,
which a keystroke used to wait for in full)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from pygls import uris
from pygls.workspace.position_codec import PositionCodec

from pypto_core import analysis
from pypto_core.analysis import analyse_source
from pypto_core.span import split_lines
from pypto_lsp.convert import PositionMapper
from pypto_lsp.symbols import symbol_entries
from pypto_lsp.workspace_index import WorkspaceIndex

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from gen_dsl import generate


def test_an_index_file_gives_way_to_documents_and_is_finished_afterwards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = generate(200)
    path = tmp_path / "model.py"
    path.write_text(text)
    fresh = analyse_source(text)
    uri = uris.from_fs_path(str(path))
    assert uri is not None
    expected = symbol_entries(uri, fresh, PositionMapper(PositionCodec(), split_lines(text)))
    finished: list[str] = []
    real = analysis._analyse_program

    def counting(plan: Any, *args: Any) -> Any:
        done = real(plan, *args)
        finished.append(plan.name)
        return done

    monkeypatch.setattr(analysis, "_analyse_program", counting)
    asked = 0

    def documents_waiting() -> bool:  # a document arrives while programs 2 and 4 are next
        nonlocal asked
        asked += 1
        return asked in (3, 8)

    runs: list[int] = []

    async def run(fn: Any, *args: Any) -> Any:
        return fn(*args)

    async def background(fn: Any, *args: Any) -> Any:
        runs.append(asked)
        return fn(*args)

    index = WorkspaceIndex(run, background, lambda uri: False, documents_waiting)
    asyncio.run(index.index_file(path, PositionCodec()))
    assert len(runs) == 3  # given way twice, then done
    assert finished == [p.name for p in fresh.programs]  # each program analysed once
    assert index.entries(set()) == expected
