"""A long table against a new one: tap, undo, /log and /history from 10 to 100,000 events (issue #13, goal 2).

Run: .venv/bin/python bench/history.py [--sizes 10,100,1000,10000,100000] [--repeats 30] [--postgres | --both]

1. *Build*, before the server starts, in this process: one Il Morto table (12 players, 9 lives) per
   size N, written straight into the database the server will use through the app's own store
   (`companion.storage.store.append_event` / `undo` in an app context, so every column is as a tap would
   leave it), with the durability of the build relaxed (SQLite ``synchronous=OFF``, PostgreSQL
   ``synchronous_commit=off``: only the build, not the measured server). A table of size N has N
   events in its log: the first ``min(40, N // 2)`` stay in effect (touches spread over the 11
   non-dealers, 4 at most each: nobody dies), each later one is undone at once (event, undo), so
   the log holds undone events too. The build's time is printed.
2. *Measure*, against ``companion serve`` (gunicorn, gevent workers) on that database: for each size,
   one referee's kept-alive connection sends, in turn:
   - a tap (``POST events``, a ``touched_early`` with ``id`` and ``version``: 201);
   - an undo of it (``POST undo`` with ``id`` and ``version``: 200);
   - ``GET /log?since=<version - 1>``: what a phone holding all but the latest version lacks;
   - ``GET /log``: the whole log in effect (for reference; at most 40 events here);
   - ``GET /history?limit=50``: the latest 50 entries; if the server refuses the parameter (4xx),
     the whole ``/history`` instead, and the output says so.
   The sizes are interleaved (one request of each kind for each size, then the next repeat), so the
   machine's noise falls on every size alike. Per size and kind: median and p95 of ``--repeats``
   round trips, and the ratio of each to the size-10 table's in the same run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import common  # noqa: E402
from common import serving  # noqa: E402

PLAYERS = [f"Joueur·euse {i}" for i in range(12)]
KEPT_MAX = 40  # events left in effect in a built table (4 touches at most per non-dealer: 9 lives)
KINDS = ["tap", "undo", "log since", "log", "history"]


# --- building the tables -------------------------------------------------------------------------


def build(sizes: list[int]) -> dict[int, dict]:
    """One table per size in the database of ARBITRE_INSTANCE / DATABASE_URL; {size: {code, secret}}."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    from companion import create_app
    from companion.cli import upgrade_database
    from companion.storage import store

    @event.listens_for(Engine, "connect")
    def _fast(dbapi_connection, _record) -> None:  # after models' pragmas: the build need not be durable
        cursor = dbapi_connection.cursor()
        if type(dbapi_connection).__module__.startswith("sqlite3"):
            cursor.execute("PRAGMA synchronous=OFF")
        else:
            cursor.execute("SET synchronous_commit TO off")
        cursor.close()
        if not type(dbapi_connection).__module__.startswith("sqlite3"):
            dbapi_connection.commit()

    app = create_app({"RATELIMIT_ENABLED": False, "EVENTS_PER_TABLE": None})  # 100,000 events on purpose
    upgrade_database(app)
    tables = {}
    with app.app_context():
        for size in sizes:
            started = time.perf_counter()
            table, secret = store.create_table("morto", PLAYERS, {"lives": 9})
            table_id, code = table.id, table.code
            kept = min(KEPT_MAX, size // 2)
            version = 0
            for n in range(size):
                body = {
                    "id": f"e{n}",
                    "type": "touched_early",
                    "player": f"p{2 + n % 11}",
                    "version": version,
                }
                version = store.append_event(table_id, body)["version"]
                if n >= kept:
                    version = store.undo(table_id, {"id": f"u{n}", "version": version})["version"]
                if (n + 1) % 20000 == 0:
                    print(f"  ... {n + 1} events in {time.perf_counter() - started:.0f} s", flush=True)
            tables[size] = {"code": code, "secret": secret, "version": version}
            elapsed = time.perf_counter() - started
            print(
                f"built {size:>7} events ({kept} in effect, version {version}) in {elapsed:7.1f} s"
                f"   ({elapsed / max(version, 1) * 1e3:.2f} ms per write)",
                flush=True,
            )
        # What PostgreSQL's own upkeep does to a table that grew (autovacuum analyzes it within a
        # minute): the planner's statistics, so that it picks the partial indexes; the server measured
        # below would otherwise plan for the empty tables the build started from. (SQLite keeps no
        # statistics unless asked, and needs none to pick them.)
        from companion.storage.models import db

        if db.engine.dialect.name == "postgresql":
            db.session.execute(db.text("ANALYZE"))
            db.session.commit()
        for engine in app.extensions["sqlalchemy"].engines.values():
            engine.dispose()
    event.remove(Engine, "connect", _fast)
    return tables


# --- measuring -----------------------------------------------------------------------------------


class Client(common.Client):
    """``send`` answers (status, milliseconds, parsed body, the body's length in bytes)."""

    def send(self, method: str, path: str, body=None, secret: str | None = None):
        status, ms, raw = super().send(method, path, body, secret)
        return status, ms, json.loads(raw) if raw else None, len(raw)


def measure(base: str, tables: dict[int, dict], repeats: int) -> tuple[dict, dict, list[str]]:
    """{size: {kind: [ms]}}, {size: {kind: bytes of the answer}}, notes."""
    client = Client(base)
    times = {size: {kind: [] for kind in KINDS} for size in tables}
    sizes = {size: {} for size in tables}
    notes: list[str] = []
    history_query = "?limit=50"
    for repeat in range(repeats + 1):  # the first round warms up and is not kept
        for size, table in tables.items():
            code, secret = table["code"], table["secret"]
            prefix = f"/api/tables/{code}"
            figures = {}
            status, ms, answer, length = client.send(
                "POST",
                f"{prefix}/events",
                {
                    "id": f"m{repeat}",
                    "type": "touched_early",
                    "player": f"p{2 + repeat % 11}",
                    "version": table["version"],
                },
                secret,
            )
            assert status == 201, (size, status, answer)
            figures["tap"] = (ms, length)
            table["version"] = answer["version"]
            status, ms, answer, length = client.send(
                "POST", f"{prefix}/undo", {"id": f"n{repeat}", "version": table["version"]}, secret
            )
            assert status == 200, (size, status, answer)
            figures["undo"] = (ms, length)
            table["version"] = answer["version"]
            status, ms, answer, length = client.send("GET", f"{prefix}/log?since={table['version'] - 1}")
            assert status == 200, (size, status, answer)
            figures["log since"] = (ms, length)
            status, ms, answer, length = client.send("GET", f"{prefix}/log")
            assert status == 200, (size, status, answer)
            figures["log"] = (ms, length)
            status, ms, answer, length = client.send("GET", f"{prefix}/history{history_query}")
            if 400 <= status < 500 and history_query:
                code_ = (answer or {}).get("error", {}).get("code")
                notes.append(
                    f"GET /history{history_query} answered {status} ({code_}): the whole /history is measured"
                )
                history_query = ""
                status, ms, answer, length = client.send("GET", f"{prefix}/history")
            assert status == 200, (size, status, answer)
            if history_query and repeat == 0 and len(answer["events"]) > 50:
                notes.append(
                    f"GET /history?limit=50 answered {len(answer['events'])} entries for size "
                    f"{size}: the limit is ignored (the whole history is measured)"
                )
            figures["history"] = (ms, length)
            if repeat:
                for kind, (ms, length) in figures.items():
                    times[size][kind].append(ms)
                    sizes[size][kind] = length
    return times, sizes, notes


def p95(values: list[float]) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]


