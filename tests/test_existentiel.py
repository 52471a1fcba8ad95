"""Le jeu existentiel (RULES.md §1): a scenario per rule and decision, played through engine.core.

Refusals are applied in place (``core.apply_in_place``) so that "a refused event changes nothing"
is checked on the very state the handler saw, not on core's defensive copy.

The second half (below the ``# ===`` line) plays the long games the title needs
(every adventure 1..28, not only most of them, and two Maîtres sharing the win), the elimination of a
player who refuses again an adventure refused before, and pins the words and numbers the table reads:
each refusal's params and sentence, the checks' answers, and the view at the rendez-vous.
"""

from __future__ import annotations

import copy
import inspect
import json
import random
import re
import string
from datetime import datetime

import pytest

from engine import core, existentiel
from engine.core import IllegalEvent, InvalidEvent, RuleError
from engine.messages import COMMON, refusal, sentences, text

GAME = "existentiel"
MODULE = existentiel

PLAYER_KEYS = {
    "id",
    "name",
    "birth_month",
    "score",
    "offered",
    "current",
    "jokers",
    "completed",
    "refused",
    "status",
    "title",
    "must_accept",
    "reason",
    "next_base",
    "stakes",
    "validated",
}


# --- helpers ---------------------------------------------------------------------------------------


def new(*months: int, options: dict | None = None) -> dict:
    players = [{"name": f"Joueur {i + 1}", "birth_month": m} for i, m in enumerate(months)]
    return core.setup(GAME, players, options or {})


def play(state: dict, *events: dict) -> dict:
    for event in events:
        state = core.apply(GAME, state, event)
        assert json.loads(json.dumps(state)) == state  # stays plain JSON at every step
    return state


def roll(player: str, die: int) -> dict:
    return {"type": "roll", "player": player, "die": die}


def accept(player: str) -> dict:
    return {"type": "accept", "player": player}


def refuse(player: str) -> dict:
    return {"type": "refuse", "player": player}


def validate(player: str, success: bool) -> dict:
    return {"type": "validate", "player": player, "success": success}


def live(player: str, die: int, success: bool = True) -> list[dict]:
    """One solo cycle: roll, accept, and the game master's verdict at the rendez-vous."""
    return [roll(player, die), accept(player), validate(player, success)]


def seen(state: dict, player: str = "p1") -> dict:
    """One player's view, with the actions ``state.actions`` lists for them as ``actions``."""
    table = core.view(GAME, state)
    shown = next(p for p in table["players"] if p["id"] == player)
    return {**shown, "actions": acts(table, player)}


def acts(table: dict, player: str) -> list[str]:
    """The types of the actions ``table["actions"]`` lists for ``player``."""
    return [a["type"] for a in table["actions"] if a.get("player") == player]


def check_message(error: RuleError) -> None:
    pair = sentences(GAME).get(error.code) or COMMON.get(error.code)
    assert pair is not None, f"{error.code} has no message"
    assert len(pair) == 2
    for template in pair:
        assert template.strip()
        template.format(**error.params)  # every placeholder is given by the error's params


def refused(state: dict, event: dict, code: str, kind: type = RuleError) -> RuleError:
    """The event is refused with ``code`` and leaves the state exactly as it was."""
    before = copy.deepcopy(state)
    with pytest.raises(kind) as info:
        core.apply_in_place(MODULE, state, event)
    assert info.value.code == code
    assert state == before
    check_message(info.value)
    return info.value


def landing(state: dict, player: str, die: int) -> dict:
    before = copy.deepcopy(state)
    answer = MODULE.CHECKS["landing"](state, {"player": player, "die": die})
    assert state == before
    json.dumps(answer)
    return answer


def rule_landing(base: int, die: int, completed: list[int]) -> int:
    """RULES §1 landing, written again from the text: wrap past 29, then step over completed ones."""
    n = (base + die - 1) % 29 + 1
    while n in completed:
        n = 1 if n == 29 else n + 1
    return n


# --- setup and options -----------------------------------------------------------------------------


def test_setup_gives_every_player_three_jokers_and_no_score():
    state = new(5, 11)
    table = core.view(GAME, state)
    assert {"phase", "rendezvous", "over", "winners", "titles", "players"} <= set(table)
    assert table["phase"] == "assigning"
    assert table["rendezvous"] is None
    assert table["over"] is False and table["winners"] == []
    assert table["titles"] == [f"Aventure {n}" for n in range(1, 30)]
    assert [p["id"] for p in table["players"]] == ["p1", "p2"]
    for player, month in zip(table["players"], (5, 11), strict=True):
        assert set(player) == PLAYER_KEYS
        assert player["birth_month"] == month
        assert player["jokers"] == 3
        assert (player["score"], player["offered"], player["current"]) == (None, None, None)
        assert player["completed"] == [] and player["refused"] == []
        assert (player["status"], player["title"], player["reason"]) == ("playing", None, None)
        assert player["next_base"] == month
        assert acts(table, player["id"]) == ["roll"]
    assert table["cycle"] == 1 and table["waiting_for"] == ["p1", "p2"]
    assert MODULE.outcome(state) is None


def test_one_player_is_enough_and_none_is_refused():
    assert len(new(7)["players"]) == 1
    with pytest.raises(InvalidEvent) as info:
        core.setup(GAME, [], {})
    assert info.value.code == "existentiel.no_players"
    check_message(info.value)


@pytest.mark.parametrize(
    "players, code",
    [
        ([{"name": "Ana"}], "existentiel.bad_birth_month"),
        (["Ana"], "existentiel.bad_birth_month"),
        ([{"name": "Ana", "birth_month": 0}], "existentiel.bad_birth_month"),
        ([{"name": "Ana", "birth_month": 13}], "existentiel.bad_birth_month"),
        ([{"name": "Ana", "birth_month": "5"}], "existentiel.bad_birth_month"),
        ([{"name": "Ana", "birth_month": True}], "existentiel.bad_birth_month"),
        ([{"name": "Ana", "birth_month": 5.0}], "existentiel.bad_birth_month"),
        ([{"name": "  ", "birth_month": 5}], "name_length"),
        ([{"name": 12, "birth_month": 5}], "bad_name"),
        ([{"name": "Ana", "birth_month": 5}, {"name": " ana ", "birth_month": 6}], "duplicate_name"),
        ("Ana", "bad_players"),
    ],
)
def test_bad_players_are_refused(players, code):
    with pytest.raises(InvalidEvent) as info:
        core.setup(GAME, players, {})
    assert info.value.code == code
    check_message(info.value)


def test_titles_option_sets_the_29_titles_trimmed():
    titles = [f"  Vivre l'aventure {n} " for n in range(1, 30)]
    state = new(1, options={"titles": titles})
    assert core.view(GAME, state)["titles"] == [t.strip() for t in titles]
    assert core.view(GAME, new(1, options={"titles": None}))["titles"][28] == "Aventure 29"


@pytest.mark.parametrize(
    "options, code",
    [
        ({"titles": ["x"] * 28}, "existentiel.bad_titles"),
        ({"titles": ["x"] * 30}, "existentiel.bad_titles"),
        ({"titles": "x"}, "existentiel.bad_titles"),
        ({"titles": ["x"] * 28 + [""]}, "existentiel.bad_title"),
        ({"titles": ["x"] * 28 + ["   "]}, "existentiel.bad_title"),
        ({"titles": ["x"] * 28 + [7]}, "existentiel.bad_title"),
        ({"titles": ["x"] * 28 + ["y" * 81]}, "existentiel.bad_title"),
        ({"colour": "red"}, "bad_option"),
        ([], "bad_options"),
    ],
)
def test_bad_options_are_refused(options, code):
    with pytest.raises(InvalidEvent) as info:
        core.setup(GAME, [{"name": "Ana", "birth_month": 3}], options)
    assert info.value.code == code
    check_message(info.value)


def test_a_title_of_80_characters_is_allowed():
    titles = ["x"] * 28 + ["y" * 80]
    assert core.view(GAME, new(1, options={"titles": titles}))["titles"][28] == "y" * 80


