"""The games' rules in short, in the app: a page per game, and the rule each refusal points to.

The pages are for players at the table: plain, short sections written from the rules specification
(``shared/RULES.md``, the authority), server-rendered with no script, printable. Every section has a
stable id (``/rules/morto#dead``), which is what a refusal links to: `engine.rulebook` maps each
error code to its ``(game, anchor)``, and every refusal carries the link as ``rule``.

The words live in the catalogue (``companion/web/i18n/<lang>/rules.json``), one key per heading,
paragraph or list item: ``ui.rules.<game>.<anchor>.title``, then ``.p1``, ``.p2``… for paragraphs and
``.li1``, ``.li2``… for list items, drawn in the order of the French file (consecutive items make one
list). The anchors of each game are fixed here; the test checks the catalogue has every one.
"""

from __future__ import annotations

import re

from flask import Blueprint, abort, render_template

from companion.web import i18n

bp = Blueprint("rules", __name__)

# Each game's sections, in the order the page shows them: the anchors refusals link to.
SECTIONS: dict[str, tuple[str, ...]] = {
    "morto": ("cards", "turns", "swap", "touch", "dead", "reveal", "end"),
    "existentiel": (
        "players",
        "adventures",
        "landing",
        "accept",
        "refuse",
        "jokers",
        "rendezvous",
        "validate",
        "end",
    ),
    "gjdlv": (
        "cards",
        "round",
        "fecundation",
        "surrogacy",
        "abortion",
        "ejaculation",
        "bonuses",
        "royal",
        "last-lap",
        "scoring",
        "malus",
    ),
}

_ITEM = re.compile(r"^(p|li)(\d+)$")


def sections(game: str) -> list[dict]:
    """A game's sections as the template draws them: anchor, title key, and blocks, each a
    paragraph key or a list of item keys (in the catalogue's order)."""
    words = i18n.interface(i18n.DEFAULT)  # both languages have the same keys; French keeps the order
    drawn = []
    for anchor in SECTIONS[game]:
        prefix = f"ui.rules.{game}.{anchor}."
        blocks: list[dict] = []
        for key in words:
            match = _ITEM.match(key[len(prefix) :]) if key.startswith(prefix) else None
            if match is None:
                continue
            if match[1] == "p":
                blocks.append({"p": key})
            elif blocks and "ul" in blocks[-1]:
                blocks[-1]["ul"].append(key)
            else:
                blocks.append({"ul": [key]})
        drawn.append({"anchor": anchor, "title": prefix + "title", "blocks": blocks})
    return drawn


@bp.get("/rules")
def index():
    return render_template("rules.html", games=list(SECTIONS), game=None)


@bp.get("/rules/<game>")
def game_rules(game: str):
    if game not in SECTIONS:
        abort(404)
    return render_template("rules.html", games=list(SECTIONS), game=game, sections=sections(game))
