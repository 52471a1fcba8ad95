"""Le Grand Jeu de la Vie played through card by card (mode "tracker") end to end: one whole round
of the *Simples Règles* at three, refereed by taps on one phone, followed live on another, with the
referee's network cut in the middle of the round.

Everything goes through the real app (``server``) in Chromium phones (``phone``): the home page, the
new-table form (tracker mode), the referee page (the deal, then each turn phase by phase: ovulation,
fecundation, surrogacy, holding back, the held-back contest, births; abortions answered from the
answer bar), the QR screen and the table view opened from the URL the QR encodes, never reloaded.

What the table must show is worked out here from the rules (RULES.md §2), not read from the app: the
cards in hand, held back, in each uterus and formol, the piles, the contest's winner (the lowest EG
no other GM shares), the last lap (the player who plays their last card; the round ends after their
next phase 0; embryos started during it never come to term), and the round's scores (5 + EG per
newborn, 3 per abortion).

Seats (ids in seating order, the order of play): p1 Alice (first), p2 Basile, p3 Camille. Simples
Règles: 20 number GM, 6 each, 2 left face up to the Mouchoir; 20 GF in the Ovulation pile.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from e2e.conftest import ARTIFACTS, follow_from_qr
from e2e.gjdlv_rules import RoundSheet
from e2e.test_morto import french_left_over
from e2e.test_offline import ENGINE_TIMEOUT_MS, api, history
from e2e.test_offline_games import back_online, go_offline

NAMES = ["Alice", "Basile", "Camille"]
ALICE, BASILE, CAMILLE = PLAYERS = ["p1", "p2", "p3"]
NAME = dict(zip(PLAYERS, NAMES, strict=True))
GM_EACH, MOUCHOIR_AT_DEAL, GF_PILE = 6, 2, 20


def value(card: str) -> int:
    rank = card[:-1]
    return 1 if rank == "A" else int(rank)


def gap(gf: str, gm: str) -> int:
    return abs(value(gf) - value(gm))


class Round:
    """The round as the rules make it, from what the table does (each method is one event)."""

    def __init__(self):
        self.hand = dict.fromkeys(PLAYERS, 0)
        self.held = dict.fromkeys(PLAYERS, False)
        self.uterus: dict[str, tuple | None] = dict.fromkeys(PLAYERS)
        self.doomed: set[str] = set()  # uteri whose embryo was started during the last lap
        self.formol = {pid: [] for pid in PLAYERS}
        self.sheet = RoundSheet(PLAYERS)
        self.mouchoir: list[str] = []
        self.diva_cup: list[str] = []
        self.ovulation = GF_PILE
        self.gf: str | None = None
        self.last_lap: str | None = None
        self.events: list[dict] = []  # what the server must end up with, in order

    def event(self, event: dict) -> None:
        self.events.append({"event": event, "undone": False})

    def play_card(self, pid: str) -> None:
        self.hand[pid] -= 1
        if self.hand[pid] == 0 and self.last_lap is None:
            self.last_lap = pid  # the very last card announces the last lap

    def embryo(self, pid: str, gf: str, gm: str) -> None:
        self.uterus[pid] = (gf, gm)
        self.doomed.discard(pid)
        if self.last_lap is not None and pid != self.last_lap:
            self.doomed.add(pid)

    def deal(self, mouchoir: list[str]) -> None:
        self.hand = dict.fromkeys(PLAYERS, GM_EACH)
        self.mouchoir += mouchoir
        self.event({"type": "deal", "mouchoir": mouchoir})

    def birth(self, pid: str, recorded: bool = True) -> None:
        """Phase 0's birth: its own event, or (``recorded`` false) made by the ovulation after it."""
        gf, gm = self.uterus[pid]
        self.sheet.apply(("newborn", pid, gf, gm))
        self.uterus[pid] = None
        if recorded:
            self.event({"type": "birth", "player": pid})

    def ovulate(self, pid: str, gf: str) -> None:
        self.gf = gf
        self.ovulation -= 1
        self.event({"type": "ovulate", "player": pid, "gf": gf})

    def fecundate(self, pid: str, gm: str) -> None:
        self.embryo(pid, self.gf, gm)
        self.gf = None
        self.play_card(pid)
        self.event({"type": "fecundate", "player": pid, "gm": gm})

    def surrogate(self, pid: str, victim: str, gm: str) -> None:
        gf, replaced = self.uterus[victim]
        assert gap(gf, gm) < gap(gf, replaced)  # strictly closer to the GF
        self.uterus[victim] = None
        self.embryo(pid, gf, gm)
        self.mouchoir.append(replaced)
        self.play_card(pid)
        self.event({"type": "surrogate", "player": pid, "from": victim, "gm": gm})

    def hold(self, pid: str) -> None:
        self.held[pid] = True
        self.play_card(pid)
        self.event({"type": "hold", "player": pid})

    def abort(self, pid: str, owner: str, gm: str) -> None:
        gf, fecundating = self.uterus[owner]
        assert gm[:-1] == fecundating[:-1] and gm != fecundating  # the other black card of that rank
        self.uterus[owner] = None
        self.formol[pid] += [gf, fecundating, gm]
        self.sheet.apply(("abortion", pid))
        self.play_card(pid)
        self.event({"type": "abort", "player": pid, "gm": gm})

    def ejaculate(self, gms: dict[str, str]) -> str | None:
        """The held-back contest: GMs sharing an EG are out; of the others the lowest EG wins."""
        gaps = {pid: gap(self.gf, gm) for pid, gm in gms.items()}
        alone = [pid for pid in gms if list(gaps.values()).count(gaps[pid]) == 1]
        winner = min(alone, key=gaps.get) if alone else None
        for pid, gm in gms.items():
            self.held[pid] = False
            if pid != winner:
                self.mouchoir.append(gm)
        if winner:
            self.embryo(winner, self.gf, gms[winner])
        else:
            self.diva_cup.append(self.gf)
        self.gf = None
        self.event({"type": "ejaculate", "gms": gms})
        return winner

    def menstruation(self) -> None:
        self.diva_cup.append(self.gf)
        self.gf = None


