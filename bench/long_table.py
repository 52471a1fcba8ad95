"""A 100,000-event table on SQLite: what a history page costs, and what the database file weighs
(issue 28, item 5).

Run: .venv/bin/python bench/long_table.py [--size 100000] [--repeats 200] [--keep DIR]

1. *Build* one Il Morto table of ``--size`` events through the app's own store, as
   `bench/history.py` builds its tables (the first 40 events in effect, every later one undone at
   once: the log holds N events and about 2N versions), in a fresh instance folder.
2. *A history page*: ``GET /api/tables/<code>/history?limit=50`` through the app in this process
   (Flask's test client: the route, the read, the JSON; no network), ``--repeats`` times, alternating
   request by request between the read as it was (``select(Event)``: every column of the row,
   the kept answers and the checkpoint decoded) and the read of today (`store.history`: only the
   columns an entry answers). Both answers are checked equal first. Median and p95 per request, and
   the ratio, from the same run.
3. *The file*: its size on disk (with its WAL, after a checkpoint), per event, the pages SQLite keeps
   free (``freelist_count``), and how much of the events' pages their rows fill (``dbstat``);
   then the size a ``VACUUM`` of a copy gives, for reference.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import history  # noqa: E402
from common import percentile  # noqa: E402


def file_figures(path: Path, events: int) -> dict:
    """The database's size on disk and how its pages are used."""
    connection = sqlite3.connect(path)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        free = connection.execute("PRAGMA freelist_count").fetchone()[0]
        auto_vacuum = connection.execute("PRAGMA auto_vacuum").fetchone()[0]
        try:
            used, unused = connection.execute(
                "SELECT sum(pgsize), sum(unused) FROM dbstat WHERE name = 'events'"
            ).fetchone()
        except sqlite3.OperationalError:  # a SQLite built without dbstat
            used = unused = None
    finally:
        connection.close()
    size = sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))
    return {
        "size": size,
        "per_event": size / events,
        "pages": pages,
        "page_size": page_size,
        "free_pages": free,
        "auto_vacuum": {0: "none", 1: "full", 2: "incremental"}[auto_vacuum],
        "events_fill": None if used is None else 1 - unused / used,
    }


def vacuumed_size(path: Path) -> int:
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "copy.db"
        shutil.copy(path, copy)
        connection = sqlite3.connect(copy)
        connection.execute("VACUUM")
        connection.close()
        return copy.stat().st_size


def history_pages(code: str, repeats: int) -> dict[str, list[float]]:
    """Milliseconds per ``/history?limit=50`` request, the read as it was and as it is, interleaved."""
    from sqlalchemy import select

    from companion import create_app
    from companion.storage import store
    from companion.storage.models import Event, db

    def as_it_was(table, before=None, limit=None):
        query = select(Event).where(Event.table_id == table.id)
        if before is not None:
            query = query.where(Event.seq < before)
        rows = list(db.session.execute(query.order_by(Event.seq.desc()).limit(limit + 1)).scalars())
        return rows[:limit][::-1], len(rows) > limit

    as_it_is = store.history
    app = create_app({"RATELIMIT_ENABLED": False})
    client = app.test_client()
    path = f"/api/tables/{code}/history?limit=50"
    reads = {"select(Event)": as_it_was, "store.history": as_it_is}
    answers = {}
    for name, read in reads.items():
        store.history = read
        answers[name] = client.get(path).get_json()
    store.history = as_it_is
    assert answers["select(Event)"] == answers["store.history"], "the two reads answer differently"
    times: dict[str, list[float]] = {name: [] for name in reads}
    try:
        for _ in range(repeats):
            for name, read in reads.items():
                store.history = read
                started = time.perf_counter()
                response = client.get(path)
                times[name].append((time.perf_counter() - started) * 1e3)
                assert response.status_code == 200
    finally:
        store.history = as_it_is
        with app.app_context():
            db.session.remove()
            for engine in app.extensions["sqlalchemy"].engines.values():
                engine.dispose()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--keep", help="build in this folder and keep it (default: a temporary one)")
    args = parser.parse_args()
    folder = Path(args.keep or tempfile.mkdtemp(prefix="arbitre-long-"))
    os.environ["ARBITRE_INSTANCE"] = str(folder)
    os.environ.pop("DATABASE_URL", None)
    try:
        table = history.build([args.size])[args.size]
        database = folder / "arbitre.db"
        print("\nA history page (GET /history?limit=50, in process), the read as it was and as it is:")
        times = history_pages(table["code"], args.repeats)
        medians = {}
        for name, values in times.items():
            medians[name] = statistics.median(values)
            print(f"  {name:<14} median {medians[name]:6.2f} ms   p95 {percentile(values, 95):6.2f} ms")
        print(
            f"  ratio          {medians['select(Event)'] / medians['store.history']:.2f}x"
            " (median, as it was / as it is)"
        )
        figures = file_figures(database, args.size)
        print(f"\nThe file at {args.size:,} events (auto_vacuum {figures['auto_vacuum']}):")
        print(
            f"  {figures['size'] / 1e6:8.1f} MB   {figures['per_event']:7.0f} B per event   "
            f"{figures['pages']:,} pages of {figures['page_size']} B, {figures['free_pages']:,} free"
        )
        if figures["events_fill"] is not None:
            print(f"  the events' pages are {figures['events_fill']:.0%} filled by their rows")
        vacuumed = vacuumed_size(database)
        print(f"  after a VACUUM: {vacuumed / 1e6:.1f} MB ({vacuumed / args.size:.0f} B per event)")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
