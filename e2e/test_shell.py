"""The app's shell in Chromium: one language at a time (the browser's, else the switch's, remembered),
light and dark themes that follow the phone with readable text, the first-run walkthrough, and the
home page's "My tables" (this phone's tables, newest first, each with its state in one line).
"""

from __future__ import annotations

import re
import time

from playwright.sync_api import expect

from companion.web.i18n import catalogue
from e2e.conftest import morto_touch
from e2e.test_offline import api

# Every visible text of the page with its colour and the colour behind it (the first opaque
# background up the tree, translucent ones blended over it), and the contrast ratio of the two
# (WCAG 2: relative luminance). Disabled controls are exempt, as WCAG says.
CONTRASTS = """
() => {
  const parse = (value) => {
    const inside = (value.match(/rgba?\\(([^)]+)\\)/) || [, "0,0,0,0"])[1];
    const parts = inside.split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return { r: parts[0], g: parts[1], b: parts[2], a: parts.length > 3 ? parts[3] : 1 };
  };
  const mix = (top, below, c) => top[c] * top.a + below[c] * (1 - top.a);
  const over = (top, below) => ({ r: mix(top, below, "r"), g: mix(top, below, "g"),
    b: mix(top, below, "b"), a: 1 });
  const background = (el) => {
    const layers = [];
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const colour = parse(getComputedStyle(node).backgroundColor);
      if (colour.a > 0) layers.push(colour);
      if (colour.a >= 1) break;
    }
    let result = { r: 255, g: 255, b: 255, a: 1 };
    for (const layer of layers.reverse()) result = over(layer, result);
    return result;
  };
  const luminance = ({ r, g, b }) => {
    const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const results = [];
  for (const el of document.querySelectorAll("body *")) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.getClientRects().length) continue;
    if (el.closest("[disabled], [aria-hidden=true], script, style")) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden") continue;
    const back = background(el);
    const ink = over(parse(style.color), back);
    const [hi, lo] = [luminance(ink), luminance(back)].sort((a, b) => b - a);
    // A symbol drawn as a picture (hearts: role=img, named by its label) needs 3:1, as any graphic.
    const graphic = Boolean(el.closest("[role=img]"));
    results.push({ text: el.textContent.trim().slice(0, 40), tag: el.tagName, cls: el.className, graphic,
      ratio: Math.round(((hi + 0.05) / (lo + 0.05)) * 100) / 100 });
  }
  return { body: getComputedStyle(document.body).backgroundColor, results };
}
"""


def words(lang: str, key: str, **params) -> str:
    return catalogue(lang)[key].format(**params)


def summary_line(lang: str, state: dict) -> str:
    return words(lang, state["summary"]["code"], **state["summary"]["params"])


def morto(server, names=("Ana", "Ben", "Cyd"), **options):
    return api(server, "/api/tables", {"game": "morto", "players": list(names), "options": options})


# --- one language at a time -----------------------------------------------------------------------------


def test_the_language_follows_the_browser(phone, server):
    table = morto(server)
    english = phone(locale="en-US").new_page()
    phone.allow_console_error(r"status of 404 .* @ .*/t/ZZZZZZ$")  # the unknown table, on purpose
    english.goto("/")
    expect(english.locator("html")).to_have_attribute("lang", "en")
    expect(english.get_by_role("heading", name="New table", exact=True)).to_be_visible()
    expect(english.get_by_role("link", name="Il Morto")).to_be_visible()  # a proper name, not translated
    expect(english.locator("main")).not_to_contain_text("Nouvelle table")
    english.goto(f"/r/{table['code']}#s={table['secret']}")
    expect(english.locator("#undo")).to_have_text("↶ Undo")
    expect(english.locator("#sync")).to_contain_text(re.compile("synced|waiting"))
    english.goto(f"/t/{table['code']}")
    expect(english.locator("#sync")).to_have_text("no action yet")
    english.goto("/t/ZZZZZZ")
    expect(english.get_by_role("heading", name="Nothing here", exact=True)).to_be_visible()
    expect(english.locator("main")).not_to_contain_text("Rien ici")

    french = phone().new_page()  # fr-FR
    french.goto("/")
    expect(french.locator("html")).to_have_attribute("lang", "fr")
    expect(french.get_by_role("heading", name="Nouvelle table", exact=True)).to_be_visible()
    french.goto(f"/t/{table['code']}")
    expect(french.locator("#sync")).to_have_text("aucune action encore")
    expect(french.locator("main")).not_to_contain_text("New table")


