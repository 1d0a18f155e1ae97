"""Per-document state: the text being edited, its incremental analyzer, and analysed snapshots.

A `Snapshot` is immutable: one document version, its text split into lines, and the analysis
of exactly that text. Features answer from a snapshot, so positions they compute always refer
to the text the analysis saw.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

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

    def mapper(self, codec: PositionCodec) -> PositionMapper:
        return PositionMapper(codec, self.lines)


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


@dataclass
class AnalysisJob:
    """One scheduled analysis of one version. `expedite` cuts its debounce short (a request is
    waiting); `started` is set once it left the debounce and can no longer be superseded."""

    version: int
    content: DocumentText  # its text, joined on the worker when the job runs
    generation: int = 0
    expedite: asyncio.Event = field(default_factory=asyncio.Event)
    started: bool = False
    task: asyncio.Task[Snapshot | None] | None = None


@dataclass
class DocumentSession:
    uri: str
    version: int
    content: DocumentText  # the current version's text (joined when first read)
    analyzer: DocumentAnalyzer = field(default_factory=DocumentAnalyzer)
    latest: Snapshot | None = None  # the newest finished analysis (of any version)
    # the newest one in which every program parsed: while a call is being typed its program
    # does not, and completion / signature help still need that program's functions
    complete: Snapshot | None = None
    job: AnalysisJob | None = None  # the newest scheduled analysis
    semantic_tokens: tuple[str, list[int]] | None = None  # the last result sent: (result id, data)
    # bumped when a module the document imports changed: the same version is analysed again
    generation: int = 0

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
