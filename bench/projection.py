"""The referee phone's projection against the log's length: 10 to 100,000 events, in CPython and in Pyodide.

Run: .venv/bin/python bench/projection.py [--sizes 10,100,...] [--rounds N] [--no-browser]
What the engine worker (worker/jsonio.py) does for one tap, JSON in and out included, on an Il Morto
log of N events in effect (12 players, 9 lives; generated with the engine, no HTTP): ``project`` with
one waiting tap; ``base_move`` by one event (an acknowledged tap) and back by one (an acknowledged
undo); ``project`` with an undo waiting, which reaches into the log (cold: rebuilt from the checkpoint
before; warm: the next tap's projection, the rebuilt state kept); ``base_set`` (the whole log, once per
page load). "former": the worker before the log moved into it, kept here as it was: every tap sent
the whole log and replayed it from the setup. Also the size of each message to the worker, and in
Chromium the IndexedDB write per acknowledged tap (former: the whole base rewritten; now: one row).
Each time is the mean of a batch lasting at least --batch-ms (best of --rounds batches). Pyodide runs
on a page's main thread (the same wasm CPython as the worker, timed alone), loaded from the app's own
/pyodide/ and /engine/bundle.json, served by a real ``companion serve`` (bench/common.py).
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import core  # noqa: E402
from engine.core import RuleError  # noqa: E402
from engine.messages import refusal  # noqa: E402
from worker import jsonio  # noqa: E402

GAME, CODE = "morto", "BENCH1"
PLAYERS = [f"Joueur·euse {i}" for i in range(12)]
OPTIONS = {"lives": 9}
TAP = {"type": "touched_early", "player": "p5"}
SIZES = [10, 100, 1_000, 10_000, 100_000]
APPENDS = 256  # acknowledged taps in a row, timed together


def long_log(length: int) -> list[dict]:
    """A legal log of ``length`` events in effect: two players touch until they die, a third speaks to
    one of them (a life back), then those two pass a life back and forth by speaking to the dead."""
    events = [{"type": "touched_early", "player": p} for p in ["p2"] * 9 + ["p3"] * 9]
    events.append({"type": "spoke_to_dead", "living": "p4", "dead": "p2"})
    speaker, listener = "p2", "p3"
    while len(events) < length:
        events.append({"type": "spoke_to_dead", "living": speaker, "dead": listener})
        speaker, listener = listener, speaker
    return events[:length]


def former_project(request: dict) -> dict:
    """worker/jsonio.py's project before the log lived in the worker (every tap: the whole log)."""
    game_id = request["game"]
    module = core.game(game_id)
    active = list(request["events"])
    state = core.replay(game_id, request["players"], request["options"], active)
    results = []
    for op in request.get("pending", []):
        try:
            if op.get("kind") == "undo":
                state = core.undo(game_id, request["players"], request["options"], active)
                active.pop()
            else:
                candidate = copy.deepcopy(state)
                core.apply_in_place(module, candidate, op["event"])
                state = candidate
                active.append(op["event"])
            results.append({"ok": True})
        except RuleError as error:
            results.append({"ok": False, "error": refusal(error.code, error.params)})
    return {"state": core.view(game_id, state), "pending": results, "active": len(active)}


def size(message: dict) -> int:
    return len(json.dumps(message, ensure_ascii=False).encode())


def timed(work, batch_ms: float, rounds: int) -> float:
    """Milliseconds per call: the mean of a batch lasting at least ``batch_ms``, best of ``rounds``."""
    best = float("inf")
    for _ in range(rounds):
        calls, start = 0, time.perf_counter()
        while True:
            work()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed * 1e3 >= batch_ms:
                break
        best = min(best, elapsed * 1e3 / calls)
    return best


def measure(sizes: list[int], batch_ms: float = 20, rounds: int = 3) -> list[dict]:
    """One row per log length: milliseconds per operation and bytes per message."""
    return [measure_one(length, batch_ms, rounds) for length in sizes]


