"""The JSON API (shared/API.md) through Flask's test client, on SQLite and on PostgreSQL.

Expected states are never written out by hand: they come from the engine (``core.view`` of
``core.setup``/``core.apply``), so these tests check that the API is a faithful, durable, safe
envelope around the rules. Every refused write is checked to change nothing: the table and its
history read the same before and after.
"""

from __future__ import annotations

import json
import random
import string
import xml.etree.ElementTree as ET
from datetime import datetime, timedelta

import pytest

from companion.storage.store import CODE_ALPHABET, display_code
from companion.web.qr import svg
from engine import core, morto
from engine.messages import text
from tests.conftest import MORTO_NAMES, bearer

PLAYERS = {
    "morto": MORTO_NAMES,
    "existentiel": [{"name": "Ada", "birth_month": 3}, {"name": "Bruno", "birth_month": 11}],
    "gjdlv": ["Ada", "Bruno", "Chiara"],
}


def refused(response, status: int, code: str) -> dict:
    """A 4xx in the API's error shape, with a French ``message`` and both sentences."""
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True)[:500])
    assert response.is_json
    error = response.get_json()["error"]
    assert error["code"] == code
    assert isinstance(error["params"], dict)
    assert error["messages"]["fr"] and error["messages"]["en"]
    assert error["messages"]["fr"] != error["messages"]["en"]
    assert error["message"] == error["messages"]["fr"]  # French unless asked otherwise
    assert error["message"] == text(code, error["params"], "fr")
    return error


def engine_view(events=(), players=MORTO_NAMES, options=None) -> dict:
    """What the API must show: the engine's own view of the same table."""
    return core.view("morto", core.replay("morto", players, options or {}, list(events)))


def touch(pid):
    return {"type": "touched_early", "player": pid}


# --- create --------------------------------------------------------------------------------------


def test_create_a_table(client):
    response = client.post("/api/tables", json={"game": "morto", "players": MORTO_NAMES})
    assert response.status_code == 201
    created = response.get_json()
    assert created["version"] == 0
    assert created["game"] == "morto"
    assert created["state"] == engine_view()
    assert set(created["code"]) <= set(CODE_ALPHABET)
    assert isinstance(created["secret"], str) and len(created["secret"]) >= 16
    assert response.headers["Location"].endswith(f"/api/tables/{created['code']}")
    fetched = client.get(response.headers["Location"])
    assert fetched.status_code == 200 and fetched.get_json()["state"] == created["state"]


def test_every_table_gets_its_own_code_and_secret(client):
    tables = [
        client.post("/api/tables", json={"game": "morto", "players": MORTO_NAMES}).get_json()
        for _ in range(5)
    ]
    assert len({t["code"] for t in tables}) == 5
    assert len({t["secret"] for t in tables}) == 5


def test_create_with_options(client):
    options = {"lives": 5, "dealer": 2}
    response = client.post("/api/tables", json={"game": "morto", "players": MORTO_NAMES, "options": options})
    assert response.status_code == 201
    assert response.get_json()["state"] == engine_view(options=options)


@pytest.mark.parametrize("game", sorted(core.GAME_MODULES))
def test_create_every_game(client, game):
    response = client.post("/api/tables", json={"game": game, "players": PLAYERS[game]})
    assert response.status_code == 201, response.get_json()
    state = response.get_json()["state"]
    assert state == core.view(game, core.setup(game, PLAYERS[game], {}))
    names = [p["name"] if isinstance(p, dict) else p for p in PLAYERS[game]]
    assert [p["name"] for p in state["players"]] == names
    assert all(isinstance(p["id"], str) for p in state["players"])


@pytest.mark.parametrize("game", ["chess", "", "MORTO", None, 3, ["morto"], {"id": "morto"}])
def test_create_an_unknown_game(client, game):
    refused(client.post("/api/tables", json={"game": game, "players": MORTO_NAMES}), 422, "unknown_game")
    refused(client.post("/api/tables", json={"players": MORTO_NAMES}), 422, "unknown_game")


