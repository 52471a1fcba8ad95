"""The API's OpenAPI 3.1 description, served at ``GET /api/openapi.json``.

A plain dict (no generator): every ``/api/`` route of `companion.web.api` (the story's among them:
the history in words, the timeline, export and import), `companion.live.streams` (the stream) and
`companion.web.calendar` (the rendez-vous file), their request bodies (a table per game, an event per
type with its fields, undo, checks), the referee's ``Bearer`` secret, every status each route
answers with the one error shape of `companion.web.errors`, and the success shapes down to the
envelope every game's ``state`` shares (and each game's own fields). What each game declares about
its input is not written here but read from its specs (`engine.specs`): a new table's players and
options and each event's fields, their types, bounds, defaults and descriptions (`spec_schema`).

``tests/test_openapi.py`` keeps it honest: it checks the events here against the engine's
``EVENTS`` and ``FIELDS``, the routes against the app's, and runs schemathesis against the app in
process, every answer checked against this document.
"""

from __future__ import annotations

from functools import cache

from flask import Blueprint, jsonify

from engine import core
from engine.specs import PLAYERS, Field

bp = Blueprint("openapi", __name__)

GAMES = tuple(core.GAME_MODULES)
PLAYER_PATTERN = "^p[1-9][0-9]*$"
JSON = "application/json"


def ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def obj(properties: dict, required: tuple | list = (), *, closed: bool = True, **more) -> dict:
    """An object schema; ``closed`` objects allow no other property."""
    schema: dict = {"type": "object", "properties": properties, **more}
    if required:
        schema["required"] = list(required)
    if closed:
        schema["additionalProperties"] = False
    return schema


def array(items: dict, **more) -> dict:
    return {"type": "array", "items": items, **more}


def nullable(schema: dict) -> dict:
    return {"anyOf": [schema, {"type": "null"}]}


def integer(low: int | None = None, high: int | None = None, **more) -> dict:
    schema: dict = {"type": "integer", **more}
    if low is not None:
        schema["minimum"] = low
    if high is not None:
        schema["maximum"] = high
    return schema


STRING = {"type": "string"}
VISIBLE = "every character visible, as a name's (422 `hidden_character`)"
MOMENT = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?$"
BOOLEAN = {"type": "boolean"}
PLAYER = ref("PlayerId")
CODE_MESSAGE = obj({"code": STRING, "params": {"type": "object"}}, ["code", "params"], closed=False)


# --- per game: a new table's players and options, each event's fields, from the game's specs ------------

TITLES = {"morto": "Il Morto", "existentiel": "Le jeu existentiel", "gjdlv": "Le Grand Jeu de la Vie"}
SHARED = {"player": "PlayerId", "card": "Card", "name": "Name"}  # types with a component of their own
RENDEZVOUS = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2})?$"
# Events that carry exactly one of these fields (the others of their type besides).
ONE_OF: dict[tuple[str, str], tuple[str, ...]] = {("morto", "reveal"): ("cards", "lowest")}


def spec_schema(spec: Field, module) -> dict:
    """The JSON schema of an option or a field as its game declares it (`engine.specs`), its
    description the spec's ``doc`` and what the type adds (a seat index, visible characters)."""
    high = module.MAX_PLAYERS if spec.high == PLAYERS else spec.high
    said = [spec.doc] if spec.doc else []
    if spec.type in SHARED:
        schema = ref(SHARED[spec.type])
    elif spec.type == "int":
        schema = integer(spec.low, high)
    elif spec.type == "bool":
        schema = dict(BOOLEAN)
    elif spec.type == "seat":
        schema = integer(0, module.MAX_PLAYERS - 1)
        said.append("a seat index, below the number of players")
    elif spec.type == "choice":
        schema = {"enum": list(spec.choices)}
    elif spec.type == "text":
        schema = {"type": "string", **bounded("Length", spec.low, high)}
        said.append(VISIBLE)
    elif spec.type == "rendezvous":
        schema = {"type": "string", "pattern": RENDEZVOUS, "examples": ["2031-03-07T19:30"]}
        said.append(f"years {spec.low}–{high}")
    elif spec.type == "list":
        schema = array(spec_schema(spec.items, module), **bounded("Items", spec.low, high))
        if spec.unique:
            schema["uniqueItems"] = True
    else:  # a map, keyed by player id
        schema = {
            "type": "object",
            "propertyNames": {"pattern": PLAYER_PATTERN},
            "additionalProperties": spec_schema(spec.items, module),
            **bounded("Properties", spec.low, high),
        }
    if spec.nullable:
        schema = nullable(schema)
    if said:
        text = "; ".join(said)
        schema["description"] = text[0].upper() + text[1:] + "."
    return schema


def bounded(what: str, low: int | None, high: int | None) -> dict:
    """``minLength``/``maxLength`` (``minItems``…) for the bounds a spec gives."""
    bounds = {f"min{what}": low, f"max{what}": high}
    return {key: value for key, value in bounds.items() if value is not None}


def properties(declared: dict[str, Field], module) -> dict:
    return {name: spec_schema(spec, module) for name, spec in declared.items()}


def required(declared: dict[str, Field]) -> list[str]:
    return [name for name, spec in declared.items() if spec.required]


def event_schema_name(game: str, kind: str) -> str:
    return f"Event_{game}_{kind}"


