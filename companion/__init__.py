"""The Flask companion: app factory wiring the database, the JSON API, the pages and the live stream."""

from __future__ import annotations

import os
from pathlib import Path

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from companion.storage.models import db, dumps, migrate

ROOT = Path(__file__).resolve().parent.parent
MAX_BODY = 64 * 1024  # a whole reveal for 20 players is under 1 KiB; 64 KiB leaves room and bounds abuse


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(
        __name__,
        instance_path=os.environ.get("ARBITRE_INSTANCE") or str(ROOT / "instance"),
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    app.config.from_mapping(
        SQLALCHEMY_DATABASE_URI=database_url(app.instance_path),
        MAX_CONTENT_LENGTH=MAX_BODY,
        JSON_SORT_KEYS=False,
        LIVE_STREAM_SECONDS=300.0,  # a stream ends after this; EventSource reconnects by itself
        LIVE_KEEPALIVE_SECONDS=15.0,  # a comment on an idle stream: proxies keep it, gone phones show
        LIVE_STREAMS_PER_ADDRESS=32,  # open streams from one address (429 beyond)
        LIVE_STREAMS_PER_PROCESS=None,  # the server sets it below its connections, for the referees' taps
        LIVE_RESUME_MAX=100,  # a follower further behind than this gets the current version only
        # Strangers on the production server (companion/server.py): open connections from one
        # address (429 beyond), and the seconds a request's body may take to arrive (408 beyond).
        CONNECTIONS_PER_ADDRESS=256,
        BODY_SECONDS=10.0,
        # A table's log: at most this many events (422 log_full), and this many writes a minute
        # (429 too_many_writes): a whole-log read stays bounded, and a table cannot be grown at
        # the machine's speed (companion/web/long_reads.py).
        EVENTS_PER_TABLE=10_000,
        TABLE_WRITES_PER_MINUTE=600,
        # The address phones reach the app by (``https://arbitre.example.org``), for the QR code:
        # when unset, the request's own (its Host header), and the QR is never cached publicly.
        PUBLIC_URL=None,
        # Reverse proxies in front (docs/DEPLOY.md) whose X-Forwarded-For and X-Forwarded-Proto are
        # believed: the client's address (the limits per address count it) is the one the nearest
        # of them saw. 0, with no proxy: the headers are a stranger's word, and ignored.
        PROXIES=0,
        # Limits per client address (companion/web/limits.py): failures only, and new tables.
        RATELIMIT_UNKNOWN_TABLE="30/minute",  # 404s on routes that name a table
        RATELIMIT_WRONG_SECRET="30/minute",  # 401/403: missing or wrong referee secrets
        RATELIMIT_NEW_TABLE="60/hour",  # every POST /api/tables
        # Where the counters live: the app's own database unless a shared store is named (redis://…).
        RATELIMIT_STORAGE_URI=os.environ.get("ARBITRE_RATELIMIT_STORAGE") or "arbitre-db://",
    )
    # A deployment (or a benchmark) sets any of these as ARBITRE_<KEY>, e.g.
    # ARBITRE_RATELIMIT_NEW_TABLE="600/hour"; values that read as JSON are taken as JSON.
    app.config.from_prefixed_env("ARBITRE")
    if test_config:
        app.config.update(test_config)
    # A write's answer is stored as the JSON it was encoded to once (`models.dumps`), whatever else
    # the server's engine options say (its pool).
    app.config["SQLALCHEMY_ENGINE_OPTIONS"] = {
        **app.config.get("SQLALCHEMY_ENGINE_OPTIONS", {}),
        "json_serializer": dumps,
    }
    app.json.sort_keys = False
    if app.config["PROXIES"]:
        hops = int(app.config["PROXIES"])
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)

    db.init_app(app)
    migrate.init_app(app, db, directory=str(Path(__file__).parent / "storage" / "migrations"))

    from companion.live import bus, streams
    from companion.pwa import assets, offline
    from companion.storage import warm
    from companion.web import (
        api,
        calendar,
        errors,
        headers,
        i18n,
        limits,
        openapi,
        pages,
        rules,
        story,
        timing,
    )

    app.register_blueprint(api.bp)
    app.register_blueprint(calendar.bp)
    app.register_blueprint(offline.bp)
    app.register_blueprint(assets.bp)
    app.register_blueprint(streams.bp)
    app.register_blueprint(pages.bp)
    app.register_blueprint(openapi.bp)
    app.register_blueprint(story.bp)
    app.register_blueprint(rules.bp)
    errors.register(app)
    i18n.register(app)
    headers.register(app)
    timing.install(app)
    offline.install(app)  # Flask-Compress on text answers; versioned static URLs in templates
    limits.install(app)
    # A table a process keeps for its next write is dropped when another process writes to it.
    bus.for_app(app).subscribe(warm.for_app(app))
    return app


def database_url(instance_path: str) -> str:
    """``DATABASE_URL`` when set (``postgres://`` spelled the SQLAlchemy way), else SQLite in the
    instance folder."""
    url = os.environ.get("DATABASE_URL")
    if not url:
        return "sqlite:///" + str(Path(instance_path) / "arbitre.db")
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://") :]
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    return url
