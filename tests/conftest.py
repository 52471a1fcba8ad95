"""Shared fixtures: the app on SQLite and on a throwaway PostgreSQL server, its client, tables, and
the real server (``companion serve``) on each.

Every test that asks for ``app`` (or ``client``, ``make_table``) runs twice: once on SQLite in a
fresh instance folder, once on a real PostgreSQL server that this file starts itself (``initdb`` in a
temporary directory, listening only on a Unix socket there) and stops at the end of the session.
The machine's own PostgreSQL, if any, is never touched. Without PostgreSQL binaries the PostgreSQL
half is skipped with the reason; CI installs the Debian ``postgresql`` package, so it runs there.

The schema is always made by the real Alembic migrations (``upgrade_database``), never ``create_all``.
"""

from __future__ import annotations

import itertools

import pytest

from tests.support.postgres import PostgresCluster, postgres_bindir
from tests.support.server import Server, server_env

BACKENDS = ("sqlite", "postgresql")

MORTO_NAMES = ["Ada", "Bruno", "Chiara", "Dario", "Elena"]


@pytest.fixture(scope="session")
def postgres():
    """The session's PostgreSQL cluster; skips when PostgreSQL is not installed."""
    bindir = postgres_bindir()
    if bindir is None:
        pytest.skip(
            "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): "
            "install the Debian 'postgresql' package to run the PostgreSQL half of the suite"
        )
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg is not installed: pip install -e '.[test]'")
    cluster = PostgresCluster(bindir)
    try:
        cluster.start()
    except BaseException:
        cluster.stop()
        raise
    yield cluster
    cluster.stop()


# --- replays skip nothing of a test's own logs -------------------------------------------------


OLDER_RULES = "replays_a_log_of_older_rules"  # a marker, registered in pyproject.toml


@pytest.fixture(autouse=True)
def _replays_skip_nothing(request, caplog):
    """A replay keeps an event of a stored log that the rules refuse now as a no-op, and logs it
    (`engine.core.replayed`): logs written under older rules stay readable. A test's own logs are
    today's: an event skipped there is a mistake in the test (a state silently not the one meant),
    unless the test is marked as replaying a log of older rules."""
    yield
    if request.node.get_closest_marker(OLDER_RULES) is None:
        skipped = [
            r.getMessage()
            for r in caplog.records
            if r.name == "engine.core" and "refused now" in r.getMessage()
        ]
        assert not skipped, f"a replay skipped events the rules refuse: {skipped}"


# --- the app on each backend --------------------------------------------------------------------


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    return request.param


@pytest.fixture
def database_url(backend, request, monkeypatch) -> str | None:
    """``DATABASE_URL`` for this test (set in the environment), or None for SQLite in the instance folder."""
    if backend == "sqlite":
        monkeypatch.delenv("DATABASE_URL", raising=False)
        return None
    cluster = request.getfixturevalue("postgres")
    url = cluster.url(cluster.module_database(request.module.__name__))
    monkeypatch.setenv("DATABASE_URL", url)
    return url


def dispose(app) -> None:
    """Close every pooled connection, so nothing leaks into the next test (warnings are errors)."""
    from companion.storage.models import db

    with app.app_context():
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()


# The limits on strangers (companion/web/limits.py) are on in every test. A test that sends more than a
# stranger's share from one address on purpose, and is not about the limits, raises them with the
# ``limits`` marker (registered in pyproject.toml), so that each of its requests still reaches what
# it tests: ``@pytest.mark.limits(RATELIMIT_NEW_TABLE="1000/hour")``.
def raised_limits(request) -> dict:
    """The app settings the test's ``limits`` markers raise (the closest marker wins a key)."""
    settings: dict = {}
    for marker in reversed(list(request.node.iter_markers("limits"))):
        settings.update(marker.kwargs)
    return settings


