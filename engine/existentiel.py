"""Le jeu existentiel: landing on adventures, jokers, the rendez-vous and its validations (RULES.md §1).

This module owns the game's state, its events, what the table shows and when the game ends.

State (plain JSON)::

    {"titles": [29 strings], "rendezvous": None | {"at": "YYYY-MM-DDTHH:MM", "place": str | None},
     "phase": "assigning" | "underway" | "over", "cycle": 1,
     "players": [{"id", "name", "birth_month", "score", "offered", "current", "jokers",
                  "completed", "refused", "status", "title", "must_accept", "reason"}]}

``completed`` and ``refused`` are kept as sorted lists (the rules' sets). ``must_accept`` says the
offered adventure is one the player refused before: they must accept it or lose a joker.
``reason`` is the code of why a player is out of the game.

Decisions where RULES.md is silent:

- ``winners`` are the players who earned the title Maître Existentiel (Petit Chelem), named once
  the game is over (like every game's ``winners``); with no such player nobody wins
  (``existentiel.no_maitre``). The title itself shows on the player as soon as it is earned.
  The Grand Chelem is never awarded, and the view's notes say so at the end.
- A player who accepts adventure 29 leaves with ``current`` = 29: it is the adventure they live,
  and it is never validated. Their ``reason`` is ``existentiel.left_29``.
- The phase is stored, not derived: *under way* lasts while any playing player still has a
  ``current`` adventure, so the first validation does not reopen the rolls. ``cycle`` counts the
  assigning phases (1-based).
- The rendez-vous stays as scheduled until it is moved; its date is never compared with the
  clock (replay must not depend on when it runs).
- An adventure refused and later accepted and completed stays in ``refused`` too: it is history,
  and the landing rule never offers a completed adventure again.
- The table option ``titles`` and every other option are checked strictly: an unknown option is
  refused (``bad_option``) rather than silently ignored.
- A table holds at most ``MAX_PLAYERS`` players, at setup and through ``add_player``
  (``existentiel.table_full``); ``actions`` stops offering ``add_player`` once it is full.
- A rendez-vous is an ASCII ``YYYY-MM-DDTHH:MM`` (``:SS`` accepted and dropped: a meeting is set to
  the minute) in the years ``RENDEZVOUS_YEARS``; it is stored as ``YYYY-MM-DDTHH:MM``.
"""

from __future__ import annotations

import re
from datetime import datetime

from engine.core import (
    NAME_MAX,
    IllegalEvent,
    InvalidEvent,
    Note,
    Outcome,
    RuleError,
    allowed,
    boolean,
    check_new_name,
    find_player,
    integer,
    isolate,
    player_id,
    player_names,
    short,
)
from engine.specs import Field, Option, read_options, specs

ID = "existentiel"

ADVENTURES = 29
DEATH = 29  # the adventure only lived at death: accepting it means leaving the game
JOKERS = 3
DIE_FACES = (1, 2, 3, 4, 5, 6)
TITLE_MAX = 80
PLACE_MAX = 120
# The game is played for real, over weeks, by people who meet at each rendez-vous and tell their
# adventure to one game master: 30 is already a very large group (RULES.md sets no number). The
# bound keeps every table's state, its view and the game master's screen a sensible size.
MAX_PLAYERS = 30
MIN_PLAYERS = 1  # "seul ou à plusieurs"
USUAL_PLAYERS = 6  # "le nombre idéal ne dépasse pas six ou sept": a new-table form starts with six rows
MONTHS = 12  # a player's birth month: 1 to 12
MAITRE = "maitre"
RENDEZVOUS_FORMAT = "%Y-%m-%dT%H:%M"
# A rendez-vous is a real meeting of the players: nobody sets one before this app existed or after
# this century. The bound also keeps every date computed from it valid (the calendar file's end,
# two hours later, overflowed on 9999-12-31T23:59).
RENDEZVOUS_YEARS = (2000, 2100)
# ASCII digits only: ``\d`` (and ``strptime``) would take any script's digits (``٢٠٢٧``).
_RENDEZVOUS_SHAPE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2})?", re.ASCII)

ASSIGNING, UNDERWAY, OVER = "assigning", "underway", "over"
PLAYING, ELIMINATED, LEFT = "playing", "eliminated", "left"
JOKER, ELIMINATION = "joker", "elimination"  # what a refusal or a failure costs


