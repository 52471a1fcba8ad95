"""The engine worker's base (worker/jsonio.py): the log held in the worker, moved by small messages,
with checkpoints of the state. Every projection must equal what a full replay of the whole log gives
(the worker's former way, kept here as the reference), for random logs with undos, base moves that
drop events, checkpoint boundaries and undos waiting in the outbox that reach into the base."""

from __future__ import annotations

import copy
import json
import random

import pytest

from engine import core, morto
from engine.core import IllegalEvent, RuleError
from engine.messages import refusal
from worker import jsonio

PLAYERS = ["Ada", "Bruno", "Chiara", "Dario", "Elena"]
OPTIONS = {"lives": 9}


@pytest.fixture(autouse=True)
def fresh_worker(monkeypatch):
    """A new worker for every test (as after a page reload), with short stretches between
    checkpoints so that a few dozen events cross several of them."""
    monkeypatch.setattr(jsonio, "_base", None)
    monkeypatch.setattr(jsonio, "CHECKPOINT_EVERY", 4)


def reference(events: list, pending: list) -> dict:
    """The worker's former projection: replay everything from the setup, a deep copy per op. Each op
    just tapped (no ``meant``) gets its meaning and its words against the state before it (an undo's:
    the event it takes back, whose id the base does not know here)."""
    module = core.game("morto")
    active = list(events)
    state = core.replay("morto", PLAYERS, OPTIONS, active)
    results = []
    for op in pending:
        try:
            if op.get("kind") == "undo":
                state = core.undo("morto", PLAYERS, OPTIONS, active)
                taken = active.pop()
                code, params = morto.describe(state, taken)
                results.append(
                    {"ok": True, "meaning": {"undo": None}, "said": {"code": code, "params": params}}
                )
            else:
                candidate = copy.deepcopy(state)
                meant = core.meaning("morto", state, op["event"])
                said = morto.describe(state, op["event"])
                core.apply_in_place(module, candidate, op["event"])
                state = candidate
                active.append(op["event"])
                results.append({"ok": True, "meaning": meant, "said": {"code": said[0], "params": said[1]}})
        except RuleError as error:
            results.append({"ok": False, "error": refusal(error.code, error.params)})
    return {"state": core.view("morto", state), "pending": results, "active": len(active)}


def candidates(rng: random.Random, state: dict) -> list[dict]:
    """Events to try on ``state``, legal or not: touches, words to the dead, reveals."""
    ids = [p["id"] for p in state["players"]]
    holders = [p["id"] for p in state["players"] if p["dealt"] and p["lives"] > 0]
    return [
        {"type": "touched_early", "player": rng.choice(ids)},
        {"type": "spoke_to_dead", "living": rng.choice(ids), "dead": rng.choice(ids)},
        {"type": "spoke_to_dead", "living": rng.choice(ids), "dead": rng.choice(ids)},
        {"type": "reveal", "cards": {pid: rng.randint(1, 10) for pid in holders}},
    ]


def legal_log(rng: random.Random, length: int, state: dict | None = None) -> list[dict]:
    """A log the server could have accepted: random events, each checked on the state before it."""
    state = state if state is not None else core.setup("morto", PLAYERS, OPTIONS)
    events = []
    for _ in range(length * 20):
        if len(events) == length or morto.outcome(state) is not None:
            break
        event = rng.choice(candidates(rng, state))
        try:
            state = core.apply("morto", state, event)
        except RuleError:
            continue
        events.append(event)
    return events


def pending_ops(rng: random.Random, events: list, count: int) -> list[dict]:
    """Waiting taps: mostly legal events, some refused ones, and undos (some reaching into the base)."""
    state = core.replay("morto", PLAYERS, OPTIONS, events)
    ops = []
    for _ in range(count):
        if rng.random() < 0.35:
            ops.append({"kind": "undo"})
        else:
            ops.append({"kind": "event", "event": rng.choice(candidates(rng, state))})
    return ops


def set_base(events: list, version: int, start: int = 0, ids: list | None = None) -> dict:
    """The base of ``events`` at ``version``; from ``start``, as `/log?tail=` gives it: the events
    from there on, after the state of the first ``start``."""
    return jsonio.base_set(
        {
            "code": "K7QX2M",
            "game": "morto",
            "players": PLAYERS,
            "options": OPTIONS,
            "version": version,
            "events": events[start:],
            **(
                {"start": start, "checkpoint": core.replay("morto", PLAYERS, OPTIONS, events[:start])}
                if start
                else {}
            ),
            **({"ids": ids[start:]} if ids else {}),
        }
    )


