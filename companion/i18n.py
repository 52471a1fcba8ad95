"""The app's two languages: which one a request gets, and every sentence a page shows in it.

One catalogue per language: the interface's words (``companion/i18n/<lang>/*.json``, one file per
part of the app, keys prefixed ``ui.``) merged with the engine's sentences (`engine.messages`, the
codes a state or a refusal names), so pages, scripts and the engine's messages are all worded from
the same place. Every language has exactly the same keys (`tests/test_i18n.py`).

The language is the ``lang`` cookie the phone's switch sets (remembered for a year), else the best
match of the browser's ``Accept-Language``, else French.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from flask import g, request

from engine.messages import LANGS
from engine.messages import catalogue as engine_catalogue

FOLDER = Path(__file__).parent / "i18n"
DEFAULT = "fr"
COOKIE = "lang"


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


class _Lenient(dict):
    def __missing__(self, key):  # a missing param stays visible rather than failing the page
        return "{" + key + "}"


def t(key: str, **params) -> str:
    """``key`` worded in the request's language; an unknown key is shown as itself."""
    template = catalogue(current()).get(key, key)
    return template.format_map(_Lenient(params)) if params else template


def register(app) -> None:
    app.jinja_env.globals.update(t=t, lang=current, langs=LANGS)
