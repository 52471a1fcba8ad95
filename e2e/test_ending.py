"""The end of a game in Chromium phones at 390×844 (issue 29, item 3): the winner's card offers the
results page, a rematch and sharing; the results page shares a picture of the final scores.

- An Il Morto game ends; the referee's phone shows « Revanche » without scrolling, a follower's
  does not. One tap makes the next game (the same players in the same seats, one life each, the
  first deal one seat on) and opens its referee page. The follower, never reloaded, is offered the
  new table as soon as it exists; a co-referee's phone tapping on the old table opens the very same
  new table, and can referee it; a follower who comes later is offered it at once.
- Sharing from the winner's card: the Web Share API gets a short summary and the results' link
  (``navigator.share`` is stubbed in the page to capture it); a phone without it copies them.
- The results page shares a PNG drawn on the phone (1080×1080, not blank) with the link, and
  downloads it.

Tables are set up and played to their end through the API (the referee's secret, as a co-referee's
phone would send), and the referee's phone is given the secret by the hand-over link: the round
controls are not the subject here; the end of the game is.
"""

from __future__ import annotations

import contextlib
import re

from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from e2e.conftest import ARTIFACTS, played

NAMES = ["Ada", "Bruno", "Chiara", "Dario", "Elena", "Fabio"]

# Replaces the Web Share API with a recorder: what a page shares lands in `window.__shared` (its
# files in `window.__sharedFiles`), and the share sheet "closes" at once.
STUB_SHARE = """
Object.defineProperty(Navigator.prototype, "share", { configurable: true, value: function (data) {
  const files = (data.files || []).map((f) => ({ name: f.name, type: f.type, size: f.size }));
  window.__shared = { ...data, files };
  window.__sharedFiles = data.files || [];
  return Promise.resolve();
} });
Object.defineProperty(Navigator.prototype, "canShare", { configurable: true, value: () => true });
"""
# A phone without the Web Share API (as most desktop browsers are).
NO_SHARE = """
delete Navigator.prototype.share;
delete Navigator.prototype.canShare;
"""
# The shared PNG, measured in the page: its size, how many colours, how much of it is not background.
MEASURE_PICTURE = """async () => {
  const file = window.__sharedFiles[0];
  const bitmap = await createImageBitmap(file);
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const ctx = canvas.getContext("2d");
  ctx.drawImage(bitmap, 0, 0);
  const pixels = ctx.getImageData(0, 0, bitmap.width, bitmap.height).data;
  const colours = new Set();
  let drawn = 0;
  for (let i = 0; i < pixels.length; i += 4) {
    const colour = (pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2];
    colours.add(colour);
    if (pixels[i] !== pixels[0] || pixels[i + 1] !== pixels[1] || pixels[i + 2] !== pixels[2]) drawn += 1;
  }
  const bytes = Array.from(new Uint8Array(await file.arrayBuffer()));
  const share = drawn / (pixels.length / 4);
  return { width: bitmap.width, height: bitmap.height, colours: colours.size, drawn: share, bytes };
}"""


def display(code: str) -> str:
    return f"{code[:4]}-{code[4:]}"


def finished_morto(page: Page, names: list[str] = NAMES) -> dict:
    """An Il Morto table with one life each, Ada dealing: everyone else touches a card before the
    knock, and dies; Ada wins."""
    touches = [{"type": "touched_early", "player": f"p{n}"} for n in range(2, len(names) + 1)]
    return played(page, {"game": "morto", "players": names, "options": {"lives": 1}}, touches)


def kept_secret(page: Page, code: str) -> str | None:
    return page.evaluate(
        "(code) => JSON.parse(localStorage.getItem('arbitre.tables') || '{}')[code]?.secret", code
    )


# Where a control is, and where the referee's dock begins (the screen's bottom when there is none).
PLACED = """selector => {
    const box = document.querySelector(selector).getBoundingClientRect();
    const dock = document.querySelector('.dock');
    return {y: box.y, bottom: box.bottom, height: box.height, width: box.width,
            dock: dock ? dock.getBoundingClientRect().y : innerHeight};
}"""


def above_the_dock(page: Page, selector: str) -> None:
    """The control is on the first screen, not under the referee's dock: no scrolling to reach it.
    Measured once the page has settled (it redraws its card when its stream connects)."""
    expect(page.locator(selector)).to_be_visible()
    with contextlib.suppress(PlaywrightTimeoutError):  # then the assertion below says where it is
        page.wait_for_function(
            f"selector => {{ const p = ({PLACED})(selector); return p.y >= 0 && p.bottom <= p.dock; }}",
            arg=selector,
            timeout=5_000,
        )
    box = page.evaluate(PLACED, selector)
    assert box["y"] >= 0 and box["bottom"] <= box["dock"], box
    assert box["height"] >= 48 and box["width"] >= 48, box


