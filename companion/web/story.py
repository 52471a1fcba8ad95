"""The story of a table once told: every event in words (the history's ``said``), the scores over
time, the results page, and a table's export (JSON, CSV) and import (a new table from an export).

The words and the numbers come from the engine (`engine.core.story`, `engine.core.timeline`), each
from one replay of the log. An import checks every event through the engine before anything is
written: one refused event refuses the whole import, with the engine's code and the event's index.
"""

from __future__ import annotations

import copy
import csv
import io
import secrets
import unicodedata
from datetime import UTC, datetime

from flask import Blueprint, abort, redirect, render_template, url_for
from sqlalchemy.exc import IntegrityError

from companion.storage import store
from companion.storage.errors import Refusal
from companion.storage.models import Event, Table, db
from companion.web import i18n
from companion.web.errors import Refused
from companion.web.pages import GAME_NAMES
from engine import core
from engine.messages import text

bp = Blueprint("story", __name__)

EXPORT_FORMAT = "arbitre.table"
EXPORT_VERSION = 1
# What a spreadsheet would run as a formula if a cell began with it (CSV injection). Names are the
# CSV's free text (alone in the header, at the start of some labels): a cell gets a leading apostrophe
# when it starts with a tab or a carriage return, or when its first visible character is one of these
# or a form of one (fullwidth ＝, small ﹦: NFKC gives the plain sign), however many spaces or
# invisible characters come before it (a name stored before they were refused may hold them).
FORMULA_STARTS = ("=", "+", "-", "@")
# How a spreadsheet of the language opens a CSV at a double click: a French one (Excel, LibreOffice
# with French settings) splits on ";", the comma being its decimal mark, and reads UTF-8 only after a
# byte order mark (else "Étape" becomes "Ã‰tape"); an English one splits on "," and needs no mark.
CSV_DIALECTS = {"fr": (";", "\ufeff"), "en": (",", "")}


# --- reading a table's story ----------------------------------------------------------------------


def history(table: Table, before: int | None = None, limit: int | None = None) -> tuple[list[dict], bool]:
    """The events ever accepted, undone ones included, oldest first, each with ``said``: what it did,
    in words, against the state before it when it was applied; and whether older ones are left. With
    ``limit``, only the latest ``limit`` before ``seq`` ``before`` (a page: the newest first)."""
    rows, more = store.history(table, before, limit)
    said = [e.said for e in rows]
    if None in said:  # events written before their words were kept: word the whole log once
        everything = store.history(table)[0]
        told = core.story(
            table.game,
            table.players,
            table.options,
            [
                {"event": e.payload, "version": e.version, "undone_version": e.undone_version}
                for e in everything
            ],
        )
        by_seq = {e.seq: words for e, words in zip(everything, told, strict=True)}
        said = [by_seq[e.seq] for e in rows]
    entries = [
        {
            "seq": e.seq,
            "id": e.client_id,
            "event": e.payload,
            "version": e.version,
            "at": e.created_at.isoformat(),
            "undone": e.undone,
            "undone_version": e.undone_version,
            "undone_at": e.undone_at.isoformat() if e.undone_at else None,
            "said": words,
            "by": e.recorded_by or store.BY_REFEREE,
            "undone_by": (e.undone_by or store.BY_REFEREE) if e.undone else None,
        }
        for e, words in zip(rows, said, strict=True)
    ]
    return entries, more


def whole_history(table: Table) -> list[dict]:
    """Every entry of the history, oldest first, read a page of ``store.SLICE`` at a time (seqs run
    from 1 without a gap): a long log never holds the process for its whole length at once."""
    pages = range(0, table.log_length, store.SLICE)
    return [
        entry
        for start in store.cooperative(pages, 1)
        # The last page may be short: asking it for a whole slice would read the page before it again.
        for entry in history(table, start + store.SLICE + 1, min(store.SLICE, table.log_length - start))[0]
    ]


def _payloads(table: Table):
    """The payloads of the events in effect, replayed a slice at a time between others' requests."""
    return store.cooperative(e.payload for e in store.active_events(table))


def timeline(table: Table) -> dict:
    """Each player's number (lives, adventures completed, total points) after each step of the game."""
    return core.timeline(table.game, table.players, table.options, _payloads(table))


def told(table: Table) -> list[dict]:
    """The events in effect, in words, in order (`engine.core.describe`, its replay a slice at a time)."""
    entries = ({"event": payload} for payload in _payloads(table))
    return core.story(table.game, table.players, table.options, entries)


# --- export ---------------------------------------------------------------------------------------


def export(table: Table) -> dict:
    """The table as a file: its setup and the events in effect with their client ids, enough to
    replay it anywhere, and its final state's summary; never the referee secret."""
    view = core.view(table.game, table.state)
    return {
        "format": EXPORT_FORMAT,
        "format_version": EXPORT_VERSION,
        "exported_at": now(),
        "code": table.code,
        "game": table.game,
        "players": table.players,
        "options": table.options,
        "events": [{"id": e.client_id, "event": e.payload} for e in store.active_events(table)],
        "version": table.version,
        "summary": {
            "over": view["over"],
            "winners": view["winners"],
            "outcome": view["outcome"],
            "summary": view["summary"],
            "scores": core.game(table.game).score(table.state),
        },
    }


