"""A long table cannot hold a server process for everyone: its length and its writes a minute are
bounded, and its whole-log reads (the whole ``/log``, the unpaged ``/history``, ``/timeline``, the
exports) are made once per version and read in slices (companion/web/long_reads.py).

- ``EVENTS_PER_TABLE`` events at most: the next is ``422 log_full`` (both sentences, ``max``) and
  changes nothing; an undo still works, and a retried id still gets its first answer.
- ``TABLE_WRITES_PER_MINUTE`` writes a minute at most, whatever the address: the next is ``429
  too_many_writes`` with ``Retry-After``, until the next minute; other tables are not affected.
  On the production server the count is shared by its processes (tests/test_faults.py).
- A whole-log read of a version is made once per process and kept: the second reader gets the same
  bytes without a replay; a write makes the next read a new one. An export's ``exported_at`` is
  still the moment it is downloaded.
- The unpaged history, read a page at a time, is exactly every entry in order; an answer sent
  gzip'd chunk by chunk is the same answer.

How fast a bystander is served beside long reads is measured, not asserted: ``bench/long_reads.py``.
"""

from __future__ import annotations

import gzip
import json
import types

import pytest

from tests.test_api import refused

TOUCH = {"type": "touched_early", "player": "p2"}


def test_a_table_holds_at_most_its_maximum_of_events(app, make_table):
    app.config["EVENTS_PER_TABLE"] = 3
    table = make_table(options={"lives": 9})
    answers = [table.post("touched_early", id=f"e{n}", player=f"p{2 + n}") for n in range(3)]
    assert [answer.status_code for answer in answers] == [201, 201, 201]
    before = table.snapshot()
    error = refused(table.post("touched_early", id="one-too-many", player="p2"), 422, "log_full")
    assert error["params"] == {"max": 3}
    assert table.snapshot() == before
    retried = table.post("touched_early", id="e2", player="p4")  # an id already applied: its first answer
    assert retried.status_code == 201 and retried.get_json() == answers[2].get_json()
    assert table.undo(id="oops").status_code == 200  # taking back still works
    refused(table.post("touched_early", id="one-too-many", player="p2"), 422, "log_full")  # the log keeps it


@pytest.fixture
def frozen(monkeypatch):
    """The clock the table's writes are counted by (companion.web.limits), held at the start of a minute."""
    from companion.web import limits

    clock = types.SimpleNamespace(now=60.0 * 1_000_000)
    monkeypatch.setattr(limits, "time", types.SimpleNamespace(time=lambda: clock.now))
    return clock


def test_a_tables_writes_a_minute_are_bounded(app, make_table, frozen):
    app.config["TABLE_WRITES_PER_MINUTE"] = 3
    table, other = make_table(options={"lives": 9}), make_table(options={"lives": 9})
    assert table.event("touched_early", player="p2")["version"] == 1
    assert table.undo(id="u1").status_code == 200  # undos count too
    assert table.event("touched_early", player="p3")["version"] == 3
    frozen.now += 20
    before = table.snapshot()
    response = table.post("touched_early", player="p4")
    error = refused(response, 429, "too_many_writes")
    assert error["params"] == {"max": 3, "retry_after": 40}
    assert response.headers["Retry-After"] == "40"
    refused(table.undo(id="u2"), 429, "too_many_writes")
    assert table.snapshot() == before
    assert other.event("touched_early", player="p2")["version"] == 1  # another table is not affected
    frozen.now += 40  # the next minute
    assert table.event("touched_early", player="p4")["version"] == 4


def test_a_whole_log_read_is_made_once_per_version(app, client, make_table, monkeypatch):
    from companion.web import story

    replays = []
    timeline = story.timeline
    monkeypatch.setattr(story, "timeline", lambda table: replays.append(table.version) or timeline(table))
    table = make_table()
    table.event("touched_early", player="p2")
    first = client.get(f"/api/tables/{table.code}/timeline")
    again = client.get(f"/api/tables/{table.code}/timeline")
    assert first.status_code == again.status_code == 200
    assert again.data == first.data and replays == [1]
    table.event("touched_early", player="p3")
    moved = client.get(f"/api/tables/{table.code}/timeline")
    assert moved.get_json()["version"] == 2 and replays == [1, 2]


def test_a_kept_export_is_dated_when_it_is_downloaded(client, make_table, monkeypatch):
    from companion.web import story

    table = make_table()
    table.event("touched_early", player="p2")
    monkeypatch.setattr(story, "now", lambda: "2031-03-07T21:04:00+00:00")
    first = client.get(f"/api/tables/{table.code}/export").get_json()
    monkeypatch.setattr(story, "now", lambda: "2031-03-07T22:30:00+00:00")
    second = client.get(f"/api/tables/{table.code}/export")
    assert second.headers["Content-Disposition"] == f'attachment; filename="arbitre-{table.code}.json"'
    assert first["exported_at"] == "2031-03-07T21:04:00+00:00"
    assert second.get_json() == {**first, "exported_at": "2031-03-07T22:30:00+00:00"}


def test_the_unpaged_history_read_a_page_at_a_time_is_every_entry_in_order(client, make_table, monkeypatch):
    from companion.storage import store

    monkeypatch.setattr(store, "SLICE", 4)  # pages of 4 entries: 10 entries are 3 pages, the last short
    table = make_table(options={"lives": 9})
    for n in range(10):
        table.event("touched_early", player=f"p{2 + n % 4}")
    for _ in range(3):
        assert table.undo().status_code == 200
    whole = client.get(f"/api/tables/{table.code}/history").get_json()
    paged = client.get(f"/api/tables/{table.code}/history?limit=500").get_json()
    assert whole == paged and whole["more"] is False
    assert [entry["seq"] for entry in whole["events"]] == list(range(1, 11))
    assert [entry["undone"] for entry in whole["events"]] == [False] * 7 + [True] * 3


@pytest.mark.parametrize("path", ["log", "history", "timeline", "export", "export.csv"])
def test_a_whole_log_read_gzipd_chunk_by_chunk_is_the_same_answer(client, make_table, path, monkeypatch):
    from companion.web import long_reads

    monkeypatch.setattr(long_reads, "CHUNK", 16)  # several chunks
    table = make_table(options={"lives": 9})
    for n in range(6):
        table.event("touched_early", player=f"p{2 + n % 4}")
    plain = client.get(f"/api/tables/{table.code}/{path}")
    packed = client.get(f"/api/tables/{table.code}/{path}", headers={"Accept-Encoding": "gzip"})
    assert plain.status_code == packed.status_code == 200
    assert "Content-Encoding" not in plain.headers and plain.headers["Content-Length"] == str(len(plain.data))
    assert packed.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in packed.headers["Vary"]
    assert len(plain.data) > 16
    unpacked = gzip.decompress(packed.data)
    if path == "export":  # two downloads, two moments
        assert {**json.loads(unpacked), "exported_at": None} == {
            **json.loads(plain.data),
            "exported_at": None,
        }
    else:
        assert unpacked == plain.data
    assert plain.mimetype == ("text/csv" if path.endswith("csv") else "application/json")
