"""Incremental analysis must equal a fresh analysis of the same text, and must reuse the
programs an edit did not touch."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from pypto_core import analysis, host_reuse
from pypto_core.analysis import DocumentAnalyzer, analyse_source, outlined_program_text
from pypto_core.passes.pipeline import run_pipeline
from pypto_core.results import FileAnalysis

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from gen_dsl import generate, generate_jit


def summary(a: FileAnalysis) -> tuple[object, ...]:
    return (a.is_dsl, a.diagnostics, a.outlined, a.promoted, [p.name for p in a.programs])


def test_an_edit_inside_one_program_rebuilds_only_that_program() -> None:
    text = generate(500)
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    programs = text.count("@pl.program")
    assert analyzer.rebuilt == programs
    edited = text.replace("class Prog3:", "class Prog3:\n    # a comment line", 1)
    result = analyzer.update(edited)
    assert analyzer.rebuilt == 1
    assert summary(result) == summary(analyse_source(edited))


def test_programs_below_an_edit_are_reused_with_their_positions_moved() -> None:
    text = generate(300)
    analyzer = DocumentAnalyzer()
    before = analyzer.update(text)
    edited = "# one more line at the top\n" + text
    after = analyzer.update(edited)
    assert analyzer.rebuilt == 0
    assert [o.header_span.start_line for o in after.outlined] == [
        o.header_span.start_line + 1 for o in before.outlined
    ]
    fresh = analyse_source(edited)
    assert summary(after) == summary(fresh)
    moved_fn = after.programs[1].source.functions[0]
    fresh_fn = fresh.programs[1].source.functions[0]
    assert moved_fn.name_span == fresh_fn.name_span


def test_a_module_constant_edit_reanalyses_every_program_that_may_use_it() -> None:
    text = generate(200)
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    edited = text.replace("ROWS = 64", "ROWS = 32", 1)
    result = analyzer.update(edited)
    assert analyzer.rebuilt == edited.count("@pl.program")
    assert summary(result) == summary(analyse_source(edited))


@pytest.mark.parametrize(
    "edit",
    [
        lambda t: t.replace("pl.exp(t)", "pl.exp(t", 1),  # syntax error in one program
        lambda t: t.replace("def main(", "def main (", 1),
        lambda t: t[: len(t) // 2],  # cut in the middle
        lambda t: t.replace("import pypto.language as pl", "import os", 1),  # no longer DSL
    ],
)
def test_incremental_equals_fresh_across_edit_sequences(edit) -> None:
    text = generate(300)
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    edited = edit(text)
    assert summary(analyzer.update(edited)) == summary(analyse_source(edited))
    assert summary(analyzer.update(text)) == summary(analyse_source(text))


def test_the_analyzer_keeps_the_lines_of_the_text_it_was_given_bom_included() -> None:
    analyzer = DocumentAnalyzer()
    analyzer.update("\ufeffimport pypto.language as pl\r\nX = 1\n")
    assert analyzer.lines == ["\ufeffimport pypto.language as pl", "X = 1", ""]


# -- real-shaped jit programs: one entry, tens of helpers and kernels (issue 13) -------------


def full(a: FileAnalysis) -> tuple[object, ...]:
    """Everything an update yields, IR with all spans included (Var reprs name the variable)."""
    return (*summary(a), [(repr(p.source), repr(p.outlined_program)) for p in a.programs])


def each_edit_then_undone(text: str, edits: list[Callable[[str], str]]) -> list[FileAnalysis]:
    """One analyzer's update after each edit of `text`, each undone before the next; every
    update (the edited text's and the undo's) equal to a fresh analysis of its text."""
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    found = []
    for edit in edits:
        edited = edit(text)
        assert edited != text
        after = analyzer.update(edited)
        assert full(after) == full(analyse_source(edited))
        found.append(after)
        assert full(analyzer.update(text)) == full(analyse_source(text))  # and undone
    return found


def _nth(text: str, needle: str, n: int) -> int:
    at = -1
    for _ in range(n + 1):
        at = text.index(needle, at + 1)
    return at


def _insert(text: str, needle: str, n: int, what: str, after: bool = True) -> str:
    at = _nth(text, needle, n) + (len(needle) if after else 0)
    return text[:at] + what + text[at:]


def _delete(text: str, needle: str, n: int) -> str:
    at = _nth(text, needle, n)
    return text[:at] + text[at + len(needle) :]


# Edits a user makes in a jit file, each a text -> text; `n` picks which helper/kernel.
JIT_EDITS = {
    "type into a name_hint": lambda t, n: _insert(t, 'name_hint="norm', n, "q"),
    "a statement more in a helper called twice": lambda t, n: _insert(
        t, "    off = base * ROWS\n", 0, "    extra = base + 1\n"
    ),
    "a statement more in a helper": lambda t, n: _insert(
        t, "    off = base * ROWS\n", n, "    extra = off * 2\n"
    ),
    "a comment at the end of a line": lambda t, n: _insert(t, "    off = base * ROWS", n, "  # the row"),
    "a blank line above a helper (everything below moves)": lambda t, n: _insert(
        t, "\n@pl.jit.inline\n", n, "\n"
    ),
    "a kernel's output becomes InOut": lambda t, n: t.replace(
        "    out: pl.Out[pl.Tensor[[256, COLS], pl.FP32]],\n) -> pl.Tensor[[256, COLS], pl.FP32]:\n    for i",
        "    out: pl.InOut[pl.Tensor[[256, COLS], pl.FP32]],\n) -> pl.Tensor[[256, COLS], pl.FP32]:\n    for i",
        1,
    ),
    "a helper's parameter renamed (its callers unchanged)": lambda t, n: t.replace(
        f"def helper{n}(\n    x:", f"def helper{n}(\n    xx:", 1
    ),
    "a syntax error in a helper": lambda t, n: _insert(t, "        v = pl.neg(u", n, " +"),
    "a name_hint that collides with another helper's": lambda t, n: t.replace(
        f'name_hint="proj{n}"', 'name_hint="tile"', 1
    ),
    "a module constant": lambda t, n: t.replace("TILES = 4", "TILES = 3", 1),
    # lines typed or taken out inside a function, at every depth: what is below moves
    "a blank line inside a helper's scope in a loop": lambda t, n: _insert(
        t, "            c = pl.mul(a, b)\n", n, "\n"
    ),
    "an indented blank line two loops deep": lambda t, n: _insert(
        t, "                y2 = pl.add(y0, y1)\n", n, "                \n"
    ),
    "a comment line in a helper's body": lambda t, n: _insert(
        t, "    scratch = pl.create_tensor", n, "    # a note\n", after=False
    ),
    "a comment line taken out of a helper": lambda t, n: t.replace(
        "    # twice in each: outlined names collide across functions\n", "", 1
    ),
    "a line of code typed two loops deep": lambda t, n: _insert(
        t,
        "                y1 = pl.load(acc, [0, 0], [ROWS, COLS])\n",
        n,
        "                y9 = pl.add(y1, y1)\n",
    ),
    "a line taken out of a helper's scope": lambda t, n: _delete(t, "        q2 = pl.sub(q, r)\n", n),
    "a blank line in the entry's scope": lambda t, n: _insert(
        t, "        z = pl.load(mid, [0, 0], [ROWS, COLS])\n", 0, "\n"
    ),
    "a blank line in the entry": lambda t, n: _insert(t, "    mid = kernel2(x, mid)\n", 0, "\n"),
    "a helper deleted (its call left)": lambda t, n: t.replace(
        t[_nth(t, "\n@pl.jit.inline\n", n) : _nth(t, "\n@pl.jit.inline\n", n + 1)], "\n", 1
    ),
}


def _hoisted_scalar(text: str, n: int) -> str:
    """Helper `n`'s first scope computes a scalar it reads and the helper reads it after the
    scope: the scalar is hoisted before the call and captured. `off = off + k` rebinds the
    parameter at its depth: `off_v1` (`jit_renames`), which the helper's later scopes read."""
    text = text.replace(
        f'name_hint="proj{n}"):\n        t = pl.load(x, [off, 0], [ROWS, COLS])\n',
        f'name_hint="proj{n}"):\n        k = off * 2\n        t = pl.load(x, [k, 0], [ROWS, COLS])\n',
        1,
    )
    return _insert(
        text, "        scratch = pl.store(pl.add(t, s), [0, 0], scratch)\n", n, "    off = off + k\n"
    )