# --- landing ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("month", range(1, 13))
def test_first_roll_adds_the_die_to_the_birth_month(month):
    # "Chaque joueur obtient donc un nombre entre 2 et 18."
    for die in range(1, 7):
        state = play(new(month), roll("p1", die))
        player = seen(state)
        assert player["offered"] == month + die == player["score"]
        assert 2 <= player["offered"] <= 18
        assert player["current"] is None and player["actions"] == ["accept", "refuse"]


def test_score_26_and_a_six_gives_adventure_3():
    # "si vous êtes à 26 et que vous tirez le chiffre 6 au dé, vous arriverez à l'aventure n°3"
    state = play(new(12), *live("p1", 6), *live("p1", 6), *live("p1", 2))
    assert seen(state)["score"] == 26 and seen(state)["next_base"] == 26
    check = landing(state, "p1", 6)
    assert (check["base"], check["raw"], check["wrapped"], check["skipped"]) == (26, 32, 3, [])
    assert check["adventure"] == 3 and check["blocked"] is None
    state = play(state, roll("p1", 6))
    assert seen(state)["offered"] == 3 == seen(state)["score"]


def test_30_comes_back_to_1():
    state = play(new(12), *live("p1", 6), roll("p1", 6))
    assert seen(state)["offered"] == 24
    state = play(state, accept("p1"), validate("p1", True), roll("p1", 6))
    assert seen(state)["offered"] == rule_landing(24, 6, [18, 24]) == 1


def test_landing_moves_past_one_and_several_completed_adventures():
    state = new(12)
    for die in (6, 1, 1, 6, 6, 6, 6):  # completes 18, 19, 20, 26, 3 (32 wraps), 9, 15
        state = play(state, *live("p1", die))
    completed = seen(state)["completed"]
    assert completed == [3, 9, 15, 18, 19, 20, 26]
    assert seen(state)["score"] == 15

    several = landing(state, "p1", 3)
    assert (several["raw"], several["wrapped"], several["skipped"]) == (18, 18, [18, 19, 20])
    assert several["adventure"] == rule_landing(15, 3, completed) == 21
    state = play(state, roll("p1", 3))
    assert seen(state)["offered"] == 21 == seen(state)["score"]

    state = play(state, accept("p1"), validate("p1", True))
    one = landing(state, "p1", 5)
    assert (one["wrapped"], one["skipped"], one["adventure"]) == (26, [26], 27)
    state = play(state, *live("p1", 5))

    # A roll that wraps past 29 and then lands on a completed adventure: 27 + 5 = 32 -> 3 -> 4.
    wrapped = landing(state, "p1", 5)
    assert (wrapped["raw"], wrapped["wrapped"], wrapped["skipped"], wrapped["adventure"]) == (32, 3, [3], 4)
    state = play(state, roll("p1", 5))
    assert seen(state)["offered"] == 4


def test_landing_rule_steps_one_square_at_a_time_from_29_to_1():
    # 29 is never completed by a player in the game; this checks the rule's own arithmetic.
    player = {"birth_month": 1, "score": 27, "completed": [1, 28, 29], "refused": []}
    steps = MODULE.landing(player, 1)
    assert (steps["raw"], steps["wrapped"], steps["skipped"], steps["adventure"]) == (28, 28, [28, 29, 1], 2)
    player["completed"] = list(range(1, 29))
    assert MODULE.landing(player, 6)["adventure"] == 29


def test_landing_check_says_why_a_roll_is_blocked_and_refuses_bad_input():
    state = play(new(4), roll("p1", 2))
    check = landing(state, "p1", 3)
    assert check["blocked"]["code"] == "existentiel.already_offered"
    assert check["adventure"] == 9 and check["base_from"] == "score"
    assert check["title"] == "Aventure 9"
    for params, code in (
        ({"player": "p1", "die": 7}, "bad_number"),
        ({"player": "p9", "die": 1}, "unknown_player"),
    ):
        with pytest.raises(InvalidEvent) as info:
            MODULE.CHECKS["landing"](state, params)
        assert info.value.code == code


def test_stakes_check_says_what_a_refusal_or_failure_costs():
    state = new(1)
    assert MODULE.CHECKS["stakes"](state, {"player": "p1"})["refusal"] == "joker"
    for die in (1, 1, 1):
        state = play(state, roll("p1", die), refuse("p1"))
    stakes = MODULE.CHECKS["stakes"](state, {"player": "p1"})
    assert stakes["jokers"] == 0 and stakes["refusal"] == stakes["failure"] == "elimination"


# --- refusing and jokers ---------------------------------------------------------------------------


def test_the_next_roll_after_a_refusal_adds_to_the_refused_number():
    # Decision: "ajoute le chiffre obtenu à son score précédent" is the score just obtained.
    state = play(new(3), roll("p1", 2))
    assert seen(state)["offered"] == 5
    state = play(state, refuse("p1"))
    player = seen(state)
    assert (player["offered"], player["score"], player["jokers"], player["refused"]) == (None, 5, 2, [5])
    assert player["next_base"] == 5 and player["actions"] == ["roll"]
    state = play(state, roll("p1", 4))
    assert seen(state)["offered"] == 5 + 4


def test_three_jokers_for_the_whole_game_then_a_refusal_eliminates():
    state = play(new(1), roll("p1", 1), refuse("p1"))  # refuses 2
    state = play(state, roll("p1", 1), accept("p1"), validate("p1", True))  # 3, completed
    assert core.view(GAME, state)["cycle"] == 2
    assert seen(state)["jokers"] == 2  # jokers do not come back with a new cycle
    state = play(state, roll("p1", 1), refuse("p1"), roll("p1", 1), refuse("p1"))  # refuses 4, 5
    player = seen(state)
    assert player["jokers"] == 0 and player["refused"] == [2, 4, 5]
    state = play(state, roll("p1", 1))
    assert MODULE.CHECKS["stakes"](state, {"player": "p1"})["refusal"] == "elimination"
    state = play(state, refuse("p1"))
    player = seen(state)
    assert player["status"] == "eliminated"
    assert player["reason"] == "existentiel.eliminated_refused"
    assert player["offered"] is None and player["actions"] == [] and player["next_base"] is None
    assert player["refused"] == [2, 4, 5]  # the refusal that eliminates spends no joker
    assert sentences(GAME)[player["reason"]][0]


def circle_back_to_refused_2(successes: bool) -> dict:
    """Month 1: refuse 2, then go round the board and land on 2 again (26 + 5 = 31 -> 2)."""
    state = play(new(1), roll("p1", 1), refuse("p1"))
    for die, success in ((6, successes), (6, successes), (6, True), (6, True)):  # 8, 14, 20, 26
        state = play(state, *live("p1", die, success))
    check = landing(state, "p1", 5)
    assert (check["raw"], check["wrapped"], check["adventure"], check["must_accept"]) == (31, 2, 2, True)
    return play(state, roll("p1", 5))


def test_landing_on_a_refused_adventure_again_flags_must_accept():
    state = circle_back_to_refused_2(successes=True)
    player = seen(state)
    assert player["offered"] == 2 and player["must_accept"] is True
    assert "existentiel.must_accept" in sentences(GAME)
    state = play(state, accept("p1"))
    player = seen(state)
    assert player["current"] == 2 and player["offered"] is None and player["must_accept"] is False
    state = play(state, validate("p1", True))
    assert 2 in seen(state)["completed"]


def test_refusing_a_refused_adventure_again_costs_a_joker():
    state = circle_back_to_refused_2(successes=True)
    assert seen(state)["jokers"] == 2
    state = play(state, refuse("p1"))
    player = seen(state)
    assert (player["status"], player["jokers"], player["refused"]) == ("playing", 1, [2])
    assert player["offered"] is None and player["must_accept"] is False and player["score"] == 2


