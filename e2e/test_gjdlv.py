"""Le Grand Jeu de la Vie end to end: a whole *prématurée* game (5 rounds) in the *Règles Abondantes*,
refereed by taps on one phone and followed live on another.

Everything goes through the real app (``server``) in Chromium phones (``phone``): the home page, the
new-table form, the referee page (a newborn in three taps: player, GF, GM), the QR screen, and the
table view opened from the URL the QR encodes, which is never reloaded.

The expected scores are worked out here from the rules (RULES.md §2), not read from the app:
a number newborn is worth 5 + EG, each of ``c`` Consanguins Complets 6 − c, a royal newborn 10 (King),
0 (Queen) or 5 (Jack), an abortion 3; the Queen's take, the very next event after her birth, moves an
opponent's most recent newborn.

Seats (ids in seating order, which is the order of play): p1 Alice, p2 Basile, p3 Camille, p4 Dorian.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from e2e.conftest import follow_from_qr
from e2e.gjdlv_rules import RoundSheet

NAMES = ["Alice", "Basile", "Camille", "Dorian"]
ALICE, BASILE, CAMILLE, DORIAN = (f"p{i}" for i in range(1, 5))
PLAYERS = [ALICE, BASILE, CAMILLE, DORIAN]
NAME = dict(zip(PLAYERS, NAMES, strict=True))
ROUNDS = 5  # prématurée
FIRST = 2  # Camille starts round 1

# Every round of the game: what the table did, in order.
GAME = [
    [  # round 1: numbers and a King newborn, an abortion
        ("newborn", ALICE, "4H", "9C"),
        ("newborn", BASILE, "10D", "AS"),
        ("newborn", CAMILLE, "KH", "2S"),
        ("abortion", DORIAN),
    ],
    [  # round 2: three CC for Alice (3 each: the malus bites), a Queen newborn and its take, at once
        ("newborn", ALICE, "3D", "3S"),
        ("newborn", ALICE, "6H", "6C"),
        ("newborn", ALICE, "8D", "8C"),
        ("newborn", CAMILLE, "9H", "4C"),
        ("newborn", BASILE, "QD", "5S"),
        ("steal", BASILE, CAMILLE),
        ("abortion", DORIAN),
        ("abortion", DORIAN),
    ],
    [  # round 3: a Jack newborn fecundated by an imperial, a lone CC (no malus), an abortion
        ("newborn", CAMILLE, "JD", "KS"),
        ("newborn", DORIAN, "AH", "10S"),
        ("newborn", ALICE, "2H", "2C"),
        ("abortion", ALICE),
    ],
    [  # round 4: Dorian's Queen takes Alice's newborn
        ("newborn", ALICE, "10H", "AC"),
        ("newborn", DORIAN, "QH", "JC"),
        ("steal", DORIAN, ALICE),
        ("newborn", BASILE, "7D", "7S"),
    ],
    [  # round 5
        ("newborn", BASILE, "KD", "QS"),
        ("newborn", CAMILLE, "5D", "10C"),
        ("newborn", CAMILLE, "9D", "9C"),
        ("abortion", ALICE),
    ],
]


# --- what a person does ------------------------------------------------------------------------------


def create_table(page: Page) -> str:
    """From the home page: GJDLV, four names, Règles Abondantes, prématurée, Camille starts."""
    page.goto("/")
    page.locator("a[data-game=gjdlv]").tap()
    expect(page).to_have_url(re.compile(r"/new/gjdlv$"))
    inputs = page.locator("#names input[name=name]")
    expect(inputs).to_have_count(4)  # written for 3–4: the form starts with four seats
    for i, name in enumerate(NAMES):
        inputs.nth(i).fill(name)
    page.get_by_text("Règles Abondantes").tap()
    page.get_by_text("Partie prématurée").tap()
    expect(page.locator("input[name=rules][value=abondantes]")).to_be_checked()
    expect(page.locator("input[name=rounds][value='5']")).to_be_checked()
    expect(page.locator("select#first-player option")).to_have_text(NAMES)
    page.locator("select#first-player").select_option(label="Camille")
    page.get_by_role("button", name="Créer la table").tap()
    expect(page).to_have_url(re.compile(r"/r/[0-9A-Z]{6}$"))
    expect(page.locator("[data-round]")).to_have_text("1")
    return page.url.rsplit("/", 1)[1]


def record_newborn(referee: Page, pid: str, gf: str, gm: str) -> None:
    """Three taps: the player, the red GF, the black GM (which sends the birth)."""
    referee.locator(f"#newborn-picker [data-pick=player][data-player={pid}]").tap()
    referee.locator(f"[data-grid=gf] [data-card='{gf}']").tap()
    referee.locator(f"[data-grid=gm] [data-card='{gm}']").tap()
    expect(referee.locator(f"[data-sheet={pid}] [data-newborn='{gf}-{gm}']")).to_be_visible()


def steal(referee: Page, thief: str, victim: str) -> None:
    referee.locator(f"[data-queen={thief}] [data-action=steal][data-from={victim}]").tap()


def play(referee: Page, sheet: RoundSheet, action: tuple) -> None:
    kind, pid, *rest = action
    if kind == "newborn":
        record_newborn(referee, pid, *rest)
    elif kind == "abortion":
        referee.locator(f"#abortions [data-action=abortion][data-player={pid}]").tap()
    elif kind == "steal":
        steal(referee, pid, rest[0])
    sheet.apply(action)
    for other, score in sheet.scores().items():
        expect(referee.locator(f"[data-round-score={other}]")).to_have_text(str(score))


def close_round(referee: Page, scores: dict[str, int], totals: dict[str, int]) -> None:
    """Close, check the confirm step shows each round score and the new totals, then confirm."""
    referee.locator("[data-action=close-round]").tap()
    for pid in PLAYERS:
        row = referee.locator(f"[data-confirm={pid}] td")
        expect(row.nth(1)).to_have_text(f"+{scores[pid]}" if scores[pid] else "0")
        expect(row.nth(2)).to_have_text(str(totals[pid]))
    referee.locator("[data-action=confirm-close]").tap()


def expect_totals(pages: list[Page], totals: dict[str, int]) -> None:
    for page in pages:
        for pid, total in totals.items():
            expect(page.locator(f"[data-total={pid}]")).to_have_text(str(total))


# --- the test ----------------------------------------------------------------------------------------


def test_a_premature_game_in_the_abondantes_rules(phone, server, screenshot):
    referee_phone, follower_phone = phone(), phone()
    referee = referee_phone.new_page()
    code = create_table(referee)
    view = follow_from_qr(referee, follower_phone, server, code)
    both = [referee, view]
    expect(view.locator("[data-rules]")).to_have_text("Règles Abondantes")

    totals = dict.fromkeys(PLAYERS, 0)
    rounds: list[dict[str, int]] = []
    for number, actions in enumerate(GAME, start=1):
        first = PLAYERS[(FIRST + number - 1) % len(PLAYERS)]  # one seat on each round
        for page in both:
            expect(page.locator("[data-round]")).to_have_text(str(number))
            expect(page.locator("[data-first]")).to_have_attribute("data-first", first)
            expect(page.locator("[data-first]")).to_have_text(NAME[first])
        sheet = RoundSheet(PLAYERS)
        for index, action in enumerate(actions):
            if number == 1 and index == 0:
                # A number GF is offered number GMs only; the tap shows up live on the other phone.
                referee.locator(f"[data-pick=player][data-player={ALICE}]").tap()
                referee.locator("[data-grid=gf] [data-card='4H']").tap()
                expect(referee.locator("[data-grid=gm] [data-card='9C']")).to_be_enabled()
                expect(referee.locator("[data-grid=gm] [data-card=KS]")).to_have_count(0)
                referee.locator("[data-action=clear-newborn]").tap()
                play(referee, sheet, action)
                expect(view.locator(f"[data-sheet={ALICE}] [data-newborn='4H-9C']")).to_be_visible()
                expect(view.locator(f"[data-standing={ALICE}] .gj-live")).to_have_text("+10 en cours")
                continue
            if number == 1 and action[0] == "newborn" and action[2] == "KH":
                # A card already recorded this round cannot be picked again; a Royal Ovum takes imperials.
                referee.locator(f"[data-pick=player][data-player={CAMILLE}]").tap()
                expect(referee.locator("[data-grid=gf] [data-card='4H']")).to_be_disabled()
                expect(referee.locator("[data-grid=gf] [data-card='10D']")).to_be_disabled()
                referee.locator("[data-grid=gf] [data-card=KH]").tap()
                expect(referee.locator("[data-grid=gm] [data-card=KS]")).to_be_enabled()
                expect(referee.locator("[data-grid=gm] [data-card=AS]")).to_be_disabled()
                referee.locator("[data-action=clear-newborn]").tap()
            if number == 2 and action == ("steal", BASILE, CAMILLE):
                # Basile's Queen, right after her birth: the engine lists a take from each opponent
                # with a newborn (Alice, Camille), none from Dorian, who has none; the note says it is
                # now or never, on both phones.
                queen = referee.locator(f"[data-queen={BASILE}]")
                expect(queen).to_be_visible()
                expect(queen.locator("[data-action=steal]")).to_have_count(2)
                for victim in (ALICE, CAMILLE):
                    expect(queen.locator(f"[data-action=steal][data-from={victim}]")).to_be_visible()
                expect(queen.locator(f"[data-from={DORIAN}], [data-from={BASILE}]")).to_have_count(0)
                # Each button shows the newborn it takes: the victim's most recent.
                expect(queen.locator(f"[data-from={CAMILLE}] [data-face]")).to_have_count(2)
                expect(queen.locator(f"[data-from={CAMILLE}] [data-face='9H']")).to_be_visible()
                expect(queen.locator(f"[data-from={ALICE}] [data-face='8D']")).to_be_visible()
                for page in both:
                    note = page.locator("[data-note='gjdlv.take']")
                    expect(note).to_contain_text(
                        "Dame de Basile : elle prend le dernier nouveau-né d'un·e concurrent·e, "
                        "maintenant ou jamais."
                    )
                    expect(note.locator("[lang]")).to_have_count(0)  # one language at a time
            play(referee, sheet, action)
            if number == 1 and action[0] == "abortion":
                # A mistake (Dorian's newborn was never born), taken back with the dock's undo.
                record_newborn(referee, DORIAN, "5H", "7C")
                expect(view.locator(f"[data-sheet={DORIAN}] [data-newborn='5H-7C']")).to_be_visible()
                referee.locator(".dock #undo").tap()
                for page in both:
                    expect(page.locator(f"[data-sheet={DORIAN}] [data-newborn='5H-7C']")).to_have_count(0)
                    expect(page.locator(f"[data-round-score={DORIAN}]")).to_have_text(
                        str(sheet.score(DORIAN))
                    )
            if number == 2 and action == ("steal", BASILE, CAMILLE):
                expect(referee.locator(f"[data-queen={BASILE}]")).to_have_count(0)  # once per Queen
                expect(referee.locator("[data-action=steal], [data-note='gjdlv.take']")).to_have_count(0)
                expect(referee.locator(f"[data-sheet={CAMILLE}] [data-newborn='9H-4C']")).to_have_count(0)
                expect(view.locator(f"[data-sheet={BASILE}] [data-newborn='9H-4C']")).to_be_visible()

        if number == 2:
            # The consanguinity malus where it bites: three CC are worth 3 each, 2 less than 5.
            for page in both:
                expect(page.locator(f"[data-sheet={ALICE}] [data-cc]")).to_contain_text(
                    "3 CC → 3 chacun (−2)"
                )
            screenshot(referee, "gjdlv-referee-round2")
        if number == 3:
            expect(referee.locator(f"[data-sheet={ALICE}] [data-cc]")).to_contain_text("1 CC → 5")

        scores = sheet.scores()
        rounds.append(scores)
        totals = {pid: totals[pid] + scores[pid] for pid in PLAYERS}
        close_round(referee, scores, totals)
        if number < ROUNDS:
            expect(referee.locator("[data-round]")).to_have_text(str(number + 1))
        expect_totals([view], totals)
        for pid in PLAYERS:
            expect(view.locator(f"[data-round-score='{number}/{pid}']")).to_have_text(str(scores[pid]))

    # The end: the highest total wins, on both phones; totals are the sums of the round scores.
    assert totals == {pid: sum(r[pid] for r in rounds) for pid in PLAYERS}
    best = max(totals.values())
    winners = [pid for pid in PLAYERS if totals[pid] == best]
    names = ", ".join(NAME[pid] for pid in winners)
    if len(winners) == 1:
        won = f"🏆 Partie terminée : {names} l'emporte avec {best} points."
    else:
        won = f"🏆 Partie terminée : égalité à {best} points, {names} se partagent la victoire."
    for page in both:
        banner = page.locator(".winner")
        expect(banner).to_have_attribute("data-winners", ",".join(winners))
        expect(banner).to_have_text(won)
        expect(banner.locator("[lang]")).to_have_count(0)
        expect(page.locator("[data-round]")).to_have_count(0)
    expect_totals(both, totals)
    for pid in PLAYERS:
        expect(view.locator(f"[data-sum={pid}]")).to_have_text(str(totals[pid]))
    chart = view.locator("#chart svg[role=img]")
    expect(chart).to_have_attribute("aria-label", re.compile("Totaux manche par manche"))
    label = chart.get_attribute("aria-label")
    for pid in PLAYERS:
        running = [sum(r[pid] for r in rounds[: i + 1]) for i in range(ROUNDS)]
        assert f"{NAME[pid]}\u00a0: {', '.join(map(str, running))}" in label
    assert "\u00a0; " in label and " ; " not in label  # the series, one after the other
    expect(view.locator("#chart [data-line]")).to_have_count(len(PLAYERS))
    expect(referee.locator("#newborn-picker, #abortions, [data-action=close-round]")).to_have_count(0)
    screenshot(view, "gjdlv-view-end")

    # "Qui a raison ?": the text's example, embryo 2♥/5♠: 4♠ may take it as a mère porteuse, 6♣ may not.
    panel = referee.locator("#qui-a-raison")
    panel.locator("summary").tap()
    panel.locator("[data-check=surrogate]").tap()
    for card in ("2H", "5S", "4S"):
        panel.locator(f"[data-card='{card}']").tap()
    answer = panel.locator("[data-answer]")
    expect(answer).to_have_attribute("data-ok", "true")
    expect(answer.locator(".gj-answer-text")).to_contain_text("4♠ peut mère-porter l'embryon 2♥/5♠")
    expect(answer.locator("[lang]")).to_have_count(0)
    panel.locator("[data-slot=new_gm]").tap()
    panel.locator("[data-card='6C']").tap()
    expect(answer).to_have_attribute("data-ok", "false")
    expect(answer.locator(".gj-answer-text")).to_contain_text("6♣ ne peut pas mère-porter l'embryon 2♥/5♠")
    screenshot(referee, "gjdlv-referee-qui-a-raison")

    assert view.evaluate("window.__notReloaded") is True, "the follower's page was reloaded"
