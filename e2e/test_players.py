"""Every player on their own phone (issue 27), in Chromium phones at 390×844: the referee gives a
player their seat from the referee page (a QR whose URL carries the player's secret in its fragment),
another phone opens that URL as a scan would, keeps the seat ("Mes tables": joueur·euse · Ana), sees
its player's own view and records its player's own moves; the referee's page and the other phones
see them. A move that did not reach the server says so and offers to retry; one the server refuses
(a race lost, a seat taken back) says why and changes nothing. Il Morto's dead player gets the
full-screen warning (and a vibration), and the full-screen welcome when a life brings them back.

Tables are made through the API; the referee's and the players' taps are made as people make them.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from companion.web.i18n import catalogue
from e2e.test_live_pages import READY_MS, synced
from e2e.test_offline import ENGINE_TIMEOUT_MS, api, history
from e2e.test_pages import check_axe
from engine.messages import fill

SECRET_IN_FRAGMENT = re.compile(r"/t/[0-9A-Z]+/p/p\d+#s=[^&]+$")
# A vibration is an extra the phone may lack: recorded here, to see that the page asked for one.
VIBRATIONS = """window.__vibrations = [];
navigator.vibrate = (pattern) => { window.__vibrations.push(pattern); return true; };"""


def words(key: str, lang: str = "fr", **params) -> str:
    """A sentence of the catalogue as the pages word it (elided before a vowel in French)."""
    return fill(catalogue(lang)[key], params, lang)


def referee_page(phone, table: dict, **context) -> Page:
    page = phone(**context).new_page()
    page.goto(f"/r/{table['code']}#s={table['secret']}")
    synced(page)
    # The seats' QR codes are drawn by the phone's engine worker: the button waits for it.
    expect(page.locator("#sync")).to_have_attribute("data-engine", "ready", timeout=ENGINE_TIMEOUT_MS)
    return page


def give_seat(referee: Page, pid: str) -> str:
    """The referee gives a player their seat: the URL the seat's QR encodes."""
    dialog = referee.locator("#seats-dialog")
    if not dialog.is_visible():
        referee.locator("#more").tap()
        referee.locator("#seats-open").tap()
    seat = dialog.locator(f"[data-seat-of={pid}]")
    expect(seat).to_have_attribute("data-given", "false")
    seat.locator("[data-seat-action=give]").tap()
    link = dialog.locator(f"[data-seat-url={pid}]")
    expect(link).to_be_visible()
    url = link.get_attribute("href")
    assert SECRET_IN_FRAGMENT.search(url), url
    expect(dialog.locator(".qr svg")).to_be_visible()  # drawn on the phone: the secret never leaves it
    return url


def close_seats(referee: Page) -> None:
    referee.locator("#seats-dialog button[type=submit]").tap()
    expect(referee.locator("#seats-dialog")).to_be_hidden()


def seat_list(referee: Page) -> None:
    dialog = referee.locator("#seats-dialog")
    if dialog.locator("[data-seat-action=list]").count():
        dialog.locator("[data-seat-action=list]").tap()
    expect(dialog.locator("#seat-list")).to_be_visible()


def player_phone(phone, url: str, **context) -> Page:
    """Another phone opens the seat's URL, as a scan of its QR does."""
    page = phone(**context).new_page()
    page.add_init_script(VIBRATIONS)
    page.goto(url)
    expect(page.locator("#sync")).to_have_attribute("data-live", "1")
    expect(page).not_to_have_url(re.compile("#"))  # the secret left the address bar at once
    return page


def existentiel(server) -> dict:
    players = [{"name": "Ana", "birth_month": 3}, {"name": "Omar", "birth_month": 7}]
    return api(server, "/api/tables", {"game": "existentiel", "players": players})


