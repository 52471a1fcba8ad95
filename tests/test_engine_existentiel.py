"""Le jeu existentiel (RULES.md §1): the Petit Chelem to the letter, what refusals say, what the table shows.

test_existentiel.py proves each rule through its codes. These play the long games the title needs
(every adventure 1..28, not only most of them, and two Maîtres sharing the win), the elimination of a
player who refuses again an adventure refused before, and pin the words and numbers the table reads:
each refusal's params and sentence, the checks' answers, and the view at the rendez-vous.
"""

from __future__ import annotations

import copy
from datetime import datetime

import pytest

from engine import core, existentiel
from engine.core import IllegalEvent, InvalidEvent, RuleError
from engine.messages import refusal, text
from tests.test_existentiel import accept, refuse, roll, validate  # the scenarios' own event builders

GAME = "existentiel"


def players(*months: int) -> list[dict]:
    return [{"name": f"Joueur {i + 1}", "birth_month": m} for i, m in enumerate(months)]


def game(months, events=()) -> dict:
    return core.replay(GAME, players(*months), {}, list(events))


def refused(state: dict, event: dict) -> RuleError:
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as caught:
        core.apply(GAME, state, event)
    assert state == before
    return caught.value


def says(error: RuleError, code: str, params: dict, english: str) -> None:
    assert (error.code, error.params) == (code, params)
    assert refusal(error.code, error.params, "en")["message"] == english


def seen(state: dict, pid: str = "p1") -> dict:
    return next(p for p in core.view(GAME, state)["players"] if p["id"] == pid)


def ask(name: str, state: dict, params: dict) -> dict:
    before = copy.deepcopy(state)
    answer = core.check(GAME, state, name, params)
    assert state == before
    return answer


def up_to_28(*pids: str) -> list[dict]:
    """From birth month 1, a die of 1 each cycle: adventures 2, 3 … 28 lived and completed, in turn."""
    events = []
    for _ in range(2, 29):
        for pid in pids:
            events += [roll(pid, 1), accept(pid)]
        events += [validate(pid, True) for pid in pids]
    return events


# --- the Petit Chelem, to the letter --------------------------------------------------------------


def test_no_title_when_only_adventure_1_is_missing():
    state = game([1], up_to_28("p1"))
    assert seen(state)["completed"] == list(range(2, 29))
    answer = ask("landing", state, {"player": "p1", "die": 1})
    assert answer["adventure"] == 29
    assert (answer["leaves_if_accepted"], answer["petit_chelem_if_accepted"]) == (True, False)
    state = core.replay(GAME, players(1), {}, [*up_to_28("p1"), roll("p1", 1), accept("p1")])
    p1 = seen(state)
    assert (p1["status"], p1["title"], p1["reason"]) == ("left", None, "existentiel.left_29")
    view = core.view(GAME, state)
    assert view["over"] is True and view["winners"] == []
    assert view["outcome"] == {
        "reason": "existentiel.no_maitre",
        "params": {"names": "", "maitres": [], "left": ["p1"], "eliminated": []},
    }
    assert view["notes"] == [{"code": "existentiel.grand_chelem_never", "params": {}}]


def test_two_petit_chelems_share_the_win():
    events = up_to_28("p1", "p2")
    # 29 refused with a joker: the next roll from 29 wraps to 1, the one adventure still to live.
    for pid in ("p1", "p2"):
        events += [roll(pid, 1), refuse(pid), roll(pid, 1), accept(pid)]
    events += [validate("p1", True), validate("p2", True)]
    state = game([1, 1], events)
    assert seen(state, "p2")["completed"] == list(range(1, 29))
    answer = ask("landing", state, {"player": "p1", "die": 1})
    assert answer["skipped"] == list(range(2, 29))
    assert answer["adventure"] == 29
    assert (answer["must_accept"], answer["petit_chelem_if_accepted"]) == (True, True)
    state = core.replay(GAME, players(1, 1), {}, [*events, roll("p1", 1), accept("p1")])
    assert seen(state)["title"] == "maitre"
    assert core.view(GAME, state)["winners"] == []  # named once the game is over
    state = core.replay(
        GAME, players(1, 1), {}, [*events, roll("p1", 1), accept("p1"), roll("p2", 1), accept("p2")]
    )
    view = core.view(GAME, state)
    assert view["winners"] == ["p1", "p2"]
    assert view["outcome"] == {
        "reason": "existentiel.maitres",
        "params": {
            "names": "Joueur 1, Joueur 2",
            "maitres": ["p1", "p2"],
            "left": ["p1", "p2"],
            "eliminated": [],
        },
    }
    assert text("existentiel.maitres", view["outcome"]["params"], "en") == (
        "Nobody is still playing. Maître Existentiel: Joueur 1, Joueur 2."
    )


