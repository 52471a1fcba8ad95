"""Two ``companion serve`` instances on one PostgreSQL database, as docs/DEPLOY.md deploys them.

Each instance is a whole server (gunicorn's arbiter and its workers), started as a person starts
it, with nothing in common with the other but ``DATABASE_URL``: the live wake-ups cross through
PostgreSQL's LISTEN/NOTIFY. Followers on both instances see every version a referee makes through
either one, exactly once and in order; a table made on one is played from the other; and the
rate-limit counters are the database's, so one address is counted once across the instances.

Every read waits at most ``READ_SECONDS`` (``tests.support.http``): the waits bound a broken server,
they assert nothing about speed.
"""

from __future__ import annotations

import pytest

from tests.support import http
from tests.support.server import Server, server_env
from tests.test_live import Table

FOLLOWERS_EACH = 3
TAPS = 6


@pytest.fixture(scope="module")
def instances(request, tmp_path_factory):
    """Two two-worker instances, A and B, on one fresh PostgreSQL database."""
    cluster = request.getfixturevalue("postgres")
    folder = tmp_path_factory.mktemp("two-instances")
    database_url = cluster.url(cluster.create_database("two"))
    started: list[Server] = []
    try:
        for name in "ab":  # the first creates the schema; the second finds it there
            # Each instance its own instance folder: nothing but the database is shared.
            own = server_env(folder / f"instance-{name}", database_url, ARBITRE_RATELIMIT_NEW_TABLE="5/hour")
            started.append(Server(own, folder / f"{name}.log", workers=2).start())
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


def made_from(server: Server, address: str) -> tuple[int, dict]:
    """POST a new table from ``address`` (a loopback address of its own: no other test's tables count)."""
    body = {"game": "morto", "players": ["Ada", "Bruno", "Chiara"]}
    return http.call(server.port, "POST", "/api/tables", body, address=address)


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