def test_refusing_a_refused_adventure_again_without_joker_eliminates():
    state = circle_back_to_refused_2(successes=False)
    assert seen(state)["jokers"] == 0 and seen(state)["must_accept"] is True
    state = play(state, refuse("p1"))
    player = seen(state)
    assert (player["status"], player["reason"]) == ("eliminated", "existentiel.eliminated_refused")
    assert core.view(GAME, state)["over"] is True


# --- accepting, adventure 29 and the titles ----------------------------------------------------------


def test_accepting_29_leaves_the_game_without_a_title():
    state = play(new(12), *live("p1", 6), *live("p1", 6))
    check = landing(state, "p1", 5)
    assert (check["raw"], check["adventure"], check["leaves_if_accepted"]) == (29, 29, True)
    assert check["petit_chelem_if_accepted"] is False
    state = play(state, roll("p1", 5))
    assert seen(state)["offered"] == 29 and seen(state)["status"] == "playing"
    state = play(state, accept("p1"))
    player = seen(state)
    assert (player["status"], player["current"], player["title"]) == ("left", 29, None)
    assert player["reason"] == "existentiel.left_29"
    table = core.view(GAME, state)
    assert table["over"] is True and table["phase"] == "over" and table["winners"] == []
    assert table["outcome"]["reason"] == "existentiel.no_maitre"
    assert table["outcome"]["params"]["left"] == ["p1"]
    assert table["notes"] == [{"code": "existentiel.grand_chelem_never", "params": {}}]


def test_refusing_29_is_an_ordinary_refusal():
    state = play(new(12), *live("p1", 6), *live("p1", 6), roll("p1", 5), refuse("p1"))
    player = seen(state)
    assert (player["status"], player["jokers"], player["refused"]) == ("playing", 2, [29])
    assert player["score"] == 29
    state = play(state, roll("p1", 3))
    assert seen(state)["offered"] == rule_landing(29, 3, [18, 24]) == 3


def test_petit_chelem_gives_the_title_maitre_existentiel():
    # Month 1: one-square rolls complete 2..28, then 28 + 2 = 30 -> 1; from 1 every step is done -> 29.
    state = new(1)
    for _ in range(2, 29):
        state = play(state, *live("p1", 1))
    state = play(state, *live("p1", 2))
    assert seen(state)["completed"] == list(range(1, 29))
    check = landing(state, "p1", 1)
    assert check["skipped"] == list(range(2, 29)) and check["adventure"] == 29
    assert check["petit_chelem_if_accepted"] is True

    # A newcomer joins this long-running game, at an assigning phase, from their own birth month.
    state = play(state, {"type": "add_player", "name": "Zoé", "birth_month": 9}, roll("p1", 1))
    newcomer = seen(state, "p2")
    assert newcomer["next_base"] == 9 and newcomer["jokers"] == 3
    state = play(state, accept("p1"))
    maitre = seen(state)
    assert (maitre["status"], maitre["title"], maitre["current"]) == ("left", "maitre", 29)
    table = core.view(GAME, state)
    assert table["over"] is False and table["winners"] == []  # winners are named once the game is over
    assert table["phase"] == "assigning"

    state = play(state, roll("p2", 4))
    assert seen(state, "p2")["offered"] == 13
    for die in (1, 1, 1):
        state = play(state, refuse("p2"), roll("p2", die))
    state = play(state, refuse("p2"))
    table = core.view(GAME, state)
    assert table["over"] is True and table["winners"] == ["p1"]
    assert MODULE.outcome(state).winners == ("p1",)
    assert all(p["title"] in (None, "maitre") for p in table["players"])  # never a Grand Maître


def test_no_title_when_one_adventure_before_29_is_missing():
    # 2..27 completed one square at a time, 28 refused, 1 completed after the wrap: only 28 is missing.
    state = new(1)
    for _ in range(2, 28):
        state = play(state, *live("p1", 1))
    state = play(state, roll("p1", 1), refuse("p1"), *live("p1", 2))
    assert seen(state)["completed"] == [n for n in range(1, 29) if n != 28]
    state = play(state, roll("p1", 1))  # 1 + 1 = 2, done up to 27: 28, refused before
    assert (seen(state)["offered"], seen(state)["must_accept"]) == (28, True)
    state = play(state, refuse("p1"), roll("p1", 1), accept("p1"))
    player = seen(state)
    assert (player["status"], player["current"], player["title"]) == ("left", 29, None)
    assert core.view(GAME, state)["winners"] == []


# --- validation at the rendez-vous ------------------------------------------------------------------


def test_a_failed_adventure_costs_a_joker_then_eliminates():
    state = play(new(2), roll("p1", 1), accept("p1"))
    state = play(state, validate("p1", False))
    player = seen(state)
    assert (player["jokers"], player["current"], player["score"], player["completed"]) == (2, None, 3, [])
    # "son score précédent (celui de l'aventure qu'il vient de réaliser)", even a failed one
    assert seen(state)["next_base"] == 3
    state = play(state, *live("p1", 1, False), *live("p1", 1, False))
    assert seen(state)["jokers"] == 0 and seen(state)["status"] == "playing"
    state = play(state, *live("p1", 1, False))
    player = seen(state)
    assert (player["status"], player["reason"], player["current"]) == (
        "eliminated",
        "existentiel.eliminated_failed",
        None,
    )
    assert player["score"] == 6 and player["jokers"] == 0


def test_a_successful_adventure_is_completed_and_the_next_roll_starts_from_it():
    state = play(new(6), *live("p1", 4))
    player = seen(state)
    assert player["completed"] == [10] and player["score"] == 10 and player["jokers"] == 3
    state = play(state, roll("p1", 6))
    assert seen(state)["offered"] == 16


# --- phases ------------------------------------------------------------------------------------------


def test_phases_flip_assigning_underway_assigning():
    state = play(new(1, 2), roll("p1", 1), accept("p1"))
    table = core.view(GAME, state)
    assert table["phase"] == "assigning" and table["waiting_for"] == ["p2"]
    refused(state, validate("p1", True), "existentiel.validate_while_assigning", IllegalEvent)
    refused(state, roll("p1", 3), "existentiel.already_current", IllegalEvent)
    refused(state, accept("p1"), "existentiel.already_current", IllegalEvent)

    state = play(state, roll("p2", 1), accept("p2"))
    table = core.view(GAME, state)
    assert table["phase"] == "underway" and table["waiting_for"] == ["p1", "p2"]
    assert table["notes"] == [{"code": "existentiel.set_rendezvous", "params": {}}]
    assert [acts(table, p["id"]) for p in table["players"]] == [["validate"], ["validate"]]
    assert {"type": "add_player"} not in table["actions"]
    refused(state, roll("p1", 3), "existentiel.adventures_underway", IllegalEvent)
    newcomer = {"type": "add_player", "name": "Léo", "birth_month": 3}
    refused(state, newcomer, "existentiel.join_while_assigning", IllegalEvent)

    state = play(state, validate("p1", True))
    table = core.view(GAME, state)
    assert table["phase"] == "underway" and table["waiting_for"] == ["p2"]
    refused(state, roll("p1", 3), "existentiel.adventures_underway", IllegalEvent)
    refused(state, validate("p1", False), "existentiel.nothing_to_validate", IllegalEvent)

    state = play(state, validate("p2", False))
    table = core.view(GAME, state)
    assert table["phase"] == "assigning" and table["cycle"] == 2
    assert table["waiting_for"] == ["p1", "p2"]
    state = play(state, roll("p1", 3))
    assert seen(state)["offered"] == 2 + 3


def test_an_elimination_while_assigning_can_start_the_adventures():
    state = play(new(1, 1), roll("p1", 1), accept("p1"))
    for _ in range(3):
        state = play(state, roll("p2", 1), refuse("p2"))
    state = play(state, roll("p2", 1))
    assert core.view(GAME, state)["phase"] == "assigning"
    state = play(state, refuse("p2"))
    assert seen(state, "p2")["status"] == "eliminated"
    assert core.view(GAME, state)["phase"] == "underway"


