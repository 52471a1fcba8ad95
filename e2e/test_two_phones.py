"""Two referee phones on one table, and a flaky network: nothing lost, nothing doubled (issue 26).

Each test plays a finding of the issue as it was found, in Chromium with two referee contexts (two
phones, each with the app installed: service worker and engine ready) and ``context.set_offline``,
or with a ``page.route`` handler that lets a write reach the server and then drops its answer:

1. an undo made offline takes back the event it was tapped for, or is set aside and shown;
2. the same outcome recorded on both phones is applied once; the second is set aside, shown with
   what the other phone recorded meanwhile, to keep or drop;
3. a tap whose answer was lost is recognised by its client id when the page is reloaded, whether
   writes work or not: never replayed, never set aside, never lost;
and a network that drops answers and requests at random while a co-referee writes: the server ends
with every tap once, in order, and the phone sets nothing aside.
"""

from __future__ import annotations

import re
import time

from playwright.sync_api import expect

from e2e.conftest import morto_touch
from e2e.test_offline import SYNC_TIMEOUT_MS, api, history, installed_referee, lives, reveal

NAMES = ["Ana", "Ben", "Cyd", "Dom", "Eva"]
WRITES = re.compile(r"/api/tables/\w+/(events|undo)$")


touch = morto_touch


def synced(page) -> None:
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "0", timeout=SYNC_TIMEOUT_MS)


def shows_server(page, server: str, code: str) -> None:
    """The phone's screen is the server's state: every player's lives."""
    for player in api(server, f"/api/tables/{code}")["state"]["players"]:
        expect(page.locator(f"[data-player={player['id']}] .hearts")).to_have_attribute(
            "data-lives", str(player["lives"]), timeout=SYNC_TIMEOUT_MS
        )


def touches(server: str, code: str) -> list[tuple[str, bool]]:
    return [(e["event"].get("player"), e["undone"]) for e in history(server, code)]


def test_an_undo_made_offline_is_set_aside_when_another_phone_moved_the_table(phone, server):
    """Finding 1: B's undo meant Ana's touch on Ben; A's touches on Cyd and Dom reached the server first.
    The server must not take back Dom's touch: the undo is set aside, and B's later touch on Eva,
    whose meaning nothing changed, is applied."""
    table = api(server, "/api/tables", {"game": "morto", "players": NAMES})
    code = table["code"]
    a_phone, a = installed_referee(phone, server, table)
    b_phone, b = installed_referee(phone, server, table)
    phone.allow_console_error(r"ERR_INTERNET_DISCONNECTED")
    touch(a, "p2")
    synced(a)
    expect(b.locator("[data-player=p2] .hearts")).to_have_attribute(
        "data-lives", "2", timeout=SYNC_TIMEOUT_MS
    )

    a_phone.set_offline(True)
    b_phone.set_offline(True)
    touch(a, "p3")
    touch(a, "p4")
    b.click("#undo")  # B takes back the touch on Ben that it sees
    expect(b.locator("[data-player=p2] .hearts")).to_have_attribute("data-lives", "3")
    touch(b, "p5")
    expect(b.locator("#sync")).to_have_attribute("data-waiting", "2")

    a_phone.set_offline(False)
    synced(a)
    b_phone.set_offline(False)
    synced(b)

    assert touches(server, code) == [("p2", False), ("p3", False), ("p4", False), ("p5", False)]
    set_aside = b.locator("[data-rejected]")
    expect(set_aside).to_have_count(1)
    expect(set_aside.locator("[data-said]")).to_contain_text("Défaire « Ben a touché ses cartes trop tôt")
    expect(set_aside).to_contain_text("Ben a touché ses cartes trop tôt")  # what the undo meant
    expect(set_aside.locator("[data-missed]")).to_have_text(
        [
            "Cyd a touché ses cartes trop tôt : une vie de moins",
            "Dom a touché ses cartes trop tôt : une vie de moins",
        ]
    )
    expect(a.locator("[data-rejected]")).to_have_count(0)
    shows_server(a, server, code)
    shows_server(b, server, code)

    set_aside.get_by_role("button", name="Abandonner").click()
    expect(set_aside).to_have_count(0)
    assert touches(server, code) == [("p2", False), ("p3", False), ("p4", False), ("p5", False)]


