"""What ConvertToSSA keeps with a pre-SSA statement across edits (`ssa._KNOWN`: its
assignments, live-ins, loops, "needed later" per block) changes nothing it outputs, and after an
edit only the statements the edit made anew are walked again.

The fixture is shaped like a real jit entry: inline helpers spliced several times (inside a
loop over layers and at the top), loops carrying tensors and scalars, `if` phis, scopes holding
most of the code, and statements before and after them."""

from __future__ import annotations

import pytest
from test_analysis_incremental import full

from pypto_core import ir
from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.diagnostics import Diagnostic
from pypto_core.passes import ssa

ENTRY = """import pypto.language as pl

ROWS = 64
COLS = 128
LAYERS = 3


@pl.jit.inline
def mix(
    x: pl.Tensor[[256, COLS], pl.FP32],
    out: pl.Tensor[[256, COLS], pl.FP32],
    row: pl.Scalar[pl.INDEX],
) -> pl.Tensor[[256, COLS], pl.FP32]:
    off = row * ROWS
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="mix"):
        a = pl.load(x, [off, 0], [ROWS, COLS])
        b = pl.load(out, [off, 0], [ROWS, COLS])
        out = pl.store(pl.add(a, b), [off, 0], out)
    return out


@pl.jit.inline
def scaled(
    x: pl.Tensor[[256, COLS], pl.FP32],
    out: pl.Tensor[[256, COLS], pl.FP32],
    row: pl.Scalar[pl.INDEX],
) -> pl.Tensor[[256, COLS], pl.FP32]:
    step = row + 1
    for t in pl.range(2):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="scaled"):
            c = pl.load(x, [t * ROWS, 0], [ROWS, COLS])
            d = pl.mul(c, c)
            out = pl.store(d, [t * ROWS, 0], out)
        step = step + t
    if step > 2:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="edge"):
            e = pl.load(out, [0, 0], [ROWS, COLS])
            out = pl.store(pl.neg(e), [0, 0], out)
    return out


@pl.jit
def entry(
    x: pl.Tensor[[256, COLS], pl.FP32],
    acc: pl.InOut[pl.Tensor[[ROWS, COLS], pl.FP32]],
    out: pl.Out[pl.Tensor[[256, COLS], pl.FP32]],
    base: pl.Scalar[pl.INDEX],
) -> pl.Tensor[[256, COLS], pl.FP32]:
    mid = pl.create_tensor([256, COLS], dtype=pl.FP32)
    total = base + 0
    mid = mix(x, mid, base)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="first"):
        f = pl.load(x, [0, 0], [ROWS, COLS])
        mid = pl.store(f, [0, 0], mid)
    for layer in pl.range(LAYERS):
        mid = mix(x, mid, layer)
        if layer > 0:
            mid = scaled(x, mid, layer)
            total = total + layer
        else:
            total = total + 1
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="layer"):
            g = pl.load(mid, [0, 0], [ROWS, COLS])
            h = pl.load(acc, [0, 0], [ROWS, COLS])
            acc = pl.store(pl.add(g, h), [0, 0], acc)
    mid = scaled(x, mid, total)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="finish"):
        z = pl.load(mid, [0, 0], [ROWS, COLS])
        out = pl.store(z, [0, 0], out)
    return out
"""


def _after(text: str, needle: str, what: str) -> str:
    at = text.index(needle) + len(needle)
    return text[:at] + what + text[at:]


EDITS = {
    "type into a helper's name_hint": lambda t: _after(t, 'name_hint="scaled', "q"),
    "a statement more in a helper spliced in the loop and after it": lambda t: _after(
        t, "    step = row + 1\n", "    more = step * 2\n"
    ),
    "a helper assigns its output once more (its later versions renumber)": lambda t: _after(
        t,
        "        out = pl.store(pl.add(a, b), [off, 0], out)\n",
        "        out = pl.store(a, [off, 0], out)\n",
    ),
    "an entry statement before a scope": lambda t: _after(
        t, "    total = base + 0\n", "    spare = base * 3\n"
    ),
    "the entry assigns a carried tensor once more before the loop (versions renumber)": lambda t: _after(
        t, "        mid = pl.store(f, [0, 0], mid)\n", "    mid = mix(x, mid, base + 1)\n"
    ),
    "an entry statement after the last scope": lambda t: _after(
        t, "        out = pl.store(z, [0, 0], out)\n", "    total = total + 2\n"
    ),
    "type into the entry's name_hint inside the loop": lambda t: _after(t, 'name_hint="layer', "z"),
    "an if-phi more in the loop": lambda t: _after(
        t, "            total = total + 1\n", "            mid = mix(x, mid, base)\n"
    ),
    # the types of the versions after it are equal to before but for `TensorType.distributed`
    # (a parameter's annotation says False, an op's result None), which type equality leaves out
    "a helper returns a name it does not bind": lambda t: t.replace(
        "    return out\n", "    return mid\n", 1
    ),
}


