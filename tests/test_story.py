"""The story of a table: every event in words (`engine.core.describe` / `story`), the scores over time
(`engine.core.timeline`), the history's ``said``, the results page, and export / import.

The engine half covers every ``<game>.story.*`` sentence of every game, from real play (the seed's
own kinds of turns), and checks each is worded in both languages with every param it quotes. The
web half runs on both backends (the ``client`` fixture).
"""

from __future__ import annotations

import copy
import csv
import io
import json
import string

import pytest

from engine import core, existentiel, gjdlv, morto
from engine.messages import catalogue, sentences, text
from tests.conftest import bearer
from tests.test_gjdlv_play import FIRST_LAP, LATE_EXPRESS

CHART_LABELS = {"measure", "start", "end", "round", "validation"}


def said(game: str, players, options, events) -> list[tuple[str, str]]:
    """Each event's sentence in French, checked in English too (every placeholder filled)."""
    out = []
    for words in core.describe(game, players, options, events):
        code, params = words["code"], words["params"]
        assert code.startswith(f"{game}.story."), code
        for lang in ("fr", "en"):
            sentence = text(code, params, lang)
            assert sentence != code and "{" not in sentence, (code, lang, sentence)
        out.append((code, text(code, params, "fr")))
    return out


def story_codes(module) -> set[str]:
    return {
        code
        for code in sentences(module.ID)
        if ".story." in code and code.rsplit(".", 1)[1] not in CHART_LABELS
    }


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_story_sentence_is_in_both_languages_with_the_same_params():
    for module in (morto, existentiel, gjdlv):
        codes = [code for code in sentences(module.ID) if ".story." in code]
        assert codes
        for code in codes:
            french, english = catalogue()[code]
            assert french != english and placeholders(french) == placeholders(english), code


# --- Il Morto --------------------------------------------------------------------------------------

MORTO_PLAYERS = ["Léa", "Marc", "Zoé", "Yann"]
MORTO_EVENTS = [
    {"type": "touched_early", "player": "p2"},
    {"type": "touched_early", "player": "p2"},  # Marc dies
    {"type": "spoke_to_dead", "living": "p3", "dead": "p2"},
    {"type": "reveal", "cards": {"p1": 10, "p3": 2, "p4": 5}},  # Marc is not dealt back in this round
    {"type": "reveal", "cards": {"p1": 3, "p2": 3, "p4": 9}},
    {"type": "reveal", "lowest": ["p4"]},  # the quick reveal: the table names who holds the lowest card
    {"type": "reveal", "lowest": ["p4", "p1"]},  # both on their last life: they share the win
]


def test_morto_every_event_in_words():
    words = said("morto", MORTO_PLAYERS, {"lives": 2}, MORTO_EVENTS)
    assert words == [
        ("morto.story.touched_early", "Marc a touché ses cartes trop tôt\u00a0: une vie de moins"),
        ("morto.story.touched_early", "Marc a touché ses cartes trop tôt\u00a0: une vie de moins"),
        ("morto.story.spoke_to_dead", "Zoé a parlé à Marc (mort·e)\u00a0: lui donne une vie"),
        ("morto.story.reveal", "Révélation, tour 1 (Léa Re · Zoé 2 · Yann 5)\u00a0: Zoé perd une vie"),
        (
            "morto.story.reveal_several",
            "Révélation, tour 2 (Léa 3 · Marc 3 · Yann Cavallo)\u00a0: Léa, Marc perdent une vie",
        ),
        ("morto.story.lowest", "Yann avait la plus petite carte\u00a0: −1 vie"),
        ("morto.story.lowest_several", "Léa, Yann avaient la plus petite carte\u00a0: −1 vie chacun·e"),
    ]
    quick = core.describe("morto", MORTO_PLAYERS, {"lives": 2}, MORTO_EVENTS)[5:]
    assert [w["params"] for w in quick] == [
        {"round": 3, "names": "Yann", "losers": ["p4"]},
        {"round": 4, "names": "Léa, Yann", "losers": ["p1", "p4"]},
    ]
    assert [text(w["code"], w["params"], "en") for w in quick] == [
        "Yann had the lowest card: −1 life",
        "Léa, Yann had the lowest card: −1 life each",
    ]
    english = core.describe("morto", MORTO_PLAYERS, {"lives": 2}, MORTO_EVENTS)[2]
    assert text(english["code"], english["params"], "en") == "Zoé spoke to Marc (dead): gives them a life"
    assert {code for code, _ in words} == story_codes(morto)


def test_morto_lives_over_the_rounds():
    series = core.timeline("morto", MORTO_PLAYERS, {"lives": 2}, MORTO_EVENTS)
    assert series["measure"] == {"code": "morto.story.measure", "params": {}}
    assert series["players"] == [{"id": f"p{i + 1}", "name": name} for i, name in enumerate(MORTO_PLAYERS)]
    assert [p["label"] for p in series["points"]] == [
        {"code": "morto.story.start", "params": {}},
        {"code": "morto.story.round", "params": {"round": 1}},
        {"code": "morto.story.round", "params": {"round": 2}},
        {"code": "morto.story.round", "params": {"round": 3}},
        {"code": "morto.story.round", "params": {"round": 4}},
    ]
    assert [p["scores"] for p in series["points"]] == [
        {"p1": 2, "p2": 2, "p3": 2, "p4": 2},
        {"p1": 2, "p2": 1, "p3": 0, "p4": 2},
        {"p1": 1, "p2": 0, "p3": 0, "p4": 2},
        {"p1": 1, "p2": 0, "p3": 0, "p4": 1},
        {"p1": 0, "p2": 0, "p3": 0, "p4": 0},
    ]


