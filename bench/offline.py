"""The engine in the browser: worker start-up (cold and warm) and the time from a tap to the screen offline.

Run: .venv/bin/python bench/offline.py [--rounds N]
Cold: a new browser profile (empty HTTP and service-worker caches) opens a referee page; the time is
from the worker's creation to its first answer (Pyodide loaded, engine imported). Warm: the same
page reloaded once the service worker has precached everything. Tap to screen: with the network cut,
a tap on "touched before the knock" until the lives on screen change (a MutationObserver), so it
includes the engine's projection in the worker, the IndexedDB outbox write and the redraw.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CHROMIUM, CHROMIUM_ARGS, call, server, summary  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

PLAYERS = ["Alice", "Bruno", "Chloé", "Dario", "Emma", "Farid", "Gina", "Hugo"]

TAP_TO_SCREEN = """async ([player]) => {
  const hearts = document.querySelector(`[data-player=${player}] .hearts`);
  const before = hearts.dataset.lives;
  const start = performance.now();
  const changed = new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      const now = document.querySelector(`[data-player=${player}] .hearts`);
      if (now && now.dataset.lives !== before) { observer.disconnect(); resolve(performance.now() - start); }
    });
    observer.observe(document.getElementById("app"), { subtree: true, childList: true, attributes: true });
  });
  document.querySelector(`[data-player=${player}] [data-action=touched_early]`).click();
  return await changed;
}"""


def engine_ms(page, runtime: list | None = None) -> float:
    page.wait_for_selector("#sync[data-engine-ms]", timeout=120_000)
    if runtime is not None:
        runtime.append(float(page.get_attribute("#sync", "data-runtime-ms")))
    return float(page.get_attribute("#sync", "data-engine-ms"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5, help="cold and warm start-ups to measure")
    parser.add_argument("--taps", type=int, default=40, help="offline taps to time")
    args = parser.parse_args()
    cold, warm, taps, cold_runtime, warm_runtime = [], [], [], [], []
    with server() as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _ in range(args.rounds):
            table = call(base, "/api/tables", {"game": "morto", "players": PLAYERS, "options": {"lives": 9}})
            context = browser.new_context(viewport={"width": 390, "height": 844})
            page = context.new_page()
            page.goto(f"{base}/r/{table['code']}#s={table['secret']}")
            cold.append(engine_ms(page, cold_runtime))
            page.wait_for_function("document.documentElement.dataset.sw === 'ready'")
            page.reload()
            warm.append(engine_ms(page, warm_runtime))
            context.close()
        table = call(base, "/api/tables", {"game": "morto", "players": PLAYERS, "options": {"lives": 9}})
        context = browser.new_context(viewport={"width": 390, "height": 844})
        page = context.new_page()
        page.goto(f"{base}/r/{table['code']}#s={table['secret']}")
        engine_ms(page)
        context.set_offline(True)
        players = [f"p{i}" for i in range(2, len(PLAYERS) + 1)]  # p1 deals: the dealer may touch
        for i in range(args.taps):
            player = players[i % len(players)]
            if page.locator(f"[data-player={player}] [data-action=touched_early]").count():
                taps.append(page.evaluate(TAP_TO_SCREEN, [player]))
        waiting = page.get_attribute("#sync", "data-waiting")
        context.close()
        browser.close()
    print(summary("engine worker start-up, cold", cold))
    print(summary("  of which Pyodide runtime, cold", cold_runtime))
    print(summary("engine worker start-up, warm (precached)", warm))
    print(summary("  of which Pyodide runtime, warm", warm_runtime))
    print(summary("tap to screen, offline", taps))
    print(f"offline taps waiting in the outbox at the end: {waiting}")
    ratio = sorted(cold)[len(cold) // 2] / sorted(warm)[len(warm) // 2]
    print(f"ratio cold/warm start-up (median): {ratio:.2f}")


if __name__ == "__main__":
    main()