# --- what a person does, and what each phone must show -----------------------------------------------


def create_table(page: Page) -> str:
    """From the home page: GJDLV, three names, the round played through card by card."""
    page.goto("/")
    page.locator("a[data-game=gjdlv]").tap()
    expect(page).to_have_url(re.compile(r"/new/gjdlv$"))
    expect(page.locator("input[name=mode][value=sheet]")).to_be_checked()  # the score sheet by default
    inputs = page.locator("#names input[name=name]")
    for i, name in enumerate(NAMES):
        inputs.nth(i).fill(name)
    page.locator("#names li").nth(3).get_by_role("button", name="Retirer").tap()
    page.get_by_text("Partie suivie carte par carte").tap()
    expect(page.locator("input[name=mode][value=tracker]")).to_be_checked()
    page.get_by_role("button", name="Créer la table").tap()
    expect(page).to_have_url(re.compile(r"/r/[0-9A-Z]{6}$"))
    return page.url.rsplit("/", 1)[1]


def expect_turn(page: Page, active: str, phase: str) -> None:
    turn = page.locator("#turn")
    expect(turn).to_have_attribute("data-phase", phase)
    expect(turn).to_have_attribute("data-active", active)
    expect(turn.locator("[data-turn]")).to_have_text(NAME[active])


def expect_table(page: Page, game: Round) -> None:
    """Each seat, the piles and the round's scores, as the rules make them."""
    for pid in PLAYERS:
        seat = page.locator(f"[data-seat={pid}]")
        expect(seat.locator("[data-hand]")).to_have_attribute("data-hand", str(game.hand[pid]))
        expect(seat.locator("[data-held]")).to_have_count(1 if game.held[pid] else 0)
        embryo = game.uterus[pid]
        if embryo:
            shown = seat.locator(f"[data-embryo='{embryo[0]}-{embryo[1]}']")
            expect(shown).to_have_attribute("data-term", "false" if pid in game.doomed else "true")
            expect(shown.locator("[data-doomed]")).to_have_count(1 if pid in game.doomed else 0)
        else:
            expect(seat.locator("[data-embryo]")).to_have_count(0)
        expect(seat.locator("[data-formol-cards] [data-face]")).to_have_count(len(game.formol[pid]))
        expect(page.locator(f"[data-round-score={pid}]")).to_have_text(str(game.sheet.score(pid)))
    expect(page.locator("[data-pile=ovulation] [data-count]")).to_have_text(str(game.ovulation))
    expect(page.locator("[data-pile=mouchoir] [data-count]")).to_have_text(str(len(game.mouchoir)))
    expect(page.locator("[data-pile=diva_cup] [data-count]")).to_have_text(str(len(game.diva_cup)))
    expect(page.locator("[data-cards=diva_cup] [data-face]")).to_have_count(len(game.diva_cup))
    if game.last_lap:
        expect(page.locator("#turn [data-last-lap]")).to_have_attribute("data-last-lap", game.last_lap)
    else:
        expect(page.locator("#turn [data-last-lap]")).to_have_count(0)