def now() -> str:
    """An export's ``exported_at``: this moment, in UTC, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def _cell(value: str) -> str:
    shown = value.lstrip()
    while shown and core.hidden_character(shown[0]):
        shown = shown[1:].lstrip()
    opener = unicodedata.normalize("NFKC", shown[:1])
    return "'" + value if value.startswith(("\t", "\r")) or opener.startswith(FORMULA_STARTS) else value


def export_csv(table: Table, lang: str) -> str:
    """The chart's numbers as a spreadsheet: a header row (the step, then each player), one row per
    point of the timeline, labels in ``lang``, written as a spreadsheet of that language opens it
    (`CSV_DIALECTS`)."""
    series = timeline(table)
    delimiter, mark = CSV_DIALECTS.get(lang, CSV_DIALECTS["fr"])
    out = io.StringIO()
    out.write(mark)
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\r\n")
    writer.writerow(
        [_cell(i18n.catalogue(lang)["ui.results.csv_step"]), *(_cell(p["name"]) for p in series["players"])]
    )
    for point in series["points"]:
        label = text(point["label"]["code"], point["label"]["params"], lang)
        writer.writerow([_cell(label), *(point["scores"].get(p["id"], "") for p in series["players"])])
    return out.getvalue()


# --- import ---------------------------------------------------------------------------------------


def _import_events(game: str, players, options, entries) -> tuple[dict, list[tuple]]:
    """The state after replaying ``entries`` through the engine, every event checked as a referee's
    tap is, and each event's row (client id, event, words, checkpoint) as `store` writes it; a
    refusal names the event's ``index`` (0-based) besides the rule's code and params."""
    if not isinstance(entries, list):
        raise Refused(422, "bad_field", field="events")
    module = core.game(game)
    state = core.setup(game, players, options)
    events: list[tuple] = []
    ids: set[str] = set()
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("event"), dict):
            raise Refused(422, "bad_field", field=f"events.{index}", index=index)
        client_id = entry.get("id")
        if client_id is None:
            client_id = f"import-{index + 1}"
        if not (
            isinstance(client_id, str)
            and 1 <= len(client_id) <= store.CLIENT_ID_MAX
            and client_id.isprintable()
            and client_id not in ids
        ):
            raise Refused(422, "bad_field", field=f"events.{index}.id", index=index)
        ids.add(client_id)
        event = {key: value for key, value in entry["event"].items() if key not in ("id", "version")}
        said = store.said(module, state, event)
        try:
            core.apply_in_place(module, state, event)
        except core.RuleError as error:
            raise type(error)(error.code, **{**error.params, "index": index}) from None
        checkpoint = copy.deepcopy(state) if (index + 1) % store.CHECKPOINT_EVERY == 0 else None
        events.append((client_id, event, said, checkpoint))
    return state, events


def import_table(data: dict) -> tuple[Table, str]:
    """A new table, with a new code and secret, from an export: its setup, then its events replayed
    through the engine. Nothing is written unless every event is accepted."""
    if data.get("format") != EXPORT_FORMAT:
        raise Refused(422, "bad_field", field="format")
    if data.get("format_version") != EXPORT_VERSION:
        raise Refused(422, "bad_field", field="format_version")
    game = data.get("game")
    core.game(game)
    players, options = data.get("players"), data.get("options") or {}
    state, events = _import_events(game, players, options, data.get("events"))
    secret = secrets.token_urlsafe(16)
    for _ in range(store.WRITE_ATTEMPTS):
        table = Table(
            code=store.new_code(),
            game=game,
            players=players,
            options=options,
            secret_hash=store.hash_secret(secret),
            version=len(events),
            state=state,
            log_length=len(events),
            in_effect=len(events),
        )
        db.session.add(table)
        try:
            db.session.flush()
            db.session.add_all(
                Event(
                    table_id=table.id,
                    seq=seq,
                    client_id=client_id,
                    type=event["type"],
                    payload=event,
                    version=seq,
                    said=said,
                    checkpoint=checkpoint,
                )
                for seq, (client_id, event, said, checkpoint) in enumerate(events, start=1)
            )
            db.session.commit()
            return table, secret
        except IntegrityError:  # the code was taken: draw another
            db.session.rollback()
    raise Refusal("busy")


# --- pages ----------------------------------------------------------------------------------------


@bp.get("/t/<code>/results")
def results(code: str):
    """A finished game's results: the winners, the chart, the story; printable and shareable (the
    link, and a picture of the final scores the page draws); and its rematch, once there is one."""
    table = store.find_table(code)
    if table is None:
        abort(404)
    if table.code != code:
        return redirect(url_for("story.results", code=table.code))
    view = core.view(table.game, table.state)
    return render_template(
        "results.html",
        table=table,
        game_name=GAME_NAMES[table.game],
        view=view,
        display_code=store.display_code(table.code),
        rematch_code=store.display_code(table.rematch) if table.rematch else None,
        story=told(table) if view["over"] else [],
        chart=timeline(table) if view["over"] else None,
    )


@bp.get("/import")
def import_page():
    """A page to pick an exported file and make a new table of it."""
    return render_template("import.html")