def test_the_switch_changes_the_language_and_it_is_remembered(phone, server):
    table = morto(server)
    context = phone()  # a French phone whose person prefers English
    page = context.new_page()
    page.goto("/")
    page.get_by_role("button", name="EN — passer en anglais (English)").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_role("heading", name="New table", exact=True)).to_be_visible()
    cookie = next(c for c in context.cookies() if c["name"] == "lang")
    assert cookie["value"] == "en"
    assert cookie["expires"] > time.time() + 360 * 24 * 3600  # remembered for a year

    page.goto("/new/morto")  # another page, and a reload: still English
    expect(page.get_by_role("button", name="Create the table")).to_be_visible()
    expect(page.locator("#names input[name=name]").first).to_have_attribute("placeholder", "Player 1")
    page.reload()
    expect(page.get_by_role("button", name="Create the table")).to_be_visible()

    # The referee page has its switch in the "More" dialog.
    page.goto(f"/r/{table['code']}#s={table['secret']}")
    expect(page.locator("#undo")).to_have_text("↶ Undo")
    # "More" opens once referee.js has loaded the table: its label is the server's, there before.
    for _ in range(50):
        page.click("#more")
        if page.locator("#more-dialog").evaluate("dialog => dialog.open"):
            break
        page.wait_for_timeout(100)
    page.get_by_role("button", name="FR — switch to French (français)").click()
    expect(page.locator("#undo")).to_have_text("↶ Défaire")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    page.goto("/")
    expect(page.get_by_role("heading", name="Nouvelle table", exact=True)).to_be_visible()


def test_a_refusal_is_worded_in_the_page_language_only(phone, server):
    table = morto(server)
    page = phone(locale="en-US").new_page()
    page.goto(f"/r/{table['code']}#s={table['secret']}")
    expect(page.locator("#app[data-version]")).to_be_visible()
    page.click("#undo")  # nothing to undo yet: refused, by the server or the phone's engine
    toast = page.locator("#toast")
    expect(toast).to_be_visible()
    expect(toast).to_have_text(words("en", "nothing_to_undo"))


# --- themes ------------------------------------------------------------------------------------------------


def test_light_and_dark_themes_render_with_readable_text(phone, server):
    table = morto(server, names=("Ana", "Ben", "Cyd", "Dom"), lives=1)
    api(
        server,
        f"/api/tables/{table['code']}/events",
        {"id": "e1", "type": "touched_early", "player": "p3"},
        secret=table["secret"],
    )
    bodies = {}
    for scheme in ("dark", "light"):
        page = phone(color_scheme=scheme).new_page()
        theme = page.locator(f"meta[name=theme-color][media='(prefers-color-scheme: {scheme})']")
        pages = ("/", f"/t/{table['code']}", f"/r/{table['code']}#s={table['secret']}", "/new/existentiel")
        for url in pages:
            page.goto(url)
            expect(page.locator("main")).not_to_contain_text("Chargement")
            expect(theme).to_have_count(1)
            measured = page.evaluate(CONTRASTS)
            bodies.setdefault(scheme, measured["body"])
            low = [r for r in measured["results"] if r["ratio"] < (3 if r["graphic"] else 4.5)]
            assert not low, f"{scheme} {url}: text below 4.5:1: {low}"
            assert len(measured["results"]) > 5
    assert bodies["dark"] != bodies["light"], bodies


# --- the first-run walkthrough ---------------------------------------------------------------------------


def test_the_walkthrough_shows_once_and_can_be_reopened(phone, server):
    page = phone(first_visit=True).new_page()
    page.goto("/")
    dialog = page.get_by_role("dialog", name="Arbitre tient la table")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Écran 1 sur 3")
    expect(page.get_by_role("heading", name="Arbitre tient la table")).to_be_focused()
    # Keyboard only: Tab to "Suivant", Enter; the screen reader is moved to the new screen's heading.
    dialog.get_by_role("button", name="Suivant").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("dialog", name="Un téléphone arbitre, les autres suivent")).to_be_visible()
    expect(page.get_by_role("heading", name="Un téléphone arbitre, les autres suivent")).to_be_focused()
    dialog = page.locator("dialog#walkthrough")
    dialog.get_by_role("button", name="Passer").click()
    expect(dialog).to_be_hidden()

    page.reload()  # skipped once: never again by itself
    expect(page.get_by_role("heading", name="Nouvelle table", exact=True)).to_be_visible()
    expect(dialog).to_be_hidden()

    page.get_by_role("button", name="Revoir la présentation").click()  # but on demand
    expect(page.get_by_role("dialog", name="Arbitre tient la table")).to_be_visible()
    for title in ("Un téléphone arbitre, les autres suivent", "Même sans réseau"):
        dialog.get_by_role("button", name="Suivant").click()
        expect(page.get_by_role("dialog", name=title)).to_be_visible()
    expect(dialog.get_by_role("button", name="Suivant")).to_be_hidden()
    dialog.get_by_role("button", name="C'est parti !").click()
    expect(dialog).to_be_hidden()
    page.get_by_role("button", name="Revoir la présentation").click()
    page.keyboard.press("Escape")  # Escape closes it as well
    expect(dialog).to_be_hidden()

    english = phone(first_visit=True, locale="en-GB").new_page()  # another phone: its own first visit
    english.goto("/")
    expect(english.get_by_role("dialog", name="Arbitre keeps the table")).to_be_visible()
    english.get_by_role("button", name="Skip").click()
    expect(english.locator("dialog#walkthrough")).to_be_hidden()


