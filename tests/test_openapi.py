"""The OpenAPI description (`companion/web/openapi.py`) against the app, and schemathesis against it.

- The document lists every ``/api/`` route of the app, and every event type of every game with
  exactly the fields the engine declares (``FIELDS``), so it cannot drift from the code.
- Schemathesis (in process, on the WSGI app) calls every operation with requests generated from the
  document, valid and not: most name a real table (one per game, played a little) with its
  referee's secret, some a wrong secret or none, some a code that names nothing. Every answer must
  not be a 5xx, and its status, content type, headers and body must be the ones documented.

The app is the suite's default one on SQLite, with the rate limits raised out of reach (this test
is a flood of failures and new tables from one address) and live streams that end at once.
"""

from __future__ import annotations

import zlib

import pytest
import schemathesis
from hypothesis import settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from companion.web import openapi
from engine import core
from tests.conftest import bearer

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
UNLIMITED = "1000000/minute"


@pytest.fixture
def backend() -> str:
    """SQLite only: the document and the answers are the same on PostgreSQL, and this is the slow test."""
    return "sqlite"


@pytest.fixture
def api_app(app):
    app.config.update(
        RATELIMIT_UNKNOWN_TABLE=UNLIMITED,
        RATELIMIT_WRONG_SECRET=UNLIMITED,
        RATELIMIT_NEW_TABLE=UNLIMITED,
        LIVE_STREAM_SECONDS=0.01,  # a stream sends the current version, then ends
        LIVE_KEEPALIVE_SECONDS=0.01,
    )
    return app


def create(client, body: dict, events: list[dict]) -> dict:
    response = client.post("/api/tables", json=body)
    assert response.status_code == 201, response.get_json()
    table = response.get_json()
    for number, event in enumerate(events):
        answer = client.post(
            f"/api/tables/{table['code']}/events",
            json={"id": f"setup-{number}", **event},
            headers=bearer(table["secret"]),
        )
        assert answer.status_code == 201, answer.get_json()
    return {"game": body["game"], "code": table["code"], "secret": table["secret"]}


@pytest.fixture
def tables(api_app) -> list[dict]:
    """A table of each game, a few events in, an existentiel one with a rendez-vous (its calendar), and
    a finished one (its rematch)."""
    client = api_app.test_client()
    names = ["Ada", "Bruno", "Chiara", "Dario"]
    return [
        create(
            client,
            {"game": "morto", "players": names, "options": {"lives": 2}},
            [{"type": "touched_early", "player": "p2"}],
        ),
        create(
            client,
            {
                "game": "existentiel",
                "players": [{"name": "Ada", "birth_month": 3}, {"name": "Bruno", "birth_month": 11}],
            },
            [
                {"type": "roll", "player": "p1", "die": 4},
                {"type": "accept", "player": "p1"},
                {"type": "schedule", "at": "2031-03-07T19:30", "place": "Chez Ada"},
            ],
        ),
        create(
            client,
            {"game": "gjdlv", "players": names[:3], "options": {"rules": "abondantes"}},
            [{"type": "newborn", "player": "p1", "gf": "4H", "gm": "9S"}],
        ),
        create(client, {"game": "existentiel", "players": [{"name": "Zoé", "birth_month": 7}]}, []),
        # A finished game: its rematch is made (201), then given again.
        create(
            client,
            {"game": "morto", "players": names[:3], "options": {"lives": 1}},
            [{"type": "touched_early", "player": "p2"}, {"type": "touched_early", "player": "p3"}],
        ),
    ]


def game_of(case) -> str | None:
    """The game an event's type or a check's name belongs to, so most of them meet a table they fit."""
    kind = case.body.get("type") if isinstance(case.body, dict) else None
    name = (case.path_parameters or {}).get("name")
    for game in core.GAME_MODULES:
        module = core.game(game)
        if isinstance(kind, str) and kind in module.EVENTS or isinstance(name, str) and name in module.CHECKS:
            return game
    return None


@pytest.fixture
def api_schema(api_app):
    return schemathesis.openapi.from_wsgi("/api/openapi.json", api_app)


SECRETS = ("right", "right", "right", "right", "wrong", "none", "generated")


def aim(case, tables: list[dict]) -> None:
    """Send most cases to a real table, with its secret.

    The choice is a hash of the case, not a Hypothesis draw: the coverage phase's cases (boundary
    values, missing and ill-typed fields) are not drawn, and they should meet real tables too. Three
    cases in four name a table (most often one of the game the event or check belongs to), one in
    four keeps the code as generated; the secret is the table's four times in seven, else another
    one, none, or the header as generated; half the writes lose their generated ``version``.
    """
    if not case.path_parameters or "code" not in case.path_parameters:
        return
    seed = zlib.crc32(repr((case.path_parameters, case.body, case.headers, case.query)).encode())
    fitting = [t for t in tables if t["game"] == game_of(case)] or tables
    table = [fitting[seed % len(fitting)], tables[seed % len(tables)], fitting[0], None][(seed >> 8) % 4]
    secret = SECRETS[(seed >> 12) % len(SECRETS)]
    if table is not None:
        case.path_parameters = {**case.path_parameters, "code": table["code"]}
    if isinstance(case.body, dict) and "version" in case.body and (seed >> 16) % 2:
        # A generated version is all but never the table's (409): half the writes go without one.
        case.body = {key: value for key, value in case.body.items() if key != "version"}
    headers = {k: v for k, v in (case.headers or {}).items() if k.lower() != "authorization"}
    if secret == "right" and table is not None:
        headers.update(bearer(table["secret"]))
    elif secret == "wrong":
        headers.update(bearer("not-the-secret"))
    elif secret == "generated" and case.headers:
        headers = dict(case.headers)
    case.headers = headers


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=25, deadline=None, derandomize=True, database=None)
def test_the_api_answers_as_documented(case, tables):
    aim(case, tables)
    # The checks read each body as sent: ask for it plain (compression is tests/test_offline_assets.py's).
    case.headers = {**(case.headers or {}), "Accept-Encoding": "identity"}
    case.call_and_validate(checks=CHECKS)


# --- the document against the code ----------------------------------------------------------------------


def test_every_api_route_is_documented(app):
    documented = {
        (method.upper(), path)
        for path, item in openapi.document()["paths"].items()
        for method in item
        if method != "parameters"
    }
    routes = {
        (method, rule.rule.replace("<", "{").replace(">", "}"))
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith("/api/")
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }
    assert documented == routes


def test_every_event_type_is_documented_with_its_fields():
    components = openapi.document()["components"]["schemas"]
    listed = {ref["$ref"].rsplit("/", 1)[1] for ref in components["Event"]["oneOf"]}
    expected = set()
    for game in core.GAME_MODULES:
        module = core.game(game)
        for kind in module.EVENTS:
            name = openapi.event_schema_name(game, kind)
            expected.add(name)
            properties = set(components[name]["properties"]) - set(core.ENVELOPE_FIELDS)
            assert properties == set(module.FIELDS[kind]), (game, kind)
    assert listed == expected


def test_the_document_is_served(client):
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    document = response.get_json()
    assert document["openapi"].startswith("3.1")
    assert document["components"]["securitySchemes"]["referee"]["scheme"] == "bearer"


def test_the_document_is_valid_openapi():
    schemathesis.openapi.from_dict(openapi.document()).validate()  # the OpenAPI 3.1 meta-schema
