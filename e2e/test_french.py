"""French as a French speaker writes it, in Chromium at 390×844 (issue 29 item 7): the phone words a
name into a sentence exactly as the server does (elision, plural forms), a follower reads "d'Omar"
on the line that says what just happened and in the story, and the French CSV download opens in a
French spreadsheet (a byte order mark, then cells split on ";").

Tables are made and played through the API; the pages are read as a person reads them.
"""

from __future__ import annotations

import csv
import io
import string

from playwright.sync_api import Page, expect

from companion.web.i18n import catalogue
from e2e.test_offline import api
from engine.messages import elides, fill
from tests.test_french import ELIDED, KEPT

BOM = b"\xef\xbb\xbf"


def module(page: Page, name: str) -> str:
    """The URL of one of the app's script modules, next to the page's own (versioned alike)."""
    own = page.locator("script[type=module][src*='/js/']").first.evaluate("script => script.src")
    return own.rsplit("/", 1)[0] + "/" + name


def test_the_phone_words_names_into_sentences_as_the_server_does(phone, server):
    """Every French sentence quoting a param, worded on the phone (`format` in static/js/i18n.js) and
    on the server (`engine.messages.fill`) with names beginning with each vowel, H, Y and consonants:
    the same words, character for character."""
    names = sorted(ELIDED | KEPT) + ["\u05e9\u05e8\u05d4", "hugo", "Ÿvon"]
    templates = {
        key: template
        for key, template in catalogue("fr").items()
        if any(field for _, field, _, _ in string.Formatter().parse(template))
    }
    page = phone().new_page()
    table = api(server, "/api/tables", {"game": "morto", "players": ["Omar", "Ada", "Yann"]})
    page.goto(f"/t/{table['code']}")
    expect(page.locator("[data-player=p1]")).to_be_visible()
    fields = {key: [f for _, f, _, _ in string.Formatter().parse(t) if f] for key, t in templates.items()}
    answer = page.evaluate(
        """async ([url, names, templates, fields]) => {
          const { elides, format, plural } = await import(url);
          const worded = {};
          for (const name of names) {
            for (const [key, template] of Object.entries(templates)) {
              const params = Object.fromEntries(fields[key].map((field) => [field, name]));
              worded[`${name}|${key}`] = format(template, params);
            }
          }
          return { elides: names.map(elides), worded, plural: [0, 1, 2, 10].map(plural) };
        }""",
        [module(page, "i18n.js"), names, templates, fields],
    )
    assert answer["elides"] == [elides(name) for name in names]
    expected = {
        f"{name}|{key}": fill(template, dict.fromkeys(fields[key], name))
        for name in names
        for key, template in templates.items()
    }
    assert answer["worded"] == expected
    assert answer["plural"] == ["one", "one", "other", "other"]  # a French page: 0 and 1 are singular


def test_a_follower_reads_d_omar_and_the_french_csv_opens_in_a_french_spreadsheet(phone, server, screenshot):
    table = api(
        server, "/api/tables", {"game": "existentiel", "players": [{"name": "Omar", "birth_month": 3}]}
    )
    code, secret = table["code"], table["secret"]

    sent = iter(range(1, 100))

    def event(**body):
        return api(server, f"/api/tables/{code}/events", {"id": f"e{next(sent)}", **body}, secret=secret)

    page = phone().new_page()
    page.goto(f"/t/{code}")
    expect(page.locator("#sync")).to_have_attribute("data-live", "1")
    event(type="roll", player="p1", die=1)  # 3 + 1: adventure 4
    event(type="accept", player="p1")
    event(type="schedule", at="2031-04-04T18:00")
    event(type="validate", player="p1", success=True)
    # What just happened, live on the follower's page: "d'Omar", never "de Omar".
    expect(page.locator("#happened .happened-text")).to_have_text("Aventure 4 d'Omar validée")
    screenshot(page, "french-happened-elided")

    for _ in range(4):  # three jokers, then the game: eliminated, and no one is left in play
        event(type="roll", player="p1", die=1)
        event(type="refuse", player="p1")
    results = phone().new_page()
    results.goto(f"/t/{code}/results")
    expect(results.locator("body")).to_contain_text("Aventure 4 d'Omar validée")
    expect(results.locator("body")).not_to_contain_text("de Omar")
    link = results.locator("#export-csv")
    expect(link).to_have_attribute("href", f"/api/tables/{code}/export.csv?lang=fr")
    screenshot(results, "french-results")
    with results.expect_download() as download:
        link.tap()
    with open(download.value.path(), "rb") as file:
        body = file.read()
    assert body.startswith(BOM)
    rows = list(csv.reader(io.StringIO(body[len(BOM) :].decode("utf-8")), delimiter=";"))
    assert rows[:2] == [["Étape", "Omar"], ["Début", "0"]]
    assert ["Omar, aventure 4", "1"] in rows  # a label holding a comma stays one cell
    assert all(len(row) == 2 for row in rows)
