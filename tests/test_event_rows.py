"""A version's answer is kept for what a retried id needs, not for ever (on SQLite and PostgreSQL).

The answer a write gave (an event's or an undo's) is kept in `answers` for the table's last
`store.ANSWERS_KEPT` versions (retries and live followers read it there); older ones are deleted,
and the rare retry of an old id gets the same answer rebuilt from the log. The event rows never hold
an answer. Here the window is shrunk so a short game crosses it.
"""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from companion.live import streams
from companion.storage import store
from companion.storage.models import Event, KeptAnswer, db

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


def kept(app, code: str) -> dict[int, dict]:
    """The answers kept for the table, by version."""
    with app.app_context():
        table = store.find_table(code)
        found = select(KeptAnswer.version, KeptAnswer.answer).where(KeptAnswer.table_id == table.id)
        return dict(db.session.execute(found).all())


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


def test_old_answers_are_forgotten_and_recent_ones_kept(app, make_table, small_window):
    table = make_table(options={"lives": 9})
    events, undos = play(table)
    version = table.get()["version"]
    answers = kept(app, table.code)
    given = {answer["version"]: answer for _, answer in events + undos}
    assert sorted(given) == list(range(1, version + 1))  # every version is an event's or an undo's
    for v, answer in given.items():
        if v <= version - KEPT - EVERY:  # the last pruning ran at most EVERY versions ago
            assert v not in answers, v
        if v > version - KEPT:
            assert answers[v] == answer, v
    assert len(answers) <= KEPT + EVERY
    undone = {row.undone_version for row in rows(app, table.code) if row.undone}
    assert undone & set(answers) and undone - set(answers)  # undos' answers kept, and forgotten, alike
    assert not hasattr(Event, "result") and not hasattr(Event, "undo_result")


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
    resumed = streams.hub(app).log_answers(table_id, 0)
    assert [version for version, _ in resumed] == sorted(answers)
    assert dict(resumed) == answers


def test_the_migration_moves_the_kept_answers_out_of_the_events_and_back(app, make_table, small_window):
    """0008 takes the answers a database kept in its events' rows (``result``, ``undo_result``) into
    `answers`; its downgrade puts them back. Retries answer the same across both."""
    from flask_migrate import downgrade, upgrade

    table = make_table(options={"lives": 9})
    events, undos = play(table)
    before = kept(app, table.code)
    directory = app.extensions["migrate"].directory
    with app.app_context():
        downgrade(directory=directory, revision="0007")
        columns = db.session.execute(
            db.text("SELECT version, result, undone_version, undo_result FROM events ORDER BY seq")
        ).all()
        db.session.commit()
        in_rows = {v: answer for v, answer, _, _ in columns if answer is not None}
        in_rows.update({v: answer for _, _, v, answer in columns if answer is not None})
        # Raw SQL: SQLite gives the JSON as text, psycopg decodes it.
        assert {v: a if isinstance(a, dict) else json.loads(a) for v, a in in_rows.items()} == before
        assert not db.inspect(db.engine).has_table("answers")
        upgrade(directory=directory)
        db.session.remove()
    assert kept(app, table.code) == before
    for body, answer in events[-2:]:  # recent: kept, and the same again
        again = table.client.post(f"/api/tables/{table.code}/events", json=body, headers=table.auth)
        assert again.get_json() == answer
    body, answer = undos[-1]
    assert table.undo(**body).get_json() == answer
