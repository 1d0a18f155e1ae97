"""Statement-level reuse in a function's build (`frontend/stmt_memo.py`, issue 13): after an
edit, an unchanged statement of the edited function is taken as its last build made it (the
same IR objects), a changed one is built again, and the result is exactly a fresh analysis's,
diagnostics and positions included."""

from __future__ import annotations

import ast
import io
import keyword
import random
import re
import sys
import tokenize
from collections.abc import Callable
from pathlib import Path

import pytest
from test_analysis_incremental import full

from pypto_core import ir
from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.frontend.line_scan import code_words, code_words_at_once
from pypto_core.results import FileAnalysis

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from gen_dsl import generate_jit

# A jit entry shaped like a real one: statements at the top, in scopes, loops and branches, one
# statement reporting a diagnostic (PTO199) above most of them.
ENTRY = """\
import pypto.language as pl

ROWS = 16
COLS = 64


@pl.jit
def entry(
    x: pl.Tensor[[256, COLS], pl.FP32],
    acc: pl.InOut[pl.Tensor[[ROWS, COLS], pl.FP32]],
    out: pl.Out[pl.Tensor[[256, COLS], pl.FP32]],
    base: pl.Scalar[pl.INDEX],
) -> pl.Tensor[[256, COLS], pl.FP32]:
    off = base * ROWS
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="first"):
        a = pl.load(x, [off, 0], [ROWS, COLS])
        b = pl.load(acc, [0, 0], [ROWS, COLS])
        c = pl.add(a, b)
        out = pl.store(c, [off, 0], out)
    pl.func_attr({"k": 1})
    for i in pl.range(4):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="loop"):
            e = pl.load(out, [i * ROWS, 0], [ROWS, COLS])
            f = pl.mul(e, e)
            out = pl.store(f, [i * ROWS, 0], out)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="middle"):
        u = pl.load(out, [off, 0], [ROWS, COLS])
        v = pl.neg(u)
        w = pl.add(u, v)
        out = pl.store(w, [off, 0], out)
    for j in pl.spmd(2, name_hint="spread"):
        p = pl.load(x, [j * ROWS, 0], [ROWS, COLS])
        out = pl.store(pl.add(p, p), [j * ROWS, 0], out)
    if base > 2:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="edge"):
            m = pl.load(acc, [0, 0], [ROWS, COLS])
            out = pl.store(m, [off, 0], out)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="last"):
        z = pl.load(out, [0, 0], [ROWS, COLS])
        out = pl.store(z, [0, 0], out)
    return out
"""


def _replace(old: str, new: str, count: int = 1) -> Callable[[str], str]:
    def edit(text: str) -> str:
        return text.replace(old, new, count)  # unchanged when an earlier edit took `old` away

    return edit


# what each edit does to the entry; `rebuilt` (when set): at most this many statements built
EDITS: dict[str, tuple[Callable[[str], str], int | None]] = {
    "the first statement's value": (_replace("off = base * ROWS", "off = base * ROWS + 0"), 2),
    "a name_hint in the middle scope": (_replace('name_hint="middle"', 'name_hint="middlex"'), 1),
    "a statement deep in the loop's scope": (_replace("f = pl.mul(e, e)", "f = pl.add(e, e)"), 3),
    "the last statement": (_replace("    return out\n", "    return acc\n"), 1),
    "a type a later statement reads": (
        _replace("b = pl.load(acc, [0, 0], [ROWS, COLS])", "b = pl.load(acc, [0, 0], [ROWS, 32])"),
        None,
    ),
    "a variable renamed": (_replace("c = pl.add(a, b)", "cc = pl.add(a, b)"), None),
    "a statement deleted": (_replace("        v = pl.neg(u)\n", ""), None),
    "a line inserted above the diagnostic": (
        _replace("    off = base * ROWS\n", "    off = base * ROWS\n    extra = off + 1\n"),
        None,
    ),
    "the diagnostic removed": (_replace('    pl.func_attr({"k": 1})\n', "    pass\n"), 1),
}


def _entry_body(analysis: FileAnalysis) -> list[ir.Stmt]:
    (program,) = analysis.programs
    (function,) = [f for f in program.source.functions if f.name == "entry"]
    return function.body


def _edited(edit: Callable[[str], str]) -> DocumentAnalyzer:
    """An analyzer that analysed the entry, then the entry edited (equal to a fresh analysis)."""
    analyzer = DocumentAnalyzer()
    analyzer.update(ENTRY)
    edited = edit(ENTRY)
    assert edited != ENTRY
    assert full(analyzer.update(edited)) == full(analyse_source(edited))
    return analyzer


