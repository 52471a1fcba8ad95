"""Every input is bounded and refused clearly (docs/API.md, "Limits and refusals of input").

One section per limit. Every refusal is checked the same way: the right 4xx, a stable code, a
sentence in French and in English from the catalogue, and the table exactly as it was (its version,
its state and its history). Reading a table back (``/log``) stays strict JSON, and the calendar file
answers 200 or 404, never a 500.
"""

from __future__ import annotations

import copy
import json
import re
import time

import pytest
from sqlalchemy import select

from engine import core, existentiel, gjdlv, morto
from engine.messages import forms, text
from engine.specs import Field
from tests.conftest import MORTO_NAMES, bearer

EXISTENTIEL_PLAYERS = [{"name": "Ada", "birth_month": 3}, {"name": "Bruno", "birth_month": 11}]
GJDLV_PLAYERS = ["Ada", "Bruno", "Chiara"]
PLAYERS = {"morto": MORTO_NAMES, "existentiel": EXISTENTIEL_PLAYERS, "gjdlv": GJDLV_PLAYERS}
JSON_TYPE = "application/json"
PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


def _strict(constant: str):
    raise AssertionError(f"{constant} in an answer: not JSON")


def strict_json(response) -> object:
    """The answer's body parsed as strict JSON: NaN and infinities fail the test."""
    return json.loads(response.get_data(as_text=True), parse_constant=_strict)


def refused(response, status: int, code: str) -> dict:
    """A 4xx in the API's one error shape, worded in French and English from the catalogue."""
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True)[:300])
    assert response.is_json
    error = strict_json(response)["error"]
    assert error["code"] == code
    assert forms(code)
    assert isinstance(error["params"], dict)
    french, english = error["messages"]["fr"], error["messages"]["en"]
    assert french and english and french != english
    assert french == text(code, error["params"], "fr")
    assert english == text(code, error["params"], "en")
    assert not PLACEHOLDER.search(french + english)  # every placeholder was given
    assert error["message"] == french  # French unless asked otherwise
    return error


def unchanged(table, before) -> None:
    """The refused request left the table as it was, and reading it back is strict JSON."""
    assert table.snapshot() == before
    log = table.client.get(f"/api/tables/{table.code}/log")
    assert log.status_code == 200
    strict_json(log)


def events_url(table) -> str:
    return f"/api/tables/{table.code}/events"


def post_raw(table, path: str, raw: bytes, content_type: str | None = JSON_TYPE, headers=None):
    kwargs = {"content_type": content_type} if content_type is not None else {}
    return table.client.post(path, data=raw, headers=table.auth if headers is None else headers, **kwargs)


# --- 1. numbers that are not finite ---------------------------------------------------------------

NON_FINITE = [
    "1e999",
    "-1e999",
    "1E400",
    "-1E+400",
    "1e309",
    "123456789.0e999",
    "NaN",
    "Infinity",
    "-Infinity",
]


@pytest.mark.parametrize("number", NON_FINITE)
def test_a_number_that_is_not_finite_is_refused_however_written(make_table, number):
    table = make_table()
    table.event("touched_early", player="p2")
    before = table.snapshot()
    bodies = [
        (events_url(table), f'{{"id": "x", "type": "touched_early", "player": "p3", "v": {number}}}'),
        (events_url(table), f'{{"id": "x", "type": "reveal", "cards": {{"p1": {number}, "p2": 4}}}}'),
        (f"/api/tables/{table.code}/undo", f'{{"version": {number}}}'),
        (f"/api/tables/{table.code}/checks/reveal", f'{{"cards": {{"p2": {number}}}}}'),
        ("/api/tables", f'{{"game": "morto", "players": ["A", "B", "C"], "options": {{"lives": {number}}}}}'),
    ]
    for path, body in bodies:
        refused(post_raw(table, path, body.encode()), 400, "bad_json")
    unchanged(table, before)


def test_a_large_finite_number_is_still_a_number(make_table):
    table = make_table()
    before = table.snapshot()
    raw = b'{"id": "x", "type": "touched_early", "player": "p2", "die": 1e308}'
    refused(post_raw(table, events_url(table), raw), 422, "unknown_field")  # parsed, then refused
    unchanged(table, before)


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
def test_a_refusal_never_echoes_a_value_that_is_not_finite(value):
    # No such value gets past the API's parser; the engine's echo guards itself all the same.
    state = core.setup("existentiel", EXISTENTIEL_PLAYERS, {})
    with pytest.raises(core.InvalidEvent) as caught:
        core.apply("existentiel", state, {"type": "roll", "player": "p1", "die": value})
    json.loads(json.dumps(caught.value.params), parse_constant=_strict)
    assert caught.value.params["value"] == str(value)


