"""Il Morto end to end, as people at a table use it: one phone referees by tapping, another follows.

Everything goes through the real app (``server``) in Chromium phones (``phone``): the home page, the
new-table form, the referee page, the QR screen, the table view opened from the QR's URL. The
follower's page is never reloaded: each check on it waits (bounded) for the live stream to redraw it.

Seats (ids are given in seating order, which is the order of play): p1 Ada, p2 Bruno, p3 Chiara,
p4 Dario, p5 Elena, p6 Fabio.

The referee's round card shows every seat as a tile that is also the reveal: a round is the tap of
who holds the lowest card, then the confirm (``quick``); the full reveal with every card is one tap
away (``reveal``); a touch or a word to the dead goes through the one "Infraction" control (who,
what, to whom). ``test_a_round_in_two_taps_with_nothing_to_scroll`` counts the taps of a round at 6,
8 and 12 players on a 390×844 phone and prints them (run with ``-s`` to read them).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from e2e.conftest import follow_from_qr, morto_touch
from engine import core

NAMES = ["Ada", "Bruno", "Chiara", "Dario", "Elena", "Fabio"]
ADA, BRUNO, CHIARA, DARIO, ELENA, FABIO = (f"p{i}" for i in range(1, 7))
NAME = dict(zip((ADA, BRUNO, CHIARA, DARIO, ELENA, FABIO), NAMES, strict=True))
ASSO, CAVALLO, RE = 1, 9, 10

# The SSE stream a test cuts on purpose logs this in the console each time EventSource retries.
CUT_STREAM_CONSOLE = r"net::ERR_FAILED @ .*/api/tables/\w+/stream(\?since=\d+)?$"
# The referee's phone boots the rules engine (Pyodide, in a worker) on every page load: the first
# boot in a fresh browser compiles the WebAssembly, hence more time than an ordinary wait.
ENGINE_READY_MS = 60_000
# What a phone that cannot fetch the Pyodide runtime logs (its engine then stays "failed").
PYODIDE_CONSOLE = r"@ .*/pyodide/"


# --- what a person does ------------------------------------------------------------------------------


def tap(target) -> None:
    """Scrolls the control to the middle of the screen, as a person would, then taps it.

    The referee's dock is fixed over the bottom of the screen: a control merely "in view" may lie
    under it.
    """
    target.evaluate("element => element.scrollIntoView({block: 'center', inline: 'center'})")
    target.tap()


def create_table(page: Page, names: list[str], lives: int, dealer: str) -> str:
    """From the home page: Il Morto, the names in seating order, lives, first dealer; returns the code."""
    page.goto("/")
    page.locator("a[data-game=morto]").tap()
    expect(page).to_have_url(re.compile(r"/new/morto$"))
    inputs = page.locator("#names input[name=name]")
    usual = core.seats("morto")["usual"]
    expect(inputs).to_have_count(usual)  # the form starts with the engine's usual table: six seats
    for i, name in enumerate(names):
        if i >= usual:
            page.locator("#add-name").tap()
            expect(inputs).to_have_count(i + 1)
        inputs.nth(i).fill(name)
    page.locator("input[name=lives]").fill(str(lives))
    expect(page.locator("select#dealer option")).to_have_text(names)
    page.locator("select#dealer").select_option(label=dealer)
    page.get_by_role("button", name="Créer la table").tap()
    expect(page).to_have_url(re.compile(r"/r/[0-9A-Z]{6}$"))
    code = page.url.rsplit("/", 1)[1]
    expect(page.locator("[data-round]")).to_have_text("1")
    expect_synced(page)
    return code


def referee_ready(page: Page, engine: str = "ready") -> None:
    """The referee page is drawn, in touch with the server, and its rules engine is ``engine``.

    Once the engine (Pyodide, booted on every page load) is ready, taps are checked on the phone and
    a refused one leaves the referee's input in place; before, taps go to the server unchecked.
    Waiting for it makes a refused tap behave the same way on every run.
    """
    expect(page.locator("#sync")).to_have_attribute("data-engine", engine, timeout=ENGINE_READY_MS)
    expect_synced(page)


def expect_synced(page: Page) -> None:
    """Nothing waits in the referee's outbox: every tap so far has been acknowledged by the server."""
    sync = page.locator("#sync")
    expect(sync).to_have_attribute("data-waiting", "0")
    expect(sync).to_have_class(re.compile(r"\bok\b"))  # "✓ synchronisé", whatever the language


def touch(referee: Page, pid: str) -> None:
    """ "Touched before the knock": Infraction, the player's seat, then what they did."""
    morto_touch(referee, pid, press=tap)


def speak(referee: Page, living: str, dead: str) -> None:
    """ "Spoke to the dead": Infraction, the living player's seat, what they did, then the dead one's seat."""
    tap(referee.locator("#infraction"))
    tap(referee.locator(f"#seats button[data-player={living}]"))
    tap(referee.locator("#offence [data-action=spoke]"))
    expect(referee.locator("#seats-title")).to_have_text(f"{NAME[living]} a parlé à qui\u00a0?")
    tap(referee.locator(f"#seats button[data-player={dead}]"))