@pytest.mark.parametrize("name", list(EDITS))
def test_an_edit_in_a_function_equals_a_fresh_analysis(name: str) -> None:
    edit, rebuilt = EDITS[name]
    analyzer = _edited(edit)
    memo = analyzer._functions
    if rebuilt is not None:  # statements built, at any depth; reused, the outermost ones
        assert memo.statements_built <= rebuilt
        assert memo.statements_reused >= 7
    # and back: the first build's records are gone, the edited build's serve
    assert full(analyzer.update(ENTRY)) == full(analyse_source(ENTRY))


def test_a_second_edit_in_another_scope_builds_only_its_own_path() -> None:
    # The first edit takes the loop's scope whole; its statements' records must come with it,
    # so the second edit, inside that scope, builds the edited statement and the two compound
    # statements around it, not the scope's other statements too.
    analyzer = DocumentAnalyzer()
    analyzer.update(ENTRY)
    first = _replace('name_hint="middle"', 'name_hint="middlex"')(ENTRY)
    analyzer.update(first)
    second = _replace("f = pl.mul(e, e)", "f = pl.add(e, e)")(first)
    assert full(analyzer.update(second)) == full(analyse_source(second))
    assert analyzer._functions.statements_built == 3


def test_edits_in_a_row_each_equal_a_fresh_analysis() -> None:
    analyzer = DocumentAnalyzer()
    text = ENTRY
    analyzer.update(text)
    for edit, _ in EDITS.values():
        text = edit(text)
        assert full(analyzer.update(text)) == full(analyse_source(text))
    assert "cc = pl.add(a, b)" in text and "v = pl.neg(u)" not in text


def test_a_diagnostic_of_a_kept_statement_is_reported_again_where_it_is() -> None:
    analyzer = DocumentAnalyzer()
    analyzer.update(ENTRY)
    edited = EDITS["a name_hint in the middle scope"][0](ENTRY)
    codes = [(d.code, d.span.start_line) for d in analyzer.update(edited).diagnostics]
    assert ("PTO199", ENTRY.splitlines().index('    pl.func_attr({"k": 1})')) in codes


def test_unchanged_statements_keep_their_ir_objects_and_variables() -> None:
    analyzer = DocumentAnalyzer()
    before = _entry_body(analyzer.update(ENTRY))
    after = _entry_body(analyzer.update(EDITS["a name_hint in the middle scope"][0](ENTRY)))
    assert len(before) == len(after)
    changed = [i for i, (old, new) in enumerate(zip(before, after, strict=True)) if old is not new]
    assert len(changed) == 1  # the edited scope, its body statements the same objects
    (index,) = changed
    old_scope, new_scope = before[index], after[index]
    assert isinstance(old_scope, ir.ScopeStmt) and isinstance(new_scope, ir.ScopeStmt)
    assert new_scope.name_hint == "middlex"
    assert all(a is b for a, b in zip(old_scope.body, new_scope.body, strict=True))


def test_a_statement_built_again_keeps_the_variable_it_binds_for_the_statements_after_it() -> None:
    analyzer = DocumentAnalyzer()
    before = _entry_body(analyzer.update(ENTRY))
    after = _entry_body(analyzer.update(EDITS["the first statement's value"][0](ENTRY)))
    first_old, first_new = before[0], after[0]
    assert isinstance(first_old, ir.AssignStmt) and isinstance(first_new, ir.AssignStmt)
    assert first_old is not first_new and first_old.target is first_new.target
    assert all(a is b for a, b in zip(before[1:], after[1:], strict=True))


