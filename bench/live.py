"""Live at the scale of a festival: many tables, each with its referee tapping and its phones following.

Run: .venv/bin/python bench/live.py [--tables 200] [--followers 8] [--seconds 30] [--interval 2] [--warmup 5]
                                    [--idle 10000] [--postgres] [--workers N]

One run, against a real ``companion serve`` (gunicorn, gevent workers) on SQLite or on a throwaway
PostgreSQL server (fsync on):

0. *Warm-up*: the referees tap for ``warmup`` seconds, unmeasured.
1. *Taps alone*: every table's referee taps (an event or an undo, each carrying the version it
   follows) every ``interval`` seconds on average, over a kept-alive connection, for ``seconds``.
2. *Taps with followers*: ``tables x followers`` phones follow their table (server-sent events), each
   from its own loopback address (127.1.x.y), driven by asyncio clients in separate processes; the
   referees tap again as in 1. For each accepted tap: the time from the referee reading its answer
   to the last follower of that table reading that version (a follower may read it first: the
   figure can be below zero). Every follower must get every version once, in order: missed and
   doubled versions are counted. Memory per open stream: the server processes' RSS before and
   after the streams opened, over their number.
3. *Idle streams* (``--idle N``): N more phones open a stream on those tables and stay idle for
   ``hold`` seconds (keepalive comments flow meanwhile); counted: streams that got their first state,
   errors, streams still open at the end, memory per stream, and a few taps with their fan-out while
   they are all held.

All traffic stays on 127.0.0.0/8. Clocks are CLOCK_MONOTONIC (``time.perf_counter``), one for the
whole machine, so times compare across processes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import resource
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import percentile, server_cpu, server_workers, serving  # noqa: E402

PLAYERS = [f"Joueur·euse {i}" for i in range(12)]
HOST = "127.0.0.1"
READ_LIMIT = 1 << 20


# --- the server ----------------------------------------------------------------------------------


@contextlib.contextmanager
def serve(env: dict, workers: int | None):
    """``companion serve`` (`common.serving`), every worker booted; yields (base URL, master pid)."""
    # Every table is created from 127.0.0.1: above the per-address limit a festival's NAT gets.
    with serving({"ARBITRE_RATELIMIT_NEW_TABLE": "100000/hour", **env}, workers) as (base, process):
        time.sleep(1)  # every worker booted
        yield base, process.pid


def rss_bytes(master: int) -> int:
    """Resident memory of the server: its master and every worker."""
    total = 0
    for pid in [master, *server_workers(master)]:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
    return total


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU time of the whole machine so far, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


class Usage:
    """CPU used by the server, and by the whole machine, between ``start()`` and ``stop()``."""

    def __init__(self, master: int):
        self.master = master

    def __enter__(self):
        self.started, self.server, self.machine = time.perf_counter(), server_cpu(self.master), machine_busy()
        return self

    def __exit__(self, *exc) -> None:
        elapsed = time.perf_counter() - self.started
        busy, total = machine_busy()
        self.server_cores = (server_cpu(self.master) - self.server) / elapsed
        self.machine_percent = 100 * (busy - self.machine[0]) / max(total - self.machine[1], 1)

    def __str__(self) -> str:
        return f"(server {self.server_cores:.2f} cores; machine {self.machine_percent:.0f}% busy)"


def post(base: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


# --- raw HTTP over asyncio -----------------------------------------------------------------------


async def read_head(reader) -> tuple[int, dict]:
    status = int((await reader.readline()).split()[1])
    headers = {}
    while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers


class Referee:
    """One table's referee: taps over a kept-alive connection, reconnecting if the server closed it."""

    def __init__(self, port: int, table: dict, index: int):
        self.port, self.table, self.index = port, table, index
        self.version, self.count = table["version"], 0
        self.connection = None

    async def tap(self) -> tuple[int, int, float, float]:
        """One event or undo; (table index, version, sent at, answered at)."""
        if self.count % 2 == 0:
            player = f"p{2 + (self.count // 2) % 11}"
            path, body = "events", {"id": f"t{self.count}", "type": "touched_early", "player": player}
        else:
            path, body = "undo", {"id": f"u{self.count}"}
        body["version"] = self.version
        data = json.dumps(body).encode()
        head = (
            f"POST /api/tables/{self.table['code']}/{path} HTTP/1.1\r\nHost: {HOST}\r\n"
            f"Content-Type: application/json\r\nAuthorization: Bearer {self.table['secret']}\r\n"
            f"Content-Length: {len(data)}\r\n\r\n"
        ).encode()
        sent = time.perf_counter()
        for attempt in range(3):  # a retry carries the same id: applied once
            try:
                if self.connection is None:
                    self.connection = await asyncio.open_connection(HOST, self.port)
                reader, writer = self.connection
                writer.write(head + data)
                status, headers = await read_head(reader)
                answer = json.loads(await reader.readexactly(int(headers["content-length"])))
                break
            except (ConnectionError, asyncio.IncompleteReadError, IndexError, ValueError):
                self.connection = None
                if attempt == 2:
                    raise
        answered = time.perf_counter()
        assert status in (200, 201), (status, answer)
        self.version = answer["version"]
        self.count += 1
        return self.index, self.version, sent, answered


