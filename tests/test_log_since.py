"""``GET /api/tables/<code>/log?since=<version>``: what a phone holding the log of that version lacks.

The phone keeps its first ``keep`` events and appends ``events``; the result must be the whole log
as it is now, from any version the table went through, after events and undos alike."""

from __future__ import annotations

import random

import pytest


def log(client, code: str, since=None) -> dict:
    query = "" if since is None else f"?since={since}"
    response = client.get(f"/api/tables/{code}/log{query}")
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_since_any_past_version_the_phone_rebuilds_the_whole_log(client, make_table):
    table = make_table(options={"lives": 3})
    rng = random.Random(13)
    logs = {0: log(client, table.code)}  # version -> the whole log as it was then
    for _ in range(24):
        if logs[max(logs)]["events"] and rng.random() < 0.4:
            response = table.undo()
            assert response.status_code == 200, response.get_json()
        else:
            # Touches on the living non-dealers: always legal while two or more hold lives.
            state = table.get()["state"]
            touchable = [p["id"] for p in state["players"] if p["dealt"] and not p["dealer"]]
            table.event("touched_early", player=rng.choice(touchable))
        now = log(client, table.code)
        logs[now["version"]] = now

    now = logs[max(logs)]
    for since, then in logs.items():
        moved = log(client, table.code, since)
        assert moved["since"] == since
        assert {k: moved[k] for k in ("code", "game", "players", "options", "version", "state")} == {
            k: now[k] for k in ("code", "game", "players", "options", "version", "state")
        }
        assert 0 <= moved["keep"] <= len(then["events"])
        assert then["events"][: moved["keep"]] + moved["events"] == now["events"]
    assert log(client, table.code, now["version"])["events"] == []
    assert log(client, table.code, now["version"])["keep"] == len(now["events"])
    assert "since" not in now and "keep" not in now


def test_an_undo_then_an_event_keeps_the_prefix_and_sends_the_new_one(client, make_table):
    table = make_table()
    first = table.event("touched_early", player="p2", id="a")
    table.event("touched_early", player="p3", id="b")
    assert table.undo().status_code == 200
    table.event("touched_early", player="p4", id="c")
    moved = log(client, table.code, first["version"] + 1)  # the phone had a and b
    assert moved["keep"] == 1
    assert moved["events"] == [{"id": "c", "event": {"type": "touched_early", "player": "p4"}}]
    assert log(client, table.code, 0)["keep"] == 0


@pytest.mark.parametrize("since", ["3", "-1", "abc", "1.5", "", "٣", "1e2"])
def test_a_version_the_table_never_had_is_refused(client, make_table, since):
    table = make_table()
    table.event("touched_early", player="p2")
    table.event("touched_early", player="p3")  # version 2
    response = client.get(f"/api/tables/{table.code}/log?since={since}")
    assert response.status_code == 422
    error = response.get_json()["error"]
    assert error["code"] == "bad_field"
    assert error["params"]["field"] == "since"


@pytest.mark.parametrize("write", ["event", "undo"])
@pytest.mark.parametrize("since", [None, 1])
def test_a_write_landing_between_the_row_and_its_log_is_never_half_seen(
    app, client, make_table, monkeypatch, write, since
):
    """The row (version, state) and the log's events are read by separate statements: a write that
    commits between them (another referee's tap, a phone's own tap in flight) must not give a log one
    event ahead of, or behind, the version it names: the reader gets the table as it was when its
    reads began, whole, and the next read gets the write."""
    import threading

    from companion.storage import store
    from companion.web import long_reads
    from engine import core

    table = make_table()
    for player in ("p2", "p3"):
        table.event("touched_early", player=player)
    with app.app_context():
        table_id = store.find_table(table.code).id
    raced: list[int] = []

    def land_a_write() -> None:
        with app.app_context():
            if write == "event":
                store.append_event(table_id, {"id": "racer", "type": "touched_early", "player": "p4"})
            else:
                store.undo(table_id, {})

    def racing(read):
        def wrapper(*args):
            if not raced:  # once: the write lands after the row was read, before its events are
                raced.append(1)
                thread = threading.Thread(target=land_a_write)
                thread.start()
                thread.join(30)
            return read(*args)

        return wrapper

    before = log(client, table.code)
    app.extensions.pop(long_reads.EXTENSION)  # the whole log of this version is kept: read it again
    monkeypatch.setattr(store, "active_events", racing(store.active_events))
    monkeypatch.setattr(store, "log_since", racing(store.log_since))
    answer = log(client, table.code, since)
    assert raced
    # One snapshot: the table as it was when the reads began, the write landing after them.
    assert answer["version"] == before["version"] == 2
    whole = answer["events"] if since is None else before["events"][: answer["keep"]] + answer["events"]
    assert whole == before["events"]
    replayed = core.replay("morto", answer["players"], answer["options"], [entry["event"] for entry in whole])
    assert core.view("morto", replayed) == answer["state"]
    after = log(client, table.code)  # the next read has the write
    assert after["version"] == 3
    assert len(after["events"]) == (3 if write == "event" else 1)


@pytest.mark.parametrize("path", ["log", "log?since=1", "history?limit=50"])
def test_a_reader_is_answered_however_many_writes_land_while_it_reads(
    app, client, make_table, monkeypatch, path
):
    """A referee catching up after a night offline sends its taps one after the other while the
    story panel and the phone's log read: writes landing between a reader's every two statements
    must never turn its answer into a 503 (reads that ran again until no write got in between gave
    up after five), and its answer is still one moment of the table."""
    import threading

    from companion.storage import store
    from companion.web import story

    table = make_table()
    table.event("touched_early", player="p2")
    with app.app_context():
        table_id = store.find_table(table.code).id
    landed: list[int] = []

    def land_a_write() -> None:
        with app.app_context():
            store.append_event(
                table_id,
                {"id": f"w{len(landed)}", "type": "touched_early", "player": f"p{2 + len(landed) % 4}"},
            )
            landed.append(1)

    def racing(read):
        def wrapper(*args, **kwargs):
            thread = threading.Thread(target=land_a_write)  # every time, not once
            thread.start()
            thread.join(30)
            return read(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(store, "active_events", racing(store.active_events))
    monkeypatch.setattr(store, "log_since", racing(store.log_since))
    monkeypatch.setattr(story, "history", racing(story.history))
    response = client.get(f"/api/tables/{table.code}/{path}")
    assert response.status_code == 200, response.get_json()
    assert landed
    answer = response.get_json()
    assert answer["version"] == 1  # as the reads began
    if path.startswith("history"):
        assert [entry["seq"] for entry in answer["events"]] == [1]
    else:
        assert len(answer["events"]) == (1 if path == "log" else 0)
