"""The web layer's one error path: every refusal is an exception, answered by one handler for the app.

What raises what, and the status it gets (decided here, never in the engine):

- the engine's `RuleError` (`InvalidEvent`: malformed, `IllegalEvent`: not allowed now): 422, but
  404 for a check the URL names that the game does not have;
- `Refused(status, code, **params)`: what the companion refuses itself (a missing secret, a stale
  version, an unknown table, a full server), with its own status;
- werkzeug's `HTTPException` (no such route, wrong method, body too large): its status;
- anything else is a bug: logged, and answered 500 ``internal``; nothing was committed.

Under ``/api/`` every one of them is ``{"error": {"code", "message", "messages", "params"}}``, built by
`error_response` alone, plus ``rule`` (``/rules/morto#dead``) when a rule of the game forbids it
(`engine.rulebook` maps the codes). The pages keep HTML: their 404 is the bilingual "nothing here" page.
"""

from __future__ import annotations

from flask import Flask, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from companion import i18n
from engine.core import RuleError
from engine.messages import refusal

RULE_STATUS = 422  # both kinds of engine refusal: the request was understood and cannot be applied
RULE_STATUS_BY_CODE = {"unknown_check": 404}  # a check is a resource in the URL: naming none is "not found"
HTTP_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 413: "too_large"}


class Refused(Exception):
    """A request the companion refuses before (or instead of) asking the engine: status, code, params."""

    def __init__(self, status: int, code: str, /, **params):  # a param may be named ``code`` too
        super().__init__(code)
        self.status, self.code, self.params = status, code, params


def error_response(status: int, code: str, params: dict) -> Response:
    """The one shape of every error answer: the code, its sentence in the client's language and in
    both, and the params the sentences quote; and where the rule behind it is explained, if one is."""
    response = jsonify({"error": refusal(code, params, i18n.current())})
    response.status_code = status
    return response


def _is_api() -> bool:
    return request.path.startswith("/api/")


def rule_error(error: RuleError) -> Response:
    return error_response(RULE_STATUS_BY_CODE.get(error.code, RULE_STATUS), error.code, error.params)


def refused(error: Refused) -> Response:
    return error_response(error.status, error.code, error.params)


def http_error(error: HTTPException):
    if not _is_api():
        if error.code == 404:
            return render_template("not_found.html"), 404
        return error
    status = error.code or 400
    params = {"max": current_app.config["MAX_CONTENT_LENGTH"]} if status == 413 else {}
    response = error_response(status, http_code(status), params)
    for name, value in error.get_headers():
        if name.lower() != "content-type":  # e.g. a 405's Allow
            response.headers[name] = value
    return response


def http_code(status: int) -> str:
    return HTTP_CODES.get(status) or ("internal" if status >= 500 else "bad_request")


def unexpected(error: Exception):
    # A bug must still answer in the API's shape; it is logged for us, never shown to the client.
    current_app.logger.exception("unexpected error on %s %s", request.method, request.path)
    if _is_api():
        return error_response(500, "internal", {})
    return Response("Erreur interne / Internal error", status=500, mimetype="text/plain")


def register(app: Flask) -> None:
    """The handlers for the whole app; a blueprint adds none of its own."""
    app.register_error_handler(RuleError, rule_error)
    app.register_error_handler(Refused, refused)
    app.register_error_handler(HTTPException, http_error)
    app.register_error_handler(Exception, unexpected)
