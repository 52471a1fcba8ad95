"""Group commit (companion/storage/group_commit.py): taps that arrive while another commits share the next
commit, each answered once it is durable, each applied once, none hurt by a neighbour's refusal or
by a database error in its batch. Threads stand for the server's greenlets, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import event as sa_event
from sqlalchemy import func, select
from sqlalchemy.exc import OperationalError

from companion.storage import store
from companion.storage.models import Event, Table, db
from engine import core

PLAYERS = [f"Joueur {i}" for i in range(1, 13)]
TABLES = 6
TAPS = 8


@pytest.fixture
def slow_commits(app):
    """Each commit takes 20 ms longer (a slow disk), so the taps of the other threads pile up behind
    it; counts the commits."""
    commits = []
    with app.app_context():
        engine = db.engine

    def slow(_connection) -> None:
        commits.append(1)
        time.sleep(0.02)

    sa_event.listen(engine, "commit", slow)
    yield commits
    sa_event.remove(engine, "commit", slow)


def _tables(app) -> list[int]:
    with app.app_context():
        ids = [store.create_table("morto", PLAYERS, {"lives": 9})[0].id for _ in range(TABLES)]
        db.session.remove()
    return ids


def _tap_all(app, bodies_for) -> dict:
    """One thread per table, each posting its bodies one after the other; the answers or refusals."""
    answers: dict = {}
    errors: list[BaseException] = []
    start = threading.Barrier(len(bodies_for))

    def run(table_id: int, bodies: list[dict]) -> None:
        try:
            start.wait()
            with app.app_context():
                for body in bodies:
                    try:
                        answers[body["id"]] = store.append_event(table_id, dict(body))
                    except core.RuleError as refusal:
                        answers[body["id"]] = refusal.code
                db.session.remove()
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=item) for item in bodies_for.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    return answers


def _touches(table_id: int, count: int) -> list[dict]:
    return [
        {"id": f"t{table_id}-{i}", "type": "touched_early", "player": f"p{2 + i % 11}"} for i in range(count)
    ]


def _check_logs(app, table_ids: list[int], accepted: int) -> None:
    with app.app_context():
        for table_id in table_ids:
            table = db.session.get(Table, table_id)
            rows = db.session.execute(select(func.count()).where(Event.table_id == table_id)).scalar_one()
            assert rows == table.version == table.log_length == table.in_effect == accepted
            assert table.state == store.rebuild(table)
            assert sum(9 - p["lives"] for p in table.state["players"]) == accepted  # each applied once
        db.session.remove()


def test_taps_arriving_together_share_a_commit_and_each_is_applied_once(app, slow_commits):
    table_ids = _tables(app)
    slow_commits.clear()
    answers = _tap_all(app, {table_id: _touches(table_id, TAPS) for table_id in table_ids})
    assert len(answers) == TABLES * TAPS
    for table_id in table_ids:
        assert [answers[f"t{table_id}-{i}"]["version"] for i in range(TAPS)] == list(range(1, TAPS + 1))
    # Six writers, each waiting for its answer before its next tap: one commit per tap would be 48.
    assert len(slow_commits) < TABLES * TAPS, len(slow_commits)
    _check_logs(app, table_ids, TAPS)


def test_a_refused_tap_leaves_the_others_of_its_batch_committed(app, slow_commits):
    table_ids = _tables(app)
    bodies = {}
    for table_id in table_ids:
        taps = _touches(table_id, TAPS)
        taps.insert(3, {"id": f"bad{table_id}", "type": "touched_early", "player": "p99"})  # nobody
        bodies[table_id] = taps
    answers = _tap_all(app, bodies)
    assert all(answers[f"bad{table_id}"] == "unknown_player" for table_id in table_ids), answers
    _check_logs(app, table_ids, TAPS)


def test_a_database_error_in_a_batch_runs_each_tap_again_alone(app, slow_commits, monkeypatch):
    """One write fails in the database (as a deadlock would): its whole batch is rolled back and each
    of its taps runs again in a transaction of its own, from the row read afresh (the first run
    changed its state in place): every tap applied once."""
    table_ids = _tables(app)
    move, failed = store._move_table, []

    def fail_once(connection, table, state, **counts):
        if table.id == table_ids[0] and table.version == 2 and not failed:
            failed.append(table.version)
            raise OperationalError("UPDATE tables", {}, Exception("deadlock detected"))
        move(connection, table, state, **counts)

    monkeypatch.setattr(store, "_move_table", fail_once)
    answers = _tap_all(app, {table_id: _touches(table_id, TAPS) for table_id in table_ids})
    assert failed == [2]
    assert all(isinstance(answer, dict) for answer in answers.values()), answers
    _check_logs(app, table_ids, TAPS)


def test_retries_the_rules_accept_again_are_answered_from_the_log_in_a_batch(app, slow_commits):
    """A batch does not look a retry up (`store._once`): a tap sent again, which the rules would
    accept again, breaks the log's unique client id; its batch runs again job by job, and the retry
    gets its first answer while every other tap of the batch is applied once."""
    table_ids = _tables(app)
    bodies = {}
    for table_id in table_ids:
        taps = _touches(table_id, TAPS)
        bodies[table_id] = taps[:4] + [dict(taps[1])] + taps[4:] + [dict(taps[6])]
    answers = _tap_all(app, bodies)
    # An id's answer is the last one it got, the retry's: it must be the first, at its version.
    retried = {table_id: [answers[f"t{table_id}-{i}"]["version"] for i in (1, 6)] for table_id in table_ids}
    assert all(versions == [2, 7] for versions in retried.values()), retried
    _check_logs(app, table_ids, TAPS)


def test_a_tap_reads_its_table_once_writes_once_and_looks_nothing_up(app, make_table, backend):
    """The shortest path: a tap reads its table once, then moves the table's row and writes its
    event and its answer, in one statement on PostgreSQL (one round trip); the lookup of a retried
    id is left to the rare tap that needs it."""
    table = make_table(options={"lives": 9})
    statements: list[str] = []
    with app.app_context():
        engine = db.engine

    def seen(_connection, _cursor, statement, *_args) -> None:
        statements.append(" ".join(statement.split()[:3]))

    sa_event.listen(engine, "before_cursor_execute", seen)
    try:
        assert table.post("touched_early", id="one", player="p2").status_code == 201
    finally:
        sa_event.remove(engine, "before_cursor_execute", seen)
    writes = (
        ["WITH moved AS"]
        if backend == "postgresql"
        else ["UPDATE tables SET", "INSERT INTO events", "INSERT INTO answers"]
    )
    assert statements == ["SELECT tables.id, tables.code,", *writes]


def test_an_answer_is_stored_as_the_json_it_was_sent_as(app, client):
    """Encoded once: the response's body is the very text the log keeps (and the live stream sends)."""
    from sqlalchemy import text

    created = client.post("/api/tables", json={"game": "morto", "players": PLAYERS, "options": {"lives": 9}})
    code, secret = created.get_json()["code"], created.get_json()["secret"]
    response = client.post(
        f"/api/tables/{code}/events",
        headers={"Authorization": f"Bearer {secret}"},
        json={"id": "once", "type": "touched_early", "player": "p2"},
    )
    assert response.status_code == 201
    with app.app_context():
        query = text("SELECT CAST(answer AS TEXT) FROM answers WHERE version = 1")
        stored = db.session.execute(query).scalar_one()
        db.session.remove()
    assert stored == response.get_data(as_text=True)


def test_the_servers_engine_options_keep_the_encoding_once(tmp_path, monkeypatch):
    from companion import create_app
    from companion.storage.models import dumps

    monkeypatch.setenv("ARBITRE_INSTANCE", str(tmp_path))
    app = create_app({"SQLALCHEMY_ENGINE_OPTIONS": {"pool_size": 3}})
    assert app.config["SQLALCHEMY_ENGINE_OPTIONS"] == {"pool_size": 3, "json_serializer": dumps}
