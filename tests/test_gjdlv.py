"""Le Grand Jeu de la Vie: the score sheet, card validation and the dispute checks (RULES.md §2).

The second half (below the ``# ===`` line) pins what the referee reads in a
dispute and on the sheet: the full answer of every check (the winner of a held-back ejaculation is
the lowest genetic gap, whoever sits first), each refusal's params and sentence, the GMs the newborn
picker offers, and the numbers and lines of the score sheet and of the end.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import core, gjdlv, gjdlv_cards, gjdlv_play
from engine.core import IllegalEvent, InvalidEvent, RuleError
from engine.messages import COMMON, refusal, sentences, text
from engine.messages import worded as worded_answer

GAME = "gjdlv"
NAMES = ["Caroline", "Solaar", "Yann", "Joey"]
ABONDANTES = {"rules": "abondantes"}

# The deck as the text describes it, written independently of the engine's tables.
NUMBER_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"]
FACE_RANKS = ["J", "Q", "K"]
RED_NUMBERS = [r + s for s in "HD" for r in NUMBER_RANKS]
BLACK_NUMBERS = [r + s for s in "SC" for r in NUMBER_RANKS]
RED_FACES = [r + s for s in "HD" for r in FACE_RANKS]
BLACK_FACES = [r + s for s in "SC" for r in FACE_RANKS]
ROYAL = {"K": 10, "Q": 0, "J": 5}  # Sang Royal, Petite Mère des peuples, Assassin Royal


def value(card: str) -> int:
    rank = card[:-1]
    return 1 if rank == "A" else int(rank)


def is_face(card: str) -> bool:
    return card[:-1] in FACE_RANKS


def expected_round_score(newborns: list[tuple[str, str]], abortions: int) -> int:
    """3·abortions + Σ(5 + EG) over non-CC number newborns + royal points + c·(6 − c)."""
    score = 3 * abortions
    cc = 0
    for gf, gm in newborns:
        if is_face(gf):
            score += ROYAL[gf[:-1]]
        elif value(gf) == value(gm):
            cc += 1
        else:
            score += 5 + abs(value(gm) - value(gf))
    return score + cc * (6 - cc)


# --- helpers ------------------------------------------------------------------------------------------


def table(events=(), players=NAMES[:3], options=None) -> dict:
    return core.replay(GAME, players, options or {}, list(events))


def nb(player: str, gf: str, gm: str) -> dict:
    return {"type": "newborn", "player": player, "gf": gf, "gm": gm}


def ab(player: str) -> dict:
    return {"type": "abortion", "player": player}


def steal(player: str, victim: str) -> dict:
    return {"type": "steal_newborn", "player": player, "from": victim}


CLOSE = {"type": "close_round"}
# A Queen's take, a CC, an abortion, a closed round, then a newborn in the next round.
HISTORY = [
    nb("p2", "3D", "3S"),
    nb("p1", "QH", "2S"),
    steal("p1", "p2"),
    ab("p3"),
    CLOSE,
    nb("p1", "4H", "9C"),
]


def seat(state: dict, pid: str) -> dict:
    return next(p for p in core.view(GAME, state)["players"] if p["id"] == pid)


def worded(code: str, params: dict) -> None:
    """The code has a French and an English sentence, and its params fill every placeholder."""
    pair = sentences(GAME).get(code) or COMMON.get(code)
    assert pair is not None, code
    assert len(pair) == 2
    for template in pair:
        assert template.strip()
        template.format(**params)  # a KeyError here is a placeholder with no param


def refused(state: dict, event: dict, code: str, kind=RuleError) -> RuleError:
    """The event is refused with ``code``, worded, and leaves the state exactly as it was."""
    before = copy.deepcopy(state)
    with pytest.raises(kind) as info:
        core.apply(GAME, state, event)
    assert info.value.code == code
    assert state == before
    # core.apply works on a copy; the handler itself must also check everything before mutating.
    in_place = copy.deepcopy(state)
    with pytest.raises(kind):
        core.apply_in_place(gjdlv, in_place, event)
    assert in_place == before
    worded(code, info.value.params)
    return info.value


def ask(name: str, state, params) -> dict:
    """A "qui a raison ?" check, asked the one way every client asks it."""
    return core.check(GAME, state, name, params)


def answer_ok(answer: dict) -> None:
    assert answer["code"].startswith("gjdlv.check.")
    worded(answer["code"], answer["params"])
    json.dumps(answer)


# --- setup and options --------------------------------------------------------------------------------


def test_defaults():
    view = core.view(GAME, table())
    assert (view["round"], view["rounds"], view["rules"]) == (1, 9, "simples")
    assert view["first_player"] == "p1"
    assert (view["over"], view["winners"], view["notes"]) == (False, [], [])
    assert [p["id"] for p in view["players"]] == ["p1", "p2", "p3"]
    assert [p["name"] for p in view["players"]] == NAMES[:3]
    assert view["used_cards"] == []


def test_options_are_read():
    options = {"rules": "abondantes", "rounds": 5, "first_player": 2}
    state = table(players=[{"name": n} for n in NAMES], options=options)
    view = core.view(GAME, state)
    assert (view["rules"], view["rounds"], view["first_player"]) == ("abondantes", 5, "p3")


@pytest.mark.parametrize("count", [2, 5, 6])
def test_outside_three_four_players_is_allowed_with_a_note(count):
    view = core.view(GAME, table(players=[f"J{i}" for i in range(count)]))
    assert view["notes"] == [{"code": "gjdlv.note_player_count", "params": {"count": count}}]
    worded(view["notes"][0]["code"], view["notes"][0]["params"])


@pytest.mark.parametrize("count", [3, 4])
def test_three_or_four_players_need_no_note(count):
    assert core.view(GAME, table(players=[f"J{i}" for i in range(count)]))["notes"] == []


@pytest.mark.parametrize("count", [0, 1, 7])
def test_player_count_outside_two_six_is_refused(count):
    with pytest.raises(InvalidEvent) as info:
        table(players=[f"J{i}" for i in range(count)])
    assert info.value.code == "player_count"
    worded("player_count", info.value.params)


@pytest.mark.parametrize(
    "options",
    [
        {"rules": "completes"},
        {"rounds": 7},
        {"rounds": 9.0},
        {"rounds": "9"},
        {"rounds": True},
        {"first_player": 3},
        {"first_player": -1},
        {"first_player": "p1"},
    ],
)
def test_bad_options_are_refused(options):
    with pytest.raises(InvalidEvent) as info:
        table(options=options)
    assert info.value.code == "bad_option"
    worded("bad_option", info.value.params)


def test_state_is_plain_json():
    state = table(HISTORY, options=ABONDANTES)
    assert json.loads(json.dumps(state)) == state
    view = core.view(GAME, state)
    assert json.loads(json.dumps(view)) == view


# --- the genetic gap and the nursery ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gf", "gm", "eg", "points"),
    [
        ("4H", "9C", 9 - 4, 5 + 5),  # text example A
        ("10D", "AC", 10 - 1, 5 + 9),  # text example B: 10♦/1♣
        ("9H", "4S", 9 - 4, 5 + 5),  # the gap is absolute, whichever card is higher
    ],
)
def test_number_newborn_is_five_plus_eg(gf, gm, eg, points):
    player = seat(table([nb("p1", gf, gm)]), "p1")
    row = {"gf": gf, "gm": gm, "eg": eg, "cc": False, "royal": None, "name": None, "points": points}
    assert player["newborns"] == [row]
    assert (player["nursery"], player["round_score"]) == (points, points)
    assert (player["cc"], player["cc_value"]) == (0, None)


def test_three_diamonds_three_spades_is_a_consanguin_complet():
    player = seat(table([nb("p1", "3D", "3S")]), "p1")  # text example C
    assert player["newborns"][0]["eg"] == 0
    assert player["newborns"][0]["cc"] is True
    assert (player["cc"], player["cc_value"], player["round_score"]) == (1, 5, 5)


CC_PAIRS = [(rank + "H", rank + "S") for rank in NUMBER_RANKS]


@pytest.mark.parametrize(
    ("count", "each"),
    [(1, 5), (2, 4), (3, 3)],  # the text: 1 CC = 5pts, 2 CC = 4 + 4, 3 CC = 3 + 3 + 3
)
def test_consanguinity_malus_from_the_text(count, each):
    player = seat(table([nb("p1", gf, gm) for gf, gm in CC_PAIRS[:count]]), "p1")
    assert [n["points"] for n in player["newborns"]] == [each] * count
    assert (player["cc"], player["cc_value"], player["round_score"]) == (count, each, each * count)


@pytest.mark.parametrize("count", [6, 7, 8])
def test_consanguinity_malus_goes_on_linearly_and_turns_negative(count):
    # RULES Decision: each CC is worth 6 − c, so from the 7th CC each is below zero.
    player = seat(table([nb("p1", gf, gm) for gf, gm in CC_PAIRS[:count]]), "p1")
    assert player["cc_value"] == 6 - count
    assert player["round_score"] == count * (6 - count)
    if count >= 7:
        assert player["round_score"] < 0


def test_the_malus_touches_only_the_cc_newborns():
    player = seat(table([nb("p1", "4H", "9C"), nb("p1", "2D", "2C"), nb("p1", "5D", "5C")]), "p1")
    assert [n["points"] for n in player["newborns"]] == [10, 4, 4]
    assert player["round_score"] == 18


def test_each_abortion_is_three_points_of_formol():
    player = seat(table([ab("p2"), ab("p2"), nb("p2", "4H", "9C")]), "p2")
    assert (player["abortions"], player["formol"], player["nursery"], player["round_score"]) == (2, 6, 10, 16)


@pytest.mark.parametrize(("gf", "points"), [("KH", 10), ("QD", 0), ("JH", 5)])
def test_royal_newborns_score_by_their_red_face(gf, points):
    player = seat(table([nb("p1", gf, "7S")], options=ABONDANTES), "p1")
    row = {
        "gf": gf,
        "gm": "7S",
        "eg": None,
        "cc": False,
        "royal": gf[:-1],
        "name": f"gjdlv.royal.{gf[:-1]}",
        "points": points,
    }
    assert player["newborns"] == [row]
    assert player["round_score"] == points


def test_royal_newborns_are_never_cc_even_face_on_face():
    state = table([nb("p1", "KH", "KS"), nb("p1", "JD", "JC"), nb("p1", "3D", "3S")], options=ABONDANTES)
    player = seat(state, "p1")
    assert [n["cc"] for n in player["newborns"]] == [False, False, True]
    # Only the number CC counts for the malus: alone, it is worth the full 5.
    assert (player["cc"], player["cc_value"], player["round_score"]) == (1, 5, 10 + 5 + 5)


def test_used_cards_list_every_card_of_the_open_round_in_deck_order():
    state = table([nb("p1", "4H", "9C"), nb("p2", "AD", "10S")])
    assert core.view(GAME, state)["used_cards"] == ["10S", "9C", "4H", "AD"]


# --- card validation ----------------------------------------------------------------------------------


def test_card_input_is_normalised():
    state = table([nb("p1", "4h", " 9c "), nb("p2", "1♦", "10♠"), nb("p3", "ah", "as")])
    sheet = [(n["gf"], n["gm"]) for p in core.view(GAME, state)["players"] for n in p["newborns"]]
    assert sheet == [("4H", "9C"), ("AD", "10S"), ("AH", "AS")]
    assert json.loads(json.dumps(state)) == state


@pytest.mark.parametrize("card", ["11H", "ZZ", "", "H", "4", "4X", "0H", "1O", "01H", "10", None, 4, ["4H"]])
def test_unknown_cards_are_invalid(card):
    state = table()
    error = refused(state, nb("p1", card, "9C"), "gjdlv.bad_card", InvalidEvent)
    assert error.params["field"] == "gf"
    refused(state, nb("p1", "4H", card), "gjdlv.bad_card", InvalidEvent)


def test_gf_must_be_red_and_gm_black():
    state = table()
    refused(state, nb("p1", "4S", "9C"), "gjdlv.gf_must_be_red", InvalidEvent)
    refused(state, nb("p1", "4H", "9D"), "gjdlv.gm_must_be_black", InvalidEvent)
    refused(state, nb("p1", "9C", "4H"), "gjdlv.gf_must_be_red", InvalidEvent)


@pytest.mark.parametrize(("gf", "gm"), [("KH", "4S"), ("QD", "KC"), ("4H", "JS")])
def test_faces_only_with_abondantes(gf, gm):
    refused(table(), nb("p1", gf, gm), "gjdlv.faces_need_abondantes", IllegalEvent)


@pytest.mark.parametrize("gm", ["JS", "QC", "KS"])
def test_an_imperial_gm_fecundates_only_a_royal_gf(gm):
    state = table(options=ABONDANTES)
    refused(state, nb("p1", "7H", gm), "gjdlv.imperial_needs_royal", IllegalEvent)
    row = seat(core.apply(GAME, state, nb("p1", "QH", gm)), "p1")["newborns"][0]
    assert (row["royal"], row["name"]) == ("Q", "gjdlv.royal.Q")


def test_a_card_exists_once_in_the_open_round():
    state = table([nb("p1", "4H", "9C")])
    error = refused(state, nb("p2", "4H", "2S"), "gjdlv.card_already_recorded", IllegalEvent)
    assert error.params == {"card": "4H", "field": "gf"}
    refused(state, nb("p2", "5H", "9C"), "gjdlv.card_already_recorded", IllegalEvent)
    refused(state, nb("p1", "4h", "9c"), "gjdlv.card_already_recorded", IllegalEvent)


def test_a_stolen_newborn_still_holds_its_cards():
    state = table([nb("p2", "4H", "9C"), nb("p1", "QH", "2S"), steal("p1", "p2")], options=ABONDANTES)
    refused(state, nb("p3", "4H", "3S"), "gjdlv.card_already_recorded", IllegalEvent)


def test_unknown_player_is_refused():
    state = table()
    refused(state, nb("p9", "4H", "9C"), "unknown_player", InvalidEvent)
    refused(state, ab("nobody"), "unknown_player", InvalidEvent)
    refused(state, {"type": "abortion"}, "unknown_player", InvalidEvent)
    refused(state, {"type": "pregnancy", "player": "p1"}, "unknown_event", InvalidEvent)


# --- the Queen's take ---------------------------------------------------------------------------------


def take_actions(state: dict) -> list[tuple[str, str]]:
    listed = core.view(GAME, state)["actions"]
    return [(a["player"], a["from"]) for a in listed if a["type"] == "steal_newborn"]


def test_queen_takes_the_most_recent_newborn_right_after_her_birth():
    state = table(
        [nb("p1", "4H", "9C"), nb("p1", "10D", "AC"), nb("p2", "QH", "5S")],
        options=ABONDANTES,
    )
    view = core.view(GAME, state)
    assert view["take"] == {"player": "p2"}
    assert take_actions(state) == [("p2", "p1")]  # p3 has no newborn: not a target
    assert {"code": "gjdlv.take", "params": {"player": "p2", "name": NAMES[1]}} in view["notes"]
    state = core.apply(GAME, state, steal("p2", "p1"))
    p1, p2 = seat(state, "p1"), seat(state, "p2")
    assert [(n["gf"], n["gm"]) for n in p1["newborns"]] == [("4H", "9C")]
    assert [(n["gf"], n["gm"]) for n in p2["newborns"]] == [("QH", "5S"), ("10D", "AC")]
    assert (p1["round_score"], p2["round_score"]) == (10, 0 + 14)
    assert core.view(GAME, state)["take"] is None and take_actions(state) == []
    refused(state, steal("p2", "p1"), "gjdlv.no_queen_take", IllegalEvent)


@pytest.mark.parametrize("between", [ab("p3"), nb("p3", "2H", "8C"), CLOSE])
def test_the_take_is_lost_when_anything_else_comes_first(between):
    state = table([nb("p1", "4H", "9C"), nb("p2", "QH", "5S"), between], options=ABONDANTES)
    assert core.view(GAME, state)["take"] is None and take_actions(state) == []
    refused(state, steal("p2", "p1"), "gjdlv.no_queen_take", IllegalEvent)


def test_a_take_never_reaches_a_newborn_born_after_the_queen():
    # p1's newborn comes after p2's Queen: the take has lapsed, so it cannot be taken.
    state = table([nb("p2", "QH", "5S"), nb("p1", "4H", "9C")], options=ABONDANTES)
    refused(state, steal("p2", "p1"), "gjdlv.no_queen_take", IllegalEvent)


def test_the_queen_takes_the_newborn_on_top_of_the_pile_even_one_itself_taken():
    # Issue 25 item 4 (RULES.md §2 Decision): the nursery is a pile. p2's Queen takes p3's newborn,
    # which lands on top of p2's nursery; p1's Queen then takes that one, not p2's own Queen.
    state = table(
        [
            nb("p3", "4H", "9C"),
            nb("p2", "3D", "3S"),
            nb("p2", "QH", "2S"),
            steal("p2", "p3"),
            nb("p1", "QD", "5S"),
        ],
        options=ABONDANTES,
    )
    assert take_actions(state) == [("p1", "p2")]  # p3 has nothing left
    state = core.apply(GAME, state, steal("p1", "p2"))
    newborns = {p: [(n["gf"], n["gm"]) for n in seat(state, p)["newborns"]] for p in ("p1", "p2", "p3")}
    assert newborns == {"p1": [("QD", "5S"), ("4H", "9C")], "p2": [("3D", "3S"), ("QH", "2S")], "p3": []}
    assert (seat(state, "p1")["round_score"], seat(state, "p2")["round_score"]) == (0 + 10, 5 + 0)


def test_two_queens_give_two_takes():
    state = table(
        [
            nb("p1", "4H", "9C"),
            nb("p3", "2H", "8C"),
            nb("p2", "QH", "5S"),
            steal("p2", "p1"),
            nb("p2", "QD", "6S"),
        ],
        options=ABONDANTES,
    )
    assert take_actions(state) == [("p2", "p3")]  # p1 has nothing left
    state = core.apply(GAME, state, steal("p2", "p3"))
    assert seat(state, "p2")["round_score"] == 10 + 11
    refused(state, steal("p2", "p1"), "gjdlv.no_queen_take", IllegalEvent)


def test_a_queen_with_no_opponent_newborn_grants_nothing():
    state = table([nb("p1", "QH", "2S")], options=ABONDANTES)
    view = core.view(GAME, state)
    assert take_actions(state) == []
    assert view["take"] is None  # nothing may be recorded (issue 25 item 5); the note says it is lost
    assert {"code": "gjdlv.take_nothing", "params": {"player": "p1", "name": NAMES[0]}} in view["notes"]


def test_a_steal_recounts_the_cc_malus_of_both_players():
    state = table(
        [nb("p1", "2H", "2S"), nb("p1", "3H", "3S"), nb("p2", "4H", "4S"), nb("p2", "QD", "9C")],
        options=ABONDANTES,
    )
    assert (seat(state, "p1")["round_score"], seat(state, "p2")["round_score"]) == (4 + 4, 5 + 0)
    # p2's Queen takes p1's most recent newborn, a CC: p1 is left with 1 CC, p2 now has 2.
    state = core.apply(GAME, state, steal("p2", "p1"))
    p1, p2 = seat(state, "p1"), seat(state, "p2")
    assert (p1["cc"], p1["cc_value"], p1["cc_malus"], p1["round_score"]) == (1, 5, 0, 5)
    assert (p2["cc"], p2["cc_value"], p2["cc_malus"], p2["round_score"]) == (2, 4, -1, 4 + 4 + 0)


def test_the_take_belongs_to_the_queen_just_born():
    # p1's Queen finds nothing to take; p2's Queen, born next, takes p1's Queen itself.
    state = table([nb("p1", "QH", "2S"), nb("p2", "QD", "3S")], options=ABONDANTES)
    assert take_actions(state) == [("p2", "p1")]
    refused(state, steal("p1", "p2"), "gjdlv.no_queen_take", IllegalEvent)
    state = core.apply(GAME, state, steal("p2", "p1"))
    assert [n["gf"] for n in seat(state, "p1")["newborns"]] == []
    assert [n["gf"] for n in seat(state, "p2")["newborns"]] == ["QD", "QH"]


def test_steal_refusals():
    state = table([nb("p2", "4H", "9C"), nb("p1", "QH", "2S")], options=ABONDANTES)
    refused(state, steal("p1", "p1"), "gjdlv.steal_from_self", IllegalEvent)
    refused(state, steal("p1", "p3"), "gjdlv.nothing_to_steal", IllegalEvent)
    refused(state, steal("p2", "p1"), "gjdlv.no_queen_take", IllegalEvent)
    refused(state, steal("p1", "p7"), "unknown_player", InvalidEvent)
    refused(state, {"type": "steal_newborn", "player": "p1"}, "unknown_player", InvalidEvent)


def test_a_queen_take_does_not_outlive_its_round():
    events = [nb("p2", "4H", "9C"), nb("p1", "QH", "2S"), CLOSE, nb("p2", "5H", "9C")]
    state = table(events, options=ABONDANTES)
    refused(state, steal("p1", "p2"), "gjdlv.no_queen_take", IllegalEvent)


def test_no_queen_at_all_in_simples():
    state = table([nb("p2", "4H", "9C")])
    refused(state, steal("p1", "p2"), "gjdlv.no_queen_take", IllegalEvent)


# --- rounds, totals, the end --------------------------------------------------------------------------


def test_close_round_banks_the_scores_and_opens_a_clean_sheet():
    state = table([nb("p1", "4H", "9C"), ab("p2"), nb("p3", "3D", "3S")])
    live = [p["round_score"] for p in core.view(GAME, state)["players"]]
    state = core.apply(GAME, state, CLOSE)
    view = core.view(GAME, state)
    assert view["round"] == 2
    assert [p["round_scores"] for p in view["players"]] == [[s] for s in live] == [[10], [3], [5]]
    assert [p["total"] for p in view["players"]] == [10, 3, 5]
    assert [p["round_score"] for p in view["players"]] == [0, 0, 0]
    assert all(p["newborns"] == [] and p["abortions"] == 0 for p in view["players"])
    assert view["used_cards"] == []
    # Every card is back in the deck for the new round.
    state = core.apply(GAME, state, nb("p2", "4H", "9C"))
    state = core.apply(GAME, state, CLOSE)
    assert [p["total"] for p in core.view(GAME, state)["players"]] == [10, 13, 5]
    assert [p["round_scores"] for p in core.view(GAME, state)["players"]] == [[10, 0], [3, 10], [5, 0]]


def test_first_player_moves_one_seat_left_each_round_and_wraps():
    state = table(players=NAMES, options={"first_player": 2})
    seen = []
    for _ in range(6):
        seen.append(core.view(GAME, state)["first_player"])
        state = core.apply(GAME, state, CLOSE)
    assert seen == ["p3", "p4", "p1", "p2", "p3", "p4"]


@pytest.mark.parametrize("rounds", [5, 9])
def test_the_game_ends_after_its_rounds(rounds):
    state = table(options={"rounds": rounds})
    for n in range(1, rounds + 1):
        assert core.view(GAME, state)["round"] == n
        assert core.game(GAME).outcome(state) is None
        state = core.apply(GAME, state, nb("p2", "4H", "9C"))
        state = core.apply(GAME, state, CLOSE)
    view = core.view(GAME, state)
    assert view["over"] is True
    assert view["round"] == rounds
    assert [p["total"] for p in view["players"]] == [0, 10 * rounds, 0]
    assert view["winners"] == ["p2"]
    result = gjdlv.outcome(state)
    assert result.winners == ("p2",)
    assert result.reason == "gjdlv.highest_total"
    worded(result.reason, result.params)


def test_equal_totals_share_the_win():
    events = []
    for _ in range(5):
        events += [nb("p1", "4H", "9C"), nb("p3", "10D", "5S"), ab("p2"), CLOSE]
    state = table(events, options={"rounds": 5})
    view = core.view(GAME, state)
    assert [p["total"] for p in view["players"]] == [50, 15, 50]
    assert view["winners"] == ["p1", "p3"]
    result = gjdlv.outcome(state)
    assert result.reason == "gjdlv.shared_total"
    worded(result.reason, result.params)


def test_every_event_is_refused_once_the_game_is_over():
    state = table([CLOSE] * 5, options={"rounds": 5, "rules": "abondantes"})
    for event in (nb("p1", "4H", "9C"), ab("p1"), steal("p1", "p2"), CLOSE):
        refused(state, event, "game_over", IllegalEvent)
    # Undo still works and reopens the last round.
    back = core.undo(GAME, NAMES[:3], {"rounds": 5, "rules": "abondantes"}, [CLOSE] * 5)
    assert core.view(GAME, back)["over"] is False
    assert core.view(GAME, back)["round"] == 5


def test_replay_is_deterministic_and_undo_gives_the_prefix():
    events = HISTORY
    for n in range(len(events) + 1):
        prefix = table(events[:n], options=ABONDANTES)
        assert prefix == table(events[:n], options=ABONDANTES)
        if n:
            undone = core.undo(GAME, NAMES[:3], ABONDANTES, events[:n])
            assert undone == table(events[: n - 1], options=ABONDANTES)


# --- checks: fecundation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gf", "gm", "ok", "eg"),
    [
        ("6H", "4C", True, 2),  # Yann Barthès's 4♣ on a 6♥
        ("3D", "3S", True, 0),
        ("QH", "2S", True, None),  # a Royal Ovum takes any GM...
        ("QH", "KS", True, None),  # ...an imperial one too
        ("6H", "KS", False, None),  # an imperial GM only on a Royal Ovum
    ],
)
def test_check_fecundate(gf, gm, ok, eg):
    answer = ask("fecundate", table(options=ABONDANTES), {"gf": gf, "gm": gm})
    assert (answer["ok"], answer["eg"]) == (ok, eg)
    assert answer["cc"] is (eg == 0)
    answer_ok(answer)


def test_check_fecundate_cc_is_allowed_and_said():
    answer = ask("fecundate", None, {"gf": "3D", "gm": "3S"})
    assert answer["code"] == "gjdlv.check.fecundate_cc"


def test_checks_validate_their_input_like_events():
    simples = table()
    with pytest.raises(InvalidEvent) as info:
        ask("fecundate", simples, {"gf": "4S", "gm": "9C"})
    assert info.value.code == "gjdlv.gf_must_be_red"
    with pytest.raises(InvalidEvent) as info:
        ask("fecundate", simples, {"gf": "4H", "gm": "9Z"})
    assert info.value.code == "gjdlv.bad_card"
    with pytest.raises(IllegalEvent) as info:
        ask("fecundate", simples, {"gf": "QH", "gm": "9C"})
    assert info.value.code == "gjdlv.faces_need_abondantes"
    with pytest.raises(InvalidEvent) as info:
        ask("abortion", simples, ["4S", "4C"])
    assert info.value.code == "bad_check_params"
    with pytest.raises(InvalidEvent) as info:
        core.check(GAME, simples, "horoscope", {})
    assert info.value.code == "unknown_check"
    worded("unknown_check", info.value.params)


def test_checks_never_change_the_table():
    state = table([nb("p1", "4H", "9C")], options=ABONDANTES)
    before = copy.deepcopy(state)
    for name, params in [
        ("fecundate", {"gf": "5H", "gm": "8S"}),
        ("surrogate", {"gf": "2H", "gm": "5S", "new_gm": "4C"}),
        ("abortion", {"gm": "4S", "answer": "4C"}),
        ("ejaculation", {"gf": "6H", "gms": {"p1": "4S", "p2": "8C"}}),
        ("bonus", {"card": "KS", "against": "abortion"}),
    ]:
        answer_ok(core.check(GAME, state, name, params))
    assert state == before
    assert set(gjdlv.CHECKS) == {"fecundate", "surrogate", "abortion", "ejaculation", "bonus", "fecundations"}


# --- checks: surrogacy --------------------------------------------------------------------------------


@pytest.mark.parametrize("new_gm", ["4C", "3S", "3C", "2S", "2C", "AS", "AC"])
def test_embryo_two_hearts_five_spades_is_taken_by_four_three_two_or_one(new_gm):
    answer = ask("surrogate", table(), {"gf": "2H", "gm": "5S", "new_gm": new_gm})
    assert answer["ok"] is True
    assert answer["params"]["eg_before"] == 5 - 2
    assert answer["params"]["eg_after"] == abs(value(new_gm) - 2)
    assert answer["params"]["eg_after"] < answer["params"]["eg_before"]
    assert answer["closer"] == [1, 2, 3, 4]
    assert answer["mouchoir"] == ["5S"]
    assert answer["embryo"] == {"gf": "2H", "gm": new_gm}
    assert answer["cc"] is (new_gm[0] == "2")  # "mais attention, il sera consanguin"
    answer_ok(answer)


@pytest.mark.parametrize("new_gm", ["5C", "6S", "7C", "8S", "9C", "10S", "10C"])
def test_embryo_two_hearts_five_spades_is_not_taken_by_five_to_ten(new_gm):
    answer = ask("surrogate", table(), {"gf": "2H", "gm": "5S", "new_gm": new_gm})
    assert answer["ok"] is False
    assert answer["code"] == "gjdlv.check.surrogate_not_closer"
    assert answer["params"]["eg_after"] >= answer["params"]["eg_before"] == 3
    answer_ok(answer)


def test_surrogacy_with_the_embryos_own_gm_is_no_surrogacy():
    answer = ask("surrogate", table(), {"gf": "2H", "gm": "5S", "new_gm": "5s"})
    assert (answer["ok"], answer["code"]) == (False, "gjdlv.check.surrogate_same_card")
    answer_ok(answer)


def test_royal_embryos_are_surrogated_by_any_imperial_never_a_number():
    state = table(options=ABONDANTES)
    # Socrate cannot take Sarkozy's D♥ with his 5♠, but can with his R♠...
    no = ask("surrogate", state, {"gf": "QH", "gm": "9C", "new_gm": "5S"})
    assert (no["ok"], no["code"]) == (False, "gjdlv.check.surrogate_royal_needs_imperial")
    yes = ask("surrogate", state, {"gf": "QH", "gm": "9C", "new_gm": "KS"})
    assert (yes["ok"], yes["embryo"], yes["mouchoir"]) == (True, {"gf": "QH", "gm": "KS"}, ["9C"])
    # ...then Bozo le Clown takes it from Socrate with a D♠; no hierarchy, a Jack may take a King's.
    assert ask("surrogate", state, {"gf": "QH", "gm": "KS", "new_gm": "QS"})["ok"] is True
    assert ask("surrogate", state, {"gf": "KD", "gm": "KC", "new_gm": "JS"})["ok"] is True
    for answer in (no, yes):
        answer_ok(answer)


def test_an_imperial_cannot_surrogate_a_number_embryo():
    answer = ask("surrogate", table(options=ABONDANTES), {"gf": "2H", "gm": "5S", "new_gm": "KC"})
    assert (answer["ok"], answer["code"]) == (False, "gjdlv.check.surrogate_imperial_on_number")
    answer_ok(answer)


def test_surrogacy_of_an_impossible_embryo_is_refused():
    with pytest.raises(IllegalEvent) as info:
        ask("surrogate", table(options=ABONDANTES), {"gf": "2H", "gm": "KS", "new_gm": "AC"})
    assert info.value.code == "gjdlv.imperial_needs_royal"


# --- checks: abortion ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gm", "answer", "ok", "code"),
    [
        ("4S", "4C", True, "gjdlv.check.abortion_ok"),  # Joey Starr's 4♠ against Yann's 4♣, and back
        ("4C", "4S", True, "gjdlv.check.abortion_ok"),
        ("2S", "2C", True, "gjdlv.check.abortion_ok"),  # DSK's 2♠ on a Royal Ovum
        ("KS", "KC", True, "gjdlv.check.abortion_ok"),  # "Roi avorte Roi"
        ("4S", "4S", False, "gjdlv.check.abortion_same_card"),
        ("4S", "5S", False, "gjdlv.check.abortion_other_rank"),
        ("KS", "QS", False, "gjdlv.check.abortion_other_rank"),
    ],
)
def test_check_abortion(gm, answer, ok, code):
    result = ask("abortion", table(options=ABONDANTES), {"gm": gm, "answer": answer})
    assert (result["ok"], result["code"]) == (ok, code)
    if ok:
        assert result["formol_points"] == 3
        assert sorted(result["formol"]) == sorted(["gf", gm, answer])
    answer_ok(result)


def test_abortion_answer_must_be_black():
    with pytest.raises(InvalidEvent) as info:
        ask("abortion", table(), {"gm": "4S", "answer": "4H"})
    assert info.value.code == "gjdlv.gm_must_be_black"
    with pytest.raises(IllegalEvent) as info:
        ask("abortion", table(), {"gm": "KS", "answer": "KC"})
    assert info.value.code == "gjdlv.faces_need_abondantes"


# --- checks: held-back ejaculation --------------------------------------------------------------------


def ejaculate(gf: str, gms: dict, state=None) -> dict:
    answer = ask("ejaculation", state, {"gf": gf, "gms": gms})
    answer_ok(answer)
    return answer


def test_ejaculation_lowest_eg_wins():
    answer = ejaculate("6H", {"p1": "5S", "p2": "9C", "p3": "AC"})  # EG 1, 3, 5
    assert (answer["ok"], answer["winner"], answer["code"]) == (True, "p1", "gjdlv.check.ejaculation_lowest")
    assert answer["embryo"] == {"gf": "6H", "gm": "5S"}
    assert answer["egs"] == {"p1": 1, "p2": 3, "p3": 5}
    assert (answer["tied"], answer["beaten"]) == ([], ["p2", "p3"])
    assert sorted(answer["mouchoir"]) == ["9C", "AC"]
    assert answer["diva_cup"] is False


def test_ejaculation_is_won_by_the_lowest_gap_not_the_first_seat():
    answer = ejaculate("6H", {"p1": "9C", "p2": "AC", "p3": "5S"})  # EG 3, 5, 1: the last seat wins
    assert (answer["winner"], answer["embryo"]) == ("p3", {"gf": "6H", "gm": "5S"})
    assert answer["beaten"] == ["p1", "p2"]


def test_ejaculation_ties_are_discarded_before_the_lowest_wins():
    # 4♠ and 8♣ both make EG 2 on the 6♥: both go to the Mouchoir; 9♠ (EG 3) is left and wins.
    answer = ejaculate("6H", {"p1": "4S", "p2": "8C", "p3": "9S"})
    assert (answer["winner"], answer["tied"], answer["params"]["eg"]) == ("p3", ["p1", "p2"], 3)
    assert sorted(answer["mouchoir"]) == ["4S", "8C"]


def test_ejaculation_with_every_eg_shared_goes_to_the_diva_cup():
    answer = ejaculate("6H", {"p1": "4S", "p2": "8C", "p3": "3C", "p4": "9S"})
    assert (answer["ok"], answer["winner"], answer["embryo"]) == (False, None, None)
    assert answer["code"] == "gjdlv.check.ejaculation_all_tied"
    assert answer["tied"] == ["p1", "p2", "p3", "p4"]
    assert answer["diva_cup"] is True
    assert sorted(answer["mouchoir"]) == ["3C", "4S", "8C", "9S"]


def test_a_single_ejaculation_wins_whatever_its_eg():
    answer = ejaculate("6H", {"p2": "6S"})
    assert (answer["ok"], answer["winner"], answer["code"]) == (True, "p2", "gjdlv.check.ejaculation_single")
    assert answer["params"]["eg"] == 0
    assert answer["mouchoir"] == []


def test_no_ejaculation_means_menstruation():
    answer = ejaculate("6H", {})
    assert (answer["ok"], answer["code"], answer["diva_cup"]) == (False, "gjdlv.check.ejaculation_none", True)


def test_ejaculation_on_a_royal_ovum():
    single = ejaculate("KD", {"p1": "QS"}, table(options=ABONDANTES))
    assert (single["ok"], single["winner"]) == (True, "p1")
    # RULES Decision: no EG on a Royal Ovum, so two or more ejaculations all tie and are discarded.
    many = ejaculate("KD", {"p1": "QS", "p2": "3C"}, table(options=ABONDANTES))
    assert (many["ok"], many["code"], many["diva_cup"]) == (False, "gjdlv.check.ejaculation_royal_tied", True)
    assert many["tied"] == ["p1", "p2"]


def test_ejaculation_input_is_checked():
    with pytest.raises(InvalidEvent) as info:
        ask("ejaculation", None, {"gf": "6H", "gms": {"p1": "4S", "p2": "4s"}})
    assert info.value.code == "gjdlv.duplicate_card"
    with pytest.raises(InvalidEvent) as info:
        ask("ejaculation", None, {"gf": "6H", "gms": ["4S"]})
    assert info.value.code == "gjdlv.bad_gms"
    with pytest.raises(IllegalEvent) as info:
        ask("ejaculation", None, {"gf": "6H", "gms": {"p1": "KS"}})
    assert info.value.code == "gjdlv.imperial_needs_royal"
    with pytest.raises(InvalidEvent) as info:
        ask("ejaculation", None, {"gf": "6H", "gms": {"p1": "4D"}})
    assert info.value.code == "gjdlv.gm_must_be_black"


# --- checks: imperial bonuses -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "against", "ok", "points"),
    [
        ("KS", "abortion", True, 0),  # Manif pour Tous
        ("KC", "surrogacy", False, None),
        ("KS", "fecundation", False, None),
        ("QC", "surrogacy", True, 0),  # Amour Maternel
        ("QS", "abortion", False, None),
        ("QC", "fecundation", False, None),
        ("JS", "fecundation", True, 3),  # Guilde du Cintre
        ("JC", "surrogacy", True, 3),  # a surrogacy is a fecundation
        ("JS", "abortion", False, None),
        ("7S", "abortion", False, None),  # a number card has no power
    ],
)
def test_check_bonus(card, against, ok, points):
    answer = ask("bonus", table(options=ABONDANTES), {"card": card, "against": against})
    assert answer["ok"] is ok
    if ok:
        assert answer["formol_points"] == points
        assert card in answer["mouchoir"] + answer["formol"]
    answer_ok(answer)


def test_bonus_destinations():
    state = table(options=ABONDANTES)
    king = ask("bonus", state, {"card": "KS", "against": "abortion"})
    assert (king["mouchoir"], king["embryo"]) == (["aborting_gm", "KS"], "stays")
    queen = ask("bonus", state, {"card": "QC", "against": "surrogacy"})
    assert (queen["mouchoir"], queen["embryo"]) == (["surrogating_gm", "QC"], "stays_with_owner")
    jack = ask("bonus", state, {"card": "JS", "against": "fecundation"})
    assert (jack["formol"], jack["embryo"]) == (["gf", "gm", "JS"], "aborted")


def test_bonus_input_is_checked():
    with pytest.raises(InvalidEvent) as info:
        ask("bonus", None, {"card": "KS", "against": "menstruation"})
    assert info.value.code == "gjdlv.bad_against"
    worded("gjdlv.bad_against", info.value.params)
    with pytest.raises(InvalidEvent) as info:
        ask("bonus", None, {"card": "KH", "against": "abortion"})
    assert info.value.code == "gjdlv.gm_must_be_black"
    with pytest.raises(IllegalEvent) as info:
        ask("bonus", table(), {"card": "KS", "against": "abortion"})
    assert info.value.code == "gjdlv.faces_need_abondantes"


# --- messages -----------------------------------------------------------------------------------------


def test_every_message_is_worded_in_both_languages():
    for code, pair in sentences(GAME).items():
        assert code.startswith("gjdlv.")
        assert code not in COMMON
        assert len(pair) == 2 and all(isinstance(t, str) and t.strip() for t in pair)
        assert pair[0] != pair[1]


def test_every_code_in_the_module_is_worded():
    # The code of the game's modules (their sentences are in its catalogue): what they raise, return and note.
    modules = (gjdlv, gjdlv_play, gjdlv_cards)
    code = "\n".join(Path(module.__file__).read_text(encoding="utf-8") for module in modules)
    used = set(re.findall(r"\"(gjdlv\.[A-Za-z_.]+)\"", code))
    # Codes built from a family (the phase the table expects, where a card already is): every member.
    families = {
        "gjdlv.play.expect.": gjdlv_play.PHASES,
        "gjdlv.play.seen.": ("mouchoir", "diva_cup", "revealed", "uterus", "nursery", "formol", "contest"),
    }
    assert set(re.findall(r"f\"(gjdlv\.[a-z_.]+\.)\{", code)) == set(families)
    used |= {prefix + member for prefix, members in families.items() for member in members}
    used |= {f"{code}.{form}" for code in used for form in ("one", "other")} & set(sentences(GAME))
    assert {code for code in used if not code.endswith((".one", ".other"))} <= set(sentences(GAME)) | {
        code.rsplit(".", 1)[0]
        for code in sentences(GAME)  # a sentence in plural forms
    }
    # No dead message: each is named by the engine or by the game's pages (a sentence they show).
    games = Path(gjdlv.__file__).parent.parent / "static" / "js" / "games"
    page = "\n".join(path.read_text("utf-8") for path in sorted(games.glob("gjdlv*.js")))
    shown = set(re.findall(r"[\"'`](gjdlv\.[A-Za-z_.]+)[\"'`]", page))
    assert set(sentences(GAME)) <= used | shown
    raised = set(re.findall(r'(?:InvalidEvent|IllegalEvent)\(\s*"([a-z_.]+)"', code))
    assert raised and raised <= set(sentences(GAME)) | set(COMMON)


# --- properties ---------------------------------------------------------------------------------------

ALL_RED = RED_NUMBERS + RED_FACES
ALL_BLACK = BLACK_NUMBERS + BLACK_FACES


def legal(gf: str, gm: str) -> bool:
    return is_face(gf) or not is_face(gm)


@st.composite
def sheets(draw, players=3, abondantes=True, max_newborns=26):
    """A round's sheet: distinct legal (owner, gf, gm) newborns and abortions per player."""
    reds = draw(st.permutations(ALL_RED if abondantes else RED_NUMBERS))
    blacks = draw(st.permutations(ALL_BLACK if abondantes else BLACK_NUMBERS))
    pairs = [(gf, gm) for gf, gm in zip(reds, blacks, strict=True) if legal(gf, gm)]
    pairs = pairs[: draw(st.integers(0, min(max_newborns, len(pairs))))]
    ids = [f"p{i + 1}" for i in range(players)]
    owners = draw(st.lists(st.sampled_from(ids), min_size=len(pairs), max_size=len(pairs)))
    abortions = draw(st.lists(st.integers(0, 4), min_size=players, max_size=players))
    return [(o, gf, gm) for o, (gf, gm) in zip(owners, pairs, strict=True)], abortions


