"""Generated tests of the engine: legal, illegal and malformed events, from several setups per game.

Hypothesis plays sequences of events from a game's setup (Il Morto with 3–8 players, Le jeu
existentiel with 1–4, Le Grand Jeu de la Vie simples or abondantes, 5 or 9 rounds, 2–6 players),
each event drawn from one of these families:

- **legal**: an action of ``state.actions``, completed with valid fields the table supplies (a die,
  cards, a name, a date), drawn here from the rules, never from the engine's own answers;
  **finishing** is the same, limited to the actions that bring a game to its end;
- **wrong moment**: a real event type naming real players that ``state.actions`` does not list now,
  completed with valid fields (always refused);
- **plausible**: a real type and real players with fields of the right JSON type and range that the
  rules may still refuse (a used card, a red GM, a reveal missing a player, 31 February);
- **malformed**: not an object, an unknown type, a missing field, a field of the wrong JSON type
  (None, bools, floats, huge ints, long strings, nested lists and objects), unknown players and
  cards, dice of 0 or 7, undeclared fields;
- and now and then an **undo**.

At every step: the engine raises nothing but `RuleError` (anything else fails the test); a refused
event leaves the state exactly as it was (types included, also through `apply_in_place`, which
works on the state itself); a listed action is accepted and an unlisted shape refused; after an
accepted event `core.view` works and lists its actions; undoing the accepted events gives back
exactly the state before the last one; replaying them from setup gives exactly the current state;
the state, the view and a refusal's params survive STRICT JSON.

Of malformed input only "a refusal is a `RuleError`" is required, never a particular code.
"""

from __future__ import annotations

import copy
import itertools
import json
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import core
from engine.core import RuleError
from tests.test_actions import GAME_OF, SHAPES, tracker_fields  # the fields the rules fix, per event type

# Modest, so the whole file stays well under half a minute; derandomized and without the example
# database, so a run in CI is the same run as on a laptop.
SETTINGS = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
MAX_STEPS = 60

NAMES = ["Ada", "Bruno", "Chiara", "Dario", "Elena", "Fabio", "Giulia", "Hugo"]
FACES = ("J", "Q", "K")
NUMBER_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")
ALL_CARDS = [rank + suit for suit in "SCHD" for rank in (*NUMBER_RANKS, *FACES)]
ITALIAN_DECK = [rank for rank in range(1, 11) for _ in range(4)]  # Il Morto: four of each rank

# Every field an event of each type carries, fixed by the rules or supplied by the table.
FIELDS = {
    "morto": {
        "touched_early": ("player",),
        "spoke_to_dead": ("living", "dead"),
        "reveal": ("cards", "lowest"),
    },
    "existentiel": {
        "add_player": ("name", "birth_month"),
        "roll": ("player", "die"),
        "accept": ("player",),
        "refuse": ("player",),
        "validate": ("player", "success"),
        "schedule": ("at", "place"),
        "set_title": ("adventure", "title"),
    },
    "gjdlv": {
        "newborn": ("player", "gf", "gm"),
        "abortion": ("player",),
        "steal_newborn": ("player", "from"),
        "close_round": (),
        # A round played through (option ``mode: "tracker"``).
        "deal": ("mouchoir",),
        "birth": ("player", "held"),
        "ovulate": ("player", "gf"),
        "fecundate": ("player", "gm"),
        "surrogate": ("player", "from", "gm"),
        "hold": ("player",),
        "pass": ("player",),
        "ejaculate": ("gms",),
        "contest_answer": ("player", "gm"),
        "abort": ("player", "gm"),
        "cancel": ("player", "card"),
        "remove_embryo": ("player", "from"),
    },
}
# The actions that bring each game to its end: lives lost, jokers spent on refusals and failed
# adventures (Le jeu existentiel ends only when nobody plays any more), rounds closed.
FINISHING = {
    "morto": ("touched_early", "reveal"),
    "existentiel": ("roll", "refuse", "validate"),
    "gjdlv": ("close_round", "deal", "birth", "ovulate", "fecundate", "hold", "pass", "ejaculate"),
}


