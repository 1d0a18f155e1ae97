"""An outliner's walk of a long function body is kept whole and resumed (`outline_resume`): the
statements before the first changed one are taken at once, and so is the rest once the walk's
state is the last run's there. On flat bodies (two functions of one program, 38 top-level
statements each: name_hints colliding inside each function and across the two, unnamed scopes
numbered by the counter, device scalars read after their scope (PTO301), standalone spmd
loops launched with `allow_early_resolve`), every edit, at the first, a middle or the last statement, statements added or taken
out, names taken from the other function or given back to it, and its undo, gives a fresh
analysis's result, and a keystroke takes the statements around it."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from test_analysis_incremental import full

from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.ir import ScopeKind
from pypto_core.passes import outline_resume, outliner

from gen_dsl import ONE_SCOPE_ANCHOR, ONE_SCOPE_PROGRAM

COUNT = 38  # top-level scopes and loops per function: statement i is of shape i % 6


def _function(name: str) -> str:
    lines = [
        "    @pl.function\n",
        f"    def {name}(\n",
        "        self,\n",
        "        x: pl.Tensor[[128, 32], pl.FP32],\n",
        "        cfg: pl.InOut[pl.Tensor[[1], pl.INT32]],\n",
        "        y: pl.Out[pl.Tensor[[128, 32], pl.FP32]],\n",
        "    ) -> pl.Tensor[[128, 32], pl.FP32]:\n",
    ]
    for i in range(COUNT):
        shape = i % 6
        if shape == 4:
            lines.append(f'        for j{i} in pl.spmd(2, name_hint="lane", allow_early_resolve=True):\n')
            lines.append(f"            p{i} = pl.load(x, [j{i} * 32, 0], [32, 32])\n")
            lines.append(f"            y = pl.store(pl.add(p{i}, p{i}), [j{i} * 32, 0], y)\n")
            continue
        hint = {0: ', name_hint="tile"', 1: f', name_hint="s{i}"'}.get(shape, "")
        lines.append(f"        with pl.at(level=pl.Level.CORE_GROUP{hint}):\n")
        if shape == 2:
            lines.append(f"            n{i} = pl.read(cfg, [0])\n")
        lines.append(f"            t{i} = pl.load(x, [0, 0], [32, 32])\n")
        lines.append(f"            y = pl.store(pl.add(t{i}, t{i}), [0, 0], y)\n")
        if shape == 2:
            lines.append(f"        v{i} = pl.tensor.slice(x, [16, 32], [n{i}, 0])\n")
    lines.append("        return y\n")
    return "".join(lines)


TEXT = "import pypto.language as pl\n\n\n@pl.program\nclass Flat:\n" + _function("a") + "\n" + _function("b")


def _in_a(text: str, old: str, new: str) -> str:
    """`old` made `new` in function `a` (the first occurrence), or back where `new` is there."""
    if old in text.split("    def b(")[0]:
        return text.replace(old, new, 1)
    assert new in text, new
    return text.replace(new, old, 1)


EDITS: dict[str, Callable[[str], str]] = {
    "a keystroke in the first scope": lambda t: _in_a(t, 'name_hint="tile"', 'name_hint="tilex"'),
    "a keystroke in a middle scope": lambda t: _in_a(t, 'name_hint="s19"', 'name_hint="s19x"'),
    "a keystroke in the last scope": lambda t: _in_a(t, 'name_hint="s37"', 'name_hint="s37x"'),
    "a keystroke in an spmd loop": lambda t: _in_a(t, 'name_hint="lane"', 'name_hint="lanex"'),
    "a name given back to the other function": lambda t: _in_a(t, 'name_hint="s13"', 'name_hint="s13q"'),
    "a name taken from the other function": lambda t: _in_a(t, 'name_hint="s25"', 'name_hint="b_s7"'),
    "a name taken by a scope after it": lambda t: _in_a(t, 'name_hint="s7"', 'name_hint="s31"'),
    "a statement more": lambda t: _in_a(
        t,
        "        for j16 in",
        "        w = pl.tensor.slice(x, [16, 32], [0, 0])\n        for j16 in",
    ),
    "a statement taken out": lambda t: _in_a(t, "        v14 = pl.tensor.slice(x, [16, 32], [n14, 0])\n", ""),
    "a scope of another kind (the counter after it)": lambda t: _in_a(
        t, "CORE_GROUP):\n            t3 =", "CHIP):\n            t3 ="
    ),
    "a device scalar read after its scope no more": lambda t: _in_a(
        t, "[n20, 0])\n        with", "[0, 0])\n        with"
    ),
}


def _fresh(text: str) -> object:
    """A fresh analysis that neither takes nor leaves a body record."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(outliner, "last_run", lambda _key: None)
        patch.setattr(outliner, "keep_body", lambda _key, _run: None)
        return full(analyse_source(text))


@pytest.fixture
def taken(monkeypatch: pytest.MonkeyPatch) -> list[tuple[ScopeKind, str, int, int]]:
    """Each part of a body an outliner run took from the last walk: (kind, function, from, to)."""
    parts: list[tuple[ScopeKind, str, int, int]] = []
    real = outliner.ScopeOutliner._take

    def counted(self: outliner.ScopeOutliner, last: outline_resume.BodyRun, start: int, end: int, *rest):  # type: ignore[no-untyped-def]
        parts.append((self.config.kind, self.fn.name, start, end))
        return real(self, last, start, end, *rest)

    monkeypatch.setattr(outliner.ScopeOutliner, "_take", counted)
    return parts