# --- My tables --------------------------------------------------------------------------------


def test_my_tables_lists_this_phones_tables_newest_first_with_their_state(phone, server):
    followed = morto(server)
    refereed = morto(server, names=("Léa", "Max", "Noé", "Oum"))
    finished = morto(server, lives=1)
    for i, player in enumerate(("p2", "p3")):
        api(
            server,
            f"/api/tables/{finished['code']}/events",
            {"id": f"f{i}", "type": "touched_early", "player": player},
            secret=finished["secret"],
        )
    context = phone()
    page = context.new_page()
    page.goto(f"/t/{followed['code']}")
    expect(page.locator("#sync")).to_have_attribute("data-live", "1")
    page.goto(f"/t/{finished['code']}")
    expect(page.locator("#sync")).to_have_attribute("data-live", "1")
    page.goto(f"/r/{refereed['code']}#s={refereed['secret']}")
    expect(page.locator("#app[data-version]")).to_be_visible()
    morto_touch(page, "p2")
    expect(page.locator("[data-player=p2] .hearts")).to_have_attribute("data-lives", "2")

    page.goto("/")
    rows = page.locator("#my-tables > li")
    expect(rows).to_have_count(3)
    codes = [refereed["code"], finished["code"], followed["code"]]  # the table opened last comes first
    assert [row.get_attribute("data-code") for row in rows.all()] == codes
    state = {code: api(server, f"/api/tables/{code}")["state"] for code in codes}

    first = page.locator(f"#my-tables > li[data-code='{refereed['code']}']")
    expect(first.locator(".my-game")).to_have_text("Il Morto")
    expect(first.locator(".code")).to_have_text(f"{refereed['code'][:4]}-{refereed['code'][4:]}")
    expect(first.locator(".pill")).to_have_text("arbitre")
    expect(first.locator(".my-summary")).to_have_text(summary_line("fr", state[refereed["code"]]))
    expect(first.locator(".my-age")).to_have_text("à l'instant")
    expect(first.locator("a.my-open")).to_have_attribute("href", f"/r/{refereed['code']}")
    expect(first.get_by_role("link", name=re.compile("Résultats"))).to_have_count(0)

    done = page.locator(f"#my-tables > li[data-code='{finished['code']}']")
    assert state[finished["code"]]["over"]
    expect(done.locator(".pill")).to_have_text("suivie")
    expect(done.locator(".my-summary")).to_have_text(summary_line("fr", state[finished["code"]]))
    shown = f"{finished['code'][:4]}-{finished['code'][4:]}"
    expect(done.get_by_role("link", name=f"Résultats de la table {shown}")).to_have_attribute(
        "href", f"/t/{finished['code']}/results"
    )

    last = page.locator(f"#my-tables > li[data-code='{followed['code']}']")
    expect(last.locator(".pill")).to_have_text("suivie")
    expect(last.locator(".my-summary")).to_have_text(summary_line("fr", state[followed["code"]]))
    expect(last.locator("a.my-open")).to_have_attribute("href", f"/t/{followed['code']}")

    # Forgetting: a followed table goes at once; a refereed one only once the person confirms
    # (the secret lives on this phone alone).
    last.get_by_role("button", name=re.compile("Oublier la table")).click()
    expect(rows).to_have_count(2)
    page.once("dialog", lambda dialog: dialog.dismiss())
    first.get_by_role("button", name=re.compile("Oublier la table")).click()
    expect(rows).to_have_count(2)
    page.once("dialog", lambda dialog: dialog.accept())
    first.get_by_role("button", name=re.compile("Oublier la table")).click()
    expect(rows).to_have_count(1)
    page.reload()
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-code", finished["code"])

    # The same list in English: the same lines, worded in the page's language.
    page.get_by_role("button", name="EN — passer en anglais (English)").click()
    expect(page.get_by_role("heading", name="My tables")).to_be_visible()
    expect(rows.first.locator(".pill")).to_have_text("followed")
    expect(rows.first.locator(".my-summary")).to_have_text(summary_line("en", state[finished["code"]]))
    expect(rows.first.get_by_role("link", name=re.compile("^Results of table"))).to_be_visible()
