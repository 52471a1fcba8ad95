"""What just happened, everywhere, in Chromium phones at 390×844: the line that says what the table's
latest version did, on the referee page and on every follower's; the players it changed highlighted
for a moment; the referee's "Défaire" saying what it will take back, and once done what it took
back; a follower's status saying how old the table's last action is, true as time passes; a page
that makes no request per tap besides the stream (and the referee's own tap); a referee page reloaded
offline that never draws a board without its waiting taps; and a bar that never wraps the table code.

Tables are made through the API; taps are made as a person makes them, on the referee's page.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from companion.web.i18n import catalogue
from e2e.conftest import morto_touch
from e2e.test_offline import ENGINE_TIMEOUT_MS, api, installed_referee
from engine.messages import fill

NAMES = ["Ada", "Bruno", "Chiara", "Dario", "Elena"]
CHANGED = re.compile(r"\bchanged\b")
READY_MS = 15_000  # a referee page starts its engine (Pyodide) meanwhile


def words(key: str, lang: str = "fr", **params) -> str:
    """A sentence of the catalogue as the pages word it (elided before a vowel in French)."""
    return fill(catalogue(lang)[key], params, lang)


def touched(name: str, player: str, lang: str = "fr") -> str:
    return words("morto.story.touched_early", lang, name=name, player=player)


def morto(server, names=NAMES, lives: int = 3) -> dict:
    return api(server, "/api/tables", {"game": "morto", "players": list(names), "options": {"lives": lives}})


def referee_page(phone, table: dict, **context) -> Page:
    page = phone(**context).new_page()
    page.goto(f"/r/{table['code']}#s={table['secret']}")
    synced(page)
    return page


def synced(page: Page) -> None:
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "0", timeout=READY_MS)
    expect(page.locator("#sync")).to_have_class(re.compile(r"\bok\b"), timeout=READY_MS)


def follower_page(phone, path: str, **context) -> Page:
    page = phone(**context).new_page()
    page.goto(path)
    expect(page.locator("#sync")).to_have_attribute("data-live", "1")
    return page


def touch(page: Page, player: str) -> None:
    morto_touch(page, player, press=lambda target: target.tap())


def test_everyone_sees_what_just_happened_and_the_undo_says_what_it_takes_back(phone, server, screenshot):
    table = morto(server)
    referee = referee_page(phone, table)
    follower = follower_page(phone, f"/t/{table['code']}")
    for page in (referee, follower):
        expect(page.locator("#happened")).to_have_text(words("ui.shell.happened.none"))
    expect(follower.locator("#sync")).to_have_text(words("ui.shell.fresh.none"))
    expect(referee.locator("#undo .undo-what")).to_have_text("")

    touch(referee, "p2")
    bruno = touched("Bruno", "p2")
    for page in (referee, follower):
        expect(page.locator("#happened")).to_have_text(bruno)
        expect(page.locator("#happened .happened-mark")).to_have_count(0)
        # The player it changed glows for a moment; the others do not.
        expect(page.locator("[data-player=p2]")).to_have_class(CHANGED)
        expect(page.locator("[data-player=p3]")).not_to_have_class(CHANGED)
    expect(follower.locator("#sync")).to_have_text("dernière action à l'instant")
    expect(referee.locator("#undo .undo-verb")).to_have_text("↶ Défaire")
    expect(referee.locator("#undo .undo-what")).to_have_text(bruno)
    expect(referee.locator("#undo")).to_have_attribute(
        "aria-label", words("ui.referee.undo_label", what=bruno)
    )
    screenshot(follower, "live-view-after-tap-fr")

    touch(referee, "p4")
    dario = touched("Dario", "p4")
    for page in (referee, follower):
        expect(page.locator("#happened")).to_have_text(dario)
        expect(page.locator("[data-player=p4]")).to_have_class(CHANGED)
    expect(referee.locator("#undo .undo-what")).to_have_text(dario)
    screenshot(referee, "live-referee-after-tap-fr")

    # Undo: it says what it took back, and then what the next undo would take back.
    referee.locator("#undo").tap()
    for page in (referee, follower):
        expect(page.locator("#happened")).to_have_text(f"{words('ui.shell.happened.undone')} {dario}")
        expect(page.locator("#happened .happened-mark")).to_have_text("Défait")
        expect(page.locator("[data-player=p4] .hearts")).to_have_attribute("data-lives", "3")
        expect(page.locator("[data-player=p4]")).to_have_class(CHANGED)
    expect(referee.locator("#undo .undo-what")).to_have_text(bruno)
    screenshot(referee, "live-referee-after-undo-fr")
    screenshot(follower, "live-view-after-undo-fr")
    # "Défaire" takes back; "Annuler" is never the undo (it only closes a dialog).
    expect(referee.locator(".dock")).not_to_contain_text("Annuler")


def test_in_english_the_line_and_the_undo_speak_english(phone, server):
    table = morto(server)
    referee = referee_page(phone, table, locale="en-US")
    follower = follower_page(phone, f"/t/{table['code']}", locale="en-US")
    touch(referee, "p3")
    chiara = touched("Chiara", "p3", "en")
    expect(follower.locator("#happened")).to_have_text(chiara)
    expect(referee.locator("#undo .undo-verb")).to_have_text("↶ Undo")
    expect(referee.locator("#undo .undo-what")).to_have_text(chiara)
    expect(follower.locator("#sync")).to_have_text("last action just now")
    referee.locator("#undo").tap()
    expect(follower.locator("#happened")).to_have_text(f"Undone {chiara}")


def counted(page: Page) -> list[str]:
    """Every request the page makes from now on (its workers' included), as "METHOD URL"."""
    seen: list[str] = []
    page.on("request", lambda request: seen.append(f"{request.method} {request.url}"))
    return seen


def test_a_tap_costs_every_page_no_request_but_the_stream_and_the_referees_own(phone, server, screenshot):
    """The table view, a player's own page (followed, and held as their seat) and the referee page,
    over several taps and an undo: the stream brings everything (the state, the line, the story
    panel's entries); a player's own move costs its phone its one request."""
    table = morto(server)
    referee = referee_page(phone, table)
    expect(referee.locator("#sync")).to_have_attribute("data-engine", "ready", timeout=ENGINE_TIMEOUT_MS)
    view = follower_page(phone, f"/t/{table['code']}")
    game = api(
        server,
        "/api/tables",
        {
            "game": "existentiel",
            "players": [{"name": "Ana", "birth_month": 3}, {"name": "Omar", "birth_month": 7}],
        },
    )
    player = follower_page(phone, f"/t/{game['code']}/p/p1")
    omar = api(server, f"/api/tables/{game['code']}/players/p2/secret", {}, game["secret"])["secret"]
    seat = follower_page(phone, f"/t/{game['code']}/p/p2#s={omar}")
    for page in (referee, view, player, seat):
        page.wait_for_load_state("networkidle")
    asked = {
        "referee": counted(referee),
        "view": counted(view),
        "player": counted(player),
        "seat": counted(seat),
    }

    for n, who in enumerate(("p2", "p3", "p4")):
        touch(referee, who)
        expect(view.locator("#happened")).to_have_attribute("data-version", str(n + 1))
    referee.locator("#undo").tap()
    expect(view.locator("#happened")).to_have_attribute("data-version", "4")
    synced(referee)
    for n, (kind, params) in enumerate(
        [
            ("roll", {"player": "p1", "die": 4}),
            ("accept", {"player": "p1"}),
            ("roll", {"player": "p2", "die": 2}),
        ]
    ):
        api(
            server,
            f"/api/tables/{game['code']}/events",
            {"id": f"g{n}", "type": kind, **params},
            game["secret"],
        )
        expect(player.locator("#happened")).to_have_attribute("data-version", str(n + 1))
        if n < 2:  # Ana's roll, Ana's acceptance: her own page glows (Omar's roll does not change her)
            expect(player.locator("section.player-page")).to_have_class(CHANGED)
    api(server, f"/api/tables/{game['code']}/undo", {}, game["secret"])
    expect(player.locator("#happened")).to_have_attribute("data-version", "4")
    expect(player.locator("#happened .happened-mark")).to_have_count(1)
    # Omar's roll, taken back, is his own to make again, from his phone: one request, its own.
    expect(seat.locator("#happened")).to_have_attribute("data-version", "4")
    seat.locator("#my-move .die[data-die='5']").tap()
    expect(player.locator("#happened")).to_have_attribute("data-version", "5")
    for page in (referee, view, player, seat):
        page.wait_for_timeout(500)  # anything a page would still ask for after its last tap
    own = re.compile(rf"^POST .*/api/tables/{table['code']}/(events|undo)$")
    print("requests per page over 3 taps and an undo (besides the stream):")
    for kind, seen in asked.items():
        taps = sum(1 for url in seen if own.match(url))
        print(f"  {kind}: {[url for url in seen if not own.match(url)]} (+ {taps} taps and undos of its own)")
    assert [url for url in asked["referee"] if not own.match(url)] == []
    assert len(asked["referee"]) == 4  # its three taps and its undo
    assert asked["view"] == [] and asked["player"] == []
    assert asked["seat"] == [f"POST {server}/api/tables/{game['code']}/events"]

    # The story panel was told by the stream: opened, it asks only for what it lacks (here nothing
    # older: the stream gave it every entry since the page opened, the first ones).
    view.locator("#story summary").tap()
    items = view.locator("#story .story-item")
    expect(items).to_have_count(3)
    expect(items.first.locator(".story-text")).to_have_text(touched("Dario", "p4"))
    expect(items.first).to_have_class(re.compile(r"\bundone\b"))
    expect(view.locator("#story summary")).to_have_text("Le fil de la partie (3)")
    assert [url for url in asked["view"] if "/history" in url] == []
    screenshot(view, "live-view-story-told-by-the-stream-fr")

    # A co-referee's tap and its undo (another phone, the same secret): the referee page moves the log
    # it keeps from the frames alone, asks for nothing, and its own next tap lands on the right version.
    before = len(asked["referee"])
    hearts = referee.locator("#seats [data-player=p5] .hearts")
    write = f"/api/tables/{table['code']}"
    api(server, f"{write}/events", {"id": "co1", "type": "touched_early", "player": "p5"}, table["secret"])
    expect(referee.locator("#happened")).to_have_attribute("data-version", "5")
    expect(hearts).to_have_attribute("data-lives", "2")
    api(server, f"{write}/undo", {"event": "co1"}, table["secret"])
    expect(referee.locator("#happened")).to_have_attribute("data-version", "6")
    expect(hearts).to_have_attribute("data-lives", "3")
    touch(referee, "p5")
    expect(view.locator("#happened")).to_have_attribute("data-version", "7")
    synced(referee)
    referee.wait_for_timeout(500)
    assert [url for url in asked["referee"][before:] if not own.match(url)] == []
    assert len(asked["referee"][before:]) == 1  # its own tap, accepted at once (no 409, no rebase)


def test_a_followers_freshness_is_the_age_of_the_last_action_as_time_passes(phone, server, screenshot):
    table = morto(server)
    context = phone()
    phone.allow_console_error(r"ERR_INTERNET_DISCONNECTED")
    view = context.new_page()
    view.clock.install()
    view.goto(f"/t/{table['code']}")
    expect(view.locator("#sync")).to_have_attribute("data-live", "1")
    api(
        server,
        f"/api/tables/{table['code']}/events",
        {"id": "t1", "type": "touched_early", "player": "p2"},
        table["secret"],
    )
    status = view.locator("#sync")
    expect(status).to_have_text("dernière action à l'instant")
    asked = counted(view)
    view.clock.fast_forward("02:30")
    expect(status).to_have_text("dernière action il y a 2 min")
    screenshot(view, "live-view-fresh-2min-fr")
    view.clock.fast_forward("01:00:00")
    expect(status).to_have_text("dernière action il y a 1 h")
    assert asked == []  # time passing costs no request
    context.set_offline(True)
    expect(status).to_have_text("hors ligne il y a 1 h")
    expect(status).to_have_class(re.compile(r"\boff\b"))
    context.set_offline(False)
    expect(status).to_have_attribute("data-live", "1", timeout=20_000)


def test_a_referee_page_reloaded_offline_draws_its_waiting_taps_before_the_board(phone, server, screenshot):
    table = morto(server)
    context, page = installed_referee(phone, server, table)
    phone.allow_console_error(r"ERR_INTERNET_DISCONNECTED")
    context.set_offline(True)
    touch(page, "p2")
    touch(page, "p3")
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "2")
    # Every board the page draws from now on is recorded: the first one must already show the taps.
    page.add_init_script(
        """new MutationObserver(() => {
          const hearts = (id) => document.querySelector(`#app [data-player=${id}] .hearts`)?.dataset.lives;
          if (window.__firstBoard === undefined && hearts("p2") !== undefined) {
            window.__firstBoard = { p2: hearts("p2"), p3: hearts("p3") };
          }
          if (document.getElementById("replaying")) window.__replaying = true;
        }).observe(document, { childList: true, subtree: true });"""
    )
    page.reload()
    expect(page.locator("#sync")).to_have_attribute("data-engine", "ready", timeout=ENGINE_TIMEOUT_MS)
    expect(page.locator("[data-player=p3] .hearts")).to_have_attribute("data-lives", "2")
    assert page.evaluate("window.__firstBoard") == {"p2": "2", "p3": "2"}
    assert page.evaluate("window.__replaying") is True  # the page said it was replaying, not a stale board
    expect(page.locator("#sync")).to_have_text("hors ligne · 2 en attente")
    expect(page.locator("#happened")).to_have_class(re.compile(r"\bstale\b"))  # not passed off as the latest
    expect(page.locator("#undo .undo-what")).to_have_text(words("ui.referee.undo_waiting"))
    screenshot(page, "live-referee-reloaded-offline-fr")
    context.set_offline(False)
    synced(page)
    expect(page.locator("#happened")).to_have_text(touched("Chiara", "p3"))