def sheet_events(sheet) -> list[dict]:
    newborns, abortions = sheet
    events = [nb(o, gf, gm) for o, gf, gm in newborns]
    for i, count in enumerate(abortions):
        events += [ab(f"p{i + 1}")] * count
    return events


PROPERTY = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(sheets())
def test_round_score_is_formol_plus_nursery_with_the_malus(sheet):
    state = table(sheet_events(sheet), options=ABONDANTES)
    newborns, abortions = sheet
    for i, player in enumerate(core.view(GAME, state)["players"]):
        mine = [(gf, gm) for o, gf, gm in newborns if o == player["id"]]
        assert player["round_score"] == expected_round_score(mine, abortions[i])
        assert player["round_score"] == player["formol"] + player["nursery"]
        assert player["nursery"] == sum(n["points"] for n in player["newborns"])
        assert player["formol"] == 3 * abortions[i]


@PROPERTY
@given(sheets(), st.data())
def test_adding_a_non_cc_newborn_never_lowers_a_round_score(sheet, data):
    newborns, _ = sheet
    used = {card for _, gf, gm in newborns for card in (gf, gm)}
    extra = [
        (gf, gm)
        for gf in ALL_RED
        for gm in ALL_BLACK
        if gf not in used and gm not in used and legal(gf, gm) and (is_face(gf) or value(gf) != value(gm))
    ]
    if not extra:
        return  # every card is on the sheet already
    gf, gm = data.draw(st.sampled_from(extra))
    owner = data.draw(st.sampled_from(["p1", "p2", "p3"]))
    before = table(sheet_events(sheet), options=ABONDANTES)
    after = core.apply(GAME, before, nb(owner, gf, gm))
    assert seat(after, owner)["round_score"] >= seat(before, owner)["round_score"]
    for other in {"p1", "p2", "p3"} - {owner}:
        assert seat(after, other)["round_score"] == seat(before, other)["round_score"]


