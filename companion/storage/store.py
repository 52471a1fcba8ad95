"""Writing a table: create it, append an event, undo — each checked by the engine and durable before
it is answered; and reading it: the log, what a phone lacks of it, the history's pages.

A write appends to (or marks) the log and moves the table's snapshot and version forward in the same
transaction, the one its process's next group commit makes (`companion.storage.group_commit`). The version
bump is a conditional UPDATE (``WHERE version = v``), so two writers racing on one table can never
both win: the loser runs again on the fresh table, on SQLite and PostgreSQL alike. What keeps a long
table as cheap as a new one: the counters on its row, a checkpoint of the state every
`CHECKPOINT_EVERY` events in effect, each event's words, and the partial indexes (models.py).
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Callable
from datetime import datetime

from flask import current_app
from sqlalchemy import Row, and_, bindparam, delete, false, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from companion.storage import group_commit, models, warm
from companion.storage.errors import Refusal
from companion.storage.group_commit import Raced, Snapshot
from companion.storage.models import Event, KeptAnswer, PlayerSecret, Table, db, now
from engine import core

CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford base32: no I, L, O, U
CODE_LENGTH = 6
CODE_LETTERS = frozenset(CODE_ALPHABET)
MISTYPED = str.maketrans({"O": "0", "I": "1", "L": "1"})
CLIENT_ID_MAX = 64
WRITE_ATTEMPTS = 5
# Versions whose answers the log keeps (above the live stream's resume window, LIVE_RESUME_MAX):
# a retry or a follower within them reads the answer; an older one is rebuilt by `answer_at`.
ANSWERS_KEPT = 128
PRUNE_EVERY = 32  # versions between two prunings of older answers: one extra statement, now and then
# Events in effect between two checkpoints of the state (`Event.checkpoint`): an undo replays at most
# this many; a checkpoint costs one more encoded state on one write in this many.
CHECKPOINT_EVERY = 100
# Rows read, or events replayed, between two turns of a server process's other requests, in a read
# of a whole log (`cooperative`): a few milliseconds each.
SLICE = 200
TURN_SECONDS = 0.0001  # the shortest pause that still lets gevent's loop turn once
# The isolation that makes a transaction's reads one snapshot (SQLite's is its read transaction's).
SNAPSHOT_READ = {"postgresql": {"isolation_level": "REPEATABLE READ"}}
# Writes go straight to the tables (SQLAlchemy Core), not through the ORM's unit of work: one
# statement per row, each value encoded once.
TABLES, EVENTS, ANSWERS = Table.__table__, Event.__table__, KeptAnswer.__table__
# The events in effect, as the partial index `ix_events_in_effect` (table, version) reads them: the
# latest of a long log with thousands undone are found without walking past the undone ones.
IN_EFFECT = EVENTS.c.undone == false()
SNAPSHOT = ("id", "game", "players", "options", "version", "state", "log_length", "in_effect")
INSERT_EVENT = insert(EVENTS)
# Who recorded an event: the referee, or the id of the player whose own secret recorded it.
BY_REFEREE = "referee"
# What an answer names of an event (`entry`): its place in the log, its client id, its type, its
# words, who recorded it.
ENTRY = (EVENTS.c.seq, EVENTS.c.client_id, EVENTS.c.type, EVENTS.c.said, EVENTS.c.recorded_by)
SECRETS = PlayerSecret.__table__
# Whose player secret a hash is, at one table (its unique index): one read, on every write a
# player's phone sends, so a secret taken back stops working at once in every server process.
SECRET_HOLDER = select(SECRETS.c.player).where(
    SECRETS.c.table_id == bindparam("table_id"), SECRETS.c.secret_hash == bindparam("secret_hash")
)
# The latest events in effect, newest first (`ix_events_in_effect`): what an undo takes back.
LATEST_ENTRIES = (
    select(*ENTRY, EVENTS.c.payload, EVENTS.c.version, EVENTS.c.created_at)
    .where(EVENTS.c.table_id == bindparam("table_id"), IN_EFFECT)
    .order_by(EVENTS.c.version.desc())
    .limit(bindparam("count"))
)
# The event an undo took back at a version (the partial index of the events undone, `ix_events_undone`).
UNDONE_AT = select(*ENTRY, EVENTS.c.undone_at, EVENTS.c.undone_by).where(
    EVENTS.c.table_id == bindparam("table_id"), EVENTS.c.undone_version == bindparam("version")
)
# What a history entry answers of its event (`history`): never the kept answers nor the checkpoint,
# whose decoding (a view, a state: kilobytes a row) cost a page of the history most of its time.
HISTORY_COLUMNS = tuple(
    EVENTS.c[name]
    for name in (
        "seq",
        "client_id",
        "payload",
        "version",
        "created_at",
        "undone",
        "undone_version",
        "undone_at",
        "said",
        "recorded_by",
        "undone_by",
    )
)
# The write path's statements, built once (SQLAlchemy caches their SQL; building them anew for every
# tap cost more than running them).
FIND_TABLE = select(*TABLES.c).where(TABLES.c.code == bindparam("code"))
# A retry's first answer, and what the retry must repeat to be one (the event, the event undone).
# (The answer of a version is kept in `answers` while it is recent: None once pruned.)
EARLIER_EVENT = (
    select(EVENTS.c.version, ANSWERS.c.answer, EVENTS.c.payload)
    .outerjoin(ANSWERS, and_(ANSWERS.c.table_id == EVENTS.c.table_id, ANSWERS.c.version == EVENTS.c.version))
    .where(EVENTS.c.table_id == bindparam("table_id"), EVENTS.c.client_id == bindparam("client_id"))
)
EARLIER_UNDO = (
    select(EVENTS.c.undone_version, ANSWERS.c.answer, EVENTS.c.client_id)
    .outerjoin(
        ANSWERS, and_(ANSWERS.c.table_id == EVENTS.c.table_id, ANSWERS.c.version == EVENTS.c.undone_version)
    )
    .where(EVENTS.c.table_id == bindparam("table_id"), EVENTS.c.undo_id == bindparam("undo_id"))
)
LATEST_IN_EFFECT = (
    select(EVENTS.c.id, EVENTS.c.client_id, EVENTS.c.payload, EVENTS.c.checkpoint)
    .where(EVENTS.c.table_id == bindparam("table_id"), IN_EFFECT)
    .order_by(EVENTS.c.version.desc())
    .limit(bindparam("count"))
)
MARK_UNDONE = (
    update(EVENTS)
    .where(EVENTS.c.id == bindparam("event_id"))
    .values(
        {
            name: bindparam(f"new_{name}")
            for name in ("undone", "undone_version", "undone_at", "undo_id", "undone_by")
        }
    )
)
MOVE_TABLE = (
    update(TABLES)
    .where(TABLES.c.id == bindparam("row_id"), TABLES.c.version == bindparam("read_version"))
    .values(
        {
            name: bindparam(f"new_{name}")
            for name in ("version", "state", "updated_at", "log_length", "in_effect")
        }
    )
)
# On PostgreSQL a write is one statement, one round trip: the table's row moved in a WITH that the
# event's row is written from (nothing is written when the row had moved on). SQLite has no writing
# WITH: there, MOVE_TABLE then the event's statement.
MOVED = MOVE_TABLE.returning(TABLES.c.id, TABLES.c.version).cte("moved")
# The version's answer, kept (`answers`): on SQLite a statement of its own after the event's; on
# PostgreSQL one more WITH of the same statement, written only if the row moved.
KEEP_ANSWER = insert(ANSWERS)
KEPT = (
    insert(ANSWERS)
    .from_select(
        ("table_id", "version", "answer"),
        select(MOVED.c.id, MOVED.c.version, bindparam("kept_answer", type_=ANSWERS.c.answer.type)),
    )
    .cte("kept")
)
EVENT_ROW = (
    "table_id",
    "seq",
    "client_id",
    "type",
    "payload",
    "version",
    "said",
    "created_at",
    "undone",
    "checkpoint",
    "recorded_by",
)
INSERT_MOVED = (
    insert(EVENTS)
    .from_select(
        EVENT_ROW,
        # Named apart from the table row's columns (``version``, ``created_at``), which the UPDATE would
        # otherwise take as values to set; written only if the row moved.
        select(*(bindparam(f"event_{name}", type_=EVENTS.c[name].type) for name in EVENT_ROW)).select_from(
            MOVED
        ),
        include_defaults=False,  # every column is named, by the caller
    )
    .add_cte(MOVED, KEPT)
    .returning(EVENTS.c.id)
)  # what was written: the driver's row count is -1 after a WITH
MARK_MOVED = MARK_UNDONE.where(EVENTS.c.table_id == MOVED.c.id).add_cte(MOVED, KEPT).returning(EVENTS.c.id)
# The event's statement -> that statement with the move, and how it names its parameters.
ALONG = {INSERT_EVENT: (INSERT_MOVED, "event_"), MARK_UNDONE: (MARK_MOVED, "")}
# Forget the answers of the versions up to ``upto`` (`_prune_answers`): their rows deleted, their
# room the next answers'.
PRUNE_ANSWERS = (
    delete(ANSWERS).where(ANSWERS.c.table_id == bindparam("row_id"), ANSWERS.c.version <= bindparam("upto")),
)
# (statement, database, parameter names) -> what `_sent` sends: SQL, parameter order, bind processors.
SENT_FORMS: dict[tuple, tuple] = {}


# --- codes and secrets ---------------------------------------------------------------------------


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(raw: str) -> str:
    """What a person typed (any case, dashes, spaces, O for 0, I or L for 1) as the stored code."""
    cleaned = raw.upper().replace("-", "").replace(" ", "")
    return cleaned.translate(MISTYPED)


def display_code(code: str) -> str:
    return f"{code[:4]}-{code[4:]}"


def hash_secret(secret: str) -> str:
    # 128 random bits need no slow hash: nobody can guess their way to a preimage.
    return hashlib.sha256(secret.encode()).hexdigest()


def secret_holder(table: warm.Identity, secret: str) -> str | None:
    """Whose secret ``secret`` is at ``table``: `BY_REFEREE` (known without a read), a player's id
    (one indexed read of the player secrets, never kept: a secret taken back stops at once, in
    every process), or None."""
    hashed = hash_secret(secret)
    if hmac.compare_digest(table.secret_hash, hashed):
        return BY_REFEREE
    with db.engine.connect() as connection:
        return connection.execute(
            SECRET_HOLDER, {"table_id": table.id, "secret_hash": hashed}
        ).scalar_one_or_none()


def _check_seat(table: warm.Identity, player: str) -> None:
    """``player`` is the id of one of the table's players now, else 404 ``unknown_player`` (an id
    from the URL is compared with the state's ids before any statement holds it)."""
    row = find_table(table.code)
    if player not in {p["id"] for p in row.state.get("players", ())}:
        raise Refusal("unknown_player", player=core.short(player), field="player")


