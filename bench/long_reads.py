"""A long table's whole-log reads beside a bystander: does reading a long table slow everyone else down?

Run: .venv/bin/python bench/long_reads.py [--events 10000] [--readers 4] [--seconds 10] [--gzip] [--postgres]

1. *Build*, through the API of a real ``companion serve`` (gunicorn, gevent workers): one Il Morto table
   (5 players, 1 life) of ``--events`` events, every one in effect: a touch kills p2, then p4 and p2
   speak to each other in turn (each gives the dead one a life back), which the rules allow for ever.
   The server's limits on a table's length and on its writes a minute are raised (`common.serving`):
   the benchmark builds at the machine's speed on purpose; ``--events`` past the default limit
   (10,000) shows what the limit spares.
2. *Baseline*: a bystander (another table, its own kept-alive connection) asks ``GET
   /api/tables/<code>`` every 20 ms for ``--seconds``, alone.
3. *Load*: the same bystander, while ``--readers`` clients (one kept-alive connection each) ask the
   long table's whole-log reads one after the other, in turn: ``/timeline``, ``/export``,
   ``/export.csv``, ``/log`` and ``/history`` (unpaged); with ``--gzip``, accepting gzip as a browser does.

Printed: the bystander's latency without and with the readers (median, p95, max), in the same run,
and each long read's count, statuses and latency. The machine's load average is printed too: the
benchmark shares its two cores with whatever else runs.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import http.client
import json
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import Client, load_average, percentile, serving, summary  # noqa: E402

PLAYERS = ["Ada", "Bruno", "Chiara", "Dario", "Elena"]
LONG_READS = ["timeline", "export", "export.csv", "log", "history"]
BYSTANDER_PAUSE = 0.02
TIMEOUT = 120


def new_table(client: Client, lives: int = 1) -> dict:
    status, _ms, raw = client.send(
        "POST", "/api/tables", {"game": "morto", "players": PLAYERS, "options": {"lives": lives}}
    )
    assert status == 201, raw[:300]
    return json.loads(raw)


def build(client: Client, events: int) -> dict:
    """The long table: a touch, then p4 and p2 speaking to each other in turn, every event in effect."""
    table = new_table(client)
    started = time.perf_counter()
    living, dead = "p4", "p2"
    for n in range(events):
        if n == 0:
            body = {"id": "e0", "type": "touched_early", "player": "p2"}
        else:
            body = {"id": f"e{n}", "type": "spoke_to_dead", "living": living, "dead": dead}
            living, dead = dead, living
        status, _ms, raw = client.send("POST", f"/api/tables/{table['code']}/events", body, table["secret"])
        if status != 201:
            print(f"the build stopped at event {n}: {status} {raw[:300].decode(errors='replace')}")
            break
        if (n + 1) % 5000 == 0:
            print(f"  ... {n + 1} events in {time.perf_counter() - started:.0f} s", flush=True)
    table["built_seconds"] = time.perf_counter() - started
    table["events"] = n + 1 if status == 201 else n
    return table


def bystander(base: str, code: str, seconds: float) -> list[float]:
    client = Client(base)
    latencies = []
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        status, ms, raw = client.send("GET", f"/api/tables/{code}")
        assert status == 200, raw[:300]
        latencies.append(ms)
        time.sleep(BYSTANDER_PAUSE)
    return latencies


def reader(base: str, code: str, stop: threading.Event, start: int, results: dict, lock, gzip: bool) -> None:
    client, accepted = Client(base, TIMEOUT), {"Accept-Encoding": "gzip"} if gzip else {}
    turn = start
    while not stop.is_set():
        kind = LONG_READS[turn % len(LONG_READS)]
        turn += 1
        try:
            status, ms, raw = client.send("GET", f"/api/tables/{code}/{kind}", headers=accepted)
        except (OSError, http.client.HTTPException) as error:
            status, ms, raw = type(error).__name__, 0.0, b""
        with lock:
            results[kind]["statuses"][status] += 1
            if status == 200:
                results[kind]["ms"].append(ms)
                results[kind]["bytes"] = len(raw)


def run(args, env: dict) -> None:
    with serving(env) as (base, _process):
        builder = Client(base)
        print(f"building a table of {args.events:,} events through the API ...", flush=True)
        table = build(builder, args.events)
        print(f"built: {table['events']:,} events in {table['built_seconds']:.1f} s", flush=True)
        small = new_table(builder)
        bystander(base, small["code"], 1.0)  # warm: every worker has read the small table once
        load_before = load_average()
        baseline = bystander(base, small["code"], args.seconds)

        results = {kind: {"statuses": collections.Counter(), "ms": [], "bytes": 0} for kind in LONG_READS}
        lock, stop = threading.Lock(), threading.Event()
        readers = [
            threading.Thread(
                target=reader, args=(base, table["code"], stop, n, results, lock, args.gzip), daemon=True
            )
            for n in range(args.readers)
        ]
        for thread in readers:
            thread.start()
        time.sleep(0.5)  # every reader has sent its first long read
        loaded = bystander(base, small["code"], args.seconds)
        stop.set()
        for thread in readers:
            thread.join(TIMEOUT)
        load_after = load_average()

    print()
    events, readers = f"{table['events']:,}", args.readers
    gzip = ", accepting gzip" if args.gzip else ""
    print(f"long table: {events} events in effect; {readers} readers{gzip}; {args.seconds:g} s per phase")
    print(summary("bystander GET /api/tables/<code>, alone", baseline))
    print(f"{'':<44} max {max(baseline):8.2f} ms")
    print(summary(f"bystander, beside {args.readers} long readers", loaded))
    print(f"{'':<44} max {max(loaded):8.2f} ms")
    print(
        f"bystander x median {percentile(loaded, 0.5) / percentile(baseline, 0.5):.1f}, "
        f"x p95 {percentile(loaded, 0.95) / percentile(baseline, 0.95):.1f}"
    )
    print()
    for kind in LONG_READS:
        figures = results[kind]
        statuses = ", ".join(
            f"{status}: {count}" for status, count in sorted(figures["statuses"].items(), key=str)
        )
        line = f"GET /{kind:<11} {statuses:<24}"
        if figures["ms"]:
            median, p95 = percentile(figures["ms"], 0.5), percentile(figures["ms"], 0.95)
            line += f" median {median:8.1f} ms   p95 {p95:8.1f} ms   {figures['bytes']:>10,} B"
        print(line)
    print(f"machine load average (1 min), before / after: {load_before} / {load_after} (2 cores)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=10_000, help="events in the long table")
    parser.add_argument("--readers", type=int, default=4, help="clients reading the long table at once")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each phase")
    parser.add_argument("--gzip", action="store_true", help="the readers accept gzip, as browsers do")
    parser.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL server (fsync on)")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        env = {"DATABASE_URL": ""}
        if args.postgres:
            from tests.support.postgres import PostgresCluster, postgres_bindir

            cluster = PostgresCluster(postgres_bindir(), fsync=True)
            cluster.start()
            stack.callback(cluster.stop)
            env["DATABASE_URL"] = cluster.url(cluster.create_database("bench"))
        print(
            "backend:",
            "PostgreSQL (throwaway, fsync on)" if args.postgres else "SQLite (WAL, synchronous=FULL)",
        )
        run(args, env)


if __name__ == "__main__":
    main()
