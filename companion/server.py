"""The production server that ``companion serve`` runs: gunicorn's arbiter with gevent workers.

A phone following a table is an idle connection for as long as it watches, so each worker is one
gevent event loop in which a follower costs a greenlet and a socket, not a thread. Several workers
(one per core by default, at least two) share the listening socket.

- gevent must patch the standard library before anything that picks its waiting strategy at import
  (psycopg chooses its wait function then). gunicorn's gevent worker patches first thing in the
  worker, before it loads the app; this process (the arbiter) imports only gunicorn, Flask and
  SQLAlchemy, never psycopg and never a database connection, which ``companion serve`` ends with
  ``exec`` before it gets here.
- Each worker starts the live bus of its app (LISTEN/NOTIFY on PostgreSQL, datagrams on SQLite)
  and ends its streams when it is told to stop, so a restart takes a second, not the streams' life.
- Open streams and connections per address, and each table's writes this minute, are counted
  across workers in memory the arbiter maps before forking (`companion.live.counters`): one row of
  counters per worker, written only by that worker, read by all; a dead worker's row is cleared by
  the arbiter.
- The worker (`Worker`) holds against strangers: connections per address capped, a request's body
  and head read within deadlines, and what gunicorn cannot parse refused in the app's own shape.
- The soft limit on open files is raised to the hard one: each stream is a socket.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import resource
import socket
import threading
import time
from http import HTTPStatus

import gevent
from gunicorn.app.base import BaseApplication
from gunicorn.http import errors as http_errors
from gunicorn.util import write_nonblock
from gunicorn.workers.ggevent import GeventWorker
from werkzeug.exceptions import BadRequest, RequestTimeout

from companion.live.counters import SharedCounts, SharedRows, SharedWindows
from companion.storage.sqlite import cooperative_sqlite

# Database connections a worker keeps (and as many more at a peak): a worker's taps read their table
# at once, dozens in flight under gevent; fewer kept would open and drop a connection (a process, on
# PostgreSQL) for every burst. PostgreSQL's max_connections must cover 2 x POOL_SIZE per worker.
POOL_SIZE = 20
FILES_KEPT = 200  # descriptors a worker keeps for the database, logs and the bus, beyond its streams
RETRY_AFTER_SECONDS = 5  # what a connection refused for its address is told to wait
BUSY_SHARE = 0.9  # a worker holding this share of its connections is busy...
BUSY_SECONDS = 1.0  # ...and gives a request's head, and its body, this long at most


def default_workers() -> int:
    """One event loop per core, at least two: a worker never waits with its loop held (SQLite's writes
    wait in threads, psycopg waits cooperatively), so more workers than cores would only add
    switches, memory and reads of each new version."""
    return max(2, os.cpu_count() or 1)


def raise_open_files() -> int:
    """Raise the soft limit on open files to the hard limit; the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = max(soft, 65536)
    if soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft


class Peer:
    """A client's socket, remembering how the request being read began: a request refused before
    it could be parsed (a URL or headers too long) is answered in the API's shape when it was
    for ``/api/``. Everything else is the socket's own."""

    def __init__(self, sock):
        self.sock = sock
        self.start = b""
        self.next = True  # the next bytes received begin a request

    def recv(self, *args):
        data = self.sock.recv(*args)
        if self.next and data:
            self.start, self.next = data[:64], False
        return data

    def answered(self) -> None:
        self.next = True

    def for_api(self) -> bool:
        target = self.start.split(b" ", 2)[1:2]
        return not target or target[0].startswith(b"/api/")  # unknown: the API's shape

    def __getattr__(self, name):
        return getattr(self.sock, name)


