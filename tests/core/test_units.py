"""Splitting a module into top-level units (pypto_core.frontend.units)."""

from __future__ import annotations

import ast
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pypto_core.frontend import UnitSplitter, split_units
from pypto_core.frontend import units as units_module
from pypto_core.frontend.line_scan import has_code, scan_line
from pypto_core.span import split_lines

from markers import extract


def _starts(text: str) -> list[tuple[str, str | None, int, int]]:
    return [(u.kind, u.name, u.start_line, u.end_line) for u in split_units(text)]


def test_decorators_stay_with_their_def_and_each_dsl_unit_is_its_own() -> None:
    m = extract(
        """
        ${imp}import pypto.language as pl
        ${rows}ROWS = 64

        ${prog}@pl.program(
            strict_ssa=True,
        )
        # a comment between decorator and class
        class Prog:
            @pl.function
            def main(self, a):
                return a
        # trailing comment, not part of the program

        ${inl}@pl.inline
        def helper(a):
            return a

        ${jit}@pl.jit.incore(level=pl.Level.CORE_GROUP)
        @other.decorator
        def kernel(a):
            pass
        """
    )
    lines = m.text.split("\n")
    assert _starts(m.text) == [
        ("other", None, m.point("imp")[0], m.point("imp")[0] + 1),
        ("other", None, m.point("rows")[0], m.point("rows")[0] + 1),
        ("program", "Prog", m.point("prog")[0], lines.index("        return a") + 1),
        ("inline", "helper", m.point("inl")[0], m.point("inl")[0] + 3),
        ("jit", "kernel", m.point("jit")[0], m.point("jit")[0] + 4),
    ]
    program = split_units(m.text)[2]
    assert isinstance(program.node, ast.ClassDef) and program.decorator == "pl.program"
    assert program.text.startswith("@pl.program(")
    assert split_units(m.text)[4].decorator == "pl.jit.incore"


def test_brackets_strings_continuations_and_clauses_do_not_start_statements() -> None:
    text = extract(
        """
        X = (1,
        2)
        S = '''
        class NotAClass:
        '''
        Y = 1 + \\
        2
        if X:
            pass
        else:
            pass
        try:
            pass
        except Exception:
            pass
        finally:
            pass
        T = "a # not a comment (" ; U = ')'
        V = 3
        """
    ).text
    assert [start for _, _, start, _ in _starts(text)] == [0, 2, 5, 7, 11, 17, 18]
    assert all(u.syntax_error is None for u in split_units(text))


def test_a_syntax_error_in_one_program_leaves_the_next_program_parsed_with_an_exact_position() -> None:
    m = extract(
        """
        import pypto.language as pl

        @pl.program
        class Broken:
            @pl.function
            def main(self, a):
                x = a +{|err:*|} 2
                return x

        @pl.program
        class Good:
            @pl.function
            def main(self, a):
                return a
        """
    )
    broken, good = split_units(m.text)[1:]
    assert broken.node is None and broken.syntax_error is not None
    assert broken.syntax_error.code == "PTO001"
    assert broken.syntax_error.span == m.named["err"]
    assert good.syntax_error is None and isinstance(good.node, ast.ClassDef) and good.node.name == "Good"


def test_an_unclosed_bracket_does_not_swallow_the_following_program() -> None:
    m = extract(
        """
        import pypto.language as pl

        @pl.jit
        def entry(a):
            x = {|open:(|}a +

        ${good}@pl.jit
        def other(a):
            return a
        """
    )
    units = split_units(m.text)
    assert [u.name for u in units] == [None, "entry", "other"]
    assert (
        units[1].syntax_error is not None
        and units[1].syntax_error.span.start_line == m.named["open"].start_line
    )
    assert units[1].syntax_error.span.start_col == m.named["open"].start_col
    assert units[2].start_line == m.point("good")[0] and units[2].syntax_error is None


