"""Players' own moves in the engine (RULES.md §0 "Who records what"): each game's declaration of the
moves a player records themselves, and, in the GJDLV round played through, phase 3's contest answered
by each holder for themselves (`engine.gjdlv_play`: ``contest_answer``, settled by the last holder's
answer or closed by the referee's ``ejaculate``) and answers racing for the same act."""

from __future__ import annotations

import pytest

from engine import core
from tests.test_gjdlv import refused
from tests.test_gjdlv_play import (
    abort,
    cancel,
    ejac,
    fec,
    four_holding,
    go,
    hold,
    ov,
    play,
    seat,
    started,
    sur,
    uterus,
    view,
)

GAME = "gjdlv"


def answer(player: str, gm: str | None = None) -> dict:
    event = {"type": "contest_answer", "player": player}
    if gm is not None:
        event["gm"] = gm
    return event


def words(state: dict, event: dict) -> tuple[str, dict]:
    return core.game(GAME).describe(state, event)


# --- the declarations ----------------------------------------------------------------------------


def test_each_game_declares_the_moves_a_player_records_themselves():
    assert core.player_moves("existentiel", {}) == {"roll": "player", "accept": "player", "refuse": "player"}
    assert core.player_moves("morto", {"lives": 3}) == {}
    assert core.player_moves("gjdlv", {}) == {}  # the score sheet: the referee records every outcome
    assert core.player_moves("gjdlv", {"mode": "sheet"}) == {}
    tracked = core.player_moves("gjdlv", {"mode": "tracker"})
    assert set(tracked) == {
        "birth",
        "ovulate",
        "fecundate",
        "surrogate",
        "hold",
        "pass",
        "abort",
        "cancel",
        "remove_embryo",
        "steal_newborn",
        "contest_answer",
    }
    assert set(tracked.values()) == {"player"}
    # The deal and the contest's close name no one player: the referee's.
    assert not {"deal", "ejaculate", "close_round"} & set(tracked)


def test_a_declared_field_is_one_the_event_carries():
    for game, options in (("existentiel", {}), ("gjdlv", {"mode": "tracker"})):
        module = core.game(game)
        for kind, field in core.player_moves(game, options).items():
            assert field in module.FIELDS[kind], (game, kind)


@pytest.mark.parametrize(
    ("event", "acting"),
    [
        ({"type": "roll", "player": "p2", "die": 4}, "p2"),
        ({"type": "validate", "player": "p2", "success": True}, None),
        ({"type": "roll", "die": 4}, None),
        ({"type": "roll", "player": 2}, None),
        ({"type": 7}, None),
        ("roll", None),
    ],
)
def test_the_acting_player_is_read_from_the_declared_field(event, acting):
    assert core.acting_player("existentiel", {}, event) == acting


def test_every_play_of_a_tracked_round_offered_to_a_player_names_them_in_its_declared_field():
    """The phone draws its buttons from the actions whose player is its own: every action offered
    in a round played through is either a player's own (its declared field names who) or the
    referee's (the deal, the contest's close, the round's close)."""
    state = four_holding()
    moves = core.player_moves(GAME, {"mode": "tracker"})
    for action in view(state)["actions"] + view(go(state, ejac(p2="9C")))["actions"]:
        if action["type"] in moves:
            assert isinstance(action.get(moves[action["type"]]), str), action
        else:
            assert action["type"] in ("deal", "ejaculate", "close_round"), action


# --- the contest, each holder on their own phone -------------------------------------------------


def test_each_holder_answers_for_themselves_and_the_last_answer_settles_the_contest():
    state = four_holding()  # p1, p2, p3 hold back; p4 left 6♥
    offered = {
        c["action"]["player"]: c for c in play(state)["choices"] if c["action"]["type"] == "contest_answer"
    }
    assert sorted(offered) == ["p1", "p2", "p3"] and offered["p1"]["field"] == "gm"
    state = go(state, answer("p1", "10S"))  # EG 4
    assert play(state)["phase"] == "ejaculation" and play(state)["contest"] == {"p1": "10S"}
    assert seat(state, "p1")["held"] is False and uterus(state, "p1") is None  # out of the urethra, unsettled
    assert "10S" not in play(state)["unseen"]["gm"]  # on the table now: no one else may play it
    refused(state, answer("p2", "10S"), "gjdlv.play.seen.contest")
    refused(state, answer("p1", "9C"), "gjdlv.play.contest_answered")  # one answer each
    refused(state, answer("p1"), "gjdlv.play.contest_answered")
    refused(state, answer("p4", "5S"), "gjdlv.play.own_gf")
    offered = [
        c["action"]["player"] for c in play(state)["choices"] if c["action"]["type"] == "contest_answer"
    ]
    assert offered == ["p2", "p3"]
    assert sorted(next(c for c in play(state)["choices"] if c["action"]["type"] == "ejaculate")["cards"]) == [
        "p2",
        "p3",
    ]
    state = go(state, answer("p3"))  # p3 keeps holding back
    assert play(state)["phase"] == "ejaculation" and play(state)["contest"] == {"p1": "10S", "p3": None}
    assert words(state, answer("p2", "9C"))[0] == "gjdlv.story.ejaculate_won"
    state = go(state, answer("p2", "9C"))  # EG 3: the last holder's answer settles it
    assert uterus(state, "p2") == ("6H", "9C")
    assert "10S" in play(state)["mouchoir"] and seat(state, "p3")["held"] is True
    assert play(state)["contest"] == {} and play(state)["open"][0]["player"] == "p2"