def test_the_shapes_cover_every_event_type():
    for game_id, shapes in SHAPES.items():
        assert set(shapes) == set(core.game(game_id).EVENTS) == set(FIELDS[game_id])


# --- strict comparisons -----------------------------------------------------------------------------


def canonical(value) -> str:
    """Strict JSON text, keys sorted: two JSON values are the same (``true``, ``1`` and ``1.0`` told
    apart) exactly when their texts are. Fails on NaN, infinities and other non-JSON values."""
    return json.dumps(value, sort_keys=True, allow_nan=False)


def strict_json(value) -> None:
    """``value`` survives strict JSON exactly (no NaN, no infinity, string keys only, no tuples)."""
    back = json.loads(json.dumps(value, allow_nan=False))
    assert back == value, f"does not round-trip through JSON: {value!r}"
    assert canonical(back) == canonical(value), f"does not round-trip through JSON: {value!r}"


# --- setups ----------------------------------------------------------------------------------------------


def _morto(count: int, lives: int, dealer: int):
    return NAMES[:count], {"lives": lives, "dealer": dealer % count}


def _existentiel(months: list[int], titled: bool):
    options = {"titles": [f"Titre {n}" for n in range(1, 30)]} if titled else {}
    return [{"name": NAMES[i], "birth_month": month} for i, month in enumerate(months)], options


def _gjdlv(rules: str, rounds: int, count: int, first: int, mode: str | None = None):
    options = {"rules": rules, "rounds": rounds, "first_player": first % count}
    return NAMES[:count], {**options, "mode": mode} if mode else options


SETUPS = {
    "morto": st.builds(_morto, st.integers(3, 8), st.integers(1, 3), st.integers(0, 7)),
    "existentiel": st.builds(
        _existentiel, st.lists(st.integers(1, 12), min_size=1, max_size=4), st.booleans()
    ),
    "gjdlv": st.builds(
        _gjdlv,
        st.sampled_from(["simples", "abondantes"]),
        st.sampled_from([5, 9]),
        st.integers(2, 6),
        st.integers(0, 5),
    ),
    "gjdlv-tracker": st.builds(
        _gjdlv,
        st.sampled_from(["simples", "abondantes"]),
        st.sampled_from([5, 9]),
        st.integers(2, 6),
        st.integers(0, 5),
        st.just("tracker"),
    ),
}


# --- values (every strategy is built once, here: building them at every step is what costs) ---------------

ODD_SCALARS = [
    None,
    True,
    False,
    0,
    -1,
    7,
    1.0,
    0.5,
    -0.0,
    3.0,
    1e308,
    -1e-308,
    2**31,
    2**63,
    -(2**63) - 1,
    10**40,
    "",
    " ",
    "x" * 2000,
    "p0",
    "p99",
    "P1",
    " p1",
    "p-1",
    "1X",
    "ZZ",
    "11H",
    "0S",
    "AH♠",
    "🃏",
    "\x00",
    "2026-02-30T20:00",
    "null",
    "true",
    "3",
    "six",
]


def nested(depth: int):
    value: object = ["deep"]
    for level in range(depth):
        value = [value] if level % 2 else {"x": value}
    return value