# --- setup -----------------------------------------------------------------------------------------


def _birth_month(entry, name: str) -> int:
    value = entry.get("birth_month") if isinstance(entry, dict) else None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MONTHS:
        raise InvalidEvent("existentiel.bad_birth_month", name=name, value=short(value))
    return value


def _new_player(index: int, name: str, birth_month: int) -> dict:
    return {
        "id": player_id(index),
        "name": name,
        "birth_month": birth_month,
        "score": None,
        "offered": None,
        "current": None,
        "jokers": JOKERS,
        "completed": [],
        "refused": [],
        "status": PLAYING,
        "title": None,
        "must_accept": False,
        "reason": None,
    }


def _title(raw, adventure: int) -> str:
    title = raw.strip() if isinstance(raw, str) else ""
    if not 1 <= len(title) <= TITLE_MAX:
        raise InvalidEvent("existentiel.bad_title", adventure=adventure, max=TITLE_MAX)
    return title


def default_title(n: int) -> str:
    """The title an adventure has until the table gives it one (a page words it in its language)."""
    return f"Aventure {n}"


def _titles(raw) -> list[str]:
    if raw is None:
        return [default_title(n) for n in range(1, ADVENTURES + 1)]
    if not isinstance(raw, list) or len(raw) != ADVENTURES:
        count = len(raw) if isinstance(raw, list) else short(raw)
        raise InvalidEvent("existentiel.bad_titles", count=count)
    return [_title(title, n) for n, title in enumerate(raw, start=1)]


# A player's entry: any other field is refused (``unknown_field``).
PLAYER_FIELDS = specs(
    Field("name", "name", doc="the player's name"),
    Field("birth_month", "int", 1, MONTHS, doc="the player's birth month: their first roll adds to it"),
)
TITLE = Field("title", "text", 1, TITLE_MAX, doc="an adventure's title")
OPTIONS = specs(
    Option(
        "titles",
        "list",
        ADVENTURES,
        ADVENTURES,
        items=TITLE,
        doc="the adventures' titles, in order (else “Aventure 1” … “Aventure 29”)",
    ),
)


def setup(players: list, options: dict) -> dict:
    if isinstance(players, list) and not players:
        raise InvalidEvent("existentiel.no_players")
    names = player_names(players, MIN_PLAYERS, MAX_PLAYERS)
    months = [_birth_month(entry, name) for entry, name in zip(players, names, strict=True)]
    if not isinstance(options, dict):
        raise InvalidEvent("bad_options")
    chosen = read_options(OPTIONS, options, len(names))
    return {
        "titles": _titles(chosen["titles"]),
        "rendezvous": None,
        "phase": ASSIGNING,
        "cycle": 1,
        "players": [
            _new_player(i, name, month) for i, (name, month) in enumerate(zip(names, months, strict=True))
        ],
    }


def rematch(players: list, options: dict, state: dict) -> tuple[list, dict]:
    """A new game with the same players, newcomers included, each with their birth month, in their
    seats; the adventures keep the titles the table gave them (at setup or during the game)."""
    again = [{"name": p["name"], "birth_month": p["birth_month"]} for p in state["players"]]
    titles = state["titles"]
    retitled = any(title != default_title(n) for n, title in enumerate(titles, start=1))
    return again, {**options, "titles": list(titles)} if retitled else {}


# --- the landing rule ------------------------------------------------------------------------------


def _base(player: dict) -> int:
    """What the next roll adds to: the birth month for the first roll, then the score."""
    return player["birth_month"] if player["score"] is None else player["score"]


def landing(player: dict, die: int) -> dict:
    """Where a roll of ``die`` takes ``player``, step by step; changes nothing."""
    base = _base(player)
    raw = base + die
    wrapped = (raw - 1) % ADVENTURES + 1
    adventure, skipped = wrapped, []
    # Adventure 29 is never completed by a player still in the game, so this always stops.
    while adventure in player["completed"]:
        skipped.append(adventure)
        adventure = adventure % ADVENTURES + 1
    return {
        "base": base,
        "base_from": "birth_month" if player["score"] is None else "score",
        "die": die,
        "raw": raw,
        "wrapped": wrapped,
        "skipped": skipped,
        "adventure": adventure,
        "must_accept": adventure in player["refused"],
    }