@PROPERTY
@given(sheets(), st.randoms(use_true_random=False))
def test_the_recording_order_does_not_change_the_scores(sheet, rng):
    events = sheet_events(sheet)
    shuffled = list(events)
    rng.shuffle(shuffled)
    scores = [p["round_score"] for p in core.view(GAME, table(events, options=ABONDANTES))["players"]]
    again = [p["round_score"] for p in core.view(GAME, table(shuffled, options=ABONDANTES))["players"]]
    assert scores == again


@PROPERTY
@given(st.lists(sheets(abondantes=False), min_size=1, max_size=5))
def test_the_total_is_the_sum_of_the_closed_rounds(rounds):
    state = table(options={"rounds": 5})
    banked = {"p1": [], "p2": [], "p3": []}
    for sheet in rounds:
        for event in sheet_events(sheet):
            state = core.apply(GAME, state, event)
        for player in core.view(GAME, state)["players"]:
            banked[player["id"]].append(player["round_score"])
        state = core.apply(GAME, state, CLOSE)
    view = core.view(GAME, state)
    for player in view["players"]:
        assert player["round_scores"] == banked[player["id"]]
        assert player["total"] == sum(banked[player["id"]])
    assert view["over"] is (len(rounds) == 5)
    if view["over"]:
        best = max(p["total"] for p in view["players"])
        assert view["winners"] == [p["id"] for p in view["players"] if p["total"] == best]