def test_a_type_change_rebuilds_the_statements_that_read_it() -> None:
    analyzer = DocumentAnalyzer()
    before = _entry_body(analyzer.update(ENTRY))[1]
    edited = EDITS["a type a later statement reads"][0](ENTRY)
    result = analyzer.update(edited)
    assert full(result) == full(analyse_source(edited))
    after = _entry_body(result)[1]
    assert isinstance(before, ir.ScopeStmt) and isinstance(after, ir.ScopeStmt)
    loaded = after.body[1]
    assert isinstance(loaded, ir.AssignStmt) and loaded.target.type == ir.TileType((16, 32), "FP32")
    assert before.body[0] is after.body[0]  # `a = ...` reads nothing that changed
    assert before.body[2] is not after.body[2]  # `c = pl.add(a, b)` reads the new `b`
    # its type is the same (a broadcast add takes its first operand's), so is its variable
    assert before.body[2].target is after.body[2].target  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "edit",
    [
        EDITS["a name_hint in the middle scope"][0],
        # a tag where the diagnostic was: the scopes after it, kept, are tagged (in place)
        _replace('    pl.func_attr({"k": 1})\n', "    pl.dump_tag(out)\n"),
        _replace('    pl.func_attr({"k": 1})\n', "    pl.dump_tag(out)\n    pl.dump_tag(x)\n"),
    ],
)
def test_an_edit_modifies_no_ir_of_the_analysis_before_it(edit: Callable[[str], str]) -> None:
    """The kept statements are shared with the last analysis: nothing after may change them
    (a `pl.dump_tag` is applied in place, to a copy)."""
    analyzer = DocumentAnalyzer()
    first = analyzer.update(ENTRY)
    printed = [repr(p.source) for p in first.programs]
    edited = edit(ENTRY)
    assert edited != ENTRY
    assert full(analyzer.update(edited)) == full(analyse_source(edited))
    assert [repr(p.source) for p in first.programs] == printed
    assert full(analyzer.update(ENTRY)) == full(first)


# Lines typed or taken out inside the entry, at several depths: every statement below moves
# (its text the same, its place not), each is taken from the last build moved, not built.
LINE_EDITS: dict[str, tuple[Callable[[str], str], int | None]] = {
    "a blank line at the top of the body": (
        _replace("    off = base * ROWS\n", "    off = base * ROWS\n\n"),
        0,
    ),
    "a line of code at the top": (
        _replace("    off = base * ROWS\n", "    off = base * ROWS\n    extra = off + 1\n"),
        1,
    ),
    "a comment line in the loop's scope": (
        _replace("            f = pl.mul(e, e)\n", "            # squared\n            f = pl.mul(e, e)\n"),
        2,  # the loop and its scope: their text changed
    ),
    "a blank line in a branch's scope": (
        _replace("            m = pl.load(acc", "\n            m = pl.load(acc"),
        2,
    ),
    "a line taken out of the first scope": (
        _replace("        b = pl.load(acc, [0, 0], [ROWS, COLS])\n", ""),
        None,
    ),
    "two lines taken out above the diagnostic": (
        _replace("        c = pl.add(a, b)\n        out = pl.store(c, [off, 0], out)\n", ""),
        1,
    ),
}


@pytest.mark.parametrize("name", list(LINE_EDITS))
def test_statements_below_a_line_typed_inside_a_function_are_taken_moved(name: str) -> None:
    edit, built = LINE_EDITS[name]
    analyzer = _edited(edit)
    memo = analyzer._functions
    if built is not None:
        assert memo.statements_built <= built
        assert memo.statements_moved >= 1
    assert full(analyzer.update(ENTRY)) == full(analyse_source(ENTRY))  # and back: moved again
    assert memo.statements_moved >= 1


def test_an_edit_inside_a_statement_taken_moved_builds_only_its_own_path() -> None:
    # The line break takes the loop moved, a clone; the records of the statements inside it
    # must come with it, mapped onto the clone's objects, so the edit inside the loop's scope
    # builds the edited statement and the two compound statements around it, not the scope's
    # other statements too.
    analyzer = DocumentAnalyzer()
    analyzer.update(ENTRY)
    moved = LINE_EDITS["a blank line at the top of the body"][0](ENTRY)
    analyzer.update(moved)
    assert analyzer._functions.statements_moved >= 1
    edited = _replace("f = pl.mul(e, e)", "f = pl.add(e, e)")(moved)
    assert full(analyzer.update(edited)) == full(analyse_source(edited))
    assert analyzer._functions.statements_built == 3
    assert full(analyzer.update(moved)) == full(analyse_source(moved))  # and back


def test_line_edits_in_a_row_each_equal_a_fresh_analysis() -> None:
    analyzer = DocumentAnalyzer()
    text = ENTRY
    analyzer.update(text)
    for edit, _ in [*LINE_EDITS.values(), *EDITS.values(), *LINE_EDITS.values()]:
        text = edit(text)
        assert full(analyzer.update(text)) == full(analyse_source(text))