def measure_one(length: int, batch_ms: float, rounds: int) -> dict:
    handle = jsonio.handle
    events = long_log(length)
    setup = {"code": CODE, "game": GAME, "players": PLAYERS, "options": OPTIONS, "events": events}
    whole = json.dumps({"op": "base_set", "version": length, **setup}, ensure_ascii=False)
    row = {"events": length, "base_set": timed(lambda: handle(whole), batch_ms, 1)}
    handle(whole)

    tap = {"op": "project", "code": CODE, "version": length, "pending": [{"kind": "event", "event": TAP}]}
    tap_json = json.dumps(tap)
    row["project"] = timed(lambda: handle(tap_json), batch_ms, rounds)
    answer = json.loads(handle(tap_json))
    # The tap just made comes back with its meaning and words, which the page keeps with it.
    assert [(result["ok"], "meaning" in result) for result in answer["pending"]] == [(True, True)]

    former = {"op": "project", **setup, "pending": tap["pending"]}
    former_json = json.dumps(former, ensure_ascii=False)
    row["former"] = timed(
        lambda: json.dumps(former_project(json.loads(former_json)), ensure_ascii=False), batch_ms, rounds
    )
    projected = json.loads(json.dumps(former_project(former), ensure_ascii=False))
    assert (projected["state"], projected["active"]) == (answer["state"], answer["active"])

    undo = json.dumps({"op": "project", "code": CODE, "version": length, "pending": [{"kind": "undo"}]})

    def cold_undo():
        jsonio._base._earlier = None  # as at the first projection after the base moved
        handle(undo)

    row["undo_cold"] = timed(cold_undo, batch_ms, rounds)
    row["undo_warm"] = timed(lambda: handle(undo), batch_ms, rounds)
    row["undo_replays"] = (length - 1) % jsonio.CHECKPOINT_EVERY if length else 0

    # An acknowledged tap moves the base by one event (``appends`` in a row, then back untimed);
    # an acknowledged undo takes one back: one append and one truncation, minus the append.
    continuation = long_log(length + APPENDS)[length:]
    version = [length]

    def move(keep: int, added: list) -> None:
        handle(
            json.dumps(
                {
                    "op": "base_move",
                    "code": CODE,
                    "since": version[0],
                    "keep": keep,
                    "events": added,
                    "version": version[0] + 1,
                }
            )
        )
        version[0] += 1

    def appends() -> float:
        start = time.perf_counter()
        for offset, event in enumerate(continuation):
            move(length + offset, [event])
        elapsed = time.perf_counter() - start
        move(length, [])
        return elapsed * 1e3 / len(continuation)

    def append_and_undo() -> None:
        move(length, continuation[:1])
        jsonio._base._earlier = None  # cold: the undo was not projected on this phone first
        move(length, [])

    row["move_tap"] = min(appends() for _ in range(rounds))
    row["move_undo"] = timed(append_and_undo, batch_ms, rounds) - row["move_tap"]

    row["bytes_former"] = size(former)
    row["bytes_project"] = len(tap_json.encode())
    row["bytes_move"] = size(
        {
            "op": "base_move",
            "code": CODE,
            "since": length,
            "keep": length,
            "events": [TAP],
            "version": length + 1,
        }
    )
    row["bytes_answer"] = len(handle(tap_json).encode())
    row["bytes_set"] = len(whole.encode())
    row["checkpoint_kb"] = sum(map(len, jsonio._base.checkpoints)) / 1024
    return row


COLUMNS = [  # key, heading, unit
    ("former", "former tap", "ms"),
    ("project", "project 1 tap", "ms"),
    ("move_tap", "base_move +1", "ms"),
    ("move_undo", "base_move −1, cold", "ms"),
    ("undo_cold", "undo waiting, cold", "ms"),
    ("undo_warm", "undo waiting, warm", "ms"),
    ("base_set", "base_set (once)", "ms"),
]


def table(rows: list[dict]) -> str:
    """Markdown: each time with its ratio to the floor (the first size), then the message sizes."""
    floor = rows[0]
    lines = [
        "| events | " + " | ".join(heading for _, heading, _ in COLUMNS) + " |",
        "|---:|" + "---:|" * len(COLUMNS),
    ]
    for row in rows:
        cells = [f"{row[key]:.3f} ms ({row[key] / floor[key]:.1f}×)" for key, _, _ in COLUMNS]
        lines.append(f"| {row['events']:,} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "| events | former tap → worker | project 1 tap → worker | base_move +1 → worker | "
        "answer (the view) | base_set (once) | undo waiting: events replayed | checkpoints |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['events']:,} | {row['bytes_former']:,} B | {row['bytes_project']:,} B | "
            f"{row['bytes_move']:,} B | {row['bytes_answer']:,} B | {row['bytes_set']:,} B | "
            f"{row['undo_replays']} | {row['checkpoint_kb']:.1f} KiB |"
        )
    return "\n".join(lines)


APP_DIR = "/home/pyodide/arbitre"

RUN = """async ([appDir, benchSource, sizes, batchMs, rounds]) => {
  const { loadPyodide } = await import("/pyodide/pyodide.mjs");
  const pyodide = await loadPyodide({ indexURL: "/pyodide/" });
  const bundle = await (await fetch("/engine/bundle.json")).json();
  for (const [path, source] of Object.entries(bundle.files)) {
    const file = `${appDir}/${path}`;
    pyodide.FS.mkdirTree(file.slice(0, file.lastIndexOf("/")));
    pyodide.FS.writeFile(file, source);
  }
  pyodide.FS.mkdirTree(`${appDir}/bench`);
  pyodide.FS.writeFile(`${appDir}/bench/projection_bench.py`, benchSource);
  pyodide.runPython(`import sys\\nsys.path.insert(0, "${appDir}")\\nsys.path.insert(0, "${appDir}/bench")`);
  const call = `projection_bench.measure(${JSON.stringify(sizes)}, ${batchMs}, ${rounds})`;
  const rows = pyodide.runPython(`import json, projection_bench\\njson.dumps(${call})`);
  const python = pyodide.runPython("import sys; sys.version.split()[0]");
  return { version: pyodide.version, python, rows: JSON.parse(rows) };
}"""