def test_a_game_ended_between_milestones_gets_an_end_point():
    # Two touches kill the last two players besides the dealer: the game ends without a reveal.
    events = [{"type": "touched_early", "player": "p2"}, {"type": "touched_early", "player": "p3"}]
    series = core.timeline("morto", ["A", "B", "C"], {"lives": 1}, events)
    assert [p["label"]["code"] for p in series["points"]] == ["morto.story.start", "morto.story.end"]
    assert series["points"][-1]["scores"] == {"p1": 1, "p2": 0, "p3": 0}


# --- Le jeu existentiel ------------------------------------------------------------------------------


def ex(kind: str, player: str | None = None, **fields) -> dict:
    return {"type": kind, **({"player": player} if player else {}), **fields}


def test_existentiel_every_event_in_words():
    players = [{"name": "Ada", "birth_month": 3}, {"name": "Bruno", "birth_month": 11}]
    events = [
        ex("add_player", name="Zoé", birth_month=1),
        ex("set_title", adventure=7, title="Danser sous la pluie"),
        ex("schedule", at="2031-03-07T19:30"),
        ex("schedule", at="2031-03-07T19:30", place="Chez Ada"),
        ex("roll", "p1", die=4),
        ex("accept", "p1"),
        ex("roll", "p2", die=1),
        ex("refuse", "p2"),
        ex("roll", "p2", die=2),
        ex("accept", "p2"),
        ex("roll", "p3", die=1),
        ex("accept", "p3"),
        ex("validate", "p1", success=True),
        ex("validate", "p2", success=False),
        ex("validate", "p3", success=True),
    ]
    words = said("existentiel", players, {}, events)
    assert [sentence for _, sentence in words] == [
        "Zoé rejoint la partie",
        "Titre de l'aventure 7\u00a0: «\u00a0Danser sous la pluie\u00a0»",
        "Rendez-vous fixé\u00a0: 2031-03-07 19:30",
        "Rendez-vous fixé\u00a0: 2031-03-07 19:30, Chez Ada",
        "Ada lance 4\u00a0: aventure 7",
        "Ada accepte l'aventure 7",
        "Bruno lance 1\u00a0: aventure 12",
        "Bruno refuse l'aventure 12\u00a0: un joker de moins",
        "Bruno lance 2\u00a0: aventure 14",
        "Bruno accepte l'aventure 14",
        "Zoé lance 1\u00a0: aventure 2",
        "Zoé accepte l'aventure 2",
        "Aventure 7 d'Ada validée",
        "Aventure 14 de Bruno ratée\u00a0: un joker de moins",
        "Aventure 2 de Zoé validée",
    ]
    series = core.timeline("existentiel", players, {}, events)
    assert [p["label"]["params"] for p in series["points"][1:]] == [
        {"name": "Ada", "adventure": 7},
        {"name": "Bruno", "adventure": 14},
        {"name": "Zoé", "adventure": 2},
    ]
    assert series["points"][-1]["scores"] == {"p1": 1, "p2": 0, "p3": 1}
    assert series["points"][0]["scores"] == {"p1": 0, "p2": 0}  # Zoé joined later

    # No joker left: a refusal or a failure eliminates; adventure 29 accepted leaves the game.
    solo = [{"name": "Ada", "birth_month": 1}]
    spent = [ex("roll", "p1", die=1), ex("refuse", "p1")] * 3
    out = said("existentiel", solo, {}, [*spent, ex("roll", "p1", die=1), ex("refuse", "p1")])
    assert out[-1] == (
        "existentiel.story.refuse_eliminated",
        "Ada refuse l'aventure 5 sans joker\u00a0: éliminé·e",
    )
    failed = [*spent, ex("roll", "p1", die=1), ex("accept", "p1"), ex("validate", "p1", success=False)]
    out2 = said("existentiel", solo, {}, failed)
    assert out2[-1] == (
        "existentiel.story.validate_eliminated",
        "Aventure 5 d'Ada ratée sans joker\u00a0: éliminé·e",
    )
    # The game ended on a validation: its last point is that one, no end point after it.
    assert (
        core.timeline("existentiel", solo, {}, failed)["points"][-1]["label"]["code"]
        == "existentiel.story.validation"
    )
    late = [{"name": "Ada", "birth_month": 12}]
    leave = [
        ex("roll", "p1", die=6),
        ex("accept", "p1"),
        ex("validate", "p1", success=True),
        ex("roll", "p1", die=6),
        ex("accept", "p1"),
        ex("validate", "p1", success=True),
        ex("roll", "p1", die=5),
        ex("accept", "p1"),
    ]
    out3 = said("existentiel", late, {}, leave)
    assert out3[-1] == ("existentiel.story.accept_death", "Ada accepte l'aventure 29 et quitte le jeu")
    series = core.timeline("existentiel", late, {}, leave)
    assert series["points"][-1] == {
        "label": {"code": "existentiel.story.end", "params": {}},
        "scores": {"p1": 2},
    }
    codes = {code for code, _ in words + out + out2 + out3}
    assert codes == story_codes(existentiel)


