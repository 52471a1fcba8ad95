"""Il Morto through the engine's interface (RULES.md §0 and §3): one test per rule and decision.

Everything goes through ``engine.core`` (``setup``, ``apply``, ``replay``, ``undo``, ``view``) as the
server and the browser use it. Every refused event is checked the same way (``refuse``): the stable
code, nothing changed, and a French and an English sentence that fill in all their placeholders.

The second half (below the ``# ===`` line) pins the words the table reads: every
refusal's params and sentence (the name of who is dead, the cards missing...), the view after the
end (nobody plays first any more), and the answers of the two checks a screen asks.
"""

from __future__ import annotations

import copy
import json
import string

import pytest

from engine import core, morto
from engine.core import IllegalEvent, InvalidEvent, RuleError
from engine.messages import catalogue, forms, refusal, sentences, text

GAME = "morto"


# --- helpers -------------------------------------------------------------------------------------


def names(count: int) -> list[str]:
    return [f"Joueur {i + 1}" for i in range(count)]


def new(count: int = 5, **options) -> dict:
    return core.setup(GAME, names(count), options)


def play(state: dict, *events: dict) -> dict:
    for event in events:
        state = core.apply(GAME, state, event)
    return state


def touch(pid: str) -> dict:
    return {"type": "touched_early", "player": pid}


def speak(living: str, dead: str) -> dict:
    return {"type": "spoke_to_dead", "living": living, "dead": dead}


def reveal(cards) -> dict:
    return {"type": "reveal", "cards": cards}


def quick(lowest) -> dict:
    """The quick reveal: the table names who holds the lowest card."""
    return {"type": "reveal", "lowest": lowest}


def show(state: dict) -> dict:
    return core.view(GAME, state)


def lives(state: dict) -> dict[str, int]:
    return {p["id"]: p["lives"] for p in show(state)["players"]}


def living(state: dict) -> list[str]:
    return [p["id"] for p in show(state)["players"] if p["alive"]]


def holders(state: dict) -> list[str]:
    """Who holds a card this round, in play order (the view's own words)."""
    return show(state)["play_order"]


def cards_for(state: dict, losers=(), low: int = 1) -> dict[str, int]:
    """A legal reveal where exactly ``losers`` hold the lowest rank ``low`` and everyone else more."""
    higher = [rank for rank in morto.RANKS if rank > low]
    cards, spread = {}, 0
    for pid in holders(state):
        if pid in losers:
            cards[pid] = low
        else:
            cards[pid] = higher[spread % len(higher)]
            spread += 1
    return cards


def kill(state: dict, pid: str) -> dict:
    """Touches until ``pid`` (a dealt player, not the dealer) is dead."""
    while lives(state)[pid] > 0:
        state = play(state, touch(pid))
    return state


def assert_explained(error: RuleError) -> None:
    """The code has a French and an English sentence, and the error carries every param they use."""
    assert forms(error.code), error.code
    french, english = text(error.code, error.params, "fr"), text(error.code, error.params, "en")
    assert french != error.code and english != error.code
    assert french != english
    for template in (sentence for key in forms(error.code) for sentence in catalogue()[key]):
        for _, field, _, _ in string.Formatter().parse(template):
            if field:
                assert field in error.params, (error.code, field, error.params)


def refuse(state: dict, event, code: str, kind: type = RuleError) -> RuleError:
    """The event is refused with ``code``, changes nothing, and says why in both languages."""
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as caught:
        core.apply(GAME, state, event)
    assert caught.value.code == code, str(caught.value)
    assert isinstance(caught.value, kind)
    assert state == before
    # Handlers check everything before they change anything, even when applied in place.
    in_place = copy.deepcopy(state)
    with pytest.raises(RuleError):
        core.apply_in_place(morto, in_place, event)
    assert in_place == before
    assert_explained(caught.value)
    return caught.value


def refuse_setup(players, options, code: str) -> None:
    with pytest.raises(InvalidEvent) as caught:
        core.setup(GAME, players, options)
    assert caught.value.code == code, str(caught.value)
    assert_explained(caught.value)


# --- setup ---------------------------------------------------------------------------------------


def test_setup_gives_everyone_the_lives_and_a_card_and_the_first_seat_deals():
    view = show(new(5))
    ids = [p["id"] for p in view["players"]]
    assert len(set(ids)) == 5 and all(isinstance(pid, str) for pid in ids)
    assert [p["name"] for p in view["players"]] == names(5)
    assert all(p["lives"] == 3 and p["alive"] and p["dealt"] for p in view["players"])
    assert view["dealer"] == ids[0]
    assert view["plays_first"] == ids[1]
    assert view["play_order"] == ids[1:] + ids[:1]  # to the dealer's right, the dealer last
    assert view["round"] == 1
    assert view["over"] is False and view["winners"] == []


@pytest.mark.parametrize("count", [3, 4, 12, 20])
def test_three_to_twenty_players(count):
    assert len(show(new(count))["players"]) == count


@pytest.mark.parametrize("count", [0, 1, 2, 21, 40])
def test_too_few_or_too_many_players_refused(count):
    refuse_setup(names(count), {}, "player_count")


@pytest.mark.parametrize("lives_option", range(1, 10))
def test_lives_option(lives_option):
    assert set(lives(new(4, lives=lives_option)).values()) == {lives_option}


@pytest.mark.parametrize("bad", [0, 10, -1, "3", 3.0, True, None, [3]])
def test_lives_option_out_of_range_or_not_a_number_refused(bad):
    refuse_setup(names(4), {"lives": bad}, "bad_option")


