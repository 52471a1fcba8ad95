"""The live stream on the production server (``companion serve``: gunicorn, gevent workers), on
SQLite and on PostgreSQL.

- Followers on two server processes both see a tap made through a third: the wake-up crosses
  processes (LISTEN/NOTIFY on PostgreSQL, datagrams on SQLite), with no poll.
- A stream resumed after a drop (``Last-Event-ID``) gets exactly the versions it missed, in order,
  then carries on without repeating one.
- Open streams are capped per address across the workers: the next one gets 429 in the API's
  error shape, with ``Retry-After``; another address is not affected.
- Stopping the server ends its streams at once (EventSource then reconnects elsewhere).

Three servers share one database per backend: each is a single worker process, so which process
a connection reaches is known. Every read waits at most ``READ_SECONDS`` (a socket timeout): the
waits bound how long a broken server can hang the suite, they assert nothing about speed.
"""

from __future__ import annotations

import json
import signal
import time

import pytest

from tests.support.http import READ_SECONDS
from tests.support.server import Server, server_env
from tests.support.sse import Stream

PLAYERS = ["Ada", "Bruno", "Chiara", "Dario", "Elena"]


class Table:
    """A table created through one server, and its referee's taps through any."""

    def __init__(self, server: Server):
        status, created = server.call("POST", "/api/tables", {"game": "morto", "players": PLAYERS})
        assert status == 201, created
        self.code, self.secret, self.first = created["code"], created["secret"], created
        self.taps = 0

    def tap(self, server: Server) -> dict:
        self.taps += 1
        body = {"id": f"tap-{self.taps}", "type": "touched_early", "player": f"p{2 + self.taps % 4}"}
        status, answer = server.call("POST", f"/api/tables/{self.code}/events", body, self.secret)
        assert status == 201, answer
        return answer

    def undo(self, server: Server) -> dict:
        status, answer = server.call("POST", f"/api/tables/{self.code}/undo", {}, self.secret)
        assert status == 200, answer
        return answer


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def servers(request, tmp_path_factory):
    """Three single-process servers on one database: A and B for followers, C for the referee."""
    folder = tmp_path_factory.mktemp(f"live-{request.param}")
    database_url = None
    if request.param == "postgresql":
        cluster = request.getfixturevalue("postgres")
        database_url = cluster.url(cluster.create_database("live"))
    env = server_env(folder / "instance", database_url)
    started: list[Server] = []
    try:
        # The first creates the database; the other two start together once it is there.
        started.append(Server(env, folder / "a.log", workers=1).started())
        started += [Server(env, folder / f"{name}.log", workers=1).start() for name in "bc"]
        for server in started:
            server.wait_ready()
        yield started
    finally:
        for server in started:
            server.stop()


def test_followers_on_two_processes_both_see_a_tap_made_through_a_third(servers):
    a, b, c = servers
    table = Table(a)
    on_a, on_b = a.stream(table.code), b.stream(table.code)
    try:
        first = {"version": 0, "state": table.first["state"], "did": None, "undoable": None}
        for follower in (on_a, on_b):
            assert follower.next() == {"id": "0", "answer": first}
        tapped = table.tap(c)
        for follower in (on_a, on_b):
            assert follower.next() == {"id": "1", "answer": tapped}
        undone = table.undo(c)
        for follower in (on_a, on_b):
            assert follower.next() == {"id": "2", "answer": undone}
    finally:
        on_a.close()
        on_b.close()


def test_a_resumed_stream_gets_exactly_the_versions_it_missed(servers):
    a, b, c = servers
    table = Table(c)
    answers = {1: table.tap(c)}
    follower = a.stream(table.code)
    assert follower.next()["id"] == "1"
    follower.close()  # the phone loses the network

    answers[2] = table.tap(c)
    answers[3] = table.tap(c)
    answers[4] = table.undo(c)
    answers[5] = table.tap(c)

    resumed = b.stream(table.code, last_id="1")  # what EventSource sends when it reconnects
    try:
        missed = [{"id": str(v), "answer": answers[v]} for v in (2, 3, 4, 5)]
        assert [resumed.next() for _ in range(4)] == missed
        answers[6] = table.tap(a)
        assert resumed.next() == {"id": "6", "answer": answers[6]}  # 5 was not sent again
    finally:
        resumed.close()

    # Already up to date: nothing is repeated, the next write comes next.
    current = a.stream(table.code, last_id="6")
    try:
        answers[7] = table.tap(b)
        assert current.next() == {"id": "7", "answer": answers[7]}
    finally:
        current.close()

    # No Last-Event-ID, or one the table never had: the current version, once.
    for last_id in (None, "99", "x"):
        fresh = c.stream(table.code, last_id=last_id)
        try:
            assert fresh.next() == {"id": "7", "answer": answers[7]}
        finally:
            fresh.close()


@pytest.fixture
def capped(tmp_path):
    """A two-process server on SQLite that lets one address hold 3 streams. An idle stream's keep-alive
    comment comes after 300 s (15 by default): a stream here ends only when its follower leaves."""
    env = server_env(tmp_path / "instance", ARBITRE_LIVE_KEEPALIVE_SECONDS="300")
    with Server(env, tmp_path / "serve.log", "--streams-per-address", "3", workers=2) as server:
        yield server


def test_open_streams_are_capped_per_address_across_the_processes(capped):
    table = Table(capped)
    held = [capped.stream(table.code, address="127.0.0.3") for _ in range(3)]
    try:
        for stream in held:
            assert stream.response.status == 200
            assert stream.next()["id"] == "0"
        refused = capped.stream(table.code, address="127.0.0.3")
        assert refused.response.status == 429
        assert refused.response.getheader("Retry-After", "").isdigit()
        error = json.loads(refused.response.read())["error"]
        assert error["code"] == "too_many_streams" and error["params"] == {"max": 3}
        assert set(error) == {"code", "message", "messages", "params"}
        refused.close()

        other = capped.stream(table.code, address="127.0.0.4")  # another phone is not affected
        assert other.response.status == 200 and other.next()["id"] == "0"
        held.append(other)
    finally:
        for stream in held:
            stream.close()


def test_a_closed_stream_frees_its_address_slot_at_once(capped):
    """The server notices a follower's close while the stream waits, not at its next keep-alive
    write (which would fail 300 s later here): the cap's worth of streams closed, as many open again."""
    table = Table(capped)

    def follow() -> Stream:
        # Only the server's own time to hear of the close: a 429 is asked again until then (a socket
        # timeout's worth at most, far below the 300 s the slot was held before).
        deadline = time.monotonic() + READ_SECONDS
        while True:
            stream = capped.stream(table.code, address="127.0.0.5")
            if stream.response.status != 429 or time.monotonic() > deadline:
                assert stream.response.status == 200
                assert stream.next()["id"] == "0"
                return stream
            stream.close()
            time.sleep(0.05)

    for _ in range(3):  # a phone's page reloaded, again and again
        held = [follow() for _ in range(3)]
        for stream in held:
            stream.close()


def test_stopping_the_server_ends_its_streams(capped):
    table = Table(capped)
    follower = capped.stream(table.code)
    try:
        assert follower.next()["id"] == "0"
        capped.process.send_signal(signal.SIGTERM)
        with pytest.raises(AssertionError, match="stream ended"):
            follower.next()  # the end of the stream, not the read timeout
        assert capped.process.wait(timeout=READ_SECONDS) == 0
    finally:
        follower.close()