async def referees_tap(
    port: int, tables: list[dict], seconds: float, interval: float, referees: list[Referee] | None = None
) -> list[tuple[int, int, float, float]]:
    referees = referees or [Referee(port, table, i) for i, table in enumerate(tables)]
    for referee in referees:
        referee.connection = None  # each phase has its own event loop
    taps: list = []
    ends = time.perf_counter() + seconds

    async def run(referee: Referee) -> None:
        await asyncio.sleep(random.uniform(0, interval))
        while time.perf_counter() < ends:
            taps.append(await referee.tap())
            await asyncio.sleep(random.uniform(0.5, 1.5) * interval)

    await asyncio.gather(*(run(referee) for referee in referees))
    return taps


# --- followers, in client processes --------------------------------------------------------------


async def follow(port: int, code: str, address: str, heard: list, opened: asyncio.Event) -> str:
    """One phone: open the stream, note every version it reads; the reason it stopped."""
    try:
        reader, writer = await asyncio.open_connection(HOST, port, local_addr=(address, 0), limit=READ_LIMIT)
    except OSError as error:
        opened.set()
        return f"connect: {error.strerror or error}"
    try:
        writer.write(
            f"GET /api/tables/{code}/stream HTTP/1.1\r\nHost: {HOST}\r\n"
            f"Accept: text/event-stream\r\n\r\n".encode()
        )
        status, _ = await read_head(reader)
        if status != 200:
            opened.set()
            return f"status {status}"
        while line := await reader.readline():
            if line.startswith(b"id: "):
                heard.append((int(line[4:]), time.perf_counter()))
                opened.set()
        opened.set()
        return "closed by the server"
    except (ConnectionError, asyncio.IncompleteReadError, ValueError, IndexError) as error:
        opened.set()
        return f"error: {error!r}"
    finally:
        writer.close()


