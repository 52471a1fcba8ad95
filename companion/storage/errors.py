"""What storage refuses, in the domain's words; the web layer's one error handler
(`companion.web.errors`) gives each its HTTP status. Nothing here knows of HTTP.

A refusal carries a message code (`engine.messages`) and the params its sentences quote; it is
raised before anything is written, so the table is as it was.
"""

from __future__ import annotations

from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout


class Refusal(Exception):
    """A write or read refused below the web layer: ``code`` names why, ``params`` say the rest."""

    code = "refused"

    def __init__(self, **params):
        super().__init__(self.code)
        self.params = params


class UnknownTable(Refusal):
    code = "unknown_table"


class UnknownPlayer(Refusal):
    code = "unknown_player"


class BadField(Refusal):
    """A field storage reads itself is not one it can use: a client id, a version."""

    code = "bad_field"


class ClientIdReused(Refusal):
    """The client id names another event already: an id names one event."""

    code = "client_id_reused"


class StaleVersion(Refusal):
    """The version the writer saw is not the table's any more."""

    code = "stale_version"


class UndoNotLatest(Refusal):
    """An undo names an event that is no longer the latest in effect."""

    code = "undo_not_latest"


class NotYourMove(Refusal):
    """A player takes back a move that is not their own."""

    code = "not_your_move"


class LogFull(Refusal):
    code = "log_full"


class Busy(Refusal):
    """Other writers kept winning the race for the table: try again."""

    code = "busy"


def unavailable(error: Exception) -> bool:
    """Whether ``error`` says the database is not answering (rather than a bug in a statement): it is
    down or unreachable, its disk is full or read-only, a lock outlasted its timeout, or the pool
    had no connection to give."""
    if isinstance(error, (OperationalError, PoolTimeout)):
        return True
    return isinstance(error, DBAPIError) and error.connection_invalidated
