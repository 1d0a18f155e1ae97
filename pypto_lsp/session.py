"""Per-document state: the text being edited, its incremental analyzer, and analysed snapshots.

A `Snapshot` is immutable: one document version, its text split into lines, and the analysis
of exactly that text. Features answer from a snapshot, so positions they compute always refer
to the text the analysis saw.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pygls.workspace.position_codec import PositionCodec

from pypto_core.analysis import DocumentAnalyzer
from pypto_core.results import FileAnalysis

from .convert import PositionMapper
from .text_sync import DocumentText


@dataclass(frozen=True)
class Snapshot:
    uri: str
    version: int
    text: str
    lines: Sequence[str]
    analysis: FileAnalysis
    failure: str | None = None  # traceback when the analysis raised; `analysis` is then empty
    generation: int = 0  # the session's `generation` it was analysed at
    # the lines of the other files its diagnostics' related locations point into (an imported
    # helper's file), read with the analysis (`diagnostics.related_lines`)
    other_lines: Mapping[str, Sequence[str]] = field(default_factory=dict)

    def mapper(self, codec: PositionCodec) -> PositionMapper:
        return PositionMapper(codec, self.lines)

    def lines_of(self, path: str) -> Sequence[str]:
        """The lines of another file a related location points into."""
        return self.other_lines.get(path, ())


@dataclass(frozen=True)
class LiveText:
    """What a feature answered while typing sees: the current text's lines and the cursor in
    them (code points), the newest analysis and the newest complete one (either may be of an
    earlier version; None before the first analysis)."""

    latest: Snapshot | None
    complete: Snapshot | None
    lines: Sequence[str]
    mapper: PositionMapper
    line: int
    col: int

    @property
    def prefix(self) -> str:
        """The cursor's line up to the cursor."""
        return self.lines[self.line][: self.col] if self.line < len(self.lines) else ""


class TextSource(Protocol):
    """Where a session reads its document's current version (`text_sync.LspTextDocument`,
    which makes a version only when one is read)."""

    @property
    def content(self) -> DocumentText: ...


@dataclass(eq=False)
class AnalysisJob:
    """One analysis of a document, from the first change of its debounce to its result.

    Until it starts it stands for the document's newest version: a change only moves `due`
    (the debounce's end; its one timer, when it fires early, is set again for the rest), so a
    burst of changes costs no task, timer or event each. When it starts it takes the version,
    text and generation current then (`AnalysisScheduler._start`)."""

    due: float  # the event loop's time at which its debounce ends
    done: asyncio.Future[Snapshot | None]  # its snapshot, None when it was skipped or dropped
    timer: asyncio.TimerHandle | None = None  # None while it waits for the worker or for `ready`
    expedited: bool = False  # a request waits: the rest of the debounce is not waited out
    started: bool = False
    version: int = -1
    content: DocumentText | None = None
    generation: int = 0


def open_document_analyzer() -> DocumentAnalyzer:
    """The analyzer of a document open in the editor: its first analysis keeps every pass's
    per-statement results, for the keystrokes that follow (`DocumentAnalyzer`)."""
    return DocumentAnalyzer(keep_all_at_open=True)


@dataclass
class DocumentSession:
    uri: str
    version: int
    source: TextSource  # the current version's text, made (and joined) when first read
    analyzer: DocumentAnalyzer = field(default_factory=open_document_analyzer)
    latest: Snapshot | None = None  # the newest finished analysis (of any version)
    # the newest one in which every program parsed: while a call is being typed its program
    # does not, and completion / signature help still need that program's functions
    complete: Snapshot | None = None
    pending: AnalysisJob | None = None  # the next analysis, not started yet
    running: AnalysisJob | None = None  # the analysis on (or queued for) the worker
    semantic_tokens: tuple[str, list[int]] | None = None  # the last result sent: (result id, data)
    # bumped when a module the document imports changed: the same version is analysed again
    generation: int = 0
    # each other file its last analysis's related locations point into: the text and its lines
    # (`diagnostics.related_lines`: split again only when the text changed)
    related: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)

    @property
    def content(self) -> DocumentText:
        return self.source.content

    @property
    def text(self) -> str:
        return self.content.text

    @property
    def lines(self) -> tuple[str, ...]:
        """`split_lines(text)`."""
        return self.content.plain_lines

    def current_snapshot(self) -> Snapshot | None:
        """The finished analysis of the current version, if there is one."""
        latest = self.latest
        if latest is not None and latest.version == self.version and latest.text == self.text:
            # (a client may send one version number twice)
            return latest if latest.generation == self.generation else None
        return None