def test_leaving_with_29_while_assigning_can_start_the_adventures():
    state = play(new(12, 1), roll("p2", 1), accept("p2"), roll("p1", 6), accept("p1"))
    state = play(state, validate("p1", True), validate("p2", True))
    state = play(state, roll("p2", 1), accept("p2"), roll("p1", 6), accept("p1"))
    state = play(state, validate("p1", True), validate("p2", True))
    state = play(state, roll("p2", 1), accept("p2"), roll("p1", 5))
    assert seen(state)["offered"] == 29 and core.view(GAME, state)["phase"] == "assigning"
    state = play(state, accept("p1"))
    assert seen(state)["status"] == "left"
    assert core.view(GAME, state)["phase"] == "underway"


def test_an_elimination_at_the_rendezvous_can_end_the_adventures():
    state = new(1, 1)
    for _ in range(3):
        state = play(state, roll("p2", 1), refuse("p2"))
    state = play(state, roll("p1", 1), accept("p1"), roll("p2", 1), accept("p2"))
    state = play(state, validate("p1", True))
    assert core.view(GAME, state)["phase"] == "underway"
    state = play(state, validate("p2", False))
    assert seen(state, "p2")["status"] == "eliminated"
    table = core.view(GAME, state)
    assert table["phase"] == "assigning" and table["cycle"] == 2 and table["waiting_for"] == ["p1"]


def test_add_player_while_assigning_starts_from_their_birth_month():
    state = play(new(1), roll("p1", 1), {"type": "add_player", "name": "  Maël ", "birth_month": 11})
    newcomer = seen(state, "p2")
    assert newcomer["name"] == "Maël" and newcomer["id"] == "p2" and newcomer["score"] is None
    state = play(state, roll("p2", 6))
    assert seen(state, "p2")["offered"] == 17
    for event, code in (
        ({"type": "add_player", "name": "maël", "birth_month": 2}, "duplicate_name"),
        ({"type": "add_player", "name": "", "birth_month": 2}, "name_length"),
        ({"type": "add_player", "name": "Lou", "birth_month": 13}, "existentiel.bad_birth_month"),
        ({"type": "add_player", "name": "Lou"}, "existentiel.bad_birth_month"),
    ):
        refused(state, event, code, InvalidEvent)


# --- the end of the game -----------------------------------------------------------------------------


def test_game_over_when_nobody_plays_then_every_event_is_refused():
    state = play(new(1), roll("p1", 1))
    for _ in range(3):
        state = play(state, refuse("p1"), roll("p1", 1))
    assert MODULE.outcome(state) is None
    state = play(state, refuse("p1"))
    result = MODULE.outcome(state)
    assert result.reason == "existentiel.no_maitre" and result.winners == ()
    assert result.params["eliminated"] == ["p1"]
    assert result.reason in sentences(GAME)
    for event in (
        roll("p1", 1),
        accept("p1"),
        refuse("p1"),
        validate("p1", True),
        {"type": "add_player", "name": "Lou", "birth_month": 2},
        {"type": "schedule", "at": "2030-01-01T20:00"},
        {"type": "set_title", "adventure": 1, "title": "Partir"},
    ):
        refused(state, event, "game_over", IllegalEvent)


# --- schedule and titles -------------------------------------------------------------------------------


def test_schedule_sets_and_moves_the_rendezvous_at_any_phase():
    state = play(new(1), {"type": "schedule", "at": "2031-03-14T19:30", "place": "  Chez Inès "})
    assert core.view(GAME, state)["rendezvous"] == {"at": "2031-03-14T19:30", "place": "Chez Inès"}
    state = play(state, roll("p1", 1), accept("p1"), {"type": "schedule", "at": "2031-03-21T20:00"})
    table = core.view(GAME, state)
    assert table["phase"] == "underway"
    assert table["rendezvous"] == {"at": "2031-03-21T20:00", "place": None}
    assert "existentiel.set_rendezvous" not in table["notes"]
    state = play(state, {"type": "schedule", "at": "2031-03-22T20:00", "place": "   "})
    assert core.view(GAME, state)["rendezvous"]["place"] is None
    state = play(state, {"type": "schedule", "at": "2031-03-22T20:00", "place": "x" * 120})
    assert core.view(GAME, state)["rendezvous"]["place"] == "x" * 120


@pytest.mark.parametrize(
    "event, code",
    [
        ({"at": "2031-13-01T10:00"}, "existentiel.bad_rendezvous"),
        ({"at": "2031-02-30T10:00"}, "existentiel.bad_rendezvous"),
        ({"at": "2031-02-10T24:00"}, "existentiel.bad_rendezvous"),
        ({"at": "2031-2-1T9:05"}, "existentiel.bad_rendezvous"),
        ({"at": "2031-02-10 10:00"}, "existentiel.bad_rendezvous"),
        ({"at": "2031-02-10T10:00:60"}, "existentiel.bad_rendezvous"),
        ({"at": "2031-02-10T10:00:"}, "existentiel.bad_rendezvous"),
        ({"at": "9999-12-31T23:59"}, "existentiel.bad_rendezvous"),
        ({"at": "1999-12-31T23:59"}, "existentiel.bad_rendezvous"),
        ({"at": "2101-01-01T00:00"}, "existentiel.bad_rendezvous"),
        ({"at": "\u0662\u0660\u0662\u0667-01-01T10:00"}, "existentiel.bad_rendezvous"),
        ({"at": "2031-02-10T10:00+01:00"}, "existentiel.bad_rendezvous"),
        ({"at": 20310210}, "existentiel.bad_rendezvous"),
        ({}, "existentiel.bad_rendezvous"),
        ({"at": "2031-02-10T10:00", "place": "x" * 121}, "existentiel.bad_place"),
        ({"at": "2031-02-10T10:00", "place": 5}, "existentiel.bad_place"),
    ],
)
def test_bad_rendezvous_are_refused(event, code):
    state = play(new(1), {"type": "schedule", "at": "2031-01-01T10:00"})
    refused(state, {"type": "schedule", **event}, code, InvalidEvent)


def test_set_title_edits_an_adventure_title_until_the_game_is_over():
    state = play(new(1), {"type": "set_title", "adventure": 29, "title": "  La mort  "})
    assert core.view(GAME, state)["titles"][28] == "La mort"
    state = play(state, roll("p1", 1), accept("p1"), {"type": "set_title", "adventure": 1, "title": "y" * 80})
    assert core.view(GAME, state)["titles"][0] == "y" * 80
    for event, code in (
        ({"adventure": 0, "title": "x"}, "bad_number"),
        ({"adventure": 30, "title": "x"}, "bad_number"),
        ({"adventure": "3", "title": "x"}, "bad_number"),
        ({"adventure": True, "title": "x"}, "bad_number"),
        ({"adventure": 3, "title": "   "}, "existentiel.bad_title"),
        ({"adventure": 3, "title": "x" * 81}, "existentiel.bad_title"),
        ({"adventure": 3}, "existentiel.bad_title"),
    ):
        refused(state, {"type": "set_title", **event}, code, InvalidEvent)


# --- refusals of malformed or out-of-turn events -------------------------------------------------------


def test_out_of_turn_and_malformed_events_are_refused_without_change():
    state = new(4, 9)
    refused(state, accept("p1"), "existentiel.must_roll_first", IllegalEvent)
    refused(state, refuse("p1"), "existentiel.must_roll_first", IllegalEvent)
    refused(state, validate("p1", True), "existentiel.validate_while_assigning", IllegalEvent)
    refused(state, roll("p3", 1), "unknown_player", InvalidEvent)
    refused(state, {"type": "roll", "die": 1}, "unknown_player", InvalidEvent)
    for die in (0, 7, "3", True, 2.5, None):
        refused(state, roll("p1", die), "bad_number", InvalidEvent)
    refused(state, {"type": "jump", "player": "p1"}, "unknown_event", InvalidEvent)
    refused(state, "roll", "bad_event", InvalidEvent)

    state = play(state, roll("p1", 1))
    refused(state, roll("p1", 1), "existentiel.already_offered", IllegalEvent)
    state = play(state, accept("p1"), roll("p2", 1), accept("p2"))
    refused(state, validate("p1", "yes"), "bad_boolean", InvalidEvent)
    refused(state, accept("p1"), "existentiel.adventures_underway", IllegalEvent)
    refused(state, refuse("p1"), "existentiel.adventures_underway", IllegalEvent)


