"""The wake-up bus: once a write has committed, every server process following that table hears of it.

``store`` calls :func:`publish` after each commit that moved a table (its id, the new version and the
answer it gave); ``live`` subscribes to the app's :class:`Bus`. A message is only a wake-up: the
database stays the one truth, and a listener that hears of version ``v`` reads (or already holds)
the table's answers up to ``v``.

- Within one process, delivery is a function call: made at once by an app that never started its
  bus (the test client's); in the production server (``Bus.start``) by a thread of its own, in the
  order published, so that the write that published answers first (under gevent a tap waking a
  channel of 800 followers answered after most of their frames: docs/PERFORMANCE.md, issue 28).
- Between processes, a transport carries ``(table id, version)``, started by the production server
  for each worker (``Bus.start``) and never by the test client:

  * PostgreSQL: ``NOTIFY arbitre_live`` / ``LISTEN arbitre_live``, one listening connection and one
    sending connection per process, so several processes on several machines need no broker:
    the deployment's database is the bus. After a lost connection the listener reconnects and asks
    its subscribers to catch up from the database (a notification sent meanwhile is not replayed).
  * SQLite (one machine by nature): one Unix datagram socket per process, in a directory named
    after the database file; a sender writes one datagram to each socket it finds there. No
    process polls the database, and a process that died leaves a socket nobody reads, which the
    next sender removes. A process too busy to read in time (its queue of datagrams full for
    ``SEND_TIMEOUT_SECONDS``) is sent its wake-ups again, merged with those that came meanwhile:
    dropped, the last version of a table would never reach its followers there.

The tap never waits for a transport: :func:`publish` hands the message to a sending thread (a
greenlet under gevent) and returns.

One other message rides the same way: :func:`publish_rematch`, a finished table's rematch (its new
code), which changes no version; it is ``(table id, "r", code)`` where a wake-up has its version.
"""

from __future__ import annotations

import hashlib
import logging
import os
import queue
import socket
import tempfile
import threading
import time
import uuid
from pathlib import Path

from flask import Flask, current_app
from sqlalchemy.engine import make_url

from companion.storage.store import serialized

CHANNEL = "arbitre_live"
EXTENSION = "arbitre.bus"
BATCH = 500  # messages per NOTIFY statement or datagram: a datagram stays far below the socket's limit
RECONNECT_SECONDS = 1.0
FAILURES_LOGGED_EVERY = 60.0  # seconds between two lines about the listening connection failing
SEND_TIMEOUT_SECONDS = 2.0
NOTIFY_BYTES = 7999  # PostgreSQL's limit on a notification's payload is 8,000 bytes

log = logging.getLogger(__name__)


def publish(table_id: int, version: int, answer: dict, data: str | None = None) -> None:
    """Tell every follower of the table, in this process and in the others, that ``version`` exists
    (``data``: the answer already `serialized`, if the writer has it)."""
    bus = current_app.extensions.get(EXTENSION)
    if bus is not None:
        bus.publish(table_id, version, answer, data)


REMATCH = "r"  # in a message's version field: the message tells a rematch, its data the new code


def publish_rematch(table_id: int, rematch: str) -> None:
    """Tell every follower of the table, here and in the other processes, where its rematch is."""
    bus = current_app.extensions.get(EXTENSION)
    if bus is not None:
        if bus.local is not None:  # after the wake-ups published before it, as they were
            bus.local.put((table_id, REMATCH, rematch))
        else:
            bus.rematched(table_id, rematch)
        if bus.transport is not None:
            bus.transport.outbox.put((table_id, REMATCH, rematch))


def for_app(app: Flask) -> Bus:
    """The app's bus, made on first use."""
    if EXTENSION not in app.extensions:
        app.extensions[EXTENSION] = Bus(app)
    return app.extensions[EXTENSION]


