"""Live updates: a server-sent event stream per table that pushes the new state after every write.

Within one process a write wakes the streams at once (a condition variable). Writes made by
another server process (several workers on PostgreSQL) are seen by a cheap version poll, so the
stream needs no broker and works the same on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import threading
import time

from flask import Blueprint, Response, current_app, request

bp = Blueprint("live", __name__)

KEEPALIVE_SECONDS = 5.0

_changed = threading.Condition()
_versions: dict[int, int] = {}  # table id -> count of notifications, to tell a wake-up from a timeout


def notify(table_id: int) -> None:
    with _changed:
        _versions[table_id] = _versions.get(table_id, 0) + 1
        _changed.notify_all()


def _wait(table_id: int, seen: int, timeout: float) -> int:
    with _changed:
        _changed.wait_for(lambda: _versions.get(table_id, 0) != seen, timeout)
        return _versions.get(table_id, 0)


@bp.get("/api/tables/<code>/stream")
def stream(code: str):
    from companion import errors, store

    table = store.find_table(code)
    if table is None:
        return errors.json_error(404, "unknown_table", code=code[:20])
    table_id = table.id
    app = current_app._get_current_object()
    poll = app.config["LIVE_POLL_SECONDS"]
    lifetime = app.config["LIVE_STREAM_SECONDS"]
    try:
        last_sent = int(request.headers.get("Last-Event-ID", ""))
    except ValueError:
        last_sent = -1

    def read() -> dict:
        with app.app_context():
            fresh = store.find_table(code)
            result = store.answer(fresh)
            store.db.session.remove()
            return result

    def events():
        nonlocal last_sent
        # Ask EventSource to come back quickly when the stream ends or the network drops.
        yield "retry: 1000\n\n"
        ends = time.monotonic() + lifetime
        seen = _versions.get(table_id, 0)
        quiet_since = time.monotonic()
        while time.monotonic() < ends:
            current = read()
            if current["version"] != last_sent:
                last_sent = current["version"]
                quiet_since = time.monotonic()
                yield f"id: {last_sent}\nevent: state\ndata: {json.dumps(current, separators=(',', ':'))}\n\n"
            elif time.monotonic() - quiet_since > KEEPALIVE_SECONDS:
                quiet_since = time.monotonic()
                yield ": still here\n\n"  # keeps proxies from closing an idle stream, and finds gone clients
            seen = _wait(table_id, seen, poll)

    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return Response(events(), mimetype="text/event-stream", headers=headers)