def infraction_offers(referee: Page, who: list[str]) -> None:
    """The Infraction control asks who, offering exactly these seats (then is cancelled)."""
    tap(referee.locator("#infraction"))
    expect(referee.locator("#seats-title")).to_have_text("Infraction\u00a0: qui\u00a0?")
    expect(referee.locator("#seats button.seat")).to_have_count(len(who))
    for pid in who:
        expect(referee.locator(f"#seats button[data-player={pid}]")).to_be_visible()
    tap(referee.locator("#infraction-cancel"))
    expect(referee.locator("#seats-title")).to_contain_text("Qui a la plus petite carte")


def quick(referee: Page, losers: list[str]) -> None:
    """The quick reveal: the seats of who holds the lowest card, then the confirm, which names them."""
    for pid in losers:
        tap(referee.locator(f"#seats [data-player={pid}]"))
        expect(referee.locator(f"#seats [data-player={pid}]")).to_have_attribute("aria-pressed", "true")
    verb = "perdent" if len(losers) > 1 else "perd"
    named = ", ".join(NAME[p] for p in sorted(losers, key=lambda pid: int(pid[1:])))  # in seat order
    confirm = referee.locator("#confirm-lowest")
    expect(confirm).to_have_text(f"Valider — {named} {verb} une vie")
    tap(confirm)


def open_full_reveal(referee: Page) -> None:
    """One tap from the round card to the sheet of every card (it stays open from round to round)."""
    if referee.locator("#full-sheet").count() == 0:
        tap(referee.locator("#full-reveal"))
    expect(referee.locator("#full-sheet")).to_be_visible()


def pick_ranks(referee: Page, cards: dict[str, int]) -> None:
    open_full_reveal(referee)
    for pid, rank in cards.items():
        tap(referee.locator(f"[data-reveal={pid}] [data-rank='{rank}']"))
        expect(referee.locator(f"[data-reveal={pid}] [data-rank='{rank}']")).to_have_attribute(
            "aria-pressed", "true"
        )


def reveal(referee: Page, cards: dict[str, int], losers: list[str]) -> None:
    """Taps a rank for each player, checks who the sheet says loses, then confirms."""
    pick_ranks(referee, cards)
    confirm = referee.locator("#confirm-reveal")
    expect(confirm).to_be_enabled()
    verb = "perdent" if len(losers) > 1 else "perd"
    expect(confirm).to_have_text(f"Valider — {', '.join(NAME[p] for p in losers)} {verb} une vie")
    expect(referee.locator(".reveal-row.loses")).to_have_count(len(losers))
    tap(confirm)


def lives(page: Page, pid: str):
    return page.locator(f"[data-player={pid}] .hearts")


def expect_lives(pages: list[Page], expected: dict[str, int]) -> None:
    for page in pages:
        for pid, count in expected.items():
            expect(lives(page, pid)).to_have_attribute("data-lives", str(count))


def expect_turn(pages: list[Page], round_: int, dealer: str, first: str) -> None:
    """Round, dealer and who plays first, as the status line shows them."""
    for page in pages:
        expect(page.locator("[data-round]")).to_have_text(str(round_))
        expect(page.locator("[data-dealer]")).to_have_attribute("data-dealer", dealer)
        expect(page.locator("[data-dealer]")).to_have_text(NAME[dealer])
        expect(page.locator("[data-first]")).to_have_attribute("data-first", first)
        expect(page.locator("[data-first]")).to_have_text(NAME[first])


def expect_reveal_sheet(referee: Page, order: list[str]) -> None:
    """Who holds a card: the seats the quick reveal offers (in seat order), and the rows of the full
    reveal's sheet, if open, in play order (the dealer last)."""
    if referee.locator("#full-sheet").count():
        expect(referee.locator("[data-reveal]")).to_have_count(len(order))
        for i, pid in enumerate(order):
            expect(referee.locator("[data-reveal]").nth(i)).to_have_attribute("data-reveal", pid)
        return
    pickable = referee.locator("#seats button.seat")
    expect(pickable).to_have_count(len(order))
    for i, pid in enumerate(sorted(order, key=lambda pid: int(pid[1:]))):
        expect(pickable.nth(i)).to_have_attribute("data-player", pid)


def expect_dead_banner(view: Page, dead: list[str]) -> None:
    banner = view.locator("#dead")
    if not dead:
        expect(banner).to_have_count(0)
        return
    expect(banner.locator("h2")).to_have_text("☠ Mort·es — ne leur parlez pas !")
    expect(banner.locator("[data-dead]")).to_have_text([NAME[p] for p in dead])
    for pid in dead:
        expect(view.locator(f"[data-player={pid}]")).to_have_class(re.compile(r"\bis-dead\b"))


def expect_winner(pages: list[Page], winners: list[str], sentence: str) -> None:
    """The winner banner, in the page's one language (no other language under it)."""
    for page in pages:
        banner = page.locator(".winner")
        expect(banner).to_have_attribute("data-winners", ",".join(winners))
        expect(banner).to_have_text(sentence)
        expect(banner.locator("[lang]")).to_have_count(0)
        expect(page.locator("[data-round]")).to_have_count(0)


def table_json(page: Page, code: str) -> dict:
    response = page.request.get(f"/api/tables/{code}")
    assert response.ok
    return response.json()


def expect_toast(page: Page, sentence: str) -> None:
    """The refusal, in the page's one language."""
    toast = page.locator("#toast")
    expect(toast).to_be_visible()
    expect(toast.locator(".toast-text")).to_have_text(sentence)