def test_a_moved_statement_reads_the_variables_above_and_binds_moved_copies() -> None:
    """What the identity rules become for a statement that only moved: it is a new object
    (its spans are new), the `Var`s it reads that statements above the line bind are the same
    objects, and each `Var` it binds is a new one (its span moved), read by the moved
    statements after it."""
    analyzer = DocumentAnalyzer()
    before = _entry_body(analyzer.update(ENTRY))
    after = _entry_body(analyzer.update(LINE_EDITS["a blank line at the top of the body"][0](ENTRY)))
    assert before[0] is after[0]  # `off = ...`, above the line
    assert all(old is not new for old, new in zip(before[1:], after[1:], strict=True))
    old_scope, new_scope = before[1], after[1]
    assert isinstance(old_scope, ir.ScopeStmt) and isinstance(new_scope, ir.ScopeStmt)
    assert new_scope.span == old_scope.span.shifted(1)
    old_a, new_a = old_scope.body[0], new_scope.body[0]
    assert isinstance(old_a, ir.AssignStmt) and isinstance(new_a, ir.AssignStmt)
    assert new_a.target is not old_a.target and new_a.target.span == old_a.target.span.shifted(1)
    load = new_a.value
    assert isinstance(load, ir.Call)
    off = after[0].target  # type: ignore[attr-defined]
    assert any(arg is off for item in load.args if isinstance(item, ir.ListExpr) for arg in item.items)
    add = new_scope.body[2]
    assert isinstance(add, ir.AssignStmt) and isinstance(add.value, ir.Call)
    assert add.value.args[0] is new_a.target  # `c = pl.add(a, b)` reads the moved `a`


def test_a_one_shot_analysis_records_no_statement() -> None:
    """A text analysed once (`analyse_source`: each file of `pypto-check`) has no next build
    to take records from, so its builds make none; its analysis is the same."""
    once, kept = DocumentAnalyzer(one_shot=True), DocumentAnalyzer()
    assert full(once.update(ENTRY)) == full(kept.update(ENTRY))
    assert kept._functions.statements_built > 0
    assert once._functions.statements_built == 0


# An inline helper two jit entries splice, its comment naming both: each entry's program has
# the other entry's signature in its callee table, so a key holding every callee the text
# names (the comment included) differed between the two programs, the helper was built anew
# in each, and each build's statement records replaced the other's (pypto-lib's qwen3
# `decode_fwd.py`: `_decode_layer`, spliced by `decode_fwd` and `decode_fwd_layers`).
TWO_ENTRIES = """\
import pypto.language as pl

ROWS = 16


@pl.jit.inline
def layer(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]):
    # spliced by first_entry and by second_entry
    for i in pl.range(4):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="layer_load"):
            a = pl.load(x, [i * ROWS, 0], [ROWS, 64])
            b = pl.add(a, a)
            out = pl.store(b, [i * ROWS, 0], out)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="layer_tail"):
        c = pl.load(out, [0, 0], [ROWS, 64])
        out = pl.store(pl.neg(c), [0, 0], out)
    return out


@pl.jit
def first_entry(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    out = layer(x, out)
    return out


@pl.jit
def second_entry(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    out = layer(x, out)
    return out
"""


def test_a_helper_two_entries_splice_is_built_once_per_edit_from_its_last_build() -> None:
    analyzer = DocumentAnalyzer()
    text = TWO_ENTRIES
    analyzer.update(text)
    for hint in ("layer_tailx", "layer_tailxy"):
        text = text.replace(hint[:-1] + '"', hint + '"', 1)
        assert full(analyzer.update(text)) == full(analyse_source(text))
        memo = analyzer._functions
        # the `with` statement edited, built in the first program and taken whole in the second
        assert memo.statements_built == 1
        assert memo.statements_reused >= 2


def test_a_callee_named_only_in_a_comment_is_not_read() -> None:
    words = code_words('x = f("#") + callee(y)  # entry here\ns = """a # b\nc""" + g(z)  # k\n')
    assert {"callee", "f", "g", "x", "y", "z", "s", "a", "b", "c"} <= words
    assert not {"entry", "here", "k"} & words


def test_a_long_text_is_read_for_words_by_pieces_as_a_whole() -> None:
    # a string open across the 32-line pieces the words are found by, a `#` in it and code
    # after it on the line it closes: the words of each piece are found from where it stands
    lines = [f"v{k} = w{k}  # note{k}" for k in range(100)]
    lines[30] = 's = """a # b'
    lines[31:36] = ["# c", "d", "e", "f", 'g # h""" + after(i)  # tail']
    text = "\n".join(lines)
    names = {
        token.string
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if token.type == tokenize.NAME
    }
    words = code_words(text)
    assert {"after", "i", "v99", "w99"} <= names <= words
    assert not {"tail", "note0", "note99"} & words
    assert {"c", "h"} <= words  # a string's words count
    assert code_words_at_once(text) == words  # as one pass over the text (a text analysed once)