def give_player_secret(table: warm.Identity, player: str) -> str:
    """A new secret for ``player`` (a player of the table now), which replaces the one given before,
    if any: that one stops working at once. Only its hash is kept. Two referee phones asking at
    once: each transaction replaces the row, and the one that loses the unique index's race tries
    again, so the secret answered last is the one that works."""
    _check_seat(table, player)
    for _ in range(WRITE_ATTEMPTS):
        secret = secrets.token_urlsafe(16)
        db.session.execute(SECRETS.delete().where(SECRETS.c.table_id == table.id, SECRETS.c.player == player))
        db.session.execute(
            insert(SECRETS).values(
                table_id=table.id, player=player, secret_hash=hash_secret(secret), created_at=now()
            )
        )
        try:
            db.session.commit()
        except IntegrityError:
            db.session.rollback()
            continue
        return secret
    raise Refusal("busy")


def take_back_player_secret(table: warm.Identity, player: str) -> None:
    """``player``'s secret stops working (nothing to do when they hold none)."""
    _check_seat(table, player)
    db.session.execute(SECRETS.delete().where(SECRETS.c.table_id == table.id, SECRETS.c.player == player))
    db.session.commit()


def seats(table_id: int) -> dict[str, bool]:
    """Which players hold a secret of their own (``{player id: true}``), never the secrets."""
    rows = db.session.execute(select(SECRETS.c.player).where(SECRETS.c.table_id == table_id)).scalars()
    return dict.fromkeys(sorted(rows), True)


