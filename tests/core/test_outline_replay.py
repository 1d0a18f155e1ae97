"""An outliner's visit of a statement is kept with it and taken whole, its effects replayed,
where it reads the same of the walk (`outline_replay`): on the shape of a whole-model entry (a
layer loop calling inline helpers imported from another module, one helper called twice, so
its scopes' name_hints collide, a scope named like a function of the program, unnamed scopes
numbered by a counter, a device scalar with a PTO301 inside the loop, a cluster holding an
spmd), the analysis after any edit sequence, in the model or in the helper module, is a fresh
one's, and a keystroke takes every statement the edit left alone."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_analysis_incremental import full
from test_imported_keystrokes import edit_in, random_edits, toggle

from pypto_core import ir
from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.passes import outline_replay, outliner, ssa
from pypto_core.workspace import ModuleIndex

HELPERS = """\
import pypto.language as pl

R = 32


@pl.jit.inline
def norm(x: pl.Tensor, out: pl.Out[pl.Tensor], row: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="norm"):
        t = pl.load(x, [row, 0], [R, 32])
        out = pl.store(pl.exp(t), [row, 0], out)
    with pl.at(level=pl.Level.CORE_GROUP):
        u = pl.load(out, [row, 0], [R, 32])
        out = pl.store(pl.neg(u), [row, 0], out)
    return out


@pl.jit.inline
def fan(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.cluster():
        with pl.spmd(2):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="lane"):
                p = pl.load(x, [0, 0], [R, 32])
                out = pl.store(pl.add(p, p), [0, 0], out)
    for j in pl.spmd(2, name_hint="fan"):
        q = pl.load(x, [j * R, 0], [R, 32])
        out = pl.store(pl.mul(q, q), [j * R, 0], out)
    return out
"""

MODEL = """\
import pypto.language as pl
from helpers import fan, norm


@pl.jit.incore
def scale(
    a: pl.Tensor[[128, 32], pl.FP32],
    dst: pl.Out[pl.Tensor[[128, 32], pl.FP32]],
) -> pl.Tensor[[128, 32], pl.FP32]:
    t = pl.load(a, [0, 0], [32, 32])
    dst = pl.store(pl.mul(t, t), [0, 0], dst)
    return dst


@pl.jit
def entry(
    x: pl.Tensor[[128, 32], pl.FP32],
    cfg: pl.InOut[pl.Tensor[[1], pl.INT32]],
    out: pl.Out[pl.Tensor[[128, 32], pl.FP32]],
) -> pl.Tensor[[128, 32], pl.FP32]:
    mid = pl.create_tensor([128, 32], dtype=pl.FP32)
    for layer in pl.range(2):
        mid = norm(x, mid, layer * 32)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="step"):
            n0 = pl.read(cfg, [0])
            s = pl.load(mid, [0, 0], [32, 32])
            mid = pl.store(pl.add(s, s), [0, 0], mid)
        v = pl.tensor.slice(x, [16, 32], [n0, 0])
        mid = scale(v, mid)
        mid = norm(x, mid, 0)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale"):
            e = pl.load(x, [32, 0], [32, 32])
            mid = pl.store(e, [32, 0], mid)
        with pl.at(level=pl.Level.CORE_GROUP):
            w = pl.load(mid, [64, 0], [32, 32])
            mid = pl.store(pl.neg(w), [64, 0], mid)
    mid = fan(x, mid)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="finish"):
        z = pl.load(mid, [0, 0], [32, 32])
        n1 = pl.read(cfg, [0])
        out = pl.store(z, [0, 0], out)
    return out
"""


READ_W = "    mid = fan(x, mid)\n"
LAST = '    with pl.at(level=pl.Level.CORE_GROUP, name_hint="'  # the last scope's header, to its hint


def _last_hint(text: str, change: Callable[[str], str]) -> str:
    """`text` with the last scope's name_hint changed by `change`."""
    at = text.rindex(LAST) + len(LAST)
    end = text.index('"', at)
    return text[:at] + change(text[at:end]) + text[end:]


