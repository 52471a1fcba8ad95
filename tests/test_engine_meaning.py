"""What a waiting tap means (`engine.core.meaning`), for the taps tests/test_rebase.py does not
replay: Il Morto's quick reveal, which names who held the lowest card instead of showing the cards,
and the exact facts of a Grand Jeu tap, which a phone keeps with its waiting taps (an app updated
under them compares them to its own). It pins what the mutation run (bench/mutation.py) found
reached by no assertion."""

from __future__ import annotations

from engine import core
from tests.test_gjdlv_play import ov, started


def test_a_quick_reveal_means_the_round_and_the_lives_of_those_it_names():
    state = core.setup("morto", ["Léa", "Marc", "Zoé", "Yann"], {"lives": 2})
    state = core.apply("morto", state, {"type": "touched_early", "player": "p2"})
    assert core.meaning("morto", state, {"type": "reveal", "lowest": ["p4", "p2"]}) == {
        "round": 1,
        "lives": {"p2": 1, "p4": 2},
    }
    shown = {"type": "reveal", "cards": {"p1": 10, "p2": 3, "p3": 2, "p4": 5}}
    assert core.meaning("morto", state, shown) == {"round": 1, "lives": {"p3": 2}}


def test_a_grand_jeu_tap_means_the_round_the_take_due_and_at_a_table_played_through_the_whole_round():
    state = started(3, "simples")
    assert core.meaning("gjdlv", state, ov("p1", "AH")) == {"round": 1, "take": None, "play": state["play"]}
    sheet = core.setup("gjdlv", ["Ada", "Bruno", "Chiara"], {})
    assert core.meaning("gjdlv", sheet, {"type": "abortion", "player": "p2", "gf": "4H", "gm": "4S"}) == {
        "round": 1,
        "take": None,
        "abortions": {"p2": 0},
    }
