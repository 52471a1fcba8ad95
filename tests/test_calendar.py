"""The rendez-vous as a calendar file: ``GET /api/tables/<code>/rendezvous.ics`` (RFC 5545).

The file is read the way a calendar reads it: split on CRLF, unfolded, then property by property.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from companion.web.calendar import escape_text, fold

PLAYERS = [
    {"name": "Ada", "birth_month": 3},
    {"name": 'Bruno; le "grand", l\'ami\\', "birth_month": 11},
    {"name": "Chloé", "birth_month": 12},
]


# --- reading an iCalendar file ---------------------------------------------------------------------


def physical_lines(raw: bytes) -> list[bytes]:
    """The file's lines: every one ends with CRLF, and none is over 75 octets."""
    assert raw.endswith(b"\r\n")
    lines = raw[:-2].split(b"\r\n")
    for line in lines:
        assert b"\r" not in line and b"\n" not in line, line  # no bare CR or LF anywhere
        assert len(line) <= 75, (len(line), line)
        line.decode("utf-8")  # folding never cuts a UTF-8 character in two
    return lines


def unfold(lines: list[bytes]) -> list[str]:
    logical: list[bytes] = []
    for line in lines:
        if line.startswith((b" ", b"\t")):
            assert logical, "a continuation line cannot come first"
            logical[-1] += line[1:]
        else:
            logical.append(line)
    return [line.decode("utf-8") for line in logical]


def unescape(value: str) -> str:
    out, i = [], 0
    while i < len(value):
        char = value[i]
        if char == "\\":
            following = value[i + 1]
            assert following in "\\;,nN", f"bad escape \\{following}"
            out.append("\n" if following in "nN" else following)
            i += 2
            continue
        # A TEXT value never holds these unescaped.
        assert char not in ";,", f"unescaped {char!r} in {value!r}"
        out.append(char)
        i += 1
    return "".join(out)


def parse(raw: bytes) -> tuple[list[str], dict[str, str]]:
    """The content lines in order, and the VEVENT's properties by name (values still escaped)."""
    lines = unfold(physical_lines(raw))
    assert lines[0] == "BEGIN:VCALENDAR" and lines[-1] == "END:VCALENDAR"
    begin, end = lines.index("BEGIN:VEVENT"), lines.index("END:VEVENT")
    event: dict[str, str] = {}
    for line in lines[begin + 1 : end]:
        name, _, value = line.partition(":")
        assert re.fullmatch(r"[A-Z-]+", name), line  # no parameters are used
        assert name not in event, f"{name} twice"
        event[name] = value
    return lines, event


# --- helpers ---------------------------------------------------------------------------------------


@pytest.fixture
def table(make_table):
    return make_table("existentiel", PLAYERS)


def ics(client, code):
    return client.get(f"/api/tables/{code}/rendezvous.ics")


def everyone_accepts(table):
    """Ada 3+5=8, Bruno 11+6=17, Chloé 12+1=13, all accepted: the adventures are under way."""
    for player, die in (("p1", 5), ("p2", 6), ("p3", 1)):
        table.event("roll", player=player, die=die)
        table.event("accept", player=player)
    assert table.get()["state"]["phase"] == "underway"


# --- the file --------------------------------------------------------------------------------------