def test_players_out_of_the_game_can_do_nothing():
    state = play(new(1, 12), roll("p1", 1))
    for _ in range(3):
        state = play(state, refuse("p1"), roll("p1", 1))
    state = play(state, refuse("p1"))  # p1 eliminated
    state = play(state, *[e for d in (6, 6) for e in (roll("p2", d), accept("p2"), validate("p2", True))])
    state = play(state, roll("p2", 5), accept("p2"))  # 24 + 5 = 29: p2 leaves, the game is over
    assert seen(state, "p2")["status"] == "left"
    refused(state, roll("p1", 1), "game_over", IllegalEvent)

    state = play(new(1, 12, 3), roll("p1", 1))
    for _ in range(3):
        state = play(state, refuse("p1"), roll("p1", 1))
    state = play(state, refuse("p1"), roll("p2", 6), accept("p2"), roll("p3", 1))
    refused(state, roll("p1", 1), "existentiel.player_eliminated", IllegalEvent)
    refused(state, accept("p1"), "existentiel.player_eliminated", IllegalEvent)
    refused(state, validate("p1", True), "existentiel.player_eliminated", IllegalEvent)


def test_a_player_who_left_can_do_nothing():
    state = play(new(12, 1), roll("p1", 6), accept("p1"), roll("p2", 1), accept("p2"))
    state = play(state, validate("p1", True), validate("p2", True))
    state = play(state, roll("p1", 6), accept("p1"), roll("p2", 1), accept("p2"))
    state = play(state, validate("p1", True), validate("p2", True), roll("p1", 5), accept("p1"))
    assert seen(state)["status"] == "left"
    for event in (roll("p1", 1), accept("p1"), refuse("p1"), validate("p1", True)):
        refused(state, event, "existentiel.player_left", IllegalEvent)


# --- the whole log: replay, undo, JSON ----------------------------------------------------------------


def test_replay_and_undo_give_the_states_of_the_log():
    players = [{"name": "Ana", "birth_month": 2}, {"name": "Bo", "birth_month": 10}]
    events = [
        roll("p1", 3),
        refuse("p1"),
        roll("p1", 2),
        accept("p1"),
        roll("p2", 6),
        accept("p2"),
        {"type": "schedule", "at": "2031-05-01T18:00", "place": "Parc"},
        validate("p1", True),
        validate("p2", False),
        roll("p1", 4),
    ]
    states = [core.setup(GAME, players, {})]
    for event in events:
        states.append(core.apply(GAME, states[-1], event))
    assert core.replay(GAME, players, {}, events) == states[-1]
    assert core.undo(GAME, players, {}, events) == states[-2]
    assert json.loads(json.dumps(states[-1])) == states[-1]
    assert seen(states[-1])["offered"] == 5 + 2 + 4
    assert core.view(GAME, states[-1])["rendezvous"] == {"at": "2031-05-01T18:00", "place": "Parc"}


def _random_event(rng: random.Random, state: dict) -> dict:
    """Mostly a move the table offers (so games go far and end), sometimes anything at all."""
    table = core.view(GAME, state)
    moves = [(a["player"], a["type"]) for a in table["actions"] if "player" in a]
    if moves and rng.random() < 0.75:
        player, action = rng.choice(moves)
        if action == "roll":
            return roll(player, rng.randint(1, 6))
        if action in ("accept", "refuse"):
            return {"type": rng.choice(["accept", "accept", "refuse"]), "player": player}
        return validate(player, rng.random() < 0.7)
    ids = [p["id"] for p in state["players"]] + ["p99"]
    player = rng.choice(ids)
    kind = rng.choice(["roll", "accept", "refuse", "validate", "schedule", "set_title", "add_player"])
    if kind == "roll":
        return roll(player, rng.choice([1, 6, 0, 7, "2"]))
    if kind in ("accept", "refuse"):
        return {"type": kind, "player": player}
    if kind == "validate":
        return validate(player, rng.choice([True, False, None]))
    if kind == "add_player":
        name = "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(0, 4)))
        return {"type": "add_player", "name": name, "birth_month": rng.randint(0, 13)}
    if kind == "schedule":
        return {"type": "schedule", "at": f"2031-0{rng.randint(1, 9)}-{rng.randint(0, 31):02d}T20:00"}
    return {"type": "set_title", "adventure": rng.randint(0, 30), "title": "t" * rng.randint(0, 81)}


def _check_invariants(state: dict) -> None:
    table = core.view(GAME, state)
    assert json.loads(json.dumps(state)) == state and json.dumps(table)
    playing = [p for p in table["players"] if p["status"] == "playing"]
    if not playing:
        assert table["phase"] == "over" and table["over"]
    elif table["phase"] == "assigning":
        assert any(p["current"] is None for p in playing)
    else:
        assert table["phase"] == "underway" and any(p["current"] is not None for p in playing)
        assert all(p["offered"] is None for p in playing)
    for player in table["players"]:
        assert 0 <= player["jokers"] <= 3
        assert player["completed"] == sorted(set(player["completed"])) and 29 not in player["completed"]
        assert player["refused"] == sorted(set(player["refused"]))
        assert player["offered"] is None or player["current"] is None
        offered_again = player["offered"] is not None and player["offered"] in player["refused"]
        assert player["must_accept"] == offered_again
        if player["offered"] is not None:
            assert player["offered"] == player["score"]
        if player["status"] == "left":
            assert player["current"] == 29
        assert player["title"] in (None, "maitre")


@pytest.mark.parametrize("seed", range(12))
def test_random_playthrough_keeps_the_rules_invariants(seed):
    rng = random.Random(seed)
    players = [{"name": f"J{i}", "birth_month": rng.randint(1, 12)} for i in range(rng.randint(1, 4))]
    state = core.setup(GAME, players, {})
    accepted = []
    for _ in range(600):
        event = _random_event(rng, state)
        before = copy.deepcopy(state)
        try:
            core.apply_in_place(MODULE, state, event)
        except RuleError as error:
            assert state == before
            check_message(error)
            continue
        accepted.append(event)
        _check_invariants(state)
    assert core.replay(GAME, players, {}, accepted) == state
    if accepted:
        assert core.undo(GAME, players, {}, accepted) == core.replay(GAME, players, {}, accepted[:-1])


# --- messages ----------------------------------------------------------------------------------------


def test_every_message_has_french_and_english_and_the_game_prefix():
    assert MODULE.ID == GAME
    for code, pair in sentences(GAME).items():
        assert code.startswith("existentiel.")
        assert isinstance(pair, tuple) and len(pair) == 2 and all(text.strip() for text in pair)
        assert pair[0] != pair[1]
        assert code not in COMMON


def test_every_code_in_the_module_has_a_message():
    source = inspect.getsource(MODULE)
    codes = set(re.findall(r'"(existentiel\.[a-z_0-9]+)"', source))
    assert codes and codes <= set(sentences(GAME))
    plain = set(re.findall(r'(?:InvalidEvent|IllegalEvent)\("([a-z_]+)"', source))
    assert plain <= set(COMMON)


INFO_CODES = {
    "existentiel.summary.assigning",
    "existentiel.summary.underway",
    "existentiel.must_accept",
    "existentiel.eliminated_refused",
    "existentiel.eliminated_failed",
    "existentiel.left_29",
    "existentiel.petit_chelem",
    "existentiel.grand_chelem_never",
    "existentiel.set_rendezvous",
    "existentiel.maitres",
    "existentiel.no_maitre",
    "existentiel.death_offer",
    "existentiel.refused_with_joker",
    "existentiel.failed_with_joker",
    "existentiel.no_joker_left",
    "existentiel.landing_skipped",
    "existentiel.newcomer",
    "existentiel.lived_at_death",
    "existentiel.refuse.joker",
    "existentiel.refuse.elimination",
    "existentiel.fail.joker",
    "existentiel.fail.elimination",
}


