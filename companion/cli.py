"""The `companion` command: `serve` the app on the local network, `build-assets` (the phone's standard
library, ahead of serving), and `db upgrade` its database."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import click
from flask_migrate import upgrade as alembic_upgrade

from companion import create_app
from companion.web.qr import terminal

SERVER = "import sys; from companion.server import main; main(sys.argv[1:])"


def upgrade_database(app) -> None:
    with app.app_context():
        alembic_upgrade(directory=app.extensions["migrate"].directory)


def lan_address() -> str:
    """This machine's address on the local network, as phones at the table will reach it."""
    try:
        out = subprocess.run(
            ["ip", "-4", "-o", "addr", "show", "scope", "global"],
            check=False,
            capture_output=True,
            text=True,
            timeout=2,
        ).stdout
        for line in out.splitlines():
            return line.split()[3].split("/")[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        pass
    try:
        address = socket.gethostbyname(socket.gethostname())
        if not address.startswith("127."):
            return address
    except OSError:
        pass
    return "127.0.0.1"


@click.group()
def main() -> None:
    """Arbitre: the referee and scorekeeper for games at a real table."""


@main.command()
@click.option("--host", default="0.0.0.0", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port to listen on.")
@click.option(
    "--workers",
    default=None,
    type=click.IntRange(min=1),
    help="Server processes  [default: 1 per core, at least 2].",
)
@click.option(
    "--streams-per-address",
    default=None,
    type=click.IntRange(min=1),
    help="Live streams one address may hold open  [default: LIVE_STREAMS_PER_ADDRESS, 32].",
)
@click.option(
    "--connections-per-address",
    default=None,
    type=click.IntRange(min=1),
    help="Connections one address may hold open  [default: CONNECTIONS_PER_ADDRESS, 256].",
)
def serve(
    host: str,
    port: int,
    workers: int | None,
    streams_per_address: int | None,
    connections_per_address: int | None,
) -> None:
    """Create or upgrade the database, then serve the app (gunicorn with gevent workers)."""
    from companion.server import default_workers

    workers = workers or default_workers()
    app = create_app()
    upgrade_database(app)
    shown = lan_address() if host in ("0.0.0.0", "::") else host
    url = f"http://{shown}:{port}/"
    click.echo(terminal(url))
    click.echo(f"Arbitre est prêt / Arbitre is ready: {url}")
    click.echo(f"Base de données / database: {app.config['SQLALCHEMY_DATABASE_URI'].split('@')[-1]}")
    click.echo(f"Serveur / server: gunicorn + gevent, {workers} processus / processes")
    with app.app_context():
        for engine in app.extensions["sqlalchemy"].engines.values():
            engine.dispose()
    sys.stdout.flush()
    sys.stderr.flush()
    # A fresh interpreter: gevent must patch the workers before psycopg is first imported, which
    # creating and upgrading the database has just done here (see companion/server.py).
    arguments = ["--host", host, "--port", str(port), "--workers", str(workers)]
    if streams_per_address is not None:
        arguments += ["--streams-per-address", str(streams_per_address)]
    if connections_per_address is not None:
        arguments += ["--connections-per-address", str(connections_per_address)]
    os.execv(sys.executable, [sys.executable, "-c", SERVER, *arguments])


@main.command("build-assets")
def build_assets() -> None:
    """Build what the phones download that is made, not written: the engine's standard library as
    Pyodide bytecode (through Node) and the Pyodide runtime gzipped. Kept until what decides them
    changes; a server without them serves Pyodide's own library."""
    from companion.pwa import offline, stdlib

    if stdlib.node() is None:
        raise click.ClickException(
            "Node and node_modules/pyodide are needed (npm ci) / il faut Node et Pyodide"
        )
    app = create_app()
    with app.test_request_context():
        try:
            written = offline.build_assets()
        except (OSError, subprocess.SubprocessError) as error:
            detail = (getattr(error, "stderr", b"") or b"").decode(errors="replace")[-2000:]
            raise click.ClickException(f"{error} {detail}") from None
    for path in written:
        click.echo(f"built {path}")
    click.echo("assets ok")


@main.group()
def db() -> None:
    """Database commands."""


@db.command("upgrade")
def db_upgrade() -> None:
    """Create the database or bring it to the newest schema."""
    app = create_app()
    upgrade_database(app)
    click.echo("ok")