def test_a_finished_game_offers_a_rematch_in_one_tap_and_its_followers_are_told(phone, server, screenshot):
    referee = phone().new_page()
    table = finished_morto(referee)
    old = table["code"]
    referee.goto(f"/r/{old}#s={table['secret']}")  # this phone holds the secret (as a hand-over gives it)
    expect(referee.locator(".winner")).to_have_text("🏆 Ada gagne !")
    card = referee.locator("[data-ending]")  # under the winner's card
    rematch = card.locator("[data-ending-rematch]")
    expect(rematch).to_have_text("🔁 Revanche")
    above_the_dock(referee, "[data-ending] [data-ending-rematch]")
    expect(card.locator("[data-ending-results]")).to_have_attribute("href", f"/t/{old}/results")
    expect(card.locator("[data-ending-share]")).to_have_text("Partager")

    follower = phone().new_page()
    follower.goto(f"/t/{old}")
    expect(follower.locator("#sync")).to_have_attribute("data-live", "1")  # it hears the table
    follower.evaluate("window.__notReloaded = true")
    expect(follower.locator(".winner")).to_have_text("🏆 Ada gagne !")
    seen = follower.locator("[data-ending]")
    expect(seen.locator("[data-ending-results]")).to_be_visible()
    expect(seen.locator("[data-ending-rematch], [data-ending-follow]")).to_have_count(0)  # not a referee
    screenshot(referee, "ending-referee-morto")
    screenshot(follower, "ending-follower-morto")

    rematch.tap()  # one tap
    referee.wait_for_url(re.compile(rf"/r/(?!{old})[0-9A-Z]{{6}}$"))  # a navigation: its own timeout
    new = referee.url.rsplit("/", 1)[1]
    expect(referee.locator("#app[data-version='0']")).to_be_attached()
    expect(referee.locator("#seats .seat .player-name")).to_have_text(NAMES)  # the same seats
    expect(referee.locator("#seats .seat .hearts")).to_have_count(len(NAMES))
    for hearts in referee.locator("#seats .seat .hearts").all():
        expect(hearts).to_have_attribute("data-lives", "1")  # the same lives
    expect(referee.locator("[data-dealer]")).to_have_attribute("data-dealer", "p2")  # Bruno deals first now
    expect(referee.locator("#sync")).to_have_class(re.compile(r"\bok\b"))
    secret = kept_secret(referee, new)
    assert secret and secret != table["secret"]

    # The follower is told where the next game is, with no reload, and follows it in one tap.
    follow = follower.locator("[data-ending] [data-ending-follow]")
    expect(follow).to_have_attribute("data-ending-follow", new)
    expect(follow).to_have_text(f"🔁 Suivre la revanche {display(new)}")
    assert follower.evaluate("window.__notReloaded") is True
    screenshot(follower, "ending-follower-told")
    follow.tap()
    follower.wait_for_url(f"{server}/t/{new}")
    expect(follower.locator(".player .player-name")).to_have_text(NAMES)

    # A co-referee (the old table handed over to their phone) taps on the old table: the same new table.
    co = phone().new_page()
    co.goto(f"/r/{old}#s={table['secret']}")
    again = co.locator("[data-ending] [data-ending-rematch]")
    expect(again).to_have_attribute("data-ending-rematch", new)
    expect(again).to_have_text(f"🔁 Arbitrer la revanche {display(new)}")
    screenshot(co, "ending-coreferee-told")
    again.tap()
    co.wait_for_url(f"{server}/r/{new}")
    assert kept_secret(co, new) == secret
    expect(co.locator("#sync")).to_have_class(re.compile(r"\bok\b"))

    # Someone opening the old table later is offered the new one at once, and so is its results page.
    late = phone().new_page()
    late.goto(f"/t/{old}")
    expect(late.locator("[data-ending] [data-ending-follow]")).to_have_attribute("data-ending-follow", new)
    assert referee.request.get(f"/api/tables/{old}").json()["rematch"] == new
    late.goto(f"/t/{old}/results")
    expect(late.locator("#rematch")).to_have_attribute("href", f"/t/{new}")
    expect(late.locator("#rematch")).to_have_text(f"🔁 Suivre la revanche {display(new)}")
    screenshot(late, "ending-results-rematch")


