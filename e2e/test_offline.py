"""Offline refereeing in Chromium with the network really cut (``set_offline``).

The referee installs the app (service worker ready, engine worker ready), loses the network, keeps
tapping — refusals come from the engine on the phone, undo works — reloads while still offline and
loses nothing; when the network returns, the server has exactly those events, once each, in order.
Also: a co-referee's write meanwhile (the conflict case), the follower that goes offline, and the
snapshot QR opened with no network on a second phone.
"""

from __future__ import annotations

import json
import re
import urllib.request

from playwright.sync_api import expect

from e2e.conftest import morto_touch

ENGINE_TIMEOUT_MS = 90_000  # Pyodide compiles ~10 MB of wasm: slow on a busy 2-core machine
SYNC_TIMEOUT_MS = 20_000


def api(base: str, path: str, body=None, secret: str | None = None):
    headers = {"Content-Type": "application/json"}
    if secret:
        headers["Authorization"] = f"Bearer {secret}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as r:
        return json.load(r)


def installed_referee(phone, server, table):
    """A phone that opened the referee page and has the app installed: service worker and engine ready,
    and the engine runtime kept by the service worker (the referee page asked for it)."""
    context = phone()
    page = context.new_page()
    page.goto(f"/r/{table['code']}#s={table['secret']}")
    expect(page.locator("html")).to_have_attribute("data-sw", "ready", timeout=ENGINE_TIMEOUT_MS)
    expect(page.locator("#sync")).to_have_attribute("data-engine", "ready", timeout=ENGINE_TIMEOUT_MS)
    expect(page.locator("html")).to_have_attribute("data-engine-cached", "yes")
    return context, page


def lives(page, player: str) -> int:
    return int(page.locator(f"[data-player={player}] .hearts").get_attribute("data-lives"))


def open_full_reveal(page) -> None:
    """Il Morto's full reveal, every card: one tap from the round card, then open from round to round."""
    if page.locator("#full-sheet").count() == 0:
        page.click("#full-reveal")
    expect(page.locator("#full-sheet")).to_be_visible()


def reveal(page, cards: dict[str, int]) -> None:
    open_full_reveal(page)
    for player, rank in cards.items():
        page.click(f"[data-reveal={player}] [data-rank='{rank}']")
    page.click("#confirm-reveal")


def history(server, code):
    return api(server, f"/api/tables/{code}/history")["events"]


def test_thirty_offline_taps_in_il_morto_reach_the_server_once_in_order(phone, server):
    names = ["Alice", "Bruno", "Chloé", "Dario", "Emma", "Farid"]
    table = api(server, "/api/tables", {"game": "morto", "players": names, "options": {"lives": 9}})
    context, page = installed_referee(phone, server, table)
    phone.allow_console_error(r"ERR_INTERNET_DISCONNECTED")
    context.set_offline(True)

    expected = []  # the events the server must end up with, in order: (type, key detail, undone)
    taps = 0
    for round_number in range(1, 5):
        dealer = page.locator("[data-dealer]").get_attribute("data-dealer")
        toucher = next(f"p{i}" for i in range(1, 7) if f"p{i}" != dealer)
        before = lives(page, toucher)
        morto_touch(page, toucher)
        expect(page.locator(f"[data-player={toucher}] .hearts")).to_have_attribute(
            "data-lives", str(before - 1)
        )
        expected.append(("touched_early", toucher))
        taps += 1
        open_full_reveal(page)
        order = [el.get_attribute("data-reveal") for el in page.locator("[data-reveal]").all()]
        # A refusal first: five Assi when the deck has four — the phone's engine says which rule.
        if round_number == 1:
            reveal(page, dict.fromkeys(order, 1))
            expect(page.locator("#toast")).to_contain_text("quatre")
            expect(page.locator("#toast")).not_to_contain_text("only four")  # one language at a time
            taps += 1
        cards = {player: 2 + (i % 8) for i, player in enumerate(order)}
        loser = min(cards, key=cards.get)
        before = lives(page, loser)
        reveal(page, cards)
        expect(page.locator("[data-round]")).to_have_attribute("data-round", str(round_number + 1))
        assert lives(page, loser) == before - 1
        expected.append(("reveal", json.dumps(cards, sort_keys=True)))
        taps += 1
        # More touches, each its own event, to pass thirty taps.
        dealer_now = page.locator("[data-dealer]").get_attribute("data-dealer")
        for player in [p for p in order if p != dealer_now][:5]:
            morto_touch(page, player)
            expected.append(("touched_early", player))
            taps += 1
        expect(page.locator("#sync")).to_have_attribute("data-waiting", str(len(expected)))

    # Undo, offline: the last touch is taken back on screen at once, and will reach the server too.
    undone_player = expected[-1][1]
    before = lives(page, undone_player)
    page.click("#undo")
    expect(page.locator(f"[data-player={undone_player}] .hearts")).to_have_attribute(
        "data-lives", str(before + 1)
    )
    taps += 1
    assert taps >= 30
    expect(page.locator("#sync")).to_contain_text("hors ligne")
    screen = {p: lives(page, p) for p in (f"p{i}" for i in range(1, 7))}

    # Reload with no network: the page comes from the service worker, the taps from IndexedDB.
    page.reload()
    expect(page.locator("#sync")).to_have_attribute("data-engine", "ready", timeout=ENGINE_TIMEOUT_MS)
    expect(page.locator("#sync")).to_have_attribute("data-waiting", str(len(expected) + 1))
    assert {p: lives(page, p) for p in screen} == screen
    # (Chromium's emulated cut can let a request out whose answer is then lost: that tap stays in the
    # outbox and its retry, with the same id, is applied once — what the end of this test checks.)

    context.set_offline(False)
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "0", timeout=SYNC_TIMEOUT_MS)
    expect(page.locator("#sync")).to_contain_text("synchronisé")
    events = history(server, table["code"])
    seen = [
        (
            e["event"]["type"],
            e["event"]["player"]
            if e["event"]["type"] == "touched_early"
            else json.dumps(e["event"]["cards"], sort_keys=True),
        )
        for e in events
    ]
    assert seen == expected
    assert len({e["id"] for e in events}) == len(events)
    assert [e["undone"] for e in events] == [False] * (len(events) - 1) + [True]
    server_state = api(server, f"/api/tables/{table['code']}")["state"]
    assert {p["id"]: p["lives"] for p in server_state["players"]} == screen


