import time
from playwright.sync_api import expect
from .test_morto import create_table, NAMES

def test_probe(phone, server, screenshot):
    ctx = phone()
    page = ctx.new_page()
    page.on("console", lambda m: print("CONSOLE", m.type, m.text))
    t = time.monotonic()
    page.goto("/")
    page.locator("a[data-game=morto]").tap()
    for i, n in enumerate(NAMES[:3]):
        page.locator("#names input[name=name]").nth(i).fill(n)
    page.get_by_role("button", name="Créer la table").tap()
    page.wait_for_url("**/r/*")
    t0 = time.monotonic()
    print("created", t0 - t)
    expect(page.locator("#sync")).to_have_attribute("data-engine", "ready", timeout=60000)
    print("engine ready", time.monotonic() - t0)
    print(page.evaluate("document.documentElement.dataset.sw"))
    t0 = time.monotonic()
    page.reload()
    expect(page.locator("#sync")).to_have_attribute("data-engine", "ready", timeout=60000)
    print("engine ready after reload", time.monotonic() - t0)
    print(page.evaluate("[innerHeight, document.documentElement.scrollHeight, getComputedStyle(document.querySelector('.dock')).height, getComputedStyle(document.querySelector('main')).paddingBottom]"))
    screenshot(page, "probe")
