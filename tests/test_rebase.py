"""A rebase never changes what a tap means without asking (engine.core.rebase, each game's ``meaning``).

Two referee phones on one table: phone A records taps offline, each kept with its meaning against
A's own state at that moment; meanwhile phone B's events reach the server. When A reconnects, its
taps are replayed on the server's state, in order: each is applied only when the rules still allow
it and it means what it meant; otherwise it is set aside (``changed``, for the referee to keep or
drop) or refused with the rule that forbids it now. The cases are the issue's (issue 26): a tap
that would cross into another round, target a changed player, or repeat an outcome another phone
already recorded; and the taps nothing touched, which must go through untouched.
"""

from __future__ import annotations

import pytest

from engine import core

MORTO = ("morto", ["Ana", "Ben", "Cyd", "Dom", "Eva"], {"lives": 3})
EXISTENTIEL = ("existentiel", [{"name": "Ada", "birth_month": 3}, {"name": "Chloé", "birth_month": 12}], {})
SHEET = ("gjdlv", ["Ada", "Bruno", "Chiara"], {"rules": "abondantes"})
TRACKER = ("gjdlv", ["Ada", "Bruno", "Chiara"], {"mode": "tracker", "rounds": 5, "rules": "abondantes"})


def touch(player: str) -> dict:
    return {"type": "touched_early", "player": player}


def spoke(living: str, dead: str) -> dict:
    return {"type": "spoke_to_dead", "living": living, "dead": dead}


def reveal(**cards: int) -> dict:
    return {"type": "reveal", "cards": cards}


class Table:
    """One table: the events the server holds, from the setup, and a phone's offline taps."""

    def __init__(self, setup: tuple, *events: dict):
        self.game, self.players, self.options = setup
        self.state = core.replay(self.game, self.players, self.options, list(events))

    def record(self, *events: dict) -> None:
        """Another phone's events reach the server."""
        for event in events:
            self.state = core.apply(self.game, self.state, event)

    def offline(self, *events: dict) -> list[dict]:
        """Taps recorded on a phone holding the table as it is now, each with its meaning then."""
        state, taps = self.state, []
        for event in events:
            taps.append({"event": event, "meant": core.meaning(self.game, state, event)})
            state = core.apply(self.game, state, event)
        return taps

    def rebase(self, taps: list[dict]) -> list[str]:
        """The phone's taps replayed here: ``applied``, ``changed`` or the refusing rule's code."""
        results = core.rebase(self.game, self.state, taps)
        return [
            "applied" if result["ok"] else "changed" if "changed" in result else result["error"]["code"]
            for result in results
        ]

    def player(self, pid: str) -> dict:
        return next(p for p in core.view(self.game, self.state)["players"] if p["id"] == pid)


# --- the rule itself -------------------------------------------------------------------------------


def test_a_tap_nothing_touched_is_applied_exactly_as_it_would_have_been():
    table = Table(MORTO)
    taps = table.offline(touch("p3"), touch("p4"), reveal(p2=5, p3=2, p4=7, p5=9, p1=10))
    expected = core.replay(*MORTO, [tap["event"] for tap in taps])
    assert table.rebase(taps) == ["applied"] * 3
    assert table.state == expected


def test_a_tap_set_aside_leaves_the_state_as_it_was_and_the_next_one_is_judged_without_it():
    table = Table(MORTO)
    taps = table.offline(touch("p3"), touch("p3"), touch("p4"))
    table.record(touch("p3"))  # phone B saw the same touch: Cyd has 2 lives, not 3
    # The first touch meant "Cyd from 3 to 2": set aside, changing nothing. The second meant "Cyd from
    # 2 to 1", which it still means on the state without the first, so it goes; the third was untouched.
    assert table.rebase(taps) == ["changed", "applied", "applied"]
    assert table.state == core.replay(*MORTO, [touch("p3"), touch("p3"), touch("p4")])


