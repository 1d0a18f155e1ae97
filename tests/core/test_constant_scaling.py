"""A keystroke next to many module constants works on the edited unit only (issue 20: with
200,000 constants each keystroke classified, hashed and parsed every unit again, 31 s). The
work is counted, not timed: the units classified (`units._unit_facts`), the trees read
(`units.parse_unit`), the module contexts built; it is the same for 100 and 1,000 constants."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from pypto_core import frontend
from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.frontend import UnitSplitter, units
from pypto_core.span import split_lines

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from gen_dsl import ONE_SCOPE_ANCHOR, ONE_SCOPE_PROGRAM, constant_chain, with_one_program

Edit = Callable[[str], str]

EDITS: dict[str, Edit] = {
    "a comment typed": lambda text: text.replace(ONE_SCOPE_ANCHOR, ONE_SCOPE_ANCHOR + "  # typing"),
    "a line break": lambda text: text.replace(ONE_SCOPE_ANCHOR, ONE_SCOPE_ANCHOR + "\n"),
    "an op changed": lambda text: text.replace(ONE_SCOPE_ANCHOR, ONE_SCOPE_ANCHOR.replace("add", "mul")),
}


def _counting(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[int]:
    count = [0]
    original = getattr(owner, name)

    def counted(*args: object, **kwargs: object) -> object:
        count[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return count


def _work(monkeypatch: pytest.MonkeyPatch, text: str, edit: Edit) -> tuple[int, int, int]:
    """(units classified, trees read, contexts built) by the edit's analysis."""
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    units._unit_facts.cache_clear()  # the edited text may have been seen: each call is counted
    with monkeypatch.context() as patch:
        classified = _counting(patch, units, "_unit_facts")
        parsed = _counting(patch, units, "parse_unit")
        built = _counting(patch, frontend, "module_context")
        result = analyzer.update(edit(text))
        work = (classified[0], parsed[0], built[0])
    fresh = analyse_source(edit(text))
    assert (result.diagnostics, result.outlined) == (fresh.diagnostics, fresh.outlined)
    return work


@pytest.mark.parametrize("edit", EDITS.values(), ids=EDITS.keys())
def test_a_keystroke_in_a_program_after_the_constants_works_on_the_program_only(
    monkeypatch: pytest.MonkeyPatch, edit: Edit
) -> None:
    work = [_work(monkeypatch, with_one_program(constant_chain(n)), edit) for n in (100, 1_000)]
    assert work[0] == work[1]
    classified, parsed, built = work[1]
    assert (classified, built) == (1, 0)  # the program's unit; the context is kept
    assert parsed == 2  # the program's: its facts parse it, its build reads the tree


@pytest.mark.parametrize("edit", EDITS.values(), ids=EDITS.keys())
def test_constants_after_the_edited_program_are_moved_not_classified_again(
    monkeypatch: pytest.MonkeyPatch, edit: Edit
) -> None:
    texts = [with_one_program("") + constant_chain(n).replace("C0 = 1", "\nC0 = 1") for n in (100, 1_000)]
    work = [_work(monkeypatch, text, edit) for text in texts]
    assert work[0] == work[1]
    assert work[1][0] == 1


def test_the_splitter_keeps_its_units_but_not_their_trees() -> None:
    """A document's units are kept across edits; their trees only in the bounded parse cache
    (1,000 constants' trees are some 3 MB, 200,000 constants' over 500 MB)."""
    splitter = UnitSplitter()
    text = with_one_program(constant_chain(10))
    first = splitter.split(split_lines(text))
    assert all(u.node is not None for u in first)  # read: each unit parses
    splitter.release()
    assert all(u.tree is units.UNPARSED for u in first)
    again = splitter.split(split_lines(text.replace(ONE_SCOPE_ANCHOR, ONE_SCOPE_ANCHOR + "  # x")))
    assert again[:-1] == first[:-1] and all(a is b for a, b in zip(again[:-1], first[:-1], strict=True))
    assert ONE_SCOPE_PROGRAM.strip().split("\n")[0] in again[-1].text