CARDISH = st.one_of(st.sampled_from(ALL_RED + ALL_BLACK), st.text(max_size=4), st.none(), st.integers(-2, 12))
PLAYERISH = st.sampled_from(["p1", "p2", "p3", "p4", None])
EVENTS = st.one_of(
    st.builds(nb, PLAYERISH, CARDISH, CARDISH),
    st.builds(ab, PLAYERISH),
    st.builds(steal, PLAYERISH, PLAYERISH),
    st.just(CLOSE),
)


@PROPERTY
@given(st.sampled_from(["simples", "abondantes"]), st.lists(EVENTS, max_size=40))
def test_a_refused_event_changes_nothing_and_the_state_stays_json(rules, events):
    state = table(options={"rules": rules, "rounds": 5})
    for event in events:
        before = copy.deepcopy(state)
        try:
            core.apply_in_place(gjdlv, state, event)
        except RuleError as error:
            assert state == before
            worded(error.code, error.params)
    assert json.loads(json.dumps(state)) == state
    view = core.view(GAME, state)
    for player in view["players"]:
        assert player["round_score"] == player["formol"] + player["nursery"]
    assert len(view["used_cards"]) == len(set(view["used_cards"]))


# === what the referee reads: the checks' full answers, refusals' words, the sheet's lines =========


