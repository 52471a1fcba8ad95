"""What a server process keeps of the tables its referees tap, so that a tap reads nothing before it
writes: each table's identity (its id, code, game, options and secret's hash, never changed once
made) and the snapshot that the last write in this process left (version, state, counters).

The database stays the one truth; this is only a head start. A kept snapshot can be behind the
row (another process wrote since): the write's conditional UPDATE (``WHERE version = v``) then
finds the row moved, writes nothing, and the write runs again on the row read afresh
(`companion.storage.group_commit`), and a refusal worked out on a kept snapshot is worked out again
on the row before it is answered. The bus tells every process of the others' writes, so a snapshot
left behind is dropped before it costs a retry; a lost message costs that retry only.

A snapshot is handed to one write at a time (`take` removes it): the write applies its event to
the state in place, and keeps what it wrote once its commit is durable (`keep`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from flask import Flask

EXTENSION = "arbitre.warm"
TABLES_KEPT = 1024  # tables per process (the ones tapped last): a snapshot is a few KiB


@dataclass(frozen=True)
class Identity:
    """What a request needs to know whose table it names, whether its secret is the referee's, and
    which moves its game lets a player record (its options decide: `engine.core.player_moves`)."""

    id: int
    code: str
    game: str
    secret_hash: str
    options: dict | None = None


class Warm:
    """The tables a process keeps, the least recently tapped dropped first; a bus subscriber."""

    def __init__(self):
        self.lock = threading.Lock()  # greenlets in the server; threads in tests and `flask run`
        self.identities: OrderedDict[str, Identity] = OrderedDict()
        self.snapshots: OrderedDict[int, object] = OrderedDict()  # table id -> group_commit.Snapshot

    def identity(self, code: str) -> Identity | None:
        with self.lock:
            found = self.identities.get(code)
            if found is not None:
                self.identities.move_to_end(code)
            return found

    def know(self, identity: Identity) -> None:
        with self.lock:
            self.identities[identity.code] = identity
            self.identities.move_to_end(identity.code)
            if len(self.identities) > TABLES_KEPT:
                self.identities.popitem(last=False)

    def take(self, table_id: int):
        """The table's kept snapshot, now the caller's alone (None if none is kept)."""
        with self.lock:
            return self.snapshots.pop(table_id, None)

    def keep(self, snapshot) -> None:
        """Keep what a durable write left, unless a later version is kept already."""
        with self.lock:
            kept = self.snapshots.get(snapshot.id)
            if kept is None or kept.version < snapshot.version:
                self.snapshots[snapshot.id] = snapshot
            self.snapshots.move_to_end(snapshot.id)
            if len(self.snapshots) > TABLES_KEPT:
                self.snapshots.popitem(last=False)

    # --- the bus's subscriber: other processes' writes -------------------------------------------

    def wake(self, table_id: int, version: int, data: str | None = None) -> None:
        with self.lock:
            kept = self.snapshots.get(table_id)
            if kept is not None and kept.version < version:
                del self.snapshots[table_id]

    def catch_up(self) -> None:
        """Messages may have been lost: any snapshot may be behind."""
        with self.lock:
            self.snapshots.clear()


def for_app(app: Flask) -> Warm:
    """The app's kept tables, made on first use (the app factory subscribes them to its bus)."""
    if EXTENSION not in app.extensions:
        app.extensions[EXTENSION] = Warm()
    return app.extensions[EXTENSION]