@pytest.mark.parametrize("count", [3, 6])
def test_first_dealer_option(count):
    for index in range(count):
        view = show(new(count, dealer=index))
        ids = [p["id"] for p in view["players"]]
        assert view["dealer"] == ids[index]
        assert view["plays_first"] == ids[(index + 1) % count]
        assert view["play_order"][-1] == ids[index]


@pytest.mark.parametrize("bad", [-1, 5, "0", True, 1.0, None])
def test_first_dealer_must_be_a_seat(bad):
    refuse_setup(names(5), {"dealer": bad}, "bad_option")


def test_names_are_trimmed():
    view = show(core.setup(GAME, ["  Ada ", "\tBruno", "Chiara\n"], {}))
    assert [p["name"] for p in view["players"]] == ["Ada", "Bruno", "Chiara"]


def test_players_may_be_given_as_objects():
    view = show(core.setup(GAME, [{"name": "Ada"}, {"name": " Bruno "}, "Chiara"], {}))
    assert [p["name"] for p in view["players"]] == ["Ada", "Bruno", "Chiara"]


@pytest.mark.parametrize(
    "twins", [["Ada", "ada"], ["ADA", " ada "], ["Élodie", "éLODIE"], ["Straße", "STRASSE"]]
)
def test_names_are_unique_ignoring_case(twins):
    refuse_setup(["Bruno", *twins], {}, "duplicate_name")


def test_name_length_one_to_forty_after_trimming():
    longest = "x" * core.NAME_MAX
    view = show(core.setup(GAME, ["A", f"  {longest}  ", "Bruno"], {}))
    assert [p["name"] for p in view["players"]] == ["A", longest, "Bruno"]
    refuse_setup(["Ada", "Bruno", "x" * (core.NAME_MAX + 1)], {}, "name_length")
    refuse_setup(["Ada", "Bruno", ""], {}, "name_length")
    refuse_setup(["Ada", "Bruno", "   "], {}, "name_length")


@pytest.mark.parametrize("bad", [5, None, ["Ada"], {}, {"name": 3}, True])  # {"nom": …}: unknown_field
def test_a_name_must_be_text(bad):
    refuse_setup(["Ada", "Bruno", bad], {}, "bad_name")


def test_players_must_be_a_list_and_options_an_object():
    refuse_setup("Ada, Bruno, Chiara", {}, "bad_players")
    refuse_setup({"Ada": 1, "Bruno": 2, "Chiara": 3}, {}, "bad_players")
    refuse_setup(names(3), ["lives", 3], "bad_options")


# --- touched_early -------------------------------------------------------------------------------


def test_touching_early_costs_the_player_one_life():
    state = new(5)
    for pid in holders(state)[:-1]:  # everyone but the dealer, who plays last
        after = play(state, touch(pid))
        expected = dict(lives(state), **{pid: lives(state)[pid] - 1})
        assert lives(after) == expected


def test_several_touches_in_one_round_each_cost_a_life():
    state = play(new(5, lives=4), touch("p2"), touch("p2"), touch("p4"))
    assert lives(state) == {"p1": 4, "p2": 2, "p3": 4, "p4": 3, "p5": 4}
    assert show(state)["round"] == 1


def test_the_dealer_may_touch():
    state = new(5, dealer=2)
    dealer = show(state)["dealer"]
    assert dealer == "p3"
    refuse(state, touch(dealer), "morto.dealer_may_touch", IllegalEvent)
    assert lives(play(state, touch("p1")))["p1"] == 2  # the first seat is no dealer here


def test_the_dead_cannot_touch():
    state = kill(new(4, lives=2), "p2")
    assert "p2" not in living(state)
    refuse(state, touch("p2"), "morto.dead_cannot_touch", IllegalEvent)


def test_a_player_revived_this_round_holds_no_card_to_touch():
    state = kill(new(5, lives=2), "p3")
    state = play(state, speak("p4", "p3"))
    refuse(state, touch("p3"), "morto.not_dealt", IllegalEvent)
    state = play(state, reveal(cards_for(state, ["p5"])))
    assert show(state)["dealer"] == "p2"
    assert lives(play(state, touch("p3")))["p3"] == lives(state)["p3"] - 1  # dealt in from the next round


@pytest.mark.parametrize(
    "event", [touch("p9"), touch(None), touch(2), touch(["p2"]), touch("P2"), {"type": "touched_early"}]
)
def test_touch_by_an_unknown_player_refused(event):
    refuse(new(5), event, "unknown_player", InvalidEvent)


def test_a_player_who_dies_touching_is_no_longer_in_the_reveal():
    state = play(new(4, lives=1), touch("p3"))
    view = show(state)
    p3 = next(p for p in view["players"] if p["id"] == "p3")
    assert p3["lives"] == 0 and not p3["alive"] and not p3["dealt"]
    assert "p3" not in holders(state)
    with_dead = {**cards_for(state, ["p2"]), "p3": 8}
    error = refuse(state, reveal(with_dead), "morto.card_not_dealt", IllegalEvent)
    assert error.params["players"] == ["p3"]
    after = play(state, reveal(cards_for(state, ["p2"])))
    assert lives(after)["p3"] == 0


# --- spoke_to_dead -------------------------------------------------------------------------------