def gametes(suits: str, ranks: list[str]) -> list[str]:
    return [rank + suit for suit in suits for rank in ranks]


def ask_unchanged(name: str, state, params: dict) -> dict:
    before = copy.deepcopy(state)
    answer = core.check(GAME, state, name, params)
    assert state == before
    return answer


def said(answer: dict) -> str:
    """The English sentence the referee reads for a check's answer."""
    return worded_answer(answer, "en")["message"]


def error_of(state, event: dict) -> RuleError:
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as caught:
        core.apply(GAME, state, event)
    assert state == before
    return caught.value


def asked_refused(name: str, state, params: dict) -> RuleError:
    with pytest.raises(RuleError) as caught:
        core.check(GAME, state, name, params)
    return caught.value


def says(error: RuleError, code: str, params: dict, english: str) -> None:
    assert (error.code, error.params) == (code, params)
    assert refusal(error.code, error.params, "en")["message"] == english


# --- the held-back ejaculation contest ----------------------------------------------------------------


def test_the_lowest_genetic_gap_wins_whoever_sits_first():
    # On the 6♥: 10♠ makes EG 4, 9♣ EG 3, 4♠ EG 2. The third player wins, not the first.
    answer = ask_unchanged("ejaculation", None, {"gf": "6H", "gms": {"p1": "10S", "p2": "9C", "p3": "4S"}})
    assert answer == {
        "ok": True,
        "code": "gjdlv.check.ejaculation_lowest",
        "params": {"gf": "6H", "count": 3, "winner": "p3", "gm": "4S", "eg": 2},
        "winner": "p3",
        "embryo": {"gf": "6H", "gm": "4S"},
        "egs": {"p1": 4, "p2": 3, "p3": 2},
        "tied": [],
        "beaten": ["p1", "p2"],
        "mouchoir": ["10S", "9C"],
        "diva_cup": False,
    }
    assert said(answer) == (
        "p3 wins 6H with 4S, the lowest genetic gap left (2); "
        "the tied gaps and the beaten go to the Mouchoir."
    )


