"""Names that cannot deceive, in Chromium (issue 26): a name never turns around the sentence or the line
that quotes it, and a name holding an invisible character is refused where it is typed.

Where words stand is read from the page itself: the boxes Chromium lays each piece of a line out in
(a `Range` over its characters), so "the sentence keeps its order" means every piece starts after the
one before it, on its line or a later one. Names with a right-to-left override were accepted before
controls were refused: such a table is written straight into the server's database, as an older
version of the app could have stored it. Right-to-left names (Hebrew, Arabic) are still welcome and
go through the API.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import unicodedata
from pathlib import Path

from playwright.sync_api import Page, expect

from e2e.test_offline import api
from engine import core

RLO = "\u202e"
OVERRIDDEN = f"{RLO}Bob שרה"  # an override, then Latin and Hebrew letters

# Where each piece of an element's text is laid out: its box, in the order the pieces are written.
BOXES = """([selector, pieces]) => {
  const root = document.querySelector(selector);
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes = [];
  let text = "";
  while (walker.nextNode()) {
    nodes.push([walker.currentNode, text.length]);
    text += walker.currentNode.data;
  }
  const at = (index) => {
    const [node, start] = nodes.findLast(([, begins]) => begins <= index);
    return [node, index - start];
  };
  let from = 0;
  return pieces.map((piece) => {
    const start = text.indexOf(piece, from);
    if (start < 0) return null;
    from = start + piece.length;
    const range = document.createRange();
    range.setStart(...at(start));
    const [node, offset] = at(start + piece.length - 1);
    range.setEnd(node, offset + 1);
    const box = range.getBoundingClientRect();
    return { left: box.left, right: box.right, top: box.top, bottom: box.bottom };
  });
}"""


def in_order(page: Page, selector: str, pieces: list[str]) -> list[dict]:
    """The boxes of ``pieces`` (written in this order in the element's text), each checked to start
    where the one before it ends, on the same line, or on a later line."""
    boxes = page.evaluate(BOXES, [selector, pieces])
    assert None not in boxes, (pieces, boxes, page.locator(selector).text_content())
    for (before, piece_before), (after, piece) in zip(
        zip(boxes, pieces, strict=True), zip(boxes[1:], pieces[1:], strict=True), strict=False
    ):
        same_line = abs(after["top"] - before["top"]) < 2
        assert (same_line and after["left"] >= before["right"] - 1) or after["top"] >= before["bottom"] - 2, (
            f"{piece!r} is drawn before {piece_before!r}",
            page.locator(selector).text_content(),
            boxes,
        )
    return boxes


def store_players(database: Path, code: str, players: list) -> None:
    """Write a table's players (and its state, a fresh setup of them) as an older version of the app
    could have stored them, before any event."""
    with contextlib.closing(sqlite3.connect(database, timeout=10)) as connection, connection:
        game, options = connection.execute(
            "SELECT game, options FROM tables WHERE code = ?", (code,)
        ).fetchone()
        state = core.setup(game, players, json.loads(options), known_fields=False)
        changed = connection.execute(
            "UPDATE tables SET players = ?, state = ? WHERE code = ?",
            (json.dumps(players), json.dumps(state), code),
        )
        assert changed.rowcount == 1


def test_a_stored_override_turns_no_sentence_around(phone, server, server_database, screenshot):
    """The winner of an Il Morto table is named with a right-to-left override (stored before controls
    were refused): "gagne !" stays after the name and in its order, on the table view (the phone's
    `t()`), on the results page (the server's) and in the story."""
    table = api(
        server, "/api/tables", {"game": "morto", "players": ["Ana", "Bob", "Cyd"], "options": {"lives": 1}}
    )
    store_players(server_database, table["code"], ["Ana", OVERRIDDEN, "Cyd"])
    for n, cards in enumerate(({"p1": 1, "p2": 10, "p3": 2}, {"p2": 10, "p3": 2})):  # Ana, then Cyd dies
        reveal = {"id": f"reveal-{n}", "type": "reveal", "cards": cards}
        api(server, f"/api/tables/{table['code']}/events", reveal, table["secret"])
    page = phone().new_page()
    page.goto(f"/t/{table['code']}")
    expect(page.locator(".winner")).to_have_attribute("data-winners", "p2")
    in_order(page, ".winner-text", [OVERRIDDEN, "gagne", "!"])
    page.locator("#story summary").tap()
    expect(page.locator("#story .story-item")).to_have_count(2)
    in_order(
        page,
        "#story .story-item[data-seq='2'] .story-text",
        ["Révélation", "tour", OVERRIDDEN, "Re", "Cyd", "perd"],
    )
    screenshot(page, "names-override-view")
    page.goto(f"/t/{table['code']}/results")
    in_order(page, ".results-verdict strong", [OVERRIDDEN, "gagne", "!"])
    in_order(
        page,
        ".story-list li:nth-child(2) .story-text",
        ["Révélation", "tour", OVERRIDDEN, "Re", "Cyd", "perd"],
    )
    screenshot(page, "names-override-results")


def test_right_to_left_names_keep_their_cards(phone, server, screenshot):
    """Hebrew and Arabic names in Il Morto: in the story's reveal each card stays right after its
    player's name, and the players' order is the table's (unisolated, "שרה 5 · دينا 7" would be one
    right-to-left run, each card drawn beside the other name)."""
    names = ["Ana", "שרה", "دينا", "Cyd"]
    table = api(server, "/api/tables", {"game": "morto", "players": names, "options": {"lives": 2}})
    cards = {"p1": 10, "p2": 5, "p3": 7, "p4": 1}
    reveal = {"id": "reveal", "type": "reveal", "cards": cards}
    api(server, f"/api/tables/{table['code']}/events", reveal, table["secret"])
    page = phone().new_page()
    page.goto(f"/t/{table['code']}")
    expect(page.locator("[data-player=p2] .player-name")).to_contain_text("שרה")
    page.locator("#story summary").tap()
    line = "#story .story-item[data-seq='1'] .story-text"
    expect(page.locator(line)).to_contain_text("Cyd perd une vie")
    in_order(
        page,
        line,
        ["Révélation", "(", "Ana", "Re", "·", "שרה", "5", "·", "دينا", "7", "·", "Cyd", "Asso", ")", "perd"],
    )
    screenshot(page, "names-right-to-left-story")


def test_a_name_with_an_invisible_character_is_refused_on_the_new_table_form(phone, screenshot):
    page = phone().new_page()
    page.goto("/new/morto")
    inputs = page.locator("#names input[name=name]")
    expect(inputs).to_have_count(6)  # a row per seat of the smallest Il Morto table
    for i, name in enumerate(["Ana", "Bo\u200bb", "Cyd", "Dom", "Eva", "Fay"]):  # a zero-width space, pasted
        inputs.nth(i).fill(name)
    page.get_by_role("button", name="Créer la table").tap()
    error = page.locator("#form-error")
    expect(error).to_be_visible()
    expect(error).to_have_text(
        "«\u00a0Bo\ufffdb\u00a0» contient un caractère invisible ou de contrôle "
        "(U+200B, montré ici par \ufffd)\u00a0: "
        "un nom, un titre ou un lieu ne s'écrit qu'avec des caractères visibles."
    )
    expect(page).to_have_url(re.compile(r"/new/morto$"))
    screenshot(page, "names-new-table-refused")
    inputs.nth(1).fill("Bob")
    page.get_by_role("button", name="Créer la table").tap()
    expect(page).to_have_url(re.compile(r"/r/[0-9A-Z]{6}$"))


def test_the_phone_isolates_exactly_what_the_server_isolates(phone, server):
    """`isolate` in static/js/i18n.js has no bidi classes to read (JavaScript has none): it must wrap
    every character whose class can reorder a sentence, as Python's Unicode database says, and leave
    the rest of a name as typed; on texts with isolates of their own, it answers as the server does."""
    directional = [
        code
        for code in range(0x110000)
        if unicodedata.bidirectional(chr(code))
        in {"R", "AL", "AN", "RLE", "LRE", "RLO", "LRO", "PDF", "RLI", "LRI", "FSI", "PDI"}
    ]
    plain = [
        "Ada",
        "Zoé",
        "李小龍",
        "Ἀθηνᾶ",
        "Алёна",
        "👨\u200d👩\u200d👧",
        "3 · 4",
        "Ana (Re)",
        "\u00a0",
        "é",
    ]
    tricky = [
        "\u2068שרה\u2069, Ada",
        f"\u2069{RLO}Bob",
        "\u2068Bob",
        "a\u2068b\u2069c שרה",
        f"\u2068{RLO}x\u2069",
    ]
    page = phone().new_page()
    page.goto(f"/t/{api(server, '/api/tables', {'game': 'morto', 'players': ['Ana', 'Bob', 'Cyd']})['code']}")
    expect(page.locator("[data-player=p1]")).to_be_visible()
    answer = page.evaluate(
        """async ([directional, texts]) => {
          const page = document.querySelector("script[type=module][src*='/js/']").src;
          const { isolate } = await import(page.replace(/[^/]+\\.js$/, "i18n.js"));
          const alone = (code) => String.fromCodePoint(code);
          return {
            missed: directional.filter((code) => isolate(alone(code)) === alone(code)),
            texts: texts.map((text) => isolate(text)),
          };
        }""",
        [directional, plain + tricky],
    )
    assert answer["missed"] == [], [hex(code) for code in answer["missed"][:20]]
    assert answer["texts"] == [core.isolate(text) for text in plain + tricky]
    assert answer["texts"][: len(plain)] == plain
