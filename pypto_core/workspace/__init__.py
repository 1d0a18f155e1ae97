"""Reading a workspace statically: which file an import names (`resolver`), what a file says
now (`sources`: open documents over the disk), and the facts each module exports to its
importers, cached and cycle-safe (`modules`). Nothing here imports or runs analysed code."""

from .modules import ModuleIndex, WorkspaceLookup
from .resolver import SearchPath, resolve_module
from .sources import ModuleSources

__all__ = ["ModuleIndex", "ModuleSources", "SearchPath", "WorkspaceLookup", "resolve_module"]
