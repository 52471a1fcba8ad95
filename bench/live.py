"""Live at the scale of a festival: many tables, each with its referee tapping and its phones following,
every phone requesting what its page requests.

Run: .venv/bin/python bench/live.py [--tables 200] [--followers 8] [--seconds 30] [--interval 2] [--warmup 5]
                                    [--idle 10000] [--postgres] [--workers N]
                                    [--game existentiel [--players 8] [--player-moves]]
     e.g. --tables 1 --followers 1600 --interval 0.5 (one table followed by a crowd)
     --game existentiel --player-moves --tables 1 --followers 400 (players' phones recording their moves)

One run, against a real ``companion serve`` (gunicorn, gevent workers; `bench/floor_server.py`, the same
server plus a count of the SQL statements it sends) on SQLite or on a throwaway PostgreSQL server
(fsync on). Each phone makes the requests its page makes (static/js: live.js, view.js, history.js,
sync.js, referee.js; counted in Chromium by e2e/test_live_pages.py, and on load by hand), besides
the static files a page loads once, which touch no database and which the service worker keeps:

- *Table view* (``/t/<code>``) and *a player's own page* (``/t/<code>/p/<player>``): on load the
  page (its HTML carries the table's answer), then ``GET /api/tables/<code>/stream?since=<version>``.
  Per tap: nothing (the stream brings the state and the story line; the story panel, closed,
  fetches nothing). On a dropped stream: the stream again, ``?since=`` the latest version read.
  A player's phone recording their own moves (docs/API.md, "A player's own phone") adds nothing in
  Il Morto, the game played here: its players record no move themselves.
- *The referee page* (``/r/<code>``): on load the page, ``POST …/checks/swap`` (Il Morto's swap
  helper asks the server while the phone's engine starts), ``GET …/log?tail=100``, and its stream
  ``?since=``; per tap its own ``POST …/events`` or ``…/undo`` (each carrying the version it
  follows), nothing more (its own tap coming back on the stream is already acknowledged).
- *A seated player's phone* (``--game existentiel --player-moves``): the referee gives each of the
  table's players a seat at set-up (``POST …/players/<id>/secret``); each player's phone, from its
  own address, opens its page (``/t/<code>/p/<id>``, the secret in the fragment: no request more)
  and its stream, and records its own moves as static/js/player.js does through sync.js
  (``sendSeat``): ``POST …/events`` with its secret, a fresh client id and no version, nothing more.
  The table is played through (`Game`): the players roll, accept or refuse; the referee's phone
  validates under way and moves the rendez-vous now and then. Without ``--player-moves`` the
  referee's phone records every move, as on an Il Morto table.

0. Every table's referee page is loaded; then *warm-up*: the referees tap for ``warmup`` seconds,
   unmeasured.
1. *Taps alone* (the no-follower baseline: each referee's own page is open, nothing else): every
   table's referee taps (an event or an undo) every ``interval`` seconds on average, over a
   kept-alive connection, for ``seconds``.
2. *Taps with followers*: ``tables x followers`` phones load their page and follow their table (one
   in two a table view, the others a player's own page), each from its own loopback address
   (127.1.x.y), driven by asyncio clients in separate processes; the referees tap again as in 1.
   For each accepted tap: the time from the referee reading its answer to the last follower of that
   table reading that version (a follower may read it first: the figure can be below zero). Every
   follower must get every version once, in order: missed and doubled versions are counted. Memory
   per open stream: the server processes' RSS before and after the pages opened, over their number.
3. *Idle streams* (``--idle N``): N more table views open on those tables and stay idle for
   ``hold`` seconds (keepalive comments flow meanwhile); counted: streams that got their first
   state, errors, streams still open at the end, memory per stream, and a few taps with their
   fan-out while they are all held.

In phases 1 and 2, the SQL statements the server sent (SQLAlchemy's ``before_cursor_execute``, every
worker: the taps, the streams, the rate-limit reads; not the bus's own ``NOTIFY``/``LISTEN``
connection) over the taps made: *statements per tap*, which must not grow with the followers.
On a Le jeu existentiel table, the players' moves and the referee's taps are also reported apart
(answer, delivery, missed and doubled); with one table, so are their statements (`Split`: each write
is charged what the server sent from just before it to just before the next one).

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
import queue
import random
import re
import resource
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import percentile, server_cpu, server_workers, serving  # noqa: E402

PLAYERS = [f"Joueur·euse {i}" for i in range(12)]
HOST = "127.0.0.1"
READ_LIMIT = 1 << 20
LATE = 30  # seconds a phone is given, after the last tap, to read the last version


# --- the server ----------------------------------------------------------------------------------


@contextlib.contextmanager
def serve(env: dict, workers: int | None, log_copy: str | None = None):
    """``companion serve`` with its SQL statements counted (`bench/floor_server.py`), every worker
    booted; yields (base URL, master pid)."""
    # Every table is created from 127.0.0.1: above the per-address limit a festival's NAT gets.
    env = {"ARBITRE_RATELIMIT_NEW_TABLE": "100000/hour", "ARBITRE_BENCH_STATEMENTS": "1", **env}
    with serving(env, workers, floor=True, log_copy=log_copy) as (base, process):
        time.sleep(1)  # every worker booted
        yield base, process.pid


def statements(base: str) -> dict[str, int]:
    """The statements the server's workers have sent so far, in all and by whom (floor_server.py)."""
    with urllib.request.urlopen(base + "/bench/statements", timeout=30) as response:
        return json.load(response)


