"""End-to-end fixtures: the real app in a subprocess, and phones (Chromium contexts) that use it.

Shared by every e2e file, whatever the game. What they give:

- ``server`` (session): the base URL (``http://127.0.0.1:<port>``, no trailing slash) of the real app,
  started as ``companion serve`` (``tests.support.server``) on a free port with SQLite in a fresh
  ``ARBITRE_INSTANCE`` folder (``DATABASE_URL`` is removed from its environment): the production
  server, gunicorn with its default number of gevent worker processes, so a follower and its
  referee may be on two processes.
  It is stopped at the end of the session; if it died meanwhile, the session fails with its
  output. A failing test gets the end of the server's log in its report.
- ``browser`` (session): Debian's Chromium (``/usr/bin/chromium``), headless, through Playwright.
  ``playwright install`` cannot download browsers here, hence ``executable_path``.
- ``phone`` (function): a factory; ``phone()`` opens a new browser context shaped like a phone
  (390×844, mobile, touch, ``fr-FR``). Each context is a separate phone with its own localStorage, so
  a referee's secret stays on the phone that created the table. Use ``context.new_page()`` for a tab;
  a tab left in the background gets no frames and taps on it wait for one: ``page.bring_to_front()``
  before tapping in another tab. Service workers are allowed, as on a real phone; keyword arguments
  go to ``browser.new_context`` (e.g. ``phone(service_workers="block")``, ``phone(locale="en-US")``).
  A phone has already seen the home page's first-run walkthrough (a modal dialog that would stand
  in front of every tap), unless made with ``phone(first_visit=True)``.
  Every context is closed after the test. A test fails if a page throws (uncaught error or rejected
  promise) or logs a console error, except:

  * "Failed to load resource" for an ``/api/`` URL answered 409 or 422: those are the API's normal
    refusals (a stale version, a rule), which the app shows in its toast; assert the toast instead;
  * what the test allows with ``phone.allow_console_error(regex)`` (matched against
    ``"<text> @ <url>"``), e.g. a stream the test cuts on purpose.

  When a test fails, a screenshot of every open page goes to ``e2e/artifacts/failures/``.
- ``screenshot`` (function): ``screenshot(page, name)`` saves ``e2e/artifacts/<name>.png``.
- ``server_database`` (session): the SQLite file ``server`` writes, for a test that stores a table
  as an older version of the app could have (what the API now refuses), straight into it.

Every Playwright wait is bounded: ``expect(...)`` waits at most ``EXPECT_TIMEOUT_MS``, actions
``ACTION_TIMEOUT_MS``. Synchronise on what the page shows (``expect``), never on sleeps.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, expect, sync_playwright

from tests.support import http
from tests.support.server import Server, log_tail, server_env

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
    "locale": "fr-FR",
}

EXPECT_TIMEOUT_MS = 5_000
ACTION_TIMEOUT_MS = 5_000
NAVIGATION_TIMEOUT_MS = 10_000
SERVER_START_SECONDS = 30
SERVER_STOP_SECONDS = 10

# The API refuses with these statuses as part of normal play; Chromium logs each refused fetch.
REFUSAL_CONSOLE = re.compile(
    r"^Failed to load resource: the server responded with a status of (409|422)\b.* @ .*/api/"
)

# Marks the first-run walkthrough (static/js/walkthrough.js) as seen before any page script runs.
SKIP_WALKTHROUGH = """
try { if (!localStorage.getItem("arbitre.walkthrough")) localStorage.setItem("arbitre.walkthrough", "seen"); }
catch (error) { /* about:blank and the like have no storage */ }
"""

# Waits for an <img> to finish loading (checking `complete` at once would race it); false if it failed.
LOADED_IMAGE = "img => img.decode().then(() => img.naturalWidth > 0, () => false)"

expect.set_options(timeout=EXPECT_TIMEOUT_MS)

_server_log_key = pytest.StashKey[Path]()
_reports_key = pytest.StashKey[dict]()


# --- the app ---------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def server(tmp_path_factory, pytestconfig):
    """The base URL of the real app, served by ``companion serve`` with SQLite in a temporary folder."""
    folder = tmp_path_factory.mktemp("arbitre-e2e")
    log_path = folder / "server.log"
    pytestconfig.stash[_server_log_key] = log_path
    # Every test creates its tables from this one address: the new-table limit per address (60 an
    # hour, tested in tests/) would refuse the suite's later tables.
    env = server_env(folder / "instance", ARBITRE_RATELIMIT_NEW_TABLE="100000/hour")
    served = Server(env, log_path).start()
    try:
        try:
            served.wait_ready(SERVER_START_SECONDS)
        except RuntimeError as error:
            pytest.fail(f"the app did not answer: {error}")
        # The production server, gevent workers and all, not a development one.
        home = http.request(served.base, "GET", "/", timeout=5)
        assert home.headers["Server"] == "gunicorn", home.headers["Server"]
        assert "gunicorn + gevent" in served.output(), served.tail()
        yield served.base
        died = served.process.poll()
    finally:
        served.stop(SERVER_STOP_SECONDS)
    if died is not None:
        pytest.fail(f"the app died during the session (exit {died}):\n{served.tail()}")


@pytest.fixture(scope="session")
def server_database(server, pytestconfig) -> Path:
    return pytestconfig.stash[_server_log_key].parent / "instance" / "arbitre.db"


# --- the browser and the phones --------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


class Phones:
    """``phones()`` gives a new phone (a browser context); errors its pages raise are collected."""

    def __init__(self, browser: Browser, base_url: str):
        self.browser = browser
        self.base_url = base_url
        self.contexts: list[BrowserContext] = []
        self.errors: list[str] = []
        self.allowed: list[re.Pattern] = [REFUSAL_CONSOLE]

    def __call__(self, first_visit: bool = False, **overrides) -> BrowserContext:
        context = self.browser.new_context(**{"base_url": self.base_url, **PHONE, **overrides})
        if not first_visit:
            context.add_init_script(SKIP_WALKTHROUGH)
        context.set_default_timeout(ACTION_TIMEOUT_MS)
        context.set_default_navigation_timeout(NAVIGATION_TIMEOUT_MS)
        number = len(self.contexts) + 1
        context.on("weberror", lambda error: self.errors.append(f"phone {number}: page error: {error.error}"))
        context.on("console", lambda message: self._console(number, message))
        self.contexts.append(context)
        return context

    def allow_console_error(self, pattern: str) -> None:
        """Do not fail on console errors matching ``pattern`` (searched in ``"<text> @ <url>"``)."""
        self.allowed.append(re.compile(pattern))

    def _console(self, number: int, message) -> None:
        if message.type != "error":
            return
        line = f"{message.text} @ {message.location.get('url', '')}"
        if not any(pattern.search(line) for pattern in self.allowed):
            self.errors.append(f"phone {number}: console error: {line}")

    def screenshot_all(self, name: str) -> None:
        folder = ARTIFACTS / "failures"
        folder.mkdir(parents=True, exist_ok=True)
        for c, context in enumerate(self.contexts, 1):
            for p, page in enumerate(context.pages, 1):
                # A screenshot of a broken page must not hide the real failure.
                with contextlib.suppress(Exception):
                    shot = folder / f"{name}-phone{c}-tab{p}.png"
                    page.screenshot(path=shot, full_page=True, timeout=10_000)

    def close(self) -> None:
        for context in self.contexts:
            context.close()
        self.contexts.clear()


@pytest.fixture
def phone(browser, server, request):
    """A factory of phones: ``ctx = phone()``, then ``page = ctx.new_page()`` and ``page.goto("/")``."""
    phones = Phones(browser, server)
    try:
        yield phones
        report = request.node.stash.get(_reports_key, {}).get("call")
        if report is not None and report.failed:
            phones.screenshot_all(re.sub(r"[^\w.-]+", "_", request.node.name))
    finally:
        phones.close()
    if phones.errors:
        pytest.fail("JavaScript errors on the phones:\n" + "\n".join(phones.errors), pytrace=False)


@pytest.fixture
def screenshot():
    """``screenshot(page, name)`` saves a full-page PNG as ``e2e/artifacts/<name>.png`` (gitignored).

    For people to look at (what a phone showed at a key moment); never assert on it.
    """
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def save(page, name: str) -> Path:
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=path, full_page=True)
        return path

    return save


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    item.stash.setdefault(_reports_key, {})[report.when] = report
    if report.failed and report.when in ("call", "teardown"):
        log_path = item.config.stash.get(_server_log_key, None)
        if log_path is not None:
            report.sections.append(("server log (end)", log_tail(log_path)))


# --- shared steps ----------------------------------------------------------------------------------


def follow_from_qr(referee, follower_phone, base_url: str, code: str):
    """The referee shows the QR screen; another phone opens the URL the QR encodes, and follows live.

    The QR image must be exactly the QR code of the URL the screen shows (no decoder here). The
    follower's page gets a marker that any reload would drop, for tests to check it only redrew.
    """
    from companion.web.qr import svg as qr_svg

    referee.locator(".dock a", has_text="QR").tap()
    expect(referee).to_have_url(f"{base_url}/t/{code}/qr")
    link = referee.locator("#view-url")
    view_url = link.inner_text().strip()
    assert view_url == f"{base_url}/t/{code}"
    assert link.get_attribute("href") == view_url
    image = referee.locator("figure.qr img")
    expect(image).to_have_attribute("src", f"/api/tables/{code}/qr.svg")
    assert image.evaluate(LOADED_IMAGE), "the QR image did not load"
    response = referee.request.get(f"/api/tables/{code}/qr.svg")
    assert response.ok and response.headers["content-type"].startswith("image/svg+xml")
    assert response.body() == qr_svg(view_url)

    referee.get_by_role("link", name="← Retour à l'arbitrage").tap()
    expect(referee).to_have_url(f"{base_url}/r/{code}")
    expect(referee.locator("#app[data-version]")).to_be_visible()

    view = follower_phone.new_page()
    view.goto(view_url)
    expect(view.locator("#sync")).to_have_attribute("data-live", "1")  # it hears the table
    view.evaluate("window.__notReloaded = true")
    return view


def played(page, body: dict, events: list[dict]) -> dict:
    """A table made through the API (``body`` as ``POST /api/tables`` takes it), then ``events``
    posted with its referee secret; the table's creation answer."""
    answer = page.request.post("/api/tables", data=body)
    assert answer.status == 201, answer.text()
    table = answer.json()
    for n, event in enumerate(events):
        posted = page.request.post(
            f"/api/tables/{table['code']}/events",
            data={"id": f"played-{n}", **event},
            headers={"Authorization": f"Bearer {table['secret']}"},
        )
        assert posted.status == 201, posted.text()
    return table


def morto_touch(page, pid: str, press=lambda target: target.click()) -> None:
    """Il Morto: the referee records that ``pid`` touched a card before the knock, through the round
    card's one "Infraction" control: who (``pid``'s seat), then what. ``press`` taps each control
    (a click by default; e2e/test_morto.py's scrolls it to the middle of the screen first)."""
    press(page.locator("#infraction"))
    press(page.locator(f"#seats button[data-player={pid}]"))
    press(page.locator("#offence [data-action=touched_early]"))
