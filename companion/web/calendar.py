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
- **Whatever is stored.** The engine accepts only a rendez-vous it can write here (ASCII
  ``YYYY-MM-DDTHH:MM``, years 2000–2100), but a table saved before that check may hold anything: a
  date this file cannot be made from (``9999-12-31T23:59`` ends after year 9999) answers
  404 ``existentiel.no_rendezvous`` as if none were set, and text that UTF-8 cannot encode is replaced,
  never a 500.
- **The game's words.** What the description says of each player is Le jeu existentiel's own
  sentences (``existentiel.calendar.*`` codes in the engine's catalogue), worded through
  `engine.messages` as the story is, in the request's language; the adventure's label is the one
  the table view shows (``ui.existentiel.adventure``).
- **DTSTAMP** (UTC, required) is when the table last changed. With no ``METHOD`` in the file, RFC 5545
  §3.8.7.2 makes it the time the event's information was last revised, and everything in the event
  (the time, the place, each player's adventure) comes from the table: downloading the same table
  twice gives the same file, byte for byte.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from flask import Blueprint, Response

from companion.web.access import table_or_404
from companion.web.errors import Refused
from companion.web.i18n import current, t
from companion.web.pages import view_url
from engine.core import RuleError
from engine.existentiel import rendezvous_moment
from engine.messages import text

bp = Blueprint("calendar", __name__)

PRODID = "-//Arbitre//Le jeu existentiel//FR"
SUMMARY = "Rendez-vous — Le jeu existentiel"
DURATION = timedelta(hours=2)
LINE_OCTETS = 75
CRLF = "\r\n"

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
    return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _adventure(state: dict, number: int) -> str:
    return t("ui.existentiel.adventure", n=number, title=state["titles"][number - 1])


def _player_line(state: dict, player: dict) -> tuple[str, dict]:
    """Where a player stands, as the code of its sentence and the params it quotes."""
    name = {"name": player["name"]}  # isolated by `text` when it could turn its line around
    if player["status"] == "eliminated":
        return "existentiel.calendar.eliminated", name
    if player["status"] == "left":
        return "existentiel.calendar.left", {**name, "adventure": _adventure(state, player["current"] or 29)}
    if player["current"] is not None:
        return "existentiel.calendar.current", {**name, "adventure": _adventure(state, player["current"])}
    if player["offered"] is not None:
        return "existentiel.calendar.offered", {**name, "adventure": _adventure(state, player["offered"])}
    return "existentiel.calendar.none", name


def description(state: dict, view_url: str) -> str:
    """Who is at which adventure, in the game's words (`engine.messages`) and the request's language."""
    lang = current()
    lines = [text("existentiel.calendar.intro", {}, lang)]
    lines += [f"- {text(*_player_line(state, p), lang)}" for p in state["players"]]
    lines += ["", text("existentiel.calendar.table", {"url": view_url}, lang)]
    return "\n".join(lines)


def start_of(rendezvous) -> datetime | None:
    """When a stored rendez-vous starts, or None if it is no date a calendar file can hold (a table
    saved before the engine checked it); the engine's own check, so both agree."""
    if not isinstance(rendezvous, dict):
        return None
    try:
        return rendezvous_moment(rendezvous.get("at"))
    except RuleError:
        return None


def ics(table, view_url: str, start: datetime) -> str:
    state = table.state
    rendezvous = state["rendezvous"]
    end = start + DURATION
    lines = [
        "BEGIN:VCALENDAR",
        f"PRODID:{PRODID}",
        "VERSION:2.0",
        "CALSCALE:GREGORIAN",
        "BEGIN:VEVENT",
        f"UID:rendezvous-{table.code}-{start:%Y%m%dT%H%M}@arbitre",
        f"DTSTAMP:{_utc(table.updated_at)}",
        f"DTSTART:{start:%Y%m%dT%H%M%S}",
        f"DTEND:{end:%Y%m%dT%H%M%S}",
        f"SUMMARY:{escape_text(SUMMARY)}",
    ]
    if rendezvous.get("place") and isinstance(rendezvous["place"], str):
        lines.append(f"LOCATION:{escape_text(rendezvous['place'])}")
    lines += [
        f"DESCRIPTION:{escape_text(description(state, view_url))}",
        f"URL:{view_url}",
        "STATUS:CONFIRMED",
        "TRANSP:OPAQUE",
        "END:VEVENT",
        "END:VCALENDAR",
    ]
    return "".join(fold(encodable(line)) + CRLF for line in lines)


def encodable(line: str) -> str:
    """``line`` with whatever UTF-8 cannot encode (a lone surrogate stored before the API refused
    them) replaced by ``?``: the file is made whatever the table holds."""
    return line.encode("utf-8", "replace").decode("utf-8")


@bp.get("/api/tables/<code>/rendezvous.ics")
def rendezvous_ics(code: str):
    table = table_or_404(code)
    if table.game != "existentiel":
        raise Refused(404, "existentiel.no_calendar", code=table.code, game=table.game)
    start = start_of(table.state.get("rendezvous"))
    if start is None:
        raise Refused(404, "existentiel.no_rendezvous", code=table.code)
    body = ics(table, view_url(table.code), start)
    return Response(
        body.encode("utf-8"),
        content_type="text/calendar; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="rendez-vous-{table.code}.ics"',
            "Cache-Control": "no-cache",
        },
    )