def test_the_lowest_gap_left_wins_after_the_ties_whatever_the_player_ids():
    answer = ask_unchanged(
        "ejaculation", None, {"gf": "5D", "gms": {"b": "AC", "a": "9S", "c": "7C", "d": "3S"}}
    )
    # EG: b 4, a 4 (tied, out), c 2 and d 2 (tied, out): nobody is left.
    assert (answer["winner"], answer["tied"], answer["code"]) == (
        None,
        ["a", "b", "c", "d"],
        "gjdlv.check.ejaculation_all_tied",
    )
    answer = ask_unchanged("ejaculation", None, {"gf": "5D", "gms": {"b": "AC", "a": "10S", "c": "7C"}})
    assert (answer["winner"], answer["params"]["gm"], answer["beaten"]) == ("c", "7C", ["a", "b"])


def test_the_mouchoir_is_listed_in_deck_order():
    answer = ask_unchanged(
        "ejaculation", None, {"gf": "6H", "gms": {"p1": "2S", "p2": "10S", "p3": "7C", "p4": "2C"}}
    )
    # 2♠ and 10♠ tie at EG 4; 7♣ (EG 1) beats 2♣ (EG 4 too: three-way tie) -> 7♣ wins.
    assert answer["winner"] == "p3"
    assert answer["mouchoir"] == ["2S", "10S", "2C"]


def test_a_single_ejaculation_names_its_gamete():
    answer = ask_unchanged("ejaculation", None, {"gf": "6H", "gms": {"p2": "9C"}})
    assert answer["params"] == {"gf": "6H", "count": 1, "winner": "p2", "gm": "9C", "eg": 3}
    assert said(answer) == (
        "A single ejaculation on 6H: p2 fecundates with 9C and puts the embryo in their uterus."
    )


@pytest.mark.parametrize("key", ["x", "p" * 40])
def test_any_player_key_of_1_to_40_characters_may_ejaculate(key):
    assert ask_unchanged("ejaculation", None, {"gf": "6H", "gms": {key: "9C"}})["winner"] == key


@pytest.mark.parametrize("key", ["", "p" * 41])
def test_a_player_key_outside_1_to_40_characters_is_refused(key):
    error = asked_refused("ejaculation", None, {"gf": "6H", "gms": {key: "9C"}})
    assert (error.code, error.params) == ("gjdlv.bad_gms", {})


def test_ejaculation_refusals_name_the_card_and_its_field():
    error = asked_refused("ejaculation", None, {"gf": "6H", "gms": {"p1": "4S", "p2": "4s"}})
    says(
        error,
        "gjdlv.duplicate_card",
        {"card": "4S"},
        "The card 4S is given twice: each card exists once in the deck.",
    )
    error = asked_refused("ejaculation", None, {"gf": "6H", "gms": {"p2": "4D"}})
    assert (error.code, error.params) == ("gjdlv.gm_must_be_black", {"card": "4D", "field": "gms.p2"})
    error = asked_refused("ejaculation", None, {"gf": "6H", "gms": {"p2": "ZZ"}})
    assert (error.code, error.params) == ("gjdlv.bad_card", {"field": "gms.p2", "value": "ZZ"})


# --- the other checks' answers ----------------------------------------------------------------------


@pytest.mark.parametrize("state", [None, {}])
def test_a_check_with_no_table_knows_every_card(state):
    answer = ask_unchanged("fecundate", state, {"gf": "KH", "gm": "4S"})
    assert answer == {
        "ok": True,
        "code": "gjdlv.check.fecundate_royal",
        "params": {"gf": "KH", "gm": "4S", "eg": None},
        "eg": None,
        "cc": False,
        "royal": True,
    }
    assert said(answer) == "4S may fecundate KH: a Royal Ovum is fecundated by any male gamete."


def test_the_checks_of_a_simples_table_know_no_face():
    state = table()
    for name, params in (
        ("surrogate", {"gf": "4H", "gm": "9C", "new_gm": "KS"}),
        ("ejaculation", {"gf": "KH", "gms": {"p1": "4S"}}),
        ("fecundate", {"gf": "4H", "gm": "JC"}),
    ):
        error = asked_refused(name, state, params)
        assert isinstance(error, IllegalEvent)
        assert error.code == "gjdlv.faces_need_abondantes"


def test_fecundation_answers():
    assert ask_unchanged("fecundate", None, {"gf": "4H", "gm": "JS"}) == {
        "ok": False,
        "code": "gjdlv.check.fecundate_imperial_on_number",
        "params": {"gf": "4H", "gm": "JS", "eg": None},
        "eg": None,
        "cc": False,
        "royal": False,
    }
    assert ask_unchanged("fecundate", None, {"gf": "4H", "gm": "9C"}) == {
        "ok": True,
        "code": "gjdlv.check.fecundate_number",
        "params": {"gf": "4H", "gm": "9C", "eg": 5},
        "eg": 5,
        "cc": False,
        "royal": False,
    }
    answer = ask_unchanged("fecundate", None, {"gf": "4H", "gm": "4C"})
    assert answer["code"] == "gjdlv.check.fecundate_cc"
    assert (answer["eg"], answer["cc"], answer["royal"]) == (0, True, False)
    assert said(answer) == "4C may fecundate 4H, but the genetic gap is 0: it will be a Consanguin Complet."


def test_surrogacy_answers_for_an_embryo_ten_hearts_seven_spades():
    base = {"gf": "10H", "gm": "7S"}
    closer = ask_unchanged("surrogate", None, {**base, "new_gm": "9C"})
    assert closer == {
        "ok": True,
        "code": "gjdlv.check.surrogate_closer",
        "params": {"gf": "10H", "gm": "7S", "new_gm": "9C", "eg_before": 3, "eg_after": 1},
        "closer": [8, 9, 10],
        "cc": False,
        "mouchoir": ["7S"],
        "embryo": {"gf": "10H", "gm": "9C"},
    }
    assert said(closer).startswith(
        "9C may surrogate the embryo 10H/7S: it is strictly closer to 10H (genetic gap 1"
    )
    cc = ask_unchanged("surrogate", None, {**base, "new_gm": "10S"})
    assert (cc["code"], cc["cc"], cc["params"]["eg_after"]) == ("gjdlv.check.surrogate_cc", True, 0)
    farther = ask_unchanged("surrogate", None, {**base, "new_gm": "4C"})
    assert farther == {
        "ok": False,
        "code": "gjdlv.check.surrogate_not_closer",
        "params": {"gf": "10H", "gm": "7S", "new_gm": "4C", "eg_before": 3, "eg_after": 6},
        "closer": [8, 9, 10],
    }
    assert said(farther) == (
        "4C may not surrogate the embryo 10H/7S: a surrogacy must reduce the genetic "
        "gap, and 4C would give 6, not less than 3."
    )


def test_surrogacy_answers_for_a_royal_embryo():
    royal = ask_unchanged("surrogate", None, {"gf": "QD", "gm": "4S", "new_gm": "KC"})
    assert royal == {
        "ok": True,
        "code": "gjdlv.check.surrogate_royal",
        "params": {"gf": "QD", "gm": "4S", "new_gm": "KC", "eg_before": None, "eg_after": None},
        "mouchoir": ["4S"],
        "embryo": {"gf": "QD", "gm": "KC"},
    }
    number = ask_unchanged("surrogate", None, {"gf": "QD", "gm": "4S", "new_gm": "5C"})
    assert number["params"]["eg_after"] is None


