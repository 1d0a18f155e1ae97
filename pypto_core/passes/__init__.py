"""The passes, as factories mirroring the compiler's Python API (`passes.outline_incore_scopes()`):
each returns a `Program -> Program` callable. The outliners take an optional `PassContext` that
collects diagnostics, outlined-scope records and promotions."""

from .context import PassContext
from .outline_cluster import outline_cluster_scopes
from .outline_graph import outline_graph_scopes
from .outline_hierarchy import outline_hierarchy_scopes
from .outline_incore import outline_incore_scopes
from .ssa import convert_to_ssa

__all__ = [
    "PassContext",
    "convert_to_ssa",
    "outline_cluster_scopes",
    "outline_graph_scopes",
    "outline_hierarchy_scopes",
    "outline_incore_scopes",
]