# --- Le Grand Jeu de la Vie ----------------------------------------------------------------------------


def test_gjdlv_score_sheet_events_in_words_and_totals_per_round():
    players = ["Ada", "Bruno", "Chiara"]
    options = {"rules": "abondantes", "rounds": 5}
    events = [
        {"type": "newborn", "player": "p2", "gf": "4H", "gm": "9S"},
        {"type": "newborn", "player": "p1", "gf": "qh", "gm": "K♠"},  # read leniently, shown as faces
        {"type": "steal_newborn", "player": "p1", "from": "p2"},
        {"type": "abortion", "player": "p3"},
        {"type": "close_round"},
    ]
    assert [sentence for _, sentence in said("gjdlv", players, options, events)] == [
        "Bruno\u00a0: nouveau-né 4♥ × 9♠",
        "Ada\u00a0: nouveau-né Q♥ × K♠",
        "La Dame d'Ada prend le dernier nouveau-né de Bruno (4♥ × 9♠)",
        "Chiara\u00a0: un avortement au Formol",
        "Manche 1 sur 5 close",
    ]
    series = core.timeline("gjdlv", players, options, events + [{"type": "close_round"}])
    assert series["measure"]["code"] == "gjdlv.story.measure"
    assert [p["label"] for p in series["points"]] == [
        {"code": "gjdlv.story.start", "params": {}},
        {"code": "gjdlv.story.round", "params": {"round": 1}},
        {"code": "gjdlv.story.round", "params": {"round": 2}},
    ]
    final = core.replay("gjdlv", players, options, events)
    assert series["points"][1]["scores"] == {p["id"]: sum(p["round_scores"]) for p in final["players"]}
    assert series["points"][1]["scores"]["p3"] == 3


def deal(*cards):
    return {"type": "deal", "mouchoir": list(cards)}


def ov(player, gf):
    return {"type": "ovulate", "player": player, "gf": gf}


def fec(player, gm):
    return {"type": "fecundate", "player": player, "gm": gm}


def hold(player):
    return {"type": "hold", "player": player}


def ejac(**gms):
    return {"type": "ejaculate", "gms": gms}


def birth(player, held=None):
    return {"type": "birth", "player": player, **({"held": held} if held else {})}


def abort(player, gm):
    return {"type": "abort", "player": player, "gm": gm}


def cancel(player, card):
    return {"type": "cancel", "player": player, "card": card}


def tracker_said(count: int, rules: str, events: list[dict]) -> list[tuple[str, str]]:
    names = ["Ada", "Bruno", "Chiara", "Dario", "Elena", "Fabio"][:count]
    return said("gjdlv", names, {"mode": "tracker", "rules": rules, "rounds": 5}, events)


FOUR_HOLDING = [
    deal(),
    ov("p1", "AH"),
    hold("p1"),
    ov("p2", "2H"),
    hold("p2"),
    ejac(),
    ov("p3", "3H"),
    hold("p3"),
    ejac(),
    ov("p4", "6H"),
    hold("p4"),
]


