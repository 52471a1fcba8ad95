"""The app's two languages: which one a request gets, and every sentence a page shows in it.

One catalogue per language: the interface's words (``companion/web/i18n/<lang>/*.json``, one file per
part of the app, keys prefixed ``ui.``) merged with the engine's sentences (`engine.messages`, the
codes a state or a refusal names), so pages, scripts and the engine's messages are all worded from
the same place. Every language has exactly the same keys (`tests/test_i18n.py`).

The language is the ``lang`` cookie the phone's switch sets (remembered for a year), else the best
match of the browser's ``Accept-Language``, else French.

A page's scripts get only the sentences that page can show, in one immutable file per language and
part (``/i18n/<version>/<lang>/<part>.json``, named by ``catalogue_url`` in ``<html data-i18n>``):

- ``shell``: every interface file but the games' and the rules', and the engine's codes shared by
  every game;
- ``<game>``: the shell's and that game's (``<game>.json``, the words of every page of the game;
  ``<game>_<page>.json``, those of one of its pages: ``_referee``, ``_new`` for the new-table form;
  and the engine's ``<game>.…`` codes): a table of Il Morto never downloads the Grand Jeu de la Vie's;
- ``<game>.referee``: what the game's referee page can show: the shell's words it shows
  (``shell.json``, ``story.json``, ``referee.json``, ``ending.json``: a finished game's card;
  ``seats.json``: the seats dialog, shown by no other page),
  ``<game>.json``, ``<game>_referee.json``, and
  every code of the engine (refusals included), not the words of the app's other pages
  (``pages.json``, ``results.json``);
- ``<game>.player``: what a player's own page can show, the referee's part's words (its moves are
  drawn with the referee panel's pieces, and the engine's refusals may answer them) but the seats
  dialog's, with ``player.json``'s (the player's own page's words, shown by no other page);
- ``<game>.view``: what the game's table view can show, the first page a follower opens:
  ``shell.json``, ``story.json`` and ``ending.json`` (the bar, the live status, the story panel, a
  finished game's card),
  ``<game>.json``, and the engine's codes the game's states and stories may carry (`view_codes`):
  not the engine's refusals nor its checks' answers, which only a referee's taps and questions get;
- ``all``: the shell's and every game's (the snapshot page, which may show any game).

The words of ``PAGE_ONLY``'s files (the seats dialog's, a player's page's) are in the parts of the
pages that show them only: never in the shell's, a game's whole part, nor ``all``.

The rules' sentences (``rules.json``) and the calendar file's (the engine's ``existentiel.calendar.*``
codes) are never sent: only the server uses them.
The whole catalogue (`catalogue`) stays the server's, and ``/i18n/<lang>.json`` (`companion.pwa.offline`).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from flask import Blueprint, Response, abort, current_app, g, request, url_for

from companion.web.view_codes import view_codes
from engine.core import GAME_MODULES
from engine.messages import LANGS, fill, form
from engine.messages import catalogue as engine_catalogue

FOLDER = Path(__file__).parent / "i18n"
DEFAULT = "fr"
COOKIE = "lang"
SERVER_ONLY = ("rules",)  # interface files whose words only the server shows
SERVER_ONLY_CODES = ("existentiel.calendar.",)  # the engine's codes only the server words (the .ics)
SHELL, ALL, VIEW, REFEREE, PLAYER = "shell", "all", "view", "referee", "player"
# A table's pages of their own, and the shell's files whose words each shows (with its game's).
PAGES = {
    VIEW: ("shell", "story", "ending"),
    REFEREE: ("shell", "story", "referee", "ending", "seats"),
    PLAYER: ("shell", "story", "referee", "ending", "player"),
}
# The shell's files only the pages that name them show (not the shell's part, nor a game's).
PAGE_ONLY = ("seats", "player")
PARTS = (SHELL, *GAME_MODULES, *(f"{game}.{page}" for game in GAME_MODULES for page in PAGES), ALL)
IMMUTABLE = "public, max-age=31536000, immutable"

bp = Blueprint("i18n", __name__)
APP_VERSION = "arbitre.app_version"  # the app's version, a function the installable app registers


@cache
def interface(lang: str) -> dict[str, str]:
    """The interface's words in ``lang``, from every file of its folder (a key lives in one file)."""
    words: dict[str, str] = {}
    for path in sorted((FOLDER / lang).glob("*.json")):
        part = json.loads(path.read_text(encoding="utf-8"))
        clash = set(part) & set(words)
        if clash:
            raise ValueError(f"{path.name}: keys already defined elsewhere: {sorted(clash)}")
        words.update(part)
    return words


@cache
def catalogue(lang: str) -> dict[str, str]:
    """Every sentence in ``lang``: the interface's and the engine's."""
    index = LANGS.index(lang)
    return {**interface(lang), **{code: pair[index] for code, pair in engine_catalogue().items()}}