@pytest.mark.parametrize(
    "players, code",
    [
        ([], "player_count"),
        (["Ada", "Bruno"], "player_count"),
        ([f"P{i}" for i in range(21)], "player_count"),
        ("Ada, Bruno, Chiara", "bad_players"),
        (5, "bad_players"),
        (None, "bad_players"),
        ({"Ada": 1}, "bad_players"),
        (["Ada", "ada ", "Bruno"], "duplicate_name"),
        (["Ada", 3, "Bruno"], "bad_name"),
        (["Ada", "", "Bruno"], "name_length"),
        (["Ada", "x" * 41, "Bruno"], "name_length"),
        ([{"name": "Ada"}, {"nom": "Bruno"}, "Chiara"], "unknown_field"),  # a misspelt field, named
        ([{"name": "Ada"}, {}, "Chiara"], "bad_name"),
        (["Ada", "Bru\u200bno", "Chiara"], "hidden_character"),
    ],
)
def test_create_with_bad_players(client, players, code):
    refused(client.post("/api/tables", json={"game": "morto", "players": players}), 422, code)


@pytest.mark.parametrize(
    "options, code",
    [
        ({"lives": 0}, "bad_option"),
        ({"lives": 10}, "bad_option"),
        ({"lives": "3"}, "bad_option"),
        ({"dealer": 5}, "bad_option"),
        ({"dealer": -1}, "bad_option"),
        ("lives=3", "bad_options"),
        ([3], "bad_options"),
        (7, "bad_options"),
    ],
)
def test_create_with_bad_options(client, options, code):
    body = {"game": "morto", "players": MORTO_NAMES, "options": options}
    refused(client.post("/api/tables", json=body), 422, code)


@pytest.mark.parametrize(
    "raw",
    [
        b"not json",
        b"[1, 2]",
        b'"morto"',
        b"42",
        b"\xff\xfe{",
        b"{'game': 'morto'}",
        b'{"game": "morto", "players": NaN}',
        b'{"game": "morto"',
    ],
    ids=lambda raw: repr(raw[:24]),
)
def test_create_with_a_body_that_is_not_a_json_object(client, raw):
    # Nested past the limit (b"[" * 50000 included) is ``too_deep``: tests/test_bounds.py.
    refused(client.post("/api/tables", data=raw, content_type="application/json"), 400, "bad_json")


def test_a_body_over_64_kib_is_too_large(client, make_table):
    big = {"game": "morto", "players": MORTO_NAMES, "padding": "x" * (64 * 1024)}
    error = refused(client.post("/api/tables", json=big), 413, "too_large")
    assert error["params"]["max"] == 64 * 1024
    table = make_table()
    before = table.snapshot()
    big_event = {"id": "big", "type": "touched_early", "player": "p2", "padding": "x" * (64 * 1024)}
    response = client.post(f"/api/tables/{table.code}/events", json=big_event, headers=table.auth)
    refused(response, 413, "too_large")
    assert table.snapshot() == before


# --- get -----------------------------------------------------------------------------------------


def test_get_a_table_needs_no_secret_and_never_shows_it(client, make_table):
    table = make_table()
    response = client.get(f"/api/tables/{table.code}")
    assert response.status_code == 200
    answer = response.get_json()
    assert answer["code"] == table.code and answer["game"] == "morto"
    assert answer["version"] == 0 and answer["state"] == table.created["state"]
    assert "secret" not in answer
    assert table.secret not in response.get_data(as_text=True)
    assert table.secret not in client.get(f"/api/tables/{table.code}/history").get_data(as_text=True)


@pytest.mark.parametrize("code", ["ZZZZZZ", "nope", "A", "0" * 30, "%00", "%ED%A0%80", "TABLE-1"])
def test_an_unknown_table(client, make_table, code):
    make_table()
    error = refused(client.get(f"/api/tables/{code}"), 404, "unknown_table")
    assert "code" in error["params"]
    refused(client.get(f"/api/tables/{code}/history"), 404, "unknown_table")
    refused(
        client.post(f"/api/tables/{code}/events", json={"id": "x", **touch("p2")}, headers=bearer("s")),
        404,
        "unknown_table",
    )
    refused(client.post(f"/api/tables/{code}/undo", json={}, headers=bearer("s")), 404, "unknown_table")
    refused(client.get(f"/api/tables/{code}/stream"), 404, "unknown_table")


def test_the_code_is_found_however_it_is_typed(client, make_table):
    table = make_table()
    code = table.code
    typed = {
        code.lower(),
        display_code(code),
        display_code(code).lower(),
        f"{code[:2]}-{code[2:]}",
        code.replace("0", "O").replace("1", "l"),
        code.lower().replace("1", "i"),
    }
    for variant in typed:
        response = client.get(f"/api/tables/{variant}")
        assert response.status_code == 200, variant
        assert response.get_json()["code"] == code


