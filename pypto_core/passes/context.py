"""What the outlining passes report besides the rewritten program.

A pass object stays `Program -> Program`, like the compiler's; the factories take an optional
`PassContext` that collects user errors (never raised), one `OutlinedScope` per outlined
scope, and each function an outliner promoted; it also carries what one pass's outliner run
learnt about a function's statements to the next pass's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..diagnostics import Diagnostic
from ..ir import Function
from ..results import OutlinedScope, Promotion
from .stmt_facts import StmtFacts


@dataclass
class PassContext:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    outlined: list[OutlinedScope] = field(default_factory=list)
    promoted: list[Promotion] = field(default_factory=list)
    # The IR comes from our front end, which already rejects what some pass-level backstops
    # re-check for IR built by other means (PTO171 before PTO305): do not report it twice.
    front_end_checked: bool = False
    # Per function, the statement facts its last outliner run leaves true (`kept_facts`): the
    # next pass's run on it starts from them. A pass that rewrites a function's statements
    # outside an outliner run forgets them (`forget_facts`).
    kept_facts: dict[Function, StmtFacts] = field(default_factory=dict)

    def forget_facts(self, fn: Function) -> None:
        self.kept_facts.pop(fn, None)