# Edits that change what the outliner reads of one scope, with the part of its record they
# change: its captures, its outputs, a scalar hoisted out of it, its name after collisions; and
# the scopes whose record changes (both copies of the scope; for the hoisted scalar, both copies
# of each of the helper's three scopes, which read `off_v1`).
SCOPE_EDITS = {
    "a scope reads one more variable": (
        lambda t, n: _insert(t, "        t = pl.load(x, [off", n, " + base"),
        "params",
        2,
    ),
    "a scope's local is read after it": (
        lambda t, n: _insert(
            t, "        out = pl.store(w, [off, 0], out)\n", n, "    scratch = pl.store(w, [0, 0], scratch)\n"
        ),
        "returns",
        2,
    ),
    "a scalar computed in a scope is read after it": (_hoisted_scalar, "params", 6),
    "a name_hint no longer collides": (
        lambda t, n: _insert(t, 'name_hint="tile', 2 * n, f"u{n}"),
        "name",
        2,
    ),
}
JIT_EDITS.update({name: edit for name, (edit, _, _) in SCOPE_EDITS.items()})


@pytest.mark.parametrize("name", sorted(SCOPE_EDITS))
def test_an_edit_that_changes_what_one_scope_reads_or_yields(name: str) -> None:
    """Each edit changes the record of one scope of a helper spliced twice the way it says (so
    the case is what it claims); the incremental result, IR and spans included, is a fresh one."""
    edit, part, count = SCOPE_EDITS[name]
    text = generate_jit(420)
    analyzer = DocumentAnalyzer()
    before = analyzer.update(text)
    edited = edit(text, 3)  # helper3 is spliced twice (every third helper)
    after = analyzer.update(edited)
    assert full(after) == full(analyse_source(edited))
    changed = [
        new.name
        for old, new in zip(before.outlined, after.outlined, strict=True)
        if getattr(old, part) != getattr(new, part)
    ]
    if part == "name":  # the two copies are renamed, and the scopes whose collisions they were
        assert "tileu3" in changed and len(changed) >= 2, changed
    else:
        assert len(changed) == count, changed


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_incremental_equals_fresh_on_real_shaped_jit_programs(seed: int) -> None:
    """Random edit sequences in an entry with inline helpers (some spliced twice, name_hints
    colliding across them) and kernels: after every edit the incremental result, IR and spans
    included, is a fresh analysis's; each step builds on the last (reused functions too)."""
    import random

    rng = random.Random(seed)
    text = generate_jit(420)
    analyzer = DocumentAnalyzer()
    assert full(analyzer.update(text)) == full(analyse_source(text))
    for _ in range(6):
        name = rng.choice(sorted(JIT_EDITS))
        helpers = text.count("\n@pl.jit.inline\n")
        edited = JIT_EDITS[name](text, rng.randrange(max(helpers - 1, 1)))
        assert full(analyzer.update(edited)) == full(analyse_source(edited)), name
        text = edited


