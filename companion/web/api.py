"""The JSON API (its fixed words are in shared/API.md; the rest is documented in docs/API.md).

Views raise every refusal (`Refused` here, `RuleError` from the engine); `companion.web.errors` answers them.
"""

from __future__ import annotations

import json
import math

from flask import Blueprint, Response, current_app, jsonify, request, url_for

from companion.live import bus
from companion.storage import store
from companion.web import i18n, limits, long_reads, story
from companion.web.access import (
    bearer_secret,
    check_own_move,
    found_row,
    referee_table,
    table_or_404,
    writer_table,
)
from companion.web.errors import Refused
from companion.web.pages import view_url
from companion.web.qr import svg
from companion.web.timing import phase
from engine import core
from engine.messages import worded

bp = Blueprint("api", __name__, url_prefix="/api")
HISTORY_PAGE_MAX = 500  # entries of the history in one answer, when a page is asked for
LOG_TAIL_MAX = 500  # events a ``/log?tail=`` may ask to hold at least (it reads 100 more at most)
# Client ids one ``/log`` may ask about: a phone sends its taps one at a time, so only its oldest
# waiting tap can have been applied unanswered; 64 leave room for a client that sends several.
LOG_IDS_MAX = 64


def body() -> dict:
    """The request's JSON object, or a 4xx naming what is wrong with it, checked in this order: its
    size (413), its media type (415), its syntax (400 ``bad_json``: NaN and infinities however
    written included), its nesting (400 ``too_deep``), its text (400 ``bad_json`` for a lone
    surrogate), then that it is an object. Nothing else reads the body before these checks.

    A body sent without a ``Content-Length`` (chunked) is read up to the limit: werkzeug stops
    there without a word, so one byte more is asked of the server's stream to tell a body of
    exactly the limit from a longer one."""
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    if request.content_length and request.content_length > limit:
        raise Refused(413, "too_large", max=limit)
    raw = request.get_data(cache=True)
    if request.content_length is None and len(raw) >= limit and request.environ["wsgi.input"].read(1):
        raise Refused(413, "too_large", max=limit)
    if not raw.strip():
        return {}  # no body at all: an undo, a check without params
    if request.mimetype != "application/json":
        # A form or text/plain body is a "simple" request a page on any site may send without a CORS
        # preflight; requiring JSON's own type makes every browser ask first (and this app never says yes).
        raise Refused(415, "unsupported_media_type", type=core.short(request.mimetype or None))
    try:
        # NaN and Infinity are not JSON, nor is a number too large for a float (1e999 would be read
        # as infinity): PostgreSQL refuses them and no JSON parser reads them back. Not orjson: it would
        # spare the two hooks, not the depth walk, and reads integers past 64 bits as floats
        # (bench/json_parse.py).
        parsed = json.loads(raw, parse_constant=_not_json, parse_float=_finite)
    except RecursionError:  # the parser's own recursion, nested a thousand deep
        raise Refused(400, "too_deep", max=core.JSON_DEPTH_MAX) from None
    except (ValueError, UnicodeDecodeError):
        raise Refused(400, "bad_json") from None
    refusal = core.json_refusal(parsed)
    if refusal is not None:
        code, params = refusal
        raise Refused(400, code, **params)
    if not isinstance(parsed, dict):
        raise Refused(400, "bad_json")
    return parsed


def _not_json(constant: str):
    raise ValueError(f"{constant} is not JSON")


def _finite(number: str) -> float:
    value = float(number)
    if not math.isfinite(value):
        raise ValueError(f"{number[:40]} is not a finite number")
    return value


def described(table) -> dict:
    return {
        "code": table.code,
        "display_code": store.display_code(table.code),
        "game": table.game,
        **store.answer(table),
    }


def created(table, secret: str) -> Response:
    """A new table's answer: 201, its secret (given only here) and where to read it."""
    response = jsonify({"secret": secret, **described(table)})
    response.status_code = 201
    response.headers["Location"] = url_for("api.get_table", code=table.code)
    return response


@bp.post("/tables")
def create_table():
    data = body()
    game = data.get("game")
    core.game(game)  # unknown_game before anything else
    options = data.get("options", {})
    return created(*store.create_table(game, data.get("players"), options))


@bp.get("/tables/<code>")
def get_table(code: str):
    table = table_or_404(code)
    return jsonify(
        {
            **described(table),
            "rematch": table.rematch,
            "seats": store.seats(table.id),
            "player_moves": core.player_moves(table.game, table.options),
        }
    )