def test_the_same_outcome_recorded_on_two_phones_is_applied_once(phone, server, screenshot):
    """Finding 2: both phones record the same reveal offline; the second must not be a second reveal
    (Cyd would lose two lives, the round would be 3). Then both record the same touch: the second is
    set aside too, and the referee keeps it (two touches really happened): it is sent on the new state."""
    table = api(server, "/api/tables", {"game": "morto", "players": NAMES[:4]})
    code = table["code"]
    a_phone, a = installed_referee(phone, server, table)
    b_phone, b = installed_referee(phone, server, table)
    phone.allow_console_error(r"ERR_INTERNET_DISCONNECTED")
    a_phone.set_offline(True)
    b_phone.set_offline(True)
    cards = {"p2": 5, "p3": 2, "p4": 7, "p1": 9}  # Cyd holds the lowest card
    for page in (a, b):
        reveal(page, cards)
        expect(page.locator("[data-round]")).to_have_attribute("data-round", "2")

    a_phone.set_offline(False)
    synced(a)
    b_phone.set_offline(False)
    synced(b)

    state = api(server, f"/api/tables/{code}")["state"]
    assert state["round"] == 2
    assert [p["lives"] for p in state["players"]] == [3, 3, 2, 3]
    assert [e["event"]["type"] for e in history(server, code)] == ["reveal"]
    set_aside = b.locator("[data-rejected]")
    expect(set_aside).to_have_count(1)
    expect(set_aside.locator("[data-said]")).to_contain_text("Révélation, tour 1")
    expect(set_aside.locator("[data-missed]")).to_have_text(
        ["Révélation, tour 1 (Ben 5 · Cyd 2 · Dom 7 · Ana Cavallo)\u00a0: Cyd perd une vie"]
    )
    expect(set_aside.get_by_role("button", name="Envoyer quand même")).to_be_visible()
    shows_server(b, server, code)
    screenshot(b, "two-phones-set-aside")
    set_aside.get_by_role("button", name="Abandonner").click()
    expect(set_aside).to_have_count(0)

    # The same touch on both phones: set aside on the second, kept by its referee.
    a_phone.set_offline(True)
    b_phone.set_offline(True)
    touch(a, "p3")
    touch(b, "p3")
    a_phone.set_offline(False)
    synced(a)
    b_phone.set_offline(False)
    synced(b)
    expect(set_aside).to_have_count(1)
    expect(set_aside.locator("[data-missed]")).to_have_text(
        ["Cyd a touché ses cartes trop tôt : une vie de moins"]
    )
    assert [e["event"]["type"] for e in history(server, code)] == ["reveal", "touched_early"]
    set_aside.get_by_role("button", name="Envoyer quand même").click()
    expect(set_aside).to_have_count(0)
    synced(b)
    assert [e["event"]["type"] for e in history(server, code)] == ["reveal", "touched_early", "touched_early"]
    assert lives(b, "p3") == 0
    shows_server(a, server, code)
    shows_server(b, server, code)


def lose_answers(page, lost: list[int], failed: list[int], first_undo_lost: bool = False):
    """Writes (``POST …/events`` and ``…/undo``) by number from 0: the ``lost`` ones reach the server,
    which applies them, and their answer never comes back; the ``failed`` ones never leave the phone;
    with ``first_undo_lost``, the first undo's answer is lost too. Returns the list of what happened to
    each write."""
    seen = []

    def handle(route) -> None:
        number = len(seen)
        undo = route.request.url.endswith("/undo")
        if undo and first_undo_lost and not any(kind == "undo lost" for kind in seen):
            route.fetch()
            seen.append("undo lost")
            route.abort()
        elif number in failed:
            seen.append("failed")
            route.abort()
        elif number in lost:
            route.fetch()  # the server applies it...
            seen.append("lost")
            route.abort()  # ...and the phone never hears so
        else:
            seen.append("sent")
            route.continue_()

    page.route(WRITES, handle)
    return seen


def test_a_tap_whose_answer_was_lost_is_known_by_its_id_after_a_reload(phone, server):
    """Finding 3: touch 1 reaches the server but its answer is lost, touch 2 fails to send, and the page
    is reloaded while writes fail and reads work. Touch 1 must not be replayed on the log that holds
    it, and touch 2 must not be set aside as "Cyd est mort·e": it waits, and is sent once writes work."""
    table = api(server, "/api/tables", {"game": "morto", "players": NAMES[:4], "options": {"lives": 2}})
    code = table["code"]
    context, page = installed_referee(phone, server, table)
    phone.allow_console_error(r"ERR_FAILED|Failed to load resource")
    attempts = lose_answers(page, lost=[0], failed=list(range(1, 100)))
    touch(page, "p3")
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "1")
    expect(page.locator("#sync")).to_contain_text("hors ligne", timeout=SYNC_TIMEOUT_MS)
    touch(page, "p3")
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "2")
    assert touches(server, code) == [("p3", False)]  # touch 1 is on the server; the phone cannot know

    page.reload()
    expect(page.locator("#sync")).to_have_attribute("data-engine", "ready", timeout=SYNC_TIMEOUT_MS * 4)
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "1", timeout=SYNC_TIMEOUT_MS)
    expect(page.locator("[data-player=p3] .hearts")).to_have_attribute("data-lives", "0")
    expect(page.locator("[data-rejected]")).to_have_count(0)
    assert "failed" in attempts[1:]  # the reloaded page tried to send, and could not

    page.unroute(WRITES)
    page.evaluate("dispatchEvent(new Event('online'))")
    synced(page)
    assert touches(server, code) == [("p3", False), ("p3", False)]
    expect(page.locator("[data-rejected]")).to_have_count(0)
    shows_server(page, server, code)