MODEL_EDITS: dict[str, Callable[[str], str]] = {
    "a keystroke in the loop's step": lambda t: edit_in(t, 'name_hint="step', 'name_hint="stepx'),
    "a keystroke in the last scope": lambda t: _last_hint(t, lambda hint: hint + "x"),
    "a name taken by a scope before": lambda t: _last_hint(
        t, lambda hint: "finish" if hint == "step" else "step"
    ),
    "a scope named like the helper's": lambda t: toggle(t, 'name_hint="scale"', 'name_hint="norm"'),
    "an unnamed scope more before the loop": lambda t: toggle(
        t,
        "    with pl.at(level=pl.Level.CORE_GROUP):\n"
        "        y = pl.load(x, [96, 0], [32, 32])\n"
        "        mid = pl.store(pl.exp(y), [96, 0], mid)\n"
        "    for layer in pl.range(2):\n",
        "    for layer in pl.range(2):\n",
    ),
    "the device scalar read again below": lambda t: toggle(
        t, "    k = pl.tensor.slice(x, [16, 32], [n0, 0])\n" + READ_W, READ_W
    ),
    "the last scope's scalar read after it": lambda t: toggle(
        t, "    r = pl.tensor.slice(x, [16, 32], [n1, 0])\n    return out\n", "    return out\n"
    ),
}
HELPER_EDITS: dict[str, Callable[[str], str]] = {
    "a keystroke in the helper's scope": lambda t: edit_in(t, 'name_hint="norm', 'name_hint="normx'),
    "code in the helper": lambda t: toggle(t, "pl.neg(u)", "pl.exp(u)"),
    "a keystroke in the cluster's scope": lambda t: edit_in(t, 'name_hint="lane', 'name_hint="lanex'),
}


def _workspace(tmp_path: Path) -> tuple[ModuleIndex, Path, Path]:
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "model.py").write_text(MODEL)
    return ModuleIndex(), (tmp_path / "helpers.py").resolve(), (tmp_path / "model.py").resolve()


def _fresh(text: str, index: ModuleIndex, model: Path) -> object:
    """A fresh analysis taking no visit (as on a cold open)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(outliner, "kept_run", lambda *_args: None)
        return full(analyse_source(text, modules=ModuleIndex(index.sources).lookup_for(model)))


def test_the_fixture_outlines_what_it_says(tmp_path: Path) -> None:
    index, _, model = _workspace(tmp_path)
    analysis = analyse_source(MODEL, modules=index.lookup_for(model))
    names = [r.name for r in analysis.outlined]
    assert {"step", "entry_scale", "finish", "norm", "norm_0", "lane", "fan"} <= set(names)
    assert any(n.startswith("entry_incore_") for n in names)  # numbered by the counter
    codes = {d.code for d in analysis.diagnostics}
    assert {"PTO301", "PTO601"} <= codes


@pytest.fixture
def taken(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many statement visits each outliner run took whole (appended per run)."""
    counts: list[int] = []
    real = outliner.kept_run

    def counted(*args: object) -> outline_replay.StmtRun | None:
        run = real(*args)  # type: ignore[arg-type]
        counts.append(run is not None)
        return run

    monkeypatch.setattr(outliner, "kept_run", counted)
    return counts


def test_a_keystroke_takes_the_visits_of_the_statements_it_left_alone(
    tmp_path: Path, taken: list[int]
) -> None:
    index, _, model = _workspace(tmp_path)
    analyzer = DocumentAnalyzer()
    text = MODEL
    for typed in ("", "x", "xy"):
        text = MODEL.replace('name_hint="finish"', f'name_hint="finish{typed}"')
        analyzer.update(text, modules=index.lookup_for(model))
    taken.clear()
    text = MODEL.replace('name_hint="finish"', 'name_hint="finishxyz"')
    after = analyzer.update(text, modules=index.lookup_for(model))
    assert sum(taken) >= 3  # the layer loop and the helper's scopes, at each outliner
    assert full(after) == _fresh(text, index, model)


