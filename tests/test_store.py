"""Concurrency and durability of the store, on SQLite and PostgreSQL.

- Writers racing on one table (threads, each in its own app context, so each with its own database
  connection): every accepted event is in the log exactly once, versions run 1..N without a gap, and
  the snapshot is what a replay of the log gives.
- The real server (``companion serve`` in a subprocess) killed with SIGKILL right after it answered
  201: once restarted, every acknowledged event is there. ``serve`` made the database itself.
- The live stream of that real server delivers the new state after an event.

Nothing here asserts on timing: waits only bound how long a broken server can hang the suite.
"""

from __future__ import annotations

import threading
import time

import pytest

from companion.storage import store
from companion.storage.errors import Refusal
from companion.storage.models import Event, Table, db
from companion.web.errors import REFUSAL_STATUS
from engine import core
from tests.support.sse import Stream

PLAYERS = [f"Joueur {i}" for i in range(1, 21)]  # 20 players, 9 lives: many touches before anyone dies


# --- racing writers ------------------------------------------------------------------------------


def _write_until_answered(app, table_id: int, body: dict) -> tuple[int, dict]:
    """Post like a client does: a 503 ``busy`` is retried with the same id; other refusals are answers."""
    with app.app_context():
        try:
            for _ in range(200):
                try:
                    result = store.append_event(table_id, dict(body))
                    return 201, result
                except Refusal as error:
                    if error.code != "busy":
                        return REFUSAL_STATUS[error.code], {"code": error.code, "params": error.params}
                    time.sleep(0.005)
                except core.RuleError as error:
                    return 422, {"code": error.code}
            raise AssertionError(f"{body['id']} never got through")
        finally:
            db.session.remove()


def _race(app, table_id: int, bodies_per_thread: list[list[dict]]) -> list[list[tuple[int, dict]]]:
    answers: list[list] = [[] for _ in bodies_per_thread]
    errors: list[BaseException] = []
    start = threading.Barrier(len(bodies_per_thread))

    def run(index: int) -> None:
        try:
            start.wait()
            for body in bodies_per_thread[index]:
                answers[index].append(_write_until_answered(app, table_id, body))
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(bodies_per_thread))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    return answers


def _log(table_id: int) -> tuple[Table, list[Event]]:
    table = db.session.get(Table, table_id)
    return table, store.history(table)[0]


def test_racing_writers_keep_one_gapless_log(app):
    with app.app_context():
        table, _secret = store.create_table("morto", PLAYERS, {"lives": 9})
        table_id = table.id
        db.session.remove()
    per_thread = 30
    targets = [f"p{i}" for i in range(2, 21)]  # everyone but the dealer p1
    bodies = [
        [
            {
                "id": f"t{thread}-{i}",
                "type": "touched_early",
                "player": targets[(i * 2 + thread) % len(targets)],
            }
            for i in range(per_thread)
        ]
        for thread in range(2)
    ]
    # Both threads also send the same ids: a retry racing its original.
    for i in range(10):
        shared = {"id": f"shared-{i}", "type": "touched_early", "player": targets[i]}
        bodies[0].insert(i * 3, dict(shared))
        bodies[1].insert(i * 3 + 1, dict(shared))
    answers = _race(app, table_id, bodies)

    assert all(status == 201 for thread in answers for status, _ in thread), answers
    sent_ids = {body["id"] for thread in bodies for body in thread}
    shared_answers = {}
    for thread, thread_bodies in zip(answers, bodies, strict=True):
        for (_, answer), body in zip(thread, thread_bodies, strict=True):
            if body["id"].startswith("shared-"):
                shared_answers.setdefault(body["id"], []).append(answer)
    assert all(first == second for first, second in shared_answers.values())

    with app.app_context():
        table, log = _log(table_id)
        assert sorted(e.client_id for e in log) == sorted(sent_ids)  # each accepted event once
        count = len(sent_ids)
        assert [e.seq for e in log] == list(range(1, count + 1))
        assert sorted(e.version for e in log) == list(range(1, count + 1))
        assert [e.version for e in log] == [e.seq for e in log]
        assert table.version == count
        assert table.state == store.rebuild(table)
        lost = sum(9 - p["lives"] for p in table.state["players"])
        assert lost == count  # every touch cost exactly one life: none applied twice, none lost
        # The answer each writer got is the version its event was logged with.
        by_id = {e.client_id: e for e in log}
        for thread, thread_bodies in zip(answers, bodies, strict=True):
            for (_, answer), body in zip(thread, thread_bodies, strict=True):
                assert answer["version"] == by_id[body["id"]].version