# --- 2. nesting -------------------------------------------------------------------------------------


def nested(depth: int, inner: str = "1") -> bytes:
    """An event whose field ``cards`` holds ``depth - 1`` arrays: the whole body nests ``depth`` deep."""
    return (
        b'{"id": "x", "type": "reveal", "cards": '
        + b"[" * (depth - 1)
        + inner.encode()
        + b"]" * (depth - 1)
        + b"}"
    )


@pytest.mark.parametrize("depth", [core.JSON_DEPTH_MAX + 1, 40, 900, 960, 970, 980, 1000, 2000, 30000])
def test_a_body_nested_too_deep_is_refused_before_anything_reads_it(make_table, depth):
    table = make_table()
    table.event("touched_early", player="p2")
    before = table.snapshot()
    for path in (
        events_url(table),
        f"/api/tables/{table.code}/undo",
        f"/api/tables/{table.code}/checks/swap",
        "/api/tables",
    ):
        error = refused(post_raw(table, path, nested(depth)), 400, "too_deep")
        assert error["params"] == {"max": core.JSON_DEPTH_MAX}
    unchanged(table, before)


@pytest.mark.parametrize(
    "raw",
    [
        b"[" * 50000,
        b'{"a": ' * 3000 + b"1" + b"}" * 3000,
        b"[" * 3000 + b"]" * 3000,
        b'{"a": [{"b": ' * 9 + b"1" + b"}]}" * 9,
    ],
    ids=lambda raw: repr(raw[:12]),
)
def test_every_shape_of_deep_nesting_is_too_deep(make_table, raw):
    table = make_table()
    before = table.snapshot()
    refused(post_raw(table, events_url(table), raw), 400, "too_deep")
    refused(post_raw(table, "/api/tables", raw), 400, "too_deep")
    unchanged(table, before)


def test_nesting_up_to_the_limit_reaches_the_engine(make_table):
    table = make_table()
    before = table.snapshot()
    response = post_raw(table, events_url(table), nested(core.JSON_DEPTH_MAX))
    refused(response, 422, "morto.bad_cards")  # not too deep: the engine read it and said why
    unchanged(table, before)


def test_the_depth_is_measured_without_recursion():
    deepest: list = []
    for _ in range(200_000):  # far past any recursion limit
        deepest = [deepest]
    assert core.json_refusal(deepest) == ("too_deep", {"max": core.JSON_DEPTH_MAX})
    assert core.json_refusal({"a": [{"b": [1, "x", None]}]}) is None
    assert core.json_refusal([[[1]]], depth_max=3) is None
    assert core.json_refusal([[[[1]]]], depth_max=3) == ("too_deep", {"max": 3})


@pytest.mark.parametrize(
    "raw",
    [
        b'{"id": "x", "type": "add_player", "name": "A\\ud800", "birth_month": 3}',
        b'{"id": "x", "type": "set_title", "adventure": 1, "title": "\\udfff"}',
        b'{"id": "x", "type": "schedule", "at": "2031-03-07T19:30", "place": "caf\\udc00"}',
        b'{"id": "x", "type": "roll", "player": "p1", "die": 3, "\\ud800": 1}',
    ],
)
def test_a_lone_surrogate_is_not_text(make_table, raw):
    table = make_table("existentiel", EXISTENTIEL_PLAYERS)
    table.event("schedule", at="2031-03-07T19:30")
    before = table.snapshot()
    refused(post_raw(table, events_url(table), raw), 400, "bad_json")
    unchanged(table, before)
    assert table.client.get(f"/api/tables/{table.code}/rendezvous.ics").status_code == 200
    # A real pair (an emoji written as two escapes) is text: the name is taken.
    pair = b'{"id": "y", "type": "add_player", "name": "Zo\\ud83d\\ude00", "birth_month": 3}'
    assert post_raw(table, events_url(table), pair).status_code == 201