class Bus:
    """Subscribers in this process, and the transport to the other processes once started.

    A subscriber has ``wake(table_id, version, data)`` (``data`` is the answer serialized once by
    the process that wrote it, or None when a message came without it) and ``catch_up()``
    (messages may have been lost: read what changed), and may have ``rematched(table_id, code)``.
    """

    def __init__(self, app: Flask):
        self.app = app
        self.subscribers: list = []
        self.transport: _Transport | None = None
        self.local: queue.Queue | None = None  # this process's wake-ups, once `start` made their thread

    def subscribe(self, subscriber) -> None:
        self.subscribers.append(subscriber)

    def publish(self, table_id: int, version: int, answer: dict, data: str | None = None) -> None:
        data = data if data is not None else serialized(answer)
        if self.local is not None:
            self.local.put((table_id, version, data))
        else:
            self.deliver(table_id, version, data)
        if self.transport is not None:
            self.transport.outbox.put((table_id, version, data))

    def deliver(self, table_id: int, version: int, data: str | None = None) -> None:
        for subscriber in self.subscribers:
            subscriber.wake(table_id, version, data)

    def rematched(self, table_id: int, rematch: str) -> None:
        for subscriber in self.subscribers:
            if hasattr(subscriber, "rematched"):
                subscriber.rematched(table_id, rematch)

    def catch_up(self) -> None:
        for subscriber in self.subscribers:
            subscriber.catch_up()

    def start(self) -> None:
        """Deliver this process's messages from a thread of their own; start carrying messages to and
        from the other processes on the same database."""
        if self.local is None:
            self.local = queue.Queue()
            threading.Thread(
                target=self._delivering, args=(self.local,), name="bus-local", daemon=True
            ).start()
        if self.transport is not None:
            return
        url = make_url(self.app.config["SQLALCHEMY_DATABASE_URI"])
        if url.get_backend_name() == "postgresql":
            self.transport = _Postgres(self, url.set(drivername="postgresql").render_as_string(False))
        elif url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
            self.transport = _Datagrams(self, Path(url.database).resolve())
        else:
            return
        self.transport.start()

    def stop(self) -> None:
        if self.local is not None:
            self.local.put(None)
            self.local = None
        if self.transport is not None:
            self.transport.stop()
            self.transport = None

    def _delivering(self, local: queue.Queue) -> None:
        """This process's wake-ups, in the order published, once their writer has moved on."""
        while (item := local.get()) is not None:
            table_id, version, data = item
            try:
                if version == REMATCH:
                    self.rematched(table_id, data)
                else:
                    self.deliver(table_id, version, data)
            except Exception:  # a subscriber's fault costs its followers a delay, never the next wake-ups
                log.exception("live bus: could not deliver a wake-up in this process")


class _Transport:
    """A sending thread that drains ``outbox`` in batches, and a listening thread."""

    def __init__(self, bus: Bus):
        self.bus = bus
        self.outbox: queue.Queue = queue.Queue()
        self.stopping = threading.Event()
        self.threads: list[threading.Thread] = []

    def start(self) -> None:
        for target in (self._sending, self._listening):
            thread = threading.Thread(target=target, name=f"bus{target.__name__}", daemon=True)
            thread.start()
            self.threads.append(thread)

    def stop(self) -> None:
        self.stopping.set()
        self.outbox.put(None)

    def _sending(self) -> None:
        while not self.stopping.is_set():
            first = self.outbox.get()
            if first is None:
                return
            batch = [first]
            while len(batch) < BATCH:
                try:
                    item = self.outbox.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    self.stopping.set()
                    break
                batch.append(item)
            try:
                self.send(batch)
            except Exception:  # a lost message costs a follower a delay, never the server
                log.exception("live bus: could not send %d wake-up(s)", len(batch))

    def _listening(self) -> None:
        logged_at = None  # a database down for an hour is one traceback a minute, not one a second
        while not self.stopping.is_set():
            try:
                self.listen()
            except Exception:
                if self.stopping.is_set():
                    return
                if logged_at is None or time.monotonic() - logged_at >= FAILURES_LOGGED_EVERY:
                    logged_at = time.monotonic()
                    log.exception("live bus: listening failed; again every %.0f s", RECONNECT_SECONDS)
                time.sleep(RECONNECT_SECONDS)

    def send(self, batch: list[tuple[int, int, str]]) -> None:
        raise NotImplementedError

    def listen(self) -> None:
        raise NotImplementedError


class _Postgres(_Transport):
    """LISTEN/NOTIFY: payload ``"<table id>:<version>:<sender>:<answer>"`` (a rematch:
    ``"<table id>:r:<sender>:<code>"``); a process skips its own.

    The answer rides along when it fits in a notification (8,000 bytes), so the other processes
    need no read of the database at all; a larger one is read from the table's log.
    """

    def __init__(self, bus: Bus, conninfo: str):
        super().__init__(bus)
        self.conninfo = conninfo
        self.me = uuid.uuid4().hex[:12]
        self.sender = None

    def send(self, batch: list[tuple[int, int, str]]) -> None:
        import psycopg

        payloads = []
        for table_id, version, data in batch:
            head = f"{table_id}:{version}:{self.me}:"
            payloads.append(head + data if len(head) + len(data) <= NOTIFY_BYTES else head)
        for attempt in range(2):  # once more on a fresh connection if the old one was lost
            try:
                if self.sender is None or self.sender.closed:
                    self.sender = psycopg.connect(self.conninfo, autocommit=True)
                    # A wake-up is not data: its transaction need not wait for a WAL flush (an fsync
                    # as long as a tap's), which would only slow the taps' own commits down.
                    self.sender.execute("SET synchronous_commit TO off")
                # The payloads as a binary array (%b): psycopg's text form escapes every quote of
                # every answer's JSON in Python, 46 times the cost for a batch of 20 answers.
                self.sender.execute(
                    "SELECT pg_notify(%s, p) FROM unnest(%b::text[]) AS p", (CHANNEL, payloads)
                )
                return
            except psycopg.OperationalError:
                if self.sender is not None:
                    self.sender.close()
                self.sender = None
                if attempt:
                    raise

    def listen(self) -> None:
        import psycopg

        with psycopg.connect(self.conninfo, autocommit=True) as connection:
            connection.execute(f"LISTEN {CHANNEL}")
            # Anything written while we were not listening (start, or a lost connection) is read now.
            self.bus.catch_up()
            while not self.stopping.is_set():
                for notice in connection.notifies(timeout=1.0):
                    table_id, version, sender, data = notice.payload.split(":", 3)
                    if sender == self.me:
                        continue
                    if version == REMATCH:
                        self.bus.rematched(int(table_id), data)
                    else:
                        self.bus.deliver(int(table_id), int(version), data or None)

    def stop(self) -> None:
        super().stop()
        if self.sender is not None:
            self.sender.close()


