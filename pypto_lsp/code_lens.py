"""One lens on the header of every outlined scope, naming the function it becomes, and one on
each module-level inline helper's `def` listing where the workspace calls it.

Scope lenses are sent resolved (title and command set): they are cheap to build and a second
round trip per lens would only add latency. A helper's lens is resolved on `codeLens/resolve`
(reading the workspace's other files is not keystroke work): its command is VS Code's
`editor.action.showReferences` with the LSP locations of the calls (the VS Code extension turns
them into its own types; another client shows the title). A scope gets one lens however many
functions it becomes: a `pl.spmd` scope's lens names its kernel (the hover shows the launch
wrapper too), and a scope in a helper that two jit entries reach gets one lens, marked
`×N callers` when they make different functions of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls import uris

from pypto_core.workspace.callers import CallSite

from .convert import PositionMapper
from .describe import lens_title
from .queries import scope_views
from .session import Snapshot

SHOW_OUTLINED_FUNCTION = "pypto.showOutlinedFunction"
SHOW_REFERENCES = "editor.action.showReferences"
CALLERS_LENS = "pypto.helperCallers"  # `data.kind` of a helper's lens, resolved later
_LISTED_FILES = 3


def code_lenses(snapshot: Snapshot, mapper: PositionMapper) -> list[types.CodeLens]:
    return [
        types.CodeLens(
            range=mapper.range(view.main.header_span),
            command=types.Command(
                title=lens_title(view.main, view.variants, view.params, view.copies),
                command=SHOW_OUTLINED_FUNCTION,
                arguments=[snapshot.uri, view.main.name],
            ),
        )
        for view in scope_views(snapshot)
    ]


def helper_lenses(snapshot: Snapshot, mapper: PositionMapper) -> list[types.CodeLens]:
    """One unresolved lens per module-level inline helper of a file on disk (a buffer that is
    not a file has no importers)."""
    if uris.to_fs_path(snapshot.uri) is None:
        return []
    return [
        types.CodeLens(
            range=mapper.range(helper.name_span),
            data={"kind": CALLERS_LENS, "uri": snapshot.uri, "helper": helper.name},
        )
        for helper in snapshot.analysis.helpers
    ]


def helper_of(lens: types.CodeLens) -> tuple[str, str] | None:
    """(uri, helper name) of a helper's lens, None for any other lens."""
    data: Any = lens.data
    if isinstance(data, dict) and data.get("kind") == CALLERS_LENS:
        uri, helper = data.get("uri"), data.get("helper")
        if isinstance(uri, str) and isinstance(helper, str):
            return uri, helper
    return None


def resolved_helper_lens(
    lens: types.CodeLens, sites: list[CallSite], mapper_of: Callable[[Path], PositionMapper]
) -> types.CodeLens:
    """The helper's lens with its callers: "called from a.py, b.py" and the locations."""
    found = helper_of(lens)
    assert found is not None
    uri, _ = found
    if not sites:
        lens.command = types.Command(title="no caller in the workspace", command="")
        return lens
    locations = [
        types.Location(
            uri=uris.from_fs_path(str(site.path)) or site.path.as_uri(),
            range=mapper_of(site.path).range(site.span),
        )
        for site in sites
    ]
    lens.command = types.Command(
        title=_callers_title([site.path for site in sites]),
        command=SHOW_REFERENCES,
        arguments=[uri, lens.range.start, locations],
    )
    return lens


def _callers_title(paths: Sequence[Path]) -> str:
    """`called from a.py ×2, b.py` (files in the order given, at most three named)."""
    counts: dict[str, int] = {}
    for path in paths:
        counts[path.name] = counts.get(path.name, 0) + 1
    named = [f"{name} ×{n}" if n > 1 else name for name, n in counts.items()]
    more = f" and {len(named) - _LISTED_FILES} more" if len(named) > _LISTED_FILES else ""
    return f"called from {', '.join(named[:_LISTED_FILES])}{more}"
