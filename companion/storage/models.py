"""The database rows: a Table (its setup, its snapshot, its version) and its log of Events."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import DateTime, TypeDecorator
from sqlalchemy import event as sa_event
from sqlalchemy.engine import Engine

db = SQLAlchemy()
migrate = Migrate()


def dumps(value) -> str:
    """JSON as the database stores it (the engine's ``json_serializer``): compact, and a value that
    carries its own encoding (a write's `store.Answer`, encoded once) stored as it is."""
    encoded = getattr(value, "json", None)
    return encoded if isinstance(encoded, str) else json.dumps(value, separators=(",", ":"))


def now() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator):
    """A moment stored in UTC and read back as an aware UTC datetime on every database (SQLite keeps
    no time zone and would give it back naive)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_result_value(self, value, dialect):
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value


class Table(db.Model):
    """One game at one table. ``state`` is a cache of the replay of its active events."""

    __tablename__ = "tables"

    id = db.Column(db.Integer, primary_key=True)
    code = db.Column(db.String(12), nullable=False, unique=True)
    game = db.Column(db.String(20), nullable=False)
    players = db.Column(db.JSON, nullable=False)  # as given at creation: replay starts from them
    options = db.Column(db.JSON, nullable=False)
    secret_hash = db.Column(db.String(64), nullable=False)
    version = db.Column(db.Integer, nullable=False, default=0)
    state = db.Column(db.JSON, nullable=False)
    log_length = db.Column(db.Integer, nullable=False, default=0)  # events ever accepted: the last seq
    in_effect = db.Column(db.Integer, nullable=False, default=0)  # of which not undone
    created_at = db.Column(UTCDateTime, nullable=False, default=now)
    updated_at = db.Column(UTCDateTime, nullable=False, default=now)
    # The code of this table's rematch (`store.rematch`), set once: every referee phone that asks
    # again, and every follower, is sent to the same new table.
    rematch = db.Column(db.String(12))


class Event(db.Model):
    """One referee tap, kept forever; undo marks it ``undone`` instead of deleting it."""

    __tablename__ = "events"
    __table_args__ = (
        db.UniqueConstraint("table_id", "seq", name="uq_events_table_seq"),
        db.UniqueConstraint("table_id", "client_id", name="uq_events_table_client_id"),
        db.UniqueConstraint("table_id", "undo_id", name="uq_events_table_undo_id"),
        db.Index(
            "ix_events_in_effect",
            "table_id",
            "version",
            sqlite_where=db.text("undone = 0"),
            postgresql_where=db.text("undone = false"),
        ),
        # The events undone, by the version that undid them: what a version that was an undo did.
        db.Index(
            "ix_events_undone",
            "table_id",
            "undone_version",
            sqlite_where=db.text("undone_version IS NOT NULL"),
            postgresql_where=db.text("undone_version IS NOT NULL"),
        ),
    )

    id = db.Column(db.Integer, primary_key=True)
    table_id = db.Column(db.Integer, db.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False)
    seq = db.Column(db.Integer, nullable=False)  # position in the table's log, from 1
    client_id = db.Column(db.String(64), nullable=False)
    type = db.Column(db.String(40), nullable=False)
    payload = db.Column(db.JSON, nullable=False)  # the event as the engine reads it
    version = db.Column(db.Integer, nullable=False)  # the table's version once it was applied
    created_at = db.Column(UTCDateTime, nullable=False, default=now)
    undone = db.Column(db.Boolean, nullable=False, default=False)
    undone_version = db.Column(db.Integer)
    undone_at = db.Column(UTCDateTime)
    undo_id = db.Column(db.String(64))  # the client id of the undo that took it back, if it sent one
    said = db.Column(db.JSON(none_as_null=True))  # {code, params}: what it did, worded when applied
    # The state after it, on every `store.CHECKPOINT_EVERY`-th event in effect: an undo or a history
    # replays from the nearest one. Valid while the event is in effect (undo only takes back the
    # latest, so the events before it stay as they were).
    checkpoint = db.Column(db.JSON(none_as_null=True))
    # The id of the player whose own secret recorded it (a player's phone); NULL: the referee.
    recorded_by = db.Column(db.String(64))
    undone_by = db.Column(db.String(64))  # the same, for the undo that took it back


class PlayerSecret(db.Model):
    """A player's secret at one table, kept only as its hash: it lets that player's phone record
    their own moves (`companion.web.api`). One per player: giving a new one replaces the old."""

    __tablename__ = "player_secrets"
    __table_args__ = (
        db.UniqueConstraint("table_id", "player", name="uq_player_secrets_table_player"),
        db.UniqueConstraint("table_id", "secret_hash", name="uq_player_secrets_table_hash"),
    )

    id = db.Column(db.Integer, primary_key=True)
    table_id = db.Column(db.Integer, db.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False)
    player = db.Column(db.String(64), nullable=False)
    secret_hash = db.Column(db.String(64), nullable=False)
    created_at = db.Column(UTCDateTime, nullable=False, default=now)


class KeptAnswer(db.Model):
    """The answer a version gave (an event's or an undo's), repeated to a retry of the same id and
    sent to live followers who missed it. Kept for the table's last `store.ANSWERS_KEPT` versions
    only, then deleted; an older one is rebuilt from the log on the rare retry that asks for it
    (`store.answer_at`). Kept apart from the events because an answer (a whole view, kilobytes) is
    short-lived and an event is forever: in the event's row, the answer cleared later left the row's
    page as empty as it was full (SQLite does not merge a page whose rows shrink), and a table of
    100,000 events took 390 MB on disk for 29 MB of data. Here a pruned answer frees its row, and
    the pages freed are the next answers' (docs/PERFORMANCE.md, "The SQLite file")."""

    __tablename__ = "answers"

    table_id = db.Column(db.Integer, db.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    version = db.Column(db.Integer, primary_key=True)
    answer = db.Column(db.JSON, nullable=False)


@sa_event.listens_for(Engine, "connect")
def _sqlite_pragmas(dbapi_connection, _record) -> None:
    """WAL so readers never block the referee; FULL sync so an acknowledged tap survives a crash."""
    if type(dbapi_connection).__module__.startswith("sqlite3"):
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=5000")
        cursor.close()