def project(version: int, pending: list) -> dict:
    return jsonio.project({"code": "K7QX2M", "version": version, "pending": pending})


def assert_base_is_replay(events: list) -> None:
    base = jsonio._base
    assert base.events == events
    assert base.state == core.replay("morto", PLAYERS, OPTIONS, events)
    assert len(base.checkpoints) == len(events) // jsonio.CHECKPOINT_EVERY + 1
    for index, frozen in enumerate(base.checkpoints):
        upto = events[: index * jsonio.CHECKPOINT_EVERY]
        assert jsonio.pickle.loads(frozen) == core.replay("morto", PLAYERS, OPTIONS, upto)


@pytest.mark.parametrize("seed", range(12))
def test_projections_equal_a_full_replay_as_the_base_moves(seed):
    rng = random.Random(seed)
    events = legal_log(rng, rng.randint(0, 30))
    version = len(events)
    set_base(events, version)
    assert_base_is_replay(events)
    for _ in range(15):
        pending = pending_ops(rng, events, rng.randint(0, 8))
        assert project(version, pending) == reference(events, pending)
        # The server's log moved: undos took back its last events, then new ones came.
        keep = rng.choice([len(events), len(events), rng.randint(0, len(events))])
        state = core.replay("morto", PLAYERS, OPTIONS, events[:keep])
        added = legal_log(rng, rng.randint(0, 9), state)
        answer = jsonio.base_move(
            {"code": "K7QX2M", "since": version, "keep": keep, "events": added, "version": version + 5}
        )
        version += 5
        events = events[:keep] + added
        assert answer == {"version": version, "length": len(events)}
        assert_base_is_replay(events)


@pytest.mark.parametrize("length", [0, 1, 3, 4, 5, 7, 8, 9, 12, 13])
def test_undos_waiting_in_the_outbox_cross_checkpoints(length):
    events = legal_log(random.Random(length), length)
    assert len(events) == length
    set_base(events, 1)
    for undos in range(length + 2):  # one more than the log holds: nothing_to_undo
        pending = [{"kind": "undo"}] * undos + [
            {"kind": "event", "event": {"type": "touched_early", "player": "p3"}}
        ]
        assert project(1, pending) == reference(events, pending)
        assert project(1, pending) == reference(events, pending)  # the rebuilt state kept aside


@pytest.mark.parametrize("keep", [0, 3, 4, 5, 8, 11, 12])
def test_a_base_that_loses_events_goes_back_to_a_checkpoint(keep):
    events = legal_log(random.Random(7), 12)
    set_base(events, 12)
    project(12, [{"kind": "undo"}] * (12 - keep))  # a rebuilt state kept aside, beyond keep
    jsonio.base_move({"code": "K7QX2M", "since": 12, "keep": keep, "events": [], "version": 13})
    assert_base_is_replay(events[:keep])
    pending = [{"kind": "undo"}, {"kind": "undo"}]
    assert project(13, pending) == reference(events[:keep], pending)


def test_nothing_pending_copies_nothing_and_checks_run_on_the_projection():
    events = [{"type": "touched_early", "player": "p2"}]
    set_base(events, 1)
    assert project(1, []) == reference(events, [])
    assert jsonio._last["state"] is jsonio._base.state
    answer = project(1, [{"kind": "event", "event": {"type": "touched_early", "player": "p2"}}])
    assert jsonio._last["state"] is not jsonio._base.state
    assert answer["active"] == 2
    assert jsonio._base.state == core.replay("morto", PLAYERS, OPTIONS, events)
    assert "answer" in jsonio.check({"name": "swap", "params": {"face_up": {"p1": 10}}})


def test_a_refused_tap_changes_nothing_even_if_its_handler_began(monkeypatch):
    def careless(state, event):  # mutates, then refuses: the engine's handlers never do this
        state["players"][0]["lives"] = 0
        raise IllegalEvent("morto.dealer_may_touch", player="p1", name="Ada")

    monkeypatch.setitem(morto.EVENTS, "touched_early", careless)
    set_base([], 0)
    answer = project(0, [{"kind": "event", "event": {"type": "touched_early", "player": "p2"}}])
    assert answer["pending"][0]["ok"] is False
    assert answer["state"] == core.view("morto", core.setup("morto", PLAYERS, OPTIONS))