def test_conflict_with_a_co_referee_is_rebased_and_refusals_are_shown(phone, server):
    table = api(
        server,
        "/api/tables",
        {"game": "morto", "players": ["Ana", "Ben", "Cyd", "Dom"], "options": {"lives": 1}},
    )
    context, page = installed_referee(phone, server, table)
    phone.allow_console_error(r"ERR_INTERNET_DISCONNECTED")
    context.set_offline(True)
    morto_touch(page, "p3")  # offline: Cyd touched early and dies
    morto_touch(page, "p4")  # and Dom
    page.click("#undo")  # the referee changes their mind about Dom
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "3")

    # Meanwhile a co-referee, online, records that Ben touched early: the server moved on.
    api(
        server,
        f"/api/tables/{table['code']}/events",
        {"id": "co-1", "type": "touched_early", "player": "p2"},
        secret=table["secret"],
    )

    context.set_offline(False)
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "0", timeout=SYNC_TIMEOUT_MS)
    # The phone's taps were replayed on top of the co-referee's and all still held: sent, in order.
    events = history(server, table["code"])
    assert [(e["id"] == "co-1", e["event"]["player"], e["undone"]) for e in events] == [
        (True, "p2", False),
        (False, "p3", False),
        (False, "p4", True),
    ]
    expect(page.locator("[data-rejected]")).to_have_count(0)
    server_state = api(server, f"/api/tables/{table['code']}")["state"]
    assert [p["alive"] for p in server_state["players"]] == [True, False, False, True]
    for player in server_state["players"]:
        expect(page.locator(f"[data-player={player['id']}] .hearts")).to_have_attribute(
            "data-lives", str(player["lives"])
        )


def test_a_tap_the_co_referee_made_illegal_is_set_aside_with_its_reason(phone, server):
    table = api(
        server,
        "/api/tables",
        {"game": "morto", "players": ["Ana", "Ben", "Cyd", "Dom"], "options": {"lives": 1}},
    )
    context, page = installed_referee(phone, server, table)
    phone.allow_console_error(r"ERR_INTERNET_DISCONNECTED")
    context.set_offline(True)
    morto_touch(page, "p3")  # offline: Cyd touched early
    morto_touch(page, "p2")  # and Ben
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "2")

    # The co-referee already recorded Cyd's touch: Cyd is dead on the server.
    api(
        server,
        f"/api/tables/{table['code']}/events",
        {"id": "co-1", "type": "touched_early", "player": "p3"},
        secret=table["secret"],
    )
    context.set_offline(False)
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "0", timeout=SYNC_TIMEOUT_MS)

    # Cyd's second death is refused by the rules and shown with the reason; Ben's touch went through.
    rejected = page.locator("[data-rejected]")
    expect(rejected).to_have_count(1)
    expect(rejected).to_contain_text("est mort·e")
    expect(rejected).not_to_contain_text("is dead")  # one language at a time
    events = history(server, table["code"])
    assert [(e["id"] == "co-1", e["event"]["player"]) for e in events] == [(True, "p3"), (False, "p2")]
    expect(page.locator("[data-player=p2] .hearts")).to_have_attribute("data-lives", "0")
    rejected.get_by_role("button", name="Vu").click()
    expect(rejected).to_have_count(0)