class _Datagrams(_Transport):
    """One Unix datagram socket per process in a directory shared by the processes of one database.

    The directory is in the temporary folder (a socket's path must fit in 107 bytes, which an
    instance folder may not), named after the database file's path and the user. Each peer has its
    own sending greenlet and queue, so a peer slow to read delays only its own wake-ups; what
    waits for it is merged (the newest version per table is all a wake-up needs to say), and what
    it did not take in time is merged again with what comes next and sent again.
    """

    def __init__(self, bus: Bus, database: Path):
        super().__init__(bus)
        digest = hashlib.sha256(str(database).encode()).hexdigest()[:16]
        self.folder = Path(tempfile.gettempdir()) / f"arbitre-live-{os.getuid()}-{digest}"
        self.path = self.folder / str(os.getpid())
        self.inbox: socket.socket | None = None
        self.peers: dict[str, queue.Queue] = {}

    def start(self) -> None:
        self.folder.mkdir(mode=0o700, exist_ok=True)
        self.path.unlink(missing_ok=True)  # a socket left by a dead process that had our pid
        self.inbox = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.inbox.bind(str(self.path))
        super().start()

    def stop(self) -> None:
        super().stop()
        self.path.unlink(missing_ok=True)
        for waiting in self.peers.values():
            waiting.put(None)
        if self.inbox is not None:
            self.inbox.close()

    def send(self, batch: list[tuple[int, int, str]]) -> None:
        # A wake-up goes without its answer (a read of SQLite is cheap); a rematch with its code.
        wakes = [
            (table_id, version) if version != REMATCH else (table_id, REMATCH, data)
            for table_id, version, data in batch
        ]
        for peer in os.listdir(self.folder):
            if peer != self.path.name:
                self._queue(peer).put(wakes)

    def _queue(self, peer: str) -> queue.Queue:
        if peer not in self.peers:
            self.peers[peer] = queue.Queue()
            threading.Thread(
                target=self._send_to, args=(peer, self.peers[peer]), name="bus-peer", daemon=True
            ).start()
        return self.peers[peer]

    def _send_to(self, peer: str, waiting: queue.Queue) -> None:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as outlet:
            outlet.settimeout(SEND_TIMEOUT_SECONDS)
            late = False  # the last send timed out
            while (batch := waiting.get()) is not None:
                newest: dict[int, int] = {}
                rematches = []
                for item in batch + [item for more in _drain(waiting) for item in more]:
                    if len(item) == 3:  # a rematch: "<table id>:r:<code>"
                        rematches.append(item)
                        continue
                    table_id, version = item
                    newest[table_id] = max(version, newest.get(table_id, version))
                items = [":".join(map(str, item)) for item in rematches]
                items += [f"{table_id}:{version}" for table_id, version in newest.items()]
                try:
                    for start in range(0, len(items), BATCH):
                        outlet.sendto(
                            " ".join(items[start : start + BATCH]).encode(), str(self.folder / peer)
                        )
                    late = False
                except (ConnectionRefusedError, FileNotFoundError):
                    (self.folder / peer).unlink(missing_ok=True)  # its process is gone
                    self.peers.pop(peer, None)
                    return
                except OSError as error:  # too busy to read within the timeout: again, with what comes
                    if not late:
                        log.warning(
                            "live bus: peer %s slow to take %d wake-up(s): %s", peer, len(items), error
                        )
                    late = True
                    # Sent again, whole: a wake-up or a rematch heard twice changes nothing.
                    waiting.put(rematches + list(newest.items()))

    def listen(self) -> None:
        while not self.stopping.is_set():
            message = self.inbox.recv(65536)
            for item in message.decode().split():
                table_id, version, *rematch = item.split(":")
                if version == REMATCH:
                    self.bus.rematched(int(table_id), rematch[0])
                else:
                    self.bus.deliver(int(table_id), int(version))


def _drain(waiting: queue.Queue) -> list:
    """Everything already waiting in the queue (a None, the stop signal, is put back)."""
    items = []
    while True:
        try:
            item = waiting.get_nowait()
        except queue.Empty:
            return items
        if item is None:
            waiting.put(None)
            return items
        items.append(item)
