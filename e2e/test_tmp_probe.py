from playwright.sync_api import expect
from .test_morto import *

def test_probe_fallback(phone, server):
    ctx = phone()
    phone.allow_console_error(PYODIDE_CONSOLE)
    phone.allow_console_error(CUT_STREAM_CONSOLE)
    ctx.route("**/pyodide/**", lambda route: route.abort())
    referee = ctx.new_page()
    code = create_table(referee, NAMES, lives=3, dealer="Chiara")
    referee_ready(referee, engine="failed")
    # 5 Asso with the server checking
    pick_ranks(referee, {DARIO: ASSO, ELENA: ASSO, FABIO: ASSO, ADA: ASSO, BRUNO: ASSO, CHIARA: RE})
    tap(referee.locator("#confirm-reveal"))
    expect(referee.locator("#toast")).to_be_visible()
    print("TOAST", referee.locator("#toast").inner_text())
    print("REJECTED", referee.locator("#rejected").inner_text())
    print("PRESSED", referee.locator("[data-rank][aria-pressed=true]").count())
    # stale tab in fallback mode
    stale = ctx.new_page()
    stale.route("**/api/tables/*/stream", lambda route: route.abort())
    stale.goto(f"/r/{code}")
    referee_ready(stale, engine="failed")
    touch(referee, DARIO)
    expect_lives([referee], {DARIO: 2})
    touch(stale, FABIO)
    expect_lives([referee], {FABIO: 2})
    expect_synced(stale)
    print("STALE after rebase: Dario", stale.locator(f"[data-player={DARIO}] .hearts").get_attribute("data-lives"),
          "Fabio", stale.locator(f"[data-player={FABIO}] .hearts").get_attribute("data-lives"))
