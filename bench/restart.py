"""An instance killed and restarted under its followers: what they miss, what they get twice, and how
late the table reaches them meanwhile, with a fixed reconnection wait and with the pages' random,
growing one (issue 28, item 3).

Run: .venv/bin/python bench/restart.py [--followers 400] [--down 3] [--rate 2] [--workers 2]

Two ``companion serve`` instances on one throwaway PostgreSQL (fsync on): A serves ``--followers``
followers of one table (one process of asyncio SSE clients), B takes the referee's taps, ``--rate``
a second, all along. For each reconnection policy in turn, on a new table:

- every follower opens its stream on A and gets the current version;
- A is killed (SIGKILL to its whole process group: the arbiter and its workers, as a crash or an
  OOM kill would) while taps go on through B; ``--down`` seconds later A is started again on the
  same port;
- each follower, its stream gone, waits and reconnects to A with the ``Last-Event-ID`` it holds,
  again and again until A answers:
  - *fixed*: 1 s every time, as EventSource did with the server's former ``retry: 1000``
    (every follower lost its stream at the same instant, so they all retry at the same instants);
  - *jitter*: `static/js/live.js`'s ``reconnectDelay`` (its constants read from the file): a random
    wait below a ceiling that doubles per failed attempt, the count reset once a stream delivers.
- taps go on for ``--after`` seconds once A is back; then every follower must hold the last version.

Per policy: versions missed and doubled (over all followers: each must get every version exactly
once, in order), and *jumped*: reconnections further behind than a stream resumes (LIVE_RESUME_MAX,
100 versions), which are sent the current version (the whole state) by design; the delivery
delay (a follower's receipt minus the tap's answer at B) of the
versions tapped from the kill to the end, p50 / p95 / max; when the followers got their first
version after the kill, in seconds from the kill (*resumed*), beside the seconds A took to answer
again (*back*; its kernel queues connections before that, so a follower may resume earlier); the
most connection attempts in one 100 ms window from the kill on, and their number. The policies
run one after the other in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import MACHINE_SPEED, ROOT, percentile  # noqa: E402

from tests.support.http import StatusError, api  # noqa: E402
from tests.support.postgres import PostgresCluster, postgres_bindir  # noqa: E402
from tests.support.server import Server  # noqa: E402

PLAYERS = [f"Joueur·euse {i}" for i in range(12)]
HOST = "127.0.0.1"
RESUME_MAX = 100  # LIVE_RESUME_MAX: a follower further behind is sent the current version only


def page_policy() -> tuple[float, float]:
    """``RECONNECT.first`` and ``.most`` of static/js/live.js, in seconds: the pages' own numbers."""
    source = (ROOT / "static" / "js" / "live.js").read_text()
    found = re.search(r"RECONNECT = \{ first: (\d+), most: (\d+) \}", source)
    if found is None:
        raise SystemExit("static/js/live.js: RECONNECT not found")
    return int(found.group(1)) / 1000, int(found.group(2)) / 1000


FIRST, MOST = page_policy()
POLICIES = {
    "fixed": lambda attempt: 1.0,
    "jitter": lambda attempt: random.random() * min(MOST, FIRST * 2**attempt),
}


class Instance(Server):
    """``companion serve`` (`tests.support.server`: in its own process group, so that a kill takes
    the arbiter and its workers), with the per-address caps out of the way."""

    def __init__(self, env: dict, workers: int, log: Path):
        caps = ["--streams-per-address", "100000", "--connections-per-address", "100000"]
        super().__init__(env, log, *caps, workers=workers)

    def start(self) -> float:
        """Start and wait until it answers; the moment it first did."""
        super().start()
        self.wait_ready(pause=0.02)
        return time.monotonic()


def call(port: int, method: str, path: str, body=None, secret: str | None = None) -> dict:
    return api(port, path, body, secret, method, timeout=30)


