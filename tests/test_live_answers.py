"""What an answer says beside ``version`` and ``state``: ``did`` (what this version did: the event it
recorded, or the event an undo took back, with its words, who made it and when) and ``undoable``
(what an undo would take back now), on SQLite and PostgreSQL.

A write's answer, the same answer given again to a retried id (kept or rebuilt from the log), the
table's ``GET``, the live stream's frames (from the writer's answer, from the log, the current one)
and ``answer_at`` for every version all carry the same fields, so a follower's page needs nothing
but the stream after a tap. The history's entries carry ``by``.
"""

from __future__ import annotations

import json
from datetime import datetime

from companion.live import streams
from companion.storage import store
from companion.storage.models import Table, db

TOUCHED = "morto.story.touched_early"


def words(player: str, name: str) -> dict:
    return {"code": TOUCHED, "params": {"player": player, "name": name}}


def entry(history_entry: dict) -> dict:
    """An entry of the history as ``undoable`` names it."""
    return {key: history_entry[key] for key in ("seq", "id", "said", "by")} | {
        "type": history_entry["event"]["type"]
    }


def did(history_entry: dict, undo: bool = False) -> dict:
    """What a version did, from the history's entry of its event (taken back by an undo)."""
    return entry(history_entry) | {
        "event": None if undo else history_entry["event"],
        "at": history_entry["undone_at" if undo else "at"],
        "undo": undo,
    }


def frames(response) -> list[tuple[int, dict]]:
    """The first chunk of a stream: every frame it sent at once, as (id, answer)."""
    try:
        chunk = next(iter(response.response)).decode()
    finally:
        response.close()
    found, version = [], None
    for line in chunk.splitlines():
        if line.startswith("id: "):
            version = int(line[4:])
        elif line.startswith("data: "):
            found.append((version, json.loads(line[6:])))
    return found


def test_an_event_answer_says_what_it_did_and_what_an_undo_would_take_back(make_table):
    table = make_table(options={"lives": 3})
    created = table.created
    assert created["did"] is None and created["undoable"] is None  # nothing happened yet
    answer = table.event("touched_early", id="tap-1", player="p2")
    history = table.history()["events"]
    assert answer["did"] == {
        "seq": 1,
        "id": "tap-1",
        "type": "touched_early",
        "said": words("p2", "Bruno"),
        "by": "referee",
        "event": {"type": "touched_early", "player": "p2"},  # as recorded: a phone moves its log by it
        "at": history[0]["at"],
        "undo": False,
    }
    datetime.fromisoformat(answer["did"]["at"])  # an ISO moment, outside the state
    assert answer["undoable"] == entry(history[0])
    assert list(answer) == ["version", "state", "did", "undoable"]
    again = table.get()
    assert (again["did"], again["undoable"]) == (answer["did"], answer["undoable"])


def test_an_undo_answer_says_what_it_took_back_and_what_the_next_undo_would(make_table):
    table = make_table(options={"lives": 3})
    table.event("touched_early", id="a", player="p2")
    table.event("touched_early", id="b", player="p3")
    table.event("touched_early", id="c", player="p4")
    first = table.undo(id="undo-1").get_json()  # the event just written: this process kept its way back
    second = table.undo().get_json()  # the one before: read from the log
    history = table.history()["events"]
    assert first["did"] == did(history[2], undo=True)
    assert first["did"]["id"] == "c" and first["did"]["said"] == words("p4", "Dario")
    assert first["undoable"] == entry(history[1])
    assert second["did"] == did(history[1], undo=True)
    assert second["undoable"] == entry(history[0])
    got = table.get()
    assert (got["did"], got["undoable"]) == (second["did"], second["undoable"])
    third = table.undo().get_json()
    assert third["did"] == did(table.history()["events"][0], undo=True)
    assert third["undoable"] is None  # nothing left in effect
    assert table.get()["undoable"] is None
    after = table.event("touched_early", id="d", player="p5")
    assert after["did"]["seq"] == 4 and after["undoable"]["id"] == "d"
    back = table.undo().get_json()
    assert back["did"]["id"] == "d" and back["undoable"] is None