@pytest.fixture
def app(database_url, tmp_path, monkeypatch, request):
    from companion import create_app
    from companion.cli import upgrade_database
    from companion.storage.models import db

    monkeypatch.setenv("ARBITRE_INSTANCE", str(tmp_path / "instance"))
    app = create_app({"TESTING": True, **raised_limits(request)})
    try:
        upgrade_database(app)
        if database_url is not None:
            # The module's database is shared by its tests: start each one empty.
            with app.app_context():
                db.session.execute(db.text("TRUNCATE events, tables, rate_limits RESTART IDENTITY CASCADE"))
                db.session.commit()
        yield app
    finally:
        dispose(app)


@pytest.fixture
def client(app):
    return app.test_client()


# --- the real server on each backend -----------------------------------------------------------


@pytest.fixture
def served(backend, request, tmp_path):
    """``companion serve`` on this backend (``tests.support.server``): ``(make, tables)``, where
    ``make()`` gives a two-worker server not yet started (stopped after the test) and ``tables()``
    the tables its database has so far."""
    database_url = None
    if backend == "sqlite":
        database = tmp_path / "instance" / "arbitre.db"

        def tables() -> set[str]:
            import sqlite3

            if not database.exists():
                return set()
            connection = sqlite3.connect(database)
            try:
                rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                return {row[0] for row in rows}
            finally:
                connection.close()
    else:
        cluster = request.getfixturevalue("postgres")
        name = cluster.create_database("serve")
        database_url = cluster.url(name)

        def tables() -> set[str]:
            with cluster.connect(name) as connection:
                query = "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
                return {row[0] for row in connection.execute(query).fetchall()}

    env = server_env(tmp_path / "instance", database_url)
    servers: list[Server] = []

    def make() -> Server:
        server = Server(env, tmp_path / "serve.log", workers=2)
        servers.append(server)
        return server

    yield make, tables
    for server in servers:
        server.stop()


# --- tables through the API ---------------------------------------------------------------------


def bearer(secret: str) -> dict:
    return {"Authorization": f"Bearer {secret}"}


class Table:
    """A table created through the API, and the referee's writes on it (with its bearer secret)."""

    _ids = itertools.count(1)

    def __init__(self, client, game: str = "morto", players=None, options=None):
        self.client = client
        body = {"game": game, "players": list(MORTO_NAMES if players is None else players)}
        if options is not None:
            body["options"] = options
        response = client.post("/api/tables", json=body)
        assert response.status_code == 201, response.get_json()
        self.created = response.get_json()
        self.code = self.created["code"]
        self.secret = self.created["secret"]
        self.game = game

    @property
    def auth(self) -> dict:
        return bearer(self.secret)

    def new_id(self) -> str:
        return f"ev-{next(self._ids)}"

    def post(self, type: str, *, id: str | None = None, headers: dict | None = None, **params):
        """POST one event (a fresh client id unless given); returns the response."""
        body = {"id": id or self.new_id(), "type": type, **params}
        return self.client.post(
            f"/api/tables/{self.code}/events", json=body, headers=self.auth if headers is None else headers
        )

    def event(self, type: str, **params) -> dict:
        """POST one event that must be accepted; returns the answer."""
        response = self.post(type, **params)
        assert response.status_code == 201, response.get_json()
        return response.get_json()

    def undo(self, headers: dict | None = None, **body):
        return self.client.post(
            f"/api/tables/{self.code}/undo", json=body, headers=self.auth if headers is None else headers
        )

    def get(self) -> dict:
        response = self.client.get(f"/api/tables/{self.code}")
        assert response.status_code == 200
        return response.get_json()

    def history(self) -> dict:
        response = self.client.get(f"/api/tables/{self.code}/history")
        assert response.status_code == 200
        return response.get_json()

    def snapshot(self) -> tuple[dict, dict]:
        """Everything a refused write must leave as it was: the table and its history."""
        return self.get(), self.history()


@pytest.fixture
def make_table(client):
    def make(game: str = "morto", players=None, options=None) -> Table:
        return Table(client, game, players, options)

    return make
