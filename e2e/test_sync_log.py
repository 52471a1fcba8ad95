"""The referee's log never travels whole, in Chromium.

A referee phone on a table with a long log: the page draws the table from the answer it came with,
then asks for the end of the log only (``/log?tail=100``: a checkpoint of the state and the events
after it); the engine worker gets that once (when it starts), then a tap sends it only the waiting
taps and an acknowledged tap one event; a co-referee's writes come as ``/log?since=<version>`` (only
what the phone lacks), and the phone's IndexedDB keeps the log's end in chunks of 256 events. A reload
(a new worker) sends it from IndexedDB again, once; and a phone that kept a log in the former layout
(the whole log in one row) keeps it.
"""

from __future__ import annotations

import json
import urllib.request

from playwright.sync_api import expect

from e2e.conftest import morto_touch

ENGINE_TIMEOUT_MS = 90_000
SYNC_TIMEOUT_MS = 20_000
NAMES = ["Ana", "Ben", "Cyd", "Dom", "Eva"]

# Every message the page posts to a worker, by op: its size as JSON and, for a whole base, its length.
RECORD_WORKER_MESSAGES = """
window.toWorker = [];
const post = Worker.prototype.postMessage;
Worker.prototype.postMessage = function (message, ...rest) {
  const request = message && message.request;
  if (request) {
    window.toWorker.push({ op: request.op, size: JSON.stringify(message).length,
                           events: request.events ? request.events.length : null,
                           start: request.start ?? null });
  }
  return post.call(this, message, ...rest);
};
"""


def api(base: str, path: str, body=None, secret: str | None = None):
    headers = {"Content-Type": "application/json"}
    if secret:
        headers["Authorization"] = f"Bearer {secret}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as r:
        return json.load(r)


def long_table(server, length: int) -> dict:
    """Il Morto with ``length`` events in effect: Ben and Cyd die, then pass a life back and forth."""
    table = api(server, "/api/tables", {"game": "morto", "players": NAMES, "options": {"lives": 9}})
    events = [{"type": "touched_early", "player": p} for p in ["p2"] * 9 + ["p3"] * 9]
    events.append({"type": "spoke_to_dead", "living": "p4", "dead": "p2"})
    speaker, listener = "p2", "p3"
    while len(events) < length:
        events.append({"type": "spoke_to_dead", "living": speaker, "dead": listener})
        speaker, listener = listener, speaker
    for number, event in enumerate(events[:length]):
        api(
            server,
            f"/api/tables/{table['code']}/events",
            {"id": f"e{number}", **event},
            secret=table["secret"],
        )
    return table


def referee(phone, table):
    context = phone()
    context.add_init_script(RECORD_WORKER_MESSAGES)
    requests = []
    context.on("request", lambda request: requests.append(request.url))
    page = context.new_page()
    page.goto(f"/r/{table['code']}#s={table['secret']}")
    expect(page.locator("#sync")).to_have_attribute("data-engine", "ready", timeout=ENGINE_TIMEOUT_MS)
    return context, page, requests


def sent(page, op: str) -> list[dict]:
    return [m for m in page.evaluate("window.toWorker") if m["op"] == op]


def stored(page, code: str) -> dict:
    """The phone's IndexedDB for this table: the base's row and its chunks of events."""
    return page.evaluate(
        """async (code) => {
      const database = await new Promise((resolve, reject) => {
        const request = indexedDB.open("arbitre");
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      const get = (store, query) => new Promise((resolve) => {
        const request = database.transaction(store).objectStore(store).getAll(query);
        request.onsuccess = () => resolve(request.result);
      });
      const [base] = await get("bases", code);
      const rows = await get("events", IDBKeyRange.bound([code, 0], [code, Infinity]));
      database.close();
      return { version: database.version, base, rows };
    }""",
        code,
    )