def test_speaking_to_the_dead_gives_them_a_life_and_they_are_dealt_in_next_round():
    state = kill(new(5, lives=3), "p3")
    before = lives(state)
    state = play(state, speak("p2", "p3"))
    assert lives(state)["p2"] == before["p2"] - 1
    assert lives(state)["p3"] == 1
    p3 = next(p for p in show(state)["players"] if p["id"] == "p3")
    assert p3["alive"] and not p3["dealt"]
    # Not in this round's reveal...
    assert "p3" not in holders(state)
    refuse(state, reveal({**cards_for(state, ["p4"]), "p3": 8}), "morto.card_not_dealt", IllegalEvent)
    state = play(state, reveal(cards_for(state, ["p4"])))
    # ...but dealt in the next one, where the reveal needs their card.
    assert "p3" in holders(state)
    assert next(p for p in show(state)["players"] if p["id"] == "p3")["dealt"]
    without = {pid: rank for pid, rank in cards_for(state, ["p4"]).items() if pid != "p3"}
    error = refuse(state, reveal(without), "morto.missing_cards", IllegalEvent)
    assert error.params["players"] == ["p3"]


def test_the_dealer_may_speak_to_the_dead():
    state = kill(new(5), "p3")
    refuse(state, speak("p1", "p3"), "morto.dealer_may_speak", IllegalEvent)


def test_speaking_to_a_living_player_costs_nothing():
    refuse(new(5), speak("p2", "p3"), "morto.listener_is_alive", IllegalEvent)


def test_the_dead_cannot_give_a_life():
    state = kill(kill(new(5, lives=1), "p2"), "p3")
    refuse(state, speak("p2", "p3"), "morto.speaker_is_dead", IllegalEvent)


def test_speaking_to_oneself_refused():
    refuse(kill(new(5), "p3"), speak("p3", "p3"), "morto.same_player", IllegalEvent)
    refuse(new(5), speak("p2", "p2"), "morto.same_player", IllegalEvent)


@pytest.mark.parametrize(
    "event",
    [
        speak("p9", "p3"),
        speak("p2", "p9"),
        speak(None, "p3"),
        {"type": "spoke_to_dead", "living": "p2"},
        speak(["p2"], {"p": 3}),
    ],
)
def test_speaking_with_unknown_players_refused(event):
    refuse(kill(new(5), "p3"), event, "unknown_player", InvalidEvent)


def test_a_living_player_giving_their_last_life_dies_and_the_dead_lives():
    state = kill(new(5, lives=1), "p2")
    state = play(state, speak("p3", "p2"))
    by_id = {p["id"]: p for p in show(state)["players"]}
    assert by_id["p3"]["lives"] == 0 and not by_id["p3"]["alive"]
    assert by_id["p2"]["lives"] == 1 and by_id["p2"]["alive"] and not by_id["p2"]["dealt"]
    assert holders(state) == ["p4", "p5", "p1"]
    refuse(state, touch("p3"), "morto.dead_cannot_touch", IllegalEvent)


# --- reveal --------------------------------------------------------------------------------------


@pytest.mark.parametrize("low", sorted(morto.RANKS))
def test_the_holder_of_the_lowest_rank_loses_a_life(low):
    state = new(4)
    cards = {"p1": min(low + 3, 10), "p2": low, "p3": min(low + 1, 10), "p4": min(low + 2, 10)}
    after = play(state, reveal(cards))
    lowest = min(cards.values())
    assert lives(after) == {pid: 3 - (rank == lowest) for pid, rank in cards.items()}
    assert lives(after)["p2"] == 2


def test_every_holder_of_the_lowest_rank_loses_a_life():
    state = play(new(5), reveal({"p1": 9, "p2": 3, "p3": 7, "p4": 3, "p5": 4}))
    assert lives(state) == {"p1": 3, "p2": 2, "p3": 3, "p4": 2, "p5": 3}


def test_four_players_all_showing_the_same_rank_all_lose():
    state = play(new(4), reveal({"p1": 10, "p2": 10, "p3": 10, "p4": 10}))
    assert set(lives(state).values()) == {2}


def test_the_reveal_needs_every_dealt_living_player():
    state = new(5)
    cards = cards_for(state, ["p2"])
    del cards["p4"], cards["p1"]
    error = refuse(state, reveal(cards), "morto.missing_cards", IllegalEvent)
    assert sorted(error.params["players"]) == ["p1", "p4"]


def test_the_dead_have_no_card_to_reveal():
    state = kill(new(5, lives=1), "p4")
    error = refuse(state, reveal({**cards_for(state, ["p2"]), "p4": 5}), "morto.card_not_dealt", IllegalEvent)
    assert error.params["players"] == ["p4"]


def test_a_card_for_someone_not_at_the_table_refused():
    state = new(5)
    refuse(state, reveal({**cards_for(state, ["p2"]), "p6": 5}), "unknown_player", InvalidEvent)


def test_at_most_four_of_a_rank():
    state = new(6)
    five = {"p1": 4, "p2": 4, "p3": 4, "p4": 4, "p5": 4, "p6": 9}
    error = refuse(state, reveal(five), "morto.too_many_of_rank", IllegalEvent)
    assert error.params["rank"] == 4 and error.params["count"] == 5
    four = dict(five, p5=8)
    assert lives(play(state, reveal(four))) == {"p1": 2, "p2": 2, "p3": 2, "p4": 2, "p5": 3, "p6": 3}


@pytest.mark.parametrize("bad", [0, 11, -1, 100, "5", "Re", 5.0, 5.5, True, False, None, [5], {"rank": 5}])
def test_invalid_ranks_refused(bad):
    state = new(5)
    refuse(state, reveal({**cards_for(state, ["p2"]), "p3": bad}), "morto.bad_rank", InvalidEvent)


@pytest.mark.parametrize("bad", [[1, 2, 3, 4, 5], "p1:1", None, 5, True])
def test_cards_must_be_an_object(bad):
    refuse(new(5), reveal(bad), "morto.bad_cards", InvalidEvent)


