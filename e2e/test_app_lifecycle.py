"""The app as an installed PWA over time: a new version announces itself and is applied only when the
person taps to reload; and a referee hands the table over to a co-referee with a QR code whose secret
never reaches the server."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from e2e.conftest import (
    CHROMIUM,
    CHROMIUM_ARGS,
    PHONE,
    SERVER_START_SECONDS,
    SERVER_STOP_SECONDS,
    SKIP_WALKTHROUGH,
    morto_touch,
)
from e2e.test_offline import ENGINE_TIMEOUT_MS, api, installed_referee
from tests.support.server import Server, server_env


def test_a_new_version_announces_itself_and_reloads_on_the_users_word(phone, tmp_path):
    server = Server(server_env(tmp_path / "instance", ARBITRE_RELEASE="1"), tmp_path / "server.log")
    server.started(SERVER_START_SECONDS)
    try:
        page = phone(base_url=server.base).new_page()
        page.goto("/")
        html = page.locator("html")
        expect(html).to_have_attribute("data-sw", "ready", timeout=ENGINE_TIMEOUT_MS)
        page.reload()  # now served through the installed worker, which tells its version
        expect(html).to_have_attribute("data-sw", "ready", timeout=ENGINE_TIMEOUT_MS)
        expect(html).to_have_attribute("data-sw-version", re.compile(r"^[0-9a-f]{12}$"))
        first = html.get_attribute("data-sw-version")
        expect(page.locator("#update-banner")).to_have_count(0)
    finally:
        server.stop(SERVER_STOP_SECONDS)

    server.env["ARBITRE_RELEASE"] = "2"  # a new release of the app, on the same port and database
    server.started(SERVER_START_SECONDS)
    try:
        page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())")
        banner = page.locator("#update-banner")
        expect(banner).to_contain_text("Nouvelle version", timeout=ENGINE_TIMEOUT_MS)
        assert html.get_attribute("data-sw-version") == first  # nothing changes until the person says so
        banner.get_by_role("button", name="Recharger").click()
        expect(html).not_to_have_attribute("data-sw-version", first, timeout=ENGINE_TIMEOUT_MS)
        expect(page.locator("#update-banner")).to_have_count(0)
    finally:
        server.stop(SERVER_STOP_SECONDS)


def test_hand_over_to_a_co_referee_by_qr(phone, server):
    table = api(server, "/api/tables", {"game": "morto", "players": ["Ana", "Ben", "Cyd"]})
    referee, page = installed_referee(phone, server, table)
    page.click("#more")
    page.click("#handover")
    dialog = page.locator("#qr-dialog")
    expect(dialog.locator("svg")).to_be_visible()
    url = dialog.locator("#qr-url").get_attribute("href")
    assert url == f"{server}/r/{table['code']}#s={table['secret']}"

    # The co-referee scans it: their phone can referee, and the secret left the address bar.
    requests = []
    co_referee = phone()
    co_referee.on("request", lambda request: requests.append(request.url))
    co_page = co_referee.new_page()
    co_page.goto(url)
    morto_touch(co_page, "p2")
    # Seen live by the first referee.
    expect(page.locator("[data-player=p2] .hearts")).to_have_attribute("data-lives", "2")
    assert "#" not in co_page.url
    assert not any(table["secret"] in seen for seen in requests)  # the fragment is never sent


def test_chromium_finds_the_app_installable(browser, server, tmp_path):
    """Chromium's own installability check (what makes it offer "Add to home screen") finds nothing missing.

    In a real profile, not an incognito context as the other tests use: incognito is never installable.
    """
    context = browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=CHROMIUM, args=CHROMIUM_ARGS, base_url=server, **PHONE
    )
    context.add_init_script(SKIP_WALKTHROUGH)
    try:
        page = context.new_page()
        page.goto("/")
        expect(page.locator("html")).to_have_attribute("data-sw", "ready", timeout=ENGINE_TIMEOUT_MS)
        page.reload()  # controlled by the service worker now, as an installed app's pages are
        expect(page.locator("html")).to_have_attribute("data-sw", "ready", timeout=ENGINE_TIMEOUT_MS)
        devtools = context.new_cdp_session(page)
        manifest = devtools.send("Page.getAppManifest")
        assert manifest["url"].endswith("/manifest.webmanifest") and not manifest["errors"]
        assert devtools.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
        # And with no network at all, the installed app still opens.
        context.set_offline(True)
        page.reload()
        expect(page.get_by_role("heading", name="Nouvelle table", exact=True)).to_be_visible()
    finally:
        context.close()


def test_join_a_table_by_typing_its_code(phone, server):
    table = api(server, "/api/tables", {"game": "morto", "players": ["Ana", "Ben", "Cyd"]})
    page = phone().new_page()
    phone.allow_console_error(r"status of 404 .* @ .*/(api/tables|t)/ZZZZZZ$")  # the unknown code, on purpose
    page.goto("/")
    code = page.get_by_label("Code de la table")
    code.fill("ZZZZ-ZZ")  # a code nobody uses: said on the page, in the phone's language only
    page.get_by_role("button", name="Suivre").tap()
    expect(page.locator("#join-error")).to_contain_text("Aucune table « ZZZZZZ »")
    expect(page.locator("#join-error")).not_to_contain_text("No table")
    typed = f"{table['code'][:4].lower()}-{table['code'][4:].lower()}"  # as a person types it
    code.fill(typed)
    page.get_by_role("button", name="Suivre").tap()
    expect(page).to_have_url(f"{server}/t/{table['code']}")
    expect(page.locator("[data-player=p1]")).to_contain_text("Ana")
    page.goto("/")
    expect(page.locator("#my-tables")).to_contain_text(table["display_code"])  # followed from now on
    page.goto("/t/ZZZZZZ")
    expect(page.get_by_role("heading", name="Rien ici", exact=True)).to_be_visible()
    expect(page.locator("main")).not_to_contain_text("Nothing here")
