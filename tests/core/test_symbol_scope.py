"""PTO511 for a dynamic symbol read outside its defining scope (the compiler's SSA verifier after
ConvertToSSA): an inline helper whose parameter is declared `[T_DYN, 64]` and assigned in one
branch of an `if`, spliced into a caller whose types never name `T_DYN`, leaves the merge of
that branch typed with `T_DYN`, read after the branch where no type declares it. The shape of
`deepseek_v4_pro/prefill_layer.py` (its `position_ids_tile` and `rope_cos_t` locals passed to
`materialize_rope_rows`). In a jit program the specialiser types a helper's parameters from
its arguments first (`passes/symbol_scope.py`): a helper symbol reaching the entry's parameter
through its argument is declared there, one at a symbol axis of its argument is the caller's.
Every expectation here is the compiler's (e2d0f78, the oracle) on the same code."""

from __future__ import annotations

import json
from pathlib import Path

from test_analysis_incremental import each_edit_then_undone, full

from pypto_core.analysis import DocumentAnalyzer, FileAnalysis, analyse_source
from pypto_core.cli import main
from pypto_core.workspace import ModuleIndex

from markers import extract

JIT = """\
import pypto.language as pl

T_DYN = pl.dynamic("T_DYN")
ROWS = pl.dynamic("ROWS")


@pl.jit.inline
def fill_rows(
    table: pl.Tensor[[256, 64], pl.BF16],
    pos: pl.Tensor[[T_DYN], pl.INT32],
    count: pl.Scalar[pl.INT32],
    {|param:rows|}: pl.Tensor[[T_DYN, 64], pl.BF16],
):
    for r in pl.range(8):
        {|merge:if r < count:
            p = pl.cast(pl.read(pos, [r]), pl.INDEX)
            [|rows[r : r + 1, 0:64] = table[p : p + 1, 0:64]|]|}


@pl.jit
def entry(
    table: pl.Tensor[[256, 64], pl.BF16],
    pos: pl.Tensor[[ROWS], pl.INT32],
    out: pl.Out[pl.Tensor[[16, 64], pl.BF16]],
):
    rows = pl.create_tensor([16, 64], dtype=pl.BF16)
    fill_rows(table, pos, 8, rows)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy"):
        t = pl.load(rows, [0, 0], [16, 64])
        pl.store(t, [0, 0], out)
    return out
"""

TABLE = "table: pl.Tensor[[256, 64], pl.BF16]"
OUT = "out: pl.Out[pl.Tensor[[16, 64], pl.BF16]]"
ROWS_T = "pl.Tensor[[T_DYN, 64], pl.BF16]"
PROGRAM = f"""\
import pypto.language as pl

T_DYN = pl.dynamic("T_DYN")


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def fill_rows(self, {TABLE}, pos: pl.Tensor[[T_DYN], pl.INT32], count: pl.Scalar[pl.INDEX], rows: {ROWS_T}) -> {ROWS_T}:
        for r in pl.range(8):
            if r < count:
                p = pl.cast(pl.read(pos, [r]), pl.INDEX)
                [|rows[r : r + 1, 0:64] = table[p : p + 1, 0:64]|]
        return rows

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, {TABLE}, pos: pl.Tensor[[16], pl.INT32], {OUT}) -> pl.Tensor[[16, 64], pl.BF16]:
        rows = pl.create_tensor([16, 64], dtype=pl.BF16)
        rows = self.fill_rows(table, pos, 8, rows)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy"):
            t = pl.load(rows, [0, 0], [16, 64])
            pl.store(t, [0, 0], out)
        return out
"""


def _found(analysis: FileAnalysis) -> list[str]:
    return [d.message.split(":")[0] for d in analysis.diagnostics if d.code == "PTO511"]


def test_a_helper_symbol_merged_out_of_a_branch_is_used_outside_its_scope() -> None:
    marked = extract(JIT)
    analysis = analyse_source(marked.text)
    (found,) = [d for d in analysis.diagnostics if d.code == "PTO511"]
    assert found.message.startswith("Variable 'T_DYN' used outside its defining scope: 'rows' ")
    assert found.span == marked.range  # where the branch's value is typed with the symbol
    # the `if` merging it, and the helper parameter whose annotation names the symbol
    assert [(r.span, r.path) for r in found.related] == [
        (marked.named["merge"], None),
        (marked.named["param"], None),
    ]
    assert found.related[1].message == (
        "'T_DYN' comes from the parameter 'rows' of 'fill_rows', passed a tensor whose extent there is static"
    )
    assert found.hint is not None and "'entry'" in found.hint
    assert [d.code for d in analysis.diagnostics if d.severity.value == "error"] == ["PTO511"]


def test_an_entry_declaring_the_symbol_registers_it() -> None:
    text = extract(JIT).text.replace(
        "pos: pl.Tensor[[ROWS], pl.INT32],\n    out", "pos: pl.Tensor[[T_DYN], pl.INT32],\n    out"
    )
    assert _found(analyse_source(text)) == []


