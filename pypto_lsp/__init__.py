"""pypto-lsp: a language server showing what PyPTO's outlining passes make of the code being edited."""

import os
import sys

__version__ = "0.1.0"


def _forget_the_working_directory() -> None:
    """Run as `python -m pypto_lsp`, drop the working directory from `sys.path` before anything
    else is imported (issue 15). `-m` puts it first, and an editor starts the server in the
    project being edited: a repository holding `argparse.py`, `logging/` or `pypto_core/` had
    that code run at the server's start. `sys.argv[0]` is "-m" only while `runpy` imports this
    package for `-m`; a package loaded from the working directory itself (running a checkout of
    this repository) keeps it, since its `pypto_core` is there too. Only `os` and `sys` are
    imported before: both are loaded by the interpreter's start, never looked up on the path.
    The editor set-ups start the console script, `pypto-lsp`, whose `sys.path[0]` is its own
    folder."""
    if sys.argv[:1] != ["-m"] or not sys.path:
        return
    working = os.getcwd()
    if os.path.dirname(os.path.dirname(os.path.abspath(__file__))) == working:
        return
    if sys.path[0] in ("", working):
        del sys.path[0]


_forget_the_working_directory()
