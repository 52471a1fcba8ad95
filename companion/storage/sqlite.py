"""The SQLite connection of the production server: its writes and commits wait in gevent's thread
pool, never in the worker's event loop (`CooperativeSQLite`)."""

from __future__ import annotations

import fcntl
import os
import sqlite3

import gevent


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

    # companion.storage.models applies its pragmas (WAL, synchronous, busy_timeout) to connections of
    # sqlite3's own module: this one is sqlite3's connection too, its writes merely wait in a thread.
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
    """``function(*args)`` in gevent's thread pool, its error raised here. The pool would report an
    error itself, a traceback on stderr for every failed commit, and hand nothing back if stderr
    could not be written (a full disk): the write would wait for ever, holding the write turn."""

    def run():
        try:
            return function(*args), None
        except Exception as error:  # noqa: BLE001 - raised again in the caller's greenlet
            return None, error

    result, error = gevent.get_hub().threadpool.apply(run)
    if error is not None:
        raise error
    return result


def cooperative_sqlite(app) -> None:
    """Open the app's SQLite connections as :class:`CooperativeSQLite` (psycopg is cooperative already)."""
    from sqlalchemy import event

    from companion.storage.models import db

    with app.app_context():
        engine = db.engine
    if engine.dialect.name != "sqlite":
        return

    @event.listens_for(engine, "do_connect")
    def _connect(dialect, record, cargs, cparams) -> None:
        cparams.update(factory=CooperativeSQLite, check_same_thread=False)