@pytest.mark.parametrize(
    ("gm", "answer", "other"), [("4S", "4C", "4C"), ("4C", "4S", "4S"), ("KC", "KS", "KS")]
)
def test_an_abortion_names_the_other_black_card_of_the_rank(gm, answer, other):
    ok = ask_unchanged("abortion", None, {"gm": gm, "answer": answer})
    assert (ok["ok"], ok["params"]) == (True, {"gm": gm, "answer": answer, "other": other})
    wrong = ask_unchanged("abortion", None, {"gm": gm, "answer": "9S" if gm[0] != "9" else "8S"})
    assert wrong["params"]["other"] == other
    assert said(wrong).endswith(f"only the black GM of the same rank ({other}) does.")


def test_the_jack_against_a_surrogacy():
    answer = ask_unchanged("bonus", None, {"card": "JC", "against": "surrogacy"})
    assert answer == {
        "ok": True,
        "code": "gjdlv.check.bonus_guilde_du_cintre_surrogacy",
        "params": {"card": "JC", "against": "surrogacy"},
        "mouchoir": ["replaced_gm"],
        "formol": ["gf", "surrogating_gm", "JC"],
        "formol_points": 3,
        "embryo": "aborted",
    }


def test_the_jack_against_a_fecundation_aborts_the_embryo():
    answer = ask_unchanged("bonus", None, {"card": "JS", "against": "fecundation"})
    assert (answer["params"], answer["embryo"], answer["mouchoir"]) == (
        {"card": "JS", "against": "fecundation"},
        "aborted",
        [],
    )


@pytest.mark.parametrize(("against", "echoed"), [("menstruation", "menstruation"), (None, None), (3, 3)])
def test_a_bad_against_is_quoted_with_the_choices(against, echoed):
    error = asked_refused("bonus", None, {"card": "KS", "against": against})
    says(
        error,
        "gjdlv.bad_against",
        {"value": echoed, "choices": ["abortion", "surrogacy", "fecundation"]},
        f"“against” is abortion, surrogacy or fecundation (got: {echoed}).",
    )


# --- the newborn picker --------------------------------------------------------------------------------


def picker(gf: str, gms: list[str], used=()) -> list[dict]:
    """What the picker must show under each GM, from the rules: a number GF takes a number GM; a
    number newborn is worth 5 + EG, a lone CC 5, a royal one 10 (K), 0 (Q) or 5 (J)."""
    rows = []
    for gm in gms:
        royal = gf[:-1] in FACE_RANKS
        face = royal or gm[:-1] in FACE_RANKS
        eg = None if face else abs(value(gm) - value(gf))
        legal = royal or gm[:-1] not in FACE_RANKS
        points = {"K": 10, "Q": 0, "J": 5}[gf[:-1]] if royal else (5 + eg if legal else None)
        rows.append(
            {
                "gm": gm,
                "fecundates": legal,
                "allowed": legal and gm not in used and gf not in used,
                "used": gm in used,
                "eg": eg,
                "cc": eg == 0,
                "points": points,
            }
        )
    return rows


def row_of(answer: dict, gm: str) -> dict:
    return next(row for row in answer["gms"] if row["gm"] == gm)


def test_the_picker_lists_every_gm_of_a_simples_table_with_its_gap():
    state = table([nb("p1", "4H", "9C")])
    answer = ask_unchanged("fecundations", state, {"gf": "6h"})
    assert answer == {
        "ok": True,
        "gf": "6H",
        "royal": False,
        "used": False,
        "gms": picker("6H", gametes("SC", NUMBER_RANKS), used={"9C", "4H"}),
    }
    assert [row["gm"] for row in answer["gms"] if row["cc"]] == ["6S", "6C"]
    used_gf = ask_unchanged("fecundations", state, {"gf": "4H"})
    assert used_gf["used"] is True
    assert not any(row["allowed"] for row in used_gf["gms"])


def test_the_picker_gives_the_gap_the_cc_and_the_points_of_each_gm():
    state = table(options=ABONDANTES)
    answer = ask_unchanged("fecundations", state, {"gf": "4H"})
    nine = row_of(answer, "9C")
    assert nine == {
        "gm": "9C",
        "fecundates": True,
        "allowed": True,
        "used": False,
        "eg": 5,
        "cc": False,
        "points": 10,
    }
    assert row_of(answer, "4S") == {
        "gm": "4S",
        "fecundates": True,
        "allowed": True,
        "used": False,
        "eg": 0,
        "cc": True,
        "points": 5,
    }
    assert row_of(answer, "AC")["points"] == 8
    # An Imperial Sperm never fecundates a number GF.
    assert row_of(answer, "KS") == {
        "gm": "KS",
        "fecundates": False,
        "allowed": False,
        "used": False,
        "eg": None,
        "cc": False,
        "points": None,
    }
    imperials = ["JS", "QS", "KS", "JC", "QC", "KC"]
    assert [row["gm"] for row in answer["gms"] if not row["fecundates"]] == imperials


def test_the_picker_greys_out_the_cards_already_recorded_this_round():
    state = table([nb("p1", "4H", "9C"), nb("p2", "KD", "QS")], options=ABONDANTES)
    answer = ask_unchanged("fecundations", state, {"gf": "5D"})
    assert row_of(answer, "9C") == {
        "gm": "9C",
        "fecundates": True,
        "allowed": False,
        "used": True,
        "eg": 4,
        "cc": False,
        "points": 9,
    }
    assert (row_of(answer, "QS")["used"], row_of(answer, "QS")["allowed"]) == (True, False)
    assert [row["gm"] for row in answer["gms"] if row["used"]] == ["QS", "9C"]
    # A closed round frees its cards again.
    after = ask_unchanged("fecundations", table([nb("p1", "4H", "9C"), CLOSE]), {"gf": "5D"})
    assert (row_of(after, "9C")["used"], row_of(after, "9C")["allowed"]) == (False, True)


def test_the_picker_on_a_royal_ovum_offers_every_gm_at_the_royal_points():
    state = table(options=ABONDANTES)
    queen = ask_unchanged("fecundations", state, {"gf": "QH"})
    assert queen["royal"] is True
    assert all(
        row["fecundates"] and row["allowed"] and row["eg"] is None and not row["cc"] for row in queen["gms"]
    )
    assert {row["points"] for row in queen["gms"]} == {0}
    assert {row["points"] for row in ask_unchanged("fecundations", state, {"gf": "JD"})["gms"]} == {5}
    assert row_of(ask_unchanged("fecundations", state, {"gf": "KD"}), "KS")["points"] == 10


@pytest.mark.parametrize("state", [None, {}])
def test_the_picker_with_no_table_offers_the_whole_abondantes_deck(state):
    answer = ask_unchanged("fecundations", state, {"gf": "6H"})
    assert answer["gms"] == picker("6H", gametes("SC", NUMBER_RANKS + FACE_RANKS))
    assert answer["used"] is False
    royal = ask_unchanged("fecundations", state, {"gf": "KD"})
    assert (royal["royal"], royal["gf"]) == (True, "KD")
    assert royal["gms"] == picker("KD", gametes("SC", NUMBER_RANKS + FACE_RANKS))
    assert all(row["allowed"] and row["eg"] is None for row in royal["gms"])


def test_the_picker_refuses_a_gf_that_is_not_red():
    error = asked_refused("fecundations", None, {"gf": "6S"})
    says(
        error,
        "gjdlv.gf_must_be_red",
        {"card": "6S", "field": "gf"},
        "6S cannot be a female gamete (gf): GF are the red cards ♥ ♦, the black ones are male gametes.",
    )


@pytest.mark.parametrize("gf", ["ZZ", None, 4, "", "11H"])
def test_the_picker_refuses_what_is_not_a_card(gf):
    error = asked_refused("fecundations", table(), {"gf": gf})
    assert isinstance(error, InvalidEvent)
    assert (error.code, error.params["field"]) == ("gjdlv.bad_card", "gf")


def test_the_picker_of_a_simples_table_refuses_a_royal_ovum():
    error = asked_refused("fecundations", table(), {"gf": "QH"})
    assert isinstance(error, IllegalEvent)
    assert (error.code, error.params) == ("gjdlv.faces_need_abondantes", {"card": "QH"})


# --- what each refusal says -----------------------------------------------------------------------


def test_cards_are_quoted_with_their_field():
    state = table()
    says(
        error_of(state, nb("p1", "ZZ", "4S")),
        "gjdlv.bad_card",
        {"field": "gf", "value": "ZZ"},
        "“ZZ” is not a card (gf): the rank (A, 2…10, J, Q, K) then the suit (S ♠, C ♣, H ♥, D ♦), "
        "e.g. AS, 10H, QD.",
    )
    assert error_of(state, nb("p1", 4, "4S")).params == {"field": "gf", "value": 4}
    says(
        error_of(state, nb("p1", "4H", "4D")),
        "gjdlv.gm_must_be_black",
        {"card": "4D", "field": "gm"},
        "4D cannot be a male gamete (gm): GM are the black cards ♠ ♣, the red ones are female gametes.",
    )
    says(
        error_of(state, nb("p1", "4C", "4S")),
        "gjdlv.gf_must_be_red",
        {"card": "4C", "field": "gf"},
        "4C cannot be a female gamete (gf): GF are the red cards ♥ ♦, the black ones are male gametes.",
    )
    says(
        error_of(state, nb("p1", "KH", "4S")),
        "gjdlv.faces_need_abondantes",
        {"card": "KH"},
        "KH is a face card: the Simples Règles leave Kings, Queens and Jacks out; they only play in the "
        "Règles Abondantes.",
    )


