"""Le jeu existentiel end to end, over "weeks": the game master's phone referees, another phone follows.

Everything goes through the real app (``server``) in Chromium phones (``phone``): the home page, the
new-table form, the referee page, the QR screen, the table view opened from the QR's URL, a player's
own page and the rendez-vous as a calendar file. Between the meetings both phones close their page
and find the table again from the home page's "Mes tables", as people do weeks later.

Players: p1 Ada (born in March), p2 Bruno (November), p3 Chloé (December); p4 Dora (June) joins at
the second cycle. The die values are chosen with the landing rule (``landing`` below, RULES.md §1) so
that the game ends with Ada and Chloé leaving at 29 and Bruno and Dora eliminated.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from e2e.conftest import follow_from_qr

ADA, BRUNO, CHLOE, DORA = "p1", "p2", "p3", "p4"
NAME = {ADA: "Ada", BRUNO: "Bruno", CHLOE: "Chloé", DORA: "Dora"}
BIRTH_MONTH = {ADA: 3, BRUNO: 11, CHLOE: 12, DORA: 6}


class Model:
    """What the test expects of each player, by the rules (RULES.md §1): score, completed, jokers."""

    def __init__(self):
        self.players = {}

    def add(self, pid: str) -> None:
        self.players[pid] = {"score": None, "completed": set(), "jokers": 3}

    def landing(self, pid: str, die: int) -> int:
        player = self.players[pid]
        base = BIRTH_MONTH[pid] if player["score"] is None else player["score"]
        n = (base + die - 1) % 29 + 1
        while n in player["completed"]:
            n = n % 29 + 1
        player["score"] = n
        return n


# --- what a person does ------------------------------------------------------------------------------


def create_table(page: Page) -> str:
    """From the home page: Le jeu existentiel, three names with their birth months; returns the code."""
    page.goto("/")
    page.locator("a[data-game=existentiel]").tap()
    expect(page).to_have_url(re.compile(r"/new/existentiel$"))
    expect(page.locator("#new-table")).to_have_attribute("data-game", "existentiel")
    expect(page.get_by_text("Qui est le maître du jeu ?")).to_be_visible()
    rows = page.locator("#names li")
    expect(rows).to_have_count(6)  # the engine's usual table: six seats, the empty ones left out
    for i, pid in enumerate((ADA, BRUNO, CHLOE)):
        rows.nth(i).locator("input[name=name]").fill(NAME[pid])
        rows.nth(i).locator("select[name=birth_month]").select_option(str(BIRTH_MONTH[pid]))
    page.get_by_role("button", name="Créer la table").tap()
    expect(page).to_have_url(re.compile(r"/r/[0-9A-Z]{6}$"))
    expect(page.locator("#phase")).to_have_attribute("data-phase", "assigning")
    return page.url.rsplit("/", 1)[1]


def player(page: Page, pid: str):
    return page.locator(f"[data-player={pid}]")


def expect_toast(page: Page, french: str | re.Pattern) -> None:
    toast = page.locator("#toast")
    expect(toast).to_be_visible()
    expect(toast.locator(".toast-text")).to_have_text(french)


def roll(referee: Page, model: Model, pid: str, die: int, expected: int) -> None:
    """The table rolled ``die`` for the player: one tap on that face; the offer shows with its title."""
    assert model.landing(pid, die) == expected, "the test's die values no longer give this adventure"
    player(referee, pid).locator(f"[data-die='{die}']").tap()
    expect(player(referee, pid).locator("[data-offer]")).to_have_attribute("data-offer", str(expected))


def accept(referee: Page, pid: str, adventure: int, title: str | None = None) -> None:
    player(referee, pid).locator("[data-action=accept]").tap()
    # The adventure to live now; or, once the last one is accepted, the validation panel with it.
    now = player(referee, pid).locator("[data-now=current], .validate")
    expect(now).to_contain_text(f"n° {adventure} — {title or f'Aventure {adventure}'}")


def refuse(referee: Page, model: Model, pid: str, adventure: int) -> None:
    """A refusal with a joker: the button says its price, the toast says the rule."""
    jokers = model.players[pid]["jokers"]
    assert jokers > 0
    button = player(referee, pid).locator("[data-action=refuse]")
    expect(button).to_have_text("Refuser (−1 joker)")
    stakes = player(referee, pid).locator(".offer-stakes [data-jokers]")
    expect(stakes).to_have_attribute("data-jokers", str(jokers))
    button.tap()
    model.players[pid]["jokers"] -= 1
    left = jokers - 1
    expect_toast(
        referee,
        f"{NAME[pid]} refuse l'aventure {adventure} : un joker de moins (reste {left}). "
        f"Il faut relancer le dé ; le résultat s'ajoute à {adventure}.",
    )
    head = player(referee, pid).locator(".player-head [data-jokers]")
    expect(head).to_have_attribute("data-jokers", str(left))
    expect(player(referee, pid).locator("[data-die]")).to_have_count(6)


def refuse_and_leave_the_game(referee: Page, model: Model, pid: str) -> None:
    """With no joker left, refusing means elimination: the button says so, then the rule is shown."""
    assert model.players[pid]["jokers"] == 0
    button = player(referee, pid).locator("[data-action=refuse]")
    expect(button).to_have_text("Refuser = élimination")
    button.tap()
    expect_toast(
        referee, "Éliminé·e : a refusé de s'engager dans une aventure sans plus avoir de joker à perdre."
    )
    expect(player(referee, pid).locator("[data-status=eliminated]")).to_be_visible()


def accept_29(referee: Page, pid: str) -> None:
    """Accepting 29 is leaving the game: the page says so and asks for a confirmation."""
    expect(player(referee, pid).locator("[data-rule=death]")).to_contain_text(
        "l'accepter, c'est quitter le jeu"
    )
    player(referee, pid).locator("[data-action=accept]").tap()
    expect(player(referee, pid).locator("[data-action=confirm-accept]")).to_be_visible()
    expect(player(referee, pid).locator("[data-status=left]")).to_have_count(0)  # not before confirming
    player(referee, pid).locator("[data-action=confirm-accept]").tap()
    expect(player(referee, pid).locator("[data-status=left]")).to_have_text("a quitté le jeu")


def validate(referee: Page, model: Model, pid: str, success: bool) -> None:
    current = model.players[pid]["score"]
    panel = player(referee, pid).locator(".validate")
    expect(panel).to_contain_text(f"n° {current}")
    if success:
        panel.locator("[data-action=success]").tap()
        model.players[pid]["completed"].add(current)
        expect(player(referee, pid).locator(".validate")).to_have_count(0)
    else:
        jokers = model.players[pid]["jokers"]
        expect(panel.locator("[data-action=failure]")).to_have_text("Ratée (−1 joker)")
        panel.locator("[data-action=failure]").tap()
        model.players[pid]["jokers"] -= 1
        expect_toast(
            referee, f"Aventure {current} non réalisée : {NAME[pid]} perd un joker (reste {jokers - 1})."
        )


def schedule(referee: Page, at: str, place: str) -> None:
    editor = referee.locator("#rendezvous-editor")
    editor.locator("#rdv-at").fill(at)
    editor.locator("#rdv-place").fill(place)
    editor.locator("[data-action=schedule]").tap()
    expect(editor.locator("#rdv-when")).to_have_attribute("data-at", at)


def reopen_from_home(context, code: str, role: str) -> Page:
    """Weeks later, on the same phone: the home page lists the table under "Mes tables"."""
    page = context.new_page()
    page.goto("/")
    card = page.locator("#my-tables-card")
    expect(card).to_be_visible()
    expect(card.locator("h2")).to_contain_text("Mes tables")
    entry = card.locator("a", has_text=f"{code[:4]}-{code[4:]}")
    expect(entry).to_contain_text("Le jeu existentiel")
    expect(entry.locator(".pill")).to_have_text(role)
    entry.tap()
    return page


def expect_square(page: Page, pid: str, n: int, state: str) -> None:
    square = player(page, pid).locator(f"[data-square='{n}']")
    expect(square).to_have_attribute("data-state", state)


def ics_lines(raw: bytes) -> dict[str, str]:
    """The calendar file's VEVENT properties, unfolded; every line ends with CRLF."""
    assert raw.startswith(b"BEGIN:VCALENDAR\r\n") and raw.endswith(b"END:VCALENDAR\r\n")
    logical: list[str] = []
    for line in raw.decode("utf-8").split("\r\n")[:-1]:
        assert "\n" not in line and len(line.encode("utf-8")) <= 75
        if line.startswith(" "):
            logical[-1] += line[1:]
        else:
            logical.append(line)
    event = logical[logical.index("BEGIN:VEVENT") + 1 : logical.index("END:VEVENT")]
    return dict(line.split(":", 1) for line in event)


