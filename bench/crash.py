"""Crash safety: referees tapping as fast as they can while the whole server is killed and restarted.

Run: .venv/bin/python bench/crash.py [--referees 10] [--kills 50] [--seed 1] [--postgres] [--workers N]

One run, against a real ``companion serve`` (gunicorn, gevent workers) on SQLite in a fresh instance
folder or, with ``--postgres``, on a throwaway PostgreSQL server (fsync on) that the benchmark starts
(an ambient ``DATABASE_URL`` is ignored):

- *Referees*: each on its own table (Il Morto, 12 players, 9 lives), one thread each, tapping one
  write after the other with no pause over a kept-alive connection. Every write carries a client
  ``id``; 1 in 5 is an undo (with an ``id`` of its own; more once the lives run low, when an undo is
  all that is legal), about 1 in 3 carries the ``version`` it follows, and about 1 in 25 a stale
  version on purpose (answered 409: the referee reads the table again and goes on with a new id).
  On a connection error, a timeout or a 5xx the referee sends THE SAME id again until it gets an
  answer: a 201 (an undo: 200) is an acknowledgement. A retry is never answered 409: the store looks
  the id up before it checks the version. The events chosen are always legal (nobody is touched
  down to 0 lives), so the games never end.
- *Killer*: a random 0.3–1.5 s after the server has acknowledged an event (201), SIGKILL to its whole
  process group (the gunicorn master and every worker at once: no clean shutdown anywhere), then
  ``companion serve`` again at once on the same port. *Come back* is the time from the kill to the
  first 201 to an event sent after it.
- *Checks*, once the kills are done, from the restarted server, for every table: every acknowledged
  event id is in ``/history`` exactly once, in the order acknowledged, with the payload sent and the
  version its answer gave; nothing else is logged (no id never sent, none refused); the events
  marked undone are exactly those the acknowledged undos took back, at the versions they were told;
  the table's version is the events plus the undos (and the referee's last answer); the snapshot
  (``GET /api/tables/<code>``) is ``engine.core.view`` of a replay of ``/log``'s events, and the
  state the referee was last told. Then *late retries*: about ten old acknowledged taps per table
  (the first, the first undo, and some spread over the run) sent again as they were: each gets its
  first answer again (kept, or rebuilt from the log once old) and nothing is applied twice.
- *Taps in doubt*: sent whole, then the connection broke before the answer. The log's time of the
  write says whether the killed server had applied it (the retry got the first answer from the
  log) or only the retry did.

All traffic stays on 127.0.0.1. Exit status 1 if any check failed.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common import MACHINE_SPEED  # noqa: E402
from companion.server import default_workers  # noqa: E402
from engine import core  # noqa: E402
from tests.support.http import Client, InDoubt  # noqa: E402
from tests.support.ports import steady_port  # noqa: E402
from tests.support.postgres import PostgresCluster, postgres_bindir  # noqa: E402
from tests.support.server import Server  # noqa: E402

HOST = "127.0.0.1"
PLAYERS = [f"Joueur·euse {i}" for i in range(1, 13)]
OPTIONS = {"lives": 9}
UNDO_ONE_IN = 5
VERSION_ONE_IN = 3
STALE_ONE_IN = 25
REVEAL_ONE_IN = 10
KILL_GAP = (0.3, 1.5)  # seconds from an acknowledgement by the (re)started server to the kill
REQUEST_TIMEOUT = 5.0  # an answer slower than this counts as a timeout: the same id is sent again
TAP_SECONDS = 120.0  # one tap retried this long at most: a server that never comes back fails the run
TAP_ATTEMPTS = 20_000
RETRY_PAUSE_MAX = 0.05  # between two attempts of a tap: 5, 10, 20, then 50 ms
COME_BACK_SECONDS = 60.0  # a restarted server that acknowledges nothing for this long fails the run
LATE_RETRIES = 10  # per table, at the end: old acknowledged taps sent again, answered as the first time
MAX_TAPS = 1_000_000  # per referee; the run ends long before, when the kills are done


class Unanswered(Exception):
    """A tap (or a read) that got no answer in ``TAP_SECONDS``."""


# --- the server ----------------------------------------------------------------------------------


def restartable_server(env: dict, log: Path, workers: int | None = None) -> Server:
    """``companion serve`` (`tests.support.server`, in a process group of its own: a kill takes the
    gunicorn master and every worker) on a port that stays the same across restarts, a table's
    limits raised; ready once it answers anything (``/``: a page that names no table, so no rate
    limit counts however often a restart is waited for)."""
    return Server({**MACHINE_SPEED, **env}, log, workers=workers, port=steady_port(HOST), ready_path="/")


def become_subreaper() -> None:
    """Killed workers are re-parented to this process (Linux), which reaps them: no zombies pile up
    where the machine's init does not reap. Best effort."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