def test_without_the_seat_a_players_page_is_their_view_with_no_button(phone, server, screenshot):
    """Every game: the page a table view links to shows the player's own view, and nothing to tap."""
    tables = [
        api(server, "/api/tables", {"game": "morto", "players": ["Ada", "Bruno", "Chiara"]}),
        existentiel(server),
        api(server, "/api/tables", {"game": "gjdlv", "players": ["Ada", "Bruno", "Chiara"]}),
    ]
    for table in tables:
        page = phone().new_page()
        page.goto(f"/t/{table['code']}/p/p2")
        expect(page.locator("#sync")).to_have_attribute("data-live", "1")
        expect(page.locator(".player-page[data-player=p2]")).to_be_visible()
        expect(page.locator("#my-move, #play, #answers, .die")).to_have_count(0)
        screenshot(page, f"player-view-{table['game']}-unseated-fr")
        page.context.close()


def test_existentiel_players_join_by_qr_roll_and_choose_on_their_own_phones(phone, server, screenshot):
    table = existentiel(server)
    code = table["code"]
    referee = referee_page(phone, table)
    ana_url = give_seat(referee, "p1")
    screenshot(referee, "seats-qr-ana-fr")
    seat_list(referee)
    omar_url = give_seat(referee, "p2")
    seat_list(referee)
    expect(referee.locator("#seats-dialog [data-seat-of=p1]")).to_have_attribute("data-given", "true")
    screenshot(referee, "seats-list-fr")
    close_seats(referee)

    ana = player_phone(phone, ana_url)
    omar = player_phone(phone, omar_url)
    # Each sees their own move only: Ana's dice on Ana's phone, none of Omar's.
    expect(ana.locator("#my-move[data-player=p1] .die")).to_have_count(6)
    expect(ana.locator("[data-player=p2] .die")).to_have_count(0)
    screenshot(ana, "player-existentiel-roll-fr")

    ana.locator("#my-move .die[data-die='4']").tap()
    # Birth month 3 + 4: adventure 7 is offered, on her phone, the referee's and Omar's.
    expect(ana.locator("#my-move [data-offer='7']")).to_be_visible()
    expect(referee.locator("[data-player=p1] [data-offer='7']")).to_be_visible()
    # Who recorded it, said on every phone: the line of what just happened, and the story.
    by_ana = words("ui.story.by_player", name="Ana")
    expect(referee.locator("#happened .by-player")).to_have_text(by_ana)
    referee.locator("#story summary").tap()
    expect(referee.locator("#story .story-item").first.locator(".by-player")).to_have_text(by_ana)
    assert history(server, code)[0]["by"] == "p1"

    # Her own latest move is hers to take back while it is the table's latest; then she rolls again.
    ana.locator("#undo-mine").tap()
    expect(ana.locator("#my-move .die")).to_have_count(6)
    expect(referee.locator("[data-player=p1] [data-offer]")).to_have_count(0)
    ana.locator("#my-move .die[data-die='4']").tap()
    expect(ana.locator("#my-move [data-offer='7']")).to_be_visible()
    omar.goto(omar.url.replace("/p/p2", ""))  # the table view, from Omar's phone
    expect(omar.locator("[data-player=p1] .now[data-now=offered]")).to_be_visible()
    omar.go_back()
    expect(omar.locator("#my-move .die")).to_have_count(6)  # his seat is still his after a reload
    ana.locator("#my-move [data-action=accept]").tap()
    expect(ana.locator("#my-move")).to_have_count(0)
    expect(ana.locator(".player-page .now[data-now=current] [data-adventure='7']")).to_be_visible()
    assert [(entry["event"]["type"], entry["undone"]) for entry in history(server, code)] == [
        ("roll", True),
        ("roll", False),
        ("accept", False),
    ]

    # Omar's phone loses the network: his roll is not recorded, and he is told so, with a retry.
    phone.allow_console_error(r"ERR_INTERNET_DISCONNECTED")
    omar.context.set_offline(True)
    omar.locator("#my-move .die[data-die='2']").tap()
    expect(omar.locator("#unsent")).to_contain_text(words("ui.player.unsent_title"))
    screenshot(omar, "player-existentiel-unsent-fr")
    assert len(history(server, code)) == 3
    omar.context.set_offline(False)
    omar.locator("#retry").tap()
    expect(omar.locator("#unsent")).to_have_count(0)
    expect(omar.locator("#my-move [data-offer='9']")).to_be_visible()
    assert [entry["event"] for entry in history(server, code)][-1] == {
        "type": "roll",
        "player": "p2",
        "die": 2,
    }

    # The race: offline again, Omar refuses; meanwhile the game master records his acceptance.
    omar.context.set_offline(True)
    omar.locator("#my-move [data-action=refuse]").tap()
    expect(omar.locator("#unsent")).to_be_visible()
    api(
        server,
        f"/api/tables/{code}/events",
        {"id": "gm-accept", "type": "accept", "player": "p2"},
        table["secret"],
    )
    omar.context.set_offline(False)
    omar.locator("#retry").tap()
    refused = omar.locator(".refused")
    expect(refused).to_be_visible()  # the second answer is told why it came too late
    expect(refused).not_to_have_attribute("data-code", "")
    screenshot(omar, "player-existentiel-race-lost-fr")
    state = api(server, f"/api/tables/{code}")["state"]
    omar_state = next(p for p in state["players"] if p["id"] == "p2")
    assert omar_state["current"] == 9 and omar_state["jokers"] == 3  # his refusal changed nothing

    # The rendez-vous, with "add to my calendar", on each player's phone.
    api(
        server,
        f"/api/tables/{code}/events",
        {"id": "rdv", "type": "schedule", "at": "2031-03-07T19:30"},
        table["secret"],
    )
    expect(ana.locator("#ics-link")).to_have_attribute("href", f"/api/tables/{code}/rendezvous.ics")
    screenshot(ana, "player-existentiel-rendezvous-fr")

    # "Mes tables" on Ana's phone: her seat, and its page.
    ana.goto("/")
    mine = ana.locator(f".my-table[data-code='{code}']")
    expect(mine).to_have_attribute("data-role", "player")
    expect(mine.locator(".pill")).to_have_text(words("ui.player.role", name="Ana"))
    expect(mine.locator(".my-open")).to_have_attribute("href", f"/t/{code}/p/p1")