def test_a_worker_that_lacks_the_base_says_so():
    assert project(0, []) == {"stale": True}  # a new worker: the page sends the base whole
    set_base([], 3)
    assert project(2, []) == {"stale": True}
    assert jsonio.project({"code": "OTHER1", "version": 3, "pending": []}) == {"stale": True}
    move = {"code": "K7QX2M", "since": 2, "keep": 0, "events": [], "version": 4}
    assert jsonio.base_move(move) == {"stale": True}
    assert jsonio.base_move({**move, "since": 3, "keep": 1}) == {"stale": True}  # more than it holds
    assert jsonio.base_move({**move, "since": 3}) == {"version": 4, "length": 0}


def test_a_move_that_fails_leaves_no_half_moved_base():
    set_base([{"type": "touched_early", "player": "p2"}], 1)
    with pytest.raises(TypeError):
        jsonio.base_move({"code": "K7QX2M", "since": 1, "keep": 1, "version": 2, "events": 7})
    assert project(1, []) == {"stale": True}
    assert project(2, []) == {"stale": True}


@pytest.mark.replays_a_log_of_older_rules
def test_an_event_of_the_base_the_rules_refuse_now_is_a_no_op_as_on_the_server():
    # A log written under older rules (`engine.core.replayed`): the phone reads it as the server does.
    set_base([{"type": "touched_early", "player": "p2"}, {"type": "touched_early", "player": "p1"}], 2)
    lives = {p["id"]: p["lives"] for p in project(2, [])["state"]["players"]}
    assert lives == {"p1": 9, "p2": 8, "p3": 9, "p4": 9, "p5": 9}  # the dealer's touch changed nothing


def test_the_page_talks_json_and_a_tap_sends_only_itself():
    events = legal_log(random.Random(3), 40)
    answer = json.loads(
        jsonio.handle(
            json.dumps(
                {
                    "op": "base_set",
                    "code": "K7QX2M",
                    "game": "morto",
                    "players": PLAYERS,
                    "options": OPTIONS,
                    "version": 40,
                    "events": events,
                }
            )
        )
    )
    assert answer == {"version": 40, "length": len(events)}
    tap = {
        "op": "project",
        "code": "K7QX2M",
        "version": 40,
        "pending": [{"kind": "event", "event": {"type": "touched_early", "player": "p2"}}],
    }
    assert len(json.dumps(tap)) < 200
    assert json.loads(jsonio.handle(json.dumps(tap))) == json.loads(
        json.dumps(reference(events, tap["pending"]), ensure_ascii=False)
    )


# --- the end of the log, from a checkpoint (/log?tail=) ------------------------------------------


@pytest.mark.parametrize("start", [0, 1, 5, 9, 17])
def test_a_base_from_a_checkpoint_projects_as_the_whole_log_would(start):
    events = legal_log(random.Random(start), 22)
    assert set_base(events, 30, start) == {"version": 30, "length": 22}
    assert jsonio._base.state == core.replay("morto", PLAYERS, OPTIONS, events)
    rng = random.Random(start + 100)
    for _ in range(10):
        pending = pending_ops(rng, events, rng.randint(0, 6))
        undos = sum(op["kind"] == "undo" for op in pending)
        if undos <= len(events) - start:  # every undo reaches an event the base holds
            assert project(30, pending) == reference(events, pending)
    # Moves keep it exact, and never reach before its start.
    jsonio.base_move({"code": "K7QX2M", "since": 30, "keep": 20, "events": [], "version": 31})
    assert jsonio._base.state == core.replay("morto", PLAYERS, OPTIONS, events[:20])
    if start > 1:
        move = {"code": "K7QX2M", "since": 31, "keep": start - 1, "events": [], "version": 32}
        assert jsonio.base_move(move) == {"stale": True}


def test_an_undo_that_reaches_before_the_base_says_so():
    events = legal_log(random.Random(5), 10)
    set_base(events, 10, 8)
    answer = project(10, [{"kind": "undo"}] * 3)
    assert [result["ok"] for result in answer["pending"]] == [True, True, False]
    assert answer["pending"][2]["error"]["code"] == jsonio.TOO_FAR
    set_base([], 0)
    assert project(0, [{"kind": "undo"}])["pending"][0]["error"]["code"] == "nothing_to_undo"


# --- a tap replayed on a base that moved: applied only if it means what it meant --------------------


def touch(player: str, tap_id: str) -> dict:
    return {"kind": "event", "id": tap_id, "event": {"type": "touched_early", "player": player}}