@pytest.mark.parametrize(
    ("card", "worth"), [("AS", 1), ("10H", 10), ("7C", 7), ("JS", None), ("QD", None), ("KC", None)]
)
def test_a_card_is_worth_its_number_and_a_face_nothing(card, worth):
    assert gjdlv.value_of(card) == worth


def test_the_emoji_form_of_a_suit_is_read():
    state = table([nb("p1", "4\u2665\ufe0f", "9\u2663\ufe0f")])
    assert core.view(GAME, state)["used_cards"] == ["9C", "4H"]


def test_an_imperial_on_a_number_gf_is_quoted():
    error = error_of(table(options=ABONDANTES), nb("p1", "4H", "JS"))
    says(
        error,
        "gjdlv.imperial_needs_royal",
        {"gf": "4H", "gm": "JS"},
        "JS is an Imperial Sperm: it only fecundates Royal Ova (red faces), not 4H; a number GF is "
        "fecundated by a number GM.",
    )


def test_a_card_recorded_twice_names_the_card_and_where_it_was_given():
    state = table([nb("p1", "4H", "9C")])
    says(
        error_of(state, nb("p2", "4H", "8C")),
        "gjdlv.card_already_recorded",
        {"card": "4H", "field": "gf"},
        "The card 4H is already recorded in this round: each card exists once in the deck.",
    )
    assert error_of(state, nb("p2", "5H", "9C")).params == {"card": "9C", "field": "gm"}


def test_steal_refusals_name_the_players():
    state = table([nb("p2", "4H", "9C"), nb("p1", "QH", "2S")], options=ABONDANTES)
    says(
        error_of(state, steal("p1", "p1")),
        "gjdlv.steal_from_self",
        {"player": "Caroline"},
        "The Queen “Petite Mère des peuples” takes the most recent newborn of an opponent, not one's own.",
    )
    says(
        error_of(state, steal("p1", "p3")),
        "gjdlv.nothing_to_steal",
        {"victim": "Yann"},
        "Yann has no newborn in this round: the Queen has nothing to take there.",
    )
    says(
        error_of(state, steal("p2", "p1")),
        "gjdlv.no_queen_take",
        {"player": "Solaar"},
        "Only the Queen newborn (“Petite Mère des peuples”) just born lets its owner take a newborn, right "
        "after her birth: Solaar has no take to make now.",
    )
    no_thief = error_of(state, {"type": "steal_newborn", "from": "p2"})
    assert no_thief.params == {"player": "None", "field": "player"}


@pytest.mark.parametrize(("rounds", "echoed"), [(7, 7), ("9", "9"), (9.0, 9.0), (True, True)])
def test_a_bad_number_of_rounds_is_quoted_with_the_choices(rounds, echoed):
    with pytest.raises(InvalidEvent) as caught:
        core.setup(GAME, NAMES[:3], {"rounds": rounds})
    says(
        caught.value,
        "bad_option",
        {"field": "rounds", "value": echoed, "choices": [9, 5]},
        f"Invalid option “rounds”: {echoed}.",
    )


# --- the score sheet -------------------------------------------------------------------------------------


def test_the_deck_and_the_royal_points_follow_the_rules():
    simples = core.view(GAME, table())
    assert simples["deck"] == {"gf": gametes("HD", NUMBER_RANKS), "gm": gametes("SC", NUMBER_RANKS)}
    assert (simples["royal_points"], simples["per_abortion"]) == ({}, 3)
    abondantes = core.view(GAME, table(options=ABONDANTES))
    assert abondantes["deck"] == {
        "gf": gametes("HD", NUMBER_RANKS + FACE_RANKS),
        "gm": gametes("SC", NUMBER_RANKS + FACE_RANKS),
    }
    assert abondantes["royal_points"] == {"K": 10, "Q": 0, "J": 5}


def test_the_sheet_lines_of_formol_and_consanguinity():
    state = table(
        [
            ab("p1"),
            ab("p1"),
            nb("p2", "3D", "3S"),
            nb("p3", "2H", "2S"),
            nb("p3", "4H", "4C"),
            nb("p3", "5D", "5C"),
        ]
    )
    p1, p2, p3 = core.view(GAME, state)["players"]
    assert (p1["formol_line"], p1["cc_line"]) == (
        {"code": "gjdlv.formol", "params": {"abortions": 2, "count": 2, "per_abortion": 3, "formol": 6}},
        None,
    )
    assert text(p1["formol_line"]["code"], p1["formol_line"]["params"], "en") == "Formol: 2 abortions × 3 = 6"
    assert text(p1["formol_line"]["code"], p1["formol_line"]["params"]) == (
        "Formol\u00a0: 2 avortements × 3 = 6"
    )
    one = {**p1["formol_line"]["params"], "abortions": 1, "count": 1, "formol": 3}
    assert text("gjdlv.formol", one) == "Formol\u00a0: 1 avortement × 3 = 3"
    assert text("gjdlv.formol", one, "en") == "Formol: 1 abortion × 3 = 3"
    assert p2["formol_line"] is None
    assert p2["cc_line"] == {"code": "gjdlv.cc_single", "params": {"cc": 1, "cc_value": 5}}
    assert text(p2["cc_line"]["code"], p2["cc_line"]["params"], "en") == "1 CC → 5, no malus"
    assert p3["cc_line"] == {"code": "gjdlv.cc_malus", "params": {"cc": 3, "cc_value": 3, "malus": "\u22122"}}
    assert text(p3["cc_line"]["code"], p3["cc_line"]["params"], "en") == (
        "3 CC → 3 each (\u22122), consanguinity malus"
    )
    assert p1["round_line"] == {
        "code": "gjdlv.round_line",
        "params": {"nursery": 0, "formol": 6, "round_score": 6},
    }
    assert text(p3["round_line"]["code"], p3["round_line"]["params"]) == "Nurserie 9 + Formol 0 = 9"
    assert text(p2["round_line"]["code"], p2["round_line"]["params"], "en") == "Nursery 5 + formol 0 = 5"


def test_a_malus_past_the_sixth_cc_is_signed():
    cards = [("AH", "AS"), ("2H", "2S"), ("3H", "3S"), ("4H", "4S"), ("5H", "5S"), ("6H", "6S"), ("7H", "7S")]
    state = table([nb("p1", gf, gm) for gf, gm in cards])
    p1 = core.view(GAME, state)["players"][0]
    assert p1["cc_line"]["params"] == {"cc": 7, "cc_value": -1, "malus": "\u22126"}
    state = table([nb("p1", gf, gm) for gf, gm in cards[:2]])
    assert core.view(GAME, state)["players"][0]["cc_line"]["params"]["malus"] == "\u22121"


def test_running_and_projected_totals():
    events = [
        nb("p1", "4H", "9C"),
        ab("p2"),
        CLOSE,
        nb("p1", "10D", "AC"),
        ab("p2"),
        ab("p2"),
        CLOSE,
        nb("p1", "2H", "3S"),
        ab("p1"),
    ]
    view = core.view(GAME, table(events))
    p1, p2, p3 = view["players"]
    assert (p1["round_scores"], p1["running_totals"], p1["total"]) == ([10, 14], [10, 24], 24)
    assert (p2["round_scores"], p2["running_totals"]) == ([3, 6], [3, 9])
    assert p3["running_totals"] == [0, 0]
    assert (p1["round_score"], p1["projected_total"]) == (6 + 3, 24 + 9)
    assert view["rounds_closed"] == 2


def test_the_standings_rank_equal_totals_together():
    events = [nb("p2", "4H", "9C"), nb("p3", "5H", "10C"), ab("p1"), CLOSE]
    view = core.view(GAME, table(events, players=NAMES))
    assert view["standings"] == [
        {"player": "p2", "rank": 1, "total": 10},
        {"player": "p3", "rank": 1, "total": 10},
        {"player": "p1", "rank": 3, "total": 3},
        {"player": "p4", "rank": 4, "total": 0},
    ]


def test_the_last_round_is_flagged():
    assert core.view(GAME, table([CLOSE] * 3, options={"rounds": 5}))["last_round"] is False
    assert core.view(GAME, table([CLOSE] * 4, options={"rounds": 5}))["last_round"] is True


def test_the_end_names_the_winners_and_every_total():
    events = [nb("p1", "4H", "9C"), nb("p3", "10D", "5S"), ab("p2"), CLOSE] * 5
    view = core.view(GAME, table(events, options={"rounds": 5}))
    assert view["outcome"] == {
        "reason": "gjdlv.shared_total",
        "params": {"total": 50, "names": "Caroline, Yann", "totals": {"p1": 50, "p2": 15, "p3": 50}},
    }
    assert text("gjdlv.shared_total", view["outcome"]["params"], "en") == (
        "Game over: a tie at 50 points, Caroline, Yann share the win."
    )
    alone = core.view(GAME, table([ab("p2"), CLOSE] * 5, options={"rounds": 5}))
    assert alone["outcome"]["params"]["names"] == "Solaar"
    assert text("gjdlv.highest_total", alone["outcome"]["params"], "en") == (
        "Game over: Solaar wins with 15 points."
    )