# --- the rules' checks: each called by its event's handler and by `actions` -----------------------


def _who(player: dict, **more) -> dict:
    return {"player": player["id"], "name": player["name"], **more}


def _check_playing(player: dict) -> None:
    if player["status"] == ELIMINATED:
        raise IllegalEvent("existentiel.player_eliminated", **_who(player))
    if player["status"] == LEFT:
        raise IllegalEvent("existentiel.player_left", **_who(player))


def _check_assigning(state: dict) -> None:
    if state["phase"] != ASSIGNING:
        raise IllegalEvent("existentiel.adventures_underway")


def check_add_player(state: dict) -> None:
    """A newcomer joins while adventures are being assigned, even weeks into the game, at a table
    that is not full (every player counts, even one out of the game: their seat and id stay)."""
    if state["phase"] != ASSIGNING:
        raise IllegalEvent("existentiel.join_while_assigning")
    if len(state["players"]) >= MAX_PLAYERS:
        raise IllegalEvent("existentiel.table_full", max=MAX_PLAYERS)


def check_roll(state: dict, player: dict) -> None:
    """A playing player with neither an offered nor a current adventure rolls, while assigning."""
    _check_playing(player)
    _check_assigning(state)
    if player["offered"] is not None:
        raise IllegalEvent("existentiel.already_offered", **_who(player, adventure=player["offered"]))
    if player["current"] is not None:
        raise IllegalEvent("existentiel.already_current", **_who(player, adventure=player["current"]))


def check_offer(state: dict, player: dict) -> None:
    """Accepting or refusing needs an offered adventure, while assigning."""
    _check_playing(player)
    _check_assigning(state)
    if player["offered"] is None:
        if player["current"] is not None:
            raise IllegalEvent("existentiel.already_current", **_who(player, adventure=player["current"]))
        raise IllegalEvent("existentiel.must_roll_first", **_who(player))


def check_validate(state: dict, player: dict) -> None:
    """The game master validates a current adventure at the rendez-vous, once everyone has one."""
    _check_playing(player)
    if state["phase"] != UNDERWAY:
        raise IllegalEvent("existentiel.validate_while_assigning")
    if player["current"] is None:
        raise IllegalEvent("existentiel.nothing_to_validate", **_who(player))


def _playing(state: dict) -> list[dict]:
    return [p for p in state["players"] if p["status"] == PLAYING]


def stakes(player: dict) -> str:
    """What a refusal or a failed adventure costs the player now: a joker, or with none left the game."""
    return JOKER if player["jokers"] > 0 else ELIMINATION


def _lose_joker(player: dict, reason: str) -> None:
    if stakes(player) == JOKER:
        player["jokers"] -= 1
    else:
        player["status"] = ELIMINATED
        player["reason"] = reason
        player["offered"] = None
        player["current"] = None
        player["must_accept"] = False


def _advance_phase(state: dict) -> None:
    """Assigning until every playing player has a current adventure, under way until none has."""
    playing = _playing(state)
    if not playing:
        state["phase"] = OVER
    elif state["phase"] == ASSIGNING and all(p["current"] is not None for p in playing):
        state["phase"] = UNDERWAY
    elif state["phase"] == UNDERWAY and all(p["current"] is None for p in playing):
        state["phase"] = ASSIGNING
        state["cycle"] += 1


# --- events ----------------------------------------------------------------------------------------


def add_player(state: dict, event: dict) -> None:
    check_add_player(state)
    name = check_new_name(event.get("name"), [p["name"] for p in state["players"]])
    birth_month = _birth_month(event, name)
    state["players"].append(_new_player(len(state["players"]), name, birth_month))


def roll(state: dict, event: dict) -> None:
    player = find_player(state, event)
    die = integer(event, "die", DIE_FACES[0], DIE_FACES[-1])
    check_roll(state, player)
    landed = landing(player, die)
    player["score"] = landed["adventure"]
    player["offered"] = landed["adventure"]
    player["must_accept"] = landed["must_accept"]


def accept(state: dict, event: dict) -> None:
    player = find_player(state, event)
    check_offer(state, player)
    adventure = player["offered"]
    player["current"] = adventure
    player["offered"] = None
    player["must_accept"] = False
    if adventure == DEATH:
        player["status"] = LEFT
        player["reason"] = "existentiel.left_29"
        if all(n in player["completed"] for n in range(1, DEATH)):
            player["title"] = MAITRE
    _advance_phase(state)