def test_a_helper_symbol_passed_an_entry_parameter_flows_up_to_it() -> None:
    """The specialiser marks the entry's `pos` dynamic with the helper's `T_DYN` (its axis is
    static), so the entry declares it (`deepseek_v4_pro/prefill_fwd.py`'s `position_ids`)."""
    text = extract(JIT).text.replace(
        "pos: pl.Tensor[[ROWS], pl.INT32],\n    out", "pos: pl.Tensor[[16], pl.INT32],\n    out"
    )
    assert _found(analyse_source(text)) == []


def test_a_helper_symbol_at_a_symbol_axis_of_every_argument_is_the_callers() -> None:
    """Every parameter typed with `T_DYN` is passed a tensor whose axis is `ROWS`: the
    specialised helper is typed with `ROWS`, which the entry declares (`bind_dynamic` entries
    whose symbol the helpers name by another string, `deepseek_v4_flash_dspark/prefill_indexer.py`)."""
    text = extract(JIT).text.replace(
        "    out: pl.Out[pl.Tensor[[16, 64], pl.BF16]],\n):\n    rows = pl.create_tensor([16, 64], dtype=pl.BF16)\n",
        "    rows: pl.Tensor[[ROWS, 64], pl.BF16],\n    out: pl.Out[pl.Tensor[[16, 64], pl.BF16]],\n):\n",
    )
    assert _found(analyse_source(text)) == []


def test_a_program_inline_function_keeps_its_types() -> None:
    marked = extract(PROGRAM)
    analysis = analyse_source(marked.text)
    assert _found(analysis) == ["Variable 'T_DYN' used outside its defining scope"]
    assert [d.span for d in analysis.diagnostics if d.code == "PTO511"] == [marked.range]


def test_incremental_equals_fresh_when_the_symbol_comes_and_goes() -> None:
    text = extract(JIT).text
    edits = [
        lambda t: t.replace(
            "pos: pl.Tensor[[ROWS], pl.INT32],\n    out", "pos: pl.Tensor[[T_DYN], pl.INT32],\n    out"
        ),
        lambda t: t.replace("        if r < count:\n", "        if r < count + 1:\n"),
        lambda t: t.replace(
            "rows: pl.Tensor[[T_DYN, 64], pl.BF16],\n):", "rows: pl.Tensor[[16, 64], pl.BF16],\n):"
        ),
    ]
    assert [_found(after) for after in each_edit_then_undone(text, edits)] == [
        [],
        ["Variable 'T_DYN' used outside its defining scope"],
        [],
    ]


def test_a_splice_taken_from_the_last_keeps_what_it_covered() -> None:
    # two top-level statements splice: an edit in the second takes the first's rounds from
    # the last splice, which replays the symbols its call left the entry (T_DYN kept: PTO511)
    text = extract(JIT).text.replace(
        "    fill_rows(table, pos, 8, rows)\n",
        "    fill_rows(table, pos, 8, rows)\n    other = pl.create_tensor([16, 64], dtype=pl.BF16)\n"
        "    fill_rows(table, pos, 4, other)\n",
    )
    edits = [
        lambda t: t.replace('name_hint="copy"', 'name_hint="copz"'),
        lambda t: t.replace(", 4, other)", ", 5, other)"),
    ]
    assert [_found(after) for after in each_edit_then_undone(text, edits)] == [
        ["Variable 'T_DYN' used outside its defining scope"] * 2
    ] * 2


ROWS_MODULE = JIT.split("@pl.jit\ndef entry", 1)[0]  # T_DYN, ROWS and `fill_rows`


def _plain(text: str) -> str:
    return extract(text).text


MIDDLE_MODULE = """\
import pypto.language as pl

from rows import fill_rows


@pl.jit.inline
def attend(
    table: pl.Tensor[[256, 64], pl.BF16],
    pos: pl.Tensor[[16], pl.INT32],
    out: pl.Tensor[[16, 64], pl.BF16],
):
    rows = pl.create_tensor([16, 64], dtype=pl.BF16)
    fill_rows(table, pos, 8, rows)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy"):
        t = pl.load(rows, [0, 0], [16, 64])
        pl.store(t, [0, 0], out)
"""
MODEL_MODULE = """\
import pypto.language as pl

from middle import attend

ROWS = pl.dynamic("ROWS")


@pl.jit
def entry(
    table: pl.Tensor[[256, 64], pl.BF16],
    pos: pl.Tensor[[ROWS], pl.INT32],
    out: pl.Out[pl.Tensor[[16, 64], pl.BF16]],
):
    p16 = pl.slice(pos, [16], [0])
    attend(table, p16, out)
    return out
"""


