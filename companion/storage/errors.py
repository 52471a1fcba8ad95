"""What storage refuses, in the domain's words; the web layer's one error handler
(`companion.web.errors`) gives each its HTTP status. Nothing here knows of HTTP.

A refusal carries a message code (`engine.messages`: ``stale_version``, ``client_id_reused``,
``undo_not_latest``, ``not_your_move``, ``log_full``, ``bad_field``, ``unknown_player``,
``unknown_table``, ``busy``; the live streams' ``streams_full`` and ``too_many_streams``) and the
params its sentences quote; it is raised before anything is written, so the table is as it was.
"""

from __future__ import annotations

from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout


class Refusal(Exception):
    """A write or read refused below the web layer: ``code`` names why, ``params`` say the rest."""

    def __init__(self, code: str, /, **params):  # a param may be named ``code`` too
        super().__init__(code)
        self.code, self.params = code, params


def unavailable(error: Exception) -> bool:
    """Whether ``error`` says the database is not answering (rather than a bug in a statement): it is
    down or unreachable, its disk is full or read-only, a lock outlasted its timeout, or the pool
    had no connection to give."""
    if isinstance(error, (OperationalError, PoolTimeout)):
        return True
    return isinstance(error, DBAPIError) and error.connection_invalidated
