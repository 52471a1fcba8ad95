"""The web layer's one error path: every refusal is an exception, answered by one handler for the app.

What raises what, and the status it gets (decided here, never in the engine):

- the engine's `RuleError` (`InvalidEvent`: malformed, `IllegalEvent`: not allowed now): 422, but
  404 for a check the URL names that the game does not have;
- `Refused(status, code, **params)`: what the web layer refuses itself (a missing secret, a body that
  is not JSON, an unknown table), with its own status;
- a `Refusal` of the layers below (`companion.storage.errors`: a stale version, a client id reused, a
  busy table; the live streams' caps): the status `REFUSAL_STATUS` gives its code;
- werkzeug's `HTTPException` (no such route, wrong method, body too large, a body too slow): its status;
- the database not answering (down, its disk full or read-only, no connection to be had: an
  ``OperationalError``, a lost connection, the pool's timeout): ``503 unavailable`` with
  ``Retry-After``, logged in one line once a minute at most (`Outage`), not a traceback per request;
- anything else is a bug: logged, and answered 500 ``internal``; nothing was committed.

A refusal whose params carry ``retry_after`` (seconds) also says it in a ``Retry-After`` header.

Under ``/api/`` every one of them is ``{"error": {"code", "message", "messages", "params"}}``, built by
`error_response` alone, plus ``rule`` (``/rules/morto#dead``) when a rule of the game forbids it
(`engine.rulebook` maps the codes). The pages keep HTML: their 404 is the bilingual "nothing here" page.
"""

from __future__ import annotations

import logging
import threading
import time

from flask import Flask, Response, current_app, jsonify, render_template, request
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from werkzeug.exceptions import HTTPException

from companion.storage.errors import Refusal, unavailable
from companion.web import i18n
from engine.core import RuleError
from engine.messages import refusal, text

RULE_STATUS = 422  # both kinds of engine refusal: the request was understood and cannot be applied
RULE_STATUS_BY_CODE = {"unknown_check": 404}  # a check is a resource in the URL: naming none is "not found"
HTTP_CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    408: "too_slow",
    413: "too_large",
    414: "too_long",
    431: "headers_too_large",
}
REFUSAL_STATUS = {  # a refusal of the layers below, by its code
    "unknown_table": 404,
    "unknown_player": 404,
    "bad_field": 422,
    "log_full": 422,
    "not_your_move": 403,
    "client_id_reused": 409,
    "stale_version": 409,
    "undo_not_latest": 409,
    "too_many_streams": 429,
    "busy": 503,
    "streams_full": 503,
}
UNAVAILABLE_RETRY_AFTER = 5  # seconds a client is told to wait while the database does not answer
OUTAGE_LOG_SECONDS = 60  # at most one line per process this often while the database does not answer

log = logging.getLogger(__name__)


class Refused(Exception):
    """A request the companion refuses before (or instead of) asking the engine: status, code, params."""

    def __init__(self, status: int, code: str, /, **params):  # a param may be named ``code`` too
        super().__init__(code)
        self.status, self.code, self.params = status, code, params


def error_response(status: int, code: str, params: dict) -> Response:
    """The one shape of every error answer: the code, its sentence in the client's language and in
    both, and the params the sentences quote; and where the rule behind it is explained, if one is.
    ``params.retry_after`` is also said in ``Retry-After``."""
    response = jsonify({"error": refusal(code, params, i18n.current())})
    response.status_code = status
    return _retry_after(response, params)


def sentences_response(status: int, code: str, params: dict) -> Response:
    """A page's refusal: both sentences as plain text (``Retry-After`` too, when the params say it)."""
    body = "".join(text(code, params, language) + "\n" for language in ("fr", "en"))
    return _retry_after(Response(body, status=status, mimetype="text/plain"), params)


def _retry_after(response: Response, params: dict) -> Response:
    if "retry_after" in params:
        response.headers["Retry-After"] = str(params["retry_after"])
    return response


def _is_api() -> bool:
    return request.path.startswith("/api/")


def rule_error(error: RuleError) -> Response:
    return error_response(RULE_STATUS_BY_CODE.get(error.code, RULE_STATUS), error.code, error.params)


def refused(error: Refused | Refusal) -> Response:
    status = error.status if isinstance(error, Refused) else REFUSAL_STATUS[error.code]
    return error_response(status, error.code, error.params)


def http_error(error: HTTPException):
    if not _is_api():
        if error.code == 404:
            return render_template("not_found.html"), 404
        return error
    status = error.code or 400
    params = {}
    if status == 413:
        params = {"max": current_app.config["MAX_CONTENT_LENGTH"]}
    elif status == 408:  # the seconds the body had: fewer than BODY_SECONDS on a busy server
        params = {"seconds": _whole(getattr(error, "seconds", current_app.config["BODY_SECONDS"]))}
    response = error_response(status, http_code(status), params)
    for name, value in error.get_headers():
        if name.lower() != "content-type":  # e.g. a 405's Allow
            response.headers[name] = value
    return response


def http_code(status: int) -> str:
    return HTTP_CODES.get(status) or ("internal" if status >= 500 else "bad_request")


def _whole(number: float) -> float | int:
    return int(number) if float(number).is_integer() else number


class Outage:
    """This process's record of the database not answering: the first refusal is logged, then one
    line a minute at most with how many were answered 503 meanwhile, whatever the traffic."""

    def __init__(self):
        self.lock = threading.Lock()
        self.logged_at: float | None = None
        self.refused = 0

    def note(self, error: Exception) -> None:
        now = time.monotonic()
        with self.lock:
            self.refused += 1
            if self.logged_at is not None and now - self.logged_at < OUTAGE_LOG_SECONDS:
                return
            refused, self.refused, self.logged_at = self.refused, 0, now
        cause = str(getattr(error, "orig", None) or error).strip().splitlines()
        log.error(
            "database unavailable (%d request(s) answered 503 unavailable since the last line): %s",
            refused,
            cause[0] if cause else type(error).__name__,
        )


OUTAGE = Outage()


def database_error(error: Exception):
    if not unavailable(error):
        return unexpected(error)
    OUTAGE.note(error)
    params = {"retry_after": UNAVAILABLE_RETRY_AFTER}
    if _is_api():
        return error_response(503, "unavailable", params)
    return sentences_response(503, "unavailable", params)


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
    app.register_error_handler(Refusal, refused)
    app.register_error_handler(HTTPException, http_error)
    app.register_error_handler(DBAPIError, database_error)
    app.register_error_handler(PoolTimeout, database_error)
    app.register_error_handler(Exception, unexpected)
