"""Il Morto's quick reveal through the HTTP API (docs/API.md "Il Morto", RULES.md §3).

``reveal {lowest: [player id, ...]}``: the table names who holds the lowest card instead of entering
every card. Here, as a client of the API sees it, on both backends: the answer is the engine's own
view of the same log, the story words it, undo gives back the exact state before it, every refusal
is a 422 with its code, both sentences and the rule it breaks, and changes nothing; and the one
``reveal`` action stands for both ways of revealing. The engine's own scenarios are in test_morto.py.
"""

from __future__ import annotations

import pytest

from tests.conftest import MORTO_NAMES
from tests.test_api import engine_view, touch
from tests.test_errors import refused


def quick(lowest) -> dict:
    return {"type": "reveal", "lowest": lowest}


def test_a_quick_reveal_ends_the_round_as_the_engine_says(make_table):
    table = make_table()
    table.event("touched_early", player="p3")
    answer = table.event("reveal", lowest=["p3"])
    assert answer["version"] == 2
    assert answer["state"] == engine_view([touch("p3"), quick(["p3"])])
    assert answer["state"]["round"] == 2 and answer["state"]["dealer"] == "p2"
    assert [p["lives"] for p in answer["state"]["players"]] == [3, 3, 1, 3, 3]
    # The same as a full reveal where Chiara holds the lowest card.
    cards = {"p1": 7, "p2": 9, "p3": 2, "p4": 5, "p5": 10}
    assert answer["state"] == engine_view([touch("p3"), {"type": "reveal", "cards": cards}])
    said = table.history()["events"][-1]["said"]
    assert said == {
        "code": "morto.story.lowest",
        "params": {"round": 1, "names": "Chiara", "losers": ["p3"]},
    }


def test_a_tie_and_the_end_of_the_game(make_table):
    table = make_table(players=["Ada", "Bruno", "Chiara"], options={"lives": 1})
    after_tie = table.event("reveal", lowest=["p3", "p2"])["state"]
    assert after_tie["over"] is True and after_tie["winners"] == ["p1"]
    assert table.history()["events"][-1]["said"]["code"] == "morto.story.lowest_several"
    refused(table.post("reveal", lowest=["p1"]), 422, "game_over")
    # Undone, the two last players share the win instead if both are named.
    assert table.undo().status_code == 200
    table.event("touched_early", player="p2")
    shared = table.event("reveal", lowest=["p1", "p3"])["state"]
    assert shared["winners"] == ["p1", "p3"]
    assert shared["outcome"] == {"reason": "morto.shared_win", "params": {"names": "Ada, Chiara"}}


def test_undo_gives_back_exactly_the_state_before_the_quick_reveal(make_table):
    table = make_table()
    table.event("touched_early", player="p2")
    before = table.get()
    table.event("reveal", lowest=["p2", "p4"])
    response = table.undo()
    assert response.status_code == 200
    assert response.get_json()["state"] == before["state"]
    assert table.get()["state"] == before["state"]
    assert [e["undone"] for e in table.history()["events"]] == [False, True]


def test_the_reveal_action_is_listed_and_play_order_says_who_may_be_named(make_table):
    table = make_table()
    table.event("touched_early", player="p4")
    table.event("touched_early", player="p4")
    table.event("touched_early", player="p4")  # Dario is dead
    state = table.get()["state"]
    assert [a for a in state["actions"] if a["type"] == "reveal"] == [{"type": "reveal"}]
    assert state["play_order"] == ["p2", "p3", "p5", "p1"]
    refused(table.post("reveal", lowest=["p4"]), 422, "morto.card_not_dealt")
    for pid in state["play_order"]:
        table.event("reveal", lowest=[pid])
        assert table.undo().status_code == 200


REFUSALS = [
    (quick([]), "morto.bad_lowest"),
    (quick("p2"), "morto.bad_lowest"),
    (quick(["p2"] * 21), "morto.bad_lowest"),
    (quick(["p2"] * 4000), "morto.bad_lowest"),  # refused before any name is read
    (quick(["p9"]), "unknown_player"),
    (quick([2]), "unknown_player"),
    (quick(["p2", "p3", "p2"]), "morto.named_twice"),
    (quick(["p1", "p2", "p3", "p4", "p5"]), "morto.too_many_lowest"),
    ({"type": "reveal", "lowest": ["p2"], "cards": {"p1": 3}}, "morto.cards_or_lowest"),
    ({"type": "reveal"}, "morto.cards_or_lowest"),
]


@pytest.mark.parametrize(("event", "code"), REFUSALS)
@pytest.mark.parametrize("language", ["fr", "en"])
def test_a_bad_quick_reveal_is_a_422_that_names_its_rule_and_changes_nothing(
    make_table, event, code, language
):
    table = make_table()
    table.event("touched_early", player="p3")
    before = table.snapshot()
    headers = {**table.auth, "Accept-Language": language}
    response = table.post(headers=headers, **event)
    error = refused(response, 422, code, language)
    if code.startswith("morto."):
        assert error["rule"] == "/rules/morto#reveal"
    assert table.snapshot() == before
    assert table.get()["state"] == engine_view([touch("p3")], MORTO_NAMES)