def test_a_seat_taken_back_stops_at_once_and_a_new_qr_gives_it_again(phone, server, screenshot):
    table = existentiel(server)
    code = table["code"]
    referee = referee_page(phone, table)
    ana = player_phone(phone, give_seat(referee, "p1"))
    seat_list(referee)
    referee.locator("#seats-dialog [data-seat-of=p1] [data-seat-action=take-back]").tap()
    expect(referee.locator("#seats-dialog [data-seat-of=p1]")).to_have_attribute("data-given", "false")
    phone.allow_console_error(r"status of 40[13]")
    ana.locator("#my-move .die[data-die='1']").tap()
    expect(ana.locator("#seat-lost")).to_be_visible()
    expect(ana.locator("#my-move")).to_have_count(0)  # no button left on a seat taken back
    screenshot(ana, "player-seat-taken-back-fr")
    assert history(server, code) == []
    # The referee gives it again: the new QR works, on the same phone.
    url = give_seat(referee, "p1")
    ana.goto(url)
    ana.locator("#my-move .die[data-die='1']").tap()
    expect(referee.locator("[data-player=p1] [data-offer='4']")).to_be_visible()


def test_il_mortos_dead_player_is_warned_full_screen_and_welcomed_back(phone, server, screenshot):
    table = api(
        server,
        "/api/tables",
        {"game": "morto", "players": ["Ada", "Bruno", "Chiara", "Dario"], "options": {"lives": 1}},
    )
    referee = referee_page(phone, table)
    bruno = player_phone(phone, give_seat(referee, "p2"))
    close_seats(referee)
    seat = bruno.locator(".my-seat[data-player=p2]")
    expect(seat.locator(".my-lives-n")).to_have_text("1")
    expect(seat.locator(".my-role[data-first=true]")).to_contain_text(words("ui.player.you_play_first"))
    expect(bruno.locator("#moment")).to_be_hidden()
    screenshot(bruno, "player-morto-alive-fr")

    # The referee records Bruno's early touch: his last life. His phone goes black and says it.
    api(
        server,
        f"/api/tables/{table['code']}/events",
        {"id": "t1", "type": "touched_early", "player": "p2"},
        table["secret"],
    )
    expect(referee.locator("#happened")).to_have_text(
        words("morto.story.touched_early", name="Bruno", player="p2")
    )
    dead = bruno.locator("#moment-dead")
    expect(dead).to_be_visible()
    expect(dead).to_contain_text(words("ui.player.dead_title"))
    expect(dead).to_contain_text(words("ui.player.dead_text"))
    assert bruno.evaluate("window.__vibrations.length") == 1
    screenshot(bruno, "player-morto-dead-fr")
    bruno.locator("#moment-ok").tap()
    expect(bruno.locator("#moment")).to_be_hidden()
    expect(bruno.locator("#my-dead")).to_have_text(f"☠ {words('ui.player.dead_banner')}")
    # Not a word to the dead: Chiara speaks to him and gives him her life back... her only one.
    api(
        server,
        f"/api/tables/{table['code']}/events",
        {"id": "s1", "type": "spoke_to_dead", "living": "p4", "dead": "p2"},
        table["secret"],
    )
    welcome = bruno.locator("#moment-welcome")
    expect(welcome).to_be_visible()
    expect(welcome).to_contain_text(words("ui.player.welcome_title"))
    assert bruno.evaluate("window.__vibrations.length") == 2
    screenshot(bruno, "player-morto-welcome-fr")
    bruno.locator("#moment-ok").tap()
    expect(bruno.locator("#my-dead")).to_have_count(0)
    expect(bruno.locator(".my-lives-n")).to_have_text("1")