LINE_EDITS = sorted(name for name in JIT_EDITS if "line" in name)


@pytest.mark.parametrize("n", [0, 3])
def test_incremental_equals_fresh_after_lines_typed_and_taken_out_inside_functions(n: int) -> None:
    """Every line edit in turn, in helper `n` (and the entry), each on the last one's result:
    the statements and functions below each line move, those above stay."""
    text = generate_jit(420)
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    for name in LINE_EDITS * 2:
        edited = JIT_EDITS[name](text, n)
        assert edited != text, name
        assert full(analyzer.update(edited)) == full(analyse_source(edited)), name
        text = edited


def _line_starts(text: str) -> list[int]:
    """Where each line inside a function starts (an indented line: bodies at any depth, and
    the headers' parameter lines)."""
    starts, at = [], 0
    for line in text.split("\n"):
        if line.startswith("    "):
            starts.append(at)
        at += len(line) + 1
    return starts


def _blank_lines(text: str) -> list[int]:
    """Where each blank line starts."""
    return [at + 1 for at in range(len(text) - 1) if text[at] == "\n" and text[at + 1] == "\n"]


# A user's line edits anywhere: Enter at the start of a line (above a statement, a scope, in a
# helper, a kernel, the entry, inside a header), Enter with the indentation, two, a blank line
# taken out, and a keystroke or a statement typed after them.
LINE_BREAKS = {
    "enter": lambda t, rng: _at(t, rng.choice(_line_starts(t)), "\n"),
    "enter indented": lambda t, rng: _at(t, rng.choice(_line_starts(t)), "        \n"),
    "enter twice": lambda t, rng: _at(t, rng.choice(_line_starts(t)), "\n\n"),
    "a blank line taken out": lambda t, rng: _cut(t, rng.choice(_blank_lines(t)), 1),
    "a comment line taken out": lambda t, rng: _cut_line(t, rng, "    # the same local names"),
    "type into a name_hint": lambda t, rng: JIT_EDITS["type into a name_hint"](t, rng.randrange(6)),
    "a statement more in a helper": lambda t, rng: JIT_EDITS["a statement more in a helper"](
        t, rng.randrange(6)
    ),
}


