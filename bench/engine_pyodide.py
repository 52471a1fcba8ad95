"""The rules engine in Pyodide in Chromium: apply one event, per game, as bench/engine.py measures it.

Run: .venv/bin/python bench/engine_pyodide.py [--runs N]
Starts `companion serve`, opens its home page in Debian's Chromium (Playwright), loads Pyodide from
the app's own ``/pyodide/`` and writes the engine bundle (``/engine/bundle.json``) into its file
system the way ``static/js/engine-worker.js`` does, then runs bench/engine.py's own code there: the
same seeded logs, the same per-event timing (``time.perf_counter_ns`` inside Python), the same three
ways (in place as the server's write, ``core.apply`` with its pickled copy, and the old deepcopy).
Pyodide runs on the page's main thread here, not in the worker: the same wasm CPython, timed alone.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CHROMIUM, CHROMIUM_ARGS, ROOT, server  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

APP_DIR = "/home/pyodide/arbitre"

RUN = """async ([appDir, benchSource, runs, rounds, batch]) => {
  const { loadPyodide } = await import("/pyodide/pyodide.mjs");
  const pyodide = await loadPyodide({ indexURL: "/pyodide/" });
  const bundle = await (await fetch("/engine/bundle.json")).json();
  for (const [path, source] of Object.entries(bundle.files)) {
    const file = `${appDir}/${path}`;
    pyodide.FS.mkdirTree(file.slice(0, file.lastIndexOf("/")));
    pyodide.FS.writeFile(file, source);
  }
  // bench/engine.py under another name: a module called "engine" would hide the engine package.
  pyodide.FS.mkdirTree(`${appDir}/bench`);
  pyodide.FS.writeFile(`${appDir}/bench/engine_bench.py`, benchSource);
  pyodide.runPython(`import sys\\nsys.path.insert(0, "${appDir}")\\nsys.path.insert(0, "${appDir}/bench")`);
  const out = [];
  for (let run = 0; run < runs; run++) {
    const table = `engine_bench.apply_table(engine_bench.logs(), ${rounds}, ${batch})`;
    out.push(pyodide.runPython(`import engine_bench\\nchr(10).join(${table})`));
  }
  const python = pyodide.runPython("import sys; sys.version.split()[0]");
  return { version: pyodide.version, python, runs: out };
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=1, help="runs of the whole table in one page")
    # The page's clock is coarse (performance.now() in a page that is not cross-origin isolated
    # moves by 100 µs): a batch must last milliseconds for its mean to be exact to a few per cent.
    parser.add_argument("--rounds", type=int, default=3, help="batches per event and way (the best counts)")
    parser.add_argument("--batch", type=int, default=100, help="applies per batch")
    args = parser.parse_args()
    source = (ROOT / "bench" / "engine.py").read_text()
    with server() as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.set_default_timeout(600_000)
        page.goto(base + "/")
        result = page.evaluate(RUN, [APP_DIR, source, args.runs, args.rounds, args.batch])
        chromium = browser.version
        browser.close()
    print(f"Pyodide {result['version']} (Python {result['python']}) in Chromium {chromium}")
    for number, table in enumerate(result["runs"], 1):
        print(
            f"apply one event, µs per event of the log (median and p95 over its events; best of "
            f"{args.rounds} batches of {args.batch}), run {number}"
        )
        print(table)


if __name__ == "__main__":
    main()
