"""Client settings for the `pypto` section.

The same object arrives as `initializationOptions` and through `workspace/configuration`
(section `pypto`); later sources overlay earlier ones key by key, so a client that answers the
configuration pull with nothing keeps what it sent at initialisation. A value of the wrong type
is ignored (and reported) rather than failing the whole object.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from pypto_core.passes.inline_functions import SPLICE_BUDGET

log = logging.getLogger(__name__)

DEFAULT_DEBOUNCE_MS = 50
# A larger debounceMs is taken as this: 10**400 overflowed the float conversion and every
# request that waited for an analysis failed (issue 20); no useful debounce is longer.
MAX_DEBOUNCE_MS = 10_000
# where each diagnostic's code links to (`<url>#pto301`): the project's docs/diagnostics.md
DEFAULT_DOCS_URL = "https://github.com/pypto/pypto-lsp/blob/main/docs/diagnostics.md"


@dataclass(frozen=True)
class Settings:
    diagnostics_enable: bool = True
    code_lens_enable: bool = True
    # a "pass trace" lens on each program: only for clients with a command showing traces
    code_lens_pass_trace: bool = False
    inlay_hints_enable: bool = True
    # off by default: Pylance gives Python files their tokens, and an editor shows one provider's
    semantic_tokens_enable: bool = False
    debounce_ms: int = DEFAULT_DEBOUNCE_MS
    outlined_raw_names: bool = False  # the Outlined Program with the IR's names (out__ssa_v1)
    diagnostics_docs_url: str = DEFAULT_DOCS_URL  # "" links no code
    # folders imports are also looked for in, after the importing file's and the workspace's
    extra_paths: tuple[str, ...] = ()
    # statements splicing inline helpers may add to one program before the rest is left
    # unanalysed (PTO416): bounds the cost of a keystroke in a whole-model file
    splice_budget: int = SPLICE_BUDGET

    @property
    def debounce_seconds(self) -> float:
        return self.debounce_ms / 1000.0

    def overlaid(self, value: Any) -> Settings:
        """These settings with every valid key of the client object `value` applied."""
        root = _as_mapping(value)
        if root is None:
            return self
        nested = _as_mapping(root.get("pypto"))
        if nested is not None:  # tolerate the whole configuration instead of its `pypto` section
            root = nested
        updates: dict[str, Any] = {}
        for field_name, path, kind in _KEYS:
            found = _lookup(root, path)
            if found is _MISSING:
                continue
            if not _valid(found, kind):
                log.warning("ignoring pypto.%s=%r: expected %s", ".".join(path), found, kind.__name__)
                continue
            if field_name == "debounce_ms" and found > MAX_DEBOUNCE_MS:
                log.warning("pypto.analysis.debounceMs=%s is taken as %d", str(found)[:20], MAX_DEBOUNCE_MS)
                found = MAX_DEBOUNCE_MS
            updates[field_name] = tuple(found) if kind is list else found
        return replace(self, **updates) if updates else self


_MISSING = object()

_KEYS: tuple[tuple[str, tuple[str, ...], type], ...] = (
    ("diagnostics_enable", ("diagnostics", "enable"), bool),
    ("code_lens_enable", ("codeLens", "enable"), bool),
    ("code_lens_pass_trace", ("codeLens", "passTrace"), bool),
    ("inlay_hints_enable", ("inlayHints", "enable"), bool),
    ("semantic_tokens_enable", ("semanticTokens", "enable"), bool),
    ("debounce_ms", ("analysis", "debounceMs"), int),
    ("outlined_raw_names", ("outlinedProgram", "rawNames"), bool),
    ("diagnostics_docs_url", ("diagnostics", "docsUrl"), str),
    ("extra_paths", ("analysis", "extraPaths"), list),
    ("splice_budget", ("analysis", "spliceBudget"), int),
)


def _valid(value: Any, kind: type) -> bool:
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if kind is list:
        return isinstance(value, list | tuple) and all(isinstance(item, str) for item in value)
    return isinstance(value, kind)


def _as_mapping(value: Any) -> Mapping[str, Any] | None:
    """Client objects arrive as dicts, or as pygls's attribute objects for untyped params."""
    if isinstance(value, Mapping):
        return value
    if hasattr(value, "_asdict"):
        return value._asdict()
    return None


def _lookup(root: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    current: Any = root
    for key in path:
        mapping = _as_mapping(current)
        if mapping is None or key not in mapping:
            return _MISSING
        current = mapping[key]
    return current
