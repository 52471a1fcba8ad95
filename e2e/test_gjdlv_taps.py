"""What a whole round played through card by card costs the referee, in taps (issue 29 item 5).

One round of the *Simples Règles* at three on a 390×844 phone, from the deal to the round closed, as
a table plays it: mostly fecundations, one abortion, a GM held back with nobody to take the GF, a
held-back contest won by the player who plays next (a fécondation express), a GM held back through
a lap (named at its owner's phase 0), and the last lap. Every tap on the referee page is counted;
the count is printed, with the taps per turn (a turn is a player's ovulation and what follows it),
and must stay within 2.5 a turn: a step with nothing to choose costs no tap.

The referee taps what the page offers for each play and nothing else: a move's button only when
the page shows one before the cards it needs. What the table must end with (the scores) is worked
out from the rules here (`e2e.gjdlv_rules`), not read from the app.
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from e2e.gjdlv_rules import RoundSheet
from e2e.test_gjdlv_play import glance
from e2e.test_offline import ENGINE_TIMEOUT_MS, api

NAMES = ["Alice", "Basile", "Camille"]
ALICE, BASILE, CAMILLE = PLAYERS = ["p1", "p2", "p3"]
TAPS_PER_TURN_MAX = 2.5


class Referee:
    """Taps on the referee page, counted, each play as the page offers it."""

    def __init__(self, page: Page):
        self.page, self.taps, self.turns = page, 0, 0

    def tap(self, selector: str) -> None:
        self.page.locator(selector).tap()
        self.taps += 1

    def shown(self, selector: str, *others: str) -> bool:
        """Whether ``selector`` is on the page, once the page shows it or one of ``others`` (what it
        shows instead): the page has drawn the moment being played."""
        expect(self.page.locator(", ".join((selector, *others))).first).to_be_visible()
        return self.page.locator(selector).count() > 0

    def phase(self, active: str, phase: str) -> None:
        turn = self.page.locator("#turn")
        expect(turn).to_have_attribute("data-active", active)
        expect(turn).to_have_attribute("data-phase", phase)

    def birth(self, then: str) -> None:
        """A phase 0 that waits for its own tap (before issue 29: every one with an embryo), or what
        the page offers ``then`` in its place."""
        if self.shown("#play [data-action=birth]", then):
            self.tap("#play [data-action=birth]")

    def ovulate(self, pid: str, gf: str) -> None:
        expect(self.page.locator("#turn")).to_have_attribute("data-active", pid)
        card = f"[data-grid=ovulate] [data-card='{gf}']"
        self.birth(card)
        self.tap(card)
        self.turns += 1
        self.phase(pid, "action")

    def fecundate(self, gm: str) -> None:
        card = f"[data-grid=fecundate] [data-card='{gm}']"
        if not self.shown(card, "#play [data-action=fecundate]"):
            self.tap("#play [data-action=fecundate]")
        self.tap(card)

    def hold(self) -> None:
        self.tap("#play [data-action=hold]")

    def abort(self, pid: str, gm: str) -> None:
        self.tap(f"#answers [data-action=abort][data-player={pid}]")
        card = f"#answers [data-grid=abort] [data-card='{gm}']"
        formol = f"[data-seat={pid}] [data-formol-cards]"
        if self.shown(card, formol):
            self.tap(card)
        expect(self.page.locator(formol)).to_have_count(1)

    def ejaculate(self, pid: str, gm: str, look=None) -> None:
        self.tap(f"#ejaculation [data-holder={pid}] [data-card='{gm}']")
        if look:
            look()
        self.tap("#ejaculation [data-action=ejaculate-confirm]")
        expect(self.page.locator("#ejaculation")).to_have_count(0)

    def discard_held(self, gm: str) -> None:
        self.tap(f"[data-grid=birth] [data-card='{gm}']")


def test_a_round_played_through_costs_at_most_two_and_a_half_taps_a_turn(phone, server):
    table = api(server, "/api/tables", {"game": "gjdlv", "players": NAMES, "options": {"mode": "tracker"}})
    page = phone().new_page()
    page.goto(f"/r/{table['code']}#s={table['secret']}")
    # The phone's engine ready, as on a referee's phone with the app open: each tap is then shown at once.
    expect(page.locator("#sync")).to_have_attribute("data-engine", "ready", timeout=ENGINE_TIMEOUT_MS)
    ref = Referee(page)
    sheet = RoundSheet(PLAYERS)

    def turn(pid: str, gf: str, gm: str, born: tuple | None = None) -> None:
        """A plain turn: the embryo of the last lap born (if any), ``gf`` ovulated and fecundated."""
        ref.ovulate(pid, gf)
        if born:
            sheet.apply(("newborn", pid, *born))
        ref.fecundate(gm)

    # The deal: 10♠ and 10♣ face up to the Mouchoir.
    ref.tap("[data-grid=deal] [data-card='10S']")
    ref.tap("[data-grid=deal] [data-card='10C']")
    if ref.shown("[data-action=deal]:enabled", "#turn[data-phase=ovulation]"):
        ref.tap("[data-action=deal]")
    ref.phase(ALICE, "ovulation")

    turn(ALICE, "5H", "3S")
    expect(page.locator("#answers [data-action=abort]")).to_have_count(2)
    glance(page, "gjdlv-taps-answers")  # Basile's ovulation, the answers to Alice's act under it
    ref.ovulate(BASILE, "7D")
    glance(page, "gjdlv-taps-action")  # the fecundation's cards at once, the other moves under them
    ref.fecundate("7S")
    ref.abort(CAMILLE, "7C")  # the other black 7
    sheet.apply(("abortion", CAMILLE))
    ref.ovulate(CAMILLE, "2D")
    ref.hold()  # nobody else holds a GM back: 2♦ to the Diva Cup
    turn(ALICE, "9H", "8S", born=("5H", "3S"))
    ref.ovulate(BASILE, "6H")
    ref.hold()

    # Who wins is said before it is confirmed, from the engine's contest check.
    def contest_said() -> None:
        verdict = page.locator("#ejaculation [data-winner]")
        expect(verdict).to_have_attribute("data-winner", CAMILLE)
        expect(verdict).to_contain_text("Une seule éjaculation sur 6♥\u00a0: Camille féconde avec 5♠")
        glance(page, "gjdlv-taps-contest")

    ref.ejaculate(CAMILLE, "5S", look=contest_said)  # Camille plays next: a fécondation express
    expect(page.locator("#play .gj-context")).to_contain_text("naît")
    glance(page, "gjdlv-taps-phase-0")  # Camille's phase 0, made by her ovulation
    turn(CAMILLE, "3H", "9C", born=("6H", "5S"))
    turn(ALICE, "4H", "2S", born=("9H", "8S"))
    ref.phase(BASILE, "birth")  # Basile's GM held back through the lap goes to the Mouchoir: which one?
    ref.discard_held("2C")
    turn(BASILE, "8H", "6S")
    turn(CAMILLE, "AH", "AC", born=("3H", "9C"))
    turn(ALICE, "10H", "9S", born=("4H", "2S"))
    turn(BASILE, "2H", "4S", born=("8H", "6S"))
    turn(CAMILLE, "3D", "5C", born=("AH", "AC"))
    turn(ALICE, "4D", "4C", born=("10H", "9S"))
    turn(BASILE, "5D", "3C", born=("2H", "4S"))
    turn(CAMILLE, "6D", "AS", born=("3D", "5C"))  # Camille's very last card: the last lap
    expect(page.locator("#turn [data-last-lap]")).to_have_attribute("data-last-lap", CAMILLE)
    turn(ALICE, "8D", "6C", born=("4D", "4C"))  # begun in the last lap: never born
    turn(BASILE, "9D", "8C", born=("5D", "3C"))
    # Camille's phase 0 ends the round, her own last embryo born; then the round is closed.
    ref.phase(CAMILLE, "birth")
    ref.tap("#play [data-action=birth]")
    sheet.apply(("newborn", CAMILLE, "6D", "AS"))
    ref.phase(CAMILLE, "ended")
    scores = sheet.scores()
    assert scores == {ALICE: 31, BASILE: 21, CAMILLE: 42}
    # The round's scores (before issue 29, behind a first tap), then the tap that closes the round.
    if not ref.shown(f"[data-confirm={ALICE}]", "[data-action=close-round]"):
        ref.tap("[data-action=close-round]")
    for pid in PLAYERS:
        expect(page.locator(f"[data-confirm={pid}] td").nth(1)).to_have_text(f"+{scores[pid]}")
    glance(page, "gjdlv-taps-round-ended")
    confirm = page.locator("[data-action=confirm-close]").count()  # the scores are drawn: so is the button
    ref.tap("[data-action=confirm-close]" if confirm else "[data-action=close-round]")
    expect(page.locator("#turn")).to_have_attribute("data-phase", "deal")

    per_turn = ref.taps / ref.turns
    print(
        f"\nGJDLV tracker, a round at 3 (simples): {ref.taps} taps, {ref.turns} turns, {per_turn:.2f} a turn"
    )
    assert ref.turns == 17
    assert per_turn <= TAPS_PER_TURN_MAX
