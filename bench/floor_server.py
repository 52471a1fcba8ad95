"""``companion serve`` plus floors: the same server with more routes, ``POST /bench/floor``,
``POST /bench/durable-floor`` and, on SQLite, ``POST /bench/bare-durable-floor`` and
``POST /bench/tap-rows-floor``.

Run: .venv/bin/python bench/floor_server.py [--host H] [--port P] [--workers N]   (as `companion serve`)

The floor is the bare Flask JSON endpoint on the same server (gunicorn, the same gevent workers,
the same app with every hook of its own: limits, headers, language, compression): it reads the JSON
body as a tap does (`companion.web.api.body`) and answers a small object with ``jsonify``, touching no
database. What a tap costs beyond it is the table's lookup, the secret, the engine and the durable
write. The durable floor is the floor plus the least durable write the app's own path can make on
the same database: the body's JSON inserted as one row and committed, through the driver's own
connection from the app's pool (on SQLite, the app's `companion.storage.sqlite.CooperativeSQLite`: its write
turn, and its commit's fsync in a pool thread), with no engine and no SQLAlchemy statement. The bare
durable floor (SQLite only) makes the same row on a plain ``sqlite3`` connection of the worker's own
and commits it in the worker's own thread, stopping its event loop for the fsync: what the disk
costs, without what the cooperative path adds. The tap rows floor (SQLite only) writes on that
connection, the same way, the rows a tap writes instead of that one row: into copies of the app's
own tables and indexes, with the same values' sizes, but no rule applied (`tap_rows_floor`): what
the disk costs for a tap's rows. Production code is not changed: the routes are
added, in each worker, to the app that `companion.server.Server.load` makes.

With ``ARBITRE_BENCH_STATEMENTS=1`` in its environment (`bench/live.py`), every SQL statement the
workers send is counted, through SQLAlchemy's public ``before_cursor_execute`` event on the app's
engine (the rate-limit rows included: they use the same engine), in memory every worker shares;
``GET /bench/statements`` answers the sums since the server started: ``statements`` and of those
``selects``, and by whom: ``writes`` (within a ``POST``: taps, undos, checks, new tables),
``reads`` (within another request: pages, logs, streams opening) and ``background`` (outside any
request: a stream's channel reading the answers a wake-up did not carry, the bus catching up).

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
TAP_ROWS_FLOOR_PATH = "/bench/tap-rows-floor"
DURABLE_TABLE = "bench_durable_floor"  # made before the workers start, empty at every start
TIMERS_PATH = "/bench/timers"
STATEMENTS_PATH = "/bench/statements"
RUN = "--run-server"  # the second stage, after the exec


def floor():
    from companion.web.api import body

    return _answer(body())


def durable_floor():
    from companion.storage.models import db
    from companion.web.api import body

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


_bare: dict = {}  # the bare floors' own connection, one per worker


def _bare_connection():
    """The worker's own plain ``sqlite3`` connection (autocommit: each transaction is begun by hand),
    with the app's own pragmas: WAL, synchronous=FULL, the busy timeout."""
    import sqlite3

    from companion.storage.models import _sqlite_pragmas, db

    if "connection" not in _bare:
        connection = sqlite3.connect(db.engine.url.database, isolation_level=None, check_same_thread=False)
        _sqlite_pragmas(connection, None)
        _bare["connection"] = connection
    return _bare["connection"]


def bare_durable_floor():
    """Measured with one worker (`bench/tap_time.py`): it waits for SQLite's lock in the loop too."""
    from companion.web.api import body

    data = body()
    connection = _bare_connection()
    connection.execute("BEGIN IMMEDIATE")
    connection.execute(f"INSERT INTO {DURABLE_TABLE} (body) VALUES (?)", (_row(data),))
    connection.execute("COMMIT")
    return _answer(data)


_tap_rows: dict = {}  # the tap rows floor's table in this worker: its id, counters, encoded values
_forms: dict = {}  # (a store statement, its parameters' names) -> SQL on the copies, order


