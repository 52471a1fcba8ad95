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
- Open streams per address are counted across workers in memory the arbiter maps before forking:
  one row of counters per worker, written only by that worker, read by all; a dead worker's row
  is cleared by the arbiter.
- The soft limit on open files is raised to the hard one: each stream is a socket.
"""

from __future__ import annotations

import argparse
import fcntl
import mmap
import os
import resource
import sqlite3
import threading
import time
import zlib

from gunicorn.app.base import BaseApplication

# Database connections a worker keeps (and as many more at a peak): a worker's taps read their table
# at once, dozens in flight under gevent; fewer kept would open and drop a connection (a process, on
# PostgreSQL) for every burst. PostgreSQL's max_connections must cover 2 x POOL_SIZE per worker.
POOL_SIZE = 20
FILES_KEPT = 200  # descriptors a worker keeps for the database, logs and the bus, beyond its streams


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


class SharedCounts:
    """Open streams per address, summed over the workers (one row each, in shared memory).

    Addresses are hashed to one of ``SLOTS`` counters: two addresses sharing a slot share its cap,
    which with 65,536 slots is rare and costs only a stricter cap for those two.
    """

    SLOTS = 65536

    def __init__(self, rows: int):
        self.rows = rows
        self.memory = mmap.mmap(-1, rows * self.SLOTS * 2)  # anonymous and shared with forked children
        self.table = memoryview(self.memory).cast("H")
        self.free = list(range(rows))
        self.row: int | None = None  # this worker's row, once forked

    def claim(self) -> int | None:
        return self.free.pop(0) if self.free else None

    def clear(self, row: int | None) -> None:
        if row is None:
            return
        self.memory[row * self.SLOTS * 2 : (row + 1) * self.SLOTS * 2] = bytes(self.SLOTS * 2)
        self.free.append(row)

    def _slot(self, address: str) -> int:
        return zlib.crc32(address.encode()) % self.SLOTS

    def admit(self, address: str, cap: int) -> bool:
        slot = self._slot(address)
        if sum(self.table[row * self.SLOTS + slot] for row in range(self.rows)) >= cap:
            return False
        index = self.row * self.SLOTS + slot
        self.table[index] = min(self.table[index] + 1, 0xFFFF)
        return True

    def release(self, address: str) -> None:
        index = self.row * self.SLOTS + self._slot(address)
        if self.table[index]:
            self.table[index] -= 1


class CooperativeSQLite(sqlite3.Connection):
    """A SQLite connection whose writes and commits run in gevent's thread pool.

    A commit with ``synchronous=FULL`` waits for an fsync (milliseconds), and a write may wait for
    another process's write lock; in the worker's own thread either would freeze its event loop,
    every follower and every other tap with it. So the commit runs in a pool thread (sqlite3
    releases the GIL while it waits, and the loop runs on meanwhile), and so does the wait for the
    write lock. Reads stay where they are: they are served from the page cache and never wait for
    a lock in WAL mode.

    The write lock: one write transaction at a time per process (SQLite allows one at a time
    anyway), a greenlet waiting for its turn without a thread; between processes, a lock on a file
    beside the database (``flock``), taken before SQLite's own, whose waiter is woken the moment
    the other process commits (SQLite's busy handler would poll, sleeping 1 to 100 ms between
    tries). Once it is held no other server process can be writing, so the writes themselves
    (pages changed in memory and appended to the WAL, no fsync) run at once, in the loop.
    """

    # companion.models applies its pragmas (WAL, synchronous, busy_timeout) to connections of sqlite3's
    # own module: this one is sqlite3's connection too, its writes merely wait in a thread.
    __module__ = "sqlite3.cooperative"
    _turn = None  # this process's write turn, made after gevent's patch

    _locks: dict = {}  # (process, database) -> the descriptor of its write lock, opened once

    def __init__(self, database, *args, **kwargs):
        super().__init__(database, *args, **kwargs)
        self.writing = False
        key = (os.getpid(), os.fspath(database))
        if key not in CooperativeSQLite._locks:
            CooperativeSQLite._locks[key] = os.open(f"{key[1]}.write-lock", os.O_RDWR | os.O_CREAT, 0o600)
        self.lock = CooperativeSQLite._locks[key]

    def cursor(self, factory=None):
        return super().cursor(factory or CooperativeCursor)

    def begin_write(self) -> None:
        if not self.writing:
            if CooperativeSQLite._turn is None:
                import gevent.lock

                CooperativeSQLite._turn = gevent.lock.Semaphore()
            CooperativeSQLite._turn.acquire()
            try:
                try:
                    fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:  # another process is writing: wait for it in a thread
                    _in_thread(fcntl.flock, self.lock, fcntl.LOCK_EX)
            except BaseException:
                CooperativeSQLite._turn.release()
                raise
            self.writing = True

    def end_write(self) -> None:
        if self.writing:
            self.writing = False
            try:
                fcntl.flock(self.lock, fcntl.LOCK_UN)
            finally:
                CooperativeSQLite._turn.release()

    def commit(self) -> None:
        try:
            _in_thread(super().commit)
        finally:
            self.end_write()

    def rollback(self) -> None:
        try:
            super().rollback()
        finally:
            self.end_write()

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.end_write()


class CooperativeCursor(sqlite3.Cursor):
    def execute(self, sql, parameters=()):
        if sql.lstrip()[:6].upper() in ("INSERT", "UPDATE", "DELETE"):
            self.connection.begin_write()
        return super().execute(sql, parameters)


def _in_thread(function, *args):
    import gevent

    return gevent.get_hub().threadpool.apply(function, args)


def cooperative_sqlite(app) -> None:
    """Open the app's SQLite connections as :class:`CooperativeSQLite` (psycopg is cooperative already)."""
    from sqlalchemy import event

    from companion.models import db

    with app.app_context():
        engine = db.engine
    if engine.dialect.name != "sqlite":
        return

    @event.listens_for(engine, "do_connect")
    def _connect(dialect, record, cargs, cparams) -> None:
        cparams.update(factory=CooperativeSQLite, check_same_thread=False)


