"""The one error path (companion/web/errors.py): every refusal the app makes, whoever raises it, answered
in the one shape ``{"error": {"code", "message", "messages", "params"}}``, French unless the client
asks for English; an HTML page for a page that does not exist; a bug a JSON 500 on the API, logged.

Each kind of refusal is provoked the way a client would, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from werkzeug.exceptions import HTTPException

from companion.web.errors import Refused
from engine import core
from engine.core import RuleError
from engine.messages import forms, text
from engine.rulebook import rule_url
from tests.conftest import MORTO_NAMES, bearer

ENGLISH = {"Accept-Language": "en"}


def refused(response, status: int, code: str, language: str = "fr") -> dict:
    """The one shape, with both sentences of the code and ``message`` in ``language``."""
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True)[:500])
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert list(body) == ["error"]
    error = body["error"]
    # ``rule``, where the app's short rules explain it, only for a rule of a game (engine.rulebook).
    rule = rule_url(code)
    assert list(error) == ["code", "message", "messages", "params", *(["rule"] if rule else [])]
    assert error.get("rule") == rule
    assert error["code"] == code
    assert forms(code)  # worded, not a bare code
    params = error["params"]
    assert isinstance(params, dict)
    assert error["messages"] == {"fr": text(code, params, "fr"), "en": text(code, params, "en")}
    assert error["messages"]["fr"] != error["messages"]["en"]
    assert error["message"] == error["messages"][language]
    return error


# --- every kind of refusal, in French and in English ------------------------------------------------


@dataclass(frozen=True)
class Refusal:
    """A request the app refuses: how to send it (with extra headers), and the status and code it gets."""

    status: int
    code: str
    send: Callable  # (client, make_table, headers) -> response


REFUSALS: dict[str, Refusal] = {}


def refusal(status: int, code: str):
    """Registers a way to provoke a refusal, under the function's name."""

    def register(send: Callable) -> Callable:
        REFUSALS[send.__name__] = Refusal(status, code, send)
        return send

    return register


def referee_post(make_table, headers: dict, **event):
    table = make_table()
    return table.post(headers={**table.auth, **headers}, **event)


# The engine's refusals: IllegalEvent (a rule) and InvalidEvent (malformed), both 422.


@refusal(422, "morto.dealer_may_touch")
def rule(client, make_table, headers):
    return referee_post(make_table, headers, type="touched_early", player="p1")


@refusal(422, "unknown_player")
def malformed_event(client, make_table, headers):
    return referee_post(make_table, headers, type="touched_early", player="p9")


@refusal(422, "unknown_game")
def unknown_game(client, make_table, headers):
    return client.post("/api/tables", json={"game": "chess", "players": MORTO_NAMES}, headers=headers)


@refusal(422, "nothing_to_undo")
def nothing_to_undo(client, make_table, headers):
    table = make_table()
    return table.undo(headers={**table.auth, **headers})


# The companion's own.


@refusal(400, "bad_json")
def bad_json(client, make_table, headers):
    return client.post("/api/tables", data=b"{not json", content_type="application/json", headers=headers)


@refusal(422, "bad_field")
def bad_client_id(client, make_table, headers):
    return referee_post(make_table, headers, type="touched_early", id="x" * 65, player="p2")


@refusal(404, "unknown_table")
def unknown_table(client, make_table, headers):
    return client.get("/api/tables/ZZZZZZ", headers=headers)


@refusal(401, "secret_required")
def missing_secret(client, make_table, headers):
    return make_table().post("touched_early", player="p2", headers=headers)


@refusal(403, "wrong_secret")
def wrong_secret(client, make_table, headers):
    return make_table().post("touched_early", player="p2", headers={**bearer("not-the-secret"), **headers})


@refusal(409, "stale_version")
def stale_version(client, make_table, headers):
    return referee_post(make_table, headers, type="touched_early", player="p2", version=3)


# werkzeug's: protocol and routing.


@refusal(413, "too_large")
def too_large(client, make_table, headers):
    return client.post("/api/tables", json={"game": "morto", "padding": "x" * (64 * 1024)}, headers=headers)


@refusal(404, "not_found")
def unknown_route(client, make_table, headers):
    return client.get("/api/nope", headers=headers)


@refusal(405, "method_not_allowed")
def wrong_method(client, make_table, headers):
    return client.delete("/api/tables", headers=headers)


# The calendar's.


@refusal(404, "unknown_table")
def calendar_of_an_unknown_table(client, make_table, headers):
    return client.get("/api/tables/ZZZZZZ/rendezvous.ics", headers=headers)


@refusal(404, "existentiel.no_calendar")
def calendar_of_another_game(client, make_table, headers):
    return client.get(f"/api/tables/{make_table().code}/rendezvous.ics", headers=headers)


@refusal(404, "existentiel.no_rendezvous")
def calendar_without_a_rendezvous(client, make_table, headers):
    table = make_table("existentiel", [{"name": "Ada", "birth_month": 3}])
    return client.get(f"/api/tables/{table.code}/rendezvous.ics", headers=headers)


@pytest.mark.parametrize("kind", list(REFUSALS))
def test_every_refusal_is_in_the_one_shape_in_french_by_default(client, make_table, kind):
    refusal = REFUSALS[kind]
    refused(refusal.send(client, make_table, {}), refusal.status, refusal.code, "fr")


@pytest.mark.parametrize("kind", list(REFUSALS))
def test_every_refusal_is_in_english_when_asked(client, make_table, kind):
    refusal = REFUSALS[kind]
    refused(refusal.send(client, make_table, ENGLISH), refusal.status, refusal.code, "en")


