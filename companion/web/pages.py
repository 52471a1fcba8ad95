"""The HTML pages: home, new table, referee, the table view the QR code opens, and the QR screen."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, abort, current_app, redirect, render_template, url_for

from companion.storage import store
from companion.web.i18n import t
from engine import core as engine_core
from engine.core import GAME_MODULES, seats

bp = Blueprint("pages", __name__)

GAMES = ("morto", "existentiel", "gjdlv")  # the home page's order


def game_name(game: str) -> str:
    """A game's title from the catalogue (a proper name: the same French title in every language)."""
    return t(f"ui.game.{game}")


class _GameNames(dict):
    """``GAME_NAMES[game]``: a game's title from the catalogue, in the request's language."""

    def __missing__(self, game: str) -> str:
        return game_name(game)


GAME_NAMES = _GameNames()  # for other pages (the results page) that name a game


def view_url(code: str) -> str:
    """The table view's full URL, the one its QR code encodes: under ``PUBLIC_URL`` when the
    deployment names its address, else under the address this request reached (its ``Host``)."""
    public = current_app.config.get("PUBLIC_URL")
    if public:
        return public.rstrip("/") + url_for("pages.table_view", code=code)
    return url_for("pages.table_view", code=code, _external=True)


@bp.app_template_global()
def game_stylesheets(game: str | None, view: bool = False) -> list[str]:
    """The stylesheets a page of ``game`` adds to app.css (``css/games/<game>.css``, then
    ``<game>_referee.css``; every game's for ``"all"``, the snapshot page): a page never downloads
    another game's styles, and a table view (``view``) only what it draws, not the referee's."""
    games = GAME_MODULES if game == "all" else [game] if game in GAME_MODULES else []
    folder = Path(current_app.static_folder) / "css" / "games"
    names = [name for game in games for name in ((game,) if view else (game, f"{game}_referee"))]
    return [f"css/games/{name}.css" for name in names if (folder / f"{name}.css").is_file()]


def _table(code: str):
    table = store.find_table(code)
    if table is None:
        abort(404)
    return table


@bp.get("/")
def home():
    return render_template("home.html", games=GAMES)


@bp.get("/new/<game>")
def new_table(game: str):
    """A game's new-table form, its rows and bounds as the engine declares the game's table: its
    seats, a player's entry (``fields``) and the options' bounds, choices and defaults (``options``),
    from the game's specs (`engine.specs`)."""
    if game not in GAME_MODULES:
        abort(404)
    module = engine_core.game(game)
    return render_template(
        f"new_{game}.html",
        game=game,
        game_name=game_name(game),
        seats=seats(game),
        name_max=engine_core.NAME_MAX,
        fields=module.PLAYER_FIELDS,
        options=module.OPTIONS,
    )


def _table_page(template: str, endpoint: str, code: str, **extra):
    """A page that draws a table from its current answer; a typed code is redirected to its canonical form."""
    table = _table(code)
    if table.code != code:
        return redirect(url_for(endpoint, code=table.code, **extra))
    return render_template(
        template,
        table=table,
        game_name=game_name(table.game),
        display_code=store.display_code(table.code),
        answer=store.answer(table),
        **extra,
    )


@bp.get("/r/<code>")
def referee(code: str):
    return _table_page("referee.html", "pages.referee", code)


@bp.get("/t/<code>")
def table_view(code: str):
    return _table_page("view.html", "pages.table_view", code)


@bp.get("/t/<code>/qr")
def qr_screen(code: str):
    table = _table(code)
    return render_template(
        "qr.html",
        table=table,
        game_name=game_name(table.game),
        display_code=store.display_code(table.code),
        view_url=view_url(table.code),
    )


@bp.get("/join/<code>")
def join(code: str):
    """Where the home page's "join" form lands: the table view of a typed code."""
    table = _table(code)
    return redirect(url_for("pages.table_view", code=table.code))


def own_moves(table) -> dict[str, str]:
    """The moves a player records from their own phone at ``table``, as its game's engine module
    declares them: per event type, the field naming the acting player."""
    return engine_core.player_moves(table.game, table.options)


@bp.get("/t/<code>/p/<player>")
def player_page(code: str, player: str):
    """One player's own page: opened from the table view, it shows that player's view; opened from
    the seat's QR (the player's secret in the fragment), it also records the player's own moves."""
    table = _table(code)
    if not any(p["id"] == player for p in table.state.get("players", [])):
        abort(404)
    return _table_page("player.html", "pages.player_page", code, player=player, own=own_moves(table))
