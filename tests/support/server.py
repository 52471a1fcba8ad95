"""``companion serve`` in a subprocess, as a person starts it: the one server harness of the tests,
the end-to-end tests and the benchmarks.

A `Server` keeps its port, its environment and its log across restarts, so a restart finds the same
database (SQLite in its ``ARBITRE_INSTANCE`` folder, or ``DATABASE_URL``). It runs in a session of
its own: its process group is the gunicorn master and every worker, so `Server.kill` takes them all
at once, as a crash of the machine would, and nothing of it outlives `Server.stop`. Its output goes
to a log file (nobody would drain a pipe, and a full one blocks the server); a server that exits or
never answers raises `ServerError` with the end of that log.

Waits only bound how long a broken server can hang a run: they assert nothing about speed.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support import http as client
from tests.support.ports import HOST, free_port
from tests.support.sse import Stream

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 60
STOP_SECONDS = 20
READY_PATH = "/api/tables/NOPE42"  # the API's 404 unknown_table: the app is up, its database too


class ServerError(RuntimeError):
    """The server exited, or never answered; the message ends with its log."""


def companion_command() -> list[str]:
    """The ``companion`` console script of this interpreter's environment."""
    script = Path(sys.executable).with_name("companion")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from companion.cli import main; main()"]


def server_env(instance: Path | str, database_url: str | None = None, **settings: str) -> dict[str, str]:
    """This process's environment for a server of its own: its instance folder (SQLite there unless
    ``database_url``; an ambient ``DATABASE_URL`` is never inherited), unbuffered output, and
    ``settings`` (more variables, e.g. ``ARBITRE_RATELIMIT_NEW_TABLE="5/hour"``)."""
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    env.update(ARBITRE_INSTANCE=str(instance), PYTHONUNBUFFERED="1", **settings)
    if database_url:
        env["DATABASE_URL"] = database_url
    return env


def log_tail(path: Path, lines: int = 60) -> str:
    """The end of a server's log, without the QR drawing ``companion serve`` prints at start."""
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError as error:
        return f"(no server log: {error})"
    return "\n".join([line for line in text if not set(line) <= set("█▀▄ ")][-lines:])


def _stat(path: str) -> list[str]:
    """The fields of a /proc ``stat`` file after the command name: state, ppid, pgid, …"""
    return Path(path).read_text().rsplit(")", 1)[1].split()