def test_every_refusal_code_is_reachable_and_worded():
    """Each refusal the module words is met by a minimal case, and refuses without change."""
    solo = new(1)
    offered = play(solo, roll("p1", 1))
    current = play(new(1, 1), roll("p1", 1), accept("p1"))
    underway = play(new(1, 1), roll("p1", 1), accept("p1"), roll("p2", 1), accept("p2"), validate("p1", True))
    out = new(1, 1)
    for _ in range(3):
        out = play(out, roll("p1", 1), refuse("p1"))
    out = play(out, roll("p1", 1), refuse("p1"))
    left = play(new(12, 1), roll("p1", 6), accept("p1"), roll("p2", 1), accept("p2"))
    left = play(left, validate("p1", True), validate("p2", True), roll("p1", 6), accept("p1"))
    left = play(left, roll("p2", 1), accept("p2"), validate("p1", True), validate("p2", True))
    left = play(left, roll("p1", 5), accept("p1"))
    cases = {
        "existentiel.join_while_assigning": (underway, {"type": "add_player", "name": "X", "birth_month": 1}),
        "existentiel.table_full": (
            new(*[1] * MODULE.MAX_PLAYERS),
            {"type": "add_player", "name": "X", "birth_month": 1},
        ),
        "existentiel.player_eliminated": (out, roll("p1", 1)),
        "existentiel.player_left": (left, roll("p1", 1)),
        "existentiel.adventures_underway": (underway, roll("p1", 1)),
        "existentiel.already_offered": (offered, roll("p1", 1)),
        "existentiel.already_current": (current, roll("p1", 1)),
        "existentiel.must_roll_first": (solo, accept("p1")),
        "existentiel.validate_while_assigning": (current, validate("p1", True)),
        "existentiel.nothing_to_validate": (underway, validate("p1", True)),
        "existentiel.bad_rendezvous": (solo, {"type": "schedule", "at": "demain"}),
        "existentiel.bad_place": (solo, {"type": "schedule", "at": "2031-01-01T10:00", "place": 1}),
        "existentiel.bad_title": (solo, {"type": "set_title", "adventure": 1, "title": ""}),
        "existentiel.bad_birth_month": (solo, {"type": "add_player", "name": "X", "birth_month": 0}),
    }
    for code, (state, event) in cases.items():
        refused(state, event, code)
    setup_cases = {
        "existentiel.no_players": ([], {}),
        "existentiel.bad_titles": ([{"name": "X", "birth_month": 1}], {"titles": []}),
    }
    for code, (players, options) in setup_cases.items():
        with pytest.raises(InvalidEvent) as info:
            core.setup(GAME, players, options)
        assert info.value.code == code
        check_message(info.value)
    # The story's sentences (what an event did, tests/test_story.py) are no refusals either, nor the
    # calendar file's (what each player is at, tests/test_calendar.py).
    story = {
        code for code in sentences(GAME) if code.startswith(("existentiel.story.", "existentiel.calendar."))
    }
    assert set(cases) | set(setup_cases) == set(sentences(GAME)) - INFO_CODES - story
    assert INFO_CODES.issubset(sentences(GAME))


def test_the_view_says_which_adventures_the_table_titled():
    state = core.setup("existentiel", [{"name": "Ada", "birth_month": 3}], {})
    view = core.view("existentiel", state)
    assert view["titles"][6] == "Aventure 7" and view["titled"] == [False] * 29
    state = core.apply("existentiel", state, {"type": "set_title", "adventure": 7, "title": "Parachute"})
    titled = core.view("existentiel", state)["titled"]
    assert titled[6] is True and titled.count(True) == 1


# === the Petit Chelem to the letter, and what the table reads =====================================


def players(*months: int) -> list[dict]:
    return [{"name": f"Joueur {i + 1}", "birth_month": m} for i, m in enumerate(months)]


def game(months, events=()) -> dict:
    return core.replay(GAME, players(*months), {}, list(events))


def error_of(state: dict, event: dict) -> RuleError:
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as caught:
        core.apply(GAME, state, event)
    assert state == before
    return caught.value


def says(error: RuleError, code: str, params: dict, english: str) -> None:
    assert (error.code, error.params) == (code, params)
    assert refusal(error.code, error.params, "en")["message"] == english


def view_of(state: dict, pid: str = "p1") -> dict:
    return next(p for p in core.view(GAME, state)["players"] if p["id"] == pid)


def ask(name: str, state: dict, params: dict) -> dict:
    before = copy.deepcopy(state)
    answer = core.check(GAME, state, name, params)
    assert state == before
    return answer


def up_to_28(*pids: str) -> list[dict]:
    """From birth month 1, a die of 1 each cycle: adventures 2, 3 … 28 lived and completed, in turn."""
    events = []
    for _ in range(2, 29):
        for pid in pids:
            events += [roll(pid, 1), accept(pid)]
        events += [validate(pid, True) for pid in pids]
    return events


# --- the Petit Chelem, to the letter --------------------------------------------------------------


def test_no_title_when_only_adventure_1_is_missing():
    state = game([1], up_to_28("p1"))
    assert view_of(state)["completed"] == list(range(2, 29))
    answer = ask("landing", state, {"player": "p1", "die": 1})
    assert answer["adventure"] == 29
    assert (answer["leaves_if_accepted"], answer["petit_chelem_if_accepted"]) == (True, False)
    state = core.replay(GAME, players(1), {}, [*up_to_28("p1"), roll("p1", 1), accept("p1")])
    p1 = view_of(state)
    assert (p1["status"], p1["title"], p1["reason"]) == ("left", None, "existentiel.left_29")
    view = core.view(GAME, state)
    assert view["over"] is True and view["winners"] == []
    assert view["outcome"] == {
        "reason": "existentiel.no_maitre",
        "params": {"names": "", "maitres": [], "left": ["p1"], "eliminated": []},
    }
    assert view["notes"] == [{"code": "existentiel.grand_chelem_never", "params": {}}]


def test_two_petit_chelems_share_the_win():
    events = up_to_28("p1", "p2")
    # 29 refused with a joker: the next roll from 29 wraps to 1, the one adventure still to live.
    for pid in ("p1", "p2"):
        events += [roll(pid, 1), refuse(pid), roll(pid, 1), accept(pid)]
    events += [validate("p1", True), validate("p2", True)]
    state = game([1, 1], events)
    assert view_of(state, "p2")["completed"] == list(range(1, 29))
    answer = ask("landing", state, {"player": "p1", "die": 1})
    assert answer["skipped"] == list(range(2, 29))
    assert answer["adventure"] == 29
    assert (answer["must_accept"], answer["petit_chelem_if_accepted"]) == (True, True)
    state = core.replay(GAME, players(1, 1), {}, [*events, roll("p1", 1), accept("p1")])
    assert view_of(state)["title"] == "maitre"
    assert core.view(GAME, state)["winners"] == []  # named once the game is over
    state = core.replay(
        GAME, players(1, 1), {}, [*events, roll("p1", 1), accept("p1"), roll("p2", 1), accept("p2")]
    )
    view = core.view(GAME, state)
    assert view["winners"] == ["p1", "p2"]
    assert view["outcome"] == {
        "reason": "existentiel.maitres",
        "params": {
            "names": "Joueur 1, Joueur 2",
            "maitres": ["p1", "p2"],
            "left": ["p1", "p2"],
            "eliminated": [],
        },
    }
    assert text("existentiel.maitres", view["outcome"]["params"], "en") == (
        "Nobody is still playing. Maître Existentiel: Joueur 1, Joueur 2."
    )


# --- jokers and eliminations ---------------------------------------------------------------------------


