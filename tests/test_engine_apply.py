"""Applying an event without a defensive copy: every refusal comes before any change.

The server applies a write's event to the snapshot it has just read from the database, in place
(`core.apply_in_place`, no copy), and `core.apply` copies with a pickle round trip instead of
``copy.deepcopy``. Both are sound only because every handler calls all its checks before it mutates.

- **Refusals change nothing, in place** (a generated test per game, on the strategies of
  ``tests/test_generated.py`` and ``tests/test_actions.py``): Hypothesis plays a game from one of its
  setups; at every step, every event shape ``state.actions`` does not list (completed with valid
  fields, as in test_actions) and an event of the wrong-moment, plausible or malformed families (as
  in test_generated) is applied in place to the live state; each refused one must leave it equal to
  a ``copy.deepcopy`` taken before (and the same as strict JSON, types included). An accepted one
  must give exactly what `core.apply` gives, and `core.apply` must leave its given state untouched.
- **The server's write** applies in place (`core.apply` is never called), and an attempt that lost a
  race and retried applies the event once, to the state read again, not to the one it had mutated.
- **The faster checks answer as the plain ones did**: Il Morto's reveal check against the one it
  replaced (any cards, any table), and GJDLV's ``check_unseen`` against the scan of ``places``.
"""

from __future__ import annotations

import contextlib
import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.storage import store
from engine import core
from engine.core import RuleError
from tests.test_actions import GAME_OF
from tests.test_actions import every_shape as unlisted_candidates
from tests.test_generated import FAMILIES, SETTINGS, SETUPS, canonical, valid_fields

MAX_STEPS = 30
# test_generated's settings (derandomized, no example database), fewer examples: every step also
# offers every unlisted shape, which is what costs.
APPLY_SETTINGS = settings(SETTINGS, max_examples=25)
# Families that move the game on, and those that mostly bring refusals (all of test_generated's).
ADVANCE = st.sampled_from(["legal"] * 3 + ["finishing"] * 2)
PROBE = st.sampled_from(["wrong_moment", "plausible", "malformed"])


def offer_in_place(module, game_id: str, state: dict, event, family: str) -> bool:
    """Apply ``event`` to ``state`` itself; whether it was accepted. A refusal must leave the state
    equal to a deep copy taken before; an acceptance must be what `core.apply` gives."""
    before = copy.deepcopy(state)
    text = canonical(state)
    expected = None
    with contextlib.suppress(RuleError):
        expected = core.apply(game_id, before, event)
    assert canonical(before) == text, f"core.apply changed the state it was given, on {event!r}"
    try:
        core.apply_in_place(module, state, event)
    except RuleError as error:
        assert state == before, f"{error.code} changed the state before refusing {event!r} ({family})"
        assert canonical(state) == text, f"{error.code} changed a value's type before refusing {event!r}"
        assert expected is None, f"{event!r} accepted by core.apply, refused in place"
        assert family not in ("legal", "finishing"), f"listed {event!r} was refused: {error}"
        return False
    assert expected is not None, f"{event!r} refused by core.apply, accepted in place"
    assert canonical(state) == canonical(expected), f"in place and core.apply differ on {event!r}"
    assert family != "wrong_moment", f"{event!r} was accepted, which actions did not list"
    return True


def refuse_every_unlisted_shape(data, module, game_id: str, state: dict) -> int:
    """test_actions' check: every shape the view does not list, completed with valid fields, is
    refused; here in place, and the state must stay equal to its deep copy. Returns how many."""
    view = core.view(game_id, state)
    count = 0
    for shape in unlisted_candidates(game_id, view):
        if shape in view["actions"]:
            continue
        event = {**shape, **valid_fields(data, game_id, view, shape["type"], shape)}
        assert not offer_in_place(module, game_id, state, event, "wrong_moment")
        count += 1
    return count