# --- events --------------------------------------------------------------------------------------


def test_an_event_moves_the_table_one_version_on(make_table):
    table = make_table()
    answer = table.event("touched_early", player="p2")
    assert answer["version"] == 1
    assert answer["state"] == engine_view([touch("p2")])
    assert table.get()["version"] == 1 and table.get()["state"] == answer["state"]
    cards = {"p1": 4, "p2": 9, "p3": 2, "p4": 7, "p5": 10}
    answer = table.event("reveal", cards=cards)
    assert answer["version"] == 2
    assert answer["state"] == engine_view([touch("p2"), {"type": "reveal", "cards": cards}])


def test_an_event_with_the_current_version_is_accepted(make_table):
    table = make_table()
    assert table.event("touched_early", player="p2", version=0)["version"] == 1
    assert table.event("touched_early", player="p3", version=1)["version"] == 2


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": ""},
        {"Authorization": "Bearer "},
        {"Authorization": "Bearer    "},
        {"Authorization": "Basic dXNlcjpwdw=="},
        {"Authorization": "bearer"},
    ],
)
def test_an_event_without_the_secret(make_table, headers):
    table = make_table()
    before = table.snapshot()
    refused(table.post("touched_early", player="p2", headers=headers), 401, "secret_required")
    refused(table.undo(headers=headers), 401, "secret_required")
    assert table.snapshot() == before


def test_an_event_with_a_wrong_secret(make_table):
    table, other = make_table(), make_table()
    before = table.snapshot()
    for secret in [other.secret, table.secret[:-1], table.secret + "x", table.secret.upper(), "x"]:
        refused(table.post("touched_early", player="p2", headers=bearer(secret)), 403, "wrong_secret")
        refused(table.undo(headers=bearer(secret)), 403, "wrong_secret")
    assert table.snapshot() == before


def test_a_stale_version_is_refused_and_changes_nothing(make_table):
    table = make_table()
    table.event("touched_early", player="p2")
    before = table.snapshot()
    for stale in [0, 2, 7, -1]:
        error = refused(table.post("touched_early", player="p3", version=stale), 409, "stale_version")
        assert error["params"] == {"sent": stale, "current": 1}
        refused(table.undo(version=stale), 409, "stale_version")
    assert table.snapshot() == before


def test_a_retried_id_is_applied_once_and_answered_the_same(make_table):
    table = make_table()
    first = table.post("touched_early", id="tap-1", player="p2")
    assert first.status_code == 201
    again = table.post("touched_early", id="tap-1", player="p2")
    assert again.status_code == 201 and again.get_json() == first.get_json()
    assert table.get()["version"] == 1
    assert len(table.history()["events"]) == 1
    assert table.get()["state"] == engine_view([touch("p2")])


def test_a_retried_id_is_answered_the_same_after_the_table_moved_on(make_table):
    table = make_table()
    first = table.post("touched_early", id="tap-1", player="p2", version=0).get_json()
    table.event("touched_early", player="p3")
    table.event("touched_early", player="p4")
    before = table.snapshot()
    # The id is checked before the version: the stale version 0 is no conflict for a retry.
    again = table.post("touched_early", id="tap-1", player="p2", version=0)
    assert again.status_code == 201 and again.get_json() == first
    # Whatever version the retry carries, the id names the event already applied.
    again = table.post("touched_early", id="tap-1", player="p2", version=99)
    assert again.status_code == 201 and again.get_json() == first
    assert table.snapshot() == before


def test_an_undone_event_retried_is_not_applied_again(make_table):
    table = make_table()
    first = table.post("touched_early", id="tap-1", player="p2").get_json()
    assert table.undo().status_code == 200
    before = table.snapshot()
    again = table.post("touched_early", id="tap-1", player="p2")
    assert again.get_json() == first
    assert table.snapshot() == before


def test_the_same_id_on_two_tables_is_two_events(make_table):
    one, two = make_table(), make_table()
    assert one.post("touched_early", id="same", player="p2").status_code == 201
    assert two.post("touched_early", id="same", player="p3").status_code == 201
    assert two.get()["state"] == engine_view([touch("p3")])