# --- HTTP ----------------------------------------------------------------------------------------


class Connection(Client):
    """One kept-alive HTTP connection (`tests.support.http.Client`), made again after any error.
    ``call`` raises OSError when no HTTP answer came (refused, reset, timed out, cut short):
    `InDoubt` if the request had gone out."""

    def __init__(self, port: int, secret: str | None = None):
        super().__init__(port, timeout=REQUEST_TIMEOUT, secret=secret)

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict | None]:
        answer = self.request(method, path, body)
        try:
            return answer.status, answer.json()
        except ValueError:
            return answer.status, {"not_json": answer.body[:200].decode(errors="replace")}


def persist(
    connection: Connection, method: str, path: str, body: dict | None = None, on_retry=None
) -> tuple[int, dict | None, float, float]:
    """Send until an answer below 500 comes: (status, answer, when its attempt was sent, when it came).
    The very same body every time; ``on_retry(reason)`` hears of each attempt sent again."""
    deadline = time.monotonic() + TAP_SECONDS
    last = "none sent"
    for attempt in range(TAP_ATTEMPTS):
        sent_at = time.perf_counter()
        reason = "5xx"
        try:
            status, answer = connection.call(method, path, body)
            last = f"{status} {answer}"
        except OSError as error:
            status, answer, reason = None, None, "in doubt" if isinstance(error, InDoubt) else "not sent"
            last = str(error)
        if status is not None and status < 500:
            return status, answer, sent_at, time.perf_counter()
        if time.monotonic() > deadline:
            break
        if on_retry is not None:
            on_retry(reason)
        time.sleep(min(RETRY_PAUSE_MAX, 0.005 * 2 ** min(attempt, 4)))
    raise Unanswered(f"{method} {path} {body}: no answer in {TAP_SECONDS:.0f} s, the last: {last}"[:1000])


# --- the acknowledgements, as the killer watches them ----------------------------------------------


class Acks:
    """The first acknowledgement (a 201) of an event sent after a given moment (the last kill)."""

    def __init__(self):
        self.condition = threading.Condition()
        self.since: float | None = None
        self.first: float | None = None

    def arm(self, since: float) -> None:
        with self.condition:
            self.since, self.first = since, None

    def acknowledged(self, sent_at: float, received_at: float) -> None:
        with self.condition:
            if self.since is not None and sent_at >= self.since:
                if self.first is None or received_at < self.first:
                    self.first = received_at
                self.condition.notify_all()

    def wait(self, timeout: float, give_up) -> float | None:
        """The first acknowledgement's time, or None after ``timeout`` or once ``give_up()`` is true."""
        deadline = time.monotonic() + timeout
        with self.condition:
            while self.first is None and not give_up():
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.condition.wait(min(left, 0.5))
            return self.first


# --- a referee -----------------------------------------------------------------------------------


def payload_of(body: dict) -> dict:
    """What the log keeps of a body: all but the envelope's ``id`` and ``version``."""
    return {key: value for key, value in body.items() if key not in ("id", "version")}