def test_falls_back_to_the_whole_file_parse_when_the_scan_guesses_wrong() -> None:
    # A decorator-looking line at column 0 inside brackets is legal Python (a matrix product
    # continuation); the scan takes it for a new unit, the unit fails, the whole file parses.
    text = "x = (a\n@b)\ny = 2\n"
    units = split_units(text)
    assert [(u.start_line, u.end_line) for u in units] == [(0, 2), (2, 3)]
    assert all(u.syntax_error is None for u in units)


def test_unit_key_is_the_text_hash_not_the_position() -> None:
    body = "@pl.jit\ndef entry(a):\n    return a\n"
    first = split_units("import pypto.language as pl\n" + body)[1]
    moved = split_units("import pypto.language as pl\n\n\n# moved\n" + body)[1]
    edited = split_units("import pypto.language as pl\n" + body.replace("return a", "return  a"))[1]
    assert first.start_line != moved.start_line
    assert first.key == moved.key
    assert first.key != edited.key


def test_stray_indented_code_before_the_first_statement_is_reported() -> None:
    units = split_units("    x = 1\ny = 2\n")
    assert units[0].syntax_error is not None and units[0].syntax_error.span.start_line == 0
    assert units[1].syntax_error is None


def test_empty_and_blank_files_have_no_units() -> None:
    assert split_units("") == []
    assert split_units("\n\n   \n# only a comment\n") == []


_FRAGMENTS = st.sampled_from(
    [
        "@pl.jit\n",
        "@pl.program\n",
        "def f(a):\n",
        "class C:\n",
        "    return a\n",
        "x = (",
        ")",
        "[",
        "]",
        "'",
        '"',
        "'''",
        '"""',
        "#",
        "\\\n",
        "\n",
        "\r\n",
        "\r",
        "\t",
        "else:\n",
        "    pass\n",
        "é𝄞",
        "\0",
        "import pypto.language as pl\n",
        "y = 1\n",
        "rb'",
        "f'{x}'",
        "\\\\",
        "\\'",
        "@",
        "(a\n@b)\n",
        "lambda: (\n",
        "if x:\n",
        "try:\n",
        "except E:\n",
        ";",
    ]
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("f'{x}';(a\n@b)\n", [(0, 2, "f'{x}';(a\n@b)")]),
        ("(a\n@b); c\nd = 1\n", [(0, 2, "(a\n@b); c"), (2, 3, "d = 1")]),
    ],
)
def test_statements_sharing_a_line_after_a_guessed_scan_are_one_unit(
    text: str, expected: list[tuple[int, int, str]]
) -> None:
    """An `@` at column 0 inside brackets makes the scan guess and the whole parse decide; a
    statement on the line where the one before ends is in that one's unit (the property test
    below found `f'{x}';(a` ... giving an empty unit at its line)."""
    assert [(u.start_line, u.end_line, u.text) for u in split_units(text)] == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(_FRAGMENTS, max_size=40).map("".join))
def test_any_text_splits_into_ordered_disjoint_units_without_raising(text: str) -> None:
    units = split_units(text)
    line_count = len(split_lines(text))
    previous_end = 0
    for unit in units:
        assert previous_end <= unit.start_line < unit.end_line <= line_count
        previous_end = unit.end_line
        assert (unit.node is None) == (unit.syntax_error is not None)


def test_a_comment_like_last_line_inside_a_string_stays_in_its_unit() -> None:
    (unit,) = split_units("'''@pl.jit\n#'''")  # found by the property below
    assert unit.syntax_error is None
    assert unit.text == "'''@pl.jit\n#'''"


def test_a_lone_backslash_at_column_0_continues_an_indented_line() -> None:
    text = "def f(a):\n\\\n    return a\n"  # found by the property below
    (unit,) = split_units(text)
    assert unit.syntax_error is None and unit.text == text.rstrip("\n")
    first, second = split_units("x = 1\n\\\ny = 2\n")  # before a column-0 line it starts one
    assert (first.text, second.text) == ("x = 1", "\\\ny = 2")