RULE_BREAKS = [
    (touch("p1"), "morto.dealer_may_touch"),
    ({"type": "spoke_to_dead", "living": "p2", "dead": "p3"}, "morto.listener_is_alive"),
    ({"type": "reveal", "cards": {"p1": 3, "p2": 4}}, "morto.missing_cards"),
    ({"type": "reveal", "cards": {"p1": 3, "p2": 4, "p3": 4, "p4": 4, "p5": 11}}, "morto.bad_rank"),
    ({"type": "reveal", "cards": {"p1": 4, "p2": 4, "p3": 4, "p4": 4, "p5": 4}}, "morto.too_many_of_rank"),
    ({"type": "reveal", "cards": [3, 4, 5, 6, 7]}, "morto.bad_cards"),
    (touch("p9"), "unknown_player"),
    ({"type": "knock"}, "unknown_event"),
]


@pytest.mark.parametrize("event, code", RULE_BREAKS)
def test_a_rule_violation_is_refused_with_the_rules_code_and_changes_nothing(make_table, event, code):
    table = make_table()
    table.event("touched_early", player="p3")
    before = table.snapshot()
    response = table.post(**event)
    error = refused(response, 422, code)
    with pytest.raises(core.RuleError) as expected:
        core.apply("morto", core.replay("morto", MORTO_NAMES, {}, [touch("p3")]), event)
    assert error["params"] == json.loads(json.dumps(expected.value.params))
    params = expected.value.params
    assert error["messages"] == {"fr": text(code, params, "fr"), "en": text(code, params, "en")}
    assert table.snapshot() == before


def test_a_rule_message_in_english_when_asked(make_table):
    table = make_table()
    response = table.client.post(
        f"/api/tables/{table.code}/events",
        json={"id": "x", **touch("p1")},
        headers={**table.auth, "Accept-Language": "en-GB,en;q=0.9"},
    )
    assert response.status_code == 422
    error = response.get_json()["error"]
    assert error["message"] == error["messages"]["en"]
    assert error["message"] == text("morto.dealer_may_touch", error["params"], "en")
    french = table.client.post(
        f"/api/tables/{table.code}/events",
        json={"id": "y", **touch("p1")},
        headers={**table.auth, "Accept-Language": "fr-FR,en;q=0.5"},
    )
    assert french.get_json()["error"]["message"] == error["messages"]["fr"]
    unknown = table.client.get("/api/tables/NOPE42", headers={"Accept-Language": "en"})
    assert unknown.get_json()["error"]["message"] == unknown.get_json()["error"]["messages"]["en"]


@pytest.mark.parametrize(
    "body",
    [
        {"type": "touched_early", "player": "p2"},  # no id
        {"id": 5, "type": "touched_early", "player": "p2"},
        {"id": None, "type": "touched_early", "player": "p2"},
        {"id": "", "type": "touched_early", "player": "p2"},
        {"id": "x" * 65, "type": "touched_early", "player": "p2"},
        {"id": ["a"], "type": "touched_early", "player": "p2"},
        {"id": {"a": 1}, "type": "touched_early", "player": "p2"},
        {"id": "nul\u0000", "type": "touched_early", "player": "p2"},
        {"id": "a", "type": "touched_early", "player": "p2", "version": "0"},
        {"id": "a", "type": "touched_early", "player": "p2", "version": True},
        {"id": "a", "type": "touched_early", "player": "p2", "version": 0.0},
        {"id": "a", "type": "touched_early", "player": "p2", "version": None},
        {"id": "a", "type": "touched_early", "player": "p2", "version": [0]},
        {"id": "a", "type": "touched_early", "player": 2},
        {"id": "a", "type": "touched_early", "player": ["p2"]},
        {"id": "a", "type": "touched_early", "player": {"id": "p2"}},
        {"id": "a", "type": "touched_early"},
        {"id": "a", "type": None},
        {"id": "a", "type": ["touched_early"]},
        {"id": "a", "type": {"touched_early": 1}},
        {"id": "a"},
        {"id": "a", "type": "spoke_to_dead", "living": 2, "dead": None},
        {"id": "a", "type": "reveal", "cards": "p1=3"},
        {"id": "a", "type": "reveal", "cards": None},
        {"id": "a", "type": "reveal", "cards": {"p1": "3", "p2": 4, "p3": 5, "p4": 6, "p5": 7}},
        {"id": "a", "type": "reveal", "cards": {"p1": [3], "p2": 4, "p3": 5, "p4": 6, "p5": 7}},
        {"id": "a", "type": "reveal", "cards": {"p1": 1e400, "p2": 4, "p3": 5, "p4": 6, "p5": 7}},
    ],
)
def test_wrong_types_are_a_4xx_and_change_nothing(make_table, body):
    table = make_table()
    before = table.snapshot()
    response = table.client.post(f"/api/tables/{table.code}/events", json=body, headers=table.auth)
    assert 400 <= response.status_code < 500, response.get_data(as_text=True)[:300]
    assert response.get_json()["error"]["code"]
    assert table.snapshot() == before


