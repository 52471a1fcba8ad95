"""Il Morto (RULES.md §3): what each refusal says, the view once the game is over, and the reveal check.

test_morto.py proves each rule through its codes. These pin the words the table reads: every
refusal's params and sentence (the name of who is dead, the cards missing...), the view after the
end (nobody plays first any more), and the answers of the two checks a screen asks.
"""

from __future__ import annotations

import copy

import pytest

from engine import core, morto
from engine.core import InvalidEvent, RuleError
from engine.messages import refusal, text
from tests.test_morto import play, quick, reveal, speak, touch  # the scenarios' own event builders

GAME = "morto"
NAMES = ["Ada", "Bruno", "Chiara", "Dario", "Elena", "Fabio"]


def new(count: int = 5, **options) -> dict:
    return core.setup(GAME, NAMES[:count], options)


def refused(state: dict, event: dict) -> RuleError:
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as caught:
        core.apply(GAME, state, event)
    assert state == before
    return caught.value


def says(error: RuleError, code: str, params: dict, english: str, french: str | None = None) -> None:
    """The refusal has this code and params, and the table reads this sentence."""
    assert (error.code, error.params) == (code, params)
    worded = refusal(error.code, error.params, "en")
    assert worded["message"] == english
    if french is not None:
        assert worded["messages"]["fr"] == french


def dead(state: dict, *pids: str) -> dict:
    for pid in pids:
        while state["players"][int(pid[1:]) - 1]["lives"] > 0:
            state = play(state, touch(pid))
    return state


# --- what each refusal says -----------------------------------------------------------------------


def test_the_dealer_touching_is_refused_by_name():
    error = refused(new(), touch("p1"))
    says(
        error,
        "morto.dealer_may_touch",
        {"player": "p1", "name": "Ada"},
        "The dealer may touch the cards before knocking.",
    )


def test_a_dead_player_touching_is_named():
    error = refused(dead(new(), "p2"), touch("p2"))
    says(
        error,
        "morto.dead_cannot_touch",
        {"player": "p2", "name": "Bruno"},
        "Bruno is dead: the dead are dealt no card.",
        "Bruno est mort·e\u00a0: les mort·es ne reçoivent pas de carte.",
    )


def test_a_player_revived_this_round_touching_is_named():
    state = play(dead(new(), "p2"), speak("p3", "p2"))
    error = refused(state, touch("p2"))
    says(
        error,
        "morto.not_dealt",
        {"player": "p2", "name": "Bruno"},
        "Bruno holds no card this round (brought back to life during it, dealt in from the next).",
    )


def test_speaking_refusals_name_who_spoke_or_who_listened():
    state = dead(new(), "p2")
    says(
        refused(state, speak("p3", "p3")),
        "morto.same_player",
        {"player": "p3", "name": "Chiara"},
        "That takes two different players.",
    )
    says(
        refused(state, speak("p2", "p3")),
        "morto.speaker_is_dead",
        {"player": "p2", "name": "Bruno"},
        "Bruno is dead: only a living player gives a life by speaking to the dead.",
    )
    says(
        refused(state, speak("p3", "p4")),
        "morto.listener_is_alive",
        {"player": "p4", "name": "Dario"},
        "Dario is alive: a life is given only for speaking to the dead.",
    )
    says(
        refused(state, speak("p1", "p2")),
        "morto.dealer_may_speak",
        {"player": "p1", "name": "Ada"},
        "The dealer may speak to the dead.",
        "Le·a dealer a le droit de parler aux mort·es.",
    )


def test_a_reveal_naming_those_without_a_card_names_each_of_them():
    state = dead(new(), "p2", "p3")
    error = refused(state, reveal({"p1": 5, "p2": 6, "p3": 7, "p4": 8, "p5": 9}))
    says(
        error,
        "morto.card_not_dealt",
        {"players": ["p2", "p3"], "names": "Bruno, Chiara", "count": 2},
        "Bruno, Chiara hold no card this round (dead, or brought back to life during it).",
    )


def test_a_reveal_missing_cards_names_whose():
    error = refused(new(), reveal({"p1": 5, "p2": 6, "p3": 7}))
    says(
        error,
        "morto.missing_cards",
        {"players": ["p4", "p5"], "names": "Dario, Elena"},
        "Missing the card of: Dario, Elena. Every living dealt player reveals their card.",
    )