class Referee(threading.Thread):
    """Taps on one table as fast as answers come; remembers what was acknowledged, in order."""

    def __init__(self, index: int, port: int, table: dict, seed: int, acks: Acks, stop: threading.Event):
        super().__init__(name=f"referee-{index}", daemon=True)
        self.index = index
        self.code = table["code"]
        self.connection = Connection(port, table["secret"])
        self.rng = random.Random(f"{seed}-referee-{index}")
        self.acks, self.stop = acks, stop
        self.version = table["version"]
        self.state = table["state"]  # the view the latest answer gave
        self.events: list[tuple[str, dict, int]] = []  # acknowledged: (id, payload, version), in order
        self.undos: list[tuple[str, str, int]] = []  # acknowledged: (undo id, event it took back, version)
        self.active: list[str] = []  # ids of the acknowledged events in effect, oldest first
        self.answered: list[tuple[str, dict, str]] = []  # every acknowledged (path, body, digest of answer)
        self.sent: set[str] = set()  # every event id ever sent
        self.refused: dict[str, int] = {}  # event ids answered other than 201, with the status
        self.retries = 0  # attempts sent again
        self.retried = 0  # taps sent more than once
        self.in_doubt = 0  # taps sent whole at least once with no answer (applied or not: the retry tells)
        self.doubt_refused = 0  # of those, refused in the end (a stale version on purpose: 409)
        self.server_errors = 0  # 5xx answers (retried like a lost connection)
        self.reasons: set[str] = set()  # why the current tap was sent again
        # Acknowledged taps that were in doubt: (event id, undo or not, wall-clock time the answered
        # attempt was sent). The log's time of the write tells which attempt applied it.
        self.doubts: list[tuple[str, bool, float]] = []
        self.stale_sent = 0
        self.stale_refused = 0
        self.unexpected: list[str] = []  # any other answer, e.g. a 409 to a current version
        self.version_jumps = 0  # an acknowledgement whose version is not the one before + 1
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            for number in range(MAX_TAPS):
                if self.stop.is_set():
                    break
                self.tap(number)
        except BaseException as error:  # noqa: BLE001 - reported by the run
            self.error = error
        finally:
            self.connection.close()

    def _retried(self, reason: str) -> None:
        self.retries += 1
        self.reasons.add(reason)
        if reason == "5xx":
            self.server_errors += 1

    def choose(self, number: int) -> tuple[str, dict, bool]:
        """(path, body, stale on purpose): a legal write for the state last seen."""
        state = self.state
        players = {p["id"]: p for p in state["players"]}
        touchable = [
            p["id"]
            for p in state["players"]
            if p["alive"] and p["dealt"] and not p["dealer"] and p["lives"] >= 2
        ]
        may_lose = [pid for pid in state["play_order"] if players[pid]["lives"] >= 2]
        tap_id = f"r{self.index}-{number}"
        if self.active and (self.rng.randrange(UNDO_ONE_IN) == 0 or not (touchable or may_lose)):
            path, body = "undo", {"id": tap_id + "-undo"}
        elif may_lose and (self.rng.randrange(REVEAL_ONE_IN) == 0 or not touchable):
            loser = self.rng.choice(may_lose)
            ranks = [rank for rank in range(2, 11) for _ in range(4)]  # four of each, above the loser's Asso
            self.rng.shuffle(ranks)
            cards = {pid: 1 if pid == loser else ranks.pop() for pid in state["play_order"]}
            path, body = "events", {"id": tap_id, "type": "reveal", "cards": cards}
        elif touchable:
            player = self.rng.choice(touchable)
            path, body = "events", {"id": tap_id, "type": "touched_early", "player": player}
        else:
            raise RuntimeError(f"{self.code}: nothing legal to tap in {state}")
        stale = self.rng.randrange(STALE_ONE_IN) == 0
        if stale:
            body["version"] = self.version - 1 if self.version > 0 else self.version + 1
        elif self.rng.randrange(VERSION_ONE_IN) == 0:
            body["version"] = self.version
        return path, body, stale

    def tap(self, number: int) -> None:
        path, body, stale = self.choose(number)
        if path == "events":
            self.sent.add(body["id"])
        self.stale_sent += stale
        self.reasons = set()
        status, answer, sent_at, received_at = persist(
            self.connection, "POST", f"/api/tables/{self.code}/{path}", body, self._retried
        )
        self.retried += bool(self.reasons)
        doubt = bool(self.reasons & {"in doubt", "5xx"})
        self.in_doubt += doubt
        sent_wall = time.time() - (time.perf_counter() - sent_at)
        if status == (201 if path == "events" else 200):
            if status == 201:
                self.acks.acknowledged(sent_at, received_at)
            if answer["version"] != self.version + 1:
                self.version_jumps += 1
            if path == "events":
                self.events.append((body["id"], payload_of(body), answer["version"]))
                self.active.append(body["id"])
            else:
                self.undos.append((body["id"], self.active.pop(), answer["version"]))
            self.answered.append((path, body, digest(answer)))
            if doubt:
                event_id = self.undos[-1][1] if path == "undo" else body["id"]
                self.doubts.append((event_id, path == "undo", sent_wall))
            self.version, self.state = answer["version"], answer["state"]
            return
        if path == "events":
            self.refused[body["id"]] = status
        self.doubt_refused += doubt
        error = (answer or {}).get("error")
        code = error.get("code") if isinstance(error, dict) else None
        if status == 409 and code == "stale_version" and stale:
            self.stale_refused += 1
        else:
            self.unexpected.append(f"{path} {body} -> {status} {answer}"[:300])
        self.refresh()

    def refresh(self) -> None:
        status, answer, _, _ = persist(self.connection, "GET", f"/api/tables/{self.code}")
        if status != 200:
            raise RuntimeError(f"GET {self.code}: {status} {answer}")
        self.version, self.state = answer["version"], answer["state"]


