"""Limits on strangers, per client address, with Flask-Limiter; the counters live in the database.
And one limit per table, whoever writes: its writes a minute (``count_write``, below).

Three limits per address (their sizes are app config, ``RATELIMIT_*``):

- **wrong table codes** (``RATELIMIT_UNKNOWN_TABLE``, 30 a minute): a route that names a table
  (``<code>`` in its URL: the API, the stream, the pages) answering that it is not there (the API's
  404 ``unknown_table``; a page's 404, no such table or player) counts one failure; found tables
  count nothing, nor a 404 about a table that exists (an unknown check, no rendezvous yet). Past
  the limit *every* request from that address to a route naming a table is answered 429 until the
  window ends, the good codes too: a 429 for a wrong code next to a 200 for a right one would tell
  a guesser which codes exist, and a code (6 characters, 30 bits) is meant to be typed by a person,
  not to resist guessing on its own. Only a referee's request carrying the table's right secret
  passes (and is never counted): it proves the code was known, so the referees behind a festival's
  NAT keep tapping while someone there mistypes codes.
- **wrong or missing secrets** (``RATELIMIT_WRONG_SECRET``, 30 a minute): each 401/403 counts one
  failure, a wrong player's secret as a wrong referee's, and past the limit further failures are
  answered 429 instead of 401/403. A player's right secret refused what it may not do (``403
  not_your_move``, ``referee_only``) counts nothing: it guessed nothing.
  A request with the right secret is never counted nor refused: the secret has 128 random bits, so
  telling right from wrong gives a guesser nothing, and one phone behind a festival's NAT replaying
  a stale secret must not lock out the other referees behind the same address.
- **new tables** (``RATELIMIT_NEW_TABLE``, 60 an hour): every ``POST /api/tables``, every
  ``POST /api/tables/import`` and every ``POST /api/tables/<code>/rematch`` counts, refused or not;
  generous, for a festival where every table is created from behind one NAT.

Only failures (and creations) count: a table played behind one NAT, its followers and referees
reading and tapping all evening, never comes near a limit.

A refusal is ``429 too_many_requests`` in the API's error shape (``companion.web.errors.error_response``)
with ``params.retry_after`` and a ``Retry-After`` header, in seconds until the window ends; a page
gets the same sentences as plain text.

**Storage.** gunicorn runs several worker processes, so counters in memory would let each one count
alone. The limits package has no SQL storage: `DatabaseStorage` keeps fixed-window counters in the
deployment's own database, table ``rate_limits(key, count, expires_at)``, each hit one atomic upsert
(``INSERT … ON CONFLICT (key) DO UPDATE``, SQLite ≥ 3.24 and PostgreSQL) that restarts an expired
window at the hit's count or adds to a live one, on a connection of its own, committed at once,
whatever the request's own transaction does. Checking a limit is one read by primary key: each
request to a route naming a table makes it (is this address past its wrong codes?), a failure or a
creation then makes one upsert. ``ARBITRE_RATELIMIT_STORAGE`` (a Flask-Limiter storage
URI, e.g. ``redis://host:6379``) puts the counters there instead (``RATELIMIT_STORAGE_URI``).

**A table's writes a minute** (``TABLE_WRITES_PER_MINUTE``, 600): every event and undo a referee
sends with the table's secret counts, and past the limit the write is ``429 too_many_writes`` until
the minute ends. A table grows as fast as people play, never at a machine's speed (its length is
bounded too: ``EVENTS_PER_TABLE``, in `companion.storage.store`). Not in the database: a write there would
double a tap's cost. The counts are fixed windows in this process (`LocalWindows`), or in memory
the production server's workers share (`companion.live.counters.SharedWindows`).
"""

from __future__ import annotations

import math
import threading
import time

from flask import Flask, Response, current_app, request
from flask_limiter import ApplicationLimit, Limiter, RateLimitExceeded
from limits import parse
from limits.storage import Storage
from sqlalchemy import case, delete, select, text
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import SQLAlchemyError

from companion.storage.models import db
from companion.web import access
from companion.web.errors import Refused, error_response, sentences_response

EXTENSION = "arbitre.limiter"
DATABASE_URI = "arbitre-db://"
SECRET_FAILURES = (401, 403)
COUNTED = (*SECRET_FAILURES, 404)  # the failures a counter is hit for, after the answer is made
RETRY_AFTER = "arbitre.retry_after"  # this request's 429, in its WSGI environ
SWEEP_EVERY = 200  # hits between two deletions of expired counters (per process)
WINDOWS = "arbitre.table_writes"  # the app's counts of each table's writes this minute


class RateLimit(db.Model):
    """One fixed-window counter: ``count`` hits on ``key`` until ``expires_at`` (seconds since the epoch)."""

    __tablename__ = "rate_limits"

    key = db.Column(db.String(255), primary_key=True)
    count = db.Column(db.Integer, nullable=False)
    expires_at = db.Column(db.Float, nullable=False)