def test_a_reveal_naming_a_stranger_quotes_them():
    error = refused(new(), reveal({"p9": 3}))
    assert isinstance(error, InvalidEvent)
    says(error, "unknown_player", {"player": "p9", "field": "cards"}, "Unknown player “p9”.")


@pytest.mark.parametrize(("rank", "echoed"), [(11, 11), ("5", "5"), (None, None)])
def test_a_bad_rank_is_quoted_with_its_holder(rank, echoed):
    error = refused(new(), reveal({"p2": rank}))
    says(
        error,
        "morto.bad_rank",
        {"player": "p2", "name": "Bruno", "value": echoed},
        f"Invalid rank for Bruno: {echoed} (1 Asso … 7, 8 Fante, 9 Cavallo, 10 Re).",
    )


def test_five_of_a_rank_names_the_rank():
    cards = {f"p{i}": morto.CAVALLO for i in range(1, 6)} | {"p6": 2}
    error = refused(new(6), reveal(cards))
    says(
        error,
        "morto.too_many_of_rank",
        {"rank": 9, "rank_name": "Cavallo", "count": 5},
        "The deck has only four Cavallo: 5 revealed is impossible.",
    )


def test_the_quick_reveal_refusals_say_which_rule():
    state = dead(new(), "p3")
    says(
        refused(state, quick(["p2", "p3"])),
        "morto.card_not_dealt",
        {"players": ["p3"], "names": "Chiara", "count": 1},
        "Chiara holds no card this round (dead, or brought back to life during it).",
    )
    says(
        refused(new(6), quick(["p1", "p2", "p3", "p4", "p5"])),
        "morto.too_many_lowest",
        {"count": 5},
        "At most four players hold the lowest card (the deck has four of each rank): 5 named is impossible.",
        "Au plus quatre personnes ont la plus petite carte (le jeu a quatre cartes de chaque rang)\u00a0:"
        " 5 nommées, c'est impossible.",
    )
    says(
        refused(new(), quick(["p4", "p4"])),
        "morto.named_twice",
        {"player": "p4", "name": "Dario"},
        "Dario is named twice: a reveal costs each player one life at most.",
        "Dario est nommé·e deux fois\u00a0: une révélation ne coûte qu'une vie à chacun·e.",
    )
    says(
        refused(new(), quick([])),
        "morto.bad_lowest",
        {},
        "The quick reveal names who holds the lowest card: a list of 1 to 4 players [id, …].",
        "La révélation rapide nomme qui a la plus petite carte\u00a0:"
        " une liste de 1 à 4 joueur·euses [id, …].",
    )
    says(
        refused(new(), {"type": "reveal", "cards": {}, "lowest": ["p2"]}),
        "morto.cards_or_lowest",
        {},
        "A reveal gives either everyone's card (cards) or who holds the lowest card (lowest): one or the"
        " other, not both.",
        "Une révélation donne soit la carte de chacun·e (cards), soit qui a la plus petite carte"
        " (lowest)\u00a0: l'un ou l'autre, pas les deux.",
    )
    error = refused(new(), quick(["p9"]))
    assert isinstance(error, InvalidEvent)
    says(error, "unknown_player", {"player": "p9", "field": "lowest"}, "Unknown player “p9”.")


# --- the view ---------------------------------------------------------------------------------------


def test_the_view_lists_the_ranks_the_lives_and_the_dealer():
    view = core.view(GAME, new(4, lives=5, dealer=2))
    assert view["lives"] == 5
    assert view["ranks"] == [
        {"rank": 1, "name": "Asso"},
        {"rank": 2, "name": "2"},
        {"rank": 3, "name": "3"},
        {"rank": 4, "name": "4"},
        {"rank": 5, "name": "5"},
        {"rank": 6, "name": "6"},
        {"rank": 7, "name": "7"},
        {"rank": 8, "name": "Fante"},
        {"rank": 9, "name": "Cavallo"},
        {"rank": 10, "name": "Re"},
    ]
    assert view["face_up_ranks"] == [9, 10]
    assert [p["dealer"] for p in view["players"]] == [False, False, True, False]
    assert (view["dealer"], view["plays_first"], view["play_order"]) == ("p3", "p4", ["p4", "p1", "p2", "p3"])


def test_a_dead_player_is_shown_dealt_no_card():
    view = core.view(GAME, dead(new(), "p2"))
    bruno = view["players"][1]
    assert (bruno["lives"], bruno["alive"], bruno["dealt"]) == (0, False, False)
    assert bruno["dealt"] is False


