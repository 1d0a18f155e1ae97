"""Command-line surface of `pypto-lsp` that editors rely on."""

from __future__ import annotations

import pytest

from pypto_lsp.__main__ import _parser


def test_an_explicit_stdio_flag_is_accepted_as_the_default_transport() -> None:
    args = _parser().parse_args(["--stdio"])
    assert args.stdio and not args.tcp


def test_stdio_and_tcp_together_are_a_usage_error() -> None:
    with pytest.raises(SystemExit) as usage:
        _parser().parse_args(["--stdio", "--tcp"])
    assert usage.value.code == 2


def test_tcp_binds_loopback_unless_told_otherwise() -> None:
    assert _parser().parse_args(["--tcp"]).host == "127.0.0.1"
