"""Setting up a table in seconds, in Chromium phones at 390×844 (issue 29, item 4).

- Each form starts with as many rows as the game's usual table, and its bounds, both declared by the
  engine (``engine.core.seats``): six for Il Morto.
- Enter moves to the next row and adds one at the end; it never sends the form.
- A problem is said when the form is sent and goes as soon as it is fixed: too few players (the
  engine's own sentence and bounds), a name taken twice (the server's refusal, on both rows), a
  birth month not chosen (no silent January: a required choice), a row with a month and no name.
- "Les mêmes que la dernière fois": the players of this phone's recent tables, offered in one tap,
  then moved up and down (buttons of 48 px, which keep the focus) to match the seats; the first
  dealer chosen stays the same person when rows move.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from engine import core

NAMES = ["Ada", "Bruno", "Chiara", "Dario", "Elena", "Fabio", "Giulia", "Hugo"]
NB = "\u00a0"


def rows(page: Page):
    return page.locator("#names li")


def name_inputs(page: Page):
    return page.locator("#names input[name=name]")


def focused_row(page: Page) -> int:
    """The index of the row whose name input has the focus (-1: none)."""
    return page.evaluate(
        "() => [...document.querySelectorAll('#names input[name=name]')].indexOf(document.activeElement)"
    )


def type_names(page: Page, names: list[str]) -> None:
    """As a person types them: the first row, then Enter after each name but the last."""
    name_inputs(page).first.tap()
    for n, name in enumerate(names):
        assert focused_row(page) == n
        page.keyboard.type(name)
        if n < len(names) - 1:
            page.keyboard.press("Enter")


def values(fields) -> list[str]:
    return fields.evaluate_all("fields => fields.map((field) => field.value)")


def created(page: Page) -> dict:
    """The table the form made (the referee page it opened), as the API gives it."""
    page.wait_for_url(re.compile(r"/r/[0-9A-Z]{6}$"))  # a navigation: its own timeout
    return page.request.get(f"/api/tables/{page.url.rsplit('/', 1)[1]}").json()


def error(page: Page):
    return page.locator("#form-error")


def test_il_morto_starts_with_six_rows_and_enter_walks_and_adds_them(phone, screenshot):
    page = phone().new_page()
    page.goto("/new/morto")
    usual = core.seats("morto")
    assert usual == {"min": 3, "max": 20, "usual": 6}
    expect(rows(page)).to_have_count(6)
    expect(page.locator("#new-table .hint").first).to_have_text(
        "Les noms dans l'ordre de jeu (vers la droite du·de la dealer). "
        f"6 à 12 idéalement{NB}; 3 à 20 permis."
    )
    for button in page.locator("#names li").first.locator("button").all():
        box = button.bounding_box()
        assert box["width"] >= 48 and box["height"] >= 48, box
    screenshot(page, "new-morto")

    type_names(page, NAMES)  # eight names: Enter on the sixth row added the seventh, then the eighth
    expect(rows(page)).to_have_count(8)
    expect(page).to_have_url(re.compile(r"/new/morto$"))  # Enter never sent the form
    expect(error(page)).to_be_hidden()
    page.keyboard.press("Enter")  # on the last row: one more, empty (an empty row is no player)
    expect(rows(page)).to_have_count(9)
    assert focused_row(page) == 8
    expect(page.locator("select#dealer option")).to_have_text(NAMES)
    page.locator("select#dealer").select_option(label="Chiara")
    screenshot(page, "new-morto-eight")
    page.get_by_role("button", name="Créer la table").tap()
    table = created(page)
    assert [p["name"] for p in table["state"]["players"]] == NAMES
    assert table["state"]["dealer"] == "p3"


def test_a_problem_is_said_on_sending_and_goes_once_fixed(phone, screenshot):
    page = phone().new_page()
    page.goto("/new/morto")
    type_names(page, ["Ada", "Bruno"])
    page.get_by_role("button", name="Créer la table").tap()
    expect(error(page)).to_have_text("Ce jeu se joue à 3–20 joueur·euses, pas 2.")
    expect(page).to_have_url(re.compile(r"/new/morto$"))
    screenshot(page, "new-morto-too-few")
    assert focused_row(page) == 2  # where the next name goes
    page.keyboard.type("Chiara")  # fixed: the sentence goes, nothing sent
    expect(error(page)).to_be_hidden()
    expect(page).to_have_url(re.compile(r"/new/morto$"))

    # A name twice (the server's refusal): both rows marked; gone once one of them changes.
    name_inputs(page).nth(2).fill("ada")
    page.get_by_role("button", name="Créer la table").tap()
    expect(error(page)).to_have_text("Le nom « ada » est déjà pris à cette table.")
    expect(page.locator("#names input[aria-invalid=true]")).to_have_count(2)
    screenshot(page, "new-morto-duplicate")
    name_inputs(page).nth(2).fill("Adèle")
    expect(error(page)).to_be_hidden()
    expect(page.locator("#names [aria-invalid]")).to_have_count(0)
    page.get_by_role("button", name="Créer la table").tap()
    assert [p["name"] for p in created(page)["state"]["players"]] == ["Ada", "Bruno", "Adèle"]


def test_le_jeu_existentiel_asks_every_birth_month(phone, screenshot):
    page = phone().new_page()
    page.goto("/new/existentiel")
    expect(rows(page)).to_have_count(core.seats("existentiel")["usual"])
    months = page.locator("#names select[name=birth_month]")
    expect(months.first).to_have_value("")  # no silent January
    expect(months.first.locator("option:checked")).to_have_text("Mois de naissance…")
    type_names(page, ["Inès", "Jules"])
    months.nth(0).select_option("3")
    page.get_by_role("button", name="Créer la table").tap()
    expect(error(page)).to_have_text(f"Mois de naissance manquant{NB}: Jules.")
    expect(months.nth(1)).to_have_attribute("aria-invalid", "true")
    expect(page).to_have_url(re.compile(r"/new/existentiel$"))
    screenshot(page, "new-existentiel-month")
    months.nth(1).select_option("11")
    expect(error(page)).to_be_hidden()

    # A month with no name is half a row: said, not dropped.
    months.nth(2).select_option("7")
    page.get_by_role("button", name="Créer la table").tap()
    expect(error(page)).to_have_text(
        f"La place 3 a un mois de naissance mais pas de nom{NB}: donnez-lui un nom, ou retirez-la."
    )
    rows(page).nth(2).get_by_role("button", name="Retirer la place 3").tap()
    expect(error(page)).to_be_hidden()
    page.get_by_role("button", name="Créer la table").tap()
    players = created(page)["state"]["players"]
    assert [(p["name"], p["birth_month"]) for p in players] == [("Inès", 3), ("Jules", 11)]


def test_the_same_players_as_last_time_in_one_tap_then_reordered(phone, screenshot):
    page = phone().new_page()
    # Last time: an Il Morto table of six made on this phone.
    page.goto("/new/morto")
    expect(page.locator("#recent")).to_be_hidden()  # nothing yet on a new phone
    type_names(page, NAMES[:6])
    page.get_by_role("button", name="Créer la table").tap()
    created(page)

    page.goto("/new/morto")
    pick = page.locator("#recent [data-recent]")
    expect(pick).to_have_count(1)
    expect(pick.locator(".recent-names")).to_have_text(", ".join(NAMES[:6]))
    screenshot(page, "new-morto-recent")
    pick.tap()  # one tap
    assert values(name_inputs(page)) == NAMES[:6]
    page.locator("select#dealer").select_option(label="Dario")

    # Tonight Chiara sits first and Ada last: up and down, the focus staying on the button pressed.
    up = rows(page).nth(2).locator("[data-move=up]")
    up.tap()
    expect(page.locator(":focus")).to_have_attribute("aria-label", "Avancer la place 2 d'un rang")
    page.keyboard.press("Enter")  # the same button, from the keyboard: Chiara up once more
    assert values(name_inputs(page)) == ["Chiara", "Ada", "Bruno", "Dario", "Elena", "Fabio"]
    expect(rows(page).first.locator("[data-move=up]")).to_be_disabled()
    for _ in range(4):
        rows(page).nth(1 + _).locator("[data-move=down]").tap()
    assert values(name_inputs(page)) == ["Chiara", "Bruno", "Dario", "Elena", "Fabio", "Ada"]
    expect(page.locator("select#dealer option:checked")).to_have_text("Dario")  # the same person
    screenshot(page, "new-morto-reordered")
    page.get_by_role("button", name="Créer la table").tap()
    table = created(page)
    assert [p["name"] for p in table["state"]["players"]] == [
        "Chiara",
        "Bruno",
        "Dario",
        "Elena",
        "Fabio",
        "Ada",
    ]
    assert table["state"]["dealer"] == "p3"


def test_an_existentiel_table_followed_here_gives_its_players_with_their_months(phone):
    page = phone().new_page()
    players = [{"name": "Inès", "birth_month": 3}, {"name": "Jules", "birth_month": 11}]
    answer = page.request.post("/api/tables", data={"game": "existentiel", "players": players})
    page.goto(f"/t/{answer.json()['code']}")  # followed on this phone: its players are kept
    expect(page.locator("#sync")).to_have_attribute("data-live", "1")  # it hears the table
    page.goto("/new/existentiel")
    page.locator("#recent [data-recent]").tap()
    assert values(name_inputs(page)) == ["Inès", "Jules", "", "", "", ""]
    assert values(page.locator("#names select[name=birth_month]")) == ["3", "11", "", "", "", ""]
    page.get_by_role("button", name="Créer la table").tap()
    assert [(p["name"], p["birth_month"]) for p in created(page)["state"]["players"]] == [
        ("Inès", 3),
        ("Jules", 11),
    ]