# --- the checks ----------------------------------------------------------------------------------


CHECKS = (
    ("lost", "acknowledged taps lost"),
    ("doubled", "doubled (an id logged more than once)"),
    ("out_of_order", "out of order"),
    ("payload", "payload or version not as sent and answered"),
    ("phantom", "logged but never sent, or refused"),
    ("undone", "undos not as acknowledged"),
    ("version", "version != events + undos applied"),
    ("snapshot", "snapshot mismatches (vs replay of /log)"),
    ("late_retry", "late retries not answered as the first time"),
    ("unexpected", "unexpected answers (e.g. 409 to a current version)"),
    ("version_jumps", "acknowledged versions not consecutive"),
)


def digest(answer) -> str:
    return hashlib.sha256(json.dumps(answer, sort_keys=True).encode()).hexdigest()


def jsonable(value):
    return json.loads(json.dumps(value))


def check_table(connection: Connection, referee: Referee) -> tuple[Counter, list[str], Counter]:
    """Every invariant of the module docstring for one table: (failures by check, details, what was
    seen on the way: the taps in doubt by which attempt applied them, the late retries sent)."""
    failures: Counter = Counter()
    details: list[str] = []

    def fail(check: str, count: int, detail: str) -> None:
        if count:
            failures[check] += count
            details.append(f"{referee.code} {check}: {detail}"[:400])

    def read(path: str) -> dict:
        status, answer, _, _ = persist(connection, "GET", f"/api/tables/{referee.code}{path}")
        if status != 200:
            raise RuntimeError(f"GET {referee.code}{path}: {status} {answer}")
        return answer

    history, table, log = read("/history"), read(""), read("/log")
    logged = history["events"]
    ids = [e["id"] for e in logged]
    counts = Counter(ids)
    acknowledged = [tap_id for tap_id, _, _ in referee.events]
    by_id = {tap_id: (payload, version) for tap_id, payload, version in referee.events}

    lost = [tap_id for tap_id in acknowledged if tap_id not in counts]
    fail("lost", len(lost), f"{lost[:10]}")
    doubled = [tap_id for tap_id, n in counts.items() if n > 1]
    fail("doubled", len(doubled), f"{doubled[:10]}")
    in_log = [tap_id for tap_id in dict.fromkeys(ids) if tap_id in by_id]
    kept = [tap_id for tap_id in acknowledged if tap_id in counts]
    misplaced = sum(a != b for a, b in zip(in_log, kept, strict=True))
    fail("out_of_order", misplaced, f"log {in_log[:10]}… acknowledged {kept[:10]}…")
    wrong = [e["id"] for e in logged if e["id"] in by_id and (e["event"], e["version"]) != by_id[e["id"]]]
    fail("payload", len(wrong), f"{wrong[:10]}")
    phantom = [tap_id for tap_id in counts if tap_id not in by_id]
    detail = [
        (
            tap_id,
            "refused" if tap_id in referee.refused else "sent" if tap_id in referee.sent else "never sent",
        )
        for tap_id in phantom
    ]
    fail("phantom", len(phantom), f"{detail[:10]}")

    expected_undone = {event_id: version for _, event_id, version in referee.undos}
    undone = {e["id"]: e["undone_version"] for e in logged if e["undone"]}
    differ = set(expected_undone.items()) ^ set(undone.items())
    fail("undone", len(differ), f"{sorted(differ)[:10]}")

    writes = len(logged) + len(undone)
    versions = {
        "table": table["version"],
        "history": history["version"],
        "log": log["version"],
        "events + undos logged": writes,
        "events + undos acknowledged": len(referee.events) + len(referee.undos),
        "last answer": referee.version,
    }
    fail("version", len(set(versions.values())) != 1, f"{versions}")

    replayed = core.view(
        log["game"],
        core.replay(log["game"], log["players"], log["options"], [e["event"] for e in log["events"]]),
    )
    states = {"replay of /log": jsonable(replayed), "/log": log["state"], "last answer": referee.state}
    differing = [name for name, state in states.items() if state != table["state"]]
    active = [e["id"] for e in log["events"]]
    if active != referee.active:
        differing.append("/log's events vs the acknowledged events in effect")
    fail("snapshot", bool(differing), f"GET /api/tables/{referee.code} differs from {differing}")

    # The taps in doubt: applied by an attempt the kill cut short (the retry got the first answer from
    # the log), or only by the retry.
    seen: Counter = Counter()
    by_logged = {e["id"]: e for e in logged}
    for event_id, is_undo, retry_sent in referee.doubts:
        entry = by_logged.get(event_id)
        at = entry and (entry["undone_at"] if is_undo else entry["at"])
        if at:
            earlier = datetime.fromisoformat(at).timestamp() < retry_sent
            seen["applied before the kill" if earlier else "applied by the retry"] += 1

    # Late retries: old acknowledged taps sent again (the same body, its version stale by now): the
    # first answer (kept, or rebuilt from the log once pruned), and nothing applied again.
    answered = referee.answered
    last = len(answered) - 1
    picks = {round(i * last / (LATE_RETRIES - 1)) for i in range(LATE_RETRIES)} if answered else set()
    picks |= set([i for i, (path, _, _) in enumerate(answered) if path == "undo"][:1])  # the first undo
    differ = []
    try:
        for index in sorted(picks):
            path, body, first = answered[index]  # sent by the referee, with its secret
            status, answer, _, _ = persist(
                referee.connection, "POST", f"/api/tables/{referee.code}/{path}", body
            )
            if status != (201 if path == "events" else 200) or digest(answer) != first:
                differ.append(f"{body['id']} -> {status}")
    finally:
        referee.connection.close()
    seen["late retries"] += len(picks)
    after = read("/history")
    if (after["version"], len(after["events"])) != (history["version"], len(logged)):
        differ.append(f"applied again: version {history['version']} -> {after['version']}")
    fail("late_retry", len(differ), f"{differ[:10]}")

    fail("unexpected", len(referee.unexpected), f"{referee.unexpected[:3]}")
    fail("version_jumps", referee.version_jumps, "an acknowledgement skipped or repeated a version")
    if referee.error is not None:
        details.append(f"{referee.code} referee stopped on {referee.error!r}"[:400])
    return failures, details, seen