def test_gjdlv_the_active_player_plays_their_turn_and_two_answers_race(phone, server, screenshot):
    """A round played through at three: Alice ovulates and fecundates from her phone; Basile and
    Camille both answer with the one card that aborts it; Basile's comes first, Camille's is told
    why it came too late, and the abortion is recorded once."""
    table = api(
        server,
        "/api/tables",
        {"game": "gjdlv", "players": ["Alice", "Basile", "Camille"], "options": {"mode": "tracker"}},
    )
    code = table["code"]
    api(
        server,
        f"/api/tables/{code}/events",
        {"id": "deal", "type": "deal", "mouchoir": ["10S", "10C"]},
        table["secret"],
    )
    referee = referee_page(phone, table)
    alice = player_phone(phone, give_seat(referee, "p1"))
    seat_list(referee)
    basile = player_phone(phone, give_seat(referee, "p2"))
    seat_list(referee)
    camille = player_phone(phone, give_seat(referee, "p3"))
    close_seats(referee)

    expect(alice.locator("#my-turn")).to_have_attribute("data-now", "true")
    expect(basile.locator("#my-turn")).to_have_text(words("ui.player.turn_of", name="Alice"))
    expect(basile.locator("#play")).to_have_count(0)
    alice.locator("[data-grid=ovulate] [data-card='7H']").tap()
    for page in (referee, basile, camille):
        expect(page.locator("#turn [data-revealed]")).to_have_attribute("data-revealed", "7H")
    screenshot(alice, "player-gjdlv-fecundate-fr")
    alice.locator("[data-grid=fecundate] [data-card='4S']").tap()
    expect(referee.locator("[data-seat=p1] [data-embryo='7H-4S']")).to_be_visible()

    # Camille's phone is cut off; Basile answers first, from his own phone.
    phone.allow_console_error(r"ERR_INTERNET_DISCONNECTED")
    camille.context.set_offline(True)
    expect(camille.locator("#answers [data-action=abort][data-player=p3]")).to_have_attribute(
        "data-card", "4C"
    )
    screenshot(basile, "player-gjdlv-answer-fr")
    basile.locator("#answers [data-action=abort][data-player=p2]").tap()
    expect(referee.locator("[data-seat=p2] [data-formol-cards]")).to_have_attribute("data-formol-cards", "3")
    expect(alice.locator("[data-seat=p1] [data-embryo]")).to_have_count(0)
    camille.locator("#answers [data-action=abort][data-player=p3]").tap()
    expect(camille.locator("#unsent")).to_be_visible()
    camille.context.set_offline(False)
    camille.locator("#retry").tap()
    expect(camille.locator(".refused")).to_be_visible()
    screenshot(camille, "player-gjdlv-race-lost-fr")
    aborts = [entry for entry in history(server, code) if entry["event"]["type"] == "abort"]
    assert [entry["event"]["player"] for entry in aborts] == ["p2"]
    expect(camille.locator("[data-seat=p3] [data-formol-cards]")).to_have_count(0)
    synced(referee)
    expect(referee.locator("#sync")).to_have_class(re.compile(r"\bok\b"), timeout=READY_MS)


