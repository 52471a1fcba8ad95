"""What a page downloads besides its HTML: app.css, pages.css (but on a table view) and its game's own
stylesheets only (a page of one game never downloads another game's styles, a table view never the
referee's), and each game's stylesheets scoped to that game's pages. The catalogue's part a page
names is checked by tests/test_i18n.py."""

from __future__ import annotations

import re

from companion import ROOT
from engine.core import GAME_MODULES

GAMES_CSS = ROOT / "static" / "css" / "games"
# What scopes a game's rules: its data-game attribute, its body class, its own class prefix.
SCOPES = {
    "morto": (".game-morto",),
    "existentiel": ('[data-game="existentiel"]',),
    "gjdlv": (".gj-", '[data-game="gjdlv"]', ".game-gjdlv"),
}


def stylesheets(client, path: str) -> list[str]:
    page = client.get(path).get_data(as_text=True)
    return [
        re.sub(r"^/static/v/[0-9a-f]{12}/", "", href)
        for href in re.findall(r'<link rel="stylesheet" href="([^"]+)"', page)
    ]


def test_a_page_links_app_css_and_its_games_stylesheet_only(client, make_table):
    # Il Morto: its table view's styles are app.css's; its referee's round card is morto_referee.css.
    table = make_table()
    for path in ("/", "/rules"):
        assert stylesheets(client, path) == ["css/app.css", "css/pages.css"], path
    for path in (f"/r/{table.code}", "/new/morto", "/rules/morto"):
        assert stylesheets(client, path) == ["css/app.css", "css/pages.css", "css/games/morto_referee.css"], (
            path
        )
    assert stylesheets(client, f"/t/{table.code}") == ["css/app.css"]  # what a table view draws, only
    existentiel = ["css/games/existentiel.css", "css/games/existentiel_referee.css"]
    gjdlv = ["css/games/gjdlv.css", "css/games/gjdlv_referee.css"]
    assert stylesheets(client, "/new/existentiel") == ["css/app.css", "css/pages.css", *existentiel]
    assert stylesheets(client, "/new/gjdlv") == ["css/app.css", "css/pages.css", *gjdlv]
    assert stylesheets(client, "/rules/gjdlv") == ["css/app.css", "css/pages.css", *gjdlv]
    game = make_table(game="existentiel", players=[{"name": "Ada", "birth_month": 3}])
    assert stylesheets(client, f"/r/{game.code}") == ["css/app.css", "css/pages.css", *existentiel]
    assert stylesheets(client, f"/t/{game.code}") == ["css/app.css", "css/games/existentiel.css"]
    # A player's own page records their moves with the referee panel's pieces, and their styles.
    assert stylesheets(client, f"/t/{game.code}/p/p1") == ["css/app.css", "css/pages.css", *existentiel]
    # The snapshot page may show any game.
    assert stylesheets(client, "/s") == [
        "css/app.css",
        "css/pages.css",
        "css/games/morto_referee.css",
        *existentiel,
        *gjdlv,
    ]


def test_every_rule_of_a_games_stylesheet_is_scoped_to_that_game():
    # `<game>.css`, and `<game>_referee.css` (what its pages but the table view draw)
    assert {path.stem.removesuffix("_referee") for path in GAMES_CSS.glob("*.css")} <= set(GAME_MODULES)
    for path in GAMES_CSS.glob("*.css"):
        text = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
        text = re.sub(r"@media[^{]*\{", "", text)  # a media query wraps rules: its rules are checked
        for selectors in re.findall(r"([^{}]+)\{[^{}]*\}", text):
            for selector in selectors.split(","):
                assert any(scope in selector for scope in SCOPES[path.stem.removesuffix("_referee")]), (
                    path.name,
                    selector.strip(),
                )


def test_the_service_worker_keeps_every_games_stylesheet(client):
    sw = client.get("/sw.js").get_data(as_text=True)
    for game in ("morto_referee", "existentiel", "existentiel_referee", "gjdlv", "gjdlv_referee"):
        assert re.search(rf'"/static/v/[0-9a-f]{{12}}/css/games/{game}\.css"', sw), game