def test_racing_writers_with_versions_one_wins_each_version(app):
    """Writers that carry the version they read: a stale one gets 409, never a lost or double write."""
    with app.app_context():
        table, _secret = store.create_table("morto", PLAYERS, {"lives": 9})
        table_id = table.id
        db.session.remove()
    outcomes: list[list[tuple[str, int]]] = [[], []]
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def run(thread: int) -> None:
        try:
            start.wait()
            for i in range(25):
                with app.app_context():
                    version = db.session.get(Table, table_id).version
                    db.session.remove()
                body = {
                    "id": f"v{thread}-{i}",
                    "type": "touched_early",
                    "player": f"p{2 + (i + thread) % 19}",
                    "version": version,
                }
                status, answer = _write_until_answered(app, table_id, body)
                outcomes[thread].append((body["id"], status, version, answer))
        except BaseException as error:  # noqa: BLE001
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors

    accepted = {i: (v, a) for thread in outcomes for i, s, v, a in thread if s == 201}
    stale = [a for thread in outcomes for _, s, _, a in thread if s != 201]
    assert all(answer["code"] == "stale_version" for answer in stale)
    for sent_version, answer in accepted.values():
        assert answer["version"] == sent_version + 1
    with app.app_context():
        table, log = _log(table_id)
        assert sorted(e.client_id for e in log) == sorted(accepted)
        assert [e.version for e in log] == list(range(1, len(accepted) + 1))
        assert table.version == len(accepted)
        assert table.state == store.rebuild(table)


def test_undo_racing_events_keeps_the_snapshot_a_replay_of_the_log(app):
    with app.app_context():
        table, _secret = store.create_table("morto", PLAYERS, {"lives": 9})
        table_id = table.id
        db.session.remove()
    errors: list[BaseException] = []

    def undoer() -> None:
        try:
            for _ in range(15):
                with app.app_context():
                    try:
                        store.undo(table_id, {})
                    except (Refusal, core.RuleError):
                        pass
                    finally:
                        db.session.remove()
        except BaseException as error:  # noqa: BLE001
            errors.append(error)

    thread = threading.Thread(target=undoer)
    thread.start()
    for i in range(30):
        body = {"id": f"e{i}", "type": "touched_early", "player": f"p{2 + i % 19}"}
        _write_until_answered(app, table_id, body)
    thread.join()
    assert not errors, errors
    with app.app_context():
        table, log = _log(table_id)
        versions = sorted([e.version for e in log] + [e.undone_version for e in log if e.undone])
        assert versions == list(range(1, table.version + 1))  # every write, event or undo, one version
        assert table.state == store.rebuild(table)
        active = [e.payload for e in log if not e.undone]
        assert table.state == core.replay("morto", PLAYERS, {"lives": 9}, active)


# --- a client id is one event; an undo names its event (through the API) ---------------------------


def refused(response, status: int, code: str) -> dict:
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True)[:300])
    error = response.get_json()["error"]
    assert error["code"] == code
    return error["params"]


def post(table, **body):
    return table.client.post(f"/api/tables/{table.code}/events", json=body, headers=table.auth)


def test_a_client_id_sent_again_with_another_event_is_refused_and_changes_nothing(make_table):
    table = make_table(options={"lives": 9})
    first = post(table, id="tap-1", type="touched_early", player="p2")
    assert first.status_code == 201
    before = table.snapshot()
    for other in (
        {"type": "touched_early", "player": "p3"},  # another player
        {"type": "spoke_to_dead", "living": "p2", "dead": "p3"},  # another type, refused by the rules too
        {"type": "touched_early", "player": "p2", "plase": 1},  # malformed: an unknown field
        {"type": "touched_early"},  # a field missing
    ):
        params = refused(post(table, id="tap-1", **other), 409, "client_id_reused")
        assert params == {"id": "tap-1", "type": "touched_early"}
        assert table.snapshot() == before
    # The same event again, whatever version it carries, is a retry: the first answer, applied once.
    for version in (None, 0, 1, 99):
        again = post(
            table,
            id="tap-1",
            type="touched_early",
            player="p2",
            **({} if version is None else {"version": version}),
        )
        assert again.status_code == 201 and again.get_json() == first.get_json()
    assert table.snapshot() == before


def test_a_reused_client_id_is_refused_after_the_table_moved_on_and_its_answer_was_pruned(
    make_table, monkeypatch
):
    monkeypatch.setattr(store, "ANSWERS_KEPT", 4)
    monkeypatch.setattr(store, "PRUNE_EVERY", 2)
    table = make_table(options={"lives": 9})
    first = post(table, id="old", type="touched_early", player="p2").get_json()
    for number in range(8):
        table.event("touched_early", player=f"p{3 + number % 3}")
    table.undo()
    before = table.snapshot()
    refused(post(table, id="old", type="touched_early", player="p3"), 409, "client_id_reused")
    again = post(table, id="old", type="touched_early", player="p2", version=0)
    assert again.status_code == 201 and again.get_json() == first  # rebuilt from the log: pruned
    assert table.snapshot() == before