# --- jokers and eliminations ---------------------------------------------------------------------------


def test_refusing_again_an_adventure_refused_before_with_no_joker_left_eliminates():
    events = [
        roll("p1", 1),
        refuse("p1"),  # adventure 2 refused: 2 jokers left
        roll("p1", 6),
        accept("p1"),
        validate("p1", False),  # 8 failed: 1 left
        roll("p1", 6),
        accept("p1"),
        validate("p1", False),  # 14 failed: none left
        roll("p1", 6),
        accept("p1"),
        validate("p1", True),  # 20
        roll("p1", 6),
        accept("p1"),
        validate("p1", True),  # 26
        roll("p1", 5),
    ]  # 26 + 5 = 31 -> 2, refused before
    state = game([1], events)
    p1 = seen(state)
    assert (p1["offered"], p1["must_accept"], p1["jokers"], p1["stakes"]) == (2, True, 0, "elimination")
    assert ask("stakes", state, {"player": "p1"}) == {
        "ok": True,
        "player": "p1",
        "jokers": 0,
        "refusal": "elimination",
        "failure": "elimination",
    }
    state = core.apply(GAME, state, refuse("p1"))
    p1 = seen(state)
    assert (p1["status"], p1["reason"]) == ("eliminated", "existentiel.eliminated_refused")
    assert (p1["offered"], p1["current"], p1["must_accept"]) == (None, None, False)
    assert (p1["stakes"], p1["next_base"], p1["validated"]) == (None, None, None)
    assert core.view(GAME, state)["outcome"]["params"]["eliminated"] == ["p1"]


def test_one_joker_left_is_still_a_joker_at_stake():
    state = game([1], [roll("p1", 1), refuse("p1"), roll("p1", 1), refuse("p1"), roll("p1", 1)])
    assert seen(state)["stakes"] == "joker"
    assert ask("stakes", state, {"player": "p1"}) == {
        "ok": True,
        "player": "p1",
        "jokers": 1,
        "refusal": "joker",
        "failure": "joker",
    }
    state = core.apply(GAME, state, refuse("p1"))
    assert (seen(state)["status"], seen(state)["jokers"]) == ("playing", 0)


def test_a_player_who_left_has_nothing_at_stake():
    # Birth month 12: 12 + 6 = 18, then 18 + 5 = 23, then 23 + 6 = 29, accepted.
    state = game(
        [12],
        [
            roll("p1", 6),
            accept("p1"),
            validate("p1", True),
            roll("p1", 5),
            accept("p1"),
            validate("p1", True),
            roll("p1", 6),
            accept("p1"),
        ],
    )
    p1 = seen(state)
    assert (p1["status"], p1["current"], p1["stakes"], p1["next_base"]) == ("left", 29, None, None)


# --- the rendez-vous ------------------------------------------------------------------------------------


def test_the_view_says_how_each_adventure_just_told_went():
    state = game(
        [1, 2, 3], [roll("p1", 1), accept("p1"), roll("p2", 1), accept("p2"), roll("p3", 1), accept("p3")]
    )
    assert [seen(state, p)["validated"] for p in ("p1", "p2", "p3")] == [None, None, None]
    state = core.apply(GAME, state, validate("p1", True))
    state = core.apply(GAME, state, validate("p2", False))
    assert [seen(state, p)["validated"] for p in ("p1", "p2", "p3")] == ["success", "failure", None]
    assert seen(state, "p2")["jokers"] == 2
    state = core.apply(GAME, state, validate("p3", True))
    view = core.view(GAME, state)
    assert view["phase"] == "assigning"
    assert [p["validated"] for p in view["players"]] == [None, None, None]


