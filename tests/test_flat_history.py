"""A long table costs what a short one does: what the store keeps so that it never replays the log.

- Checkpoints: every `store.CHECKPOINT_EVERY`-th event in effect keeps the state after it; an undo
  replays from the nearest one before the event it takes back. Undos across checkpoint boundaries,
  events undone and written again over a checkpoint, give exactly what a replay of the log gives.
- Counters: ``log_length`` and ``in_effect`` are the log's, after events, undos, retries and imports.
- Words: each event keeps ``said``, worded when applied; the history's pages read them, and they
  equal the engine's story of the whole log. Rows written before words and checkpoints were kept
  (NULL) are still worded and undone right.
- `/log?since=`: the log a phone lacks, with ``keep``.
"""

from __future__ import annotations

import random

import pytest
from sqlalchemy import event as sa_event
from sqlalchemy import select, update

from companion.storage import store, warm
from companion.storage.models import Event, Table, db
from engine import core

EVERY = 4  # a checkpoint every 4 events in effect: the scenarios below cross many


@pytest.fixture
def small_checkpoints(monkeypatch):
    monkeypatch.setattr(store, "CHECKPOINT_EVERY", EVERY)


def _row(app, code: str) -> tuple[Table, list[Event]]:
    with app.app_context():
        table = store.find_table(code)
        rows = list(
            db.session.execute(select(Event).where(Event.table_id == table.id).order_by(Event.seq)).scalars()
        )
        db.session.expunge_all()
        return table, rows


def _replayed(table: Table, rows: list[Event]) -> dict:
    return core.replay(table.game, table.players, table.options, [e.payload for e in rows if not e.undone])


def _oracle_said(table: Table, rows: list[Event]) -> list[dict]:
    return core.story(
        table.game,
        table.players,
        table.options,
        [{"event": e.payload, "version": e.version, "undone_version": e.undone_version} for e in rows],
    )


def _touch(table, rng: random.Random):
    return table.post("touched_early", player=f"p{rng.randrange(2, 6)}")


def test_undos_across_checkpoints_give_the_replay_of_the_log(app, make_table, small_checkpoints):
    rng = random.Random(7)
    table = make_table("morto", options={"lives": 9})
    for step in range(120):
        if rng.random() < 0.35:
            response = table.undo()
            assert response.status_code in (200, 422), response.get_json()
        else:
            response = _touch(table, rng)
            assert response.status_code in (201, 422), response.get_json()
        if step % 10 == 9:
            row, rows = _row(app, table.code)
            assert row.state == _replayed(row, rows)
            assert core.view("morto", row.state) == table.get()["state"]
    row, rows = _row(app, table.code)
    assert row.log_length == len(rows) == rows[-1].seq
    assert row.in_effect == sum(not e.undone for e in rows)
    in_effect = [e for e in rows if not e.undone]
    kept = [position for position, e in enumerate(in_effect, start=1) if e.checkpoint is not None]
    assert kept == [p for p in range(1, len(in_effect) + 1) if p % EVERY == 0]
    for position, e in enumerate(in_effect, start=1):
        if e.checkpoint is not None:
            upto = [x.payload for x in in_effect[:position]]
            assert e.checkpoint == core.replay(row.game, row.players, row.options, upto)


def test_an_undo_replays_at_most_the_events_since_the_last_checkpoint(
    app, make_table, small_checkpoints, monkeypatch
):
    table = make_table("morto", options={"lives": 9})
    for i in range(3 * EVERY + 2):
        table.event("touched_early", player=f"p{2 + i % 4}")
    replayed = []
    onto = core.replay_onto

    def counted(game, state, events):
        replayed.extend(events)
        return onto(game, state, events)

    monkeypatch.setattr(core, "replay_onto", counted)
    # A process that kept nothing of this table (another one wrote it last): the undo reads the log's
    # end. (Right after its own event, a process goes back to the state it kept: tests/test_warm.py.)
    warm.for_app(app).catch_up()
    assert table.undo().status_code == 200
    # 14 events: the last checkpoint is after the 12th; undoing the 14th replays the 13th alone.
    assert len(replayed) == 1
    row, rows = _row(app, table.code)
    assert row.state == _replayed(row, rows)


def test_rows_written_before_checkpoints_and_words_are_undone_and_worded(app, make_table, small_checkpoints):
    table = make_table("morto", options={"lives": 9})
    for i in range(2 * EVERY + 1):
        table.event("touched_early", player=f"p{2 + i % 4}")
    assert table.undo().status_code == 200
    with app.app_context():
        db.session.execute(update(Event).values(checkpoint=None, said=None))
        db.session.commit()
    for _ in range(EVERY + 2):
        assert table.undo().status_code == 200
    row, rows = _row(app, table.code)
    assert row.state == _replayed(row, rows)
    history = table.history()
    assert [e["said"] for e in history["events"]] == _oracle_said(row, rows)