def test_gjdlv_a_round_played_through_in_words():
    found: list[tuple[str, str]] = []
    # A birth; a held GM discarded at its player's phase 0.
    found += tracker_said(3, "simples", [deal("9C", "10C"), *FIRST_LAP, birth("p1")])
    assert found[0] == ("gjdlv.story.deal", "Distribution\u00a0: 6 GM chacun·e, au Mouchoir\u00a0: 9♣ 10♣")
    assert found[-1] == ("gjdlv.story.birth", "Ada met au monde 6♥ × 4♠")
    held = tracker_said(
        3,
        "simples",
        [
            deal("9C", "10C"),
            ov("p1", "6H"),
            hold("p1"),
            ov("p2", "7H"),
            fec("p2", "AS"),
            ov("p3", "8H"),
            fec("p3", "2S"),
            birth("p1", "5S"),
        ],
    )
    assert held[2] == ("gjdlv.story.hold", "Ada se retient\u00a0: un GM dans l'urètre")
    assert held[-1] == ("gjdlv.story.discard_held", "Ada défausse 5♠ de son urètre au Mouchoir")
    found += held
    # The contest: nobody, a winner, all tied.
    contest = tracker_said(4, "simples", FOUR_HOLDING + [ejac(p1="10S", p2="9C", p3="4S")])
    assert contest[0] == ("gjdlv.story.deal_even", "Distribution\u00a0: 5 GM chacun·e, rien au Mouchoir")
    assert contest[5] == ("gjdlv.story.ejaculate_none", "Personne n'éjacule sur 2♥\u00a0: menstruation")
    assert contest[-1] == (
        "gjdlv.story.ejaculate_won",
        "Éjaculations sur 6♥ (Ada 10♠ · Bruno 9♣ · Chiara 4♠)\u00a0: Chiara féconde avec 4♠",
    )
    tied = tracker_said(4, "simples", FOUR_HOLDING + [ejac(p1="2S", p2="10S", p3="2C")])
    assert tied[-1] == (
        "gjdlv.story.ejaculate_lost",
        "Éjaculations sur 6♥ (Ada 2♠ · Bruno 10♠ · Chiara 2♣)\u00a0: personne ne l'emporte, menstruation",
    )
    found += contest + tied
    # Each holder answering for themselves: the answers, then the last one settling the contest.
    answered = tracker_said(
        4,
        "simples",
        FOUR_HOLDING
        + [
            {"type": "contest_answer", "player": "p2", "gm": "9C"},
            {"type": "contest_answer", "player": "p1"},
            {"type": "contest_answer", "player": "p3", "gm": "4S"},
        ],
    )
    assert answered[-3:] == [
        ("gjdlv.story.contest_join", "Bruno éjacule 9♣ sur 6♥"),
        ("gjdlv.story.contest_decline", "Ada n'éjacule pas sur 6♥ et se retient encore"),
        (
            "gjdlv.story.ejaculate_won",
            "Éjaculations sur 6♥ (Bruno 9♣ · Chiara 4♠)\u00a0: Chiara féconde avec 4♠",
        ),
    ]
    found += answered
    # Surrogacy cancelled by a Queen; an abortion cancelled by a King; a Jack newborn's removal.
    surrogacy = tracker_said(
        3,
        "abondantes",
        [
            deal("10S", "10C"),
            ov("p1", "6H"),
            fec("p1", "AS"),
            ov("p2", "7H"),
            {"type": "surrogate", "player": "p2", "from": "p1", "gm": "5S"},
            cancel("p3", "QC"),
        ],
    )
    assert surrogacy[-2:] == [
        ("gjdlv.story.surrogate", "Bruno mère-porte l'embryon 6♥ × A♠ d'Ada avec 5♠"),
        (
            "gjdlv.story.cancel_surrogacy",
            "Chiara annule la mère-porteuse de Bruno avec Q♣\u00a0: l'embryon reste à Ada",
        ),
    ]
    aborted = tracker_said(
        3,
        "abondantes",
        [deal("10S", "10C"), ov("p1", "6H"), fec("p1", "4C"), abort("p2", "4S"), cancel("p1", "KS")],
    )
    assert aborted[-3:] == [
        ("gjdlv.story.fecundate", "Ada féconde 6♥ avec 4♣"),
        ("gjdlv.story.abort", "Bruno avorte l'embryon 6♥ × 4♣ d'Ada avec 4♠"),
        (
            "gjdlv.story.cancel_abortion",
            "Ada annule l'avortement de Bruno avec K♠\u00a0: l'embryon revient à Ada",
        ),
    ]
    removal = tracker_said(
        3,
        "abondantes",
        [
            deal("10S", "10C"),
            ov("p1", "JH"),
            fec("p1", "2S"),
            ov("p2", "4H"),
            fec("p2", "9C"),
            ov("p3", "5H"),
            fec("p3", "AS"),
            birth("p1"),
            {"type": "remove_embryo", "player": "p1", "from": "p3"},
        ],
    )
    assert removal[-1] == ("gjdlv.story.remove_embryo", "Le Valet d'Ada retire l'embryon 5♥ × A♠ de Chiara")
    assert removal[1] == ("gjdlv.story.ovulate", "Ada ovule J♥")
    found += surrogacy + aborted + removal
    found += last_lap()
    found += phase_0_in_place()
    sheet = {"gjdlv.story.newborn", "gjdlv.story.abortion", "gjdlv.story.steal_newborn"}  # the test above
    assert {code for code, _ in found} | sheet == story_codes(gjdlv)


def last_lap() -> list[tuple[str, str]]:
    """6 players, 3 GM each: an embryo begun in the last lap does not come to term; a player with no
    card left passes; the round is closed."""
    late = tracker_said(6, "simples", [deal("9C", "10C"), *LATE_EXPRESS, birth("p1")])
    assert late[-1] == (
        "gjdlv.story.birth_late",
        "L'embryon 6♥ × 6♠ d'Ada, commencé au dernier tour, ne vient pas à terme",
    )
    # p3 announces (their last card aborts p2's fecundation); p2 spends their last card aborting p4's
    # before their turn comes back: they pass, then p3's phase 0 ends the round.
    passing = tracker_said(
        6,
        "simples",
        [
            deal("9C", "10C"),
            ov("p1", "AH"),
            fec("p1", "AS"),
            abort("p3", "AC"),
            ov("p2", "2H"),
            fec("p2", "2S"),
            abort("p3", "2C"),
            ov("p3", "3H"),
            fec("p3", "3S"),
            abort("p2", "3C"),
            ov("p4", "4H"),
            fec("p4", "4S"),
            abort("p2", "4C"),
            ov("p5", "5H"),
            fec("p5", "5S"),
            ov("p6", "6H"),
            fec("p6", "6S"),
            ov("p1", "7H"),
            fec("p1", "7S"),
            ov("p2", "8H"),
            {"type": "pass", "player": "p2"},
            {"type": "close_round"},
        ],
    )
    assert passing[-2:] == [
        ("gjdlv.story.pass", "Bruno passe\u00a0: plus de GM en main"),
        ("gjdlv.story.close_round", "Manche 1 sur 5 close"),
    ]
    return late + passing