def test_a_player_eliminated_at_the_rendezvous_shows_no_verdict():
    events = [e for _ in range(3) for e in (roll("p2", 1), refuse("p2"))]
    events += [roll("p2", 1), accept("p2"), roll("p1", 1), accept("p1"), validate("p2", False)]
    state = game([1, 1], events)
    p2 = seen(state, "p2")
    assert (p2["status"], p2["reason"], p2["validated"], p2["stakes"]) == (
        "eliminated",
        "existentiel.eliminated_failed",
        None,
        None,
    )
    assert core.view(GAME, state)["phase"] == "underway"


def test_the_view_names_the_special_adventures_and_the_die():
    view = core.view(GAME, game([1]))
    assert (view["death"], view["petit_chelem"], view["dice"]) == (29, 28, [1, 2, 3, 4, 5, 6])


# --- the landing check --------------------------------------------------------------------------------


def test_the_landing_check_shows_every_step_of_a_first_roll():
    assert ask("landing", game([7]), {"player": "p1", "die": 2}) == {
        "ok": True,
        "blocked": None,
        "player": "p1",
        "base": 7,
        "base_from": "birth_month",
        "die": 2,
        "raw": 9,
        "wrapped": 9,
        "skipped": [],
        "adventure": 9,
        "must_accept": False,
        "title": "Aventure 9",
        "leaves_if_accepted": False,
        "petit_chelem_if_accepted": False,
    }


def test_the_landing_check_after_a_roll_starts_from_the_score_and_says_what_blocks():
    state = game([7], [roll("p1", 2)])
    answer = ask("landing", state, {"player": "p1", "die": 3})
    assert (answer["base"], answer["base_from"], answer["adventure"]) == (9, "score", 12)
    assert answer["blocked"] == {
        "code": "existentiel.already_offered",
        "params": {"player": "p1", "name": "Joueur 1", "adventure": 9},
    }


# --- what each refusal says -------------------------------------------------------------------------


def test_turn_refusals_name_the_player_and_the_adventure():
    state = game([1, 5], [roll("p1", 2)])
    says(
        refused(state, roll("p1", 4)),
        "existentiel.already_offered",
        {"player": "p1", "name": "Joueur 1", "adventure": 3},
        "Joueur 1 must first accept or refuse adventure 3 before rolling again.",
    )
    says(
        refused(state, accept("p2")),
        "existentiel.must_roll_first",
        {"player": "p2", "name": "Joueur 2"},
        "Joueur 2 has no adventure offered: roll the die first.",
    )
    state = core.apply(GAME, state, accept("p1"))
    for event in (roll("p1", 4), accept("p1"), refuse("p1")):
        says(
            refused(state, event),
            "existentiel.already_current",
            {"player": "p1", "name": "Joueur 1", "adventure": 3},
            "Joueur 1 already accepted adventure 3: it is lived until the rendez-vous.",
        )


def test_rendezvous_refusals_name_the_player():
    state = game([1, 1], [roll("p1", 2), accept("p1"), roll("p2", 1), accept("p2"), validate("p1", True)])
    says(
        refused(state, validate("p1", True)),
        "existentiel.nothing_to_validate",
        {"player": "p1", "name": "Joueur 1"},
        "Joueur 1 has no adventure under way to validate (already validated at this rendez-vous).",
    )


def test_players_out_of_the_game_are_named():
    state = game([1, 1], [e for _ in range(4) for e in (roll("p2", 1), refuse("p2"))])
    says(
        refused(state, roll("p2", 1)),
        "existentiel.player_eliminated",
        {"player": "p2", "name": "Joueur 2"},
        "Joueur 2 has been eliminated and no longer plays.",
    )
    # Joueur 1: 12 + 6 = 18, 18 + 5 = 23, 23 + 6 = 29 accepted, while Joueur 2 plays on.
    state = game(
        [12, 1],
        [
            roll("p1", 6),
            accept("p1"),
            roll("p2", 1),
            accept("p2"),
            validate("p1", True),
            validate("p2", True),
            roll("p1", 5),
            accept("p1"),
            roll("p2", 1),
            accept("p2"),
            validate("p1", True),
            validate("p2", True),
            roll("p1", 6),
            accept("p1"),
        ],
    )
    says(
        refused(state, roll("p1", 1)),
        "existentiel.player_left",
        {"player": "p1", "name": "Joueur 1"},
        "Joueur 1 accepted adventure 29 and has left the game.",
    )