def _owner(key: str, source: str) -> str | None:
    """The part a sentence belongs to: a game, the shell, or None (never sent to a browser)."""
    if source in SERVER_ONLY or (source == "engine" and key.startswith(SERVER_ONLY_CODES)):
        return None
    game = key.split(".", 1)[0] if source == "engine" else source.split("_", 1)[0]  # `<game>_<page>`
    return game if game in GAME_MODULES else SHELL


@cache
def _owners(lang: str) -> dict[str, tuple[str | None, str]]:
    """Every sentence's part and source: the interface file it lives in, or "engine"."""
    owners = {}
    for path in sorted((FOLDER / lang).glob("*.json")):
        for key in json.loads(path.read_text(encoding="utf-8")):
            owners[key] = (_owner(key, path.stem), path.stem)
    for code in engine_catalogue():
        owners[code] = (_owner(code, "engine"), "engine")
    return owners


def _shown(name: str, key: str, owner: str | None, source: str) -> bool:
    """Whether a page of part ``name`` may show a sentence (see the module's docstring)."""
    if owner is None or name == ALL:
        return owner is not None and source not in PAGE_ONLY
    game, _, page = name.partition(".")
    if owner not in (SHELL, game):
        return False
    if source in PAGE_ONLY and (not page or source not in PAGES[page]):
        return False
    if page == VIEW and source == "engine":
        return owner == game and key in view_codes(game)
    if page:  # the shell's files it shows, the game's words for every page and for this one
        # A player's page records their own moves with the pieces of the referee's panel.
        own = (f"{game}_{page}", f"{game}_{REFEREE}") if page == PLAYER else (f"{game}_{page}",)
        return source in (*PAGES[page], game, *own, *(("engine",) if page != VIEW else ()))
    return True


@cache
def part(lang: str, name: str) -> dict[str, str]:
    """The sentences a page of part ``name`` (see the module's docstring) may show, in ``lang``."""
    owners = _owners(lang)
    return {
        key: text
        for key, text in catalogue(lang).items()
        if key in owners and _shown(name, key, *owners[key])
    }


def _version() -> str:
    # The app's version (`companion.pwa.offline.app_version`, which hashes this folder too), as the
    # installable app registers it: the languages do not import the layer above them.
    return current_app.extensions[APP_VERSION]()


def catalogue_url(name: str = SHELL, lang: str | None = None) -> str:
    """The immutable URL of a part of the catalogue (today's version, the request's language)."""
    return url_for(
        "i18n.catalogue_part",
        version=_version(),
        lang=lang or current(),
        name=name if name in PARTS else SHELL,
    )


def catalogue_urls() -> list[str]:
    """Every part's URL in every language (the service worker keeps those it fetches)."""
    return [catalogue_url(name, lang) for lang in LANGS for name in PARTS]


@bp.get("/i18n/<version>/<lang>/<name>.json")
def catalogue_part(version: str, lang: str, name: str):
    """A part of the catalogue: cached for a year under today's version; another version's URL (an
    old page still open after a deployment) gets today's words, never kept under that name."""
    if lang not in LANGS or name not in PARTS:
        abort(404)
    response = Response(json.dumps(part(lang, name), ensure_ascii=False), mimetype="application/json")
    today = _version()
    response.set_etag(f"{today}-{lang}-{name}")
    response.headers["Cache-Control"] = IMMUTABLE if version == today else "no-cache"
    return response


def choose() -> str:
    """The ``lang`` cookie, else the first of the browser's languages we speak, whatever the region.

    ``best_match(["fr", "en"])`` would answer English to ``fr-FR,en;q=0.5``: an exact ``en`` beats
    a regional ``fr-FR``. Comparing the primary tags in the client's order of preference does not.
    """
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGS:
        return chosen
    for value, quality in request.accept_languages:  # best first
        primary = value.replace("_", "-").split("-")[0].lower()
        if quality > 0 and primary in LANGS:
            return primary
    return DEFAULT


def current() -> str:
    lang = getattr(g, "lang", None)
    if lang is None:
        lang = g.lang = choose()
    return lang


def t(key: str, **params) -> str:
    """``key`` worded in the request's language; an unknown key is shown as itself. Params are filled
    as the engine's sentences are (`engine.messages.fill`): a name isolated when it could turn the
    sentence around, the French word before it elided ("d'Omar"), the plural form chosen by the
    ``count`` param, a missing param left visible rather than failing the page."""
    lang = current()
    words = catalogue(lang)
    template = words.get(form(words, key, params, lang), key)
    return fill(template, params, lang) if params else template


def register(app) -> None:
    app.register_blueprint(bp)
    app.jinja_env.globals.update(
        t=t, lang=current, langs=LANGS, catalogue_url=catalogue_url, catalogue_urls=catalogue_urls
    )