def test_the_winners_card_shares_a_short_summary_or_copies_it(phone, server):
    sharing = phone()
    sharing.add_init_script(STUB_SHARE)
    page = sharing.new_page()
    table = finished_morto(page, NAMES[:3])
    page.goto(f"/t/{table['code']}")
    page.locator("[data-ending] [data-ending-share]").tap()
    page.wait_for_function("() => window.__shared !== undefined")
    shared = page.evaluate("window.__shared")
    assert shared["text"] == "Il Morto — Ada gagne\u00a0!"
    assert shared["url"] == f"{server}/t/{table['code']}/results"
    assert shared["title"] == "Il Morto" and shared["files"] == []

    copying = phone(permissions=["clipboard-read", "clipboard-write"])
    copying.add_init_script(NO_SHARE)
    page = copying.new_page()
    page.goto(f"/t/{table['code']}")
    assert page.evaluate("navigator.share === undefined")
    page.locator("[data-ending] [data-ending-share]").tap()
    expect(page.locator("#toast .toast-text")).to_have_text("Résumé copié : collez-le où vous voulez.")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == f"Il Morto — Ada gagne\u00a0!\n{server}/t/{table['code']}/results"


def test_the_results_page_shares_a_picture_of_the_final_scores_with_its_link(phone, screenshot):
    context = phone()
    context.add_init_script(STUB_SHARE)
    page = context.new_page()
    table = finished_morto(page)
    page.goto(f"/t/{table['code']}/results")
    expect(page.locator(".results-verdict")).to_contain_text("Ada gagne !")
    expect(page.locator("#chart .chart-legend li")).to_have_count(len(NAMES))
    screenshot(page, "ending-results")
    page.locator("#share").tap()
    page.wait_for_function("() => window.__shared !== undefined")
    shared = page.evaluate("window.__shared")
    assert shared["url"] == page.url and shared["text"] == "Les résultats de notre partie"
    assert shared["files"] == [
        {"name": f"arbitre-{table['code']}.png", "type": "image/png", "size": shared["files"][0]["size"]}
    ]
    picture = page.evaluate(MEASURE_PICTURE)
    assert (picture["width"], picture["height"]) == (1080, 1080)
    assert picture["colours"] > 50, picture["colours"]  # text, the players' colours: not a blank fill
    assert picture["drawn"] > 0.05, picture["drawn"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "ending-results-picture.png").write_bytes(bytes(picture["bytes"]))

    # The picture is also kept on the phone, one tap away.
    with page.expect_download() as download:
        page.locator("#picture").tap()
    assert download.value.suggested_filename == f"arbitre-{table['code']}.png"


def test_every_game_ends_with_the_same_offer(phone, screenshot):
    """Le jeu existentiel (its results card holds the offer) and the Grand Jeu: one tap, the same table."""
    page = phone().new_page()
    refusals = [
        e
        for die in (1, 2, 3, 4)
        for e in ({"type": "roll", "player": "p1", "die": die}, {"type": "refuse", "player": "p1"})
    ]
    games = {
        "existentiel": (
            {"game": "existentiel", "players": [{"name": "Inès", "birth_month": 3}]},
            refusals,
            "#outcome [data-ending]",
        ),
        "gjdlv": (
            {
                "game": "gjdlv",
                "players": ["Alice", "Basile", "Camille"],
                "options": {"rounds": 5, "rules": "abondantes"},
            },
            [{"type": "close_round"}] * 5,
            "#outcome [data-ending]",  # in the outcome card every game draws (static/js/envelope.js)
        ),
    }
    for game, (body, events, where) in games.items():
        table = played(page, body, events)
        page.goto(f"/r/{table['code']}#s={table['secret']}")
        offer = page.locator(where)
        above_the_dock(page, f"{where} [data-ending-rematch]")
        screenshot(page, f"ending-referee-{game}")
        offer.locator("[data-ending-rematch]").tap()
        page.wait_for_url(re.compile(rf"/r/(?!{table['code']})[0-9A-Z]{{6}}$"))
        made = page.request.get(f"/api/tables/{page.url.rsplit('/', 1)[1]}").json()["state"]
        if game == "existentiel":
            assert [(p["name"], p["birth_month"], p["jokers"]) for p in made["players"]] == [("Inès", 3, 3)]
        else:
            assert [p["name"] for p in made["players"]] == body["players"]
            assert (made["rules"], made["rounds"], made["first_player"], made["round"]) == (
                "abondantes",
                5,
                "p2",
                1,
            )