@pytest.mark.parametrize(("month", "echoed"), [(13, 13), (0, 0), ("3", "3"), (None, None), (True, True)])
def test_a_bad_birth_month_is_quoted_with_the_name(month, echoed):
    with pytest.raises(InvalidEvent) as caught:
        core.setup(GAME, [{"name": "Ada", "birth_month": 4}, {"name": " Bruno ", "birth_month": month}], {})
    says(
        caught.value,
        "existentiel.bad_birth_month",
        {"name": "Bruno", "value": echoed},
        f"Bruno's birth month must be a whole number from 1 (January) to 12 (December): the first roll "
        f"is added to it (got: {echoed}).",
    )
    error = refused(game([1]), {"type": "add_player", "name": "Zoé", "birth_month": month})
    assert error.params == {"name": "Zoé", "value": echoed}


def test_an_unknown_option_is_quoted():
    with pytest.raises(InvalidEvent) as caught:
        core.setup(GAME, players(1), {"lives": 3})
    says(
        caught.value,
        "bad_option",
        {"field": "lives", "value": 3, "choices": ["titles"]},
        "Invalid option “lives”: 3.",
    )


@pytest.mark.parametrize(
    ("titles", "count"),
    [("Aventures", "Aventures"), ([f"T{n}" for n in range(28)], 28), ({"1": "T"}, "{'1': 'T'}")],
)
def test_a_bad_titles_option_says_what_it_got(titles, count):
    with pytest.raises(InvalidEvent) as caught:
        core.setup(GAME, players(1), {"titles": titles})
    says(
        caught.value,
        "existentiel.bad_titles",
        {"count": count},
        f"The “titles” option must be a list of the 29 adventure titles, in order (got: {count}).",
    )


@pytest.mark.parametrize("position", [1, 5, 29])
def test_a_bad_title_names_its_adventure(position):
    titles = [f"Titre {n}" for n in range(1, 30)]
    titles[position - 1] = "  "
    with pytest.raises(InvalidEvent) as caught:
        core.setup(GAME, players(1), {"titles": titles})
    says(
        caught.value,
        "existentiel.bad_title",
        {"adventure": position, "max": 80},
        f"The title of adventure {position} must be text of 1 to 80 characters.",
    )


def test_a_bad_title_edit_names_its_adventure():
    error = refused(game([1]), {"type": "set_title", "adventure": 7, "title": "x" * 81})
    says(
        error,
        "existentiel.bad_title",
        {"adventure": 7, "max": 80},
        "The title of adventure 7 must be text of 1 to 80 characters.",
    )


@pytest.mark.parametrize(
    ("at", "echoed"), [(5, 5), ("demain", "demain"), (None, None), ("2031-02-30T19:30", "2031-02-30T19:30")]
)
def test_a_bad_rendezvous_is_quoted(at, echoed):
    error = refused(game([1]), {"type": "schedule", "at": at})
    says(
        error,
        "existentiel.bad_rendezvous",
        {"value": echoed},
        f"The rendez-vous is a date and time, “YYYY-MM-DDTHH:MM” (got: {echoed}).",
    )


def test_a_bad_place_says_how_long_it_may_be():
    error = refused(game([1]), {"type": "schedule", "at": "2031-03-07T19:30", "place": "x" * 121})
    says(
        error,
        "existentiel.bad_place",
        {"max": 120},
        "The rendez-vous place is text of at most 120 characters.",
    )
    assert isinstance(error, InvalidEvent) and not isinstance(error, IllegalEvent)


# --- the table's bounds -------------------------------------------------------------------------------


def test_the_view_gives_the_limits_every_form_needs():
    view = core.view(GAME, game([1]))
    assert view["limits"] == {
        "name": core.NAME_MAX,
        "title": existentiel.TITLE_MAX,
        "place": existentiel.PLACE_MAX,
        "players": existentiel.MAX_PLAYERS,
    }
    assert view["limits"] == {"name": 40, "title": 80, "place": 120, "players": 30}
    assert tuple(existentiel.OPTIONS) == ("titles",)


