"""The engine's JSON edge for the browser: one call in, one JSON answer out (in a Web Worker, via Pyodide).

The referee's phone projects its outbox (taps not yet acknowledged: events and undos, in order) on
the server's log (the events in effect, as last acknowledged: the "base") and learns, for every
waiting tap, whether it still holds — exactly what the server will answer when it arrives, since it
is the same engine — and whether it still means what it meant when it was tapped (`core.replay_tap`:
a rebase never changes a tap's meaning without asking).

The base lives here, in the worker, with the state after it: the page sends it once (``base_set``,
when the worker starts or the page has nothing better), then only how it moved (``base_move``: the
first ``keep`` events stay, ``events`` follow), and a tap sends only the waiting ops (``project``). A
base is the end of the log: the events from ``start`` on (with their client ids), after the state
``checkpoint`` the server kept of the first ``start`` events (`/log?tail=`), or the whole log from the
setup. So a tap costs the same at event 100,000 as at event 10: the state after the base is updated as
the base moves, and every ``CHECKPOINT_EVERY`` events a copy of the state is kept, so that going back
(an undo waiting in the outbox, a base that lost its last events) replays at most that many events
instead of the whole log. The last projected state is kept so that checks (Il Morto's swap helper,
GJDLV's "qui a raison ?") can run on it offline.
"""

from __future__ import annotations

import json
import pickle

from engine import core
from engine.core import IllegalEvent, MeaningChanged, RuleError
from engine.messages import refusal, worded

# Replay bound against memory: a state kept every 256 events (Il Morto at 12 players: 0.5 KB
# pickled) costs 2 bytes per event of the log, less than the events themselves (~60 bytes each).
CHECKPOINT_EVERY = 256
# An undo that reaches before the base's first event: the page words it (a phone holds the end of
# the log only, at least 100 events; it can take back that many offline).
TOO_FAR = "ui.sync.undo_too_far"

_last: dict = {}  # {"game": id, "state": internal state} of the latest projection


def _freeze(state: dict) -> bytes:
    # A pickle round trip copies a JSON state as copy.deepcopy would, a few times faster (in C).
    return pickle.dumps(state, pickle.HIGHEST_PROTOCOL)


