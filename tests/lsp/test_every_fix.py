"""Every quick fix the server offers, applied, on every example and on sources shaped like real
kernels: the diagnostic it targets is gone, no new error appears, the file still parses,
nothing outside the fixed unit changes, and no scope is left empty unless the title says so."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest
from dsl_examples import EXAMPLE_1, EXAMPLE_2, EXAMPLE_3, EXAMPLE_4, EXAMPLE_5_GRAPH, SHARED_HELPER
from lsp_session import RecordingClient, apply_text_edits, open_doc, workspace_edits
from lsprotocol import types

from pypto_core.analysis import analyse_source
from pypto_core.diagnostics import Severity
from pypto_core.frontend import split_units
from pypto_lsp.quick_fixes import FIXABLE_CODES

pytestmark = pytest.mark.asyncio(loop_scope="module")

ROOT = Path(__file__).resolve().parents[2]
T = "pl.Tensor[[64, 128], pl.FP32]"
HEAD = f"""
@pl.program
class Fixable:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, w: {T}, v: {T}, cfg: pl.Tensor[[4], pl.INT32], base: pl.Scalar[pl.INDEX],
             acc: pl.InOut[{T}]) -> {T}:
"""

# Shapes seen in real kernels, each with a fixable diagnostic (or one that must stay unfixed).
SHAPES = {
    # a block index read inside pl.spmd and used after: no host-side equivalent, no fix
    "spmd_block_index": HEAD
    + """
        for i in pl.spmd(4, name_hint="rows"):
            tile_rem = pl.tile.get_block_idx()
            t = pl.load(w, [tile_rem * 16, 0], [16, 128])
            pl.store(t, [tile_rem * 16, 0], acc)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="use"):
            u = pl.load(w, [tile_rem, 0], [16, 128])
            pl.store(u, [0, 0], acc)
        return acc
""",
    # deps= on a pl.spmd nested in pl.cluster() (#2593): the fix drops the cluster wrapper
    "spmd_deps_in_cluster": HEAD
    + """
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="pre") as t0:
            t = pl.load(w, [0, 0], [16, 128])
            pl.store(t, [0, 0], acc)
        with pl.cluster():
            for i in pl.spmd(4, deps=[t0], name_hint="rows"):
                u = pl.load(v, [i * 16, 0], [16, 128])
                pl.store(u, [i * 16, 0], acc)
        return acc
""",
    # an In parameter its own body writes (#2457): the fix declares it pl.Out
    "in_param_written": f"""
@pl.program
class Fixable:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: {T}, out: {T}) -> {T}:
        out = pl.store(pl.load(x, [0, 0], [64, 128]), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {T}, out: pl.Out[{T}]) -> {T}:
        out = self.k(x, out)
        return out
""",
    # the scope only reads a config value: moving it out empties the scope
    "only_a_read": HEAD
    + """
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="cfg_read"):
            n = pl.read(cfg, [0])
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="use"):
            u = pl.load(w, [n, 0], [16, 128])
            pl.store(u, [0, 0], acc)
        return acc
""",
    # ... and with a task id that later code may wait on: the scope stays, the title says so
    "only_a_read_with_task_id": HEAD
    + """
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="cfg_tid") as tid:
            n = pl.read(cfg, [base + 1])
        with pl.at(level=pl.Level.CORE_GROUP, deps=[tid]):
            b = pl.load(w, [n, 0], [64, 128])
            pl.store(b, [0, 0], acc)
        return acc
""",
    # a read of a tensor the scope writes is not movable
    "read_after_write": HEAD
    + """
        with pl.at(level=pl.Level.CORE_GROUP):
            b = pl.load(w, [0, 0], [64, 128])
            pl.store(b, [0, 0], acc)
            n = pl.read(acc, [0, 0])
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="use"):
            u = pl.load(w, [n, 0], [16, 128])
            pl.store(u, [0, 0], acc)
        return acc
""",
    "graph_without_name": HEAD
    + """
        with pl.graph():
            with pl.at(level=pl.Level.CORE_GROUP):
                b = pl.load(w, [0, 0], [64, 128])
                pl.store(b, [0, 0], acc)
        return acc
""",
    "nested_graph": HEAD
    + """
        with pl.graph("outer_region"):
            with pl.graph("inner_region"):
                with pl.at(level=pl.Level.CORE_GROUP):
                    b = pl.load(w, [0, 0], [64, 128])
                    pl.store(b, [0, 0], acc)
        return acc
