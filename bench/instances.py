"""Two instances on one PostgreSQL: how late a tap reaches the followers of the *other* instance, and
whether a second instance adds capacity (issue 28, item 3).

Run: .venv/bin/python bench/instances.py [--tables 200] [--followers 8] [--interval 2] [--seconds 15]
                                         [--workers 2] [--configs one,two-a,two-both]
     e.g. --tables 1 --followers 1600 --interval 1 (one table followed by a crowd)

A throwaway PostgreSQL server (fsync on, ``max_connections`` raised to what docs/DEPLOY.md asks:
instances × workers × 42), and ``companion serve`` instances on it as docs/DEPLOY.md deploys them:
each its own instance folder, nothing shared but ``DATABASE_URL`` (`bench/floor_server.py`, the same
server plus a count of its SQL statements; no reverse proxy: each phone is sent to an instance by
the benchmark, as nginx's ``least_conn`` would spread them). The phones are `bench/live.py`'s: a
follower loads its page (one in two a table view, the others a player's own page) and opens
``stream?since=``; a referee taps (an event or an undo) over a kept-alive connection from its
phone's own address, every ``interval`` seconds on average per table. The same load, in turn:

- *one*: instance A alone (B not started yet); every follower and every referee on A;
- *two-a*: B started; the followers split half and half between A and B (each table's followers
  alike), the referees tapping through A only: delivery to the followers on A (the tap's own
  instance) and on B (across instances, through PostgreSQL's ``NOTIFY``) reported apart;
- *two-both*: the same followers' split, the taps through both instances (with several tables, a
  table's referee on A or B by turns; with one table, its referee's taps alternate between them):
  the load of *one* spread over two instances.

Per configuration: the referee's tap round trip (p50 / p95 / max); per tap, the time from its
answer to the last follower of its table that reads it, over the followers on the tap's own
instance and over those on the other (p50 / p95 / max), and versions missed, doubled and out of
order; the SQL statements per tap; and the processor time used in the measured window (from
/proc): each instance's processes (its arbiter and workers), PostgreSQL's (the postmaster and its
backends), the benchmark's clients, the machine's busy share and how long tasks waited for a core
(Linux's pressure stall information). The server's processor time per tap and per frame sent
(a frame: one version to one follower) is each instance's own capacity, which the machine's cores
do not hide: **all instances run on this machine's cores**, with PostgreSQL and the phones, so two
instances here can only show whether the work divides, not that throughput doubles.

Before the measured configurations: ``warmup`` seconds of taps on A alone (unmeasured), then the
same with nothing else (the no-follower baseline). Clocks: ``time.perf_counter`` (CLOCK_MONOTONIC,
one for the machine), so times compare across processes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import percentile, server_cpu, server_workers  # noqa: E402
from live import (  # noqa: E402
    PLAYERS,
    Crowd,
    Statements,
    Writer,
    addresses,
    cpu_waited,
    machine_busy,
    post,
    serve,
)

from tests.support.postgres import PostgresCluster, postgres_bindir  # noqa: E402

CONNECTIONS_PER_WORKER = 42  # docs/DEPLOY.md: POOL_SIZE (20), as many more at a peak, the bus's two
ADDRESSES = addresses(1)


# --- the servers ---------------------------------------------------------------------------------


def postgres(instances: int, workers: int) -> PostgresCluster:
    """A throwaway cluster (fsync on), restarted with the connections docs/DEPLOY.md asks for."""
    bindir = postgres_bindir()
    if bindir is None:
        raise SystemExit("PostgreSQL is not installed")
    cluster = PostgresCluster(bindir, fsync=True)
    cluster.start()
    wanted = instances * workers * CONNECTIONS_PER_WORKER + 10
    with cluster.connect() as connection:
        connection.execute(f"ALTER SYSTEM SET max_connections = {wanted}")
    options = f"-k {cluster.dir} -p {cluster.port} -c listen_addresses='' -c fsync=on"
    log = os.path.join(cluster.dir, "log")
    cluster._run("pg_ctl", "-D", cluster.data, "-l", log, "-o", options, "-w", "restart")
    return cluster


def postgres_cpu(cluster: PostgresCluster) -> float:
    """CPU seconds used so far by PostgreSQL: the postmaster, its children (the backends) and the
    children it has reaped."""
    master = int(Path(cluster.data, "postmaster.pid").read_text().split()[0])
    ticks = 0
    for pid in [master, *server_workers(master)]:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
            if pid == master:
                ticks += int(fields[13]) + int(fields[14])
    return ticks / os.sysconf("SC_CLK_TCK")


class Instance:
    """A running instance: its name, base URL, port and master pid."""

    def __init__(self, name: str, base: str, master: int):
        self.name, self.base, self.master = name, base, master
        self.port = int(base.rsplit(":", 1)[1])


class Usage:
    """Processor time between ``__enter__`` and ``__exit__``: each instance's, PostgreSQL's, the
    benchmark's clients', the machine's busy share, the time tasks waited for a core."""

    def __init__(self, instances: list[Instance], cluster: PostgresCluster):
        self.instances, self.cluster = instances, cluster

    def _now(self) -> dict:
        busy, total = machine_busy()
        return {
            "at": time.perf_counter(),
            "instances": [server_cpu(i.master) for i in self.instances],
            "postgres": postgres_cpu(self.cluster),
            "clients": clients_cpu({i.master for i in self.instances}),
            "busy": busy,
            "total": total,
            "waited": cpu_waited(),
        }

    def __enter__(self):
        self.before = self._now()
        return self

    def __exit__(self, *exc) -> None:
        after, before = self._now(), self.before
        self.elapsed = after["at"] - before["at"]
        self.instance_seconds = [a - b for a, b in zip(after["instances"], before["instances"], strict=True)]
        self.postgres_seconds = after["postgres"] - before["postgres"]
        self.client_seconds = after["clients"] - before["clients"]
        ticks = max(after["total"] - before["total"], 1)
        self.machine_percent = 100 * (after["busy"] - before["busy"]) / ticks
        self.waiting_percent = 100 * (after["waited"] - before["waited"]) / self.elapsed

    def __str__(self) -> str:
        pairs = zip(self.instances, self.instance_seconds, strict=True)
        cores = ", ".join(f"{i.name} {s / self.elapsed:.2f}" for i, s in pairs)
        return (
            f"cores used: {cores}, PostgreSQL {self.postgres_seconds / self.elapsed:.2f}, "
            f"the phones' clients {self.client_seconds / self.elapsed:.2f}; "
            f"machine {self.machine_percent:.0f}% busy, "
            f"tasks waiting for a core {self.waiting_percent:.0f}% of the time"
        )


