"""A player's own phone (shared/API.md "A player's own phone", RULES.md §0 "Who records what"): the
referee gives and takes back player secrets; a player's secret records only that player's own moves
(``403 not_your_move``, checked before the rules, nothing changed), undoes only its own latest move
while it is the latest, never grants secrets; every history entry and every answer says who
recorded it (``by``). On SQLite and PostgreSQL."""

from __future__ import annotations

import json

import pytest

from companion.live import streams
from companion.storage import store
from companion.storage.models import PlayerSecret, db
from tests.conftest import bearer, dispose
from tests.test_gjdlv_play import QUEEN_WAITING
from tests.test_live_answers import frames
from worker import jsonio

EXISTENTIEL = [
    {"name": "Ana", "birth_month": 3},
    {"name": "Bea", "birth_month": 7},
    {"name": "Cy", "birth_month": 1},
]


def give(table, player: str, headers: dict | None = None):
    return table.client.post(
        f"/api/tables/{table.code}/players/{player}/secret",
        headers=table.auth if headers is None else headers,
    )


def take_back(table, player: str, headers: dict | None = None):
    return table.client.delete(
        f"/api/tables/{table.code}/players/{player}/secret",
        headers=table.auth if headers is None else headers,
    )


def seat(table, player: str) -> dict:
    """The player's secret as an Authorization header."""
    response = give(table, player)
    assert response.status_code == 201, response.get_json()
    answer = response.get_json()
    assert answer["player"] == player
    return bearer(answer["secret"])