def test_after_a_reveal_a_new_round_deals_every_living_player():
    state = kill(new(5, lives=2), "p3")
    state = play(state, speak("p4", "p3"))
    assert show(state)["round"] == 1
    state = play(state, reveal(cards_for(state, ["p5"])))
    view = show(state)
    assert view["round"] == 2
    assert all(p["dealt"] == p["alive"] for p in view["players"])
    assert sorted(holders(state)) == sorted(living(state))


def test_the_round_counter_counts_reveals_only():
    state = new(5, lives=9)
    for expected in range(1, 6):
        assert show(state)["round"] == expected
        state = play(state, touch(holders(state)[0]))
        assert show(state)["round"] == expected
        state = play(state, reveal(cards_for(state, [holders(state)[1]])))


# --- the quick reveal (RULES §3, a Decision: the table names who holds the lowest card) ------------


def test_the_quick_reveal_takes_a_life_from_the_one_named_and_ends_the_round():
    state = new(5)
    after = play(state, quick(["p3"]))
    assert lives(after) == {"p1": 3, "p2": 3, "p3": 2, "p4": 3, "p5": 3}
    view = show(after)
    assert (view["round"], view["dealer"], view["plays_first"]) == (2, "p2", "p3")
    # Exactly the state a full reveal with the same loser leaves: one rule book for the round's end.
    assert after == play(state, reveal(cards_for(state, ["p3"])))


def test_a_tie_named_in_the_quick_reveal_costs_each_a_life():
    state = new(6, dealer=3)
    after = play(state, quick(["p5", "p1", "p2"]))
    assert lives(after) == {"p1": 2, "p2": 2, "p3": 3, "p4": 3, "p5": 2, "p6": 3}
    assert show(after)["dealer"] == "p5"
    assert after == play(state, reveal(cards_for(state, ["p1", "p2", "p5"])))


def test_four_named_at_most_a_rank_has_four_cards():
    state = new(6)
    after = play(state, quick(["p1", "p2", "p3", "p4"]))
    assert lives(after) == {"p1": 2, "p2": 2, "p3": 2, "p4": 2, "p5": 3, "p6": 3}
    error = refuse(state, quick(["p1", "p2", "p3", "p4", "p5"]), "morto.too_many_lowest", IllegalEvent)
    assert error.params == {"count": 5}


def test_a_player_named_on_their_last_life_dies_and_the_deal_passes_them_by():
    state = new(5, lives=1)  # p1 deals: p2 is next, and dies in the reveal
    after = play(state, quick(["p2"]))
    assert "p2" not in living(after)
    view = show(after)
    assert (view["dealer"], view["plays_first"], view["round"]) == ("p3", "p4", 2)
    assert holders(after) == ["p4", "p5", "p1", "p3"]
    assert after == play(state, reveal(cards_for(state, ["p2"])))
    # The dealer named on their last life dies too: the next living seat deals, past the dead.
    after = play(kill(state, "p2"), quick(["p1"]))
    assert living(after) == ["p3", "p4", "p5"]
    assert show(after)["dealer"] == "p3"


def test_the_game_ends_on_a_quick_reveal():
    state = kill(kill(new(4, lives=1), "p2"), "p3")
    assert holders(state) == ["p4", "p1"]
    won = play(state, quick(["p1"]))
    assert show(won)["over"] is True and show(won)["winners"] == ["p4"]
    assert morto.outcome(won).reason == "morto.won"
    # Both last living players named on their last life: they share the win, in seat order.
    shared = play(state, quick(["p4", "p1"]))
    assert show(shared)["winners"] == ["p1", "p4"]
    assert morto.outcome(shared).reason == "morto.shared_win"
    assert shared == play(state, reveal({"p4": 2, "p1": 2}))
    refuse(won, quick(["p4"]), "game_over", IllegalEvent)


def test_only_a_player_holding_a_card_this_round_may_be_named():
    state = kill(new(5, lives=2), "p3")  # p3 is dead
    refuse(state, quick(["p3"]), "morto.card_not_dealt", IllegalEvent)
    revived = play(state, speak("p4", "p3"))  # alive again, dealt in from the next round only
    error = refuse(revived, quick(["p2", "p3"]), "morto.card_not_dealt", IllegalEvent)
    assert error.params == {"players": ["p3"], "names": "Joueur 3", "count": 1}
    # Whom the view says holds a card is exactly whom a quick reveal may name.
    for pid in lives(revived):
        if pid in holders(revived):
            play(revived, quick([pid]))
        else:
            refuse(revived, quick([pid]), "morto.card_not_dealt", IllegalEvent)


def test_a_player_named_twice_is_refused():
    error = refuse(new(5), quick(["p2", "p4", "p2"]), "morto.named_twice", InvalidEvent)
    assert error.params == {"player": "p2", "name": "Joueur 2"}


@pytest.mark.parametrize("bad", [[], "p2", {"p2": 1}, None, 2, True, ["p1"] * 21])
def test_the_quick_reveal_names_a_list_of_one_to_four_players(bad):
    refuse(new(5), quick(bad), "morto.bad_lowest", InvalidEvent)


@pytest.mark.parametrize("bad", [["p9"], ["p2", None], [2], [["p2"]], [{"id": "p2"}], ["P2"], ["p2 "]])
def test_the_quick_reveal_names_players_of_the_table(bad):
    error = refuse(new(5), quick(bad), "unknown_player", InvalidEvent)
    assert error.params["field"] == "lowest"