def event_schemas() -> dict:
    schemas = {}
    for game in GAMES:
        module = core.game(game)
        for kind, fields in module.FIELDS.items():
            either = ONE_OF.get((game, kind))
            schemas[event_schema_name(game, kind)] = obj(
                {
                    "id": ref("ClientId"),
                    "version": ref("Version"),
                    "type": {"const": kind},
                    **properties(fields, module),
                },
                ["id", "type", *required(fields)],
                title=f"{game}: {kind}",
                **({"oneOf": [{"required": [name]} for name in either]} if either else {}),
            )
    return schemas


def event_union() -> dict:
    kinds = [(game, kind) for game in GAMES for kind in core.game(game).FIELDS]
    return {
        "description": "An event of the table's game; every field not listed for its type is refused "
        "(422 `unknown_field`). `id` makes a retry harmless; `version`, when sent, must be "
        "the table's (else 409).",
        "oneOf": [ref(event_schema_name(game, kind)) for game, kind in kinds],
        "discriminator": {
            "propertyName": "type",
            "mapping": {
                kind: f"#/components/schemas/{event_schema_name(game, kind)}" for game, kind in kinds
            },
        },
    }


def new_table_schemas() -> dict:
    """``NewTable_<game>``: its players, an object each with the game's fields (a plain name where a
    name is all an entry needs), as many as the game seats, and its options."""
    schemas = {}
    for game in GAMES:
        module = core.game(game)
        fields = module.PLAYER_FIELDS
        entry = obj(properties(fields, module), required(fields))  # no other field (unknown_field)
        if required(fields) == ["name"]:
            entry = {"oneOf": [ref("Name"), entry]}
        schemas[f"NewTable_{game}"] = obj(
            {
                "game": {"const": game},
                "players": array(entry, minItems=module.MIN_PLAYERS, maxItems=module.MAX_PLAYERS),
                "options": obj(properties(module.OPTIONS, module)),
            },
            ["game", "players"],
            closed=False,
            title=TITLES[game],
        )
    return schemas


# --- states: the envelope every game shares, then each game's own fields ----------------------------------


