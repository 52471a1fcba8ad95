"""The game-agnostic heart of the engine: errors, the game interface, replay and undo, the registry.

A table is a log of events. Its state is what `replay` gives for the events still in effect,
starting from `setup(players, options)`. Every game is a module that provides, under the same names:

- ``ID``: the game's id (``"morto"``...), which names its catalogue files: the sentences of the
  errors, notes and answers it names live only there (``engine/i18n/<lang>/<id>.json``, read by
  `engine.messages`), the module names their codes,
- ``setup(players, options) -> state``: players as the API receives them (names or objects),
- ``OPTIONS``: a new table's options, each a spec (`engine.specs`: name, type, range, default),
  read by the game's ``setup`` through `engine.specs.read_options`,
- ``PLAYER_FIELDS``: the fields a player given as an object may carry (``name``, or more where
  the game reads more), each a spec; any other is refused (``unknown_field``) by `setup`, once for
  every game,
- ``EVENTS``: ``{event_type: handler(state, event)}``. A handler reads the event's fields, calls the
  game's ``check_*`` functions (one per rule, raising `IllegalEvent`) and only then mutates the
  state in place, so a refused event changes nothing,
- ``FIELDS``: ``{event_type: {field: spec}}``, every field an event of that type may carry besides
  ``type`` (and ``id`` and ``version``, which the web layer reads), each a spec (`engine.specs`).
  Any other field is refused (``unknown_field``) by `apply_in_place`, once for every game,
- ``TEXTS``: ``{event_type: (field, ...)}``, the fields holding text the table supplies (a name, a
  title, a place: every other field is a number, an id or a card, read against what the game
  knows), held by `apply_in_place` to `check_text`, once for every game,
- ``actions(state, view=None) -> [event]``: the events the rules allow now, built from the same
  ``check_*`` functions, each with the fields the rules fix (the table supplies the rest: a die, a
  card). ``view`` is the game's own view of the same state when the caller has it: a game whose
  view already lists its legal plays (a GJDLV round played through) reads them off it,
- ``view(state) -> dict``: what the table shows, every derived number included,
- ``outcome(state) -> Outcome | None``, and optionally ``notes(state) -> [Note]``,
- ``summary(state) -> (code, params)``: the running game in one line, for a list of tables,
- ``CHECKS``: ``{name: function(state, params) -> answer}``, pure questions a screen may ask,
- ``MIN_PLAYERS``, ``MAX_PLAYERS`` (the bounds ``setup`` checks) and ``USUAL_PLAYERS`` (the table
  the game's text is written for: the rows a new-table form starts with), read through `seats`,
- ``rematch(players, options, state) -> (players, options)``: the setup of the next game at a
  finished table (the same players in the same seats; what "the same options" means is the
  game's), asked through `rematch`.
- ``player_moves(options) -> {event_type: field}``: the events a player records themselves from
  their own phone at a table of these options (RULES.md §0 "Who records what"), each with the
  field naming the player who acts in it; every other event is the referee's alone. Read through
  `player_moves` and `acting_player`, by the server's guard and by the phone's own engine alike.

`view` here wraps a game's own view in the envelope every game shares: ``game``, ``over``,
``winners``, ``outcome`` and ``notes`` (message codes with their params) and ``actions``.

The text a table supplies (names, adventure titles, a rendez-vous place: every string of a new
table's players and options, an event's ``TEXTS``) shows everything it holds (`check_text`), and
`isolate` readies it to sit inside a sentence.

States and events are plain JSON values (dicts, lists, str, int, bool, None), so the same engine
runs on the server and in the browser through Pyodide, and snapshots round-trip through JSON.
The engine never draws a random value: dice and cards are entered by the referee. It knows
nothing of HTTP: how a refusal is answered is the web layer's business.
"""

from __future__ import annotations

import copy
import importlib
import logging
import pickle
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

JSON = Any
Handler = Callable[[dict, dict], None]

log = logging.getLogger(__name__)