# --- the tests ---------------------------------------------------------------------------------------


def test_a_whole_game_refereed_by_taps_and_followed_live(phone, server, screenshot):
    referee_phone, follower_phone = phone(), phone()
    referee = referee_phone.new_page()
    code = create_table(referee, NAMES, lives=3, dealer="Chiara")
    view = follow_from_qr(referee, follower_phone, server, code)
    both = [referee, view]

    # Round 1: Chiara deals, Dario (next seat) plays first, everyone holds a card.
    expect_turn(both, 1, dealer=CHIARA, first=DARIO)
    expect_lives(both, dict.fromkeys(NAME, 3))
    expect_dead_banner(view, [])
    expect_reveal_sheet(referee, [DARIO, ELENA, FABIO, ADA, BRUNO, CHIARA])
    # The dealer may touch the cards, and nobody is dead: the infraction offers everyone else.
    infraction_offers(referee, [DARIO, ELENA, FABIO, ADA, BRUNO])

    # A second tab on the referee's phone whose live stream is down: it does not hear of the
    # first tab's taps, so each tap it makes is against an old version of the table.
    phone.allow_console_error(CUT_STREAM_CONSOLE)
    stale = referee_phone.new_page()
    stale.route("**/api/tables/*/stream?*", lambda route: route.abort())  # ?since=: the version it drew
    stale.goto(f"/r/{code}")
    # Both tabs boot their engine at once; wait for both (the slowest step of this test).
    referee_ready(referee)
    referee_ready(stale)
    expect(stale.locator("[data-round]")).to_have_text("1")
    everyone = [referee, view, stale]

    # Dario touched his card before the knock: tapped on the first tab, seen live by the follower.
    # (The referee switches tabs as a person would: a tab in the background gets no frames, and
    # taps on it wait for one.)
    referee.bring_to_front()
    touch(referee, DARIO)
    expect_lives(both, {DARIO: 2})
    expect_lives([stale], {DARIO: 3})  # its stream is cut: it has not heard of it

    # The stale tab taps Fabio. The server answers 409 (stale version); the tab fetches the fresh
    # log, finds the tap still allowed there and sends it again: both touches count, none is lost.
    stale.bring_to_front()
    touch(stale, FABIO)
    expect_lives(everyone, {DARIO: 2, FABIO: 2})
    expect_synced(stale)
    expect(stale.locator("#rejected [data-rejected]")).to_have_count(0)
    assert table_json(referee, code)["version"] == 2

    # A reveal the UI lets through but the deck forbids: five Assi. Refused, nothing changes,
    # and the referee's taps stay so that one card can be corrected.
    referee.bring_to_front()
    pick_ranks(referee, {DARIO: ASSO, ELENA: ASSO, FABIO: ASSO, ADA: ASSO, BRUNO: ASSO, CHIARA: RE})
    tap(referee.locator("#confirm-reveal"))
    expect_toast(referee, "Le jeu n'a que quatre Asso : 5 révélé·es, c'est impossible.")
    expect(referee.locator(f"[data-reveal={FABIO}] [data-rank='{ASSO}']")).to_have_attribute(
        "aria-pressed", "true"
    )
    expect_turn(both, 1, dealer=CHIARA, first=DARIO)
    expect_synced(referee)
    assert table_json(referee, code)["version"] == 2

    # The real reveal: Dario and Elena tie at the lowest card (Asso) and both lose a life.
    reveal(referee, {FABIO: 5, ADA: 6, BRUNO: 7}, losers=[DARIO, ELENA])
    expect(referee.locator("#toast")).to_be_hidden()  # a success clears the refusal
    expect_lives(both, {DARIO: 1, ELENA: 2, FABIO: 2, ADA: 3, BRUNO: 3, CHIARA: 3})
    # The deal passes to the next seat: Dario deals round 2, Elena plays first.
    expect_turn(both, 2, dealer=DARIO, first=ELENA)

    # The stale tab, still in round 1, taps Dario "touched before the knock". On the fresh table
    # Dario is the dealer, who may touch the cards: the tap is set aside with that reason, shown
    # in the page's language, and the tab catches up. Nobody loses a life for it.
    expect(stale.locator("[data-round]")).to_have_text("1")
    stale.bring_to_front()
    touch(stale, DARIO)
    expect_toast(stale, "Le·a dealer a le droit de toucher les cartes avant d'avoir toqué.")
    rejected = stale.locator("#rejected [data-rejected]")
    expect(rejected).to_have_count(1)
    expect(rejected).to_contain_text("Le·a dealer a le droit de toucher les cartes avant d'avoir toqué.")
    expect_turn([stale], 2, dealer=DARIO, first=ELENA)
    expect_lives(everyone, {DARIO: 1})
    expect_synced(stale)
    assert table_json(referee, code)["version"] == 3
    tap(rejected.get_by_role("button", name="Vu"))
    expect(rejected).to_have_count(0)
    stale.close()
    referee.bring_to_front()

    # Round 2: Elena touches her card early twice: she dies at once, her card is discarded.
    touch(referee, ELENA)
    expect_lives(both, {ELENA: 1})
    touch(referee, ELENA)
    expect_lives(both, {ELENA: 0})
    expect_dead_banner(view, [ELENA])  # large, on the follower's phone, without a reload
    expect(referee.locator(f"[data-player={ELENA}]")).to_have_class(re.compile(r"\bis-dead\b"))
    expect(referee.locator(f"[data-player={ELENA}] .pill.dead")).to_have_text("mort·e")
    expect(referee.locator(".dead-line")).to_have_text("☠ Mort·es : Elena")
    # Whoever plays first skips the dead: Fabio now.
    expect_turn(both, 2, dealer=DARIO, first=FABIO)
    expect_reveal_sheet(referee, [FABIO, ADA, BRUNO, CHIARA, DARIO])
    screenshot(referee, "morto-referee-elena-dead-full-reveal")
    screenshot(view, "morto-view-elena-dead")
    # Back to the quick reveal, which the dead are not offered in, nor in the infraction (as a
    # speaker: she may be spoken to). Ada holds the lowest card.
    tap(referee.locator("#quick-reveal"))
    expect(referee.locator("#full-sheet")).to_have_count(0)
    expect_reveal_sheet(referee, [FABIO, ADA, BRUNO, CHIARA, DARIO])
    infraction_offers(referee, [FABIO, ADA, BRUNO, CHIARA])
    screenshot(referee, "morto-referee-elena-dead")
    quick(referee, [ADA])
    expect_lives(both, {ADA: 2})
    # The deal skips dead Elena: Fabio deals round 3, Ada plays first.
    expect_turn(both, 3, dealer=FABIO, first=ADA)
    expect_dead_banner(view, [ELENA])

    # Round 3: the living who are not dealing may be marked as having spoken to the dead;
    # the dealer may speak to them freely, so he is not offered.
    infraction_offers(referee, [ADA, BRUNO, CHIARA, DARIO])
    # Ada spoke to Elena: Ada gives her a life; Elena is back, but holds no card this round.
    tap(referee.locator("#infraction"))
    tap(referee.locator(f"#seats button[data-player={ADA}]"))
    expect(referee.locator("#seats-title")).to_have_text("Qu'a fait Ada\u00a0?")
    expect(referee.locator("#offence [data-action]")).to_have_text(
        ["✋ Touché avant le toc", "🗣 A parlé à un·e mort·e"]
    )
    tap(referee.locator("#offence [data-action=spoke]"))
    # To whom: the dead only (and Ada's own seat, pressed, to choose someone else instead).
    expect(referee.locator("#seats button.seat")).to_have_count(2)
    expect(referee.locator(f"#seats button[data-player={ADA}]")).to_have_attribute("aria-pressed", "true")
    expect(referee.locator(f"#seats button[data-player={ELENA}]")).to_contain_text("Elena")
    screenshot(referee, "morto-referee-infraction-to-whom")
    tap(referee.locator(f"#seats button[data-player={ELENA}]"))
    expect_lives(both, {ADA: 1, ELENA: 1})
    expect_dead_banner(view, [])
    for page in both:
        expect(page.locator(f"[data-player={ELENA}]")).not_to_have_class(re.compile(r"\bis-dead\b"))
        expect(page.locator(f"[data-player={ELENA}] .pill", has_text="sans carte ce tour")).to_be_visible()
    expect_reveal_sheet(referee, [ADA, BRUNO, CHIARA, DARIO, FABIO])
    # Elena holds no card to touch, and nobody is dead any more: nobody may have spoken to the dead.
    infraction_offers(referee, [ADA, BRUNO, CHIARA, DARIO])
    tap(referee.locator("#infraction"))
    tap(referee.locator(f"#seats button[data-player={BRUNO}]"))
    expect(referee.locator("#offence [data-action]")).to_have_text(["✋ Touché avant le toc"])
    tap(referee.locator(f"#seats button[data-player={BRUNO}]"))  # his seat again: someone else, then
    expect(referee.locator("#seats-title")).to_have_text("Infraction\u00a0: qui\u00a0?")
    tap(referee.locator("#infraction-cancel"))
    assert table_json(referee, code)["version"] == 7  # nothing recorded by all that

    round3 = {ADA: 5, BRUNO: ASSO, CHIARA: 6, DARIO: 7, FABIO: RE}
    quick(referee, [BRUNO])
    expect_lives(both, {BRUNO: 2})
    expect_turn(both, 4, dealer=ADA, first=BRUNO)
    # Elena is dealt in again from this round.
    expect_reveal_sheet(referee, [BRUNO, CHIARA, DARIO, ELENA, FABIO, ADA])
    expect(view.locator(f"[data-player={ELENA}] .pill", has_text="sans carte ce tour")).to_have_count(0)
    history = referee.request.get(f"/api/tables/{code}/history").json()["events"]
    assert history[-1]["event"] == {"type": "reveal", "lowest": [BRUNO]}
    assert history[-1]["said"]["code"] == "morto.story.lowest"

    # Undo, one tap in the dock: the reveal is taken back on both phones.
    referee.locator(".dock #undo").tap()
    expect_turn(both, 3, dealer=FABIO, first=ADA)
    expect_lives(both, {BRUNO: 3, ADA: 1, ELENA: 1})
    expect_reveal_sheet(referee, [ADA, BRUNO, CHIARA, DARIO, FABIO])
    expect(view.locator(f"[data-player={ELENA}] .pill", has_text="sans carte ce tour")).to_be_visible()
    # This time the table wants every card checked: the full reveal, one tap away.
    reveal(referee, round3, losers=[BRUNO])
    expect_turn(both, 4, dealer=ADA, first=BRUNO)
    expect_lives(both, {ADA: 1, BRUNO: 2, CHIARA: 3, DARIO: 1, ELENA: 1, FABIO: 2})

    # Round 4, the swap helper (a check on the referee's own engine; changes nothing): Chiara shows a
    # Cavallo face up, Elena a Re.
    version = table_json(referee, code)["version"]
    helper = referee.locator("#swap-helper")
    tap(helper.locator("summary"))
    expect(helper).to_have_attribute("open", "")

    def answer(pid: str):
        return helper.locator(f"[data-swap={pid}] .swap-answer")

    def face_up(pid: str, card: int | None) -> None:
        """Marks the card a player shows face up: a Cavallo, a Re, or none ("—")."""
        button = helper.locator(f"[data-swap={pid}] [data-face-up='{card or 'none'}']")
        tap(button)
        expect(button).to_have_attribute("aria-pressed", "true")

    expect(answer(BRUNO)).to_have_text("Peut garder ou échanger avec Chiara.")
    expect(answer(ADA)).to_have_text("Personne après : peut garder ou échanger avec la pioche.")
    face_up(CHIARA, CAVALLO)
    after_the_cavalli = "Cavallo à côté : peut garder ou échanger avec Dario, après les Cavalli."
    expect(answer(BRUNO)).to_have_text(after_the_cavalli)
    face_up(ELENA, RE)
    expect(answer(DARIO)).to_have_text("Un Re face visible suit : pas d'échange possible.")
    expect(answer(DARIO)).not_to_have_class(re.compile(r"\byes\b"))
    expect(answer(BRUNO)).to_have_text(after_the_cavalli)
    expect(answer(BRUNO)).to_have_class(re.compile(r"\byes\b"))
    for pid in (CHIARA, ELENA):
        expect(answer(pid)).to_have_text("Sa carte est face visible : pas d'échange, on garde.")
    expect(answer(FABIO)).to_have_text("Peut garder ou échanger avec Ada.")
    # The dealer, last to play, may swap with the deck.
    expect(answer(ADA)).to_have_text("Personne après : peut garder ou échanger avec la pioche.")
    expect(answer(ADA)).to_have_class(re.compile(r"\byes\b"))
    # A Cavallo on the dealer: Fabio's chain runs past the dealer, so he may take the deck.
    face_up(ADA, CAVALLO)
    expect(answer(FABIO)).to_have_text("Personne après : peut garder ou échanger avec la pioche.")
    expect(answer(ADA)).to_have_text("Sa carte est face visible : pas d'échange, on garde.")
    face_up(ADA, None)
    expect(answer(ADA)).to_have_text("Personne après : peut garder ou échanger avec la pioche.")
    assert table_json(referee, code)["version"] == version

    # Play on to the end: touches before the knock kill Bruno, Chiara, Dario and Elena in turn;
    # each time, who plays first moves to the next living player.
    for pid, left, next_first in (
        (BRUNO, 2, CHIARA),
        (CHIARA, 3, DARIO),
        (DARIO, 1, ELENA),
        (ELENA, 1, FABIO),
    ):
        for remaining in range(left - 1, -1, -1):
            touch(referee, pid)
            expect_lives(both, {pid: remaining})
        expect_turn(both, 4, dealer=ADA, first=next_first)
    expect_dead_banner(view, [BRUNO, CHIARA, DARIO, ELENA])
    expect_reveal_sheet(referee, [FABIO, ADA])
    tap(referee.locator("#quick-reveal"))
    quick(referee, [ADA])

    expect_winner(both, [FABIO], "🏆 Fabio gagne !")
    expect_lives(both, {ADA: 0, FABIO: 2})
    expect(view.locator("#dead")).to_have_count(0)
    expect(referee.locator("#confirm-reveal, #confirm-lowest, #infraction, #full-reveal")).to_have_count(0)
    expect(referee.locator("[data-action], #seats button")).to_have_count(0)
    expect(referee.get_by_text("Partie terminée.")).to_be_visible()
    screenshot(referee, "morto-referee-winner")
    screenshot(view, "morto-view-winner")

    # Undo still works once the game is over: the last reveal is taken back, the game reopens.
    referee.locator(".dock #undo").tap()
    for page in both:
        expect(page.locator(".winner")).to_have_count(0)
    expect_turn(both, 4, dealer=ADA, first=FABIO)
    expect_lives(both, {ADA: 1, FABIO: 2})
    expect_reveal_sheet(referee, [FABIO, ADA])
    expect_dead_banner(view, [BRUNO, CHIARA, DARIO, ELENA])

    assert view.evaluate("window.__notReloaded") is True, "the follower's page was reloaded"