def state_schemas() -> dict:
    player = obj({"id": PLAYER, "name": STRING}, ["id", "name"], closed=False)
    envelope = obj(
        {
            "game": {"enum": list(GAMES)},
            "over": BOOLEAN,
            "winners": array(PLAYER),
            "outcome": nullable(obj({"reason": STRING, "params": {"type": "object"}}, ["reason", "params"])),
            "summary": CODE_MESSAGE,
            "notes": array(obj({"code": STRING, "params": {"type": "object"}}, ["code", "params"])),
            "actions": array(ref("Action")),
            "players": array(player, minItems=1),
        },
        ["game", "over", "winners", "outcome", "summary", "notes", "actions", "players"],
        closed=False,
        description="What every game's state starts with; the game's own fields follow.",
    )

    def game_state(game: str, properties: dict, required: list[str], players: dict) -> dict:
        own = obj(
            {"game": {"const": game}, "players": array(players), **properties},
            ["game", *required],
            closed=False,
        )
        return {"allOf": [ref("StateEnvelope"), own]}

    morto_player = obj(
        {
            "id": PLAYER,
            "name": STRING,
            "lives": integer(0),
            "alive": BOOLEAN,
            "dealt": BOOLEAN,
            "dealer": BOOLEAN,
        },
        ["id", "name", "lives", "alive", "dealt", "dealer"],
        closed=False,
    )
    morto = game_state(
        "morto",
        {
            "round": integer(1),
            "lives": integer(1, 9),
            "ranks": array(obj({"rank": integer(1, 10), "name": STRING}, ["rank", "name"])),
            "face_up_ranks": array(integer(1, 10)),
            "dealer": PLAYER,
            "plays_first": nullable(PLAYER),
            "play_order": array(PLAYER),
        },
        ["round", "lives", "ranks", "face_up_ranks", "dealer", "plays_first", "play_order"],
        morto_player,
    )

    adventure = integer(1, 29)
    existentiel_player = obj(
        {
            "id": PLAYER,
            "name": STRING,
            "birth_month": integer(1, 12),
            "score": nullable(adventure),
            "offered": nullable(adventure),
            "current": nullable(adventure),
            "jokers": integer(0),
            "completed": array(adventure),
            "refused": array(adventure),
            "status": {"enum": ["playing", "eliminated", "left"]},
            "title": {"enum": [None, "maitre"]},
            "must_accept": BOOLEAN,
            "reason": nullable(STRING),
            "next_base": nullable(integer()),
            "stakes": {"enum": [None, "joker", "elimination"]},
            "validated": {"enum": [None, "success", "failure"]},
        },
        [
            "id",
            "name",
            "birth_month",
            "score",
            "offered",
            "current",
            "jokers",
            "completed",
            "refused",
            "status",
            "title",
            "must_accept",
            "reason",
            "next_base",
            "stakes",
            "validated",
        ],
        closed=False,
    )
    existentiel = game_state(
        "existentiel",
        {
            "phase": {"enum": ["assigning", "underway", "over"]},
            "cycle": integer(1),
            "rendezvous": nullable(obj({"at": STRING, "place": nullable(STRING)}, ["at", "place"])),
            "titles": array(STRING, minItems=29, maxItems=29),
            "death": integer(),
            "petit_chelem": integer(),
            "dice": array(integer()),
            "waiting_for": array(PLAYER),
        },
        ["phase", "cycle", "rendezvous", "titles", "death", "petit_chelem", "dice", "waiting_for"],
        existentiel_player,
    )

    line = nullable(CODE_MESSAGE)
    newborn = obj(
        {
            "gf": ref("Card"),
            "gm": ref("Card"),
            "eg": nullable(integer(0)),
            "cc": BOOLEAN,
            "royal": {"enum": [None, "K", "Q", "J"]},
            "name": nullable(STRING),
            "points": integer(),
        },
        ["gf", "gm", "eg", "cc", "royal", "name", "points"],
        closed=False,
    )
    gjdlv_player = obj(
        {
            "id": PLAYER,
            "name": STRING,
            "round_score": integer(),
            "round_scores": array(integer()),
            "running_totals": array(integer()),
            "total": integer(),
            "projected_total": integer(),
            "newborns": array(newborn),
            "abortions": integer(0),
            "formol": integer(0),
            "nursery": integer(),
            "cc": integer(0),
            "cc_value": nullable(integer()),
            "cc_malus": nullable(integer()),
            "cc_line": line,
            "formol_line": line,
            "round_line": CODE_MESSAGE,
        },
        [
            "id",
            "name",
            "round_score",
            "round_scores",
            "running_totals",
            "total",
            "projected_total",
            "newborns",
            "abortions",
            "formol",
            "nursery",
            "cc",
            "cc_value",
            "cc_malus",
            "cc_line",
            "formol_line",
            "round_line",
        ],
        closed=False,
    )
    cards = array(ref("Card"))
    embryo = obj(
        {
            "gf": ref("Card"),
            "gm": ref("Card"),
            "eg": nullable(integer(0)),
            "cc": BOOLEAN,
            "royal": {"enum": [None, "K", "Q", "J"]},
            "comes_to_term": BOOLEAN,
        },
        ["gf", "gm", "eg", "cc", "royal", "comes_to_term"],
    )
    seat = obj(
        {"player": PLAYER, "hand": integer(0), "held": BOOLEAN, "uterus": nullable(embryo), "formol": cards},
        ["player", "hand", "held", "uterus", "formol"],
    )
    choice = obj(
        {
            "action": ref("Action"),
            "field": nullable(STRING),
            "cards": {"anyOf": [{"type": "null"}, cards, {"type": "object", "additionalProperties": cards}]},
        },
        ["action", "field", "cards"],
    )
    play = obj(
        {
            "phase": {"enum": ["deal", "birth", "ovulation", "action", "ejaculation", "ended"]},
            "active": PLAYER,
            "step": CODE_MESSAGE,
            "gf": nullable(ref("Card")),
            "ovulation": integer(0),
            "mouchoir": cards,
            "diva_cup": cards,
            "open": array({"type": "object"}),
            "last_lap": nullable(PLAYER),
            "removal": nullable(obj({"player": PLAYER}, ["player"])),
            "contest": {
                "type": "object",
                "additionalProperties": nullable(ref("Card")),
                "description": "Phase 3's contest: each holder who answered for themselves "
                "(`contest_answer`) -> their GM, or null (they hold on).",
            },
            "deal": obj({"per_player": integer(1), "mouchoir": integer(0)}, ["per_player", "mouchoir"]),
            "unseen": obj({"gf": cards, "gm": cards}, ["gf", "gm"]),
            "hidden": integer(0),
            "seats": array(seat),
            "choices": array(choice),
        },
        [
            "phase",
            "active",
            "step",
            "gf",
            "ovulation",
            "mouchoir",
            "diva_cup",
            "open",
            "last_lap",
            "removal",
            "contest",
            "deal",
            "unseen",
            "hidden",
            "seats",
            "choices",
        ],
        description="The round played through (mode tracker).",
    )
    gjdlv = game_state(
        "gjdlv",
        {
            "round": integer(1),
            "rounds": {"enum": [9, 5]},
            "rounds_closed": integer(0),
            "last_round": BOOLEAN,
            "rules": {"enum": ["simples", "abondantes"]},
            "mode": {"enum": ["sheet", "tracker"]},
            "play": nullable(play),
            "first_player": PLAYER,
            "take": nullable(obj({"player": PLAYER}, ["player"])),
            "deck": obj({"gf": array(ref("Card")), "gm": array(ref("Card"))}, ["gf", "gm"]),
            "royal_points": {"type": "object", "additionalProperties": integer()},
            "per_abortion": integer(),
            "used_cards": array(ref("Card")),
            "standings": array(
                obj({"player": PLAYER, "rank": integer(1), "total": integer()}, ["player", "rank", "total"])
            ),
        },
        [
            "round",
            "rounds",
            "rounds_closed",
            "last_round",
            "rules",
            "mode",
            "play",
            "first_player",
            "take",
            "deck",
            "royal_points",
            "per_abortion",
            "used_cards",
            "standings",
        ],
        gjdlv_player,
    )

    return {
        "StateEnvelope": envelope,
        "State_morto": morto,
        "State_existentiel": existentiel,
        "State_gjdlv": gjdlv,
        "State": {
            "description": "The table's view (`core.view`): the shared envelope, then the game's own.",
            "oneOf": [ref("State_morto"), ref("State_existentiel"), ref("State_gjdlv")],
        },
    }


# --- the components ---------------------------------------------------------------------------------------