def _at(text: str, at: int, what: str) -> str:
    return text[:at] + what + text[at:]


def _cut(text: str, at: int, count: int) -> str:
    return text[:at] + text[at + count :]


def _cut_line(text: str, rng: random.Random, start: str) -> str:
    """A random line starting `start` taken out (the text as it is when there is none)."""
    found = [at for at in range(len(text)) if text.startswith(start, at) and text[at - 1] == "\n"]
    if not found:
        return text
    at = rng.choice(found)
    return _cut(text, at, text.index("\n", at) + 1 - at)


@pytest.mark.parametrize("seed", [11, 12, 13, 14])
def test_incremental_equals_fresh_after_line_breaks_anywhere(seed: int) -> None:
    """Random line breaks and blank lines taken out at many places, and keystrokes after them,
    each on the last one's result: the statements below each move (taken moved, marked for
    the passes: `recurring`), and after every edit the result, IR and spans included, is a
    fresh analysis's."""
    rng = random.Random(seed)
    text = generate_jit(420)
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    for _ in range(10):
        name = rng.choice(sorted(LINE_BREAKS))
        edited = LINE_BREAKS[name](text, rng)
        assert full(analyzer.update(edited)) == full(analyse_source(edited)), name
        text = edited


SECOND_ENTRY = (
    "\n\n@pl.jit\ndef entry2(\n"
    "    x: pl.Tensor[[256, COLS], pl.FP32],\n"
    "    acc: pl.InOut[pl.Tensor[[ROWS, COLS], pl.FP32]],\n"
    "    out: pl.Out[pl.Tensor[[256, COLS], pl.FP32]],\n"
    "    base: pl.Scalar[pl.INDEX],\n"
    ") -> pl.Tensor[[256, COLS], pl.FP32]:\n"
    "    out = helper0(x, acc, out, base)\n"
    "    return out\n"
)


@pytest.mark.parametrize("line", ["\n", "    extra = off * 2\n"])
def test_a_program_whose_units_moved_apart_is_moved_by_pieces_not_rebuilt(line: str) -> None:
    """A line typed in helper3 moves `entry2` (below it) but not `helper0` (above it), the
    two units of entry2's program: its result is the last one, each unit's positions moved by
    its own delta (`LineShift`), equal to a fresh analysis; and back."""
    text = generate_jit(420) + SECOND_ENTRY
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    edited = _insert(text, "    off = base * ROWS\n", 3, line)
    result = analyzer.update(edited)
    assert analyzer.rebuilt == 1  # `entry`'s program, which holds helper3
    assert full(result) == full(analyse_source(edited))
    assert full(analyzer.update(text)) == full(analyse_source(text))
    assert analyzer.rebuilt == 1
    twice = _insert(_insert(text, "    off = base * ROWS\n", 3, line), "    off = base * ROWS\n", 5, line)
    assert full(analyzer.update(twice)) == full(analyse_source(twice))  # moved by pieces again


