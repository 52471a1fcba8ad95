"""Where one referee's tap spends its time in the real server, against the floor (issue #13, goal 1).

Run: .venv/bin/python bench/tap_time.py [--seconds 6] [--rounds 2] [--postgres]

`bench/floor_server.py` with its timers on (``ARBITRE_BENCH_TIMERS=1``), one worker so that one
process sees every request, on SQLite (WAL, synchronous=FULL) or a throwaway PostgreSQL server
(fsync on). One referee taps an Il Morto table (12 players) over a kept-alive connection, as in
`bench/writes.py` (its own client: a ``touched_early`` then an undo, alternately, each with ``id``
and ``version``), then sends the same bodies to each floor of `bench/floor_server.py`: the floor,
the durable floor (the floor plus one row committed through the app's own SQLite or PostgreSQL
path) and, on SQLite, the bare durable floor (the same row on a plain connection, committed in the
worker's own thread) and the tap rows floor (the rows a tap writes, with their indexes and sizes,
written the same bare way, no rule applied), in rounds. Printed: the round trips the client
measured, then, from the server's own clocks, each part of a request (mean, p50, p95 over every
request of the measured windows), indented under the part it belongs to. What a tap costs beyond
the floor is the difference between their rows; the tap's parts say what that is made of, the
durable floors how much of it one durable row costs, with the app's cooperative path and without,
and the tap rows floor how much a tap's own rows cost the disk.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import call, percentile, serving  # noqa: E402
from floor_server import TIMERS_PATH  # noqa: E402
from writes import TABLE, referee  # noqa: E402

KINDS = {
    "taps": "a tap (an event or an undo)",
    "floor": "the floor",
    "durable floor": "the durable floor (+ a row committed)",
    "bare durable floor": "the bare durable floor (SQLite)",
    "tap rows floor": "the tap rows floor (SQLite)",
}
SQLITE_ONLY = ("bare durable floor", "tap rows floor")  # on the worker's own sqlite3 connection


def line(name: str, values: list[float], scale: float) -> str:
    mean = sum(values) / len(values) if values else float("nan")
    p50, p95 = percentile(values, 0.5) * scale, percentile(values, 0.95) * scale
    return f"{name:46s} n={len(values):6d}  mean {mean * scale:6.3f}  p50 {p50:6.3f}  p95 {p95:6.3f} ms"


def measure(env: dict, seconds: float, rounds: int, kinds: dict) -> None:
    with serving({**env, "ARBITRE_BENCH_TIMERS": "1"}, workers=1, floor=True) as (base, _process):
        table = call(base, "/api/tables", TABLE)
        client: dict[str, list[float]] = collections.defaultdict(list)
        server: dict[str, list[float]] = collections.defaultdict(list)
        for n in range(rounds + 1):  # the first round warms up and is not counted
            for kind in kinds:
                start = time.perf_counter() + 0.2
                out = {
                    "latencies": [],
                    "failed": [],
                    "errors": collections.Counter(),
                    "lock": threading.Lock(),
                }
                urllib.request.urlopen(base + TIMERS_PATH).read()  # forget what came before
                referee(base, table, kind, f"{kind}{n}", start, start + seconds / rounds, out)
                timers = json.loads(urllib.request.urlopen(base + TIMERS_PATH).read())
                if out["errors"]:
                    print(f"errors ({kind}): {dict(out['errors'])}")
                if n:
                    client[kind] += out["latencies"]
                    for name, values in timers.items():
                        server[name] += values
        print("round trip, measured by the client")
        for kind, label in kinds.items():
            print("  " + line(label, client[kind], 1.0))
        print("in the server (its clocks), the parts of each request")
        for name in sorted(server, key=_order):
            print("  " + line(name or "(all)", server[name], 1e3))


def _order(name: str) -> tuple:
    """The report's order: the floor's request, then the tap's, each part after the part it is in."""
    parts = [
        "request: floor",
        "request: durable floor",
        "  its commit",
        "request: bare",
        "request: tap rows",
        "request: tap",
        "  hooks before",
        "  the body",
        "  the write",
        "    the rules",
        "      an undo",
        "    the write's",
        "    one statement",
        "    the commit (SQLite",
        "    the commit (the driver",
        "    followers",
        "  hooks after",
    ]
    return next((i for i, part in enumerate(parts) if name.startswith(part)), len(parts)), name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="measured seconds per kind, in all")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL server (fsync on)")
    args = parser.parse_args()
    print(
        f"one referee, one worker; {args.seconds:g} s measured per kind in {args.rounds} rounds "
        f"(after one unmeasured); {os.cpu_count()} cores"
    )
    if not args.postgres:
        print("backend: SQLite (WAL, synchronous=FULL)")
        measure({}, args.seconds, args.rounds, KINDS)
        return
    from tests.support.postgres import PostgresCluster, postgres_bindir

    cluster = PostgresCluster(postgres_bindir(), fsync=True)
    try:
        cluster.start()
        print("backend: PostgreSQL (throwaway, fsync on, synchronous_commit on)")
        kinds = {kind: label for kind, label in KINDS.items() if kind not in SQLITE_ONLY}
        measure({"DATABASE_URL": cluster.url(cluster.create_database())}, args.seconds, args.rounds, kinds)
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