def test_each_event_keeps_its_words_and_the_history_pages_read_them(app, make_table, small_checkpoints):
    rng = random.Random(3)
    table = make_table("morto", options={"lives": 9})
    for _ in range(40):
        if rng.random() < 0.3:
            table.undo()
        else:
            _touch(table, rng)
    row, rows = _row(app, table.code)
    assert all(e.said is not None for e in rows)
    whole = table.history()
    assert whole["more"] is False
    assert [e["said"] for e in whole["events"]] == _oracle_said(row, rows)
    assert [e["seq"] for e in whole["events"]] == list(range(1, len(rows) + 1))

    pages, before = [], None
    while True:
        query = f"?limit=7{f'&before={before}' if before else ''}"
        page = table.client.get(f"/api/tables/{table.code}/history{query}").get_json()
        assert len(page["events"]) <= 7
        pages[:0] = page["events"]
        if not page["more"]:
            break
        before = page["events"][0]["seq"]
    assert pages == whole["events"]


def test_a_history_page_reads_only_the_columns_it_answers(app, make_table, small_checkpoints):
    """The answers kept and an event's checkpoint (a view, a state: kilobytes) are never read for the
    history: a page selects only what its entries say, and still says all of it."""
    table = make_table("morto", options={"lives": 9})
    for n in range(2 * EVERY + 1):
        table.post("touched_early", player=f"p{2 + n % 4}")
    table.undo()
    with app.app_context():
        engine = db.engine
    seen: list[str] = []

    def record(_connection, _cursor, statement, *_args) -> None:
        seen.append(statement)

    sa_event.listen(engine, "before_cursor_execute", record)
    try:
        page = table.client.get(f"/api/tables/{table.code}/history?limit=5").get_json()
        whole = table.history()
    finally:
        sa_event.remove(engine, "before_cursor_execute", record)
    reads = [s for s in seen if "FROM events" in s]
    assert reads, seen
    for statement in reads:
        assert "events.checkpoint" not in statement and "answers" not in statement, statement
    assert page["events"] == whole["events"][-5:] and page["more"] is True
    entry = whole["events"][-1]
    assert set(entry) == {
        "seq",
        "id",
        "event",
        "version",
        "at",
        "undone",
        "undone_version",
        "undone_at",
        "said",
        "by",
        "undone_by",
    }
    assert entry["undone"] is True and entry["undone_version"] == 2 * EVERY + 2 and entry["undone_at"]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("limit=0", "limit"),
        ("limit=501", "limit"),
        ("limit=x", "limit"),
        ("limit=-1", "limit"),
        ("limit=9999999999", "limit"),
        ("before=0", "before"),
        ("before=1e3", "before"),
        ("limit=1&before=%C2%B2", "before"),  # a superscript two is a digit to str.isdigit, not to int()
    ],
)
def test_a_bad_page_is_refused_naming_the_field(make_table, query, field):
    table = make_table("morto")
    response = table.client.get(f"/api/tables/{table.code}/history?{query}")
    assert response.status_code == 422
    assert response.get_json()["error"]["params"]["field"] == field


def test_an_import_keeps_counts_words_and_checkpoints(app, make_table, client, small_checkpoints):
    table = make_table("morto", options={"lives": 9})
    for i in range(2 * EVERY + 3):
        table.event("touched_early", player=f"p{2 + i % 4}")
    table.undo()
    exported = client.get(f"/api/tables/{table.code}/export").get_json()
    response = client.post("/api/tables/import", json=exported)
    assert response.status_code == 201, response.get_json()
    row, rows = _row(app, response.get_json()["code"])
    assert row.log_length == row.in_effect == len(rows) == 2 * EVERY + 2
    assert [e.checkpoint is not None for e in rows] == [(i + 1) % EVERY == 0 for i in range(len(rows))]
    assert [e.said for e in rows] == _oracle_said(row, rows)
    imported = {"code": row.code, "secret": response.get_json()["secret"]}
    for _ in range(EVERY + 1):
        assert (
            client.post(
                f"/api/tables/{imported['code']}/undo",
                json={},
                headers={"Authorization": f"Bearer {imported['secret']}"},
            ).status_code
            == 200
        )
    row, rows = _row(app, imported["code"])
    assert row.state == _replayed(row, rows)


def test_the_log_since_a_version_is_what_a_phone_lacks(app, make_table):
    table = make_table("morto", options={"lives": 9})
    logs = [table.client.get(f"/api/tables/{table.code}/log").get_json()]
    rng = random.Random(11)
    for _ in range(30):
        table.undo() if rng.random() < 0.3 else _touch(table, rng)
        logs.append(table.client.get(f"/api/tables/{table.code}/log").get_json())
    now = logs[-1]
    for then in logs:
        lacking = table.client.get(f"/api/tables/{table.code}/log?since={then['version']}").get_json()
        assert lacking["since"] == then["version"]
        assert then["events"][: lacking["keep"]] + lacking["events"] == now["events"]
    for bad in (now["version"] + 1, -1, "x", ""):
        response = table.client.get(f"/api/tables/{table.code}/log?since={bad}")
        assert response.status_code == 422
        assert response.get_json()["error"]["params"]["field"] == "since"