def test_the_last_two_dying_together_share_the_win(phone, server):
    """Also: a referee phone that cannot boot the rules engine still referees (the server checks)."""
    referee_phone, follower_phone = phone(), phone()
    phone.allow_console_error(PYODIDE_CONSOLE)
    referee_phone.route("**/pyodide/**", lambda route: route.abort())
    referee = referee_phone.new_page()
    code = create_table(referee, NAMES[:3], lives=1, dealer="Ada")
    view = follow_from_qr(referee, follower_phone, server, code)
    referee_ready(referee, engine="failed")
    both = [referee, view]

    expect_turn(both, 1, dealer=ADA, first=BRUNO)
    touch(referee, BRUNO)
    expect_dead_banner(view, [BRUNO])
    expect_turn(both, 1, dealer=ADA, first=CHIARA)

    # Chiara and Ada, on their last life, both show an Asso: both die in the same reveal.
    reveal(referee, {CHIARA: ASSO, ADA: ASSO}, losers=[CHIARA, ADA])
    expect_winner(
        both,
        [ADA, CHIARA],
        "🏆 Les dernier·es vivant·es sont mort·es ensemble : Ada, Chiara se partagent la victoire.",
    )
    expect_lives(both, {ADA: 0, BRUNO: 0, CHIARA: 0})
    outcome = table_json(referee, code)["state"]["outcome"]
    assert outcome == {"reason": "morto.shared_win", "params": {"names": "Ada, Chiara"}}
    assert view.evaluate("window.__notReloaded") is True, "the follower's page was reloaded"