@pytest.mark.parametrize(
    "raw",
    [
        b"nope",
        b"[]",
        b"null",
        b"{" * 40000,
        b'{"id": "a", "type": "touched_early", "player": "p2", "x": Infinity}',
    ],
    ids=lambda raw: repr(raw[:24]),
)
def test_an_event_that_is_not_a_json_object(make_table, raw):
    table = make_table()
    before = table.snapshot()
    response = table.client.post(
        f"/api/tables/{table.code}/events", data=raw, headers=table.auth, content_type="application/json"
    )
    refused(response, 400, "bad_json")
    assert table.snapshot() == before


@pytest.mark.parametrize("game", sorted(core.GAME_MODULES))
def test_rule_errors_of_every_game_have_both_languages(client, game):
    created = client.post("/api/tables", json={"game": game, "players": PLAYERS[game]}).get_json()
    response = client.post(
        f"/api/tables/{created['code']}/events",
        json={"id": "a", "type": "no-such-event"},
        headers=bearer(created["secret"]),
    )
    refused(response, 422, "unknown_event")


# --- undo ----------------------------------------------------------------------------------------


def test_undo_gives_back_exactly_the_earlier_state(make_table):
    table = make_table()
    table.event("touched_early", player="p2")
    earlier = table.get()
    table.event("reveal", cards={"p1": 4, "p2": 9, "p3": 2, "p4": 7, "p5": 10})
    response = table.undo()
    assert response.status_code == 200
    assert response.get_json()["version"] == 3
    assert response.get_json()["state"] == earlier["state"]
    assert table.get()["state"] == earlier["state"] and table.get()["version"] == 3
    events = table.history()["events"]
    assert [e["undone"] for e in events] == [False, True]
    assert events[1]["undone_version"] == 3
    assert table.undo(version=3).get_json()["state"] == table.created["state"]
    assert [e["undone"] for e in table.history()["events"]] == [True, True]
    assert table.get()["version"] == 4


def test_nothing_to_undo(make_table):
    table = make_table()
    before = table.snapshot()
    refused(table.undo(), 422, "nothing_to_undo")
    table.event("touched_early", player="p2")
    assert table.undo().status_code == 200
    before = table.snapshot()
    refused(table.undo(), 422, "nothing_to_undo")
    assert table.snapshot() == before


def test_undo_takes_back_the_latest_event_still_in_effect(make_table):
    table = make_table()
    table.event("touched_early", player="p2")
    table.event("touched_early", player="p3")
    table.undo()
    table.event("touched_early", player="p4")
    assert table.get()["state"] == engine_view([touch("p2"), touch("p4")])
    assert table.undo().get_json()["state"] == engine_view([touch("p2")])
    events = table.history()["events"]
    assert [(e["event"]["player"], e["undone"]) for e in events] == [
        ("p2", False),
        ("p3", True),
        ("p4", True),
    ]


def test_undo_after_the_game_is_over(make_table):
    table = make_table(players=["Ada", "Bruno", "Chiara"], options={"lives": 1})
    table.event("reveal", cards={"p1": 5, "p2": 2, "p3": 7})
    before_end = table.get()
    over = table.event("reveal", cards={"p3": 6, "p1": 3})
    assert over["state"]["over"] is True and over["state"]["winners"] == ["p3"]
    refused(table.post("touched_early", player="p3"), 422, "game_over")
    undone = table.undo()
    assert undone.status_code == 200
    assert undone.get_json()["state"] == before_end["state"]
    assert table.event("reveal", cards={"p3": 2, "p1": 3})["state"]["winners"] == ["p1"]


