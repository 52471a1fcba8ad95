"""One random playthrough test, run on every game in the registry (RULES.md §0).

A small generator per game makes a mix of legal-looking and illegal events (seeded, so a failure
replays exactly); the test feeds them to the engine and, along the way and at the end, checks what
every game promises:

- a refused event raises a `RuleError` (never another exception), changes nothing, and its code has
  a French and an English sentence; once the game is over every event is refused with ``game_over``;
- state and view are plain JSON: they round-trip through ``json.dumps``/``json.loads`` unchanged;
- replaying the accepted events is deterministic and gives exactly the live state;
- ``core.undo`` gives back exactly the state before the last event, at every point of the game.
"""

from __future__ import annotations

import copy
import json
import random
import string

import pytest

from engine import core
from engine.core import RuleError
from engine.messages import forms, text

SEEDS = range(6)
STEPS = 300
NAMES = ["Ada", "Bruno", "Chiara", "Dario", "Elena", "Fabio", "Giulia", "Hugo", "Inès", "Jules"]


def junk(rng: random.Random, depth: int = 0):
    """A random JSON value of any kind, as a buggy or hostile client might send."""
    kind = rng.randrange(9 if depth < 2 else 7)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 7, 13, 30, 2**40, -(2**70)])
    if kind == 3:
        return rng.choice([0.5, -3.25, 1e300, 9.0])
    if kind == 4:
        return "".join(rng.choice(string.printable) for _ in range(rng.randrange(12)))
    if kind == 5:
        return rng.choice(["", " ", "p0", "P1", "p1 ", "é", "x" * 500, "\u0000", "10X", "{name}"])
    if kind == 6:
        return rng.choice(["p1", "p2", "p3", "1", "KS", "QH", "5S", "2024-13-01T10:00"])
    if kind == 7:
        return [junk(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {str(junk(rng, depth + 1))[:8]: junk(rng, depth + 1) for _ in range(rng.randrange(4))}


class Generator:
    """Events for one game: ``table`` gives players and options, ``event`` the next event to try."""

    junk_share = 0.15

    def __init__(self, game_id: str):
        self.types = sorted(core.game(game_id).EVENTS)

    def table(self, rng: random.Random) -> tuple[list, dict]:
        return rng.sample(NAMES, 4), {}

    def event(self, rng: random.Random, view: dict):
        if rng.random() < self.junk_share:
            return self.junk_event(rng, view)
        return self.plausible(rng, view)

    def plausible(self, rng: random.Random, view: dict):
        return self.junk_event(rng, view)

    def junk_event(self, rng: random.Random, view: dict):
        roll = rng.random()
        if roll < 0.1:
            return junk(rng)  # not even an object
        if roll < 0.2:
            return {"type": rng.choice(["", "undo", "knock", None, 3, self.types])}
        event = {"type": rng.choice(self.types)}
        ids = [p["id"] for p in view["players"]]
        for field in (
            "player",
            "living",
            "dead",
            "from",
            "cards",
            "gf",
            "gm",
            "die",
            "success",
            "at",
            "name",
            "birth_month",
        ):
            if rng.random() < 0.3:
                event[field] = rng.choice(ids) if rng.random() < 0.3 else junk(rng)
        return event


def ids(view: dict) -> list[str]:
    return [p["id"] for p in view["players"]]


class Morto(Generator):
    def table(self, rng):
        count = rng.randint(3, 8)
        return rng.sample(NAMES, count), {"lives": rng.randint(1, 4), "dealer": rng.randrange(count)}

    def plausible(self, rng, view):
        everyone = ids(view)
        dead = [p["id"] for p in view["players"] if not p["alive"]]
        roll = rng.random()
        if roll < 0.15:  # the quick reveal: a few holders, now and then a dead player or a name twice
            holders = view["play_order"] or everyone
            lowest = rng.sample(holders, rng.randint(1, min(5, len(holders))))
            if rng.random() < 0.2:
                lowest.append(rng.choice(everyone))
            return {"type": "reveal", "lowest": lowest}
        if roll < 0.45:
            holders = view["play_order"] or everyone
            cards = {pid: rng.randint(1, 10) for pid in holders}
            spoil = rng.random()
            if spoil < 0.05 and cards:
                cards.pop(rng.choice(list(cards)))
            elif spoil < 0.1:
                cards[rng.choice(everyone)] = rng.randint(1, 10)
            elif spoil < 0.15 and cards:
                cards[rng.choice(list(cards))] = rng.choice([0, 11, "7", 7.0, None])
            return {"type": "reveal", "cards": cards}
        if roll < 0.75:
            return {"type": "touched_early", "player": rng.choice(everyone)}
        listener = rng.choice(dead) if dead and rng.random() < 0.8 else rng.choice(everyone)
        return {"type": "spoke_to_dead", "living": rng.choice(everyone), "dead": listener}


class Existentiel(Generator):
    def table(self, rng):
        names = rng.sample(NAMES, rng.randint(1, 4))
        return [{"name": name, "birth_month": rng.randint(1, 12)} for name in names], {}

    def plausible(self, rng, view):
        players = view["players"]
        playing = [p for p in players if p["status"] == "playing"] or players
        player = rng.choice(playing)
        roll = rng.random()
        if roll < 0.04:
            taken = {p["name"] for p in players}
            name = rng.choice([n for n in NAMES if n not in taken] or NAMES)
            return {"type": "add_player", "name": name, "birth_month": rng.randint(0, 13)}
        if roll < 0.08:
            day = rng.choice(["2026-05-14T20:30", "2026-02-30T20:00", "demain", "2026-12-31T23:59"])
            return {"type": "schedule", "at": day, "place": rng.choice([None, "Chez Ada", "", 3])}
        if roll < 0.12:
            return {"type": rng.choice(self.types), "player": rng.choice(ids(view))}
        if view["phase"] == "underway" and player["current"] is not None:
            return {
                "type": "validate",
                "player": player["id"],
                "success": rng.random() < 0.75 if rng.random() < 0.95 else "oui",
            }
        if player["offered"] is not None:
            return {"type": "accept" if rng.random() < 0.8 else "refuse", "player": player["id"]}
        return {"type": "roll", "player": player["id"], "die": rng.choice([1, 2, 3, 4, 5, 6, 6, 0, 7, "3"])}


class Gjdlv(Generator):
    NUMBERS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"]

    def table(self, rng):
        count = rng.randint(2, 6)
        options = {
            "rules": rng.choice(["simples", "abondantes"]),
            "rounds": rng.choice([5, 5, 9]),
            "first_player": rng.randrange(count),
        }
        return rng.sample(NAMES, count), options

    def card(self, rng, view, suits):
        faces = view["rules"] == "abondantes" or rng.random() < 0.05  # now and then, a face where none exists
        ranks = self.NUMBERS + (["J", "Q", "K"] if faces else [])
        for _ in range(10):
            card = rng.choice(ranks) + rng.choice(suits)
            if card not in view["used_cards"] or rng.random() < 0.05:
                return card
        return card

    def plausible(self, rng, view):
        everyone = ids(view)
        roll = rng.random()
        if roll < 0.55:
            gf = self.card(rng, view, "HD" if rng.random() < 0.97 else "SC")
            gm = self.card(rng, view, "SC" if rng.random() < 0.97 else "HD")
            return {"type": "newborn", "player": rng.choice(everyone), "gf": gf, "gm": gm}
        if roll < 0.75:
            return {"type": "abortion", "player": rng.choice(everyone)}
        if roll < 0.93:
            return {"type": "steal_newborn", "player": rng.choice(everyone), "from": rng.choice(everyone)}
        return {"type": "close_round"}


GENERATORS = {"morto": Morto, "existentiel": Existentiel, "gjdlv": Gjdlv}


def load(game_id: str):
    """The game's module; skips while it is not written yet (a broken one fails)."""
    try:
        return core.game(game_id)
    except ModuleNotFoundError as error:
        if error.name == core.GAME_MODULES[game_id]:
            pytest.skip(f"{core.GAME_MODULES[game_id]} does not exist yet")
        raise


def round_trips(value) -> None:
    assert json.loads(json.dumps(value, allow_nan=False)) == value


def check_view(view: dict) -> None:
    round_trips(view)
    players = view["players"]
    assert players and len({p["id"] for p in players}) == len(players)
    assert all(isinstance(p["id"], str) and isinstance(p["name"], str) for p in players)
    assert isinstance(view["over"], bool)


def check_refusal(error: RuleError) -> None:
    assert forms(error.code), error.code
    for lang in ("fr", "en"):
        sentence = text(error.code, error.params, lang)
        assert sentence and sentence != error.code
    round_trips(error.params)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("game_id", sorted(core.GAME_MODULES))
def test_random_playthrough(game_id, seed):
    module = load(game_id)
    rng = random.Random(f"{game_id}/{seed}")
    generator = GENERATORS.get(game_id, Generator)(game_id)
    players, options = generator.table(rng)
    state = core.setup(game_id, players, options)
    round_trips(state)
    states, accepted = [copy.deepcopy(state)], []
    counts = {"accepted": 0, "refused": 0, "undone": 0, "over": 0}

    for _ in range(STEPS):
        view = core.view(game_id, state)
        check_view(view)
        if view["over"]:
            counts["over"] += 1
        if accepted and rng.random() < (0.3 if view["over"] else 0.04):
            back = core.undo(game_id, players, options, accepted)
            assert back == states[-2]
            accepted.pop()
            states.pop()
            state = back
            counts["undone"] += 1
            continue

        event = generator.event(rng, view)
        before = copy.deepcopy(state)
        try:
            after = core.apply(game_id, state, event)
        except RuleError as error:
            assert state == before
            check_refusal(error)
            if (
                view["over"]
                and isinstance(event, dict)
                and isinstance(event.get("type"), str)
                and event["type"] in module.EVENTS
            ):
                assert error.code == "game_over"
            in_place = copy.deepcopy(state)
            with pytest.raises(RuleError):
                core.apply_in_place(module, in_place, event)
            assert in_place == before, f"{error.code} changed the state before refusing {event!r}"
            counts["refused"] += 1
            continue
        assert state == before  # apply never changes the state it is given
        assert not view["over"], f"accepted {event!r} after the game was over"
        round_trips(after)
        state = after
        accepted.append(copy.deepcopy(event))
        states.append(copy.deepcopy(state))
        counts["accepted"] += 1

    assert counts["accepted"] >= 20 and counts["refused"] >= 20, counts
    # Replay is deterministic and is the live state, also from the events as they come back from JSON.
    assert core.replay(game_id, players, options, accepted) == state
    assert core.replay(game_id, players, options, accepted) == state
    assert (
        core.replay(
            game_id,
            json.loads(json.dumps(players)),
            json.loads(json.dumps(options)),
            json.loads(json.dumps(accepted)),
        )
        == state
    )
    # Undo gives exactly the prefix's state, at every point.
    for count in range(1, len(accepted) + 1):
        assert core.undo(game_id, players, options, accepted[:count]) == states[count - 1]
    with pytest.raises(RuleError) as caught:
        core.undo(game_id, players, options, [])
    assert caught.value.code == "nothing_to_undo"


@pytest.mark.parametrize("game_id", sorted(core.GAME_MODULES))
def test_some_playthrough_reaches_the_end(game_id):
    """The generators finish a game, so ``game_over`` and undo after the end are really exercised."""
    load(game_id)
    for seed in SEEDS:
        rng = random.Random(f"{game_id}/end/{seed}")
        generator = GENERATORS.get(game_id, Generator)(game_id)
        generator.junk_share = 0.0
        players, options = generator.table(rng)
        state = core.setup(game_id, players, options)
        for _ in range(STEPS * 3):
            try:
                state = core.apply(game_id, state, generator.event(rng, core.view(game_id, state)))
            except RuleError:
                continue
            if core.view(game_id, state)["over"]:
                return
    pytest.fail(f"no random {game_id} game reached its end")
