"""Two ``companion serve`` instances on one PostgreSQL database, as docs/DEPLOY.md deploys them.

Each instance is a whole server (gunicorn's arbiter and its workers), started as a person starts
it, with nothing in common with the other but ``DATABASE_URL``: the live wake-ups cross through
PostgreSQL's LISTEN/NOTIFY. Followers on both instances see every version a referee makes through
either one, exactly once and in order; a table made on one is played from the other; and the
rate-limit counters are the database's, so one address is counted once across the instances.

Every read waits at most ``READ_SECONDS`` (``tests.test_live``): the waits bound a broken server,
they assert nothing about speed.
"""

from __future__ import annotations

import http.client
import json
import os

import pytest

from tests.test_live import READ_SECONDS, Served, Table

FOLLOWERS_EACH = 3
TAPS = 6


@pytest.fixture(scope="module")
def instances(request, tmp_path_factory):
    """Two two-worker instances, A and B, on one fresh PostgreSQL database."""
    cluster = request.getfixturevalue("postgres")
    folder = tmp_path_factory.mktemp("two-instances")
    env = dict(os.environ, PYTHONUNBUFFERED="1", DATABASE_URL=cluster.url(cluster.create_database("two")))
    started: list[Served] = []
    try:
        for name in "ab":  # the first creates the schema; the second finds it there
            # Each instance its own instance folder: nothing but the database is shared.
            own = dict(
                env, ARBITRE_INSTANCE=str(folder / f"instance-{name}"), ARBITRE_RATELIMIT_NEW_TABLE="5/hour"
            )
            started.append(Served(own, folder / f"{name}.log", "--workers", "2"))
            started[-1].wait_ready()
        yield started
    finally:
        for server in started:
            server.stop()


def test_taps_on_one_instance_reach_the_followers_of_both_once_and_in_order(instances):
    a, b = instances
    table = Table(a)
    everyone = [server.stream(table.code) for server in instances for _ in range(FOLLOWERS_EACH)]
    try:
        first = {"version": 0, "state": table.first["state"], "did": None, "undoable": None}
        for follower in everyone:
            assert follower.next() == {"id": "0", "answer": first}

        # Taps and an undo through A, then through B: each version once, in order, on both instances.
        answers = [table.tap(a) for _ in range(TAPS)] + [table.undo(a), table.tap(b), table.undo(b)]
        expected = [{"id": str(answer["version"]), "answer": answer} for answer in answers]
        assert [answer["version"] for answer in answers] == list(range(1, len(answers) + 1))
        for follower in everyone:
            assert [follower.next() for _ in expected] == expected

        # Nothing was doubled: what comes next on every stream is the next version, not a repeat.
        last = table.tap(b)
        for follower in everyone:
            assert follower.next() == {"id": str(last["version"]), "answer": last}
    finally:
        for follower in everyone:
            follower.close()


def test_a_follower_that_moves_to_the_other_instance_resumes_where_it_was(instances):
    """A proxy may send a phone's reconnection to the other instance (the first died): with the
    Last-Event-ID it held, it gets exactly the versions it missed, then the next ones."""
    a, b = instances
    table = Table(b)
    follower = a.stream(table.code)
    assert follower.next()["id"] == "0"
    held = table.tap(a)
    assert follower.next() == {"id": "1", "answer": held}
    follower.close()

    missed = [table.tap(b), table.tap(a), table.undo(b)]
    moved = b.stream(table.code, last_id="1")
    try:
        assert [moved.next() for _ in missed] == [{"id": str(m["version"]), "answer": m} for m in missed]
        after = table.tap(a)
        assert moved.next() == {"id": str(after["version"]), "answer": after}
    finally:
        moved.close()


def made_from(server: Served, address: str) -> tuple[int, dict]:
    """POST a new table from ``address`` (a loopback address of its own: no other test's tables count)."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", server.port, timeout=READ_SECONDS, source_address=(address, 0)
    )
    try:
        body = json.dumps({"game": "morto", "players": ["Ada", "Bruno", "Chiara"]})
        connection.request("POST", "/api/tables", body=body, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def test_the_rate_limits_are_counted_once_across_the_instances(instances):
    """The new-table limit (5 an hour here) is kept in the shared database: tables made from one
    address through either instance add up, and the sixth is refused on both."""
    a, b = instances
    for server in (a, b, a, b, a):
        status, made = made_from(server, "127.0.0.7")
        assert status == 201, made
    for server in (a, b):
        status, refused = made_from(server, "127.0.0.7")
        assert status == 429, refused
        assert refused["error"]["code"] == "too_many_requests"
    status, made = made_from(b, "127.0.0.8")  # another address is not affected
    assert status == 201, made