# --- a round in two taps, on one screen ----------------------------------------------------------------

TWELVE = [*NAMES, "Giulia", "Hugo", "Irene", "Jacopo", "Katia", "Luca"]


class Thumb:
    """The referee's thumb on a 390×844 phone: it taps only what the screen shows as it is, never
    scrolled (every control wholly between the top of the page and the dock fixed at the bottom),
    and counts its taps."""

    def __init__(self, page: Page):
        self.page = page
        self.taps = 0

    def tap(self, target) -> None:
        expect(target).to_be_enabled()
        assert self.page.evaluate("scrollY") == 0, "the page had to be scrolled"
        expect(target).to_be_in_viewport()  # a frame may redraw the card meanwhile: the control it draws
        box = target.bounding_box()
        dock = self.page.locator(".dock").bounding_box()
        assert box is not None and box["y"] >= 0, f"{target} is not on the screen: {box}"
        assert box["y"] + box["height"] <= dock["y"], (
            f"{target} is below the fold (the dock at {dock['y']}): {box}"
        )
        target.tap()
        self.taps += 1


def open_referee(referee_phone, names: list[str], lives: int) -> tuple[Page, str]:
    """A table made through the API (the new-table form is tested above), opened on the referee's
    phone as its hand-over link does; returns the page and the table's code."""
    referee = referee_phone.new_page()
    answer = referee.request.post(
        "/api/tables", data={"game": "morto", "players": names, "options": {"lives": lives, "dealer": 0}}
    )
    assert answer.ok
    table = answer.json()
    referee.goto(f"/r/{table['code']}#s={table['secret']}")
    expect(referee.locator("#seats")).to_be_visible()
    # The phone's engine checks each tap from here on: before it is ready, a tap waits for the
    # server's answer behind "replaying", and a control measured meanwhile is not on the screen.
    referee_ready(referee)
    return referee, table["code"]