def test_a_lone_tap_whose_answer_was_lost_is_not_listed_as_refused_after_a_reload(phone, server):
    """Finding 3, with one tap: the tap the server applied must not come back as refused."""
    table = api(server, "/api/tables", {"game": "morto", "players": NAMES[:4], "options": {"lives": 1}})
    code = table["code"]
    context, page = installed_referee(phone, server, table)
    phone.allow_console_error(r"ERR_FAILED|Failed to load resource")
    lose_answers(page, lost=[0], failed=list(range(1, 100)))
    touch(page, "p3")
    expect(page.locator("#sync")).to_contain_text("hors ligne", timeout=SYNC_TIMEOUT_MS)
    page.reload()
    expect(page.locator("#sync")).to_have_attribute("data-engine", "ready", timeout=SYNC_TIMEOUT_MS * 4)
    synced(page)
    expect(page.locator("[data-rejected]")).to_have_count(0)
    expect(page.locator("[data-player=p3] .hearts")).to_have_attribute("data-lives", "0")
    assert touches(server, code) == [("p3", False)]


def test_a_flaky_network_with_a_co_referee_reconciles_exactly(phone, server):
    """Answers dropped after the server applied the write, requests that never leave, a co-referee
    writing between the taps (each a 409 and a rebase), an undo whose answer is lost, then a reload
    while every write fails: the reloaded phone knows by their ids what the server applied (it waits
    for nothing, shows the server's table), and once writes work again the server ends with every tap
    of the phone once, in order, the co-referee's in between; the phone set nothing aside (no tap's
    meaning changed: the co-referee touches other players)."""
    table = api(server, "/api/tables", {"game": "morto", "players": NAMES, "options": {"lives": 9}})
    code = table["code"]
    context, page = installed_referee(phone, server, table)
    phone.allow_console_error(r"ERR_FAILED|Failed to load resource")
    mine, theirs = ["p2", "p3", "p2", "p3", "p2", "p3", "p2", "p3"], ["p4", "p5"]

    def co_referee(number: int) -> None:
        api(
            server,
            f"/api/tables/{code}/events",
            {"id": f"co-{number}", "type": "touched_early", "player": theirs[number % 2]},
            secret=table["secret"],
        )

    attempts = lose_answers(page, lost=[1, 4, 5], failed=[2, 6], first_undo_lost=True)
    for number, player in enumerate(mine[:5]):
        touch(page, player)
        if number % 2:  # the co-referee writes: the phone's next send meets a 409
            co_referee(number // 2)
    page.click("#undo")  # takes back the last touch, on Ben; its answer will be lost
    until(page, lambda: "undo lost" in attempts)
    page.unroute(WRITES)
    page.route(WRITES, lambda route: route.abort())  # from now on no write gets through

    page.reload()
    expect(page.locator("#sync")).to_have_attribute("data-engine", "ready", timeout=SYNC_TIMEOUT_MS * 4)
    synced(page)  # the undo is on the server: nothing waits
    shows_server(page, server, code)
    expect(page.locator("[data-rejected]")).to_have_count(0)

    page.unroute(WRITES)
    attempts += lose_answers(page, lost=[0, 2], failed=[1])
    for number, player in enumerate(mine[5:]):
        touch(page, player)
        if number == 1:
            co_referee(2)
    synced(page)

    events = history(server, code)
    assert [(e["event"]["player"], e["undone"]) for e in events if not e["id"].startswith("co-")] == [
        (player, number == 4) for number, player in enumerate(mine)
    ]
    assert [e["event"]["player"] for e in events if e["id"].startswith("co-")] == ["p4", "p5", "p4"]
    assert len({e["id"] for e in events}) == len(events)
    assert {"lost", "failed", "undo lost"} <= set(attempts)
    expect(page.locator("[data-rejected]")).to_have_count(0)
    shows_server(page, server, code)


def until(page, condition, seconds: float = SYNC_TIMEOUT_MS / 1000) -> None:
    """Wait (bounded) for what a route handler saw, which the page does not show. The handlers run
    while Playwright waits, so the wait is Playwright's."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        page.wait_for_timeout(50)
