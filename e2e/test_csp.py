"""The pages under the Content-Security-Policy (companion/web/headers.py), in Chromium.

One phone opens the home page, the new-table form of each game, a referee page and a table view;
every console message of its pages and of their workers (the engine's Web Worker, where Pyodide
runs) is read, and any CSP violation fails the test, as does any ``securitypolicyviolation`` event
a page sees. The referee's offline engine must become ready — Pyodide compiles its WebAssembly
under ``'wasm-unsafe-eval'`` with no ``'unsafe-eval'`` — and, with the network cut, the referee page
reloads from the service worker, its engine starts again and a tap is checked and shown.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

from e2e.conftest import LOADED_IMAGE, morto_touch
from e2e.test_offline import ENGINE_TIMEOUT_MS, SYNC_TIMEOUT_MS, api, lives

CSP_MESSAGE = re.compile(r"Content Security Policy|Content-Security-Policy|Refused to", re.IGNORECASE)
# Every page records what the policy blocked (an init script runs before the page's own scripts).
WATCH_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} blocked ${event.blockedURI || "inline"}`
    + ` at ${event.sourceFile}:${event.lineNumber}`);
});
"""


class CspWatch:
    """CSP messages in the console of every page of a phone, and of the workers those pages start."""

    def __init__(self, context):
        self.messages: list[str] = []
        self.workers = 0
        context.add_init_script(WATCH_VIOLATIONS)
        context.on("page", self.watch)

    def watch(self, page) -> None:
        page.on("console", lambda message: self._console("page", message))
        page.on("worker", self._worker)

    def _worker(self, worker) -> None:
        self.workers += 1
        worker.on("console", lambda message: self._console(f"worker {worker.url}", message))

    def _console(self, where: str, message) -> None:
        if CSP_MESSAGE.search(message.text):
            self.messages.append(f"{where}: {message.type}: {message.text}")

    def check(self, page) -> None:
        assert self.messages == [], "\n".join(self.messages)
        assert page.evaluate("window.__cspViolations") == [], page.url


def secured(response) -> None:
    headers = response.headers
    policy = headers["content-security-policy"]
    assert "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    assert "'wasm-unsafe-eval'" in policy and "'unsafe-eval'" not in policy.replace("'wasm-unsafe-eval'", "")
    assert headers["x-frame-options"] == "DENY"


def test_every_page_runs_under_the_policy_and_the_engine_works_offline(phone, server):
    context = phone()
    watch = CspWatch(context)
    page = context.new_page()

    secured(page.goto("/"))
    expect(page.locator("html")).to_have_attribute("data-sw", "ready", timeout=ENGINE_TIMEOUT_MS)
    expect(page.locator("[data-game]")).to_have_count(3)
    watch.check(page)

    for game in ("morto", "existentiel", "gjdlv"):
        secured(page.goto(f"/new/{game}"))
        names = page.locator("#names input[name=name]")
        expect(names.first).to_be_visible()
        names.nth(0).fill("Ada")
        names.nth(1).fill("Bruno")
        if game == "gjdlv":  # static/js/new_table.js fills the first player (once an inline script)
            expect(page.locator("#first-player option")).to_have_text(["Ada", "Bruno"])
        watch.check(page)

    # A Grand Jeu table: its view colours each player through a style attribute (style-src).
    grand = api(server, "/api/tables", {"game": "gjdlv", "players": ["Ada", "Bruno", "Chiara"]})
    secured(page.goto(f"/t/{grand['code']}"))
    expect(page.locator("#sync")).to_have_attribute("data-live", "1")
    coloured = page.locator("[style*='--pc']").first
    expect(coloured).to_be_attached()
    assert coloured.evaluate("el => getComputedStyle(el).getPropertyValue('--pc').trim()") != ""
    watch.check(page)

    # Il Morto: the referee page, its engine (Pyodide in a Web Worker), a QR drawn by that engine.
    table = api(server, "/api/tables", {"game": "morto", "players": ["Ana", "Ben", "Cyd", "Dom"]})
    secured(page.goto(f"/r/{table['code']}#s={table['secret']}"))
    expect(page.locator("#sync")).to_have_attribute("data-engine", "ready", timeout=ENGINE_TIMEOUT_MS)
    assert watch.workers >= 1
    page.click("#more")
    page.click("#snapshot")
    expect(page.locator("#qr-dialog svg")).to_be_visible()
    page.locator("#qr-dialog button[type=submit]").click()
    morto_touch(page, "p2")
    expect(page.locator("[data-player=p2] .hearts")).to_have_attribute("data-lives", "2")
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "0", timeout=SYNC_TIMEOUT_MS)
    watch.check(page)

    # The table view the QR opens, following live, and the QR screen's image.
    view = context.new_page()
    secured(view.goto(f"/t/{table['code']}"))
    expect(view.locator("#sync")).to_have_attribute("data-live", "1")
    expect(view.locator("[data-player=p2] .hearts")).to_have_attribute("data-lives", "2")
    watch.check(view)
    view.goto(f"/t/{table['code']}/qr")
    expect(view.locator("figure.qr img")).to_be_visible()
    assert view.locator("figure.qr img").evaluate(LOADED_IMAGE), "the QR image did not load"
    watch.check(view)
    view.close()

    # No network: the referee page reloads from the service worker, under the same policy, and
    # the engine starts again from the precached runtime and checks a tap.
    page.bring_to_front()
    phone.allow_console_error(r"ERR_INTERNET_DISCONNECTED")
    context.set_offline(True)
    page.reload()
    expect(page.locator("#sync")).to_have_attribute("data-engine", "ready", timeout=ENGINE_TIMEOUT_MS)
    expect(page.locator("#app[data-version]")).to_be_visible()
    assert lives(page, "p2") == 2
    morto_touch(page, "p3")
    expect(page.locator("[data-player=p3] .hearts")).to_have_attribute("data-lives", "2")
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "1")
    watch.check(page)

    context.set_offline(False)
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "0", timeout=SYNC_TIMEOUT_MS)
    watch.check(page)
