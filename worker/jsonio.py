"""The engine's JSON edge for the browser: one call in, one JSON answer out (in a Web Worker, via Pyodide).

The referee's phone projects its outbox (taps not yet acknowledged: events and undos, in order) on
the server's log (the events in effect, as last acknowledged: the "base") and learns, for every
waiting tap, whether it still holds — exactly what the server will answer when it arrives, since it
is the same engine.

The base lives here, in the worker, with the state after it: the page sends the whole log once
(``base_set``, when the worker starts or the page has nothing better), then only how it moved
(``base_move``: the first ``keep`` events stay, ``events`` follow), and a tap sends only the waiting
ops (``project``). So a tap costs the same at event 100,000 as at event 10: the state after the base
is updated as the base moves, and every ``CHECKPOINT_EVERY`` events a copy of the state is kept, so
that going back (an undo waiting in the outbox, a base that lost its last events) replays at most
that many events instead of the whole log. The last projected state is kept so that checks (Il
Morto's swap helper, GJDLV's "qui a raison ?") can run on it offline.
"""

from __future__ import annotations

import json
import pickle

from engine import core
from engine.core import IllegalEvent, RuleError
from engine.messages import refusal, worded

# Replay bound against memory: a state kept every 256 events (Il Morto at 12 players: 0.5 KB
# pickled) costs 2 bytes per event of the log, less than the events themselves (~60 bytes each).
CHECKPOINT_EVERY = 256

_last: dict = {}  # {"game": id, "state": internal state} of the latest projection


def _freeze(state: dict) -> bytes:
    # A pickle round trip copies a JSON state as copy.deepcopy would, a few times faster (in C).
    return pickle.dumps(state, pickle.HIGHEST_PROTOCOL)


class Base:
    """The log as the server last acknowledged it, the state after it, and states along the way.

    ``checkpoints[i]`` is the state after the first ``i * CHECKPOINT_EVERY`` events, frozen; there is
    always one per full stretch of the log, and one for the setup.
    """

    def __init__(self, code, game_id, players, options, version):
        self.code, self.game_id, self.players, self.options = code, game_id, players, options
        self.module = core.game(game_id)
        self.version = version
        self.events: list = []
        self.state = core.setup(game_id, players, options, known_fields=False)  # as the server stored it
        self.checkpoints = [_freeze(self.state)]
        self._frozen: bytes | None = None  # self.state frozen, until the base moves
        self._earlier: tuple[int, bytes] | None = None  # the last state rebuilt before the end

    def extend(self, events: list) -> None:
        module, state, every = self.module, self.state, CHECKPOINT_EVERY
        self._frozen = None
        for event in events:
            # As `core.replay` reads a log the server accepted: fields unchecked, the same state.
            core.replayed(module, state, event)
            self.events.append(event)
            if len(self.events) % every == 0:
                self.checkpoints.append(_freeze(state))

    def truncate(self, keep: int) -> None:
        if keep == len(self.events):
            return
        if self._earlier and self._earlier[0] > keep:
            self._earlier = None
        self.state = self._rebuilt(keep)
        del self.checkpoints[keep // CHECKPOINT_EVERY + 1 :]
        del self.events[keep:]
        self._frozen = None

    def state_at(self, length: int, extra: list = ()) -> dict:
        """A fresh copy of the state after the first ``length`` events of the base, then ``extra``."""
        if length == len(self.events):
            self._frozen = self._frozen or _freeze(self.state)
            state = pickle.loads(self._frozen)
        else:
            state = self._rebuilt(length)
        for event in extra:
            core.apply_in_place(self.module, state, event, known_fields=False)
        return state

    def _rebuilt(self, length: int) -> dict:
        """The state after the first ``length`` events (fewer than all): from the checkpoint before."""
        if self._earlier and self._earlier[0] == length:
            return pickle.loads(self._earlier[1])
        start = length // CHECKPOINT_EVERY * CHECKPOINT_EVERY
        state = pickle.loads(self.checkpoints[start // CHECKPOINT_EVERY])
        for event in self.events[start:length]:
            core.replayed(self.module, state, event)
        # Kept for the next projection: the outbox is projected again at every tap, undo and all.
        self._earlier = (length, _freeze(state))
        return state


_base: Base | None = None


def _error(error: RuleError) -> dict:
    return refusal(error.code, error.params)


def _stale(request: dict, version_key: str) -> bool:
    """Whether this worker's base is not the one the page means (a new worker, a missed move)."""
    return (
        _base is None
        or request.get("code", _base.code) != _base.code
        or request.get(version_key, _base.version) != _base.version
    )


def base_set(request: dict) -> dict:
    """The whole log ``events`` (in effect) of table ``code`` at ``version``, with its setup."""
    global _base
    _base = None
    base = Base(
        request.get("code"), request["game"], request["players"], request["options"], request.get("version")
    )
    base.extend(list(request["events"]))
    _base = base
    return {"version": base.version, "length": len(base.events)}


def base_move(request: dict) -> dict:
    """The log moved from version ``since`` to ``version``: its first ``keep`` events stay, then
    ``events``. ``{"stale": true}`` if this worker's base is not at ``since``: send it whole."""
    global _base
    base = _base
    if _stale(request, "since") or not 0 <= request["keep"] <= len(base.events):
        return {"stale": True}
    _base = None  # until the move is complete: a failure leaves no half-moved base behind
    base.truncate(request["keep"])
    base.extend(request.get("events", []))
    base.version = request["version"]
    _base = base
    return {"version": base.version, "length": len(base.events)}


def project(request: dict) -> dict:
    """The base then ``pending`` ops ``{"kind": "event"|"undo", "event"?}``, in order.

    Returns the projected view, and per pending op ``{"ok": True}`` or ``{"ok": False, "error"}``.
    A pending op that fails changes nothing, like a refused tap on the server. With ``events`` (and
    ``game``, ``players``, ``options``) the request carries its own base, taken as by `base_set`;
    otherwise ``{"stale": true}`` if this worker's base is not the page's (``code``, ``version``).
    """
    if "events" in request:
        base_set(request)
    elif _stale(request, "version"):
        return {"stale": True}
    base = _base
    length = len(base.events)  # events of the base still in effect
    extra: list = []  # waiting events in effect, after them
    state, owned = base.state, False  # the base's own state is copied only if something changes it
    results = []
    for op in request.get("pending", []):
        try:
            if op.get("kind") == "undo":
                if extra:
                    extra.pop()
                elif length:
                    length -= 1
                else:
                    raise IllegalEvent("nothing_to_undo")
                state, owned = base.state_at(length, extra), True
            else:
                if not owned:
                    state, owned = base.state_at(length), True
                try:
                    core.apply_in_place(base.module, state, op["event"])
                except RuleError:
                    # Handlers check before they mutate; rebuilding anyway costs little and makes
                    # "a refused tap changes nothing" hold whatever a handler does.
                    state = base.state_at(length, extra)
                    raise
                extra.append(op["event"])
            results.append({"ok": True})
        except RuleError as error:
            results.append({"ok": False, "error": _error(error)})
    _last.update(game=base.game_id, state=state)
    return {"state": core.view(base.game_id, state), "pending": results, "active": length + len(extra)}


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


OPS = {
    "base_set": base_set,
    "base_move": base_move,
    "project": project,
    "check": check,
    "qr": qr,
    "snapshot_qr": snapshot_qr,
    "warm": warm,
}


def handle(request_json: str) -> str:
    """Entry point for the worker: a JSON request ``{"op", ...}`` in, a JSON answer out."""
    request = json.loads(request_json)
    return json.dumps(OPS[request["op"]](request), ensure_ascii=False)
