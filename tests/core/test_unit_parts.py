"""A long unit parsed by its statements (pypto_core.frontend.unit_parts): the tree and the
syntax error are the whole parse's, the statements an edit left alone are the objects of the
previous version's tree, and the unit key is equal exactly when the whole tree is."""

from __future__ import annotations

import ast
import hashlib
import pickle
import random

import pytest

from pypto_core.frontend import source, unit_parts, units

# a real-shaped kernel entry: a long signature, nested loops and scopes, an if/elif/else and a
# try, an inner decorated def, comments and strings that look like code, continuations
KERNEL = '''@pl.jit
def entry(
    x: pl.Tensor[[64, 128], pl.FP32],
    # the weights, one row per tile
    w: pl.Tensor[[128, 128], pl.BF16],
    out: pl.Out[pl.Tensor[[64, 128], pl.FP32]],
):
    """Entry doc.
    def not_a_statement():
        return 1
    """
    total = 0
    for i in pl.range(4):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="tile_a"):
            a = pl.load(x, [i * 16, 0], [16, 128])
            b = pl.load(w, [0, 0], [128, 128])  # a trailing comment
            # a comment between statements
            c = pl.matmul(a,
                          b)
            s = "x = 1\\n    y = 2"
            d = pl.add(c, \\
                c)
            if i == 0:
                e = pl.mul(d, 2.0)
            elif i == 1:
                e = pl.mul(d, 3.0)
            else:
                e = d
            pl.store(e, [i * 16, 0], out)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="tile_b"):
            f = pl.load(x, [i * 16, 0], [16, 128])
            g = pl.exp(f)
            h = pl.add(g, f)
            k = pl.sub(h, g)
            pl.store(k, [i * 16, 0], out)

        total = total + i
    try:
        value = total
    except ValueError as exc:
        value = 0
    finally:
        done = True

    @decorate
    @decorate_again(1)
    def inner(y):
        return y + 1

    while total > 0:
        total = total - 1
        if total == 2:
            break
    return out'''

PROGRAM = '''@pl.program
class Program:
    """A program of a few methods."""

    SIZE = 64

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        a = pl.load(x, [0], [64])
        b = pl.add(a, a)
        c = pl.mul(b, b)
        return c

    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        for i in pl.range(2):
            x = self.kernel(x)
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.add(x, x)
            z = pl.mul(y, y)
            w = pl.sub(z, y)
            v = pl.add(w, w)
            u = pl.mul(v, v)
        return u'''


def _whole(text: str) -> tuple[str | None, object]:
    module, error = source.parse(text + "\n", text.split("\n"), 0)
    return (None if module is None else ast.dump(module, include_attributes=True)), error


def _parsed(text: str) -> tuple[str | None, object]:
    parsed = unit_parts.parse(text)
    module = parsed.module
    return (None if module is None else ast.dump(module, include_attributes=True)), parsed.error


def _whole_key(text: str) -> str:
    """The unit key as it was before the split: the whole tree's pickle with every position."""
    module, _ = source.parse(text + "\n", text.split("\n"), 0)
    if module is None:
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    return hashlib.blake2b(
        b"%d %d " % (text.count("\n"), len(text.rsplit("\n", 1)[-1])) + pickle.dumps(module, protocol=5),
        digest_size=16,
    ).hexdigest()


def _key(text: str) -> str:
    return units._key(text, unit_parts.parse(text).digest)


def _fresh() -> None:
    unit_parts.parse.cache_clear()
    unit_parts._statement.cache_clear()
    unit_parts._skeleton_parse.cache_clear()


