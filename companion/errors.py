"""Every error as JSON on the API: ``{"error": {"code", "message", "messages", "params"}}``, never a 500 page."""

from __future__ import annotations

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from engine.messages import text

class Refused(Exception):
    """A request the companion refuses before (or instead of) asking the engine: status, code, params."""

    def __init__(self, status: int, code: str, /, **params):  # a param may be named ``code`` too
        super().__init__(code)
        self.status, self.code, self.params = status, code, params


HTTP_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 413: "too_large"}


def lang() -> str:
    """French unless the client prefers English, whatever the region (``en-GB``, ``fr-FR``).

    ``best_match(["fr", "en"])`` would answer English to ``fr-FR,en;q=0.5``: an exact ``en`` beats
    a regional ``fr-FR``. Comparing the primary tags in the client's order of preference does not.
    """
    for value, quality in request.accept_languages:  # best first
        primary = value.replace("_", "-").split("-")[0].lower()
        if quality > 0 and primary in ("fr", "en"):
            return primary
    return "fr"


def json_error(status: int, code: str, /, **params):
    # Positional-only: a param may itself be called ``code`` (``unknown_table`` quotes the table code).
    body = {
        "error": {
            "code": code,
            "message": text(code, params, lang()),
            "messages": {"fr": text(code, params, "fr"), "en": text(code, params, "en")},
            "params": params,
        }
    }
    return jsonify(body), status


def register(app: Flask) -> None:
    @app.errorhandler(Refused)
    def refused(error: Refused):
        return json_error(error.status, error.code, **error.params)

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException):
        if not request.path.startswith("/api/"):
            if error.code == 404:
                return render_template("not_found.html"), 404
            return error
        status = error.code or 400
        params = {"max": app.config["MAX_CONTENT_LENGTH"]} if status == 413 else {}
        return json_error(status, HTTP_CODES.get(status, "bad_request"), **params)

    @app.errorhandler(Exception)
    def unexpected(error: Exception):
        # A bug must still answer in the API's shape; it is logged for us, never shown.
        app.logger.exception("unexpected error on %s", request.path)
        if request.path.startswith("/api/"):
            return json_error(500, "internal")
        return "Erreur interne / Internal error", 500