@pytest.mark.parametrize("key", sorted(SETUPS))
@APPLY_SETTINGS
@given(data=st.data())
def test_every_refusal_leaves_the_state_as_it_was_in_place(key, data):
    game_id = GAME_OF.get(key, key)
    module = core.game(game_id)
    state = core.setup(game_id, *data.draw(SETUPS[key], label="setup"))
    refused = 0
    for _ in range(data.draw(st.integers(1, MAX_STEPS), label="steps")):
        refused += refuse_every_unlisted_shape(data, module, game_id, state)
        view = core.view(game_id, state)
        for family in (data.draw(PROBE), data.draw(ADVANCE)):
            event = FAMILIES[family](data, game_id, view)
            if event is not None:
                refused += not offer_in_place(module, game_id, state, event, family)
                view = core.view(game_id, state)
    assert refused > 0 or core.view(game_id, state)["actions"]


def test_core_apply_copies_like_a_deep_copy():
    """The pickled copy keeps what ``copy.deepcopy`` keeps: values, types, and shared sub-objects."""
    state = core.setup("morto", ["Ada", "Bruno", "Chiara"], {})
    shared = {"x": [1, 2.0, True, None, "é"]}
    state["extra"] = [shared, shared, (1, 2)]
    after = core.apply("morto", state, {"type": "touched_early", "player": "p2"})
    assert after["extra"] == state["extra"] and after["extra"][0] is not shared
    assert after["extra"][0] is after["extra"][1]
    assert isinstance(after["extra"][2], tuple)
    assert state["players"][1]["lives"] == 3 and after["players"][1]["lives"] == 2


# --- the server's write ------------------------------------------------------------------------


def test_the_server_applies_an_event_in_place_never_through_core_apply(make_table, monkeypatch):
    def copying_apply(*_args, **_kwargs):
        raise AssertionError("the write path copied the state through core.apply")

    monkeypatch.setattr(core, "apply", copying_apply)
    table = make_table("morto", options={"lives": 2})
    answer = table.event("touched_early", player="p2")
    assert answer["version"] == 1
    assert table.post("touched_early", player="p1").status_code == 422  # the dealer: refused
    table.event("touched_early", player="p2")
    state = table.get()["state"]
    assert [p["lives"] for p in state["players"]] == [2, 0, 2, 2, 2]


def test_a_retried_attempt_applies_the_event_once(app, make_table, monkeypatch):
    """The first attempt applied the event to the snapshot in place, then lost the race: the retry
    reads the row again (the mutated snapshot is dropped) and applies the event once."""
    table = make_table("morto", options={"lives": 3})
    move = store._move_table
    calls = []

    def lose_first_race(connection, row, state, **counts):
        calls.append(row.version)
        if len(calls) == 1:
            raise store.Raced()
        move(connection, row, state, **counts)

    monkeypatch.setattr(store, "_move_table", lose_first_race)
    answer = table.event("touched_early", player="p2")
    assert calls == [0, 0]
    lives = [p["lives"] for p in answer["state"]["players"]]
    assert lives == [3, 2, 3, 3, 3]
    assert [p["lives"] for p in table.get()["state"]["players"]] == lives
    with app.app_context():
        row = store.find_table(table.code)
        assert row.state == store.rebuild(row)


# --- the faster checks say exactly what the plain ones said ---------------------------------------


def plain_check_reveal(state: dict, cards) -> dict:
    """Il Morto's reveal check as it was written before it was made faster (the oracle)."""
    from engine.morto import COPIES_PER_RANK, RANKS, _names, _read_cards, play_order

    cards = _read_cards(state, cards)
    players = {p["id"]: p for p in state["players"]}
    holders = play_order(state)
    extra = [players[pid] for pid in cards if pid not in {p["id"] for p in holders}]
    if extra:
        raise core.IllegalEvent(
            "morto.card_not_dealt", players=[p["id"] for p in extra], names=_names(extra), count=len(extra)
        )
    missing = [p for p in holders if p["id"] not in cards]
    if missing:
        raise core.IllegalEvent(
            "morto.missing_cards", players=[p["id"] for p in missing], names=_names(missing)
        )
    for rank in RANKS:
        count = sum(1 for r in cards.values() if r == rank)
        if count > COPIES_PER_RANK:
            raise core.IllegalEvent("morto.too_many_of_rank", rank=rank, rank_name=RANKS[rank], count=count)
    return cards


