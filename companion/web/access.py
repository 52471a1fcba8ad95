"""Who a request is: the table its URL names and whose secret it carries, each found once per
request (the limits ask before the view does) and kept in ``flask.g`` for the rest of it.

A stranger reads a table by its code; writing takes a secret: the referee's (checked against the
hash the process keeps, no read) or one of its players' (one indexed read, never kept across
requests: a secret taken back stops at once in every process). Only hashes are stored.
"""

from __future__ import annotations

from flask import g, request

from companion.storage import store
from companion.web.errors import Refused
from engine import core


def bearer_secret() -> str | None:
    """The secret of ``Authorization: Bearer <secret>``, if the request carries one; the scheme's
    case does not matter (RFC 7235 §2.1: ``bearer`` is the same)."""
    scheme, _, secret = request.headers.get("Authorization", "").strip().partition(" ")
    secret = secret.strip()
    return secret if scheme.lower() == "bearer" and secret else None


def row(code: str):
    """The table's row as this request first read it, or None if no table has that code."""
    rows = g.setdefault("arbitre_rows", {})
    if code not in rows:
        rows[code] = store.find_table(code)
    return rows[code]


def identity(code: str):
    """Which table the code names (`store.identity`: kept by the process), read with `row`."""
    return store.identity(code, row)


def table_or_404(code: str, find=row):
    """The table's row (or what ``find`` looks up by code instead), or 404 ``unknown_table``."""
    table = find(code)
    if table is None:
        raise Refused(404, "unknown_table", code=code[:20])
    return table


def holder(code: str) -> str | None:
    """Whose secret the request carries for the table ``code`` names: `store.BY_REFEREE`, a player's
    id, or None (no secret, a wrong one, no such table). Checked once per request."""
    if "arbitre_holder" not in g:
        secret, table = bearer_secret(), identity(code)
        found = store.secret_holder(table, secret) if secret is not None and table is not None else None
        g.arbitre_holder = found
    return g.arbitre_holder


def right_secret_sent() -> bool:
    """Whether this request's secret was found to be its table's (a refusal then guessed nothing)."""
    return g.get("arbitre_holder") is not None


def writer_table(code: str):
    """Which table, and who writes to it (`store.BY_REFEREE` or a player's id): 404 ``unknown_table``,
    401 ``secret_required``, 403 ``wrong_secret``, in that order."""
    table = table_or_404(code, identity)
    if bearer_secret() is None:
        raise Refused(401, "secret_required")
    who = holder(code)
    if who is None:
        raise Refused(403, "wrong_secret")
    return table, who


def referee_table(code: str):
    """Which table, if the request carries its referee secret; a player's secret is ``403
    referee_only`` (it records its player's own moves, nothing else)."""
    table, who = writer_table(code)
    if who != store.BY_REFEREE:
        raise Refused(403, "referee_only", player=who)
    return table


def check_own_move(table, player: str, event: dict) -> None:
    """A player's secret records an event only if the game lets a player record its type and the
    player it names as acting is the secret's (`engine.core.acting_player`); else ``403
    not_your_move``, before the rules are asked, and nothing changes."""
    if core.acting_player(table.game, table.options, event) != player:
        kind = event.get("type")
        raise Refused(
            403, "not_your_move", player=player, type=core.short(kind) if kind is not None else None
        )


def found_row(table_id: int):
    """The row this request read for the table, if it read one, handed over to a write: the write
    reads no row again, and changes that row's state in place (so nothing here keeps it)."""
    rows = g.get("arbitre_rows", {})
    for code, found in rows.items():
        if found is not None and found.id == table_id:
            del rows[code]
            return found
    return None