def phase_0_in_place() -> list[tuple[str, str]]:
    """A phase 0 with nothing to choose made by the ovulation recorded in its place (issue 29), for
    a birth and for an embryo begun in the last lap."""
    born = tracker_said(3, "simples", [deal("9C", "10C"), *FIRST_LAP, ov("p1", "9H")])
    assert born[-1] == ("gjdlv.story.birth_ovulate", "Ada met au monde 6♥ × 4♠, puis ovule 9♥")
    late_events = [deal("9C", "10C"), *LATE_EXPRESS]
    late = tracker_said(6, "simples", [*late_events, ov("p1", "7H")])
    assert late[-1] == (
        "gjdlv.story.birth_late_ovulate",
        "Ada perd son embryon 6♥ × 6♠, commencé au dernier tour, puis ovule 7♥",
    )
    return born + late


# --- the whole log, undone events included ----------------------------------------------------------


@pytest.mark.replays_a_log_of_older_rules
def test_the_story_words_undone_events_against_the_state_they_were_applied_to():
    # v1 Marc touches; v2 Marc touches again (dies), v3 Zoé speaks to dead Marc; v4 undoes v3, v5
    # undoes v2; v6 a reveal where Marc holds a card again: valid only against the state after v1.
    entries = [
        {"event": {"type": "touched_early", "player": "p2"}, "version": 1},
        {"event": {"type": "touched_early", "player": "p2"}, "version": 2, "undone_version": 5},
        {"event": {"type": "spoke_to_dead", "living": "p3", "dead": "p2"}, "version": 3, "undone_version": 4},
        {"event": {"type": "reveal", "cards": {"p1": 10, "p2": 5, "p3": 3, "p4": 8}}, "version": 6},
    ]
    words = core.story("morto", MORTO_PLAYERS, {"lives": 2}, entries)
    assert [text(w["code"], w["params"]) for w in words] == [
        "Marc a touché ses cartes trop tôt\u00a0: une vie de moins",
        "Marc a touché ses cartes trop tôt\u00a0: une vie de moins",
        "Zoé a parlé à Marc (mort·e)\u00a0: lui donne une vie",
        "Révélation, tour 1 (Léa Re · Marc 5 · Zoé 3 · Yann Fante)\u00a0: Zoé perd une vie",
    ]
    # Without the undos, the reveal is refused there (Marc holds no card after dying): said so.
    words = core.describe("morto", MORTO_PLAYERS, {"lives": 2}, [e["event"] for e in entries])
    assert words[-1] == SKIPPED("reveal")


def SKIPPED(kind: str) -> dict:  # noqa: N802 - a constant line, parametrised by the event's type
    return {"code": "story.skipped", "params": {"type": kind}}


@pytest.mark.replays_a_log_of_older_rules
def test_what_the_rules_refuse_is_said_to_have_no_effect_and_changes_nothing(caplog):
    # A stored log is the table's truth, written under the rules of its day: its story never fails.
    events = [{"type": "touched_early", "player": "p1"}, {"type": "touched_early", "player": "p2"}]
    words = core.describe("morto", MORTO_PLAYERS, {}, events)  # the dealer may touch: refused
    assert words[0] == SKIPPED("touched_early")
    assert words[1]["code"] == "morto.story.touched_early"
    assert "morto.dealer_may_touch" in caplog.text
    assert text("story.skipped", {"type": "touched_early"}) == (
        "Action «\u00a0touched_early\u00a0» sans effet\u00a0: les règles ne la permettent pas à ce moment"
    )
    # An event the words cannot even read (no open act to answer), or of no known type: the same.
    tracker = ["Ada", "Bruno", "Chiara"], {"mode": "tracker", "rules": "abondantes"}
    words = core.describe("gjdlv", *tracker, [deal("10S", "10C"), cancel("p1", "KS"), {"type": "nope"}, 7])
    assert words[1:] == [SKIPPED("cancel"), SKIPPED("nope"), SKIPPED("?")]
    timeline = core.timeline("morto", MORTO_PLAYERS, {}, events)
    assert [p["label"]["code"] for p in timeline["points"]] == ["morto.story.start"]


def test_a_describe_that_fails_on_an_accepted_event_gets_a_generic_line_and_is_logged(monkeypatch, caplog):
    def broken(state, event):
        raise KeyError("oops")

    monkeypatch.setattr(morto, "describe", broken)
    events = [{"type": "touched_early", "player": "p2"}, {"type": "touched_early", "player": "p3"}]
    words = core.describe("morto", MORTO_PLAYERS, {}, events)
    assert words == [{"code": "story.unworded", "params": {"type": "touched_early"}}] * 2
    assert text(words[0]["code"], words[0]["params"], "en") == "Action “touched_early”"
    assert "cannot be worded" in caplog.text and "KeyError: 'oops'" in caplog.text
    # The events were applied all the same, and a milestone that cannot be read makes no point: the
    # chart's point after the reveal counts both lost lives.
    real = morto.milestone
    monkeypatch.setattr(
        morto, "milestone", lambda state, e: real(state, e) if e["type"] == "reveal" else broken(state, e)
    )
    reveal = {"type": "reveal", "cards": {"p1": 10, "p2": 9, "p3": 8, "p4": 2}}
    points = core.timeline("morto", MORTO_PLAYERS, {}, [*events, reveal])["points"]
    assert [p["scores"] for p in points] == [
        {"p1": 3, "p2": 3, "p3": 3, "p4": 3},
        {"p1": 3, "p2": 2, "p3": 2, "p4": 2},
    ]


