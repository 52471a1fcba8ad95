"""`state.actions` is exactly what the rules allow: a generated test per game (API.md, RULES.md §0).

Hypothesis plays random games through the actions the view lists. At every step:

- every listed action, completed with valid fields the table supplies (a die, cards, a name), is
  accepted by the engine;
- every event of the same types naming players the list does not name (and every type the list
  does not name at all), completed the same way, is refused with a `RuleError`;
- a finished game lists nothing, and every event is then refused.

The fields a table supplies are drawn here from the rules themselves (this file's oracle), never
from the engine's own answers, so a check that lists too much or too little is caught.
"""

from __future__ import annotations

import copy
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import core
from engine.core import RuleError

# The fields the rules fix for each event type (the ones `actions` fills in), per game.
SHAPES = {
    "morto": {"touched_early": ("player",), "spoke_to_dead": ("living", "dead"), "reveal": ()},
    "existentiel": {
        "add_player": (),
        "roll": ("player",),
        "accept": ("player",),
        "refuse": ("player",),
        "validate": ("player",),
        "schedule": (),
        "set_title": (),
    },
    "gjdlv": {"newborn": ("player",), "abortion": ("player",), "steal_newborn": ("player", "from"),
              "close_round": ()},
}

TABLES = {
    "morto": (["Ada", "Bruno", "Chiara", "Dario", "Elena"], {"lives": 2}),
    "existentiel": ([{"name": "Ada", "birth_month": 3}, {"name": "Bruno", "birth_month": 11}], {}),
    "gjdlv": (["Ada", "Bruno", "Chiara"], {"rules": "abondantes", "rounds": 5}),
}

FACES = ("J", "Q", "K")


def test_the_shapes_cover_every_event_type():
    for game_id, shapes in SHAPES.items():
        assert set(shapes) == set(core.game(game_id).EVENTS)


# --- the fields a table supplies, from the rules -----------------------------------------------------


def _reveal_cards(data, view: dict) -> dict:
    deck = [rank for rank in range(1, 11) for _ in range(4)]  # an Italian deck: four of each rank
    hand = data.draw(st.permutations(deck))
    return {pid: hand[i] for i, pid in enumerate(view["play_order"])}


def _gjdlv_pair(data, view: dict) -> tuple[str, str] | None:
    used = set(view["used_cards"])
    reds = [c for c in view["deck"]["gf"] if c not in used]
    blacks = [c for c in view["deck"]["gm"] if c not in used]
    # A number GF takes a number GM; a royal GF (red face) takes any GM.
    pairs = [(gf, gm) for gf in reds for gm in blacks if gf[:-1] in FACES or gm[:-1] not in FACES]
    return data.draw(st.sampled_from(pairs)) if pairs else None


def complete(game_id: str, data, view: dict, action: dict) -> dict:
    """``action`` with the fields the table supplies, drawn valid."""
    event = dict(action)
    kind = event["type"]
    if game_id == "morto" and kind == "reveal":
        event["cards"] = _reveal_cards(data, view)
    elif game_id == "existentiel":
        if kind == "add_player":
            taken = {p["name"] for p in view["players"]}
            event["name"] = next(f"Nouveau {n}" for n in itertools.count() if f"Nouveau {n}" not in taken)
            event["birth_month"] = data.draw(st.integers(1, 12))
        elif kind == "roll":
            event["die"] = data.draw(st.integers(1, 6))
        elif kind == "validate":
            event["success"] = data.draw(st.booleans())
        elif kind == "schedule":
            event["at"] = "2031-03-07T19:30"
        elif kind == "set_title":
            event["adventure"] = data.draw(st.integers(1, 29))
            event["title"] = "Un titre"
    elif game_id == "gjdlv" and kind == "newborn":
        pair = _gjdlv_pair(data, view)
        event["gf"], event["gm"] = pair if pair else ("AH", "AS")
    return event


def every_shape(game_id: str, view: dict):
    """Every event type with every choice of players for its fixed fields."""
    ids = [p["id"] for p in view["players"]]
    for kind, keys in SHAPES[game_id].items():
        for chosen in itertools.product(ids, repeat=len(keys)):
            yield {"type": kind, **dict(zip(keys, chosen, strict=True))}


# --- the generated test ---------------------------------------------------------------------------------


def check_step(game_id: str, data, state: dict) -> None:
    view = core.view(game_id, state)
    listed = view["actions"]
    assert len({repr(sorted(a.items())) for a in listed}) == len(listed), "an action is listed twice"
    if view["over"]:
        assert listed == []
    for action in listed:
        event = complete(game_id, data, view, action)
        core.apply(game_id, state, event)  # raises if the listed action is refused
    for shape in every_shape(game_id, view):
        if shape in listed:
            continue
        event = complete(game_id, data, view, shape)
        before = copy.deepcopy(state)
        with pytest.raises(RuleError):
            core.apply(game_id, state, event)
        assert state == before


@pytest.mark.parametrize("game_id", sorted(SHAPES))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_actions_are_exactly_what_the_rules_allow(game_id, data):
    players, options = TABLES[game_id]
    state = core.setup(game_id, players, options)
    for _ in range(data.draw(st.integers(5, 60), label="steps")):
        check_step(game_id, data, state)
        view = core.view(game_id, state)
        if not view["actions"]:
            break
        action = data.draw(st.sampled_from(view["actions"]), label="action")
        state = core.apply(game_id, state, complete(game_id, data, view, action))
    check_step(game_id, data, state)


@pytest.mark.parametrize("game_id", sorted(SHAPES))
def test_a_finished_game_lists_nothing(game_id):
    players, options = TABLES[game_id]
    state = core.setup(game_id, players, options)
    finish = {
        "morto": [{"type": "touched_early", "player": p} for p in ("p2", "p2", "p3", "p3", "p4", "p4", "p5")],
        "existentiel": [
            {"type": "roll", "player": "p1", "die": 1}, {"type": "refuse", "player": "p1"},
            {"type": "roll", "player": "p1", "die": 1}, {"type": "refuse", "player": "p1"},
            {"type": "roll", "player": "p1", "die": 1}, {"type": "refuse", "player": "p1"},
            {"type": "roll", "player": "p1", "die": 1}, {"type": "refuse", "player": "p1"},
            {"type": "roll", "player": "p2", "die": 1}, {"type": "refuse", "player": "p2"},
            {"type": "roll", "player": "p2", "die": 1}, {"type": "refuse", "player": "p2"},
            {"type": "roll", "player": "p2", "die": 1}, {"type": "refuse", "player": "p2"},
            {"type": "roll", "player": "p2", "die": 1}, {"type": "refuse", "player": "p2"},
        ],
        "gjdlv": [{"type": "close_round"}] * 5,
    }[game_id]
    for event in finish:
        state = core.apply(game_id, state, event)
    if game_id == "morto":  # Ada, the dealer, and Elena are left: one reveal ends it
        state = core.apply(game_id, state, {"type": "reveal", "cards": {"p5": 1, "p1": 9}})
    view = core.view(game_id, state)
    assert view["over"] is True and view["actions"] == []
    for shape in every_shape(game_id, view):
        with pytest.raises(RuleError) as refused:
            core.apply(game_id, state, complete_plain(shape))
        assert refused.value.code == "game_over"


def complete_plain(shape: dict) -> dict:
    """A shape with plausible fields, for a finished game, where everything is refused anyway."""
    fields = {"die": 3, "cards": {}, "gf": "4H", "gm": "9C", "name": "Zoé", "birth_month": 1,
              "success": True, "at": "2031-03-07T19:30", "adventure": 1, "title": "T"}
    return {**fields, **shape}