def test_a_long_log_goes_to_the_worker_from_a_checkpoint_then_only_what_changed(phone, server):
    table = long_table(server, 300)
    code = table["code"]
    context, page, requests = referee(phone, table)
    expect(page.locator("#app")).to_have_attribute("data-version", "300")
    # The last 100 events, after the server's checkpoint of the first 200 (one every 100 in effect).
    [whole] = sent(page, "base_set")
    assert whole["start"] == 200 and whole["events"] == 100

    # A tap: the worker gets the waiting tap alone, then the acknowledged event alone.
    morto_touch(page, "p5")
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "0", timeout=SYNC_TIMEOUT_MS)
    expect(page.locator("#app")).to_have_attribute("data-version", "301")
    expect(page.locator("[data-player=p5] .hearts")).to_have_attribute("data-lives", "8")
    assert [m["size"] < 400 for m in sent(page, "project")] == [True] * len(sent(page, "project"))
    [moved] = sent(page, "base_move")
    assert moved["size"] < 400
    assert len(sent(page, "base_set")) == 1

    # A co-referee's event and undo, then another event: the stream's frames carry them (`did.event`),
    # and the phone moves its log by them, asking nothing.
    assert [url.split("/api/")[1] for url in requests if "/log" in url] == [f"tables/{code}/log?tail=100"]
    requests.clear()
    api(
        server,
        f"/api/tables/{code}/events",
        {"id": "co-1", "type": "touched_early", "player": "p4"},
        secret=table["secret"],
    )
    api(server, f"/api/tables/{code}/undo", {"id": "co-2"}, secret=table["secret"])
    api(
        server,
        f"/api/tables/{code}/events",
        {"id": "co-3", "type": "touched_early", "player": "p5"},
        secret=table["secret"],
    )
    expect(page.locator("#app")).to_have_attribute("data-version", "304", timeout=SYNC_TIMEOUT_MS)
    expect(page.locator("[data-player=p5] .hearts")).to_have_attribute("data-lives", "7")
    assert [url for url in requests if "/log" in url] == []
    assert len(sent(page, "base_set")) == 1
    assert all(m["size"] < 600 for m in sent(page, "base_move"))

    # An undo on the phone takes the last event off the log, in IndexedDB too.
    page.click("#undo")
    expect(page.locator("#app")).to_have_attribute("data-version", "305", timeout=SYNC_TIMEOUT_MS)
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "0", timeout=SYNC_TIMEOUT_MS)
    expect(page.locator("[data-player=p5] .hearts")).to_have_attribute("data-lives", "8")
    log = api(server, f"/api/tables/{code}/log")
    kept = stored(page, code)
    assert kept["base"]["version"] == log["version"] == 305
    assert len(log["events"]) == 301 and kept["base"]["start"] == 200 and kept["base"]["length"] == 101
    assert kept["base"]["checkpoint"] == api(server, f"/api/tables/{code}/log?tail=101")["checkpoint"]
    assert [row["chunk"] for row in kept["rows"]] == [0]
    assert [e for row in kept["rows"] for e in row["events"]] == [
        entry["event"] for entry in log["events"][200:]
    ]
    assert [i for row in kept["rows"] for i in row["ids"]] == [entry["id"] for entry in log["events"][200:]]

    # A reload: a new worker gets the log from IndexedDB, once, and the server is not asked for it.
    requests.clear()
    page.reload()
    expect(page.locator("#sync")).to_have_attribute("data-engine", "ready", timeout=ENGINE_TIMEOUT_MS)
    morto_touch(page, "p5")
    expect(page.locator("#app")).to_have_attribute("data-version", "306", timeout=SYNC_TIMEOUT_MS)
    expect(page.locator("[data-player=p5] .hearts")).to_have_attribute("data-lives", "7")
    [whole] = sent(page, "base_set")
    assert whole["start"] == 200 and whole["events"] == 101
    assert not [url for url in requests if "/log" in url]
    state = api(server, f"/api/tables/{code}")["state"]
    for player in state["players"]:
        expect(page.locator(f"[data-player={player['id']}] .hearts")).to_have_attribute(
            "data-lives", str(player["lives"])
        )


def test_a_log_kept_whole_by_the_former_layout_survives_the_upgrade(phone, server):
    """A phone updated while offline with taps waiting must still have its log to project them on."""
    table = api(server, "/api/tables", {"game": "morto", "players": NAMES, "options": {"lives": 3}})
    api(
        server,
        f"/api/tables/{table['code']}/events",
        {"id": "e1", "type": "touched_early", "player": "p2"},
        secret=table["secret"],
    )
    context = phone()
    page = context.new_page()
    page.goto("/")
    # The database as the former outbox.js made it (version 1): the whole log in the base's row.
    page.evaluate(
        """async (table) => {
      await new Promise((resolve, reject) => {
        indexedDB.deleteDatabase("arbitre").onsuccess = () => {
          const request = indexedDB.open("arbitre", 1);
          request.onupgradeneeded = () => {
            const database = request.result;
            database.createObjectStore("bases", { keyPath: "code" });
            for (const name of ["outbox", "rejected"]) {
              const store = database.createObjectStore(name, { keyPath: "seq", autoIncrement: true });
              store.createIndex("code", "code");
            }
          };
          request.onsuccess = () => {
            const database = request.result;
            const tx = database.transaction(["bases", "outbox"], "readwrite");
            tx.objectStore("bases").put({ code: table.code, game: "morto", players: table.players,
              options: { lives: 3 }, version: 1, events: [{ type: "touched_early", player: "p2" }],
              savedAt: 0 });
            tx.objectStore("outbox").add({ code: table.code, kind: "event", id: "w1",
              event: { type: "touched_early", player: "p2" }, at: 0 });
            tx.oncomplete = () => { database.close(); resolve(); };
            tx.onerror = () => reject(tx.error);
          };
          request.onerror = () => reject(request.error);
        };
      });
    }""",
        {"code": table["code"], "players": NAMES},
    )
    kept = page.evaluate(
        """async (code) => {
      const box = await import("/static/js/outbox.js");
      return [await box.loadBase(code), (await box.pending(code)).length];
    }""",
        table["code"],
    )
    assert kept[0]["version"] == 1 and kept[0]["events"] == [{"type": "touched_early", "player": "p2"}]
    assert kept[1] == 1
    assert "length" not in kept[0] and "savedAt" not in kept[0]
    assert stored(page, table["code"])["version"] == 2