# --- the web: history, results, timeline, export and import (both backends) ------------------------------


def morto_table(make_table, lives=1):
    table = make_table("morto", ["Léa", "Marc", "Zoé"], {"lives": lives})
    return table


def test_the_history_says_each_event_in_words_undone_ones_too(make_table):
    table = make_table("morto", ["Léa", "Marc", "Zoé", "Yann"], {"lives": 2})
    table.event("touched_early", player="p2")
    table.event("touched_early", player="p2")
    assert table.undo().status_code == 200
    table.event("touched_early", player="p3")
    events = table.history()["events"]
    assert [e["undone"] for e in events] == [False, True, False]
    assert [e["said"] for e in events] == [
        {"code": "morto.story.touched_early", "params": {"player": "p2", "name": "Marc"}},
        {"code": "morto.story.touched_early", "params": {"player": "p2", "name": "Marc"}},
        {"code": "morto.story.touched_early", "params": {"player": "p3", "name": "Zoé"}},
    ]
    # The fields the history had stay as they were; `by` says who recorded it, `undone_by` who took
    # it back (docs/API.md).
    assert set(events[0]) == {
        "seq",
        "id",
        "event",
        "version",
        "at",
        "undone",
        "undone_version",
        "undone_at",
        "said",
        "by",
        "undone_by",
    }


def finished_morto(make_table):
    """Léa deals; Marc, then Zoé lose their only life: Léa wins."""
    table = make_table("morto", ["Léa", "Marc", "Zoé"], {"lives": 2})
    table.event("reveal", cards={"p1": 10, "p2": 1, "p3": 5})
    table.event("touched_early", player="p3")
    table.event("touched_early", player="p3")  # undone below
    assert table.undo().status_code == 200
    table.event("reveal", cards={"p1": 9, "p2": 2, "p3": 3})  # Marc dies: round 3, Zoé deals
    table.event("reveal", cards={"p1": 8, "p3": 4})  # Zoé dies
    assert table.get()["state"]["over"] is True
    return table


def test_the_timeline_route(client, make_table):
    table = finished_morto(make_table)
    series = client.get(f"/api/tables/{table.code}/timeline").get_json()
    assert series["code"] == table.code and series["game"] == "morto" and series["version"] == 6
    assert [p["scores"] for p in series["points"]] == [
        {"p1": 2, "p2": 2, "p3": 2},
        {"p1": 2, "p2": 1, "p3": 2},
        {"p1": 2, "p2": 0, "p3": 1},
        {"p1": 2, "p2": 0, "p3": 0},
    ]
    assert client.get("/api/tables/ZZZZZZ/timeline").status_code == 404


def test_the_results_page_of_a_finished_game(client, make_table):
    table = finished_morto(make_table)
    page = client.get(f"/t/{table.code}/results").get_data(as_text=True)
    assert "Léa gagne\u00a0!" in page
    assert "Marc a touché" not in page  # only events in effect are told
    assert "Zoé a touché ses cartes trop tôt\u00a0: une vie de moins" in page
    assert "Révélation, tour 1 (Léa Re · Marc Asso · Zoé 5)\u00a0: Marc perd une vie" in page
    assert 'id="results-data"' in page and 'media="print"' in page and "css/print.css" in page
    assert f"/api/tables/{table.code}/export.csv" in page
    english = client.get(f"/t/{table.code}/results", headers={"Accept-Language": "en-US"}).get_data(
        as_text=True
    )
    assert "Léa wins!" in english and "Zoé touched their cards too early: one life less" in english
    # A typed code is redirected to its canonical form; an unknown one is not found.
    typed = client.get(f"/t/{table.code.lower()}/results")
    assert typed.status_code == 302 and typed.headers["Location"].endswith(f"/t/{table.code}/results")
    assert client.get("/t/ZZZZZZ/results").status_code == 404


def test_the_results_page_of_a_running_game_says_it_is_not_finished(client, make_table):
    table = make_table("morto", ["Léa", "Marc", "Zoé"])
    page = client.get(f"/t/{table.code}/results").get_data(as_text=True)
    assert "pas encore finie" in page and f'href="/t/{table.code}"' in page
    assert "results-data" not in page


