"""What a page downloads besides its HTML: app.css and its game's own stylesheet only (a page of one
game never downloads another game's styles), and each game's stylesheet scoped to that game's pages.
The catalogue's part a page names is checked by tests/test_i18n.py."""

from __future__ import annotations

import re

from companion import ROOT
from engine.core import GAME_MODULES

GAMES_CSS = ROOT / "static" / "css" / "games"
# What scopes a game's rules: its data-game attribute, its body class, its own class prefix.
SCOPES = {
    "existentiel": ('[data-game="existentiel"]',),
    "gjdlv": (".gj-", '[data-game="gjdlv"]', ".game-gjdlv"),
}


def stylesheets(client, path: str) -> list[str]:
    page = client.get(path).get_data(as_text=True)
    return [re.sub(r"^/static/v/[0-9a-f]{12}/", "", href)
            for href in re.findall(r'<link rel="stylesheet" href="([^"]+)"', page)]


def test_a_page_links_app_css_and_its_games_stylesheet_only(client, make_table):
    table = make_table()  # Il Morto: its styles are app.css's
    for path in ("/", f"/r/{table.code}", f"/t/{table.code}", "/new/morto", "/rules"):
        assert stylesheets(client, path) == ["css/app.css"], path
    assert stylesheets(client, "/new/existentiel") == ["css/app.css", "css/games/existentiel.css"]
    assert stylesheets(client, "/new/gjdlv") == ["css/app.css", "css/games/gjdlv.css"]
    assert stylesheets(client, "/rules/gjdlv") == ["css/app.css", "css/games/gjdlv.css"]
    # The snapshot page may show any game.
    assert stylesheets(client, "/s") == ["css/app.css", "css/games/existentiel.css", "css/games/gjdlv.css"]


def test_every_rule_of_a_games_stylesheet_is_scoped_to_that_game():
    assert {path.stem for path in GAMES_CSS.glob("*.css")} <= set(GAME_MODULES)
    for path in GAMES_CSS.glob("*.css"):
        text = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
        text = re.sub(r"@media[^{]*\{", "", text)  # a media query wraps rules: its rules are checked
        for selectors in re.findall(r"([^{}]+)\{[^{}]*\}", text):
            for selector in selectors.split(","):
                assert any(scope in selector for scope in SCOPES[path.stem]), (path.name, selector.strip())


def test_the_service_worker_keeps_every_games_stylesheet(client):
    sw = client.get("/sw.js").get_data(as_text=True)
    for game in ("existentiel", "gjdlv"):
        assert re.search(rf'"/static/v/[0-9a-f]{{12}}/css/games/{game}\.css"', sw), game
