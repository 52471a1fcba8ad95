"""A player's own phone (shared/API.md "A player's own phone", RULES.md §0 "Who records what"): the
referee gives and takes back player secrets; a player's secret records only that player's own moves
(``403 not_your_move``, checked before the rules, nothing changed), undoes only its own latest move
while it is the latest, never grants secrets; every history entry and every answer says who
recorded it (``by``). On SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from companion import store
from companion.models import PlayerSecret, db
from tests.conftest import bearer

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


def test_only_the_referee_gives_or_takes_back_secrets(existentiel):
    ana = seat(existentiel, "p1")
    refused(give(existentiel, "p1", ana), 403, "referee_only")
    refused(give(existentiel, "p2", ana), 403, "referee_only")
    refused(take_back(existentiel, "p1", ana), 403, "referee_only")
    refused(give(existentiel, "p2", {}), 401, "secret_required")
    refused(give(existentiel, "p2", bearer("not-a-secret")), 403, "wrong_secret")
    assert existentiel.get()["seats"] == {"p1": True}
    refused(give(existentiel, "p9"), 404, "unknown_player")
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


def test_a_retried_move_from_a_players_phone_is_applied_once(existentiel):
    ana = seat(existentiel, "p1")
    first = existentiel.post("roll", player="p1", die=2, id="tap", headers=ana)
    again = existentiel.post("roll", player="p1", die=2, id="tap", headers=ana)
    assert first.status_code == again.status_code == 201
    assert first.get_json() == again.get_json()
    assert len(existentiel.history()["events"]) == 1