class DatabaseStorage(Storage):
    """Fixed-window counters for the limits package, in the app's database (table ``rate_limits``).

    Every process of the server shares them. What Flask-Limiter's fixed-window strategy calls:
    ``incr`` (a hit), ``get`` (the count in the live window), ``get_expiry`` (its end), plus
    ``check``, ``clear`` and ``reset``. An expired row reads as no row and is restarted by the next
    hit; every ``SWEEP_EVERY`` hits a process deletes the expired ones.
    """

    STORAGE_SCHEME = ["arbitre-db"]

    def __init__(
        self, uri: str | None = None, wrap_exceptions: bool = False, app: Flask | None = None, **options
    ):
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        if app is None:
            raise ValueError("DatabaseStorage needs the Flask app whose database holds the counters")
        self.app = app
        self._engine = None
        self._hits = 0

    @property
    def base_exceptions(self) -> type[Exception]:
        return SQLAlchemyError

    @property
    def engine(self):
        if self._engine is None:
            with self.app.app_context():
                self._engine = db.engine
        return self._engine

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        now = time.time()
        table = RateLimit.__table__
        dialect = self.engine.dialect.name
        if dialect == "postgresql":
            insert = postgresql_insert(table)
        elif dialect == "sqlite":
            insert = sqlite_insert(table)
        else:  # pragma: no cover - the app runs on SQLite or PostgreSQL only
            raise NotImplementedError(f"no rate-limit upsert for {dialect}")
        insert = insert.values(key=key, count=amount, expires_at=now + expiry)
        expired = table.c.expires_at <= now
        upsert = insert.on_conflict_do_update(
            index_elements=[table.c.key],
            set_={
                "count": case((expired, insert.excluded.count), else_=table.c.count + insert.excluded.count),
                "expires_at": case((expired, insert.excluded.expires_at), else_=table.c.expires_at),
            },
        )
        with self.engine.begin() as connection:
            connection.execute(upsert)
            # Same transaction: the row stays locked (PostgreSQL) or the database does (SQLite)
            # until the commit, so this is the count this hit made.
            count = connection.execute(select(table.c.count).where(table.c.key == key)).scalar_one()
            self._hits += 1
            if self._hits % SWEEP_EVERY == 0:
                connection.execute(delete(table).where(table.c.expires_at <= now))
        return count

    def _live(self, column, key: str):
        table = RateLimit.__table__
        query = select(column).where(table.c.key == key, table.c.expires_at > time.time())
        with self.engine.connect() as connection:
            return connection.execute(query).scalar_one_or_none()

    def get(self, key: str) -> int:
        return self._live(RateLimit.__table__.c.count, key) or 0

    def get_expiry(self, key: str) -> float:
        expires_at = self._live(RateLimit.__table__.c.expires_at, key)
        return time.time() if expires_at is None else expires_at

    def check(self) -> bool:
        try:
            with self.engine.connect() as connection:
                connection.execute(text("SELECT 1"))
            return True
        except SQLAlchemyError:
            return False

    def reset(self) -> int | None:
        with self.engine.begin() as connection:
            return connection.execute(delete(RateLimit.__table__)).rowcount

    def clear(self, key: str) -> None:
        with self.engine.begin() as connection:
            connection.execute(delete(RateLimit.__table__).where(RateLimit.__table__.c.key == key))


# --- which requests count --------------------------------------------------------------------------


def address() -> str:
    """The client's address, as the live streams' cap counts it (``request.remote_addr``)."""
    return request.remote_addr or "?"


def _not_about_codes() -> bool:
    """Exempt from the wrong-code limit: a route naming no table, and a referee's request carrying the
    table's right secret (which proves the code was known: no guess to slow down, and the referees
    behind a NAT keep tapping while a neighbour mistypes codes)."""
    code = (request.view_args or {}).get("code")
    if code is None:
        return True
    return access.bearer_secret() is not None and access.holder(code) is not None


def _not_found(response: Response) -> bool:
    """A table the URL names is not there: the API's ``unknown_table`` (not a missing check or
    rendezvous of a table that exists), or a page's "nothing here" (no such table, or player)."""
    if response.status_code != 404:
        return False
    if not response.is_json:
        return True
    error = (response.get_json(silent=True) or {}).get("error") or {}
    return error.get("code") == "unknown_table"


CREATIONS = (
    "api.create_table",
    "api.import_table",
    "api.rematch_table",
)  # an import, a rematch: new tables too


def _not_a_creation() -> bool:
    return request.endpoint not in CREATIONS


def _under_no_limit() -> bool:
    """Neither limit applies (a referee's tap with its secret, a page naming no table): Flask-Limiter
    then skips the request whole (a request filter) instead of weighing each limit, which cost a
    tap a tenth of its instructions and the floor a sixth (bench/tap_cost.py)."""
    return _not_a_creation() and _not_about_codes()


def _config(name: str):
    return lambda: current_app.config[name]


# --- answers -------------------------------------------------------------------------------------


def too_many(retry_after: float) -> Response:
    """The 429: the API's error shape (a page gets the sentences as text), and ``Retry-After``."""
    seconds = max(1, math.ceil(retry_after))
    request.environ[RETRY_AFTER] = seconds
    respond = error_response if request.path.startswith("/api/") else sentences_response
    return respond(429, "too_many_requests", {"retry_after": seconds})