NAME_MAX = 40
# Arrays and objects nested in a request: the deepest real one is 3 (a table's ``options.titles``, a
# reveal's ``cards``); 16 leaves room and keeps every later walk over the value (copies, storage,
# serialisation, all recursive) far from Python's recursion limit.
JSON_DEPTH_MAX = 16
# Fields of an event the games never declare: ``type`` names the handler, ``id`` and ``version`` are
# the web layer's (the client id that makes a retry harmless, the version a write expects).
ENVELOPE_FIELDS = ("id", "type", "version")


class RuleError(Exception):
    """An event or question the engine refuses: a stable ``code`` and its ``params``.

    The sentences live in the message catalogue (`engine.messages`), keyed by the code.
    """

    def __init__(self, code: str, **params: JSON):
        super().__init__(code)
        self.code = code
        self.params = params

    def __str__(self) -> str:  # shown in tracebacks and test failures
        return f"{self.code} {self.params}"


class InvalidEvent(RuleError):
    """Malformed input: unknown event or player, wrong type, a die of 7, an unknown card."""


class IllegalEvent(RuleError):
    """A well-formed event that the rules forbid in the current state."""


@dataclass(frozen=True)
class Outcome:
    """How a game ended: ``winners`` are player ids (empty when nobody wins); ``reason`` is a
    message code and ``params`` what its sentence quotes."""

    winners: tuple[str, ...]
    reason: str
    params: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Note:
    """Something the table should read now (not a refusal): a message code and its params."""

    code: str
    params: dict = field(default_factory=dict)


# --- the registry -----------------------------------------------------------------------------

GAME_MODULES = {"morto": "engine.morto", "existentiel": "engine.existentiel", "gjdlv": "engine.gjdlv"}


_LOADED: dict[str, Any] = {}  # game id -> its module, once imported: every apply asks for it


def game(game_id: JSON):
    """The module of a game, by id; `InvalidEvent` ``unknown_game`` for anything else."""
    if isinstance(game_id, str) and game_id in _LOADED:
        return _LOADED[game_id]
    if not isinstance(game_id, str) or game_id not in GAME_MODULES:
        raise InvalidEvent("unknown_game", game=short(game_id), games=sorted(GAME_MODULES))
    module = _LOADED[game_id] = importlib.import_module(GAME_MODULES[game_id])
    return module


# --- building and applying ----------------------------------------------------------------------


def setup(game_id: str, players: JSON, options: JSON, *, known_fields: bool = True) -> dict:
    """The state of a new table. Raises `InvalidEvent` on bad players or options.

    A new table's players carry only their game's ``PLAYER_FIELDS`` and its text shows all it holds
    (`check_text`). ``known_fields=False`` skips both, as `apply_in_place` does for events: a replay
    reads a table the engine already accepted, perhaps before these checks existed, and a stored
    table must stay readable.
    """
    module = game(game_id)
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise InvalidEvent("bad_options")
    if not isinstance(players, list):
        raise InvalidEvent("bad_players")
    if known_fields:
        check_entries(module, players)
        check_text(players, "players")
        check_text(options, "options")
    return module.setup(players, options)


def check_entries(module, players: list) -> None:
    """Every player given as an object carries only the game's ``PLAYER_FIELDS``; else `InvalidEvent`
    ``unknown_field`` naming the first other one, as for an event (``type``: ``players``)."""
    allowed = module.PLAYER_FIELDS
    for entry in players:
        if isinstance(entry, dict):
            for key in entry:
                if key not in allowed:
                    raise InvalidEvent(
                        "unknown_field", field=short(key), type="players", allowed=list(allowed)
                    )


def apply(game_id: str, state: dict, event: JSON) -> dict:
    """The state after ``event``; the given state is never changed, even when the event is refused.

    It applies to a copy, the same as ``copy.deepcopy`` gives for a JSON state but a few times
    faster (a pickle round trip, in C). A caller that owns its state (the server's write, freshly
    decoded from the database; a replay) uses `apply_in_place` and copies nothing: every handler
    checks before it mutates, so a refused event leaves the state as it was.
    """
    module = game(game_id)
    new_state = pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))
    apply_in_place(module, new_state, event)
    return new_state


