"""The story's engine half at its edges: each game's ``describe``, ``milestone`` and ``score`` called
through `engine.core` (``describe``, ``story``, ``timeline``) on the events the worked examples of
docs/RULES.md leave out, with exact expected words and numbers. These pin what the mutation run
(bench/mutation.py) found reached by no assertion of tests/test_story.py."""

from __future__ import annotations

import logging

import pytest

from engine import core, existentiel, morto
from engine.messages import text


def words(game: str, players, options, events) -> list[tuple[str, dict]]:
    return [(w["code"], w["params"]) for w in core.describe(game, players, options, events)]


# --- Le jeu existentiel ------------------------------------------------------------------------------

EX_PLAYERS = [{"name": "Ada", "birth_month": 3}, {"name": "Bruno", "birth_month": 11}]


def test_existentiel_the_first_and_the_last_adventure_get_a_title():
    events = [
        {"type": "set_title", "adventure": 1, "title": "  Naître  "},
        {"type": "set_title", "adventure": 29, "title": "Partir"},
    ]
    assert words("existentiel", EX_PLAYERS, {}, events) == [
        ("existentiel.story.set_title", {"adventure": 1, "title": "Naître"}),
        ("existentiel.story.set_title", {"adventure": 29, "title": "Partir"}),
    ]
    first = core.describe("existentiel", EX_PLAYERS, {}, events)[0]
    assert text(first["code"], first["params"], "fr") == "Titre de l'aventure 1\u00a0: «\u00a0Naître\u00a0»"


# --- Il Morto ----------------------------------------------------------------------------------------

MORTO_PLAYERS = ["Léa", "Marc", "Zoé", "Yann"]


def test_morto_every_event_with_its_params():
    # Two lives each; Marc touches his cards too early twice and dies, Zoé speaks to him (a life for
    # him, one less for her), then two reveals with the cards shown and two quick ones.
    events = [
        {"type": "touched_early", "player": "p2"},
        {"type": "touched_early", "player": "p2"},
        {"type": "spoke_to_dead", "living": "p3", "dead": "p2"},
        {"type": "reveal", "cards": {"p1": 10, "p3": 2, "p4": 5}},
        {"type": "reveal", "cards": {"p1": 3, "p2": 3, "p4": 9}},
        {"type": "reveal", "lowest": ["p4"]},
        {"type": "reveal", "lowest": ["p4", "p1"]},
    ]
    assert words("morto", MORTO_PLAYERS, {"lives": 2}, events) == [
        ("morto.story.touched_early", {"player": "p2", "name": "Marc"}),
        ("morto.story.touched_early", {"player": "p2", "name": "Marc"}),
        ("morto.story.spoke_to_dead", {"living": "Zoé", "dead": "Marc"}),
        (
            "morto.story.reveal",
            {"round": 1, "cards": "Léa Re · Zoé 2 · Yann 5", "names": "Zoé", "losers": ["p3"]},
        ),
        (
            "morto.story.reveal_several",
            {
                "round": 2,
                "cards": "Léa 3 · Marc 3 · Yann Cavallo",
                "names": "Léa, Marc",
                "losers": ["p1", "p2"],
            },
        ),
        ("morto.story.lowest", {"round": 3, "names": "Yann", "losers": ["p4"]}),
        ("morto.story.lowest_several", {"round": 4, "names": "Léa, Yann", "losers": ["p1", "p4"]}),
    ]


def test_morto_a_right_to_left_name_is_isolated_in_the_cards_shown():
    # An Arabic name between FSI (U+2068) and PDI (U+2069): the list keeps its order on the page; the
    # ace is named as the Italian deck names it (Asso).
    events = [{"type": "reveal", "cards": {"p1": 1, "p2": 7, "p3": 4}}]
    assert words("morto", ["سارة", "Marc", "Zoé"], {"lives": 3}, events) == [
        (
            "morto.story.reveal",
            {
                "round": 1,
                "cards": "\u2068سارة\u2069 Asso · Marc 7 · Zoé 4",
                "names": "\u2068سارة\u2069",
                "losers": ["p1"],
            },
        )
    ]


