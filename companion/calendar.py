"""Calendar export of a table's next rendez-vous (Le jeu existentiel): one RFC 5545 VEVENT.

``GET /api/tables/<code>/rendezvous.ics`` answers ``text/calendar`` as a download, so every player
can add the next meeting to their own calendar from the table view.

Choices the rules leave open:

- **Floating local time.** The referee types the meeting's date and time with the phone's
  ``datetime-local`` input, and the table has no time zone of its own (the app never asks for one).
  The rendez-vous is a meeting at one place, so its time is the wall-clock time there: ``DTSTART``
  is a *floating* time (``YYYYMMDDTHHMMSS``, no ``Z``, no ``TZID``), which every calendar shows at that
  hour in its own zone. A UTC time would shift the meeting for a phone set to another zone.
- **Two hours.** The rules give the rendez-vous no length; ``DTEND`` is ``DTSTART`` + 2 h, the time
  for everyone to tell their adventure and be validated.
- **UID** is ``rendezvous-<code>-<YYYYMMDDTHHMM>@arbitre``: the same rendez-vous of the same table
  always has the same UID, so downloading it again updates the event instead of duplicating it; a
  rendez-vous moved to another time is a new event.
- **DTSTAMP** (UTC, required) is when the rendez-vous was scheduled (the latest ``schedule`` event in
  effect), not the time of the download: the same rendez-vous gives the same file.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from flask import Blueprint, Response, jsonify, url_for

from companion import store
from companion.errors import json_error, lang
from engine.messages import catalogue

bp = Blueprint("calendar", __name__)

PRODID = "-//Arbitre//Le jeu existentiel//FR"
SUMMARY = "Rendez-vous — Le jeu existentiel"
DURATION = timedelta(hours=2)
LINE_OCTETS = 75
CRLF = "\r\n"

# Sentences for the two refusals of this route. Codes belong in the message catalogue
# (engine/messages.py or engine/existentiel.py); until they are there, these are used.
FALLBACK_MESSAGES = {
    "existentiel.no_rendezvous": (
        "Aucun rendez-vous n'est fixé pour cette table : le maître du jeu le fixe depuis l'arbitrage.",
        "No rendez-vous is set for this table: the game master sets it from the referee page.",
    ),
    "existentiel.no_calendar": (
        "Seul le jeu existentiel a des rendez-vous à ajouter à un agenda (cette table : {game}).",
        "Only Le jeu existentiel has rendez-vous to add to a calendar (this table: {game}).",
    ),
}


def _refused(status: int, code: str, /, **params):
    """A JSON error in the API's shape, with this module's sentences while the catalogue lacks them."""
    if code in catalogue():
        return json_error(status, code, **params)
    french, english = (sentence.format(**params) for sentence in FALLBACK_MESSAGES[code])
    message = english if lang() == "en" else french
    body = {"error": {"code": code, "message": message, "messages": {"fr": french, "en": english}, "params": params}}
    return jsonify(body), status


# --- RFC 5545 text ---------------------------------------------------------------------------------


def escape_text(value: str) -> str:
    """A TEXT value (RFC 5545 §3.3.11): backslash, semicolon, comma and newlines escaped."""
    value = value.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
    return value.replace("\r\n", "\\n").replace("\r", "\\n").replace("\n", "\\n")


def fold(line: str) -> str:
    """One content line folded at 75 octets (RFC 5545 §3.1), never inside a UTF-8 character."""
    parts, current, size, limit = [], [], 0, LINE_OCTETS
    for char in line:
        width = len(char.encode("utf-8"))
        if size + width > limit:
            parts.append("".join(current))
            current, size, limit = [], 0, LINE_OCTETS - 1  # a continuation starts with one space
        current.append(char)
        size += width
    parts.append("".join(current))
    return (CRLF + " ").join(parts)


def _utc(moment: datetime) -> str:
    if moment.tzinfo is None:  # SQLite gives back naive datetimes; they were stored in UTC
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def _adventure(state: dict, number: int) -> str:
    return f"n° {number} — {state['titles'][number - 1]}"


def _player_line(state: dict, player: dict) -> str:
    name = player["name"]
    if player["status"] == "eliminated":
        return f"{name} : éliminé·e"
    if player["status"] == "left":
        return f"{name} : a quitté le jeu ({_adventure(state, player['current'] or 29)})"
    if player["current"] is not None:
        return f"{name} : {_adventure(state, player['current'])}"
    if player["offered"] is not None:
        return f"{name} : aventure proposée, pas encore acceptée ({_adventure(state, player['offered'])})"
    return f"{name} : pas encore d'aventure"


def description(state: dict, view_url: str) -> str:
    lines = ["Chacun·e raconte son aventure existentielle au maître du jeu :"]
    lines += [f"- {_player_line(state, p)}" for p in state["players"]]
    lines += ["", f"La table : {view_url}"]
    return "\n".join(lines)


def _scheduled_at(table) -> datetime:
    """When the rendez-vous in effect was scheduled: the latest active ``schedule`` event."""
    for event in reversed(store.active_events(table)):
        if event.type == "schedule":
            return event.created_at
    return table.updated_at


def ics(table, view_url: str) -> str:
    state = table.state
    rendezvous = state["rendezvous"]
    start = datetime.strptime(rendezvous["at"], "%Y-%m-%dT%H:%M")
    end = start + DURATION
    lines = [
        "BEGIN:VCALENDAR",
        f"PRODID:{PRODID}",
        "VERSION:2.0",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        "BEGIN:VEVENT",
        f"UID:rendezvous-{table.code}-{start:%Y%m%dT%H%M}@arbitre",
        f"DTSTAMP:{_utc(_scheduled_at(table))}",
        f"DTSTART:{start:%Y%m%dT%H%M%S}",
        f"DTEND:{end:%Y%m%dT%H%M%S}",
        f"SUMMARY:{escape_text(SUMMARY)}",
    ]
    if rendezvous.get("place"):
        lines.append(f"LOCATION:{escape_text(rendezvous['place'])}")
    lines += [
        f"DESCRIPTION:{escape_text(description(state, view_url))}",
        f"URL:{view_url}",
        "STATUS:CONFIRMED",
        "TRANSP:OPAQUE",
        "END:VEVENT",
        "END:VCALENDAR",
    ]
    return "".join(fold(line) + CRLF for line in lines)


@bp.get("/api/tables/<code>/rendezvous.ics")
def rendezvous_ics(code: str):
    table = store.find_table(code)
    if table is None:
        return json_error(404, "unknown_table", code=code[:20])
    if table.game != "existentiel":
        return _refused(404, "existentiel.no_calendar", code=table.code, game=table.game)
    if not table.state.get("rendezvous"):
        return _refused(404, "existentiel.no_rendezvous", code=table.code)
    view_url = url_for("pages.table_view", code=table.code, _external=True)
    body = ics(table, view_url)
    return Response(
        body.encode("utf-8"),
        content_type="text/calendar; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="rendez-vous-{table.code}.ics"',
            "Cache-Control": "no-cache",
        },
    )
