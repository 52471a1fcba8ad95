"""``companion serve`` plus floors: the same server with more routes, ``POST /bench/floor``,
``POST /bench/durable-floor`` and, on SQLite, ``POST /bench/bare-durable-floor``.

Run: .venv/bin/python bench/floor_server.py [--host H] [--port P] [--workers N]   (as `companion serve`)

The floor is the bare Flask JSON endpoint on the same server (gunicorn, the same gevent workers,
the same app with every hook of its own: limits, headers, language, compression): it reads the JSON
body as a tap does (`companion.api.body`) and answers a small object with ``jsonify``, touching no
database. What a tap costs beyond it is the table's lookup, the secret, the engine and the durable
write. The durable floor is the floor plus the least durable write the app's own path can make on
the same database: the body's JSON inserted as one row and committed, through the driver's own
connection from the app's pool (on SQLite, the app's `companion.server.CooperativeSQLite`: its write
turn, and its commit's fsync in a pool thread), with no engine and no SQLAlchemy statement. The bare
durable floor (SQLite only) makes the same row on a plain ``sqlite3`` connection of the worker's own
and commits it in the worker's own thread, stopping its event loop for the fsync: what the disk
costs, without what the cooperative path adds. Production code is not changed: the routes are
added, in each worker, to the app that `companion.server.Server.load` makes.

With ``ARBITRE_BENCH_TIMERS=1`` in its environment (`bench/tap_time.py`), each worker also times the
parts of a tap (a request, the write, its statements, its commit...) and answers ``GET /bench/timers``
with what it measured since the last such request: where a tap's time goes in the real server.

As `companion serve` (companion/cli.py): upgrade the database first, then a fresh interpreter runs
the server, so gevent patches the workers before psycopg is first imported.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FLOOR_PATH = "/bench/floor"
DURABLE_FLOOR_PATH = "/bench/durable-floor"
BARE_DURABLE_FLOOR_PATH = "/bench/bare-durable-floor"
DURABLE_TABLE = "bench_durable_floor"  # made before the workers start, empty at every start
TIMERS_PATH = "/bench/timers"
RUN = "--run-server"  # the second stage, after the exec


def floor():
    from companion.api import body

    return _answer(body())


def durable_floor():
    from companion.api import body
    from companion.models import db

    data = body()
    postgres = db.engine.dialect.name == "postgresql"
    statement = f"INSERT INTO {DURABLE_TABLE} (body) VALUES ({'%s' if postgres else '?'})"
    connection = db.engine.raw_connection()
    try:
        if postgres:  # one statement in autocommit, a single round trip, as a lone tap's write is
            connection.dbapi_connection.autocommit = True
        connection.cursor().execute(statement, (_row(data),))
        if not postgres:
            connection.commit()
    finally:
        if postgres:
            connection.dbapi_connection.autocommit = False
        connection.close()
    return _answer(data)


_bare: dict = {}  # the bare durable floor's own connection, one per worker


def bare_durable_floor():
    """Measured with one worker (`bench/tap_time.py`): it waits for SQLite's lock in the loop too."""
    import sqlite3

    from companion.api import body
    from companion.models import _sqlite_pragmas, db

    data = body()
    if "connection" not in _bare:
        connection = sqlite3.connect(db.engine.url.database, isolation_level=None, check_same_thread=False)
        _sqlite_pragmas(connection, None)  # the app's own: WAL, synchronous=FULL, the busy timeout
        _bare["connection"] = connection
    connection = _bare["connection"]
    connection.execute("BEGIN IMMEDIATE")
    connection.execute(f"INSERT INTO {DURABLE_TABLE} (body) VALUES (?)", (_row(data),))
    connection.execute("COMMIT")
    return _answer(data)


def _row(data: dict) -> str:
    import json

    return json.dumps(data, separators=(",", ":"))


def _answer(data: dict):
    from flask import jsonify

    return jsonify({"ok": True, "version": data.get("version", 0)})


def install_timers(app) -> None:
    """Time the parts of a tap in this worker: each named function's calls, in seconds, by name."""
    import collections
    import functools
    import time

    from flask import jsonify, request
    from sqlalchemy.engine import default

    from companion import api, group_commit, server, store

    seconds: dict[str, list[float]] = collections.defaultdict(list)

    def timed(owner, attribute: str, name: str, label=None) -> None:
        function = getattr(owner, attribute)

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                seconds[label() if label else name].append(time.perf_counter() - start)

        setattr(owner, attribute, wrapper)

    kinds = {FLOOR_PATH: "request: floor", DURABLE_FLOOR_PATH: "request: durable floor",
             BARE_DURABLE_FLOOR_PATH: "request: bare durable floor"}

    def kind() -> str:
        return kinds.get(request.path, "request: tap")

    def commit() -> str:  # the durable floor's commit apart from a tap's
        if request.path == DURABLE_FLOOR_PATH:
            return "  its commit (SQLite: fsync, in a thread)"
        return "    the commit (SQLite: fsync, in a thread)"

    timed(app, "full_dispatch_request", "request", label=kind)
    timed(app, "preprocess_request", "  hooks before (limits), every request")
    timed(api, "body", "  the body read, every request")
    timed(store, "_write", "  the write (group commit)")
    timed(group_commit, "_prepare", "    the rules, the view, the answer's JSON")
    timed(store, "_state_before_last", "      an undo: the log's end read, replayed")
    timed(group_commit, "_written", "    the write's statements")
    timed(server.CooperativeSQLite, "commit", "commit", label=commit)
    timed(default.DefaultDialect, "do_commit", "    the commit (the driver's)")
    timed(default.DefaultDialect, "do_execute", "    one statement (the driver's)")
    timed(group_commit, "_published", "    followers told")
    timed(app, "process_response", "  hooks after (headers), every request")

    def report():
        answer = {name: sorted(values) for name, values in seconds.items()}
        seconds.clear()
        return jsonify(answer)

    app.add_url_rule(TIMERS_PATH, "bench_timers", report)


def run_server(argv: list[str]) -> None:
    from companion.server import Server, default_workers

    class FloorServer(Server):
        def load(self):
            app = super().load()
            app.add_url_rule(FLOOR_PATH, "bench_floor", floor, methods=["POST"])
            app.add_url_rule(DURABLE_FLOOR_PATH, "bench_durable_floor", durable_floor, methods=["POST"])
            if app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
                app.add_url_rule(BARE_DURABLE_FLOOR_PATH, "bench_bare_durable_floor", bare_durable_floor,
                                 methods=["POST"])
            if os.environ.get("ARBITRE_BENCH_TIMERS"):
                install_timers(app)
            return app

    parser = argparse.ArgumentParser(prog="floor_server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--streams-per-address", type=int, default=None)
    args = parser.parse_args(argv)
    FloorServer(args.host, args.port, args.workers, args.streams_per_address).run()


def main(argv: list[str]) -> None:
    if argv[:1] == [RUN]:
        run_server(argv[1:])
        return
    from sqlalchemy import text

    from companion import create_app
    from companion.cli import upgrade_database
    from companion.models import db

    app = create_app()
    upgrade_database(app)
    with app.app_context():
        with db.engine.begin() as connection:
            connection.execute(text(f"DROP TABLE IF EXISTS {DURABLE_TABLE}"))
            connection.execute(text(f"CREATE TABLE {DURABLE_TABLE} (body TEXT NOT NULL)"))
        for engine in app.extensions["sqlalchemy"].engines.values():
            engine.dispose()
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, str(Path(__file__).resolve()), RUN, *argv])


if __name__ == "__main__":
    main(sys.argv[1:])
