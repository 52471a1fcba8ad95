"""The production server (``companion serve``) when its database fails, and against requests it cannot
take: every answer is a refusal in the API's shape, never a 500 with a traceback per request.

- **PostgreSQL stops answering** (the server's database refuses connections and its sessions are
  ended, as a restart or a crash of PostgreSQL does): reads, writes, the stream and the pages get
  ``503 unavailable`` with ``Retry-After``; the server logs one line per process, not a traceback per
  request; once the database is back it serves again, a write retried with its client id is applied
  once, and every acknowledged tap is there.
- **SQLite cannot write** (the workers' file-size limit lowered to a byte: every write to the
  database fails in the kernel, as on a full disk): writes get ``503 unavailable``, reads still
  work, and once the limit is lifted the retried write is applied once.
- **Requests gunicorn cannot parse or the app must not read whole**: a chunked body over 64 KiB is
  ``413 too_large``, a URL over gunicorn's limit ``414 too_long``, headers too large ``431
  headers_too_large``, a malformed chunked body ``400 bad_request``: the JSON error shape under
  ``/api/``, the sentences as text for a page.
- **The QR code's address**: with ``PUBLIC_URL`` the QR encodes that address whatever ``Host`` the
  request names, and may be cached publicly; without it, it encodes the request's own address and
  is cached privately only, so no shared cache hands a stranger's address to everyone.
- **A table's writes a minute** are counted across the server's processes (shared memory).

Waits are bounded by socket timeouts (``READ_SECONDS``): they bound a broken server, not speed.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import resource
import time
import xml.etree.ElementTree as ET

import pytest
from sqlalchemy import event

from companion.web.qr import svg
from engine.messages import text
from tests.support import http
from tests.support.http import READ_SECONDS
from tests.support.server import Server, server_env
from tests.test_live import PLAYERS, Table

PAGE_WORDS = re.compile(r"^(?P<fr>.+)\n(?P<en>.+)\n$")


def request(server: Server, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
    """(status, headers, body) of one request on a new connection."""
    answer = http.request(server.port, method, path, body, headers=headers)
    return answer.status, answer.headers, answer.body


def refusal(status: int, headers: dict, body: bytes) -> dict:
    """The API's error body of a refusal, checked for its shape; the error."""
    assert headers["Content-Type"].startswith("application/json"), (status, headers, body[:300])
    error = json.loads(body)["error"]
    assert set(error) == {"code", "message", "messages", "params"}
    assert error["message"] == error["messages"]["fr"] == text(error["code"], error["params"], "fr")
    assert error["messages"]["en"] == text(error["code"], error["params"], "en")
    return error


def unavailable(answer: tuple[int, dict, bytes]) -> None:
    status, headers, body = answer
    assert status == 503, (status, body[:300])
    assert headers["Retry-After"].isdigit()
    if headers["Content-Type"].startswith("application/json"):
        error = refusal(status, headers, body)
        assert error["code"] == "unavailable"
        assert error["params"] == {"retry_after": int(headers["Retry-After"])}
    else:  # a page: both sentences as text
        words = PAGE_WORDS.match(body.decode())
        params = {"retry_after": int(headers["Retry-After"])}
        assert words and words["fr"] == text("unavailable", params, "fr")
        assert words["en"] == text("unavailable", params, "en")


def when_back(server: Server, path: str) -> int:
    """The first status other than 503 that ``path`` answers once the database is back (the pools
    find their connections dead once, then make new ones)."""
    deadline = time.monotonic() + READ_SECONDS
    while True:
        status = request(server, "GET", path)[0]
        if status != 503 or time.monotonic() > deadline:
            return status
        time.sleep(0.1)


def logged(table: Table, server: Server) -> list[str]:
    status, history = server.call("GET", f"/api/tables/{table.code}/history")
    assert status == 200
    return [entry["id"] for entry in history["events"]]


WRITES_PER_MINUTE = 8  # more than any test here writes on one table, but the one about them


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """Two workers on SQLite, with the default limits but a table's writes: 8 a minute."""
    folder = tmp_path_factory.mktemp("faults")
    env = server_env(folder / "instance", ARBITRE_TABLE_WRITES_PER_MINUTE=str(WRITES_PER_MINUTE))
    with Server(env, folder / "serve.log", workers=2) as server:
        yield server


# --- the database fails -----------------------------------------------------------------------------


