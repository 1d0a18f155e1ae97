"""Which copy of the server is running, and whether its quick fixes can work.

A user can have several copies (the one bundled in the VS Code extension, a virtual
environment, pipx), so the server says at start which one answers: its version, the folder it
was imported from and the interpreter running it. Quick fixes are libcst rewrites; libcst is a
compiled package, and the VS Code extension's universal package ships without it, so the
server checks once that libcst really parses and otherwise turns quick fixes off and says so.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from . import __version__


@dataclass(frozen=True)
class Libcst:
    """libcst as this interpreter loads it: where from, or why it cannot be used."""

    version: str | None
    location: str | None
    problem: str | None


@cache
def libcst_status() -> Libcst:
    """Imports libcst and parses one line with it, once per process: `import libcst` alone
    succeeds without the compiled parser for this Python version, the parse does not."""
    try:
        import libcst

        libcst.parse_module("x = 1\n")
    except Exception as error:  # ImportError, or the native parser failing to load
        return Libcst(None, None, f"{type(error).__name__}: {error}")
    return Libcst(getattr(libcst, "LIBCST_VERSION", None), str(Path(libcst.__file__).parent), None)


def quick_fixes_available() -> bool:
    return libcst_status().problem is None


def start_line() -> str:
    """One line for the log: version, package folder, interpreter, libcst."""
    here = Path(__file__).resolve().parent
    python = f"Python {sys.version.split()[0]} ({sys.executable})"
    cst = libcst_status()
    fixes = f"libcst {cst.version} from {cst.location}" if cst.problem is None else "no libcst"
    return f"pypto-lsp {__version__} from {here}, {python}, {fixes}"


def quick_fixes_off_message() -> str | None:
    """What to tell the user, once, when libcst cannot be used; None when it can."""
    problem = libcst_status().problem
    if problem is None:
        return None
    return (
        f"PyPTO: quick fixes are off because libcst cannot be loaded by {sys.executable} ({problem}). "
        f"Diagnostics, lenses and hovers work. To get quick fixes, install libcst for that "
        f"interpreter ('{sys.executable} -m pip install libcst'), or in VS Code install the "
        "extension package built for your platform."
    )