class Base:
    """The end of the log as the server last acknowledged it (its events from ``start`` on, their
    client ids), the state after it, and states along the way.

    Lengths and positions count the log from its first event, ``start`` included: ``len(base)`` is
    the number of events in effect. ``checkpoints[i]`` is the state after the first ``start + i *
    CHECKPOINT_EVERY`` events, frozen; there is always one per full stretch held, and one at ``start``.
    """

    def __init__(self, code, game_id, players, options, version, start=0, checkpoint=None):
        self.code, self.game_id, self.players, self.options = code, game_id, players, options
        self.module = core.game(game_id)
        self.version = version
        self.start = start
        self.events: list = []
        self.ids: list = []  # the client id of each event held (None where the page did not know it)
        self.state = checkpoint if start else core.setup(game_id, players, options, known_fields=False)
        self.checkpoints = [_freeze(self.state)]
        self._frozen: bytes | None = None  # self.state frozen, until the base moves
        self._earlier: tuple[int, bytes] | None = None  # the last state rebuilt before the end

    def __len__(self) -> int:
        return self.start + len(self.events)

    def extend(self, events: list, ids: list | None = None) -> None:
        module, state, every = self.module, self.state, CHECKPOINT_EVERY
        self._frozen = None
        for index, event in enumerate(events):
            # As `core.replay` reads a log the server accepted: fields unchecked, the same state.
            core.replayed(module, state, event)
            self.events.append(event)
            self.ids.append(ids[index] if ids and index < len(ids) else None)
            if len(self.events) % every == 0:
                self.checkpoints.append(_freeze(state))

    def truncate(self, keep: int) -> None:
        if keep == len(self):
            return
        if self._earlier and self._earlier[0] > keep:
            self._earlier = None
        self.state = self._rebuilt(keep)
        del self.checkpoints[(keep - self.start) // CHECKPOINT_EVERY + 1 :]
        del self.events[keep - self.start :]
        del self.ids[keep - self.start :]
        self._frozen = None

    def state_at(self, length: int, extra: list = ()) -> dict:
        """A fresh copy of the state after the first ``length`` events of the log (``start`` at
        least), then ``extra``."""
        if length == len(self):
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
        held = length - self.start
        start = held // CHECKPOINT_EVERY * CHECKPOINT_EVERY
        state = pickle.loads(self.checkpoints[start // CHECKPOINT_EVERY])
        for event in self.events[start:held]:
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
    """The log of table ``code`` at ``version``, with its setup: its events in effect from ``start``
    (0 when absent: the whole log) with their ``ids``, after ``checkpoint``, the state of the first
    ``start`` events."""
    global _base
    _base = None
    base = Base(
        request.get("code"),
        request["game"],
        request["players"],
        request["options"],
        request.get("version"),
        request.get("start") or 0,
        request.get("checkpoint"),
    )
    base.extend(list(request["events"]), request.get("ids"))
    _base = base
    return {"version": base.version, "length": len(base)}


def base_move(request: dict) -> dict:
    """The log moved from version ``since`` to ``version``: its first ``keep`` events stay, then
    ``events`` (with their ``ids``). ``{"stale": true}`` if this worker's base is not at ``since`` or
    does not hold event ``keep`` (a move reaching before its ``start``): send it whole."""
    global _base
    base = _base
    if _stale(request, "since") or not base.start <= request["keep"] <= len(base):
        return {"stale": True}
    _base = None  # until the move is complete: a failure leaves no half-moved base behind
    base.truncate(request["keep"])
    base.extend(request.get("events", []), request.get("ids"))
    base.version = request["version"]
    _base = base
    return {"version": base.version, "length": len(base)}


def project(request: dict) -> dict:
    """The base then ``pending`` ops ``{"kind": "event"|"undo", "event"?, "id"?, "meant"?}``, in order.

    Returns the projected view, and per pending op ``{"ok": True}``, ``{"ok": False, "error"}`` (a
    rule refuses it) or ``{"ok": False, "changed": True}`` (it would mean something else than
    ``meant``, its meaning when it was tapped: never applied without asking). An op without ``meant``
    (just tapped) gets its ``meaning`` (an undo's: ``{"undo": the client id of the event it takes
    back}``) and ``said``, what it does in words, to be kept with it. A pending op that fails changes
    nothing, like a refused tap on the server. With ``events`` (and ``game``, ``players``, ``options``)
    the request carries its own base, taken as by `base_set`; otherwise ``{"stale": true}`` if this
    worker's base is not the page's (``code``, ``version``).
    """
    if "events" in request:
        base_set(request)
    elif _stale(request, "version"):
        return {"stale": True}
    base = _base
    length = len(base)  # events of the base still in effect
    extra: list = []  # waiting events in effect, after them
    extra_ids: list = []
    state, owned = base.state, False  # the base's own state is copied only if something changes it
    results = []
    for op in request.get("pending", []):
        meant = op.get("meant")
        try:
            if op.get("kind") == "undo":
                target = (
                    extra_ids[-1]
                    if extra
                    else base.ids[length - base.start - 1]
                    if length > base.start
                    else None
                )
                if meant is not None and meant != {"undo": target}:
                    raise MeaningChanged(meant, {"undo": target})
                if extra:
                    taken = extra.pop()
                    extra_ids.pop()
                elif length > base.start:
                    length -= 1
                    taken = base.events[length - base.start]
                else:
                    raise IllegalEvent(TOO_FAR if length else "nothing_to_undo")
                state, owned = base.state_at(length, extra), True
                result = {"ok": True}
                if meant is None:  # the state before the event it takes back: word that event
                    result.update(meaning={"undo": target}, said=_said(base.module, state, taken))
            else:
                if not owned:
                    state, owned = base.state_at(length), True
                result = {"ok": True}
                if meant is None:
                    result.update(
                        meaning=core.meaning(base.game_id, state, op["event"]),
                        said=_said(base.module, state, op["event"]),
                    )
                try:
                    core.replay_tap(base.module, state, op["event"], meant)
                except RuleError:
                    # Handlers check before they mutate; rebuilding anyway costs little and makes
                    # "a refused tap changes nothing" hold whatever a handler does.
                    state = base.state_at(length, extra)
                    raise
                extra.append(op["event"])
                extra_ids.append(op.get("id"))
            results.append(result)
        except RuleError as error:
            results.append({"ok": False, "error": _error(error)})
        except MeaningChanged:
            results.append({"ok": False, "changed": True})
    _last.update(game=base.game_id, state=state)
    return {"state": core.view(base.game_id, state), "pending": results, "active": length + len(extra)}


def _said(module, state: dict, event: dict) -> dict | None:
    """What ``event`` does against ``state``, in words (the game's ``describe``), or None."""
    try:
        code, params = module.describe(state, event)
    except Exception:  # noqa: BLE001 - an event the rules refuse (applying it says why), or a bug in describe
        return None
    return {"code": code, "params": params}


def said(request: dict) -> dict:
    """What changed in the log under the waiting taps, in words: per change ``{"at", "undone",
    "added"}`` (the events taken back from position ``at`` on, then those applied there instead, in
    order), ``{"undone": [said], "added": [said]}``, each event worded against the state before it
    (`engine.core.describe`'s words). The state at ``at`` is the base's: the base must still hold its
    first ``at`` events as they were then; a change it cannot word (``at`` outside the base) is null."""
    base = _base
    words = []
    for change in request.get("changes", []):
        at = change.get("at")
        if base is None or not isinstance(at, int) or not base.start <= at <= len(base):
            words.append(None)
            continue
        words.append({side: _story(base, at, change.get(side, [])) for side in ("undone", "added")})
    return {"changes": words}


def _story(base: Base, at: int, events: list) -> list:
    state, told = base.state_at(at), []
    for event in events:
        words = _said(base.module, state, event)
        try:
            core.apply_in_place(base.module, state, event, known_fields=False)
        except RuleError:
            break  # not the log it was: this event and those after it cannot be worded
        told.append(words)
    return told + [None] * (len(events) - len(told))


def check(request: dict) -> dict:
    """A game's pure check on the last projected state, shaped like the API's answer."""
    try:
        answer = core.check(_last["game"], _last["state"], request.get("name"), request.get("params"))
    except RuleError as error:
        return {"error": _error(error)}
    return {"answer": worded(answer)}


def player_moves(request: dict) -> dict:
    """The events a player records themselves at a table of this game and options, each with the
    field naming the acting player (`engine.core.player_moves`): a player's phone keeps, of
    ``state.actions``, those whose declared field is its own player, as the server's guard does."""
    try:
        return {"moves": core.player_moves(request.get("game"), request.get("options"))}
    except RuleError as error:
        return {"error": _error(error)}


def warm(_request: dict) -> dict:
    """Imports every game and reads its sentences up front, so the first tap pays neither."""
    from engine.messages import catalogue

    games = sorted(core.GAME_MODULES)
    for game in games:
        core.game(game)
    return {"games": games, "messages": len(catalogue())}


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
    "said": said,
    "check": check,
    "player_moves": player_moves,
    "qr": qr,
    "snapshot_qr": snapshot_qr,
    "warm": warm,
}


def handle(request_json: str) -> str:
    """Entry point for the worker: a JSON request ``{"op", ...}`` in, a JSON answer out."""
    request = json.loads(request_json)
    return json.dumps(OPS[request["op"]](request), ensure_ascii=False)