# --- what each kind says -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("event", "code"),
    [
        ({"type": "touched_early", "player": "p1"}, "morto.dealer_may_touch"),  # IllegalEvent
        ({"type": "touched_early", "player": "p9"}, "unknown_player"),  # InvalidEvent
        ({"type": "knock"}, "unknown_event"),  # InvalidEvent, from core
    ],
)
def test_an_engine_refusal_is_a_422_with_the_engines_code_and_params(make_table, event, code):
    table = make_table()
    error = refused(table.post(**event), 422, code)
    with pytest.raises(core.RuleError) as expected:
        core.apply("morto", core.setup("morto", MORTO_NAMES, {}), event)
    assert expected.value.code == code
    assert error["params"] == expected.value.params


def test_the_status_is_decided_by_the_web_layer_not_the_engine(app, client):
    class StatusfulRefusal(core.IllegalEvent):
        status = 409  # an engine error carrying a status of its own is not listened to

    def refuse():
        raise StatusfulRefusal("game_over")

    app.add_url_rule("/api/test/statusful", view_func=refuse)
    refused(client.get("/api/test/statusful"), 422, "game_over")


def test_an_engine_refusal_raised_outside_the_api_blueprint_is_answered_too(app, client):
    def refuse():
        raise core.InvalidEvent("bad_event")

    app.add_url_rule("/api/test/elsewhere", view_func=refuse)
    refused(client.get("/api/test/elsewhere"), 422, "bad_event")


def test_no_blueprint_answers_errors_its_own_way(app):
    # Keyed by blueprint name (None: the app); Flask's lookups leave empty entries behind, so only
    # handlers count.
    spec = app.error_handler_spec
    assert [name for name, by_code in spec.items() if name is not None and any(by_code.values())] == []
    assert {RuleError, Refused, HTTPException, Exception} <= set(spec[None][None])


def test_a_stale_version_quotes_both_versions(make_table):
    table = make_table()
    table.event("touched_early", player="p2")
    error = refused(table.post("touched_early", player="p3", version=0), 409, "stale_version")
    assert error["params"] == {"sent": 0, "current": 1}


def test_too_large_quotes_the_limit(client):
    error = refused(
        client.post("/api/tables", data=b"{" + b" " * (64 * 1024) + b"}", content_type="application/json"),
        413,
        "too_large",
    )
    assert error["params"] == {"max": 64 * 1024}


def test_a_wrong_method_says_which_ones_are_allowed(make_table):
    table = make_table()
    response = table.client.put(f"/api/tables/{table.code}/events")
    refused(response, 405, "method_not_allowed")
    assert set(response.headers["Allow"].split(", ")) >= {"POST"}


def test_an_unknown_table_quotes_the_code(client):
    error = refused(client.get("/api/tables/NOPE42/history"), 404, "unknown_table")
    assert error["params"] == {"code": "NOPE42"}


def test_english_wins_over_a_regional_french_only_when_preferred(client):
    refused(client.get("/api/nope", headers={"Accept-Language": "en-GB,fr;q=0.5"}), 404, "not_found", "en")
    refused(client.get("/api/nope", headers={"Accept-Language": "fr-FR,en;q=0.5"}), 404, "not_found", "fr")
    refused(client.get("/api/nope", headers={"Accept-Language": "de"}), 404, "not_found", "fr")


# --- pages -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    ["/t/ZZZZZZ", "/r/ZZZZZZ", "/t/ZZZZZZ/qr", "/join/ZZZZZZ", "/nope", "/new/chess", "/pyodide/nope.js"],
)
def test_a_page_that_does_not_exist_is_the_html_not_found_page(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    assert "Rien ici" in page and "Nothing here" not in page  # in the page's one language
    english = client.get(path, headers={"Accept-Language": "en-US"}).get_data(as_text=True)
    assert "Nothing here" in english and "Rien ici" not in english


def test_an_unknown_table_is_json_on_the_api_and_html_on_its_page(client):
    refused(client.get("/api/tables/ZZZZZZ"), 404, "unknown_table")
    assert client.get("/t/ZZZZZZ").mimetype == "text/html"


# --- bugs ------------------------------------------------------------------------------------------


def test_an_unexpected_exception_on_the_api_is_a_json_500_and_logged(app, client, caplog):
    def broken():
        raise RuntimeError("a detail for the logs only")

    app.add_url_rule("/api/test/broken", view_func=broken)
    with caplog.at_level(logging.ERROR, logger=app.logger.name):
        response = client.get("/api/test/broken", headers=ENGLISH)
    error = refused(response, 500, "internal", "en")
    assert error["params"] == {}
    assert "a detail for the logs only" not in response.get_data(as_text=True)
    [record] = [r for r in caplog.records if r.name == app.logger.name]
    assert "/api/test/broken" in record.getMessage()
    assert record.exc_info and record.exc_info[0] is RuntimeError


def test_an_unexpected_exception_on_a_page_is_a_plain_500(app, client, caplog):
    def broken():
        raise RuntimeError("a detail for the logs only")

    app.add_url_rule("/test/broken", view_func=broken)
    with caplog.at_level(logging.ERROR, logger=app.logger.name):
        response = client.get("/test/broken")
    assert response.status_code == 500
    assert "a detail for the logs only" not in response.get_data(as_text=True)
    assert any(r.exc_info and r.exc_info[0] is RuntimeError for r in caplog.records)
