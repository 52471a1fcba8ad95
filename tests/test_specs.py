"""What each game declares once (`engine.specs`) is what the rest of the app tells of it.

- docs/API.md's per-game tables are the ones the specs generate (`companion.web.api_tables`): an option,
  a field or a bound changed in a game module and not in the page fails here (``python -m
  companion.web.api_tables`` rewrites them), and every option and event of every game has its table.
- The OpenAPI document's per-game schemas carry the specs' bounds, defaults' choices and seats.
- The new-table forms draw their bounds, choices and defaults from the specs.
- The short rules (``rules.json``, both languages) state the bounds the specs give.
"""

from __future__ import annotations

import json
import re

import pytest

from companion import ROOT
from companion.web import api_tables, i18n, openapi
from engine import core, existentiel, gjdlv, morto


@pytest.fixture
def backend() -> str:
    """SQLite only: the pages are the same on PostgreSQL."""
    return "sqlite"


# --- docs/API.md ------------------------------------------------------------------------------------------


def test_the_api_pages_tables_are_the_ones_the_specs_generate():
    text = api_tables.API_MD.read_text("utf-8")
    assert api_tables.generated(text) == text, "run: python -m companion.web.api_tables"
    assert api_tables.main(["--check"]) == 0


def test_every_option_and_event_of_every_game_has_its_generated_table():
    names = api_tables.BLOCK.findall(api_tables.API_MD.read_text("utf-8"))
    tables = {name: api_tables.table(name) for _, name, _, _ in names}
    for game in core.GAME_MODULES:
        module = core.game(game)
        options = tables[f"{game} options"]
        assert all(f"| `{name}` |" in options for name in module.OPTIONS), game
        events = "".join(table for name, table in tables.items() if name.startswith(f"{game} events"))
        assert all(f"| `{kind}` |" in events for kind in module.FIELDS), game


def test_a_drifted_table_is_rewritten_and_reported(tmp_path, monkeypatch):
    page = tmp_path / "API.md"
    page.write_text(
        "Before.\n<!-- generated: morto options -->\n| old |\n<!-- end generated -->\nAfter.\n", "utf-8"
    )
    monkeypatch.setattr(api_tables, "API_MD", page)
    assert api_tables.main(["--check"]) == 1
    assert api_tables.main([]) == 0
    assert api_tables.main(["--check"]) == 0
    text = page.read_text("utf-8")
    assert text.startswith("Before.\n<!-- generated: morto options -->\nPlayers: 3–20,")
    assert "| `lives` | integer | 1–9 | `3` |" in text and text.endswith("<!-- end generated -->\nAfter.\n")


# --- the OpenAPI document ---------------------------------------------------------------------------------


def test_the_new_table_schemas_carry_the_specs_bounds():
    schemas = openapi.document()["components"]["schemas"]
    for game in core.GAME_MODULES:
        module = core.game(game)
        new_table = schemas[f"NewTable_{game}"]["properties"]
        assert (new_table["players"]["minItems"], new_table["players"]["maxItems"]) == (
            module.MIN_PLAYERS,
            module.MAX_PLAYERS,
        )
        assert list(new_table["options"]["properties"]) == list(module.OPTIONS)
    morto_options = schemas["NewTable_morto"]["properties"]["options"]["properties"]
    lives = morto.OPTIONS["lives"]
    assert (morto_options["lives"]["minimum"], morto_options["lives"]["maximum"]) == (lives.low, lives.high)
    assert morto_options["dealer"]["maximum"] == morto.MAX_PLAYERS - 1
    gjdlv_options = schemas["NewTable_gjdlv"]["properties"]["options"]["properties"]
    assert gjdlv_options["rounds"]["enum"] == list(gjdlv.OPTIONS["rounds"].choices)
    titles = schemas["NewTable_existentiel"]["properties"]["options"]["properties"]["titles"]
    assert titles["minItems"] == titles["maxItems"] == existentiel.ADVENTURES
    assert titles["items"]["maxLength"] == existentiel.TITLE_MAX