@bp.post("/tables/<code>/rematch")
def rematch_table(code: str):
    """A finished table's next game, answered as a new table is; asked again, the same table. The
    old table's followers are told where it is, once, by the request that made it."""
    table = referee_table(code)
    for field in body():  # nothing to say: the old table's setup decides everything
        raise Refused(422, "unknown_field", field=core.short(field), type="rematch", allowed=[])
    made, secret, fresh = store.rematch(table.id, bearer_secret())
    if fresh:
        bus.publish_rematch(table.id, made.code)
    return created(made, secret)


@bp.post("/tables/<code>/events")
def post_event(code: str):
    return write(code, store.append_event, 201)


@bp.post("/tables/<code>/undo")
def post_undo(code: str):
    return write(code, store.undo, 200)


def write(code: str, recorded, status: int) -> Response:
    """An event or an undo (``recorded``: `store.append_event` or `store.undo`), its guards in this
    order; each refuses with nothing changed, and the first to refuse answers."""
    # 1. The table the URL names: 404 unknown_table (the wrong-code limit counts it).
    # 2. The secret and its rights: 401 secret_required, 403 wrong_secret (counted by the
    #    wrong-secret limit). Checked once per request (`access.holder`), before the body is read:
    #    a stranger's body is never parsed.
    with phase("access"):
        table, holder = writer_table(code)
    # 3. The body: strict JSON, bounded (413 too_large, 415, 400 bad_json or too_deep).
    with phase("body"):
        data = body()
    # 4. Whose move: a player's secret records only that player's own moves (403 not_your_move);
    #    a player's undo is checked on the log, in step 6.
    if recorded is store.append_event and holder != store.BY_REFEREE:
        check_own_move(table, holder, data)
    # 5. The table's pace, whoever writes: its writes a minute (429 too_many_writes).
    limits.count_write(table.id)
    # 6. In the group commit, on the row the commit writes to: the client id already seen (its
    #    first answer again, or 409 client_id_reused), the version (409 stale_version), the log's
    #    room (422 log_full), the rules (422), then the rows and the commit: durable once answered.
    with phase("commit"):
        answer = recorded(table.id, data, holder, found_row(table.id))
    # 7. Publish: every follower, in this process and the others, hears of a real write (a retry
    #    answered from the log was told when it was first applied).
    if answer.fresh:
        with phase("publish"):
            bus.publish(table.id, answer["version"], answer, answer.json)
    return Response(answer.json, status, mimetype="application/json")


@bp.post("/tables/<code>/players/<player>/secret")
def give_player_secret(code: str, player: str):
    """A new secret for one player's own phone (the referee's secret only); a new one replaces the
    old. The secret is in this answer alone: the server keeps its hash."""
    table = referee_table(code)
    for field in body():  # nothing to say: the URL names the player
        raise Refused(422, "unknown_field", field=core.short(field), type="player_secret", allowed=[])
    limits.count_write(table.id)
    secret = store.give_player_secret(table, player)
    return jsonify({"player": player, "secret": secret}), 201


@bp.delete("/tables/<code>/players/<player>/secret")
def take_back_player_secret(code: str, player: str):
    """The player's secret stops working at once (the referee's secret only); done already is done."""
    table = referee_table(code)
    limits.count_write(table.id)
    store.take_back_player_secret(table, player)
    return Response(status=204)


@bp.get("/tables/<code>/log")
def get_log(code: str):
    """What a client needs to replay the table itself (the referee's offline engine): setup and
    active events. With ``?since=<version>``, only what a client holding the log of that version
    lacks: it keeps its first ``keep`` events and appends ``events``. With ``?tail=<n>``, at least the
    last ``n`` events, from a checkpoint of the state (``start``, ``checkpoint``). With ``?id=`` (one
    per client id), which of those ids the table applied (``applied``). The whole log (none of these)
    is a long read (`long_reads`): made once per version, a slice at a time."""
    found = table_or_404(code)
    since, tail = _count_arg("since", 0, None), _count_arg("tail", 0, LOG_TAIL_MAX)
    if since is not None and tail is not None:
        raise Refused(422, "bad_field", field="tail")
    asked = _client_ids_arg()

    def read(table) -> dict:
        answer = {
            "code": table.code,
            "game": table.game,
            "players": table.players,
            "options": table.options,
            "version": table.version,
            "state": core.view(table.game, table.state),
        }
        if since is not None:
            if since > table.version:
                raise Refused(422, "bad_field", field="since", max=table.version)
            answer["since"] = since
            answer["keep"], events = store.log_since(table, since)
        elif tail is not None:
            answer["start"], answer["checkpoint"], events = store.log_tail(table, tail)
        else:
            events = store.active_events(table)
        answer["events"] = [{"id": e.client_id, "event": e.payload} for e in events]
        if asked is not None:
            answer["applied"] = store.applied(table, asked)
        return answer

    if since is not None or tail is not None or asked is not None:
        return jsonify(store.steady(code, read)[1])
    return long_reads.respond(
        long_reads.read(found, "log", lambda row: long_reads.encoded(read(row), "events"))
    )