def tap_rows_floor():
    """The rows a tap of `bench/writes.py` writes, with `companion.storage.store`'s own statements aimed at
    copies of the app's ``tables``, ``events`` and ``answers`` (`_copy_tap_tables`: the same
    columns, constraints and indexes): the table's row moved, then the event appended (a body with a
    ``type``) or the latest one marked undone (an undo's body), the version's answer kept, and every
    `store.PRUNE_EVERY` versions the older answers forgotten; on the bare connection, committed in
    the loop's thread. The values have a tap's sizes, but no rule is applied: the state, the
    answer's view and the event's words are the bench table's, encoded once. One worker; after the
    bench has made its table."""
    from companion.storage import store
    from companion.storage.models import now
    from companion.web.api import body

    data = body()
    event = {key: value for key, value in data.items() if key not in ("id", "version")}
    appended = "type" in event
    connection = _bare_connection()
    rows = _tap_rows or _first_tap_rows(connection, event)
    version, moment = rows["version"] + 1, now().isoformat(" ")
    log_length, in_effect = rows["log_length"] + int(appended), rows["in_effect"] + (1 if appended else -1)
    answer = f'{{"version":{version},"state":{rows["view"]}}}'
    connection.execute("BEGIN IMMEDIATE")
    _sent(
        connection,
        store.MOVE_TABLE,
        {
            "row_id": rows["id"],
            "read_version": rows["version"],
            "new_version": version,
            "new_state": rows["state"],
            "new_updated_at": moment,
            "new_log_length": log_length,
            "new_in_effect": in_effect,
        },
    )
    if appended:
        rows["latest"] = _sent(
            connection,
            store.INSERT_EVENT,
            {
                "table_id": rows["id"],
                "seq": log_length,
                "client_id": data.get("id"),
                "type": str(event["type"]),
                "payload": _row(event),
                "version": version,
                "said": rows["said"],
                "created_at": moment,
                "undone": False,
                "checkpoint": None,
            },
        ).lastrowid
    else:
        _sent(
            connection,
            store.MARK_UNDONE,
            {
                "event_id": rows.get("latest"),
                "new_undone": True,
                "new_undone_version": version,
                "new_undone_at": moment,
                "new_undo_id": data.get("id"),
            },
        )
    _sent(connection, store.KEEP_ANSWER, {"table_id": rows["id"], "version": version, "answer": answer})
    if version % store.PRUNE_EVERY == 0:
        for statement in store.PRUNE_ANSWERS:
            _sent(connection, statement, {"row_id": rows["id"], "upto": version - store.ANSWERS_KEPT})
    connection.execute("COMMIT")
    rows.update(version=version, in_effect=in_effect, log_length=log_length)
    return _answer(data)


def _sent(connection, statement, params: dict):
    """``statement`` (one of `companion.storage.store`'s) run on the copies with ``params``, already encoded:
    compiled for SQLite once, as `store._sent` does, its tables renamed (`_on_copies`)."""
    key = (statement, tuple(params))
    if key not in _forms:
        from sqlalchemy.dialects import sqlite

        compiled = statement.compile(dialect=sqlite.dialect(), column_keys=list(params))
        _forms[key] = _on_copies(str(compiled)), compiled.positiontup
    sql, order = _forms[key]
    return connection.execute(sql, tuple(params[name] for name in order))


def _first_tap_rows(connection, event: dict) -> dict:
    """The bench's table (the latest made) copied into ``bench_tables``, and what a tap there writes,
    encoded once: its state, its view, and the words of ``event`` (the first: the bench starts with
    an event, not an undo)."""
    import json

    from companion.storage import store
    from engine import core

    table_id = connection.execute("SELECT max(id) FROM tables").fetchone()[0]
    connection.execute("INSERT INTO bench_tables SELECT * FROM tables WHERE id = ?", (table_id,))
    game, encoded = connection.execute("SELECT game, state FROM tables WHERE id = ?", (table_id,)).fetchone()
    state = json.loads(encoded)
    _tap_rows.update(
        id=table_id,
        version=0,
        in_effect=0,
        log_length=0,
        state=encoded,
        view=_row(core.view(game, state)),
        said=_row(store.said(core.game(game), state, event)),
    )
    return _tap_rows


def _copy_tap_tables(connection) -> None:
    """``bench_tables``, ``bench_events`` and ``bench_answers``, empty: the app's ``tables``, ``events``
    and ``answers`` as its migrations made them (their columns, constraints and indexes, read from
    ``sqlite_master``)."""
    for name in ("bench_answers", "bench_events", "bench_tables"):
        connection.exec_driver_sql(f"DROP TABLE IF EXISTS {name}")
    schema = (
        connection.exec_driver_sql(
            "SELECT sql FROM sqlite_master WHERE tbl_name IN ('tables', 'events', 'answers')"
            " AND sql IS NOT NULL ORDER BY type DESC"
        )
        .scalars()
        .all()
    )  # the tables, then their indexes
    for sql in schema:
        connection.exec_driver_sql(_on_copies(sql))