def _replace(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


@pytest.mark.parametrize(
    ("text", "old", "new"),
    [
        (KERNEL, 'name_hint="tile_a"', 'name_hint="tile_ax"'),
        (PROGRAM, "b = pl.add(a, a)", "b = pl.add(a, b)"),
    ],
    ids=["kernel", "program"],
)
def test_a_long_unit_parses_to_the_whole_parse_cold_and_after_an_edit(text: str, old: str, new: str) -> None:
    _fresh()
    assert _parsed(text) == _whole(text)
    edited = _replace(text, old, new)
    assert _parsed(edited) == _whole(edited)


def test_an_edit_in_one_statement_keeps_every_other_statement_object() -> None:
    _fresh()
    unit_parts.parse(KERNEL)  # cold: parsed whole, its pieces kept
    before = unit_parts.parse(_replace(KERNEL, "g = pl.exp(f)", "g = pl.exp(f + 2)")).module
    after = unit_parts.parse(_replace(KERNEL, "g = pl.exp(f)", "g = pl.exp(f + 1)")).module
    assert before is not None and after is not None
    old_entry, new_entry = before.body[0], after.body[0]
    assert isinstance(old_entry, ast.FunctionDef) and isinstance(new_entry, ast.FunctionDef)
    # the loop holding the edit is new; the statements around it are the same objects
    kept = [old is new for old, new in zip(old_entry.body, new_entry.body, strict=True)]
    loop = next(n for n, stmt in enumerate(old_entry.body) if isinstance(stmt, ast.For))
    assert kept == [n != loop for n in range(len(kept))]
    old_loop, new_loop = old_entry.body[loop], new_entry.body[loop]
    assert isinstance(old_loop, ast.For) and isinstance(new_loop, ast.For)
    # the edited scope is short: parsed again whole; the loop's other statements are kept
    assert [old is new for old, new in zip(old_loop.body, new_loop.body, strict=True)] == [True, False, True]
    assert new_entry.args is old_entry.args  # the header's parse is kept too (after a first edit)


def test_an_edited_method_of_a_program_class_is_the_only_new_method() -> None:
    _fresh()
    before = unit_parts.parse(PROGRAM).module
    after = unit_parts.parse(_replace(PROGRAM, "c = pl.mul(b, b)", "c = pl.mul(b, a)")).module
    assert before is not None and after is not None
    old_class, new_class = before.body[0], after.body[0]
    assert isinstance(old_class, ast.ClassDef) and isinstance(new_class, ast.ClassDef)
    names = [getattr(stmt, "name", None) for stmt in new_class.body]
    kept = {name: old is new for name, old, new in zip(names, old_class.body, new_class.body, strict=True)}
    assert kept == {None: True, "kernel": False, "main": True}


def test_lines_added_inside_a_unit_move_the_statements_after_them() -> None:
    _fresh()
    unit_parts.parse(KERNEL)
    edited = _replace(KERNEL, "            b = pl.load(w", "            bb = 1\n\n            b = pl.load(w")
    assert _parsed(edited) == _whole(edited)
    shorter = _replace(
        KERNEL,
        "            c = pl.matmul(a,\n                          b)",
        "            c = pl.matmul(a, b)",
    )
    assert _parsed(shorter) == _whole(shorter)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "            h = pl.add(g, f)",
            "            h = pl.add(g, f",
        ),  # an unclosed bracket swallows the rest
        ("            h = pl.add(g, f)", "          h = pl.add(g, f)"),  # an indentation no block has
        ("            h = pl.add(g, f)", "              h = pl.add(g, f)"),  # an unexpected indent
        ("        total = total + i", "        total = total +"),  # in a statement after two scopes
        ("    try:", "    try"),  # a clause header
        ("    @decorate\n", "    @decorate\n\n    x = 1\n"),  # a decorator with no def after it
        ("    return out", '    return "out'),  # a string left open
    ],
)
def test_a_syntax_error_in_one_statement_is_the_whole_parse_s(old: str, new: str) -> None:
    _fresh()
    unit_parts.parse(KERNEL)  # warm: the edit is parsed by its statements first
    edited = _replace(KERNEL, old, new)
    module, error = _parsed(edited)
    assert (module, error) == _whole(edited)
    assert error is not None


@pytest.mark.parametrize(
    ("old", "new", "same"),
    [
        ("# a comment between statements", "# a comment between statements, longer", True),
        ("128])  # a trailing comment", "128])  # a trailing comment!", True),
        ("        total = total + i", "        total = total + i   ", True),  # spaces at a line's end
        ('s = "x = 1\\n    y = 2"', "s = 'x = 1\\n    y = 2'", True),  # the same string, other quotes
        ("g = pl.exp(f)", "g = pl.exp( f)", False),  # the argument's column moves
        ('name_hint="tile_b"', 'name_hint="tile_c"', False),
        ("    w: pl.Tensor[[128, 128], pl.BF16],", "    w: pl.Tensor[[128, 128], pl.FP16],", False),
    ],
)
def test_the_key_is_equal_exactly_when_the_whole_tree_is(old: str, new: str, same: bool) -> None:
    _fresh()
    edited = _replace(KERNEL, old, new)
    assert (_whole_key(edited) == _whole_key(KERNEL)) is same
    assert (_key(edited) == _key(KERNEL)) is same
    _fresh()  # cold, the same keys: they are functions of the tree, however it was parsed
    assert (_key(edited) == _key(KERNEL)) is same


_TYPED = ["x", " ", "(", ")", ":", "\n", "#", '"', "'", "\\", "\t", "1", "    ", "@", "else:"]