class Server(BaseApplication):
    """gunicorn, configured in code; the Flask app is made in each worker, after gevent's patch."""

    def __init__(self, host: str, port: int, workers: int, streams_per_address: int | None):
        self.host, self.port, self.workers = host, port, workers
        self.streams_per_address = streams_per_address
        self.connections = max(100, raise_open_files() - FILES_KEPT)
        self.counts = SharedCounts(2 * workers + 2)  # room for replacements forked before a reap
        super().__init__()

    def load_config(self) -> None:
        bind = f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"
        settings = {
            "bind": [bind],
            "workers": self.workers,
            "worker_class": "gevent",
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
        from companion import bus, create_app, live

        config = {
            "LIVE_STREAMS_PER_PROCESS": self.connections - max(100, self.connections // 10),
            # Many requests of one worker wait for the database at once: connections kept open
            # rather than made and dropped for every burst (a PostgreSQL connection is a process).
            "SQLALCHEMY_ENGINE_OPTIONS": {"pool_size": POOL_SIZE, "max_overflow": POOL_SIZE},
        }
        if self.streams_per_address is not None:
            config["LIVE_STREAMS_PER_ADDRESS"] = self.streams_per_address
        app = create_app(config)
        cooperative_sqlite(app)
        if self.counts.row is not None:
            live.hub(app).counts = self.counts
        bus.for_app(app).start()
        return app

    # --- hooks (arbiter: pre_fork, child_exit; worker: the others) --------------------------------

    def _pre_fork(self, server, worker) -> None:
        worker.arbitre_row = self.counts.claim()

    def _post_fork(self, server, worker) -> None:
        self.counts.row = worker.arbitre_row

    def _child_exit(self, server, worker) -> None:
        self.counts.clear(getattr(worker, "arbitre_row", None))

    def _post_worker_init(self, worker) -> None:
        from companion import live

        def end_streams_on_stop() -> None:
            while worker.alive:
                time.sleep(0.5)
            live.hub(worker.wsgi).close()

        threading.Thread(target=end_streams_on_stop, name="stop-watch", daemon=True).start()

    def _worker_exit(self, server, worker) -> None:
        from companion import bus

        app = getattr(worker, "wsgi", None)
        if app is not None:
            bus.for_app(app).stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="companion-server")
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--streams-per-address", type=int, default=None)
    args = parser.parse_args(argv)
    Server(args.host, args.port, args.workers, args.streams_per_address).run()
