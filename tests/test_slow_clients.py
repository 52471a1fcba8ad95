"""Slow senders and greedy addresses against the production server (``companion serve``).

A gevent worker holds a fixed number of connections (its open-file limit, less what it keeps for
itself): here one worker whose file limit is lowered to 256, so that it holds 100 (the least
``companion.server`` gives one). Before the server bounded them, a hundred bodies sent a byte now
and then took every one of those connections for as long as their senders liked, and every other
request waited in the kernel's backlog: the bystander below never got an answer.

- One address holds at most ``CONNECTIONS_PER_ADDRESS`` connections (20 here): the others are
  answered ``429 too_many_connections`` at once, and a bystander is answered.
- A body must arrive within ``BODY_SECONDS`` of its request's head (2 here), one second once the
  worker holds nine tenths of its connections: senders spread over several addresses fill the
  worker, each gets ``408 too_slow`` at its deadline, and the bystander waiting behind them is
  answered then. A head that never ends is dropped (gunicorn's keep-alive time, 5 s; one second on
  a busy worker), unanswered.

Nothing here asserts on timing: every read waits at most ``READ_SECONDS`` (a socket timeout), which
only bounds how long a broken server can hang the suite.
"""

from __future__ import annotations

import collections
import json
import resource
import socket

import pytest

from tests.support.http import READ_SECONDS
from tests.support.server import Server, server_env
from tests.test_live import Table

CONNECTIONS = 100  # what a worker holds with 256 open files (companion.server: at least 100)
PER_ADDRESS = 20
BODY_SECONDS = 2


def small_file_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """One worker on SQLite holding 100 connections, 20 per address, a body's deadline 2 s."""
    folder = tmp_path_factory.mktemp("slow")
    env = server_env(
        folder / "instance",
        ARBITRE_CONNECTIONS_PER_ADDRESS=str(PER_ADDRESS),
        ARBITRE_BODY_SECONDS=str(BODY_SECONDS),
    )
    with Server(env, folder / "serve.log", workers=1, preexec_fn=small_file_limit) as server:
        yield server


def connect(port: int, address: str) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=READ_SECONDS, source_address=(address, 0))


def slow_body(port: int, address: str) -> socket.socket:
    """A new table's request whose body has begun (one byte of a thousand) and goes no further."""
    sock = connect(port, address)
    head = "POST /api/tables HTTP/1.1\r\nHost: arbitre\r\nContent-Type: application/json\r\n"
    sock.sendall(head.encode() + b"Content-Length: 1000\r\n\r\n{")
    return sock


def answer(sock: socket.socket) -> tuple[int | None, dict, bytes]:
    """The status, headers and body the server sent before closing the connection (None: nothing)."""
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    finally:
        sock.close()
    if not received:
        return None, {}, b""
    head, _, body = received.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


def error_code(body: bytes) -> str:
    error = json.loads(body)["error"]
    assert set(error) == {"code", "message", "messages", "params"}
    assert error["messages"]["fr"] and error["messages"]["en"]
    return error["code"]


def test_one_address_cannot_take_every_connection(small):
    table = Table(small)
    greedy = [slow_body(small.port, "127.0.0.2") for _ in range(CONNECTIONS)]
    try:
        # The bystander, on another address, is answered while the greedy address holds its share.
        status, seen = small.call("GET", f"/api/tables/{table.code}")
        assert status == 200 and seen["code"] == table.code
    finally:
        answers = [answer(sock) for sock in greedy]
    statuses = collections.Counter(status for status, _headers, _body in answers)
    assert statuses == {429: CONNECTIONS - PER_ADDRESS, 408: PER_ADDRESS}, statuses
    for status, headers, body in answers:
        assert headers["Content-Type"].startswith("application/json")
        if status == 429:
            assert error_code(body) == "too_many_connections"
            assert json.loads(body)["error"]["params"] == {"max": PER_ADDRESS}
            assert headers["Retry-After"].isdigit()
        else:
            assert error_code(body) == "too_slow"
            assert json.loads(body)["error"]["params"] == {"seconds": BODY_SECONDS}


def test_slow_senders_are_cut_at_their_deadline_and_the_bystander_is_served(small):
    table = Table(small)
    endless_head = connect(small.port, "127.0.0.20")
    endless_head.sendall(b"GET /api/tables/ZZZZZZ HTTP/1.1\r\nHost: arbitre\r\nX-Slow: ")
    addresses = [f"127.0.0.{n}" for n in range(11, 11 + CONNECTIONS // PER_ADDRESS)]
    slow = [slow_body(small.port, address) for address in addresses for _ in range(PER_ADDRESS)]
    try:
        # Every connection the worker holds is a slow sender's: the bystander waits for their deadline.
        status, seen = small.call("GET", f"/api/tables/{table.code}")
        assert status == 200 and seen["code"] == table.code
    finally:
        answers = [answer(sock) for sock in slow]
    assert {status for status, _headers, _body in answers} == {408}
    assert {error_code(body) for _status, _headers, body in answers} == {"too_slow"}
    # A body begun once the worker was busy (nine tenths of its connections held) had one second.
    seconds = {json.loads(body)["error"]["params"]["seconds"] for _status, _headers, body in answers}
    assert 1 in seconds and seconds <= {1, BODY_SECONDS}, seconds
    assert all(headers["Connection"] == "close" for _status, headers, _body in answers)
    assert answer(endless_head)[0] is None  # dropped, unanswered, at gunicorn's keep-alive time
    status, _ = small.call("GET", f"/api/tables/{table.code}")
    assert status == 200