class Body:
    """A request's body that must arrive within ``seconds`` of its head, or within one second while
    its worker is busy (`Worker.waiting`): a sender too slow gets ``408 too_slow`` (werkzeug's
    ``RequestTimeout``, answered by the app's error handler, with the seconds it had) and its
    connection is closed, instead of holding a worker's connection for as long as it likes. A
    malformed chunked body is a ``400``, not a bug; and once more than ``most`` bytes were read
    (a chunked body past the limit, refused 413), the connection closes rather than drain the rest."""

    def __init__(self, body, request, seconds: float, most: int, worker: Worker):
        self.body, self.request, self.seconds, self.most, self.worker = body, request, seconds, most, worker
        self.started = time.monotonic()
        self.received = 0

    def read(self, size=None) -> bytes:
        return self._within(self.body.read, size)

    def readline(self, size=None) -> bytes:
        return self._within(self.body.readline, size)

    def readlines(self, hint=None) -> list[bytes]:
        return list(self)

    def __iter__(self):
        return iter(self.readline, b"")

    def _within(self, read, size) -> bytes:
        timer = gevent.Timeout(max(self.started + self.seconds - time.monotonic(), 0.001))
        try:
            with self.worker.waiting(timer, self.started):
                data = read(size)
        except gevent.Timeout as error:
            if error is not timer:
                raise
            self.request.force_close()
            too_slow = RequestTimeout()
            cut = time.monotonic() - self.started < self.seconds  # by a busy worker (`Worker._sweep`)
            too_slow.seconds = BUSY_SECONDS if cut else self.seconds
            raise too_slow from None
        except http_errors.ParseException:
            self.request.force_close()
            raise BadRequest() from None
        self.received += len(data)
        if self.received > self.most:
            self.request.force_close()
        return data


class Worker(GeventWorker):
    """gunicorn's gevent worker, made to hold against strangers:

    - **Connections per address** are capped (``CONNECTIONS_PER_ADDRESS``), counted across the
      workers (`SharedCounts`): past the cap a connection is answered ``429 too_many_connections``
      at once and closed, before anything is read, so that one address cannot take every
      connection a worker may hold.
    - **Deadlines**: a request's head must arrive within gunicorn's keep-alive time (``timeout_ctx``,
      5 s, which also bounds the wait for a next request), and its body within ``BODY_SECONDS`` of
      its head (`Body`). A worker holding nine tenths of its connections is *busy*: every head or
      body it has waited for longer than a second (``BUSY_SECONDS``) is then cut (`_sweep`), so
      that slow senders from many addresses, each under its cap, cannot hold it full for long.
    - **Refusals in the API's shape**: a request gunicorn cannot parse (a URL or headers too long,
      a malformed request line) is answered like every other refusal, JSON under ``/api/``,
      instead of gunicorn's own HTML page.
    """

    holding = 0  # connections this worker holds (those refused at once not counted)
    waits: dict  # greenlet -> (its timer, since when) of each head or body being waited for

    def handle(self, listener, client, addr):
        address = addr[0] if isinstance(addr, tuple) and addr else "?"
        clients = self.app.clients if self.app.clients.row is not None else None
        cap = self.wsgi.config["CONNECTIONS_PER_ADDRESS"]
        if clients is not None and not clients.admit(address, cap):
            _refuse(
                client, 429, "too_many_connections", {"max": cap}, api=True, retry_after=RETRY_AFTER_SECONDS
            )
            client.close()
            return
        self.holding += 1
        try:
            super().handle(listener, Peer(client), addr)
        finally:
            self.holding -= 1
            if clients is not None:
                clients.release(address)

    def busy(self) -> bool:
        return self.holding >= BUSY_SHARE * self.worker_connections

    def run(self):
        self.waits = {}
        gevent.spawn(self._sweep)
        super().run()

    @contextlib.contextmanager
    def waiting(self, timer: gevent.Timeout, since: float):
        """``timer`` bounds this greenlet's wait (started now, closed at the end), which `_sweep`
        may end sooner by raising the timer itself."""
        me = gevent.getcurrent()
        self.waits[me] = (timer, since)
        try:
            with timer:
                yield
        finally:
            self.waits.pop(me, None)

    def timeout_ctx(self):
        """The wait for a request's head (and for the next one on a kept-alive connection)."""
        return self.waiting(gevent.Timeout(self.cfg.keepalive, False), time.monotonic())

    def _sweep(self) -> None:
        """While the worker is busy, every head or body waited for longer than ``BUSY_SECONDS`` is cut
        (its own timer raised in it: the connection closed, a body's sender told 408)."""
        while self.alive:
            gevent.sleep(BUSY_SECONDS / 2)
            if not self.busy():
                continue
            now = time.monotonic()
            for greenlet, (timer, since) in list(self.waits.items()):
                if now - since >= BUSY_SECONDS:
                    gevent.get_hub().loop.run_callback(self._cut, greenlet, timer)

    def _cut(self, greenlet, timer: gevent.Timeout) -> None:
        """Raise ``timer`` where ``greenlet`` waits, if it still waits there: since the sweep saw it,
        its head may have come and its body be awaited under another timer. (From the loop, as
        gevent's own ``kill``: a greenlet thrown into from another would never be resumed.)"""
        if self.waits.get(greenlet, (None,))[0] is timer:
            del self.waits[greenlet]
            greenlet.throw(timer)

    def handle_request(self, listener_name, req, sock, addr):
        config, body = self.wsgi.config, req.body
        if _content_length(req) > config["MAX_CONTENT_LENGTH"]:
            req.force_close()  # refused unread (413): never drained
        req.body = Body(body, req, config["BODY_SECONDS"], config["MAX_CONTENT_LENGTH"], self)
        try:
            return super().handle_request(listener_name, req, sock, addr)
        finally:
            req.body = body  # what is left of it is drained (or the connection closed) by gunicorn
            sock.answered()

    def handle_error(self, req, client, addr, exc):
        if isinstance(exc, http_errors.LimitRequestLine):
            refusal = (414, "too_long", {"max": self.cfg.limit_request_line})
        elif isinstance(exc, http_errors.LimitRequestHeaders):
            refusal = (431, "headers_too_large", {})
        elif isinstance(exc, http_errors.ParseException) and not isinstance(
            exc, http_errors.ConfigurationProblem
        ):
            refusal = (400, "bad_request", {})
        else:
            return super().handle_error(req, client, addr, exc)
        self.log.info("refused %s from %s: %s", refusal[0], addr[0] if addr else "?", exc)
        api = client.for_api() if isinstance(client, Peer) else True
        _refuse(client, *refusal, api=api)