def test_postgresql_down_is_503_unavailable_then_nothing_acknowledged_is_lost(postgres, tmp_path):
    name = postgres.create_database("down")
    env = server_env(tmp_path / "instance", postgres.url(name))
    server = Server(env, tmp_path / "serve.log", workers=2).started()
    try:
        table = Table(server)
        acknowledged = [table.tap(server)["version"] for _ in range(3)]
        assert acknowledged == [1, 2, 3]
        with postgres.connect() as admin:
            admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
            )
        try:
            write = json.dumps({"id": "while-down", "type": "touched_early", "player": "p3"}).encode()
            referee = {"Content-Type": "application/json", "Authorization": f"Bearer {table.secret}"}
            stranger = {**referee, "Authorization": "Bearer not-the-secret"}
            prefix = f"/api/tables/{table.code}"
            for _ in range(5):  # many requests: still one line in the log per process
                for method, path, body in [
                    ("GET", prefix, None),
                    ("GET", f"{prefix}/log", None),
                    ("GET", f"{prefix}/history?limit=50", None),
                    ("GET", f"{prefix}/stream", None),
                    ("POST", f"{prefix}/events", write),
                    ("POST", f"{prefix}/undo", b"{}"),
                    ("POST", "/api/tables", json.dumps({"game": "morto", "players": PLAYERS}).encode()),
                    ("GET", f"/t/{table.code}", None),
                    ("GET", "/api/tables/NOPE42", None),
                ]:
                    unavailable(request(server, method, path, body, referee if body else None))
                unavailable(request(server, "POST", f"{prefix}/events", write, stranger))
        finally:
            with postgres.connect() as admin:
                admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        assert when_back(server, prefix) == 200
        status, answer = server.call("POST", f"{prefix}/events", json.loads(write), table.secret)
        assert status == 201 and answer["version"] == 4
        status, again = server.call("POST", f"{prefix}/events", json.loads(write), table.secret)
        assert status == 201 and again == answer  # the retry is answered, not applied twice
        assert logged(table, server) == ["tap-1", "tap-2", "tap-3", "while-down"]
    finally:
        server.stop()
    log = server.output()
    assert "unexpected error" not in log  # no 500
    assert 1 <= log.count("database unavailable") <= 2, log  # once per worker, not per request


@contextlib.contextmanager
def no_room_to_write(server: Server):
    """Every write to a file by the server's workers fails (their file-size limit is one byte), as
    on a full disk; lifted at the end."""
    pids = server.worker_pids()
    assert pids
    _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    for pid in pids:
        resource.prlimit(pid, resource.RLIMIT_FSIZE, (1, hard))
    try:
        yield
    finally:
        for pid in pids:
            resource.prlimit(pid, resource.RLIMIT_FSIZE, (hard, hard))


def test_sqlite_that_cannot_write_refuses_writes_with_503_and_keeps_reading(plain):
    logged_before = len(plain.log.read_text(errors="replace"))
    table = Table(plain)
    table.tap(plain)
    prefix = f"/api/tables/{table.code}"
    write = {"id": "while-full", "type": "touched_early", "player": "p3"}
    referee = {"Content-Type": "application/json", "Authorization": f"Bearer {table.secret}"}
    with no_room_to_write(plain):
        for _ in range(3):  # whichever process takes it
            unavailable(request(plain, "POST", f"{prefix}/events", json.dumps(write).encode(), referee))
        status, seen = plain.call("GET", prefix)  # reads need no room
        assert status == 200 and seen["version"] == 1
        status, log = plain.call("GET", f"{prefix}/log")
        assert status == 200 and [e["id"] for e in log["events"]] == ["tap-1"]
    status, answer = plain.call("POST", f"{prefix}/events", write, table.secret)
    assert status == 201 and answer["version"] == 2
    assert plain.call("POST", f"{prefix}/events", write, table.secret) == (201, answer)
    assert logged(table, plain) == ["tap-1", "while-full"]
    assert "unexpected error" not in plain.log.read_text(errors="replace")[logged_before:]


def test_a_database_error_is_logged_once_a_minute_not_per_request(app, client, make_table, caplog):
    """Through a public hook of sqlite3 (a progress handler that interrupts every statement, set on
    each new connection), then PostgreSQL refusing every new connection: 503 ``unavailable``, pages
    in text, one line in the log."""
    from companion.storage.models import db
    from companion.web import errors

    table = make_table()
    errors.OUTAGE.logged_at = None
    with app.app_context():
        engine = db.engine
    if engine.dialect.name == "sqlite":

        def broken(dbapi_connection, _record) -> None:
            dbapi_connection.set_progress_handler(lambda: 1, 1)

        event.listen(engine, "connect", broken)
    else:

        def broken(_dialect, _record, cargs, cparams) -> None:
            cparams["port"] = 1  # nothing listens there

        event.listen(engine, "do_connect", broken)
    engine.dispose()
    with caplog.at_level("ERROR", logger="companion.web.errors"):
        for _ in range(4):
            answer = client.get(f"/api/tables/{table.code}")
            unavailable((answer.status_code, dict(answer.headers), answer.data))
            answer = client.get(f"/t/{table.code}")
            unavailable((answer.status_code, dict(answer.headers), answer.data))
    lines = [record for record in caplog.records if record.name == "companion.web.errors"]
    assert len(lines) == 1 and "database unavailable" in lines[0].getMessage()
    assert lines[0].exc_info is None  # one line, no traceback


# --- requests the server cannot take whole -------------------------------------------------------