def apply_in_place(module, state: dict, event: JSON, *, known_fields: bool = True) -> None:
    """Check and apply ``event`` to ``state``, guards in this order: an object, a known type, a game
    still running, only the fields its type declares, text that shows all it holds (`check_text`),
    then the game's own handler (which checks its fields and rules before mutating). Once the game is
    over every event is ``game_over``, whatever it carries.

    ``known_fields=False`` skips the fourth and fifth guards: `replay` reads a log the engine already
    accepted, some of it perhaps before fields and text were checked (a handler never read an
    undeclared field, and text is kept as it came, so the state is the same either way), and a
    stored table must stay replayable.
    """
    if not isinstance(event, dict):
        raise InvalidEvent("bad_event")
    kind = event.get("type")
    handler = module.EVENTS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise InvalidEvent("unknown_event", type=short(kind), events=sorted(module.EVENTS))
    if module.outcome(state) is not None:
        raise IllegalEvent("game_over")
    if known_fields:
        check_fields(module, kind, event)
        for key in module.TEXTS.get(kind, ()):
            check_text(event.get(key), key)
    handler(state, event)


def check_fields(module, kind: str, event: dict) -> None:
    """Every field of ``event`` is one its type declares in the game's ``FIELDS`` (or ``id``,
    ``type``, ``version``); else `InvalidEvent` ``unknown_field`` naming the first other one."""
    declared = module.FIELDS[kind]
    for key in event:
        if key not in declared and key not in ENVELOPE_FIELDS:
            raise InvalidEvent("unknown_field", field=short(key), type=kind, allowed=list(declared))


def replay(game_id: str, players: JSON, options: JSON, events: Iterable[dict]) -> dict:
    """The state after ``events`` (those in effect, in order) from the table's setup."""
    return replay_onto(game_id, setup(game_id, players, options, known_fields=False), events)


def replay_onto(game_id: str, state: dict, events: Iterable[dict]) -> dict:
    """``state`` (changed in place, and returned) after ``events``, already accepted, in order: the
    log's events after a checkpoint of its state."""
    module = game(game_id)
    for event in events:
        replayed(module, state, event)
    return state


def replayed(module, state: dict, event: JSON) -> bool:
    """Apply one event of a stored log to ``state``; whether it was applied.

    The log is the table's truth, and every event in it was accepted when it was written, but under
    the rules of that day: one the rules refuse now (a rule made stricter since, such as a phase 0
    that is now made at once where it used to wait) is kept as a no-op, logged, and the replay goes
    on, so that no stored table ever becomes unreadable. A refusal changes nothing (every handler
    checks before it mutates), so the state is the one before that event.
    """
    try:
        apply_in_place(module, state, event, known_fields=False)
    except RuleError as error:
        log.warning(
            "%s: a stored %s event is refused now (%s): replayed as a no-op", module.ID, _kind(event), error
        )
        return False
    return True


def _kind(event: JSON) -> str:
    """An event's type, as far as it has one, for a line that names it."""
    kind = event.get("type") if isinstance(event, dict) else None
    return short(kind) if isinstance(kind, str) else "?"


def undo(game_id: str, players: JSON, options: JSON, events: list[dict]) -> dict:
    """The state with the most recent event in effect taken back: a replay of all but the last."""
    if not events:
        raise IllegalEvent("nothing_to_undo")
    return replay(game_id, players, options, events[:-1])


def view(game_id: str, state: dict) -> dict:
    """What every client reads: the shared envelope, then the game's own view."""
    module = game(game_id)
    result = module.outcome(state)
    notes = module.notes(state) if hasattr(module, "notes") else []
    own = module.view(state)
    return {
        "game": module.ID,
        "over": result is not None,
        "winners": list(result.winners) if result else [],
        "outcome": {"reason": result.reason, "params": result.params} if result else None,
        "summary": _summary(module, state, result),
        "notes": [{"code": note.code, "params": note.params} for note in notes],
        "actions": module.actions(state, own) if result is None else [],
        **own,
    }


def _summary(module, state: dict, result: Outcome | None) -> dict:
    """The table in one line (a list of tables shows it): how it ended, else the game's own."""
    if result is not None:
        return {"code": result.reason, "params": result.params}
    code, params = module.summary(state)
    return {"code": code, "params": params}