@pytest.mark.parametrize("raw", [b"[]", b"nope", b'{"version": NaN}'])
def test_undo_with_a_bad_body(make_table, raw):
    table = make_table()
    table.event("touched_early", player="p2")
    before = table.snapshot()
    response = table.client.post(
        f"/api/tables/{table.code}/undo", data=raw, headers=table.auth, content_type="application/json"
    )
    refused(response, 400, "bad_json")
    for version in ["1", True, 1.5, None]:
        response = table.undo(version=version)
        assert response.status_code == 422 and response.get_json()["error"]["code"] == "bad_field"
    assert table.snapshot() == before


# --- history -------------------------------------------------------------------------------------


def test_history_lists_every_event_in_order_with_undone_flags(make_table):
    table = make_table()
    sent = [
        touch("p2"),
        touch("p3"),
        {"type": "reveal", "cards": {"p1": 4, "p2": 9, "p3": 2, "p4": 7, "p5": 10}},
    ]
    for number, event in enumerate(sent, start=1):
        table.post(id=f"h{number}", **event)
    table.undo()
    refused(table.post("touched_early", player="p1"), 422, "morto.dealer_may_touch")
    history = table.history()
    assert history["code"] == table.code and history["game"] == "morto" and history["version"] == 4
    events = history["events"]
    assert [e["seq"] for e in events] == [1, 2, 3]
    assert [e["id"] for e in events] == ["h1", "h2", "h3"]
    assert [e["event"] for e in events] == sent
    assert [e["version"] for e in events] == [1, 2, 3]
    assert [e["undone"] for e in events] == [False, False, True]
    assert [e["undone_version"] for e in events] == [None, None, 4]
    # Moments are RFC 3339 in UTC on every database (SQLite keeps no time zone of its own).
    moments = [datetime.fromisoformat(e["at"]) for e in events]
    moments.append(datetime.fromisoformat(events[2]["undone_at"]))
    assert all(moment.utcoffset() == timedelta(0) for moment in moments)
    assert moments == sorted(moments)


# --- checks --------------------------------------------------------------------------------------


def test_the_swap_check_answers_per_player(make_table):
    table = make_table()
    response = table.client.post(f"/api/tables/{table.code}/checks/swap", json={"face_up": {"p3": 9}})
    assert response.status_code == 200
    turns = response.get_json()["turns"]
    state = core.replay("morto", MORTO_NAMES, {}, [])
    expected = morto.swap_options(state, {"p3": 9})
    assert [(t["player"], t["code"], t["with"]) for t in turns] == [
        (e["player"], e["code"], e["with"]) for e in expected
    ]
    for turn in turns:
        assert turn["message"] == turn["messages"]["fr"] == text(turn["code"], turn, "fr")
        assert turn["messages"]["en"] == text(turn["code"], turn, "en")
    english = table.client.post(
        f"/api/tables/{table.code}/checks/swap",
        json={"face_up": {"p3": 9}},
        headers={"Accept-Language": "en"},
    ).get_json()["turns"]
    assert [t["message"] for t in english] == [t["messages"]["en"] for t in turns]
    assert table.get()["version"] == 0


def test_the_swap_check_on_bad_input(make_table):
    table = make_table()
    url = f"/api/tables/{table.code}/checks/swap"
    refused(table.client.post(url, json={"face_up": {"p3": 8}}), 422, "morto.bad_face_up")
    refused(table.client.post(url, json={"face_up": {"p9": 9}}), 422, "unknown_player")
    refused(table.client.post(url, json={"face_up": [9]}), 422, "morto.bad_cards")
    refused(table.client.post(url, data=b"nope", content_type="application/json"), 400, "bad_json")
    assert table.client.post(url).status_code == 200  # no body: nobody shows a card


def test_an_unknown_check(make_table):
    table = make_table()
    refused(table.client.post(f"/api/tables/{table.code}/checks/landing", json={}), 404, "unknown_check")
    refused(table.client.post("/api/tables/NOPE42/checks/swap", json={}), 404, "unknown_table")


# --- QR code -------------------------------------------------------------------------------------


def test_the_qr_code_is_an_svg_of_the_table_view(make_table):
    table = make_table()
    response = table.client.get(f"/api/tables/{table.code}/qr.svg")
    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
    root = ET.fromstring(response.data)
    assert root.tag.endswith("svg")
    assert any(element.tag.endswith("path") for element in root.iter())
    # The same picture as the QR code of the table view's address (decoding is not needed to compare).
    assert response.data == svg(f"http://localhost/t/{table.code}")
    assert response.data != svg(f"http://localhost/r/{table.code}")
    refused(table.client.get("/api/tables/NOPE42/qr.svg"), 404, "unknown_table")