def test_refusing_again_an_adventure_refused_before_with_no_joker_left_eliminates():
    events = [
        roll("p1", 1),
        refuse("p1"),  # adventure 2 refused: 2 jokers left
        roll("p1", 6),
        accept("p1"),
        validate("p1", False),  # 8 failed: 1 left
        roll("p1", 6),
        accept("p1"),
        validate("p1", False),  # 14 failed: none left
        roll("p1", 6),
        accept("p1"),
        validate("p1", True),  # 20
        roll("p1", 6),
        accept("p1"),
        validate("p1", True),  # 26
        roll("p1", 5),
    ]  # 26 + 5 = 31 -> 2, refused before
    state = game([1], events)
    p1 = view_of(state)
    assert (p1["offered"], p1["must_accept"], p1["jokers"], p1["stakes"]) == (2, True, 0, "elimination")
    assert ask("stakes", state, {"player": "p1"}) == {
        "ok": True,
        "player": "p1",
        "jokers": 0,
        "refusal": "elimination",
        "failure": "elimination",
    }
    state = core.apply(GAME, state, refuse("p1"))
    p1 = view_of(state)
    assert (p1["status"], p1["reason"]) == ("eliminated", "existentiel.eliminated_refused")
    assert (p1["offered"], p1["current"], p1["must_accept"]) == (None, None, False)
    assert (p1["stakes"], p1["next_base"], p1["validated"]) == (None, None, None)
    assert core.view(GAME, state)["outcome"]["params"]["eliminated"] == ["p1"]


def test_one_joker_left_is_still_a_joker_at_stake():
    state = game([1], [roll("p1", 1), refuse("p1"), roll("p1", 1), refuse("p1"), roll("p1", 1)])
    assert view_of(state)["stakes"] == "joker"
    assert ask("stakes", state, {"player": "p1"}) == {
        "ok": True,
        "player": "p1",
        "jokers": 1,
        "refusal": "joker",
        "failure": "joker",
    }
    state = core.apply(GAME, state, refuse("p1"))
    assert (view_of(state)["status"], view_of(state)["jokers"]) == ("playing", 0)


def test_a_player_who_left_has_nothing_at_stake():
    # Birth month 12: 12 + 6 = 18, then 18 + 5 = 23, then 23 + 6 = 29, accepted.
    state = game(
        [12],
        [
            roll("p1", 6),
            accept("p1"),
            validate("p1", True),
            roll("p1", 5),
            accept("p1"),
            validate("p1", True),
            roll("p1", 6),
            accept("p1"),
        ],
    )
    p1 = view_of(state)
    assert (p1["status"], p1["current"], p1["stakes"], p1["next_base"]) == ("left", 29, None, None)


# --- the rendez-vous ------------------------------------------------------------------------------------


def test_the_view_says_how_each_adventure_just_told_went():
    state = game(
        [1, 2, 3], [roll("p1", 1), accept("p1"), roll("p2", 1), accept("p2"), roll("p3", 1), accept("p3")]
    )
    assert [view_of(state, p)["validated"] for p in ("p1", "p2", "p3")] == [None, None, None]
    state = core.apply(GAME, state, validate("p1", True))
    state = core.apply(GAME, state, validate("p2", False))
    assert [view_of(state, p)["validated"] for p in ("p1", "p2", "p3")] == ["success", "failure", None]
    assert view_of(state, "p2")["jokers"] == 2
    state = core.apply(GAME, state, validate("p3", True))
    view = core.view(GAME, state)
    assert view["phase"] == "assigning"
    assert [p["validated"] for p in view["players"]] == [None, None, None]


def test_a_player_eliminated_at_the_rendezvous_shows_no_verdict():
    events = [e for _ in range(3) for e in (roll("p2", 1), refuse("p2"))]
    events += [roll("p2", 1), accept("p2"), roll("p1", 1), accept("p1"), validate("p2", False)]
    state = game([1, 1], events)
    p2 = view_of(state, "p2")
    assert (p2["status"], p2["reason"], p2["validated"], p2["stakes"]) == (
        "eliminated",
        "existentiel.eliminated_failed",
        None,
        None,
    )
    assert core.view(GAME, state)["phase"] == "underway"


def test_the_view_names_the_special_adventures_and_the_die():
    view = core.view(GAME, game([1]))
    assert (view["death"], view["petit_chelem"], view["dice"]) == (29, 28, [1, 2, 3, 4, 5, 6])


# --- the landing check --------------------------------------------------------------------------------


def test_the_landing_check_shows_every_step_of_a_first_roll():
    assert ask("landing", game([7]), {"player": "p1", "die": 2}) == {
        "ok": True,
        "blocked": None,
        "player": "p1",
        "base": 7,
        "base_from": "birth_month",
        "die": 2,
        "raw": 9,
        "wrapped": 9,
        "skipped": [],
        "adventure": 9,
        "must_accept": False,
        "title": "Aventure 9",
        "leaves_if_accepted": False,
        "petit_chelem_if_accepted": False,
    }


def test_the_landing_check_after_a_roll_starts_from_the_score_and_says_what_blocks():
    state = game([7], [roll("p1", 2)])
    answer = ask("landing", state, {"player": "p1", "die": 3})
    assert (answer["base"], answer["base_from"], answer["adventure"]) == (9, "score", 12)
    assert answer["blocked"] == {
        "code": "existentiel.already_offered",
        "params": {"player": "p1", "name": "Joueur 1", "adventure": 9},
    }


# --- what each refusal says -------------------------------------------------------------------------


def test_turn_refusals_name_the_player_and_the_adventure():
    state = game([1, 5], [roll("p1", 2)])
    says(
        error_of(state, roll("p1", 4)),
        "existentiel.already_offered",
        {"player": "p1", "name": "Joueur 1", "adventure": 3},
        "Joueur 1 must first accept or refuse adventure 3 before rolling again.",
    )
    says(
        error_of(state, accept("p2")),
        "existentiel.must_roll_first",
        {"player": "p2", "name": "Joueur 2"},
        "Joueur 2 has no adventure offered: roll the die first.",
    )
    state = core.apply(GAME, state, accept("p1"))
    for event in (roll("p1", 4), accept("p1"), refuse("p1")):
        says(
            error_of(state, event),
            "existentiel.already_current",
            {"player": "p1", "name": "Joueur 1", "adventure": 3},
            "Joueur 1 already accepted adventure 3: it is lived until the rendez-vous.",
        )


def test_rendezvous_refusals_name_the_player():
    state = game([1, 1], [roll("p1", 2), accept("p1"), roll("p2", 1), accept("p2"), validate("p1", True)])
    says(
        error_of(state, validate("p1", True)),
        "existentiel.nothing_to_validate",
        {"player": "p1", "name": "Joueur 1"},
        "Joueur 1 has no adventure under way to validate (already validated at this rendez-vous).",
    )


def test_players_out_of_the_game_are_named():
    state = game([1, 1], [e for _ in range(4) for e in (roll("p2", 1), refuse("p2"))])
    says(
        error_of(state, roll("p2", 1)),
        "existentiel.player_eliminated",
        {"player": "p2", "name": "Joueur 2"},
        "Joueur 2 has been eliminated and no longer plays.",
    )
    # Joueur 1: 12 + 6 = 18, 18 + 5 = 23, 23 + 6 = 29 accepted, while Joueur 2 plays on.
    state = game(
        [12, 1],
        [
            roll("p1", 6),
            accept("p1"),
            roll("p2", 1),
            accept("p2"),
            validate("p1", True),
            validate("p2", True),
            roll("p1", 5),
            accept("p1"),
            roll("p2", 1),
            accept("p2"),
            validate("p1", True),
            validate("p2", True),
            roll("p1", 6),
            accept("p1"),
        ],
    )
    says(
        error_of(state, roll("p1", 1)),
        "existentiel.player_left",
        {"player": "p1", "name": "Joueur 1"},
        "Joueur 1 accepted adventure 29 and has left the game.",
    )


