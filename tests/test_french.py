"""French as a French speaker writes it (issue 29 item 7), checked on every sentence of the catalogue:
the interface's (``companion/web/i18n/fr``, the rules pages' included) and the engine's
(`engine.messages.catalogue`, the calendar's included).

- **Elision.** Every French sentence that quotes a param is worded with names beginning with each
  vowel (A E É I O U, Œ), with H and Y, and with consonants: no "de Ada", "que Omar", "de Hugo", and
  no "d'Bruno"; each "de {param}" the template holds reads "d'Ada" when the name calls for it. The
  decision for H and Y (`engine.messages.elides`): H elides (French first names are almost all "h
  muet": d'Hugo, d'Hélène); Y elides before a consonant (d'Yves, d'Yvonne) and not before a vowel
  (de Yasmine, de Yann).
- **No-break spaces.** U+00A0 before « : ; ! ? » and after «, never a plain space there.
- **Plurals** from the catalogue's own plural forms (``.one``/``.other``, chosen by ``count``):
  no "avortement(s)".
- **One word for a round** per game, as its French original says it: Il Morto plays "tours" (its
  rules say "tour de jeu", never "manche"), the Grand Jeu de la Vie "manches" (and "tour" is a
  player's turn, "le dernier tour" the last lap around the table, never "ronde").
- **No duplicated sentence**: two keys with the same French and the same English are one sentence
  written twice, and are merged into one key. (The same French word with two English ones, "Passer"
  for "Skip" and "Pass", is two meanings and stays two keys; one key of each game, "Début" as each
  game's story starts, is each game's own word, sent to that game's pages only.)
"""

from __future__ import annotations

import re
import string
from collections import defaultdict

import pytest

from companion.web import i18n
from engine.core import FSI, GAME_MODULES
from engine.messages import ELIDING, catalogue, elides, fill, plural, text

ELIDED = {
    "Ada",
    "Emma",
    "Élodie",
    "Ève",
    "Inès",
    "Îlona",
    "Omar",
    "Ôdile",
    "Ugo",
    "Œdipe",
    "Hugo",
    "Hélène",
    "Yves",
}
KEPT = {"Bruno", "Yasmine", "Yann", "Zoé", "8 Ana", "Y"}
NBSP = "\u00a0"
# What no French typography touches: a header as sent, a JSON object as typed.
TECHNICAL = re.compile(r"Content-Type: application/json|\{\{[^}]*\}\}")


def french() -> dict[str, str]:
    return i18n.catalogue("fr")


def english() -> dict[str, str]:
    return i18n.catalogue("en")


def params_of(template: str) -> list[str]:
    return [field for _, field, _, _ in string.Formatter().parse(template) if field]


def quoting() -> list[tuple[str, str]]:
    """Every French sentence that quotes a param."""
    return [(key, template) for key, template in sorted(french().items()) if params_of(template)]


@pytest.mark.parametrize("name", sorted(ELIDED))
def test_a_vowel_an_h_and_a_y_before_a_consonant_elide(name):
    assert elides(name)
    assert elides(name.lower())


@pytest.mark.parametrize("name", sorted(KEPT) + ["", "שרה", "3", "👩 Ada"])
def test_a_consonant_a_y_before_a_vowel_and_what_is_not_a_letter_do_not(name):
    assert not elides(name)


def test_numbers_never_elide():
    assert not elides(8) and not elides(11)
    assert fill("au lieu de {eg}", {"eg": 8}) == "au lieu de 8"


def test_an_unknown_language_is_worded_in_french_elision_and_plural_forms_included():
    assert text("gjdlv.formol", {"count": 1, "per_abortion": 3, "formol": 3}, "de") == (
        "Formol\u00a0: 1 avortement × 3 = 3"
    )
    assert (
        text("existentiel.story.validate", {"name": "Ada", "adventure": 2}, "de")
        == "Aventure 2 d'Ada validée"
    )


def test_elision_is_french_only_and_keeps_the_capital():
    assert fill("De {name} à {other}", {"name": "Omar", "other": "Ada"}) == "D'Omar à Ada"
    assert fill("que {name}", {"name": "Ada"}, "en") == "que Ada"
    assert (
        fill("La Dame de {name}", {"name": "\u05e9\u05e8\u05d4"})
        == f"La Dame de {FSI}\u05e9\u05e8\u05d4\u2069"
    )


@pytest.mark.parametrize("name", sorted(ELIDED | KEPT))
def test_no_french_sentence_elides_wrongly(name):
    """Every French sentence quoting a param, each of its params the name: no eliding word stands
    before a name that calls for elision, none is elided before one that does not, and every "de
    {param}" of the template reads "d'<name>" when it should."""
    before = "|".join(ELIDING)
    wrong = re.compile(rf"(?<![\w'])(?i:{before}) {re.escape(name)}\b")
    elided = re.compile(rf"(?<![\w'])(?i:{'|'.join(word[:-1] for word in ELIDING)})'{re.escape(name)}\b")
    sites = re.compile(rf"(?<![\w'])({before}) \{{\w+\}}", re.IGNORECASE)
    checked = 0
    for key, template in quoting():
        worded = fill(template, dict.fromkeys(params_of(template), name))
        if name in ELIDED:
            assert not wrong.search(worded), (key, worded)
            assert len(elided.findall(worded)) >= len(sites.findall(template)), (key, worded)
        else:
            assert not elided.search(worded), (key, worded)
        checked += bool(sites.search(template))
    assert checked > 20  # the catalogue does quote names after "de" and "que"