class Statements:
    """The SQL statements the server sent between ``__enter__`` and ``__exit__``."""

    def __init__(self, base: str):
        self.base = base

    def __enter__(self):
        self.before = statements(self.base)
        return self

    def __exit__(self, *exc) -> None:
        after = statements(self.base)
        self.counts = {name: after[name] - self.before[name] for name in after}
        self.count = self.counts["statements"]

    def per(self, taps: int) -> str:
        """Per tap: in all; within the taps' requests; within other requests (pages, streams
        opening); outside any request (a process reading answers its wake-ups did not carry)."""
        return per_write(self.counts, taps, "tap")


def per_write(counts: dict[str, int], writes: int, noun: str) -> str:
    n = max(writes, 1)
    return (
        f"{counts['statements'] / n:.2f} SQL statements per {noun}: "
        f"{counts['writes'] / n:.2f} in the {noun}s, "
        f"{counts['reads'] / n:.2f} in other requests, {counts['background'] / n:.2f} for the streams "
        f"({counts['selects'] / n:.2f} SELECT; {counts['statements']} over {writes} {noun}s)"
    )


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
    """CPU used by the server, by the benchmark's own processes (the referees' taps, the phones'
    clients), and by the whole machine, between ``__enter__`` and ``__exit__``."""

    def __init__(self, master: int):
        self.master = master

    def __enter__(self):
        self.started, self.server, self.machine = time.perf_counter(), server_cpu(self.master), machine_busy()
        self.bench, self.waited = bench_cpu(self.master), cpu_waited()
        return self

    def __exit__(self, *exc) -> None:
        elapsed = time.perf_counter() - self.started
        busy, total = machine_busy()
        self.server_cores = (server_cpu(self.master) - self.server) / elapsed
        self.bench_cores = (bench_cpu(self.master) - self.bench) / elapsed
        self.machine_percent = 100 * (busy - self.machine[0]) / max(total - self.machine[1], 1)
        self.waiting_percent = 100 * (cpu_waited() - self.waited) / elapsed

    def __str__(self) -> str:
        return (
            f"(server {self.server_cores:.2f} cores; benchmark's clients {self.bench_cores:.2f}; "
            f"machine {self.machine_percent:.0f}% busy, tasks waiting for a core {self.waiting_percent:.0f}%"
            " of the time)"
        )


def cpu_waited() -> float:
    """Seconds so far during which some runnable task of the machine waited for a core (Linux's
    pressure stall information, /proc/pressure/cpu: NaN where the kernel has none)."""
    try:
        some = Path("/proc/pressure/cpu").read_text().split("\n", 1)[0]
    except OSError:
        return float("nan")
    return int(some.rsplit("total=", 1)[1]) / 1e6


def bench_cpu(master: int) -> float:
    """CPU seconds used so far by this process and its children but the server (the phones' clients)."""
    total = 0.0
    for pid in [os.getpid(), *(p for p in server_workers(os.getpid()) if p != master)]:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def post(base: str, path: str, body: dict | None, secret: str | None = None) -> dict:
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if secret:
        headers["Authorization"] = f"Bearer {secret}"
    data = json.dumps(body).encode() if body is not None else b""
    request = urllib.request.Request(base + path, data=data, headers=headers, method="POST")
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