# --- reading -------------------------------------------------------------------------------------


def _stored_code(code) -> str | None:
    """The code as stored, or None when what was given cannot be a code (asking the database would
    also fail on a NUL, on PostgreSQL)."""
    if not isinstance(code, str) or len(code) > 20:
        return None
    code = normalize_code(code)
    if len(code) != CODE_LENGTH or not CODE_LETTERS.issuperset(code):
        return None
    return code


def find_table(code: str) -> Row | None:
    """The table's row (read-only: its columns as attributes), or None if no table has that code."""
    code = _stored_code(code)
    if code is None:
        return None
    # One statement on a connection of its own, outside a transaction: on PostgreSQL, a tap's read
    # costs one round trip instead of three (BEGIN, SELECT, ROLLBACK; SQLite's driver begins no
    # transaction for a read); the request's session is left without a connection (a write takes
    # its own, `_write`).
    with db.engine.connect() as connection:
        if connection.dialect.name == "postgresql":
            connection.execution_options(isolation_level="AUTOCOMMIT")
        return connection.execute(FIND_TABLE, {"code": code}).one_or_none()


def identity(code: str, find: Callable[[str], Row | None] = find_table) -> warm.Identity | None:
    """Which table the code names and its secret's hash (what a referee's request is checked
    against), or None: kept by the process once read, since none of it ever changes. ``find``
    reads the row when the process does not know the table yet."""
    code = _stored_code(code)
    if code is None:
        return None
    kept = warm.for_app(current_app)
    found = kept.identity(code)
    if found is None:
        row = find(code)
        if row is None:
            return None
        found = warm.Identity(row.id, row.code, row.game, row.secret_hash, row.options)
        kept.know(found)
    return found


def steady(code: str, read):
    """``(table, read(table))``: the table's row and what ``read`` reads of its log with further
    statements (through ``db.session``), all in one snapshot of the database. Each statement alone
    would see its own moment: a write committed between them would give a log one event ahead of,
    or behind, the row's version, and a phone building its log from both would keep an event twice
    or lose one. In a snapshot, writes go on meanwhile and nobody waits (WAL on SQLite, MVCC on
    PostgreSQL); the reader gets the table as it was when its first statement ran."""
    db.session.rollback()  # the snapshot is the session's next transaction: none may be under way
    connection = db.session.connection(execution_options=SNAPSHOT_READ.get(db.engine.dialect.name, {}))
    if connection.dialect.name == "sqlite":
        # pysqlite begins no transaction for a read: without BEGIN each statement is its own snapshot.
        connection.exec_driver_sql("BEGIN")
    table = connection.execute(FIND_TABLE, {"code": normalize_code(code)}).one()
    return table, read(table)