class Follower:
    """One phone's stream, reconnecting by ``policy``: what it got, when."""

    def __init__(self, port: int, code: str, policy):
        self.port, self.code, self.policy = port, code, policy
        self.got: list[tuple[int, float]] = []  # (version, when)
        self.connects: list[float] = []  # each attempt's moment

    async def run(self, stop: asyncio.Event) -> None:
        attempt = 0
        while not stop.is_set():
            held = self.got[-1][0] if self.got else None
            self.connects.append(time.monotonic())
            try:
                reader, writer = await asyncio.open_connection(HOST, self.port)
            except OSError:
                await self._wait(stop, self.policy(attempt))
                attempt += 1
                continue
            try:
                resume = "" if held is None else f"Last-Event-ID: {held}\r\n"
                writer.write(
                    f"GET /api/tables/{self.code}/stream HTTP/1.1\r\nHost: {HOST}\r\n"
                    f"Accept: text/event-stream\r\n{resume}\r\n".encode()
                )
                await writer.drain()
                status = await reader.readline()
                if b" 200 " not in status:
                    raise ConnectionError(status)
                while (await reader.readline()).strip():  # the headers
                    pass
                version = None
                while not stop.is_set():
                    line = await reader.readline()
                    if not line:
                        raise ConnectionError("the stream ended")
                    if line.startswith(b"id: "):
                        version = int(line[4:])
                    elif line.startswith(b"event: state") and version is not None:
                        self.got.append((version, time.monotonic()))
                        attempt = 0
            except (OSError, ConnectionError, ValueError):
                pass
            finally:
                writer.close()
            if not stop.is_set():
                await self._wait(stop, self.policy(attempt))
                attempt += 1

    @staticmethod
    async def _wait(stop: asyncio.Event, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), seconds)


async def follow_all(followers: list[Follower], stop: asyncio.Event) -> None:
    await asyncio.gather(*(f.run(stop) for f in followers))


def run_policy(name: str, a: Instance, b: Instance, args) -> dict:
    table = call(
        b.port, "POST", "/api/tables", {"game": "morto", "players": PLAYERS, "options": {"lives": 9}}
    )
    code, secret = table["code"], table["secret"]
    followers = [Follower(a.port, code, POLICIES[name]) for _ in range(args.followers)]
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()
    thread = threading.Thread(target=loop.run_until_complete, args=(follow_all(followers, stop),))
    thread.start()
    deadline = time.monotonic() + 60
    while not all(f.got for f in followers):
        if time.monotonic() > deadline:
            raise RuntimeError("the followers never all got version 0")
        time.sleep(0.05)

    answered: dict[int, float] = {}  # version -> when B answered its tap
    tapping = threading.Event()
    tapping.set()

    def taps() -> None:
        n = 0
        while tapping.is_set():
            n += 1
            body = {"id": f"t{n}", "type": "touched_early", "player": f"p{2 + n % 11}"}
            path, sent = (
                (f"/api/tables/{code}/undo", {"id": f"u{n}"})
                if n % 3 == 0
                else (f"/api/tables/{code}/events", body)
            )
            for _ in range(50):  # B busy (503) or slow: the same id again, applied once, as a phone resends
                try:
                    answer = call(b.port, "POST", path, sent, secret)
                    break
                except (StatusError, OSError):
                    time.sleep(0.2)
            else:
                raise RuntimeError("B never took the tap")
            answered[answer["version"]] = time.monotonic()
            time.sleep(1 / args.rate)

    tapper = threading.Thread(target=taps)
    tapper.start()
    time.sleep(1.0)
    killed = time.monotonic()
    a.kill()
    time.sleep(args.down)
    back = a.start()
    time.sleep(args.after)
    tapping.clear()
    tapper.join()
    last = max(answered)
    deadline = time.monotonic() + 60
    while not all(f.got[-1][0] >= last for f in followers):
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
    loop.call_soon_threadsafe(stop.set)
    thread.join()
    loop.close()

    missed = doubled = disordered = jumped = 0
    delays, resumed = [], []
    for follower in followers:
        versions = [v for v, _ in follower.got]
        doubled += len(versions) - len(set(versions))
        disordered += sum(1 for x, y in zip(versions, versions[1:], strict=False) if y <= x)
        for x, y in zip(versions, [*versions[1:], last + 1], strict=True):
            if y - x > RESUME_MAX:  # further behind than a stream resumes: the current state, by design
                jumped += 1
            elif y > x + 1:
                missed += y - x - 1
        for version, when in follower.got:
            if version in answered and answered[version] >= killed:
                delays.append(when - answered[version])
        after = [when for _, when in follower.got if when >= killed]
        if after:
            resumed.append(after[0] - killed)
    connects = [t for f in followers for t in f.connects if t >= killed]
    windows: dict[int, int] = {}
    for t in connects:
        windows[int((t - killed) * 10)] = windows.get(int((t - killed) * 10), 0) + 1
    return {
        "policy": name,
        "back": back - killed,
        "versions": len([v for v in answered if answered[v] >= killed]),
        "missed": missed,
        "jumped": jumped,
        "doubled": doubled,
        "disordered": disordered,
        "delay": delays,
        "resumed": resumed,
        "peak": max(windows.values(), default=0),
        "attempts": len(connects),
    }