def test_the_changed_result_gives_both_meanings():
    table = Table(MORTO)
    [tap] = table.offline(touch("p2"))
    table.record(touch("p2"))
    [result] = core.rebase("morto", table.state, [tap])
    assert result == {
        "ok": False,
        "changed": {"then": {"round": 1, "lives": {"p2": 3}}, "now": {"round": 1, "lives": {"p2": 2}}},
    }


def test_a_tap_whose_meaning_is_unknown_is_judged_by_the_rules_alone():
    """A tap made before the phone's engine was ready carries no meaning: only the rules can judge it."""
    table = Table(MORTO)
    table.record(touch("p3"))
    assert table.rebase([{"event": touch("p3"), "meant": None}]) == ["applied"]


def test_a_meaning_is_a_copy_the_state_moving_on_leaves_alone():
    state = core.setup(*EXISTENTIEL)
    event = {"type": "roll", "player": "p1", "die": 2}
    meant = core.meaning("existentiel", state, event)
    core.apply_in_place(core.game("existentiel"), state, event)
    assert meant["player"]["offered"] is None and state["players"][0]["offered"] == 5


# --- Il Morto ---------------------------------------------------------------------------------------


def test_morto_the_same_reveal_on_two_phones_is_not_a_second_reveal():
    """Finding 2: both phones record round 1's reveal; the second would reveal round 2 with round 1's
    cards, and Cyd would lose two lives."""
    table = Table(MORTO)
    cards = reveal(p2=5, p3=2, p4=7, p5=9, p1=10)
    taps = table.offline(cards)
    table.record(cards)
    assert table.rebase(taps) == ["changed"]
    assert table.state["round"] == 2 and table.player("p3")["lives"] == 2


def test_morto_a_touch_made_in_one_round_is_not_replayed_in_the_next():
    table = Table(MORTO)
    taps = table.offline(touch("p4"))
    table.record(reveal(p2=5, p3=2, p4=7, p5=9, p1=10))  # Dom still holds a card in round 2
    assert table.rebase(taps) == ["changed"]


def test_morto_a_touch_another_phone_also_recorded_is_set_aside_a_touch_on_someone_else_goes():
    table = Table(MORTO)
    taps = table.offline(touch("p3"), touch("p4"))
    table.record(touch("p3"))
    assert table.rebase(taps) == ["changed", "applied"]


def test_morto_a_tap_the_rules_now_refuse_says_which_rule():
    """Cyd, on one life, touched early on both phones: Cyd is dead on the server, which the rule says."""
    table = Table(MORTO[:2] + ({"lives": 1},))
    taps = table.offline(touch("p3"), touch("p2"))
    table.record(touch("p3"))
    assert table.rebase(taps) == ["morto.dead_cannot_touch", "applied"]


def test_morto_a_word_to_the_dead_after_the_dead_came_back_or_the_speaker_lost_a_life():
    table = Table(MORTO[:2] + ({"lives": 1},), touch("p3"))  # Cyd is dead
    taps = table.offline(spoke("p2", "p3"))
    table.record(spoke("p4", "p3"))  # Dom already gave Cyd a life: Cyd is alive
    assert table.rebase(taps) == ["morto.listener_is_alive"]

    table = Table(MORTO, touch("p3"), touch("p3"), touch("p3"))  # Cyd is dead, Ben has 3 lives
    taps = table.offline(spoke("p2", "p3"))
    table.record(touch("p2"))  # Ben, on 2 lives, would give his second-to-last
    assert table.rebase(taps) == ["changed"]


# --- Le jeu existentiel -----------------------------------------------------------------------------


def roll(player: str, die: int) -> dict:
    return {"type": "roll", "player": player, "die": die}


def answer(kind: str, player: str) -> dict:
    return {"type": kind, "player": player}


def test_existentiel_rolls_for_two_players_both_go_a_second_roll_for_one_is_refused():
    table = Table(EXISTENTIEL)
    taps = table.offline(roll("p1", 2), roll("p2", 4))
    table.record(roll("p1", 6))  # the other phone already rolled for Ada
    assert table.rebase(taps) == ["existentiel.already_offered", "applied"]


