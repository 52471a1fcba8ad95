"""Shared by the benchmarks: a real `companion serve` on a free port, the app in process on a fresh
database, and Debian's Chromium. The server, its HTTP client and its free port are the tests' own
(`tests.support`)."""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # a benchmark runs as `python bench/x.py`: only bench/ is on the path
    sys.path.insert(0, str(ROOT))

from tests.support import http  # noqa: E402
from tests.support.server import Server  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


# The limits a table's players never meet, raised: a benchmark writes at a machine's speed on purpose
# (companion/web/long_reads.py says why a server bounds a table's length and its writes a minute).
MACHINE_SPEED = {"ARBITRE_TABLE_WRITES_PER_MINUTE": "1000000000", "ARBITRE_EVENTS_PER_TABLE": "1000000000"}


@contextlib.contextmanager
def serving(
    env: dict | None = None,
    workers: int | None = None,
    floor: bool = False,
    instance: str | None = None,
    log_copy: str | None = None,
    open_files: int | None = None,
):
    """``companion serve`` on a free port with its own instance folder (SQLite there, or DATABASE_URL
    from ``env``), a table's limits raised (`MACHINE_SPEED`, unless ``env`` says otherwise); yields
    (base URL, the server's master process). At the end, the lines of its log
    that say ERROR or Traceback are printed.

    ``floor``: start `bench/floor_server.py` instead, the same server plus ``POST /bench/floor`` (a
    bare Flask JSON endpoint on the same app). ``instance``: use this folder (made and filled by the
    caller, e.g. a database built beforehand) instead of a temporary one; the log is written there.
    ``log_copy``: where to copy the server's whole log at the end. ``open_files``: the server's limit
    on open files (soft and hard: ``serve`` raises the soft one to the hard one), which sets how many
    connections each of its workers holds."""
    with contextlib.ExitStack() as stack:
        if instance is None:
            instance = stack.enter_context(tempfile.TemporaryDirectory())
        environ = {**os.environ, "ARBITRE_INSTANCE": instance, **MACHINE_SPEED, **(env or {})}
        limit = (
            None
            if open_files is None
            else (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (open_files,) * 2))
        )
        program = [sys.executable, str(ROOT / "bench" / "floor_server.py")] if floor else None
        log_path = Path(instance) / "serve.log"
        log_path.unlink(missing_ok=True)  # this run's log only
        served = Server(environ, log_path, workers=workers, program=program, preexec_fn=limit)
        try:
            served.started()
            yield served.base, served.process
        finally:
            served.stop()
            if log_copy:
                shutil.copyfile(log_path, log_copy)
            errors = served.errors()
            if errors:
                print("server errors:\n  " + "\n  ".join(errors[:20]))


@contextlib.contextmanager
def server(env: dict | None = None):
    """Yields the base URL of a fresh server (see `serving`)."""
    with serving(env) as (base, _process):
        yield base


@contextlib.contextmanager
def fresh_app():
    """Yields ``(app, folder)``: the app in this process (rate limits off) on a new SQLite database
    in a temporary instance folder, removed afterwards."""
    from companion import create_app
    from companion.cli import upgrade_database
    from companion.storage.models import db

    with tempfile.TemporaryDirectory() as instance:
        os.environ["ARBITRE_INSTANCE"] = instance
        os.environ.pop("DATABASE_URL", None)
        app = create_app({"RATELIMIT_ENABLED": False})
        upgrade_database(app)
        try:
            yield app, Path(instance)
        finally:
            with app.app_context():
                db.engine.dispose()


def call(base: str, path: str, body=None, secret: str | None = None, method: str | None = None):
    """The JSON answer of a request that must succeed (`tests.support.http.api`)."""
    return http.api(base, path, body, secret, method, timeout=30)


class Client(http.Client):
    """One kept-alive connection to the server; ``send`` answers (status, milliseconds, raw body)."""

    def __init__(self, base: str, timeout: float = 120):
        super().__init__(base, timeout=timeout)

    def send(
        self, method: str, path: str, body=None, secret: str | None = None, headers: dict | None = None
    ) -> tuple[int, float, bytes]:
        answer = self.request(method, path, body, secret=secret, headers=headers)
        return answer.status, answer.ms, answer.body


def load_average() -> str:
    """The machine's load average over the last minute (the benchmarks share its two cores)."""
    with contextlib.suppress(OSError):
        return f"{os.getloadavg()[0]:.2f}"
    return "?"


def percentile(values: list[float], q: float) -> float:
    """The value at quantile ``q`` of ``values`` (nearest rank; NaN when there are none)."""
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))] if values else float("nan")


def server_workers(master: int) -> list[int]:
    """The pids of the server's workers (the master's children)."""
    with contextlib.suppress(OSError):
        return [int(p) for p in Path(f"/proc/{master}/task/{master}/children").read_text().split()]
    return []


def server_cpu(master: int) -> float:
    """CPU seconds used so far by the server's master and workers."""
    ticks = 0
    for pid in [master, *server_workers(master)]:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def summary(label: str, values: list[float], unit: str = "ms") -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return (
        f"{label:<44} n={len(values):<4} median {statistics.median(values):8.2f} {unit}"
        f"   p95 {p95:8.2f} {unit}   min {values[0]:8.2f} {unit}"
    )