def rate_limited(error: RateLimitExceeded) -> Response:
    """A limit Flask-Limiter checked before the view (a wrong code, a new table) is spent."""
    current = limiter(current_app).current_limit
    reset_at = current.reset_at if current is not None else time.time() + error.limit.limit.get_expiry()
    return too_many(reset_at - time.time())


def _secret_failures(response: Response) -> Response:
    """Counts a refused secret; past the limit, the refusal becomes a 429. Right secrets pass."""
    extension = limiter(current_app)
    if response.status_code not in SECRET_FAILURES or not extension.enabled or access.right_secret_sent():
        # A right secret refused what it may not do (a player's ``not_your_move``) guessed nothing.
        return response
    item = parse(current_app.config["RATELIMIT_WRONG_SECRET"])
    keys = [address(), "wrong_secret"]
    if extension._key_prefix:
        keys.insert(0, extension._key_prefix)
    if extension.limiter.hit(item, *keys):
        return response
    current_app.logger.info("ratelimit %s (%s) exceeded: wrong secrets", item, keys[-2])
    return too_many(extension.limiter.get_window_stats(item, *keys).reset_time - time.time())


def _after(response: Response) -> Response:
    if response.status_code in COUNTED:
        # A refused request wrote nothing: its connection goes back to the pool before a counter
        # takes one, so a burst of failures cannot hold every connection while waiting for another.
        db.session.close()
    response = _secret_failures(response)
    # A blueprint's hooks ran before this app-wide one: the stream's (``live``) sets a fixed
    # Retry-After on every 429; a 429 of ours keeps the time its window really has left.
    seconds = request.environ.get(RETRY_AFTER)
    if seconds is not None and response.status_code == 429:
        response.headers["Retry-After"] = str(seconds)
    return response


# --- a table's writes per minute ----------------------------------------------------------------


class LocalWindows:
    """Hits per key in the current window of time, in this process; the production server shares
    its counts between its workers instead (`companion.live.counters.SharedWindows`, the same ``hit``)."""

    KEYS_KEPT = 4096  # past this, keys of past windows are forgotten

    def __init__(self):
        self.lock = threading.Lock()
        self.counts: dict[str, tuple[int, int]] = {}  # key -> (window, hits in it)

    def hit(self, key: str, cap: int, seconds: float) -> float:
        """One more hit on ``key`` if the window holds fewer than ``cap``: 0; else the seconds left
        until the next window, and nothing counted."""
        now = time.time()
        window = int(now // seconds)
        with self.lock:
            start, hits = self.counts.get(key, (window, 0))
            if start != window:
                hits = 0
            if hits >= cap:
                return seconds - now % seconds
            if len(self.counts) >= self.KEYS_KEPT:
                self.counts = {k: v for k, v in self.counts.items() if v[0] == window}
            self.counts[key] = (window, hits + 1)
        return 0.0


def install_windows(app: Flask, windows) -> None:
    """Count the tables' writes in ``windows`` (the server's shared counts) instead of this process's."""
    app.extensions[WINDOWS] = windows


def count_write(table_id: int) -> None:
    """A referee's write on the table, counted: past ``TABLE_WRITES_PER_MINUTE`` writes in this
    minute (a fixed window, whatever the address), ``429 too_many_writes`` until the next one. A
    table grows as fast as people play, never at the speed of a machine."""
    cap = current_app.config["TABLE_WRITES_PER_MINUTE"]
    if not cap:
        return
    wait = current_app.extensions[WINDOWS].hit(str(table_id), cap, 60)
    if wait:
        raise Refused(429, "too_many_writes", max=cap, retry_after=max(1, math.ceil(wait)))


# --- installation --------------------------------------------------------------------------------


def limiter(app: Flask) -> Limiter:
    return app.extensions[EXTENSION]


def install(app: Flask) -> Limiter:
    """Flask-Limiter on the app, its counters where ``RATELIMIT_STORAGE_URI`` says (the database by
    default), the three limits, and their 429 answer."""
    uri = app.config.setdefault("RATELIMIT_STORAGE_URI", DATABASE_URI)
    options = {"app": app} if uri.startswith(DATABASE_URI.split(":")[0] + ":") else {}
    extension = Limiter(
        address,
        storage_options=options,
        strategy="fixed-window",
        application_limits=[
            ApplicationLimit(
                _config("RATELIMIT_UNKNOWN_TABLE"),
                scope="unknown_table",
                exempt_when=_not_about_codes,
                deduct_when=_not_found,
            ),
            ApplicationLimit(_config("RATELIMIT_NEW_TABLE"), scope="new_table", exempt_when=_not_a_creation),
        ],
    )
    extension.request_filter(_under_no_limit)
    extension.init_app(app)
    app.extensions[EXTENSION] = extension
    app.register_error_handler(RateLimitExceeded, rate_limited)
    app.after_request(_after)  # registered after Flask-Limiter's own hook, so it runs before it
    app.extensions[WINDOWS] = LocalWindows()
    return extension
