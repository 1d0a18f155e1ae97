"""A keystroke in a model whose scopes call inline helpers imported from another module (the
shape of pypto-lib's whole-model entries: `with pl.scope():` holding a helper call whose body
holds a `pl.spmd`, a multi-value helper whose result items later statements read, a helper
called in a `pl.unroll` loop beside the edited statement): the
statements it left alone are the objects of the last analysis at every stage, so the passes
that keep per-statement results re-do the edited statement path only; and after any edit
sequence, in the model or in the helper module, the result is a fresh analysis's."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from test_analysis_incremental import full

from pypto_core import ir
from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.passes import inline_functions, pipeline
from pypto_core.passes.outline_ir import walk_stmts
from pypto_core.workspace import ModuleIndex

HELPERS = """\
import pypto.language as pl

ROWS = 32


@pl.jit.inline
def publish(x: pl.Tensor, out: pl.Out[pl.Tensor], base: pl.Scalar[pl.INDEX]):
    with pl.spmd(4, name_hint="publish"):
        block = pl.tile.get_block_idx()
        row = base + block * ROWS
        for dt in pl.range(2):
            if dt < 1:
                t = pl.load(x, [row, 0], [ROWS, 32])
                out = pl.store(pl.mul(t, t), [row, 0], out)
            else:
                t = pl.load(x, [row, 0], [ROWS, 32])
                out = pl.store(pl.add(t, t), [row, 0], out)
    return out


@pl.jit.inline
def pair(x: pl.Tensor, a: pl.Out[pl.Tensor], b: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="pair"):
        t = pl.load(x, [0, 0], [ROWS, 32])
        a = pl.store(t, [0, 0], a)
        b = pl.store(pl.add(t, t), [0, 0], b)
    return a, b
"""

MODEL = """\
import pypto.language as pl
from helpers import pair, publish


@pl.jit(auto_scope=False)
def entry(
    x: pl.Tensor[[128, 32], pl.FP32],
    a: pl.Out[pl.Tensor[[128, 32], pl.FP32]],
    b: pl.Out[pl.Tensor[[128, 32], pl.FP32]],
    out: pl.Out[pl.Tensor[[128, 32], pl.FP32]],
):
    for layer in pl.range(2):
        with pl.scope():
            a, b = pair(x, a, b)
            out = publish(a, out, layer)
        with pl.scope():
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="mix"):
                t = pl.load(b, [0, 0], [32, 32])
                out = pl.store(t, [0, 0], out)
    with pl.scope():
        out = publish(b, out, 0)
        for k in pl.unroll(2):
            out = publish(a, out, k)
        with pl.spmd(2, name_hint="tail"):
            block = pl.tile.get_block_idx()
            t = pl.load(out, [block * 32, 0], [32, 32])
            out = pl.store(pl.mul(t, t), [block * 32, 0], out)
    return out
"""


# the same with a dynamic extent whose read the parser folds onto its symbol in the entry's
# (Orchestration) body at every build, before the splice: the helper calls pass the symbol
DYNAMIC = (
    MODEL.replace(
        "from helpers import pair, publish\n",
        'from helpers import pair, publish\n\nROWS = pl.dynamic("ROWS")\n',
    )
    .replace("    x: pl.Tensor[[128, 32], pl.FP32],", "    x: pl.Tensor[[ROWS, 32], pl.FP32],")
    .replace(
        "):\n    for layer in pl.range(2):\n",
        "):\n    rows = pl.tensor.dim(x, 0)\n    for layer in pl.range(2):\n",
    )
    .replace("publish(a, out, layer)", "publish(a, out, rows + layer)")
    .replace("publish(b, out, 0)", "publish(b, out, rows)")
)


def _workspace(tmp_path: Path, model_text: str = MODEL) -> tuple[ModuleIndex, Path, Path]:
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "model.py").write_text(model_text)
    return ModuleIndex(), (tmp_path / "helpers.py").resolve(), (tmp_path / "model.py").resolve()


@pytest.fixture
def stages(monkeypatch: pytest.MonkeyPatch) -> dict[str, ir.Program]:
    """The last program analysed at each stage: the spliced input, then each pass's output."""
    seen: dict[str, ir.Program] = {}
    original = pipeline._stages

    def recording(program: ir.Program, *args: object) -> Iterator[tuple[str, ir.Program]]:
        seen["input"] = program
        for name, completed in original(program, *args):  # type: ignore[arg-type]
            seen[name] = completed
            yield name, completed

    monkeypatch.setattr(pipeline, "_stages", recording)
    return seen