def check(game_id: str, state: dict | None, name: JSON, params: JSON) -> dict:
    """Answer the game's question ``name`` about ``state``: the one way checks are looked up and
    their params validated (an object), for the API and the browser alike."""
    checks = game(game_id).CHECKS
    if not isinstance(name, str) or name not in checks:
        raise InvalidEvent("unknown_check", check=short(name), checks=sorted(checks))
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise InvalidEvent("bad_check_params")
    return checks[name](state, params)


def seats(game_id: str) -> dict:
    """How many players a table of the game seats: ``min`` and ``max``, as ``setup`` checks them, and
    ``usual``, the table the game's text is written for (a new-table form starts with that many rows)."""
    module = game(game_id)
    return {"min": module.MIN_PLAYERS, "max": module.MAX_PLAYERS, "usual": module.USUAL_PLAYERS}


def rematch(game_id: str, players: JSON, options: JSON, state: dict) -> tuple[list, dict]:
    """The setup ``(players, options)`` of a finished table's next game, from the table's own setup
    and its final state; `IllegalEvent` ``rematch_not_over`` while the game goes on."""
    module = game(game_id)
    if module.outcome(state) is None:
        raise IllegalEvent("rematch_not_over")
    return module.rematch(players, options or {}, state)


def player_moves(game_id: str, options: JSON) -> dict[str, str]:
    """The events a player records themselves at a table of ``game_id`` with ``options``:
    ``{event_type: the field naming the acting player}`` (the game's ``player_moves``)."""
    return dict(game(game_id).player_moves(options if isinstance(options, dict) else {}))


def acting_player(game_id: str, options: JSON, event: JSON) -> str | None:
    """The id of the player who may record ``event`` themselves, as the event names them; None when
    only the referee may record it (a type the game keeps for the referee, or no player named)."""
    if not isinstance(event, dict):
        return None
    kind = event.get("type")
    field_name = player_moves(game_id, options).get(kind) if isinstance(kind, str) else None
    acting = event.get(field_name) if field_name else None
    return acting if isinstance(acting, str) else None


def allowed(check_fn: Callable[..., None], *args) -> bool:
    """Whether a rule's check passes: how ``actions`` asks the very checks the handlers call."""
    try:
        check_fn(*args)
    except RuleError:
        return False
    return True


# --- shared checks for the games ----------------------------------------------------------------


def player_names(players: JSON, minimum: int, maximum: int | None) -> list[str]:
    """Names from the API's ``players`` (strings or ``{"name": ...}``), checked as §0 says."""
    if not isinstance(players, list):
        raise InvalidEvent("bad_players")
    if len(players) < minimum or (maximum is not None and len(players) > maximum):
        raise InvalidEvent("player_count", count=len(players), min=minimum, max=maximum)
    names: list[str] = []
    for entry in players:
        raw = entry.get("name") if isinstance(entry, dict) else entry
        names.append(check_new_name(raw, names))
    return names


def check_new_name(raw: JSON, taken: Iterable[str]) -> str:
    """A trimmed name of 1..40 characters, not already taken (ignoring case)."""
    if not isinstance(raw, str):
        raise InvalidEvent("bad_name")
    name = raw.strip()
    if not 1 <= len(name) <= NAME_MAX:
        raise InvalidEvent("name_length", name=name[:NAME_MAX], max=NAME_MAX)
    if name.casefold() in {other.casefold() for other in taken}:
        raise InvalidEvent("duplicate_name", name=name)
    return name


# --- the text a table supplies: shown whole, and isolated in a sentence ---------------------------------
#
# A name, an adventure title or a rendez-vous place is read by everyone at the table, and by the
# referee judging who is who: it must show everything it holds. Refused (`check_text`): controls
# (Cc), format characters (Cf: bidi embeddings, overrides and isolates, marks, zero-width spaces and
# joiners, the soft hyphen, tags…), line and paragraph separators, unpaired surrogates, and the
# letters Unicode makes default-ignorable or that show as a blank (Hangul fillers, the braille
# blank). Kept, where they do a visible job: a zero-width joiner between two emoji (a family, a
# rainbow flag, a skin tone's profession) or after a virama (Sinhala, Malayalam); a zero-width
# non-joiner after a virama or between two Arabic letters (Persian writes names with it); a
# variation selector after a symbol, a digit or punctuation (emoji and text presentation, keycaps)
# or after a CJK ideograph or a Mongolian letter (their glyph variants); the tags of a
# subdivision's flag after its black flag. Combining marks are letters' own (an accent typed as a
# second character): kept.

