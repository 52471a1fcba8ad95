"""First loads: what a phone downloads the first time it opens a referee page or a table view, and
how soon the referee's offline engine is ready on the next visit.

Run: .venv/bin/python bench/first_load.py [--rounds N] [--visits N]
                                          [--events N [--source DIR] [--instance DIR]]

Against a real `companion serve` (bench/common.py), in Debian's Chromium with a new profile for each
load (empty HTTP cache, no service worker):

- *Bytes on the wire*: every response's encoded body size (what the network carried, compressed
  when the server compressed it), the page's own requests and its service worker's alike, split
  into the shell (pages, scripts, styles, icons, catalogues, the manifest, the service worker), the
  engine bundle (/engine/bundle.json) and the Pyodide runtime (/pyodide/*). The page is left until
  its service worker says it is ready (its precache done) and, on a referee page, until the engine
  is ready. *First load* counts what the page downloads to show itself and work (and, on a referee
  page, to referee offline); the service worker's precache of the rest of the app (other pages' and
  games' modules, the pages ``/`` and ``/s``, the language's whole catalogue), which the page asks
  for only once it is loaded and idle, is counted apart as *then, idle*: its requests carry
  ``X-Arbitre-Precache: idle`` (templates/sw.js). ``--detail`` lists every response.
- *Engine ready, warm*: the referee page reloaded once everything is cached, the time from the
  engine worker's creation to its first answer (``#sync[data-engine-ms]``, from static/js/sync.js),
  and of that the Pyodide runtime's own start (``data-runtime-ms``); also when the page was
  usable (its players drawn from the server's answer) counted from the navigation's start.
- *A long table* (``--events N``, Il Morto): the table is built with N events in effect before the
  server starts (written through the app's own store in this process, like bench/history.py, the
  build's durability relaxed), then the same loads: what the page's ``/log`` requests carried on its
  first visit (encoded bytes, and how many), and when the players were drawn (counted from the
  navigation's start) on first visits (``--visits N``, each a new phone: the time of any table's
  first visit, measured on a new table too) and on each warm reload. ``--source DIR`` serves
  the app from another checkout of it (``PYTHONPATH``: e.g. ``git archive <commit> | tar -x -C DIR``),
  the same table in the same run's conditions: a before and an after on one machine. ``--instance
  DIR`` builds the table in that folder and keeps it, or opens the one already built there (the
  loads only read it): one build for both.
- *Floors*, in the same run and the same browser: the bytes and load time of a bare static file of
  the same server (/static/icons/icon.svg), and a bare ``loadPyodide()`` in a module worker from the
  same cached runtime, with nothing imported (the least an engine on Pyodide can cost): with
  Pyodide's own standard library (sources, compiled at every start), and with the app's (the bytecode
  the bundle names, ``stdlib``: what the engine worker starts with).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the app's ``engine``, not bench/engine.py

from common import CHROMIUM, CHROMIUM_ARGS, call, serving, summary  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

PLAYERS = ["Alice", "Bruno", "Chloé", "Dario", "Emma", "Farid", "Gina", "Hugo"]
# The table each run opens (``--game``): its setup as POST /api/tables takes it.
TABLES = {
    "morto": {"game": "morto", "players": PLAYERS, "options": {"lives": 9}},
    "existentiel": {
        "game": "existentiel",
        "players": [{"name": name, "birth_month": 1 + n} for n, name in enumerate(PLAYERS[:4])],
    },
    "gjdlv": {"game": "gjdlv", "players": PLAYERS[:4]},
    "gjdlv-tracker": {"game": "gjdlv", "players": PLAYERS[:4], "options": {"mode": "tracker"}},
}
# The referee page is usable once its first player is drawn: their buttons (`data-player`), or, on a
# table played through card by card, their seat (`data-sheet`): before the deal no button names them.
# Either is drawn in the same redraw as the rest of the players.
USABLE = "[data-player=p1], [data-sheet=p1]"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "locale": "fr-FR"}
SKIP_WALKTHROUGH = "try { localStorage.setItem('arbitre.walkthrough', 'done'); } catch {}"

# A module worker (a blob: the CSP is bypassed for this floor only) that loads the same runtime.
BARE_PYODIDE = """async ([base, stdlib]) => {
  const options = stdlib ? `, stdLibURL: "${base}${stdlib}"` : "";
  const source = `import { loadPyodide } from "${base}/pyodide/pyodide.mjs";
    const t0 = performance.now();
    await loadPyodide({ indexURL: "${base}/pyodide/"${options} });
    postMessage(performance.now() - t0);`;
  const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
  const worker = new Worker(url, { type: "module" });
  return await new Promise((resolve, reject) => {
    worker.onmessage = ({ data }) => { worker.terminate(); resolve(data); };
    worker.onerror = (e) => reject(new Error(e.message));
  });
}"""


def kind(url: str) -> str:
    path = url.split("://", 1)[1].split("/", 1)[1] if "://" in url else url
    path = "/" + path.split("?", 1)[0]
    if path.startswith("/pyodide/"):
        return "runtime"
    if path.startswith("/engine/bundle.json"):
        return "bundle"
    return "shell"


class Wire:
    """Encoded bytes of every response the network carried for one browser context."""

    def __init__(self, context):
        self.rows: list[tuple[str, int, bool]] = []
        self.decoded: dict[str, int] = {}  # the table's log answers, decoded: their JSON's length
        context.on("requestfinished", self.finished)

    def finished(self, request) -> None:
        response = request.response()
        if response is None or response.from_service_worker:
            return  # answered from the service worker's cache: nothing on the wire
        size = 0 if response.status == 304 else request.sizes()["responseBodySize"]
        if size == 0 and response.status == 200:  # Chromium reports 0 for a service worker's script
            size = int(response.headers.get("content-length") or 0)
        idle = request.headers.get("x-arbitre-precache") == "idle"
        self.rows.append((request.url, max(size, 0), idle))  # negative: answered by the HTTP cache
        if "/log" in request.url.split("?", 1)[0]:
            self.decoded[request.url] = len(response.body())

    def by_kind(self) -> dict[str, int]:
        totals = {"shell": 0, "bundle": 0, "runtime": 0, "idle": 0}
        for url, size, idle in self.rows:
            totals["idle" if idle else kind(url)] += size
        return totals

    def runtime_requests(self) -> list[str]:
        return [url for url, _, _ in self.rows if kind(url) == "runtime"]

    def logs(self) -> list[tuple[str, int, int]]:
        """The table's log as the page asked for it: (URL, encoded bytes, decoded bytes) of each
        ``/log`` answer."""
        return [(url, size, self.decoded[url]) for url, size, _ in self.rows if url in self.decoded]

    def detail(self) -> str:
        return "\n".join(
            f"    {'idle ' if idle else 'load '}{size / 1024:7.1f} KB  {url.split('/', 3)[-1]}"
            for url, size, idle in sorted(self.rows, key=lambda row: (row[2], -row[1]))
        )


def first_load(browser, base: str, path: str, referee: bool) -> tuple[dict, Wire]:
    context = browser.new_context(base_url=base, **PHONE)
    context.add_init_script(SKIP_WALKTHROUGH)
    wire = Wire(context)
    page = context.new_page()
    page.goto(path, wait_until="commit")
    if referee:
        page.wait_for_selector(USABLE, state="attached", timeout=120_000)
        wire.usable_ms = page.evaluate("performance.now()")
    page.wait_for_selector("html[data-sw=ready]", state="attached", timeout=120_000)
    if referee:
        page.wait_for_selector("#sync[data-engine-ms]", state="attached", timeout=120_000)
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(500)
    totals = wire.by_kind()
    context.close()
    return totals, wire


def warm_start(browser, base: str, path: str, rounds: int) -> tuple[list, list, list, list]:
    """One profile: the first visit installs everything, then ``rounds`` reloads are timed."""
    context = browser.new_context(base_url=base, bypass_csp=True, **PHONE)
    context.add_init_script(SKIP_WALKTHROUGH)
    page = context.new_page()
    page.goto(path)
    page.wait_for_selector("html[data-sw=ready]", state="attached", timeout=120_000)
    page.wait_for_selector("#sync[data-engine-ms]", state="attached", timeout=120_000)
    engine, runtime, usable, bare, stages = [], [], [], [], []
    for _ in range(rounds):
        page.reload(wait_until="commit")
        page.wait_for_selector(USABLE, state="attached", timeout=60_000)
        usable.append(page.evaluate("performance.now()"))
        page.wait_for_selector("#sync[data-engine-ms]", state="attached", timeout=120_000)
        engine.append(float(page.get_attribute("#sync", "data-engine-ms")))
        runtime.append(float(page.get_attribute("#sync", "data-runtime-ms")))
        stages.append(page.evaluate("performance.getEntriesByName('arbitre:engine-ready')[0]?.detail || {}"))
        stdlib = page.evaluate("fetch('/engine/bundle.json').then((response) => response.json())")["stdlib"]
        bare.append(
            {
                "stock": page.evaluate(BARE_PYODIDE, [base, None]),
                "app": page.evaluate(BARE_PYODIDE, [base, stdlib]),
            }
        )
    context.close()
    return engine, runtime, usable, bare, stages


def floor_load(browser, base: str) -> tuple[int, float]:
    context = browser.new_context(base_url=base, **PHONE)
    wire = Wire(context)
    page = context.new_page()
    page.goto("/static/icons/icon.svg")
    ms = page.evaluate("performance.getEntriesByType('navigation')[0].duration")
    page.wait_for_timeout(200)
    context.close()
    return sum(size for _, size, _ in wire.rows), ms


def kb(n: int) -> str:
    return f"{n / 1024:7.1f} KB"


def long_table(folder: str, events: int) -> dict:
    """An Il Morto table with ``events`` events in effect in the database of instance ``folder``, written
    through the app's store before the server starts: Bruno and Chloé die, then the dead pass a life
    back and forth (each word to the dead revives one and kills the other), a game that never ends."""
    from sqlalchemy import event as sa_event
    from sqlalchemy.engine import Engine

    from companion import create_app
    from companion.cli import upgrade_database
    from companion.storage import store

    def fast(dbapi_connection, _record) -> None:  # after the app's pragmas: the build need not be durable
        dbapi_connection.execute("PRAGMA synchronous=OFF")

    os.environ["ARBITRE_INSTANCE"] = folder
    sa_event.listen(Engine, "connect", fast)
    app = create_app({"RATELIMIT_ENABLED": False})
    upgrade_database(app)
    started = time.perf_counter()
    with app.app_context():
        table, secret = store.create_table("morto", PLAYERS, {"lives": 9})
        taps = [{"type": "touched_early", "player": p} for p in ["p2"] * 9 + ["p3"] * 9]
        taps.append({"type": "spoke_to_dead", "living": "p4", "dead": "p2"})
        speaker, listener = "p2", "p3"
        version = 0
        for number in range(events):
            if number < len(taps):
                tap = taps[number]
            else:
                tap = {"type": "spoke_to_dead", "living": speaker, "dead": listener}
                speaker, listener = listener, speaker
            version = store.append_event(table.id, {"id": f"e{number}", "version": version, **tap})["version"]
        code = table.code
        for engine in app.extensions["sqlalchemy"].engines.values():
            engine.dispose()
    sa_event.remove(Engine, "connect", fast)
    del os.environ["ARBITRE_INSTANCE"]
    print(f"built a table of {events} events in {time.perf_counter() - started:.0f} s", flush=True)
    return {"code": code, "secret": secret}


@contextlib.contextmanager
def app_serving(events: int, source: str | None, kept: str | None):
    """The server, and the table to open: a new one, or (``events``) one built beforehand, in the
    instance folder ``kept`` if given (and opened again from there if it holds one of that size)."""
    env = {"PYTHONPATH": source} if source else None
    with contextlib.ExitStack() as stack:
        if source:  # `companion serve` execs `python -c`, whose path starts with the working folder
            stack.enter_context(contextlib.chdir(source))
        table = None
        instance = None
        if events:
            instance = kept or stack.enter_context(tempfile.TemporaryDirectory())
            built = Path(instance) / "first_load_table.json"
            table = json.loads(built.read_text()) if built.exists() else {}
            if table.get("events") != events:
                Path(instance).mkdir(parents=True, exist_ok=True)
                table = {**long_table(instance, events), "events": events}
                built.write_text(json.dumps(table))
        base, _process = stack.enter_context(serving(env, instance=instance))
        yield base, table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5, help="warm starts to time")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--detail", action="store_true", help="list every response of the first loads")
    parser.add_argument("--game", choices=sorted(TABLES), default="morto", help="the table opened (Il Morto)")
    parser.add_argument("--events", type=int, default=0, help="open an Il Morto table of this many events")
    parser.add_argument(
        "--source", help="serve the app from this checkout of it (a before, on the same table)"
    )
    parser.add_argument(
        "--instance", help="build the long table in this folder and keep it, or open it again"
    )
    parser.add_argument("--visits", type=int, default=1, help="first visits of the referee page to time")
    args = parser.parse_args()
    with (
        app_serving(args.events, args.source, args.instance) as (base, built),
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        table = built or call(base, "/api/tables", TABLES[args.game])
        referee_path = f"/r/{table['code']}#s={table['secret']}"
        floor_bytes, floor_ms = floor_load(browser, base)
        referee, referee_wire = first_load(browser, base, referee_path, referee=True)
        # More first visits, each a new phone, for the time the players take to be drawn.
        visits = [referee_wire] + [
            first_load(browser, base, referee_path, referee=True)[1] for _ in range(args.visits - 1)
        ]
        follower, follower_wire = first_load(browser, base, f"/t/{table['code']}", referee=False)
        engine, runtime, usable, bare, stages = warm_start(browser, base, referee_path, args.rounds)
        browser.close()
    print(
        f"floor: a bare static file (/static/icons/icon.svg): {kb(floor_bytes)}, loaded in {floor_ms:.1f} ms"
    )
    for name, totals, wire in (
        ("referee page (/r/<code>)", referee, referee_wire),
        ("table view (/t/<code>)", follower, follower_wire),
    ):
        print(
            f"first load, {name:<26} shell {kb(totals['shell'])}   engine bundle {kb(totals['bundle'])}"
            f"   Pyodide runtime {kb(totals['runtime'])}"
        )
        print(f"  then, once loaded and idle, the rest of the app (precache): {kb(totals['idle'])}")
        if args.detail:
            print(wire.detail())
    print(f"table view: requests to /pyodide/: {len(follower_wire.runtime_requests())}")
    logs = referee_wire.logs()
    print(
        f"referee page, first visit: /log answers {len(logs)}, {kb(sum(size for _, size, _ in logs))}"
        f" on the wire, {kb(sum(decoded for _, _, decoded in logs))} of JSON"
        + "".join(
            f"\n    {kb(size)} ({kb(decoded)} of JSON)  {url.split('/api/', 1)[-1]}"
            for url, size, decoded in logs
        )
    )
    print(summary("page usable (players drawn), first visit", [wire.usable_ms for wire in visits]))
    print(summary("engine ready after a warm start", engine))
    print(summary("  of which Pyodide runtime", runtime))
    for stage in ("bundle", "files", "imports", "warm"):
        values = [row[stage] for row in stages if stage in row]
        if values:
            print(summary(f"  of which {stage}", values))
    print(summary("floor: bare loadPyodide(), warm", [row["stock"] for row in bare]))
    print(summary("floor: bare loadPyodide(), app stdlib, warm", [row["app"] for row in bare]))
    print(summary("page usable (players drawn), warm", usable))
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "floor_bytes": floor_bytes,
                    "floor_ms": floor_ms,
                    "referee": referee,
                    "follower": follower,
                    "follower_runtime_requests": follower_wire.runtime_requests(),
                    "engine_ms": statistics.median(engine),
                    "runtime_ms": statistics.median(runtime),
                    "bare_pyodide_ms": statistics.median(row["stock"] for row in bare),
                    "bare_pyodide_app_stdlib_ms": statistics.median(row["app"] for row in bare),
                    "usable_ms": statistics.median(usable),
                    "first_usable_ms": statistics.median(wire.usable_ms for wire in visits),
                    "log_bytes": sum(size for _, size, _ in logs),
                    "log_json_bytes": sum(decoded for _, _, decoded in logs),
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