# --- a run ---------------------------------------------------------------------------------------


@dataclass
class Report:
    backend: str
    referees: int
    kills: int = 0
    seconds: float = 0.0
    events: int = 0  # acknowledged (201)
    undos: int = 0  # acknowledged (200)
    retries: int = 0
    retried: int = 0
    in_doubt: int = 0
    doubt_refused: int = 0
    server_errors: int = 0
    stale_sent: int = 0
    stale_refused: int = 0
    come_back: list[float] = field(default_factory=list)  # seconds, kill to the first 201 after it
    seen: Counter = field(default_factory=Counter)  # the taps in doubt by who applied them; late retries
    failures: Counter = field(default_factory=Counter)
    details: list[str] = field(default_factory=list)  # failed checks, referees stopped, the run's errors

    @property
    def acknowledged(self) -> int:
        return self.events + self.undos

    @property
    def ok(self) -> bool:
        return not self.details and not sum(self.failures.values())

    def text(self) -> str:
        rows = [
            ("kills (SIGKILL to the master and every worker)", self.kills),
            (
                "taps acknowledged",
                f"{self.acknowledged}  (events 201: {self.events}, undos 200: {self.undos})",
            ),
            (
                "taps retried (the same id sent again)",
                f"{self.retried}  ({self.retries} attempts, {self.server_errors} after a 5xx)",
            ),
            ("  of which sent whole and unanswered (in doubt)", self.in_doubt),
            (
                "    applied before the kill / by the retry / refused",
                f"{self.seen['applied before the kill']} / {self.seen['applied by the retry']} / "
                f"{self.doubt_refused}",
            ),
            ("old taps sent again at the end (late retries)", self.seen["late retries"]),
            ("stale versions sent on purpose / answered 409", f"{self.stale_sent} / {self.stale_refused}"),
            *((label, self.failures[check]) for check, label in CHECKS),
        ]
        lines = [f"backend: {self.backend}", f"referees: {self.referees}, run: {self.seconds:.1f} s"]
        lines += [f"{label:<55} {value}" for label, value in rows]
        if self.come_back:
            values = sorted(1e3 * v for v in self.come_back)
            p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
            lines.append(
                f"{'come back after a kill (kill to first 201)':<55} n={len(values)}  "
                f"p50 {statistics.median(values):.0f} ms   p95 {p95:.0f} ms   "
                f"max {values[-1]:.0f} ms"
            )
        lines += [f"  ! {detail}" for detail in self.details[:30]]
        return "\n".join(lines)


