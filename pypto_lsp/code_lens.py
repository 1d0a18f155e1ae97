"""A lens on the header of every outlined scope, naming the function it becomes.

Lenses are sent resolved (title and command set): they are cheap to build and a second round
trip per lens would only add latency. A `pl.spmd` scope becomes two functions (the InCore
kernel and its Spmd wrapper), so its header carries two lenses.
"""

from __future__ import annotations

from lsprotocol import types

from .convert import PositionMapper
from .describe import lens_title
from .session import Snapshot

SHOW_OUTLINED_FUNCTION = "pypto.showOutlinedFunction"


def code_lenses(snapshot: Snapshot, mapper: PositionMapper) -> list[types.CodeLens]:
    return [
        types.CodeLens(
            range=mapper.range(scope.header_span),
            command=types.Command(
                title=lens_title(scope),
                command=SHOW_OUTLINED_FUNCTION,
                arguments=[snapshot.uri, scope.name],
            ),
        )
        for scope in snapshot.analysis.outlined
    ]
