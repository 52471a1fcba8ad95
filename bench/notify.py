"""What one PostgreSQL ``NOTIFY`` channel carries: the live bus's wake-ups at rising rates, until their
delivery or a tap's commit beside them slows down.

Run: .venv/bin/python bench/notify.py [--instances 2] [--rates 0,100,300,1000,2000,4000]
                                      [--payload 3400] [--seconds 4] [--taps 20]

A throwaway PostgreSQL server (fsync on, as a deployment's) and ``instances`` processes, each one
server process's bus as `companion.live.bus` makes it (`Bus.start`: its ``LISTEN arbitre_live``
connection and its sending thread, batching up to 500 wake-ups per ``pg_notify`` statement).
For each offered rate in turn (wake-ups per second, the sum over the instances, each instance
publishing its share at even intervals for ``seconds``), every wake-up carries an answer of
``payload`` bytes (an Il Morto answer at 12 players is ~3,400 B; `bench/frames.py`) and the time it
was published; every other instance hears it (a process skips its own). Measured per rate:

- *delivered*: wake-ups heard over those expected (each one by every other instance), and the time
  from ``publish`` in one process to the wake-up in another (p50, p95, max);
- *tap*: meanwhile, a process commits one row (an ``INSERT``, then ``COMMIT`` with
  ``synchronous_commit`` on, as a tap's write) ``taps`` times a second on its own connection:
  its commit time, p50 and p95, beside the notifications (the first rate, 0, is its baseline);
- *queue*: the highest ``pg_notification_queue_usage()`` seen (a listener falling behind fills
  PostgreSQL's notification queue; full, every ``NOTIFY`` fails);
- the server's CPU (PostgreSQL's processes) and the instances' (their listening and sending threads).

Clocks are CLOCK_MONOTONIC (``time.perf_counter``), one for the whole machine.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import percentile  # noqa: E402

SETTLE = 1.5  # seconds after a rate's last wake-up for the last ones to arrive, before the next rate


def schedule(start: float, rates: list[int], seconds: float) -> list[tuple[float, float, int]]:
    """(begins, ends, rate) of each step: every process follows the same clock."""
    return [
        (start + i * (seconds + SETTLE), start + i * (seconds + SETTLE) + seconds, r)
        for i, r in enumerate(rates)
    ]


def cpu_seconds(pids: list[int]) -> float:
    ticks = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def postgres_pids(data: str) -> list[int]:
    """The PostgreSQL server's processes: its postmaster (postmaster.pid) and its children."""
    master = int(Path(data, "postmaster.pid").read_text().split()[0])
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return [master, *map(int, children)]


def instance(index: int, count: int, url: str, go, seconds: float, payload: int, ready, results) -> None:
    """One server process's bus: publishes its share of each step's rate, records what it hears."""
    from flask import Flask

    from companion.live.bus import Bus

    app = Flask("notify-bench")
    app.config["SQLALCHEMY_DATABASE_URI"] = url
    bus = Bus(app)
    heard: list[list[float]] = []
    lock = threading.Lock()

    class Recorder:
        def wake(self, table_id: int, version: int, data: str | None) -> None:
            now = time.perf_counter()
            sender, step, at = data[1:].split(",", 3)[:3]  # '[sender,step,at,"padding"]'
            if int(sender) != index:
                with lock:
                    heard[int(step)].append(now - float(at))

        def catch_up(self) -> None:
            pass

    bus.subscribe(Recorder())
    bus.start()
    ready.put(index)
    steps = go.get()
    heard.extend([] for _ in range(len(steps) - len(heard)))
    sent = [0 for _ in steps]
    cpu = []
    padding = "x" * max(0, payload - 40)
    for n, (begins, ends, rate) in enumerate(steps):
        share = rate / count
        while time.perf_counter() < begins:
            time.sleep(0.005)
        used = time.process_time()
        if share:
            interval = 1 / share
            due = begins + index * interval / count  # the instances' wake-ups interleaved
            while due < ends:
                now = time.perf_counter()
                if now < due:
                    time.sleep(due - now)
                # An answer's JSON as the bus carries it (its size the payload), stamped when published.
                data = f'[{index},{n},{time.perf_counter():.6f},"{padding}"]'
                bus.publish(index * 1_000_000 + sent[n] % 1000, sent[n] + 1, {}, data)
                sent[n] += 1
                due += interval
        time.sleep(max(0.0, ends + SETTLE - 0.2 - time.perf_counter()))
        cpu.append(time.process_time() - used)
    bus.stop()
    results.put((index, (sent, [sorted(h) for h in heard], cpu)))