# --- 3. the media type ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content_type",
    [
        None,
        "text/plain",
        "text/plain; charset=utf-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonx",
        "text/json",
    ],
)
def test_a_body_that_is_not_declared_json_is_refused(make_table, content_type):
    table = make_table()
    before = table.snapshot()
    creation = json.dumps({"game": "morto", "players": MORTO_NAMES}).encode()
    event = json.dumps({"id": "x", "type": "touched_early", "player": "p2"}).encode()
    for path, raw in (
        ("/api/tables", creation),
        (events_url(table), event),
        (f"/api/tables/{table.code}/undo", b'{"version": 0}'),
        (f"/api/tables/{table.code}/checks/swap", b'{"face_up": {}}'),
    ):
        refused(post_raw(table, path, raw, content_type), 415, "unsupported_media_type")
    unchanged(table, before)


@pytest.mark.parametrize("content_type", [JSON_TYPE, "application/json; charset=utf-8", "Application/JSON"])
def test_json_with_or_without_a_charset_is_taken(make_table, content_type):
    table = make_table()
    raw = json.dumps({"id": "x", "type": "touched_early", "player": "p2"}).encode()
    response = post_raw(table, events_url(table), raw, content_type)
    assert response.status_code == 201, response.get_json()
    created = post_raw(
        table, "/api/tables", json.dumps({"game": "morto", "players": MORTO_NAMES}).encode(), content_type
    )
    assert created.status_code == 201


def test_an_empty_body_needs_no_content_type_where_none_is_needed(make_table):
    table = make_table()
    table.event("touched_early", player="p2")
    check = table.client.post(f"/api/tables/{table.code}/checks/swap")
    assert check.status_code == 200, check.get_json()
    undo = table.client.post(f"/api/tables/{table.code}/undo", headers=table.auth)
    assert undo.status_code == 200, undo.get_json()
    assert undo.get_json()["version"] == 2


def test_too_large_comes_before_the_media_type(make_table):
    table = make_table()
    before = table.snapshot()
    refused(post_raw(table, events_url(table), b"x" * (64 * 1024 + 1), "text/plain"), 413, "too_large")
    unchanged(table, before)


# --- 4. the Authorization scheme --------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER", "bEaReR"])
def test_the_bearer_scheme_is_case_insensitive(make_table, scheme):
    table = make_table()
    response = table.post("touched_early", player="p2", headers={"Authorization": f"{scheme} {table.secret}"})
    assert response.status_code == 201, response.get_json()
    undo = table.undo(headers={"Authorization": f"{scheme}  {table.secret} "})
    assert undo.status_code == 200, undo.get_json()


@pytest.mark.parametrize(
    ("header", "status", "code"),
    [
        ("", 401, "secret_required"),
        ("bearer", 401, "secret_required"),
        ("bearer   ", 401, "secret_required"),
        ("Basic {secret}", 401, "secret_required"),
        ("Bearer{secret}", 401, "secret_required"),
        ("bearer wrong", 403, "wrong_secret"),
        ("BEARER {secret}x", 403, "wrong_secret"),
    ],
)
def test_a_missing_or_wrong_secret_is_still_refused(make_table, header, status, code):
    table = make_table()
    before = table.snapshot()
    headers = {"Authorization": header.format(secret=table.secret)}
    refused(table.post("touched_early", player="p2", headers=headers), status, code)
    unchanged(table, before)


# --- 5. bounds on what the engine reads ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "players", "minimum", "maximum"),
    [
        ("morto", [f"P{i}" for i in range(21)], 3, 20),
        ("morto", ["Ada", "Bruno"], 3, 20),
        ("gjdlv", [f"P{i}" for i in range(7)], 2, 6),
        ("gjdlv", ["Ada"], 2, 6),
        (
            "existentiel",
            [{"name": f"P{i}", "birth_month": 1} for i in range(existentiel.MAX_PLAYERS + 1)],
            1,
            30,
        ),
        ("existentiel", [{"name": f"P{i}", "birth_month": 1} for i in range(1500)], 1, 30),
    ],
)
def test_every_game_bounds_its_players_at_setup(client, game, players, minimum, maximum):
    body = {"game": game, "players": players}
    error = refused(client.post("/api/tables", json=body), 422, "player_count")
    assert error["params"] == {"count": len(players), "min": minimum, "max": maximum}