def outcome_of(check, *args):
    try:
        return ("ok", check(*args))
    except RuleError as error:
        return (type(error).__name__, error.code, error.params)


class Rank(int):
    """An int of another type: read entry by entry (not the usual reveal), accepted as before."""


MORTO_IDS = st.sampled_from([f"p{i}" for i in range(14)])
MORTO_RANKS = st.sampled_from([*range(12), True, 3.0, "3", None, Rank(4), Rank(11)])


@SETTINGS
@given(data=st.data())
def test_morto_reveal_check_says_what_the_plain_one_said(data):
    dealer = data.draw(st.integers(0, 11))
    state = core.setup("morto", [f"N{i}" for i in range(12)], {"lives": 2, "dealer": dealer})
    for pid in data.draw(st.lists(MORTO_IDS, max_size=14)):  # some dead, some not dealt this round
        player = next((p for p in state["players"] if p["id"] == pid), None)
        if player is not None:
            player["lives"] = max(0, player["lives"] - 1)
            player["dealt"] = player["lives"] > 0 and data.draw(st.booleans())
    from engine import morto

    holders = [p["id"] for p in morto.play_order(state)]
    cards = data.draw(
        st.one_of(
            st.dictionaries(MORTO_IDS, MORTO_RANKS, max_size=14),
            st.builds(
                lambda ranks: dict(zip(holders, ranks, strict=False)),
                st.lists(st.integers(1, 10), min_size=len(holders), max_size=len(holders)),
            ),
            st.just([]),
        )
    )
    assert outcome_of(morto.check_reveal, state, cards) == outcome_of(plain_check_reveal, state, cards)


@pytest.mark.parametrize("ranks", [(Rank(2), Rank(9), 5), (Rank(3),) * 5 + (1,), (4, 4, 4, 4, 4, 4)])
def test_morto_reveal_of_other_ints_says_what_the_plain_one_said(ranks):
    from engine import morto

    state = core.setup("morto", [f"N{i}" for i in range(len(ranks))], {})
    cards = dict(zip([p["id"] for p in morto.play_order(state)], ranks, strict=True))
    assert outcome_of(morto.check_reveal, state, cards) == outcome_of(plain_check_reveal, state, cards)


def test_gjdlv_seen_check_says_what_the_plain_one_said():
    """`check_unseen` asks `_seen` first; its answer is the scan of `places` it replaced, for every
    card of the deck at every step of a seeded game played through (every pile filled)."""
    import random

    from engine import gjdlv_play
    from engine.gjdlv_cards import deck

    def plain(state, card):
        for place, name, other in gjdlv_play.places(state):
            if other == card:
                raise core.IllegalEvent(f"gjdlv.play.seen.{place}", card=card, name=name)

    rng = random.Random(7)
    options = {"rules": "abondantes", "rounds": 5, "mode": "tracker"}
    state = core.setup("gjdlv", ["Ada", "Bruno", "Chiara", "Dario"], options)
    cards = [*deck("abondantes")["gf"], *deck("abondantes")["gm"]]
    places = set()
    while not core.view("gjdlv", state)["over"]:
        for card in cards:
            assert outcome_of(gjdlv_play.check_unseen, state, card) == outcome_of(plain, state, card)
        places |= {place for place, _, _ in gjdlv_play.places(state)}
        view = core.view("gjdlv", state)
        choice = rng.choice(view["play"]["choices"])
        event = dict(choice["action"])
        if choice["field"] == "mouchoir":
            event["mouchoir"] = rng.sample(choice["cards"], view["play"]["deal"]["mouchoir"])
        elif choice["field"] == "gms":
            event["gms"] = {pid: rng.choice(free) for pid, free in choice["cards"].items() if free}
            event["gms"] = dict(list(event["gms"].items())[:1])  # one GM: never two of the same card
        elif choice["field"]:
            event[choice["field"]] = rng.choice(choice["cards"])
        core.apply_in_place(core.game("gjdlv"), state, event)
    assert places == {"mouchoir", "diva_cup", "revealed", "uterus", "nursery", "formol"}
