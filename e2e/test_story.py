"""The story of a table end to end, in Chromium phones: the story panel on the referee page and the
table view (every event in words, in the page's language, undo from the panel), the results page
of a finished game (the winner, the chart, the story), and export then import.

Tables are set up through the API (what the panel shows is the subject here, not the new-table
form), then used as a person would.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import Page, expect

from e2e.conftest import morto_touch, played

SHOTS = Path("/tmp/shots/story")
NAMES = ["Léa", "Marc", "Zoé"]


def create(page: Page, events: list[dict], lives: int = 2) -> dict:
    """A morto table made through the API, its events posted; the phone keeps its referee secret."""
    return played(page, {"game": "morto", "players": NAMES, "options": {"lives": lives}}, events)


def remember_referee(page: Page, table: dict) -> None:
    """What the new-table form does: the secret stays on this phone (static/js/tables.js)."""
    page.goto("/import")
    page.evaluate(
        """([code, secret]) => {
      const all = JSON.parse(localStorage.getItem("arbitre.tables") || "{}");
      all[code] = { code, game: "morto", secret, role: "referee" };
      localStorage.setItem("arbitre.tables", JSON.stringify(all));
    }""",
        [table["code"], table["secret"]],
    )


def tap(target) -> None:
    target.evaluate("element => element.scrollIntoView({block: 'center', inline: 'center'})")
    target.tap()


def synced(page: Page) -> None:
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "0")
    expect(page.locator("#sync")).to_have_class(re.compile(r"\bok\b"))


def open_story(page: Page) -> None:
    summary = page.locator("#story summary")
    expect(summary).to_be_visible()
    if page.locator("#story details").get_attribute("open") is None:
        tap(summary)


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_the_story_panel_tells_a_morto_game_in_french_and_undoes_from_it(phone):
    referee = phone().new_page()
    table = create(referee, [])
    remember_referee(referee, table)
    referee.goto(f"/r/{table['code']}")
    synced(referee)
    open_story(referee)
    expect(referee.locator("#story .story-panel .hint")).to_have_text(
        "Rien encore : chaque évènement s'inscrira ici."
    )
    morto_touch(referee, "p2", press=tap)
    synced(referee)
    items = referee.locator("#story .story-item")
    expect(items).to_have_count(1)
    expect(items.first.locator(".story-text")).to_have_text(
        "Marc a touché ses cartes trop tôt : une vie de moins"
    )
    morto_touch(referee, "p3", press=tap)
    synced(referee)
    expect(items).to_have_count(2)
    # Newest first; only the latest event in effect has the panel's Undo.
    expect(items.first.locator(".story-text")).to_have_text(
        "Zoé a touché ses cartes trop tôt : une vie de moins"
    )
    expect(referee.locator("#story .story-undo")).to_have_count(1)
    expect(items.first.locator(".story-undo")).to_have_text("Défaire")
    expect(referee.locator("#story summary")).to_have_text("Le fil de la partie (2)")
    shot(referee, "referee-story-fr")
    tap(items.first.locator(".story-undo"))
    synced(referee)
    expect(items.first).to_have_class(re.compile(r"\bundone\b"))
    expect(items.first.locator(".story-mark")).to_have_text("défait")
    expect(items.first.locator("s.story-text")).to_have_text(
        "Zoé a touché ses cartes trop tôt : une vie de moins"
    )
    expect(referee.locator("[data-player=p3] .hearts")).to_have_attribute("data-lives", "2")
    # The Undo moved to Marc's touch, now the latest in effect.
    expect(items.nth(1).locator(".story-undo")).to_have_count(1)
    shot(referee, "referee-story-undone-fr")
    referee.emulate_media(color_scheme="dark")
    referee.locator("#story").screenshot(path=str(SHOTS / "referee-story-dark-fr.png"))


def test_a_long_story_shows_its_latest_page_and_the_older_ones_on_demand(phone):
    """The table view fetches the latest 50 entries only; « Plus anciens » adds the older ones."""
    viewer = phone().new_page()
    table = create(viewer, [], lives=9)
    auth = {"Authorization": f"Bearer {table['secret']}"}
    base = f"/api/tables/{table['code']}"
    for n in range(60):  # 60 touches, each undone but the last: 60 entries in the story
        posted = viewer.request.post(
            f"{base}/events", headers=auth, data={"id": f"long-{n}", "type": "touched_early", "player": "p2"}
        )
        assert posted.status == 201, posted.text()
        if n < 59:
            assert viewer.request.post(f"{base}/undo", data={}, headers=auth).status == 200
    asked = []
    viewer.on("request", lambda request: asked.append(request.url) if "/api/tables/" in request.url else None)
    viewer.goto(f"/t/{table['code']}")
    open_story(viewer)
    items = viewer.locator("#story .story-item")
    expect(items).to_have_count(50)
    expect(viewer.locator("#story summary")).to_have_text("Le fil de la partie (60)")
    expect(items.first).to_have_attribute("data-seq", "60")
    older = viewer.locator("#story .story-older")
    expect(older).to_have_text("Plus anciens")
    tap(older)
    expect(items).to_have_count(60)
    expect(items.last).to_have_attribute("data-seq", "1")
    expect(items.last).to_have_class(re.compile(r"\bundone\b"))
    expect(older).to_have_count(0)
    histories = [url for url in asked if "/history" in url]
    assert histories and all("limit=" in url for url in histories), asked
    assert any("before=11" in url for url in histories), asked


def finished(page: Page) -> dict:
    """Léa deals; Marc then Zoé lose both their lives: Léa wins at the third reveal."""
    return create(
        page,
        [
            {"type": "reveal", "cards": {"p1": 10, "p2": 1, "p3": 5}},
            {"type": "touched_early", "player": "p3"},
            {"type": "reveal", "cards": {"p1": 9, "p2": 2, "p3": 3}},
            {"type": "reveal", "cards": {"p1": 8, "p3": 4}},
        ],
    )


def test_the_results_page_of_a_finished_game(phone):
    page = phone().new_page()
    table = finished(page)
    page.goto(f"/t/{table['code']}/results")
    expect(page.locator(".results-verdict strong")).to_have_text("Léa gagne !")
    lines = page.locator("#chart svg polyline")
    expect(lines).to_have_count(3)
    expect(page.locator("#chart .chart-legend li")).to_have_count(3)
    expect(page.locator("#chart .legend-name")).to_have_text(NAMES)
    story = page.locator("#story-told .story-list li .story-text")
    expect(story).to_have_count(4)
    expect(story.nth(1)).to_have_text("Zoé a touché ses cartes trop tôt : une vie de moins")
    expect(page.locator("#copy")).to_have_text("Copier le lien")
    shot(page, "results-fr")
    page.emulate_media(media="print")
    expect(page.locator("#tools")).to_be_hidden()
    shot(page, "results-print-fr")
    page.emulate_media(media="screen", color_scheme="dark")
    shot(page, "results-dark-fr")
    page.emulate_media(color_scheme="light")
    # The table view of a finished game links to the results from its story panel.
    page.goto(f"/t/{table['code']}")
    open_story(page)
    tap(page.locator("#story .story-results"))
    expect(page).to_have_url(re.compile(rf"/t/{table['code']}/results$"))


def test_a_running_game_has_no_results_yet(phone):
    page = phone().new_page()
    table = create(page, [])
    page.goto(f"/t/{table['code']}/results")
    expect(page.locator("#not-finished")).to_contain_text("pas encore finie")
    tap(page.locator("#not-finished a"))
    expect(page).to_have_url(re.compile(rf"/t/{table['code']}$"))


def test_in_english_the_panel_and_the_results_speak_english(phone):
    page = phone(locale="en-US").new_page()
    table = create(page, [{"type": "touched_early", "player": "p2"}])
    page.goto(f"/t/{table['code']}")
    open_story(page)
    expect(page.locator("#story summary")).to_have_text("The story of the game (1)")
    expect(page.locator("#story .story-item .story-text")).to_have_text(
        "Marc touched their cards too early: one life less"
    )
    expect(page.locator("#story .story-undo")).to_have_count(0)  # a follower cannot undo
    shot(page, "view-story-en")
    done = finished(page)
    page.goto(f"/t/{done['code']}/results")
    expect(page.locator(".results-verdict strong")).to_have_text("Léa wins!")
    expect(page.locator("#copy")).to_have_text("Copy the link")
    expect(page.locator("#story-told .story-text").first).to_have_text(
        "Reveal, round 1 (Léa Re · Marc Asso · Zoé 5): Marc loses a life"
    )
    shot(page, "results-en")
    page.goto("/import")
    shot(page, "import-en")


def test_export_then_import_opens_a_new_referee_page_with_the_same_state(phone, tmp_path):
    context = phone()
    page = context.new_page()
    table = finished(page)
    page.goto(f"/t/{table['code']}/results")
    with page.expect_download() as download:
        tap(page.locator("#export-json"))
    saved = tmp_path / "export.json"
    download.value.save_as(saved)
    exported = json.loads(saved.read_text())
    assert exported["game"] == "morto" and len(exported["events"]) == 4 and "secret" not in saved.read_text()
    with page.expect_download() as csv_download:
        tap(page.locator("#export-csv"))
    csv_file = tmp_path / "export.csv"
    csv_download.value.save_as(csv_file)
    # A French page's file: a byte order mark, then ";" between cells (what a French spreadsheet opens).
    assert csv_file.read_bytes().decode("utf-8").splitlines()[0] == "\ufeffÉtape;Léa;Marc;Zoé"
    page.goto("/import")
    shot(page, "import-fr")
    page.locator("#import-file").set_input_files(str(saved))
    tap(page.get_by_role("button", name="Importer"))
    expect(page).to_have_url(re.compile(r"/r/[0-9A-Z]{6}$"))
    code = page.url.rsplit("/", 1)[1]
    assert code != table["code"]
    synced(page)
    original = page.request.get(f"/api/tables/{table['code']}").json()["state"]
    copy = page.request.get(f"/api/tables/{code}").json()["state"]
    assert copy == original
    expect(page.locator("[data-player=p1] .hearts")).to_have_attribute("data-lives", "2")
    # This phone is the new table's referee: the story panel offers to undo its latest event.
    open_story(page)
    expect(page.locator("#story .story-undo")).to_have_count(1)
    # A tampered file is refused with the rule and the event's number; nothing is opened.
    exported["events"][1]["event"] = {"type": "touched_early", "player": "p2"}  # Marc deals round 2
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(exported))
    page.goto("/import")
    page.locator("#import-file").set_input_files(str(bad))
    tap(page.get_by_role("button", name="Importer"))
    expect(page.locator("#import-error")).to_have_text(
        "Évènement n° 2 refusé : Le·a dealer a le droit de toucher les cartes avant d'avoir toqué."
    )
    expect(page).to_have_url(re.compile(r"/import$"))