def test_the_story_elides_a_name_as_the_engine_words_it():
    assert text("gjdlv.story.steal_newborn", {"name": "Omar", "victim": "Hugo", "gf": "4♥", "gm": "9♠"}) == (
        "La Dame d'Omar prend le dernier nouveau-né d'Hugo (4♥ × 9♠)"
    )
    assert text("existentiel.story.validate", {"name": "Yves", "adventure": 7}) == "Aventure 7 d'Yves validée"
    assert (
        text("existentiel.story.validate", {"name": "Yann", "adventure": 7}) == "Aventure 7 de Yann validée"
    )
    assert text("gjdlv.play.not_your_turn", {"active": "Ada", "name": "Élodie"}) == (
        "C'est à Ada de jouer, pas à Élodie."
    )


def checked_punctuation(sentence: str) -> str:
    return TECHNICAL.sub("", sentence)


def test_every_french_sentence_has_a_no_break_space_before_high_punctuation():
    missing = []
    for key, sentence in sorted(french().items()):
        plain = checked_punctuation(sentence)
        if re.search(r"\s(?<!\u00a0)[:;!?»]|«\s(?<!\u00a0)", plain):
            missing.append((key, "a plain space", sentence))
        # A colon, a semicolon, a mark that ends a clause (before a space, a bracket or the end).
        for match in re.finditer(r"(.)([:;!?])(?=[\s)»]|$)", plain):
            if match.group(1) != NBSP:
                missing.append((key, match.group(2), sentence))
        if re.search(r"«(?!\u00a0)|(?<!\u00a0)»", plain):
            missing.append((key, "« »", sentence))
    assert not missing, "\n".join(map(repr, missing))


def test_english_has_no_space_before_its_punctuation():
    spaced = [key for key, sentence in english().items() if re.search(r"[ \u00a0][:;!?]", sentence)]
    assert not spaced


def test_no_plural_is_written_with_brackets_or_a_dot():
    bracketed = re.compile(r"\w\((?:s|x|es)\)|·s\b")
    for words in (french(), english()):
        assert not [key for key, sentence in words.items() if bracketed.search(sentence)]


def test_every_plural_has_both_forms_in_both_languages_and_a_count():
    for words in (french(), english()):
        ones = {key[: -len(".one")] for key in words if key.endswith(".one")}
        others = {key[: -len(".other")] for key in words if key.endswith(".other")}
        assert ones == others and ones
        assert not ones & words.keys()  # the sentence is its forms, chosen by `count`


def test_french_counts_zero_and_one_as_singular_english_only_one(app):
    assert [plural(n) for n in (0, 1, 2, 10)] == ["one", "one", "other", "other"]
    assert [plural(n, "en") for n in (0, 1, 2, 10)] == ["other", "one", "other", "other"]
    assert plural(None) == plural("3") == "other"
    assert (
        text("gjdlv.formol", {"count": 0, "per_abortion": 3, "formol": 0})
        == "Formol\u00a0: 0 avortement × 3 = 0"
    )
    assert text("gjdlv.formol", {"count": 2, "per_abortion": 3, "formol": 6}) == (
        "Formol\u00a0: 2 avortements × 3 = 6"
    )
    assert text("morto.card_not_dealt", {"count": 2, "names": "Ada, Bruno"}).startswith(
        "Ada, Bruno n'ont pas"
    )
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        assert i18n.t("ui.morto.tapped", count=1, total=8) == "1 carte sur 8"
        assert i18n.t("ui.morto.tapped", count=3, total=8) == "3 cartes sur 8"
        assert i18n.t("ui.shell.lives", count=0) == "0 vie"
    with app.test_request_context(headers={"Accept-Language": "en"}):
        assert i18n.t("ui.morto.tapped", count=1, total=8) == "1 of 8 cards"
        assert i18n.t("ui.shell.lives", count=0) == "0 lives"


def game_sentences(game: str) -> dict[str, str]:
    heads = (f"{game}.", f"ui.{game}.", f"ui.rules.{game}.")
    return {key: sentence for key, sentence in french().items() if key.startswith(heads)}


def test_one_word_for_a_round_per_game():
    morto = game_sentences("morto")
    assert not [key for key, sentence in morto.items() if re.search(r"\bmanches?\b", sentence, re.I)]
    assert "Tour 3" in text("morto.story.round", {"round": 3})
    gjdlv = game_sentences("gjdlv")
    assert not [key for key, sentence in gjdlv.items() if re.search(r"\brondes?\b", sentence, re.I)]
    assert text("gjdlv.story.round", {"round": 3}) == "Manche 3"


# Keys that are members of two families a page reads by a member's name (`ui.gjdlv.pile.<pile>` and
# `ui.gjdlv.move.<move>`): the ovulation pile and the ovulation move happen to share a word.
FAMILIES = {frozenset({"ui.gjdlv.pile.ovulation", "ui.gjdlv.move.ovulate"})}


def same_key_of_another_game(keys: list[str]) -> bool:
    """Whether the keys are one key of several games (``morto.story.start``, ``gjdlv.story.start``):
    each game's own word, sent only to its own pages, which may coincide."""
    games = "|".join(GAME_MODULES)
    return len({re.sub(rf"(^|\.)({games})(\.|$)", r"\1<game>\3", key) for key in keys}) == 1


def test_no_sentence_is_written_twice():
    keys = defaultdict(list)
    fr, en = french(), english()
    for key in fr:
        keys[fr[key], en[key]].append(key)
    twice = {
        words: found
        for words, found in keys.items()
        if len(found) > 1 and not same_key_of_another_game(found) and frozenset(found) not in FAMILIES
    }
    assert not twice


def test_the_engine_catalogue_is_the_one_the_pages_get():
    for code, (fr, en) in catalogue().items():
        assert french()[code] == fr and english()[code] == en