def cooperative(items, every: int = SLICE):
    """``items``, one by one, handing the process to its other requests every ``every`` of them: a
    long read or replay then never holds a server process for more than a few milliseconds."""
    for count, item in enumerate(items, 1):
        yield item
        if count % every == 0:
            # gevent's under the production server: the event loop turns once, and every request
            # ready meanwhile (a socket readable, a timer due) runs. A sleep of 0 would only run the
            # greenlets already ready, and let no socket be read for as long as the read lasts.
            time.sleep(TURN_SECONDS)


def active_events(table) -> list[Row]:
    """The events in effect (``client_id``, ``payload``), in order, read ``SLICE`` rows at a time."""
    # In version order, which is the log's (an event's version grows with its seq): the partial index's.
    query = (
        select(EVENTS.c.client_id, EVENTS.c.payload)
        .where(EVENTS.c.table_id == table.id, IN_EFFECT)
        .order_by(EVENTS.c.version)
        .execution_options(yield_per=SLICE)  # fetched (and decoded) a slice at a time, not all at once
    )
    return [row for part in cooperative(db.session.execute(query).partitions(), 1) for row in part]


def log_since(table: Table, version: int) -> tuple[int, list[Event]]:
    """What a client holding the log as it was at ``version`` lacks: how many of its events are still
    in effect (``keep``: undo only takes back the latest, so they are its first ones) and the events in
    effect applied after ``version``. One indexed read of the new events, whatever the log's length."""
    query = (
        select(Event)
        .where(Event.table_id == table.id, IN_EFFECT, Event.version > version)
        .order_by(Event.version)
    )
    events = list(db.session.execute(query).scalars())
    return table.in_effect - len(events), events


def log_tail(table: Table, tail: int) -> tuple[int, dict | None, list[Row]]:
    """At least the last ``tail`` events in effect (all of them in a shorter log), from the latest
    checkpoint before them: how many events in effect come before the first one returned (``start``),
    the state after those (their last one's checkpoint; None when ``start`` is 0: the setup) and the
    events from there (rows with ``client_id`` and ``payload``). One indexed read of at most ``tail +
    CHECKPOINT_EVERY`` rows, whatever the log's length: what a phone needs to referee, undo included,
    without the whole log."""
    rows = db.session.execute(
        select(EVENTS.c.client_id, EVENTS.c.payload, EVENTS.c.checkpoint)
        .where(EVENTS.c.table_id == table.id, IN_EFFECT)
        .order_by(EVENTS.c.version.desc())
        .limit(tail + CHECKPOINT_EVERY)
    ).all()  # newest first: rows[i] is the event in effect at position in_effect - i
    for after, row in enumerate(rows[tail:], tail):
        if row.checkpoint is not None:
            return table.in_effect - after, row.checkpoint, rows[:after][::-1]
    if len(rows) < table.in_effect:  # no checkpoint in reach: events written before they were kept
        return 0, None, active_events(table)
    return 0, None, rows[::-1]


def applied(table: Table, ids: list[str]) -> list[str]:
    """Which of the client ids ``ids`` this table applied: as an event (in effect or undone since) or
    as an undo. A phone that lost an answer learns so here, before it replays anything (each id is
    one lookup in the log's unique index of ids)."""
    found = set(
        db.session.execute(
            select(EVENTS.c.client_id)
            .where(EVENTS.c.table_id == table.id, EVENTS.c.client_id.in_(ids))
            .union_all(
                select(EVENTS.c.undo_id).where(EVENTS.c.table_id == table.id, EVENTS.c.undo_id.in_(ids))
            )
        ).scalars()
    )
    return [client_id for client_id in ids if client_id in found]


def history(table: Table, before: int | None = None, limit: int | None = None) -> tuple[list[Row], bool]:
    """The log's rows (the columns of `HISTORY_COLUMNS`), oldest first, and whether older ones are
    left: all of them, or the latest ``limit`` before ``seq`` ``before`` (one indexed read, whatever
    the log's length)."""
    query = select(*HISTORY_COLUMNS).where(EVENTS.c.table_id == table.id)
    if limit is None:
        return list(db.session.execute(query.order_by(EVENTS.c.seq))), False
    if before is not None:
        query = query.where(EVENTS.c.seq < before)
    rows = list(db.session.execute(query.order_by(EVENTS.c.seq.desc()).limit(limit + 1)))
    return rows[:limit][::-1], len(rows) > limit


def answer(table: Table) -> dict:
    """What every write returns and every reader gets: the version, the table's view, what that
    version did and what an undo would take back now (read from the log's end: at most two rows)."""
    if table.version == 0:
        return _worded(table.game, table.state, 0, None, None)
    latest = db.session.execute(LATEST_ENTRIES, {"table_id": table.id, "count": 1}).first()
    did = _did_at(table.id, table.version, latest)
    return _worded(table.game, table.state, table.version, did, None if latest is None else entry(latest))