def test_follower_offline_keeps_the_last_state_and_reconnects(phone, server):
    table = api(server, "/api/tables", {"game": "morto", "players": ["Ana", "Ben", "Cyd"]})
    follower = phone()
    requests = []  # the page's, its workers' and its service worker's (the precache) alike
    follower.on("request", lambda request: requests.append(request.url))
    phone.allow_console_error(r"ERR_INTERNET_DISCONNECTED|Failed to load resource")
    view = follower.new_page()
    view.goto(f"/t/{table['code']}")
    expect(view.locator("html")).to_have_attribute("data-sw", "ready", timeout=ENGINE_TIMEOUT_MS)
    # A follower never downloads the engine: no Pyodide runtime, no engine bundle, even precached.
    assert any("/static/v/" in url for url in requests)  # the service worker's precache was seen
    assert not [url for url in requests if "/pyodide/" in url or "/engine/bundle.json" in url]
    expect(view.locator("#sync")).to_have_attribute("data-live", "1")
    api(
        server,
        f"/api/tables/{table['code']}/events",
        {"id": "e1", "type": "touched_early", "player": "p2"},
        secret=table["secret"],
    )
    expect(view.locator("[data-player=p2] .hearts")).to_have_attribute("data-lives", "2")

    follower.set_offline(True)
    expect(view.locator("#sync")).to_have_text("hors ligne à l'instant")  # the last action it heard of
    view.reload()  # no network: the page from the service worker, the state from the phone's memory
    expect(view.locator("[data-player=p2] .hearts")).to_have_attribute("data-lives", "2")
    expect(view.locator("#sync")).to_have_text("hors ligne à l'instant")

    api(
        server,
        f"/api/tables/{table['code']}/events",
        {"id": "e2", "type": "touched_early", "player": "p3"},
        secret=table["secret"],
    )
    follower.set_offline(False)
    expect(view.locator("#sync")).to_have_attribute("data-live", "1", timeout=SYNC_TIMEOUT_MS)
    expect(view.locator("[data-player=p3] .hearts")).to_have_attribute("data-lives", "2")
    assert not [url for url in requests if "/pyodide/" in url]


def test_snapshot_qr_opens_on_a_second_phone_with_no_network(phone, server):
    table = api(
        server,
        "/api/tables",
        {"game": "morto", "players": ["Ana", "Ben", "Cyd", "Dom"], "options": {"lives": 1}},
    )
    api(
        server,
        f"/api/tables/{table['code']}/events",
        {"id": "e1", "type": "touched_early", "player": "p3"},
        secret=table["secret"],
    )
    referee, page = installed_referee(phone, server, table)
    phone.allow_console_error(r"ERR_INTERNET_DISCONNECTED|Failed to load resource")
    referee.set_offline(True)  # the server cannot be reached at all
    page.click("#more")
    page.click("#snapshot")
    dialog = page.locator("#qr-dialog")
    expect(dialog.locator("svg")).to_be_visible()
    url = dialog.locator("#qr-url").get_attribute("href")
    assert url.startswith(f"{server}/s#")

    # A player's phone that has the app installed (it visited once, online), then no network.
    player = phone()
    home = player.new_page()
    home.goto("/")
    expect(home.locator("html")).to_have_attribute("data-sw", "ready", timeout=ENGINE_TIMEOUT_MS)
    player.set_offline(True)
    snap = player.new_page()
    snap.goto(url)
    expect(snap.locator("#dead [data-dead=p3]")).to_have_text("Cyd")
    expect(snap.locator("#snapshot-age")).to_contain_text("instantané de")
    for pid, count in (("p1", 1), ("p2", 1), ("p3", 0), ("p4", 1)):
        expect(snap.locator(f"[data-player={pid}] .hearts")).to_have_attribute("data-lives", str(count))


