"""The server's documents: incremental changes give exactly pygls's text, split at LSP line breaks.

The reference applies each change as pygls does (re-writing every line) over a document split
the LSP way from scratch; the server's documents re-split only the edited lines. Mixed line
breaks and form feeds are where the two could part.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import PositionCodec

from pypto_core.span import split_lines
from pypto_lsp.text_sync import LspTextDocument, lsp_lines

PIECES = ["a", "é", "😋", " ", "\n", "\r", "\r\n", "\x0c", "\u2028", "x = 1"]
text_strategy = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)
position_strategy = st.tuples(st.integers(0, 8), st.integers(0, 3))


class ReferenceDocument(TextDocument):
    """pygls's own incremental change over lines split from scratch the LSP way."""

    @property
    def lines(self) -> Sequence[str]:
        return lsp_lines(self.source)


def change(start: tuple[int, int], end: tuple[int, int], text: str) -> types.TextDocumentContentChangePartial:
    return types.TextDocumentContentChangePartial(
        range=types.Range(
            start=types.Position(line=start[0], character=start[1]),
            end=types.Position(line=end[0], character=end[1]),
        ),
        text=text,
    )


def document(cls: type[TextDocument], text: str) -> TextDocument:
    return cls(
        "file:///t.py",
        source=text,
        version=1,
        sync_kind=types.TextDocumentSyncKind.Incremental,
        position_codec=PositionCodec(),
    )


@given(
    text=text_strategy,
    edits=st.lists(
        st.tuples(position_strategy, position_strategy, text_strategy, st.booleans()), min_size=1, max_size=6
    ),
)
def test_incremental_changes_match_pygls_and_a_fresh_split(
    text: str, edits: list[tuple[tuple[int, int], tuple[int, int], str, bool]]
) -> None:
    """`read`: whether the text is read after the change (an analysis started), or the next
    change comes first (a burst: the text and its analysis lines are then made later)."""
    ours, reference = document(LspTextDocument, text), document(ReferenceDocument, text)
    for start, end, new_text, read in edits:
        start, end = min(start, end), max(start, end)
        ours.apply_change(change(start, end, new_text))
        reference.apply_change(change(start, end, new_text))
        if read:
            assert ours.plain_lines == tuple(split_lines(reference.source))  # what the analysis reads
            assert ours.source == reference.source
    assert ours.source == reference.source
    assert ours.lines == lsp_lines(ours.source)
    assert ours.plain_lines == tuple(split_lines(ours.source))


def test_a_line_feed_typed_after_a_lone_carriage_return_joins_the_two_into_one_line_break() -> None:
    ours = document(LspTextDocument, "a\r\rb")
    assert ours.lines == ("a\r", "\r", "b")
    ours.apply_change(change((2, 0), (2, 0), "\n"))
    assert ours.source == "a\r\r\nb"
    assert ours.lines == ("a\r", "\r\n", "b")
    assert ours.plain_lines == ("a", "", "b")


@pytest.mark.parametrize(
    ("text", "start", "end", "new_text"),
    [
        ("a\rb\nc", (1, 0), (1, 1), ""),  # the line left is "\n": it joins the "\r" before it
        ("ab\ncd\n", (0, 1), (0, 3), "x"),  # a range past the line break on one line cuts it
        ("ab\ncd", (1, 0), (1, 2), ""),  # the last line emptied is no line any more
        ("ab\ncd", (1, 1), (1, 0), "x"),  # a reversed range on one line (pygls keeps both ends)
        ("ab\r\ncd", (0, 1), (0, 1), "x"),  # a line ending in \r\n
        ("ab\ncd", (0, 1), (0, 1), "\r"),  # a typed \r ends the line
        ("é😋b\ncd", (0, 3), (0, 3), "x"),  # astral characters before the cursor
    ],
)
def test_an_edit_inside_one_line_is_pygls_s_at_every_boundary(
    text: str, start: tuple[int, int], end: tuple[int, int], new_text: str
) -> None:
    """Typing inside one line re-splits nothing around it unless a line break is involved."""
    ours, reference = document(LspTextDocument, text), document(ReferenceDocument, text)
    for doc in (ours, reference):
        doc.apply_change(change(start, end, new_text))
    assert ours.source == reference.source
    assert ours.lines == lsp_lines(reference.source)
    assert ours.plain_lines == tuple(split_lines(reference.source))
