"""Documents whose lines are the LSP's lines.

pygls splits a document with `str.splitlines`, which also breaks at form feed, `\\x1c`-`\\x1e`,
NEL and the Unicode line/paragraph separators; the LSP counts only `\\n`, `\\r\\n` and `\\r`.
A client's incremental change after a form feed (common in Python sources) would then land
on the wrong line and the server's text would silently drift from the editor's. This workspace
hands out documents that split as the protocol (and `pypto_core.span`) does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

_LSP_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


class LspTextDocument(TextDocument):
    @property
    def lines(self) -> Sequence[str]:
        return tuple(_LSP_LINE.findall(self.source))


class LspWorkspace(Workspace):
    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return LspTextDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self.position_codec,
        )


def lsp_workspace(workspace: Workspace, sync_kind: types.TextDocumentSyncKind) -> LspWorkspace:
    """The same (still empty) workspace pygls made at `initialize`, with LSP line splitting."""
    return LspWorkspace(
        workspace.root_uri,
        sync_kind,
        list(workspace.folders.values()),
        workspace.position_encoding,
    )
