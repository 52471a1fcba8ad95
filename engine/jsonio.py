"""The engine's JSON edge for the browser: one call in, one JSON answer out (used in a Web Worker via Pyodide).

The referee's phone holds the server's log (the events in effect, as last acknowledged) and its
outbox (taps not yet acknowledged: events and undos, in order). `project` replays both and says,
for every waiting tap, whether it still holds — exactly what the server will answer when it
arrives, since it is the same engine. The last projected state is kept so that checks (Il Morto's
swap helper, GJDLV's "qui a raison ?") can run on it offline.
"""

from __future__ import annotations

import base64
import copy
import json
import zlib

from engine import core
from engine.core import RuleError
from engine.messages import worded

_last: dict = {}  # {"game": id, "state": internal state} of the latest projection


def _error(error: RuleError) -> dict:
    return error.as_dict("fr")


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
    module = core.game(_last["game"])
    checks = getattr(module, "CHECKS", {})
    name = request["name"]
    if name not in checks:
        return {"error": {"code": "unknown_check", "params": {"check": name}}}
    try:
        return {"answer": worded(checks[name](_last["state"], request.get("params") or {}))}
    except RuleError as error:
        return {"error": _error(error)}


def snapshot_fragment(view: dict) -> str:
    """A table view packed for a URL fragment: compact JSON, deflated, base64url without padding."""
    raw = json.dumps(view, separators=(",", ":"), ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def snapshot_view(fragment: str) -> dict:
    """The inverse of `snapshot_fragment`."""
    padded = fragment + "=" * (-len(fragment) % 4)
    return json.loads(zlib.decompress(base64.urlsafe_b64decode(padded)))


def qr(request: dict) -> dict:
    """A QR code (SVG) of ``text``, drawn on the phone: for URLs the server must never see or may not reach."""
    import qrcode  # bundled for the browser with the engine; imported late: only QR codes need it
    import qrcode.image.svg

    code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_L, border=2,
                         image_factory=qrcode.image.svg.SvgPathFillImage)
    code.add_data(request["text"])
    try:
        code.make(fit=True)
    except qrcode.exceptions.DataOverflowError:
        return {"svg": None, "error": {"code": "qr_too_large", "params": {"length": len(request["text"])}}}
    return {"svg": code.make_image().to_string(encoding="unicode")}


def snapshot_qr(request: dict) -> dict:
    """The snapshot URL for ``view`` and its QR code, made on the phone with no server."""
    url = request["base"] + "#" + snapshot_fragment(request["view"])
    return {"url": url, **qr({"text": url})}


def warm(_request: dict) -> dict:
    """Imports every game and its messages up front, so the first tap pays no import."""
    from engine.messages import catalogue

    return {"games": sorted(core.GAME_MODULES), "messages": len(catalogue())}


OPS = {"project": project, "check": check, "qr": qr, "snapshot_qr": snapshot_qr, "warm": warm}


def handle(request_json: str) -> str:
    """Entry point for the worker: a JSON request ``{"op", ...}`` in, a JSON answer out."""
    request = json.loads(request_json)
    return json.dumps(OPS[request["op"]](request), ensure_ascii=False)