def group_members(pgid: int) -> list[tuple[int, bool]]:
    """(pid, whether it is gone but for its exit status) of every process in the group ``pgid``.

    A killed multi-threaded process shows its main thread as a zombie while its other threads may
    still be exiting (one may be finishing an fsync), with its files, the listening socket among
    them, still open: it is gone only once every thread is a zombie."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if int(_stat(f"/proc/{entry}/stat")[2]) != pgid:
                continue
            tasks = os.listdir(f"/proc/{entry}/task")
        except (OSError, IndexError, ValueError):
            continue  # not a process of the group, or reaped meanwhile
        states = []
        for task in tasks:
            with contextlib.suppress(OSError, IndexError):  # a thread that ended meanwhile
                states.append(_stat(f"/proc/{entry}/task/{task}/stat")[0])
        members.append((int(entry), all(state in "ZX" for state in states)))
    return members


class Server:
    """``companion serve --host 127.0.0.1 --port <port> [--workers N] <options>`` with ``env``.

    ``program``: another command that takes serve's options instead (e.g. `bench/floor_server.py`);
    ``port``: the port to keep (a free one by default); ``preexec_fn``: run in the child before the
    server (e.g. a lowered file limit); ``ready_path``: what `wait_ready` asks until it is answered
    (below 500)."""

    def __init__(
        self,
        env: dict,
        log: Path | str,
        *options: str,
        workers: int | None = None,
        port: int | None = None,
        program: list[str] | None = None,
        preexec_fn: Callable[[], Any] | None = None,
        ready_path: str = READY_PATH,
    ):
        self.env = dict(env)
        self.log = Path(log)
        self.options = list(options)
        self.workers = workers
        self.port = port or free_port()
        self.program = program or [*companion_command(), "serve"]
        self.preexec_fn = preexec_fn
        self.ready_path = ready_path
        self.process: subprocess.Popen | None = None
        self.starts = 0

    @property
    def base(self) -> str:
        """The base URL, without a trailing slash."""
        return f"http://{HOST}:{self.port}"

    def command(self) -> list[str]:
        command = [*self.program, "--host", HOST, "--port", str(self.port)]
        if self.workers:
            command += ["--workers", str(self.workers)]
        return command + self.options

    def start(self) -> Server:
        """Start the server (again); returns at once (see `wait_ready`)."""
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(
                self.command(),
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                preexec_fn=self.preexec_fn,
                start_new_session=True,
            )
        self.starts += 1
        return self

    def wait_ready(self, seconds: float = START_SECONDS, pause: float = 0.1) -> None:
        """Until the server answers ``ready_path`` below 500 (a 503: its database is not there yet)."""
        deadline = time.monotonic() + seconds
        while True:
            if self.process.poll() is not None:
                raise ServerError(f"companion serve exited with {self.process.returncode}:\n{self.tail()}")
            try:
                if client.request(self.port, "GET", self.ready_path).status < 500:
                    return
            except (OSError, http.client.HTTPException):
                pass
            if time.monotonic() > deadline:
                raise ServerError(f"companion serve never answered in {seconds:g} s:\n{self.tail()}")
            time.sleep(pause)

    def started(self, seconds: float = START_SECONDS) -> Server:
        """Start and wait until it answers; stopped again if it never does."""
        self.start()
        try:
            self.wait_ready(seconds)
        except BaseException:
            self.stop()
            raise
        return self

    # --- what it says ----------------------------------------------------------------------------

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def tail(self, lines: int = 60) -> str:
        return log_tail(self.log, lines)

    def errors(self) -> list[str]:
        """The lines of its log that say ERROR or Traceback."""
        return [line for line in self.output().splitlines() if "ERROR" in line or "Traceback" in line]

    def worker_pids(self) -> list[int]:
        """The pids of its workers (the master's children)."""
        with contextlib.suppress(OSError):
            pid = self.process.pid
            return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        return []

    # --- talking to it ---------------------------------------------------------------------------

    def call(self, method: str, path: str, body: Any = None, secret: str | None = None) -> tuple[int, Any]:
        """(status, JSON answer) of one request on a new connection."""
        return client.call(self.port, method, path, body, secret)

    def stream(self, code: str, last_id: str | None = None, address: str = HOST) -> Stream:
        return Stream(self.port, code, last_id, address)

    # --- ending it -------------------------------------------------------------------------------

    def kill(self) -> None:
        """SIGKILL to the master and every worker at once; returns once none of them runs."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)
        self._reap()

    def stop(self, seconds: float = STOP_SECONDS) -> None:
        """SIGTERM (gunicorn's clean shutdown), then SIGKILL to the group after ``seconds``."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=seconds)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        self._reap()

    def _reap(self) -> None:
        """Wait (10 s at most) until no process of the group runs; reap the workers left to us."""
        deadline = time.monotonic() + 10
        while True:
            running = []
            for pid, gone in group_members(self.process.pid):
                if gone:
                    with contextlib.suppress(ChildProcessError):  # else reaped by whoever is its parent
                        os.waitpid(pid, os.WNOHANG)
                else:
                    running.append(pid)
            if not running:
                return
            if time.monotonic() > deadline:
                raise ServerError(f"server processes {running} still run after the server ended")
            time.sleep(0.01)

    def __enter__(self) -> Server:
        return self.started()

    def __exit__(self, *exc) -> None:
        self.stop()
