"""The compiler's auto-name grammar, shared by ConvertToSSA and the outliners.

An IR name the passes mint is `base__[qualifier_][role_]vN` (`out__ssa_v1`, `acc__iter_v2`,
`ret__tmp_v0`). The text before the first `__` is the user's name, which is what every
user-facing surface shows (D11); the printed IR shows the whole name. Minting a name from one
that already carries an auto suffix re-bases it on the user's name, so suffixes never stack.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from ..ir import strip_splice_suffix

ROLES = frozenset({"ssa", "iter", "rv", "phi", "tile", "tmp", "out", "store", "idx"})


@dataclass(frozen=True)
class ParsedName:
    base: str
    qualifier: str = ""
    role: str | None = None
    version: int | None = None

    @property
    def has_auto_suffix(self) -> bool:
        return self.role is not None or self.version is not None or bool(self.qualifier)


def _version_token(token: str) -> int | None:
    if len(token) >= 2 and token[0] == "v" and token[1:].isdigit():
        return int(token[1:])
    return None


@lru_cache(maxsize=8192)
def parse_name(name: str) -> ParsedName:
    """Split `name` into base, qualifier, role and version (absent parts are empty / None).
    Cached: the passes and the printer ask again for the same few names (the answer is frozen)."""
    base, sep, suffix = name.partition("__")
    if not sep or not base:
        return ParsedName(name)
    parts = suffix.split("_")
    version = _version_token(parts[-1]) if parts else None
    if version is not None:
        parts = parts[:-1]
    role = parts[-1] if parts and parts[-1] in ROLES else None
    if role is not None:
        parts = parts[:-1]
    return ParsedName(base, "_".join(p for p in parts if p), role, version)


def is_reserved(name: str) -> bool:
    """A user's name ConvertToSSA cannot version: it holds `__`, the auto-name delimiter, and
    is not itself an auto name (`x__ssa_v0` is; `bad__x` is not). The compiler raises "IR
    auto-name base cannot contain reserved delimiter '__'" for it."""
    if "__" not in name:
        return False
    parsed = parse_name(name)
    return (parsed.role is None and parsed.version is None) or parsed.base == name


@lru_cache(maxsize=8192)
def base_name(name: str) -> str:
    """The user's name: `out` for `out__ssa_v1`, `n0` for a spliced `n0_inline5__ssa_v0`; a name
    without a suffix is returned unchanged."""
    return strip_splice_suffix(parse_name(name).base)


def build_name(base: str, qualifier: str = "", role: str | None = None, version: int | None = None) -> str:
    suffix = "_".join(part for part in (qualifier, role, None if version is None else f"v{version}") if part)
    return f"{base}__{suffix}" if suffix else base


@lru_cache(maxsize=8192)
def ssa_name(base: str, role: str, n: int) -> str:
    """`ssa_name("x", "iter", 1)` -> `x__iter_v1`; `base` may itself be an auto name.
    Cached: every function versions the same few names again (`x__ssa_v0`, `out__iter_v1`)."""
    seed = parse_name(base)
    if seed.role is None and seed.version is None:
        seed = ParsedName(base)
    return build_name(seed.base, seed.qualifier, role, n)


@dataclass
class NameAllocator:
    """Fresh names for one function: knows every name already in use and never repeats one.

    The outliners mint store-target results (`out__ssa_v0` -> `out__ssa_v1`), carries
    (`out__iter_v1`, `out__rv_v1`) and call temporaries (`ret__tmp_v0`) with it.
    """

    used: set[str] = field(default_factory=set)
    # per (base, qualifier, role): a version below which every one is in `used` (names are
    # never released), so minting the N-th `ret__tmp_vN` of a function does not test N names
    _floor: dict[tuple[str, str, str], int] = field(default_factory=dict, repr=False, compare=False)
    # where given, each floor set, in order (an outliner's walk of a body kept for the next run)
    floors: list[tuple[tuple[str, str, str], int]] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def of(cls, names: Iterable[str]) -> NameAllocator:
        return cls(set(names))

    def __contains__(self, name: str) -> bool:
        return name in self.used

    def reserve(self, name: str) -> str:
        self.used.add(name)
        return name

    def forget(self) -> None:
        """After names were taken out of `used` (an outliner's replay that did not hold,
        `outline_replay.Names.undo`): the floors may stand above a free version now, and no
        floor is always right."""
        self._floor.clear()

    def fresh_like(self, name: str, role: str | None = None) -> str:
        """The next unused version after `name`'s own (`x__ssa_v0` -> `x__ssa_v1`), keeping its
        role unless `role` is given; a plain name starts at `v0` with role `ssa`."""
        parsed = parse_name(name)
        chosen_role = role or parsed.role or "ssa"
        start = 0 if parsed.version is None else parsed.version + 1
        key = (parsed.base, parsed.qualifier, chosen_role)
        floor = self._floor.get(key, 0)
        version = max(start, floor)
        while True:
            candidate = build_name(parsed.base, parsed.qualifier, chosen_role, version)
            if candidate not in self.used:
                break
            version += 1
        if start <= floor:  # every version from the floor up to this one is taken now
            self._floor[key] = version + 1
            if self.floors is not None:
                self.floors.append((key, version + 1))
        return self.reserve(candidate)

    def raise_floor(self, key: tuple[str, str, str], version: int) -> None:
        """Every version of `key` below `version` is in `used` (names added by the caller)."""
        if self._floor.get(key, 0) < version:
            self._floor[key] = version

    def fresh_version(self, base: str, roles: Iterable[str], start: int = 0) -> int:
        """The smallest version `n >= start` free for every role in `roles` at once, so a carry's
        iter_arg and return var share one number (`out__iter_v1`, `out__rv_v1`). Reserves them."""
        wanted = tuple(roles)
        n = start
        while any(ssa_name(base, r, n) in self.used for r in wanted):
            n += 1
        for r in wanted:
            self.reserve(ssa_name(base, r, n))
        return n

    def unique(self, candidate: str) -> str:
        """`candidate` if unused, else the smallest free `candidate_0`, `candidate_1`, ..."""
        if candidate not in self.used:
            return self.reserve(candidate)
        i = 0
        while f"{candidate}_{i}" in self.used:
            i += 1
        return self.reserve(f"{candidate}_{i}")