def refuse(state: dict, event: dict) -> None:
    player = find_player(state, event)
    check_offer(state, player)
    adventure = player["offered"]
    _lose_joker(player, "existentiel.eliminated_refused")
    if player["status"] == PLAYING:
        if adventure not in player["refused"]:
            player["refused"] = sorted(player["refused"] + [adventure])
        # The score stays at the refused number: the next roll adds to it (RULES §1, Decision).
        player["offered"] = None
        player["must_accept"] = False
    _advance_phase(state)


def rendezvous_moment(at) -> datetime:
    """The wall-clock time of a rendez-vous written ``YYYY-MM-DDTHH:MM[:SS]`` (ASCII digits, a real
    date, a year in ``RENDEZVOUS_YEARS``), to the minute; `InvalidEvent` ``bad_rendezvous`` else."""
    if not isinstance(at, str) or not _RENDEZVOUS_SHAPE.fullmatch(at):
        raise InvalidEvent("existentiel.bad_rendezvous", value=short(at))
    try:
        moment = datetime.strptime(at[:16], RENDEZVOUS_FORMAT)
    except ValueError:
        raise InvalidEvent("existentiel.bad_rendezvous", value=at) from None
    if not RENDEZVOUS_YEARS[0] <= moment.year <= RENDEZVOUS_YEARS[1] or not 0 <= int(at[17:] or 0) <= 59:
        raise InvalidEvent("existentiel.bad_rendezvous", value=at)
    return moment


def schedule(state: dict, event: dict) -> None:
    moment = rendezvous_moment(event.get("at"))
    place = event.get("place")
    if place is not None:
        if not isinstance(place, str) or len(place.strip()) > PLACE_MAX:
            raise InvalidEvent("existentiel.bad_place", max=PLACE_MAX)
        place = place.strip() or None
    state["rendezvous"] = {"at": moment.strftime(RENDEZVOUS_FORMAT), "place": place}


def validate(state: dict, event: dict) -> None:
    player = find_player(state, event)
    success = boolean(event, "success")
    check_validate(state, player)
    adventure = player["current"]
    if success:
        player["completed"] = sorted(player["completed"] + [adventure])
    else:
        _lose_joker(player, "existentiel.eliminated_failed")
    # The score stays at this adventure's number: the next roll starts from it.
    player["current"] = None
    _advance_phase(state)


def set_title(state: dict, event: dict) -> None:
    adventure = integer(event, "adventure", 1, ADVENTURES)
    title = _title(event.get("title"), adventure)
    state["titles"][adventure - 1] = title


EVENTS = {
    "add_player": add_player,
    "roll": roll,
    "accept": accept,
    "refuse": refuse,
    "schedule": schedule,
    "validate": validate,
    "set_title": set_title,
}
# Every field each event may carry (besides ``type``): any other is refused (``unknown_field``).
FIELDS = {
    "add_player": PLAYER_FIELDS,
    "roll": specs(
        Field("player", "player", doc="who rolls"),
        Field("die", "int", DIE_FACES[0], DIE_FACES[-1], doc="the die's face"),
    ),
    "accept": specs(Field("player", "player", doc="who accepts the adventure offered")),
    "refuse": specs(Field("player", "player", doc="who refuses it: a joker, or out without one")),
    "schedule": specs(
        Field(
            "at",
            "rendezvous",
            *RENDEZVOUS_YEARS,
            doc="the next rendez-vous, local wall-clock time `YYYY-MM-DDTHH:MM` (`:SS` dropped)",
        ),
        Field("place", "text", high=PLACE_MAX, required=False, nullable=True, doc="where"),
    ),
    "validate": specs(
        Field("player", "player", doc="whose adventure is told"),
        Field("success", "bool", doc="whether they lived it"),
    ),
    "set_title": specs(Field("adventure", "int", 1, ADVENTURES, doc="the adventure's number"), TITLE),
}

# The moves a player records themselves (RULES.md §0): their own roll and their own accept or
# refuse; the game master keeps the rest (adding players, titles, the rendez-vous, validating).
PLAYER_MOVES = {"roll": "player", "accept": "player", "refuse": "player"}


def player_moves(options: dict) -> dict[str, str]:
    return PLAYER_MOVES


