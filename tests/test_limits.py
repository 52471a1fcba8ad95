"""Limits on strangers (companion/web/limits.py), per client address, on SQLite and on PostgreSQL.

- Wrong table codes: 30 failures a minute (a 404 on any route naming a table: API, stream, pages);
  past them every route naming a table answers 429 to that address until the window ends, good
  codes included (otherwise 429 against 200 would tell a guesser which codes exist). Found tables
  never count: a table read all evening from one address never meets the limit.
- Wrong or missing referee secrets: 30 failures a minute (401/403); past them the failures are
  answered 429, while the right secret still passes, from that address and from any other: only
  failures count, and a 128-bit secret cannot be guessed by telling 429 from 201.
- New tables: 60 an hour per address, every ``POST /api/tables``.
- The 429 is the API's error shape, ``too_many_requests`` with ``params.retry_after`` (FR/EN), and a
  ``Retry-After`` header with the same seconds; the counters are rows of the app's own database,
  so two apps on one database (two gunicorn workers) count together.

The limits are on by default in every test (``create_app``'s ``RATELIMIT_*`` config); a test here
lowers one with ``app.config`` where the default would only make it slower. Addresses come from the
test client's ``REMOTE_ADDR``.
"""

from __future__ import annotations

import threading
import time

from flask_limiter import Limiter
from limits.storage import MemoryStorage

from companion.storage.models import db
from companion.web.limits import DatabaseStorage, RateLimit, limiter
from engine.messages import text
from tests.conftest import MORTO_NAMES, bearer, dispose

STRANGER = {"REMOTE_ADDR": "203.0.113.66"}
NEIGHBOUR = {"REMOTE_ADDR": "198.51.100.7"}
MINUTE = 60


def too_many(response, window: int = MINUTE, lang: str = "fr") -> int:
    """A 429 ``too_many_requests`` in the API's shape, its sentences and Retry-After agreeing; the seconds."""
    assert response.status_code == 429, (response.status_code, response.get_data(as_text=True)[:300])
    error = response.get_json()["error"]
    assert set(error) == {"code", "message", "messages", "params"}
    assert error["code"] == "too_many_requests"
    seconds = error["params"]["retry_after"]
    assert error["params"] == {"retry_after": seconds}
    assert isinstance(seconds, int) and 1 <= seconds <= window + 1
    assert response.headers["Retry-After"] == str(seconds)
    assert error["messages"] == {
        "fr": text("too_many_requests", {"retry_after": seconds}, "fr"),
        "en": text("too_many_requests", {"retry_after": seconds}, "en"),
    }
    assert f"{seconds} s" in error["messages"]["fr"] and f"{seconds} s" in error["messages"]["en"]
    assert error["message"] == error["messages"][lang]
    assert response.headers["Cache-Control"] == "no-store"
    assert "Content-Security-Policy" in response.headers
    return seconds


def wrong_code(n: int) -> str:
    return f"ZZZZ{n % 100:02d}"  # well-formed codes, none of them a table here


def probe(client, n: int, environ: dict):
    """One request naming a table that does not exist, on one of the routes that take a code."""
    code = wrong_code(n)
    routes = [
        lambda: client.get(f"/api/tables/{code}", environ_base=environ),
        lambda: client.get(f"/api/tables/{code}/log", environ_base=environ),
        lambda: client.get(f"/api/tables/{code}/history", environ_base=environ),
        lambda: client.post(
            f"/api/tables/{code}/events", json={"id": "x", "type": "touched_early"}, environ_base=environ
        ),
        lambda: client.get(f"/api/tables/{code}/stream", environ_base=environ),
        lambda: client.get(f"/api/tables/{code}/qr.svg", environ_base=environ),
        lambda: client.get(f"/t/{code}", environ_base=environ),
        lambda: client.get(f"/r/{code}", environ_base=environ),
        lambda: client.get(f"/join/{code}", environ_base=environ),
    ]
    return routes[n % len(routes)]()


def tap(table, environ: dict, headers: dict | None = None, player: str = "p2"):
    """A referee's tap on ``table`` from the address in ``environ`` (with its secret unless ``headers``)."""
    body = {"id": table.new_id(), "type": "touched_early", "player": player}
    return table.client.post(
        f"/api/tables/{table.code}/events",
        json=body,
        environ_base=environ,
        headers=table.auth if headers is None else headers,
    )


def undo(table, environ: dict, headers: dict | None = None):
    return table.client.post(
        f"/api/tables/{table.code}/undo",
        json={},
        environ_base=environ,
        headers=table.auth if headers is None else headers,
    )


def counters(app) -> dict[str, int]:
    with app.app_context():
        return {row.key: row.count for row in db.session.execute(db.select(RateLimit)).scalars()}


# --- wrong table codes ---------------------------------------------------------------------------