def test_existentiel_an_answer_to_an_offer_that_changed_is_set_aside():
    table = Table(EXISTENTIEL, roll("p1", 2))  # Ada is offered adventure 5
    taps = table.offline(answer("accept", "p1"))
    table.record(answer("refuse", "p1"), roll("p1", 3))  # meanwhile: refused with a joker, offered 8
    assert table.rebase(taps) == ["changed"]
    assert table.player("p1")["offered"] == 8 and table.player("p1")["current"] is None


def test_existentiel_a_newcomer_added_on_both_phones_and_the_taps_naming_them():
    """Phone A adds Zoé (she would be p3) and rolls for her; phone B added Yann first: Yann is p3."""
    table = Table(EXISTENTIEL)
    taps = table.offline({"type": "add_player", "name": "Zoé", "birth_month": 5}, roll("p3", 1))
    table.record({"type": "add_player", "name": "Yann", "birth_month": 7})
    assert table.rebase(taps) == ["changed", "changed"]  # the roll meant Zoé, not Yann
    assert [p["name"] for p in core.view("existentiel", table.state)["players"]] == ["Ada", "Chloé", "Yann"]


def test_existentiel_a_roll_for_a_newcomer_another_phone_took_back_says_the_player_is_unknown():
    """The roll meant Zoé; another phone undid her arrival: the tap names no player now, and the
    rule that says so is the answer (not a bare "changed")."""
    zoe = {"type": "add_player", "name": "Zoé", "birth_month": 5}
    table = Table(EXISTENTIEL, zoe)
    taps = table.offline(roll("p3", 1))
    table.state = core.replay(table.game, table.players, table.options, [])  # Zoé's arrival undone
    [result] = table.rebase(taps)
    assert result != "applied" and result != "changed"
    with pytest.raises(core.RuleError) as refused:
        core.apply(table.game, table.state, roll("p3", 1))
    assert result == refused.value.code


def test_existentiel_a_rendezvous_or_a_title_set_on_both_phones_is_set_aside_on_the_second():
    table = Table(EXISTENTIEL)
    taps = table.offline(
        {"type": "schedule", "at": "2031-03-07T20:00"},
        {"type": "set_title", "adventure": 4, "title": "Nager"},
    )
    table.record(
        {"type": "schedule", "at": "2031-03-08T19:00"},
        {"type": "set_title", "adventure": 4, "title": "Courir"},
    )
    assert table.rebase(taps) == ["changed", "changed"]
    table = Table(EXISTENTIEL)
    taps = table.offline({"type": "schedule", "at": "2031-03-07T20:00"})
    table.record({"type": "set_title", "adventure": 4, "title": "Courir"})  # nothing to do with it
    assert table.rebase(taps) == ["applied"]


def test_existentiel_a_validation_of_a_cycle_already_closed_is_refused():
    table = Table(EXISTENTIEL, roll("p1", 2), answer("accept", "p1"), roll("p2", 1), answer("accept", "p2"))
    taps = table.offline({"type": "validate", "player": "p1", "success": True})
    table.record(
        {"type": "validate", "player": "p1", "success": False},
        {"type": "validate", "player": "p2", "success": True},
    )
    assert table.rebase(taps) == ["existentiel.validate_while_assigning"]


# --- Le Grand Jeu de la Vie ---------------------------------------------------------------------------


def newborn(player: str, gf: str, gm: str) -> dict:
    return {"type": "newborn", "player": player, "gf": gf, "gm": gm}


CLOSE = {"type": "close_round"}


def test_gjdlv_the_same_abortion_on_two_phones_is_set_aside_a_newborn_elsewhere_goes():
    table = Table(SHEET)
    taps = table.offline({"type": "abortion", "player": "p1"}, newborn("p2", "5H", "3S"))
    table.record({"type": "abortion", "player": "p1"})
    assert table.rebase(taps) == ["changed", "applied"]
    assert table.player("p1")["abortions"] == 1


def test_gjdlv_the_same_newborn_on_two_phones_is_refused_by_the_deck():
    table = Table(SHEET)
    taps = table.offline(newborn("p2", "5H", "3S"))
    table.record(newborn("p2", "5H", "3S"))
    assert table.rebase(taps) == ["gjdlv.card_already_recorded"]