def _on_copies(sql: str) -> str:
    """``sql`` about the app's ``tables``, ``events`` and ``answers`` made about their copies, indexes
    renamed too."""
    import re

    return re.sub(r"INDEX (\w+)", r"INDEX bench_\1", re.sub(r"\b(tables|events|answers)\b", r"bench_\1", sql))


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

    from companion.storage import sqlite
    from companion.web import timing

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

    kinds = {
        FLOOR_PATH: "request: floor",
        DURABLE_FLOOR_PATH: "request: durable floor",
        BARE_DURABLE_FLOOR_PATH: "request: bare durable floor",
        TAP_ROWS_FLOOR_PATH: "request: tap rows floor",
    }

    def kind() -> str:
        return kinds.get(request.path, "request: tap")

    def commit() -> str:  # the durable floor's commit apart from a tap's
        if request.path == DURABLE_FLOOR_PATH:
            return "  its commit (SQLite: fsync, in a thread)"
        return "    the commit (SQLite: fsync, in a thread)"

    # The app's own phases through its public hook (`companion.web.timing`, the Server-Timing
    # header's figures); Flask's, the driver's and the SQLite connection's through their own methods.
    app.config["SERVER_TIMING"] = True
    names = {
        "access": "  the table and the secret (a write)",
        "body": "  the body read (a write)",
        "commit": "  the write (group commit: the rules, the rows, the commit)",
        "publish": "  followers told",
    }

    @app.after_request
    def phases(response):
        for name, spent in timing.phases():
            seconds[names.get(name, name)].append(spent)
        return response

    timed(app, "full_dispatch_request", "request", label=kind)
    timed(app, "preprocess_request", "  hooks before (limits), every request")
    timed(sqlite.CooperativeSQLite, "commit", "commit", label=commit)
    timed(default.DefaultDialect, "do_commit", "    the commit (the driver's)")
    timed(default.DefaultDialect, "do_execute", "    one statement (the driver's)")
    timed(app, "process_response", "  hooks after (headers), every request")

    def report():
        answer = {name: sorted(values) for name, values in seconds.items()}
        seconds.clear()
        return jsonify(answer)

    app.add_url_rule(TIMERS_PATH, "bench_timers", report)


class StatementCounts:
    """Statements counted per worker in memory mapped before the fork: one row per worker (its pid,
    then a count per `NAMES`), claimed once under a lock, then written by that worker alone."""

    ROWS = 64
    NAMES = ("statements", "selects", "writes", "reads", "background")
    WIDTH = 1 + len(NAMES)

    def __init__(self):
        import mmap
        import multiprocessing

        self.memory = mmap.mmap(-1, self.ROWS * self.WIDTH * 8)  # anonymous: shared with the forked workers
        self.cells = memoryview(self.memory).cast("q")
        self.claim = multiprocessing.get_context("fork").Lock()

    def install(self, app) -> None:
        from flask import has_request_context, jsonify, request
        from sqlalchemy import event

        from companion.storage.models import db

        width = self.WIDTH
        with self.claim:
            row = next(r for r in range(self.ROWS) if self.cells[width * r] in (0, os.getpid()))
            self.cells[width * row] = os.getpid()
        cells, base = self.cells, width * row

        def counted(_connection, _cursor, statement, _parameters, _context, _many) -> None:
            cells[base + 1] += 1
            if statement.lstrip()[:6].upper() == "SELECT":
                cells[base + 2] += 1
            if not has_request_context():
                cells[base + 5] += 1
            elif request.method == "POST":
                cells[base + 3] += 1
            else:
                cells[base + 4] += 1

        with app.app_context():
            event.listen(db.engine, "before_cursor_execute", counted)

        def report():
            return jsonify(
                {
                    name: sum(cells[width * r + 1 + n] for r in range(self.ROWS))
                    for n, name in enumerate(self.NAMES)
                }
            )

        app.add_url_rule(STATEMENTS_PATH, "bench_statements", report)


def run_server(argv: list[str]) -> None:
    from companion.server import Server, default_workers

    counts = StatementCounts() if os.environ.get("ARBITRE_BENCH_STATEMENTS") else None

    class FloorServer(Server):
        def load(self):
            app = super().load()
            if counts is not None:
                counts.install(app)
            app.add_url_rule(FLOOR_PATH, "bench_floor", floor, methods=["POST"])
            app.add_url_rule(DURABLE_FLOOR_PATH, "bench_durable_floor", durable_floor, methods=["POST"])
            if app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
                app.add_url_rule(
                    BARE_DURABLE_FLOOR_PATH, "bench_bare_durable_floor", bare_durable_floor, methods=["POST"]
                )
                app.add_url_rule(
                    TAP_ROWS_FLOOR_PATH, "bench_tap_rows_floor", tap_rows_floor, methods=["POST"]
                )
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
    from companion.storage.models import db

    app = create_app()
    upgrade_database(app)
    with app.app_context():
        with db.engine.begin() as connection:
            connection.execute(text(f"DROP TABLE IF EXISTS {DURABLE_TABLE}"))
            connection.execute(text(f"CREATE TABLE {DURABLE_TABLE} (body TEXT NOT NULL)"))
            if connection.dialect.name == "sqlite":
                _copy_tap_tables(connection)
        for engine in app.extensions["sqlalchemy"].engines.values():
            engine.dispose()
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, str(Path(__file__).resolve()), RUN, *argv])


if __name__ == "__main__":
    main(sys.argv[1:])