def test_wrong_codes_past_the_limit_get_429_and_found_tables_never_count(client, make_table):
    table = make_table()
    for n in range(30):
        # Meanwhile the stranger's good reads keep working, and are not counted.
        assert client.get(f"/api/tables/{table.code}", environ_base=STRANGER).status_code == 200
        assert probe(client, n, STRANGER).status_code == 404, n
    seconds = too_many(
        client.get(f"/api/tables/{wrong_code(30)}", environ_base=STRANGER, headers={"Accept-Language": "en"}),
        lang="en",
    )
    assert seconds <= MINUTE + 1

    # Past the limit the address gets 429 on every route naming a table, a good code included:
    # a 200 next to the wrong codes' 429 would tell which codes exist...
    too_many(client.get(f"/api/tables/{table.code}", environ_base=STRANGER))
    too_many(tap(table, STRANGER, headers=bearer("not-the-secret")))
    too_many(tap(table, STRANGER, headers={}))
    # ...but a referee carrying the table's secret proves the code was known: a festival table
    # behind the same NAT goes on tapping while a neighbour mistypes codes, and is not counted.
    assert tap(table, STRANGER).status_code == 201
    assert undo(table, STRANGER).status_code == 200
    stream = client.get(f"/api/tables/{table.code}/stream", environ_base=STRANGER)
    too_many(stream)  # its own Retry-After, not the stream's fixed one
    page = client.get(f"/t/{table.code}", environ_base=STRANGER)
    assert page.status_code == 429 and page.mimetype == "text/plain"
    assert page.headers["Retry-After"].isdigit()
    assert "réessayez dans" in page.get_data(as_text=True) and "try again in" in page.get_data(as_text=True)

    # Routes naming no table stay open to it; other addresses are not affected.
    assert client.get("/", environ_base=STRANGER).status_code == 200
    assert (
        client.post(
            "/api/tables", json={"game": "morto", "players": MORTO_NAMES}, environ_base=STRANGER
        ).status_code
        == 201
    )
    assert client.get(f"/api/tables/{table.code}", environ_base=NEIGHBOUR).status_code == 200
    assert probe(client, 0, NEIGHBOUR).status_code == 404
    assert table.get()["version"] == 2


def test_the_window_ends_and_the_count_starts_again(app, client):
    app.config.update(RATELIMIT_UNKNOWN_TABLE="2/minute")
    assert [probe(client, n, STRANGER).status_code for n in range(3)] == [404, 404, 429]
    with app.app_context():  # a minute goes by
        db.session.execute(db.update(RateLimit).values(expires_at=time.time() - 1))
        db.session.commit()
    assert probe(client, 3, STRANGER).status_code == 404
    assert list(counters(app).values()) == [1]
    assert probe(client, 4, STRANGER).status_code == 404
    assert probe(client, 5, STRANGER).status_code == 429


def test_a_table_played_all_evening_from_one_address_never_meets_a_limit(app, client, make_table):
    """Only failures count: many players behind one NAT read, follow and tap as much as they like."""
    app.config.update(RATELIMIT_UNKNOWN_TABLE="3/minute", RATELIMIT_WRONG_SECRET="3/minute")
    table = make_table()
    for _ in range(40):
        assert client.get(f"/api/tables/{table.code}").status_code == 200
        assert client.get(f"/t/{table.code}").status_code == 200
        assert client.get(f"/api/tables/{table.code}/history").status_code == 200
    for _ in range(20):
        table.event("touched_early", player="p2")
        assert table.undo().status_code == 200
    for _ in range(5):  # a 404 about a table that exists is no wrong code
        response = client.post(f"/api/tables/{table.code}/checks/nope", json={})
        assert response.status_code == 404 and response.get_json()["error"]["code"] == "unknown_check"
    assert table.get()["version"] == 40
    assert all(count == 0 for key, count in counters(app).items() if "unknown_table" in key)
    assert not any("wrong_secret" in key for key in counters(app))


# --- wrong or missing secrets --------------------------------------------------------------------