def test_a_phone_whose_seat_names_another_player_is_refused_and_changes_nothing(phone, server, screenshot):
    """A phone holding Ana's secret under Omar's name (its storage edited, or a seat kept from an old
    QR): its buttons are Omar's, and the server refuses each tap, 403 not_your_move, before the
    rules: the page says why, and the table is as it was."""
    table = existentiel(server)
    code = table["code"]
    ana = api(server, f"/api/tables/{code}/players/p1/secret", {}, table["secret"])["secret"]
    page = phone().new_page()
    page.goto("/")
    page.evaluate(
        """([code, secret]) => localStorage.setItem("arbitre.tables", JSON.stringify({ [code]: { code,
          game: "existentiel", role: "player", seat: { player: "p2", name: "Omar", secret } } }))""",
        [code, ana],
    )
    phone.allow_console_error(r"status of 403")
    page.goto(f"/t/{code}/p/p2")
    page.locator("#my-move .die[data-die='3']").tap()
    refused = page.locator(".refused[data-code=not_your_move]")
    expect(refused).to_contain_text(words("not_your_move"))
    expect(page.locator("#seat-lost")).to_have_count(0)  # her secret still works: for her own moves
    screenshot(page, "player-not-your-move-fr")
    assert history(server, code) == [] and api(server, f"/api/tables/{code}")["version"] == 0


def test_the_seats_dialog_and_a_players_own_pages_are_accessible(phone, server):
    """axe-core (serious or critical fails) on what the page walk does not reach: the seats dialog
    (its list, a seat's QR), a seated player's page in the Grand Jeu played through with an answer
    to give, Il Morto's full-screen warning. The contexts bypass the CSP for the injected script."""
    table = api(
        server,
        "/api/tables",
        {"game": "gjdlv", "players": ["Alice", "Basile"], "options": {"mode": "tracker"}},
    )
    api(
        server,
        f"/api/tables/{table['code']}/events",
        {"id": "d", "type": "deal", "mouchoir": []},
        table["secret"],
    )
    referee = referee_page(phone, table, bypass_csp=True)
    found = {}
    referee.locator("#more").tap()
    referee.locator("#seats-open").tap()
    expect(referee.locator("#seat-list")).to_be_visible()
    found["seats list"] = check_axe(referee)
    url = give_seat(referee, "p1")
    found["seat QR"] = check_axe(referee)
    alice = player_phone(phone, url, bypass_csp=True)
    alice.locator("[data-grid=ovulate] [data-card='7H']").tap()
    expect(alice.locator("[data-grid=fecundate]")).to_be_visible()
    found["player, played through"] = check_axe(alice)
    morto = api(
        server,
        "/api/tables",
        {"game": "morto", "players": ["Ada", "Bruno", "Chiara"], "options": {"lives": 1}},
    )
    secret = api(server, f"/api/tables/{morto['code']}/players/p2/secret", {}, morto["secret"])["secret"]
    api(
        server,
        f"/api/tables/{morto['code']}/events",
        {"id": "t", "type": "touched_early", "player": "p2"},
        morto["secret"],
    )
    bruno = player_phone(phone, f"{server}/t/{morto['code']}/p/p2#s={secret}", bypass_csp=True)
    expect(bruno.locator("#moment-dead")).to_be_visible()
    found["player, dead"] = check_axe(bruno)
    assert not {name: lines for name, lines in found.items() if lines}, found