SCALARS = st.one_of(
    st.sampled_from(ODD_SCALARS),
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
)
JUNK = st.one_of(
    st.recursive(
        SCALARS,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
        max_leaves=8,
    ),
    st.integers(5, 14).map(nested),
)
ODD_FIELDS = {
    "player": ["p0", "p9", "p" + "9" * 30, "P1", "p1 ", "", 1, ["p1"], {"id": "p1"}],
    "die": [0, 7, -1, 6.0, 3.5, "3", True, 10**20],
    "birth_month": [0, 13, 6.0, "6", True],
    "success": [0, 1, "true", "false", None],
    "adventure": [0, 30, 1.0, "1", True, -(10**30)],
    "title": ["", "   ", "t" * 81, 12],
    "name": ["", "   ", "n" * 41, 3, {"name": "Zoé"}],
    "at": [
        "2031-13-01T20:00",
        "2031-02-29T20:00",
        "demain",
        "1999-12-31T23:59",
        "2101-01-01T00:00",
        "2031-03-07 19:30",
        "２０３１-03-07T19:30",
        "2031-03-07T19:30:60",
        20310307,
    ],
    "place": ["p" * 121, 3, ["Chez Ada"], True],
    "cards": [
        {},
        [],
        {"p1": 0},
        {"p1": 11},
        {"p99": 3},
        {"p1": "3"},
        {"p1": 3.0},
        {"p1": True},
        {f"p{i}": 1 for i in range(1, 500)},
        {f"p{i}": 1 for i in range(1, 9)},
        "p1:3",
    ],
    "lowest": [[], ["p99"], ["p1", "p1"], ["p1"] * 21, "p1", {"p1": 1}, [None], [["p1"]], [1]],
    "gf": ["1X", "ZZ", "11H", "HA", "", "AS", "KS", "QH", "10 H", "A♠", 10, ["AH"]],
    "gm": ["1X", "ZZ", "11S", "SA", "", "AH", "KD", "JC", "1♥", 5, {"gm": "AS"}],
    "mouchoir": [None, "AS", ["AS"] * 27, ["AS", "AS"], ["AH", "2S"], [["AS"]], {"0": "AS"}, []],
    "gms": [
        None,
        [],
        ["AS"],
        {"p1": "AH"},
        {"p9": "AS"},
        {"p1": "AS", "p2": "AS"},
        {"p1": 5},
        {f"p{i}": "AS" for i in range(1, 9)},
    ],
}
ODD_FIELDS["held"] = ODD_FIELDS["card"] = ODD_FIELDS["gm"]
ODD_FIELDS["living"] = ODD_FIELDS["dead"] = ODD_FIELDS["from"] = ODD_FIELDS["player"]
FIELD_JUNK = {
    field: st.one_of(st.sampled_from(values), st.sampled_from(ODD_SCALARS), JUNK)
    for field, values in ODD_FIELDS.items()
}
EXTRA_KEYS = st.sampled_from(
    ["extra", "players", "cards", "die", "gf", "player", "from", "id", "version", "Type", "", "__proto__"]
) | st.text(max_size=12)
UNKNOWN_TYPES = st.one_of(
    st.text(max_size=20),
    st.sampled_from(["", "Reveal", "close_round ", "REVEAL", "toString", "__class__", "roll\x00"]),
    JUNK,
)

HAND = st.permutations(ITALIAN_DECK)
DIE = st.integers(1, 6)
MONTH = st.integers(1, 12)
AT = st.builds(
    "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}".format,
    st.integers(2000, 2100),
    st.integers(1, 12),
    st.integers(1, 28),
    st.integers(0, 23),
    st.integers(0, 59),
)
PLACE = st.none() | st.text(string.ascii_letters + " ", max_size=120)
TITLE = st.builds(
    lambda head, tail: (head + tail)[:80],
    st.sampled_from(string.ascii_letters),
    st.text(string.ascii_letters + " éà'", max_size=90),
)
PLAUSIBLE_AT = st.builds(
    "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}".format,
    st.integers(1990, 2110),
    st.integers(1, 12),
    st.integers(28, 31),
    st.integers(0, 23),
    st.integers(0, 59),
)
PLAUSIBLE_PLACE = st.none() | st.text(max_size=130)
RANKS = st.integers(1, 10)
ANY_CARD = st.sampled_from(ALL_CARDS)
SUIT_SYMBOLS = {"S": "♠", "C": "♣", "H": "♥", "D": "♦"}


def pick(data, items):
    return data.draw(st.sampled_from(items))


def spell_card(data, card: str) -> str:
    """A card as the referee may type it: canonical, lower case, ``1`` for the Ace, a suit symbol."""
    rank, suit = card[:-1], card[-1]
    ace = ("1" if rank == "A" else rank) + suit
    return pick(data, [card, card, card.lower(), rank + SUIT_SYMBOLS[suit], ace])