def test_a_symbol_of_a_helper_spliced_through_another_files_helper_points_at_its_def(
    tmp_path: Path, capsys
) -> None:
    """`prefill_layer.py`'s shape: the entry calls an imported helper (`prefill_attention_swa`)
    whose body calls another file's helper (`materialize_rope_rows`) with a local tensor; all
    of that code takes the entry's call span, so the related locations name both helpers'
    `def`s: the one the symbol's parameter belongs to, and the one spliced at the call."""
    (tmp_path / "rows.py").write_text(_plain(ROWS_MODULE))
    (tmp_path / "middle.py").write_text(MIDDLE_MODULE)
    (tmp_path / "model.py").write_text(MODEL_MODULE)
    assert main(["--format", "json", str(tmp_path / "model.py")]) == 1
    (found,) = [
        d for d in json.loads(capsys.readouterr().out)["files"][0]["diagnostics"] if d["code"] == "PTO511"
    ]
    assert found["range"]["start"] == {"line": 14, "character": 4}  # `attend(table, p16, out)`
    assert [(r["message"], r.get("path"), r["range"]["start"]["line"]) for r in found["related"]] == [
        ("'rows' leaves the branch here, typed with 'T_DYN'", None, 14),
        (
            "'T_DYN' comes from the parameter 'rows' of 'fill_rows', passed a tensor whose extent "
            "there is static, defined here",
            str((tmp_path / "rows.py").resolve()),
            7,  # `def fill_rows(`
        ),
        ("'attend' is defined here", str((tmp_path / "middle.py").resolve()), 6),
    ]


def test_incremental_equals_fresh_when_the_helpers_move_in_their_files(tmp_path: Path) -> None:
    """A line typed above either helper reuses the entry's program with its helpers moved
    (`ProgramAnalysis.relocated`): both `def`s the finding points at move with them."""
    (tmp_path / "rows.py").write_text(_plain(ROWS_MODULE))
    (tmp_path / "middle.py").write_text(MIDDLE_MODULE)
    (tmp_path / "model.py").write_text(MODEL_MODULE)
    index = ModuleIndex()
    model = (tmp_path / "model.py").resolve()
    analyzer = DocumentAnalyzer()
    analyzer.update(MODEL_MODULE, modules=index.lookup_for(model))
    rows, middle = _plain(ROWS_MODULE), MIDDLE_MODULE
    lines = []
    for name in ("rows.py", "middle.py", "rows.py"):
        if name == "rows.py":
            rows = rows.replace("@pl.jit.inline\n", "# moved\n@pl.jit.inline\n", 1)
            index.sources.open((tmp_path / name).resolve(), rows)
        else:
            middle = middle.replace("@pl.jit.inline\n", "\n@pl.jit.inline\n", 1)
            index.sources.open((tmp_path / name).resolve(), middle)
        after = analyzer.update(MODEL_MODULE, modules=index.lookup_for(model))
        fresh = analyse_source(MODEL_MODULE, modules=ModuleIndex(index.sources).lookup_for(model))
        assert full(after) == full(fresh)
        (found,) = [d for d in after.diagnostics if d.code == "PTO511"]
        lines.append([r.span.start_line for r in found.related[1:]])
    assert lines == [[8, 6], [8, 7], [9, 7]]


def test_a_spmd_loop_is_no_block_of_the_verifier() -> None:
    """`for r in pl.spmd(8)` is parsed into a Spmd scope around an InCore one (the parser's
    `_parse_spmd_for_loop`), which the SSA verifier looks through as it does every scope: the
    value typed with the helper's symbol inside it is read after it in the same block, which
    its assignment's type defined. No finding; the compiler's run agrees."""
    text = extract(JIT).text.replace(
        "    for r in pl.range(8):\n        if r < count:\n"
        "            p = pl.cast(pl.read(pos, [r]), pl.INDEX)\n"
        "            rows[r : r + 1, 0:64] = table[p : p + 1, 0:64]\n",
        '    for r in pl.spmd(8, name_hint="fill"):\n'
        "        p = pl.cast(pl.read(pos, [r]), pl.INDEX)\n"
        "        rows[r : r + 1, 0:64] = table[p : p + 1, 0:64]\n",
    )
    assert "pl.spmd(8" in text
    analysis = analyse_source(text)
    assert _found(analysis) == []
    assert [r.name for r in analysis.outlined if r.kind == "Spmd"] == ["fill_spmd"]
    # the same loop around the branch: the merge is read after the branch, inside the scope
    branch = extract(JIT).text.replace(
        "    for r in pl.range(8):\n", '    for r in pl.spmd(8, name_hint="fill"):\n'
    )
    assert _found(analyse_source(branch)) == ["Variable 'T_DYN' used outside its defining scope"]


def test_a_statement_whose_own_read_needs_a_symbol_is_not_held_by_the_kept_summaries() -> None:
    """A summary kept with its statement (`symbol_scope._KEPT`, weak) never names the statement
    itself: one reading a value typed with a symbol is read again, and dies with its program."""
    import gc
    import weakref

    from pypto_core import ir
    from pypto_core.passes import symbol_scope

    rows = ir.Var("rows", ir.TensorType((ir.Symbol("T_DYN"),), "INT32"))
    reading = ir.EvalStmt(ir.Call("tile.use", [rows]))
    assert [
        need.stmt for need in symbol_scope._kept(reading, frozenset({"T_DYN"}), frozenset({rows})).needs
    ] == [reading]
    held = weakref.ref(reading)
    del reading
    gc.collect()
    assert held() is None