def tapper(url: str, go, taps: float, results) -> None:
    """A tap's write beside the notifications: one row inserted and committed, ``taps`` a second."""
    import psycopg

    steps = go.get()
    times: list[list[float]] = [[] for _ in steps]
    with psycopg.connect(url) as connection:
        connection.execute("CREATE TABLE IF NOT EXISTS notify_bench_taps (id serial PRIMARY KEY, body text)")
        connection.commit()
        body = "y" * 3400
        for n, (begins, ends, _) in enumerate(steps):
            due = begins
            while due < ends:
                now = time.perf_counter()
                if now < due:
                    time.sleep(due - now)
                started = time.perf_counter()
                connection.execute("INSERT INTO notify_bench_taps (body) VALUES (%s)", (body,))
                connection.commit()
                times[n].append(time.perf_counter() - started)
                due += 1 / taps
    results.put(("taps", times))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--instances", type=int, default=2, help="server processes, each with its bus")
    parser.add_argument("--rates", default="0,100,300,1000,2000,4000", help="wake-ups a second, in all")
    parser.add_argument("--payload", type=int, default=3400, help="bytes of each wake-up's answer")
    parser.add_argument("--seconds", type=float, default=4, help="at each rate")
    parser.add_argument("--taps", type=float, default=20, help="a tap's commits a second, beside")
    args = parser.parse_args()
    rates = [int(r) for r in args.rates.split(",")]

    from tests.support.postgres import PostgresCluster, postgres_bindir

    cluster = PostgresCluster(postgres_bindir(), fsync=True)
    cluster.start()
    try:
        url = cluster.url(cluster.create_database("notify"))
        context = multiprocessing.get_context("fork")
        ready, results, go = context.Queue(), context.Queue(), context.Queue()
        processes = [
            context.Process(
                target=instance,
                args=(i, args.instances, url, go, args.seconds, args.payload, ready, results),
                daemon=True,
            )
            for i in range(args.instances)
        ]
        processes.append(context.Process(target=tapper, args=(url, go, args.taps, results), daemon=True))
        for process in processes:
            process.start()
        for _ in range(args.instances):
            ready.get(timeout=60)
        with cluster.connect() as watcher:  # every instance listening before the first wake-up
            deadline = time.monotonic() + 60
            while (
                time.monotonic() < deadline
                and args.instances
                > watcher.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN%'"
                ).fetchone()[0]
            ):
                time.sleep(0.1)
        steps = schedule(time.perf_counter() + 1, rates, args.seconds)
        for _ in processes:
            go.put(steps)
        print(
            f"PostgreSQL {Path(cluster.bindir).parent.name} (fsync on); {args.instances} instances on one "
            f"channel, each wake-up {args.payload:,} B; a tap's commit {args.taps:g}/s beside; "
            f"{args.seconds:g} s per rate; {os.cpu_count()} cores shared; load {os.getloadavg()[0]:.1f}"
        )
        server = postgres_pids(cluster.data)
        queue_usage, server_cpu = [], []
        with cluster.connect() as watcher:
            for begins, ends, _ in steps:
                while time.perf_counter() < begins:
                    time.sleep(0.01)
                used, most = cpu_seconds(server), 0.0
                while time.perf_counter() < ends + SETTLE - 0.3:
                    most = max(most, watcher.execute("SELECT pg_notification_queue_usage()").fetchone()[0])
                    time.sleep(0.1)
                queue_usage.append(most)
                server_cpu.append(cpu_seconds(server) - used)
        gathered = dict(results.get(timeout=120) for _ in processes)
        for process in processes:
            process.join(30)
    finally:
        cluster.stop()

    taps = gathered.pop("taps")
    print(
        f"{'offered/s':>9} {'sent/s':>8} {'MB/s':>6} {'delivered':>10}  {'delivery p50':>12} {'p95':>9}"
        f" {'max':>9}"
        f"  {'tap p50':>8} {'p95':>8}  {'queue':>6}  {'PG cores':>8} {'bus cores':>9}"
    )
    for n, (_, _, rate) in enumerate(steps):
        sent = sum(gathered[i][0][n] for i in gathered)
        expected = sum(gathered[i][0][n] * (args.instances - 1) for i in gathered)
        lags = sorted(lag for i in gathered for lag in gathered[i][1][n])
        bus_cpu = sum(gathered[i][2][n] for i in gathered)
        ms = [1e3 * t for t in taps[n]]
        delivery = (
            f"{1e3 * percentile(lags, 0.5):9.1f} ms {1e3 * percentile(lags, 0.95):6.1f} ms "
            f"{1e3 * max(lags):6.1f} ms"
            if lags
            else f"{'-':>12} {'-':>9} {'-':>9}"
        )
        print(
            f"{rate:>9,} {sent / args.seconds:>8,.0f} {sent * args.payload / args.seconds / 1e6:>6.2f} "
            f"{f'{len(lags)}/{expected}':>10}  {delivery}  {percentile(ms, 0.5):5.1f} ms"
            f" {percentile(ms, 0.95):5.1f} ms"
            f"  {100 * queue_usage[n]:5.1f}%  {server_cpu[n] / (args.seconds + SETTLE):8.2f} "
            f"{bus_cpu / (args.seconds + SETTLE):9.2f}"
        )


if __name__ == "__main__":
    main()