def schemas() -> dict:
    return {
        "PlayerId": {
            "type": "string",
            "pattern": PLAYER_PATTERN,
            "examples": ["p1", "p2"],
            "description": "A player's id: `p1`, `p2`… in seating order; ids never change.",
        },
        "Name": {
            "type": "string",
            "minLength": 1,
            "maxLength": 40,
            "description": "1 to 40 characters once trimmed, every one visible (no control, format or "
            "blank character but the joiners emoji and scripts need: 422 `hidden_character`); unique "
            "at the table, whatever the case.",
        },
        "ClientId": {
            "type": "string",
            "minLength": 1,
            "maxLength": 64,
            "description": "The client's id for this write (printable): a retry with the same id is "
            "answered as the first time and applied once.",
        },
        "Version": integer(0, description="The table's revision; a write carrying another one gets 409."),
        "Card": {
            "type": "string",
            "pattern": "^(A|[2-9]|10|J|Q|K)[SCHD]$",
            "examples": ["AS", "10H", "QD"],
            "description": "Rank then suit; case, `1` for the Ace and the suit symbols are accepted and "
            "normalised.",
        },
        "Moment": {
            "type": "string",
            "pattern": MOMENT,
            "description": "ISO 8601, in UTC: with its offset on PostgreSQL, without one on SQLite "
            "(`2031-03-07T18:30:00.123456`).",
        },
        "Error": obj(
            {
                "error": obj(
                    {
                        "code": {
                            "type": "string",
                            "description": "Stable: what clients test (`morto.dealer_may_speak`…).",
                        },
                        "message": {
                            "type": "string",
                            "description": "The sentence in the client's language "
                            "(Accept-Language; French by default).",
                        },
                        "messages": obj({"fr": STRING, "en": STRING}, ["fr", "en"]),
                        "params": {"type": "object", "description": "What the sentences quote."},
                        "rule": {
                            "type": "string",
                            "pattern": "^/rules/[a-z]+(#[a-z0-9-]+)?$",
                            "description": "Where the app's short rules explain the rule that refused, "
                            "when one did (`/rules/morto#dead`).",
                        },
                    },
                    ["code", "message", "messages", "params"],
                )
            },
            ["error"],
        ),
        "Action": obj(
            {"type": STRING},
            ["type"],
            closed=False,
            additionalProperties=PLAYER,
            description="An event the rules allow now, with the fields the rules fix (player ids); "
            "the table supplies the rest.",
        ),
        **state_schemas(),
        "Entry": obj(
            {
                "seq": integer(1),
                "id": ref("ClientId"),
                "type": STRING,
                "said": nullable(ref("Said")),
                "by": STRING,
            },
            ["seq", "id", "type", "said", "by"],
            description="An event of the history, as an answer names it: its `seq`, client id, type, "
            "words (null if they could not be worded) and who recorded it (`referee`).",
        ),
        "Did": obj(
            {
                "seq": integer(1),
                "id": ref("ClientId"),
                "type": STRING,
                "said": nullable(ref("Said")),
                "by": STRING,
                "event": nullable(
                    {"type": "object", "description": "The event as recorded (as `/log` has it)."}
                ),
                "at": ref("Moment"),
                "undo": BOOLEAN,
            },
            ["seq", "id", "type", "said", "by", "event", "at", "undo"],
            description="What a version did: the event it recorded (`event`, as recorded), or (`undo`) "
            "the event its undo took back (`event` null; `id` names it); `at`, when that version was "
            "written.",
        ),
        "Answer": obj(
            {
                "version": ref("Version"),
                "state": ref("State"),
                "did": nullable(ref("Did")),
                "undoable": nullable(ref("Entry")),
            },
            ["version", "state", "did", "undoable"],
            description="The table at a version; `did`: what that version did (null at version 0); "
            "`undoable`: what an undo would take back now (null when no event is in effect).",
        ),
        "StreamEvent": {
            "oneOf": [
                obj(
                    {
                        "id": {"type": "string", "pattern": "^[0-9]+$", "description": "The version."},
                        "event": {"const": "state"},
                        "data": {"type": "string", "contentMediaType": JSON, "contentSchema": ref("Answer")},
                        "retry": integer(0),
                    },
                    ["id", "event", "data"],
                    description="One server-sent event: the answer of one version.",
                ),
                obj(
                    {
                        # The frame sets no id of its own; an SSE reader keeps the last version's.
                        "id": {"type": "string", "pattern": "^[0-9]+$", "description": "The last version's."},
                        "event": {"const": "rematch"},
                        "data": {
                            "type": "string",
                            "contentMediaType": JSON,
                            "contentSchema": obj({"rematch": ref("Code")}, ["rematch"]),
                        },
                    },
                    ["event", "data"],
                    description="The finished table's rematch: where its next game is (no `id`).",
                ),
            ]
        },
        "Code": {
            "type": "string",
            "pattern": "^[0-9A-HJKMNP-TV-Z]{6}$",
            "examples": ["K7QX2M"],
            "description": "A table's code as stored (Crockford base32, no I, L, O, U).",
        },
        "Table": obj(
            {
                "code": STRING,
                "display_code": STRING,
                "game": {"enum": list(GAMES)},
                "version": ref("Version"),
                "state": ref("State"),
                "rematch": {
                    **nullable(ref("Code")),
                    "description": "The code of this finished table's rematch, once one was asked for.",
                },
                "did": nullable(ref("Did")),
                "undoable": nullable(ref("Entry")),
                "seats": {
                    "type": "object",
                    "additionalProperties": {"const": True},
                    "description": "The players who hold a secret of their own (`{player id: true}`), "
                    "never the secrets.",
                },
                "player_moves": {
                    "type": "object",
                    "additionalProperties": STRING,
                    "description": "The events a player records themselves at this table, each with "
                    "the field naming the acting player (`{event type: field}`; `{}`: the referee "
                    "records everything).",
                },
            },
            [
                "code",
                "display_code",
                "game",
                "version",
                "state",
                "rematch",
                "did",
                "undoable",
                "seats",
                "player_moves",
            ],
        ),
        "NewTableAnswer": obj(
            {
                "code": STRING,
                "display_code": STRING,
                "secret": STRING,
                "game": {"enum": list(GAMES)},
                "version": ref("Version"),
                "state": ref("State"),
                "did": nullable(ref("Did")),
                "undoable": nullable(ref("Entry")),
            },
            ["code", "display_code", "secret", "game", "version", "state", "did", "undoable"],
        ),
        **new_table_schemas(),
        "NewTable": {
            "oneOf": [ref("NewTable_morto"), ref("NewTable_existentiel"), ref("NewTable_gjdlv")],
            "discriminator": {
                "propertyName": "game",
                "mapping": {game: f"#/components/schemas/NewTable_{game}" for game in GAMES},
            },
        },
        **event_schemas(),
        "Event": event_union(),
        "Undo": obj(
            {"version": ref("Version"), "id": ref("ClientId"), "event": ref("ClientId")},
            description="Send the `version` or an `id`, so that a retried undo cannot undo twice; `event` "
            "names the event it takes back (its client id): applied only while that event is the latest "
            "in effect.",
        ),
        "CheckParams": obj(
            {
                "cards": spec_schema(core.game("morto").FIELDS["reveal"]["cards"], core.game("morto")),
                "face_up": {"type": "object", "additionalProperties": {"enum": [9, 10]}},
                "player": PLAYER,
                "die": spec_schema(core.game("existentiel").FIELDS["roll"]["die"], core.game("existentiel")),
                "gf": ref("Card"),
                "gm": ref("Card"),
                "new_gm": ref("Card"),
                "answer": ref("Card"),
                "card": ref("Card"),
                "gms": {"type": "object", "additionalProperties": ref("Card")},
                "against": {"enum": ["abortion", "surrogacy", "fecundation"]},
            },
            closed=False,
            description="The check's params; which ones depends on the check (docs/API.md).",
        ),
        "CheckAnswer": obj(
            {"ok": BOOLEAN},
            ["ok"],
            closed=False,
            description="The check's answer; every `code` in it comes with `message` and `messages`.",
        ),
        "Log": obj(
            {
                "code": STRING,
                "game": {"enum": list(GAMES)},
                "players": {"type": "array"},
                "options": {"type": "object"},
                "version": ref("Version"),
                "state": ref("State"),
                "events": array(obj({"id": nullable(STRING), "event": {"type": "object"}}, ["id", "event"])),
                "since": ref("Version"),
                "keep": integer(0),
                "start": integer(0),
                "checkpoint": nullable({"type": "object"}),
                "applied": array(ref("ClientId")),
            },
            ["code", "game", "players", "options", "version", "state", "events"],
        ),
        "History": obj(
            {
                "code": STRING,
                "game": {"enum": list(GAMES)},
                "version": ref("Version"),
                "events": array(
                    obj(
                        {
                            "seq": integer(1),
                            "id": nullable(STRING),
                            "event": {"type": "object"},
                            "version": ref("Version"),
                            "at": ref("Moment"),
                            "undone": BOOLEAN,
                            "undone_version": nullable(ref("Version")),
                            "undone_at": nullable(ref("Moment")),
                            "said": ref("Said"),
                            "by": STRING,
                            "undone_by": nullable(STRING),
                        },
                        [
                            "seq",
                            "id",
                            "event",
                            "version",
                            "at",
                            "undone",
                            "undone_version",
                            "undone_at",
                            "said",
                            "by",
                            "undone_by",
                        ],
                    )
                ),
                "more": BOOLEAN,
            },
            ["code", "game", "version", "events", "more"],
        ),
        "Said": obj(
            {
                "code": {"type": "string", "pattern": r"^(morto|existentiel|gjdlv)\.story\.[a-z_]+$"},
                "params": {"type": "object"},
            },
            ["code", "params"],
            description="What an event did, in words: a `<game>.story.<type>` code of the catalogue "
            "and the params its sentence quotes, worded against the state before it.",
        ),
        "Timeline": obj(
            {
                "code": STRING,
                "game": {"enum": list(GAMES)},
                "version": ref("Version"),
                "measure": CODE_MESSAGE,
                "players": array(obj({"id": PLAYER, "name": STRING}, ["id", "name"])),
                "points": array(
                    obj(
                        {
                            "label": CODE_MESSAGE,
                            "scores": {
                                "type": "object",
                                "propertyNames": {"pattern": PLAYER_PATTERN},
                                "additionalProperties": {"type": "integer"},
                            },
                        },
                        ["label", "scores"],
                    )
                ),
            },
            ["code", "game", "version", "measure", "players", "points"],
            description="Each player's number (`measure`: lives, adventures completed, total points) at the "
            "start, after each step (a round, a validation) and at the end.",
        ),
        "Export": obj(
            {
                "format": {"const": "arbitre.table"},
                "format_version": {"const": 1},
                "exported_at": STRING,
                "code": STRING,
                "game": {"enum": list(GAMES)},
                "players": {"type": "array"},
                "options": {"type": "object"},
                "events": array(
                    obj(
                        {"id": nullable(ref("ClientId")), "event": {"type": "object"}},
                        ["event"],
                        closed=False,
                    )
                ),
                "version": ref("Version"),
                "summary": {"type": "object"},
            },
            ["format", "format_version", "game", "players", "events"],
            closed=False,
            description="A table as a file: its setup and the events in effect, in order, with their "
            "client ids (no secret). `POST /api/tables/import` reads `format`, `format_version`, "
            "`game`, `players`, `options` and `events`; the rest is for people.",
        ),
    }


