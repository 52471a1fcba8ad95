"""A Grand Jeu table played through whose log was written under older rules stays readable for good
(issue 25 item 1): its history, log, timeline, exports, results page, undo and replay all answer.

Before issue 25, a fécondation express aborted left its winner's phase 0 waiting for a `birth`
with nothing in it, and that empty birth was recorded (its words could not be said: ``said`` NULL).
The rules now make such a phase 0 at once and refuse that birth; the rows below are written straight
into the database as the app wrote them then, on both backends (the ``app`` fixture).
"""

from __future__ import annotations

import copy
import csv
import io

import pytest
from sqlalchemy import update

from companion.storage import store, warm
from companion.storage.models import Event, Table, db
from engine import core
from tests.test_gjdlv_play import EXPRESS

pytestmark = pytest.mark.replays_a_log_of_older_rules

NAMES = ["Ada", "Bruno", "Chiara"]
OPTIONS = {"mode": "tracker", "rules": "simples", "rounds": 5}
# p1 holds back; p3, just before p1, leaves 6♥; p1 wins it (a fécondation express); p2 aborts it.
BEFORE = [
    {"type": "deal", "mouchoir": ["9C", "10C"]},
    *EXPRESS,
    {"type": "abort", "player": "p2", "gm": "4C"},
]
EMPTY_BIRTH = {"type": "birth", "player": "p1"}  # what the phase then waited for


def old_rules_state(events: list[dict]) -> dict:
    """The state the app stored after ``BEFORE``: p1's phase 0 waiting, with nothing in it."""
    state = core.replay("gjdlv", NAMES, OPTIONS, events)
    state["play"]["phase"] = "birth"
    return state


def append_old_row(app, code: str, event: dict, state: dict) -> None:
    """An event row and the table's snapshot after it, as the store wrote them before issue 25
    (the words NULL: they could not be said)."""
    with app.app_context():
        table = db.session.execute(db.select(Table).where(Table.code == code)).scalar_one()
        version = table.version + 1
        db.session.add(
            Event(
                table_id=table.id,
                seq=table.log_length + 1,
                client_id=f"old-{version}",
                type=event["type"],
                payload=event,
                version=version,
                said=None,
            )
        )
        db.session.execute(
            update(Table)
            .where(Table.id == table.id)
            .values(
                version=version,
                state=state,
                log_length=table.log_length + 1,
                in_effect=table.in_effect + 1,
            )
        )
        db.session.commit()
    warm.for_app(app).catch_up()  # this process's kept snapshot of the table is behind the row now


def old_table(app, make_table):
    """The table as it was left: ``BEFORE`` through the API, the snapshot then waiting for the empty
    birth, the empty birth recorded and the turn played on (7♥ ovulated)."""
    table = make_table("gjdlv", NAMES, OPTIONS)
    for event in BEFORE:
        table.event(**event)
    with app.app_context():
        row = db.session.execute(db.select(Table).where(Table.code == table.code)).scalar_one()
        db.session.execute(update(Table).where(Table.id == row.id).values(state=old_rules_state(BEFORE)))
        db.session.commit()
    warm.for_app(app).catch_up()
    after = old_rules_state(BEFORE)
    after["play"].update(phase="ovulation", open=[])  # what the empty birth did then
    append_old_row(app, table.code, EMPTY_BIRTH, after)
    table.event("ovulate", player="p1", gf="7H")
    return table


def test_a_log_with_an_empty_birth_recorded_under_the_old_rules_reads_everywhere(app, client, make_table):
    table = old_table(app, make_table)
    base = f"/api/tables/{table.code}"
    history = client.get(f"{base}/history")
    assert history.status_code == 200, history.get_json()
    said = [e["said"] for e in history.get_json()["events"]]
    # The empty birth is said to have had no effect: the rules of today make that phase 0 at once.
    assert said[len(BEFORE)] == {"code": "story.skipped", "params": {"type": "birth"}}
    assert said[-1] == {"code": "gjdlv.story.ovulate", "params": {"player": "p1", "name": "Ada", "gf": "7♥"}}
    for page in ("?limit=1", "?limit=2", f"?limit=3&before={len(BEFORE) + 2}"):
        assert client.get(f"{base}/history{page}").status_code == 200
    log = client.get(f"{base}/log")
    assert log.status_code == 200 and [e["event"] for e in log.get_json()["events"]][-2] == EMPTY_BIRTH
    assert client.get(f"{base}/log?since=3").status_code == 200
    assert client.get(f"{base}/timeline").status_code == 200
    exported = client.get(f"{base}/export")
    assert exported.status_code == 200 and len(exported.get_json()["events"]) == len(BEFORE) + 2
    rows = list(csv.reader(io.StringIO(client.get(f"{base}/export.csv?lang=en").get_data(as_text=True))))
    assert rows[0][1:] == NAMES
    assert client.get(f"/t/{table.code}/results").status_code == 200
    assert client.get(f"/t/{table.code}").status_code == 200


def test_the_old_log_replays_with_the_empty_birth_kept_as_a_no_op(app, make_table, caplog):
    table = old_table(app, make_table)
    with app.app_context():
        row = store.find_table(table.code)
        events = [e.payload for e in store.active_events(row)]
    assert events == [*BEFORE, EMPTY_BIRTH, {"type": "ovulate", "player": "p1", "gf": "7H"}]
    state = core.replay("gjdlv", NAMES, OPTIONS, events)
    assert "refused now" in caplog.text and "birth" in caplog.text
    expected = core.replay("gjdlv", NAMES, OPTIONS, [*BEFORE, events[-1]])
    assert state == expected and core.view("gjdlv", state)["play"]["phase"] == "action"
    # Undo replays the log without its last event: the table is back at p1's phase 1.
    undone = table.undo()
    assert undone.status_code == 200, undone.get_json()
    play = undone.get_json()["state"]["play"]
    assert (play["phase"], play["active"], play["gf"]) == ("ovulation", "p1", None)
    assert client_history_ok(table)
    # And the table goes on from there.
    table.event("ovulate", player="p1", gf="8H")
    table.event("fecundate", player="p1", gm="6S")
    assert client_history_ok(table)


def client_history_ok(table) -> bool:
    return all(
        table.client.get(f"/api/tables/{table.code}/{path}").status_code == 200
        for path in ("history", "log", "timeline", "export", "export.csv")
    )


def test_a_table_left_waiting_for_the_empty_birth_moves_on(app, make_table):
    """The snapshot stored then (p1's phase 0 waiting with nothing in it) is shown, and the empty
    birth the referee could only record then is still accepted on it."""
    table = make_table("gjdlv", NAMES, OPTIONS)
    for event in BEFORE:
        table.event(**event)
    with app.app_context():
        row = db.session.execute(db.select(Table).where(Table.code == table.code)).scalar_one()
        db.session.execute(
            update(Table).where(Table.id == row.id).values(state=copy.deepcopy(old_rules_state(BEFORE)))
        )
        db.session.commit()
    warm.for_app(app).catch_up()
    shown = table.get()["state"]
    assert (shown["play"]["phase"], shown["play"]["active"]) == ("birth", "p1")
    assert {"type": "birth", "player": "p1"} in shown["actions"]
    table.event("birth", player="p1")
    assert table.get()["state"]["play"]["phase"] == "ovulation"
    assert client_history_ok(table)
    said = [e["said"] for e in table.history()["events"]]
    assert said[-1] == {"code": "story.skipped", "params": {"type": "birth"}}