# --- routing errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/api/nope", "/api/tables/ABCDEF/nope", "/api/", "/api/tables/ABCDEF/events/1"]
)
def test_an_unknown_api_route_is_a_json_404(client, path):
    refused(client.get(path), 404, "not_found")


@pytest.mark.parametrize(
    "method, path",
    [
        ("get", "/api/tables"),
        ("put", "/api/tables/{code}"),
        ("delete", "/api/tables/{code}"),
        ("get", "/api/tables/{code}/events"),
        ("get", "/api/tables/{code}/undo"),
        ("post", "/api/tables/{code}"),
    ],
)
def test_a_wrong_method_is_a_json_405(make_table, method, path):
    table = make_table()
    response = getattr(table.client, method)(path.format(code=table.code))
    refused(response, 405, "method_not_allowed")


def test_english_messages_when_asked(client):
    response = client.get("/api/tables/NOPE42", headers={"Accept-Language": "en-US,en;q=0.9,fr;q=0.1"})
    error = response.get_json()["error"]
    assert error["message"] == error["messages"]["en"] != error["messages"]["fr"]
    response = client.get("/api/nope", headers={"Accept-Language": "en"})
    assert response.get_json()["error"]["message"] == response.get_json()["error"]["messages"]["en"]


# --- fuzz ----------------------------------------------------------------------------------------


def junk(rng: random.Random, depth: int = 0):
    """Any JSON value, never a player id of the table (so no junk event can be a legal one)."""
    kind = rng.randrange(8 if depth < 3 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 2, 9, 10, 11, 2**31, 2**63, -(2**80), 10**30])
    if kind == 3:
        return rng.choice([0.0, 9.0, -2.5, 1e308, 5e-324])
    if kind == 4:
        return "".join(rng.choice(string.printable + "éß€\u0000\u2028") for _ in range(rng.randrange(20)))
    if kind == 5:
        return rng.choice(["", "P2", "p 2", "p0", "p99", "x" * 3000, "\ud800", "<script>", "{code}", "NaN"])
    if kind == 6:
        return [junk(rng, depth + 1) for _ in range(rng.randrange(5))]
    return {str(junk(rng, depth + 1))[:10]: junk(rng, depth + 1) for _ in range(rng.randrange(5))}


EVENT_FIELDS = ("type", "player", "living", "dead", "cards", "version", "extra")


def junk_event(rng: random.Random) -> dict:
    body = {"id": rng.choice([junk(rng), "".join(rng.choices(string.ascii_letters, k=8))])}
    for field in EVENT_FIELDS:
        if rng.random() < 0.6:
            body[field] = junk(rng)
    if rng.random() < 0.6:
        body["type"] = rng.choice(sorted(morto.EVENTS))
    return body


RAW_BODIES = [
    b"",
    b" ",
    b"{",
    b"}",
    b"\x00",
    b"\xc3\x28",
    b'{"id": "a", "id": 3}',
    b"1e99999",
    b"9" * 5000,
    b'{"version": ' + b"9" * 5000 + b"}",
    b'{"id": "a", "type": "touched_early", "player": "p2", "v": -Infinity}',
    b"[" * 3000 + b"]" * 3000,
    b'{"a": ' * 3000 + b"1" + b"}" * 3000,
]