ERRORS = {
    400: "The body is not JSON (`bad_json`: NaN and infinities included, a lone surrogate) or nests too deep "
    "(`too_deep`, params `max`), or it is not an object.",
    401: "No `Authorization: Bearer <secret>` (`secret_required`).",
    403: "Neither the table's referee secret nor one of its players' secrets (`wrong_secret`); a player's "
    "secret used for another's move or a move the referee records (`not_your_move`, params `player`, "
    "`type`) or for what only the referee does (`referee_only`, params `player`).",
    404: "No such table (`unknown_table`), check (`unknown_check`), calendar (`existentiel.no_calendar`, "
    "`existentiel.no_rendezvous`) or route (`not_found`).",
    409: "The write carried a `version` that is not the table's (`stale_version`, params `sent`, `current`); "
    "its client `id` names another event already applied (`client_id_reused`, params `id`, `type`); an undo "
    "names an event that is not the latest in effect (`undo_not_latest`, params `event`, `latest`).",
    413: "The body is over 64 KiB (`too_large`, params `max`).",
    415: "A body that is not `application/json` (`unsupported_media_type`).",
    422: "The engine refuses it, malformed or against the rules (`code` names the rule, e.g. "
    "`morto.dealer_may_speak`), the client id or version is malformed (`bad_field`), or the table holds "
    "its maximum of events (`log_full`, params `max`).",
    408: "The body did not arrive within `BODY_SECONDS` (10 s) of the request's head, a second on a busy "
    "server (`too_slow`, params `seconds`); the connection is closed.",
    414: "The URL is over the server's limit (`too_long`, params `max`): answered by the production server "
    "before the request reaches the app.",
    429: "Too many failures or new tables from this address (`too_many_requests`, params `retry_after`), "
    "too many open streams (`too_many_streams`, params `max`) or connections (`too_many_connections`, params "
    "`max`) from it, or too many writes on this table this minute (`too_many_writes`, params `max`, "
    "`retry_after`).",
    431: "The request's headers are over the server's limits (`headers_too_large`): answered by the "
    "production server before the request reaches the app.",
    503: "The database does not answer (`unavailable`, params `retry_after`: down, its disk full or "
    "read-only), a write kept losing races (`busy`), or this process holds as many streams as it may "
    "(`streams_full`).",
}
RETRY_AFTER = {
    "description": "Seconds to wait before trying again.",
    "schema": {"type": "string", "pattern": "^[0-9]+$"},
}