# The fields holding text the table supplies: shown whole (``hidden_character``).
TEXTS = {"add_player": ("name",), "schedule": ("place",), "set_title": ("title",)}


def actions(state: dict, view: dict | None = None) -> list[dict]:
    """What the game master may record now; the die, the names and the verdicts come from the table."""
    listed: list[dict] = []
    if allowed(check_add_player, state):
        listed.append({"type": "add_player"})
    for kind, check in (
        ("roll", check_roll),
        ("accept", check_offer),
        ("refuse", check_offer),
        ("validate", check_validate),
    ):
        listed += [{"type": kind, "player": p["id"]} for p in state["players"] if allowed(check, state, p)]
    listed += [{"type": "schedule"}, {"type": "set_title"}]
    return listed


# --- the end ---------------------------------------------------------------------------------------


def outcome(state: dict) -> Outcome | None:
    if _playing(state):
        return None
    players = state["players"]
    maitres = [p for p in players if p["title"] == MAITRE]
    return Outcome(
        tuple(p["id"] for p in maitres),
        "existentiel.maitres" if maitres else "existentiel.no_maitre",
        {
            "names": ", ".join(isolate(p["name"]) for p in maitres),
            "maitres": [p["id"] for p in maitres],
            "left": [p["id"] for p in players if p["status"] == LEFT],
            "eliminated": [p["id"] for p in players if p["status"] == ELIMINATED],
        },
    )


def notes(state: dict) -> list[Note]:
    if state["phase"] == UNDERWAY and state["rendezvous"] is None:
        return [Note("existentiel.set_rendezvous")]
    if state["phase"] == OVER:
        return [Note("existentiel.grand_chelem_never")]
    return []


# --- what the table shows --------------------------------------------------------------------------


def _validated(state: dict, player: dict) -> str | None:
    """At the rendez-vous, how the adventure a player has just told went (None before it is told)."""
    if state["phase"] != UNDERWAY or player["status"] != PLAYING or player["current"] is not None:
        return None
    return "success" if player["score"] in player["completed"] else "failure"


def _player_view(state: dict, player: dict) -> dict:
    playing = player["status"] == PLAYING
    return {
        "id": player["id"],
        "name": player["name"],
        "birth_month": player["birth_month"],
        "score": player["score"],
        "offered": player["offered"],
        "current": player["current"],
        "jokers": player["jokers"],
        "completed": list(player["completed"]),
        "refused": list(player["refused"]),
        "status": player["status"],
        "title": player["title"],
        "must_accept": player["must_accept"],
        "reason": player["reason"],
        "next_base": _base(player) if playing else None,
        "stakes": stakes(player) if playing else None,
        "validated": _validated(state, player),
    }


def _waiting_for(state: dict) -> list[str]:
    """Who the table waits for: an adventure to take while assigning, to tell once under way."""
    playing = _playing(state)
    if state["phase"] == ASSIGNING:
        return [p["id"] for p in playing if p["current"] is None]
    return [p["id"] for p in playing if p["current"] is not None]


def view(state: dict) -> dict:
    waiting_for = _waiting_for(state)
    return {
        "phase": state["phase"],
        "cycle": state["cycle"],
        "rendezvous": dict(state["rendezvous"]) if state["rendezvous"] else None,
        "titles": list(state["titles"]),
        "titled": [title != default_title(n) for n, title in enumerate(state["titles"], start=1)],
        "death": DEATH,
        "petit_chelem": DEATH - 1,
        "dice": list(DIE_FACES),
        "waiting_for": waiting_for,
        "limits": {"name": NAME_MAX, "title": TITLE_MAX, "place": PLACE_MAX, "players": MAX_PLAYERS},
        "players": [_player_view(state, p) for p in state["players"]],
    }


def summary(state: dict) -> tuple[str, dict]:
    """The table in one line, for a list of tables (the game still going on)."""
    return f"existentiel.summary.{state['phase']}", {"waiting": len(_waiting_for(state))}


# --- checks for the UI (no state change) -----------------------------------------------------------