def run(server: Server, referees: int = 10, kills: int = 50, seed: int = 1, backend: str = "") -> Report:
    """Start ``server``, let the referees tap while it is killed ``kills`` times, check every table.
    The caller stops the server afterwards (it is left running for a look)."""
    report = Report(backend=backend, referees=referees)
    rng = random.Random(f"{seed}-killer")
    acks, stop = Acks(), threading.Event()
    started = time.perf_counter()
    server.start()
    server.wait_ready()
    setup = Connection(server.port)
    team = []
    for index in range(referees):
        body = {"game": "morto", "players": PLAYERS, "options": OPTIONS}
        status, table = setup.call("POST", "/api/tables", body)
        if status != 201:
            raise RuntimeError(f"POST /api/tables: {status} {table}")
        team.append(Referee(index, server.port, table, seed, acks, stop))
    setup.close()

    def stopped() -> bool:
        return any(not referee.is_alive() for referee in team)

    acks.arm(time.perf_counter())
    for referee in team:
        referee.start()
    try:
        if acks.wait(COME_BACK_SECONDS, stopped) is None:
            report.details.append("no write was acknowledged before the first kill")
        for _ in range(kills if not report.details else 0):
            time.sleep(rng.uniform(*KILL_GAP))
            if stopped():
                break
            killed_at = time.perf_counter()
            acks.arm(killed_at)
            server.kill()
            report.kills += 1
            server.start()
            first = acks.wait(COME_BACK_SECONDS, stopped)
            if first is None:
                report.details.append(
                    f"after kill {report.kills}, nothing acknowledged in "
                    f"{COME_BACK_SECONDS:.0f} s:\n{server.tail()}"
                )
                break
            report.come_back.append(first - killed_at)
    finally:
        stop.set()
        for referee in team:
            referee.join(TAP_SECONDS + 30)
    report.seconds = time.perf_counter() - started
    if any(referee.is_alive() for referee in team):
        report.details.append("a referee is still waiting for an answer")
        return report

    reader = Connection(server.port)
    try:
        for referee in team:
            report.events += len(referee.events)
            report.undos += len(referee.undos)
            report.retries += referee.retries
            report.retried += referee.retried
            report.in_doubt += referee.in_doubt
            report.doubt_refused += referee.doubt_refused
            report.server_errors += referee.server_errors
            report.stale_sent += referee.stale_sent
            report.stale_refused += referee.stale_refused
            try:
                failures, details, seen = check_table(reader, referee)
            except Unanswered as error:
                report.details.append(f"{referee.code}: the check got no answer: {error}\n{server.tail()}")
                break
            report.failures.update(failures)
            report.seen.update(seen)
            report.details += details
    finally:
        reader.close()
    return report


