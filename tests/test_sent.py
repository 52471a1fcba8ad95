"""``store._sent``: a tap's statements compiled once and sent with ``exec_driver_sql``, their values
processed by the columns' own bind processors. It leans on SQLAlchemy's compiled form
(``positiontup``, ``binds``), so SQLAlchemy is pinned to one exact version, and these tests hold
it to what ``connection.execute`` writes: the same taps through both leave the same rows, on SQLite
and on PostgreSQL (where a tap's statements go as one, with common table expressions)."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version
from pathlib import Path

from sqlalchemy import select

from companion.storage import store
from companion.storage.models import Event, KeptAnswer, Table, db

ROOT = Path(__file__).resolve().parent.parent


def test_sqlalchemy_is_pinned_to_the_version_installed():
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pinned = [re.fullmatch(r"sqlalchemy==([\w.]+)", d.lower()) for d in dependencies]
    pins = [match[1] for match in pinned if match]
    assert pins == [version("sqlalchemy")]


def _play(table) -> None:
    """Taps of every kind a write sends: events, undos (one naming its event), past a checkpoint and
    past a pruning of the kept answers (both made frequent here)."""
    for n in range(12):
        table.event("touched_early", id=f"e{n}", player=f"p{2 + n % 4}")
        if n % 3 == 2:
            assert table.undo(id=f"u{n}").status_code == 200
        if n % 5 == 4:
            latest = table.event("touched_early", id=f"f{n}", player="p2")
            assert table.undo(id=f"g{n}", event="f" + str(n), version=latest["version"]).status_code == 200


def _rows(app, code: str) -> dict:
    with app.app_context():
        row = db.session.execute(select(Table).where(Table.code == code)).scalar_one()
        events = db.session.execute(
            select(Event).where(Event.table_id == row.id).order_by(Event.seq)
        ).scalars()
        kept = db.session.execute(
            select(KeptAnswer.version, KeptAnswer.answer).where(KeptAnswer.table_id == row.id)
        ).all()
        found = {
            "table": (row.version, row.state, row.log_length, row.in_effect),
            "events": [
                (e.seq, e.client_id, e.type, e.payload, e.version, e.said, e.undone, e.undone_version)
                + (e.undo_id, e.checkpoint, e.recorded_by, e.undone_by, e.created_at is not None)
                for e in events
            ],
            # A kept answer holds its moment (``did.at``): the rest is compared.
            "answers": sorted(
                (v, {k: value for k, value in answer.items() if k != "did"}, sorted(answer["did"] or {}))
                for v, answer in kept
            ),
        }
        db.session.remove()
    return found


def test_the_taps_sent_compiled_once_write_what_execute_writes(app, make_table, monkeypatch):
    monkeypatch.setattr(store, "CHECKPOINT_EVERY", 3)
    monkeypatch.setattr(store, "PRUNE_EVERY", 4)
    monkeypatch.setattr(store, "ANSWERS_KEPT", 6)
    sent = make_table()
    _play(sent)
    monkeypatch.setattr(
        store, "_sent", lambda connection, statement, params: connection.execute(statement, params)
    )
    executed = make_table()
    _play(executed)
    assert _rows(app, sent.code) == _rows(app, executed.code)
    assert sent.get()["state"] == executed.get()["state"]