# --- the phones ----------------------------------------------------------------------------------


class Tapper:
    """A table's referee for the whole run (its tap ids and the version it follows carry over from
    one configuration to the next): an event or an undo at each tap, as `bench/live.py`'s referees,
    over a kept-alive connection per instance from its phone's own address, through each of
    ``ports`` in turn (one port: always it)."""

    def __init__(self, port: int, table: dict, index: int, address: str):
        self.table, self.index, self.address = table, index, address
        self.version, self.count = table["version"], 0
        self.through([port])

    def through(self, ports: list[int]) -> None:
        """Tap through ``ports`` from now on; no connection carries over (each phase has its own
        event loop)."""
        self.ports, self.turn = ports, 0
        code, secret = self.table["code"], self.table["secret"]
        self.phones = {port: Writer(port, code, secret, self.address) for port in ports}

    async def tap(self) -> tuple[int, int, float, float, int]:
        """(table index, version, sent at, answered at, the port it went through)."""
        port = self.ports[self.turn % len(self.ports)]
        self.turn += 1
        if self.count % 2 == 0:
            player = f"p{2 + (self.count // 2) % 11}"
            path, body = "events", {"id": f"t{self.count}", "type": "touched_early", "player": player}
        else:
            path, body = "undo", {"id": f"u{self.count}"}
        sent = time.perf_counter()
        status, answer = await self.phones[port].post(path, {**body, "version": self.version})
        answered = time.perf_counter()
        assert status in (200, 201), (status, answer)
        self.version = answer["version"]
        self.count += 1
        return self.index, self.version, sent, answered, port


