"""What a server process keeps of the tables its referees tap (companion/storage/warm.py): a tap after the
process's own last write on that table reads nothing before it writes, and a kept snapshot that
another process left behind costs a retry, never a wrong answer nor a wrong refusal. A second app on
the same database stands for the server's other process, on SQLite and PostgreSQL.
"""

from __future__ import annotations

from sqlalchemy import event as sa_event

from companion import create_app
from companion.storage import store, warm
from companion.storage.group_commit import Snapshot
from companion.storage.models import Table, db
from engine import core
from tests.conftest import bearer, dispose


def _statements(app, act) -> list[tuple[str, bool]]:
    """The statements ``act()`` sends, each with whether its connection was in autocommit."""
    seen: list[tuple[str, bool]] = []
    with app.app_context():
        engine = db.engine

    def record(connection, _cursor, statement, *_args) -> None:
        autocommit = connection.get_execution_options().get("isolation_level") == "AUTOCOMMIT"
        seen.append((" ".join(statement.split()[:3]), autocommit))

    sa_event.listen(engine, "before_cursor_execute", record)
    try:
        act()
    finally:
        sa_event.remove(engine, "before_cursor_execute", record)
    return seen


def _rebuilt(app, code: str) -> tuple[int, dict]:
    with app.app_context():
        table = db.session.execute(db.select(Table).where(Table.code == code)).scalar_one()
        result = table.version, store.rebuild(table)
        assert result[1] == table.state
        db.session.remove()
    return result


def test_a_tap_after_the_processs_own_write_reads_nothing_before_it_writes(app, make_table, backend):
    """The shortest path: the second tap moves the row and writes its event and its answer, and
    nothing else; on PostgreSQL that is one statement in autocommit (no BEGIN, no COMMIT: one round
    trip)."""
    table = make_table(options={"lives": 9})
    table.event("touched_early", player="p2")
    seen = _statements(app, lambda: table.event("touched_early", player="p3"))
    if backend == "postgresql":
        assert seen == [("WITH moved AS", True)]
    else:
        assert seen == [
            ("UPDATE tables SET", False),
            ("INSERT INTO events", False),
            ("INSERT INTO answers", False),
        ]
    seen = _statements(app, lambda: table.undo())
    assert [statement for statement, _ in seen][-1] == (
        "WITH moved AS" if backend == "postgresql" else "INSERT INTO answers"
    )
    assert not any(statement.startswith("SELECT tables") for statement, _ in seen)
    assert table.get()["version"] == 3


def test_a_snapshot_another_process_left_behind_costs_a_retry_not_a_wrong_answer(
    app, client, make_table, database_url
):
    """The other process writes twice after this one kept the table: a tap sent with the table's
    real version (which the kept snapshot would call stale) is accepted, a tap with no version is
    applied on the real row, and both answers are the log's."""
    table = make_table(options={"lives": 9})
    table.event("touched_early", player="p2")  # kept here at version 1
    other = create_app({"TESTING": True})
    try:
        other_client = other.test_client()
        for player in ("p3", "p4"):
            body = {"id": f"other-{player}", "type": "touched_early", "player": player}
            response = other_client.post(f"/api/tables/{table.code}/events", headers=table.auth, json=body)
            assert response.status_code == 201, response.get_json()
    finally:
        dispose(other)
    answer = table.event("touched_early", player="p5", version=3)
    assert answer["version"] == 4
    version, state = _rebuilt(app, table.code)
    assert version == 4 and answer["state"] == core.view("morto", state)
    assert {p["id"]: p["lives"] for p in state["players"]} == {"p1": 9, "p2": 8, "p3": 8, "p4": 8, "p5": 8}
    undone = table.undo()
    assert undone.status_code == 200, undone.get_json()
    version, state = _rebuilt(app, table.code)
    assert undone.get_json()["version"] == version == 5
    assert undone.get_json()["state"] == core.view("morto", state)
    # A version that really is stale is still refused, naming the table's real one.
    stale = table.post("touched_early", player="p5", version=3)
    assert stale.status_code == 409
    assert stale.get_json()["error"]["params"]["current"] == 5