class Writer:
    """One phone that records, over its own kept-alive connection (reconnecting if the server closed
    it), from its own address (``address``; by default 127.0.0.1), with its own secret: the headers
    static/js/api.js sends (``Accept``, ``Content-Type``, ``Authorization: Bearer``)."""

    def __init__(self, port: int, code: str, secret: str, address: str | None = None):
        self.port, self.code, self.secret, self.address = port, code, secret, address
        self.connection = None

    async def post(self, path: str, body: dict) -> tuple[int, dict]:
        """``POST /api/tables/<code>/<path>``; (status, answer). A retry carries the same client id."""
        data = json.dumps(body).encode()
        head = (
            f"POST /api/tables/{self.code}/{path} HTTP/1.1\r\nHost: {HOST}\r\nAccept: application/json\r\n"
            f"Content-Type: application/json\r\nAuthorization: Bearer {self.secret}\r\n"
            f"Content-Length: {len(data)}\r\n\r\n"
        ).encode()
        for attempt in range(3):  # a retry carries the same id: applied once
            try:
                if self.connection is None:
                    self.connection = await asyncio.open_connection(
                        HOST, self.port, local_addr=(self.address, 0) if self.address else None
                    )
                reader, writer = self.connection
                writer.write(head + data)
                status, headers = await read_head(reader)
                return status, json.loads(await reader.readexactly(int(headers["content-length"])))
            except (ConnectionError, asyncio.IncompleteReadError, IndexError, ValueError):
                self.connection = None
                if attempt == 2:
                    raise
        raise AssertionError  # unreachable: the last attempt returns or raises


class Referee:
    """One Il Morto table's referee: taps (an event, then an undo) with the version it follows."""

    def __init__(self, port: int, table: dict, index: int, address: str | None = None):
        self.table, self.index, self.address = table, index, address
        self.phone = Writer(port, table["code"], table["secret"], address)
        self.version, self.count = table["version"], 0

    def reset(self) -> None:
        self.phone.connection = None  # each phase has its own event loop

    async def tap(self) -> tuple[int, int, float, float]:
        """One event or undo; (table index, version, sent at, answered at)."""
        if self.count % 2 == 0:
            player = f"p{2 + (self.count // 2) % 11}"
            path, body = "events", {"id": f"t{self.count}", "type": "touched_early", "player": player}
        else:
            path, body = "undo", {"id": f"u{self.count}"}
        body["version"] = self.version
        sent = time.perf_counter()
        status, answer = await self.phone.post(path, body)
        answered = time.perf_counter()
        assert status in (200, 201), (status, answer)
        self.version = answer["version"]
        self.count += 1
        return self.index, self.version, sent, answered


OWN_MOVES = ("roll", "accept", "refuse")  # engine/existentiel.py PLAYER_MOVES: a player records them


