"""`pypto-lsp`: run the language server over stdio (default) or a loopback TCP socket.

stdout carries the protocol and nothing else: logging goes to stderr or `--log-file`.
"""

from __future__ import annotations

import argparse
import logging
import os
import select
import stat
import sys
import threading
import time
from collections.abc import Callable

from . import __version__

# How long the event loop is given, once stdin has ended, to stop by itself and exit with the
# status it has: a main thread held up longer (a SIGUSR1 report under tracemalloc took 4-75 s)
# kept a server whose editor was gone alive for as long.
EXIT_GRACE_SECONDS = 0.5


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pypto-lsp", description="PyPTO language server")
    parser.add_argument("--version", action="version", version=f"pypto-lsp {__version__}")
    transport = parser.add_mutually_exclusive_group()
    # Many clients (vscode-languageclient, some Neovim/Emacs set-ups) pass --stdio explicitly.
    transport.add_argument("--stdio", action="store_true", help="serve over stdin/stdout (the default)")
    transport.add_argument("--tcp", action="store_true", help="serve on a TCP socket instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", help="TCP host (default: loopback only)")
    parser.add_argument("--port", type=int, default=2087, help="TCP port (default: 2087)")
    parser.add_argument("--log-file", help="write the log here instead of stderr")
    parser.add_argument(
        "--log-level",
        default="WARNING",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="log level (default: WARNING)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    handler: logging.Handler = (
        logging.FileHandler(args.log_file, encoding="utf-8")
        if args.log_file
        else logging.StreamHandler(sys.stderr)
    )
    logging.basicConfig(
        level=args.log_level, handlers=[handler], format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    from .provenance import quick_fixes_off_message, start_line
    from .server import create_server  # after logging is set up: imports may log

    log = logging.getLogger("pypto_lsp")
    log.info("%s", start_line())
    if (off := quick_fixes_off_message()) is not None:
        log.warning("%s", off)
    server = create_server()
    if args.tcp:
        server.start_tcp(args.host, args.port)
    else:
        exit_when_stdin_hangs_up(lambda: server.protocol.exit_status)
        server.start_io()
    # Exit now, without waiting for an analysis still running on the worker thread: the
    # client is gone (end of input) or asked to exit, and an analysis has nothing to save
    # (a 10,000-scope file kept a vanished client's server alive 9 s). 0 after shutdown, else 1.
    logging.shutdown()
    os._exit(server.protocol.exit_status)


def exit_when_stdin_hangs_up(status: Callable[[], int]) -> None:
    """End the process `EXIT_GRACE_SECONDS` after the client closes its end of stdin, unless
    the main thread ends it first (it does within milliseconds when it is free), with the
    status the main thread would give. Watched by a thread of its own, which `poll`s stdin for
    a hang-up: the event loop reads stdin only when it asks for more, so a main thread held
    up (a signal handler, a slow callback) would never see the end. Only for a pipe or a
    socket (a file or a terminal ends when read); nothing helps against a C call that holds
    the GIL, since no Python code runs then."""
    if not hasattr(select, "poll"):  # (Windows)
        return
    try:
        fd = sys.stdin.fileno()
        kind = os.fstat(fd).st_mode
    except (OSError, ValueError):
        return
    if not (stat.S_ISFIFO(kind) or stat.S_ISSOCK(kind)):
        return

    def watch() -> None:
        poller = select.poll()
        # only the end is asked for (POLLHUP and POLLERR are always reported; POLLRDHUP is a
        # socket's peer shutting down its writing side)
        poller.register(fd, getattr(select, "POLLRDHUP", 0))
        events = 0
        while not events:
            events = poller.poll()[0][1]
        if events & select.POLLNVAL:
            return  # stdin was closed in this process, not by the client
        time.sleep(EXIT_GRACE_SECONDS)
        logging.getLogger("pypto_lsp").warning(
            "stdin ended %.1f s ago and the event loop has not stopped: exiting", EXIT_GRACE_SECONDS
        )
        os._exit(status())

    threading.Thread(target=watch, name="pypto-stdin-watch", daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
