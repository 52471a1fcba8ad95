"""An event row keeps what a retried id needs, not a copy of the view for ever (on SQLite and PostgreSQL).

The answer a write gave is kept in its row for the table's last `store.ANSWERS_KEPT` versions (retries
and live followers read it there); older rows drop it, and the rare retry of an old id gets the same
answer rebuilt from the log. Here the window is shrunk so a short game crosses it.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from companion import live, store
from companion.models import Event, db

KEPT, EVERY = 6, 2


@pytest.fixture
def small_window(monkeypatch):
    monkeypatch.setattr(store, "ANSWERS_KEPT", KEPT)
    monkeypatch.setattr(store, "PRUNE_EVERY", EVERY)


def rows(app, code: str) -> list[Event]:
    with app.app_context():
        table = store.find_table(code)
        return list(
            db.session.execute(select(Event).where(Event.table_id == table.id).order_by(Event.seq)).scalars()
        )


def play(table) -> tuple[list[tuple[dict, dict]], list[tuple[dict, dict]]]:
    """Touches, a reveal and undos: (event body, its answer) and (undo body, its answer), in order."""
    events, undos = [], []
    for number in range(12):
        body = {"id": f"t{number}", "type": "touched_early", "player": f"p{2 + number % 4}"}
        response = table.client.post(f"/api/tables/{table.code}/events", json=body, headers=table.auth)
        assert response.status_code == 201
        events.append((body, response.get_json()))
        if number % 4 == 3:
            undo = {"id": f"u{number}"}
            response = table.undo(**undo)
            assert response.status_code == 200
            undos.append((undo, response.get_json()))
    body = {"id": "reveal", "type": "reveal", "cards": {"p1": 3, "p2": 9, "p3": 5, "p4": 7, "p5": 10}}
    response = table.client.post(f"/api/tables/{table.code}/events", json=body, headers=table.auth)
    assert response.status_code == 201
    events.append((body, response.get_json()))
    return events, undos


def test_old_rows_forget_their_answers_and_recent_ones_keep_them(app, make_table, small_window):
    table = make_table(options={"lives": 9})
    play(table)
    version = table.get()["version"]
    for row in rows(app, table.code):
        if row.version <= version - KEPT - EVERY:  # the last pruning ran at most EVERY versions ago
            assert row.result is None, row.version
        if row.version > version - KEPT:
            assert row.result is not None and row.result["version"] == row.version
        if row.undone_version is not None and row.undone_version > version - KEPT:
            assert row.undo_result["version"] == row.undone_version
    assert any(row.result is None for row in rows(app, table.code))
    assert any(row.undone and row.undo_result is None for row in rows(app, table.code))


def test_a_retry_of_an_old_id_gets_its_first_answer_rebuilt_exactly(app, make_table, small_window):
    table = make_table(options={"lives": 9})
    events, undos = play(table)
    before = table.snapshot()
    for body, answer in events:
        again = table.client.post(f"/api/tables/{table.code}/events", json=body, headers=table.auth)
        assert again.status_code == 201
        assert again.get_json() == answer, body["id"]
    for body, answer in undos:
        again = table.undo(**body)
        assert again.status_code == 200
        assert again.get_json() == answer, body["id"]
    assert table.snapshot() == before  # retries applied nothing


def test_a_follower_resuming_from_an_old_version_gets_every_answer_exactly(app, make_table, small_window):
    table = make_table(options={"lives": 9})
    events, undos = play(table)
    answers = {answer["version"]: answer for _, answer in events + undos}
    with app.app_context():
        table_id = store.find_table(table.code).id
    resumed = live.hub(app).log_answers(table_id, 0)
    assert [version for version, _ in resumed] == sorted(answers)
    assert dict(resumed) == answers