def edits_in_the_model_and_its_helper_module(
    tmp_path: Path, seed: int, count: int, keep_all_at_open: bool = False
) -> None:
    """`count` edits picked by `seed` in the model and its helper module, each on the text the
    one before left: each analysis equals a fresh one."""
    index, helpers, model = _workspace(tmp_path)
    analyzer = DocumentAnalyzer(keep_all_at_open=keep_all_at_open)
    analyzer.update(MODEL, modules=index.lookup_for(model))
    edits = random_edits(
        random.Random(seed), count, (MODEL, MODEL_EDITS), (HELPERS, HELPER_EDITS), index, helpers
    )
    for name, text in edits:
        after = analyzer.update(text, modules=index.lookup_for(model))
        assert full(after) == _fresh(text, index, model), name


@pytest.mark.parametrize("seed", range(6))
def test_incremental_equals_fresh_after_edits_in_the_model_and_its_helper_module(
    tmp_path: Path, seed: int, taken: list[int]
) -> None:
    edits_in_the_model_and_its_helper_module(tmp_path, seed, 10)
    assert any(taken)


@pytest.mark.parametrize("planted", ["later", "names", "block mentions", "knowing"])
def test_a_replay_that_reads_too_little_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, planted: str
) -> None:
    """The comparison above fails when the replay forgets what a visit reads: which of what
    it binds is mentioned after it (in its key; in a block's last mentions kept for the next
    run, or a statement's knowing of it, taken whatever they were read from), or the names it
    was given."""
    if planted == "later":
        key = outliner.RunKey
        monkeypatch.setattr(outliner, "RunKey", lambda *fields: key(*fields[:7], frozenset(), *fields[8:]))
    elif planted == "block mentions":
        monkeypatch.setattr(outliner, "_alike", lambda *_args: True)
    elif planted == "knowing":
        monkeypatch.setattr(outliner, "_same_reads", lambda *_args: True)
    else:
        monkeypatch.setattr(outline_replay.Names, "redo", lambda self, ops: True)
    index, _, model = _workspace(tmp_path)
    analyzer = DocumentAnalyzer()
    text = MODEL
    analyzer.update(text, modules=index.lookup_for(model))
    differing = []
    edits = (
        ["a name taken by a scope before", "a keystroke in the loop's step"] * 2
        if planted == "names"
        else ["the last scope's scalar read after it", "a keystroke in the loop's step"] * 2
    )
    for name in edits:
        text = MODEL_EDITS[name](text)
        after = analyzer.update(text, modules=index.lookup_for(model))
        differing.append(full(after) != _fresh(text, index, model))
    assert any(differing)


@pytest.mark.parametrize("keep_all_at_open", [True, False])
def test_an_open_documents_first_analysis_keeps_what_its_first_keystroke_takes(
    tmp_path: Path, taken: list[int], monkeypatch: pytest.MonkeyPatch, keep_all_at_open: bool
) -> None:
    """The server's analyzer keeps every statement's results at the open, so the first
    keystroke takes the visits (and ConvertToSSA's conversions) of every statement it left
    alone, as later ones do; without it nothing is kept before the second meeting."""
    replayed: list[object] = []
    real_replay = ssa._SSAConverter._replay

    def counted(self: ssa._SSAConverter, *args: Any) -> ir.Stmt:
        replayed.append(args)
        return real_replay(self, *args)

    monkeypatch.setattr(ssa._SSAConverter, "_replay", counted)
    index, _, model = _workspace(tmp_path)
    analyzer = DocumentAnalyzer(keep_all_at_open=keep_all_at_open)
    analyzer.update(MODEL, modules=index.lookup_for(model))
    taken.clear()
    text = MODEL.replace('name_hint="finish"', 'name_hint="finishx"')
    after = analyzer.update(text, modules=index.lookup_for(model))
    assert (sum(taken) >= 3) is keep_all_at_open  # the layer loop and the helper's scopes
    assert bool(replayed) is keep_all_at_open
    assert full(after) == _fresh(text, index, model)