def test_gjdlv_a_round_closed_on_both_phones_is_closed_once():
    table = Table(SHEET, newborn("p1", "5H", "3S"))
    taps = table.offline(CLOSE)
    table.record(CLOSE)
    assert table.rebase(taps) == ["changed"]
    assert table.state["round"] == 2


def test_gjdlv_a_tap_that_would_end_a_queens_take_due_is_set_aside():
    """Phone B recorded Ada's Queen newborn: her take must be the very next event. A's newborn for
    Bruno, made before, would now cancel that take."""
    table = Table(SHEET, newborn("p2", "4H", "2S"))
    taps = table.offline(newborn("p3", "5H", "3S"))
    table.record(newborn("p1", "QH", "5S"))
    assert table.rebase(taps) == ["changed"]


def test_gjdlv_a_queens_take_recorded_on_both_phones_is_taken_once():
    table = Table(SHEET, newborn("p2", "4H", "2S"), newborn("p1", "QH", "5S"))
    taps = table.offline({"type": "steal_newborn", "player": "p1", "from": "p2"})
    table.record({"type": "steal_newborn", "player": "p1", "from": "p2"})
    assert table.rebase(taps) == ["gjdlv.no_queen_take"]


@pytest.mark.parametrize(
    ("mine", "theirs"),
    [
        ({"type": "ovulate", "player": "p1", "gf": "5H"}, {"type": "ovulate", "player": "p1", "gf": "7D"}),
        ({"type": "hold", "player": "p1"}, {"type": "fecundate", "player": "p1", "gm": "4S"}),
        (
            {"type": "fecundate", "player": "p1", "gm": "4S"},
            {"type": "fecundate", "player": "p1", "gm": "4S"},
        ),
    ],
)
def test_gjdlv_a_play_made_at_another_moment_of_a_round_played_through_is_never_applied(mine, theirs):
    """A round played through is one sequence: a play another phone recorded moves the moment (the
    phase, the active player, the revealed GF, the chain of answers), and a play made before it is
    refused by the rules or set aside, never applied to the new moment."""
    table = Table(TRACKER, {"type": "deal", "mouchoir": ["10S", "10C"]})
    if mine["type"] != "ovulate":
        table.record({"type": "ovulate", "player": "p1", "gf": "5H"})
    taps = table.offline(mine)
    table.record(theirs)
    [result] = table.rebase(taps)
    assert result != "applied"


def test_gjdlv_an_answer_made_before_another_phones_answers_is_set_aside_though_the_rules_allow_it():
    """Ada's fecundation 5♥/4♠. Phone A saw Bruno abort it with the Jack of spades; phone B saw Bruno
    abort it with 4♣, which Chiara's King cancelled. The chain is back to the fecundation, and the
    rules would take A's abortion too; but it was made at another moment (Bruno's hand, the Mouchoir):
    perhaps the very abortion B recorded otherwise. The referee decides."""
    table = Table(
        TRACKER,
        {"type": "deal", "mouchoir": ["10S", "10C"]},
        {"type": "ovulate", "player": "p1", "gf": "5H"},
        {"type": "fecundate", "player": "p1", "gm": "4S"},
    )
    taps = table.offline({"type": "abort", "player": "p2", "gm": "JS"})
    table.record(
        {"type": "abort", "player": "p2", "gm": "4C"}, {"type": "cancel", "player": "p3", "card": "KS"}
    )
    assert table.rebase(taps) == ["changed"]
    assert [tap["ok"] for tap in core.rebase("gjdlv", table.state, [{**taps[0], "meant": None}])] == [True]


def test_gjdlv_a_play_at_a_moment_nothing_moved_goes():
    table = Table(TRACKER, {"type": "deal", "mouchoir": ["10S", "10C"]})
    taps = table.offline({"type": "ovulate", "player": "p1", "gf": "5H"}, {"type": "hold", "player": "p1"})
    assert table.rebase(taps) == ["applied", "applied"]