_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_BLANK_LETTERS = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")  # show as nothing
ZWNJ, ZWJ = "\u200c", "\u200d"
_FLAG_TAGS = re.compile("\U0001f3f4[\U000e0020-\U000e007e]{2,6}\U000e007f")  # e.g. 🏴 + "gbsct" + cancel
_TONES = range(0x1F3FB, 0x1F400)  # the emoji skin tone modifiers


def _selector(char: str) -> bool:
    """A variation selector (VS1–VS256) or a Mongolian free variation selector."""
    code = ord(char)
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF or code in (0x180B, 0x180C, 0x180D, 0x180F)


def _hidden(char: str) -> bool:
    """Whether ``char`` shows nothing where it stands (before its context is considered)."""
    code = ord(char)
    return (
        unicodedata.category(char) in _HIDDEN_CATEGORIES
        or char in _BLANK_LETTERS
        or _selector(char)
        or 0xE0000 <= code <= 0xE0FFF  # tags, and ignorable code points not yet assigned
        or 0xFFF0 <= code <= 0xFFF8
        or code == 0x2065
    )


def _varies(char: str) -> bool:
    """Whether a variation selector after ``char`` may change how it is drawn."""
    if unicodedata.category(char)[0] in "SNP":  # emoji and their text forms, keycaps, math variants
        return True
    name = unicodedata.name(char, "")
    return name.startswith(("CJK ", "MONGOLIAN LETTER"))


def _emoji_before(text: str, i: int) -> bool:
    """Whether the character before ``text[i]``, past its selectors and skin tone, is an emoji."""
    i -= 1
    while i >= 0 and (_selector(text[i]) or ord(text[i]) in _TONES):
        i -= 1
    return i >= 0 and unicodedata.category(text[i]) == "So"


def _arabic_letter(text: str, i: int, step: int) -> bool:
    """Whether the first letter from ``i`` going ``step`` (past combining marks) is an Arabic letter."""
    while 0 <= i < len(text) and unicodedata.category(text[i]) == "Mn":
        i += step
    return 0 <= i < len(text) and unicodedata.bidirectional(text[i]) == "AL"


def _shown(text: str, i: int) -> bool:
    """Whether the otherwise hidden ``text[i]`` does a visible job where it stands (see above)."""
    char = text[i]
    before = text[i - 1] if i else ""
    after = text[i + 1] if i + 1 < len(text) else ""
    if _selector(char):
        return bool(before) and not _hidden(before) and _varies(before)
    if char not in (ZWJ, ZWNJ):
        return False
    if before and unicodedata.combining(before) == 9:  # after a virama: a conjunct's own form
        return True
    if char == ZWJ:
        return _emoji_before(text, i) and unicodedata.category(after or " ") == "So"
    return _arabic_letter(text, i - 1, -1) and _arabic_letter(text, i + 1, 1)


def _hidden_at(text: str) -> list[int]:
    """Where ``text`` holds a character that shows nothing where it stands."""
    if text.isascii():  # the common case: only controls can hide in ASCII
        return [] if text.isprintable() else [i for i, char in enumerate(text) if not char.isprintable()]
    flags = [range(*found.span()) for found in _FLAG_TAGS.finditer(text)]
    return [
        i
        for i, char in enumerate(text)
        if _hidden(char) and not _shown(text, i) and not any(i in flag for flag in flags)
    ]


def hidden_character(text: str) -> str | None:
    """The first character of ``text`` that shows nothing where it stands, or None."""
    hidden = _hidden_at(text)
    return text[hidden[0]] if hidden else None


