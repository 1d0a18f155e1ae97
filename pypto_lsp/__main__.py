"""`pypto-lsp`: run the language server over stdio (default) or a loopback TCP socket.

stdout carries the protocol and nothing else: logging goes to stderr or `--log-file`.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from . import __version__


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
        server.start_io()
    # Exit now, without waiting for an analysis still running on the worker thread: the
    # client is gone (end of input) or asked to exit, and an analysis has nothing to save
    # (a 10,000-scope file kept a vanished client's server alive 9 s). 0 after shutdown, else 1.
    logging.shutdown()
    os._exit(server.protocol.exit_status)


if __name__ == "__main__":
    sys.exit(main())