def test_existentiel_a_title_the_rules_refuse_is_refused_by_describe_with_the_same_refusal():
    # describe reads the event as the rules do: what they refuse it refuses alike (code and params).
    state = core.setup("existentiel", EX_PLAYERS, {})
    for title in ("", "   ", None, 7, "x" * 81):
        event = {"type": "set_title", "adventure": 7, "title": title}
        with pytest.raises(core.InvalidEvent) as by_the_rules:
            core.apply("existentiel", state, event)
        with pytest.raises(core.InvalidEvent) as by_describe:
            existentiel.describe(state, event)
        assert (by_describe.value.code, by_describe.value.params) == (
            "existentiel.bad_title",
            {"adventure": 7, "max": 80},
        )
        assert (by_the_rules.value.code, by_the_rules.value.params) == (
            by_describe.value.code,
            by_describe.value.params,
        )


# --- Le Grand Jeu de la Vie ----------------------------------------------------------------------------


def test_gjdlv_score_sheet_events_with_their_params():
    # Cards are read leniently (``qh``, ``K♠``) and shown as faces; a steal names the newborn taken.
    events = [
        {"type": "newborn", "player": "p2", "gf": "4H", "gm": "9S"},
        {"type": "newborn", "player": "p1", "gf": "qh", "gm": "K♠"},
        {"type": "steal_newborn", "player": "p1", "from": "p2"},
        {"type": "abortion", "player": "p3"},
        {"type": "close_round"},
    ]
    assert words("gjdlv", ["Ada", "Bruno", "Chiara"], {"rules": "abondantes", "rounds": 5}, events) == [
        ("gjdlv.story.newborn", {"player": "p2", "name": "Bruno", "gf": "4♥", "gm": "9♠"}),
        ("gjdlv.story.newborn", {"player": "p1", "name": "Ada", "gf": "Q♥", "gm": "K♠"}),
        (
            "gjdlv.story.steal_newborn",
            {"player": "p1", "name": "Ada", "victim": "Bruno", "gf": "4♥", "gm": "9♠"},
        ),
        ("gjdlv.story.abortion", {"player": "p3", "name": "Chiara"}),
        ("gjdlv.story.close_round", {"round": 1, "rounds": 5}),
    ]


def test_gjdlv_a_first_lap_tracked_with_its_params():
    # Simple rules, three players: six GMs each, two cards to the Mouchoir; each player ovulates and
    # fecundates in turn, then Ada gives birth to her embryo.
    events = [
        {"type": "deal", "mouchoir": ["9C", "10C"]},
        {"type": "ovulate", "player": "p1", "gf": "6H"},
        {"type": "fecundate", "player": "p1", "gm": "4S"},
        {"type": "ovulate", "player": "p2", "gf": "7H"},
        {"type": "fecundate", "player": "p2", "gm": "AS"},
        {"type": "ovulate", "player": "p3", "gf": "8H"},
        {"type": "fecundate", "player": "p3", "gm": "2S"},
        {"type": "birth", "player": "p1"},
    ]
    options = {"mode": "tracker", "rules": "simples", "rounds": 5}
    assert words("gjdlv", ["Ada", "Bruno", "Chiara"], options, events) == [
        ("gjdlv.story.deal", {"per": 6, "cards": "9♣ 10♣"}),
        ("gjdlv.story.ovulate", {"player": "p1", "name": "Ada", "gf": "6♥"}),
        ("gjdlv.story.fecundate", {"player": "p1", "name": "Ada", "gf": "6♥", "gm": "4♠"}),
        ("gjdlv.story.ovulate", {"player": "p2", "name": "Bruno", "gf": "7♥"}),
        ("gjdlv.story.fecundate", {"player": "p2", "name": "Bruno", "gf": "7♥", "gm": "A♠"}),
        ("gjdlv.story.ovulate", {"player": "p3", "name": "Chiara", "gf": "8♥"}),
        ("gjdlv.story.fecundate", {"player": "p3", "name": "Chiara", "gf": "8♥", "gm": "2♠"}),
        ("gjdlv.story.birth", {"player": "p1", "name": "Ada", "gf": "6♥", "gm": "4♠"}),
    ]


def test_a_milestone_that_cannot_be_read_is_logged_with_the_game_and_the_event_type(monkeypatch, caplog):
    def broken(state, event):
        raise KeyError("oops")

    monkeypatch.setattr(morto, "milestone", broken)
    with caplog.at_level(logging.ERROR, logger=core.log.name):
        series = core.timeline("morto", MORTO_PLAYERS, {}, [{"type": "touched_early", "player": "p2"}])
    assert [p["label"]["code"] for p in series["points"]] == ["morto.story.start"]
    assert [r.getMessage() for r in caplog.records] == [
        "morto: the milestone of a touched_early event cannot be read"
    ]