def test_a_reveal_gives_the_cards_or_who_holds_the_lowest_never_both():
    state = new(5)
    both = {**reveal(cards_for(state, ["p2"])), "lowest": ["p2"]}
    refuse(state, both, "morto.cards_or_lowest", InvalidEvent)
    refuse(state, {"type": "reveal"}, "morto.cards_or_lowest", InvalidEvent)


def test_undo_takes_a_quick_reveal_back_exactly():
    events = [touch("p2"), quick(["p2"]), quick(["p4", "p5"]), touch("p3")]
    states = [new(5, lives=2)]
    for event in events:
        states.append(play(states[-1], event))
    assert lives(states[2])["p2"] == 0  # p2 died in the first quick reveal
    for count in range(1, len(events) + 1):
        assert core.undo(GAME, names(5), {"lives": 2}, events[:count]) == states[count - 1]
    assert core.replay(GAME, names(5), {"lives": 2}, events) == states[-1]


def test_the_reveal_action_stands_for_both_kinds_of_reveal():
    """``state.actions`` lists one ``reveal``: the table supplies ``cards``, or ``lowest`` (of
    ``play_order``)."""
    state = kill(new(5), "p3")
    listed = [action for action in show(state)["actions"] if action["type"] == "reveal"]
    assert listed == [{"type": "reveal"}]
    play(state, {**listed[0], "lowest": [holders(state)[0]]})
    play(state, {**listed[0], "cards": cards_for(state, [holders(state)[0]])})


# --- death ---------------------------------------------------------------------------------------


def _dies_touching(state):
    return play(state, touch("p2"))


def _dies_speaking(state):
    state = kill(state, "p4")
    return play(state, speak("p2", "p4"))


def _dies_in_reveal(state):
    return play(state, reveal(cards_for(state, ["p2"])))


@pytest.mark.parametrize("cause", [_dies_touching, _dies_speaking, _dies_in_reveal])
def test_a_player_at_zero_lives_is_dead_whatever_the_cause(cause):
    state = cause(new(5, lives=1))
    p2 = next(p for p in show(state)["players"] if p["id"] == "p2")
    assert p2["lives"] == 0 and not p2["alive"] and not p2["dealt"]
    assert "p2" not in holders(state)
    assert show(state)["dealer"] != "p2" and show(state)["plays_first"] != "p2"
    refuse(state, touch("p2"), "morto.dead_cannot_touch", IllegalEvent)
    dead = [pid for pid in lives(state) if pid != "p2" and lives(state)[pid] == 0]
    if dead:
        refuse(state, speak("p2", dead[0]), "morto.speaker_is_dead", IllegalEvent)


# --- the dealer and who plays first --------------------------------------------------------------


def test_the_deal_passes_to_the_next_seat_round_after_round():
    state = new(5, lives=9)
    seen = []
    for _ in range(6):
        seen.append(show(state)["dealer"])
        state = play(state, reveal(cards_for(state, [holders(state)[0]])))
    assert seen == ["p1", "p2", "p3", "p4", "p5", "p1"]


def test_the_deal_skips_the_dead():
    state = kill(new(5, lives=1), "p2")
    state = play(state, reveal(cards_for(state, ["p4"])))
    assert show(state)["dealer"] == "p3"


def test_the_deal_wraps_past_the_last_seat():
    state = new(5, dealer=4)
    state = play(state, reveal(cards_for(state, ["p2"])))
    assert show(state)["dealer"] == "p1"


def test_the_deal_passes_on_when_the_dealer_dies_in_the_reveal():
    state = new(5, lives=1)
    state = play(state, reveal(cards_for(state, ["p1"])))
    assert "p1" not in living(state)
    assert show(state)["dealer"] == "p2"
    state = kill(new(5, lives=1), "p2")
    state = play(state, reveal(cards_for(state, ["p1"])))
    assert show(state)["dealer"] == "p3"


def test_a_player_revived_during_the_round_may_deal_the_next():
    state = kill(new(5, lives=2), "p2")
    state = play(state, speak("p3", "p2"))
    state = play(state, reveal(cards_for(state, ["p4"])))
    assert show(state)["dealer"] == "p2"  # alive again: the dead are skipped, not the living


def test_plays_first_is_the_next_living_dealt_player_after_the_dealer():
    state = new(6, dealer=2, lives=2)
    assert show(state)["plays_first"] == "p4"
    state = kill(state, "p4")
    assert show(state)["plays_first"] == "p5"
    assert holders(state) == ["p5", "p6", "p1", "p2", "p3"]
    state = play(state, speak("p5", "p4"))  # p4 lives again, but holds no card this round
    assert show(state)["plays_first"] == "p5"
    state = kill(state, "p5")
    assert show(state)["plays_first"] == "p6"
    state = play(state, reveal(cards_for(state, ["p6"])))
    assert show(state)["dealer"] == "p4"  # p4 is alive again; p5 is dead
    assert show(state)["plays_first"] == "p6"


def test_plays_first_wraps_to_the_first_seat():
    assert show(new(5, dealer=4))["plays_first"] == "p1"
    state = kill(new(5, dealer=3, lives=1), "p5")
    assert show(state)["plays_first"] == "p1"


# --- the end -------------------------------------------------------------------------------------


def test_the_last_one_alive_wins():
    state = new(3, lives=1)
    state = play(state, reveal({"p1": 5, "p2": 2, "p3": 7}))
    assert not show(state)["over"]
    assert show(state)["dealer"] == "p3"
    state = play(state, reveal({"p3": 6, "p1": 3}))
    view = show(state)
    assert view["over"] is True
    assert view["winners"] == ["p3"]
    result = morto.outcome(state)
    assert result.winners == ("p3",) and result.reason == "morto.won"
    assert text(result.reason, result.params, "fr") != text(result.reason, result.params, "en")
    assert "Joueur 3" in text(result.reason, result.params, "fr")