def test_an_undo_naming_its_event_is_applied_only_while_that_event_is_the_latest(make_table):
    table = make_table(options={"lives": 9})
    for number, player in enumerate(["p2", "p3", "p4"], 1):
        post(table, id=f"e{number}", type="touched_early", player=player)
    after = {number: table.history()["events"][number - 1]["event"] for number in (1, 2, 3)}
    before = table.snapshot()
    # The latest in effect is e3: an undo naming e2 is refused, naming both, and changes nothing.
    assert refused(table.undo(event="e2"), 409, "undo_not_latest") == {"event": "e2", "latest": "e3"}
    refused(table.undo(event="nobody", version=3), 409, "undo_not_latest")
    assert table.snapshot() == before
    # Naming e3 takes back e3 (this process wrote e3 last: the undo reads nothing to know it).
    undone = table.undo(event="e3", id="u1")
    assert undone.status_code == 200
    assert undone.get_json()["state"] == core.view(
        "morto", core.replay("morto", table_players(table), {"lives": 9}, [after[1], after[2]])
    )
    # Its retry gets its first answer; the same undo id naming another event is refused.
    assert table.undo(event="e3", id="u1").get_json() == undone.get_json()
    assert table.undo(id="u1").get_json() == undone.get_json()
    refused(table.undo(event="e2", id="u1"), 409, "client_id_reused")
    # After an undo the latest is read from the log: e1 is not it, e2 is.
    assert refused(table.undo(event="e1"), 409, "undo_not_latest") == {"event": "e1", "latest": "e2"}
    assert table.undo(event="e2").status_code == 200
    # A bare undo keeps its meaning: the latest in effect, e1.
    assert table.undo().status_code == 200
    assert [e["undone"] for e in table.history()["events"]] == [True, True, True]
    # With nothing in effect, an undo naming an event is a conflict (the latest is none); a bare one 422.
    assert refused(table.undo(event="e1"), 409, "undo_not_latest") == {"event": "e1", "latest": None}
    refused(table.undo(), 422, "nothing_to_undo")


def table_players(table) -> list:
    return table.client.get(f"/api/tables/{table.code}/log").get_json()["players"]


@pytest.mark.parametrize("named", [7, "", "x" * 65, ["e1"], "a\x00b"])
def test_an_undo_naming_a_malformed_event_is_refused(make_table, named):
    table = make_table()
    table.event("touched_early", player="p2")
    before = table.snapshot()
    assert refused(table.undo(event=named), 422, "bad_field")["field"] == "event"
    assert table.snapshot() == before


# --- /log: a tail from a checkpoint, and which client ids the table applied --------------------------


def test_the_log_tail_starts_at_a_checkpoint_and_holds_at_least_what_was_asked(make_table, monkeypatch):
    monkeypatch.setattr(store, "CHECKPOINT_EVERY", 4)
    table = make_table(options={"lives": 9})
    bodies = []
    for number in range(23):
        response = post(table, id=f"e{number}", type="touched_early", player=f"p{2 + number % 4}")
        assert response.status_code == 201
        bodies.append(response)
        if number in (7, 15, 16):  # undo a checkpointed event (the 8th in effect), and two in a row
            assert table.undo().status_code == 200
    whole = table.client.get(f"/api/tables/{table.code}/log").get_json()
    in_effect = [entry["event"] for entry in whole["events"]]
    assert len(in_effect) == 20
    setup = (whole["game"], whole["players"], whole["options"])
    for tail in (0, 1, 3, 4, 5, 9, 16, 17, 20, 500):
        log = table.client.get(f"/api/tables/{table.code}/log?tail={tail}").get_json()
        start, events = log["start"], [entry["event"] for entry in log["events"]]
        assert start + len(events) == 20 and events == in_effect[start:]
        assert [entry["id"] for entry in log["events"]] == [entry["id"] for entry in whole["events"]][start:]
        assert len(events) >= min(tail, 20), tail
        assert start % 4 == 0 and len(events) < tail + 4 or start == 0, (tail, start)
        if start:
            assert log["checkpoint"] == core.replay(*setup, in_effect[:start])
        else:
            assert log["checkpoint"] is None
        assert log["version"] == whole["version"] and log["state"] == whole["state"]
    refused(table.client.get(f"/api/tables/{table.code}/log?tail=501"), 422, "bad_field")
    refused(table.client.get(f"/api/tables/{table.code}/log?tail=2&since=3"), 422, "bad_field")