class Referee:
    """The referee's taps: each plays one event on the page and in the model."""

    def __init__(self, page: Page, game: Round):
        self.page, self.game = page, game

    def card(self, grid: str, card: str) -> None:
        self.page.locator(f"[data-grid={grid}] [data-card='{card}']").tap()

    def ovulate(self, pid: str, gf: str, born: bool = False) -> None:
        """The only play of phase 1: its cards are offered at once. With ``born``, the player's phase 0
        waits with nothing to choose: the ovulation makes it (the embryo is born first)."""
        expect_turn(self.page, pid, "birth" if born else "ovulation")
        if born:
            gf_born, gm_born = self.game.uterus[pid]
            expect(self.page.locator("#play [data-action=birth]")).to_have_count(0)
            expect(self.page.locator("#play .gj-context [data-face]")).to_have_count(2)
            self.game.birth(pid, recorded=False)
        self.card("ovulate", gf)
        self.game.ovulate(pid, gf)
        expect(self.page.locator("#turn [data-revealed]")).to_have_attribute("data-revealed", gf)
        if born:
            newborn = self.page.locator(f"[data-sheet={pid}] [data-newborn='{gf_born}-{gm_born}']")
            expect(newborn).to_be_visible()

    def fecundate(self, pid: str, gm: str) -> None:
        self.card("fecundate", gm)  # the turn's play with cards: offered at once, the other moves under them
        self.game.fecundate(pid, gm)
        gf = self.game.uterus[pid][0]
        expect(self.page.locator(f"[data-seat={pid}] [data-embryo='{gf}-{gm}']")).to_be_visible()

    def surrogate(self, pid: str, victim: str, gm: str) -> None:
        self.page.locator(f"#play [data-action=surrogate][data-from={victim}]").tap()
        self.card("surrogate", gm)
        self.game.surrogate(pid, victim, gm)
        expect(self.page.locator(f"[data-seat={victim}] [data-embryo]")).to_have_count(0)

    def hold(self, pid: str) -> None:
        self.page.locator("#play [data-action=hold]").tap()
        self.game.hold(pid)
        expect(self.page.locator(f"[data-seat={pid}] [data-held]")).to_be_visible()

    def birth(self, pid: str) -> None:
        expect_turn(self.page, pid, "birth")
        gf, gm = self.game.uterus[pid]
        self.page.locator("#play [data-action=birth]").tap()
        self.game.birth(pid)
        expect(self.page.locator(f"[data-sheet={pid}] [data-newborn='{gf}-{gm}']")).to_be_visible()

    def abort(self, pid: str, owner: str, gm: str) -> None:
        """From the answer bar, while the fecundation is open: the aborter, then the card."""
        bar = self.page.locator("#answers")
        expect(bar.locator("[data-open]")).to_have_attribute("data-by", owner)
        # The only card that aborts it, the other black card of the fecundating GM's rank, is on the
        # aborter's button: one tap.
        button = bar.locator(f"[data-action=abort][data-player={pid}]")
        expect(button).to_have_attribute("data-card", gm)
        button.tap()
        self.game.abort(pid, owner, gm)
        expect(self.page.locator(f"[data-seat={pid}] [data-formol-cards]")).to_have_attribute(
            "data-formol-cards", str(len(self.game.formol[pid]))
        )

    def ejaculate(self, gms: dict[str, str]) -> str | None:
        sheet = self.page.locator("#ejaculation")
        if not gms:
            sheet.locator("[data-action=ejaculate-none]").tap()
        else:
            for pid, gm in gms.items():
                card = sheet.locator(f"[data-holder={pid}] [data-card='{gm}']")
                card.tap()
                expect(card).to_have_attribute("aria-pressed", "true")
            sheet.locator("[data-action=ejaculate-confirm]").tap()
        expect(sheet).to_have_count(0)
        return self.game.ejaculate(gms)