def refused(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.get_json()
    error = response.get_json()["error"]
    assert error["code"] == code
    return error


@pytest.fixture
def existentiel(make_table):
    return make_table("existentiel", EXISTENTIEL)


# --- giving and taking back ------------------------------------------------------------------------


def test_a_secret_is_given_once_kept_as_a_hash_and_shown_as_a_seat(existentiel, app):
    assert existentiel.get()["seats"] == {}
    response = give(existentiel, "p2")
    assert response.status_code == 201
    secret = response.get_json()["secret"]
    assert len(secret) >= 20 and secret != existentiel.secret
    assert existentiel.get()["seats"] == {"p2": True}
    assert secret not in str(existentiel.get())  # the table's answer never holds it
    with app.app_context():
        rows = db.session.query(PlayerSecret).all()
        assert [(row.player, row.secret_hash) for row in rows] == [("p2", store.hash_secret(secret))]


def test_a_new_secret_replaces_the_old_and_a_taken_back_one_stops_at_once(existentiel):
    old = seat(existentiel, "p1")
    new = seat(existentiel, "p1")
    assert old != new
    refused(existentiel.post("roll", player="p1", die=2, headers=old), 403, "wrong_secret")
    assert existentiel.post("roll", player="p1", die=2, headers=new).status_code == 201
    assert take_back(existentiel, "p1").status_code == 204
    assert existentiel.get()["seats"] == {}
    before = existentiel.snapshot()
    refused(existentiel.post("accept", player="p1", headers=new), 403, "wrong_secret")
    assert existentiel.snapshot() == before
    assert take_back(existentiel, "p1").status_code == 204  # taken back already: still done


def test_a_secret_taken_back_stops_at_once_in_every_server_process(existentiel):
    """Two server processes are two apps on one database: a secret taken back through one stops
    working through the other at once (a player's secret is looked up, never kept by a process)."""
    from companion import create_app

    other = create_app({"TESTING": True})  # the same instance folder and DATABASE_URL
    try:
        second = other.test_client()
        ana = seat(existentiel, "p1")
        url = f"/api/tables/{existentiel.code}/events"
        first = second.post(url, json={"id": "a", "type": "roll", "player": "p1", "die": 2}, headers=ana)
        assert first.status_code == 201
        assert take_back(existentiel, "p1").status_code == 204
        refused(
            second.post(url, json={"id": "b", "type": "accept", "player": "p1"}, headers=ana),
            403,
            "wrong_secret",
        )
        assert existentiel.get()["version"] == 1
    finally:
        dispose(other)


def test_only_the_referee_gives_or_takes_back_secrets(existentiel):
    ana = seat(existentiel, "p1")
    refused(give(existentiel, "p1", ana), 403, "referee_only")
    refused(give(existentiel, "p2", ana), 403, "referee_only")
    refused(take_back(existentiel, "p1", ana), 403, "referee_only")
    refused(give(existentiel, "p2", {}), 401, "secret_required")
    refused(give(existentiel, "p2", bearer("not-a-secret")), 403, "wrong_secret")
    assert existentiel.get()["seats"] == {"p1": True}
    for strange in ("p9", "p1%00", "%E2%80%AEp1", "x" * 300):
        refused(give(existentiel, strange), 404, "unknown_player")
        refused(take_back(existentiel, strange), 404, "unknown_player")
    assert existentiel.get()["seats"] == {"p1": True}
    refused(
        existentiel.client.post(f"/api/tables/{existentiel.code}/rematch", headers=ana), 403, "referee_only"
    )


def test_a_player_secret_works_on_its_own_table_only(make_table):
    first, second = make_table("existentiel", EXISTENTIEL), make_table("existentiel", EXISTENTIEL)
    ana = seat(first, "p1")
    before = second.snapshot()
    refused(second.post("roll", player="p1", die=2, headers=ana), 403, "wrong_secret")
    refused(second.undo(headers=ana), 403, "wrong_secret")
    assert second.snapshot() == before


# --- the guard: one's own moves only ---------------------------------------------------------------


def test_existentiel_a_player_rolls_accepts_and_refuses_for_themselves(existentiel):
    ana = seat(existentiel, "p1")
    assert existentiel.post("roll", player="p1", die=2, headers=ana).status_code == 201
    assert existentiel.post("refuse", player="p1", headers=ana).status_code == 201
    assert existentiel.post("roll", player="p1", die=1, headers=ana).status_code == 201
    answer = existentiel.post("accept", player="p1", headers=ana).get_json()
    ana_now = answer["state"]["players"][0]
    assert ana_now["current"] == ana_now["score"] and ana_now["jokers"] == 2
    assert [e["by"] for e in existentiel.history()["events"]] == ["p1"] * 4
    assert answer["did"]["by"] == "p1" and answer["undoable"]["by"] == "p1"


@pytest.mark.parametrize(
    "event",
    [
        {"type": "roll", "player": "p2", "die": 3},  # another player's move
        {"type": "accept", "player": "p2"},
        {"type": "validate", "player": "p1", "success": True},  # the game master's
        {"type": "schedule", "at": "2026-12-01T20:00"},
        {"type": "add_player", "name": "Dan", "birth_month": 2},
        {"type": "set_title", "adventure": 3, "title": "Partir"},
        {"type": "roll", "die": 3},  # no player named
        {"type": "roll", "player": ["p1"], "die": 3},
        {"type": "no_such_type", "player": "p1"},
        {"player": "p1"},
    ],
)
def test_existentiel_anything_but_ones_own_move_is_not_your_move_and_changes_nothing(existentiel, event):
    ana = seat(existentiel, "p1")
    existentiel.event("roll", player="p2", die=4)  # so that Bea's accept is allowed by the rules
    before = existentiel.snapshot()
    response = existentiel.client.post(
        f"/api/tables/{existentiel.code}/events", json={"id": "x-1", **event}, headers=ana
    )
    error = refused(response, 403, "not_your_move")
    assert error["params"]["player"] == "p1"
    assert "joueur" in error["messages"]["fr"] and "player" in error["messages"]["en"]
    assert existentiel.snapshot() == before


def test_the_guard_comes_before_the_rules_and_ones_own_illegal_move_is_the_usual_422(existentiel):
    ana = seat(existentiel, "p1")
    refused(existentiel.post("accept", player="p2", headers=ana), 403, "not_your_move")  # Bea has no offer
    refused(existentiel.post("accept", player="p1", headers=ana), 422, "existentiel.must_roll_first")


def test_the_table_and_the_phones_engine_tell_which_moves_a_player_records(make_table):
    for game, players, options, moves in (
        ("existentiel", EXISTENTIEL, None, {"roll": "player", "accept": "player", "refuse": "player"}),
        ("morto", None, None, {}),
        ("gjdlv", ["Ana", "Bea", "Cy"], None, {}),
    ):
        table = make_table(game, players, options)
        assert table.get()["player_moves"] == moves
        asked = {"op": "player_moves", "game": game, "options": options}
        assert json.loads(jsonio.handle(json.dumps(asked))) == {"moves": moves}
    tracked = make_table("gjdlv", ["Ana", "Bea", "Cy"], TRACKER).get()["player_moves"]
    assert tracked["abort"] == "player" and "deal" not in tracked and "ejaculate" not in tracked


def test_morto_and_the_gjdlv_sheet_leave_every_move_to_the_referee(make_table):
    morto = make_table()
    ada = seat(morto, "p1")
    before = morto.snapshot()
    refused(morto.post("touched_early", player="p1", headers=ada), 403, "not_your_move")
    refused(morto.post("reveal", lowest=["p1"], headers=ada), 403, "not_your_move")
    assert morto.snapshot() == before
    sheet = make_table("gjdlv", ["Ana", "Bea", "Cy"])
    ana = seat(sheet, "p1")
    refused(sheet.post("abortion", player="p1", headers=ana), 403, "not_your_move")
    refused(sheet.post("steal_newborn", player="p1", **{"from": "p2"}, headers=ana), 403, "not_your_move")
    refused(sheet.post("close_round", headers=ana), 403, "not_your_move")


def test_a_players_refusals_with_a_right_secret_do_not_count_as_wrong_secrets(make_table, app):
    app.config["RATELIMIT_WRONG_SECRET"] = "2 per minute"
    table = make_table("existentiel", EXISTENTIEL)
    ana = seat(table, "p1")
    for _ in range(4):
        refused(table.post("roll", player="p2", die=1, headers=ana), 403, "not_your_move")
    assert table.post("roll", player="p1", die=1, headers=ana).status_code == 201


def test_a_wrong_player_secret_counts_like_a_wrong_referee_secret(make_table, app):
    app.config["RATELIMIT_WRONG_SECRET"] = "2 per minute"
    table = make_table("existentiel", EXISTENTIEL)
    old, bea = seat(table, "p1"), seat(table, "p2")
    assert take_back(table, "p1").status_code == 204
    refused(table.post("roll", player="p1", die=1, headers=old), 403, "wrong_secret")
    refused(table.post("roll", player="p1", die=1, headers=old), 403, "wrong_secret")
    refused(table.post("roll", player="p1", die=1, headers=old), 429, "too_many_requests")
    assert table.post("roll", player="p2", die=1, headers=bea).status_code == 201  # a right secret passes


def test_the_stream_says_which_player_recorded_a_move(app, existentiel):
    ana = seat(existentiel, "p1")
    existentiel.post("roll", player="p1", die=2, headers=ana)
    url = f"/api/tables/{existentiel.code}/stream"
    resumed = frames(existentiel.client.get(url, headers={"Last-Event-ID": "0"}))
    assert [(version, answer["did"]["by"]) for version, answer in resumed] == [(1, "p1")]
    hub = streams.hub(app)
    with app.app_context():
        channel = hub.follow(store.find_table(existentiel.code).id, 1)
    try:
        answer = existentiel.post("refuse", player="p1", headers=ana).get_json()
        got, _ = hub.wait(channel, 1, 10)
        assert got == streams.framed([(2, answer)]) and answer["did"]["by"] == "p1"
    finally:
        hub.unfollow(channel)


# --- undo ------------------------------------------------------------------------------------------


def test_a_player_undoes_their_own_latest_move_only_while_it_is_the_latest(existentiel):
    ana, bea = seat(existentiel, "p1"), seat(existentiel, "p2")
    assert existentiel.post("roll", player="p1", die=2, id="ana-roll", headers=ana).status_code == 201
    before = existentiel.snapshot()
    refused(existentiel.undo(headers=bea), 403, "not_your_move")  # Ana's, not Bea's
    assert existentiel.snapshot() == before
    undone = existentiel.undo(headers=ana)
    assert undone.status_code == 200
    assert undone.get_json()["did"]["by"] == "p1" and undone.get_json()["did"]["undo"] is True
    assert existentiel.get()["state"]["players"][0]["offered"] is None
    # Once someone else recorded after it, it is no longer theirs to take back.
    existentiel.event("roll", player="p1", die=2)
    refused(existentiel.undo(headers=ana), 403, "not_your_move")  # the referee recorded it
    assert existentiel.post("accept", player="p1", id="ana-accept", headers=ana).status_code == 201
    assert existentiel.post("roll", player="p2", die=1, headers=bea).status_code == 201
    before = existentiel.snapshot()
    refused(existentiel.undo(headers=ana), 403, "not_your_move")
    refused(existentiel.undo(event="ana-accept", headers=ana), 403, "not_your_move")
    assert existentiel.snapshot() == before
    # Naming its own latest event works for a player, and a retry of that undo gets its answer.
    assert (
        existentiel.undo(event=existentiel.history()["events"][-1]["id"], id="u-1", headers=bea).status_code
        == 200
    )
    assert existentiel.undo(event="ana-accept", id="u-2", headers=ana).status_code == 200
    assert existentiel.undo(event="ana-accept", id="u-2", headers=ana).status_code == 200
    refused(existentiel.undo(headers=ana), 403, "not_your_move")  # the referee's roll is latest now
    assert existentiel.undo().status_code == 200  # the referee undoes anything
    history = existentiel.history()["events"]
    assert [(e["by"], e["undone_by"]) for e in history] == [
        ("p1", "p1"),  # Ana's roll, taken back from her phone
        ("referee", "referee"),
        ("p1", "p1"),
        ("p2", "p2"),
    ]


def test_an_undos_answer_says_who_undid_while_the_history_keeps_who_recorded(existentiel, app):
    ana = seat(existentiel, "p1")
    existentiel.post("roll", player="p1", die=2, id="ana-roll", headers=ana)
    undone = existentiel.undo(id="referee-undo").get_json()
    assert (undone["did"]["id"], undone["did"]["by"], undone["did"]["undo"]) == ("ana-roll", "referee", True)
    assert existentiel.get()["did"] == undone["did"]  # the table's answer reads it from the log
    entry = existentiel.history()["events"][0]
    assert (entry["by"], entry["undone_by"]) == ("p1", "referee")
    # Rebuilt from the log (the answer not kept): the same words.
    with app.app_context():
        table = store.find_table(existentiel.code)
        assert store.answer_at(table, 2)["did"] == undone["did"]
    existentiel.post("roll", player="p1", die=2, id="ana-roll-2", headers=ana)
    by_ana = existentiel.undo(headers=ana).get_json()
    assert (by_ana["did"]["by"], existentiel.get()["did"]["by"]) == ("p1", "p1")


def test_a_retried_move_from_a_players_phone_is_applied_once(existentiel):
    ana = seat(existentiel, "p1")
    first = existentiel.post("roll", player="p1", die=2, id="tap", headers=ana)
    again = existentiel.post("roll", player="p1", die=2, id="tap", headers=ana)
    assert first.status_code == again.status_code == 201
    assert first.get_json() == again.get_json()
    assert len(existentiel.history()["events"]) == 1


# --- the Grand Jeu played through: turns, answers, races, the contest ------------------------------

TRACKER = {"mode": "tracker", "rules": "abondantes", "rounds": 5}


@pytest.fixture
def tracked(make_table):
    """3 players, abondantes, dealt (8 GM each; 10♠ and 10♣ face up): Ana's turn."""
    table = make_table("gjdlv", ["Ana", "Bea", "Cy"], TRACKER)
    table.event("deal", mouchoir=["10S", "10C"])
    return table


def test_gjdlv_the_active_player_taps_their_own_turn_and_another_aborts_from_their_phone(tracked):
    ana, bea, cy = seat(tracked, "p1"), seat(tracked, "p2"), seat(tracked, "p3")
    refused(tracked.post("ovulate", player="p1", gf="6H", headers=bea), 403, "not_your_move")
    refused(tracked.post("deal", mouchoir=[], headers=ana), 403, "not_your_move")  # the referee's
    assert tracked.post("ovulate", player="p1", gf="6H", headers=ana).status_code == 201
    assert tracked.post("fecundate", player="p1", gm="4C", headers=ana).status_code == 201
    actions = tracked.get()["state"]["actions"]
    assert {"type": "abort", "player": "p2"} in actions and {"type": "abort", "player": "p3"} in actions
    refused(tracked.post("abort", player="p2", gm="4S", headers=cy), 403, "not_your_move")
    answer = tracked.post("abort", player="p3", gm="4S", headers=cy)
    assert answer.status_code == 201
    assert answer.get_json()["did"]["by"] == "p3"
    assert [e["by"] for e in tracked.history()["events"]] == ["referee", "p1", "p1", "p3"]
    # Ana's own latest move is no longer the latest: Cy's abortion is, and only Cy (or the referee) undoes it.
    refused(tracked.undo(headers=ana), 403, "not_your_move")
    assert tracked.undo(headers=cy).status_code == 200
    assert tracked.get()["state"]["play"]["seats"][0]["uterus"]["gm"] == "4C"


def test_gjdlv_two_abortions_racing_from_two_phones_the_second_is_told_why_and_nothing_doubles(tracked):
    ana, bea, cy = seat(tracked, "p1"), seat(tracked, "p2"), seat(tracked, "p3")
    tracked.post("ovulate", player="p1", gf="6H", headers=ana)
    version = tracked.post("fecundate", player="p1", gm="4C", headers=ana).get_json()["version"]
    # Both phones saw the fecundation at the same version: Bea's answer comes first.
    first = tracked.post("abort", player="p2", gm="4S", version=version, headers=bea)
    assert first.status_code == 201
    before = tracked.snapshot()
    late = refused(
        tracked.post("abort", player="p3", gm="JS", version=version, headers=cy), 409, "stale_version"
    )
    assert late["params"] == {"sent": version, "current": version + 1}
    # Sent again on the table as it is now, the rules say why it came too late.
    error = refused(
        tracked.post("abort", player="p3", gm="JS", headers=cy), 422, "gjdlv.play.nothing_to_abort"
    )
    assert "avortement" in error["messages"]["fr"] and "abortion" in error["messages"]["en"]
    assert tracked.snapshot() == before
    state = tracked.get()["state"]
    assert [s["formol"] for s in state["play"]["seats"]] == [[], ["6H", "4C", "4S"], []]
    assert [p["abortions"] for p in state["players"]] == [0, 1, 0]


def test_gjdlv_two_kings_racing_to_cancel_one_abortion(tracked):
    ana, bea, cy = seat(tracked, "p1"), seat(tracked, "p2"), seat(tracked, "p3")
    tracked.post("ovulate", player="p1", gf="6H", headers=ana)
    tracked.post("fecundate", player="p1", gm="4C", headers=ana)
    version = tracked.post("abort", player="p2", gm="4S", headers=bea).get_json()["version"]
    assert tracked.post("cancel", player="p1", card="KS", version=version, headers=ana).status_code == 201
    before = tracked.snapshot()
    refused(tracked.post("cancel", player="p3", card="KC", version=version, headers=cy), 409, "stale_version")
    refused(
        tracked.post("cancel", player="p3", card="KC", headers=cy),
        422,
        "gjdlv.check.bonus_king_only_abortion",
    )
    assert tracked.snapshot() == before


def held_back(table, ana: dict, bea: dict, cy: dict) -> None:
    """Ana and Bea hold back, Cy leaves 7♥: phase 3, Ana and Bea may ejaculate on it."""
    table.post("ovulate", player="p1", gf="AH", headers=ana)
    table.post("hold", player="p1", headers=ana)
    table.post("ovulate", player="p2", gf="2H", headers=bea)
    table.post("hold", player="p2", headers=bea)
    table.event("ejaculate", gms={})  # Ana does not ejaculate on 2♥: the referee closes it
    table.post("ovulate", player="p3", gf="7H", headers=cy)
    assert table.post("hold", player="p3", headers=cy).status_code == 201
    assert table.get()["state"]["play"]["phase"] == "ejaculation"


def test_gjdlv_each_holder_answers_the_contest_from_their_own_phone(tracked):
    ana, bea, cy = seat(tracked, "p1"), seat(tracked, "p2"), seat(tracked, "p3")
    held_back(tracked, ana, bea, cy)
    refused(tracked.post("contest_answer", player="p2", gm="5S", headers=ana), 403, "not_your_move")
    refused(tracked.post("contest_answer", player="p3", gm="5S", headers=cy), 422, "gjdlv.play.own_gf")
    refused(tracked.post("ejaculate", gms={"p1": "5S"}, headers=ana), 403, "not_your_move")  # the referee's
    assert tracked.post("contest_answer", player="p1", gm="5S", id="ana-5S", headers=ana).status_code == 201
    # The same answer from Ana's second tab: one answer per holder, the first counts.
    before = tracked.snapshot()
    refused(
        tracked.post("contest_answer", player="p1", gm="9C", headers=ana), 422, "gjdlv.play.contest_answered"
    )
    assert tracked.snapshot() == before
    play = tracked.get()["state"]["play"]
    assert play["contest"] == {"p1": "5S"} and play["phase"] == "ejaculation"
    # The last holder's answer settles it: on 7♥, 5♠ and 9♣ both have EG 2.
    settled = tracked.post("contest_answer", player="p2", gm="9C", headers=bea).get_json()
    assert settled["state"]["play"]["phase"] != "ejaculation"
    assert settled["did"]["said"]["code"] == "gjdlv.story.ejaculate_lost"  # tied gaps: both discarded
    assert [e["by"] for e in tracked.history()["events"]][-2:] == ["p1", "p2"]


def test_gjdlv_the_referee_closes_a_contest_a_holder_has_not_answered(tracked):
    ana, bea, cy = seat(tracked, "p1"), seat(tracked, "p2"), seat(tracked, "p3")
    held_back(tracked, ana, bea, cy)
    tracked.post("contest_answer", player="p2", gm="8S", headers=bea)
    closed = tracked.event("ejaculate", gms={})  # Ana's phone says nothing: the referee closes it
    seats = closed["state"]["play"]["seats"]
    assert seats[1]["uterus"]["gf"] == "7H" and seats[1]["uterus"]["gm"] == "8S"
    assert seats[0]["held"] is True  # Ana never answered: she still holds back


def test_gjdlv_a_queens_take_is_her_owners_own_move(tracked):
    """Bea's Queen newborn takes Ana's newborn: Bea records the birth and the take from her phone;
    Ana's phone cannot take in her place."""
    for event in QUEEN_WAITING:  # the referee records the turns up to Bea's phase 0
        tracked.event(**event)
    ana, bea = seat(tracked, "p1"), seat(tracked, "p2")
    assert tracked.post("birth", player="p2", headers=bea).status_code == 201
    before = tracked.snapshot()
    refused(tracked.post("steal_newborn", player="p2", headers=ana, **{"from": "p1"}), 403, "not_your_move")
    assert tracked.snapshot() == before
    taken = tracked.post("steal_newborn", player="p2", headers=bea, **{"from": "p1"})
    assert taken.status_code == 201 and taken.get_json()["did"]["by"] == "p2"
    newborns = {
        p["id"]: [(n["gf"], n["gm"]) for n in p["newborns"]] for p in taken.get_json()["state"]["players"]
    }
    assert newborns["p2"] == [("QH", "2S"), ("4H", "9C")] and newborns["p1"] == []
