"""Error and note codes -> French and English sentences, for the server and the browser alike.

The sentences live in catalogue files beside the engine, in the interface's format (flat JSON, one
object per language: ``engine/i18n/<lang>/<name>.json``, ``{"code": "sentence"}``): ``common.json``
for the codes every game shares, ``<game>.json`` for a game's own (codes prefixed with the game's
id). The game modules only name their codes; `sentences` reads a file, `catalogue` merges them all.
The files travel with the engine's sources to the phone (``companion/offline.py``), so the engine
words its refusals the same way in Pyodide.

A message is a ``str.format`` template over the error's params (`fill`): a text param that could
reorder the sentence is isolated (`engine.core.isolate`), and a missing param leaves its
placeholder visible rather than failing.

`fill` is the one place a name enters a sentence, and ``static/js/i18n.js`` its twin on the phone
(``e2e/test_french.py`` holds them to the same words). French elides before a text param that is
pronounced with a vowel first: "de {name}" is worded "d'Omar", "que {name}" "qu'Ada" (`elides`
decides, from the name's first letters). A sentence whose words depend on a number has two forms,
``<code>.one`` and ``<code>.other``, chosen by its ``count`` param with the language's own rule
(`plural`; French counts 0 and 1 as one, as ``Intl.PluralRules`` does). French sentences put a
no-break space (U+00A0) before « : ; ! ? » and inside « », as ``tests/test_french.py`` checks.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from functools import cache

from engine.core import GAME_MODULES, isolate
from engine.rulebook import rule_url

LANGS = ("fr", "en")
# Beside this module wherever it runs: the server's checkout, or the phone's Pyodide file system
# where the worker writes the bundle (os.path: nothing more to import on the phone's start).
FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "i18n")


@cache
def sentences(name: str) -> dict[str, tuple[str, str]]:
    """The codes of one catalogue file, each with its French and English sentence: ``common`` (the
    codes every game shares) or a game's id (its own). A code worded in one language only is refused."""
    words = []
    for lang in LANGS:
        with open(os.path.join(FOLDER, lang, f"{name}.json"), "rb") as file:  # JSON is UTF-8
            words.append(json.load(file))
    french, english = words
    if french.keys() != english.keys():
        alone = sorted(french.keys() ^ english.keys())
        raise ValueError(f"{name}.json: codes worded in one language only: {alone}")
    return {code: (sentence, english[code]) for code, sentence in french.items()}


COMMON = sentences("common")

_catalogue: dict[str, tuple[str, str]] | None = None


def catalogue() -> dict[str, tuple[str, str]]:
    """Every code with its two sentences, the games' own included."""
    global _catalogue
    if _catalogue is None:
        merged = dict(COMMON)
        for game in GAME_MODULES:
            merged.update(sentences(game))
        _catalogue = merged
    return _catalogue


class _Lenient(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


# The French words that elide before a vowel sound ("de" -> "d'"), when one stands just before a
# param in a template: "de {name}", "que {name}", "le {title}".
ELIDING = ("de", "que", "lorsque", "puisque", "quoique", "jusque", "le", "la", "je", "me", "te", "se", "ne")
_ELISION = re.compile(r"(?<![\w'])(" + "|".join(ELIDING) + r") \{(\w+)\}", re.IGNORECASE)
VOWELS = "aeiouœæ"


def _letters(text: str) -> str:
    """``text``'s letters lower-cased and without their accents ("Élodie" -> "elodie")."""
    decomposed = unicodedata.normalize("NFD", text.casefold())
    return "".join(char for char in decomposed if not unicodedata.category(char).startswith("M"))


def elides(name: object) -> bool:
    """Whether a French word elides before ``name``: a text that begins with a vowel, accented or not
    (A E I O U Œ Æ: "d'Ada", "d'Élodie"), with an H (French first names are almost all "h muet":
    "d'Hugo", "d'Hélène"), or with a Y before a consonant ("d'Yves", but "de Yasmine", "de Yann").
    A number, a digit or any other first character never elides."""
    if not isinstance(name, str):
        return False
    letters = _letters(name[:3])
    first = letters[:1]
    if first == "y":
        second = letters[1:2]
        return second.isalpha() and second not in VOWELS + "y"
    return bool(first) and first in VOWELS + "h"


def plural(count: object, lang: str = "fr") -> str:
    """The plural form ("one" or "other") of ``count`` in ``lang``: French says "0 vie", "1 vie",
    "2 vies"; English "0 lives", "1 life". The same categories as ``Intl.PluralRules`` for whole
    numbers."""
    if not isinstance(count, (int, float)) or isinstance(count, bool):
        return "other"
    if lang == "en":
        return "one" if count == 1 else "other"
    return "one" if 0 <= abs(count) < 2 else "other"


def form(words, key: str, params: dict, lang: str = "fr") -> str:
    """The key of ``words`` that says ``key``: itself, or its plural form for ``params["count"]``
    when it has ``.one`` and ``.other`` forms instead."""
    if key in words or f"{key}.other" not in words:
        return key
    return f"{key}.{plural(params.get('count'), lang)}"


def forms(code: str) -> list[str]:
    """The catalogue's keys that word ``code``: itself, or its plural forms (none if it is unknown)."""
    words = catalogue()
    return [key for key in (code, f"{code}.one", f"{code}.other") if key in words]


def _elide(template: str, params: dict) -> str:
    """``template`` with each eliding word elided before the params that call for it."""

    def elide(match: re.Match) -> str:
        word, key = match.groups()
        return f"{word[:-1]}'{{{key}}}" if elides(params.get(key)) else match.group(0)

    return _ELISION.sub(elide, template)


def fill(template: str, params: dict, lang: str = "fr") -> str:
    """``template`` with its params, the one way every sentence is worded on the server (the engine's,
    the pages'): a text param (a name, a title, a place, a list of names) isolated when it could turn
    the sentence around, the French word before it elided when the param calls for it (`elides`); a missing
    param left visible rather than failing."""
    isolated = {key: isolate(value) if isinstance(value, str) else value for key, value in params.items()}
    elided = _elide(template, params) if lang == "fr" else template
    return elided.format_map(_Lenient(isolated))


def text(code: str, params: dict | None = None, lang: str = "fr") -> str:
    """The sentence for ``code`` in ``lang`` (French when the language is unknown)."""
    params, lang = params or {}, "en" if lang == "en" else "fr"
    words = catalogue()
    pair = words.get(form(words, code, params, lang))
    if pair is None:
        return code
    template = pair[1] if lang == "en" else pair[0]
    return fill(template, params, lang)


def refusal(code: str, params: dict, lang: str = "fr") -> dict:
    """A refusal as every client reads it: the code, its sentence in ``lang`` and in both languages,
    the params the sentences quote, and ``rule``, where the app's short rules explain the rule that
    refused, when a rule of a game did (`engine.rulebook`)."""
    refused = {
        "code": code,
        "message": text(code, params, lang),
        "messages": {other: text(code, params, other) for other in LANGS},
        "params": params,
    }
    rule = rule_url(code)
    if rule:
        refused["rule"] = rule
    return refused


def worded(result, lang: str = "fr"):
    """A check's answer with the sentences of every ``code`` in it (``message`` and ``messages``)."""
    if isinstance(result, list):
        return [worded(item, lang) for item in result]
    if not isinstance(result, dict):
        return result
    out = {key: worded(value, lang) for key, value in result.items()}
    if isinstance(result.get("code"), str):
        params = {**result, **(result.get("params") or {})}
        out["message"] = text(result["code"], params, lang)
        out["messages"] = {other: text(result["code"], params, other) for other in LANGS}
    return out