@pytest.mark.parametrize("count", [6, 8, 12])
def test_a_round_in_two_taps_with_nothing_to_scroll(phone, server, screenshot, count):
    """Issue 29: a typical round (one loser) in at most 3 taps with no scrolling, at 6, 8 and 12 players:
    the seat of who holds the lowest card, then confirm. Two such rounds (the second kills the first
    one's loser), then a tie, each tap on a control the screen shows without scrolling."""
    names = TWELVE[:count]
    ids = {name: f"p{i + 1}" for i, name in enumerate(names)}
    referee, code = open_referee(phone(), names, lives=2)
    thumb = Thumb(referee)
    screenshot(referee, f"morto-referee-{count}-round-1")
    taps = []
    # Rounds 1 and 2: Bruno holds the lowest card twice, and dies; round 3: Dario and Fabio tie.
    for number, losers in enumerate(([ids["Bruno"]], [ids["Bruno"]], [ids["Dario"], ids["Fabio"]]), start=1):
        before = thumb.taps
        expect(referee.locator("#seats-title")).to_contain_text("Qui a la plus petite carte")
        for pid in losers:
            thumb.tap(referee.locator(f"#seats [data-player={pid}]"))
        named = ", ".join(NAME[pid] for pid in losers)
        verb = "perdent" if len(losers) > 1 else "perd"
        confirm = referee.locator("#confirm-lowest")
        expect(confirm).to_have_text(f"Valider — {named} {verb} une vie")
        if number == 3:
            screenshot(referee, f"morto-referee-{count}-tie")
        thumb.tap(confirm)
        expect(referee.locator("[data-round]")).to_have_text(str(number + 1))
        expect_synced(referee)
        taps.append(thumb.taps - before)
    state = table_json(referee, code)["state"]
    lives = {p["id"]: p["lives"] for p in state["players"]}
    assert lives[ids["Bruno"]] == 0 and lives[ids["Dario"]] == lives[ids["Fabio"]] == 1
    assert sum(lives.values()) == 2 * count - 4
    # The dead stay in their seat, dead, and are offered no more.
    expect(referee.locator(f"#seats [data-player={ids['Bruno']}]")).to_have_class(re.compile(r"\bis-dead\b"))
    expect(referee.locator(f"#seats button[data-player={ids['Bruno']}]")).to_have_count(0)
    expect(referee.locator("#seats button.seat")).to_have_count(count - 1)
    # The controls one tap away are on the same screen too.
    for control in ("#infraction", "#full-reveal"):
        box = referee.locator(control).bounding_box()
        assert box["y"] + box["height"] <= referee.locator(".dock").bounding_box()["y"], control
    screenshot(referee, f"morto-referee-{count}")
    referee.emulate_media(color_scheme="dark")
    screenshot(referee, f"morto-referee-{count}-dark")
    print(
        f"\nIl Morto, {count} players, 390×844: {taps[0]} and {taps[1]} taps for a round with one loser, "
        f"{taps[2]} with a tie; scrolled {referee.evaluate('scrollY')} px"
    )
    assert taps == [2, 2, 3]


