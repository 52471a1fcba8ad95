"""The server under a referee's taps: write latency and throughput, and how fast every follower hears it.

Run: .venv/bin/python bench/api.py [--events N] [--followers N]
      (PostgreSQL: the same with DATABASE_URL=postgresql://… set, or --postgres to start a throwaway one)
Writes: one referee posting events one after the other over a kept-alive HTTP connection, as the
phone does (each waits for its 201: durable on disk before the answer). Fan-out: N followers hold
the live stream (server-sent events) open; the time is from the referee's 201 to each follower
reading the new version (from when the referee's request leaves, since a follower may hear it
before the referee has read its own 201).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import call, server, summary  # noqa: E402

PLAYERS = [f"Joueur·euse {i}" for i in range(12)]


def writes(base: str, count: int) -> tuple[list[float], float]:
    table = call(base, "/api/tables", {"game": "morto", "players": PLAYERS, "options": {"lives": 9}})
    host = urlsplit(base)
    connection = http.client.HTTPConnection(host.hostname, host.port, timeout=30)
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {table['secret']}"}
    latencies, version = [], 0
    started = time.perf_counter()
    for i in range(count):
        # Touches on the non-dealers until they would die, then undo them: the log stays legal forever.
        if i % 2 == 0:
            path, body = "events", {"id": f"b{i}", "type": "touched_early", "player": f"p{2 + (i // 2) % 11}"}
        else:
            path, body = "undo", {}
        body["version"] = version
        start = time.perf_counter()
        connection.request("POST", f"/api/tables/{table['code']}/{path}", json.dumps(body), headers)
        response = connection.getresponse()
        answer = json.loads(response.read())
        latencies.append((time.perf_counter() - start) * 1e3)
        assert response.status in (200, 201), answer
        version = answer["version"]
    elapsed = time.perf_counter() - started
    connection.close()
    return latencies, count / elapsed


def fan_out(base: str, followers: int, events: int) -> list[float]:
    table = call(base, "/api/tables", {"game": "morto", "players": PLAYERS, "options": {"lives": 9}})
    host = urlsplit(base)
    heard: dict[int, list[float]] = {}
    lock = threading.Lock()
    ready = threading.Barrier(followers + 1)
    stop = time.monotonic() + 120

    def follow() -> None:
        connection = http.client.HTTPConnection(host.hostname, host.port, timeout=30)
        connection.request("GET", f"/api/tables/{table['code']}/stream")
        stream = connection.getresponse()
        first = True
        while time.monotonic() < stop:
            line = stream.readline().decode()
            if line.startswith("id: "):
                version = int(line[4:])
                now = time.perf_counter()
                if first:
                    first = False
                    ready.wait()
                    continue
                with lock:
                    heard.setdefault(version, []).append(now)
                    if version == events and len(heard[version]) == followers:
                        break
        connection.close()

    threads = [threading.Thread(target=follow, daemon=True) for _ in range(followers)]
    for thread in threads:
        thread.start()
    ready.wait()
    sent = {}
    for i in range(1, events + 1):
        sent[i] = time.perf_counter()
        call(
            base,
            f"/api/tables/{table['code']}/events",
            {"id": f"f{i}", "type": "touched_early", "player": f"p{2 + i % 11}"},
            secret=table["secret"],
        )
        time.sleep(0.2)  # a table taps a few times a second at most
    for thread in threads:
        thread.join(30)
    return [(t - sent[v]) * 1e3 for v, times in heard.items() for t in times if v in sent]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=400)
    parser.add_argument("--followers", type=int, default=20)
    parser.add_argument("--postgres", action="store_true", help="start a throwaway PostgreSQL server")
    args = parser.parse_args()
    env, cluster = {}, None
    if args.postgres:
        from tests.support.postgres import PostgresCluster, postgres_bindir

        cluster = PostgresCluster(postgres_bindir(), fsync=True)
        cluster.start()
        env["DATABASE_URL"] = cluster.url(cluster.create_database("bench"))
    try:
        with server(env) as base:
            on_postgres = "DATABASE_URL" in {**os.environ, **env}
            backend = "PostgreSQL" if on_postgres else "SQLite (WAL, synchronous=FULL)"
            latencies, rate = writes(base, args.events)
            print(f"backend: {backend}")
            print(summary("write (event or undo), one referee", latencies))
            print(f"{'writes per second, one referee':<44} {rate:8.1f}")
            lag = fan_out(base, args.followers, 20)
            print(summary(f"tap sent to heard by each of {args.followers} followers", lag))
    finally:
        if cluster:
            cluster.stop()


if __name__ == "__main__":
    main()