def free_pairs(view: dict) -> list[tuple[str, str]]:
    used = set(view["used_cards"])
    reds = [c for c in view["deck"]["gf"] if c not in used]
    blacks = [c for c in view["deck"]["gm"] if c not in used]
    # A number GF takes a number GM; a royal GF (red face) takes any GM.
    return [(gf, gm) for gf in reds for gm in blacks if gf[:-1] in FACES or gm[:-1] not in FACES]


# --- the fields a table supplies -------------------------------------------------------------------------


def valid_fields(data, game_id: str, view: dict, kind: str, shape: dict | None = None) -> dict:
    """The fields of ``kind`` that the table supplies, valid by the rules (``shape``: the event's
    fixed fields, which a round played through needs to pick its cards)."""
    if game_id == "morto" and kind == "reveal":
        order = view["play_order"]
        cards = dict(zip(order, data.draw(HAND)[: len(order)], strict=True))
        if not data.draw(st.booleans()):
            return {"cards": cards}
        # The quick reveal: the holders of the lowest card of the same deal.
        return {"lowest": [pid for pid, rank in cards.items() if rank == min(cards.values())]}
    if game_id == "existentiel":
        if kind == "add_player":
            taken = {p["name"].casefold() for p in view["players"]}
            name = next(f"Nouveau {n}" for n in itertools.count() if f"nouveau {n}" not in taken)
            return {"name": name, "birth_month": data.draw(MONTH)}
        if kind == "roll":
            return {"die": data.draw(DIE)}
        if kind == "validate":
            return {"success": data.draw(st.booleans())}
        if kind == "schedule":
            fields = {"at": data.draw(AT)}
            if data.draw(st.booleans()):
                fields["place"] = data.draw(PLACE)
            return fields
        if kind == "set_title":
            return {"adventure": data.draw(st.integers(1, 29)), "title": data.draw(TITLE)}
    if game_id == "gjdlv" and kind == "newborn":
        gf, gm = pick(data, free_pairs(view) or [("AH", "AS")])  # none left: newborn is not listed anyway
        return {"gf": spell_card(data, gf), "gm": spell_card(data, gm)}
    if game_id == "gjdlv" and view.get("mode") == "tracker":
        return tracker_fields(lambda items: pick(data, items), view, {**(shape or {}), "type": kind})
    return {}


def plausible_fields(data, game_id: str, view: dict, kind: str) -> dict:
    """Fields of the right JSON type and range that the rules may still refuse."""
    ids = [p["id"] for p in view["players"]]
    if game_id == "morto" and kind == "reveal":
        if data.draw(st.booleans()):  # the quick reveal: any players, perhaps dead, twice, too many
            return {"lowest": data.draw(st.lists(st.sampled_from(ids), max_size=6))}
        return {"cards": data.draw(st.dictionaries(st.sampled_from(ids), RANKS))}
    if game_id == "existentiel" and kind == "add_player":
        name = pick(data, [p["name"] for p in view["players"]] + ["Zoé", " zoé ", "ADA"])
        return {"name": name, "birth_month": data.draw(MONTH)}
    if game_id == "existentiel" and kind == "schedule":
        return {"at": data.draw(PLAUSIBLE_AT), "place": data.draw(PLAUSIBLE_PLACE)}
    if game_id == "gjdlv" and kind == "newborn":
        return {"gf": data.draw(ANY_CARD), "gm": data.draw(ANY_CARD)}
    if game_id == "gjdlv" and kind in (
        "ovulate",
        "fecundate",
        "surrogate",
        "abort",
        "cancel",
        "birth",
        "contest_answer",
    ):
        field = {"ovulate": "gf", "cancel": "card", "birth": "held"}.get(kind, "gm")
        return {field: data.draw(ANY_CARD)}  # any card: seen, of the wrong colour, a face in simples
    if game_id == "gjdlv" and kind == "ejaculate":
        ids = [p["id"] for p in view["players"]]
        return {"gms": data.draw(st.dictionaries(st.sampled_from(ids), ANY_CARD, max_size=3))}
    if game_id == "gjdlv" and kind == "deal":
        return {"mouchoir": data.draw(st.lists(ANY_CARD, max_size=3))}
    return valid_fields(data, game_id, view, kind)