@settings(max_examples=500, deadline=None)
@given(st.lists(_FRAGMENTS, max_size=40).map("".join))
def test_a_file_that_parses_whole_splits_into_units_that_all_parse(text: str) -> None:
    try:
        whole = ast.parse(text)
    except (SyntaxError, ValueError):
        return
    units = split_units(text)
    assert all(u.syntax_error is None for u in units)
    assert sum(len(u.node.body) if isinstance(u.node, ast.Module) else 1 for u in units) == len(whole.body)


def test_an_edit_reparses_only_the_units_it_changed() -> None:
    first = "@pl.jit\ndef first(a):\n    return a\n"
    second = "@pl.jit\ndef second(a):\n    return a\n"
    before = split_units("import pypto.language as pl\n" + first + second)
    after = split_units("import pypto.language as pl\n" + first.replace("return a", "return a + 1") + second)
    assert after[2].node is before[2].node  # unchanged text: the cached tree
    assert after[1].node is not before[1].node
    assert isinstance(after[1].node, ast.FunctionDef) and isinstance(after[1].node.body[0], ast.Return)


PROGRAMS = "".join(
    f"""
@pl.program
class P{n}:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return x
"""
    for n in range(4)
)
MODULE = "import pypto.language as pl\n" + PROGRAMS


def _facts(units: list) -> list[tuple[object, ...]]:
    return [(u.kind, u.name, u.text, u.start_line, u.end_line, u.key, u.syntax_error) for u in units]


def _resplit(before: str, after: str) -> tuple[list, list]:
    """The units of `before`, then of `after` split incrementally (checked against a fresh split)."""
    splitter = UnitSplitter()
    old = splitter.split(split_lines(before))
    new = splitter.split(split_lines(after))
    assert _facts(new) == _facts(split_units(after))
    return old, new


def test_an_edit_inside_one_program_reuses_the_units_before_it_and_moves_those_after_it() -> None:
    after = MODULE.replace("class P1:\n", "class P1:\n    ROWS = 64\n\n")
    old, new = _resplit(MODULE, after)
    assert [u.name for u in new] == [None, "P0", "P1", "P2", "P3"]
    assert [u.node for u in new[:2]] == [u.node for u in old[:2]]  # the same trees, not parsed again
    assert [u.start_line for u in new[3:]] == [u.start_line + 2 for u in old[3:]]
    assert [u.key for u in new[3:]] == [u.key for u in old[3:]]


def test_a_string_opened_in_one_program_swallows_the_programs_after_it() -> None:
    _, new = _resplit(MODULE, MODULE.replace("class P1:\n", 'class P1:\n    """\n'))
    assert [u.name for u in new] == [None, "P0", "P1"]
    assert new[-1].syntax_error is not None


def test_a_program_whose_first_line_is_indented_joins_the_unit_before_it() -> None:
    _, new = _resplit(MODULE, MODULE.replace("@pl.program\nclass P2", "  @pl.program\nclass P2"))
    assert [u.name for u in new] == [None, "P0", "P1", "P2", "P3"]
    assert new[2].text.endswith("  @pl.program")


def test_a_program_typed_at_the_end_is_a_new_unit() -> None:
    _, new = _resplit(MODULE, MODULE + "\n@pl.program\nclass P4:\n    pass\n")
    assert [u.name for u in new] == [None, "P0", "P1", "P2", "P3", "P4"]


def test_a_backslash_line_before_a_statement_belongs_to_that_statement_after_a_whole_parse() -> None:
    # `@b)` at column 0 inside brackets makes the scan guess; the whole-file parse then says
    # where statements start, and `ast` puts the second one on the line after the backslash
    text = "(a\n@b)\n\\\n(a\n@b)\n"
    assert [(u.start_line, u.end_line, u.syntax_error) for u in split_units(text)] == [
        (0, 2, None),
        (2, 5, None),
    ]


def _straight_scan(chunk: tuple[str, ...]) -> tuple[int, str | None, bool, tuple[int, ...], tuple[int, ...]]:
    """What `_scan_chunk` says of `chunk`, scanned line by line in one go (no pieces)."""
    depth, quote, continued, strings, heads = 0, None, False, [], []
    for offset, line in enumerate(chunk):
        if quote is not None:
            strings.append(offset)
        elif offset and depth == 0 and not continued and has_code(line):
            heads.append(offset)
        depth, quote, continued = scan_line(line, depth, quote)
    return depth, quote, continued, tuple(strings), tuple(heads)


