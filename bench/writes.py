"""Taps against the floor: round trip and throughput with 1, 10 and 50 referees (issue #13, goal 1).

Run: .venv/bin/python bench/writes.py [--referees 1,10,50] [--duration 10] [--rounds 2] [--processes 4]
                                      [--postgres | --both] [--workers N]

One server per backend: `bench/floor_server.py` (= ``companion serve``: gunicorn, gevent workers,
one per core, at least two; plus ``POST /bench/floor``), on SQLite in a fresh instance folder (WAL,
synchronous=FULL: an acknowledged tap is on disk) or on a throwaway PostgreSQL server with fsync on
(``--postgres``; ``--both`` runs SQLite, then PostgreSQL, and prints PostgreSQL / SQLite).

For each number R of referees, R new Il Morto tables (12 players, 9 lives), one per referee. Each
referee is a client thread with one kept-alive HTTP connection posting one request at a time and
waiting for its answer, as the phone does: alternately a ``touched_early`` event (201) and an undo
(200), each carrying ``id`` and ``version`` (the table's log stays legal forever). The floor phase
sends the same bodies, with the same headers, over the same kind of connection, to the floor
endpoint (200). The referees run in ``--processes`` client processes (threads inside each), so the
client's GIL is not the bottleneck; the CPU the client and the server used is printed with each
phase (the machine's cores are shared by both).

Phases alternate, floor then taps, ``--rounds`` times, each ``duration / rounds`` seconds long;
each phase's clients first tap unmeasured for ``--warmup`` seconds (connections open, server warm),
then every request that starts and ends inside the measured window counts. Per R: requests per
second (all referees together), p50 and p95 round trip, the same for the floor, and the ratios
p95 / floor p95 and rate / floor rate. A non-2xx answer or a failed connection is counted and
printed; its time until it failed counts in the percentiles (not in the rate), so a stuck request
is not hidden. After a failed write the referee re-reads its table's log and goes on.
"""

from __future__ import annotations

import argparse
import collections
import http.client
import json
import multiprocessing
import os
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import call, percentile, server_cpu, serving  # noqa: E402
from floor_server import BARE_DURABLE_FLOOR_PATH, DURABLE_FLOOR_PATH, FLOOR_PATH, TAP_ROWS_FLOOR_PATH  # noqa: E402

PLAYERS = [f"Joueur·euse {i}" for i in range(12)]
TABLE = {"game": "morto", "players": PLAYERS, "options": {"lives": 9}}
FLOORS = {
    "floor": FLOOR_PATH,
    "durable floor": DURABLE_FLOOR_PATH,  # the paths of `bench/floor_server.py`
    "bare durable floor": BARE_DURABLE_FLOOR_PATH,
    "tap rows floor": TAP_ROWS_FLOOR_PATH,
}
TIMEOUT = 30.0  # seconds a request may take before it counts as failed
GIVE_UP = 90.0  # seconds after the end of a phase when a referee stops cleaning up its table


# --- one referee -----------------------------------------------------------------------------------


def tap(tag: str, i: int, version: int) -> tuple[str, dict, int]:
    """A referee's ``i``-th request: where it goes (``events`` or ``undo``), its body, and the status
    it gets. Alternately a ``touched_early`` on the non-dealers in turn and its undo, so the log stays
    legal forever."""
    if i % 2 == 0:
        body = {"id": f"{tag}-{i}", "type": "touched_early", "player": f"p{2 + (i // 2) % 11}"}
        return "events", {**body, "version": version}, 201
    return "undo", {"id": f"{tag}-{i}", "version": version}, 200


def referee(base: str, table: dict, kind: str, tag: str, start_at: float, end_at: float, out: dict) -> None:
    """Post taps (or the same bodies to the floor) one after the other until ``end_at``; keep the
    latencies of the requests that start at or after ``start_at`` and end by ``end_at``. A failed
    request (no answer, or not the expected status) is counted by kind, and its time is kept apart."""
    host = urlsplit(base)
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {table['secret']}"}
    code = table["code"]
    latencies: list[float] = []
    failed: list[float] = []
    errors: collections.Counter = collections.Counter()
    connection = http.client.HTTPConnection(host.hostname, host.port, timeout=TIMEOUT)
    resync = kind == "taps"  # read the table's version (and whether a touch is in effect) first
    version, i = 0, 0
    while True:
        now = time.perf_counter()
        # Stop only before an event: a table is always left with its last touch undone. A table
        # that cannot be cleaned up in time is left as it is (the next phase resyncs).
        if (now >= end_at and i % 2 == 0 and not resync) or now >= end_at + GIVE_UP:
            break
        if resync:
            try:
                version, i = _resync(base, code, i)
                resync = False
            except Exception as error:  # noqa: BLE001 - counted, and tried again
                errors[f"resync {_name(error)}"] += 1
                time.sleep(0.2)
                continue
        path, body, expected = tap(tag, i, version)
        url = FLOORS.get(kind) or f"/api/tables/{code}/{path}"
        expected = 200 if kind in FLOORS else expected
        start = time.perf_counter()
        try:
            connection.request("POST", url, json.dumps(body).encode(), headers)
            response = connection.getresponse()
            raw = response.read()
            status = response.status
        except Exception as error:  # noqa: BLE001 - counted; the write may or may not have been applied
            status, raw = _name(error), b""
            connection.close()
            connection = http.client.HTTPConnection(host.hostname, host.port, timeout=TIMEOUT)
        end = time.perf_counter()
        inside = start >= start_at and end <= end_at
        if status != expected:
            errors[f"HTTP {status}" if isinstance(status, int) else status] += 1
            if start >= start_at:  # in the percentiles too, with its time until it failed
                failed.append((end - start) * 1e3)
                latencies.append((end - start) * 1e3)
            resync = kind == "taps"
            continue
        if kind == "taps":
            version = json.loads(raw)["version"]
        if inside:
            latencies.append((end - start) * 1e3)
        i += 1
    connection.close()
    with out["lock"]:
        out["latencies"].extend(latencies)
        out["failed"].extend(failed)
        out["errors"].update(errors)