def test_export_holds_the_events_in_effect_and_no_secret(client, make_table):
    table = finished_morto(make_table)
    response = client.get(f"/api/tables/{table.code}/export")
    assert response.status_code == 200
    assert response.headers["Content-Disposition"] == f'attachment; filename="arbitre-{table.code}.json"'
    exported = response.get_json()
    assert table.secret not in response.get_data(as_text=True)
    assert exported["format"] == "arbitre.table" and exported["format_version"] == 1
    assert exported["game"] == "morto" and exported["players"] == ["Léa", "Marc", "Zoé"]
    assert exported["options"] == {"lives": 2}
    assert [e["event"]["type"] for e in exported["events"]] == ["reveal", "touched_early", "reveal", "reveal"]
    assert all(isinstance(e["id"], str) for e in exported["events"])
    assert exported["summary"]["winners"] == ["p1"] and exported["summary"]["scores"] == {
        "p1": 2,
        "p2": 0,
        "p3": 0,
    }
    assert exported["summary"]["outcome"]["reason"] == "morto.won"


def test_export_then_import_gives_the_same_state_at_a_new_table(client, make_table):
    table = finished_morto(make_table)
    exported = client.get(f"/api/tables/{table.code}/export").get_json()
    response = client.post("/api/tables/import", json=exported)
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    assert set(created) == {"secret", "code", "display_code", "game", "version", "state", "did", "undoable"}
    assert created["did"]["id"] == created["undoable"]["id"] == exported["events"][-1]["id"]
    assert created["code"] != table.code and created["secret"] != table.secret
    assert response.headers["Location"].endswith(f"/api/tables/{created['code']}")
    assert created["state"] == table.get()["state"] and created["version"] == 4
    copy_log = client.get(f"/api/tables/{created['code']}/log").get_json()
    assert [e["id"] for e in copy_log["events"]] == [e["id"] for e in exported["events"]]
    # The copy is a table like any other: its referee undoes and writes with the new secret.
    undone = client.post(f"/api/tables/{created['code']}/undo", json={}, headers=bearer(created["secret"]))
    assert undone.status_code == 200 and undone.get_json()["version"] == 5
    assert undone.get_json()["state"]["over"] is False
    again = client.get(f"/api/tables/{created['code']}/history").get_json()["events"]
    assert [e["undone"] for e in again] == [False, False, False, True]


def test_import_of_each_game_replays_it(client, make_table):
    existential = make_table("existentiel", [{"name": "Ada", "birth_month": 3}])
    existential.event("roll", player="p1", die=4)
    existential.event("add_player", name="Zoé", birth_month=1)
    sheet = make_table("gjdlv", ["Ada", "Bruno"], {"rules": "abondantes", "rounds": 5})
    sheet.event("newborn", player="p1", gf="4H", gm="9S")
    sheet.event("close_round")
    for table in (existential, sheet):
        exported = client.get(f"/api/tables/{table.code}/export").get_json()
        created = client.post("/api/tables/import", json=exported).get_json()
        assert created["state"] == table.get()["state"]


def count_tables(app) -> int:
    from companion.storage.models import Table, db

    with app.app_context():
        return db.session.query(Table).count()


def test_a_tampered_export_is_refused_with_the_rules_code_and_creates_nothing(app, client, make_table):
    table = finished_morto(make_table)
    exported = client.get(f"/api/tables/{table.code}/export").get_json()
    before = count_tables(app)
    tampered = copy.deepcopy(exported)
    tampered["events"][1]["event"] = {"type": "touched_early", "player": "p2"}  # Marc deals round 2
    response = client.post("/api/tables/import", json=tampered)
    assert response.status_code == 422
    error = response.get_json()["error"]
    assert error["code"] == "morto.dealer_may_touch" and error["params"]["index"] == 1
    assert error["message"] == "Le·a dealer a le droit de toucher les cartes avant d'avoir toqué."
    # An event the rules never heard of, a malformed one, a bad field: each named.
    cases = [
        (
            lambda d: d["events"].append({"id": "x", "event": {"type": "reveal", "cards": {"p1": 9}}}),
            "game_over",
            4,
        ),
        (lambda d: d["events"][3]["event"]["cards"].update(p1=11), "morto.bad_rank", 3),
        (lambda d: d["events"].insert(0, {"id": "y", "event": {"type": "shuffle"}}), "unknown_event", 0),
        (lambda d: d["events"][0]["event"].update(extra=1), "unknown_field", 0),
    ]
    for change, code, index in cases:
        broken = copy.deepcopy(exported)
        change(broken)
        error = client.post("/api/tables/import", json=broken).get_json()["error"]
        assert (error["code"], error["params"]["index"]) == (code, index)
    for change, field in [
        (lambda d: d.update(format="other"), "format"),
        (lambda d: d.update(format_version=2), "format_version"),
        (lambda d: d.update(events={}), "events"),
        (lambda d: d["events"].__setitem__(0, "reveal"), "events.0"),
        (lambda d: d["events"][1].update(id=7), "events.1.id"),
        (lambda d: d["events"][1].update(id=d["events"][0]["id"]), "events.1.id"),
    ]:
        broken = copy.deepcopy(exported)
        change(broken)
        response = client.post("/api/tables/import", json=broken)
        assert response.status_code == 422
        assert response.get_json()["error"]["code"] == "bad_field"
        assert response.get_json()["error"]["params"]["field"] == field
    for change, code in [
        (lambda d: d.update(game="chess"), "unknown_game"),
        (lambda d: d.update(players=["Solo"]), "player_count"),
    ]:
        broken = copy.deepcopy(exported)
        change(broken)
        response = client.post("/api/tables/import", json=broken)
        assert (response.status_code, response.get_json()["error"]["code"]) == (422, code)
    assert count_tables(app) == before