def test_the_game_ends_whatever_the_cause_of_the_last_death():
    state = play(new(3, lives=1), touch("p2"), touch("p3"))
    assert show(state)["over"] and show(state)["winners"] == ["p1"]


def test_the_last_living_dying_together_share_the_win():
    state = play(new(4, lives=1), reveal({"p1": 5, "p2": 2, "p3": 7, "p4": 8}))
    assert living(state) == ["p1", "p3", "p4"]
    state = play(state, reveal({"p3": 4, "p4": 4, "p1": 4}))
    view = show(state)
    assert living(state) == []
    assert view["over"] is True
    assert view["winners"] == ["p1", "p3", "p4"]
    assert morto.outcome(state).reason == "morto.shared_win"


def test_only_the_survivor_wins_when_others_die_together():
    state = play(new(3, lives=1), reveal({"p1": 5, "p2": 5, "p3": 7}))
    view = show(state)
    assert view["over"] and view["winners"] == ["p3"]


def test_a_player_revived_during_the_round_outlives_the_dealt_ones():
    state = kill(new(4, lives=1), "p4")
    state = play(state, speak("p2", "p4"))  # p2 gives their only life: p2 dead, p4 alive, not dealt
    assert holders(state) == ["p3", "p1"]
    state = play(state, reveal({"p3": 2, "p1": 2}))
    view = show(state)
    assert view["over"] and view["winners"] == ["p4"]


def _finished() -> tuple[list[dict], dict]:
    events = [reveal({"p1": 5, "p2": 2, "p3": 7}), reveal({"p3": 6, "p1": 3})]
    return events, core.replay(GAME, names(3), {"lives": 1}, events)


@pytest.mark.parametrize(
    "event", [touch("p3"), speak("p3", "p1"), reveal({"p3": 4}), reveal("junk"), touch("p9")]
)
def test_once_over_every_event_is_refused(event):
    _, state = _finished()
    refuse(state, event, "game_over", IllegalEvent)


def test_undo_still_works_once_over():
    events, state = _finished()
    assert show(state)["over"]
    back = core.undo(GAME, names(3), {"lives": 1}, events)
    assert back == core.replay(GAME, names(3), {"lives": 1}, events[:1])
    assert not show(back)["over"]
    again = play(back, reveal({"p3": 2, "p1": 3}))
    assert show(again)["winners"] == ["p1"]


def test_nothing_to_undo():
    with pytest.raises(IllegalEvent) as caught:
        core.undo(GAME, names(5), {}, [])
    assert caught.value.code == "nothing_to_undo"
    assert_explained(caught.value)


def test_undo_gives_back_exactly_the_earlier_state():
    events = [touch("p2"), reveal({"p1": 4, "p2": 5, "p3": 9, "p4": 2, "p5": 2}), touch("p3")]
    states = [new(5)]
    for event in events:
        states.append(play(states[-1], event))
    for count in range(1, len(events) + 1):
        assert core.undo(GAME, names(5), {}, events[:count]) == states[count - 1]
    assert core.replay(GAME, names(5), {}, events) == states[-1]


def test_state_and_view_are_plain_json():
    state = play(kill(new(5, lives=2), "p2"), speak("p3", "p2"))
    assert json.loads(json.dumps(state)) == state
    assert json.loads(json.dumps(show(state))) == show(state)


def test_unknown_or_malformed_events_refused():
    state = new(5)
    refuse(state, {"type": "knock"}, "unknown_event", InvalidEvent)
    refuse(state, {"player": "p2"}, "unknown_event", InvalidEvent)
    refuse(state, {"type": 3}, "unknown_event", InvalidEvent)
    refuse(state, ["touched_early", "p2"], "bad_event", InvalidEvent)


# --- the swap helper -----------------------------------------------------------------------------


def swaps(state: dict, face_up: dict) -> dict[str, tuple]:
    """``{player: (code, with)}`` from the helper, which must not change the state."""
    before = copy.deepcopy(state)
    answers = morto.swap_options(state, face_up)
    assert state == before
    assert [a["player"] for a in answers] == holders(state)
    result = {}
    for answer in answers:
        assert answer["may_swap"] == (answer["with"] is not None)
        assert text(answer["code"], answer, "fr") != answer["code"]
        assert "{" not in text(answer["code"], answer, "en")
        result[answer["player"]] = (answer["code"], answer["with"])
    return result


def test_swap_with_the_next_player_and_the_dealer_with_the_deck():
    assert swaps(new(5), {}) == {
        "p2": ("morto.swap.next", "p3"),
        "p3": ("morto.swap.next", "p4"),
        "p4": ("morto.swap.next", "p5"),
        "p5": ("morto.swap.next", "p1"),
        "p1": ("morto.swap.deck", "deck"),
    }


def test_a_face_up_card_is_kept():
    answers = swaps(new(5), {"p3": morto.CAVALLO, "p5": morto.RE})
    assert answers["p3"] == ("morto.swap.own_face_up", None)
    assert answers["p5"] == ("morto.swap.own_face_up", None)


def test_swap_past_a_chain_of_cavalli():
    answers = swaps(new(6), {"p3": morto.CAVALLO, "p4": morto.CAVALLO})
    assert answers["p2"] == ("morto.swap.past_cavalli", "p5")
    assert answers["p5"] == ("morto.swap.next", "p6")