def report(times: dict, lengths: dict, notes: list[str]) -> None:
    base = min(times)
    for note in dict.fromkeys(notes):
        print("note:", note)
    print(
        f"{'size':>7} {'kind':<10} {'median ms':>9} {'p95 ms':>8} {'x median':>8} {'x p95':>7} {'answer':>10}"
    )
    for kind in KINDS:
        for size in sorted(times):
            values = times[size][kind]
            first = times[base][kind]
            print(
                f"{size:>7} {kind:<10} {statistics.median(values):9.2f} {p95(values):8.2f} "
                f"{statistics.median(values) / statistics.median(first):8.2f} "
                f"{p95(values) / p95(first):7.2f} "
                f"{lengths[size][kind]:>9,}B"
            )
        print()


def run(backend: str, sizes: list[int], repeats: int) -> dict:
    cluster = None
    with contextlib.ExitStack() as stack:
        instance = stack.enter_context(tempfile.TemporaryDirectory())
        env = {"ARBITRE_INSTANCE": instance}
        if backend == "postgres":
            from tests.support.postgres import PostgresCluster, postgres_bindir

            cluster = PostgresCluster(postgres_bindir(), fsync=True)
            cluster.start()
            stack.callback(cluster.stop)
            env["DATABASE_URL"] = cluster.url(cluster.create_database("bench"))
            print("\nbackend: PostgreSQL (throwaway, fsync on)")
        else:
            env["DATABASE_URL"] = ""
            print("\nbackend: SQLite (WAL, synchronous=FULL)")
        saved = {key: os.environ.get(key) for key in env}
        os.environ.update(env)
        try:
            tables = build(sizes)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        log_copy = str(Path(tempfile.gettempdir()) / f"history-server-{backend}.log")
        with serving(env, instance=instance, log_copy=log_copy) as (base, _process):
            time.sleep(1)  # every worker booted
            times, lengths, notes = measure(base, tables, repeats)
        report(times, lengths, notes)
        print(f"server log: {log_copy}")
        return times


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="10,100,1000,10000,100000", help="comma-separated log lengths")
    parser.add_argument("--repeats", type=int, default=30, help="measured requests per size and kind")
    backend = parser.add_mutually_exclusive_group()
    backend.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL server (fsync on)")
    backend.add_argument("--both", action="store_true", help="SQLite, then PostgreSQL")
    args = parser.parse_args()
    sizes = sorted(int(n) for n in args.sizes.split(","))
    backends = ["sqlite", "postgres"] if args.both else ["postgres" if args.postgres else "sqlite"]
    print(f"sizes {sizes}, {args.repeats} measured repeats per size and kind (sizes interleaved), one client")
    for backend in backends:
        run(backend, sizes, args.repeats)


if __name__ == "__main__":
    main()
