"""What the server writes to the client's log: problems, not ordinary protocol traffic."""

from __future__ import annotations

import logging

from pypto_lsp.server import ORDINARY_CANCELS, create_server


def test_a_cancel_for_an_answered_request_is_not_logged() -> None:
    """VS Code cancels requests it no longer needs, often after they were answered: pygls's
    warning for that is noise in the client's log (shown there as an error)."""
    create_server()
    logger = logging.getLogger("pygls.protocol.json_rpc")
    assert ORDINARY_CANCELS in logger.filters
    ordinary = logger.makeRecord(
        logger.name,
        logging.WARNING,
        __file__,
        1,
        'Cancel notification for unknown message id "%s"',
        (7,),
        None,
    )
    other = logger.makeRecord(logger.name, logging.WARNING, __file__, 1, "something else", (), None)
    assert [logger.filter(ordinary), bool(logger.filter(other))] == [False, True]