async def tapping(referees: list[Tapper], seconds: float, interval: float) -> list[tuple]:
    """Every referee taps every ``interval`` seconds on average for ``seconds``; per tap (table index,
    version, sent, answered, the port it went through)."""
    for referee in referees:
        referee.through(referee.ports)
    taps: list = []
    ends = time.perf_counter() + seconds

    async def run(referee: Tapper) -> None:
        await asyncio.sleep(random.uniform(0, interval))
        while time.perf_counter() < ends:
            taps.append(await referee.tap())
            await asyncio.sleep(random.uniform(0.5, 1.5) * interval)

    await asyncio.gather(*(run(referee) for referee in referees))
    return taps


def clients_cpu(excluded: set[int]) -> float:
    """CPU seconds used so far by this process (the referees) and its children but ``excluded`` (the
    phones' client processes; the instances' masters are excluded)."""
    total = 0.0
    for pid in [os.getpid(), *(p for p in server_workers(os.getpid()) if p not in excluded)]:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def phones_for(tables: list[dict], followers: int, instances: list[Instance]) -> dict[int, list[tuple]]:
    """Each table's followers (half table views, half players' pages), dealt in turn to the
    instances; by port, `bench/live.py`'s phones (table index, code, address, page kind, player)."""
    kinds = ["view", "player"] * (followers // 2) + ["view"] * (followers % 2)
    dealt: dict[int, list[tuple]] = {i.port: [] for i in instances}
    for index, table in enumerate(tables):
        for n, kind in enumerate(kinds):
            phone = (index, table["code"], next(ADDRESSES), kind, f"p{1 + n % len(PLAYERS)}")
            dealt[instances[n % len(instances)].port].append(phone)
    return dealt


# --- figures -------------------------------------------------------------------------------------


def delivery(taps: list[tuple], heard: dict[int, list]) -> dict[str, dict]:
    """Per tap, its answer to the last follower of its table that read it, over the followers on the
    tap's own instance (*same*) and over those on another (*other*); and, per group, the versions
    missed, doubled and out of order. ``heard``: by port, `Crowd.close`'s (table index, versions
    read with when, how it ended)."""
    newest: dict[int, int] = {}
    for index, version, *_ in taps:
        newest[index] = max(newest.get(index, 0), version)
    groups: dict[str, dict] = {"same": {"lags": []}, "other": {"lags": []}}
    # (table, port) -> followers on that port, each a {version: when read}
    read: dict[tuple[int, int], list[dict[int, float]]] = {}
    counts: dict[int, dict] = {}  # port -> its missed / doubled / out of order
    for port, phones in heard.items():
        counts[port] = {"missed": 0, "doubled": 0, "disorder": 0}
        for index, versions, _ in phones:
            ids = [v for v, _ in versions]
            if not ids:
                continue
            got = ids[1:]  # after the state the page opened on
            counts[port]["missed"] += len(set(range(ids[0] + 1, newest.get(index, ids[0]) + 1)) - set(got))
            counts[port]["doubled"] += len(got) - len(set(got))
            counts[port]["disorder"] += sum(1 for a, b in zip(ids, ids[1:], strict=False) if b <= a)
            read.setdefault((index, port), []).append(dict(versions[1:]))
    paired: list[float] = []  # per tap, the other instance's last follower minus the tap's own's
    for index, version, _, answered, tapped_on in taps:
        last: dict[str, float] = {}
        for port in heard:
            name = "same" if port == tapped_on else "other"
            followers = read.get((index, port), [])
            arrivals = [f[version] for f in followers if version in f]
            if followers and len(arrivals) == len(followers):
                last[name] = max(arrivals)
                groups[name]["lags"].append((last[name] - answered) * 1e3)
        if len(last) == 2:
            paired.append((last["other"] - last["same"]) * 1e3)
    return {"groups": groups, "counts": counts, "paired": paired}


def stats(values: list[float]) -> str:
    if not values:
        return "n=0"
    return (
        f"n={len(values):<5} p50 {percentile(values, 0.5):7.1f} ms  p95 {percentile(values, 0.95):7.1f} ms"
        f"  max {max(values):7.1f} ms"
    )


# --- the run -------------------------------------------------------------------------------------


def measure(
    name: str,
    instances: list[Instance],
    serving: list[Instance],
    tapping_through: list[Instance],
    referees: list[Tapper],
    cluster: PostgresCluster,
    args,
) -> dict:
    """One configuration: followers on ``serving``, taps through ``tapping_through`` (with several
    tables, a table's referee on each instance by turns; with one, its taps through each by turns)."""
    ports = [i.port for i in tapping_through]
    for referee in referees:
        referee.through(ports if len(referees) == 1 else [ports[referee.index % len(ports)]])
    tables = [referee.table for referee in referees]
    dealt = phones_for(tables, args.followers, serving)
    crowds = {
        port: Crowd(port, phones, max(1, args.clients // len(serving)), args.arrivals / len(serving))
        for port, phones in dealt.items()
    }
    started = time.perf_counter()
    opened = sum(crowd.open() for crowd in crowds.values())
    took = time.perf_counter() - started
    time.sleep(1)
    with contextlib.ExitStack() as stack:
        counted = [stack.enter_context(Statements(i.base)) for i in instances]
        usage = stack.enter_context(Usage(instances, cluster))
        taps = asyncio.run(tapping(referees, args.seconds, args.interval))
    heard = {port: crowd.close([t[:4] for t in taps]) for port, crowd in crowds.items()}
    result = delivery(taps, heard)
    sql = sum(c.count for c in counted) / max(len(taps), 1)
    on = {i.port: i.name for i in instances}
    frames = dict.fromkeys(on, 0)
    for port, phones in heard.items():
        frames[port] = sum(max(len(versions) - 1, 0) for _, versions, _ in phones)
    where = "+".join(i.name for i in tapping_through)
    print(
        f"\n[{name}] followers on {' and '.join(i.name for i in serving)} ({opened} pages loaded, streams "
        f"opened in {took:.1f} s); taps through {where}"
    )
    print(f"  {'tap round trip':<40} {stats([(a - s) * 1e3 for _, _, s, a, _ in taps])}")
    groups = result["groups"]
    print(f"  {'answer -> last follower, same instance':<40} {stats(groups['same']['lags'])}")
    if len(serving) > 1:
        print(f"  {'answer -> last follower, other instance':<40} {stats(groups['other']['lags'])}")
        print(f"  {'  per tap, other minus same':<40} {stats(result['paired'])}")
    for port, count in result["counts"].items():
        print(
            f"  followers on {on[port]}: missed / doubled / out of order {count['missed']} / "
            f"{count['doubled']} / {count['disorder']}  ({len(dealt[port])} followers, "
            f"{frames[port]} frames read)"
        )
    print(f"  {'SQL statements per tap (all instances)':<40} {sql:.2f}")
    print(f"  {usage}")
    per_tap = []
    for instance, seconds in zip(instances, usage.instance_seconds, strict=True):
        sent = frames.get(instance.port, 0)
        per_tap.append(
            f"{instance.name} {seconds * 1e3 / max(len(taps), 1):.1f} ms a tap"
            + (f", {seconds * 1e6 / sent:.0f} µs a frame sent" if sent else "")
        )
    total = sum(usage.instance_seconds)
    all_frames = sum(frames.values())
    print(
        f"  server processor time: {'; '.join(per_tap)}; "
        f"all instances {total * 1e3 / max(len(taps), 1):.1f} ms a tap, "
        f"{total * 1e6 / max(all_frames, 1):.0f} µs a frame; "
        f"{len(taps) / usage.elapsed:.1f} taps/s, {all_frames / usage.elapsed:.0f} frames/s"
    )
    return {
        "trips": [(a - s) * 1e3 for _, _, s, a, _ in taps],
        "lags": groups["same"]["lags"] + groups["other"]["lags"],
        "server": total / max(len(taps), 1),
        "frame": total / max(all_frames, 1),
        "cores": total / usage.elapsed,
    }


def compare(one: dict, two: dict) -> None:
    """The same load on two instances against one: each figure's ratio, two over one."""

    def ratio(key: str, q: float) -> str:
        return f"{percentile(two[key], q) / percentile(one[key], q):.2f}x"

    print(
        f"\ntwo-both / one: tap p50 {ratio('trips', 0.5)}, p95 {ratio('trips', 0.95)}; delivery to the "
        f"last follower p50 {ratio('lags', 0.5)}, p95 {ratio('lags', 0.95)}; server processor time a "
        f"tap {two['server'] / one['server']:.2f}x, a frame {two['frame'] / one['frame']:.2f}x "
        f"({one['cores']:.2f} -> {two['cores']:.2f} cores, all instances)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--followers", type=int, default=8, help="per table")
    parser.add_argument("--interval", type=float, default=2.0, help="mean seconds between a table's taps")
    parser.add_argument("--seconds", type=float, default=15, help="of measured tapping, per configuration")
    parser.add_argument("--warmup", type=float, default=3, help="seconds of unmeasured taps first")
    parser.add_argument("--workers", type=int, default=2, help="per instance")
    parser.add_argument("--clients", type=int, default=2, help="follower client processes in all")
    parser.add_argument("--arrivals", type=float, default=500, help="phones opening a stream per second")
    parser.add_argument("--configs", default="one,two-a,two-both")
    args = parser.parse_args()
    configs = args.configs.split(",")
    unknown = set(configs) - {"one", "two-a", "two-both"}
    if unknown:
        raise SystemExit(f"unknown configurations: {sorted(unknown)}")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    cluster = postgres(2, args.workers)
    env = {"DATABASE_URL": cluster.url(cluster.create_database("instances")), "PYTHONUNBUFFERED": "1"}
    print(
        f"PostgreSQL (fsync on); instances of {args.workers} workers (gunicorn + gevent), "
        f"each its own folder; {os.cpu_count()} cores shared by every instance, PostgreSQL "
        f"and the phones' clients; load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"load: {args.tables} tables x {args.followers} followers, a tap every {args.interval:g} s on average"
        f" per table, {args.seconds:g} s per configuration"
    )
    try:
        with contextlib.ExitStack() as stack:
            a = Instance("A", *stack.enter_context(serve(env, args.workers)))
            tables = [
                post(a.base, "/api/tables", {"game": "morto", "players": PLAYERS, "options": {"lives": 9}})
                for _ in range(args.tables)
            ]
            referees = [Tapper(a.port, table, i, next(ADDRESSES)) for i, table in enumerate(tables)]
            asyncio.run(tapping(referees, args.warmup, args.interval))
            with Usage([a], cluster) as usage:
                alone = asyncio.run(tapping(referees, min(args.seconds, 5), args.interval))
            trips = [(x - s) * 1e3 for _, _, s, x, _ in alone]
            print(f"\n[no follower] taps through A: {stats(trips)}\n  {usage}")
            rows: dict[str, dict] = {}
            if "one" in configs:
                rows["one"] = measure("one", [a], [a], [a], referees, cluster, args)
            if {"two-a", "two-both"} & set(configs):
                b = Instance("B", *stack.enter_context(serve(env, args.workers)))
                both = [a, b]
                if "two-a" in configs:
                    measure("two-a", both, both, [a], referees, cluster, args)
                if "two-both" in configs:
                    rows["two-both"] = measure("two-both", both, both, both, referees, cluster, args)
            if {"one", "two-both"} <= rows.keys():
                compare(rows["one"], rows["two-both"])
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