def ms(values: list[float], q: float) -> str:
    return f"{percentile(values, q / 100) * 1e3:7.0f}" if values else "      -"


def sec(values: list[float], q: float) -> str:
    return f"{percentile(values, q / 100):7.1f}" if values else "      -"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--followers", type=int, default=400)
    parser.add_argument("--down", type=float, default=3.0, help="seconds A stays dead")
    parser.add_argument("--after", type=float, default=12.0, help="seconds of taps once A is back")
    parser.add_argument("--rate", type=float, default=2.0, help="taps a second through B")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--policies", default="fixed,jitter")
    args = parser.parse_args()
    bindir = postgres_bindir()
    if bindir is None:
        raise SystemExit("PostgreSQL is not installed")
    cluster = PostgresCluster(bindir, fsync=True)
    cluster.start()
    instances: list[Instance] = []
    try:
        import tempfile

        folder = Path(tempfile.mkdtemp(prefix="arbitre-restart-"))
        env = {
            **os.environ,
            **MACHINE_SPEED,
            "DATABASE_URL": cluster.url(cluster.create_database("restart")),
            "ARBITRE_RATELIMIT_ENABLED": "false",
            "PYTHONUNBUFFERED": "1",
        }
        for name in "ab":
            own = {**env, "ARBITRE_INSTANCE": str(folder / name)}
            instances.append(Instance(own, args.workers, folder / f"{name}.log"))
            instances[-1].start()
        a, b = instances
        print(
            f"{args.followers} followers on A, A killed for {args.down:g} s, taps at {args.rate:g}/s"
            f" through B, {args.workers} workers each;"
            f" page policy: random below min({MOST:g} s, {FIRST:g} s x 2^n)"
        )
        print(
            "policy  back s versions missed jumped doubled disordered | delivery ms p50     p95     max"
            " | resumed s p50     p95     max | peak/100ms attempts"
        )
        rows = {}
        for name in args.policies.split(","):
            row = rows[name] = run_policy(name, a, b, args)
            print(
                f"{name:<7} {row['back']:6.1f} {row['versions']:>8} {row['missed']:>6} {row['jumped']:>6}"
                f" {row['doubled']:>7}"
                f" {row['disordered']:>10} |"
                f"            {ms(row['delay'], 50)} {ms(row['delay'], 95)} {ms(row['delay'], 100)} |"
                f"           {sec(row['resumed'], 50)} {sec(row['resumed'], 95)} {sec(row['resumed'], 100)} |"
                f" {row['peak']:>10} {row['attempts']:>8}",
                flush=True,
            )
        if {"fixed", "jitter"} <= rows.keys():
            f, j = rows["fixed"], rows["jitter"]
            print(
                "jitter / fixed: delivery p50 "
                f"{statistics.median(j['delay']) / statistics.median(f['delay']):.2f}x, p95 "
                f"{percentile(j['delay'], 0.95) / percentile(f['delay'], 0.95):.2f}x; peak reconnections "
                f"{j['peak'] / max(f['peak'], 1):.2f}x"
            )
    finally:
        for instance in instances:
            instance.stop()
        cluster.stop()


if __name__ == "__main__":
    main()