# --- the families of events ------------------------------------------------------------------------------


def by_type(data, events: list[dict]) -> dict:
    """One of ``events``, its type drawn first: a type listed once (``close_round``, ``reveal``) comes
    up as often as one listed for every pair of players."""
    groups: dict[str, list[dict]] = {}
    for event in events:
        groups.setdefault(event["type"], []).append(event)
    return pick(data, pick(data, list(groups.values())))


def every_shape(game_id: str, view: dict) -> list[dict]:
    """Every event type with every choice of players for the fields the rules fix."""
    ids = [p["id"] for p in view["players"]]
    return [
        {"type": kind, **dict(zip(keys, chosen, strict=True))}
        for kind, keys in SHAPES[game_id].items()
        for chosen in itertools.product(ids, repeat=len(keys))
    ]


def legal(data, game_id: str, view: dict) -> dict | None:
    if not view["actions"]:
        return None
    action = by_type(data, view["actions"])
    return {**action, **valid_fields(data, game_id, view, action["type"], action)}


def finishing(data, game_id: str, view: dict) -> dict | None:
    """A listed action that moves the game towards its end (a failed adventure, for a validation)."""
    listed = [a for a in view["actions"] if a["type"] in FINISHING[game_id]]
    if not listed:
        return legal(data, game_id, view)
    action = pick(data, listed)
    if action["type"] == "validate":
        return {**action, "success": False}
    return {**action, **valid_fields(data, game_id, view, action["type"], action)}


def wrong_moment(data, game_id: str, view: dict) -> dict | None:
    unlisted = [shape for shape in every_shape(game_id, view) if shape not in view["actions"]]
    if not unlisted:
        return None
    shape = by_type(data, unlisted)
    return {**shape, **valid_fields(data, game_id, view, shape["type"], shape)}


def plausible(data, game_id: str, view: dict) -> dict:
    shape = by_type(data, every_shape(game_id, view))
    return {**shape, **plausible_fields(data, game_id, view, shape["type"])}


def malformed(data, game_id: str, view: dict):
    how = pick(data, ["not_an_event", "unknown_type", "missing_field", "wrong_type", "extra_field"])
    if how == "not_an_event":
        return data.draw(JUNK)
    if how == "unknown_type":
        events = core.game(game_id).EVENTS
        kind = data.draw(UNKNOWN_TYPES.filter(lambda kind: not (isinstance(kind, str) and kind in events)))
        return {"type": kind, "player": "p1"}
    shape = by_type(data, every_shape(game_id, view))
    event = {**shape, **valid_fields(data, game_id, view, shape["type"], shape)}
    fields = list(FIELDS[game_id][event["type"]])
    if how == "missing_field":
        gone = pick(data, [*fields, "type"])
        return {key: value for key, value in event.items() if key != gone}
    if how == "wrong_type":
        if not fields:
            return {**event, "type": data.draw(JUNK)}
        field = pick(data, fields)
        return {**event, field: data.draw(FIELD_JUNK[field])}
    declared = set(fields) | {"type"}
    key = data.draw(EXTRA_KEYS.filter(lambda key: key not in declared))
    return {**event, key: data.draw(JUNK)}


FAMILIES = {
    "legal": legal,
    "finishing": finishing,
    "wrong_moment": wrong_moment,
    "plausible": plausible,
    "malformed": malformed,
}
# Legal first (what Hypothesis shrinks towards) and most often, so games move forward; a game played
# in a hurry mostly takes the actions that end it, so finished games (and ``game_over``) come up.
STEADY = st.sampled_from(
    ["legal"] * 4
    + ["finishing"] * 3
    + ["wrong_moment"] * 2
    + ["plausible"] * 2
    + ["malformed"] * 3
    + ["undo"]
)
HURRIED = st.sampled_from(["finishing"] * 10 + ["legal", "wrong_moment", "plausible"] + ["malformed"] * 2)


