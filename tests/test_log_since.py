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
            k: now[k] for k in ("code", "game", "players", "options", "version", "state")}
        assert 0 <= moved["keep"] <= len(then["events"])
        assert then["events"][:moved["keep"]] + moved["events"] == now["events"]
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