def error_responses() -> dict:
    responses = {}
    for status, description in ERRORS.items():
        response: dict = {"description": description, "content": {JSON: {"schema": ref("Error")}}}
        if status == 429:
            response["headers"] = {"Retry-After": {**RETRY_AFTER, "required": True}}
        if status == 503:
            response["headers"] = {"Retry-After": RETRY_AFTER}
        responses[str(status)] = response
    return responses


def errors(*statuses: int) -> dict:
    return {str(status): {"$ref": f"#/components/responses/{status}"} for status in statuses}


def query_count(name: str, low: int, high: int | None, description: str) -> dict:
    """An optional whole number in the query string."""
    return {
        "name": name,
        "in": "query",
        "required": False,
        "description": description,
        "schema": integer(low, high),
    }


def ok(description: str, schema: dict, media: str = JSON, **more) -> dict:
    return {"description": description, "content": {media: {"schema": schema}}, **more}


def json_body(schema: dict, required: bool = True, **more) -> dict:
    return {"required": required, "content": {JSON: {"schema": schema, **more}}}


# --- the paths -------------------------------------------------------------------------------------------

CODE = {
    "name": "code",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "minLength": 1},
    "description": "The table's code, in any case, with or without its dash (`7K3M-9Q`).",
    "examples": {"code": {"value": "7K3M9Q"}},
}
CHECK_NAMES = [
    "reveal",
    "swap",
    "landing",
    "stakes",
    "fecundate",
    "surrogate",
    "abortion",
    "ejaculation",
    "bonus",
    "fecundations",
]
CHECK = {
    "name": "name",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "minLength": 1},
    "description": "A check of the table's game: " + ", ".join(f"`{n}`" for n in CHECK_NAMES) + ".",
    "examples": {"reveal": {"value": "reveal"}},
}
REFEREE = [{"referee": []}]
REFEREE_OR_PLAYER = [{"referee": []}, {"player": []}]
PLAYER_ID = {
    "name": "player",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "minLength": 1},
    "description": "A player's id (`p1`…), as `state.players[].id` names them.",
    "examples": {"player": {"value": "p1"}},
}
NEW_TABLE_HEADERS = {"Location": {"required": True, "schema": STRING, "description": "`/api/tables/<code>`"}}
# A body is read (413, 415, 400, 408) only by the routes that take one; a route naming a table answers
# 429 past the limit on wrong codes from an address, a write past the limit on wrong secrets or on the
# table's writes a minute. Any request may be too long to parse (414, 431), or find the database down (503).
BODY = (400, 408, 413, 415)
ANY = (414, 431, 503)
WRITE = (*BODY, 401, 403, 404, 409, 422, 429, *ANY)
READ = (404, 429, *ANY)