def test_import_without_ids_numbers_them(client, make_table):
    table = make_table("morto", ["Léa", "Marc", "Zoé"])
    table.event("touched_early", player="p2")
    exported = client.get(f"/api/tables/{table.code}/export").get_json()
    for entry in exported["events"]:
        del entry["id"]
    exported["events"][0]["event"]["version"] = 99  # the web layer's fields are not the event's
    created = client.post("/api/tables/import", json=exported).get_json()
    log = client.get(f"/api/tables/{created['code']}/log").get_json()
    assert log["events"] == [{"id": "import-1", "event": {"type": "touched_early", "player": "p2"}}]


def test_import_counts_as_a_new_table_for_the_rate_limit(app, client, make_table):
    app.config["RATELIMIT_NEW_TABLE"] = "2/hour"
    table = make_table("morto", ["Léa", "Marc", "Zoé"])  # the first
    exported = client.get(f"/api/tables/{table.code}/export").get_json()
    assert client.post("/api/tables/import", json=exported).status_code == 201
    refused = client.post("/api/tables/import", json=exported)
    assert refused.status_code == 429 and refused.get_json()["error"]["code"] == "too_many_requests"
    assert client.post("/api/tables", json={"game": "morto", "players": ["A", "B", "C"]}).status_code == 429


def test_import_body_is_bounded(client):
    response = client.post(
        "/api/tables/import", data=b"{" + b" " * (64 * 1024) + b"}", content_type="application/json"
    )
    assert response.status_code == 413


def test_the_csv_export(client, make_table):
    table = finished_morto(make_table)
    response = client.get(f"/api/tables/{table.code}/export.csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"] == f'attachment; filename="arbitre-{table.code}.csv"'
    # French: what a French spreadsheet opens at a double click, a byte order mark then cells split on ";".
    body = response.get_data()
    assert body.startswith(b"\xef\xbb\xbf\xc3\x89tape;L\xc3\xa9a;Marc;Zo\xc3\xa9\r\n")
    rows = list(csv.reader(io.StringIO(body.decode("utf-8")[1:]), delimiter=";"))
    assert rows == [
        ["Étape", "Léa", "Marc", "Zoé"],
        ["Début", "2", "2", "2"],
        ["Tour 1", "2", "1", "2"],
        ["Tour 2", "2", "0", "1"],
        ["Tour 3", "2", "0", "0"],
    ]
    # English: "," and no mark, whether the request's language or the page's (?lang=) says so.
    english = client.get(f"/api/tables/{table.code}/export.csv", headers={"Accept-Language": "en"})
    assert english.get_data().startswith(b"Step,")
    assert english.get_data(as_text=True).splitlines()[:2] == ["Step,Léa,Marc,Zoé", "Start,2,2,2"]
    asked = client.get(f"/api/tables/{table.code}/export.csv?lang=en", headers={"Accept-Language": "fr"})
    assert asked.get_data() == english.get_data()
    # The page's link names its own language, so the file matches the page whatever the browser says.
    page = client.get(f"/t/{table.code}/results", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert f"/api/tables/{table.code}/export.csv?lang=en" in page
    french = client.get(f"/api/tables/{table.code}/export.csv?lang=fr", headers={"Accept-Language": "en"})
    assert french.get_data() == body


def test_the_csv_export_defuses_formulas_in_names(client, make_table):
    table = make_table(
        "existentiel", [{"name": "=SUM(A1)", "birth_month": 3}, {"name": "Bo", "birth_month": 4}]
    )
    table.event("add_player", name="@cmd", birth_month=2)  # joined later: empty cells before
    export = client.get(f"/api/tables/{table.code}/export.csv").get_data(as_text=True)
    rows = list(csv.reader(io.StringIO(export.removeprefix("\ufeff")), delimiter=";"))
    assert rows == [["Étape", "'=SUM(A1)", "Bo", "'@cmd"], ["Début", "0", "0", ""]]


def test_the_import_page(client):
    page = client.get("/import").get_data(as_text=True)
    assert 'type="file"' in page and "js/import.js" in page and "Importer une partie" in page
    assert "Import a game" in client.get("/import", headers={"Accept-Language": "en"}).get_data(as_text=True)


def test_how_many_events_an_import_may_carry():
    """docs/API.md quotes these: how many events a 64 KiB export holds, with UUID client ids and the
    compact JSON the server writes (about 600 bytes go to the setup and the summary)."""
    client_id = "0f8fc6a2-5b4e-4f7e-9d7a-2f3b6f1c9e11"

    def size(event: dict) -> int:
        return len(json.dumps({"id": client_id, "event": event}, separators=(",", ":")).encode()) + 1

    room = 64 * 1024 - 600
    assert room // size({"type": "touched_early", "player": "p12"}) == 690
    assert room // size({"type": "reveal", "cards": {f"p{i}": 10 for i in range(1, 21)}}) == 256
    assert room // size({"type": "fecundate", "player": "p2", "gm": "10S"}) == 649