# PTO179's hint names the program function closest to an undefined `self.` call, so it reads
# every function's name, not only those the caller spells: a method added later must change
# the hint of the call kept from before (`kernal` is no substring of `kernel`).
TYPO = """\
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def other(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return x

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        a = self.other(x)
        y = self.kernal(a)
        return y
"""

ADDED = """
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return x
"""


def test_a_function_added_to_a_program_changes_the_hint_of_a_kept_undefined_call() -> None:
    analyzer = DocumentAnalyzer()
    before = analyzer.update(TYPO)
    assert [d.hint for d in before.diagnostics if d.code == "PTO179"] == [
        "define it in the program with @pl.function"
    ]
    added = TYPO + ADDED
    after = analyzer.update(added)
    assert full(after) == full(analyse_source(added))
    assert [d.hint for d in after.diagnostics if d.code == "PTO179"] == ["did you mean 'self.kernel'?"]
    # typing the new function's name rebuilds neither `other` nor main's kept statements
    renamed = added.replace("def kernel(", "def kernelx(")
    assert full(analyzer.update(renamed)) == full(analyse_source(renamed))
    assert analyzer._functions.statements_built <= 3


def _top_level(text: str) -> int:
    """The entry's top-level statements (it has no docstring or `pl.func_attr` prologue)."""
    (entry,) = [node for node in ast.parse(text).body if isinstance(node, ast.FunctionDef)]
    return len(entry.body)


@pytest.mark.parametrize(
    ("name", "certified"),
    [
        # the edited scope leaves what it left: every other top-level statement is certified
        ("a name_hint in the middle scope", "all but one"),
        ("the last statement", "all but one"),
        # `b` of another type leaves the first scope's writes unlike: certified up to it only
        ("a type a later statement reads", 1),
        # `off` built again binds the `Var` of before: the same writes
        ("the first statement's value", "all but one"),
        # the first scope binds `cc`, not `c`: compared from there on
        ("a variable renamed", 1),
    ],
)
def test_the_top_level_after_an_edit_is_taken_on_the_certified_environment(
    name: str, certified: int | str
) -> None:
    edit, _ = EDITS[name]
    analyzer = DocumentAnalyzer()
    analyzer.update(ENTRY)
    analyzer.update(ENTRY)  # the records of a second build (a first one keeps no order)
    edited = edit(ENTRY)
    assert full(analyzer.update(edited)) == full(analyse_source(edited))
    expected = _top_level(edited) - 1 if certified == "all but one" else certified
    assert analyzer._functions.statements_certified == expected
    assert full(analyzer.update(ENTRY)) == full(analyse_source(ENTRY))


def test_a_signature_read_again_certifies_nothing() -> None:
    analyzer = DocumentAnalyzer()
    analyzer.update(ENTRY)
    edited = ENTRY.replace("base: pl.Scalar[pl.INDEX],", "base: pl.Scalar[pl.INDEX],  ")
    edited = edited.replace('name_hint="middle"', 'name_hint="middlex"')
    assert full(analyzer.update(edited)) == full(analyse_source(edited))
    assert analyzer._functions.statements_certified == 0


def _token_edit(rng: random.Random, text: str) -> str:
    """One random token changed on one random line inside a function: a digit made another,
    a name made another name of the text or a longer one (a target renamed, a read of another
    variable, a type's extent changed: what a statement writes or reads changes, or not)."""
    lines = text.split("\n")
    inside = [
        i
        for i, line in enumerate(lines)
        if line.startswith("        ") or (line.startswith("    ") and "=" in line)
    ]
    at = rng.choice(inside)
    tokens = list(re.finditer(r"[A-Za-z_]\w*|\d+", lines[at]))
    names = sorted(set(re.findall(r"\b[a-z_]\w*\b", text)) - set(keyword.kwlist) - {"pl"})
    token = rng.choice(tokens)
    word = token.group()
    if word.isdigit():
        new = str(rng.choice([1, 2, 16, 32, 64]))
    elif rng.random() < 0.5:
        new = word + "x"
    else:
        new = rng.choice(names)
    lines[at] = lines[at][: token.start()] + new + lines[at][token.end() :]
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("source", ["entry", "generated"])
def test_incremental_equals_fresh_after_random_token_edits_in_function_bodies(source: str, seed: int) -> None:
    """Each edit on the last one's text and analysis: statements whose writes change, or stay
    the same, anywhere in the body (the top level taken on the certified environment after
    them, or compared), each result a fresh analysis's."""
    rng = random.Random(seed)
    text = ENTRY if source == "entry" else generate_jit(300)
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    for _ in range(8):
        text = _token_edit(rng, text)
        assert full(analyzer.update(text)) == full(analyse_source(text)), text
