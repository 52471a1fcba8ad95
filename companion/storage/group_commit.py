"""Group commit: the writes that arrive while another is committing go together, in one transaction
and one commit (one fsync on SQLite), and each is answered once that commit is durable.

A write is a `Job`: it checks and applies one tap against ``table`` (a `Snapshot` of its row),
giving its answer, then writes its rows on a connection and returns the `Snapshot` they leave. Its
rows update the table row first with ``WHERE version = v``, so when another writer got there
first it raises `Raced` before it wrote anything, and the job runs again on the row read afresh. A
job that refuses (a rule, a stale version) raises before anything is written, so the others in its
batch commit. A job that names a client id already applied gets that first answer (`Job.earlier`),
written again by nobody. A batch runs its jobs not ``careful``: the lookup of a retry costs a
statement, so it is made only for a tap the rules or the version refuse; a retry they accept again
breaks the log's unique client id when written, which sends each job of the batch to run alone,
``careful``: looking first.

The batch runs in two steps: every job computes its answer first, with no lock taken (SQLite's
transaction begins at the first write; the other server processes go on writing meanwhile), then
the writes and the commit, the only part that holds the database's write lock. One batch leads at
a time per process: it takes every job waiting, and once its writes are done hands the lead to the
first job that arrived meanwhile, whose batch computes its answers during this one's commit.
Under gevent the waiting is a greenlet's; the threads of a test or of the development
server wait the same way. A database error inside a batch (another process's write with the same
client id, a deadlock) rolls the batch back and runs its jobs again one transaction each, so that
error reaches only the job it belongs to.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from flask import Flask, current_app
from sqlalchemy.exc import DBAPIError

from companion.storage.errors import Refusal, unavailable
from engine.core import RuleError

EXTENSION = "arbitre.group_commit"
ATTEMPTS = 5  # runs of a job that keeps losing races to other processes before it answers 503 busy


class Raced(Exception):
    """Another writer moved the table since the job read it; nothing was written."""


@dataclass
class Snapshot:
    """A table's row as a write reads it; ``state`` is the job's own (it may change it in place)."""

    id: int
    game: str
    players: list
    options: dict
    version: int
    state: dict
    log_length: int
    in_effect: int
    warm: bool = False  # kept by this process since its last write here (`companion.storage.warm`), not read
    # Known from this process's last write (a warm snapshot only): the JSON the row's ``state`` holds,
    # and, when that write was an event, what undoing it goes back to: the event's row id, the JSON of
    # the state before it and its client id (`store.undo` then reads nothing and replays nothing).
    encoded: str | None = None
    undo_to: tuple[int, str, str] | None = None
    # The latest events in effect as this process's writes left them (`store.entry`, newest last, at
    # most two): what an undo takes back and what the next one would, known without a read. Fewer
    # than ``in_effect`` and fewer than two: the ones before are not known here.
    trail: tuple = ()


class Job:
    """One write: an event or an undo (`companion.storage.store`'s `AppendEvent`, `Undo`)."""

    def earlier(self, connection, table: Snapshot):
        """The answer this job's client id was given when first applied, or None if it never was;
        refused (``client_id_reused``) when that id named another event."""
        raise NotImplementedError

    def apply(self, connection, table: Snapshot):
        """The job's answer against ``table``, its rows made ready; raises a refusal, writing nothing."""
        raise NotImplementedError

    def write(self, connection) -> Snapshot:
        """The rows `apply` made ready, written; `Raced` if the table moved since it was read."""
        raise NotImplementedError

    def reread(self, connection) -> Snapshot:
        """The table's row read afresh (after a lost race, or when a kept one may be behind)."""
        raise NotImplementedError


class _Slot:
    def __init__(self, job: Job, table: Snapshot):
        self.job, self.table = job, table
        self.done = threading.Event()
        self.leads = False  # handed the lead while it waited
        self.answer = self.error = self.after = None
        self.fresh = self.careful = False


class GroupCommit:
    """The taps of one app in one process waiting for their batch, and whether a batch leads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.waiting: list[_Slot] = []
        self.leading = False

    def run(self, job: Job, table: Snapshot) -> tuple:
        """Run ``job`` on ``table`` in the next batch; returns (answer, fresh, after) once its rows are
        committed (``fresh``: the job wrote them, rather than a retry answered from the log;
        ``after``: the `Snapshot` they left, None for a retry), or raises what the job raised."""
        slot = _Slot(job, table)
        with self.lock:
            self.waiting.append(slot)
            leads = not self.leading
            self.leading = True
        if not leads:
            slot.done.wait()
            leads = slot.leads
        if leads:
            self._lead()
        slot.done.wait()
        if slot.error is not None:
            raise slot.error
        return slot.answer, slot.fresh, slot.after

    def _lead(self) -> None:
        with self.lock:
            batch, self.waiting = self.waiting, []
        handed = False

        def hand_off() -> None:
            nonlocal handed
            if not handed:
                handed = True
                with self.lock:
                    if self.waiting:
                        self.waiting[0].leads = True
                        self.waiting[0].done.set()
                    else:
                        self.leading = False

        try:
            self._commit(batch, hand_off)
        except Exception as error:  # noqa: BLE001 - no connection to be had: every caller raises it
            for slot in batch:
                if slot.answer is None and slot.error is None:
                    slot.error = error
        finally:
            hand_off()
            for slot in batch:
                slot.done.set()

    def _commit(self, batch: list[_Slot], hand_off) -> None:
        """Answers, writes, then the commit; the next batch is led from the moment this one's writes
        are done, so that it computes its answers while this one waits for the disk (its writes then
        wait for this commit: one write transaction at a time)."""
        engine = current_app.extensions["sqlalchemy"].engine
        try:
            with _transaction(engine, len(batch)) as connection:
                for slot in batch:
                    _prepare(connection, slot)
                for slot in batch:
                    _written(connection, slot)
                hand_off()
        except Exception:  # noqa: BLE001 - a database error: each job again, alone
            for slot in batch:
                _alone(engine, slot)


def _transaction(engine, jobs: int):
    """The connection a batch of ``jobs`` runs on. A lone job on PostgreSQL runs in autocommit: its
    write is one statement (`store._move_table`), atomic by itself, so BEGIN and COMMIT would be two
    more round trips for nothing; its reads may see a moment before the write, which then finds the
    row moved and runs again. On SQLite a write is two statements, and a batch of several jobs
    commits them together: a transaction."""
    if jobs == 1 and engine.dialect.name == "postgresql":
        return engine.connect().execution_options(isolation_level="AUTOCOMMIT")
    return engine.begin()


def _prepare(connection, slot: _Slot) -> None:
    """The job's answer, computed: a refusal is its answer; any other error is raised."""
    slot.answer = slot.error = slot.after = None
    slot.fresh = False
    try:
        slot.answer = _attempt(connection, slot)
    except (Refusal, RuleError) as refusal:
        slot.error = refusal


def _attempt(connection, slot: _Slot):
    """The job applied once per client id: a retry gets its first answer (``fresh`` stays False)."""
    job, table = slot.job, slot.table
    kept = job.earlier(connection, table) if slot.careful else None
    if kept is not None:
        return kept
    try:
        answer = job.apply(connection, table)
    except (Refusal, RuleError):
        if table.warm:  # the process's snapshot may be behind the row: refuse only on the row
            slot.table = job.reread(connection)
            return _attempt(connection, slot)
        kept = None if slot.careful else job.earlier(connection, table)
        if kept is None:
            raise
        return kept
    slot.fresh = True
    return answer


def _written(connection, slot: _Slot) -> None:
    """The job's rows written; after a lost race, the job again on the row read afresh."""
    for tries in range(ATTEMPTS):
        if not slot.fresh:  # refused, or a retry answered from the log: nothing to write
            return
        try:
            slot.after = slot.job.write(connection)
            return
        except Raced:
            if tries:
                time.sleep(0.005 * tries)
            slot.table = slot.job.reread(connection)
            _prepare(connection, slot)
    slot.answer, slot.error = None, Refusal("busy")


def _alone(engine, slot: _Slot) -> None:
    """One job in its own transaction, the table read afresh, careful; a database error is retried.
    If the database still does not answer, that error is the job's (`errors.unavailable`: 503)."""
    slot.careful = True
    for tries in range(ATTEMPTS):
        try:
            with _transaction(engine, 1) as connection:
                slot.table = slot.job.reread(connection)
                _prepare(connection, slot)
                _written(connection, slot)
            return
        except DBAPIError as error:
            last = error
            time.sleep(0.01 * (tries + 1))
        except Exception as error:  # noqa: BLE001 - the caller's to raise
            slot.answer, slot.error = None, error
            return
    slot.answer, slot.error = None, last if unavailable(last) else Refusal("busy")


def for_app(app: Flask) -> GroupCommit:
    if EXTENSION not in app.extensions:
        app.extensions[EXTENSION] = GroupCommit()
    return app.extensions[EXTENSION]