def answer_at(table: Table, version: int) -> dict:
    """The answer the table gave at ``version``, rebuilt from the log: the replay of the events that
    were in effect then (applied by that version, and not undone by it)."""
    query = (
        select(Event.payload, *ENTRY, Event.version, Event.created_at)
        .where(
            Event.table_id == table.id,
            Event.version <= version,
            or_(Event.undone_version.is_(None), Event.undone_version > version),
        )
        .order_by(Event.seq)
    )
    rows = db.session.execute(query).all()
    state = core.replay(table.game, table.players, table.options, [row.payload for row in rows])
    latest = rows[-1] if rows else None
    did = _did_at(table.id, version, latest)
    return _worded(table.game, state, version, did, None if latest is None else entry(latest))


def entry(row) -> dict:
    """An event as an answer names it (``undoable``; ``did`` adds when and whether it was undone)."""
    return {
        "seq": row.seq,
        "id": row.client_id,
        "type": row.type,
        "said": row.said,
        "by": row.recorded_by or BY_REFEREE,
    }


def _did(named: dict, event: dict | None, at: datetime, undo: bool) -> dict:
    """What a version did: ``named``, the event it recorded (``event``, itself: a phone that keeps
    the log moves it by the stream's frame alone) or, ``undo``, took back; ``at``, when. ``by`` in
    ``named`` is who made the version: who recorded the event, or who undid it."""
    return {**named, "event": event, "at": at.isoformat(), "undo": undo}


def _did_at(table_id: int, version: int, latest) -> dict | None:
    """What ``version`` did, given the latest event in effect at that version (a row, or None): that
    event if it was recorded by that version, else the event its undo took back."""
    if latest is not None and latest.version == version:
        return _did(entry(latest), latest.payload, latest.created_at, undo=False)
    if version == 0:
        return None
    undone = db.session.execute(UNDONE_AT, {"table_id": table_id, "version": version}).first()
    if undone is None:
        return None
    return _did({**entry(undone), "by": undone.undone_by or BY_REFEREE}, None, undone.undone_at, undo=True)


def _worded(game: str, state: dict, version: int, did: dict | None, undoable: dict | None) -> dict:
    """An answer: the version, the view of ``state``, what the version did, what an undo would take back."""
    return {"version": version, "state": core.view(game, state), "did": did, "undoable": undoable}


def rebuild(table: Table) -> dict:
    """The state recomputed from the log: the snapshot is only a cache of this."""
    return core.replay(table.game, table.players, table.options, [e.payload for e in active_events(table)])


# --- writing -------------------------------------------------------------------------------------


def create_table(game: str, players, options) -> tuple[Table, str]:
    state = core.setup(game, players, options)
    secret = secrets.token_urlsafe(16)
    return _new_table(game, players, options, state, secret), secret


def _new_table(game: str, players, options, state: dict, secret: str, claim=None) -> Table | None:
    """A new table's row under a code drawn afresh (again if it was taken), committed. With
    ``claim``, run in the same transaction once the row is written, only if ``claim(table)`` is
    true: else nothing is written and the answer is None."""
    for _ in range(WRITE_ATTEMPTS):
        table = Table(
            code=new_code(),
            game=game,
            players=players,
            options=options or {},
            secret_hash=hash_secret(secret),
            version=0,
            state=state,
        )
        db.session.add(table)
        try:
            db.session.flush()
        except IntegrityError:  # the code was taken: draw another
            db.session.rollback()
            continue
        if claim is not None and not claim(table):
            db.session.rollback()
            return None
        db.session.commit()
        return table
    raise Refusal("busy")