@pytest.mark.parametrize(("month", "echoed"), [(13, 13), (0, 0), ("3", "3"), (None, None), (True, True)])
def test_a_bad_birth_month_is_quoted_with_the_name(month, echoed):
    with pytest.raises(InvalidEvent) as caught:
        core.setup(GAME, [{"name": "Ada", "birth_month": 4}, {"name": " Bruno ", "birth_month": month}], {})
    says(
        caught.value,
        "existentiel.bad_birth_month",
        {"name": "Bruno", "value": echoed},
        f"Bruno's birth month must be a whole number from 1 (January) to 12 (December): the first roll "
        f"is added to it (got: {echoed}).",
    )
    error = error_of(game([1]), {"type": "add_player", "name": "Zoé", "birth_month": month})
    assert error.params == {"name": "Zoé", "value": echoed}


def test_an_unknown_option_is_quoted():
    with pytest.raises(InvalidEvent) as caught:
        core.setup(GAME, players(1), {"lives": 3})
    says(
        caught.value,
        "bad_option",
        {"field": "lives", "value": 3, "choices": ["titles"]},
        "Invalid option “lives”: 3.",
    )


@pytest.mark.parametrize(
    ("titles", "count"),
    [
        ("Aventures", "Aventures"),
        ([f"T{n}" for n in range(28)], 28),
        pytest.param({"1": "T"}, "{'1': 'T'}", id="object"),  # no quote in an id: mutmut names it back
    ],
)
def test_a_bad_titles_option_says_what_it_got(titles, count):
    with pytest.raises(InvalidEvent) as caught:
        core.setup(GAME, players(1), {"titles": titles})
    says(
        caught.value,
        "existentiel.bad_titles",
        {"count": count},
        f"The “titles” option must be a list of the 29 adventure titles, in order (got: {count}).",
    )


@pytest.mark.parametrize("position", [1, 5, 29])
def test_a_bad_title_names_its_adventure(position):
    titles = [f"Titre {n}" for n in range(1, 30)]
    titles[position - 1] = "  "
    with pytest.raises(InvalidEvent) as caught:
        core.setup(GAME, players(1), {"titles": titles})
    says(
        caught.value,
        "existentiel.bad_title",
        {"adventure": position, "max": 80},
        f"The title of adventure {position} must be text of 1 to 80 characters.",
    )


def test_a_bad_title_edit_names_its_adventure():
    error = error_of(game([1]), {"type": "set_title", "adventure": 7, "title": "x" * 81})
    says(
        error,
        "existentiel.bad_title",
        {"adventure": 7, "max": 80},
        "The title of adventure 7 must be text of 1 to 80 characters.",
    )


@pytest.mark.parametrize(
    ("at", "echoed"), [(5, 5), ("demain", "demain"), (None, None), ("2031-02-30T19:30", "2031-02-30T19:30")]
)
def test_a_bad_rendezvous_is_quoted(at, echoed):
    error = error_of(game([1]), {"type": "schedule", "at": at})
    says(
        error,
        "existentiel.bad_rendezvous",
        {"value": echoed},
        f"The rendez-vous is a date and time, “YYYY-MM-DDTHH:MM” (got: {echoed}).",
    )


def test_a_bad_place_says_how_long_it_may_be():
    error = error_of(game([1]), {"type": "schedule", "at": "2031-03-07T19:30", "place": "x" * 121})
    says(
        error,
        "existentiel.bad_place",
        {"max": 120},
        "The rendez-vous place is text of at most 120 characters.",
    )
    assert isinstance(error, InvalidEvent) and not isinstance(error, IllegalEvent)


# --- the table's bounds -------------------------------------------------------------------------------


def test_the_view_gives_the_limits_every_form_needs():
    view = core.view(GAME, game([1]))
    assert view["limits"] == {
        "name": core.NAME_MAX,
        "title": existentiel.TITLE_MAX,
        "place": existentiel.PLACE_MAX,
        "players": existentiel.MAX_PLAYERS,
    }
    assert view["limits"] == {"name": 40, "title": 80, "place": 120, "players": 30}
    assert tuple(existentiel.OPTIONS) == ("titles",)


def test_a_full_table_refuses_a_newcomer_and_says_how_many_it_seats():
    state = game([1] * existentiel.MAX_PLAYERS)
    assert len(state["players"]) == 30
    assert {"type": "add_player"} not in core.view(GAME, state)["actions"]
    error = error_of(state, {"type": "add_player", "name": "Zoé", "birth_month": 4})
    assert isinstance(error, IllegalEvent)
    says(
        error,
        "existentiel.table_full",
        {"max": 30},
        "The table is full: at most 30 players around one game master.",
    )
    assert text(error.code, error.params, "fr") == (
        "La table est complète\u00a0: au plus 30 joueur·euses autour d'un·e même maître du jeu."
    )
    assert {"type": "add_player"} in core.view(GAME, game([1] * 29))["actions"]


def test_a_table_is_set_up_with_at_most_thirty_players():
    assert len(game([1] * 30)["players"]) == 30
    with pytest.raises(InvalidEvent) as caught:
        core.setup(GAME, players(*[1] * 31), {})
    says(
        caught.value,
        "player_count",
        {"count": 31, "min": 1, "max": 30},
        "This game is for 1–30 players, not 31.",
    )
    assert text("player_count", caught.value.params, "fr") == "Ce jeu se joue à 1–30 joueur·euses, pas 31."


# --- the rendez-vous, to the minute and within 2000..2100 -----------------------------------------------


def schedule(at: str) -> dict:
    return {"type": "schedule", "at": at}


@pytest.mark.parametrize(
    ("at", "stored"),
    [
        ("2000-01-01T00:00", "2000-01-01T00:00"),
        ("2100-12-31T23:59", "2100-12-31T23:59"),
        ("2031-03-07T19:30:00", "2031-03-07T19:30"),
        ("2031-03-07T19:30:59", "2031-03-07T19:30"),
        ("2031-03-07T19:30:07", "2031-03-07T19:30"),
    ],
)
def test_a_rendezvous_is_kept_to_the_minute_from_2000_to_2100(at, stored):
    state = core.apply(GAME, game([1]), {**schedule(at), "place": " Café du Coin "})
    assert state["rendezvous"] == {"at": stored, "place": "Café du Coin"}
    assert core.view(GAME, state)["rendezvous"] == {"at": stored, "place": "Café du Coin"}
    assert existentiel.rendezvous_moment(at) == datetime.strptime(stored, existentiel.RENDEZVOUS_FORMAT)


@pytest.mark.parametrize(
    "at", ["1999-12-31T23:59", "2101-01-01T00:00", "2031-03-07T19:30:60", "2031-03-07T19:30:99"]
)
def test_a_rendezvous_out_of_the_years_or_the_seconds_is_quoted(at):
    error = error_of(game([1]), schedule(at))
    says(
        error,
        "existentiel.bad_rendezvous",
        {"value": at},
        f"The rendez-vous is a date and time, “YYYY-MM-DDTHH:MM” (got: {at}).",
    )
    assert text(error.code, error.params, "fr") == (
        f"Le rendez-vous est une date et une heure, «\u00a0AAAA-MM-JJTHH:MM\u00a0» (reçu\u00a0: {at})."
    )


# --- what an elimination leaves in the stored state -------------------------------------------------------


@pytest.mark.parametrize(
    ("last", "reason", "score", "refused_list"),
    [
        ([roll("p1", 1), refuse("p1")], "existentiel.eliminated_refused", 5, [2, 3, 4]),
        ([roll("p1", 1), accept("p1"), validate("p1", False)], "existentiel.eliminated_failed", 5, [2, 3, 4]),
    ],
)
def test_an_eliminated_player_is_stored_with_nothing_offered_nor_under_way(last, reason, score, refused_list):
    events = [e for _ in range(3) for e in (roll("p1", 1), refuse("p1"))] + last
    state = game([1], events)
    assert state["players"] == [
        {
            "id": "p1",
            "name": "Joueur 1",
            "birth_month": 1,
            "score": score,
            "offered": None,
            "current": None,
            "jokers": 0,
            "completed": [],
            "refused": refused_list,
            "status": "eliminated",
            "title": None,
            "must_accept": False,
            "reason": reason,
        }
    ]
    assert state["phase"] == "over"
