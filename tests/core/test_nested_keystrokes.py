"""Keystrokes inside the nested blocks of a whole-model entry (issue 13): the shape of
pypto-lib's prefill_cp_fwd_draft, whose edits land inside a loop holding most of the entry,
where the passes' resumes at the top level take every statement before the loop and the
splice, SSA, Simplify and the outliners replay what each statement they left did. After every
edit of a random sequence, the incremental result (IR and spans included) is a fresh
analysis's, with and without every statement kept at the open."""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from pypto_core.analysis import DocumentAnalyzer, analyse_source

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from test_analysis_incremental import full

from gen_dsl import generate_jit

CREATE = "    mid = pl.create_tensor([256, COLS], dtype=pl.FP32)\n"
FINISH = '    with pl.at(level=pl.Level.CORE_GROUP, name_hint="finish"):\n'


def nested_jit(lines: int) -> str:
    """`generate_jit(lines)` with its entry's calls two thirds at the top (enough top-level
    statements for the outliners' body resume), a sixth in a loop beside a scope of its own,
    the last sixth in a loop inside that loop (helpers spliced twice and kernels in each)."""
    text = generate_jit(lines)
    head, _, rest = text.partition(CREATE)
    calls_text, _, tail = rest.partition(FINISH)
    calls = calls_text.splitlines(keepends=True)
    top, outer = 2 * len(calls) // 3, 5 * len(calls) // 6
    body = [CREATE, *calls[:top], "    for r in pl.range(2):\n"]
    body += ["    " + call for call in calls[top:outer]]
    body += [
        '        with pl.at(level=pl.Level.CORE_GROUP, name_hint="inner"):\n',
        "            y = pl.load(mid, [0, 0], [ROWS, COLS])\n",
        "            mid = pl.store(pl.exp(y), [0, 0], mid)\n",
        "        for q in pl.range(2):\n",
    ]
    body += ["        " + call for call in calls[outer:]]
    return head + "".join(body) + FINISH + tail


def _nested_calls(text: str) -> list[re.Match[str]]:
    """The helper calls inside the entry's loops (indented 8 or 12)."""
    return list(re.finditer(r"^( {8}| {12})mid = (helper|kernel)\d+\(x, [^\n]*\n", text, re.M))


def _pick(text: str, rng: random.Random, helpers_only: bool = False) -> re.Match[str]:
    return rng.choice([m for m in _nested_calls(text) if not helpers_only or m.group(2) == "helper"])


NESTED_EDITS: dict[str, Callable[[str, random.Random], str]] = {
    "type into the nested scope's name_hint": lambda t, r: t.replace(
        'name_hint="inner', 'name_hint="inner' + "q", 1
    ),
    "an argument changed in a nested call": lambda t, r: (
        lambda m: t[: m.start()] + m.group(0).replace("base + ", "base + 1 + ", 1) + t[m.end() :]
    )(_pick(t, r, helpers_only=True)),
    "a statement more before a nested call": lambda t, r: (
        lambda m: t[: m.start()] + m.group(1) + "extra = base + 2\n" + t[m.start() :]
    )(_pick(t, r)),
    "a nested call taken out": lambda t, r: (lambda m: t[: m.start()] + t[m.end() :])(_pick(t, r)),
    "a nested call made twice": lambda t, r: (lambda m: t[: m.end()] + m.group(0) + t[m.end() :])(
        _pick(t, r)
    ),
    "a blank line inside a nested loop": lambda t, r: (lambda m: t[: m.start()] + "\n" + t[m.start() :])(
        _pick(t, r)
    ),
    "a statement more in the nested scope": lambda t, r: t.replace(
        "            mid = pl.store(pl.exp(y), [0, 0], mid)\n",
        "            y = pl.add(y, y)\n            mid = pl.store(pl.exp(y), [0, 0], mid)\n",
        1,
    ),
    "a character typed into a helper's name_hint": lambda t, r: t.replace(
        'name_hint="norm', 'name_hint="norm' + "z", 1
    ),
}


def test_the_nested_entry_has_the_shape_it_claims() -> None:
    text = nested_jit(1600)
    entry = text[text.index("@pl.jit\n") :]
    top = [line for line in entry.splitlines()[7:] if re.match(r"    \S", line)]
    assert len(top) >= 32  # the outliners resume a body this long (`outline_resume.MIN_STATEMENTS`)
    assert len(_nested_calls(text)) >= 10
    result = analyse_source(text)
    assert not [d for d in result.diagnostics if d.code == "PTO900"]
    assert {r.name for r in result.outlined} >= {"inner", "finish"}


@pytest.mark.parametrize("keep_all_at_open", [False, True])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_incremental_equals_fresh_after_edits_inside_nested_blocks(seed: int, keep_all_at_open: bool) -> None:
    rng = random.Random(seed)
    text = nested_jit(1600)
    analyzer = DocumentAnalyzer(keep_all_at_open=keep_all_at_open)
    assert full(analyzer.update(text)) == full(analyse_source(text))
    for _ in range(7):
        name = rng.choice(sorted(NESTED_EDITS))
        edited = NESTED_EDITS[name](text, rng)
        assert edited != text, name
        assert full(analyzer.update(edited)) == full(analyse_source(edited)), name
        text = edited


def test_what_the_splice_found_in_the_statements_an_edit_left_is_kept() -> None:
    """A call with an argument too many at the top (the splice's finding) stays reported
    while the keystrokes inside the loops take that statement's splice from the last one."""
    text = nested_jit(1600).replace(
        "    mid = helper1(x, acc, mid, base + 0)\n", "    mid = helper1(x, acc, mid, base + 0, x)\n"
    )
    analyzer = DocumentAnalyzer(keep_all_at_open=True)
    first = analyzer.update(text)
    found = [d for d in first.diagnostics if "argument(s)" in d.message]
    assert len(found) == 1
    for k in range(3):
        text = text.replace('name_hint="inner', 'name_hint="inner' + "q", 1)
        assert full(analyzer.update(text)) == full(analyse_source(text)), k
