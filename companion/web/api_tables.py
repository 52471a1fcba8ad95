"""docs/API.md's per-game tables, generated from what each game declares (`engine.specs`).

Each table sits between two marker comments in the page::

    <!-- generated: morto options -->
    ...
    <!-- end generated -->

``<game> options``: a new table's players and options (type, values, default, what each is);
``<game> events``: each event's fields (type, values, what each is), or only the events the marker
lists (``<!-- generated: gjdlv events: deal birth -->``). ``python -m companion.web.api_tables`` rewrites
them in place; ``tests/test_specs.py`` fails when the page differs from what the specs give.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from engine import core
from engine.specs import PLAYERS, Field

COMMAND = "python -m companion.web.api_tables"
API_MD = Path(__file__).resolve().parents[2] / "docs" / "API.md"
BLOCK = re.compile(r"(<!-- generated: ([^>]*?) -->\n)(.*?)(<!-- end generated -->)", re.DOTALL)
TYPES = {
    "int": "integer",
    "bool": "boolean",
    "player": "player id",
    "card": "card",
    "name": "name",
    "text": "text",
    "rendezvous": "local date and time",
    "seat": "seat index",
    "choice": "one of",
}


def type_of(spec: Field) -> str:
    """A spec's type in words: ``list of player id``, ``map of player id to integer``."""
    if spec.type == "list":
        return f"list of {type_of(spec.items)}"
    if spec.type == "map":
        return f"map of player id to {type_of(spec.items)}"
    return TYPES[spec.type] + (" or null" if spec.nullable else "")


def values_of(spec: Field, module) -> str:
    """What a spec accepts, in words: its range, its choices, its length."""
    high = module.MAX_PLAYERS if spec.high == PLAYERS else spec.high
    if spec.type == "seat":
        return f"0 to the players less one (at most {module.MAX_PLAYERS - 1})"
    if spec.type == "choice":
        return ", ".join(f"`{choice}`" for choice in spec.choices)
    if spec.type == "rendezvous":
        return f"years {spec.low}–{high}"
    if spec.type == "text":
        return f"{spec.low or 0}–{high} characters, every one visible"
    if spec.type in ("list", "map"):
        if spec.high == PLAYERS:
            count = "at most one entry per player"
        elif spec.low == high:
            count = f"exactly {high} entries"
        else:
            count = f"{spec.low}–{high} entries" if spec.low else f"at most {high} entries"
        inner = values_of(spec.items, module)
        return ", ".join(
            [count, *([f"each {inner}"] if inner else []), *(["each once"] if spec.unique else [])]
        )
    if spec.type == "int":
        return f"{spec.low}–{high}"
    return ""


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def options_table(game: str) -> str:
    module = core.game(game)
    entry = ", ".join(
        f"`{name}`" + (f" ({type_of(spec)} {values_of(spec, module)})" if name != "name" else "")
        for name, spec in module.PLAYER_FIELDS.items()
    )
    needed = [name for name, spec in module.PLAYER_FIELDS.items() if spec.required]
    plain = "a name, or an object" if needed == ["name"] else "an object"
    lines = [
        f"Players: {module.MIN_PLAYERS}–{module.MAX_PLAYERS}, each {plain} with only {entry}.",
        "",
        "| option | type | values | default | what |",
        "|---|---|---|---|---|",
    ]
    for name, spec in module.OPTIONS.items():
        default = "—" if spec.default is None else f"`{spec.default}`"
        values = _cell(values_of(spec, module))
        lines.append(f"| `{name}` | {type_of(spec)} | {values} | {default} | {_cell(spec.doc)} |")
    return "\n".join(lines) + "\n"


def events_table(game: str, kinds: list[str] | None = None) -> str:
    module = core.game(game)
    lines = ["| event | field | type | values | what |", "|---|---|---|---|---|"]
    for kind in kinds or list(module.FIELDS):
        fields = module.FIELDS[kind]
        if not fields:
            lines.append(f"| `{kind}` | | | | |")
        for name, spec in fields.items():
            field = f"`{name}`" + ("" if spec.required else " (optional)")
            values = _cell(values_of(spec, module))
            lines.append(f"| `{kind}` | {field} | {type_of(spec)} | {values} | {_cell(spec.doc)} |")
    return "\n".join(lines) + "\n"


def table(name: str) -> str:
    """The table a marker names: ``morto options``, ``gjdlv events``, ``gjdlv events: deal birth``."""
    what, _, listed = name.partition(":")
    game, kind = what.split()
    if kind == "options":
        return options_table(game)
    return events_table(game, listed.split() or None)


def generated(text: str) -> str:
    """``text`` (docs/API.md) with every generated table as the specs give it now."""
    return BLOCK.sub(lambda m: m[1] + table(m[2]) + m[4], text)


def main(argv: list[str]) -> int:
    """Rewrite docs/API.md's generated tables; with ``--check``, only say whether they drifted."""
    text = API_MD.read_text("utf-8")
    fresh = generated(text)
    if "--check" in argv:
        if fresh != text:
            print(f"docs/API.md: its generated tables differ from the specs; run {COMMAND}")
            return 1
        return 0
    API_MD.write_text(fresh, "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