def tapped(version: int, pending: list) -> list:
    """The ops as the page keeps them once tapped: each with the meaning the projection gave it."""
    results = project(version, pending)["pending"]
    assert all(result["ok"] for result in results), results
    return [{**op, "meant": result["meaning"]} for op, result in zip(pending, results, strict=True)]


def test_an_undo_names_the_event_it_takes_back_and_is_set_aside_once_another_is_latest():
    """Finding 1 on the phone: B's undo meant Ana's touch on Ben (a1); A's touches on Cyd and Dom reach
    the server first. The undo would take back Dom's: set aside. B's touch on Eva, untouched, goes."""
    set_base([{"type": "touched_early", "player": "p2"}], 1, ids=["a1"])
    ops = tapped(1, [{"kind": "undo", "id": "b1"}, touch("p5", "b2")])
    assert ops[0]["meant"] == {"undo": "a1"}
    undo_words = project(1, [{"kind": "undo", "id": "b1"}])["pending"][0]["said"]
    assert undo_words == {"code": "morto.story.touched_early", "params": {"player": "p2", "name": "Bruno"}}
    assert [result["ok"] for result in project(1, ops)["pending"]] == [True, True]  # nothing moved yet
    move = {"code": "K7QX2M", "since": 1, "keep": 1, "version": 3, "ids": ["a2", "a3"]}
    jsonio.base_move({**move, "events": [{"type": "touched_early", "player": p} for p in ("p3", "p4")]})
    answer = project(3, ops)
    assert answer["pending"] == [{"ok": False, "changed": True}, {"ok": True}]
    assert [p["lives"] for p in answer["state"]["players"]] == [9, 8, 8, 8, 8]
    assert "meaning" not in answer["pending"][1]  # kept from its tap, not given again


def test_an_undo_of_the_phones_own_waiting_tap_names_that_tap():
    set_base([], 0)
    ops = tapped(0, [touch("p3", "w1"), {"kind": "undo", "id": "w2"}])
    assert ops[1]["meant"] == {"undo": "w1"}
    # Once acknowledged, the tap is in the base with its id: the undo still means it.
    jsonio.base_move(
        {"code": "K7QX2M", "since": 0, "keep": 0, "version": 1, "ids": ["w1"], "events": [ops[0]["event"]]}
    )
    assert project(1, ops[1:])["pending"] == [{"ok": True}]


def test_taps_whose_meaning_changed_are_set_aside_the_others_go():
    set_base([], 0)
    ops = tapped(0, [touch("p3", "a1"), touch("p4", "a2"), touch("p3", "a3")])
    # Another phone touched Cyd: A's first touch on Cyd means something else; the second, judged on
    # the state without the first, still means "Cyd from 8 to 7".
    jsonio.base_move(
        {"code": "K7QX2M", "since": 0, "keep": 0, "version": 1, "ids": ["b1"], "events": [ops[0]["event"]]}
    )
    answer = project(1, ops)
    assert answer["pending"] == [{"ok": False, "changed": True}, {"ok": True}, {"ok": True}]
    assert answer["active"] == 3


def test_the_changes_under_waiting_taps_are_worded_as_the_history_words_them():
    events = [{"type": "touched_early", "player": p} for p in ("p2", "p3", "p4")]
    set_base(events, 3)
    undone = events[1:]
    added = [
        {"type": "touched_early", "player": "p5"},
        {"type": "spoke_to_dead", "living": "p2", "dead": "p3"},
    ]
    jsonio.base_move({"code": "K7QX2M", "since": 3, "keep": 1, "version": 6, "events": added[:1]})
    words = jsonio.said(
        {"changes": [{"at": 1, "undone": undone, "added": added[:1]}, {"at": 9, "added": added}]}
    )
    expected = core.story("morto", PLAYERS, OPTIONS, [{"event": e} for e in events[:1] + undone])[1:]
    assert words["changes"][0] == {
        "undone": expected,
        "added": core.describe("morto", PLAYERS, OPTIONS, events[:1] + added[:1])[1:],
    }
    assert words["changes"][1] is None  # the base does not hold 9 events
    # An event that no longer applies there stops the wording, rather than wording it falsely.
    broken = jsonio.said(
        {"changes": [{"at": 0, "added": [events[0], {"type": "touched_early", "player": "p1"}, events[1]]}]}
    )
    assert [said is None for said in broken["changes"][0]["added"]] == [False, True, True]