# --- the test ------------------------------------------------------------------------------------------


def test_a_tap_the_server_refuses_before_the_engine_has_started_leaves_the_board_as_it_was(phone):
    """The game master taps before the phone's engine has started (a slow phone, the page just
    reopened): the server judges the tap alone. Refused, it is set aside with the rule's reason and
    the board comes back unchanged; it once stayed on "replaying", the table being the same as before."""
    referee_phone = phone()
    held = []
    # The runtime's requests are never answered: the engine is still starting throughout.
    referee_phone.route("**/pyodide/**", lambda route: held.append(route))
    referee = referee_phone.new_page()
    create_table(referee)
    expect(referee.locator("#sync")).to_have_attribute("data-engine", "loading")
    form = referee.locator("#add-player-form")
    form.locator("input[name=name]").fill("ada")
    form.locator("select[name=birth_month]").select_option("6")
    form.locator("[data-action=add-player]").tap()
    expect_toast(referee, "Le nom « ada » est déjà pris à cette table.")
    expect(referee.locator("#rejected")).to_contain_text("Le nom « ada » est déjà pris à cette table.")
    expect(referee.locator("[data-player]")).to_have_count(3)
    expect(referee.locator("#sync")).to_have_attribute("data-engine", "loading")  # judged by the server
    assert held, "the engine's runtime was never asked for"


