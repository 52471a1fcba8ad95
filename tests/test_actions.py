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
    "gjdlv": {
        "newborn": ("player",),
        "abortion": ("player",),
        "steal_newborn": ("player", "from"),
        "close_round": (),
        # A round played through (option ``mode: "tracker"``).
        "deal": (),
        "birth": ("player",),
        "ovulate": ("player",),
        "fecundate": ("player",),
        "surrogate": ("player", "from"),
        "hold": ("player",),
        "pass": ("player",),
        "ejaculate": (),
        "contest_answer": ("player",),
        "abort": ("player",),
        "cancel": ("player",),
        "remove_embryo": ("player", "from"),
    },
}

TABLES = {
    "morto": (["Ada", "Bruno", "Chiara", "Dario", "Elena"], {"lives": 2}),
    "existentiel": ([{"name": "Ada", "birth_month": 3}, {"name": "Bruno", "birth_month": 11}], {}),
    "gjdlv": (["Ada", "Bruno", "Chiara"], {"rules": "abondantes", "rounds": 5}),
    "gjdlv-tracker": (["Ada", "Bruno", "Chiara"], {"rules": "abondantes", "rounds": 5, "mode": "tracker"}),
}
# The game each table plays (a table's key is its game's id unless said here).
GAME_OF = {"gjdlv-tracker": "gjdlv"}

FACES = ("J", "Q", "K")


def test_the_shapes_cover_every_event_type():
    for game_id, shapes in SHAPES.items():
        assert set(shapes) == set(core.game(game_id).EVENTS)


# --- the fields a table supplies, from the rules -----------------------------------------------------


def _reveal_cards(data, view: dict) -> dict:
    deck = [rank for rank in range(1, 11) for _ in range(4)]  # an Italian deck: four of each rank
    hand = data.draw(st.permutations(deck))
    return {pid: hand[i] for i, pid in enumerate(view["play_order"])}


def _reveal(data, view: dict) -> dict:
    """A full reveal, or the quick one naming the holders of the lowest card of the same deal."""
    cards = _reveal_cards(data, view)
    if not data.draw(st.booleans(), label="quick reveal"):
        return {"cards": cards}
    return {"lowest": [pid for pid, rank in cards.items() if rank == min(cards.values())]}


def _gjdlv_pair(data, view: dict) -> tuple[str, str] | None:
    used = set(view["used_cards"])
    reds = [c for c in view["deck"]["gf"] if c not in used]
    blacks = [c for c in view["deck"]["gm"] if c not in used]
    # A number GF takes a number GM; a royal GF (red face) takes any GM.
    pairs = [(gf, gm) for gf in reds for gm in blacks if gf[:-1] in FACES or gm[:-1] not in FACES]
    return data.draw(st.sampled_from(pairs)) if pairs else None


def _value(card: str) -> int:
    return 1 if card[:-1] == "A" else int(card[:-1])


def _fecundates(gf: str, gm: str) -> bool:
    """A number GF takes a number GM; a royal GF (red face) takes any GM."""
    return gf[:-1] in FACES or gm[:-1] not in FACES


def _closer(embryo: dict, gm: str) -> bool:
    """A surrogacy's GM: any imperial on a royal GF, else a number GM strictly closer to the GF."""
    gf, old = embryo["gf"], embryo["gm"]
    if gf[:-1] in FACES:
        return gm[:-1] in FACES
    return gm[:-1] not in FACES and abs(_value(gm) - _value(gf)) < abs(_value(old) - _value(gf))


def _unseen(view: dict) -> tuple[list[str], list[str]]:
    """The GF and GM the table has not seen: the deck less the Mouchoir, the Diva Cup, the revealed
    GF, the uteri, the formols and the nurseries."""
    play = view["play"]
    seen = set(play["mouchoir"]) | set(play["diva_cup"]) | {play["gf"]}
    for place in play["seats"]:
        seen |= set(place["formol"]) | (set(place["uterus"].values()) if place["uterus"] else set())
    seen |= {card for p in view["players"] for born in p["newborns"] for card in (born["gf"], born["gm"])}
    seen |= set(play.get("contest", {}).values())  # the holders' own answers to the contest
    deck = view["deck"]
    return [c for c in deck["gf"] if c not in seen], [c for c in deck["gm"] if c not in seen]