def test_once_won_nobody_plays_first_and_the_view_says_who_won():
    state = dead(new(3, lives=1), "p2", "p3")
    view = core.view(GAME, state)
    assert view["over"] is True
    assert view["winners"] == ["p1"]
    assert view["outcome"] == {"reason": "morto.won", "params": {"names": "Ada"}}
    assert text("morto.won", view["outcome"]["params"], "en") == "Ada wins!"
    assert view["plays_first"] is None
    assert view["play_order"] == []
    assert [p["dealt"] for p in view["players"]] == [False, False, False]
    assert view["actions"] == []


def test_dying_together_shares_the_win_by_name():
    state = play(dead(new(3, lives=1), "p2"), reveal({"p3": 2, "p1": 2}))
    view = core.view(GAME, state)
    assert view["winners"] == ["p1", "p3"]
    assert view["outcome"] == {"reason": "morto.shared_win", "params": {"names": "Ada, Chiara"}}
    assert text("morto.shared_win", view["outcome"]["params"], "en") == (
        "The last living players died together: Ada, Chiara share the win."
    )
    assert (view["plays_first"], view["play_order"]) == (None, [])


def test_once_over_the_dead_dealer_holds_no_card_for_the_checks():
    """RULES §3: the dead are skipped everywhere, the dealer who died in the last reveal too."""
    state = play(dead(new(3, lives=1), "p2"), reveal({"p3": 5, "p1": 2}))
    assert core.view(GAME, state)["winners"] == ["p3"]
    assert [turn["player"] for turn in core.check(GAME, state, "swap", {})["turns"]] == ["p3"]
    assert core.check(GAME, state, "reveal", {"cards": {"p3": 4}})["ok"] is True


# --- the swap helper ---------------------------------------------------------------------------------


def test_the_swap_helper_names_the_player_to_swap_with():
    answer = core.check(GAME, new(), "swap", {"face_up": {"p3": morto.CAVALLO}})
    assert answer["ok"] is True
    first, second = answer["turns"][:2]
    assert first == {
        "player": "p2",
        "may_swap": True,
        "with": "p4",
        "code": "morto.swap.past_cavalli",
        "target_name": "Dario",
    }
    assert text(first["code"], first, "en") == "Cavallo next: may keep or swap with Dario, past the Cavalli."
    assert second == {"player": "p3", "may_swap": False, "with": None, "code": "morto.swap.own_face_up"}
    assert answer["turns"][2]["target_name"] == "Elena"


def test_the_swap_helper_with_nothing_face_up():
    state = new()
    assert core.check(GAME, state, "swap", {}) == core.check(GAME, state, "swap", {"face_up": {}})
    assert core.check(GAME, state, "swap", {})["turns"][0]["target_name"] == "Chiara"


def test_the_swap_helper_quotes_what_it_refuses():
    state = dead(new(), "p2")
    with pytest.raises(InvalidEvent) as caught:
        core.check(GAME, state, "swap", {"face_up": {"p2": 9}})
    says(caught.value, "unknown_player", {"player": "p2", "field": "face_up"}, "Unknown player “p2”.")
    with pytest.raises(InvalidEvent) as caught:
        core.check(GAME, state, "swap", {"face_up": {"p3": 8}})
    says(
        caught.value,
        "morto.bad_face_up",
        {"player": "p3", "value": 8},
        "Only a Cavallo (9) or a Re (10) is laid face up.",
    )


# --- the reveal check --------------------------------------------------------------------------------


def check_reveal(state: dict, params: dict) -> dict:
    before = copy.deepcopy(state)
    answer = core.check(GAME, state, "reveal", params)
    assert state == before
    return answer


def test_a_reveal_being_entered_says_who_is_missing_and_who_loses_so_far():
    answer = check_reveal(new(), {"cards": {"p3": 4, "p2": 6}})
    assert answer == {
        "ok": False,
        "complete": False,
        "missing": ["p4", "p5", "p1"],
        "losers": ["p3"],
        "dying": [],
        "refusal": {
            "code": "morto.missing_cards",
            "params": {"players": ["p4", "p5", "p1"], "names": "Dario, Elena, Ada"},
        },
    }