def test_the_event_schemas_carry_the_specs_bounds_and_descriptions():
    schemas = openapi.document()["components"]["schemas"]
    die = schemas["Event_existentiel_roll"]["properties"]["die"]
    assert (die["minimum"], die["maximum"]) == (existentiel.DIE_FACES[0], existentiel.DIE_FACES[-1])
    assert die["description"] == "The die's face."
    cards = schemas["Event_morto_reveal"]["properties"]["cards"]
    assert cards["additionalProperties"] == {"type": "integer", "minimum": 1, "maximum": 10}
    assert schemas["Event_morto_reveal"]["oneOf"] == [{"required": ["cards"]}, {"required": ["lowest"]}]
    assert schemas["Event_gjdlv_ejaculate"]["properties"]["gms"]["maxProperties"] == gjdlv.MAX_PLAYERS
    place = schemas["Event_existentiel_schedule"]["properties"]["place"]
    assert place["anyOf"][0]["maxLength"] == existentiel.PLACE_MAX
    assert schemas["Event_existentiel_schedule"]["required"] == ["id", "type", "at"]


# --- the new-table forms ----------------------------------------------------------------------------------


def test_the_new_table_forms_draw_their_bounds_from_the_specs(client):
    page = client.get("/new/morto").get_data(as_text=True)
    lives = morto.OPTIONS["lives"]
    assert f'min="{lives.low}" max="{lives.high}" value="{lives.default}"' in page
    assert f'data-name-max="{core.NAME_MAX}"' in page and "data-months" not in page
    page = client.get("/new/existentiel").get_data(as_text=True)
    assert f'data-months="{existentiel.PLAYER_FIELDS["birth_month"].high}"' in page
    page = client.get("/new/gjdlv").get_data(as_text=True)
    for name, option in gjdlv.OPTIONS.items():
        for choice in option.choices:
            radio = re.search(rf'<input type="radio" name="{name}" value="{choice}"[^>]*>', page)
            assert radio, (name, choice)
            assert (" checked" in radio[0]) == (choice == option.default), (name, choice)


# Where the Grand Jeu's form finds the words of each option's choices (templates/new_gjdlv.html).
CHOICE_WORDS = {"mode": "ui.gjdlv.new.mode.", "rules": "ui.gjdlv.rules.", "rounds": "ui.gjdlv.new.length."}
WHAT_WORDS = {"mode": "ui.gjdlv.new.mode.", "rules": "ui.gjdlv.new.rules.", "rounds": "ui.gjdlv.new.length."}


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_every_choice_the_form_draws_has_its_words(lang):
    words = i18n.catalogue(lang)
    for name, option in gjdlv.OPTIONS.items():
        for choice in option.choices:
            assert f"{CHOICE_WORDS[name]}{choice}" in words, (name, choice)
            assert f"{WHAT_WORDS[name]}{choice}.what" in words, (name, choice)
    for rounds in gjdlv.OPTIONS["rounds"].choices:
        assert words[f"ui.gjdlv.new.length.{rounds}.what"].startswith(f"{rounds} "), rounds


# --- the short rules --------------------------------------------------------------------------------------


def rules(lang: str) -> dict:
    return json.loads((ROOT / "companion" / "web" / "i18n" / lang / "rules.json").read_text("utf-8"))


def test_the_short_rules_state_the_bounds_the_specs_give():
    lives, rounds = morto.OPTIONS["lives"], gjdlv.OPTIONS["rounds"].choices
    months = existentiel.PLAYER_FIELDS["birth_month"]
    stated = {
        "en": {
            "ui.rules.morto.cards.p2": [
                f"the app allows {morto.MIN_PLAYERS} to {morto.MAX_PLAYERS}",
                f"{lives.default} lives each",
                f"({lives.low} to {lives.high},",
            ],
            "ui.rules.gjdlv.intro": [
                f"the app allows {gjdlv.MIN_PLAYERS} to {gjdlv.MAX_PLAYERS}",
                f"over {rounds[0]} rounds (à terme) or {rounds[1]} (prématurée)",
            ],
            "ui.rules.existentiel.players.p1": [f"birth month ({months.low} to {months.high})"],
        },
        "fr": {
            "ui.rules.morto.cards.p2": [
                f"l'app accepte de {morto.MIN_PLAYERS} à {morto.MAX_PLAYERS}",
                f"{lives.default} vies chacun·e",
                f"(de {lives.low} à {lives.high} ",
            ],
            "ui.rules.gjdlv.intro": [
                f"l'app accepte de {gjdlv.MIN_PLAYERS} à {gjdlv.MAX_PLAYERS}",
                f"en {rounds[0]} manches (à terme) ou {rounds[1]} (prématurée)",
            ],
            "ui.rules.existentiel.players.p1": [f"mois de naissance ({months.low} à {months.high})"],
        },
    }
    for lang, sentences in stated.items():
        words = rules(lang)
        for key, parts in sentences.items():
            for part in parts:
                assert part in words[key], (lang, key, part)