def landing_check(state: dict, params: dict) -> dict:
    """Which adventure a roll would give, with the steps; ``blocked`` says why the roll is not allowed now."""
    player = find_player(state, params)
    die = integer(params, "die", DIE_FACES[0], DIE_FACES[-1])
    landed = landing(player, die)
    try:
        check_roll(state, player)
        blocked = None
    except RuleError as error:
        blocked = {"code": error.code, "params": error.params}
    adventure = landed["adventure"]
    return {
        "ok": True,
        "blocked": blocked,
        "player": player["id"],
        **landed,
        "title": state["titles"][adventure - 1],
        "leaves_if_accepted": adventure == DEATH,
        "petit_chelem_if_accepted": adventure == DEATH
        and all(n in player["completed"] for n in range(1, DEATH)),
    }


def stakes_check(state: dict, params: dict) -> dict:
    """What a refusal or a failed validation would cost the player now: a joker, or the game."""
    player = find_player(state, params)
    cost = stakes(player)
    return {"ok": True, "player": player["id"], "jokers": player["jokers"], "refusal": cost, "failure": cost}


CHECKS = {"landing": landing_check, "stakes": stakes_check}


# --- the story of the table ------------------------------------------------------------------------

MEASURE = ("existentiel.story.measure", {})
START = ("existentiel.story.start", {})
END = ("existentiel.story.end", {})


def describe(state: dict, event: dict) -> tuple[str, dict]:
    """What ``event`` does, in words, read from the state before it (`engine.core.story`)."""
    kind = event.get("type")
    if kind == "add_player":
        return "existentiel.story.add_player", {"name": check_new_name(event.get("name"), [])}
    if kind == "schedule":
        at = rendezvous_moment(event.get("at")).strftime("%Y-%m-%d %H:%M")
        place = event.get("place").strip() if isinstance(event.get("place"), str) else ""
        if place:
            return "existentiel.story.schedule_place", {"at": at, "place": place}
        return "existentiel.story.schedule", {"at": at}
    if kind == "set_title":
        adventure = integer(event, "adventure", 1, ADVENTURES)
        title = _title(event.get("title"), adventure)
        return "existentiel.story.set_title", {"adventure": adventure, "title": title}
    player = find_player(state, event)
    who = _who(player)
    if kind == "roll":
        die = integer(event, "die", DIE_FACES[0], DIE_FACES[-1])
        return "existentiel.story.roll", {**who, "die": die, "adventure": landing(player, die)["adventure"]}
    if kind == "validate":
        adventure = player["current"]
        if boolean(event, "success"):
            code = "existentiel.story.validate"
        elif stakes(player) == JOKER:
            code = "existentiel.story.validate_failed"
        else:
            code = "existentiel.story.validate_eliminated"
        return code, {**who, "adventure": adventure}
    adventure = player["offered"]
    if kind == "accept":
        code = "existentiel.story.accept_death" if adventure == DEATH else "existentiel.story.accept"
    elif stakes(player) == JOKER:
        code = "existentiel.story.refuse"
    else:
        code = "existentiel.story.refuse_eliminated"
    return code, {**who, "adventure": adventure}


def score(state: dict) -> dict[str, int]:
    """Each player's adventures completed: the chart of the game."""
    return {p["id"]: len(p["completed"]) for p in state["players"]}


def milestone(state: dict, event: dict) -> tuple[str, dict] | None:
    """A validation at the rendez-vous: a point on the chart."""
    if event.get("type") != "validate":
        return None
    player = find_player(state, event)
    return "existentiel.story.validation", {"name": player["name"], "adventure": player["current"]}


# --- a waiting tap replayed after others (engine.core.rebase) -----------------------------------------


def meaning(state: dict, event: dict) -> dict:
    """What ``event`` means against ``state``: for a player's move (a roll, an answer, a validation),
    that player as they were (who they are, their score, offer, adventure, jokers, completed and
    refused ones) and the phase; for a newcomer, the id they get (a tap naming that id means them);
    for a rendez-vous or a title, the one it replaces. A roll another phone already made, an offer
    that changed, a validation of another cycle: the tap is not replayed without asking."""
    kind = event.get("type")
    if kind == "add_player":
        return {"phase": state["phase"], "id": player_id(len(state["players"]))}
    if kind == "schedule":
        return {"rendezvous": state["rendezvous"]}
    if kind == "set_title":
        return {"title": state["titles"][integer(event, "adventure", 1, ADVENTURES) - 1]}
    return {"phase": state["phase"], "cycle": state["cycle"], "player": find_player(state, event)}