def test_wrong_secrets_past_the_limit_get_429_and_the_right_secret_still_passes(client, make_table):
    table = make_table()
    before = table.snapshot()
    wrong = [{}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic abc"}]
    for n in range(30):
        response = tap(table, STRANGER, wrong[n % 3])
        assert response.status_code in (401, 403), n
    too_many(tap(table, STRANGER, wrong[1]))
    too_many(undo(table, STRANGER, {}))
    assert table.snapshot() == before

    # The right secret passes, from another address and from the same one: only failures count.
    assert tap(table, NEIGHBOUR).status_code == 201
    assert tap(table, STRANGER, player="p3").status_code == 201
    assert undo(table, STRANGER).status_code == 200
    assert client.get(f"/api/tables/{table.code}", environ_base=STRANGER).status_code == 200
    # ...and failures from the stranger are still refused with 429, from the neighbour not.
    too_many(tap(table, STRANGER, wrong[0]))
    assert tap(table, NEIGHBOUR, wrong[1]).status_code == 403
    assert table.get()["version"] == 3


def test_a_wrong_secret_counts_across_tables(client, make_table):
    tables = [make_table() for _ in range(3)]
    for n in range(30):
        assert tap(tables[n % 3], STRANGER, bearer("nope")).status_code == 403
    for table in tables:
        too_many(tap(table, STRANGER, bearer("nope")))


# --- new tables ----------------------------------------------------------------------------------


def test_sixty_new_tables_an_hour_per_address(client):
    body = {"game": "morto", "players": MORTO_NAMES}
    statuses = []
    for n in range(60):
        if n % 10 == 9:  # a refused creation counts too
            statuses.append(
                client.post(
                    "/api/tables", data=b"{", content_type="application/json", environ_base=STRANGER
                ).status_code
            )
        else:
            statuses.append(client.post("/api/tables", json=body, environ_base=STRANGER).status_code)
    assert statuses.count(201) == 54 and statuses.count(400) == 6
    too_many(client.post("/api/tables", json=body, environ_base=STRANGER), window=3600)
    assert client.post("/api/tables", json=body, environ_base=NEIGHBOUR).status_code == 201
    # The stranger's tables keep working: only creating more is refused.
    last = client.post("/api/tables", json=body, environ_base=NEIGHBOUR).get_json()
    events = f"/api/tables/{last['code']}/events"
    body = {"id": "t1", "type": "touched_early", "player": "p2"}
    response = client.post(events, json=body, headers=bearer(last["secret"]), environ_base=STRANGER)
    assert response.status_code == 201


# --- shared by the server's processes ------------------------------------------------------------


def test_two_apps_on_one_database_count_together(app, client, make_table):
    """Two gunicorn workers are two apps on one database: failures through either count once."""
    from companion import create_app

    other = create_app({"TESTING": True})  # the same instance folder and DATABASE_URL
    try:
        second = other.test_client()
        table = make_table()
        for n in range(30):
            assert probe(client if n % 2 else second, n, STRANGER).status_code == 404, n
        too_many(second.get(f"/api/tables/{wrong_code(31)}", environ_base=STRANGER))
        too_many(client.get(f"/api/tables/{table.code}", environ_base=STRANGER))
        url, wrong = f"/api/tables/{table.code}/undo", bearer("nope")
        for n in range(30):
            worker = client if n % 2 else second
            assert worker.post(url, headers=wrong, environ_base=NEIGHBOUR).status_code == 403
        too_many(client.post(url, headers=wrong, environ_base=NEIGHBOUR))
        too_many(second.post(url, headers=wrong, environ_base=NEIGHBOUR))
    finally:
        dispose(other)


def test_the_database_storage_counts_atomically(app):
    from companion import create_app

    storage = limiter(app).storage
    assert isinstance(storage, DatabaseStorage)
    assert storage.check()
    assert storage.get("k") == 0
    assert storage.incr("k", 60) == 1
    assert storage.incr("k", 60, amount=2) == 3
    assert storage.get("k") == 3
    assert time.time() < storage.get_expiry("k") <= time.time() + 60
    storage.clear("k")
    assert storage.get("k") == 0
    assert storage.incr("k", 60) == 1

    # Hits from two apps (two processes' worth of pools) and several threads: none lost.
    other = create_app({"TESTING": True})
    try:
        storages = [storage, limiter(other).storage]
        errors = []

        def hit(s) -> None:
            try:
                for _ in range(20):
                    s.incr("shared", 60)
            except Exception as err:  # reported below: a thread's exception would be lost
                errors.append(err)

        threads = [threading.Thread(target=hit, args=(storages[n % 2],)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert not errors
        assert storages[1].get("shared") == 80
    finally:
        dispose(other)
    assert storage.reset() == 2
    assert storage.get("k") == 0 and storage.get("shared") == 0


def test_an_expired_counter_restarts_at_the_hit(app):
    storage = limiter(app).storage
    assert storage.incr("old", 60) == 1
    with app.app_context():
        db.session.execute(db.update(RateLimit).values(expires_at=time.time() - 1))
        db.session.commit()
    assert storage.get("old") == 0
    assert storage.get_expiry("old") <= time.time()
    assert storage.incr("old", 60) == 1
    assert time.time() + 59 < storage.get_expiry("old") <= time.time() + 60


def test_a_storage_uri_in_the_environment_replaces_the_database(app, monkeypatch):
    """``ARBITRE_RATELIMIT_STORAGE`` (e.g. redis://…) is handed to Flask-Limiter as its storage URI."""
    from companion import create_app

    monkeypatch.setenv("ARBITRE_RATELIMIT_STORAGE", "memory://")
    other = create_app({"TESTING": True, "RATELIMIT_UNKNOWN_TABLE": "2/minute"})
    try:
        extension = limiter(other)
        assert isinstance(extension, Limiter)
        assert isinstance(extension.storage, MemoryStorage)
        client = other.test_client()
        assert [probe(client, n, STRANGER).status_code for n in range(3)] == [404, 404, 429]
        assert counters(app) == {}  # nothing went to the database
    finally:
        dispose(other)
