"""The `companion` command: `serve` the app on the local network, and `db upgrade` its database."""

from __future__ import annotations

import socket
import subprocess

import click
from flask_migrate import upgrade as alembic_upgrade

from companion import create_app
from companion.qr import terminal


def upgrade_database(app) -> None:
    with app.app_context():
        alembic_upgrade(directory=app.extensions["migrate"].directory)


def lan_address() -> str:
    """This machine's address on the local network, as phones at the table will reach it."""
    try:
        out = subprocess.run(["ip", "-4", "-o", "addr", "show", "scope", "global"], capture_output=True,
                             text=True, timeout=2).stdout
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
@click.option("--threads", default=48, show_default=True, type=int,
              help="Worker threads; every phone following a table live holds one.")
def serve(host: str, port: int, threads: int) -> None:
    """Create or upgrade the database, then serve the app with Waitress."""
    from waitress import serve as waitress_serve

    app = create_app()
    upgrade_database(app)
    shown = lan_address() if host in ("0.0.0.0", "::") else host
    url = f"http://{shown}:{port}/"
    click.echo(terminal(url))
    click.echo(f"Arbitre est prêt / Arbitre is ready: {url}")
    click.echo(f"Base de données / database: {app.config['SQLALCHEMY_DATABASE_URI'].split('@')[-1]}")
    waitress_serve(app, host=host, port=port, threads=threads, ident="arbitre", channel_timeout=60)


@main.group()
def db() -> None:
    """Database commands."""


@db.command("upgrade")
def db_upgrade() -> None:
    """Create the database or bring it to the newest schema."""
    app = create_app()
    upgrade_database(app)
    click.echo("ok")