def follower_process(
    port: int, phones: list[tuple[int, str, str]], rate: float, ready, stop, results
) -> None:
    """Hold ``phones`` (table index, code, address) open until ``stop``; report what each heard."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    async def main() -> None:
        heard = [[] for _ in phones]
        opened = [asyncio.Event() for _ in phones]
        tasks = []
        for n, (_, code, address) in enumerate(phones):
            tasks.append(asyncio.create_task(follow(port, code, address, heard[n], opened[n])))
            if n % 10 == 9:
                await asyncio.sleep(10 / rate)  # a crowd arriving, not one burst of SYNs
        await asyncio.wait_for(asyncio.gather(*(event.wait() for event in opened)), 120)
        ready.put(sum(1 for h in heard if h))
        while not stop.is_set():
            await asyncio.sleep(0.1)
        ended = [task.result() if task.done() else None for task in tasks]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        results.put([(phones[n][0], heard[n], ended[n]) for n in range(len(phones))])

    asyncio.run(main())


class Crowd:
    """Followers spread over client processes; ``open()`` returns once each has its first state."""

    def __init__(self, port: int, phones: list[tuple[int, str, str]], processes: int, rate: float):
        context = multiprocessing.get_context("fork")
        self.ready, self.results, self.stop = context.Queue(), context.Queue(), context.Event()
        shares = [phones[i::processes] for i in range(processes)]
        self.processes = [
            context.Process(
                target=follower_process,
                daemon=True,
                args=(port, share, rate / processes, self.ready, self.stop, self.results),
            )
            for share in shares
            if share
        ]

    def open(self) -> int:
        for process in self.processes:
            process.start()
        return sum(self.ready.get(timeout=180) for _ in self.processes)

    def close(self) -> list[tuple[int, list, str | None]]:
        self.stop.set()
        heard = [item for _ in self.processes for item in self.results.get(timeout=120)]
        for process in self.processes:
            process.join(30)
        return heard


def addresses(first: int):
    """One loopback address per phone (127.<first>.x.y), as phones on a network each have theirs."""
    n = 0
    while True:
        yield f"127.{first + n // 62500}.{n // 250 % 250}.{n % 250 + 1}"
        n += 1


# --- figures -------------------------------------------------------------------------------------


def line(label: str, values: list[float], unit: str = "ms") -> str:
    if not values:
        return f"{label:<46} n=0"
    return (
        f"{label:<46} n={len(values):<6} p50 {percentile(values, 0.5):8.1f} {unit}  p95 "
        f"{percentile(values, 0.95):8.1f} {unit}  p99 {percentile(values, 0.99):8.1f} {unit}"
        f"  max {max(values):8.1f} {unit}"
    )


def fan_out(taps, heard, tables: int) -> tuple[list[float], int, int, int]:
    """Per tap, answer to the last follower of its table; and missed, doubled, out-of-order versions."""
    followers: dict[int, list[list[tuple[int, float]]]] = {i: [] for i in range(tables)}
    for index, versions, _ in heard:
        followers[index].append(versions)
    answered = {(index, version): at for index, version, _, at in taps}
    newest: dict[int, int] = {}
    for index, version, _, _ in taps:
        newest[index] = max(newest.get(index, 0), version)
    lags, missed, doubled, disorder = [], 0, 0, 0
    reached: dict[tuple[int, int], list[float]] = {}
    for index, streams in followers.items():
        for versions in streams:
            ids = [v for v, _ in versions]
            if not ids:
                continue
            first = ids[0]  # the state the phone opened on
            expected = set(range(first + 1, newest.get(index, first) + 1))
            got = ids[1:]
            missed += len(expected - set(got))
            doubled += len(got) - len(set(got))
            disorder += sum(1 for a, b in zip(ids, ids[1:], strict=False) if b <= a)
            for version, at in versions[1:]:
                reached.setdefault((index, version), []).append(at)
    for key, at in answered.items():
        arrivals = reached.get(key, [])
        if len(arrivals) == len(followers[key[0]]) and arrivals:
            lags.append((max(arrivals) - at) * 1e3)
    return lags, missed, doubled, disorder


# --- the run -------------------------------------------------------------------------------------


def run(args, base: str, master: int) -> None:
    port = int(base.rsplit(":", 1)[1])
    tables = [
        post(base, "/api/tables", {"game": "morto", "players": PLAYERS, "options": {"lives": 9}})
        for _ in range(args.tables)
    ]
    referees = [Referee(port, table, i) for i, table in enumerate(tables)]
    # Unmeasured: every worker opens its pool of database connections (a PostgreSQL connection is a
    # process) and warms its caches, so the first phase is not charged for it.
    asyncio.run(referees_tap(port, tables, args.warmup, args.interval, referees))

    with Usage(master) as usage:
        alone = asyncio.run(referees_tap(port, tables, args.seconds, args.interval, referees))
    print(f"{len(tables)} tables, one referee each, a tap every {args.interval:g} s on average per table")
    print(line("tap round trip, no follower", [(a - s) * 1e3 for _, _, s, a in alone]), usage)

    phones = [
        (i, table["code"], address)
        for i, table in enumerate(tables)
        for address in [next(ADDRESSES) for _ in range(args.followers)]
    ]
    before = rss_bytes(master)
    started = time.perf_counter()
    crowd = Crowd(port, phones, args.clients, args.arrivals)
    opened = crowd.open()
    took = time.perf_counter() - started
    time.sleep(2)
    after = rss_bytes(master)
    print(
        f"followers: {opened} of {len(phones)} streams opened in {took:.1f} s; server RSS "
        f"{before / 2**20:.0f} -> {after / 2**20:.0f} MiB: "
        f"{(after - before) / max(opened, 1) / 1024:.1f} KiB per open stream"
    )
    with Usage(master) as usage:
        with_followers = asyncio.run(referees_tap(port, tables, args.seconds, args.interval, referees))
    time.sleep(3)  # the last taps reach their followers
    heard = crowd.close()
    print(
        line(f"tap round trip, {opened} followers", [(a - s) * 1e3 for _, _, s, a in with_followers]), usage
    )
    lags, missed, doubled, disorder = fan_out(with_followers, heard, len(tables))
    print(line("tap answered -> last follower of its table", lags))
    print(
        f"{'versions missed / doubled / out of order':<46} {missed} / {doubled} / {disorder}"
        f"   (over {len(with_followers)} taps x {args.followers} followers)"
    )
    ended = [reason for _, _, reason in heard if reason]
    print(f"{'streams that ended early':<46} {len(ended)} {sorted(set(ended))[:3]}")

    if args.idle:
        idle(args, port, master, tables, referees)


def idle(args, port: int, master: int, tables: list[dict], referees: list[Referee]) -> None:
    phones = [(i % len(tables), tables[i % len(tables)]["code"], next(ADDRESSES)) for i in range(args.idle)]
    time.sleep(2)
    before = rss_bytes(master)
    started = time.perf_counter()
    crowd = Crowd(port, phones, max(args.clients, 4), args.arrivals)
    opened = crowd.open()
    took = time.perf_counter() - started
    time.sleep(2)
    after = rss_bytes(master)
    print(
        f"idle: {opened} of {args.idle} streams opened in {took:.1f} s; server RSS {before / 2**20:.0f} -> "
        f"{after / 2**20:.0f} MiB: {(after - before) / max(opened, 1) / 1024:.1f} KiB per open stream"
    )
    time.sleep(args.hold)
    chosen = random.Random(1).sample(referees, min(20, len(referees)))

    async def taps() -> list:
        done = []
        for referee in chosen:
            done.append(await referee.tap())
            await asyncio.sleep(0.2)
        return done

    for referee in chosen:
        referee.connection = None
    tapped = asyncio.run(taps())
    time.sleep(3)
    heard = crowd.close()
    ended = [reason for _, _, reason in heard if reason]
    print(
        f"idle: held {args.hold:g} s; streams refused or ended early: {len(ended)} {sorted(set(ended))[:3]}"
    )
    print(line(f"tap round trip, {opened} idle streams open", [(a - s) * 1e3 for _, _, s, a in tapped]))
    lags, missed, doubled, _ = fan_out(tapped, heard, len(tables))
    per_table = args.idle // len(tables)
    print(line(f"tap answered -> last of its ~{per_table} followers", lags))
    print(f"{'idle: versions missed / doubled':<46} {missed} / {doubled}")


ADDRESSES = addresses(1)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--followers", type=int, default=8, help="per table")
    parser.add_argument("--seconds", type=float, default=30, help="of tapping, in each phase")
    parser.add_argument("--warmup", type=float, default=5, help="seconds of unmeasured tapping first")
    parser.add_argument("--interval", type=float, default=2.0, help="mean seconds between a table's taps")
    parser.add_argument("--idle", type=int, default=0, help="idle streams to open and hold after the rest")
    parser.add_argument("--hold", type=float, default=20, help="seconds the idle streams are held")
    parser.add_argument("--clients", type=int, default=2, help="follower client processes")
    parser.add_argument("--arrivals", type=float, default=500, help="phones opening a stream per second")
    parser.add_argument("--workers", type=int, default=None, help="server processes (default: serve's)")
    parser.add_argument("--postgres", action="store_true", help="start a throwaway PostgreSQL server")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    env, cluster = {}, None
    if args.postgres:
        from tests.postgres import PostgresCluster, postgres_bindir

        cluster = PostgresCluster(postgres_bindir(), fsync=True)
        cluster.start()
        env["DATABASE_URL"] = cluster.url(cluster.create_database("bench"))
    else:
        env["DATABASE_URL"] = ""
    try:
        with serve(env, args.workers) as (base, master):
            workers = len(server_workers(master))
            backend = "PostgreSQL (fsync on)" if args.postgres else "SQLite (WAL, synchronous=FULL)"
            print(
                f"backend: {backend}; server: gunicorn + gevent, {workers} workers; "
                f"{os.cpu_count()} cores shared with the clients"
            )
            run(args, base, master)
    finally:
        if cluster:
            cluster.stop()


if __name__ == "__main__":
    main()