def test_the_same_contest_answered_holder_by_holder_or_at_once_ends_the_same():
    at_once = go(four_holding(), ejac(p1="2S", p2="10S", p3="AC"))
    one_by_one = go(four_holding(), answer("p3", "AC"), answer("p1", "2S"), answer("p2", "10S"))
    assert view(one_by_one) == view(at_once)
    nobody = go(four_holding(), answer("p1"), answer("p2"), answer("p3"))
    assert view(nobody) == view(go(four_holding(), ejac()))


def test_the_referee_closes_the_contest_with_the_answers_so_far():
    state = go(four_holding(), answer("p1", "10S"))
    refused(state, ejac(p1="9C"), "gjdlv.play.contest_answered")  # p1 answered for themselves
    closed = go(state, ejac())  # nobody else ejaculates
    assert uterus(closed, "p1") == ("6H", "10S")
    assert words(state, ejac())[0] == "gjdlv.story.ejaculate_won"
    both = go(state, ejac(p2="9C"))  # the referee enters p2's, who had no phone at hand
    assert uterus(both, "p2") == ("6H", "9C") and "10S" in play(both)["mouchoir"]


def test_contest_answers_leave_the_chain_open_and_settling_closes_it():
    # 4 players: p1 and p2 hold back; p3 fecundates 3♥ with 5♠; p4 surrogates it with 4♠ and leaves 6♥.
    state = started(
        4,
        "simples",
        ov("p1", "AH"),
        hold("p1"),
        ov("p2", "2H"),
        hold("p2"),
        ejac(),
        ov("p3", "3H"),
        fec("p3", "5S"),
        ov("p4", "6H"),
        sur("p4", "p3", "4S"),
    )
    assert play(state)["phase"] == "ejaculation" and play(state)["open"][0]["act"] == "surrogacy"
    state = go(state, answer("p1", "10S"))
    assert play(state)["open"][0]["act"] == "surrogacy"  # still answerable
    state = go(state, abort("p3", "4C"))  # p3 aborts the surrogacy of their embryo, meanwhile
    assert uterus(state, "p4") is None and play(state)["phase"] == "ejaculation"
    assert words(state, answer("p2", "9C")) == (
        "gjdlv.story.ejaculate_won",
        {"gf": "6♥", "gms": "Ada 10♠ · Bruno 9♣", "winner": "Bruno", "gm": "9♣"},
    )
    state = go(state, answer("p2", "9C"))  # the last holder: settled, the chain is the new fecundation
    assert play(state)["open"] == [{"act": "fecundation", "player": "p2", "gf": "6H", "gm": "9C"}]


# --- answers racing for the same act -------------------------------------------------------------


def test_the_second_of_two_abortions_of_one_fecundation_is_told_it_was_aborted_already():
    state = started(3, "abondantes", ov("p1", "6H"), fec("p1", "4C"))
    first = go(state, abort("p2", "4S"))
    error = refused(first, abort("p3", "JS"), "gjdlv.play.nothing_to_abort")
    assert error.params == {}
    assert uterus(first, "p1") is None and seat(first, "p2")["formol"] == ["6H", "4C", "4S"]


def test_two_kings_racing_to_cancel_one_abortion_the_second_changes_nothing():
    state = started(3, "abondantes", ov("p1", "6H"), fec("p1", "4C"), abort("p2", "4S"))
    first = go(state, cancel("p1", "KS"))
    refused(first, cancel("p3", "KC"), "gjdlv.check.bonus_king_only_abortion")
    assert uterus(first, "p1") == ("6H", "4C")