# --- one game ----------------------------------------------------------------------------------------------


class Game:
    """A game being played: its setup, the events accepted so far and the state after each (as text)."""

    def __init__(self, game_id: str, players, options):
        self.game_id, self.players, self.options = game_id, players, options
        self.module = core.game(game_id)
        self.state = core.setup(game_id, players, options)
        self.accepted: list = []
        self.states = [canonical(self.state)]
        self.check_state()

    def view(self) -> dict:
        view = core.view(self.game_id, self.state)
        assert isinstance(view["actions"], list)
        assert all(isinstance(a, dict) and isinstance(a.get("type"), str) for a in view["actions"])
        assert isinstance(view["over"], bool)
        if view["over"]:
            assert view["actions"] == []
        return view

    def check_state(self) -> None:
        strict_json(self.state)
        strict_json(self.view())

    def offer(self, family: str, event) -> None:
        before = canonical(self.state)
        try:
            after = core.apply(self.game_id, self.state, event)
        except RuleError as error:
            self.refused(family, event, error, before)
            return
        except Exception as error:
            pytest.fail(f"{self.game_id}: {event!r} ({family}) raised {error!r}, not a RuleError")
        assert canonical(self.state) == before, f"apply changed the state it was given, accepting {event!r}"
        assert family != "wrong_moment", f"{self.game_id}: accepted {event!r}, which actions did not list"
        self.accept(event, after)

    def refused(self, family: str, event, error: RuleError, before: str) -> None:
        assert family not in ("legal", "finishing"), f"{self.game_id}: listed {event!r} was refused: {error}"
        assert isinstance(error.code, str) and error.code
        strict_json(error.params)
        assert canonical(self.state) == before
        # The handler works on the state itself: a refusal must come before any change to it.
        in_place = json.loads(before)
        try:
            core.apply_in_place(self.module, in_place, event)
        except RuleError:
            pass
        except Exception as other:
            pytest.fail(f"{self.game_id}: {event!r} raised {other!r} in place, not a RuleError")
        else:
            pytest.fail(f"{self.game_id}: {event!r} refused by apply ({error}) but accepted in place")
        assert canonical(in_place) == before, f"{error.code} changed the state before refusing {event!r}"

    def accept(self, event, after: dict) -> None:
        strict_json(event)
        self.state = after
        self.accepted.append(copy.deepcopy(event))
        self.states.append(canonical(after))
        self.check_state()
        # Undo gives back exactly the state before the last accepted event.
        back = core.undo(self.game_id, self.players, self.options, self.accepted)
        assert canonical(back) == self.states[-2], f"undo of {event!r} is not the state before it"
        # Replay is deterministic: it gives the live state, also from the log as JSON gives it back.
        log = json.loads(json.dumps(self.accepted, allow_nan=False))
        assert canonical(core.replay(self.game_id, self.players, self.options, log)) == self.states[-1]

    def undo(self) -> None:
        if not self.accepted:
            with pytest.raises(RuleError):
                core.undo(self.game_id, self.players, self.options, self.accepted)
            return
        back = core.undo(self.game_id, self.players, self.options, self.accepted)
        self.accepted.pop()
        self.states.pop()
        assert canonical(back) == self.states[-1]
        self.state = back
        self.check_state()

    def finish(self) -> None:
        """At the end, once more from the log: the whole game replays to the state it reached."""
        replayed = core.replay(self.game_id, self.players, self.options, self.accepted)
        assert canonical(replayed) == self.states[-1]


def play(key: str, data) -> Game:
    game_id = GAME_OF.get(key, key)
    game = Game(game_id, *data.draw(SETUPS[key], label="setup"))
    families = HURRIED if data.draw(st.booleans(), label="hurried") else STEADY
    for _ in range(data.draw(st.integers(1, MAX_STEPS), label="steps")):
        family = data.draw(families)
        if family == "undo":
            game.undo()
            continue
        view = game.view()
        event = FAMILIES[family](data, game_id, view)
        if event is None and view["over"]:  # nothing is listed: every shape is the wrong moment
            family, event = "wrong_moment", wrong_moment(data, game_id, view)
        if event is None:  # every shape is listed
            family, event = "malformed", malformed(data, game_id, view)
        game.offer(family, event)
    game.finish()
    return game


