"""Error and note codes -> French and English sentences, for the server and the browser alike.

Codes shared by every game live here; each game module keeps its own in its ``MESSAGES``
(codes prefixed with the game's id). A message is a ``str.format`` template over the error's
params (`fill`): a text param that could reorder the sentence is isolated (`engine.core.isolate`),
and a missing param leaves its placeholder visible rather than failing.

`fill` is the one place a name enters a sentence, and ``static/js/i18n.js`` its twin on the phone
(``e2e/test_french.py`` holds them to the same words). French elides before a text param that is
pronounced with a vowel first: "de {name}" is worded "d'Omar", "que {name}" "qu'Ada" (`elides`
decides, from the name's first letters). A sentence whose words depend on a number has two forms,
``<code>.one`` and ``<code>.other``, chosen by its ``count`` param with the language's own rule
(`plural`; French counts 0 and 1 as one, as ``Intl.PluralRules`` does). French sentences put a
no-break space (U+00A0) before « : ; ! ? » and inside « », as ``tests/test_french.py`` checks.
"""

from __future__ import annotations

import importlib
import re
import unicodedata

from engine.core import GAME_MODULES, isolate
from engine.rulebook import rule_url

LANGS = ("fr", "en")

COMMON = {
    "unknown_game": ("Jeu inconnu «\u00a0{game}\u00a0».", "Unknown game “{game}”."),
    "bad_options": ("Les options doivent être un objet.", "Options must be an object."),
    "bad_option": (
        "Option «\u00a0{field}\u00a0» invalide\u00a0: {value}.",
        "Invalid option “{field}”: {value}.",
    ),
    "bad_players": ("Les joueur·euses doivent être une liste.", "Players must be a list."),
    "player_count": (
        "Ce jeu se joue à {min}–{max} joueur·euses, pas {count}.",
        "This game is for {min}–{max} players, not {count}.",
    ),
    "bad_name": ("Le nom doit être un texte.", "The name must be text."),
    "name_length": (
        "Un nom fait de 1 à {max} caractères.",
        "A name has 1 to {max} characters.",
    ),
    "duplicate_name": (
        "Le nom «\u00a0{name}\u00a0» est déjà pris à cette table.",
        "The name “{name}” is already taken at this table.",
    ),
    "bad_event": ("L'évènement doit être un objet.", "The event must be an object."),
    "unknown_event": (
        "Action inconnue «\u00a0{type}\u00a0» pour ce jeu.",
        "Unknown action “{type}” for this game.",
    ),
    "unknown_field": (
        "Champ « {field} » inconnu dans « {type} ».",
        "Unknown field “{field}” in “{type}”.",
    ),
    "hidden_character": (
        "« {text} » contient un caractère invisible ou de contrôle ({char}, montré ici par �) : "
        "un nom, un titre ou un lieu ne s'écrit qu'avec des caractères visibles.",
        "“{text}” holds an invisible or control character ({char}, shown here as �): "
        "a name, a title or a place is written with visible characters only.",
    ),
    "unknown_player": (
        "Joueur·euse inconnu·e «\u00a0{player}\u00a0».",
        "Unknown player “{player}”.",
    ),
    "bad_number": (
        "«\u00a0{field}\u00a0» doit être un entier de {min} à {max} (reçu\u00a0: {value}).",
        "“{field}” must be a whole number from {min} to {max} (got: {value}).",
    ),
    "bad_boolean": (
        "«\u00a0{field}\u00a0» doit être vrai ou faux (reçu\u00a0: {value}).",
        "“{field}” must be true or false (got: {value}).",
    ),
    "game_over": (
        "La partie est terminée\u00a0: plus aucune action n'est possible (annuler reste possible).",
        "The game is over: no more actions are allowed (undo still is).",
    ),
    "nothing_to_undo": ("Il n'y a rien à annuler.", "There is nothing to undo."),
    "rematch_not_over": (
        "La partie n'est pas finie\u00a0: la revanche se propose une fois la partie terminée.",
        "The game is not over: a rematch is offered once the game has ended.",
    ),
    # Raised by the companion, not the engine, but worded here so every client shares them.
    "bad_json": ("Le corps de la requête doit être du JSON.", "The request body must be JSON."),
    "too_deep": (
        "Le JSON de la requête est trop imbriqué (au plus {max} niveaux).",
        "The request's JSON is nested too deep (at most {max} levels).",
    ),
    "unsupported_media_type": (
        "Le corps de la requête doit être envoyé en JSON (Content-Type: application/json).",
        "The request body must be sent as JSON (Content-Type: application/json).",
    ),
    "bad_field": (
        "Champ «\u00a0{field}\u00a0» invalide.",
        "Invalid field “{field}”.",
    ),
    "too_large": (
        "Requête trop grande (maximum {max} octets).",
        "Request too large (at most {max} bytes).",
    ),
    "unknown_table": ("Aucune table «\u00a0{code}\u00a0».", "No table “{code}”."),
    "secret_required": (
        "Seul·e l'arbitre de la table peut faire cela (secret manquant).",
        "Only the table's referee can do this (secret missing).",
    ),
    "wrong_secret": (
        "Ce secret n'est ni celui de l'arbitre de cette table, ni celui d'un·e de ses joueur·euses.",
        "This is neither the referee secret of this table nor one of its players' secrets.",
    ),
    "not_your_move": (
        "Ce téléphone n'enregistre que les coups de son·sa joueur·euse : l'arbitre enregistre "
        "celui-ci. Rien n'a été modifié.",
        "This phone records its own player's moves only: the referee records this one. Nothing was changed.",
    ),
    "referee_only": (
        "Seul·e l'arbitre de la table peut faire cela : le secret d'un·e joueur·euse n'enregistre "
        "que ses propres coups.",
        "Only the table's referee can do this: a player's secret records that player's own moves only.",
    ),
    "stale_version": (
        "La table a changé entre-temps (version {current}, pas {sent})\u00a0: rechargez puis rejouez.",
        "The table changed meanwhile (version {current}, not {sent}): reload and replay.",
    ),
    "client_id_reused": (
        "L'identifiant «\u00a0{id}\u00a0» désigne déjà un autre évènement ici\u00a0: rien n'a été modifié.",
        "The id “{id}” already names another event at this table: nothing was changed.",
    ),
    "undo_not_latest": (
        "Rien n'a été annulé\u00a0: l'évènement visé n'est plus le dernier en vigueur (la table a changé).",
        "Nothing was undone: the event it names is no longer the latest in effect (the table changed).",
    ),
    "busy": (
        "Le serveur est trop occupé pour écrire maintenant\u00a0: réessayez.",
        "The server is too busy to write right now: try again.",
    ),
    "too_many_streams": (
        "Trop de tables suivies en direct depuis cette adresse (au plus {max})\u00a0: fermez-en une.",
        "Too many live tables followed from this address (at most {max}): close one.",
    ),
    "streams_full": (
        "Le serveur suit déjà autant de téléphones qu'il peut\u00a0: réessayez dans un instant.",
        "The server already follows as many phones as it can: try again in a moment.",
    ),
    "too_many_requests": (
        "Trop de demandes depuis cette adresse\u00a0: réessayez dans {retry_after} s.",
        "Too many requests from this address: try again in {retry_after} s.",
    ),
    "too_many_connections": (
        "Trop de connexions ouvertes depuis cette adresse (au plus {max}) : réessayez dans un instant.",
        "Too many open connections from this address (at most {max}): try again in a moment.",
    ),
    "too_slow": (
        "La requête est arrivée trop lentement (au plus {seconds} s pour son contenu) : réessayez.",
        "The request arrived too slowly (at most {seconds} s for its content): try again.",
    ),
    "too_long": (
        "L'URL demandée est trop longue (au plus {max} caractères).",
        "The requested URL is too long (at most {max} characters).",
    ),
    "headers_too_large": (
        "Les en-têtes de la requête sont trop grands.",
        "The request's headers are too large.",
    ),
    "unavailable": (
        "La base de données ne répond pas pour l'instant : réessayez dans {retry_after} s.",
        "The database is not answering right now: try again in {retry_after} s.",
    ),
    "log_full": (
        "Cette table a atteint son maximum de {max} évènements : commencez-en une nouvelle "
        "(annuler reste possible).",
        "This table has reached its maximum of {max} events: start a new one (undo still works).",
    ),
    "too_many_writes": (
        "Trop d'écritures sur cette table (au plus {max} par minute) : réessayez dans {retry_after} s.",
        "Too many writes on this table (at most {max} a minute): try again in {retry_after} s.",
    ),
    "existentiel.no_rendezvous": (
        "Aucun rendez-vous n'est fixé pour cette table\u00a0: le maître du jeu le fixe depuis l'arbitrage.",
        "No rendez-vous is set for this table: the game master sets it from the referee page.",
    ),
    "existentiel.no_calendar": (
        "Seul le jeu existentiel a des rendez-vous à ajouter à un agenda (cette table\u00a0: {game}).",
        "Only Le jeu existentiel has rendez-vous to add to a calendar (this table: {game}).",
    ),
    "qr_too_large": (
        "Trop d'informations pour un QR code ({length} caractères).",
        "Too much for one QR code ({length} characters).",
    ),
    "unknown_check": ("Vérification inconnue «\u00a0{check}\u00a0».", "Unknown check “{check}”."),
    "bad_check_params": (
        "Les paramètres d'une vérification forment un objet.",
        "A check's parameters are an object.",
    ),
    "internal": (
        "Erreur interne\u00a0: rien n'a été modifié. Elle a été notée.",
        "Internal error: nothing was changed. It has been logged.",
    ),
    "not_found": ("Rien ici.", "Nothing here."),
    "method_not_allowed": ("Méthode non permise ici.", "Method not allowed here."),
    "bad_request": ("Requête invalide.", "Bad request."),
    # A table's story (`engine.core.story`): the lines of the events a game's own words cannot say.
    "story.skipped": (
        "Action «\u00a0{type}\u00a0» sans effet\u00a0: les règles ne la permettent pas à ce moment",
        "Action “{type}” with no effect: the rules do not allow it at this moment",
    ),
    "story.unworded": ("Action «\u00a0{type}\u00a0»", "Action “{type}”"),
}

_catalogue: dict[str, tuple[str, str]] | None = None


def catalogue() -> dict[str, tuple[str, str]]:
    """Every code with its two sentences, the games' own included."""
    global _catalogue
    if _catalogue is None:
        merged = dict(COMMON)
        for module_name in GAME_MODULES.values():
            merged.update(importlib.import_module(module_name).MESSAGES)
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