def test_an_edit_in_one_helper_reuses_the_build_of_every_other_function() -> None:
    text = generate_jit(420)
    functions = text.count("@pl.jit")
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    edited = _insert(text, 'name_hint="norm', 2, "q")
    result = analyzer.update(edited)
    assert analyzer.rebuilt == 1
    # the edited helper is built again; the entry, the other helpers and the kernels are not
    assert analyzer.reused_functions == functions - 1
    assert full(result) == full(analyse_source(edited))


def test_a_line_typed_in_one_helper_moves_the_builds_of_the_functions_below(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every function below the line keeps its text but not its place: its build is the one
    before with its spans moved (`programs._moved_function`), not built again."""
    from pypto_core.frontend import builder

    text = generate_jit(420)
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    built: list[str] = []
    original = builder.build_function

    def recording(start, reuse=None):  # type: ignore[no-untyped-def]
        built.append(start.node.name)
        return original(start, reuse)

    monkeypatch.setattr(builder, "build_function", recording)
    edited = _insert(text, "    off = base * ROWS\n", 1, "    extra = off * 2\n")
    result = analyzer.update(edited)
    helper = edited[: _nth(edited, "    extra = off * 2\n", 0)].rsplit("\ndef ", 1)[1].split("(", 1)[0]
    assert built == [helper]
    assert full(result) == full(analyse_source(edited))
    built.clear()
    undone = analyzer.update(text)  # and back: moved up again
    assert built == [helper]
    assert full(undone) == full(analyse_source(text))


HOST = (
    "\n\n@pl.jit.host\ndef host(\n"
    "    x: pl.Tensor[[256, COLS], pl.FP32],\n"
    "    acc: pl.InOut[pl.Tensor[[ROWS, COLS], pl.FP32]],\n"
    "    out: pl.Out[pl.Tensor[[256, COLS], pl.FP32]],\n"
    "    base: pl.Scalar[pl.INDEX],\n"
    ") -> pl.Tensor[[256, COLS], pl.FP32]:\n"
    "    out = entry(x, acc, out, base)\n"
    "    return out\n"
)


def test_a_host_program_takes_its_entrys_functions_as_the_entrys_own_program_built_them() -> None:
    text = generate_jit(200) + HOST
    analyzer = DocumentAnalyzer()
    result = analyzer.update(text)
    assert [p.name for p in result.programs] == ["entry", "host"]
    # every function of the entry's program was built once, for the entry's program
    assert analyzer.reused_functions == text.count("@pl.jit") - 1
    assert full(result) == full(DocumentAnalyzer().update(text))


# -- a host program composed from its entry's result (host_reuse) ----------------------------


def shown(a: FileAnalysis) -> tuple[object, ...]:
    """Everything a user sees of an update: `summary`, every record's call and function text,
    and the outlined programs as printed for people (a host's raw spliced names may differ
    from a full run's: the entry program's counter, `host_reuse`)."""
    records = [(r.program, r.parent, r.call, r.function_text, r.params, r.returns) for r in a.outlined]
    return (*summary(a), records, outlined_program_text(a), [p.front_end_failed for p in a.programs])


@pytest.fixture
def piped(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[str]]]:
    """Each pipeline run of the analysis: its program and the functions with a body it ran on
    (a host's run over its own functions has a bodiless stub per entry function)."""
    runs: list[tuple[str, list[str]]] = []

    def counting(program, *args, **kwargs):
        runs.append((program.name, sorted(fn.name for fn in program.functions if fn.body)))
        return run_pipeline(program, *args, **kwargs)

    monkeypatch.setattr(analysis, "run_pipeline", counting)
    monkeypatch.setattr(host_reuse, "run_pipeline", counting)
    return runs


def test_a_host_runs_the_passes_over_its_own_functions_and_takes_its_entrys_result(piped) -> None:
    text = generate_jit(200) + HOST
    analyzer = DocumentAnalyzer()
    result = analyzer.update(text)
    assert analyzer.composed == 1
    entry_functions = sorted(fn.name for fn in result.programs[0].source.functions)
    assert piped == [("entry", entry_functions), ("host", ["host"])]
    host = result.programs[1]
    assert {r.program for r in host.outlined} == {"host"}
    assert [r.name for r in host.outlined] == [r.name for r in result.programs[0].outlined]
    assert shown(result) == shown(DocumentAnalyzer(compose_hosts=False).update(text))
    # an edit in a helper both programs hold rebuilds both; the entry's passes run once, and
    # the host's run over its own functions is kept (they and the entry's stubs are as they were)
    piped.clear()
    edited = _insert(text, 'name_hint="norm', 1, "q")
    after = analyzer.update(edited)
    assert (analyzer.rebuilt, analyzer.composed) == (2, 1)
    assert piped == [("entry", entry_functions)]
    assert full(after) == full(analyse_source(edited))
    assert shown(after) == shown(DocumentAnalyzer(compose_hosts=False).update(edited))


def test_a_hosts_own_run_is_run_again_when_what_it_reads_of_an_entry_changes(piped) -> None:
    """The kept run over the host's functions is keyed by the entry's parameters (its stubs):
    an entry parameter that becomes In runs the host's passes again (the same edit in the
    entry's body would not), and the result is a full run's."""
    text = generate_jit(200) + HOST
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    edited = text.replace(
        "def entry(\n    x: pl.Tensor[[256, COLS], pl.FP32],\n    acc: pl.InOut[",
        "def entry(\n    x: pl.Tensor[[256, COLS], pl.FP32],\n    acc: pl.In[",
        1,
    )
    assert edited != text
    piped.clear()
    after = analyzer.update(edited)
    assert analyzer.composed == 1
    assert ("host", ["host"]) in piped
    assert full(after) == full(analyse_source(edited))
    assert shown(after) == shown(DocumentAnalyzer(compose_hosts=False).update(edited))


# Hosts whose result cannot be composed exactly: each is run in full (and must say the same as
# a full run, which `compose_hosts=False` forces).
KERNEL = (
    "\n\n@pl.jit.incore\ndef {name}(\n"
    "    x: pl.Tensor[[256, COLS], pl.FP32],\n"
    "    out: pl.Out[pl.Tensor[[256, COLS], pl.FP32]],\n"
    ") -> pl.Tensor[[256, COLS], pl.FP32]:\n"
    "    t = pl.load(x, [0, 0], [ROWS, COLS])\n"
    "    out = pl.store(t, [0, 0], out)\n"
    "    return out\n"
)
NOT_COMPOSED = {
    # the host calls a kernel named as an unnamed scope of the entry (`entry_incore_4` of
    # generate_jit(200): the counter counts every scope): the full run names that scope
    # otherwise (the names the passes reserve are the whole program's)
    "a host function named like an entry scope": KERNEL.format(name="entry_incore_4")
    + HOST.replace("    out = entry(", "    out = entry_incore_4(x, out)\n    out = entry("),
    # ... named as a name_hint of the entry: the entry's body names the host's function,
    # so the entry is built otherwise in the host's program
    "a host function named as an entry's name_hint": KERNEL.format(name="finish")
    + HOST.replace("    out = entry(", "    out = finish(x, out)\n    out = entry("),
    # a scope in the host: its outlining reads the entry's body pass by pass
    "a scope in the host": HOST.replace(
        "    out = entry(",
        "    with pl.at(level=pl.Level.CORE_GROUP):\n"
        "        t = pl.load(x, [0, 0], [ROWS, COLS])\n"
        "        out = pl.store(t, [0, 0], out)\n"
        "    out = entry(",
    ),
    # a front-end error in the host alone: the full run verifies neither part
    "a front-end error in the host": HOST.replace(
        "    out = entry(", "    bad__x = base + 1\n    out = entry("
    ),
}


@pytest.mark.parametrize("case", sorted(NOT_COMPOSED))
def test_a_host_that_cannot_be_composed_exactly_is_run_in_full(case: str, piped) -> None:
    text = generate_jit(200) + NOT_COMPOSED[case]
    analyzer = DocumentAnalyzer()
    result = analyzer.update(text)
    assert analyzer.composed == 0
    assert piped[-1][0] == "host" and "entry" in piped[-1][1]  # the full run walks the entry again
    assert full(result) == full(DocumentAnalyzer(compose_hosts=False).update(text))


def test_the_full_run_names_an_entry_scope_apart_from_a_host_function() -> None:
    """Why the names rule exists: in the host's program the entry's first unnamed scope is
    named apart from the host's kernel `entry_incore_4`, unlike in the entry's own program."""
    text = generate_jit(200) + NOT_COMPOSED["a host function named like an entry scope"]
    entry, host = DocumentAnalyzer().update(text).programs
    assert "entry_incore_4" in {r.name for r in entry.outlined}
    assert "entry_incore_4" not in {r.name for r in host.outlined}
    assert len(host.outlined) == len(entry.outlined)


@pytest.mark.parametrize("seed", [4, 5])
def test_incremental_equals_fresh_and_full_with_a_host_program(seed: int) -> None:
    """Random edits in an entry with a host: the composed host equals a fresh analysis (IR
    included) and, as shown, a full run."""
    import random

    rng = random.Random(seed)
    edits = {
        **JIT_EDITS,
        "a front-end error in the host": lambda t, n: t.replace(
            "    out = entry(", "    bad__x = base + 1\n    out = entry("
        ),
        "the host's call fixed": lambda t, n: t.replace("    bad__x = base + 1\n", ""),
    }
    text = generate_jit(300) + HOST
    analyzer = DocumentAnalyzer()
    assert full(analyzer.update(text)) == full(analyse_source(text))
    for _ in range(6):
        name = rng.choice(sorted(edits))
        helpers = text.count("\n@pl.jit.inline\n")
        edited = edits[name](text, rng.randrange(max(helpers - 1, 1)))
        result = analyzer.update(edited)
        assert full(result) == full(analyse_source(edited)), name
        assert shown(result) == shown(DocumentAnalyzer(compose_hosts=False).update(edited)), name
        text = edited


def test_an_edit_in_one_method_of_a_program_class_builds_that_method_only() -> None:
    text = generate(200)
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    edited = text.replace('name_hint="tail2"', 'name_hint="tail2x"', 1)  # in Prog2.main
    result = analyzer.update(edited)
    assert analyzer.rebuilt == 1
    assert analyzer.reused_functions == 1  # Prog2.spread
    assert full(result) == full(analyse_source(edited))
    moved = edited.replace("class Prog2:\n", "class Prog2:\n    # a line above both methods\n", 1)
    analyzer.update(moved)
    assert analyzer.reused_functions == 0  # both moved inside their unit: built again
    assert full(analyzer.update(moved)) == full(analyse_source(moved))


@pytest.mark.parametrize(
    ("edit", "rebuilt"),
    [
        # typing in a comment, or spaces at a line's end: the syntax tree is as it was
        (lambda t: _insert(t, "    # the same local names in every helper", 3, " (and more)"), 0),
        (lambda t: _insert(t, "    off = base * ROWS", 1, "   "), 0),
        (lambda t: _insert(t, "    off = base * ROWS", 1, "  # é, a non-ASCII comment"), 0),
        # the last line of a unit ends its span; a comment line after it lengthens the unit
        (lambda t: _insert(t, "        out = pl.store(z, [0, 0], out)\n    return out", 0, "  # done"), 1),
        # a comment line after a helper moves the units below it, not the helper: the
        # programs holding both are moved by pieces (`LineShift`), not rebuilt
        (lambda t: _insert(t, "    return out\n", 2, "# a comment line after the helper\n"), 0),
        # a space inside an expression moves the columns after it
        (lambda t: _insert(t, "    off = base *", 1, " "), 1),
    ],
)
def test_an_edit_that_leaves_a_units_syntax_tree_rebuilds_nothing(edit, rebuilt: int) -> None:
    text = generate_jit(300)
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    edited = edit(text)
    assert edited != text
    result = analyzer.update(edited)
    assert analyzer.rebuilt == rebuilt
    assert full(result) == full(analyse_source(edited))