def tracker_fields(choose, view: dict, event: dict) -> dict:
    """The cards a table supplies for an event of a round played through, valid by the rules when the
    event is legal at all (a card no rule allows is drawn when none is left). ``choose`` picks one
    of a non-empty list."""
    play, kind = view["play"], event["type"]
    if play is None:  # the game is over
        return {}
    gfs, gms = _unseen(view)
    seats = {place["player"]: place for place in play["seats"]}
    mine = seats.get(event.get("player"), {})
    last = play["open"][-1] if play["open"] else None
    if kind == "deal":
        left = len(view["deck"]["gm"]) % len(view["players"])
        mouchoir: list[str] = []
        for _ in range(left):
            # Late in a round (a deal then is refused anyway) fewer GM may be unseen than the deal needs.
            mouchoir.append(choose([gm for gm in gms if gm not in mouchoir] or view["deck"]["gm"]))
        return {"mouchoir": mouchoir}
    if kind == "birth":
        return {"held": choose(gms)} if mine.get("held") and gms else {}
    if kind == "ovulate":
        return {"gf": choose(gfs or ["AH"])}
    valid = {
        "fecundate": lambda gm: play["gf"] is not None and _fecundates(play["gf"], gm),
        "surrogate": lambda gm: (
            (seats.get(event.get("from")) or {}).get("uterus") is not None
            and _closer(seats[event["from"]]["uterus"], gm)
        ),
        "abort": lambda gm: (
            last is not None
            and (gm == last["gm"][:-1] + {"S": "C", "C": "S"}[last["gm"][-1]] or gm[:-1] == "J")
        ),
        "cancel": lambda gm: (
            last is not None and gm[:-1] == {"abortion": "K", "surrogacy": "Q"}.get(last["act"])
        ),
    }
    field = {"fecundate": "gm", "surrogate": "gm", "abort": "gm", "cancel": "card"}
    if kind in valid:
        cards = [gm for gm in gms if valid[kind](gm)]
        return {field[kind]: choose(cards or ["AS"])}
    if kind == "ejaculate":
        answered = play.get("contest", {})
        holders = [
            pid
            for pid, place in seats.items()
            if place["held"] and pid != play["active"] and pid not in answered
        ]
        cards = [gm for gm in gms if play["gf"] and _fecundates(play["gf"], gm)]
        if holders and cards and choose([False, True]):
            return {"gms": {choose(holders): choose(cards)}}
        return {"gms": {}}
    if kind == "contest_answer":  # a GM, or none (the holder holds on)
        cards = [gm for gm in gms if play["gf"] and _fecundates(play["gf"], gm)]
        return {"gm": choose(cards)} if cards and choose([False, True]) else {}
    return {}


def complete(game_id: str, data, view: dict, action: dict) -> dict:
    """``action`` with the fields the table supplies, drawn valid."""
    event = dict(action)
    kind = event["type"]
    if game_id == "morto" and kind == "reveal":
        event.update(_reveal(data, view))
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
    elif game_id == "gjdlv" and view.get("mode") == "tracker":
        event.update(tracker_fields(lambda items: data.draw(st.sampled_from(items)), view, event))
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
    before = copy.deepcopy(state)  # every refusal below must leave the state equal to it
    for shape in every_shape(game_id, view):
        if shape in listed:
            continue
        event = complete(game_id, data, view, shape)
        with pytest.raises(RuleError):
            core.apply(game_id, state, event)
        assert state == before


@pytest.mark.parametrize("key", sorted(TABLES))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_actions_are_exactly_what_the_rules_allow(key, data):
    game_id = GAME_OF.get(key, key)
    players, options = TABLES[key]
    state = core.setup(game_id, players, options)
    for _ in range(data.draw(st.integers(5, 60), label="steps")):
        check_step(game_id, data, state)
        view = core.view(game_id, state)
        if not view["actions"]:
            break
        action = data.draw(st.sampled_from(view["actions"]), label="action")
        state = core.apply(game_id, state, complete(game_id, data, view, action))
    check_step(game_id, data, state)


def play_through(state: dict) -> dict:
    """A round played through to its end: each turn fecundates when it can (the first card the
    rules allow), else holds back, else passes; held GM are named at phase 0; then it is closed."""
    view = core.view("gjdlv", state)
    while view["play"] is not None and not view["over"]:
        listed = [a for a in view["actions"] if a["type"] not in ("abort", "cancel")]
        kinds = [a["type"] for a in listed]
        kind = next(
            k
            for k in (
                "close_round",
                "deal",
                "birth",
                "ovulate",
                "fecundate",
                "hold",
                "pass",
                "ejaculate",
                "remove_embryo",
                "steal_newborn",
            )
            if k in kinds
        )
        action = listed[kinds.index(kind)]
        event = {**action, **tracker_fields(lambda items: items[0], view, action)}
        state = core.apply("gjdlv", state, event)
        if kind == "close_round":
            return state
        view = core.view("gjdlv", state)
    return state


@pytest.mark.parametrize("key", sorted(TABLES))
def test_a_finished_game_lists_nothing(key):
    game_id = GAME_OF.get(key, key)
    players, options = TABLES[key]
    state = core.setup(game_id, players, options)
    finish = (
        {
            "morto": [
                {"type": "touched_early", "player": p} for p in ("p2", "p2", "p3", "p3", "p4", "p4", "p5")
            ],
            "existentiel": [
                {"type": "roll", "player": "p1", "die": 1},
                {"type": "refuse", "player": "p1"},
                {"type": "roll", "player": "p1", "die": 1},
                {"type": "refuse", "player": "p1"},
                {"type": "roll", "player": "p1", "die": 1},
                {"type": "refuse", "player": "p1"},
                {"type": "roll", "player": "p1", "die": 1},
                {"type": "refuse", "player": "p1"},
                {"type": "roll", "player": "p2", "die": 1},
                {"type": "refuse", "player": "p2"},
                {"type": "roll", "player": "p2", "die": 1},
                {"type": "refuse", "player": "p2"},
                {"type": "roll", "player": "p2", "die": 1},
                {"type": "refuse", "player": "p2"},
                {"type": "roll", "player": "p2", "die": 1},
                {"type": "refuse", "player": "p2"},
            ],
            "gjdlv": [{"type": "close_round"}] * 5,
        }[game_id]
        if key != "gjdlv-tracker"
        else []
    )
    if key == "gjdlv-tracker":  # each of the 5 rounds played through to its end, then closed
        for _ in range(5):
            state = play_through(state)
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
    fields = {
        "die": 3,
        "cards": {},
        "gf": "4H",
        "gm": "9C",
        "name": "Zoé",
        "birth_month": 1,
        "success": True,
        "at": "2031-03-07T19:30",
        "adventure": 1,
        "title": "T",
    }
    return {**fields, **shape}
