"""The scope headers of a unit (`scope_headers._headers`), kept per compound statement node
across edits, are those a walk of the whole tree finds, with the same owners."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from pypto_core.frontend import scope_headers
from pypto_core.frontend.units import classify_node, dotted_name


def _reference(root: ast.AST) -> list[tuple[int, int, str, str]]:
    """Every header a plain walk of the statements finds, with its owner, in source order."""
    found = []
    stack: list[tuple[ast.AST, str]] = [(root, "")]
    while stack:
        node, owner = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            owner = node.name if classify_node(node)[0] != "other" else owner
        calls: list[ast.expr] = []
        if isinstance(node, ast.With):
            calls = [item.context_expr for item in node.items]
        elif isinstance(node, ast.For):
            calls = [node.iter]
        for call in calls:
            if (
                isinstance(call, ast.Call)
                and dotted_name(call.func).rsplit(".", 1)[-1] in scope_headers._NAMES
            ):
                found.append((call.lineno, call.col_offset, dotted_name(call.func), owner))
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, field, None)
            if type(block) is list:
                stack.extend((child, owner) for child in block)
    return sorted(found)


def _found(text: str, tree: ast.AST) -> list[tuple[int, int, str, str]]:
    return [(h.call.lineno, h.call.col_offset, h.dotted, h.owner) for h in scope_headers._headers(text, tree)]


_OPENERS = [
    "with pl.at(level=pl.Level.CORE_GROUP):",
    "for i in pl.range(4):",
    "for j in pl.spmd(2):",
    "with pl.cluster():",
    "if x:",
    "while y:",
    "@pl.jit.inline\ndef h{n}(a):",
    "def plain{n}(a):",
    "@pl.program\nclass P{n}:",
]


def _block(draw: st.DrawFn, depth: int, counter: list[int]) -> Iterator[str]:
    for _ in range(draw(st.integers(1, 3))):
        if depth < 4 and draw(st.booleans()):
            counter[0] += 1
            opener = draw(st.sampled_from(_OPENERS)).format(n=counter[0])
            yield from opener.split("\n")
            yield from ("    " + line for line in _block(draw, depth + 1, counter))
            if opener == "if x:" and draw(st.booleans()):
                yield "else:"
                yield from ("    " + line for line in _block(draw, depth + 1, counter))
        else:
            yield "z = 1"


@st.composite
def _programs(draw: st.DrawFn) -> str:
    lines = ["@pl.jit", "def entry(a):", *("    " + line for line in _block(draw, 1, [0]))]
    return "\n".join(lines)


@settings(max_examples=200, deadline=None)
@given(_programs(), st.integers(min_value=0))
def test_headers_kept_per_statement_are_those_of_a_whole_walk_before_and_after_an_edit(
    text: str, at: int
) -> None:
    tree = ast.parse(text)
    assert _found(text, tree) == _reference(tree)
    lines = text.split("\n")
    places = [
        n
        for n in range(2, len(lines))
        if not lines[n - 1].lstrip().startswith("@") and lines[n].strip() != "else:"
    ]
    line = places[at % len(places)]
    indent = lines[line][: len(lines[line]) - len(lines[line].lstrip())]
    edited = "\n".join(
        [
            *lines[:line],
            indent + "with pl.at(level=pl.Level.CORE_GROUP):",
            indent + "    w = 2",
            *lines[line:],
        ]
    )
    # the edited tree shares every statement the edit left alone (as the unit split's does)
    again = ast.parse(edited)
    shared = _reused(tree, again)
    assert _found(edited, shared) == _reference(again)


def _reused(old: ast.Module, new: ast.Module) -> ast.Module:
    """`new` with each statement of its function's body that is equal to one of `old`'s at the
    same line replaced by that node (the objects an incremental parse hands on)."""
    olds = {
        (s.lineno, ast.dump(s, include_attributes=True)): s for s in ast.walk(old) if isinstance(s, ast.stmt)
    }

    def take(stmts: list[ast.stmt]) -> list[ast.stmt]:
        out = []
        for s in stmts:
            kept = olds.get((s.lineno, ast.dump(s, include_attributes=True)))
            if kept is not None:
                out.append(kept)
            else:
                for field in ("body", "orelse"):
                    if type(getattr(s, field, None)) is list:
                        setattr(s, field, take(getattr(s, field)))
                out.append(s)
        return out

    new.body = take(new.body)
    return new


def test_an_elif_chain_deeper_than_the_kept_walk_recurses_is_walked_whole() -> None:
    chain = "\n".join(
        [
            "@pl.jit",
            "def entry(a):",
            "    if a == 0:",
            "        z = 0",
            *(
                f"    elif a == {k}:\n        with pl.at(level=pl.Level.CORE_GROUP):\n            z = {k}"
                for k in range(1, 400)
            ),
        ]
    )
    tree = ast.parse(chain)
    found = _found(chain, tree)
    assert found == _reference(tree) and len(found) == 399 and {owner for *_, owner in found} == {"entry"}