def _content_length(req) -> int:
    for name, value in req.headers:
        if name == "CONTENT-LENGTH":
            return int(value) if value.isdigit() else 0
    return 0


def _refuse(sock, status: int, code: str, params: dict, api: bool, retry_after: int | None = None) -> None:
    """A refusal the worker makes itself, before the app has a request (`_refusal`); then the
    connection is closed."""
    with contextlib.suppress(OSError):
        write_nonblock(sock, _refusal(status, code, tuple(params.items()), api, retry_after))
        sock.shutdown(socket.SHUT_WR)
        _drain(sock)


@functools.lru_cache(maxsize=64)
def _refusal(status: int, code: str, params: tuple, api: bool, retry_after: int | None) -> bytes:
    """The whole answer: the API's error body (in French, with both sentences: the request's
    languages are not read yet), or the two sentences as text for a page, and the security headers
    every answer carries. Made once per kind: a crowd of refused connections costs no more."""
    from companion.web.headers import HEADERS
    from engine.messages import refusal, text

    params = dict(params)
    if api:
        body = json.dumps({"error": refusal(code, params, "fr")}, separators=(",", ":")).encode()
        media = "application/json"
    else:
        body = "".join(text(code, params, lang) + "\n" for lang in ("fr", "en")).encode()
        media = "text/plain; charset=utf-8"
    head = [
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}",
        f"Content-Type: {media}",
        f"Content-Length: {len(body)}",
        "Connection: close",
        "Cache-Control: no-store",
        *(f"{name}: {value}" for name, value in HEADERS.items()),
        *([f"Retry-After: {retry_after}"] if retry_after else []),
    ]
    return "\r\n".join(head).encode() + b"\r\n\r\n" + body


def _drain(sock, most: int = 1 << 20) -> None:
    """Read what the client already sent, without waiting: a socket closed with unread bytes is
    reset, and the reset may reach the client before it has read the answer."""
    sock.setblocking(False)
    try:
        while most > 0 and (chunk := sock.recv(65536)):
            most -= len(chunk)
    except OSError:  # nothing more for now (or the client is gone)
        pass
    finally:
        sock.setblocking(True)