def test_existentiel_seats_at_most_thirty(make_table):
    assert existentiel.MAX_PLAYERS == 30
    full = [{"name": f"P{i}", "birth_month": 1 + i % 12} for i in range(existentiel.MAX_PLAYERS)]
    table = make_table("existentiel", full[:-1])
    assert {"type": "add_player"} in table.get()["state"]["actions"]
    table.event("add_player", name="Dernière", birth_month=6)
    state = table.get()["state"]
    assert len(state["players"]) == existentiel.MAX_PLAYERS
    assert {"type": "add_player"} not in state["actions"]  # the list comes from the same check
    before = table.snapshot()
    newcomer = table.post("add_player", name="Une de trop", birth_month=2)
    error = refused(newcomer, 422, "existentiel.table_full")
    assert error["params"] == {"max": existentiel.MAX_PLAYERS}
    unchanged(table, before)
    assert make_table("existentiel", full).get()["state"]["actions"][0]["type"] != "add_player"


def test_the_offline_engine_refuses_a_newcomer_at_a_full_table_too():
    full = [{"name": f"P{i}", "birth_month": 1} for i in range(existentiel.MAX_PLAYERS)]
    state = core.setup("existentiel", full, {})
    with pytest.raises(core.IllegalEvent) as caught:
        core.apply("existentiel", state, {"type": "add_player", "name": "X", "birth_month": 1})
    assert (caught.value.code, caught.value.params) == ("existentiel.table_full", {"max": 30})


@pytest.mark.parametrize(
    "at",
    [
        "9999-12-31T23:59",
        "1999-12-31T23:59",
        "2101-01-01T00:00",
        "0001-01-01T00:00",
        "\u0662\u0660\u0662\u0667-01-01T10:00",  # Arabic-Indic digits
        "\uff12\uff10\uff12\uff17-01-01T10:00",  # full-width digits
        "2027-01-01T10:00:61",
        "2027-01-01T10:00\n",
        "2027-01-01t10:00",
        "2027-01-01T10:00Z",
        "x" * 5000,
        2027,
    ],
)
def test_a_rendezvous_outside_ascii_iso_and_2000_2100_is_refused(make_table, at):
    table = make_table("existentiel", EXISTENTIEL_PLAYERS)
    table.event("schedule", at="2031-03-07T19:30", place="Le café")
    before = table.snapshot()
    error = refused(table.post("schedule", at=at), 422, "existentiel.bad_rendezvous")
    assert error["params"]["value"] == core.short(at)
    unchanged(table, before)
    assert table.client.get(f"/api/tables/{table.code}/rendezvous.ics").status_code == 200


@pytest.mark.parametrize(
    ("at", "stored"),
    [
        ("2000-01-01T00:00", "2000-01-01T00:00"),
        ("2100-12-31T23:59", "2100-12-31T23:59"),
        ("2031-03-07T19:30:00", "2031-03-07T19:30"),
        ("2031-03-07T19:30:59", "2031-03-07T19:30"),
    ],
)
def test_a_rendezvous_in_range_is_kept_to_the_minute(make_table, at, stored):
    table = make_table("existentiel", EXISTENTIEL_PLAYERS)
    answer = table.event("schedule", at=at)
    assert answer["state"]["rendezvous"] == {"at": stored, "place": None}
    calendar = table.client.get(f"/api/tables/{table.code}/rendezvous.ics")
    assert calendar.status_code == 200
    assert f"DTSTART:{stored.replace('-', '').replace(':', '')}00" in calendar.get_data(as_text=True)


def _store_state(app, code: str, change) -> None:
    """Write into a table's stored state directly, as a table saved by an older version could be."""
    from companion.storage.models import Table, db

    with app.app_context():
        table = db.session.execute(select(Table).where(Table.code == code)).scalar_one()
        state = copy.deepcopy(table.state)
        change(state)
        table.state = state
        db.session.commit()


@pytest.mark.parametrize(
    "rendezvous",
    [
        {"at": "9999-12-31T23:59", "place": None},
        {"at": "\u0662\u0660\u0662\u0667-01-01T10:00", "place": None},
        {"at": None},
        {"at": 5, "place": 7},
        {"place": "Le café"},
        "2031-03-07T19:30",
        [1, 2],
        3,
    ],
)
def test_the_calendar_never_fails_on_whatever_is_stored(app, make_table, rendezvous):
    table = make_table("existentiel", EXISTENTIEL_PLAYERS)

    def change(state):
        state["rendezvous"] = rendezvous

    _store_state(app, table.code, change)
    response = table.client.get(f"/api/tables/{table.code}/rendezvous.ics")
    refused(response, 404, "existentiel.no_rendezvous")