@pytest.mark.limits(RATELIMIT_NEW_TABLE="1000/hour", RATELIMIT_WRONG_SECRET="1000/minute")
def test_malformed_bodies_never_cause_a_5xx_nor_change_the_table(make_table):
    rng = random.Random(20261121)
    table = make_table()
    table.event("touched_early", player="p2")
    before = table.snapshot()
    base = f"/api/tables/{table.code}"
    requests = []
    for _ in range(150):
        requests.append(("post", f"{base}/events", {"json": junk_event(rng)}))
        undo_body = junk(rng) if rng.random() < 0.3 else {"version": rng.choice([junk(rng), 0, 2, "1"])}
        version = undo_body.get("version", 1) if isinstance(undo_body, dict) else None
        if type(version) is int and version == 1:  # no version, or the current one: a real undo
            undo_body["version"] = rng.choice([0, 2, "1", None])
        requests.append(
            ("post", f"{base}/undo", {"data": json.dumps(undo_body), "content_type": "application/json"})
        )
        face_up = rng.choice([junk(rng), {"face_up": junk(rng)}])
        requests.append(("post", f"{base}/checks/swap", {"json": face_up}))
        requests.append(
            (
                "post",
                "/api/tables",
                {
                    "json": {
                        "game": rng.choice(["morto", junk(rng)]),
                        "players": junk(rng),
                        "options": junk(rng),
                    }
                },
            )
        )
    for raw in RAW_BODIES:
        for path in (f"{base}/events", f"{base}/undo", f"{base}/checks/swap", "/api/tables"):
            if path.endswith("/undo") and not raw.strip():
                continue  # an empty body is a real undo
            requests.append(("post", path, {"data": raw, "content_type": "application/json"}))
    for path in ["%00", "%ff", "a" * 300, "..%2F..", "ABCDEF%00", table.code + "%00"]:
        requests.append(("get", f"/api/tables/{path}", {}))
        requests.append(("post", f"/api/tables/{path}/events", {"json": {"id": "z", **touch("p3")}}))
    for method, path, kwargs in requests:
        headers = table.auth
        if rng.random() < 0.1:
            headers = {"Authorization": rng.choice(["Bearer x", "Bearer \u00e9", ""])}
        response = getattr(table.client, method)(path, headers=headers, **kwargs)
        assert response.status_code < 500, (path, kwargs, response.get_data(as_text=True)[:300])
        assert table.get()["version"] == 1, (path, kwargs, response.get_data(as_text=True)[:300])
        if response.status_code >= 400:
            assert response.get_json()["error"]["code"], (path, kwargs)
    assert table.snapshot() == before


# --- Le Grand Jeu de la Vie played through (mode tracker) ----------------------------------------


def test_a_gjdlv_round_played_through_the_api(make_table):
    options = {"rules": "abondantes", "rounds": 5, "mode": "tracker"}
    table = make_table("gjdlv", PLAYERS["gjdlv"], options)
    assert table.created["state"]["mode"] == "tracker"
    assert table.created["state"]["actions"] == [{"type": "deal"}]
    played = [
        {"type": "deal", "mouchoir": ["2S", "3C"]},
        {"type": "ovulate", "player": "p1", "gf": "6H"},
        {"type": "fecundate", "player": "p1", "gm": "4C"},
    ]
    for event in played:
        answer = table.event(**event)
    assert answer["state"]["play"]["seats"][0]["uterus"]["gf"] == "6H"
    assert {"type": "abort", "player": "p2"} in answer["state"]["actions"]

    # One's own fecundation is not aborted; a card already on the table is not played again; a turn
    # step out of turn names whose turn it is. Each refusal changes nothing.
    before = table.snapshot()
    refused(table.post("abort", player="p1", gm="4S"), 422, "gjdlv.play.answer_own")
    refused(table.post("abort", player="p2", gm="4C"), 422, "gjdlv.play.seen.uterus")
    refused(table.post("ovulate", player="p3", gf="7H"), 422, "gjdlv.play.not_your_turn")
    refused(table.post("newborn", player="p1", gf="7H", gm="7S"), 422, "gjdlv.play.sheet_event")
    assert table.snapshot() == before

    # Bruno aborts with the other black four: three cards and three points to his formol.
    answer = table.event(type="abort", player="p2", gm="4S")
    played.append({"type": "abort", "player": "p2", "gm": "4S"})
    assert answer["state"] == core.view("gjdlv", core.replay("gjdlv", PLAYERS["gjdlv"], options, played))
    bruno = answer["state"]["players"][1]
    assert (bruno["abortions"], bruno["round_score"]) == (1, 3)
    assert answer["state"]["play"]["seats"][1]["formol"] == ["6H", "4C", "4S"]

    # Undo gives back exactly the state before the abortion.
    response = table.undo()
    assert response.status_code == 200
    assert response.get_json()["state"] == core.view(
        "gjdlv", core.replay("gjdlv", PLAYERS["gjdlv"], options, played[:-1])
    )


def test_a_score_sheet_table_refuses_the_tracker_events(make_table):
    table = make_table("gjdlv", PLAYERS["gjdlv"])
    assert table.created["state"]["mode"] == "sheet"
    assert table.created["state"]["play"] is None
    before = table.snapshot()
    refused(table.post("deal", mouchoir=["2S", "3C"]), 422, "gjdlv.play.tracker_event")
    assert table.snapshot() == before