def test_a_tables_writes_a_minute_are_counted_across_the_servers_processes(plain):
    table = Table(plain)
    for _ in range(3):  # a minute that ends during the writes counts them in two windows: again
        minute = time.time() // 60
        statuses = []
        for n in range(2 * WRITES_PER_MINUTE):  # a new connection each: both processes take some
            body = {"id": f"w{minute}-{n}", "type": "touched_early", "player": f"p{2 + n % 4}"}
            statuses.append(plain.call("POST", f"/api/tables/{table.code}/events", body, table.secret)[0])
        if time.time() // 60 == minute:
            break
    assert statuses == [201] * WRITES_PER_MINUTE + [429] * WRITES_PER_MINUTE, statuses


def chunked(path: str, body: bytes, extra: bytes = b"") -> bytes:
    head = f"POST {path} HTTP/1.1\r\nHost: arbitre\r\nContent-Type: application/json\r\n"
    head += "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    return head.encode() + b"%x\r\n" % len(body) + body + b"\r\n" + extra + b"0\r\n\r\n"


def raw(server: Server, data: bytes) -> tuple[int, dict, bytes]:
    from tests.test_slow_clients import answer, connect

    sock = connect(server.port, "127.0.0.1")
    sock.sendall(data)
    status, headers, body = answer(sock)
    assert status is not None
    return status, headers, body


def new_table(padding: int) -> bytes:
    return json.dumps({"game": "morto", "players": PLAYERS, "options": {}}).encode() + b" " * padding


def test_a_chunked_body_over_64_kib_is_413(plain):
    limit = 64 * 1024
    exact = new_table(limit - len(new_table(0)))
    assert len(exact) == limit
    status, headers, body = raw(plain, chunked("/api/tables", exact))
    assert status == 201, body[:300]
    status, headers, body = raw(plain, chunked("/api/tables", exact + b" "))
    error = refusal(status, headers, body)
    assert status == 413 and error["code"] == "too_large" and error["params"] == {"max": limit}
    assert headers["Connection"] == "close"  # what is left of the body is not read


def test_a_malformed_chunked_body_is_400(plain):
    data = chunked("/api/tables", b"{", extra=b"zz\r\n")
    status, headers, body = raw(plain, data)
    assert status == 400 and refusal(status, headers, body)["code"] == "bad_request"


@pytest.mark.parametrize(
    "path, head, status, code",
    [
        ("/api/tables/" + "A" * 5000, "", 414, "too_long"),
        ("/t/" + "A" * 5000, "", 414, "too_long"),
        ("/api/tables/ZZZZZZ", "X-Big: " + "a" * 9000 + "\r\n", 431, "headers_too_large"),
        ("/", "X-Big: " + "a" * 9000 + "\r\n", 431, "headers_too_large"),
    ],
    ids=["api-url", "page-url", "api-headers", "page-headers"],
)
def test_a_request_too_long_to_parse_is_refused_in_the_apps_shape(plain, path, head, status, code):
    answer = raw(plain, f"GET {path} HTTP/1.1\r\nHost: arbitre\r\n{head}\r\n".encode())
    assert answer[0] == status
    params = {"max": 4094} if status == 414 else {}
    if path.startswith("/api/"):
        assert refusal(*answer)["code"] == code
    else:
        assert answer[1]["Content-Type"].startswith("text/plain")
        assert answer[2].decode() == f"{text(code, params, 'fr')}\n{text(code, params, 'en')}\n"
    assert answer[1]["Content-Security-Policy"] and answer[1]["X-Content-Type-Options"] == "nosniff"


def test_chunked_bodies_through_the_app_alone(client):
    """The same limit in the app, whatever server runs it (werkzeug stops reading at the limit
    without a word: the app asks for one byte more)."""
    limit = 64 * 1024
    exact = new_table(limit - len(new_table(0)))
    environ = {"wsgi.input_terminated": True}
    for body, status in [(exact, 201), (exact + b" ", 413)]:
        answer = client.post(
            "/api/tables",
            input_stream=io.BytesIO(body),
            headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
            environ_overrides=environ,
        )
        assert answer.status_code == status, answer.get_data(as_text=True)[:300]


# --- the QR code's address ---------------------------------------------------------------------------


def test_the_qr_never_publicly_caches_an_address_taken_from_host(plain):
    table = Table(plain)
    path = f"/api/tables/{table.code}/qr.svg"
    status, headers, body = request(plain, "GET", path, headers={"Host": "evil.example:666"})
    assert status == 200
    assert body == svg(f"http://evil.example:666/t/{table.code}")  # the asker's own address...
    assert headers["Cache-Control"] == "private, max-age=3600"  # ...never kept for anyone else


def test_the_qr_of_a_deployment_with_a_public_url_encodes_it_whatever_the_host(app, client, make_table):
    public = "https://arbitre.example.org/jeux"
    app.config["PUBLIC_URL"] = public + "/"
    table = make_table()
    qr = client.get(f"/api/tables/{table.code}/qr.svg", headers={"Host": "evil.example:666"})
    assert qr.status_code == 200
    assert qr.data == svg(f"{public}/t/{table.code}")
    assert qr.headers["Cache-Control"] == "public, max-age=3600"
    page = client.get(f"/t/{table.code}/qr", headers={"Host": "evil.example"})
    assert page.status_code == 200 and f'href="{public}/t/{table.code}"' in page.get_data(as_text=True)
    ET.fromstring(qr.data)  # an SVG document
