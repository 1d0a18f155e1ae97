"""A jit program's errors name each variable as its author wrote it.

The analysis builds a jit body with the names the compiler's specialiser gives its variables
(`jit_renames`: `x_v1` for a name rebound at its depth), so a finding about such a variable
names the alias. The compiler does not show it: its jit entry points (`JITFunction.lower`,
`_compile`, `_compile_to_program_with_rename_map` in `jit/decorator.py`) catch every error the
parser or a pass raises while compiling the specialised source and rewrite its message with
the specialiser's rename map (`_rewrite_jit_error`): each alias, as a whole word (`\\b`),
longest first, becomes the name it renames (`x`). `written_names` does the same to a jit
program's errors, and to their hints and related messages (ours, read by the same author).
Warnings and notes keep the IR's names, as the compiler's logged warnings do (none of ours
can name an alias: parameters are never renamed). A finding's `data` is left alone: a quick
fix reads it against the IR (PTO301's scalar is the alias of one binding among several of
the written name).

The program's aliases are the names its renames made (`Program.aliases`: each function's
build hands on what its renamer made, `JitRenamer.aliases`, kept with the build and with each
statement's record), of the entry and all its deps, as the specialiser's one map holds them:
an alias of one function is rewritten in a finding about another, as there. Nothing is read
unless an error's text holds `_v<digit>`.
"""

from __future__ import annotations

import re

from ..diagnostics import Diagnostic, Related, Severity
from ..ir import Program

_TAIL = re.compile(r"_v\d")  # what a text naming one holds


def written_names(diagnostics: list[Diagnostic], program: Program) -> list[Diagnostic]:
    """`diagnostics` of the jit `program`, each error's words rewritten as the compiler
    rewrites its own."""
    if not any(d.severity is Severity.ERROR and _mentions_alias(d) for d in diagnostics):
        return diagnostics
    aliases = sorted(program.aliases, key=len, reverse=True)
    if not aliases:
        return diagnostics
    result = []
    for d in diagnostics:
        if d.severity is not Severity.ERROR or not _mentions_alias(d):
            result.append(d)
            continue
        result.append(
            Diagnostic(
                d.code,
                d.severity,
                _rewritten(d.message, aliases),
                d.span,
                _rewritten(d.hint, aliases) if d.hint is not None else None,
                tuple(Related(_rewritten(r.message, aliases), r.span, r.path) for r in d.related),
                d.data,
            )
        )
    return result


def _mentions_alias(d: Diagnostic) -> bool:
    return bool(
        _TAIL.search(d.message)
        or (d.hint is not None and _TAIL.search(d.hint))
        or any(_TAIL.search(r.message) for r in d.related)
    )


def _rewritten(text: str, aliases: list[str]) -> str:
    """`_rewrite_jit_error`'s substitution: alias by alias, longest first, whole words."""
    for alias in aliases:
        if alias in text:
            text = re.sub(rf"\b{re.escape(alias)}\b", alias[: alias.rfind("_v")], text)
    return text