@pytest.mark.parametrize("key", sorted(SETUPS))
@SETTINGS
@given(data=st.data())
def test_generated_events(key, data):
    play(key, data)


# --- setups and checks, malformed too -----------------------------------------------------------------

ODD_PLAYERS = st.lists(
    st.sampled_from(
        [
            "Ada",
            "ada ",
            "",
            " ",
            "n" * 41,
            {"name": "Bo"},
            {"name": 3},
            None,
            {"name": "Cy", "birth_month": 13},
            {"name": "Di", "birth_month": 2},
        ]
    ),
    max_size=8,
)
OPTION_KEYS = st.sampled_from(["lives", "dealer", "rules", "rounds", "first_player", "titles", "mode", "x"])
ODD_OPTIONS = st.dictionaries(OPTION_KEYS, JUNK | st.integers(-2, 10), max_size=3)


@pytest.mark.parametrize("key", sorted(SETUPS))
@SETTINGS
@given(data=st.data())
def test_setup_refuses_only_with_rule_errors(key, data):
    """A table's players and options from anywhere: a state that round-trips, or a `RuleError`."""
    game_id = GAME_OF.get(key, key)
    players, options = data.draw(SETUPS[key], label="setup")
    players = data.draw(st.sampled_from([players]) | JUNK | st.lists(JUNK, max_size=8) | ODD_PLAYERS)
    options = data.draw(st.sampled_from([options]) | JUNK | ODD_OPTIONS)
    kept = canonical([players, options])
    try:
        state = core.setup(game_id, players, options)
    except RuleError as error:
        strict_json(error.params)
    except Exception as error:
        pytest.fail(f"setup({game_id!r}, {players!r}, {options!r}) raised {error!r}, not a RuleError")
    else:
        strict_json(state)
        strict_json(core.view(game_id, state))
    assert canonical([players, options]) == kept, "setup changed what it was given"


CHECK_KEYS = st.sampled_from(
    ["cards", "face_up", "player", "die", "gf", "gm", "new_gm", "answer", "gms", "card", "against"]
)
CHECK_VALUES = JUNK | st.sampled_from(
    [
        "p1",
        "p2",
        3,
        9,
        10,
        "AH",
        "KS",
        "QD",
        "5C",
        "abortion",
        "surrogacy",
        "fecundation",
        {"p1": 9},
        {"p1": "AS", "p2": "2C"},
        {"p2": 10, "p3": 9},
    ]
)
CHECK_PARAMS = st.dictionaries(CHECK_KEYS, CHECK_VALUES, max_size=4) | JUNK


@pytest.mark.parametrize("key", sorted(SETUPS))
@SETTINGS
@given(data=st.data())
def test_checks_answer_or_refuse_with_rule_errors(key, data):
    """A game's checks on a played table, with any name and params: an answer that round-trips, or a
    `RuleError`, and the state untouched either way."""
    game_id = GAME_OF.get(key, key)
    game = Game(game_id, *data.draw(SETUPS[key], label="setup"))
    for _ in range(data.draw(st.integers(0, 8), label="steps")):
        event = legal(data, game_id, game.view())
        if event is None:
            break
        game.offer("legal", event)
    name = data.draw(st.sampled_from(sorted(game.module.CHECKS)) | JUNK, label="name")
    params = data.draw(CHECK_PARAMS, label="params")
    before, kept = canonical(game.state), canonical(params)
    try:
        answer = core.check(game_id, game.state, name, params)
    except RuleError as error:
        strict_json(error.params)
    except Exception as error:
        pytest.fail(f"check {name!r} with {params!r} raised {error!r}, not a RuleError")
    else:
        strict_json(answer)
    assert canonical(game.state) == before, "a check changed the state"
    assert canonical(params) == kept, "a check changed its params"