def test_an_infraction_is_one_control_that_asks_who_what_and_to_whom(phone, server, screenshot):
    """One "Infraction" control instead of a button per player: who (the players the engine lists for
    a touch or a word to the dead), what, and for a word to the dead, to whom. Each step can be
    cancelled, and nothing is recorded until the last."""
    referee, code = open_referee(phone(), TWELVE, lives=1)
    thumb = Thumb(referee)
    # Who: everyone but the dealer, Ada; with nobody dead, only a touch.
    thumb.tap(referee.locator("#infraction"))
    expect(referee.locator("#seats-title")).to_have_text("Infraction\u00a0: qui\u00a0?")
    expect(referee.locator("#seats button.seat")).to_have_count(11)
    expect(referee.locator(f"#seats button[data-player={ADA}]")).to_have_count(0)
    thumb.tap(referee.locator(f"#seats button[data-player={CHIARA}]"))
    expect(referee.locator("#seats-title")).to_have_text("Qu'a fait Chiara\u00a0?")
    expect(referee.locator("#offence [data-action]")).to_have_text(["✋ Touché avant le toc"])
    screenshot(referee, "morto-referee-infraction-what")
    thumb.tap(referee.locator("#offence [data-action=touched_early]"))
    expect_lives([referee], {CHIARA: 0})
    expect(referee.locator("#seats-title")).to_contain_text("Qui a la plus petite carte")
    assert thumb.taps == 3
    # Chiara is dead: Elena spoke to her. Who: the living but the dealer; what: both; to whom: Chiara.
    thumb.tap(referee.locator("#infraction"))
    expect(referee.locator("#seats button.seat")).to_have_count(10)
    screenshot(referee, "morto-referee-infraction-who")
    thumb.tap(referee.locator(f"#seats button[data-player={ELENA}]"))
    expect(referee.locator("#offence [data-action]")).to_have_text(
        ["✋ Touché avant le toc", "🗣 A parlé à un·e mort·e"]
    )
    thumb.tap(referee.locator("#offence [data-action=spoke]"))
    expect(referee.locator("#seats-title")).to_have_text("Elena a parlé à qui\u00a0?")
    # Cancelled at the last step: nothing recorded.
    thumb.tap(referee.locator("#infraction-cancel"))
    expect(referee.locator("#seats-title")).to_contain_text("Qui a la plus petite carte")
    expect_synced(referee)  # the touch before is the server's: then nothing more is
    assert table_json(referee, code)["version"] == 1
    for step in ("#infraction", f"#seats button[data-player={ELENA}]", "#offence [data-action=spoke]"):
        thumb.tap(referee.locator(step))
    thumb.tap(referee.locator(f"#seats button[data-player={CHIARA}]"))
    expect_lives([referee], {CHIARA: 1, ELENA: 0})
    expect_synced(referee)
    history = table_json(referee, code)
    assert history["version"] == 2
    events = referee.request.get(f"/api/tables/{code}/history").json()["events"]
    assert [entry["event"] for entry in events] == [
        {"type": "touched_early", "player": CHIARA},
        {"type": "spoke_to_dead", "living": ELENA, "dead": CHIARA},
    ]


def test_the_full_reveal_is_one_tap_away_and_checks_the_cards(phone, server):
    """For a table that wants the app to check the deck: every card, one tap from the round card."""
    referee, code = open_referee(phone(), NAMES, lives=3)
    Thumb(referee).tap(referee.locator("#full-reveal"))
    expect(referee.locator("#confirm-lowest")).to_have_count(0)
    expect_reveal_sheet(referee, [BRUNO, CHIARA, DARIO, ELENA, FABIO, ADA])
    # Five Assi cannot be: the phone says why before anything is sent.
    pick_ranks(referee, dict.fromkeys([BRUNO, CHIARA, DARIO, ELENA, FABIO], ASSO) | {ADA: RE})
    expect(referee.locator(".sheet .error")).to_have_text(
        "Le jeu n'a que quatre Asso : 5 révélé·es, c'est impossible."
    )
    reveal(referee, {FABIO: 4}, losers=[BRUNO, CHIARA, DARIO, ELENA])
    expect_lives([referee], {BRUNO: 2, CHIARA: 2, DARIO: 2, ELENA: 2, FABIO: 3, ADA: 3})
    # The sheet stays open for the next round, until the table goes back to the quick reveal.
    expect(referee.locator("#full-sheet")).to_be_visible()
    tap(referee.locator("#quick-reveal"))
    expect(referee.locator("#full-sheet")).to_have_count(0)
    quick(referee, [FABIO])
    expect_lives([referee], {FABIO: 2})  # drawn at once on the phone, from its engine
    expect_synced(referee)  # then the server has it
    assert table_json(referee, code)["version"] == 2