def test_an_undo_right_after_the_processs_own_event_reads_nothing_and_goes_back_exactly(
    app, make_table, backend
):
    """The event's write kept the state before it (the JSON its row held) and the event's id, so
    undoing it writes and reads nothing else; a second undo in a row does not know the state before
    the event it takes back, and reads the log's end. Every answer is the log's replay."""
    table = make_table(options={"lives": 9})
    table.event("touched_early", player="p2")
    table.event("touched_early", player="p3")
    seen = _statements(app, lambda: table.undo())
    if backend == "postgresql":
        assert seen == [("WITH moved AS", True)]
    else:
        assert seen == [
            ("UPDATE tables SET", False),
            ("UPDATE events SET", False),
            ("INSERT INTO answers", False),
        ]
    version, state = _rebuilt(app, table.code)
    assert version == 3 and table.get()["state"] == core.view("morto", state)
    assert {p["id"]: p["lives"] for p in state["players"]}["p3"] == 9
    seen = _statements(app, lambda: table.undo())
    assert any(statement.startswith("SELECT events.id") for statement, _ in seen)
    version, state = _rebuilt(app, table.code)
    assert version == 4 and all(p["lives"] == 9 for p in state["players"])
    table.event("touched_early", player="p4")  # after an undo, an event keeps its own way back
    assert not any(statement.startswith("SELECT") for statement, _ in _statements(app, lambda: table.undo()))
    version, state = _rebuilt(app, table.code)
    assert version == 6 and all(p["lives"] == 9 for p in state["players"])


def test_an_undo_takes_back_another_processs_later_event_not_the_one_this_process_kept(app, make_table):
    """This process kept the way back from its own event, then the other process appended one: the
    undo finds the row moved and takes back the latest event in effect, the other process's."""
    table = make_table(options={"lives": 9})
    table.event("touched_early", player="p2")
    other = create_app({"TESTING": True})
    try:
        body = {"id": "other", "type": "touched_early", "player": "p3"}
        response = other.test_client().post(f"/api/tables/{table.code}/events", headers=table.auth, json=body)
        assert response.status_code == 201, response.get_json()
    finally:
        dispose(other)
    undone = table.undo()
    assert undone.status_code == 200, undone.get_json()
    version, state = _rebuilt(app, table.code)
    assert version == 3 and undone.get_json()["state"] == core.view("morto", state)
    assert {p["id"]: p["lives"] for p in state["players"]} == {"p1": 9, "p2": 8, "p3": 9, "p4": 9, "p5": 9}
    # Its answer names that event, and this process's own as what the next undo would take back.
    first = table.history()["events"][0]["id"]
    assert (undone.get_json()["did"]["id"], undone.get_json()["undoable"]["id"]) == ("other", first)


def test_the_referee_secret_is_checked_against_the_kept_identity(app, client, make_table):
    table = make_table()
    table.event("touched_early", player="p2")
    wrong = table.post("touched_early", player="p3", headers=bearer("not-the-secret"))
    assert wrong.status_code == 403
    assert table.post("touched_early", player="p3", headers={}).status_code == 401
    missing = client.post(
        "/api/tables/ZZZZZZ/events",
        headers=table.auth,
        json={"id": "x", "type": "touched_early", "player": "p2"},
    )
    assert missing.status_code == 404
    assert table.get()["version"] == 1


def _snapshot(table_id: int, version: int) -> Snapshot:
    return Snapshot(table_id, "morto", [], {}, version, {}, version, version, warm=True)


def test_another_processs_write_drops_the_kept_snapshot_and_a_lost_message_drops_them_all():
    kept = warm.Warm()
    kept.keep(_snapshot(1, 3))
    kept.wake(1, 3)  # this process's own write, heard on the bus: still current
    assert kept.take(1).version == 3
    kept.keep(_snapshot(1, 3))
    kept.keep(_snapshot(1, 2))  # a write answered later than a newer one does not replace it
    kept.wake(1, 4)  # another process wrote version 4
    assert kept.take(1) is None
    kept.keep(_snapshot(1, 5))
    kept.keep(_snapshot(2, 1))
    kept.catch_up()
    assert kept.take(1) is None and kept.take(2) is None


def test_a_snapshot_is_handed_to_one_write_at_a_time_and_the_least_recent_go_first(monkeypatch):
    monkeypatch.setattr(warm, "TABLES_KEPT", 3)
    kept = warm.Warm()
    for table_id in (1, 2, 3):
        kept.keep(_snapshot(table_id, 1))
        kept.know(warm.Identity(table_id, f"CODE0{table_id}", "morto", "hash"))
    kept.take(1)  # now a write's own
    assert kept.take(1) is None
    assert kept.identity("CODE01") is not None  # looked at: the least recent is now CODE02
    kept.keep(_snapshot(4, 1))
    kept.keep(_snapshot(5, 1))
    kept.know(warm.Identity(4, "CODE04", "morto", "hash"))
    assert kept.take(2) is None and kept.take(3).version == 1
    assert kept.identity("CODE02") is None and kept.identity("CODE01") is not None