class Game:
    """One Le jeu existentiel table played through (RULES.md §1), one write at a time, each chosen
    among the actions of ``state.actions`` in the latest answer: in the assigning phase the players'
    rolls (a die 1..6) and their accepts or refuses (a refusal only while it costs a joker, the death
    adventure refused while a joker is left), now and then the game master's ``schedule``; under way,
    the game master's ``validate`` (a success, a failure now and then while it costs a joker). With
    ``seats`` (player id -> (secret, address)), each player's move is sent by that player's own phone
    as static/js/player.js sends it (sync.js ``sendSeat``: a fresh client id, no version); the game
    master's by the referee's phone with the version it follows (referee.js); without, the referee's
    phone sends everything. ``kinds`` says who made each version: ``player`` or ``referee``."""

    def __init__(self, port: int, table: dict, index: int, address: str, seats: dict | None, rng):
        self.table, self.index, self.rng = table, index, rng
        self.referee = Writer(port, table["code"], table["secret"], address)
        code = table["code"]
        self.seats = {pid: Writer(port, code, secret, at) for pid, (secret, at) in (seats or {}).items()}
        self.version, self.state = table["version"], table["state"]
        self.kinds: dict[int, str] = {}
        self.split: Split | None = None

    def reset(self) -> None:
        for phone in [self.referee, *self.seats.values()]:
            phone.connection = None  # each phase has its own event loop
        if self.split:
            self.split.connection = None

    def choose(self) -> dict:
        """The next event, from the actions the engine lists now."""
        rng, actions = self.rng, self.state["actions"]
        players = {p["id"]: p for p in self.state["players"]}
        own = [a for a in actions if a["type"] in OWN_MOVES]
        validate = [a for a in actions if a["type"] == "validate"]
        if self.state.get("phase") == "over" or not (own or validate):
            raise RuntimeError(f"table {self.table['code']}: nothing left to play ({self.state['phase']})")
        if rng.random() < (0.2 if own else 0.1):
            at = f"2026-12-{1 + self.version % 28:02d}T20:00"
            return {"type": "schedule", "at": at, "place": "Chez Ana"}
        if not own:
            p = players[rng.choice(validate)["player"]]
            return {"type": "validate", "player": p["id"], "success": p["jokers"] < 2 or rng.random() < 0.9}
        player = rng.choice(sorted({a["player"] for a in own}))
        kinds = {a["type"] for a in own if a["player"] == player}
        if "roll" in kinds:
            return {"type": "roll", "player": player, "die": rng.randint(1, 6)}
        p = players[player]
        death = p.get("offered") == self.state.get("death", 29)
        if "refuse" in kinds and p["jokers"] > (0 if death else 1) and (death or rng.random() < 0.3):
            return {"type": "refuse", "player": player}
        return {"type": "accept", "player": player}

    async def tap(self) -> tuple[int, int, float, float]:
        """One write; (table index, version, sent at, answered at)."""
        event = self.choose()
        phone = self.seats.get(event.get("player")) if event["type"] in OWN_MOVES else None
        kind = "player" if phone else "referee"
        body = {"id": str(uuid.uuid4()), **event}  # crypto.randomUUID(), as api.js newId
        if not phone:
            phone, body["version"] = self.referee, self.version
        if self.split:
            await self.split.mark(kind)
        sent = time.perf_counter()
        status, answer = await phone.post("events", body)
        answered = time.perf_counter()
        assert status == 201, (status, answer, body)
        assert answer["did"]["by"] == (event["player"] if kind == "player" else "referee"), answer["did"]
        self.version, self.state = answer["version"], answer["state"]
        self.kinds[self.version] = kind
        return self.index, self.version, sent, answered


class Split:
    """The SQL statements the server sent, charged to who wrote: before each write, the statements
    since the previous write are that write's (its request, then the streams' reads it caused, which
    end before the next write at a table's pace); meaningful with one table writing at a time."""

    def __init__(self, port: int):
        self.port, self.connection = port, None
        self.last: tuple[str, dict] | None = None
        self.charged: dict[str, dict[str, int]] = {}
        self.writes: dict[str, int] = {}

    async def read(self) -> dict:
        if self.connection is None:
            self.connection = await asyncio.open_connection(HOST, self.port)
        status, data = await request(*self.connection, "GET", "/bench/statements")
        assert status == 200, status
        return json.loads(data)

    async def mark(self, kind: str | None) -> None:
        """A write of ``kind`` is about to be sent (None: the phase is over)."""
        now = await self.read()
        if self.last:
            was, before = self.last
            into = self.charged.setdefault(was, dict.fromkeys(now, 0))
            for name in now:
                into[name] += now[name] - before[name]
            self.writes[was] = self.writes.get(was, 0) + 1
        self.last = (kind, now) if kind else None

    def per(self, kind: str) -> str:
        n, counts = self.writes.get(kind, 0), self.charged.get(kind)
        if not counts:
            return "no write"
        return per_write(counts, n, "write")


async def referees_tap(
    port: int, tables: list[dict], seconds: float, interval: float, referees: list[Referee] | None = None
) -> list[tuple[int, int, float, float]]:
    referees = referees or [Referee(port, table, i) for i, table in enumerate(tables)]
    for referee in referees:
        referee.reset()
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


INITIAL = re.compile(rb'<script type="application/json" id="initial">(.*?)</script>', re.S)
RECONNECTS = 3  # a dropped stream is opened again this many times at most (EventSource: for ever)