def test_every_version_rebuilt_from_the_log_is_the_answer_the_write_gave(app, make_table):
    """`answer_at` (a retry of an old id, a follower resuming past the answers kept): the same fields."""
    table = make_table(options={"lives": 4})
    answers = {0: {"version": 0, "state": table.created["state"], "did": None, "undoable": None}}
    for n, player in enumerate(["p2", "p3", "p4"]):
        answers[n + 1] = table.event("touched_early", id=f"e{n}", player=player)
    answers[4] = table.undo().get_json()
    answers[5] = table.undo().get_json()
    answers[6] = table.event("touched_early", id="e3", player="p5")
    answers[7] = table.undo().get_json()
    answers[8] = table.event("touched_early", id="e4", player="p2")
    with app.app_context():
        row = db.session.execute(db.select(Table).where(Table.code == table.code)).scalar_one()
        for version, given in answers.items():
            assert store.answer_at(row, version) == given, version
        current = store.answer(store.find_table(table.code))
    assert current == answers[8]


def test_a_retried_id_gets_its_first_answer_kept_or_rebuilt(app, make_table, monkeypatch):
    table = make_table(options={"lives": 9})
    first = table.event("touched_early", id="once", player="p2")
    undone = table.undo(id="undo-once").get_json()
    assert first["did"]["id"] == undone["did"]["id"] == "once" and undone["did"]["undo"] is True
    assert table.event("touched_early", id="once", player="p2") == first  # kept in `answers`
    monkeypatch.setattr(store, "ANSWERS_KEPT", 2)
    monkeypatch.setattr(store, "PRUNE_EVERY", 2)
    for n in range(4):
        table.event("touched_early", id=f"later-{n}", player="p3")
    with app.app_context():
        kept = db.session.execute(db.text("SELECT count(*) FROM answers WHERE version IN (1, 2)")).scalar()
    assert kept == 0  # pruned, the event's and the undo's: the retries below are rebuilt from the log
    assert table.event("touched_early", id="once", player="p2") == first
    assert table.undo(id="undo-once").get_json() == undone


def test_the_streams_frames_carry_the_same_fields(app, client, make_table):
    table = make_table(options={"lives": 3})
    answers = {1: table.event("touched_early", player="p2"), 2: table.undo().get_json()}
    answers[3] = table.event("touched_early", player="p3")
    assert [(a["did"]["seq"], a["did"]["undo"]) for a in answers.values()] == [
        (1, False),
        (1, True),
        (2, False),
    ]
    url = f"/api/tables/{table.code}/stream"
    # Resuming (from the log: this process has no channel yet), then the current version alone.
    assert frames(client.get(url, headers={"Last-Event-ID": "0"})) == list(answers.items())
    assert frames(client.get(url)) == [(3, answers[3])]
    # Written while followed: the writer's own answer, framed once.
    hub = streams.hub(app)
    with app.app_context():
        channel = hub.follow(store.find_table(table.code).id, 3)
    try:
        answers[4] = table.undo().get_json()
        got, _ = hub.wait(channel, 3, 10)
        assert got == streams.framed([(4, answers[4])])
        assert answers[4]["did"]["seq"] == 2 and answers[4]["undoable"] is None
    finally:
        hub.unfollow(channel)


def test_a_stream_may_name_the_version_it_holds_in_its_url(client, make_table):
    """EventSource cannot set Last-Event-ID on a stream it opens: a page that holds a version names
    it as ``?since=``, and is sent what came after it, nothing twice (the header, sent by
    EventSource's own reconnections, wins; a ``since`` that is no version is not heard)."""
    table = make_table()
    for player in ("p2", "p3", "p4"):
        table.event("touched_early", player=player)
    url = f"/api/tables/{table.code}/stream"
    for query, header, sent in [("?since=1", None, [2, 3]), ("?since=3", None, []), ("?since=1", "2", [3])]:
        headers = {"Last-Event-ID": header} if header else {}
        assert [version for version, _ in frames(client.get(url + query, headers=headers))] == sent, query
    assert [version for version, _ in frames(client.get(url + "?since=x"))] == [3]


def test_every_history_entry_says_who_recorded_it(make_table):
    table = make_table()
    table.event("touched_early", player="p2")
    table.event("touched_early", player="p3")
    table.undo()
    assert [e["by"] for e in table.history()["events"]] == ["referee", "referee"]