def test_the_calendar_replaces_text_that_utf8_cannot_encode(app, make_table):
    table = make_table("existentiel", EXISTENTIEL_PLAYERS)
    table.event("schedule", at="2031-03-07T19:30")

    def change(state):
        state["players"][0]["name"] = "Ada\ud800"
        state["rendezvous"]["place"] = "caf\udc00"

    _store_state(app, table.code, change)
    response = table.client.get(f"/api/tables/{table.code}/rendezvous.ics")
    assert response.status_code == 200
    unfolded = response.get_data(as_text=True).replace("\r\n ", "")
    assert "Ada?" in unfolded and "LOCATION:caf?" in unfolded


TITLE_REFUSED = ("existentiel.bad_title", {"adventure": 1, "max": 80})


@pytest.mark.parametrize(
    ("event", "code", "params"),
    [
        ({"type": "set_title", "adventure": 1, "title": "x" * 81}, *TITLE_REFUSED),
        ({"type": "set_title", "adventure": 1, "title": "x" * 60000}, *TITLE_REFUSED),
        ({"type": "set_title", "adventure": 1, "title": "   "}, *TITLE_REFUSED),
        (
            {"type": "schedule", "at": "2031-03-07T19:30", "place": "x" * 121},
            "existentiel.bad_place",
            {"max": 120},
        ),
        (
            {"type": "add_player", "name": "x" * 41, "birth_month": 1},
            "name_length",
            {"name": "x" * 40, "max": 40},
        ),
        ({"type": "add_player", "name": "", "birth_month": 1}, "name_length", {"name": "", "max": 40}),
    ],
)
def test_every_string_an_event_carries_is_bounded(make_table, event, code, params):
    table = make_table("existentiel", EXISTENTIEL_PLAYERS)
    before = table.snapshot()
    error = refused(table.post(**event), 422, code)
    assert error["params"] == params
    unchanged(table, before)


@pytest.mark.parametrize(
    ("players", "options", "code"),
    [
        (EXISTENTIEL_PLAYERS, {"titles": ["x" * 81] * 29}, "existentiel.bad_title"),
        (EXISTENTIEL_PLAYERS, {"titles": ["T"] * 30}, "existentiel.bad_titles"),
        (EXISTENTIEL_PLAYERS, {"titles": ["T"] * 5000}, "existentiel.bad_titles"),
        ([{"name": "x" * 41, "birth_month": 1}], {}, "name_length"),
    ],
)
def test_every_string_and_list_a_table_is_created_with_is_bounded(client, players, options, code):
    body = {"game": "existentiel", "players": players, "options": options}
    refused(client.post("/api/tables", json=body), 422, code)


@pytest.mark.parametrize("client_id", ["x" * 65, "a\u0000b", 5, ["a"]])
def test_a_client_id_is_bounded(make_table, client_id):
    table = make_table()
    before = table.snapshot()
    error = refused(table.post("touched_early", id=client_id, player="p2"), 422, "bad_field")
    assert error["params"]["field"] == "id"
    unchanged(table, before)


def test_a_reveal_with_thousands_of_cards_is_refused_at_once(make_table):
    table = make_table()
    before = table.snapshot()
    cards = {f"p{i}": 5 for i in range(1, 4000)}
    start = time.perf_counter()
    refused(table.post("reveal", cards=cards), 422, "morto.bad_cards")
    checks = f"/api/tables/{table.code}/checks"
    check = table.client.post(f"{checks}/swap", json={"face_up": dict.fromkeys(cards, 9)})
    refused(check, 422, "morto.bad_cards")
    refused(table.client.post(f"{checks}/reveal", json={"cards": cards}), 422, "morto.bad_cards")
    assert time.perf_counter() - start < 5
    unchanged(table, before)
    # Up to one card per seat the engine reads each entry and names what is wrong.
    refused(table.post("reveal", cards={**{f"p{i}": 5 for i in range(1, 6)}, "p6": 5}), 422, "unknown_player")


# --- 5. unknown fields ---------------------------------------------------------------------------------


def test_every_game_declares_the_fields_of_every_event():
    for game_id in core.GAME_MODULES:
        module = core.game(game_id)
        assert set(module.FIELDS) == set(module.EVENTS), game_id
        for kind, fields in module.FIELDS.items():
            assert isinstance(fields, dict) and all(isinstance(f, str) for f in fields), (game_id, kind)
            specs = fields.items()
            assert all(isinstance(spec, Field) and spec.name == f for f, spec in specs), (game_id, kind)
            assert not set(fields) & set(core.ENVELOPE_FIELDS), (game_id, kind)


