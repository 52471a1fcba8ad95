"""The live hub inside one process, on SQLite and PostgreSQL: fan-out per table, admission, resumption.

- A write wakes only its own table's channel; the followers of another table are not woken.
- Each version is serialized once, whatever the number of followers, from the answer the write
  gave (no read of the database when the write was made in this process), and every follower is
  handed the very same bytes.
- A stream's place is taken when it opens and given back when it closes; past the cap per address
  the answer is 429 ``too_many_streams``, past the process's room 503 ``streams_full``, both in the
  API's error shape with ``Retry-After``.
- A follower further behind than ``LIVE_RESUME_MAX`` versions is sent the current version only.
"""

from __future__ import annotations

import time

import pytest

from companion.live import streams
from companion.storage import store

WAIT_SECONDS = 10  # bounds a broken hub; asserts nothing about speed


def table_id(app, code: str) -> int:
    with app.app_context():
        return store.find_table(code).id


def wait_for_version(hub: streams.Hub, channel: streams.Channel, version: int) -> list[tuple[int, bytes]]:
    """Every frame after version 0 as a follower of ``channel`` gets them, up to ``version``."""
    frames, sent = [], 0
    deadline = time.monotonic() + WAIT_SECONDS
    while sent < version:
        assert time.monotonic() < deadline, f"version {version} never reached the channel"
        got, sent = hub.wait(channel, sent, 0.5)
        frames += got
    return frames


def test_a_write_wakes_only_its_tables_followers_and_is_framed_once(app, make_table, monkeypatch):
    hub = streams.hub(app)
    a, b = make_table(), make_table()
    channel_a = hub.follow(table_id(app, a.code), 0)
    channel_b = hub.follow(table_id(app, b.code), 0)
    woken_b, framed, log_reads = [], [], []
    channel_b.changed.notify_all = lambda: woken_b.append(True)

    def frame(version: int, data: str) -> bytes:
        framed.append(version)
        return f"version {version}".encode()

    monkeypatch.setattr(streams, "frame", frame)
    monkeypatch.setattr(hub, "log_answers", lambda *args: log_reads.append(args) or [])

    answers = [a.event("touched_early", player=f"p{n}") for n in (2, 3, 4)]

    followers = [wait_for_version(hub, channel_a, 3) for _ in range(5)]
    assert [v for v, _ in followers[0]] == [1, 2, 3]
    assert all(frames == followers[0] for frames in followers)
    first = followers[0]
    assert all(x[1] is y[1] for frames in followers for x, y in zip(frames, first, strict=True))  # same bytes
    assert framed == [answer["version"] for answer in answers] == [1, 2, 3]  # once per version
    assert log_reads == []  # the writes' own answers: no read of the table
    assert woken_b == [] and channel_b.newest == 0 and not channel_b.reading and channel_b.frames == {}
    hub.unfollow(channel_a)
    hub.unfollow(channel_b)
    assert hub.channels == {} and hub.streams == 0


def test_a_version_written_elsewhere_is_read_once_from_the_log(app, make_table):
    hub = streams.hub(app)
    table = make_table()
    answers = [table.event("touched_early", player="p2"), table.undo().get_json()]
    channel = hub.follow(table_id(app, table.code), 0)
    hub.wake(channel.table_id, 2)  # as the bus does for a write made by another process: no answer
    frames = wait_for_version(hub, channel, 2)
    assert frames == streams.framed([(answer["version"], answer) for answer in answers])
    hub.unfollow(channel)


def refused(response, status: int, code: str, params: dict) -> None:
    assert response.status_code == status
    assert response.headers["Retry-After"].isdigit()
    error = response.get_json()["error"]
    assert (error["code"], error["params"]) == (code, params)
    assert set(error) == {"code", "message", "messages", "params"}


def test_a_closed_stream_gives_its_place_back(app, client, make_table):
    app.config.update(LIVE_STREAMS_PER_ADDRESS=1)
    table = make_table()
    url = f"/api/tables/{table.code}/stream"
    first = client.get(url)
    assert first.status_code == 200
    refused(client.get(url), 429, "too_many_streams", {"max": 1})
    elsewhere = client.get(url, environ_base={"REMOTE_ADDR": "10.0.0.2"})  # another phone
    assert elsewhere.status_code == 200
    elsewhere.close()
    first.close()
    again = client.get(url)
    assert again.status_code == 200
    again.close()
    hub = streams.hub(app)
    assert hub.streams == 0 and hub.channels == {} and not hub.counts.open


def test_a_full_process_refuses_streams_and_keeps_room_for_taps(app, client, make_table):
    app.config.update(LIVE_STREAMS_PER_PROCESS=1)
    table = make_table()
    url = f"/api/tables/{table.code}/stream"
    held = client.get(url, environ_base={"REMOTE_ADDR": "10.0.0.1"})
    assert held.status_code == 200
    refused(client.get(url, environ_base={"REMOTE_ADDR": "10.0.0.2"}), 503, "streams_full", {})
    table.event("touched_early", player="p2")  # the referee is still served
    held.close()


@pytest.mark.parametrize("last_id, sent", [("1", [2, 3, 4]), ("0", [4]), ("4", []), ("5", [4]), ("", [4])])
def test_a_follower_too_far_behind_gets_the_current_version_only(app, client, make_table, last_id, sent):
    app.config.update(LIVE_RESUME_MAX=3)
    table = make_table()
    for n in range(4):
        table.event("touched_early", player=f"p{2 + n % 4}")
    response = client.get(f"/api/tables/{table.code}/stream", headers={"Last-Event-ID": last_id})
    try:
        first = next(iter(response.response))  # the retry line and what the follower missed
    finally:
        response.close()
    ids = [int(line[4:]) for line in first.decode().splitlines() if line.startswith("id: ")]
    assert ids == sent
