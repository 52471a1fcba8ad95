"""A table's own pages, in both languages, all along a game of each kind, take only their part of the
catalogue and ask it for no key it lacks (static/js/i18n.js lists such a key on
``<html data-i18n-missing>``): the table view takes ``<game>.view``, a player's page
``<game>.player``, the referee page ``<game>.referee`` (companion/web/i18n.py). The table view loads no
module of the referee's, and the Grand Jeu de la Vie's round played through (gjdlv_play.js) only on
a table played through.

One table per game (Il Morto, Le jeu existentiel, the Grand Jeu de la Vie's score sheet and played
through card by card), played to its end through the API with events drawn at random among those
the engine accepts (seeded: every run is the same run). The table view is opened at the start, at
each quarter of the game and at its end; the referee page at the start and at the end. The words
themselves are checked by tests/test_i18n_pages.py and the page walk (e2e/test_pages.py).
"""

from __future__ import annotations

import copy
import random

import pytest
from playwright.sync_api import expect

from e2e.test_offline import api
from engine import core
from engine.core import RuleError
from tests.test_gjdlv_play_generated import pick_event
from tests.test_playthrough import GENERATORS

LANGS = {"fr": "fr-FR", "en": "en-US"}
READY_MS = 15_000  # the referee page starts its engine (Pyodide) meanwhile
REFEREE_ONLY = ("_referee.js", "/actions.js", "/api.js", "/sync.js", "/outbox.js", "/engine.js")


def a_game(key: str) -> tuple[dict, list[dict]]:
    """A table's setup as POST /api/tables takes it, and the events of a whole game, accepted by the
    engine one after the other (drawn at random, seeded)."""
    rng = random.Random(f"view-words/{key}")
    if key == "gjdlv-tracker":
        players, options = ["Ada", "Bruno", "Chiara", "Dario"], {"mode": "tracker", "rounds": 5}
        pick = pick_event
    else:
        generator = GENERATORS[key](key)
        players, options = generator.table(rng)
        if key == "morto":
            options["lives"] = 3  # a game long enough to see deaths on the way
        pick = generator.event
    game = key.split("-", 1)[0]
    state, events = core.setup(game, players, options), []
    for _ in range(4000):
        view = core.view(game, state)
        if view["over"] or len(events) >= 400:
            break
        event = pick(rng, view)
        try:
            state = core.apply(game, state, event)
        except RuleError:
            continue
        events.append(copy.deepcopy(event))
    return {"game": game, "players": players, "options": options}, events


def open_page(phone, lang: str, path: str, tracker: bool) -> tuple[object, list[str]]:
    """The page in a phone of that language (no service worker: every module asked is the page's
    own), drawn; and the scripts it asked for."""
    context = phone(locale=LANGS[lang], service_workers="block")
    context.add_cookies([{"name": "lang", "value": lang, "url": phone.base_url}])  # the page's language
    scripts: list[str] = []
    context.on("request", lambda request: scripts.append(request.url))
    page = context.new_page()
    page.goto(path)
    expect(page.locator("#app > p.hint:only-child")).to_have_count(0, timeout=READY_MS)  # drawn
    if tracker:
        expect(page.locator("#turn")).to_be_visible()
    if "/p/" not in path:
        expect(page.locator("#story .story-panel")).to_be_attached()
    page.wait_for_load_state("networkidle")
    return page, [url for url in scripts if url.endswith(".js")]


def check(page, lang: str, part: str, where: str) -> None:
    assert page.get_attribute("html", "data-i18n").endswith(f"/{lang}/{part}.json"), where
    missing = page.evaluate("() => document.documentElement.dataset.i18nMissing || ''")
    assert not missing, f"{where} ({lang}) asked {part} for keys it lacks: {missing}"


@pytest.mark.parametrize("key", ["morto", "existentiel", "gjdlv", "gjdlv-tracker"])
def test_a_tables_pages_take_their_part_of_the_catalogue_all_along_a_game(phone, server, key):
    setup, events = a_game(key)
    game, tracker = setup["game"], key == "gjdlv-tracker"
    table = api(server, "/api/tables", setup)
    code, version = table["code"], table["version"]
    quarters = sorted({0, len(events) // 4, len(events) // 2, 3 * len(events) // 4, len(events)})
    posted = 0
    for moment in quarters:
        for event in events[posted:moment]:
            body = {"id": f"w{version}", "version": version, **event}
            answer = api(server, f"/api/tables/{code}/events", body, table["secret"])
            version = answer["version"]
        posted = moment
        state = answer["state"] if moment else table["state"]
        for lang in LANGS:
            # The table view, and a player's own page (which reuses the referee panel's pieces).
            for path, part in ((f"/t/{code}", "view"), (f"/t/{code}/p/p1", "player")):
                page, scripts = open_page(phone, lang, path, tracker and bool(state.get("play")))
                check(page, lang, f"{game}.{part}", f"{path} after {moment} events")
                if part == "view":
                    assert not [url for url in scripts if url.endswith(REFEREE_ONLY)], scripts
                played_through = any(url.endswith("/games/gjdlv_play.js") for url in scripts)
                assert played_through == bool(state.get("play")), (moment, scripts)
                page.context.close()
            if moment in (0, len(events)):
                referee = f"/r/{code}#s={table['secret']}"
                page, scripts = open_page(phone, lang, referee, tracker and bool(state.get("play")))
                expect(page.locator("#app[data-version]")).to_have_count(1, timeout=READY_MS)
                check(page, lang, f"{game}.referee", f"/r/{code} after {moment} events")
                assert any(url.endswith(f"/games/{game}_referee.js") for url in scripts), scripts
                page.context.close()
    assert state["over"] or len(events) >= 400