def paths() -> dict:
    table = "/api/tables/{code}"
    return {
        "/api/openapi.json": {
            "get": {
                "operationId": "openapi",
                "summary": "This document",
                "tags": ["meta"],
                "responses": {"200": ok("The OpenAPI 3.1 description of the API.", {"type": "object"})},
            }
        },
        "/api/tables": {
            "post": {
                "operationId": "createTable",
                "summary": "Create a table",
                "tags": ["tables"],
                "requestBody": json_body(ref("NewTable")),
                "responses": {
                    "201": ok(
                        "The new table, with the referee's secret (given only here).",
                        ref("NewTableAnswer"),
                        headers=NEW_TABLE_HEADERS,
                    ),
                    **errors(*BODY, 422, 429, *ANY),
                },
            }
        },
        table: {
            "parameters": [CODE],
            "get": {
                "operationId": "getTable",
                "summary": "A table's current state",
                "tags": ["tables"],
                "responses": {"200": ok("The table.", ref("Table")), **errors(*READ)},
            },
        },
        table + "/events": {
            "parameters": [CODE],
            "post": {
                "operationId": "postEvent",
                "summary": "Record an event",
                "tags": ["referee"],
                "security": REFEREE_OR_PLAYER,
                "requestBody": json_body(ref("Event")),
                "responses": {
                    "201": ok("The table after the event (or the first answer to this `id`).", ref("Answer")),
                    **errors(*WRITE),
                },
            },
        },
        table + "/undo": {
            "parameters": [CODE],
            "post": {
                "operationId": "postUndo",
                "summary": "Take back the latest event in effect",
                "tags": ["referee"],
                "security": REFEREE_OR_PLAYER,
                "requestBody": json_body(ref("Undo"), required=False),
                "responses": {
                    "200": ok("The table as it was before that event, exactly.", ref("Answer")),
                    **errors(*WRITE),
                },
            },
        },
        table + "/rematch": {
            "parameters": [CODE],
            "post": {
                "operationId": "rematchTable",
                "summary": "A finished table's next game: the same players, seats and options",
                "tags": ["referee"],
                "security": REFEREE,
                "requestBody": json_body(obj({}), required=False),
                "responses": {
                    "201": ok(
                        "The new table, with its referee's secret, as `POST /api/tables` answers. Asked "
                        "again, the same table (as it is now) and the same secret; the old table's "
                        "`rematch` names it. 422 `rematch_not_over` while the game goes on.",
                        ref("NewTableAnswer"),
                        headers=NEW_TABLE_HEADERS,
                    ),
                    **errors(400, 401, 403, 404, 413, 415, 422, 429, 503),
                },
            },
        },
        table + "/players/{player}/secret": {
            "parameters": [CODE, PLAYER_ID],
            "post": {
                "operationId": "givePlayerSecret",
                "summary": "Give a player a secret of their own, for their own phone",
                "tags": ["referee"],
                "security": REFEREE,
                "requestBody": json_body(obj({}), required=False),
                "responses": {
                    "201": ok(
                        "The player's new secret (given only here; the server keeps its hash). It "
                        "replaces the one given before, which stops working at once. 404 "
                        "`unknown_player` for a player the table does not have.",
                        obj({"player": STRING, "secret": STRING}, ["player", "secret"]),
                    ),
                    **errors(400, 401, 403, 404, 413, 415, 422, 429, 503),
                },
            },
            "delete": {
                "operationId": "takeBackPlayerSecret",
                "summary": "Take a player's secret back: it stops working at once",
                "tags": ["referee"],
                "security": REFEREE,
                "responses": {
                    "204": {"description": "Taken back (or there was none)."},
                    **errors(401, 403, 404, 429, 503),
                },
            },
        },
        table + "/log": {
            "parameters": [
                CODE,
                query_count(
                    "since",
                    0,
                    None,
                    "Only what a client holding the log of this version lacks: it keeps its first "
                    "`keep` events and appends `events`.",
                ),
                query_count(
                    "tail",
                    0,
                    500,
                    "At least the last `tail` events in effect, from a checkpoint of the state: the log's "
                    "first `start` events are left out, `checkpoint` is the state after them.",
                ),
                {
                    "name": "id",
                    "in": "query",
                    "required": False,
                    "description": "Client ids (at most 64): `applied` lists those the table applied, as "
                    "an event (in effect or undone since) or as an undo.",
                    "schema": {"type": "array", "items": ref("ClientId"), "maxItems": 64},
                    "style": "form",
                    "explode": True,
                },
            ],
            "get": {
                "operationId": "getLog",
                "summary": "The setup and the events in effect, to replay",
                "tags": ["tables"],
                "responses": {"200": ok("The log.", ref("Log")), **errors(*READ, 422)},
            },
        },
        table + "/history": {
            "parameters": [
                CODE,
                query_count("limit", 1, 500, "Only the latest `limit` entries (a page)."),
                query_count("before", 1, None, "Only entries before this `seq` (the next page)."),
            ],
            "get": {
                "operationId": "getHistory",
                "summary": "Every event ever accepted, undone ones included",
                "tags": ["tables"],
                "responses": {"200": ok("The history.", ref("History")), **errors(*READ, 422)},
            },
        },
        table + "/timeline": {
            "parameters": [CODE],
            "get": {
                "operationId": "getTimeline",
                "summary": "Each player's number over the game (the chart)",
                "tags": ["tables"],
                "responses": {"200": ok("The series.", ref("Timeline")), **errors(*READ)},
            },
        },
        table + "/export": {
            "parameters": [CODE],
            "get": {
                "operationId": "exportTable",
                "summary": "The table as a JSON file (no secret)",
                "tags": ["tables"],
                "responses": {
                    "200": ok(
                        "Downloaded as `arbitre-<code>.json`.",
                        ref("Export"),
                        headers={"Content-Disposition": {"required": True, "schema": STRING}},
                    ),
                    **errors(*READ),
                },
            },
        },
        table + "/export.csv": {
            "parameters": [
                CODE,
                {
                    "name": "lang",
                    "in": "query",
                    "required": False,
                    "description": "The file's language (the page's that links it); else the request's.",
                    "schema": {"type": "string", "enum": ["fr", "en"]},
                },
            ],
            "get": {
                "operationId": "exportTableCsv",
                "summary": "The timeline as CSV: a header row, one row per step",
                "tags": ["tables"],
                "responses": {
                    "200": ok(
                        "Downloaded as `arbitre-<code>.csv`, labels in the file's language, written as a "
                        "spreadsheet of that language opens it: French with `;` between cells and a UTF-8 "
                        "byte order mark first, English with `,` and no mark.",
                        STRING,
                        "text/csv",
                        headers={"Content-Disposition": {"required": True, "schema": STRING}},
                    ),
                    **errors(*READ),
                },
            },
        },
        "/api/tables/import": {
            "post": {
                "operationId": "importTable",
                "summary": "A new table replaying an export's events",
                "tags": ["tables"],
                "requestBody": json_body(ref("Export")),
                "responses": {
                    "201": ok(
                        "The new table, with its referee's secret, as `POST /api/tables` answers. A "
                        "refused event refuses the whole import (422 with the rule's code and "
                        "`params.index`, the event's 0-based position); nothing is created.",
                        ref("NewTableAnswer"),
                        headers=NEW_TABLE_HEADERS,
                    ),
                    **errors(*BODY, 422, 429, *ANY),
                },
            }
        },
        table + "/checks/{name}": {
            "parameters": [CODE, CHECK],
            "post": {
                "operationId": "runCheck",
                "summary": "A pure rule check on the table's state",
                "tags": ["tables"],
                "requestBody": json_body(ref("CheckParams"), required=False),
                "responses": {
                    "200": ok("The check's answer.", ref("CheckAnswer")),
                    **errors(*BODY, 404, 422, 429, *ANY),
                },
            },
        },
        table + "/qr.svg": {
            "parameters": [CODE],
            "get": {
                "operationId": "getQr",
                "summary": "The QR code of the table view's URL",
                "tags": ["tables"],
                "responses": {"200": ok("An SVG image.", STRING, "image/svg+xml"), **errors(*READ)},
            },
        },
        table + "/stream": {
            "parameters": [
                CODE,
                query_count(
                    "since",
                    0,
                    None,
                    "The version the client holds (when it sends no `Last-Event-ID`): every later "
                    "one is sent first.",
                ),
            ],
            "get": {
                "operationId": "stream",
                "summary": "Live updates (server-sent events)",
                "tags": ["live"],
                "parameters": [
                    {
                        "name": "Last-Event-ID",
                        "in": "header",
                        "required": False,
                        "schema": STRING,
                        "description": "The last version received: every later one is sent first.",
                    }
                ],
                "responses": {
                    "200": ok(
                        "`retry: <ms>` (drawn per stream, 1000 to 5000), then one event per version: "
                        "`id: <version>`, `event: state`, "
                        '`data: {"version", "state", "did", "undoable"}`; a `: still here` comment after '
                        "15 s of silence. "
                        'A finished table\'s rematch is `event: rematch`, `data: {"rematch": <code>}`, '
                        "sent when it is made and first on every stream opened after. "
                        "The schema describes each event (as OpenAPI 3.2's `itemSchema` would).",
                        ref("StreamEvent"),
                        "text/event-stream",
                    ),
                    **errors(*READ),
                },
            },
        },
        table + "/rendezvous.ics": {
            "parameters": [CODE],
            "get": {
                "operationId": "getRendezvous",
                "summary": "The next rendez-vous (Le jeu existentiel), RFC 5545",
                "tags": ["tables"],
                "responses": {
                    "200": ok("One VEVENT, downloaded as `rendez-vous-<code>.ics`.", STRING, "text/calendar"),
                    **errors(*READ),
                },
            },
        },
    }


@cache
def document() -> dict:
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Arbitre",
            "version": "1",
            "description": 'The referee and scorekeeper\'s JSON API. Every refusal is `{"error": '
            '{"code", "message", "messages", "params"}}`; see docs/API.md.',
        },
        "tags": [{"name": "tables"}, {"name": "referee"}, {"name": "live"}, {"name": "meta"}],
        "paths": paths(),
        "components": {
            "schemas": schemas(),
            "responses": error_responses(),
            "securitySchemes": {
                "referee": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "The table's referee secret, given once when the table is created.",
                },
                "player": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A player's secret (`POST …/players/<id>/secret`): records that "
                    "player's own moves, undoes their own latest move while it is the latest.",
                },
            },
        },
    }


@bp.get("/api/openapi.json")
def openapi_json():
    return jsonify(document())
