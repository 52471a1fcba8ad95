"""The engine's JSON edge for the browser: one call in, one JSON answer out (in a Web Worker, via Pyodide).

The referee's phone holds the server's log (the events in effect, as last acknowledged) and its
outbox (taps not yet acknowledged: events and undos, in order). `project` replays both and says,
for every waiting tap, whether it still holds — exactly what the server will answer when it
arrives, since it is the same engine. The last projected state is kept so that checks (Il Morto's
swap helper, GJDLV's "qui a raison ?") can run on it offline.
"""

from __future__ import annotations

import copy
import json

from engine import core
from engine.core import RuleError
from engine.messages import refusal, worded

_last: dict = {}  # {"game": id, "state": internal state} of the latest projection


def _error(error: RuleError) -> dict:
    return refusal(error.code, error.params)


def project(request: dict) -> dict:
    """Replay ``events`` (acknowledged) then ``pending`` ops ``{"kind": "event"|"undo", "event"?}``.

    Returns the projected view, and per pending op ``{"ok": True}`` or ``{"ok": False, "error"}``.
    A pending op that fails changes nothing, like a refused tap on the server.
    """
    game_id = request["game"]
    module = core.game(game_id)
    active = list(request["events"])
    state = core.replay(game_id, request["players"], request["options"], active)
    results = []
    for op in request.get("pending", []):
        try:
            if op.get("kind") == "undo":
                state = core.undo(game_id, request["players"], request["options"], active)
                active.pop()
            else:
                candidate = copy.deepcopy(state)
                core.apply_in_place(module, candidate, op["event"])
                state = candidate
                active.append(op["event"])
            results.append({"ok": True})
        except RuleError as error:
            results.append({"ok": False, "error": _error(error)})
    _last.update(game=game_id, state=state)
    return {"state": core.view(game_id, state), "pending": results, "active": len(active)}


def check(request: dict) -> dict:
    """A game's pure check on the last projected state, shaped like the API's answer."""
    try:
        answer = core.check(_last["game"], _last["state"], request.get("name"), request.get("params"))
    except RuleError as error:
        return {"error": _error(error)}
    return {"answer": worded(answer)}


def warm(_request: dict) -> dict:
    """Imports every game and its messages up front, so the first tap pays no import."""
    from engine.messages import catalogue

    return {"games": sorted(core.GAME_MODULES), "messages": len(catalogue())}


def qr(request: dict) -> dict:
    """A QR code: the qrcode package is imported on the first one asked, not at the worker's start."""
    from worker.qr import qr as draw

    return draw(request)


def snapshot_qr(request: dict) -> dict:
    from worker.qr import snapshot_qr as draw

    return draw(request)


OPS = {"project": project, "check": check, "qr": qr, "snapshot_qr": snapshot_qr, "warm": warm}


def handle(request_json: str) -> str:
    """Entry point for the worker: a JSON request ``{"op", ...}`` in, a JSON answer out."""
    request = json.loads(request_json)
    return json.dumps(OPS[request["op"]](request), ensure_ascii=False)
