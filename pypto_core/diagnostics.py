"""User errors as data.

A pass or the front end never raises for a user error: it appends a `Diagnostic` and carries
on, so one bad scope never hides the rest of the file. Codes are stable (see
docs/dsl-reference.md §2.3 and §5): PTO0xx input/syntax, PTO1xx parser, PTO3xx shared
outliner, PTO4xx pass-specific, PTO5xx verifier, PTO6xx informational, PTO900 internal error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from .span import Shift, Span


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    HINT = "hint"


@dataclass(frozen=True, slots=True)
class Related:
    """A second location that explains a diagnostic (e.g. the outer `pl.graph` region);
    `path`: in another file (an imported helper's), None in the diagnostic's own."""

    message: str
    span: Span
    path: str | None = None


@dataclass(frozen=True)
class Diagnostic:
    """One finding. `hint` is the fix in words; `data` carries what a quick fix needs
    (e.g. {"scalar": "n"}), keyed by names stable for each code."""

    code: str
    severity: Severity
    message: str
    span: Span
    hint: str | None = None
    related: tuple[Related, ...] = ()
    data: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def shifted(self, line_delta: Shift) -> Diagnostic:
        if line_delta == 0:
            return self
        return Diagnostic(
            self.code,
            self.severity,
            self.message,
            self.span.shifted(line_delta),
            self.hint,
            tuple(
                r if r.path is not None else Related(r.message, r.span.shifted(line_delta))
                for r in self.related
            ),
            self.data,
        )


def error(code: str, message: str, span: Span, hint: str | None = None, **data: Any) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, message, span, hint, (), dict(data))


def warning(code: str, message: str, span: Span, hint: str | None = None, **data: Any) -> Diagnostic:
    return Diagnostic(code, Severity.WARNING, message, span, hint, (), dict(data))


def info(code: str, message: str, span: Span, hint: str | None = None, **data: Any) -> Diagnostic:
    return Diagnostic(code, Severity.INFO, message, span, hint, (), dict(data))