# IndexedDB per acknowledged tap, in the same page: the former layout (the whole base in one row,
# rewritten at every acknowledged tap) against static/js/outbox.js's (one row per event).
STORAGE = """async ([sizes, rounds, players, options, tap]) => {
  const box = await import("/static/js/outbox.js");
  const former = await new Promise((resolve, reject) => {
    const request = indexedDB.open("bench-former", 1);
    request.onupgradeneeded = () => request.result.createObjectStore("bases", { keyPath: "code" });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const putWhole = (base) => new Promise((resolve, reject) => {
    const tx = former.transaction("bases", "readwrite");
    tx.objectStore("bases").put({ ...base, savedAt: Date.now() });
    tx.oncomplete = resolve;
    tx.onerror = () => reject(tx.error);
  });
  const logOf = (length) => {  // bench/projection.py's long_log
    const events = [...Array(9).fill("p2"), ...Array(9).fill("p3")]
      .map((player) => ({ type: "touched_early", player }));
    events.push({ type: "spoke_to_dead", living: "p4", dead: "p2" });
    let [speaker, listener] = ["p2", "p3"];
    while (events.length < length) {
      events.push({ type: "spoke_to_dead", living: speaker, dead: listener });
      [speaker, listener] = [listener, speaker];
    }
    return events.slice(0, length);
  };
  const timed = async (work) => {
    const start = performance.now();
    await work();
    return performance.now() - start;
  };
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const rows = [];
  for (const length of sizes) {
    const base = { code: `BENCH${length}`, game: "morto", players, options, version: length,
                   events: logOf(length) };
    const whole = [];
    const ack = [];
    const undo = [];
    for (let round = 0; round < rounds; round++) {
      base.events.push(tap);
      whole.push(await timed(() => putWhole(base)));
      base.events.pop();
    }
    const saveBase = await timed(() => box.saveBase(base));
    for (let round = 0; round < rounds; round++) {
      const tapped = await box.push(base.code, { kind: "event", id: `t${round}`, event: tap });
      base.events.push(tap);
      base.version += 1;
      ack.push(await timed(() => box.acknowledge(base, length, tapped.seq)));
      const undone = await box.push(base.code, { kind: "undo", id: `u${round}` });
      base.events.pop();
      base.version += 1;
      undo.push(await timed(() => box.acknowledge(base, length, undone.seq)));
    }
    const loadBase = await timed(() => box.loadBase(base.code));
    rows.push({ events: length, whole: median(whole), ack: median(ack), undo: median(undo),
                saveBase, loadBase });
  }
  return rows;
}"""


def storage_table(rows: list[dict]) -> str:
    lines = [
        "| events | former: whole base per ack | now: ack of a tap | now: ack of an undo | "
        "saveBase (whole, first load) | loadBase (page load) |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['events']:,} | {row['whole']:.1f} ms | {row['ack']:.1f} ms | "
            f"{row['undo']:.1f} ms | {row['saveBase']:.1f} ms | {row['loadBase']:.1f} ms |"
        )
    return "\n".join(lines)


def in_pyodide(sizes: list[int], batch_ms: float, rounds: int) -> tuple[str, list[dict], list[dict]]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import CHROMIUM, CHROMIUM_ARGS, server
    from playwright.sync_api import sync_playwright

    source = Path(__file__).read_text()
    with server() as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.set_default_timeout(1_800_000)
        page.goto(base + "/")
        result = page.evaluate(RUN, [APP_DIR, source, sizes, batch_ms, rounds])
        storage = page.evaluate(STORAGE, [sizes, max(rounds, 9), PLAYERS, OPTIONS, TAP])
        chromium = browser.version
        browser.close()
    label = f"Pyodide {result['version']} (Python {result['python']}) in Chromium {chromium}"
    return label, result["rows"], storage


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="log lengths, comma-separated")
    parser.add_argument("--rounds", type=int, default=3, help="batches per measure (the best counts)")
    # In a page the clock moves by 100 µs (performance.now() when not cross-origin isolated): a
    # batch lasting tens of milliseconds makes its mean exact to a few per cent.
    parser.add_argument("--batch-ms", type=float, default=50, help="the least time a batch lasts")
    parser.add_argument("--no-browser", action="store_true", help="CPython only")
    args = parser.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    print(f"checkpoint every {jsonio.CHECKPOINT_EVERY} events; Il Morto, {len(PLAYERS)} players, {OPTIONS}")
    print(f"\nCPython {sys.version.split()[0]}\n")
    print(table(measure(sizes, args.batch_ms, args.rounds)))
    if not args.no_browser:
        label, rows, storage = in_pyodide(sizes, args.batch_ms, args.rounds)
        print(f"\n{label}\n")
        print(table(rows))
        print("\nIndexedDB per acknowledged tap (median), Chromium\n")
        print(storage_table(storage))


if __name__ == "__main__":
    main()