async def request(reader, writer, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
    """One request on a kept-alive connection, as a browser sends it; (status, body)."""
    data = b"" if body is None else json.dumps(body).encode()
    extra = "" if body is None else f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
    writer.write(f"{method} {path} HTTP/1.1\r\nHost: {HOST}\r\n{extra}\r\n".encode() + data)
    status, headers = await read_head(reader)
    if "content-length" in headers:
        return status, await reader.readexactly(int(headers["content-length"]))
    chunks = []  # chunked
    while size := int((await reader.readline()).split(b";")[0], 16):
        chunks.append(await reader.readexactly(size))
        await reader.readline()
    await reader.readline()
    return status, b"".join(chunks)


async def load(reader, writer, kind: str, code: str, player: str) -> int:
    """What the page requests when it opens, before its stream; the version it drew."""
    path = {"view": f"/t/{code}", "player": f"/t/{code}/p/{player}", "referee": f"/r/{code}"}[kind]
    status, page = await request(reader, writer, "GET", path)
    if status != 200:
        raise PageError(f"{path}: status {status}")
    version = json.loads(INITIAL.search(page).group(1))["version"]
    if kind == "referee":
        # Il Morto's swap helper asks the server while the phone's engine starts; then the log.
        asks = [("GET", f"/api/tables/{code}/log?tail=100", None)]
        if b'data-game="morto"' in page:
            asks.insert(0, ("POST", f"/api/tables/{code}/checks/swap", {"face_up": {}}))
        for method, asked, body in asks:
            status, _ = await request(reader, writer, method, asked, body)
            if status != 200:
                raise PageError(f"{asked}: status {status}")
    return version


class PageError(Exception):
    pass


async def follow(port: int, phone: tuple, heard: list, opened: asyncio.Event, drops: list) -> str:
    """One phone: load its page, open the stream from the version the page drew, note every version
    it reads; on a dropped stream, open it again from the latest; the reason it stopped."""
    _, code, address, kind, player = phone
    since = None
    for attempt in range(RECONNECTS + 1):
        try:
            reader, writer = await asyncio.open_connection(
                HOST, port, local_addr=(address, 0), limit=READ_LIMIT
            )
        except OSError as error:
            opened.set()
            return f"connect: {error.strerror or error}"
        try:
            if since is None:
                since = await load(reader, writer, kind, code, player)
                heard.append((since, time.perf_counter()))
            writer.write(
                f"GET /api/tables/{code}/stream?since={since} HTTP/1.1\r\nHost: {HOST}\r\n"
                f"Accept: text/event-stream\r\n\r\n".encode()
            )
            status, _ = await read_head(reader)
            if status != 200:
                opened.set()
                return f"status {status}"
            opened.set()
            while line := await reader.readline():
                if line.startswith(b"id: "):
                    since = int(line[4:])
                    heard.append((since, time.perf_counter()))
            reason = "closed by the server"
        except (ConnectionError, asyncio.IncompleteReadError, ValueError, IndexError, PageError) as error:
            reason = f"error: {error!r}"
        finally:
            writer.close()
        if since is None or attempt == RECONNECTS:
            opened.set()
            return reason
        drops.append(reason)
        await asyncio.sleep(random.uniform(0.5, 1.5))  # the stream's `retry: 1000`
    return reason


def follower_process(
    port: int, phones: list[tuple], rate: float, ready, stop, results, nice: int = 0
) -> None:
    """Hold ``phones`` (table index, code, address, page kind, player) open until ``stop`` brings the
    newest version of each table; then give each phone up to `LATE` seconds to read it (a late
    version is not a missed one), and report what each heard, and how it ended if it did."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    os.nice(nice)

    async def main() -> None:
        heard = [[] for _ in phones]
        drops: list[str] = []  # streams dropped and opened again
        opened = [asyncio.Event() for _ in phones]
        tasks = []
        for n, phone in enumerate(phones):
            tasks.append(asyncio.create_task(follow(port, phone, heard[n], opened[n], drops)))
            if n % 10 == 9:
                await asyncio.sleep(10 / rate)  # a crowd arriving, not one burst of SYNs
        await asyncio.wait_for(asyncio.gather(*(event.wait() for event in opened)), 120)
        ready.put(sum(1 for h in heard if h))  # pages drawn (each then opened its stream)
        while True:
            try:
                newest = stop.get_nowait()
                break
            except queue.Empty:
                await asyncio.sleep(0.1)
        waited = time.perf_counter() + LATE
        while time.perf_counter() < waited and any(
            not task.done() and (not h or h[-1][0] < newest.get(phones[n][0], 0))
            for n, (h, task) in enumerate(zip(heard, tasks, strict=True))
        ):
            await asyncio.sleep(0.1)
        ended = [task.result() if task.done() else None for task in tasks]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        results.put(([(phones[n][0], heard[n], ended[n]) for n in range(len(phones))], drops))

    asyncio.run(main())


class Crowd:
    """Followers spread over client processes; ``open()`` returns once each has its first state."""

    def __init__(self, port: int, phones: list[tuple], processes: int, rate: float, nice: int = 0):
        context = multiprocessing.get_context("fork")
        self.ready, self.results = context.Queue(), context.Queue()
        self.stops = [context.Queue() for _ in range(processes)]
        shares = [phones[i::processes] for i in range(processes)]
        self.processes = [
            context.Process(
                target=follower_process,
                daemon=True,
                args=(port, share, rate / processes, self.ready, stop, self.results, nice),
            )
            for share, stop in zip(shares, self.stops, strict=True)
            if share
        ]

    def open(self) -> int:
        for process in self.processes:
            process.start()
        return sum(self.ready.get(timeout=180) for _ in self.processes)

    def close(self, taps: list) -> list[tuple[int, list, str | None]]:
        """Each phone's table index, the versions it read (with when), how it ended; once each has
        read its table's newest version among ``taps`` (or `LATE` seconds passed)."""
        newest: dict[int, int] = {}
        for index, version, _, _ in taps:
            newest[index] = max(newest.get(index, 0), version)
        for stop in self.stops:
            stop.put(newest)
        heard, self.drops = [], []
        for _ in self.processes:
            phones, drops = self.results.get(timeout=LATE + 120)
            heard += phones
            self.drops += drops
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


def fan_out(taps, heard, tables: int, only: set | None = None) -> tuple[list[float], int, int, int]:
    """Per tap, answer to the last follower of its table; and missed, doubled, out-of-order versions.
    With ``only`` (a set of (table index, version)), the lags, missed and doubled of those versions."""
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
            lost = {v for v in expected - set(got) if only is None or (index, v) in only}
            missed += len(lost)
            if lost and os.environ.get("BENCH_LIVE_MISSED"):  # which ones, for a diagnosis
                read = f"{got[:3]}...{got[-3:]}"
                print(f"  table {index}: opened on {first}, read {read}, missed {sorted(lost)[:5]}")
            kept = [v for v in got if only is None or (index, v) in only]
            doubled += len(kept) - len(set(kept))
            disorder += sum(1 for a, b in zip(ids, ids[1:], strict=False) if b <= a)
            for version, at in versions[1:]:
                reached.setdefault((index, version), []).append(at)
    for key, at in answered.items():
        if only is not None and key not in only:
            continue
        arrivals = reached.get(key, [])
        if len(arrivals) == len(followers[key[0]]) and arrivals:
            lags.append((max(arrivals) - at) * 1e3)
    return lags, missed, doubled, disorder


# --- the run -------------------------------------------------------------------------------------


def setup(args, base: str, port: int) -> tuple[list[dict], list, list[tuple]]:
    """The tables, the phones that write at each (one driver per table), and the pages those phones
    hold open for the whole run (each writer's own page follows its table's stream)."""
    tables: list[dict] = []
    drivers: list = []
    own: list[tuple] = []
    for i in range(args.tables):
        address = next(ADDRESSES)  # the referee's phone: its taps and its page
        if args.game == "morto":
            table = post(base, "/api/tables", {"game": "morto", "players": PLAYERS, "options": {"lives": 9}})
            drivers.append(Referee(port, table, i, address))
            own.append((i, table["code"], address, "referee", None))
            tables.append(table)
            continue
        players = [{"name": f"Joueur·euse {n}", "birth_month": 1 + n % 12} for n in range(args.players)]
        table = post(base, "/api/tables", {"game": "existentiel", "players": players})
        own.append((i, table["code"], address, "referee", None))
        seats = None
        if args.player_moves:  # the referee gives each player their seat; each phone opens its page
            seats = {}
            for player in table["state"]["players"]:
                asked = f"/api/tables/{table['code']}/players/{player['id']}/secret"
                seats[player["id"]] = (post(base, asked, None, table["secret"])["secret"], next(ADDRESSES))
                own.append((i, table["code"], seats[player["id"]][1], "player", player["id"]))
        drivers.append(Game(port, table, i, address, seats, random.Random(i)))
        tables.append(table)
    return tables, drivers, own


WHO = {"player": "a player's move", "referee": "a referee's tap"}


def kinds_of(drivers: list) -> dict[tuple[int, int], str]:
    """Who made each version of each table: ``player`` or ``referee`` (Il Morto: all the referee's)."""
    return {(d.index, v): kind for d in drivers for v, kind in getattr(d, "kinds", {}).items()}


def tapping(args, port: int, tables: list[dict], drivers: list) -> tuple[list, Split | None]:
    """One measured phase of writes; with one Le jeu existentiel table, its SQL split by who wrote."""
    split = Split(port) if args.game == "existentiel" and len(drivers) == 1 else None
    for driver in drivers:
        if isinstance(driver, Game):
            driver.split = split
    taps = asyncio.run(referees_tap(port, tables, args.seconds, args.interval, drivers))
    if split:
        time.sleep(1)  # the streams' reads of the last write
        split.connection = None  # a new event loop
        asyncio.run(split.mark(None))
        for driver in drivers:
            driver.split = None
    return taps, split


def by_who(args, taps: list, drivers: list, split: Split | None, followers: str, heard=None) -> None:
    """For Le jeu existentiel: the players' moves and the referee's taps apart."""
    if args.game != "existentiel":
        return
    kinds = kinds_of(drivers)
    for kind in ("player", "referee"):
        mine = [tap for tap in taps if kinds[(tap[0], tap[1])] == kind]
        print(line(f"{WHO[kind]}, answer ({followers})", [(a - s) * 1e3 for _, _, s, a in mine]))
        if split:
            print(f"{'  its SQL':<46} {split.per(kind)}")
        if heard is not None:
            only = {(tap[0], tap[1]) for tap in mine}
            lags, missed, doubled, _ = fan_out(taps, heard, len(drivers), only)
            print(line("  answered -> last follower of its table", lags))
            print(f"{'  versions missed / doubled':<46} {missed} / {doubled}")


def run(args, base: str, master: int) -> None:
    port = int(base.rsplit(":", 1)[1])
    # Each referee's phone (and each seated player's) has its own address, for its writes and its page.
    tables, referees, own = setup(args, base, port)
    # The writers' own pages (their streams, which echo their writes), open for the whole run.
    pages = Crowd(port, own, 1, args.arrivals)
    pages.open()
    # Unmeasured: every worker opens its pool of database connections (a PostgreSQL connection is a
    # process) and warms its caches, so the first phase is not charged for it.
    asyncio.run(referees_tap(port, tables, args.warmup, args.interval, referees))

    with Usage(master) as usage, Statements(base) as alone_sql:
        alone, split = tapping(args, port, tables, referees)
    if args.game == "existentiel":
        writers = "its players' phones (own moves) and its referee" if args.player_moves else "its referee"
        print(f"{len(tables)} Le jeu existentiel tables of {args.players} players, written by {writers}")
    else:
        print(f"{len(tables)} Il Morto tables, one referee each")
    print(f"a write every {args.interval:g} s on average per table; {len(own)} writers' own pages open")
    print(line("tap round trip, no follower", [(a - s) * 1e3 for _, _, s, a in alone]), usage)
    print(f"{'  its SQL':<46} {alone_sql.per(len(alone))}")
    by_who(args, alone, referees, split, "no follower")

    names = PLAYERS if args.game == "morto" else range(args.players)
    phones = [
        (i, table["code"], next(ADDRESSES), kind, f"p{1 + n % len(names)}")
        for i, table in enumerate(tables)
        for n, kind in enumerate(["view", "player"] * (args.followers // 2) + ["view"] * (args.followers % 2))
    ]
    before = rss_bytes(master)
    started = time.perf_counter()
    with Statements(base) as opening:
        crowd = Crowd(port, phones, args.clients, args.arrivals, args.nice)
        opened = crowd.open()
        took = time.perf_counter() - started
        time.sleep(2)
    after = rss_bytes(master)
    print(
        f"followers: {opened} of {len(phones)} pages loaded, streams opened, in {took:.1f} s "
        f"({opening.count / max(opened, 1):.1f} SQL statements per page opened); server RSS "
        f"{before / 2**20:.0f} -> {after / 2**20:.0f} MiB: "
        f"{(after - before) / max(opened, 1) / 1024:.1f} KiB per open stream"
    )
    with Usage(master) as usage, Statements(base) as followed_sql:
        with_followers, split = tapping(args, port, tables, referees)
    heard = crowd.close(with_followers)
    print(
        line(f"tap round trip, {opened} followers", [(a - s) * 1e3 for _, _, s, a in with_followers]), usage
    )
    print(f"{'  its SQL':<46} {followed_sql.per(len(with_followers))}")
    lags, missed, doubled, disorder = fan_out(with_followers, heard, len(tables))
    print(line("tap answered -> last follower of its table", lags))
    print(
        f"{'versions missed / doubled / out of order':<46} {missed} / {doubled} / {disorder}"
        f"   (over {len(with_followers)} taps x {args.followers} followers)"
    )
    by_who(args, with_followers, referees, split, f"{opened} followers", heard)
    ended = [reason for _, _, reason in heard if reason]
    print(f"{'streams that ended early':<46} {len(ended)} {sorted(set(ended))[:3]}")
    print(
        f"{'streams dropped, opened again (?since=)':<46} {len(crowd.drops)} {sorted(set(crowd.drops))[:3]}"
    )

    if args.idle:
        idle(args, port, master, tables, referees)
    own = pages.close(alone + with_followers)
    _, missed, doubled, _ = fan_out(alone + with_followers, own, len(tables))
    ended = [reason for _, _, reason in own if reason]
    label = "writers' own pages: missed / doubled; ended early"
    print(f"{label:<46} {missed} / {doubled}; {len(ended)}")
    if args.game == "existentiel":  # with no follower, the writers' own pages are the ones following
        kinds = kinds_of(referees)
        print("with no follower, delivery to the writers' own pages:")
        for kind in ("player", "referee"):
            only = {(tap[0], tap[1]) for tap in alone if kinds[(tap[0], tap[1])] == kind}
            lags, missed, doubled, _ = fan_out(alone + with_followers, own, len(tables), only)
            print(line(f"  {WHO[kind]} -> the last of them", lags))


def idle(args, port: int, master: int, tables: list[dict], referees: list[Referee]) -> None:
    phones = [
        (i % len(tables), tables[i % len(tables)]["code"], next(ADDRESSES), "view", None)
        for i in range(args.idle)
    ]
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
        referee.reset()
    tapped = asyncio.run(taps())
    heard = crowd.close(tapped)
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
    parser.add_argument("--log", default=None, help="where to copy the server's log at the end")
    parser.add_argument(
        "--nice",
        type=int,
        default=0,
        help="niceness of the followers' client processes (e.g. 10: the phones' own reading yields the "
        "machine's cores to the server and the referee's phone, as phones elsewhere would)",
    )
    parser.add_argument("--postgres", action="store_true", help="start a throwaway PostgreSQL server")
    parser.add_argument(
        "--game",
        choices=["morto", "existentiel"],
        default="morto",
        help="morto: the referee taps (an event, an undo); existentiel: a table played through (Game)",
    )
    parser.add_argument("--players", type=int, default=8, help="seated players per existentiel table")
    parser.add_argument(
        "--player-moves",
        action="store_true",
        help="existentiel: each player has a seat (a player's secret) and records their own rolls, accepts "
        "and refuses from their own phone; the referee's phone records the rest",
    )
    args = parser.parse_args()
    if args.player_moves and args.game != "existentiel":
        parser.error("--player-moves needs --game existentiel")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    env, cluster = {}, None
    if args.postgres:
        from tests.support.postgres import PostgresCluster, postgres_bindir

        cluster = PostgresCluster(postgres_bindir(), fsync=True)
        cluster.start()
        env["DATABASE_URL"] = cluster.url(cluster.create_database("bench"))
    else:
        env["DATABASE_URL"] = ""
    try:
        with serve(env, args.workers, args.log) as (base, master):
            workers = len(server_workers(master))
            backend = "PostgreSQL (fsync on)" if args.postgres else "SQLite (WAL, synchronous=FULL)"
            print(
                f"backend: {backend}; server: gunicorn + gevent, {workers} workers; "
                f"{os.cpu_count()} cores shared with the clients"
                + (f" (the followers' at nice {args.nice})" if args.nice else "")
            )
            run(args, base, master)
    finally:
        if cluster:
            cluster.stop()


if __name__ == "__main__":
    main()