@pytest.mark.parametrize("seed", range(4))
def test_random_edits_parse_and_key_as_the_whole_parse(seed: int) -> None:
    """Typing, deleting, duplicating and removing lines anywhere in the two fixtures, each
    version parsed after the previous one (its pieces kept)."""
    rng = random.Random(seed)
    for text in (KERNEL, PROGRAM):
        _fresh()
        previous = text
        unit_parts.parse(previous)
        for _ in range(60):
            lines = previous.split("\n")
            at = rng.randrange(len(lines))
            line = lines[at]
            roll = rng.random()
            if roll < 0.55:
                col = rng.randrange(len(line) + 1)
                lines[at] = line[:col] + rng.choice(_TYPED) + line[col:]
            elif roll < 0.7 and line:
                col = rng.randrange(len(line))
                lines[at] = line[:col] + line[col + 1 :]
            elif roll < 0.8:
                lines.insert(at, line)
            elif roll < 0.9 and len(lines) > 2:
                del lines[at]
            else:
                lines[at] = line + "  # note"
            edited = "\n".join(lines)
            assert _parsed(edited) == _whole(edited), edited
            assert (_key(edited) == _key(previous)) is (_whole_key(edited) == _whole_key(previous)), edited
            if unit_parts.parse(edited).error is None or rng.random() < 0.3:
                previous = edited  # mostly from code that parses, as typing is


def test_the_unit_splitter_hands_its_scan_on_and_gets_the_whole_parse() -> None:
    """`UnitSplitter` passes the logical-line starts of its own scan (`unit_parts.prime`)."""
    _fresh()
    text = f"import pl\n\n{KERNEL}\n\n\n{PROGRAM}\n"
    splitter = units.UnitSplitter()
    for version in (
        text,
        _replace(text, "g = pl.exp(f)", "g = pl.exp(f, 2)"),
        _replace(text, "c = pl.mul", "c ="),
    ):
        found = [unit for unit in splitter.split(version.split("\n")) if unit.end_line - unit.start_line > 20]
        assert [unit.name for unit in found] == ["entry", "Program"]
        for unit in found:
            assert _parsed(unit.text) == _whole(unit.text)
            _, error = source.parse(unit.text + "\n", unit.text.split("\n"), unit.start_line)
            assert unit.syntax_error == error
        splitter.release()


def test_a_first_edit_after_the_split_s_cold_parse_keeps_that_tree_s_statements() -> None:
    """A document's first split parses a long unit whole and takes no pieces from it; its first
    edit takes them from that tree, so the statements it left alone are that tree's objects."""
    _fresh()
    units._unit_facts.cache_clear()
    text = f"import pl\n\n{KERNEL}\n"
    splitter = units.UnitSplitter()
    cold = next(unit for unit in splitter.split(text.split("\n")) if unit.name == "entry")
    assert unit_parts._statement.cache_info().entries == 0  # nothing taken from the cold tree
    old_entry = cold.node
    edited = _replace(text, "g = pl.exp(f)", "g = pl.exp(f + 1)")
    new = next(unit for unit in splitter.split(edited.split("\n")) if unit.name == "entry")
    new_entry = new.node
    assert isinstance(old_entry, ast.FunctionDef) and isinstance(new_entry, ast.FunctionDef)
    assert _parsed(new.text) == _whole(new.text)
    loop = next(n for n, stmt in enumerate(old_entry.body) if isinstance(stmt, ast.For))
    kept = [old is new for old, new in zip(old_entry.body, new_entry.body, strict=True)]
    assert kept == [n != loop for n in range(len(kept))]
    old_loop, new_loop = old_entry.body[loop], new_entry.body[loop]
    assert isinstance(old_loop, ast.For) and isinstance(new_loop, ast.For)
    assert [old is new for old, new in zip(old_loop.body, new_loop.body, strict=True)] == [True, False, True]
    splitter.release()


def test_a_unit_keyed_at_the_cold_split_keeps_its_key_through_edits_that_keep_its_tree() -> None:
    """The first split keys a long unit without pickling its tree; an edit that leaves the tree
    as it was (a comment, spaces at a line's end) still keeps the key, and one that changes
    it does not, at the first edit and after it."""
    _fresh()
    units._unit_facts.cache_clear()
    text = f"import pl\n\n{KERNEL}\n"
    splitter = units.UnitSplitter()

    def key(version: str) -> str:
        found = next(unit for unit in splitter.split(version.split("\n")) if unit.name == "entry")
        splitter.release()
        return found.key

    cold = key(text)
    commented = _replace(text, "# a comment between statements", "# a comment between statements!")
    assert key(commented) == cold
    spaced = _replace(commented, "        total = total + i", "        total = total + i  ")
    assert key(spaced) == cold
    edited = _replace(spaced, "g = pl.exp(f)", "g = pl.exp(f + 1)")
    assert key(edited) != cold
    assert key(spaced) == cold  # back to a tree keyed before: its key again