def test_the_fixture_is_what_it_says() -> None:
    analysis = analyse_source(TEXT)
    names = {r.name for r in analysis.outlined}
    assert {"tile", "tile_0", "b_tile", "s13", "b_s13", "lane", "b_lane", "a_incore_2"} <= names
    assert {"PTO301", "PTO601"} <= {d.code for d in analysis.diagnostics}
    (program,) = analysis.programs
    assert all(len(fn.body) >= outline_resume.MIN_STATEMENTS for fn in program.source.functions)


def test_a_keystroke_takes_the_statements_before_and_after_it(
    taken: list[tuple[ScopeKind, str, int, int]],
) -> None:
    analyzer = DocumentAnalyzer()
    text = TEXT
    for typed in ("", "x", "xy"):
        text = TEXT.replace('name_hint="s19"', f'name_hint="s19{typed}"', 1)
        analyzer.update(text)
    taken.clear()
    text = TEXT.replace('name_hint="s19"', 'name_hint="s19xyz"', 1)
    after = analyzer.update(text)
    ends = {(kind, fn): [] for kind, fn, _, _ in taken}  # type: dict[tuple[ScopeKind, str], list[int]]
    for kind, fn, start, end in taken:
        ends[kind, fn] += [start, end]
    assert ends[ScopeKind.InCore, "a"][0] == 0 and len(ends[ScopeKind.InCore, "a"]) == 4  # before, after
    assert (ScopeKind.InCore, "b") in ends and (ScopeKind.Spmd, "a") in ends
    assert full(after) == _fresh(text)


@pytest.mark.parametrize("name", sorted(EDITS))
def test_each_edit_and_its_undo_equal_a_fresh_analysis(name: str) -> None:
    analyzer = DocumentAnalyzer(keep_all_at_open=True)
    analyzer.update(TEXT)
    analyzer.update(TEXT.replace('name_hint="s31"', 'name_hint="s31z"', 1))  # a keystroke before
    edited = EDITS[name](TEXT)
    assert edited != TEXT
    assert full(analyzer.update(edited)) == _fresh(edited)
    assert full(analyzer.update(TEXT)) == _fresh(TEXT)
    assert full(analyzer.update(edited)) == _fresh(edited)


@pytest.mark.parametrize("seed", range(4))
def test_incremental_equals_fresh_after_edit_sequences(
    seed: int, taken: list[tuple[ScopeKind, str, int, int]]
) -> None:
    rng = random.Random(seed)
    analyzer = DocumentAnalyzer(keep_all_at_open=True)
    text = TEXT
    analyzer.update(text)
    for _ in range(8):
        name = rng.choice(sorted(EDITS))
        text = EDITS[name](text)
        assert full(analyzer.update(text)) == _fresh(text), name
    assert taken


@pytest.mark.parametrize(
    "planted", ["rest's names", "start's names", "names differing", "counter and renames"]
)
def test_a_resumed_walk_that_reads_too_little_is_caught(
    monkeypatch: pytest.MonkeyPatch, planted: str
) -> None:
    """The comparison above fails when the resumption forgets what the rest reads: the name
    questions after the cut or before the first change, or the names two runs differ in. (The
    counter and renames coming in are checked too; a scope more or less, or a call-site
    variable of another name, which change them, change the names first.)"""
    if planted == "rest's names":
        monkeypatch.setattr(outline_resume.Families, "asked_from", lambda *_args: False)
    elif planted == "start's names":
        monkeypatch.setattr(outline_resume.Families, "asked_before", lambda *_args: False)
    else:
        monkeypatch.setattr(outliner, "name_changes", lambda *_args: set())
    analyzer = DocumentAnalyzer(keep_all_at_open=True)
    analyzer.update(TEXT)
    differing = []
    text = TEXT
    edits = [
        "a scope of another kind (the counter after it)",
        "a name given back to the other function",
        "a name taken by a scope after it",
        "a keystroke in the first scope",
        "a keystroke in a middle scope",
    ]
    for name in edits * 2:
        text = EDITS[name](text)
        differing.append(full(analyzer.update(text)) != _fresh(text))
    assert any(differing)


def test_a_call_sites_launch_options_move_with_a_program_moved_by_a_line_above() -> None:
    """The `allow_early_resolve=True` (and `deps=[...]`) a call site is given stands at the
    scope's header: the program below a line typed is reused with its spans moved, which
    moved a span of none to line 1 where a fresh analysis leaves it at none."""
    above = "import pypto.language as pl\n" + ONE_SCOPE_PROGRAM + "\n"
    text = TEXT.replace("import pypto.language as pl\n", above, 1)
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    edited = text.replace(ONE_SCOPE_ANCHOR, f"{ONE_SCOPE_ANCHOR}\n            z = pl.add(y, x)", 1)
    assert edited != text
    assert full(analyzer.update(edited)) == full(analyse_source(edited))
