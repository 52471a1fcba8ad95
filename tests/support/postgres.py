"""A throwaway PostgreSQL server for the tests and benchmarks: ``initdb`` in a temporary directory,
listening only on a Unix socket there, stopped and removed at the end. The machine's own PostgreSQL,
if any, is never touched.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.support.ports import free_port


def postgres_bindir() -> str | None:
    """The newest installed PostgreSQL server's bin directory (Debian layout), if any."""
    found = [Path(path).parent for path in glob.glob("/usr/lib/postgresql/*/bin/initdb")]
    if not found:
        return None

    def major(bindir: Path) -> int:
        version = bindir.parent.name
        return int(version) if version.isdigit() else 0

    return str(max(found, key=major))


class PostgresCluster:
    """A PostgreSQL cluster in a temporary directory, reachable only through its Unix socket there."""

    def __init__(self, bindir: str, fsync: bool = False):
        self.bindir = bindir
        self.fsync = fsync  # off for tests (speed); on for benchmarks that measure durable writes
        # Short path: a Unix socket path must fit in ~107 bytes.
        self.dir = tempfile.mkdtemp(prefix="arbitre-pg-", dir="/tmp" if os.path.isdir("/tmp") else None)
        self.data = os.path.join(self.dir, "data")
        self.port = free_port()
        self._numbers = itertools.count(1)
        self._module_databases: dict[str, str] = {}
        self.started = False

    def _run(self, program: str, *args: str) -> None:
        command = [os.path.join(self.bindir, program), *args]
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")

    def start(self) -> None:
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
        self._run("initdb", "-D", self.data, "-A", "trust", "-U", "postgres", "--no-sync")
        fsync = "on" if self.fsync else "off"
        server_options = f"-k {self.dir} -p {self.port} -c listen_addresses='' -c fsync={fsync}"
        self._run(
            "pg_ctl",
            "-D",
            self.data,
            "-l",
            os.path.join(self.dir, "log"),
            "-o",
            server_options,
            "-w",
            "start",
        )
        self.started = True

    def stop(self) -> None:
        try:
            if self.started:
                self._run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def connect(self, dbname: str = "postgres"):
        import psycopg

        return psycopg.connect(host=self.dir, port=self.port, user="postgres", dbname=dbname, autocommit=True)

    def create_database(self, prefix: str = "arbitre") -> str:
        name = f"{prefix}_{next(self._numbers)}"
        with self.connect() as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return name

    def module_database(self, module_name: str) -> str:
        """One database per test module; the tests in it truncate it (see ``app``)."""
        if module_name not in self._module_databases:
            prefix = "t_" + "".join(c if c.isalnum() else "_" for c in module_name.rsplit(".", 1)[-1])
            self._module_databases[module_name] = self.create_database(prefix[:40])
        return self._module_databases[module_name]

    def url(self, dbname: str) -> str:
        return f"postgresql://postgres@/{dbname}?host={self.dir}&port={self.port}"