def glance(page: Page, name: str) -> None:
    """What the phone's screen shows now (390×844, not the whole page), saved for people to look at."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"{name}.png")


# --- the test ----------------------------------------------------------------------------------------


def test_a_round_played_through_card_by_card_with_the_network_cut(phone, server, screenshot):
    referee_phone, follower_phone = phone(), phone()
    page = referee_phone.new_page()
    code = create_table(page)
    view = follow_from_qr(page, follower_phone, server, code)
    both = [page, view]
    game = Round()
    ref = Referee(page, game)

    # The deal: two GM face up to the Mouchoir, exactly (the second sends it).
    for p in both:
        expect_turn(p, ALICE, "deal")
    ref.card("deal", "10S")
    expect(page.locator("#deal-picker [data-chosen]")).to_have_attribute("data-chosen", "1")
    expect_turn(page, ALICE, "deal")
    ref.card("deal", "10C")
    game.deal(["10S", "10C"])
    for p in both:
        expect_turn(p, ALICE, "ovulation")
        expect_table(p, game)

    # Turn 1, Alice: 5♥ fecundated with 3♠. The answer bar offers Basile's and Camille's abortions.
    ref.ovulate(ALICE, "5H")
    ref.fecundate(ALICE, "3S")
    answers = page.locator("#answers [data-action=abort]")
    expect(answers).to_have_count(2)
    expect(page.locator("#answers [data-open]")).to_have_attribute("data-open", "fecundation")
    glance(page, "gjdlv-play-referee-answers")
    # Turn 2, Basile: 7♦ with 7♠, a CC; Camille aborts it with the other 7 (3 cards to her formol).
    ref.ovulate(BASILE, "7D")
    expect(page.locator("#answers")).to_have_count(0)  # the next event closed the chain
    ref.fecundate(BASILE, "7S")
    ref.abort(CAMILLE, BASILE, "7C")
    expect(page.locator("#answers")).to_have_count(0)
    for p in both:
        expect_turn(p, CAMILLE, "ovulation")
        expect_table(p, game)
    expect(view.locator(f"[data-seat={CAMILLE}] [data-formol-cards] [data-face='7C']")).to_be_visible()

    # Turn 3, Camille holds a GM back; nobody else holds one: 2♦ goes to the Diva Cup.
    ref.ovulate(CAMILLE, "2D")
    ref.hold(CAMILLE)
    game.menstruation()
    # Turn 4, Alice: her embryo is born (5 + EG 2) as 9♥ is ovulated; she holds back; Camille does
    # not ejaculate on 9♥.
    ref.ovulate(ALICE, "9H", born=True)
    ref.hold(ALICE)
    expect_turn(page, ALICE, "ejaculation")
    expect(page.locator("#ejaculation [data-holder]")).to_have_count(1)
    ref.ejaculate({})
    # Turn 5, Basile holds back too: Alice (4♣, EG 2) and Camille (5♠, EG 1) ejaculate on 6♥.
    ref.ovulate(BASILE, "6H")
    ref.hold(BASILE)
    expect(page.locator("#ejaculation [data-holder]")).to_have_count(2)
    winner = ref.ejaculate({ALICE: "4C", CAMILLE: "5S"})
    assert winner == CAMILLE
    # Camille plays next: a fécondation express, born at her phase 0.
    for p in both:
        expect_turn(p, CAMILLE, "birth")
        expect_table(p, game)

    # The referee's phone has the app installed; the network goes.
    expect(page.locator("html")).to_have_attribute("data-sw", "ready", timeout=ENGINE_TIMEOUT_MS)
    expect(page.locator("#sync")).to_have_attribute("data-engine", "ready", timeout=ENGINE_TIMEOUT_MS)
    go_offline(phone, referee_phone, page)
    online_events = len(game.events)

    # Turn 6, Camille: her express embryo is born; 3♥ with 9♣.
    ref.ovulate(CAMILLE, "3H", born=True)
    ref.fecundate(CAMILLE, "9C")
    # Turn 7, Alice takes Camille's embryo as a mère porteuse with 2♠ (EG 1 < 6; 9♣ to the Mouchoir);
    # 4♥, still revealed, goes to the contest: Basile ejaculates 8♠ alone and wins it.
    ref.ovulate(ALICE, "4H")
    ref.surrogate(ALICE, CAMILLE, "2S")
    expect(page.locator("#answers [data-open]")).to_have_attribute("data-open", "surrogacy")
    expect_turn(page, ALICE, "ejaculation")
    glance(page, "gjdlv-play-referee-contest")
    assert ref.ejaculate({BASILE: "8S"}) == BASILE
    # Turn 8, Basile: born at once (EG 4); 8♥ with 6♠, aborted by Alice with 6♣.
    ref.ovulate(BASILE, "8H", born=True)
    ref.fecundate(BASILE, "6S")
    ref.abort(ALICE, BASILE, "6C")
    # Turn 9, Camille: a slip of the finger (2♣), taken back with the dock's undo, then A♥ with A♣,
    # which Alice aborts with A♠.
    ref.ovulate(CAMILLE, "AH")
    ref.card("fecundate", "2C")
    expect(page.locator(f"[data-seat={CAMILLE}] [data-embryo='AH-2C']")).to_be_visible()
    page.locator(".dock #undo").tap()
    expect(page.locator(f"[data-seat={CAMILLE}] [data-embryo]")).to_have_count(0)
    game.events.append({"event": {"type": "fecundate", "player": CAMILLE, "gm": "2C"}, "undone": True})
    expect_turn(page, CAMILLE, "action")
    ref.fecundate(CAMILLE, "AC")
    ref.abort(ALICE, CAMILLE, "AS")
    expect_table(page, game)
    waiting = len(game.events) - online_events + 1  # every event and the undo wait in the outbox
    expect(page.locator("#sync")).to_have_attribute("data-waiting", str(waiting))
    # Meanwhile the follower still shows the table as it was when the network went.
    expect_turn(view, CAMILLE, "birth")
    assert view.evaluate("window.__notReloaded") is True

    back_online(referee_phone, page)
    expect_turn(view, ALICE, "birth")
    expect_table(view, game)
    glance(view, "gjdlv-play-view")

    # Turn 10, Alice: her surrogate embryo is born (EG 1); 10♥ with 9♠, her very last card: last lap.
    ref.ovulate(ALICE, "10H", born=True)
    ref.fecundate(ALICE, "9S")
    assert game.last_lap == ALICE
    for p in both:
        expect(p.locator("[data-note='gjdlv.play.last_lap']")).to_contain_text(
            "Dernier tour\u00a0: Alice a posé sa dernière carte."
        )
    # Turns 11 and 12: Basile's and Camille's embryos, started in the last lap, will not come to term.
    ref.ovulate(BASILE, "2H")
    glance(page, "gjdlv-play-referee-moves")
    ref.fecundate(BASILE, "3C")
    ref.ovulate(CAMILLE, "10D")
    ref.fecundate(CAMILLE, "5C")
    for p in both:
        expect_turn(p, ALICE, "birth")
        expect_table(p, game)
        expect(p.locator(f"[data-seat={BASILE}] [data-doomed]")).to_contain_text("n'arrivera pas à terme")
    screenshot(page, "gjdlv-play-referee-last-lap")
    screenshot(view, "gjdlv-play-view-last-lap")
    # Alice's phase 0 ends the round: her own last embryo is born and scores.
    ref.birth(ALICE)
    for p in both:
        expect_turn(p, ALICE, "ended")
        expect(p.locator("[data-note='gjdlv.play.round_ended']")).to_be_visible()

    # The server has every tap once, in order, the undone one marked; its state is the referee's.
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "0")
    events = history(server, code)
    assert [{"event": e["event"], "undone": e["undone"]} for e in events] == game.events
    assert len({e["id"] for e in events}) == len(events)
    state = api(server, f"/api/tables/{code}")["state"]
    assert state["play"]["phase"] == "ended"
    for seat in state["play"]["seats"]:
        pid = seat["player"]
        assert seat["hand"] == game.hand[pid] and seat["held"] == game.held[pid]
        embryo = seat["uterus"]
        assert ((embryo["gf"], embryo["gm"]) if embryo else None) == game.uterus[pid]
    assert sorted(state["play"]["mouchoir"]) == sorted(game.mouchoir)
    assert state["play"]["diva_cup"] == game.diva_cup

    # The round's scores by the rules: Alice 7 + 6 + 6 and two abortions, Basile 9, Camille 6 + one.
    scores = game.sheet.scores()
    assert scores == {ALICE: 25, BASILE: 9, CAMILLE: 9}
    assert {p["id"]: p["round_score"] for p in state["players"]} == scores
    # The round's scores are on the page with the one button that closes it.
    for pid in PLAYERS:
        row = page.locator(f"[data-confirm={pid}] td")
        expect(row.nth(1)).to_have_text(f"+{scores[pid]}")
        expect(row.nth(2)).to_have_text(str(scores[pid]))
    page.locator("[data-action=close-round]").tap()
    for p in both:
        expect_turn(p, BASILE, "deal")  # round 2 starts one seat on
        expect(p.locator("[data-round]")).to_have_text("2")
        for pid in PLAYERS:
            expect(p.locator(f"#rounds [data-round-score='1/{pid}']")).to_have_text(str(scores[pid]))
    for pid in PLAYERS:
        expect(view.locator(f"[data-total={pid}]")).to_have_text(str(scores[pid]))
    assert view.evaluate("window.__notReloaded") is True, "the follower's page was reloaded"


def test_answers_and_royal_births_in_the_abondantes_rules(phone, server):
    """The imperial bonuses answered from the bar (the King cancels an abortion, the Queen a
    surrogacy), the Jack newborn's removal, the Queen newborn's take, and a birth with a GM still held
    back (it goes to the Mouchoir at phase 0). The cards offered are those the rules allow."""
    table = api(
        server,
        "/api/tables",
        {"game": "gjdlv", "players": NAMES, "options": {"mode": "tracker", "rules": "abondantes"}},
    )
    page = phone().new_page()
    page.goto(f"/r/{table['code']}#s={table['secret']}")
    sheet = RoundSheet(PLAYERS)

    def tap(selector: str) -> None:
        page.locator(selector).tap()

    def answer(pid: str, kind: str, card: str, offered: list[str]) -> None:
        tap(f"#answers [data-action={kind}][data-player={pid}]")
        expect(page.locator(f"#answers [data-grid={kind}] [data-card]")).to_have_count(len(offered))
        for other in offered:
            expect(page.locator(f"#answers [data-grid={kind}] [data-card='{other}']")).to_be_visible()
        tap(f"#answers [data-grid={kind}] [data-card='{card}']")

    def embryo(pid: str, cards: str | None) -> None:
        shown = page.locator(f"[data-seat={pid}] [data-embryo]")
        if cards:
            expect(shown).to_have_attribute("data-embryo", cards)
        else:
            expect(shown).to_have_count(0)

    # Abondantes at three: 26 GM, 8 each, 2 to the Mouchoir.
    tap("[data-grid=deal] [data-card='10S']")
    tap("[data-grid=deal] [data-card='10C']")  # the last GM of the Mouchoir sends the deal
    expect(page.locator(f"[data-seat={ALICE}] [data-hand]")).to_have_attribute("data-hand", "8")
    # Alice: a Royal Ovum (Jack of hearts) takes any GM, imperials included.
    tap("[data-grid=ovulate] [data-card=JH]")
    expect(page.locator("[data-grid=fecundate] [data-card=KC]")).to_be_visible()
    tap("[data-grid=fecundate] [data-card='5S']")
    embryo(ALICE, "JH-5S")
    # Basile: a number GF takes number GMs only. Camille aborts (the other 6, or a Jack "Guilde du
    # Cintre"); Basile cancels the abortion with his King "Manif pour Tous": the embryo stays.
    tap("[data-grid=ovulate] [data-card='4H']")
    expect(page.locator("[data-grid=fecundate] [data-card='9S']")).to_be_visible()
    expect(page.locator("[data-grid=fecundate] [data-card=KC]")).to_have_count(0)
    tap("[data-grid=fecundate] [data-card='6S']")
    answer(CAMILLE, "abort", "6C", ["6C", "JS", "JC"])
    embryo(BASILE, None)
    expect(page.locator("#answers [data-open]")).to_have_attribute("data-open", "abortion")
    tap(f"#answers [data-action=cancel][data-player={BASILE}]")
    glance(page, "gjdlv-play-referee-bonus")
    tap(f"#answers [data-action=cancel][data-player={BASILE}]")  # closed again: the bar toggles
    expect(page.locator("#answers [data-grid]")).to_have_count(0)
    answer(BASILE, "cancel", "KS", ["KS", "KC"])
    embryo(BASILE, "4H-6S")
    expect(page.locator(f"[data-seat={CAMILLE}] [data-formol-cards]")).to_have_count(0)
    expect(page.locator("[data-cards=mouchoir] [data-face]")).to_have_count(4)  # 10♠ 10♣ + 6♣ R♠
    # Camille: the Queen of diamonds with 2♠.
    tap("[data-grid=ovulate] [data-card=QD]")
    tap("[data-grid=fecundate] [data-card='2S']")
    # Alice's Jack is born: "Assassin Royal" removes Basile's embryo (GF to the Diva Cup), now or never.
    tap("#play [data-action=birth]")
    sheet.apply(("newborn", ALICE, "JH", "5S"))
    jack = page.locator(f"[data-jack={ALICE}] [data-action=remove-embryo]")
    expect(jack).to_have_count(2)
    glance(page, "gjdlv-play-referee-jack")
    expect(page.locator("[data-note='gjdlv.play.removal']")).to_be_visible()
    tap(f"[data-jack={ALICE}] [data-action=remove-embryo][data-from={BASILE}]")
    embryo(BASILE, None)
    expect(page.locator("[data-cards=diva_cup] [data-face='4H']")).to_be_visible()
    expect(page.locator("[data-jack]")).to_have_count(0)
    # Alice holds back; Basile takes Camille's royal embryo with an imperial (never a number card);
    # Camille's Queen "Amour Maternel" cancels it; Alice then wins 5♦ alone with 4♣.
    tap("[data-grid=ovulate] [data-card='3H']")
    tap("#play [data-action=hold]")
    tap("[data-grid=ovulate] [data-card='5D']")
    tap(f"#play [data-action=surrogate][data-from={CAMILLE}]")
    expect(page.locator("[data-grid=surrogate] [data-card='9S']")).to_have_count(0)
    tap("[data-grid=surrogate] [data-card=JS]")
    embryo(BASILE, "QD-JS")
    answer(CAMILLE, "cancel", "QS", ["QS", "QC"])
    embryo(CAMILLE, "QD-2S")
    embryo(BASILE, None)
    tap(f"[data-holder={ALICE}] [data-card='4C']")
    tap("[data-action=ejaculate-confirm]")
    embryo(ALICE, "5D-4C")
    # Camille's Queen is born: she takes Alice's most recent newborn, the Jack.
    tap("#play [data-action=birth]")
    sheet.apply(("newborn", CAMILLE, "QD", "2S"))
    queen = page.locator(f"[data-queen={CAMILLE}] [data-action=steal]")
    expect(queen).to_have_count(1)
    tap(f"[data-queen={CAMILLE}] [data-action=steal][data-from={ALICE}]")
    sheet.apply(("steal", CAMILLE, ALICE))
    expect(page.locator(f"[data-sheet={CAMILLE}] [data-newborn='JH-5S']")).to_be_visible()
    # Camille holds back; at her next phase 0 the held GM goes face up to the Mouchoir: which one is asked.
    # Alice's phase 0 has nothing to choose: her ovulation makes it (5♦ × 4♣ is born).
    tap("[data-grid=ovulate] [data-card='2H']")
    tap("#play [data-action=hold]")
    expect(page.locator("#play [data-action=birth]")).to_have_count(0)
    tap("[data-grid=ovulate] [data-card='6D']")
    sheet.apply(("newborn", ALICE, "5D", "4C"))
    tap("[data-grid=fecundate] [data-card='7S']")
    tap("[data-grid=ovulate] [data-card='8D']")
    tap("[data-grid=fecundate] [data-card='9S']")
    expect(page.locator("#play")).to_have_attribute("data-picking", "birth")
    glance(page, "gjdlv-play-referee-held")
    tap("[data-grid=birth] [data-card='3S']")
    expect(page.locator(f"[data-seat={CAMILLE}] [data-held]")).to_have_count(0)
    expect(page.locator("[data-cards=mouchoir] [data-face='3S']")).to_be_visible()
    expect(page.locator("#turn")).to_have_attribute("data-phase", "ovulation")
    for pid, score in sheet.scores().items():
        expect(page.locator(f"[data-round-score={pid}]")).to_have_text(str(score))
    assert sheet.scores() == {ALICE: 6, BASILE: 0, CAMILLE: 5}


def test_with_no_gm_left_for_the_mouchoir_the_deal_is_one_tap(phone, server):
    """Simples Règles at four: 20 GM, 5 each, none left over."""
    table = api(
        server,
        "/api/tables",
        {"game": "gjdlv", "players": [*NAMES, "Dorian"], "options": {"mode": "tracker"}},
    )
    page = phone().new_page()
    page.goto(f"/r/{table['code']}#s={table['secret']}")
    expect(page.locator("[data-grid=deal]")).to_have_count(0)
    page.locator("[data-action=deal]").tap()
    expect(page.locator("#turn")).to_have_attribute("data-phase", "ovulation")
    for pid in [*PLAYERS, "p4"]:
        expect(page.locator(f"[data-seat={pid}] [data-hand]")).to_have_attribute("data-hand", "5")
    assert history(server, table["code"])[0]["event"] == {"type": "deal", "mouchoir": []}


def test_an_english_phone_sees_the_round_in_english(phone, server):
    """A phone set to English: the referee's turn bar, plays and cards (K Q J, "King of hearts"), and
    the table view, all in English and nothing of the French page."""
    table = api(
        server,
        "/api/tables",
        {"game": "gjdlv", "players": NAMES, "options": {"mode": "tracker", "rules": "abondantes"}},
    )
    page = phone(locale="en-US").new_page()
    page.goto(f"/r/{table['code']}#s={table['secret']}")
    view = phone(locale="en-US").new_page()
    view.goto(f"/t/{table['code']}")
    for p in (page, view):
        expect(p.locator("html")).to_have_attribute("lang", "en")
        expect(p.locator("#turn .gj-phase")).to_have_text("Deal")
        expect(p.locator("#turn [data-step]")).to_have_text(
            "The deal: the GM are shared out equally, the rest goes face up to the Mouchoir."
        )
    expect(page.locator("#deal-picker [data-chosen]")).to_have_text("0 / 2 to the Mouchoir")
    page.locator("[data-grid=deal] [data-card='10S']").tap()
    page.locator("[data-grid=deal] [data-card='10C']").tap()
    # Phase 1: the picker asks which GF is revealed; the pictures are K Q J, named in English.
    expect(page.locator("#play h2")).to_have_text("Alice's ovulation: which GF is revealed?")
    king = page.locator("[data-grid=ovulate] [data-card=KH]")
    expect(king.locator(".gj-rank")).to_have_text("K")
    expect(king).to_have_accessible_name("King of hearts")
    expect(page.locator("[data-grid=ovulate] [data-card=QD] .gj-rank")).to_have_text("Q")
    page.locator("[data-grid=ovulate] [data-card='5H']").tap()
    expect(page.locator("#turn .gj-phase")).to_have_text("Phase 2 · action")
    expect(page.locator("#play h2")).to_have_text("Alice fecundates with which GM?")
    expect(page.locator("#play [data-action=hold]")).to_contain_text("Hold back")
    for p in (page, view):
        expect(p.locator("#turn [data-step]")).to_have_text(
            "Alice's phase 2: fecundate, surrogate or hold back."
        )
        expect(p.locator("[data-pile=ovulation]")).to_contain_text("Ovulation")
        expect(p.locator(f"[data-seat={ALICE}] [data-hand]")).to_contain_text("8 in hand")
        expect(p.locator("#round-sheet h2")).to_have_text("Round 1 of 9")
        assert french_left_over(p) == []
    glance(page, "gjdlv-play-referee-en")
