"""How a module names the DSL: the local names bound to `pypto.language` and its members.

One resolution rule serves the front end (`ModuleContext.resolve`) and the editor features
that read a file's analysis later (completion after `pl.` under whatever alias the file uses).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass


def resolve_parts(
    parts: Sequence[str],
    pl_names: Collection[str],
    pld_names: Collection[str],
    pl_members: Mapping[str, str],
) -> tuple[str, ...] | None:
    """The DSL path `parts` (a dotted name split at dots) names, relative to
    `pypto.language`: `pl.jit.incore` -> ("jit", "incore"), `pld.x` -> ("distributed", "x"),
    `FP32` (imported from pypto.language) -> ("FP32",); None when it is not a DSL name."""
    for cut in range(len(parts), 0, -1):
        prefix = ".".join(parts[:cut])
        if prefix in pl_names:
            return tuple(parts[cut:])
        if prefix in pld_names:
            return ("distributed", *parts[cut:])
    member = pl_members.get(parts[0])
    if member is not None:
        return (*member.split("."), *parts[1:])
    return None


@dataclass(frozen=True)
class DslNames:
    """A file's DSL import names, kept with its analysis."""

    pl_names: frozenset[str] = frozenset()
    pld_names: frozenset[str] = frozenset()
    pl_members: tuple[tuple[str, str], ...] = ()

    def surface_path(self, dotted: str) -> str | None:
        """`dotted` in the DSL surface table's spelling: `pl` -> "pl", `T.tile` -> "pl.tile",
        `pld.system` -> "pld.system"; None when it is not a DSL name."""
        path = resolve_parts(dotted.split("."), self.pl_names, self.pld_names, dict(self.pl_members))
        if path is None:
            return None
        if path[:1] == ("distributed",):
            return ".".join(("pld", *path[1:]))
        return ".".join(("pl", *path))

    @property
    def pl_alias(self) -> str:
        """The name to write `pypto.language` as in inserted text (`pl` when it is imported so)."""
        return "pl" if "pl" in self.pl_names or not self.pl_names else min(self.pl_names, key=len)