class Server(BaseApplication):
    """gunicorn, configured in code; the Flask app is made in each worker, after gevent's patch."""

    def __init__(
        self,
        host: str,
        port: int,
        workers: int,
        streams_per_address: int | None,
        connections_per_address: int | None = None,
    ):
        self.host, self.port, self.workers = host, port, workers
        self.streams_per_address = streams_per_address
        self.connections_per_address = connections_per_address
        self.connections = max(100, raise_open_files() - FILES_KEPT)
        rows = 2 * workers + 2  # room for replacements forked before a reap
        self.streams, self.clients, self.writes = SharedCounts(rows), SharedCounts(rows), SharedWindows(rows)
        self.free_rows = list(range(rows))
        super().__init__()

    def load_config(self) -> None:
        bind = f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"
        settings = {
            "bind": [bind],
            "workers": self.workers,
            "worker_class": Worker,
            "worker_connections": self.connections,
            "backlog": 4096,  # a crowd arriving at once (the kernel caps it at somaxconn)
            "keepalive": 5,
            "graceful_timeout": 10,
            "timeout": 60,
            "proc_name": "arbitre",
            "errorlog": "-",
            "loglevel": "info",
            "control_socket_disable": True,  # one per user by default: two servers would fight over it
            "pre_fork": self._pre_fork,
            "post_fork": self._post_fork,
            "post_worker_init": self._post_worker_init,
            "child_exit": self._child_exit,
            "worker_exit": self._worker_exit,
        }
        for key, value in settings.items():
            self.cfg.set(key, value)

    def load(self):
        from companion import create_app
        from companion.live import bus, streams
        from companion.web import limits

        config = {
            "LIVE_STREAMS_PER_PROCESS": self.connections - max(100, self.connections // 10),
            # Many requests of one worker wait for the database at once: connections kept open
            # rather than made and dropped for every burst (a PostgreSQL connection is a process).
            "SQLALCHEMY_ENGINE_OPTIONS": {"pool_size": POOL_SIZE, "max_overflow": POOL_SIZE},
        }
        if self.streams_per_address is not None:
            config["LIVE_STREAMS_PER_ADDRESS"] = self.streams_per_address
        if self.connections_per_address is not None:
            config["CONNECTIONS_PER_ADDRESS"] = self.connections_per_address
        app = create_app(config)
        cooperative_sqlite(app)
        if self.streams.row is not None:
            streams.hub(app).counts = self.streams
            limits.install_windows(app, self.writes)
        bus.for_app(app).start()
        return app

    # --- hooks (arbiter: pre_fork, child_exit; worker: the others) --------------------------------

    def _shared(self) -> tuple[SharedRows, ...]:
        return self.streams, self.clients, self.writes

    def _pre_fork(self, server, worker) -> None:
        worker.arbitre_row = self.free_rows.pop(0) if self.free_rows else None

    def _post_fork(self, server, worker) -> None:
        for shared in self._shared():
            shared.row = worker.arbitre_row

    def _child_exit(self, server, worker) -> None:
        row = getattr(worker, "arbitre_row", None)
        if row is not None:
            for shared in self._shared():
                shared.clear(row)
            self.free_rows.append(row)

    def _post_worker_init(self, worker) -> None:
        from companion.live import streams

        def end_streams_on_stop() -> None:
            while worker.alive:
                time.sleep(0.5)
            streams.hub(worker.wsgi).close()

        threading.Thread(target=end_streams_on_stop, name="stop-watch", daemon=True).start()

    def _worker_exit(self, server, worker) -> None:
        from companion.live import bus

        app = getattr(worker, "wsgi", None)
        if app is not None:
            bus.for_app(app).stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="companion-server")
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--streams-per-address", type=int, default=None)
    parser.add_argument("--connections-per-address", type=int, default=None)
    args = parser.parse_args(argv)
    Server(args.host, args.port, args.workers, args.streams_per_address, args.connections_per_address).run()