def _statements(program: ir.Program) -> list[ir.Stmt]:
    return [s for fn in program.functions if fn.name == "entry" for s in walk_stmts(fn.body)]


def test_the_fixture_splices_what_it_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index, _, model = _workspace(tmp_path)
    substituted: list[int] = []
    original = inline_functions._substitute_tuple_items

    def recording(stmts: list[ir.Stmt], subs: dict[int, list[ir.Expr]], *args: object) -> list[ir.Stmt]:
        substituted.append(len(subs))
        return original(stmts, subs, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(inline_functions, "_substitute_tuple_items", recording)
    result = DocumentAnalyzer().update(MODEL, modules=index.lookup_for(model))
    assert [d.code for d in result.diagnostics if d.severity.name == "ERROR"] == []
    assert substituted and all(substituted)  # `pair`'s items are read where it is spliced
    spmd = [r.name for r in result.outlined if r.kind == "Spmd"]
    # the helper's at each call (the unroll loop's once per copy), then the model's own
    assert spmd == ["publish_spmd", "publish_spmd_0", "publish_spmd_1", "publish_spmd_2", "tail_spmd"]


@pytest.mark.parametrize("model_text", [MODEL, DYNAMIC], ids=["static", "dynamic extent"])
def test_a_keystroke_in_a_scope_calling_an_imported_helper_keeps_every_other_statement(
    tmp_path: Path, stages: dict[str, ir.Program], model_text: str
) -> None:
    """After typing in the `pl.spmd` of the scope that calls `publish`, each stage's statements
    are those of the analysis before but the ones holding the edited line: splicing took every
    clone and the statements reading `pair`'s items, so UnrollLoops, ConvertToSSA and Simplify
    took theirs. (The third keystroke: ConvertToSSA keeps a statement from its second
    conversion on, Simplify from its second meeting of ConvertToSSA's output.)"""
    index, _, model = _workspace(tmp_path, model_text)
    edited_line = model_text.split("\n").index('        with pl.spmd(2, name_hint="tail"):')
    analyzer = DocumentAnalyzer()
    for typed in ("", "x", "xy"):
        text = model_text.replace('name_hint="tail"', f'name_hint="tail{typed}"')
        analyzer.update(text, modules=index.lookup_for(model))
    before = {name: {id(s) for s in _statements(p)} for name, p in stages.items()}
    held = dict(stages)  # the statements stay alive, so no new one takes an old one's id
    edited = model_text.replace('name_hint="tail"', 'name_hint="tailxyz"')
    after = analyzer.update(edited, modules=index.lookup_for(model))
    assert set(stages) == {"input", *pipeline.PASS_NAMES}
    for name in ("input", "UnrollLoops", "ConvertToSSA", "Simplify"):
        made = [s for s in _statements(stages[name]) if id(s) not in before[name]]
        lines = sorted({(s.span.start_line, s.span.end_line) for s in made})
        assert made and all(start <= edited_line <= end for start, end in lines), (name, lines)
    assert held
    fresh = analyse_source(edited, modules=ModuleIndex(index.sources).lookup_for(model))
    assert full(after) == full(fresh)


def edit_in(text: str, needle: str, new: str) -> str:
    assert needle in text, needle
    return text.replace(needle, new, 1)


def toggle(text: str, one: str, other: str) -> str:
    """`one` made `other`, or back (so where `one` holds `other`, `one` goes first)."""
    return text.replace(one, other, 1) if one in text else edit_in(text, other, one)


MODEL_EDITS: dict[str, Callable[[str], str]] = {
    "a keystroke in the tail spmd": lambda t: edit_in(t, 'name_hint="tail', 'name_hint="tailx'),
    "a keystroke in the loop's scope": lambda t: edit_in(t, 'name_hint="mix', 'name_hint="mixx'),
    "another argument to the helper": lambda t: toggle(
        t, "\n        out = publish(b, out,", "\n        out = publish(x, out,"
    ),
    "the other item read": lambda t: toggle(
        t, "\n            out = publish(a, out,", "\n            out = publish(b, out,"
    ),
    "a statement more in the scope": lambda t: edit_in(
        t, "        with pl.spmd(2,", "        out = publish(a, out, 2)\n        with pl.spmd(2,"
    ),
    "a line break in the scope": lambda t: edit_in(t, "        with pl.spmd(2,", "\n        with pl.spmd(2,"),
}
HELPER_EDITS: dict[str, Callable[[str], str]] = {
    "a keystroke in the helper's spmd": lambda t: edit_in(t, 'name_hint="publish', 'name_hint="publishx'),
    "code in the helper's branch": lambda t: toggle(t, "pl.add(t, t), [row", "pl.sub(t, t), [row"),
    "a line in the multi-value helper": lambda t: edit_in(
        t,
        "        a = pl.store(t, [0, 0], a)\n",
        "        t = pl.mul(t, t)\n        a = pl.store(t, [0, 0], a)\n",
    ),
}


@pytest.mark.parametrize(
    ("model_text", "seed"), [(MODEL, 1), (MODEL, 2), (MODEL, 3), (DYNAMIC, 4), (DYNAMIC, 5)]
)
def test_incremental_equals_fresh_after_edits_in_the_model_and_its_helper_module(
    tmp_path: Path, model_text: str, seed: int
) -> None:
    index, helpers, model = _workspace(tmp_path, model_text)
    analyzer = DocumentAnalyzer()
    edits = random_edits(
        random.Random(seed), 8, (model_text, MODEL_EDITS), (HELPERS, HELPER_EDITS), index, helpers
    )
    for name, text in edits:
        after = analyzer.update(text, modules=index.lookup_for(model))
        fresh = analyse_source(text, modules=ModuleIndex(index.sources).lookup_for(model))
        assert full(after) == full(fresh), name


Edits = dict[str, Callable[[str], str]]


def random_edits(
    rng: random.Random,
    count: int,
    model: tuple[str, Edits],
    helper: tuple[str, Edits],
    index: ModuleIndex,
    helper_path: Path,
) -> Iterator[tuple[str, str]]:
    """`count` edits picked by `rng` among the model's and the helper module's (each text with
    its edits by name), each applied to the text the one before left (a helper module's opened
    in `index`): the edit's name and the model's text after each."""
    (text, model_edits), (helper_text, helper_edits) = model, helper
    for _ in range(count):
        name = rng.choice(sorted(model_edits) + sorted(helper_edits))
        if name in helper_edits:
            helper_text = helper_edits[name](helper_text)
            index.sources.open(helper_path, helper_text)
        else:
            text = model_edits[name](text)
        yield name, text


def test_a_keystroke_in_the_model_hands_on_the_findings_said_in_a_helper_as_the_same_objects(
    tmp_path: Path,
) -> None:
    # each finding in a spliced helper is rewritten to say where it comes from; a keystroke
    # that leaves the passes' findings as they were leaves those rewritten ones as they were
    index, helpers, model = _workspace(tmp_path)
    analyzer = DocumentAnalyzer()
    analyzer.update(MODEL, modules=index.lookup_for(model))
    before = analyzer.update(MODEL, modules=index.lookup_for(model)).diagnostics
    edited = MODEL.replace('name_hint="mix"', 'name_hint="mixx"')
    after = analyzer.update(edited, modules=index.lookup_for(model))
    in_helpers = [d for d in before if any(r.path == str(helpers) for r in d.related)]
    assert in_helpers and all(any(d is a for a in after.diagnostics) for d in in_helpers)
    fresh = analyse_source(edited, modules=ModuleIndex(index.sources).lookup_for(model))
    assert full(after) == full(fresh)
    # and an edit in the helper module says them again, as a fresh analysis does
    index.sources.open(helpers, HELPERS.replace('name_hint="publish"', 'name_hint="publish2"'))
    again = analyzer.update(edited, modules=index.lookup_for(model))
    assert full(again) == full(analyse_source(edited, modules=ModuleIndex(index.sources).lookup_for(model)))