_LONG_LINES = st.lists(
    st.lists(_FRAGMENTS, max_size=4).map(lambda parts: "    " + "".join(parts)), min_size=30, max_size=120
)


@settings(max_examples=300, deadline=None)
@given(_LONG_LINES, st.integers(min_value=0), st.sampled_from(["x", "'", '"""', "(", ")", "\\", "#"]))
def test_a_long_chunk_scanned_by_pieces_is_scanned_as_in_one_go_before_and_after_an_edit(
    lines: list[str], at: int, typed: str
) -> None:
    """A function is one chunk of the scan, cached by pieces of lines (a keystroke scans the
    piece it touched): strings, brackets and backslashes open across a piece's end carry on
    into the next one as in a scan of the whole."""
    chunk = tuple(["def f(a):", *"".join(lines).split("\n")])
    assert units_module._scan_chunk(chunk, 0, None) == _straight_scan(chunk)
    line = at % len(chunk)
    edited = (*chunk[:line], chunk[line] + typed, *chunk[line + 1 :])
    assert units_module._scan_chunk(edited, 0, None) == _straight_scan(edited)


@settings(max_examples=200, deadline=None)
@given(_LONG_LINES, st.integers(min_value=0), st.sampled_from(["x", "'", '"""', "(", ")", "\\", "#"]))
def test_an_edit_in_a_long_function_splits_as_a_fresh_split_does(
    lines: list[str], at: int, typed: str
) -> None:
    body = "".join(lines).split("\n")
    text = "\n".join(["import pypto.language as pl", "def f(a):", *body, "def g(b):", "    return b", ""])
    splitter = UnitSplitter()
    splitter.split(split_lines(text))
    edited_lines = split_lines(text)
    line = 2 + at % len(body)
    edited_lines[line] += typed
    again = splitter.split(edited_lines)
    fresh = UnitSplitter().split(list(edited_lines))
    assert [(u.start_line, u.end_line, u.text) for u in again] == [
        (u.start_line, u.end_line, u.text) for u in fresh
    ]


@pytest.mark.parametrize("opener", ["    x = 1 + \\", "    x = '''a", "    x = (1,", "    x = 'a\\"])
def test_what_is_open_at_a_pieces_last_line_carries_into_the_next_piece(opener: str) -> None:
    chunk = (
        "def f(a):",
        *["    y = 1"] * 30,
        opener,
        "    b",
        "    c = 2",
        "    '''",
        "    d = 3)",
        "    return a",
    )
    assert len(chunk) > 32 and chunk[31] == opener  # the piece ends on the opener
    assert units_module._scan_chunk(chunk, 0, None) == _straight_scan(chunk)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.sampled_from(["@", " ", "\t", "\n", "\r", "x", "@pl.jit\n", "    @pl.inline\n", "a @ b"]),
        max_size=30,
    )
)
def test_an_indented_decorator_is_found_where_a_line_start_regex_finds_one(parts: list[str]) -> None:
    text = "".join(parts)
    assert units_module.has_indented_decorator(text) == (re.search(r"^[ \t]+@", text, re.M) is not None)


_COL0_LINES = ["", "\\", "x = 1", " y", "\t z", "#c", "\f", "def f():", "@d", "\\ ", "\r", "é"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_COL0_LINES), max_size=8), st.integers(0, 8))
def test_the_lines_with_code_at_column_0_are_found_as_each_line_is_read(lines: list[str], first: int) -> None:
    # a lone backslash joins the next line (its indentation counts); a form feed, a tab, a
    # space or a `#` first is no code at column 0
    first = min(first, len(lines))
    expected = [n for n in range(first, len(lines)) if units_module._starts_at_col0(lines, n)]
    assert list(units_module._code_at_col0(lines, first)) == expected