def _name(error: Exception) -> str:
    return type(error).__name__


def _resync(base: str, code: str, i: int) -> tuple[int, int]:
    """The table's version, and the next request's number, odd (an undo) if a touch is in effect
    (every table is otherwise left clean): at the start, and after a failed write, which may or may
    not have been applied."""
    log = call(base, f"/api/tables/{code}/log")
    pending = 1 if log["events"] else 0
    return log["version"], i + (i % 2 != pending)


def client_process(
    base: str, tables: list[dict], kind: str, tag: str, start_at: float, end_at: float, results
) -> None:
    out = {"latencies": [], "failed": [], "errors": collections.Counter(), "lock": threading.Lock()}
    threads = [
        threading.Thread(target=referee, args=(base, t, kind, f"{tag}-{t['code']}", start_at, end_at, out))
        for t in tables
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    results.put((out["latencies"], out["failed"], dict(out["errors"]), usage.ru_utime + usage.ru_stime))


# --- measuring -------------------------------------------------------------------------------------


class Phase:
    def __init__(self):
        self.latencies: list[float] = []
        self.failed: list[float] = []  # round trips of the failed requests (not in the latencies)
        self.errors: collections.Counter = collections.Counter()
        self.seconds = 0.0
        self.server_cpu = 0.0
        self.client_cpu = 0.0

    def rate(self) -> float:
        done = len(self.latencies) - len(self.failed)
        return done / self.seconds if self.seconds else 0.0

    def p(self, q: float) -> float:
        return percentile(self.latencies, q)


def run_phase(
    base: str,
    master: int,
    tables: list[dict],
    kind: str,
    tag: str,
    seconds: float,
    warmup: float,
    processes: int,
    phase: Phase,
) -> None:
    groups = [tables[i::processes] for i in range(min(processes, len(tables)))]
    results = multiprocessing.Queue()
    start_at = time.perf_counter() + 0.5 + warmup  # CLOCK_MONOTONIC: one clock for every process
    end_at = start_at + seconds
    children = [
        multiprocessing.Process(
            target=client_process, args=(base, group, kind, f"{tag}{n}", start_at, end_at, results)
        )
        for n, group in enumerate(groups)
    ]
    for child in children:
        child.start()
    time.sleep(max(0.0, start_at - time.perf_counter()))
    cpu_before = server_cpu(master)
    time.sleep(max(0.0, end_at - time.perf_counter()))
    phase.server_cpu += server_cpu(master) - cpu_before
    for _ in children:
        latencies, failed, errors, cpu = results.get(timeout=seconds + warmup + GIVE_UP + 2 * TIMEOUT)
        phase.latencies += latencies
        phase.failed += failed
        phase.errors.update(errors)
        phase.client_cpu += cpu * seconds / (seconds + warmup + 0.5)  # about the measured window's share
    for child in children:
        child.join(30)
    phase.seconds += seconds


def measure(
    env: dict,
    counts: list[int],
    duration: float,
    rounds: int,
    warmup: float,
    processes: int,
    workers: int | None,
    log_copy: str,
) -> dict[int, tuple[Phase, Phase]]:
    figures = {}
    env = {"ARBITRE_RATELIMIT_NEW_TABLE": "100000/hour", **env}
    with serving(env, workers, floor=True, log_copy=log_copy) as (base, process):
        time.sleep(1)  # every worker booted
        for r in counts:
            tables = [call(base, "/api/tables", TABLE) for _ in range(r)]
            floor, taps = Phase(), Phase()
            for round_ in range(rounds):
                for kind, phase in (("floor", floor), ("taps", taps)):
                    run_phase(
                        base,
                        process.pid,
                        tables,
                        kind,
                        f"r{r}{kind[0]}{round_}-",
                        duration / rounds,
                        warmup,
                        processes,
                        phase,
                    )
            figures[r] = (floor, taps)
            print(row(r, min(processes, r), floor, taps), flush=True)
    return figures


# --- printing --------------------------------------------------------------------------------------

HEADER = (
    f"{'R':>3} {'proc':>4} | {'taps/s':>7} {'p50 ms':>7} {'p95 ms':>7} | {'floor/s':>7} {'p50 ms':>7}"
    f" {'p95 ms':>7} | {'p95/floor':>9} {'rate/floor':>10} | {'server t/f':>10} {'client t/f':>10}"
    " | errors"
)


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def row(r: int, processes: int, floor: Phase, taps: Phase) -> str:
    errors = []
    for name, phase in (("floor", floor), ("taps", taps)):
        if phase.errors:
            listed = ", ".join(f"{k}: {v}" for k, v in phase.errors.items())
            worst = f"; slowest failure {max(phase.failed):.0f} ms" if phase.failed else ""
            errors.append(f"{name} {listed}{worst}")
    server = f"{taps.server_cpu / taps.seconds:.2f}/{floor.server_cpu / floor.seconds:.2f}"
    client = f"{taps.client_cpu / taps.seconds:.2f}/{floor.client_cpu / floor.seconds:.2f}"
    return (
        f"{r:>3} {processes:>4} | {taps.rate():7.0f} {taps.p(0.5):7.2f} {taps.p(0.95):7.2f} | "
        f"{floor.rate():7.0f} {floor.p(0.5):7.2f} {floor.p(0.95):7.2f} | "
        f"{ratio(taps.p(0.95), floor.p(0.95)):9.2f} {ratio(taps.rate(), floor.rate()):10.2f} | "
        f"{server:>10} {client:>10} | {'; '.join(errors) or 'none'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--referees", default="1,10,50", help="comma-separated numbers of referees")
    parser.add_argument(
        "--duration", type=float, default=10.0, help="measured seconds per R, for taps and for the floor each"
    )
    parser.add_argument(
        "--rounds", type=int, default=2, help="floor/taps alternations the duration is split into"
    )
    parser.add_argument(
        "--warmup", type=float, default=1.0, help="unmeasured seconds at the start of each phase"
    )
    parser.add_argument("--processes", type=int, default=4, help="client processes (at most one per referee)")
    parser.add_argument(
        "--workers", type=int, default=None, help="server workers [default: as companion serve]"
    )
    parser.add_argument(
        "--logs", default=tempfile.gettempdir(), help="folder for a copy of each server's log"
    )
    backend = parser.add_mutually_exclusive_group()
    backend.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL server (fsync on)")
    backend.add_argument("--both", action="store_true", help="SQLite, then PostgreSQL; and their ratio")
    args = parser.parse_args()
    counts = [int(n) for n in args.referees.split(",")]
    runs = ["sqlite", "postgres"] if args.both else ["postgres" if args.postgres else "sqlite"]
    print(
        f"machine: {os.cpu_count()} cores; client: up to {args.processes} processes (threads inside), "
        f"{args.duration:g} s measured per R and kind in {args.rounds} rounds, "
        f"{args.warmup:g} s warm-up each"
    )
    print(
        "server/client t/f: CPU cores used by the server and by the client processes while measuring "
        "taps / the floor"
    )
    results = {}
    for name in runs:
        env, cluster = {}, None
        if name == "postgres":
            from tests.support.postgres import PostgresCluster, postgres_bindir

            cluster = PostgresCluster(postgres_bindir(), fsync=True)
            cluster.start()
            env["DATABASE_URL"] = cluster.url(cluster.create_database("bench"))
            print("\nbackend: PostgreSQL (throwaway, fsync on, synchronous_commit on)")
        else:
            env["DATABASE_URL"] = ""  # the instance folder's SQLite, even if the caller set one
            print("\nbackend: SQLite (WAL, synchronous=FULL)")
        print(HEADER)
        try:
            log_copy = f"{args.logs}/writes-server-{name}.log"
            results[name] = measure(
                env, counts, args.duration, args.rounds, args.warmup, args.processes, args.workers, log_copy
            )
            print(f"server log: {log_copy}")
        finally:
            if cluster:
                cluster.stop()
    if len(results) == 2:
        print("\nPostgreSQL / SQLite (same run; > 1 means PostgreSQL is slower)")
        print(f"{'R':>3} | {'p95':>6} {'p50':>6} {'rate':>6} | floor: {'p95':>6} {'rate':>6}")
        for r in counts:
            (sf, st), (pf, pt) = results["sqlite"][r], results["postgres"][r]
            print(
                f"{r:>3} | {ratio(pt.p(0.95), st.p(0.95)):6.2f} {ratio(pt.p(0.5), st.p(0.5)):6.2f} "
                f"{ratio(st.rate(), pt.rate()):6.2f} | floor: {ratio(pf.p(0.95), sf.p(0.95)):6.2f} "
                f"{ratio(sf.rate(), pf.rate()):6.2f}"
            )
        print("(rate column: SQLite rate / PostgreSQL rate, so > 1 also means PostgreSQL is slower)")


if __name__ == "__main__":
    main()