# --- one language at a time ----------------------------------------------------------------------------


def french_left_over(page: Page) -> list[str]:
    """The visible texts of an English page that are French catalogue strings (worded differently in
    English): each should have been the English one. Also any element still marked as a second
    language."""
    return page.evaluate("""async () => {
      const load = (lang) => fetch(`/i18n/${lang}.json`).then((r) => r.json());
      const [fr, en] = await Promise.all([load("fr"), load("en")]);
      // Single letters ("R" is a Re here, a Roi in the Grand Jeu de la Vie) say nothing of a language.
      const french = new Set(Object.keys(fr).filter((key) => fr[key] !== en[key] && !fr[key].includes("{"))
        .map((key) => fr[key].trim()).filter((text) => text.length > 2));
      const found = [...document.querySelectorAll("body [lang]")]
        .map((el) => `[lang=${el.lang}] ${el.textContent}`);
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent.trim();
        if (text && node.parentElement.checkVisibility() && french.has(text)) found.push(text);
      }
      return found;
    }""")


def test_an_english_phone_referees_and_follows_in_english(phone, server):
    """A phone set to English gets the referee page and the table view in English only: the status
    line, the buttons, the reveal sheet, the dead banner, and a refusal worded by the server (the
    phone's engine is kept from booting, so the server judges the reveal and words its refusal)."""
    phone.allow_console_error(PYODIDE_CONSOLE)
    referee_phone, follower_phone = phone(locale="en-US"), phone(locale="en-US")
    referee_phone.route("**/pyodide/**", lambda route: route.abort())
    referee = referee_phone.new_page()
    answer = referee.request.post(
        "/api/tables", data={"game": "morto", "players": NAMES, "options": {"lives": 1, "dealer": 0}}
    )
    assert answer.ok
    table = answer.json()
    code = table["code"]
    referee.goto(f"/r/{code}#s={table['secret']}")
    referee_ready(referee, engine="failed")
    expect(referee.locator("html")).to_have_attribute("lang", "en")
    view = follower_phone.new_page()
    view.goto(f"/t/{code}")
    expect(view.locator("html")).to_have_attribute("lang", "en")

    status = referee.locator(".status-line")
    expect(status).to_contain_text("Round 1")
    expect(status).to_contain_text("Dealer: Ada")
    expect(status).to_contain_text("Plays first: Bruno")
    expect(referee.locator(f"[data-player={ADA}] .pill.dealer")).to_have_text("dealer")
    expect(referee.locator("#seats-title")).to_have_text("Who holds the lowest card? several for a tie")
    expect(referee.locator("#confirm-lowest")).to_have_text("Tap who holds it, then confirm")
    expect(referee.locator("#full-reveal")).to_have_text("Every card")
    open_full_reveal(referee)
    expect(referee.locator(".sheet h2")).to_contain_text("Reveal")
    expect(referee.locator("#confirm-reveal")).to_have_text("Confirm the reveal")
    expect(referee.locator("#quick-reveal")).to_have_text("Quick reveal")

    # Bruno touched his card early: he dies (one life); the follower's banner says so in English.
    expect(referee.locator("#infraction")).to_have_text("⚠ Foul")
    tap(referee.locator("#infraction"))
    expect(referee.locator("#seats-title")).to_have_text("Foul: who?")
    tap(referee.locator(f"#seats button[data-player={BRUNO}]"))
    expect(referee.locator("#seats-title")).to_have_text("What did Bruno do?")
    expect(referee.locator("#offence [data-action]")).to_have_text(["✋ Touched before the knock"])
    tap(referee.locator("#offence [data-action=touched_early]"))
    expect(view.locator("#dead h2")).to_have_text("☠ The dead — do not speak to them!")
    expect(referee.locator(f"[data-player={BRUNO}] .pill.dead")).to_have_text("dead")

    # Five Asso: the server's check and then the server itself refuse it, in the phone's language.
    five_assi = "The deck has only four Asso: 5 revealed is impossible."
    pick_ranks(referee, {CHIARA: ASSO, DARIO: ASSO, ELENA: ASSO, FABIO: ASSO, ADA: ASSO})
    expect(referee.locator(".sheet .error")).to_have_text(five_assi)
    tap(referee.locator("#confirm-reveal"))
    expect_toast(referee, five_assi)
    # The phone's engine could not judge it: the tap was sent, and set aside with the server's reason.
    rejected = referee.locator("#rejected [data-rejected]")
    expect(rejected).to_contain_text(five_assi)
    assert french_left_over(referee) == []
    assert french_left_over(view) == []
    tap(rejected.get_by_role("button", name="Seen"))
    expect(rejected).to_have_count(0)

    # Four of them tie at the lowest card, on their last life: Ada wins.
    pick_ranks(referee, {ADA: 6})
    expect(referee.locator(".sheet .error")).to_have_count(0)
    expect(referee.locator("#confirm-reveal")).to_have_text(
        "Confirm — Chiara, Dario, Elena, Fabio lose a life"
    )
    tap(referee.locator("#confirm-reveal"))
    expect_winner([referee, view], [ADA], "🏆 Ada wins!")
    expect(referee.locator(".hint.center")).to_have_text(
        "Game over. “Undo” replays the last round if the table prefers."
    )
    assert french_left_over(referee) == []
    assert french_left_over(view) == []