BAR = """() => {
  const code = document.querySelector(".bar .code");
  const box = code.getBoundingClientRect();
  const style = getComputedStyle(code);
  const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.4;
  const next = code.nextElementSibling?.getBoundingClientRect();
  return { height: box.height, line, right: box.right, clipped: code.scrollWidth > code.clientWidth,
    overlaps: next ? next.left < box.right : false };
}"""


def measure_bar(page: Page, where: str) -> None:
    measured = page.evaluate(BAR)
    assert measured["height"] < 1.5 * measured["line"], (where, measured)  # one line
    assert not measured["clipped"] and not measured["overlaps"] and measured["right"] <= 390, (
        where,
        measured,
    )


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_bar_never_wraps_the_table_code(phone, server, lang):
    """The table view and a player's page, online and offline; the referee page offline with taps
    waiting: each game, both languages, at 390 px."""
    locale = {"fr": "fr-FR", "en": "en-US"}[lang]
    phone.allow_console_error(r"ERR_INTERNET_DISCONNECTED")
    tables = [
        morto(server),
        api(
            server,
            "/api/tables",
            {"game": "existentiel", "players": [{"name": "Éloïse-Marguerite", "birth_month": 3}]},
        ),
        api(
            server,
            "/api/tables",
            {"game": "gjdlv", "players": ["Ada", "Bruno"], "options": {"mode": "tracker"}},
        ),
    ]
    for table in tables:
        api(server, f"/api/tables/{table['code']}/events", {"id": "b1", **first_move(table)}, table["secret"])
        paths = [f"/t/{table['code']}"] + (
            [f"/t/{table['code']}/p/p1"] if table["game"] == "existentiel" else []
        )
        for path in paths:
            page = follower_page(phone, path, locale=locale)
            measure_bar(page, path)
            page.context.set_offline(True)
            expect(page.locator("#sync")).to_have_attribute("data-live", "0")
            measure_bar(page, f"{path} offline")
            page.context.close()
    referee = referee_page(phone, tables[0], locale=locale)
    expect(referee.locator("#sync")).to_have_attribute("data-engine", "ready", timeout=ENGINE_TIMEOUT_MS)
    referee.context.set_offline(True)
    for player in ("p2", "p3", "p4"):
        touch(referee, player)
    expect(referee.locator("#sync")).to_have_attribute("data-waiting", "3")
    measure_bar(referee, "referee offline")


def first_move(table: dict) -> dict:
    return {
        "morto": {"type": "touched_early", "player": "p2"},
        "existentiel": {"type": "roll", "player": "p1", "die": 3},
        "gjdlv": {"type": "deal", "mouchoir": []},  # two players: ten GM each, none left
    }[table["game"]]