def test_a_complete_reveal_may_be_recorded_and_says_who_dies():
    state = play(new(), touch("p2"), touch("p2"), touch("p3"))  # Bruno at 1 life, Chiara at 2
    answer = check_reveal(state, {"cards": {"p1": 7, "p2": 1, "p3": 1, "p4": 1, "p5": 10}})
    assert answer == {
        "ok": True,
        "complete": True,
        "missing": [],
        "losers": ["p2", "p3", "p4"],
        "dying": ["p2"],
        "refusal": None,
    }


def test_an_empty_reveal_check_misses_everyone():
    answer = check_reveal(new(3), {})
    assert (answer["ok"], answer["complete"], answer["missing"], answer["losers"]) == (
        False,
        False,
        ["p2", "p3", "p1"],
        [],
    )
    assert answer["refusal"]["code"] == "morto.missing_cards"


def test_a_reveal_check_with_a_card_for_the_dead_says_why_it_cannot_be_recorded():
    state = dead(new(), "p2")
    answer = check_reveal(state, {"cards": {"p1": 5, "p2": 3, "p3": 6, "p4": 7, "p5": 8}})
    assert answer["ok"] is False and answer["complete"] is True
    assert answer["refusal"] == {
        "code": "morto.card_not_dealt",
        "params": {"players": ["p2"], "names": "Bruno", "count": 1},
    }


@pytest.mark.parametrize(
    ("cards", "code"),
    [([3, 4], "morto.bad_cards"), ({"p9": 3}, "unknown_player"), ({"p2": 0}, "morto.bad_rank")],
)
def test_the_reveal_check_refuses_malformed_cards(cards, code):
    with pytest.raises(InvalidEvent) as caught:
        core.check(GAME, new(), "reveal", {"cards": cards})
    assert caught.value.code == code


# --- the largest table: twenty players, twenty cards ---------------------------------------------------


def full_table() -> dict:
    return core.setup(GAME, [f"Joueur {n}" for n in range(1, morto.MAX_PLAYERS + 1)], {})


def test_a_reveal_at_a_full_table_takes_a_card_from_each_of_the_twenty():
    state = full_table()
    assert morto.MAX_PLAYERS == 20 and len(state["players"]) == 20
    cards = {f"p{n}": (n + 1) // 2 for n in range(1, 21)}  # two of each rank: p1 and p2 hold the Asso
    answer = check_reveal(state, {"cards": cards})
    assert answer == {
        "ok": True,
        "complete": True,
        "missing": [],
        "losers": ["p1", "p2"],
        "dying": [],
        "refusal": None,
    }
    state = play(state, reveal(cards))
    assert (state["round"], state["dealer"]) == (2, "p2")
    assert [p["lives"] for p in state["players"]] == [2, 2] + [3] * 18
    error = refused(full_table(), reveal({**cards, "p21": 1}))
    says(
        error,
        "morto.bad_cards",
        {},
        "The reveal gives one card per dealt player: {id: rank 1..10}.",
        "La révélation donne une carte par joueur·euse servi·e\u00a0: {id: rang 1..10}.",
    )


def test_a_quick_reveal_at_a_full_table_reads_twenty_names_and_no_more():
    every = [f"p{n}" for n in range(1, 21)]
    says(
        refused(full_table(), quick(every)),  # read, then refused by the rule
        "morto.too_many_lowest",
        {"count": 20},
        "At most four players hold the lowest card (the deck has four of each rank): 20 named is impossible.",
    )
    says(
        refused(full_table(), quick([*every, "p1"])),
        "morto.bad_lowest",
        {},
        text("morto.bad_lowest", {}, "en"),
    )
    state = play(full_table(), quick(every[16:]))
    assert [p["lives"] for p in state["players"]] == [3] * 16 + [2] * 4


def test_the_swap_helper_at_a_full_table_reads_twenty_face_up_cards():
    state = full_table()
    face_up = {f"p{n}": morto.CAVALLO for n in range(1, 21)}
    turns = core.check(GAME, state, "swap", {"face_up": face_up})["turns"]
    assert [turn["player"] for turn in turns] == [f"p{n}" for n in range(2, 21)] + ["p1"]
    assert all(
        turn == {"player": turn["player"], "may_swap": False, "with": None, "code": "morto.swap.own_face_up"}
        for turn in turns
    )
    with pytest.raises(InvalidEvent) as caught:
        core.check(GAME, state, "swap", {"face_up": {**face_up, "p21": morto.CAVALLO}})
    says(caught.value, "morto.bad_cards", {}, "The reveal gives one card per dealt player: {id: rank 1..10}.")