def check_text(value: JSON, where: str) -> None:
    """Every string in ``value`` (a new table's players or options, a new event's text), as it will
    be kept (trimmed: names, titles and places are), shows all it holds; else `InvalidEvent`
    ``hidden_character`` with ``field``, the string's place (``players.1.name``, ``title``),
    ``char``, the first such character (``U+200B``), and ``text``, the string with each one shown as
    U+FFFD (``Bo�b``): what the person typed, with what hides in it made visible."""
    stack = [(value, where)]
    while stack:
        item, place = stack.pop()
        if isinstance(item, str):
            kept = item.strip()
            hidden = _hidden_at(kept)
            if hidden:
                marked = set(hidden)
                shown = "".join("\ufffd" if i in marked else char for i, char in enumerate(kept))
                char = f"U+{ord(kept[hidden[0]]):04X}"
                raise InvalidEvent("hidden_character", field=short(place), char=char, text=short(shown))
        elif isinstance(item, dict):
            stack.extend((v, f"{place}.{k}" if place else str(k)) for k, v in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((v, f"{place}.{i}") for i, v in reversed(list(enumerate(item))))


# Bidi classes that can reorder the text around them: right-to-left letters, Arabic digits, and the
# explicit embeddings, overrides and isolates (a name stored before they were refused may hold them).
_DIRECTIONAL = frozenset({"R", "AL", "AN", "LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"})
FSI, PDI = "\u2068", "\u2069"  # FIRST STRONG ISOLATE, POP DIRECTIONAL ISOLATE
_OPENERS = frozenset("\u2066\u2067\u2068")  # LRI, RLI, FSI: each closed by a PDI


def isolate(text: str) -> str:
    """``text`` ready to sit inside a sentence or a list: between FSI and PDI when it could reorder
    the words around it, so that it keeps its own direction and the sentence its order; else as it
    is (copies, searches and screen readers get what was typed).

    Only a right-to-left letter, an Arabic digit or a bidi control can move the words around it in a
    left-to-right sentence whose other parts are isolated the same way; those inside isolates the
    text already holds (a list of names, each isolated) move nothing. A PDI that closes nothing of
    the text's own, or an isolate it never closes (a name stored before controls were refused), is
    matched by one more FSI before or PDI after, so that it cannot end the isolate early or late.
    ``static/js/i18n.js`` does the same in the browser."""
    if text.isascii():
        return text
    depth = stray = 0
    moves = False
    for char in text:
        if char in _OPENERS:
            depth += 1
        elif char == PDI:
            depth, stray = (depth - 1, stray) if depth else (0, stray + 1)
        elif depth == 0 and unicodedata.bidirectional(char) in _DIRECTIONAL:
            moves = True
    if not (moves or stray or depth):
        return text
    return FSI * (1 + stray) + text + PDI * (1 + depth)


def player_id(index: int) -> str:
    """The id of the player created in position ``index`` (0-based); ids never change."""
    return f"p{index + 1}"


def find_player(state: dict, event: dict, key: str = "player") -> dict:
    """The player an event names by id under ``key``; `InvalidEvent` ``unknown_player`` otherwise."""
    wanted = event.get(key)
    for player in state["players"]:
        if player["id"] == wanted:
            return player
    raise InvalidEvent("unknown_player", player=str(wanted)[:40], field=key)


def integer(event: dict, key: str, low: int, high: int, code: str = "bad_number") -> int:
    """An integer field within ``low..high`` (booleans are not numbers here)."""
    value = event.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidEvent(code, field=key, value=short(value), min=low, max=high)
    return value


def boolean(event: dict, key: str) -> bool:
    value = event.get(key)
    if not isinstance(value, bool):
        raise InvalidEvent("bad_boolean", field=key, value=short(value))
    return value


def json_refusal(value: JSON, depth_max: int = JSON_DEPTH_MAX) -> tuple[str, dict] | None:
    """Why a value parsed from JSON cannot be taken in, as ``(code, params)``, or None.

    ``too_deep`` (params ``max``) when arrays and objects nest more than ``depth_max`` levels (the
    top one counts as 1); ``bad_json`` for a string or key holding a lone surrogate (``"\\ud800"``
    is valid JSON syntax but no Unicode text: UTF-8 cannot encode it, so a page or a calendar file
    quoting it would fail). Walked with a stack of its own, never recursion: a value nested a
    thousand deep must not exhaust the interpreter while being measured.
    """
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return "bad_json", {}
            continue
        if isinstance(item, dict):
            children = [*item.keys(), *item.values()]
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > depth_max:
            return "too_deep", {"max": depth_max}
        stack.extend((child, depth + 1) for child in children)
    return None


_SURROGATE = re.compile(r"[\ud800-\udfff]")  # a lone surrogate: half of a UTF-16 pair


def short(value: JSON) -> JSON:
    """A value safe to echo back in an error's params: short and JSON."""
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        return value
    return str(value)[:40]


# --- the story: every event in words, and the scores over time ------------------------------------
#
# Each game module also provides ``describe(state, event) -> (code, params)``: what the event does, in
# words (codes ``<game>.story.<type>``), read from the state *before* it (names, the dead, cards);
# ``score(state) -> {player id: number}`` with ``MEASURE`` (the code naming the number: lives,
# adventures completed, points); ``milestone(state, event) -> (code, params) | None``: whether the
# event closes a step worth a point on the chart (a round, a validation), and its label; and the
# labels ``START`` and ``END`` of the chart's first and last points.


def describe(game_id: str, players: JSON, options: JSON, events: Iterable[dict]) -> list[dict]:
    """One ``{code, params}`` per event (those in effect, in order), each worded against the state
    before it, in one replay."""
    return story(game_id, players, options, [{"event": event} for event in events])


def story(game_id: str, players: JSON, options: JSON, entries: Iterable[dict]) -> list[dict]:
    """The whole log in words, undone events included, in one replay.

    ``entries`` are in the order the events were applied, each ``{"event", "version", "undone_version"}``
    (the last two optional): an event undone at version ``u`` was in effect from its own version until
    ``u``, so an entry applied after ``u`` is worded against the state without it. Undo only ever
    takes back the latest event in effect, so the undone ones nest like a stack: the state before
    each is kept (a copy for those alone) and put back once the log has moved past its undo.
    """
    module = game(game_id)
    state = setup(game_id, players, options, known_fields=False)
    kept: list[tuple[int, dict]] = []  # (undone at, state before) of undone events, innermost last
    said = []
    for entry in entries:
        version = entry.get("version")
        while kept and version is not None and kept[-1][0] < version:
            state = kept.pop()[1]
        event = entry["event"]
        if entry.get("undone_version") is not None:
            kept.append((entry["undone_version"], copy.deepcopy(state)))
        said.append(_told(module, state, event))
    return said


def _told(module, state: dict, event: JSON) -> dict:
    """The event in words against ``state``, then applied to it as a stored log's event (`replayed`).

    Never an exception: an event the rules refuse there is said to have had no effect
    (``story.skipped``), and one they accept but its game cannot word (a bug in its ``describe``,
    logged) gets a generic line naming its type (``story.unworded``): a table's story is read by its
    history, its results page and its exports, which a sentence must never take down.
    """
    try:
        code, params = module.describe(state, event)
        failure = None
    except Exception as error:  # noqa: BLE001 - any failure to word it is answered below
        failure = error
    if not replayed(module, state, event):
        return {"code": "story.skipped", "params": {"type": _kind(event)}}
    if failure is not None:
        log.error("%s: a %s event cannot be worded", module.ID, _kind(event), exc_info=failure)
        return {"code": "story.unworded", "params": {"type": _kind(event)}}
    return {"code": code, "params": params}


def timeline(game_id: str, players: JSON, options: JSON, events: Iterable[dict]) -> dict:
    """Each player's number (``MEASURE``) over the game, replaying the events in effect: a point at
    the start, after each milestone (a round, a validation), and at the end if the last event was
    not one. ``players`` are the final state's (a player who joined later has no number before)."""
    module = game(game_id)
    state = setup(game_id, players, options, known_fields=False)
    points = [_point(module.START, module.score(state))]
    last_was_milestone = True
    for event in events:
        label = _milestone(module, state, event)
        if not replayed(module, state, event):
            continue  # kept as a no-op: no step of the chart
        last_was_milestone = label is not None
        if label is not None:
            points.append(_point(label, module.score(state)))
    if module.outcome(state) is not None and not last_was_milestone:
        points.append(_point(module.END, module.score(state)))
    code, params = module.MEASURE
    return {
        "measure": {"code": code, "params": params},
        "players": [{"id": p["id"], "name": p["name"]} for p in state["players"]],
        "points": points,
    }


def _milestone(module, state: dict, event: JSON) -> tuple[str, dict] | None:
    """The game's milestone label for ``event``, or None; a label that cannot be read is logged and
    makes no point (the chart goes on without it)."""
    try:
        return module.milestone(state, event)
    except Exception:  # noqa: BLE001 - a chart must never fail on one event
        log.exception("%s: the milestone of a %s event cannot be read", module.ID, _kind(event))
        return None


def _point(label: tuple[str, dict], scores: dict) -> dict:
    code, params = label
    return {"label": {"code": code, "params": params}, "scores": scores}


# --- rebasing: a waiting tap replayed on a log that moved ----------------------------------------------
#
# Each game module also provides ``meaning(state, event) -> JSON``: the facts of ``state`` that decide
# what ``event`` does there (the round, the lives of the player it names, the phase and active player
# of a turn, the adventure a player was offered…), as a JSON value. A tap made against one state (on
# a phone, offline) and replayed on another (a co-referee wrote meanwhile) does the same thing there
# only when the two meanings are equal: then it is applied; otherwise it is never applied without
# asking the referee. The same rule runs on the server's engine and in the phone's (worker/jsonio.py).


class MeaningChanged(Exception):
    """A waiting tap the rules still allow, that would mean something else now: ``then`` and ``now``."""

    def __init__(self, then: JSON, now: JSON):
        super().__init__("meaning_changed")
        self.then, self.now = then, now


def meaning(game_id: str, state: dict, event: JSON) -> JSON:
    """What ``event`` means against ``state`` (the game's ``meaning``), a copy: what a client keeps
    with a tap it cannot send yet, so as to replay it only while it still means that. (A game's
    ``meaning`` may return parts of the state itself: it is copied here, not there.)"""
    return pickle.loads(pickle.dumps(game(game_id).meaning(state, event), pickle.HIGHEST_PROTOCOL))


def replay_tap(module, state: dict, event: JSON, meant: JSON = None) -> None:
    """Apply a waiting tap to ``state`` (in place) as a rebase must. ``meant`` is its meaning against
    the state it was made on (None: unknown, and the rules alone decide). Raises the `RuleError` of
    the rule that refuses it now, else `MeaningChanged` when it would mean something else; either
    way ``state`` is left as it was."""
    if meant is not None:
        try:
            now = module.meaning(state, event)
        except RuleError:
            now = None  # malformed against this state: applying it below says why
        if now != meant:
            # The rule that refuses it, if one does, says more than "it changed": ask on a copy.
            apply_in_place(module, pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL)), event)
            raise MeaningChanged(meant, now)
    apply_in_place(module, state, event)


def rebase(game_id: str, state: dict, pending: Iterable[dict]) -> list[dict]:
    """Waiting taps ``{"event", "meant"}``, made against earlier states, replayed in order on
    ``state`` (changed in place): each is applied when the rules allow it and it means what it meant,
    else set aside, and the next one is replayed on the state without it. One result per tap:
    ``{"ok": True}``; ``{"ok": False, "error": {"code", "params"}}``, the rule that refuses it now;
    or ``{"ok": False, "changed": {"then", "now"}}``, for the referee to keep (send it anyway, on
    the new state) or drop."""
    module = game(game_id)
    results: list[dict] = []
    for tap in pending:
        try:
            replay_tap(module, state, tap["event"], tap.get("meant"))
        except RuleError as error:
            results.append({"ok": False, "error": {"code": error.code, "params": error.params}})
        except MeaningChanged as changed:
            results.append({"ok": False, "changed": {"then": changed.then, "now": changed.now}})
        else:
            results.append({"ok": True})
    return results