def test_gjdlv_each_holder_answers_the_contest_from_their_own_phone(phone, server, screenshot):
    """Phase 3 with two players holding a GM back: each answers on their own phone (Alice ejaculates
    her 4♠ on Camille's 3♥, Basile declines); the referee's page shows the answers as they come, and
    the last one settles the contest."""
    table = api(
        server,
        "/api/tables",
        {"game": "gjdlv", "players": ["Alice", "Basile", "Camille"], "options": {"mode": "tracker"}},
    )
    code, secret = table["code"], table["secret"]
    for n, event in enumerate(
        [
            {"type": "deal", "mouchoir": ["10S", "10C"]},
            {"type": "ovulate", "player": "p1", "gf": "7H"},
            {"type": "hold", "player": "p1"},
            {"type": "ovulate", "player": "p2", "gf": "5H"},
            {"type": "hold", "player": "p2"},
            {"type": "contest_answer", "player": "p1"},  # Alice keeps hers back for later
            {"type": "ovulate", "player": "p3", "gf": "3H"},
            {"type": "hold", "player": "p3"},
        ]
    ):
        api(server, f"/api/tables/{code}/events", {"id": f"s{n}", **event}, secret)
    seats = {
        pid: api(server, f"/api/tables/{code}/players/{pid}/secret", {}, secret)["secret"]
        for pid in ("p1", "p2")
    }
    referee = referee_page(phone, table)
    alice = player_phone(phone, f"{server}/t/{code}/p/p1#s={seats['p1']}")
    basile = player_phone(phone, f"{server}/t/{code}/p/p2#s={seats['p2']}")
    for page in (alice, basile):
        expect(page.locator("#my-turn strong")).to_have_text(words("ui.player.answer_now"))
        expect(page.locator("#contest [data-grid=contest_answer] [data-card='4S']")).to_be_visible()
    screenshot(alice, "player-gjdlv-contest-fr")
    alice.locator("#contest [data-card='4S']").tap()
    expect(alice.locator("#contest")).to_have_attribute("data-answered", "4S")
    expect(referee.locator("#ejaculation [data-answered=p1]")).to_contain_text("Alice")
    expect(referee.locator("#ejaculation [data-holder=p2]")).to_be_visible()  # still awaited
    screenshot(referee, "referee-gjdlv-contest-answered-fr")
    basile.locator("#contest [data-action=contest-decline]").tap()
    for page in (alice, basile):
        expect(page.locator("#contest")).to_have_count(0)
    entries = history(server, code)
    assert [(e["event"]["type"], e["by"]) for e in entries[-2:]] == [
        ("contest_answer", "p1"),
        ("contest_answer", "p2"),
    ]
    assert entries[-2]["event"]["gm"] == "4S"


def test_in_english_a_players_own_page_speaks_english(phone, server, screenshot):
    table = existentiel(server)
    code, secret = table["code"], table["secret"]
    ana = api(server, f"/api/tables/{code}/players/p1/secret", {}, secret)["secret"]
    page = player_phone(phone, f"{server}/t/{code}/p/p1#s={ana}", locale="en-US")
    expect(page.locator("#my-move h2")).to_have_text(words("ui.player.your_move", "en"))
    page.locator("#my-move .die[data-die='2']").tap()
    expect(page.locator("#happened .by-player")).to_have_text(words("ui.story.by_player", "en", name="Ana"))
    screenshot(page, "player-existentiel-offer-en")
    morto = api(
        server,
        "/api/tables",
        {"game": "morto", "players": ["Ada", "Bruno", "Chiara"], "options": {"lives": 1}},
    )
    bruno = api(server, f"/api/tables/{morto['code']}/players/p2/secret", {}, morto["secret"])["secret"]
    page = player_phone(phone, f"{server}/t/{morto['code']}/p/p2#s={bruno}", locale="en-US")
    expect(page.locator(".my-role")).to_contain_text(words("ui.player.you_play_first", "en"))
    api(
        server,
        f"/api/tables/{morto['code']}/events",
        {"id": "t", "type": "touched_early", "player": "p2"},
        morto["secret"],
    )
    expect(page.locator("#moment-dead h1")).to_have_text(words("ui.player.dead_title", "en"))
    screenshot(page, "player-morto-dead-en")