@pytest.mark.parametrize("game_id", sorted(core.GAME_MODULES))
def test_every_listed_action_carries_only_declared_fields(game_id):
    module = core.game(game_id)
    view = core.view(game_id, core.setup(game_id, PLAYERS[game_id], {}))
    assert view["actions"]
    for action in view["actions"]:
        assert set(action) - {"type"} <= set(module.FIELDS[action["type"]]), action


UNKNOWN_FIELD_CASES = [
    ("morto", {"type": "touched_early", "player": "p2", "note": "x"}, "note", ["player"]),
    ("morto", {"type": "reveal", "cards": {}, "player": "p2"}, "player", ["cards", "lowest"]),
    (
        "existentiel",
        {"type": "roll", "player": "p1", "die": 3, "success": True},
        "success",
        ["player", "die"],
    ),
    ("existentiel", {"type": "accept", "player": "p1", "die": 3}, "die", ["player"]),
    (
        "existentiel",
        {"type": "schedule", "at": "2031-03-07T19:30", "where": "Le café"},
        "where",
        ["at", "place"],
    ),
    ("gjdlv", {"type": "close_round", "round": 2}, "round", []),
    ("gjdlv", {"type": "abortion", "player": "p1", "x" * 500: 1}, "x" * 40, ["player"]),
]


@pytest.mark.parametrize(("game_id", "event", "field", "allowed"), UNKNOWN_FIELD_CASES)
def test_an_unknown_field_is_refused(make_table, game_id, event, field, allowed):
    table = make_table(game_id, PLAYERS[game_id])
    before = table.snapshot()
    error = refused(table.post(**event), 422, "unknown_field")
    assert error["params"] == {"field": field, "type": event["type"], "allowed": allowed}
    unchanged(table, before)


def test_an_unknown_field_is_worded_in_english_too(make_table):
    table = make_table()
    response = table.client.post(
        events_url(table),
        json={"id": "x", **UNKNOWN_FIELD_CASES[0][1]},
        headers={**bearer(table.secret), "Accept-Language": "en"},
    )
    error = response.get_json()["error"]
    assert error["message"] == "Unknown field “note” in “touched_early”."


def test_the_envelope_fields_are_not_unknown(make_table):
    table = make_table()
    answer = table.event("touched_early", player="p2", version=0)
    assert answer["version"] == 1


def test_a_log_written_before_fields_were_checked_still_replays():
    # Handlers never read an undeclared field: replay takes a stored log as it is (undo, the phone's engine).
    old = {"type": "touched_early", "player": "p2", "note": "old client"}
    plain = {"type": "touched_early", "player": "p3"}
    log = [old, plain]
    replayed = core.replay("morto", MORTO_NAMES, {}, log)
    expected = core.replay("morto", MORTO_NAMES, {}, [{"type": "touched_early", "player": "p2"}, plain])
    assert replayed == expected
    assert core.undo("morto", MORTO_NAMES, {}, log)["players"][1]["lives"] == 2
    with pytest.raises(core.InvalidEvent):  # a new event is checked
        core.apply("morto", core.setup("morto", MORTO_NAMES, {}), log[0])


def test_unknown_fields_are_refused_by_the_engine_itself():
    for game_id, event, field, _allowed in UNKNOWN_FIELD_CASES:
        state = core.setup(game_id, PLAYERS[game_id], {})
        before = copy.deepcopy(state)
        with pytest.raises(core.InvalidEvent) as caught:
            core.apply_in_place(core.game(game_id), state, event)
        assert (caught.value.code, caught.value.params["field"]) == ("unknown_field", field)
        assert state == before
    assert morto.FIELDS and gjdlv.FIELDS and existentiel.FIELDS


# --- unknown options ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "options", "field"),
    [
        ("morto", {"lives": 3, "live": 4}, "live"),
        ("existentiel", {"title": ["A"] * 29}, "title"),
        ("gjdlv", {"rules": "simples", "modes": "tracker"}, "modes"),
    ],
)
def test_an_option_the_game_does_not_have_is_refused_not_ignored(client, game, options, field):
    body = {"game": game, "players": PLAYERS[game], "options": options}
    error = refused(client.post("/api/tables", json=body), 422, "bad_option")
    assert error["params"]["field"] == field
    assert error["params"]["choices"] == list(core.game(game).OPTIONS)