""",
    "cache_policies": HEAD
    + """
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.set_cache_policy(v, pl.CachePolicy.BYPASS)
            pl.set_cache_policy(acc, pl.CachePolicy.BYPASS)
            b = pl.load(w, [0, 0], [64, 128])
            pl.store(b, [0, 0], acc)
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.set_cache_policy(v, pl.CachePolicy.BYPASS)
        return acc
""",
    "role_and_split": HEAD
    + """
        with pl.at(level=pl.Level.CORE_GROUP, role=pl.Role.Orchestrator):
            b = pl.load(w, [0, 0], [64, 128])
            pl.store(b, [0, 0], acc)
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN, slot_num=4)]):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                c = pl.load(w, [0, 0], [64, 128])
                pl.store(c, [0, 0], acc)
        return acc
""",
}
SOURCES = {
    **{f"examples/{p.name}": p.read_text() for p in sorted((ROOT / "examples").glob("*.py"))},
    **{
        name: source
        for name, source in zip(
            ["ex1", "ex2", "ex3", "ex4", "ex5", "shared_helper"],
            [EXAMPLE_1, EXAMPLE_2, EXAMPLE_3, EXAMPLE_4, EXAMPLE_5_GRAPH, SHARED_HELPER],
            strict=True,
        )
    },
    **SHAPES,
}


def errors(text: str) -> Counter[tuple[str, str]]:
    """Errors and warnings (a fix may target a warning, PTO165)."""
    return Counter(
        (d.code, d.message)
        for d in analyse_source(text).diagnostics
        if d.severity in (Severity.ERROR, Severity.WARNING)
    )


def empty_scopes(text: str) -> int:
    """`with`/`for` statements whose whole body is `pass`."""
    return sum(
        1
        for node in ast.walk(ast.parse(text))
        if isinstance(node, (ast.With, ast.For)) and all(isinstance(s, ast.Pass) for s in node.body)
    )


async def offered_fixes(client: RecordingClient, name: str) -> list[tuple[str, str, str, types.Diagnostic]]:
    """(title, text before, text after, target) for every fix offered on the source."""
    source = SOURCES[name]
    doc = open_doc(client, source, header=not name.startswith("examples/"))
    found = []
    for diagnostic in await doc.diagnostics():
        if diagnostic.code not in FIXABLE_CODES:
            continue
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=doc.uri),
                range=diagnostic.range,
                context=types.CodeActionContext(diagnostics=[diagnostic]),
            )
        )
        for action in actions or []:
            assert isinstance(action, types.CodeAction) and action.edit is not None
            (edit,) = workspace_edits(action.edit, doc.uri)
            unit = next(
                u for u in split_units(doc.text) if u.start_line <= diagnostic.range.start.line < u.end_line
            )
            assert unit.start_line <= edit.range.start.line and edit.range.end.line <= unit.end_line, (
                f"{name}: '{action.title}' edits outside the unit it fixes"
            )
            found.append((action.title, doc.text, apply_text_edits(doc.text, [edit]), diagnostic))
    doc.close()
    return found


@pytest.mark.parametrize("name", list(SOURCES))
async def test_every_offered_fix_removes_its_diagnostic_and_nothing_else(
    client: RecordingClient, name: str
) -> None:
    for title, before, after, target in await offered_fixes(client, name):
        ast.parse(after)
        message = target.message.split("\nhint: ")[0]
        old, new = errors(before), errors(after)
        assert new[(str(target.code), message)] < old[(str(target.code), message)], (
            f"{name}: '{title}' kept it"
        )
        assert not new - old, f"{name}: '{title}' brought {sorted(new - old)}"
        if empty_scopes(after) > empty_scopes(before):
            assert "empty" in title, f"{name}: '{title}' leaves a scope empty without saying so"


async def test_the_hoist_is_offered_only_where_the_caller_can_compute_the_value(
    client: RecordingClient,
) -> None:
    offered = {name: [title for title, *_ in await offered_fixes(client, name)] for name in SHAPES}
    assert offered["spmd_block_index"] == []  # a block index has no host-side equivalent
    assert offered["read_after_write"] == []  # the scope writes what it reads
    assert offered["spmd_deps_in_cluster"] == ["Drop the pl.cluster() wrapper"]
    assert offered["in_param_written"] == ["Declare 'out' pl.Out"]
    assert offered["only_a_read"] == ["Move 'n' out of the scope and remove the emptied scope"]
    assert offered["only_a_read_with_task_id"] == ["Move 'n' before the scope (leaves the scope empty)"]
    assert offered["nested_graph"] == ["Unwrap the nested pl.graph region"]
    every = [title for name in SOURCES for title, *_ in await offered_fixes(client, name)]
    assert len(every) >= 9  # the shapes above reach every fixer
