"""The rules in short (companion/web/rules.py): the pages in both languages, and the rule each refusal names.

The refusal codes are read from the engine's source, the way tests/test_gjdlv.py finds what a game
raises: every code given to `InvalidEvent` / `IllegalEvent` (as a literal, as an f-string family, or
through a local ``code = "…" if … else "…"``), so a new refusal without a rule fails here.
"""

from __future__ import annotations

import ast
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from companion.web import i18n
from companion.web.rules import SECTIONS, sections
from engine import gjdlv_play
from engine.core import GAME_MODULES
from engine.messages import COMMON, catalogue, forms
from engine.rulebook import RULES, rule_for, rule_url

ENGINE = Path(__file__).resolve().parent.parent / "engine"
RAISERS = {"InvalidEvent", "IllegalEvent"}
# The members of the codes the engine builds with an f-string: the phase the table expects, and
# where a card already is.
FAMILIES = {
    "gjdlv.play.expect.": tuple(gjdlv_play.PHASES),
    "gjdlv.play.seen.": ("mouchoir", "diva_cup", "revealed", "uterus", "nursery", "formol", "contest"),
}


def _strings(node: ast.AST) -> set[str]:
    """The string constants an expression may evaluate to (``"a" if x else "b"`` gives both)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.IfExp):
        return _strings(node.body) | _strings(node.orelse)
    return set()


def raised_codes() -> set[str]:
    """Every code the engine's modules raise a refusal with."""
    codes: set[str] = set()
    for path in sorted(ENGINE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.Module)):
                continue
            assigned: dict[str, set[str]] = {}
            for node in ast.walk(function):
                if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                    assigned.setdefault(node.targets[0].id, set()).update(_strings(node.value))
            for node in ast.walk(function):
                if not (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id in RAISERS
                    and node.args
                ):
                    continue
                first = node.args[0]
                if isinstance(first, ast.JoinedStr):
                    head = first.values[0]
                    prefix = head.value if isinstance(head, ast.Constant) else ""
                    assert prefix in FAMILIES, f"{path.name}:{node.lineno}: an unknown family {prefix!r}"
                    codes |= {prefix + member for member in FAMILIES[prefix]}
                elif isinstance(first, ast.Name):
                    codes |= assigned.get(first.id, set())
                else:
                    codes |= _strings(first)
    return codes


def game_codes() -> set[str]:
    """The refusals a rule of a game forbids: raised, and worded in that game's own catalogue."""
    worded = set(catalogue()) - set(COMMON)
    return {code for code in raised_codes() if code in worded}


# --- the mapping -----------------------------------------------------------------------------------


def test_the_engine_raises_codes_of_every_game_and_the_families_are_found():
    codes = raised_codes()
    for game in GAME_MODULES:
        assert any(code.startswith(game + ".") for code in codes), game
    assert {
        "morto.dealer_may_speak",
        "gjdlv.play.expect.action",
        "gjdlv.play.seen.mouchoir",
        "gjdlv.play.abort_card_or_jack",
        "game_over",
        "unknown_player",
    } <= codes
    # Every raised code is worded somewhere: the scan reads real codes, not fragments.
    assert all(forms(code) for code in codes), sorted(code for code in codes if not forms(code))


def test_every_refusal_of_a_game_links_to_an_anchor_of_its_page():
    missing = []
    for code in sorted(game_codes()):
        rule = rule_for(code)
        game = code.split(".", 1)[0]
        if rule is None or rule[0] != game or rule[1] not in SECTIONS[game]:
            missing.append(f"{code} -> {rule}")
    assert not missing, "refusals without a rule of their game's page:\n" + "\n".join(missing)


def test_every_mapping_entry_names_an_existing_anchor_and_a_real_code():
    codes = set(catalogue())
    for key, (game, anchor) in RULES.items():
        assert anchor in SECTIONS[game], key
        if key.endswith("*"):
            assert any(code.startswith(key[:-1]) for code in codes), f"{key} covers no code"
        else:
            assert forms(key), f"{key} is no code"


def test_codes_shared_by_every_game_have_no_rule():
    for code in COMMON:
        assert rule_url(code) is None, code
    assert rule_url("no.such.code") is None


def test_the_exact_code_wins_over_a_prefix_and_the_longest_prefix_wins():
    assert rule_url("morto.dealer_may_speak") == "/rules/morto#dead"
    assert rule_url("gjdlv.play.seen.formol") == "/rules/gjdlv#cards"  # not gjdlv.play.*
    assert rule_url("gjdlv.play.expect.action") == "/rules/gjdlv#round"
    assert rule_url("gjdlv.play.round_goes_on") == "/rules/gjdlv#last-lap"
    assert rule_url("gjdlv.check.surrogate_not_closer") == "/rules/gjdlv#surrogacy"
    assert rule_url("existentiel.adventures_underway") == "/rules/existentiel#rendezvous"


# --- the pages -------------------------------------------------------------------------------------