def logged(log: Path, text: str) -> int:
    return sum(text in line for line in log.read_text(errors="replace").splitlines())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--referees", type=int, default=10)
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--postgres", action="store_true", help="start a throwaway PostgreSQL server (fsync on)"
    )
    parser.add_argument("--workers", type=int, default=None, help="server processes [serve's default]")
    args = parser.parse_args()
    become_subreaper()
    cluster = None
    environ = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    if args.postgres:
        bindir = postgres_bindir()
        if bindir is None:
            sys.exit("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb)")
        cluster = PostgresCluster(bindir, fsync=True)
    try:
        if cluster is not None:
            cluster.start()
            environ["DATABASE_URL"] = cluster.url(cluster.create_database("crash"))
            backend = "PostgreSQL (fsync on)"
        else:
            backend = "SQLite (WAL, synchronous=FULL)"
        backend += f", {args.workers or default_workers()} gevent workers"
        with tempfile.TemporaryDirectory(prefix="arbitre-crash-") as folder:
            environ.update(ARBITRE_INSTANCE=str(Path(folder) / "instance"), PYTHONUNBUFFERED="1")
            log = Path(folder) / "serve.log"
            server = restartable_server(environ, log, args.workers)
            load_before = os.getloadavg()[0]
            try:
                report = run(server, args.referees, args.kills, args.seed, backend)
            finally:
                server.stop()
            print(report.text())
            print(
                f"{'machine load average (1 min), before / after':<55} "
                f"{load_before:.2f} / {os.getloadavg()[0]:.2f}  ({os.cpu_count()} cores)"
            )
            print(
                f"{'server log: tracebacks / port still in use at start':<55} "
                f"{logged(log, 'Traceback')} / {logged(log, 'Connection in use')}"
            )
    finally:
        if cluster is not None:
            cluster.stop()
    sys.exit(0 if report.ok else 1)


if __name__ == "__main__":
    main()
