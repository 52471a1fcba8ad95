"""Le Grand Jeu de la Vie played through, card by card (RULES.md §2 "A round, played through", and
the decisions of `engine.gjdlv_play`): the deal, each phase of a turn and its refusals, the answers
and their chains, the royal births, the last lap, the round's end; then the text's own examples.

Every refusal is checked by `tests.test_gjdlv.refused`: its exact code, a worded message, and the
state left exactly as it was (through `core.apply` and in place).
"""

from __future__ import annotations

import copy

import pytest

from engine import core, gjdlv_cards, gjdlv_play
from engine.core import InvalidEvent
from tests.test_gjdlv import CLOSE, ab, expected_round_score, nb, refused, steal

GAME = "gjdlv"
NAMES = ["Ada", "Bruno", "Chiara", "Dario", "Elena", "Fabio"]

# The gametes as the text counts them, written independently of the engine's tables.
NUMBER_GM = [r + s for s in "SC" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"]]
FACE_GM = [r + s for s in "SC" for r in ["J", "Q", "K"]]
GM_COUNT = {"simples": 20, "abondantes": 26}
GF_COUNT = {"simples": 20, "abondantes": 26}


# --- builders ----------------------------------------------------------------------------------------


def deal(*cards: str) -> dict:
    return {"type": "deal", "mouchoir": list(cards)}


def birth(player: str, held: str | None = None) -> dict:
    event = {"type": "birth", "player": player}
    if held is not None:
        event["held"] = held
    return event


def ov(player: str, gf: str) -> dict:
    return {"type": "ovulate", "player": player, "gf": gf}


def fec(player: str, gm: str) -> dict:
    return {"type": "fecundate", "player": player, "gm": gm}


def sur(player: str, victim: str, gm: str) -> dict:
    return {"type": "surrogate", "player": player, "from": victim, "gm": gm}


def hold(player: str) -> dict:
    return {"type": "hold", "player": player}


def pas(player: str) -> dict:
    return {"type": "pass", "player": player}


def ejac(**gms: str) -> dict:
    return {"type": "ejaculate", "gms": gms}


def abort(player: str, gm: str) -> dict:
    return {"type": "abort", "player": player, "gm": gm}


def cancel(player: str, card: str) -> dict:
    return {"type": "cancel", "player": player, "card": card}


def remove(player: str, victim: str) -> dict:
    return {"type": "remove_embryo", "player": player, "from": victim}


def tracker(count: int = 3, rules: str = "simples", events=(), **options) -> dict:
    options = {"mode": "tracker", "rules": rules, "rounds": 5, **options}
    return core.replay(GAME, NAMES[:count], options, list(events))


def go(state: dict, *events: dict) -> dict:
    for event in events:
        state = core.apply(GAME, state, event)
    return state


def view(state: dict) -> dict:
    return core.view(GAME, state)


def play(state: dict) -> dict:
    return view(state)["play"]


def seat(state: dict, pid: str) -> dict:
    return next(s for s in play(state)["seats"] if s["player"] == pid)


def uterus(state: dict, pid: str) -> tuple[str, str] | None:
    embryo = seat(state, pid)["uterus"]
    return (embryo["gf"], embryo["gm"]) if embryo else None


def player(state: dict, pid: str) -> dict:
    return next(p for p in view(state)["players"] if p["id"] == pid)


def nursery(state: dict, pid: str) -> list[tuple[str, str]]:
    return [(n["gf"], n["gm"]) for n in player(state, pid)["newborns"]]


def choice(state: dict, action: dict) -> list | dict | None:
    """The cards ``play.choices`` offers for ``action``; `KeyError` when it is not offered."""
    for offered in play(state)["choices"]:
        if offered["action"] == action:
            return offered["cards"]
    raise KeyError(action)


def offered(state: dict, action: dict) -> bool:
    return action in view(state)["actions"]


# 3 players, simples: 6 GM each, 9♣ and 10♣ face up in the Mouchoir.
DEAL3 = deal("9C", "10C")
# 3 players, abondantes: 8 GM each, 10♠ and 10♣ face up in the Mouchoir.
DEAL3A = deal("10S", "10C")


# 3 players, simples: each fecundates in turn; then p1's phase 0 waits for 6♥ × 4♠.
FIRST_LAP = [
    ov("p1", "6H"),
    fec("p1", "4S"),
    ov("p2", "7H"),
    fec("p2", "AS"),
    ov("p3", "8H"),
    fec("p3", "2S"),
]


def royal_lap(royal: str) -> list[dict]:
    """3 players, abondantes: p1 fecundates ``royal`` (a red face) with 2♠, then p2 and p3 fecundate:
    p1's phase 0 waits for that royal embryo, p2 and p3 each have one in gestation."""
    return [
        ov("p1", royal),
        fec("p1", "2S"),
        ov("p2", "4H"),
        fec("p2", "9C"),
        ov("p3", "5H"),
        fec("p3", "AS"),
    ]


# 3 players, abondantes: p2's phase 0 waits for a Queen, p1 holding a newborn (4♥ × 9♣) to take.
QUEEN_WAITING = [
    ov("p1", "4H"),
    fec("p1", "9C"),
    ov("p2", "QH"),
    fec("p2", "2S"),
    ov("p3", "5H"),
    hold("p3"),
    birth("p1"),
    ov("p1", "6H"),
    fec("p1", "AS"),
]


def started(count: int = 3, rules: str = "simples", *events: dict) -> dict:
    first = {("simples", 3): DEAL3, ("abondantes", 3): DEAL3A}.get((rules, count))
    if first is None:
        first = deal(*{"simples": NUMBER_GM, "abondantes": NUMBER_GM}[rules][20 - GM_COUNT[rules] % count :])
    return tracker(count, rules, [first, *events])


# --- the deal ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", ["simples", "abondantes"])
@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
def test_the_deal_shares_the_gm_equally_and_the_rest_goes_face_up_to_the_mouchoir(rules, count):
    gms = GM_COUNT[rules]
    per, left = gms // count, gms - count * (gms // count)
    state = tracker(count, rules)
    assert play(state)["phase"] == "deal"
    assert play(state)["deal"] == {"per_player": per, "mouchoir": left}
    assert view(state)["actions"] == [{"type": "deal"}]
    rest = NUMBER_GM[::-1][:left]  # 10♣, 9♣...
    state = go(state, deal(*rest))
    assert [s["hand"] for s in play(state)["seats"]] == [per] * count
    assert sorted(play(state)["mouchoir"]) == sorted(rest)
    assert play(state)["phase"] == "ovulation" and play(state)["active"] == "p1"
    assert play(state)["ovulation"] == GF_COUNT[rules]
    assert play(state)["hidden"] == gms - left
    for wrong in (left - 1, left + 1):
        if wrong >= 0:
            error = refused(tracker(count, rules), deal(*NUMBER_GM[:wrong]), "gjdlv.play.deal_count")
            expected = {"players": count, "gms": gms, "per": per, "expected": left, "count": wrong}
            assert error.params == expected


@pytest.mark.parametrize(
    ("rules", "count", "per", "left"),
    [
        ("simples", 3, 6, 2),
        ("simples", 4, 5, 0),
        ("abondantes", 3, 8, 2),
        ("abondantes", 4, 6, 2),
    ],
)
def test_the_texts_own_deals(rules, count, per, left):
    assert play(tracker(count, rules))["deal"] == {"per_player": per, "mouchoir": left}


def test_the_deal_starts_with_the_rounds_first_player():
    state = go(tracker(3, first_player=2), DEAL3)
    assert play(state)["active"] == "p3" and play(state)["phase"] == "ovulation"


def test_a_bad_deal_is_refused():
    state = tracker(3)
    refused(state, {"type": "deal", "mouchoir": "9C 10C"}, "gjdlv.play.bad_mouchoir", InvalidEvent)
    refused(state, {"type": "deal"}, "gjdlv.play.bad_mouchoir", InvalidEvent)
    refused(state, {"type": "deal", "mouchoir": ["9C"] * 27}, "gjdlv.play.bad_mouchoir", InvalidEvent)
    refused(state, deal("9C", "9C"), "gjdlv.duplicate_card", InvalidEvent)
    refused(state, deal("9C", "KC"), "gjdlv.faces_need_abondantes")
    refused(state, deal("9C", "9H"), "gjdlv.gm_must_be_black", InvalidEvent)
    refused(state, deal("9C", "nope"), "gjdlv.bad_card", InvalidEvent)
    # Once dealt, no second deal.
    refused(go(state, DEAL3), DEAL3, "gjdlv.play.expect.ovulation")


def test_the_mouchoir_is_kept_in_deck_order_and_cards_are_read_leniently():
    state = go(tracker(3), deal("10♣", "9c"))
    assert play(state)["mouchoir"] == ["9C", "10C"]


# --- the phases, in order, and by the active player only ------------------------------------------


def test_nothing_but_the_deal_before_the_deal():
    state = tracker(3)
    refused(state, ov("p1", "6H"), "gjdlv.play.expect.deal")
    refused(state, CLOSE, "gjdlv.play.round_goes_on")
    refused(state, birth("p1"), "gjdlv.play.expect.deal")
    refused(state, abort("p2", "4S"), "gjdlv.play.nothing_to_answer")
    refused(state, cancel("p2", "4S"), "gjdlv.play.nothing_to_answer")


def test_each_phase_in_order_and_out_of_turn_refused():
    state = started()
    # Phase 1: only the active player ovulates; nothing of phase 2 yet.
    assert view(state)["actions"] == [{"type": "ovulate", "player": "p1"}]
    error = refused(state, ov("p2", "6H"), "gjdlv.play.not_your_turn")
    assert error.params == {"name": "Bruno", "active": "Ada"}
    refused(state, fec("p1", "4S"), "gjdlv.play.expect.ovulation")
    refused(state, hold("p1"), "gjdlv.play.expect.ovulation")
    refused(state, birth("p1"), "gjdlv.play.expect.ovulation")
    refused(state, ejac(), "gjdlv.play.expect.ovulation")
    state = go(state, ov("p1", "6H"))
    assert (play(state)["phase"], play(state)["gf"], play(state)["ovulation"]) == ("action", "6H", 19)
    # Phase 2: fecundate, surrogate (nobody has an embryo yet) or hold back; not by another player.
    assert view(state)["actions"] == [{"type": "fecundate", "player": "p1"}, {"type": "hold", "player": "p1"}]
    refused(state, ov("p1", "7H"), "gjdlv.play.expect.action")
    refused(state, fec("p2", "4S"), "gjdlv.play.not_your_turn")
    refused(state, hold("p3"), "gjdlv.play.not_your_turn")
    refused(state, sur("p1", "p2", "4S"), "gjdlv.play.no_embryo")
    refused(state, sur("p1", "p1", "4S"), "gjdlv.play.surrogate_own")
    refused(state, ejac(p2="4S"), "gjdlv.play.expect.action")
    refused(state, CLOSE, "gjdlv.play.round_goes_on")
    state = go(state, fec("p1", "4S"))
    # A fecundation ends the turn: the next player's phase 0 has nothing to do, phase 1 is theirs.
    assert (play(state)["phase"], play(state)["active"], play(state)["gf"]) == ("ovulation", "p2", None)
    assert uterus(state, "p1") == ("6H", "4S") and seat(state, "p1")["hand"] == 5


@pytest.mark.parametrize(
    ("event", "code"),
    [
        (nb("p1", "6H", "4S"), "gjdlv.play.sheet_event"),
        (ab("p1"), "gjdlv.play.sheet_event"),
    ],
)
def test_sheet_events_are_refused_at_a_tracker_table(event, code):
    refused(started(), event, code)


@pytest.mark.parametrize(
    "event",
    [
        DEAL3,
        birth("p1"),
        ov("p1", "6H"),
        fec("p1", "4S"),
        sur("p1", "p2", "4S"),
        hold("p1"),
        pas("p1"),
        ejac(),
        abort("p1", "4S"),
        cancel("p1", "KS"),
        remove("p1", "p2"),
    ],
)
def test_tracker_events_are_refused_at_a_sheet_table(event):
    refused(core.setup(GAME, NAMES[:3], {}), event, "gjdlv.play.tracker_event")


def test_a_sheet_table_has_no_play():
    state = core.setup(GAME, NAMES[:3], {"mode": "sheet"})
    assert (view(state)["mode"], view(state)["play"]) == ("sheet", None)


# --- phase 0: birth, and the held GM to the Mouchoir -------------------------------------------------


def test_phase_0_births_the_embryo_into_the_nursery():
    state = started(3, "simples", *FIRST_LAP)
    assert (play(state)["phase"], play(state)["active"]) == ("birth", "p1")
    # Phase 0 is p1's; p3's fecundation may still be answered (by the other 2, in p1's or p2's hand).
    # With nothing to choose in it, p1's ovulation may also be recorded in its place (issue 29).
    assert view(state)["actions"] == [
        {"type": "birth", "player": "p1"},
        {"type": "ovulate", "player": "p1"},
        {"type": "abort", "player": "p1"},
        {"type": "abort", "player": "p2"},
    ]
    assert seat(state, "p1")["uterus"]["comes_to_term"] is True
    refused(state, birth("p2"), "gjdlv.play.not_your_turn")
    refused(state, birth("p1", "5S"), "gjdlv.play.nothing_held")
    state = go(state, birth("p1"))
    assert nursery(state, "p1") == [("6H", "4S")] and uterus(state, "p1") is None
    assert player(state, "p1")["round_score"] == 5 + 2
    assert play(state)["phase"] == "ovulation"


def test_a_held_gm_goes_face_up_to_the_mouchoir_at_its_players_phase_0():
    # p1 holds back; nobody else holds, so 6♥ goes to the Diva Cup; nobody ejaculates after.
    state = started(3, "simples", ov("p1", "6H"), hold("p1"))
    assert seat(state, "p1")["held"] is True and seat(state, "p1")["hand"] == 5
    assert play(state)["diva_cup"] == ["6H"] and play(state)["active"] == "p2"
    state = go(state, ov("p2", "7H"), fec("p2", "AS"), ov("p3", "8H"), fec("p3", "2S"))
    assert (play(state)["phase"], play(state)["active"]) == ("birth", "p1")
    assert choice(state, {"type": "birth", "player": "p1"}) == play(state)["unseen"]["gm"]
    refused(state, birth("p1"), "gjdlv.play.held_card_needed")
    refused(state, birth("p1", "9C"), "gjdlv.play.seen.mouchoir")
    refused(state, birth("p1", "AS"), "gjdlv.play.seen.uterus")
    refused(state, birth("p1", "7H"), "gjdlv.gm_must_be_black", InvalidEvent)
    state = go(state, birth("p1", "5S"))
    assert seat(state, "p1")["held"] is False and "5S" in play(state)["mouchoir"]
    assert nursery(state, "p1") == [] and play(state)["phase"] == "ovulation"


def test_phase_0_births_and_discards_at_once():
    state = started(
        3,
        "simples",
        ov("p1", "6H"),
        hold("p1"),
        ov("p2", "7H"),
        hold("p2"),
        ejac(),
        ov("p3", "8H"),
        hold("p3"),
        ejac(),
    )
    # p1 held through the lap without ejaculating: 7♥ and 8♥ went to the Diva Cup.
    assert play(state)["diva_cup"] == ["6H", "7H", "8H"]
    state = go(state, birth("p1", "5S"))
    assert "5S" in play(state)["mouchoir"]


# --- a phase 0 with nothing to choose: made by the step recorded in its place (issue 29) ----------


def waiting_birth() -> dict:
    """p1's phase 0 waits for 6♥ × 4♠, while p3's fecundation may be answered."""
    return started(3, "simples", *FIRST_LAP)


def test_the_ovulation_recorded_in_place_of_a_phase_0_with_nothing_to_choose_makes_it_first():
    state = waiting_birth()
    assert gjdlv_play.phase_0_forced(state)
    assert choice(state, {"type": "ovulate", "player": "p1"}) == play(state)["unseen"]["gf"]
    # One event instead of two, the same state: the embryo born, then 9♥ revealed.
    assert go(state, ov("p1", "9H")) == go(state, birth("p1"), ov("p1", "9H"))
    assert nursery(go(state, ov("p1", "9H")), "p1") == [("6H", "4S")]
    # The answers to p3's act still come first: they belong to its moment, before p1's phase 0.
    aborted = go(state, abort("p2", "2C"))
    assert go(aborted, ov("p1", "9H")) == go(aborted, birth("p1"), ov("p1", "9H"))
    refused(state, ov("p2", "9H"), "gjdlv.play.not_your_turn")
    refused(state, ov("p1", "6H"), "gjdlv.play.seen.uterus")  # the embryo's GF, born on the way
    refused(state, fec("p1", "5S"), "gjdlv.play.expect.birth")  # only the next step, not beyond it
    refused(state, CLOSE, "gjdlv.play.round_goes_on")


def test_a_phase_0_with_a_gm_held_back_waits_for_its_own_event():
    # p1 holds back and p2, p3 fecundate: p1's phase 0 must name the held GM going to the Mouchoir.
    state = started(3, "simples", ov("p1", "6H"), hold("p1"), ov("p2", "7H"), fec("p2", "AS"), ov("p3", "8H"))
    state = go(state, fec("p3", "2S"))
    assert not gjdlv_play.phase_0_forced(state)
    assert [a["type"] for a in view(state)["actions"] if a["player"] == "p1"] == ["birth", "abort"]
    refused(state, ov("p1", "9H"), "gjdlv.play.expect.birth")


def test_a_queen_or_jack_coming_to_term_waits_for_its_own_birth():
    # Its birth opens the take or the removal (the very next event), or the note that it is lost.
    jack = started(3, "abondantes", *royal_lap("JH"))
    queen = started(3, "abondantes", *QUEEN_WAITING)
    lost = started(3, "abondantes", *royal_lap("QH"))
    for state, pid, after in (
        (jack, "p1", "remove_embryo"),
        (queen, "p2", "steal_newborn"),
        (lost, "p1", None),
    ):
        assert play(state)["phase"] == "birth" and not gjdlv_play.phase_0_forced(state)
        assert not offered(state, {"type": "ovulate", "player": pid})
        refused(state, ov(pid, "9H"), "gjdlv.play.expect.birth")
        born = go(state, birth(pid))
        if after:
            assert after in {a["type"] for a in view(born)["actions"]}
        else:
            assert any(note["code"] == "gjdlv.take_nothing" for note in view(born)["notes"])


# 6 players, 3 GM each. p1 holds back; p2 announces with an abortion (their last card) in p4's turn.
LAST_LAP_BY_P2 = [
    ov("p1", "AH"),
    hold("p1"),
    ov("p2", "2H"),
    fec("p2", "2S"),
    ov("p3", "3H"),
    fec("p3", "3S"),
    abort("p2", "3C"),
    ov("p4", "4H"),
    fec("p4", "4S"),
    abort("p2", "4C"),
]
# Then p6 leaves 6♥ and p1, next, ejaculates on it: a fécondation express begun in the last lap.
LATE_EXPRESS = [
    *LAST_LAP_BY_P2,
    ov("p5", "5H"),
    hold("p5"),
    ejac(),
    ov("p6", "6H"),
    hold("p6"),
    ejac(p1="6S"),
]


def test_an_embryo_begun_in_the_last_lap_leaves_with_the_ovulation_recorded_in_place_of_its_phase_0():
    # As test_an_ejaculation_won_in_the_last_lap_does_not_come_to_term: p1's express won in the last
    # lap is not born at p1's phase 0; nothing to choose there, p1's ovulation makes it.
    state = started(6, "simples", *LATE_EXPRESS)
    assert gjdlv_play.phase_0_forced(state) and seat(state, "p1")["uterus"]["comes_to_term"] is False
    assert go(state, ov("p1", "7H")) == go(state, birth("p1"), ov("p1", "7H"))
    after = go(state, ov("p1", "7H"))
    assert nursery(after, "p1") == [] and "6S" in play(after)["mouchoir"] and "6H" in play(after)["diva_cup"]


def test_the_announcers_last_phase_0_keeps_its_own_birth():
    # It ends the round: the table sees the final scores, the last newborn counted, before closing.
    state, _ = two_player_round(last_abort=False)
    state = go(state, birth("p2"), ov("p2", "10D"), fec("p2", "10C"))
    assert (play(state)["phase"], play(state)["active"]) == ("birth", "p1")
    assert not gjdlv_play.phase_0_forced(state)
    assert [a for a in view(state)["actions"] if a["type"] in ("birth", "close_round", "ovulate")] == [
        {"type": "birth", "player": "p1"}
    ]
    refused(state, ov("p1", "AH"), "gjdlv.play.expect.birth")
    refused(state, CLOSE, "gjdlv.play.round_goes_on")


# --- phase 1: ovulation ---------------------------------------------------------------------------


def test_ovulation_reveals_an_unseen_red_card():
    state = started(3, "simples", ov("p1", "6H"), hold("p1"))
    refused(state, ov("p2", "6H"), "gjdlv.play.seen.diva_cup")
    refused(state, ov("p2", "6S"), "gjdlv.gf_must_be_red", InvalidEvent)
    refused(state, ov("p2", "QH"), "gjdlv.faces_need_abondantes")
    assert choice(state, {"type": "ovulate", "player": "p2"}) == play(state)["unseen"]["gf"]
    assert "6H" not in choice(state, {"type": "ovulate", "player": "p2"})


# --- phase 2: fecundate, surrogate, hold back, pass ---------------------------------------------------


def test_fecundation_checks_the_gametes():
    state = started(3, "abondantes", ov("p1", "6H"))
    refused(state, fec("p1", "KS"), "gjdlv.imperial_needs_royal")
    refused(state, fec("p1", "10S"), "gjdlv.play.seen.mouchoir")
    refused(state, fec("p1", "6D"), "gjdlv.gm_must_be_black", InvalidEvent)
    numbers = [c for c in NUMBER_GM if c not in ("10S", "10C")]  # no imperial on a number GF
    assert choice(state, {"type": "fecundate", "player": "p1"}) == numbers
    royal = started(3, "abondantes", ov("p1", "QH"))
    assert choice(royal, {"type": "fecundate", "player": "p1"}) == play(royal)["unseen"]["gm"]
    assert uterus(go(royal, fec("p1", "KS")), "p1") == ("QH", "KS")
    assert uterus(go(royal, fec("p1", "3C")), "p1") == ("QH", "3C")


def test_surrogacy_takes_a_strictly_closer_embryo():
    state = started(3, "simples", ov("p1", "6H"), fec("p1", "AS"), ov("p2", "7H"))  # embryo 6♥/A♠, EG 5
    refused(state, sur("p2", "p1", "AC"), "gjdlv.check.surrogate_not_closer")  # EG 5, not closer
    refused(state, sur("p2", "p3", "5S"), "gjdlv.play.no_embryo")
    refused(state, sur("p2", "p1", "AS"), "gjdlv.play.seen.uterus")
    refused(state, sur("p3", "p1", "5S"), "gjdlv.play.not_your_turn")
    closer = [c for c in NUMBER_GM if c not in ("AS", "9C", "10C") and abs(gjdlv_cards.value_of(c) - 6) < 5]
    assert choice(state, {"type": "surrogate", "player": "p2", "from": "p1"}) == closer
    state = go(state, sur("p2", "p1", "6S"))  # a CC, allowed: EG 0 < 5
    assert uterus(state, "p2") == ("6H", "6S") and uterus(state, "p1") is None
    assert "AS" in play(state)["mouchoir"]
    assert play(state)["open"][-1] == {
        "act": "surrogacy",
        "player": "p2",
        "from": "p1",
        "gf": "6H",
        "gm": "6S",
        "replaced": "AS",
    }
    # The GF p2 revealed was left: nobody holds, so it goes to the Diva Cup; p3 plays.
    assert play(state)["diva_cup"] == ["7H"] and play(state)["active"] == "p3"


def test_an_imperial_surrogates_only_a_royal_embryo():
    state = started(3, "abondantes", ov("p1", "6H"), fec("p1", "AS"), ov("p2", "7H"))
    refused(state, sur("p2", "p1", "KS"), "gjdlv.check.surrogate_imperial_on_number")


def test_holding_back_puts_a_gm_face_down_in_the_urethra():
    state = started(3, "simples", ov("p1", "6H"))
    state = go(state, hold("p1"))
    assert (seat(state, "p1")["held"], seat(state, "p1")["hand"], play(state)["hidden"]) == (True, 5, 18)
    # A player who holds cannot hold again: they are not active any more.
    refused(state, hold("p1"), "gjdlv.play.expect.ovulation")


def test_one_passes_only_with_no_card_left():
    state = started(3, "simples", ov("p1", "6H"))
    error = refused(state, pas("p1"), "gjdlv.play.must_act")
    assert error.params == {"name": "Ada", "hand": 6}
    assert not offered(state, pas("p1"))


# --- phase 3: the held-back ejaculation contest ------------------------------------------------------


def four_holding(rules: str = "simples", gf: str = "6H") -> dict:
    """4 players: p1, p2, p3 hold back in turn (their GF left with nobody ejaculating), then p4 reveals
    ``gf`` and holds back too: phase 3 on ``gf``."""
    state = started(
        4,
        rules,
        ov("p1", "AH"),
        hold("p1"),
        ov("p2", "2H"),
        hold("p2"),
        ejac(),
        ov("p3", "3H"),
        hold("p3"),
        ejac(),
        ov("p4", gf),
        hold("p4"),
    )
    assert (play(state)["phase"], play(state)["gf"]) == ("ejaculation", gf)
    assert play(state)["diva_cup"] == ["AH", "2H", "3H"]
    return state


def test_phase_3_opens_only_to_the_other_players_holding_back():
    state = four_holding()
    cards = choice(state, {"type": "ejaculate"})
    assert sorted(cards) == ["p1", "p2", "p3"]  # p4 left the GF: not theirs
    assert cards["p1"] == [c for c in NUMBER_GM if c in play(state)["unseen"]["gm"]]
    assert refused(state, ejac(p4="5S"), "gjdlv.play.own_gf").params == {"name": "Dario"}
    refused(state, ejac(p1="AH"), "gjdlv.gm_must_be_black", InvalidEvent)
    refused(state, ejac(p1="5S", p2="5S"), "gjdlv.duplicate_card", InvalidEvent)
    refused(state, ejac(p9="5S"), "unknown_player", InvalidEvent)
    refused(state, {"type": "ejaculate", "gms": ["5S"]}, "gjdlv.bad_gms", InvalidEvent)
    refused(state, ov("p1", "7H"), "gjdlv.play.expect.ejaculation")


def test_an_ejaculation_needs_a_held_gm():
    state = started(3, "simples", ov("p1", "AH"), hold("p1"), ov("p2", "2H"), hold("p2"))
    assert play(state)["phase"] == "ejaculation"
    refused(state, ejac(p3="5S"), "gjdlv.play.not_held")


def test_a_single_ejaculation_fecundates():
    state = go(four_holding(), ejac(p2="9C"))
    assert uterus(state, "p2") == ("6H", "9C") and seat(state, "p2")["held"] is False
    assert seat(state, "p1")["held"] is True  # p1 did not ejaculate: still holds
    assert play(state)["open"] == [{"act": "fecundation", "player": "p2", "gf": "6H", "gm": "9C"}]
    assert play(state)["diva_cup"] == ["AH", "2H", "3H"]


def test_the_lowest_genetic_gap_wins_the_contest():
    state = go(four_holding(), ejac(p1="10S", p2="9C", p3="4S"))  # EG 4, 3, 2
    assert uterus(state, "p3") == ("6H", "4S")
    assert {"10S", "9C"} <= set(play(state)["mouchoir"])
    assert not any(seat(state, p)["held"] for p in ("p1", "p2", "p3"))


def test_tied_gaps_are_discarded_and_the_lowest_left_wins():
    state = go(four_holding(), ejac(p1="2S", p2="10S", p3="AC"))  # EG 4 and 4 tie; A♣ (EG 5) is left
    assert uterus(state, "p3") == ("6H", "AC")
    assert {"2S", "10S"} <= set(play(state)["mouchoir"]) and uterus(state, "p1") is None


def test_all_tied_nobody_fecundates_and_the_gf_goes_to_the_diva_cup():
    state = go(four_holding(), ejac(p1="2S", p2="10S", p3="2C"))  # EG 4 three times
    assert all(uterus(state, p) is None for p in ("p1", "p2", "p3", "p4"))
    assert play(state)["diva_cup"] == ["AH", "2H", "3H", "6H"]
    assert {"2S", "10S", "2C"} <= set(play(state)["mouchoir"])
    assert play(state)["open"] == [] and play(state)["active"] == "p1"


def test_on_a_royal_gf_two_ejaculations_are_all_tied():
    state = go(four_holding("abondantes", "QD"), ejac(p1="2S", p2="KS"))
    assert uterus(state, "p1") is None and uterus(state, "p2") is None
    assert play(state)["diva_cup"][-1] == "QD" and {"2S", "KS"} <= set(play(state)["mouchoir"])


def test_on_a_royal_gf_a_single_imperial_ejaculation_fecundates():
    state = four_holding("abondantes", "QD")
    assert "KS" in choice(state, {"type": "ejaculate"})["p1"]
    assert uterus(go(state, ejac(p1="KS")), "p1") == ("QD", "KS")


def test_an_imperial_does_not_ejaculate_on_a_number_gf():
    state = four_holding("abondantes")
    assert "KS" not in choice(state, {"type": "ejaculate"})["p1"]
    refused(state, ejac(p1="KS"), "gjdlv.imperial_needs_royal")


def test_nobody_ejaculating_is_menstruation():
    state = go(four_holding(), ejac())
    assert play(state)["diva_cup"][-1] == "6H" and seat(state, "p1")["held"] is True
    # p1 held through a whole lap: at their phase 0 the held GM goes to the Mouchoir.
    assert (play(state)["phase"], play(state)["active"]) == ("birth", "p1")


# 3 players, simples: p1 holds back; p2 fecundates; p3, just before p1, leaves 6♥: p1 ejaculates on it
# and is next (a fécondation express).
EXPRESS = [
    ov("p1", "AH"),
    hold("p1"),
    ov("p2", "2H"),
    fec("p2", "5S"),
    ov("p3", "6H"),
    hold("p3"),
    ejac(p1="4S"),
]


def test_the_fecondation_express_is_born_at_once():
    state = started(3, "simples", *EXPRESS)
    assert (play(state)["phase"], play(state)["active"]) == ("birth", "p1")
    assert seat(state, "p1")["uterus"]["comes_to_term"] is True
    state = go(state, birth("p1"))
    assert nursery(state, "p1") == [("6H", "4S")] and player(state, "p1")["round_score"] == 5 + 2


def express_aborted() -> dict:
    """`EXPRESS`, which p2 aborts with the other 4."""
    return started(3, "simples", *EXPRESS, abort("p2", "4C"))


def test_a_fecondation_express_aborted_leaves_nothing_for_phase_0_which_is_made_at_once():
    # Issue 25 item 1: the phase waited for a `birth` with nothing in it, and that empty birth,
    # once recorded, could not be worded: the table's history answered 422 from then on.
    state = express_aborted()
    assert uterus(state, "p1") is None and seat(state, "p1")["held"] is False
    assert (play(state)["phase"], play(state)["active"]) == ("ovulation", "p1")
    refused(state, birth("p1"), "gjdlv.play.expect.ovulation")
    # The abortion's chain stays open to the King (none in simples) until p1 ovulates.
    assert [a["act"] for a in play(state)["open"]] == ["fecundation", "abortion"]
    assert view(state)["actions"] == [{"type": "ovulate", "player": "p1"}]
    state = go(state, ov("p1", "7H"))
    assert play(state)["phase"] == "action" and nursery(state, "p1") == []
    assert player(state, "p2")["round_score"] == 3


def test_a_phase_0_left_waiting_with_nothing_in_it_by_older_rules_is_made_by_the_ovulation():
    # A snapshot stored before issue 25 (the express aborted, the phase 0 still waiting, empty):
    # nothing to choose there, so the ovulation goes through it, worded as a plain ovulation.
    state = express_aborted()
    state["play"]["phase"] = "birth"
    assert gjdlv_play.phase_0_forced(state)
    assert core.game(GAME).describe(state, ov("p1", "7H")) == (
        "gjdlv.story.ovulate",
        {"player": "p1", "name": "Ada", "gf": "7♥"},
    )
    after = go(state, ov("p1", "7H"))
    assert (play(after)["phase"], play(after)["gf"], nursery(after, "p1")) == ("action", "7H", [])


def test_menstruation_sends_the_left_gf_to_the_diva_cup():
    state = started(3, "simples", ov("p1", "6H"), hold("p1"))
    assert play(state)["diva_cup"] == ["6H"] and play(state)["gf"] is None
    assert (play(state)["phase"], play(state)["active"]) == ("ovulation", "p2")


# --- answers: abortions, imperial bonuses, chains ----------------------------------------------------


def test_an_abortion_takes_the_other_black_of_the_same_rank():
    state = started(3, "simples", ov("p1", "6H"), fec("p1", "4C"))
    assert choice(state, {"type": "abort", "player": "p2"}) == ["4S"]
    refused(state, abort("p2", "5S"), "gjdlv.play.abort_card")
    refused(state, abort("p1", "4S"), "gjdlv.play.answer_own")
    refused(state, abort("p2", "4C"), "gjdlv.play.seen.uterus")
    refused(state, abort("p2", "9C"), "gjdlv.play.seen.mouchoir")
    refused(state, cancel("p2", "4S"), "gjdlv.play.cancel_card")
    state = go(state, abort("p3", "4S"))
    assert uterus(state, "p1") is None and seat(state, "p3")["formol"] == ["6H", "4C", "4S"]
    assert (player(state, "p3")["abortions"], player(state, "p3")["round_score"]) == (1, 3)
    assert seat(state, "p3")["hand"] == 5
    # Only a King cancels an abortion: no abortion of an abortion.
    refused(state, abort("p2", "5S"), "gjdlv.play.nothing_to_abort")
    refused(state, ov("p2", "6H"), "gjdlv.play.seen.formol")
    # Any other event closes the chain: the answer belonged to that moment.
    later = go(state, ov("p2", "7H"))
    assert play(later)["open"] == []
    refused(later, cancel("p1", "5S"), "gjdlv.play.nothing_to_answer")


def test_a_jack_guilde_du_cintre_aborts_any_fecundation():
    state = started(3, "abondantes", ov("p1", "6H"), fec("p1", "4C"))
    assert choice(state, {"type": "abort", "player": "p2"}) == ["4S", "JS", "JC"]
    error = refused(state, abort("p2", "5S"), "gjdlv.play.abort_card_or_jack")
    assert error.params == {"card": "5S", "gm": "4C", "other": "4S"}
    state = go(state, abort("p2", "JC"))
    assert seat(state, "p2")["formol"] == ["6H", "4C", "JC"] and player(state, "p2")["round_score"] == 3


def test_aborting_a_surrogacy():
    state = started(3, "simples", ov("p1", "6H"), fec("p1", "AS"), ov("p2", "7H"), sur("p2", "p1", "5S"))
    state = go(state, abort("p1", "5C"))  # the victim answers the surrogacy of its embryo
    assert uterus(state, "p1") is None and uterus(state, "p2") is None
    assert seat(state, "p1")["formol"] == ["6H", "5S", "5C"] and "AS" in play(state)["mouchoir"]
    assert player(state, "p1")["round_score"] == 3


def test_aborting_a_fecundation_won_by_ejaculation():
    state = go(four_holding(), ejac(p2="9C"), abort("p4", "9S"))
    assert uterus(state, "p2") is None and seat(state, "p4")["formol"] == ["6H", "9C", "9S"]
    assert player(state, "p4")["abortions"] == 1


def test_a_king_manif_pour_tous_cancels_an_abortion():
    state = started(3, "abondantes", ov("p1", "6H"), fec("p1", "4C"), abort("p2", "4S"))
    assert choice(state, {"type": "cancel", "player": "p1"}) == ["KS", "KC"]
    refused(state, cancel("p1", "QS"), "gjdlv.check.bonus_queen_only_surrogacy")
    refused(state, cancel("p2", "KS"), "gjdlv.play.answer_own")
    state = go(state, cancel("p1", "KS"))
    assert uterus(state, "p1") == ("6H", "4C") and seat(state, "p2")["formol"] == []
    assert player(state, "p2")["abortions"] == 0 and {"4S", "KS"} <= set(play(state)["mouchoir"])
    # The fecundation is open again: another card may abort it (the other 4 is gone: a Jack).
    assert choice(state, {"type": "abort", "player": "p3"}) == ["JS", "JC"]


def test_a_queen_amour_maternel_cancels_a_surrogacy():
    state = started(3, "abondantes", ov("p1", "6H"), fec("p1", "AS"), ov("p2", "7H"), sur("p2", "p1", "5S"))
    refused(state, cancel("p3", "KS"), "gjdlv.check.bonus_king_only_abortion")
    state = go(state, cancel("p3", "QC"))
    assert uterus(state, "p1") == ("6H", "AS") and uterus(state, "p2") is None
    assert "AS" not in play(state)["mouchoir"] and {"5S", "QC"} <= set(play(state)["mouchoir"])
    assert play(state)["open"] == []
    refused(state, cancel("p1", "QS"), "gjdlv.play.nothing_to_answer")


def test_a_queen_does_not_cancel_a_fecundation():
    state = started(3, "abondantes", ov("p1", "6H"), fec("p1", "4C"))
    refused(state, cancel("p2", "QS"), "gjdlv.check.bonus_queen_only_surrogacy")
    refused(state, cancel("p2", "KS"), "gjdlv.check.bonus_king_only_abortion")


def test_an_embryo_given_back_to_the_next_player_waits_for_their_phase_0():
    # 2 players: p2 surrogates p1's embryo, the GF goes to the Diva Cup, p1's turn begins at once
    # (nothing to birth then); p1's Queen cancels the surrogacy: the embryo is back, and born.
    state = started(2, "abondantes", ov("p1", "6H"), fec("p1", "AS"), ov("p2", "7H"), sur("p2", "p1", "5S"))
    assert (play(state)["phase"], play(state)["active"]) == ("ovulation", "p1")
    state = go(state, cancel("p1", "QS"))
    assert (play(state)["phase"], play(state)["active"]) == ("birth", "p1")
    state = go(state, birth("p1"))
    assert nursery(state, "p1") == [("6H", "AS")]


def test_a_king_gives_back_the_embryo_before_its_owners_phase_0():
    # 4 players: p1 holds, p4 leaves 6♥, p1 ejaculates (express), p2 aborts, p3's King cancels.
    state = started(
        4,
        "abondantes",
        ov("p1", "AH"),
        hold("p1"),
        ov("p2", "2H"),
        fec("p2", "2S"),
        ov("p3", "3H"),
        fec("p3", "3S"),
        ov("p4", "6H"),
        hold("p4"),
        ejac(p1="4S"),
        abort("p2", "4C"),
    )
    # Nothing left to birth: p1's phase 0 is made at once (issue 25); the King gives the embryo back
    # to that moment, and the phase 0 waits for its birth again.
    assert (play(state)["phase"], uterus(state, "p1")) == ("ovulation", None)
    state = go(state, cancel("p3", "KC"))
    assert play(state)["phase"] == "birth" and uterus(state, "p1") == ("6H", "4S")
    assert nursery(go(state, birth("p1")), "p1") == [("6H", "4S")]


# --- royal births ------------------------------------------------------------------------------------


def test_a_queen_newborn_takes_an_opponents_most_recent_newborn_right_away():
    state = started(3, "abondantes", *QUEEN_WAITING[:7])
    assert nursery(state, "p1") == [("4H", "9C")]
    state = go(state, *QUEEN_WAITING[7:], birth("p2"))
    assert nursery(state, "p2") == [("QH", "2S")] and view(state)["take"] == {"player": "p2"}
    assert [a for a in view(state)["actions"] if a["type"] == "steal_newborn"] == [
        {"type": "steal_newborn", "player": "p2", "from": "p1"}
    ]
    state = go(state, steal("p2", "p1"))
    assert nursery(state, "p2") == [("QH", "2S"), ("4H", "9C")] and nursery(state, "p1") == []
    assert player(state, "p2")["round_score"] == 0 + 10


def test_a_queen_newborn_takes_the_newborn_on_top_of_the_opponents_nursery_even_one_itself_taken():
    # Issue 25 item 4 (RULES.md §2 Decision): the nursery is a pile. p2's Queen takes p1's newborn,
    # which lands on top of p2's nursery; p1's Queen, born later, takes that one from p2, not p2's
    # own Queen born before it.
    state = started(
        3,
        "abondantes",
        ov("p1", "4H"),
        fec("p1", "9C"),
        ov("p2", "QH"),
        fec("p2", "2S"),
        ov("p3", "5H"),
        fec("p3", "AS"),
        birth("p1"),
        ov("p1", "QD"),
        fec("p1", "3S"),
        birth("p2"),
        steal("p2", "p1"),
        ov("p2", "6H"),
        fec("p2", "7S"),
        birth("p3"),
        ov("p3", "7H"),
        fec("p3", "8S"),
        birth("p1"),
    )
    assert nursery(state, "p2") == [("QH", "2S"), ("4H", "9C")] and nursery(state, "p3") == [("5H", "AS")]
    assert view(state)["take"] == {"player": "p1"}
    state = go(state, steal("p1", "p2"))
    assert nursery(state, "p1") == [("QD", "3S"), ("4H", "9C")] and nursery(state, "p2") == [("QH", "2S")]
    assert player(state, "p1")["round_score"] == 0 + 10 and player(state, "p2")["round_score"] == 0


def test_a_queens_take_is_only_the_very_next_event():
    state = started(3, "abondantes", *QUEEN_WAITING, birth("p2"), ov("p2", "7H"))
    refused(state, steal("p2", "p1"), "gjdlv.no_queen_take")


def test_a_queen_with_no_opponent_newborn_takes_nothing():
    # p1's Queen is born at p1's phase 0, before anyone else has a newborn.
    first = started(3, "abondantes", *royal_lap("QH"), birth("p1"))
    # Nothing may be recorded for it (issue 25 item 5): `take` is null, the note says it is lost.
    assert view(first)["take"] is None
    assert {"code": "gjdlv.take_nothing", "params": {"player": "p1", "name": "Ada"}} in view(first)["notes"]
    assert not [a for a in view(first)["actions"] if a["type"] == "steal_newborn"]
    refused(first, steal("p1", "p2"), "gjdlv.nothing_to_steal")


def test_a_jack_newborn_removes_an_opponents_embryo_as_the_very_next_event():
    state = started(
        3,
        "abondantes",
        *royal_lap("JH"),
        birth("p1"),
    )
    assert nursery(state, "p1") == [("JH", "2S")] and player(state, "p1")["round_score"] == 5
    assert play(state)["removal"] == {"player": "p1"}
    assert {"code": "gjdlv.play.removal", "params": {"player": "p1", "name": "Ada"}} in view(state)["notes"]
    assert [a for a in view(state)["actions"] if a["type"] == "remove_embryo"] == [
        {"type": "remove_embryo", "player": "p1", "from": "p2"},
        {"type": "remove_embryo", "player": "p1", "from": "p3"},
    ]
    refused(state, remove("p2", "p3"), "gjdlv.play.no_removal")
    refused(state, remove("p1", "p1"), "gjdlv.play.remove_own")
    state = go(state, remove("p1", "p3"))
    assert uterus(state, "p3") is None and "AS" in play(state)["mouchoir"] and "5H" in play(state)["diva_cup"]
    assert player(state, "p1")["round_score"] == 5 and player(state, "p1")["abortions"] == 0
    assert play(state)["removal"] is None
    refused(state, remove("p1", "p2"), "gjdlv.play.no_removal")


def test_a_jacks_removal_is_lost_when_anything_else_comes_first():
    state = started(
        3,
        "abondantes",
        *royal_lap("JH"),
        birth("p1"),
        ov("p1", "6H"),
    )
    assert play(state)["removal"] is None
    refused(state, remove("p1", "p2"), "gjdlv.play.no_removal")


def test_a_jack_with_no_opponent_embryo_removes_nothing():
    state = started(
        3,
        "abondantes",
        ov("p1", "JH"),
        fec("p1", "2S"),
        ov("p2", "4H"),
        hold("p2"),
        ov("p3", "5H"),
        hold("p3"),
        ejac(),
        birth("p1"),
    )
    # Nothing may be recorded for it (issue 25 item 5): `removal` is null, the note says it is lost.
    assert play(state)["removal"] is None
    note = {"code": "gjdlv.play.removal_nothing", "params": {"player": "p1", "name": "Ada"}}
    assert note in view(state)["notes"]
    assert not [a for a in view(state)["actions"] if a["type"] == "remove_embryo"]
    refused(state, remove("p1", "p2"), "gjdlv.play.no_embryo")


# --- the last lap and the round's end ----------------------------------------------------------------

GF20 = [r + s for s in "HD" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"]]


def two_player_round(last_abort: bool) -> tuple[dict, list[dict]]:
    """2 players, simples, 10 GM each, every turn a fecundation: p1 fecundates with ♠, p2 with ♣;
    p1's 10th card (10♠, turn 19) is the round's last-lap announcement; with ``last_abort``, p2
    aborts it at once with 10♣, their own last card."""
    state = tracker(2, "simples", [deal()])
    events: list[dict] = [deal()]
    spades = NUMBER_GM[:10]
    clubs = NUMBER_GM[10:]
    for turn in range(19):
        pid = "p1" if turn % 2 == 0 else "p2"
        step = []
        if play(state)["phase"] == "birth":
            step.append(birth(pid))
        gm = spades[turn // 2] if pid == "p1" else clubs[turn // 2]
        step += [ov(pid, GF20[turn]), fec(pid, gm)]
        state = go(state, *step)
        events += step
    if last_abort:
        state = go(state, abort("p2", "10C"))
        events.append(abort("p2", "10C"))
    return state, events


def test_the_last_card_announces_the_last_lap():
    state, _ = two_player_round(last_abort=False)
    assert play(state)["last_lap"] == "p1" and seat(state, "p1")["hand"] == 0
    assert {"code": "gjdlv.play.last_lap", "params": {"player": "p1", "name": "Ada"}} in view(state)["notes"]
    # p2's embryo began before the last lap: born at p2's phase 0; p1's, made with the last card, too.
    assert seat(state, "p1")["uterus"]["comes_to_term"] is True
    assert seat(state, "p2")["uterus"]["comes_to_term"] is True
    state = go(state, birth("p2"), ov("p2", "10D"), fec("p2", "10C"))  # p2's last card, in the last lap
    assert seat(state, "p2")["uterus"]["comes_to_term"] is False
    assert seat(state, "p1")["uterus"]["comes_to_term"] is True
    assert (play(state)["phase"], play(state)["active"]) == ("birth", "p1")
    state = go(state, birth("p1"))  # the announcer's phase 0: their embryo born, and the round ends
    assert nursery(state, "p1")[-1] == ("9D", "10S")
    assert play(state)["phase"] == "ended" and view(state)["actions"] == [{"type": "close_round"}]
    assert {"code": "gjdlv.play.round_ended", "params": {}} in view(state)["notes"]
    assert uterus(state, "p2") == ("10D", "10C") and seat(state, "p2")["uterus"]["comes_to_term"] is False
    assert ("10D", "10C") not in nursery(state, "p2")
    for event in (ov("p1", "AH"), birth("p2"), fec("p2", "AS")):
        refused(state, event, "gjdlv.play.expect.ended")
    # The scores: p1's ten newborns, p2's nine (the last one never born).
    p1 = [(GF20[t], NUMBER_GM[t // 2]) for t in range(0, 19, 2)]
    p2 = [(GF20[t], NUMBER_GM[10 + t // 2]) for t in range(1, 19, 2)]
    assert nursery(state, "p1") == p1 and nursery(state, "p2") == p2
    assert player(state, "p1")["round_score"] == expected_round_score(p1, 0)
    assert player(state, "p2")["round_score"] == expected_round_score(p2, 0)


def test_a_player_with_no_card_passes_and_abortions_in_the_last_lap_count():
    state, _ = two_player_round(last_abort=True)
    assert play(state)["last_lap"] == "p1" and seat(state, "p2")["hand"] == 0
    assert seat(state, "p2")["formol"] == ["9D", "10S", "10C"]
    state = go(state, birth("p2"), ov("p2", "10D"))
    assert choice(state, {"type": "pass", "player": "p2"}) is None
    assert [a["type"] for a in view(state)["actions"]] == ["pass"]
    refused(state, fec("p2", "AS"), "gjdlv.play.no_cards")
    refused(state, hold("p2"), "gjdlv.play.no_cards")
    state = go(state, pas("p2"))
    # 10♦ is left to the Diva Cup; p1's phase 0 has nothing to birth: the round ends at once.
    assert play(state)["diva_cup"] == ["10D"] and play(state)["phase"] == "ended"
    assert player(state, "p2")["abortions"] == 1
    p2 = [(GF20[t], NUMBER_GM[10 + t // 2]) for t in range(1, 19, 2)]
    assert player(state, "p2")["round_score"] == expected_round_score(p2, 1)


def last_lap_by_answer() -> dict:
    """6 players, simples, 3 GM each: p2 plays their last card aborting p3's fecundation."""
    return started(
        6,
        "simples",
        ov("p1", "AH"),
        fec("p1", "AS"),
        abort("p2", "AC"),
        ov("p2", "2H"),
        fec("p2", "2S"),
        ov("p3", "3H"),
        fec("p3", "3S"),
        abort("p2", "3C"),
    )


def test_an_answer_with_the_very_last_card_announces_the_last_lap():
    state = last_lap_by_answer()
    assert play(state)["last_lap"] == "p2" and seat(state, "p2")["hand"] == 0
    assert (play(state)["phase"], play(state)["active"]) == ("ovulation", "p4")
    # p2's embryo began before the announcement: its owner's phase 0 is the last one, it scores.
    assert seat(state, "p2")["uterus"]["comes_to_term"] is True
    state = go(state, ov("p4", "4H"), fec("p4", "4S"))
    assert seat(state, "p4")["uterus"]["comes_to_term"] is False
    state = go(state, abort("p5", "4C"))  # an abortion in the last lap counts
    state = go(
        state,
        ov("p5", "5H"),
        fec("p5", "5S"),
        ov("p6", "6H"),
        fec("p6", "6S"),
        ov("p1", "7H"),
        fec("p1", "7S"),
    )
    assert all(seat(state, p)["uterus"]["comes_to_term"] is False for p in ("p5", "p6", "p1"))
    assert (play(state)["phase"], play(state)["active"]) == ("birth", "p2")
    state = go(state, birth("p2"))
    assert play(state)["phase"] == "ended" and nursery(state, "p2") == [("2H", "2S")]
    assert all(nursery(state, p) == [] for p in ("p1", "p3", "p4", "p5", "p6"))
    scores = {p["id"]: p["round_score"] for p in view(state)["players"]}
    assert scores == {"p1": 0, "p2": 3 + 3 + 5, "p3": 0, "p4": 0, "p5": 3, "p6": 0}


def test_an_ejaculation_won_in_the_last_lap_does_not_come_to_term():
    # LATE_EXPRESS: p1's fecondation express is begun in the last lap by a player who did not
    # announce it: never born, it leaves the uterus at p1's phase 0.
    state = started(6, "simples", *LAST_LAP_BY_P2)
    assert play(state)["last_lap"] == "p2"
    state = go(state, *LATE_EXPRESS[len(LAST_LAP_BY_P2) :])
    assert (play(state)["phase"], play(state)["active"]) == ("birth", "p1")
    assert uterus(state, "p1") == ("6H", "6S") and seat(state, "p1")["uterus"]["comes_to_term"] is False
    state = go(state, birth("p1"))
    assert nursery(state, "p1") == [] and uterus(state, "p1") is None
    assert "6S" in play(state)["mouchoir"] and "6H" in play(state)["diva_cup"]
    state = go(state, ov("p1", "7H"), fec("p1", "7S"))
    assert seat(state, "p1")["uterus"]["comes_to_term"] is False
    state = go(state, birth("p2"))
    assert play(state)["phase"] == "ended" and nursery(state, "p2") == [("2H", "2S")]
    assert uterus(state, "p1") == ("7H", "7S") and nursery(state, "p1") == []
    scores = {p["id"]: p["round_score"] for p in view(state)["players"]}
    assert scores == {"p1": 0, "p2": 3 + 3 + 5, "p3": 0, "p4": 0, "p5": 0, "p6": 0}


@pytest.mark.parametrize("with_embryo", [False, True])
def test_an_answer_with_the_last_card_just_before_the_announcers_turn_ends_the_round_at_that_phase_0(
    with_embryo,
):
    # Issue 25 item 2 (RULES.md §2 Decision): "that player's next phase 0" is the first one after the
    # announcement, whatever it holds. 6 players, 3 GM each: p2 aborts p1's fecundation with their
    # last card, just before their own turn. With an embryo (2♥ × 2♠) p2's phase 0 births it and
    # ends the round; with none (p3 aborted it), the phase 0 made at once ends it just the same.
    events = [
        ov("p1", "AH"),
        fec("p1", "AS"),
        abort("p2", "AC"),
        ov("p2", "2H"),
        fec("p2", "2S"),
        *([] if with_embryo else [abort("p3", "2C")]),
        ov("p3", "3H"),
        fec("p3", "3S"),
        ov("p4", "4H"),
        fec("p4", "4S"),
        ov("p5", "5H"),
        fec("p5", "5S"),
        ov("p6", "6H"),
        fec("p6", "6S"),
        ov("p1", "7H"),
        fec("p1", "7S"),
        abort("p2", "7C"),
    ]
    state = started(6, "simples", *events)
    assert play(state)["last_lap"] == "p2" and play(state)["active"] == "p2"
    if with_embryo:
        assert play(state)["phase"] == "birth"
        assert [a for a in view(state)["actions"] if a["type"] == "ovulate"] == []
        state = go(state, birth("p2"))
    assert play(state)["phase"] == "ended"
    assert view(state)["actions"] == [{"type": "close_round"}]
    refused(state, ov("p2", "8H"), "gjdlv.play.expect.ended")
    assert nursery(state, "p2") == ([("2H", "2S")] if with_embryo else [])
    assert all(seat(state, p)["uterus"]["comes_to_term"] is False for p in ("p3", "p4", "p5", "p6"))
    scores = {p["id"]: p["round_score"] for p in view(state)["players"]}
    expected = {"p1": 0, "p2": 3 + 3, "p3": 3, "p4": 0, "p5": 0, "p6": 0}
    if with_embryo:
        expected.update(p2=3 + 3 + 5, p3=0)
    assert scores == expected


def test_the_announcers_fecondation_express_aborted_ends_the_round_at_once():
    # 6 players, 3 GM each: p2 holds a GM back, then announces with an abortion (their last card in
    # hand); a lap later p1, just before p2, leaves 8♥ and p2 wins it with the GM held back (a
    # fécondation express, at p2's phase 0); p3 aborts it: that phase 0 has nothing left, and it
    # ends the round.
    state = started(
        6,
        "simples",
        ov("p1", "AH"),
        fec("p1", "AS"),
        abort("p2", "AC"),
        ov("p2", "2H"),
        hold("p2"),
        ov("p3", "3H"),
        fec("p3", "3S"),
        abort("p2", "3C"),  # p2's last card (one is held back): the last lap
        ov("p4", "4H"),
        fec("p4", "4S"),
        ov("p5", "5H"),
        fec("p5", "5S"),
        ov("p6", "6H"),
        fec("p6", "6S"),
        ov("p1", "8H"),
        hold("p1"),
        ejac(p2="7S"),
    )
    assert (play(state)["phase"], play(state)["active"], uterus(state, "p2")) == ("birth", "p2", ("8H", "7S"))
    assert seat(state, "p2")["uterus"]["comes_to_term"] is True
    state = go(state, abort("p3", "7C"))
    assert play(state)["phase"] == "ended" and nursery(state, "p2") == []
    assert {"type": "close_round"} in view(state)["actions"]


def test_the_announcers_embryo_won_with_a_gm_held_back_before_the_announcement_is_born_at_the_final_phase_0():
    # Issue 25 item 3 (RULES.md §2 Decision). 6 players, 3 GM each: p1 holds a GM back, then plays
    # their last card aborting p3's fecundation (the last lap); p4 leaves 4♥ and p1 wins it with the
    # GM held back. Not next, p1 waits: the fecundations of p5 and p6 never come to term, p1's is
    # born at p1's phase 0, which ends the round.
    state = started(
        6,
        "simples",
        ov("p1", "AH"),
        hold("p1"),
        ov("p2", "2H"),
        fec("p2", "2S"),
        abort("p1", "2C"),
        ov("p3", "3H"),
        fec("p3", "3S"),
        abort("p1", "3C"),
    )
    assert play(state)["last_lap"] == "p1" and seat(state, "p1")["held"] is True
    state = go(state, ov("p4", "4H"), hold("p4"), ejac(p1="5S"))
    assert uterus(state, "p1") == ("4H", "5S") and seat(state, "p1")["uterus"]["comes_to_term"] is True
    state = go(state, ov("p5", "5H"), fec("p5", "6S"), ov("p6", "6H"), fec("p6", "7S"))
    assert seat(state, "p5")["uterus"]["comes_to_term"] is False
    assert (play(state)["phase"], play(state)["active"]) == ("birth", "p1")
    state = go(state, birth("p1"))
    assert play(state)["phase"] == "ended" and nursery(state, "p1") == [("4H", "5S")]
    assert player(state, "p1")["round_score"] == 3 + 3 + 5 + 1


def test_the_announcers_last_card_held_back_then_ejaculated_is_born_at_the_final_phase_0():
    # 2 players, simples: p1's last card is held back (the announcement); p2 leaves 10♦, p1 wins it.
    state, events = two_player_round(last_abort=False)
    events = events[:-1] + [hold("p1")]
    state = tracker(2, "simples", events)
    assert play(state)["last_lap"] == "p1" and seat(state, "p1")["held"] is True
    state = go(state, birth("p2"), ov("p2", "10D"), hold("p2"), ejac(p1="10S"))
    assert (play(state)["phase"], play(state)["active"]) == ("birth", "p1")
    assert seat(state, "p1")["uterus"]["comes_to_term"] is True
    state = go(state, birth("p1"))
    assert play(state)["phase"] == "ended" and nursery(state, "p1")[-1] == ("10D", "10S")


# --- the round's end and the next round ------------------------------------------------------------


def test_close_round_only_once_the_round_is_over():
    refused(started(), CLOSE, "gjdlv.play.round_goes_on")


def test_closing_appends_the_scores_and_deals_the_next_round_from_the_next_seat():
    state, _ = two_player_round(last_abort=True)
    state = go(state, birth("p2"), ov("p2", "10D"), pas("p2"))
    scores = [p["round_score"] for p in view(state)["players"]]
    state = go(state, CLOSE)
    after = view(state)
    assert [p["round_scores"] for p in after["players"]] == [[s] for s in scores]
    assert (after["round"], after["first_player"]) == (2, "p2")
    assert (after["play"]["phase"], after["play"]["active"]) == ("deal", "p2")
    assert after["play"]["mouchoir"] == [] and after["play"]["ovulation"] == 20
    assert all(s["hand"] == 0 and s["formol"] == [] and s["uterus"] is None for s in after["play"]["seats"])
    assert all(p["newborns"] == [] and p["abortions"] == 0 for p in after["players"])
    state = go(state, deal())
    assert (play(state)["active"], play(state)["phase"]) == ("p2", "ovulation")


@pytest.mark.parametrize("rounds", [5, 9])
def test_the_game_is_over_after_five_or_nine_rounds(rounds):
    state, events = two_player_round(last_abort=True)
    events += [birth("p2"), ov("p2", "10D"), pas("p2"), CLOSE]
    per_round = events[1:-1]  # the same round again, the first player turning
    log = list(events)
    for r in range(1, rounds):
        # The first player alternates: replay the round with the seats' roles swapped.
        swap = {"p1": "p2", "p2": "p1"}
        mapped = [
            {k: (swap[v] if k in ("player", "from") else v) for k, v in e.items()} if r % 2 else e
            for e in per_round
        ]
        mapped = [
            {**e, "gms": {swap[k] if r % 2 else k: v for k, v in e["gms"].items()}} if "gms" in e else e
            for e in mapped
        ]
        log += [deal(), *mapped, CLOSE]
    state = core.replay(GAME, NAMES[:2], {"mode": "tracker", "rules": "simples", "rounds": rounds}, log)
    final = view(state)
    assert final["over"] is True and final["play"] is None and final["actions"] == []
    assert all(len(p["round_scores"]) == rounds for p in final["players"])
    refused(state, deal(), "game_over")


# --- seen cards, by place -----------------------------------------------------------------------------


def test_a_card_seen_anywhere_is_refused_with_its_place():
    state = started(
        3,
        "simples",
        ov("p1", "6H"),
        fec("p1", "4C"),
        abort("p2", "4S"),
        ov("p2", "7H"),
        fec("p2", "AS"),
        ov("p3", "8H"),
        hold("p3"),
    )
    refused(state, ov("p1", "8H"), "gjdlv.play.seen.diva_cup")
    refused(state, ov("p1", "7H"), "gjdlv.play.seen.uterus")
    refused(state, ov("p1", "6H"), "gjdlv.play.seen.formol")
    state = go(state, ov("p1", "9H"), fec("p1", "2S"), birth("p2"))
    error = refused(state, ov("p2", "7H"), "gjdlv.play.seen.nursery")
    assert error.params == {"card": "7H", "name": "Bruno"}
    refused(state, ov("p2", "9C"), "gjdlv.gf_must_be_red", InvalidEvent)


def test_the_view_names_the_embryos_and_the_cards_still_possible():
    state = started(3, "abondantes", ov("p1", "QH"), fec("p1", "KS"))
    embryo = seat(state, "p1")["uterus"]
    assert embryo == {"gf": "QH", "gm": "KS", "eg": None, "cc": False, "royal": "Q", "comes_to_term": True}
    state = started(3, "simples", ov("p1", "6H"), fec("p1", "6S"))
    embryo = seat(state, "p1")["uterus"]
    assert (embryo["eg"], embryo["cc"], embryo["royal"]) == (0, True, None)
    assert "6H" not in play(state)["unseen"]["gf"] and "6S" not in play(state)["unseen"]["gm"]
    step = {"code": "gjdlv.play.expect.ovulation", "params": {"name": "Bruno", "gf": None}}
    assert play(state)["step"] == step


def test_apply_never_changes_its_input():
    state = started(3, "abondantes", ov("p1", "6H"))
    before = copy.deepcopy(state)
    go(state, fec("p1", "4C"), abort("p2", "4S"), cancel("p1", "KS"))
    assert state == before


def test_undo_takes_back_the_last_event():
    events = [DEAL3A, ov("p1", "6H"), fec("p1", "4C"), abort("p2", "4S"), cancel("p1", "KS")]
    options = {"mode": "tracker", "rules": "abondantes", "rounds": 5}
    for n in range(1, len(events) + 1):
        assert core.undo(GAME, NAMES[:3], options, events[:n]) == core.replay(
            GAME, NAMES[:3], options, events[: n - 1]
        )


def test_share_and_new_round_are_the_texts():
    assert gjdlv_play.share("simples", 3) == (6, 2) and gjdlv_play.share("abondantes", 4) == (6, 2)
    assert gjdlv_play.share("simples", 6) == (3, 2) and gjdlv_play.share("abondantes", 5) == (5, 1)


# --- the text's own examples --------------------------------------------------------------------------


def test_example_caroline_fourest_and_mc_solaar_surrogacy():
    # Caroline (p1) has the embryo 2♥/5♠; MC Solaar (p2) may take it with a GM strictly closer to 2.
    state = started(3, "simples", ov("p1", "2H"), fec("p1", "5S"), ov("p2", "8D"))
    allowed = choice(state, {"type": "surrogate", "player": "p2", "from": "p1"})
    assert allowed == ["AS", "2S", "3S", "4S", "AC", "2C", "3C", "4C"]  # 4, 3, 2 (CC) or 1
    for gm in ["6S", "7S", "8S", "9S", "10S", "5C", "6C", "7C", "8C"]:
        refused(state, sur("p2", "p1", gm), "gjdlv.check.surrogate_not_closer")
    state = go(state, sur("p2", "p1", "AC"))  # MC Solaar has the Ace of clubs
    assert uterus(state, "p2") == ("2H", "AC") and uterus(state, "p1") is None
    assert "5S" in play(state)["mouchoir"]
    # The 2 would have made a CC.
    cc = go(started(3, "simples", ov("p1", "2H"), fec("p1", "5S"), ov("p2", "8D")), sur("p2", "p1", "2C"))
    assert seat(cc, "p2")["uterus"]["cc"] is True


def test_example_yann_barthes_and_joey_starr_abortion():
    # Yann (p1) fecundates the 6♥ with his 4♣; Joey Starr (p2) answers with the 4♠.
    state = started(3, "simples", ov("p1", "6H"), fec("p1", "4C"), abort("p2", "4S"))
    assert uterus(state, "p1") is None
    assert seat(state, "p2")["formol"] == ["6H", "4C", "4S"]
    assert player(state, "p2")["round_score"] == 3


def test_example_strauss_kahn_aborted_on_a_royal_ovum_queen():
    # DSK (p1) held back his 2♠ and ejaculates it on the Queen p3 leaves; Bedos (p2) aborts with the
    # other black 2 (the text writes "2♠" twice: a typo, the other black 2 is 2♣).
    state = started(
        3,
        "abondantes",
        ov("p1", "5H"),
        hold("p1"),
        ov("p2", "4D"),
        fec("p2", "9S"),
        ov("p3", "QH"),
        hold("p3"),
        ejac(p1="2S"),
    )
    assert uterus(state, "p1") == ("QH", "2S")
    refused(state, abort("p2", "2S"), "gjdlv.play.seen.uterus")
    state = go(state, abort("p2", "2C"))
    assert uterus(state, "p1") is None and seat(state, "p2")["formol"] == ["QH", "2S", "2C"]
    assert player(state, "p2")["abortions"] == 1


def test_example_socrate_and_bozo_successive_imperial_surrogacies():
    # Sarkozy (p1) has the Q♥ embryo; Socrate (p2) cannot take it with 5♠, can with K♠; then Bozo
    # (p3) takes Socrate's embryo with a Q♠.
    state = started(3, "abondantes", ov("p1", "QH"), fec("p1", "7S"), ov("p2", "3D"))
    refused(state, sur("p2", "p1", "5S"), "gjdlv.check.surrogate_royal_needs_imperial")
    assert choice(state, {"type": "surrogate", "player": "p2", "from": "p1"}) == FACE_GM
    state = go(state, sur("p2", "p1", "KS"))
    assert uterus(state, "p2") == ("QH", "KS") and "7S" in play(state)["mouchoir"]
    state = go(state, ov("p3", "4D"), sur("p3", "p2", "QS"))
    assert uterus(state, "p3") == ("QH", "QS") and uterus(state, "p2") is None
    assert "KS" in play(state)["mouchoir"]


def test_example_joueur_1_2_3_abortion_cancelled_by_a_king():
    # J1 fecundates, J2 aborts with a Jack (Guilde du Cintre), J3 cancels the abortion with a King.
    state = started(3, "abondantes", ov("p1", "6H"), fec("p1", "4S"), abort("p2", "JS"), cancel("p3", "KS"))
    assert uterus(state, "p1") == ("6H", "4S")
    assert seat(state, "p2")["formol"] == [] and player(state, "p2")["abortions"] == 0
    assert {"JS", "KS"} <= set(play(state)["mouchoir"])
    assert [a["act"] for a in play(state)["open"]] == ["fecundation"]