def test_two_taps_in_the_same_instant_are_each_checked_after_the_other(phone, server):
    table = api(server, "/api/tables", {"game": "morto", "players": ["Ana", "Ben", "Cyd", "Dom"]})
    context, page = installed_referee(phone, server, table)
    phone.allow_console_error(r"ERR_INTERNET_DISCONNECTED")
    context.set_offline(True)
    # The three taps land before the first one's check has come back from the engine worker (each
    # through the Infraction control: who, then what, drawn at once after every click).
    page.evaluate("""() => {
      for (const player of ["p2", "p3", "p2"]) {
        document.querySelector("#infraction").click();
        document.querySelector(`#seats button[data-player=${player}]`).click();
        document.querySelector("#offence [data-action=touched_early]").click();
      }
    }""")
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "3")
    expect(page.locator("[data-player=p2] .hearts")).to_have_attribute("data-lives", "1")
    expect(page.locator("[data-player=p3] .hearts")).to_have_attribute("data-lives", "2")
    context.set_offline(False)
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "0", timeout=SYNC_TIMEOUT_MS)
    assert [e["event"]["player"] for e in history(server, table["code"])] == ["p2", "p3", "p2"]


def test_a_table_this_phone_never_kept_has_no_base(phone):
    """Regression: a lookup that finds nothing answered the IndexedDB request itself (truthy, with no
    log in it), so a referee page could skip fetching its log and send the engine a projection with no
    events, when the engine was ready before the live stream's first answer."""
    page = phone().new_page()
    page.goto("/")
    kept = page.evaluate("""async () => {
        const box = await import("/static/js/outbox.js");
        await box.saveBase({ code: "KEPT01", version: 3, events: [] });
        return [await box.loadBase("NEVER1"), (await box.loadBase("KEPT01")).version];
    }""")
    assert kept == [None, 3]


def test_a_first_load_takes_its_page_only_and_the_rest_of_the_app_once_idle(phone, server):
    """A table view of Il Morto downloads Il Morto's module and its table view's part of the catalogue
    only (not the referee's modules); once it is loaded and idle, its service worker precaches the
    rest of the app (the other games' modules and styles, ``/`` and ``/s``, the language's whole
    catalogue), each request marked as such; then the installed app opens the home page and the
    snapshot page with no network, worded."""
    table = api(server, "/api/tables", {"game": "morto", "players": ["Ana", "Ben", "Cyd"]})
    follower = phone()
    requests = []  # (URL, its X-Arbitre-Precache header): the page's, its service worker's
    follower.on(
        "request", lambda request: requests.append((request.url, request.headers.get("x-arbitre-precache")))
    )
    phone.allow_console_error(r"ERR_INTERNET_DISCONNECTED|Failed to load resource")
    view = follower.new_page()
    view.goto(f"/t/{table['code']}")
    expect(view.locator("html")).to_have_attribute("data-sw", "ready", timeout=ENGINE_TIMEOUT_MS)
    own = [url for url, mark in requests if mark is None]
    later = [url for url, mark in requests if mark == "idle"]
    assert any(re.search(r"/i18n/[0-9a-f]{12}/fr/morto\.view\.json$", url) for url in own)
    assert any(url.endswith("/js/games/morto.js") for url in own)
    others = re.compile(
        r"/games/(gjdlv|gjdlv_play|existentiel)\.(js|css)$|_referee\.(js|css)$|/all\.json$"
        r"|/i18n/fr\.json$"
    )
    assert not [url for url in own if others.search(url)]
    assert any(url.endswith("/js/games/gjdlv.js") for url in later)
    assert any(url.endswith("/css/games/existentiel.css") for url in later)
    assert any(re.search(r"/i18n/[0-9a-f]{12}/fr/all\.json$", url) for url in later)

    follower.set_offline(True)
    home = follower.new_page()
    home.goto("/")
    expect(home.get_by_role("heading", name="Nouvelle table", exact=True)).to_be_visible()
    row = home.locator(f"#my-tables > li[data-code='{table['code']}']")
    expect(row.locator(".my-summary")).to_contain_text("Tour 1")  # Il Morto's words, offline
    assert home.evaluate("""async () => {
      const css = document.querySelector("link[rel=stylesheet]").href;
      return (await fetch(css.replace("css/app.css", "js/games/gjdlv.js"))).ok;
    }""")
    snap = follower.new_page()
    snap.goto("/s")  # no snapshot in the URL: said so, in words
    expect(snap.locator("#app .error")).to_be_visible()
    assert "ui.snapshot" not in snap.locator("#app").inner_text()