def test_rendezvous_as_a_calendar_event(client, table):
    everyone_accepts(table)
    table.event("set_title", adventure=8, title="Dormir dehors, une nuit; seul\\e")
    table.event("schedule", at="2031-03-07T19:30", place="Café de la Gare, Lyon; salle du fond")

    response = ics(client, table.code)

    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/calendar; charset=utf-8"
    assert response.headers["Content-Disposition"] == f'attachment; filename="rendez-vous-{table.code}.ics"'
    lines, event = parse(response.data)

    calendar = [line for line in lines if not line.startswith(("BEGIN:VEVENT", "END:VEVENT"))]
    assert "VERSION:2.0" in calendar
    assert "CALSCALE:GREGORIAN" in calendar
    assert any(line.startswith("PRODID:") and len(line) > len("PRODID:") for line in calendar)
    assert lines.count("BEGIN:VEVENT") == 1

    for required in ("UID", "DTSTAMP", "DTSTART", "DTEND", "SUMMARY", "LOCATION", "DESCRIPTION"):
        assert required in event, required
    assert event["UID"] == f"rendezvous-{table.code}-20310307T1930@arbitre"
    # The table's local time, floating: no Z, no TZID.
    assert event["DTSTART"] == "20310307T193000"
    assert event["DTEND"] == "20310307T213000"
    # DTSTAMP is UTC, and is when the table last changed (now, give or take the test).
    stamp = datetime.strptime(event["DTSTAMP"], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    assert abs((datetime.now(UTC) - stamp).total_seconds()) < 300
    assert unescape(event["SUMMARY"]) == "Rendez-vous — Le jeu existentiel"
    assert event["LOCATION"] == "Café de la Gare\\, Lyon\\; salle du fond"
    assert unescape(event["LOCATION"]) == "Café de la Gare, Lyon; salle du fond"

    description = unescape(event["DESCRIPTION"])
    assert "- Ada\u00a0: n° 8 — Dormir dehors, une nuit; seul\\e" in description.split("\n")
    assert '- Bruno; le "grand", l\'ami\\\u00a0: n° 17 — Aventure 17' in description.split("\n")
    assert "- Chloé\u00a0: n° 13 — Aventure 13" in description.split("\n")
    assert f"/t/{table.code}" in description
    # The long, accented description was folded, and unfolding gave it back whole.
    assert len(event["DESCRIPTION"].encode("utf-8")) > 75


def test_same_rendezvous_same_file_and_moving_it_changes_the_uid(client, table):
    table.event("schedule", at="2031-03-07T19:30")
    first, again = ics(client, table.code), ics(client, table.code)
    assert first.data == again.data  # DTSTAMP is the table's last change, not the download's

    _, event = parse(first.data)
    assert "LOCATION" not in event  # no place given: no empty LOCATION
    # Before the rolls, the description says so rather than inventing adventures.
    assert "- Ada\u00a0: pas encore d'aventure" in unescape(event["DESCRIPTION"]).split("\n")

    table.event("schedule", at="2031-03-14T09:05", place="Chez Ada")
    _, moved = parse(ics(client, table.code).data)
    assert moved["UID"] == f"rendezvous-{table.code}-20310314T0905@arbitre"
    assert moved["UID"] != event["UID"]
    assert (moved["DTSTART"], moved["DTEND"]) == ("20310314T090500", "20310314T110500")
    assert unescape(moved["LOCATION"]) == "Chez Ada"


def test_a_rendezvous_late_in_the_evening_ends_the_next_day(client, table):
    table.event("schedule", at="2031-12-31T23:00")
    _, event = parse(ics(client, table.code).data)
    assert (event["DTSTART"], event["DTEND"]) == ("20311231T230000", "20320101T010000")


def test_description_names_who_is_out(client, table):
    table.event("roll", player="p1", die=5)  # Ada offered 8
    table.event("roll", player="p3", die=5)  # Chloé 12+5 = 17
    table.event("accept", player="p3")
    for _ in range(4):  # Bruno refuses until eliminated: three jokers, then the game
        table.event("roll", player="p2", die=1)
        table.event("refuse", player="p2")
    table.event("schedule", at="2031-03-07T19:30")
    description = unescape(parse(ics(client, table.code).data)[1]["DESCRIPTION"]).split("\n")
    assert "- Ada\u00a0: aventure proposée, pas encore acceptée (n° 8 — Aventure 8)" in description
    assert '- Bruno; le "grand", l\'ami\\\u00a0: éliminé·e' in description
    assert "- Chloé\u00a0: n° 17 — Aventure 17" in description


def test_the_code_may_be_typed_loosely(client, table):
    table.event("schedule", at="2031-03-07T19:30")
    loose = f"{table.code[:4]}-{table.code[4:]}".lower()
    response = ics(client, loose)
    assert response.status_code == 200
    assert f'filename="rendez-vous-{table.code}.ics"' in response.headers["Content-Disposition"]


# --- refusals --------------------------------------------------------------------------------------


def test_unknown_table(client):
    response = ics(client, "ZZZZZZ")
    assert response.status_code == 404
    error = response.get_json()["error"]
    assert error["code"] == "unknown_table"
    assert error["params"] == {"code": "ZZZZZZ"}


def test_no_rendezvous_yet(client, table):
    response = ics(client, table.code)
    assert response.status_code == 404
    error = response.get_json()["error"]
    assert error["code"] == "existentiel.no_rendezvous"
    assert "rendez-vous" in error["messages"]["fr"] and "rendez-vous" in error["messages"]["en"]
    assert error["message"] == error["messages"]["fr"]


def test_not_an_existentiel_table(client, make_table):
    morto = make_table("morto")
    response = ics(client, morto.code)
    assert response.status_code == 404
    error = response.get_json()["error"]
    assert error["code"] == "existentiel.no_calendar"
    assert error["params"]["game"] == "morto"
    english = client.get(f"/api/tables/{morto.code}/rendezvous.ics", headers={"Accept-Language": "en"})
    assert english.get_json()["error"]["message"] == error["messages"]["en"]


def test_undoing_the_schedule_takes_the_file_away(client, table):
    table.event("schedule", at="2031-03-07T19:30")
    assert table.undo().status_code == 200
    assert ics(client, table.code).status_code == 404


# --- the text rules, alone -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("a,b", "a\\,b"),
        ("a;b", "a\\;b"),
        ("a\\b", "a\\\\b"),
        ("a\nb", "a\\nb"),
        ("a\r\nb", "a\\nb"),
        ("\\,", "\\\\\\,"),
        ("é: ok", "é: ok"),  # a colon needs no escape in a value
    ],
)
def test_escape_text(raw, escaped):
    assert escape_text(raw) == escaped
    assert unescape(escaped) == raw.replace("\r\n", "\n")


@pytest.mark.parametrize("text", ["x" * 200, "é" * 100, "DESCRIPTION:" + "aé€😀" * 40, "short"])
def test_fold_keeps_every_line_within_75_octets(text):
    folded = fold(text)
    lines = folded.encode("utf-8").split(b"\r\n")
    assert all(len(line) <= 75 for line in lines)
    assert all(line.startswith(b" ") for line in lines[1:])
    first, *continued = (line.decode("utf-8") for line in lines)
    assert first + "".join(line[1:] for line in continued) == text
    if len(text.encode("utf-8")) <= 75:
        assert folded == text
