"""What the outlining passes report besides the rewritten program.

A pass object stays `Program -> Program`, like the compiler's; the factories take an optional
`PassContext` that collects user errors (never raised), one `OutlinedScope` per outlined
scope, and each function an outliner promoted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..diagnostics import Diagnostic
from ..results import OutlinedScope, Promotion


@dataclass
class PassContext:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    outlined: list[OutlinedScope] = field(default_factory=list)
    promoted: list[Promotion] = field(default_factory=list)
    # The IR comes from our front end, which already rejects what some pass-level backstops
    # re-check for IR built by other means (PTO171 before PTO305): do not report it twice.
    front_end_checked: bool = False