def test_the_log_says_which_client_ids_the_table_applied(make_table):
    table = make_table(options={"lives": 9})
    post(table, id="kept", type="touched_early", player="p2")
    post(table, id="undone", type="touched_early", player="p3")
    table.undo(id="the-undo")
    url = f"/api/tables/{table.code}/log"
    asked = "?id=never&id=the-undo&id=kept&id=undone&id=also%20never"
    for query in ("", "&since=1", "&tail=0"):
        log = table.client.get(url + asked + query).get_json()
        assert log["applied"] == ["the-undo", "kept", "undone"], query
    assert "applied" not in table.client.get(url).get_json()
    assert table.client.get(url + "?id=x").get_json()["applied"] == []
    refused(table.client.get(url + "?" + "&".join(f"id=i{n}" for n in range(65))), 422, "bad_field")
    refused(table.client.get(url + "?id=" + "x" * 65), 422, "bad_field")


# --- the real server -----------------------------------------------------------------------------


def test_acknowledged_events_survive_a_killed_server(served):
    make_server, tables = served
    assert tables() == set()
    server = make_server().started()
    assert f"http://127.0.0.1:{server.port}/" in server.output()  # serve says where to go
    assert {"tables", "events", "alembic_version"} <= tables()  # ...and made its database itself

    status, created = server.call("POST", "/api/tables", {"game": "morto", "players": PLAYERS[:5]})
    assert status == 201
    code, secret = created["code"], created["secret"]
    sent, answers = [], []
    events = [{"type": "touched_early", "player": f"p{2 + i % 4}"} for i in range(8)]
    events.append({"type": "reveal", "cards": {"p1": 4, "p2": 9, "p3": 2, "p4": 7, "p5": 10}})
    for number, event in enumerate(events):
        body = {"id": f"crash-{number}", **event}
        status, answer = server.call("POST", f"/api/tables/{code}/events", body, secret)
        assert status == 201, answer
        sent.append(body)
        answers.append(answer)
    status, undone = server.call("POST", f"/api/tables/{code}/undo", {}, secret)
    assert status == 200
    server.kill()  # right after the last acknowledgement: no clean shutdown, no chance to flush later

    server.started()  # on the same database
    status, table = server.call("GET", f"/api/tables/{code}")
    assert status == 200
    assert table["version"] == undone["version"] == len(events) + 1
    assert table["state"] == undone["state"] == answers[-2]["state"]
    status, history = server.call("GET", f"/api/tables/{code}/history")
    assert [e["id"] for e in history["events"]] == [body["id"] for body in sent]
    assert [e["event"] for e in history["events"]] == [
        {k: v for k, v in body.items() if k != "id"} for body in sent
    ]
    assert [e["undone"] for e in history["events"]] == [False] * (len(events) - 1) + [True]
    # The secret still works after the restart, and a retry of an acknowledged id is not applied again.
    status, again = server.call("POST", f"/api/tables/{code}/events", sent[0], secret)
    assert status == 201 and again == answers[0]
    status, more = server.call("POST", f"/api/tables/{code}/events", {"id": "after", **events[0]}, secret)
    assert status == 201 and more["version"] == len(events) + 2


def test_the_live_stream_delivers_the_new_state_after_an_event(served):
    make_server, _tables = served
    server = make_server().started()
    status, created = server.call("POST", "/api/tables", {"game": "morto", "players": PLAYERS[:5]})
    assert status == 201
    code = created["code"]
    with Stream(server.port, code.lower(), timeout=5) as stream:  # a read waits at most 5 s
        assert stream.response.status == 200
        assert stream.response.getheader("Content-Type").startswith("text/event-stream")
        first = stream.next()
        assert first["answer"] == {
            "version": 0,
            "state": created["state"],
            "did": None,
            "undoable": None,
        }
        assert first["id"] == "0"

        body = {"id": "live-1", "type": "touched_early", "player": "p2"}
        status, answer = server.call("POST", f"/api/tables/{code}/events", body, created["secret"])
        assert status == 201
        pushed = stream.next()
        assert pushed["answer"] == answer
        assert pushed["id"] == str(answer["version"])

        status, undone = server.call("POST", f"/api/tables/{code}/undo", {}, created["secret"])
        assert status == 200
        assert stream.next()["answer"] == undone


def test_a_stream_resumes_after_the_last_version_it_saw(served):
    """``Last-Event-ID`` (sent by EventSource on reconnection): a state already seen is not sent again."""
    make_server, _tables = served
    server = make_server().started()
    status, created = server.call("POST", "/api/tables", {"game": "morto", "players": PLAYERS[:5]})
    code, secret = created["code"], created["secret"]
    status, answer = server.call(
        "POST", f"/api/tables/{code}/events", {"id": "a", "type": "touched_early", "player": "p2"}, secret
    )
    with Stream(server.port, code, last_id="1", timeout=5) as stream:
        assert stream.response.readline().startswith(b"retry:")  # the stream is open; version 1 is current
        status, second = server.call(
            "POST", f"/api/tables/{code}/events", {"id": "b", "type": "touched_early", "player": "p3"}, secret
        )
        assert status == 201
        assert stream.next()["answer"] == second  # version 1 was not repeated