class Page(HTMLParser):
    """The ids, the page's language and its visible text of one HTML page."""

    def __init__(self, html: str):
        super().__init__()
        self.ids: set[str] = set()
        self.lang = None
        self.links: list[str] = []
        self.text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "html":
            self.lang = attrs.get("lang")
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])

    def handle_data(self, data):
        if data.strip():
            self.text.append(" ".join(data.split()))


@pytest.fixture(scope="module")
def pages():
    """A client for the pages alone: they read no table, so no database is needed."""
    from companion import create_app

    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": "sqlite://"})
    return app.test_client()


def get(pages, path: str, lang: str):
    pages.set_cookie("lang", lang)
    return pages.get(path)


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("game", sorted(SECTIONS))
def test_a_game_page_has_every_anchor_in_its_language(pages, game, lang):
    response = get(pages, f"/rules/{game}", lang)
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    page = Page(response.get_data(as_text=True))
    assert page.lang == lang
    assert set(SECTIONS[game]) <= page.ids
    assert {f"#{anchor}" for anchor in SECTIONS[game]} <= set(page.links)  # the contents
    words = i18n.catalogue(lang)
    for section in sections(game):
        assert section["blocks"], f"{game}#{section['anchor']} says nothing"
        keys = [section["title"]] + [
            key for block in section["blocks"] for key in ([block["p"]] if "p" in block else block["ul"])
        ]
        for key in keys:
            assert key in words, key
            assert " ".join(words[key].split()) in page.text, key
    assert "<script" not in response.get_data(as_text=True).split("<main", 1)[1]  # nothing to run


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_index_links_to_every_game(pages, lang):
    response = get(pages, "/rules", lang)
    assert response.status_code == 200
    page = Page(response.get_data(as_text=True))
    assert {f"/rules/{game}" for game in SECTIONS} <= set(page.links)
    assert i18n.catalogue(lang)["ui.rules.index.title"] in page.text


def test_the_languages_differ_and_have_the_same_keys():
    fr, en = i18n.interface("fr"), i18n.interface("en")
    keys = [key for key in fr if key.startswith("ui.rules.")]
    assert keys and keys == [key for key in en if key.startswith("ui.rules.")]
    translated = [key for key in keys if fr[key] != en[key]]
    # Only names read the same in both languages: the Italian cards' (the games' are `ui.game.<id>`,
    # which the index of the rules says too: one key for one name).
    assert set(keys) - set(translated) == {"ui.rules.morto.cards.li2"}
    assert not {f"ui.rules.{game}.name" for game in SECTIONS} & fr.keys()


@pytest.mark.parametrize("path", ["/rules/poker", "/rules/Morto", "/rules/morto/dead"])
def test_an_unknown_game_is_not_found(pages, path):
    response = get(pages, path, "fr")
    assert response.status_code == 404
    assert response.mimetype == "text/html"


# --- refusals through the API ----------------------------------------------------------------------


def test_a_refusal_names_its_rule(make_table):
    table = make_table("morto")  # p1 deals
    for _ in range(3):
        table.event("touched_early", player="p3")
    response = table.post("spoke_to_dead", living="p1", dead="p3")
    assert response.status_code == 422
    error = response.get_json()["error"]
    assert error["code"] == "morto.dealer_may_speak"
    assert error["rule"] == "/rules/morto#dead"
    # The link leads to a page that has that section.
    page = table.client.get("/rules/morto")
    assert page.status_code == 200 and 'id="dead"' in page.get_data(as_text=True)


def test_a_check_refusal_names_its_rule(make_table):
    table = make_table("gjdlv", players=["Ada", "Bruno", "Chiara"], options={"rules": "abondantes"})
    response = table.post("newborn", player="p1", gf="4H", gm="KS")
    assert response.status_code == 422
    error = response.get_json()["error"]
    assert error["code"] == "gjdlv.imperial_needs_royal"
    assert error["rule"] == "/rules/gjdlv#fecundation"


def test_a_refusal_without_a_rule_has_no_rule_key(make_table, client):
    table = make_table("morto")
    response = table.post("touched_early", player="p9")
    assert response.status_code == 422
    error = response.get_json()["error"]
    assert error["code"] == "unknown_player"
    assert "rule" not in error
    missing = client.get("/api/tables/ZZZZZZ").get_json()["error"]
    assert missing["code"] == "unknown_table" and "rule" not in missing


def test_rule_urls_have_the_documented_shape():
    for code in sorted(game_codes()):
        assert re.fullmatch(r"/rules/(morto|existentiel|gjdlv)#[a-z-]+", rule_url(code)), code


def test_the_pages_of_a_table_and_the_home_page_link_to_the_rules(make_table, client):
    table = make_table("gjdlv", ["Ada", "Bruno"])
    for page in (f"/r/{table.code}", f"/t/{table.code}"):
        assert 'href="/rules/gjdlv"' in client.get(page).get_data(as_text=True)
    assert 'href="/rules"' in client.get("/").get_data(as_text=True)
