"""The database rows: a Table (its setup, its snapshot, its version) and its log of Events."""

from __future__ import annotations

from datetime import UTC, datetime

from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import DateTime, TypeDecorator
from sqlalchemy import event as sa_event
from sqlalchemy.engine import Engine

db = SQLAlchemy()
migrate = Migrate()


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
    created_at = db.Column(UTCDateTime, nullable=False, default=now)
    updated_at = db.Column(UTCDateTime, nullable=False, default=now)


class Event(db.Model):
    """One referee tap, kept forever; undo marks it ``undone`` instead of deleting it."""

    __tablename__ = "events"
    __table_args__ = (
        db.UniqueConstraint("table_id", "seq", name="uq_events_table_seq"),
        db.UniqueConstraint("table_id", "client_id", name="uq_events_table_client_id"),
        db.UniqueConstraint("table_id", "undo_id", name="uq_events_table_undo_id"),
    )

    id = db.Column(db.Integer, primary_key=True)
    table_id = db.Column(db.Integer, db.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False)
    seq = db.Column(db.Integer, nullable=False)  # position in the table's log, from 1
    client_id = db.Column(db.String(64), nullable=False)
    type = db.Column(db.String(40), nullable=False)
    payload = db.Column(db.JSON, nullable=False)  # the event as the engine reads it
    version = db.Column(db.Integer, nullable=False)  # the table's version once it was applied
    # The answer given, repeated to a retry of the same id and sent to live followers who missed it.
    # Kept for the table's last `store.ANSWERS_KEPT` versions only; an older one is rebuilt from the
    # log on the rare retry that asks for it (`store.answer_at`), so a row never keeps a whole view.
    result = db.Column(db.JSON(none_as_null=True))
    created_at = db.Column(UTCDateTime, nullable=False, default=now)
    undone = db.Column(db.Boolean, nullable=False, default=False)
    undone_version = db.Column(db.Integer)
    undone_at = db.Column(UTCDateTime)
    undo_id = db.Column(db.String(64))  # the client id of the undo that took it back, if it sent one
    undo_result = db.Column(db.JSON(none_as_null=True))  # the undo's answer, kept like ``result``


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