def test_a_face_up_re_blocks_the_swap():
    answers = swaps(new(5), {"p3": morto.RE})
    assert answers["p2"] == ("morto.swap.blocked_by_re", None)
    answers = swaps(new(6), {"p3": morto.CAVALLO, "p4": morto.CAVALLO, "p5": morto.RE})
    assert answers["p2"] == ("morto.swap.blocked_by_re", None)
    assert swaps(new(5), {"p1": morto.RE})["p5"] == ("morto.swap.blocked_by_re", None)


def test_a_chain_of_cavalli_past_the_dealer_swaps_with_the_deck():
    answers = swaps(new(5), {"p4": morto.CAVALLO, "p5": morto.CAVALLO, "p1": morto.CAVALLO})
    assert answers["p3"] == ("morto.swap.deck", "deck")
    answers = swaps(new(5, dealer=2), {"p2": morto.CAVALLO, "p3": morto.CAVALLO})
    assert answers["p1"] == ("morto.swap.deck", "deck")


def test_the_swap_helper_skips_the_dead_and_those_without_a_card():
    state = kill(new(5, lives=1), "p3")
    assert swaps(state, {})["p2"] == ("morto.swap.next", "p4")
    state = kill(new(5, lives=2), "p3")
    state = play(state, speak("p4", "p3"))
    assert swaps(state, {})["p2"] == ("morto.swap.next", "p4")
    with pytest.raises(InvalidEvent) as caught:
        morto.swap_options(state, {"p3": morto.CAVALLO})
    assert caught.value.code == "unknown_player"


@pytest.mark.parametrize("bad", [8, 1, 11, "9", "Cavallo", True, None, [9], 9.0])
def test_only_a_cavallo_or_a_re_lies_face_up(bad):
    state = new(5)
    before = copy.deepcopy(state)
    with pytest.raises(InvalidEvent) as caught:
        morto.swap_options(state, {"p3": bad})
    assert caught.value.code == "morto.bad_face_up"
    assert state == before
    assert_explained(caught.value)


@pytest.mark.parametrize("bad", [None, [9], "p3"])
def test_face_up_must_be_an_object(bad):
    with pytest.raises(InvalidEvent) as caught:
        morto.swap_options(new(5), bad)
    assert caught.value.code == "morto.bad_cards"


def test_the_swap_check_is_offered_to_the_api():
    state = new(5)
    answer = morto.CHECKS["swap"](state, {"face_up": {"p3": morto.RE}})
    assert answer["turns"] == morto.swap_options(state, {"p3": morto.RE})


# --- messages ------------------------------------------------------------------------------------


def test_every_morto_message_is_in_french_and_english():
    for code, (french, english) in sentences(GAME).items():
        assert code.startswith("morto.")
        assert french.strip() and english.strip() and french != english, code
        assert catalogue()[code] == (french, english)


# === what the table reads: each refusal's words, the view after the end, the reveal check =========

NAMES = ["Ada", "Bruno", "Chiara", "Dario", "Elena", "Fabio"]


def new_named(count: int = 5, **options) -> dict:
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
    error = refused(new_named(), touch("p1"))
    says(
        error,
        "morto.dealer_may_touch",
        {"player": "p1", "name": "Ada"},
        "The dealer may touch the cards before knocking.",
    )


def test_a_dead_player_touching_is_named():
    error = refused(dead(new_named(), "p2"), touch("p2"))
    says(
        error,
        "morto.dead_cannot_touch",
        {"player": "p2", "name": "Bruno"},
        "Bruno is dead: the dead are dealt no card.",
        "Bruno est mort·e\u00a0: les mort·es ne reçoivent pas de carte.",
    )


def test_a_player_revived_this_round_touching_is_named():
    state = play(dead(new_named(), "p2"), speak("p3", "p2"))
    error = refused(state, touch("p2"))
    says(
        error,
        "morto.not_dealt",
        {"player": "p2", "name": "Bruno"},
        "Bruno holds no card this round (brought back to life during it, dealt in from the next).",
    )


def test_speaking_refusals_name_who_spoke_or_who_listened():
    state = dead(new_named(), "p2")
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
    state = dead(new_named(), "p2", "p3")
    error = refused(state, reveal({"p1": 5, "p2": 6, "p3": 7, "p4": 8, "p5": 9}))
    says(
        error,
        "morto.card_not_dealt",
        {"players": ["p2", "p3"], "names": "Bruno, Chiara", "count": 2},
        "Bruno, Chiara hold no card this round (dead, or brought back to life during it).",
    )


def test_a_reveal_missing_cards_names_whose():
    error = refused(new_named(), reveal({"p1": 5, "p2": 6, "p3": 7}))
    says(
        error,
        "morto.missing_cards",
        {"players": ["p4", "p5"], "names": "Dario, Elena"},
        "Missing the card of: Dario, Elena. Every living dealt player reveals their card.",
    )


def test_a_reveal_naming_a_stranger_quotes_them():
    error = refused(new_named(), reveal({"p9": 3}))
    assert isinstance(error, InvalidEvent)
    says(error, "unknown_player", {"player": "p9", "field": "cards"}, "Unknown player “p9”.")


@pytest.mark.parametrize(("rank", "echoed"), [(11, 11), ("5", "5"), (None, None)])
def test_a_bad_rank_is_quoted_with_its_holder(rank, echoed):
    error = refused(new_named(), reveal({"p2": rank}))
    says(
        error,
        "morto.bad_rank",
        {"player": "p2", "name": "Bruno", "value": echoed},
        f"Invalid rank for Bruno: {echoed} (1 Asso … 7, 8 Fante, 9 Cavallo, 10 Re).",
    )