def rematch_secret(secret: str, code: str) -> str:
    """The referee secret of table ``code``'s rematch, derived from that table's secret (128 bits, as
    a new table's): every phone holding the old secret gets the same new one, as often as it asks,
    and the server keeps neither, only their hashes."""
    digest = hmac.new(secret.encode(), f"arbitre.rematch:{code}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:16]).rstrip(b"=").decode()


def rematch(table_id: int, secret: str) -> tuple[Table, str, bool]:
    """A finished table's next game (`engine.core.rematch`: the same players, seats and options) and
    its secret, made once: asked again (a second referee phone, a retry) it is the same table and
    the same secret, whether or not the old game is still over. Two asking at once make one table:
    the old table's ``rematch`` is claimed only while it is empty, in the new table's transaction,
    and the loser's new row is rolled back. The third value says whether this call made it (its
    followers are then to be told)."""
    old = db.session.get(Table, table_id)
    again = rematch_secret(secret, old.code)
    if old.rematch is None:
        players, options = core.rematch(old.game, old.players, old.options, old.state)
        unclaimed = update(TABLES).where(TABLES.c.id == table_id, TABLES.c.rematch.is_(None))

        def claim(table: Table) -> bool:
            return db.session.execute(unclaimed.values(rematch=table.code)).rowcount == 1

        made = _new_table(old.game, players, options, core.setup(old.game, players, options), again, claim)
        if made is not None:
            return made, again, True
    # Made before, or just now by another request (the rollback expired ``old``: read afresh).
    return db.session.execute(select(Table).where(Table.code == old.rematch)).scalar_one(), again, False


def _client_id(body: dict, required: bool, field: str = "id") -> str | None:
    client_id = body.get(field)
    if client_id is None and not required:
        return None
    if not is_client_id(client_id):
        raise Refusal("bad_field", field=field, max=CLIENT_ID_MAX)
    return client_id


def is_client_id(value) -> bool:
    # Printable only: a NUL (refused by PostgreSQL) or a lone surrogate (not UTF-8) cannot be stored.
    return isinstance(value, str) and 1 <= len(value) <= CLIENT_ID_MAX and value.isprintable()


def append_event(table_id: int, body: dict, by: str = BY_REFEREE, found: Row | None = None) -> Answer:
    """Apply one event and return the answer once durable; a retried id gets its first answer,
    applied once, and the same id with another event is refused (``client_id_reused``): an id names
    one event. ``by``: who records it, the referee or a player (whose right to it the web layer
    checked). ``found``: the table's row, if the caller read it already."""
    return _write(table_id, AppendEvent(table_id, body, by), found)


def undo(table_id: int, body: dict, by: str = BY_REFEREE, found: Row | None = None) -> Answer:
    """Take back the latest event in effect; an undo naming its event (``event``: its client id) only
    while that event is the latest in effect (else ``undo_not_latest``). An undo that carries an
    ``id`` is applied once. A player (``by``) takes back only an event their own secret recorded,
    while it is the latest in effect (else ``not_your_move``)."""
    return _write(table_id, Undo(table_id, body, by), found)


class _Write(group_commit.Job):
    """What an event and an undo share: the table they write to, who writes, the body's version."""

    def __init__(self, table_id: int, body: dict, by: str):
        self.table_id, self.body, self.by = table_id, body, by
        self.table: Snapshot | None = None  # as `apply` read it
        self.rows: dict = {}  # what `write` writes, made ready by `apply`

    def reread(self, connection) -> Snapshot:
        return _reread(connection, self.table_id)

    def check_version(self, table: Snapshot) -> None:
        if "version" not in self.body:
            return
        sent = self.body["version"]
        if isinstance(sent, bool) or not isinstance(sent, int):
            raise Refusal("bad_field", field="version")
        if sent != table.version:
            raise Refusal("stale_version", sent=sent, current=table.version)

    def write(self, connection) -> Snapshot:
        return _move_table(connection, self.table, **self.rows)


class AppendEvent(_Write):
    """One event appended to the log (`append_event`)."""

    def __init__(self, table_id: int, body: dict, by: str):
        super().__init__(table_id, body, by)
        self.client_id = _client_id(body, required=True)
        self.event = {key: value for key, value in body.items() if key not in ("id", "version")}
        self.most = current_app.config["EVENTS_PER_TABLE"]

    def earlier(self, connection, table: Snapshot) -> Answer | None:
        row = connection.execute(EARLIER_EVENT, {"table_id": table.id, "client_id": self.client_id}).first()
        if row is None:
            return None
        if row.payload != self.event:
            raise Refusal("client_id_reused", id=self.client_id, type=row.payload.get("type"))
        return _answered(table, row.version, row.answer)

    def apply(self, connection, table: Snapshot) -> Answer:
        self.check_version(table)
        if self.most and table.log_length >= self.most:
            raise Refusal("log_full", max=self.most)
        event, client_id, by = self.event, self.client_id, self.by
        module = core.game(table.game)
        # ``table.state`` was decoded from the row for this write alone (a lost race reads it again),
        # so the event applies to it in place, with no copy: every handler checks before it mutates,
        # so a refused event leaves it as it was.
        state, before = table.state, table.encoded  # ``before``: what undoing this event goes back to
        words = said(module, state, event)
        core.apply_in_place(module, state, event)
        version, in_effect, at = table.version + 1, table.in_effect + 1, now()
        named = {
            "seq": table.log_length + 1,
            "id": client_id,
            "type": str(event.get("type")),
            "said": words,
            "by": by,
        }
        result = Answer(_worded(table.game, state, version, _did(named, event, at, undo=False), named))
        self.table = table
        self.rows = {
            "state": state,
            "log_length": table.log_length + 1,
            "in_effect": in_effect,
            "event_row": (
                INSERT_EVENT,
                {
                    "table_id": table.id,
                    "seq": table.log_length + 1,
                    "client_id": client_id,
                    "type": str(event.get("type")),
                    "payload": event,
                    "version": version,
                    "said": words,
                    "created_at": at,
                    "undone": False,
                    "checkpoint": state if in_effect % CHECKPOINT_EVERY == 0 else None,
                    "recorded_by": None if by == BY_REFEREE else by,
                },
            ),
            "answer": result,
            "before": (before, client_id),
            "trail": (*table.trail, named)[-2:],
        }
        return result


class Undo(_Write):
    """The latest event in effect taken back (`undo`)."""

    def __init__(self, table_id: int, body: dict, by: str):
        super().__init__(table_id, body, by)
        self.undo_id = _client_id(body, required=False)
        self.named = _client_id(body, required=False, field="event")

    def earlier(self, connection, table: Snapshot) -> Answer | None:
        if self.undo_id is None:
            return None
        row = connection.execute(EARLIER_UNDO, {"table_id": table.id, "undo_id": self.undo_id}).first()
        if row is None:
            return None
        if self.named is not None and row.client_id != self.named:
            raise Refusal("client_id_reused", id=self.undo_id, type="undo")
        return _answered(table, row.undone_version, row.answer)

    def apply(self, connection, table: Snapshot) -> Answer:
        self.check_version(table)
        by, named = self.by, self.named
        if by != BY_REFEREE:
            latest = _taken_back(connection, table)[0]
            if latest["by"] != by:
                raise Refusal("not_your_move", player=by, type="undo")
        if table.undo_to is not None:  # this process's last write here was that event: no read
            last, before, latest = table.undo_to
            _check_latest(named, latest)
            state = json.loads(before)
        else:
            last, state = _state_before_last(connection, table, named)
        version, at = table.version + 1, now()
        taken, trail = _taken_back(connection, table)
        did = _did({**taken, "by": by}, None, at, undo=True)
        result = Answer(_worded(table.game, state, version, did, trail[-1] if trail else None))
        self.table = table
        self.rows = {
            "state": state,
            "log_length": table.log_length,
            "in_effect": table.in_effect - 1,
            "event_row": (
                MARK_UNDONE,
                {
                    "event_id": last,
                    "new_undone": True,
                    "new_undone_version": version,
                    "new_undone_at": at,
                    "new_undone_by": None if by == BY_REFEREE else by,
                    "new_undo_id": self.undo_id,
                },
            ),
            "answer": result,
            "trail": trail,
        }
        return result


class _Encoded:
    """A value given as the JSON it was encoded to, which `models.dumps` stores as it is."""

    __slots__ = ("json",)

    def __init__(self, encoded: str):
        self.json = encoded


class Answer(dict):
    """A write's answer, and its JSON: encoded once for the log, the response and the live stream
    (`models.dumps` stores ``json`` as it is). ``fresh``: written by this request, rather than a
    retry answered with what its client id was first given."""

    __slots__ = ("fresh", "json")

    def __init__(self, answer: dict):
        super().__init__(answer)
        self.json = serialized(answer)
        self.fresh = False


def serialized(answer: dict) -> str:
    """An answer as the log keeps it and the stream sends it: compact JSON, ASCII only (its length is
    its size in bytes)."""
    return json.dumps(answer, separators=(",", ":"))


def _answered(table: Snapshot, version: int, kept: dict | None) -> Answer:
    """The answer a retried write gets: the one it was given, kept or rebuilt from the log."""
    return Answer(kept if kept is not None else answer_at(table, version))


def said(module, state: dict, event: dict) -> dict | None:
    """What the event does, in words, against the state before it: the history's ``said``. None when
    it cannot be worded (an event the rules then refuse; or a bug in ``describe``, which the history's
    replay will then show rather than this write)."""
    try:
        code, params = module.describe(state, event)
    except Exception:  # noqa: BLE001 - applying the event says why, or the history will
        return None
    return {"code": code, "params": params}


def _taken_back(connection, table: Snapshot) -> tuple[dict, tuple]:
    """The latest event in effect (`entry`), which an undo takes back, and the trail it leaves (the
    events in effect before it, newest last: what the next undo would take back). Known without a
    read after this process's own event; else the log's last three events in effect, read."""
    trail = table.trail
    if trail and (len(trail) == 2 or len(trail) == table.in_effect):
        return trail[-1], trail[:-1]
    rows = connection.execute(LATEST_ENTRIES, {"table_id": table.id, "count": 3}).all()
    if not rows:
        raise core.IllegalEvent("nothing_to_undo")
    named = [entry(row) for row in reversed(rows)]
    return named[-1], tuple(named[:-1])


def _check_latest(named: str | None, latest: str | None) -> None:
    """An undo naming its event goes only while that event is the latest in effect."""
    if named is not None and named != latest:
        raise Refusal("undo_not_latest", event=named, latest=latest)


def _state_before_last(connection, table: Snapshot, named: str | None) -> tuple[int, dict]:
    """The id of the latest event in effect and the state without it, replayed from the nearest
    checkpoint before it: at most `CHECKPOINT_EVERY` events, whatever the log's length. ``named``:
    the client id the undo names, which must be that event's (`_check_latest`)."""
    rows = connection.execute(LATEST_IN_EFFECT, {"table_id": table.id, "count": CHECKPOINT_EVERY + 1}).all()
    _check_latest(named, rows[0].client_id if rows else None)
    if not rows:
        raise core.IllegalEvent("nothing_to_undo")
    before = rows[1:]  # newest first
    start = next((i for i, row in enumerate(before) if row.checkpoint is not None), None)
    if start is not None:
        state, replayed = before[start].checkpoint, before[:start]
    elif len(before) == table.in_effect - 1:  # the whole log is here: replay it from the setup
        state, replayed = core.setup(table.game, table.players, table.options, known_fields=False), before
    else:  # events written before checkpoints were kept
        active = (
            connection.execute(
                select(EVENTS.c.payload)
                .where(EVENTS.c.table_id == table.id, IN_EFFECT)
                .order_by(EVENTS.c.seq)
            )
            .scalars()
            .all()
        )
        return rows[0].id, core.replay(table.game, table.players, table.options, active[:-1])
    return rows[0].id, core.replay_onto(table.game, state, [row.payload for row in reversed(replayed)])


def _move_table(
    connection,
    table: Snapshot,
    state: dict,
    *,
    log_length: int,
    in_effect: int,
    event_row: tuple,
    answer: Answer,
    before: tuple[str, str] | None = None,
    trail: tuple = (),
) -> Snapshot:
    """Bump the version only if nobody else did since we read it, and write ``event_row`` (its
    statement, its parameters) and the version's ``answer`` (kept in `answers`) with it: else
    nothing is written and the write runs again on the row read afresh. Returns the table as the
    write leaves it (``trail``: its latest events in effect, as the write knows them); with
    ``before`` (the JSON of the state before the event ``event_row`` appends, and that event's
    client id), also with what undoing that event goes back to."""
    statement, params = event_row
    encoded = _Encoded(models.dumps(state))
    move = {
        "row_id": table.id,
        "read_version": table.version,
        "new_version": table.version + 1,
        "new_state": encoded,
        "new_updated_at": now(),
        "new_log_length": log_length,
        "new_in_effect": in_effect,
    }
    if connection.dialect.name == "postgresql":
        along, prefix = ALONG[statement]
        sent = {**move, **{prefix + k: v for k, v in params.items()}, "kept_answer": answer}
        written = _sent(connection, along, sent).all()
        moved, row_id = len(written), written[0].id if written else None
    else:
        moved = _sent(connection, MOVE_TABLE, move).rowcount
        if moved == 1:
            row_id = _sent(connection, statement, params).lastrowid
            kept = {"table_id": table.id, "version": table.version + 1, "answer": answer}
            _sent(connection, KEEP_ANSWER, kept)
    if moved != 1:
        raise Raced()
    if (table.version + 1) % PRUNE_EVERY == 0:
        _prune_answers(connection, table.id, table.version + 1 - ANSWERS_KEPT)
    undo_to = None if before is None else (row_id, *before)
    return dataclasses.replace(
        table,
        version=table.version + 1,
        state=state,
        log_length=log_length,
        in_effect=in_effect,
        warm=True,
        encoded=encoded.json,
        undo_to=undo_to,
        trail=trail,
    )


def _sent(connection, statement, params: dict):
    """``statement`` run with ``params`` as ``connection.execute`` would run it, the values processed
    by their columns' own bind processors (JSON, UTC moments, booleans), but compiled once per
    database and sent with ``exec_driver_sql``: a tap's write then skips the work Core does again for
    every execution (finding the compiled form, building the parameters), about a third of each of
    its statements' cost."""
    dialect = connection.dialect
    key = (statement, dialect.name, tuple(params))
    form = SENT_FORMS.get(key)
    if form is None:
        compiled = statement.compile(dialect=dialect, column_keys=list(params))
        processors = {
            name: bind.type.dialect_impl(dialect).bind_processor(dialect)
            for name, bind in compiled.binds.items()
        }
        form = SENT_FORMS[key] = (
            str(compiled),
            compiled.positiontup,
            {name: process for name, process in processors.items() if process},
        )
    sql, order, processors = form
    values = {
        name: processors[name](value) if name in processors else value for name, value in params.items()
    }
    return connection.exec_driver_sql(sql, values if order is None else tuple(values[name] for name in order))


def _prune_answers(connection, table_id: int, upto: int) -> None:
    """Forget the answers of versions up to ``upto``: the log can rebuild them (`answer_at`)."""
    for statement in PRUNE_ANSWERS:
        _sent(connection, statement, {"row_id": table_id, "upto": upto})


def _reread(connection, table_id: int) -> Snapshot:
    columns = (TABLES.c[name] for name in SNAPSHOT)
    return Snapshot(*connection.execute(select(*columns).where(TABLES.c.id == table_id)).one())


def _write(table_id: int, job: group_commit.Job, found: Row | None) -> Answer:
    """Run ``job`` in the next group commit (`companion.storage.group_commit`): its answer once it is
    durable. The table is the one the process kept from its last write there
    (`companion.storage.warm`: no read), else ``found`` (the row the caller read), else the row read
    now."""
    kept = warm.for_app(current_app)
    first = kept.take(table_id)
    if first is None:
        first = (
            Snapshot(*(getattr(found, name) for name in SNAPSHOT))
            if found is not None and found.id == table_id
            else _reread(db.session.connection(), table_id)
        )
    # The write commits on a connection of its own: this request's reads end here, giving their
    # connection back to the pool before waiting for its turn (two connections held per waiting tap
    # would exhaust the pool). A tap that read nothing has no session to end (none is made for it).
    if db.session.registry.has():
        db.session.rollback()
    commits = group_commit.for_app(current_app._get_current_object())
    answer, fresh, after = commits.run(job, first)
    if after is not None:
        kept.keep(after)
    answer.fresh = fresh
    return answer
