"""An analysis that gives way (`DocumentAnalyzer.update(stop=...)`, the server's background
index when a document waits) stops between two programs, keeps what it finished, and the
next update of the same text completes it equal to a fresh analysis, building only the rest."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pypto_core.analysis import DocumentAnalyzer, Interrupted, analyse_source
from pypto_core.results import FileAnalysis

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from test_analysis_incremental import HOST

from gen_dsl import generate, generate_jit


def summary(a: FileAnalysis) -> tuple[object, ...]:
    return (a.is_dsl, a.diagnostics, a.outlined, a.promoted, [p.name for p in a.programs])


class StopAfter:
    """Says stop from its `n`-th question on (each program is asked before its build and
    before its passes)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.asked = 0

    def __call__(self) -> bool:
        self.asked += 1
        return self.asked > self.n


@pytest.mark.parametrize("asks", [0, 3, 4])  # before any build; before passes; between programs
def test_an_interrupted_analysis_resumes_where_it_stopped(asks: int) -> None:
    text = generate(200)
    programs = text.count("@pl.program")
    assert programs >= 4
    analyzer = DocumentAnalyzer()
    stop = StopAfter(asks)
    with pytest.raises(Interrupted):
        analyzer.update(text, stop=stop)
    assert stop.asked == asks + 1  # it stopped at the first "yes"
    finished = asks // 2  # two questions per program
    result = analyzer.update(text)
    assert analyzer.rebuilt == programs - finished
    assert summary(result) == summary(analyse_source(text))


def test_a_host_interrupted_after_its_entry_is_composed_from_it_when_resumed() -> None:
    text = generate_jit(200) + HOST
    analyzer = DocumentAnalyzer()
    with pytest.raises(Interrupted):
        analyzer.update(text, stop=StopAfter(2))  # the entry done, before the host's build
    result = analyzer.update(text)
    assert (analyzer.rebuilt, analyzer.composed) == (1, 1)  # the host, from the kept entry's run
    assert [p.name for p in result.programs] == ["entry", "host"]
    assert summary(result) == summary(analyse_source(text))


def test_an_analysis_never_asked_to_stop_completes() -> None:
    text = generate(100)
    stop = StopAfter(10**6)
    assert summary(DocumentAnalyzer().update(text, stop=stop)) == summary(analyse_source(text))
    assert stop.asked == 2 * text.count("@pl.program")