def test_a_full_table_refuses_a_newcomer_and_says_how_many_it_seats():
    state = game([1] * existentiel.MAX_PLAYERS)
    assert len(state["players"]) == 30
    assert {"type": "add_player"} not in core.view(GAME, state)["actions"]
    error = refused(state, {"type": "add_player", "name": "Zoé", "birth_month": 4})
    assert isinstance(error, IllegalEvent)
    says(
        error,
        "existentiel.table_full",
        {"max": 30},
        "The table is full: at most 30 players around one game master.",
    )
    assert text(error.code, error.params, "fr") == (
        "La table est complète\u00a0: au plus 30 joueur·euses autour d'un·e même maître du jeu."
    )
    assert {"type": "add_player"} in core.view(GAME, game([1] * 29))["actions"]


def test_a_table_is_set_up_with_at_most_thirty_players():
    assert len(game([1] * 30)["players"]) == 30
    with pytest.raises(InvalidEvent) as caught:
        core.setup(GAME, players(*[1] * 31), {})
    says(
        caught.value,
        "player_count",
        {"count": 31, "min": 1, "max": 30},
        "This game is for 1–30 players, not 31.",
    )
    assert text("player_count", caught.value.params, "fr") == "Ce jeu se joue à 1–30 joueur·euses, pas 31."


# --- the rendez-vous, to the minute and within 2000..2100 -----------------------------------------------


def schedule(at: str) -> dict:
    return {"type": "schedule", "at": at}


@pytest.mark.parametrize(
    ("at", "stored"),
    [
        ("2000-01-01T00:00", "2000-01-01T00:00"),
        ("2100-12-31T23:59", "2100-12-31T23:59"),
        ("2031-03-07T19:30:00", "2031-03-07T19:30"),
        ("2031-03-07T19:30:59", "2031-03-07T19:30"),
        ("2031-03-07T19:30:07", "2031-03-07T19:30"),
    ],
)
def test_a_rendezvous_is_kept_to_the_minute_from_2000_to_2100(at, stored):
    state = core.apply(GAME, game([1]), {**schedule(at), "place": " Café du Coin "})
    assert state["rendezvous"] == {"at": stored, "place": "Café du Coin"}
    assert core.view(GAME, state)["rendezvous"] == {"at": stored, "place": "Café du Coin"}
    assert existentiel.rendezvous_moment(at) == datetime.strptime(stored, existentiel.RENDEZVOUS_FORMAT)


@pytest.mark.parametrize(
    "at", ["1999-12-31T23:59", "2101-01-01T00:00", "2031-03-07T19:30:60", "2031-03-07T19:30:99"]
)
def test_a_rendezvous_out_of_the_years_or_the_seconds_is_quoted(at):
    error = refused(game([1]), schedule(at))
    says(
        error,
        "existentiel.bad_rendezvous",
        {"value": at},
        f"The rendez-vous is a date and time, “YYYY-MM-DDTHH:MM” (got: {at}).",
    )
    assert text(error.code, error.params, "fr") == (
        f"Le rendez-vous est une date et une heure, «\u00a0AAAA-MM-JJTHH:MM\u00a0» (reçu\u00a0: {at})."
    )


# --- what an elimination leaves in the stored state -------------------------------------------------------


@pytest.mark.parametrize(
    ("last", "reason", "score", "refused_list"),
    [
        ([roll("p1", 1), refuse("p1")], "existentiel.eliminated_refused", 5, [2, 3, 4]),
        ([roll("p1", 1), accept("p1"), validate("p1", False)], "existentiel.eliminated_failed", 5, [2, 3, 4]),
    ],
)
def test_an_eliminated_player_is_stored_with_nothing_offered_nor_under_way(last, reason, score, refused_list):
    events = [e for _ in range(3) for e in (roll("p1", 1), refuse("p1"))] + last
    state = game([1], events)
    assert state["players"] == [
        {
            "id": "p1",
            "name": "Joueur 1",
            "birth_month": 1,
            "score": score,
            "offered": None,
            "current": None,
            "jokers": 0,
            "completed": [],
            "refused": refused_list,
            "status": "eliminated",
            "title": None,
            "must_accept": False,
            "reason": reason,
        }
    ]
    assert state["phase"] == "over"