def test_a_game_over_weeks_refereed_by_taps_and_followed_live(phone, server, screenshot):
    model = Model()
    for pid in (ADA, BRUNO, CHLOE):
        model.add(pid)
    referee_phone, follower_phone = phone(), phone()
    referee = referee_phone.new_page()
    code = create_table(referee)
    view = follow_from_qr(referee, follower_phone, server, code)
    view.evaluate("window.__notReloaded = true")

    # The game master names adventure 8 for this table; every page shows the title with the number.
    titles = referee.locator("#titles")
    titles.locator("summary").tap()
    titles.locator("#title-8").fill("Dormir une nuit à la belle étoile")
    titles.locator("[data-action=set-title][data-adventure='8']").tap()
    expect(view.locator("[data-player=p1] [data-square='8']")).to_have_attribute(
        "aria-label", "n° 8 — Dormir une nuit à la belle étoile\u00a0: pas encore vécue"
    )

    # --- Cycle 1 -------------------------------------------------------------------------------------
    expect(referee.locator("#waiting [data-waiting]")).to_have_count(3)
    roll(referee, model, ADA, 5, 8)  # March (3) + 5
    expect(view.locator("[data-player=p1] [data-now=offered]")).to_contain_text(
        "n° 8 — Dormir une nuit à la belle étoile"
    )  # live, on the other phone
    expect_square(view, ADA, 8, "offered")
    accept(referee, ADA, 8, "Dormir une nuit à la belle étoile")

    roll(referee, model, BRUNO, 6, 17)  # November (11) + 6
    refuse(referee, model, BRUNO, 17)
    expect(view.locator("[data-player=p2] [data-jokers]")).to_have_text("🃏×2")
    expect_square(view, BRUNO, 17, "refused")
    roll(referee, model, BRUNO, 1, 18)  # added to the refused number
    accept(referee, BRUNO, 18)

    roll(referee, model, CHLOE, 2, 14)  # December (12) + 2
    accept(referee, CHLOE, 14)

    # Everyone has an adventure: under way, and the game master is asked for the rendez-vous.
    for page in (referee, view):
        expect(page.locator("#phase")).to_have_attribute("data-phase", "underway")
        expect(page.locator("[data-note='existentiel.set_rendezvous']")).to_be_visible()
    expect(referee.locator("[data-die]")).to_have_count(0)
    expect(view.locator("#ics-link")).to_have_count(0)
    schedule(referee, "2031-03-07T19:30", "Café de la Gare, Lyon")
    expect(view.locator("#rdv-when")).to_contain_text("vendredi 7 mars 2031 à 19 h 30")
    expect(view.locator("#rdv-when")).to_contain_text("Café de la Gare, Lyon")
    expect(view.locator("[data-note='existentiel.set_rendezvous']")).to_have_count(0)
    assert view.evaluate("window.__notReloaded") is True, "the follower's page was reloaded"
    screenshot(referee, "existentiel-referee-underway")
    screenshot(view, "existentiel-view-underway")

    # --- Weeks later: the rendez-vous ----------------------------------------------------------------
    referee.close()
    view.close()
    referee = reopen_from_home(referee_phone, code, "arbitre")
    expect(referee).to_have_url(f"{server}/r/{code}")
    view = reopen_from_home(follower_phone, code, "suivie")
    expect(view).to_have_url(f"{server}/t/{code}")
    expect(view.locator("#sync")).to_have_attribute("data-live", "1")
    view.evaluate("window.__notReloaded = true")
    expect(referee.locator("#rendezvous-editor #rdv-when")).to_have_attribute("data-at", "2031-03-07T19:30")
    expect(view.locator("[data-player=p1] [data-now=current]")).to_contain_text("n° 8 — Dormir une nuit")

    validate(referee, model, ADA, True)
    expect_square(view, ADA, 8, "completed")
    validate(referee, model, BRUNO, False)
    expect(view.locator("[data-player=p2] [data-jokers]")).to_have_text("🃏×1")
    validate(referee, model, CHLOE, True)
    for page in (referee, view):
        expect(page.locator("#phase")).to_have_attribute("data-phase", "assigning")
        expect(page.locator("[data-cycle]")).to_have_text("cycle 2")

    # --- Cycle 2: a newcomer joins ---------------------------------------------------------------------
    form = referee.locator("#add-player-form")
    form.locator("input[name=name]").fill("ada")
    form.locator("select[name=birth_month]").select_option("6")
    form.locator("[data-action=add-player]").tap()
    expect_toast(referee, "Le nom « ada » est déjà pris à cette table.")  # refused: the rule says why
    expect(referee.locator("[data-player]")).to_have_count(3)
    form = referee.locator("#add-player-form")
    form.locator("input[name=name]").fill("Dora")
    form.locator("select[name=birth_month]").select_option("6")
    form.locator("[data-action=add-player]").tap()
    model.add(DORA)
    expect(view.locator(f"[data-player={DORA}]")).to_contain_text("Dora")
    expect(referee.locator("#waiting [data-waiting]")).to_have_count(4)

    roll(referee, model, ADA, 6, 14)  # from her score, 8
    accept(referee, ADA, 14)
    roll(referee, model, BRUNO, 6, 24)
    refuse(referee, model, BRUNO, 24)  # his last joker
    roll(referee, model, BRUNO, 1, 25)
    accept(referee, BRUNO, 25)
    # Chloé's die is the virtual one; the draw is made to give 5, so the test knows where it leads.
    referee.evaluate("""() => {
        const real = crypto.getRandomValues.bind(crypto);
        crypto.getRandomValues = (array) => {
            if (array instanceof Uint32Array && array.length === 1) { array[0] = 4; return array; }
            return real(array);
        };
    }""")
    player(referee, CHLOE).locator("[data-action=virtual-die]").tap()
    drawn = player(referee, CHLOE).locator("[data-virtual]")
    expect(drawn).to_have_attribute("data-virtual", "5")
    expect(drawn).to_contain_text("n° 19 — Aventure 19")  # the landing check's preview
    assert model.landing(CHLOE, 5) == 19
    drawn.locator("[data-action=send-virtual]").tap()
    expect(player(referee, CHLOE).locator("[data-offer]")).to_have_attribute("data-offer", "19")
    accept(referee, CHLOE, 19)
    roll(referee, model, DORA, 6, 12)  # her first roll starts from June
    accept(referee, DORA, 12)

    expect(referee.locator("#phase")).to_have_attribute("data-phase", "underway")
    schedule(referee, "2031-04-04T18:00", "Chez Ada, 3 rue des Lilas")
    expect(view.locator("#rdv-when")).to_have_attribute("data-at", "2031-04-04T18:00")

    # The follower adds the rendez-vous to their calendar.
    link = view.locator("#ics-link")
    expect(link).to_have_text(re.compile(r"^Ajouter à mon agenda"))
    with view.expect_download() as download_info:
        link.tap()
    download = download_info.value
    assert download.suggested_filename == f"rendez-vous-{code}.ics"
    with open(download.path(), "rb") as file:
        event = ics_lines(file.read())
    assert event["DTSTART"] == "20310404T180000" and event["DTEND"] == "20310404T200000"
    assert event["SUMMARY"] == "Rendez-vous — Le jeu existentiel"
    assert event["LOCATION"] == "Chez Ada\\, 3 rue des Lilas"
    assert event["UID"] == f"rendezvous-{code}-20310404T1800@arbitre"
    for pid, adventure in ((ADA, 14), (BRUNO, 25), (CHLOE, 19), (DORA, 12)):
        assert f"\\n- {NAME[pid]}\u00a0: n° {adventure} — Aventure {adventure}\\n" in event["DESCRIPTION"]

    # --- Weeks later again -------------------------------------------------------------------------------
    referee.close()
    referee = reopen_from_home(referee_phone, code, "arbitre")
    view.reload()
    expect(view.locator("#sync")).to_have_attribute("data-live", "1")
    view.evaluate("window.__notReloaded = true")
    for pid in (ADA, BRUNO, CHLOE):
        validate(referee, model, pid, True)
    validate(referee, model, DORA, False)
    expect(view.locator("[data-cycle]")).to_have_text("cycle 3")
    expect_square(view, ADA, 14, "completed")
    expect_square(view, BRUNO, 17, "refused")
    expect_square(view, BRUNO, 24, "refused")
    expect_square(view, BRUNO, 25, "completed")

    # --- Cycle 3: the end of the game -----------------------------------------------------------------
    # Ada walks to 29 with two refusals, then accepts it: she leaves the game.
    roll(referee, model, ADA, 6, 20)
    refuse(referee, model, ADA, 20)
    roll(referee, model, ADA, 6, 26)
    refuse(referee, model, ADA, 26)
    roll(referee, model, ADA, 3, 29)
    expect(player(referee, ADA).locator("[data-action=accept]")).to_have_text("Accepter (quitte le jeu)")
    accept_29(referee, ADA)
    expect(view.locator("[data-player=p1] [data-status=left]")).to_be_visible()
    expect_square(view, ADA, 29, "death")

    # Bruno has no joker left: refusing eliminates him.
    roll(referee, model, BRUNO, 2, 27)
    expect(player(referee, BRUNO).locator(".offer-stakes")).to_contain_text("refuser, c'est être éliminé·e")
    refuse_and_leave_the_game(referee, model, BRUNO)

    # Chloé: one refusal, then 29.
    roll(referee, model, CHLOE, 6, 25)
    refuse(referee, model, CHLOE, 25)
    roll(referee, model, CHLOE, 4, 29)
    accept_29(referee, CHLOE)

    # Dora refuses until she has no joker to lose.
    roll(referee, model, DORA, 6, 18)
    refuse(referee, model, DORA, 18)
    roll(referee, model, DORA, 6, 24)
    refuse(referee, model, DORA, 24)
    roll(referee, model, DORA, 1, 25)
    refuse_and_leave_the_game(referee, model, DORA)

    # Nobody is still playing: the game is over, on both phones.
    for page in (referee, view):
        expect(page.locator("#phase")).to_have_count(0)  # the results take the phase banner's place
        expect(page.locator("#rendezvous")).to_have_count(0)
        outcome = page.locator("#outcome")
        expect(outcome).to_contain_text("Partie terminée")
        expect(outcome).to_contain_text("Aucun Maître Existentiel cette fois.")
        expect(outcome.locator("[data-note='existentiel.grand_chelem_never']")).to_contain_text(
            "il n'existe aucun Grand Maître Existentiel vivant"
        )
        expect(outcome.locator(f"[data-result={ADA}]")).to_contain_text(
            "Ada — a quitté le jeu (aventure 29), 2 aventures réalisées"
        )
        expect(outcome.locator(f"[data-result={BRUNO}]")).to_contain_text(
            "a refusé de s'engager dans une aventure sans plus avoir de joker à perdre"
        )
        expect(outcome.locator(f"[data-result={CHLOE}]")).to_contain_text(
            "Chloé — a quitté le jeu (aventure 29), 2 aventures réalisées"
        )
        expect(outcome.locator(f"[data-result={DORA}]")).to_contain_text("Dora — éliminé·e")
    expect(referee.locator("[data-die], [data-action]")).to_have_count(0)
    assert view.evaluate("window.__notReloaded") is True, "the follower's page was reloaded"
    state = referee.request.get(f"/api/tables/{code}").json()["state"]
    assert [p["status"] for p in state["players"]] == ["left", "eliminated", "left", "eliminated"]
    screenshot(referee, "existentiel-referee-over")
    screenshot(view, "existentiel-view-over")

    # Bruno's own page, from his name on the table view: every adventure with its status for him.
    view.locator("[data-player=p2] a.player-name").tap()
    expect(view).to_have_url(f"{server}/t/{code}/p/{BRUNO}")
    adventures = view.locator("#adventures [data-square]")
    expect(adventures).to_have_count(29)
    for n, state_ in ((17, "refused"), (24, "refused"), (25, "completed"), (27, "none"), (8, "none")):
        expect(view.locator(f"#adventures [data-square='{n}']")).to_have_attribute("data-state", state_)
    expect(view.locator("#adventures [data-square='8']")).to_contain_text("Dormir une nuit à la belle étoile")
    expect(view.locator("[data-completed]")).to_have_text("1 / 28")
    expect(view.locator(".player-page [data-jokers]")).to_have_text("🃏×0")
    screenshot(view, "existentiel-player-page")
    view.locator("#back-to-table").tap()
    expect(view).to_have_url(f"{server}/t/{code}")
