"""What a game declares once about its input: its options and its events' fields, as small specs.

A game module names each option of a new table (``OPTIONS``), each field of each event type
(``FIELDS``) and each field of a player's entry (``PLAYER_FIELDS``) with a spec: its name, its type,
its range, its default and a line of what it is, as OpenSpiel's ``parameter_specification`` does.
Each of those is a mapping from the name to its spec (`specs`), so the names read as they always
did (``list(OPTIONS)``, ``key in FIELDS[kind]``).

The engine reads a new table's options through the specs (`read_options`, `option_value`); the
rest of the app renders from them what it tells of the input: the OpenAPI document's per-game
schemas (`companion.openapi`), the new-table forms' bounds and the per-game tables of
``docs/API.md``. A handler still reads its event's fields itself (its refusals are its game's
codes), from the same constants its specs are built with.

Types: ``int`` (``low..high``), ``bool``, ``player`` (a player's id), ``card`` (a playing card as the
game writes it), ``name`` (a player's name), ``text`` (the table's own text, ``low..high``
characters), ``rendezvous`` (a local date and time), ``list`` and ``map`` (of ``items``, a spec of
their own; a map is keyed by player id; ``low..high`` entries). An option is also ``choice`` (one
of ``choices``) or ``seat`` (a seat index: 0 to the table's number of players less one). A bound
may be ``PLAYERS``, the table's own number of players.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core import InvalidEvent, integer, short

JSON = Any

PLAYERS = "players"  # a bound: the table's own number of players (one entry per player at most)


@dataclass(frozen=True)
class Field:
    """One field an event (or a player's entry) may carry."""

    name: str
    type: str
    low: int | None = None
    high: int | str | None = None
    items: Field | None = None  # a list's or a map's entries
    unique: bool = False  # a list that names each entry once
    required: bool = True
    nullable: bool = False
    doc: str = ""


@dataclass(frozen=True)
class Option(Field):
    """One option of a new table: never required, ``default`` when left out."""

    required: bool = False
    default: JSON = None
    choices: tuple = ()


def specs(*declared: Field) -> dict[str, Field]:
    """Specs by name, in the order declared."""
    return {spec.name: spec for spec in declared}


def read_options(declared: dict[str, Option], options: dict, players: int) -> dict[str, JSON]:
    """Every option of a new table of ``players`` players, each its value or its default, in the
    order declared; `InvalidEvent` ``bad_option`` for an option the game does not have (rather than
    silently ignore it) or a value its spec refuses."""
    for key, value in options.items():
        if key not in declared:
            raise InvalidEvent("bad_option", field=short(key), value=short(value), choices=list(declared))
    return {name: option_value(spec, options, players) for name, spec in declared.items()}


def option_value(spec: Option, options: dict, players: int) -> JSON:
    """One option's value as its spec reads it (its default when left out): an ``int`` in its range
    and a ``seat`` of the table (``bad_option`` with ``min`` and ``max``), a ``choice`` among its
    ``choices`` and of their very type, 9.0 and True being no 9 nor 1 (``bad_option`` with
    ``choices``); any other type is the game's to read, handed over as given."""
    if spec.name not in options:
        return spec.default
    if spec.type == "int":
        return integer(options, spec.name, spec.low, spec.high, code="bad_option")
    if spec.type == "seat":
        return integer(options, spec.name, 0, players - 1, code="bad_option")
    value = options[spec.name]
    if spec.type == "choice" and not any(type(value) is type(c) and value == c for c in spec.choices):
        raise InvalidEvent("bad_option", field=spec.name, value=short(value), choices=list(spec.choices))
    return value