def test_the_fixture_has_what_the_edits_claim() -> None:
    """Its SSA form has loop carries of a tensor and a scalar, if-phis and several scopes, and
    it analyses without an error (so the comparisons below compare outlined programs)."""
    analysis = analyse_source(ENTRY)
    assert not [d for d in analysis.diagnostics if d.severity.name == "ERROR"]
    raw = "\n".join(repr(p.outlined_program) for p in analysis.programs)
    # `mid` rebound at its depth is `mid_v1` where the loop carries it (`jit_renames`)
    assert "mid_v1__iter_v" in raw and "total__iter_v" in raw and "__phi_v" in raw
    assert len(analysis.outlined) >= 6


@pytest.mark.parametrize("name", sorted(EDITS))
def test_an_edit_then_its_undo_equal_fresh_analyses(name: str) -> None:
    analyzer = DocumentAnalyzer()
    assert full(analyzer.update(ENTRY)) == full(analyse_source(ENTRY))
    edited = EDITS[name](ENTRY)
    assert edited != ENTRY
    assert full(analyzer.update(edited)) == full(analyse_source(edited)), name
    assert full(analyzer.update(ENTRY)) == full(analyse_source(ENTRY)), name


def test_a_sequence_of_every_edit_equals_fresh_analyses() -> None:
    """Each edit on top of the last, so kept statements meet new neighbours and new versions."""
    analyzer = DocumentAnalyzer()
    text = ENTRY
    analyzer.update(text)
    for name in sorted(EDITS):
        text = EDITS[name](text)
        assert full(analyzer.update(text)) == full(analyse_source(text)), name


def _statements(stmts: list[ir.Stmt], found: set[ir.Stmt]) -> set[ir.Stmt]:
    for s in stmts:
        found.add(s)
        for block in ssa.child_blocks(s):
            _statements(block, found)
    return found


def test_an_edit_in_a_helper_walks_the_liveness_of_the_new_statements_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The splice shares every statement no splice of the edited helper reaches, so their
    live-ins are taken from what the last update learnt: the statements whose liveness the
    update after the edit walks are all new objects, the kept ones among the entry's are not."""
    converted: list[ir.Function] = []
    walked: list[ir.Stmt] = []
    convert, compute = ssa.convert_function, ssa._Facts._compute_live_in

    def spy_convert(fn: ir.Function, diagnostics: list[Diagnostic] | None = None) -> ir.Function:
        converted.append(fn)
        return convert(fn, diagnostics)

    def spy_compute(self: ssa._Facts, s: ir.Stmt) -> set[ir.Var]:
        walked.append(s)
        return compute(self, s)

    monkeypatch.setattr(ssa, "convert_function", spy_convert)
    monkeypatch.setattr(ssa._Facts, "_compute_live_in", spy_compute)
    analyzer = DocumentAnalyzer()
    analyzer.update(ENTRY)
    before = _statements([s for fn in converted for s in fn.body], set())
    converted.clear()
    walked.clear()
    analyzer.update(EDITS["type into a helper's name_hint"](ENTRY))
    after = _statements([s for fn in converted for s in fn.body], set())
    kept = after & before
    assert kept and walked  # the edit left statements of the entry as they were, and made some anew
    assert not kept & set(walked)
    # an edit that only adds a comment builds nothing again: nothing is walked
    walked.clear()
    analyzer.update(
        EDITS["type into a helper's name_hint"](ENTRY).replace("LAYERS = 3\n", "LAYERS = 3  # layers\n")
    )
    assert walked == []


def _versions_of(analysis: object, stem: str) -> dict[str, ir.Var]:
    """The SSA versions of `stem` the entry's outlined function binds, by name."""
    (program,) = analysis.programs  # type: ignore[attr-defined]
    found: dict[str, ir.Var] = {}
    for fn in program.outlined_program.functions:
        for s in _statements(fn.body, set()):
            if isinstance(s, ir.AssignStmt) and s.target.name.startswith(f"{stem}__"):
                found[s.target.name] = s.target
    return found


def test_a_statement_converted_again_after_keystrokes_that_took_it_mints_the_variables_of_before() -> None:
    """The pools of minted versions (`ssa._POOLS`) keep what a taken statement minted when it
    was converted, though taking it writes nothing to them: converted again (its text edited,
    its variables alike), it mints those objects, so what reads them downstream is kept too."""
    analyzer = DocumentAnalyzer()
    text = ENTRY
    analyzer.update(text)
    for letter in "abc":  # the statement is converted (and kept), then taken twice
        text = _after(text, 'name_hint="layer', letter)
        analyzer.update(text)
    before = _versions_of(analyzer.update(text), "total")
    text = text.replace("    total = base + 0\n", "    total = base + (0)\n")
    after = _versions_of(analyzer.update(text), "total")
    assert before and before.keys() == after.keys()
    assert all(after[name] is var for name, var in before.items())
    assert full(analyzer.update(text)) == full(analyse_source(text))