def _client_ids_arg() -> list[str] | None:
    """The client ids of ``?id=…&id=…`` (at most `LOG_IDS_MAX`, each a client id), or None if none."""
    asked = request.args.getlist("id")
    if not asked:
        return None
    if len(asked) > LOG_IDS_MAX or not all(map(store.is_client_id, asked)):
        raise Refused(422, "bad_field", field="id", max=LOG_IDS_MAX)
    return asked


@bp.get("/tables/<code>/history")
def get_history(code: str):
    """Every event ever accepted, undone ones included, each with ``said``: what it did, in words."""
    found = table_or_404(code)
    limit, before = _count_arg("limit", 1, HISTORY_PAGE_MAX), _count_arg("before", 1, None)
    if limit is None and before is None:  # the whole history: read in pages, kept per version
        return long_reads.respond(long_reads.read(found, "history", _whole_history))
    table, (events, more) = store.steady(
        code, lambda table: story.history(table, before, limit or (HISTORY_PAGE_MAX if before else None))
    )
    return jsonify(
        {"code": table.code, "game": table.game, "version": table.version, "events": events, "more": more}
    )


def _whole_history(table) -> list:
    events = story.whole_history(table)
    answer = {
        "code": table.code,
        "game": table.game,
        "version": table.version,
        "events": events,
        "more": False,
    }
    return long_reads.encoded(answer, "events")


def _count_arg(name: str, low: int, high: int | None) -> int | None:
    """A whole number in the query string, or None if absent; 422 ``bad_field`` otherwise."""
    raw = request.args.get(name)
    if raw is None:
        return None
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 9 and low <= int(raw) <= (high or int(raw))):
        raise Refused(422, "bad_field", field=name, **({"max": high} if high else {}))
    return int(raw)


@bp.get("/tables/<code>/timeline")
def get_timeline(code: str):
    """Each player's number (lives, adventures completed, points) after each step: the results' chart."""

    def build(table) -> list:
        series = story.timeline(table)
        answer = {"code": table.code, "game": table.game, "version": table.version, **series}
        return long_reads.encoded(answer, "points")

    return long_reads.respond(long_reads.read(table_or_404(code), "timeline", build))


@bp.get("/tables/<code>/export")
def export_table(code: str):
    """The table as a JSON file to keep or to import elsewhere (no secret in it)."""
    table = table_or_404(code)
    pieces = long_reads.read(
        table, "export", lambda row: long_reads.encoded(story.export(row), "events", moment="exported_at")
    )
    disposition = {"Content-Disposition": f'attachment; filename="arbitre-{table.code}.json"'}
    return long_reads.respond(pieces, headers=disposition, moment=story.now())


@bp.get("/tables/<code>/export.csv")
def export_table_csv(code: str):
    """The chart's numbers, one row per step, one column per player, in the language of the page
    that links it (``?lang=``), else the request's: French with ";" and a byte order mark, English
    with "," (`story.CSV_DIALECTS`)."""
    asked = request.args.get("lang")
    table, language = table_or_404(code), asked if asked in i18n.LANGS else i18n.current()
    pieces = long_reads.read(table, "csv", lambda row: [story.export_csv(row, language).encode()], language)
    disposition = {"Content-Disposition": f'attachment; filename="arbitre-{table.code}.csv"'}
    return long_reads.respond(pieces, "text/csv", headers=disposition)


@bp.post("/tables/import")
def import_table():
    """A new table replaying an export's events, answered like a new table (counted like one)."""
    return created(*story.import_table(body()))


@bp.post("/tables/<code>/checks/<name>")
def run_check(code: str, name: str):
    """A game's pure rule check (e.g. Il Morto's swap helper), evaluated on the table's state."""
    table = table_or_404(code)
    return jsonify(worded(core.check(table.game, table.state, name, body()), i18n.current()))


@bp.get("/tables/<code>/qr.svg")
def table_qr(code: str):
    """The QR code of the table view's URL. Shared caches may keep it only when that URL is the
    deployment's own (``PUBLIC_URL``): one taken from the request's ``Host`` is a stranger's word,
    and a proxy keeping it would show everyone the QR code of the stranger's address."""
    table = table_or_404(code)
    cached = "public" if current_app.config.get("PUBLIC_URL") else "private"
    return Response(
        svg(view_url(table.code)),
        mimetype="image/svg+xml",
        headers={"Cache-Control": f"{cached}, max-age=3600"},
    )