def test_five_of_a_rank_names_the_rank():
    cards = {f"p{i}": morto.CAVALLO for i in range(1, 6)} | {"p6": 2}
    error = refused(new_named(6), reveal(cards))
    says(
        error,
        "morto.too_many_of_rank",
        {"rank": 9, "rank_name": "Cavallo", "count": 5},
        "The deck has only four Cavallo: 5 revealed is impossible.",
    )


def test_the_quick_reveal_refusals_say_which_rule():
    state = dead(new_named(), "p3")
    says(
        refused(state, quick(["p2", "p3"])),
        "morto.card_not_dealt",
        {"players": ["p3"], "names": "Chiara", "count": 1},
        "Chiara holds no card this round (dead, or brought back to life during it).",
    )
    says(
        refused(new_named(6), quick(["p1", "p2", "p3", "p4", "p5"])),
        "morto.too_many_lowest",
        {"count": 5},
        "At most four players hold the lowest card (the deck has four of each rank): 5 named is impossible.",
        "Au plus quatre personnes ont la plus petite carte (le jeu a quatre cartes de chaque rang)\u00a0:"
        " 5 nommées, c'est impossible.",
    )
    says(
        refused(new_named(), quick(["p4", "p4"])),
        "morto.named_twice",
        {"player": "p4", "name": "Dario"},
        "Dario is named twice: a reveal costs each player one life at most.",
        "Dario est nommé·e deux fois\u00a0: une révélation ne coûte qu'une vie à chacun·e.",
    )
    says(
        refused(new_named(), quick([])),
        "morto.bad_lowest",
        {},
        "The quick reveal names who holds the lowest card: a list of 1 to 4 players [id, …].",
        "La révélation rapide nomme qui a la plus petite carte\u00a0:"
        " une liste de 1 à 4 joueur·euses [id, …].",
    )
    says(
        refused(new_named(), {"type": "reveal", "cards": {}, "lowest": ["p2"]}),
        "morto.cards_or_lowest",
        {},
        "A reveal gives either everyone's card (cards) or who holds the lowest card (lowest): one or the"
        " other, not both.",
        "Une révélation donne soit la carte de chacun·e (cards), soit qui a la plus petite carte"
        " (lowest)\u00a0: l'un ou l'autre, pas les deux.",
    )
    error = refused(new_named(), quick(["p9"]))
    assert isinstance(error, InvalidEvent)
    says(error, "unknown_player", {"player": "p9", "field": "lowest"}, "Unknown player “p9”.")


# --- the view ---------------------------------------------------------------------------------------


def test_the_view_lists_the_ranks_the_lives_and_the_dealer():
    view = core.view(GAME, new_named(4, lives=5, dealer=2))
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
    view = core.view(GAME, dead(new_named(), "p2"))
    bruno = view["players"][1]
    assert (bruno["lives"], bruno["alive"], bruno["dealt"]) == (0, False, False)
    assert bruno["dealt"] is False


def test_once_won_nobody_plays_first_and_the_view_says_who_won():
    state = dead(new_named(3, lives=1), "p2", "p3")
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
    state = play(dead(new_named(3, lives=1), "p2"), reveal({"p3": 2, "p1": 2}))
    view = core.view(GAME, state)
    assert view["winners"] == ["p1", "p3"]
    assert view["outcome"] == {"reason": "morto.shared_win", "params": {"names": "Ada, Chiara"}}
    assert text("morto.shared_win", view["outcome"]["params"], "en") == (
        "The last living players died together: Ada, Chiara share the win."
    )
    assert (view["plays_first"], view["play_order"]) == (None, [])


def test_once_over_the_dead_dealer_holds_no_card_for_the_checks():
    """RULES §3: the dead are skipped everywhere, the dealer who died in the last reveal too."""
    state = play(dead(new_named(3, lives=1), "p2"), reveal({"p3": 5, "p1": 2}))
    assert core.view(GAME, state)["winners"] == ["p3"]
    assert [turn["player"] for turn in core.check(GAME, state, "swap", {})["turns"]] == ["p3"]
    assert core.check(GAME, state, "reveal", {"cards": {"p3": 4}})["ok"] is True


# --- the swap helper ---------------------------------------------------------------------------------


def test_the_swap_helper_names_the_player_to_swap_with():
    answer = core.check(GAME, new_named(), "swap", {"face_up": {"p3": morto.CAVALLO}})
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
    state = new_named()
    assert core.check(GAME, state, "swap", {}) == core.check(GAME, state, "swap", {"face_up": {}})
    assert core.check(GAME, state, "swap", {})["turns"][0]["target_name"] == "Chiara"


def test_the_swap_helper_quotes_what_it_refuses():
    state = dead(new_named(), "p2")
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
    answer = check_reveal(new_named(), {"cards": {"p3": 4, "p2": 6}})
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
    state = play(new_named(), touch("p2"), touch("p2"), touch("p3"))  # Bruno at 1 life, Chiara at 2
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
    answer = check_reveal(new_named(3), {})
    assert (answer["ok"], answer["complete"], answer["missing"], answer["losers"]) == (
        False,
        False,
        ["p2", "p3", "p1"],
        [],
    )
    assert answer["refusal"]["code"] == "morto.missing_cards"


def test_a_reveal_check_with_a_card_for_the_dead_says_why_it_cannot_be_recorded():
    state = dead(new_named(), "p2")
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
        core.check(GAME, new_named(), "reveal", {"cards": cards})
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
