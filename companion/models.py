"""The database rows: a Table (its setup, its snapshot, its version) and its log of Events."""

from __future__ import annotations

from datetime import UTC, datetime

from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import event as sa_event
from sqlalchemy.engine import Engine

db = SQLAlchemy()
migrate = Migrate()


def now() -> datetime:
    return datetime.now(UTC)


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
    created_at = db.Column(db.DateTime(timezone=True), nullable=False, default=now)
    updated_at = db.Column(db.DateTime(timezone=True), nullable=False, default=now)


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
    result = db.Column(db.JSON, nullable=False)  # the answer given, repeated to a retry of the same id
    created_at = db.Column(db.DateTime(timezone=True), nullable=False, default=now)
    undone = db.Column(db.Boolean, nullable=False, default=False)
    undone_version = db.Column(db.Integer)
    undone_at = db.Column(db.DateTime(timezone=True))
    undo_id = db.Column(db.String(64))  # the client id of the undo that took it back, if it sent one
    undo_result = db.Column(db.JSON)  # the answer that undo got, repeated to a retry


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
