"""A rematch: a finished table's next game, with the same players in the same seats (issue 29, item 3).

- The engine decides what "the same table" is for each game (`engine.core.rematch` and each game's
  ``rematch``): the players of the final state in their seats, the same options, and the first deal
  (Il Morto) or the first player (the Grand Jeu) one seat on; it refuses a game still going on.
- ``POST /api/tables/<code>/rematch`` (the referee's secret) makes that table once: 201 with the new
  table's code and secret, as a new table is answered; asked again (a second referee phone, a retry)
  it gives the same table and the same secret. The old table points to it (``GET`` carries
  ``rematch``), and its followers are told through the live stream, those already there and those
  who come later. A stranger changes nothing; a game not over is refused with 422.
- It counts as a new table for the limit on new tables.

API tests run on SQLite and on PostgreSQL (tests/conftest.py).
"""

from __future__ import annotations

import pytest

from engine import core, existentiel, gjdlv, morto
from engine.core import IllegalEvent
from tests.conftest import MORTO_NAMES


def finished_morto(options: dict | None = None, names=MORTO_NAMES[:3]) -> tuple[list, dict, dict]:
    """Three players with one life each: the two who do not deal touch a card before the knock, and
    die; the dealer wins."""
    options = {"lives": 1, **(options or {})}
    state = core.setup("morto", names, options)
    for pid in [p["id"] for p in state["players"] if p["id"] != state["dealer"]]:
        state = core.apply("morto", state, {"type": "touched_early", "player": pid})
    return names, options, state


def finished_gjdlv(options: dict) -> tuple[list, dict, dict]:
    """Three players close every round without a newborn: a shared win at 0."""
    names = ["Ada", "Bruno", "Chiara"]
    state = core.setup("gjdlv", names, options)
    for _ in range(state["rounds"]):
        state = core.apply("gjdlv", state, {"type": "close_round"})
    return names, options, state


def finished_existentiel(
    options: dict | None = None, retitled: dict | None = None
) -> tuple[list, dict, dict]:
    """Ada refuses four adventures: three jokers, then out; Bruno joined during the game, and left.
    ``retitled``: {adventure: title} the table gives before the first roll."""
    players = [{"name": "Ada", "birth_month": 3}]
    state = core.setup("existentiel", players, options or {})
    for adventure, title in (retitled or {}).items():
        state = core.apply(
            "existentiel", state, {"type": "set_title", "adventure": adventure, "title": title}
        )
    state = core.apply("existentiel", state, {"type": "add_player", "name": "Bruno", "birth_month": 11})
    for die in (1, 2, 3, 4):
        state = core.apply("existentiel", state, {"type": "roll", "player": "p1", "die": die})
        state = core.apply("existentiel", state, {"type": "refuse", "player": "p1"})
    # Bruno: 11 + 6 = 17, refused; 17 + 6 = 23, refused; 23 + 6 = 29, accepted: he leaves the game.
    for die in (6, 6):
        state = core.apply("existentiel", state, {"type": "roll", "player": "p2", "die": die})
        state = core.apply("existentiel", state, {"type": "refuse", "player": "p2"})
    state = core.apply("existentiel", state, {"type": "roll", "player": "p2", "die": 6})
    state = core.apply("existentiel", state, {"type": "accept", "player": "p2"})
    return players, options or {}, state


# --- the engine: what "the same table" is ------------------------------------------------------------


def test_il_morto_keeps_seats_and_lives_and_passes_the_first_deal_one_seat_on():
    names, options, state = finished_morto({"dealer": 2})
    assert core.view("morto", state)["over"]
    again = core.rematch("morto", names, options, state)
    assert again == (names, {"lives": 1, "dealer": 0})  # seat 3 dealt first: seat 1 (the next) now
    players, options = again
    fresh = core.view("morto", core.setup("morto", players, options))
    assert [p["lives"] for p in fresh["players"]] == [1, 1, 1] and fresh["dealer"] == "p1"
    # Without options: the default three lives, and the first deal goes from seat 1 to seat 2.
    names, options, state = finished_morto()
    assert core.rematch("morto", names, {}, state) == (names, {"dealer": 1})


def test_the_grand_jeu_keeps_its_rules_length_and_mode_and_the_next_seat_starts():
    options = {"rules": "abondantes", "rounds": 5, "mode": "sheet", "first_player": 2}
    names, options, state = finished_gjdlv(options)
    assert state["first_seat"] != 2  # the state's first seat moved round by round; the game's first did not
    assert core.rematch("gjdlv", names, options, state) == (names, {**options, "first_player": 0})
    names, _, state = finished_gjdlv({"rounds": 5})
    assert core.rematch("gjdlv", names, {"rounds": 5}, state) == (names, {"rounds": 5, "first_player": 1})


def test_le_jeu_existentiel_keeps_every_player_with_their_month_and_the_titles_the_table_gave():
    titles = [existentiel.default_title(n) for n in range(1, 30)]
    titles[4] = "Chanter dans la rue"
    players, options, state = finished_existentiel({"titles": titles}, retitled={7: "Danser"})
    assert core.view("existentiel", state)["over"]
    again_players, again_options = core.rematch("existentiel", players, options, state)
    # Bruno joined during the game: he is at the next one too, in his seat.
    assert again_players == [{"name": "Ada", "birth_month": 3}, {"name": "Bruno", "birth_month": 11}]
    expected = list(titles)
    expected[6] = "Danser"
    assert again_options == {"titles": expected}
    fresh = core.setup("existentiel", again_players, again_options)
    assert fresh["titles"] == expected and [p["jokers"] for p in fresh["players"]] == [3, 3]
    # A table that gave no adventure a title of its own passes none: each keeps its default.
    players, options, state = finished_existentiel()
    assert core.rematch("existentiel", players, options, state)[1] == {}


@pytest.mark.parametrize("game", sorted(core.GAME_MODULES))
def test_a_game_still_going_on_has_no_rematch(game):
    players = {
        "morto": MORTO_NAMES,
        "gjdlv": ["Ada", "Bruno"],
        "existentiel": [{"name": "Ada", "birth_month": 1}],
    }
    state = core.setup(game, players[game], {})
    with pytest.raises(IllegalEvent) as refusal:
        core.rematch(game, players[game], {}, state)
    assert refusal.value.code == "rematch_not_over"


@pytest.mark.parametrize(
    ("module", "low", "high", "usual"),
    [(morto, 3, 20, 6), (gjdlv, 2, 6, 4), (existentiel, 1, 30, 6)],
)
def test_each_game_declares_its_table_once(module, low, high, usual):
    """The bounds the engine checks at setup are the ones the new-table forms are given."""
    assert core.seats(module.ID) == {"min": low, "max": high, "usual": usual}
    assert low <= usual <= high
    too_few = [{"name": f"P{i}", "birth_month": 1} for i in range(low - 1)]
    too_many = [{"name": f"P{i}", "birth_month": 1} for i in range(high + 1)]
    for players in (too_few, too_many):
        with pytest.raises(core.RuleError) as refusal:
            core.setup(module.ID, players, {})
        assert refusal.value.code in ("player_count", "existentiel.no_players")
