"""One lens on the header of every outlined scope, naming the function it becomes.

Lenses are sent resolved (title and command set): they are cheap to build and a second round
trip per lens would only add latency. A scope gets one lens however many functions it becomes:
a `pl.spmd` scope's lens names its kernel (the hover shows the launch wrapper too), and a scope
in a helper that two jit entries reach gets one lens, marked `×N callers` when they make
different functions of it.
"""

from __future__ import annotations

from lsprotocol import types

from .convert import PositionMapper
from .describe import lens_title
from .queries import scope_views
from .session import Snapshot

SHOW_OUTLINED_FUNCTION = "pypto.showOutlinedFunction"


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
