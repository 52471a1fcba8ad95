"""The rules engine in CPython: apply one event as the server does (in place), replay a log, undo.

Run: .venv/bin/python bench/engine.py
Logs are real games played by a seeded script: Il Morto with 12 players and 9 lives, Le jeu
existentiel with 7 players over many cycles, GJDLV with 4 players over 9 full rounds, kept on the score
sheet (``gjdlv``) and played through card by card (``gjdlv/play``: every play chosen among
``state.actions`` with a card among those ``play.choices`` offers, answers included).

The first table is one apply per event of each log, median and p95 over its events: *in place* as
the server's write does it (``core.game`` then ``core.apply_in_place``, on the snapshot it has just
read), *core.apply* (a copy by pickle first, for callers that keep their state), and *deepcopy* the
way ``core.apply`` used to do it (``copy.deepcopy`` then the same apply), all in the same run. Each
event's figure is the best of ``ROUNDS`` batches of ``BATCH`` applies, each to its own copy of the
state before it. The second table: replay, undo and the view every answer carries.
The same timing runs in Pyodide (bench/engine_pyodide.py imports this file).
"""

from __future__ import annotations

import copy
import pickle
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import core  # noqa: E402
from engine.core import RuleError  # noqa: E402


def morto_log(rng: random.Random):
    players = [f"J{i}" for i in range(12)]
    options = {"lives": 9}
    state, events = core.setup("morto", players, options), []
    while not core.view("morto", state)["over"] and len(events) < 600:
        view = core.view("morto", state)
        order = view["play_order"]
        if rng.random() < 0.3:
            event = {"type": "touched_early", "player": rng.choice(order[:-1] or order)}
        else:
            ranks = list(range(1, 11)) * 4
            rng.shuffle(ranks)
            event = {"type": "reveal", "cards": {pid: ranks[i] for i, pid in enumerate(order)}}
        try:
            state = core.apply("morto", state, event)
            events.append(event)
        except RuleError:
            pass
    return "morto", players, options, events


def existentiel_log(rng: random.Random):
    players = [{"name": f"J{i}", "birth_month": 1 + i} for i in range(7)]
    state, events = core.setup("existentiel", players, {}), []
    while not core.view("existentiel", state)["over"] and len(events) < 600:
        view = core.view("existentiel", state)
        for player in view["players"]:
            for kind in ("roll", "accept", "validate"):
                supplied = {
                    "roll": {"die": rng.randint(1, 6)},
                    "accept": {},
                    "validate": {"success": rng.random() < 0.8},
                }[kind]
                event = {"type": kind, "player": player["id"], **supplied}
                try:
                    state = core.apply("existentiel", state, event)
                    events.append(event)
                except RuleError:
                    pass
    return "existentiel", players, {}, events


def gjdlv_log(rng: random.Random):
    players = ["A", "B", "C", "D"]
    options = {"rules": "abondantes", "rounds": 9}
    state, events = core.setup("gjdlv", players, options), []
    reds = [f"{r}{s}" for s in "HD" for r in ["A", *map(str, range(2, 11)), "J", "Q", "K"]]
    blacks = [f"{r}{s}" for s in "SC" for r in ["A", *map(str, range(2, 11)), "J", "Q", "K"]]
    while not core.view("gjdlv", state)["over"]:
        for _ in range(12):
            event = rng.choice(
                [
                    {
                        "type": "newborn",
                        "player": rng.choice(["p1", "p2", "p3", "p4"]),
                        "gf": rng.choice(reds),
                        "gm": rng.choice(blacks),
                    },
                    {"type": "abortion", "player": rng.choice(["p1", "p2", "p3", "p4"])},
                ]
            )
            try:
                state = core.apply("gjdlv", state, event)
                events.append(event)
            except RuleError:
                pass
        state = core.apply("gjdlv", state, {"type": "close_round"})
        events.append({"type": "close_round"})
    return "gjdlv", players, options, events


def gjdlv_tracker_log(rng: random.Random):
    players = ["A", "B", "C", "D"]
    options = {"rules": "abondantes", "rounds": 9, "mode": "tracker"}
    state, events = core.setup("gjdlv", players, options), []
    while not core.view("gjdlv", state)["over"]:
        choices = core.view("gjdlv", state)["play"]["choices"]
        # The turn goes on (answers and royal effects now and then), so the log is a real round's.
        choice = rng.choice(choices)
        event = dict(choice["action"])
        if choice["field"] == "mouchoir":
            left = core.view("gjdlv", state)["play"]["deal"]["mouchoir"]
            event["mouchoir"] = rng.sample(choice["cards"], left)
        elif choice["field"] == "gms":
            gms, used = {}, set()
            for pid, cards in choice["cards"].items():
                free = [card for card in cards if card not in used]
                if free and rng.random() < 0.5:
                    gms[pid] = rng.choice(free)
                    used.add(gms[pid])
            event["gms"] = gms
        elif choice["field"]:
            event[choice["field"]] = rng.choice(choice["cards"])
        state = core.apply("gjdlv", state, event)
        events.append(event)
    return "gjdlv/play", players, options, events


def per_call(repeat: int, fn, *args) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn(*args)
    return (time.perf_counter() - start) / repeat


ROUNDS, BATCH = 5, 10


def _in_place(game: str, state: dict, event: dict) -> None:
    """The server's write (companion/storage/store.py): the game's module, then the event on the snapshot."""
    core.apply_in_place(core.game(game), state, event)


def _deepcopy_apply(game: str, state: dict, event: dict) -> dict:
    """``core.apply`` as it was: a ``copy.deepcopy`` of the state, then the event on the copy."""
    new_state = copy.deepcopy(state)
    core.apply_in_place(core.game(game), new_state, event)
    return new_state


WAYS = {"in place": _in_place, "core.apply": core.apply, "deepcopy": _deepcopy_apply}


def apply_times(game: str, players, options, events, rounds: int = ROUNDS, batch: int = BATCH) -> dict:
    """``{way: [µs per event of the log]}``: for each event, the best of ``rounds`` batches of
    ``batch`` applies (each to its own copy of the state before the event) of each way."""
    module = core.game(game)
    state = core.setup(game, players, options)
    times: dict[str, list[float]] = {way: [] for way in WAYS}
    clock = time.perf_counter_ns
    for event in events:
        frozen = pickle.dumps(state, pickle.HIGHEST_PROTOCOL)
        for way, fn in WAYS.items():
            best = float("inf")
            for _ in range(rounds):
                states = [pickle.loads(frozen) for _ in range(batch)]
                start = clock()
                for each in states:
                    fn(game, each, event)
                best = min(best, (clock() - start) / batch)
            times[way].append(best / 1e3)
        core.apply_in_place(module, state, event)
    return times


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def logs(seed: int = 2026) -> tuple:
    rng = random.Random(seed)
    return morto_log(rng), existentiel_log(rng), gjdlv_log(rng), gjdlv_tracker_log(rng)


def apply_table(all_logs, rounds: int = ROUNDS, batch: int = BATCH) -> list[str]:
    """The apply table's lines: per game, each way's median and p95, and the ratios to in place."""
    lines = [
        f"{'game':<12} {'events':>6} {'in place p50':>13} {'p95':>7} {'core.apply p50':>15} {'p95':>7} "
        f"{'deepcopy p50':>13} {'p95':>7} {'deepcopy/in place':>18}"
    ]
    for name, players, options, events in all_logs:
        times = apply_times(name.split("/")[0], players, options, events, rounds, batch)
        medians = {way: statistics.median(values) for way, values in times.items()}
        lines.append(
            f"{name:<12} {len(events):>6} {medians['in place']:>10.1f} µs {p95(times['in place']):>7.1f} "
            f"{medians['core.apply']:>12.1f} µs {p95(times['core.apply']):>7.1f} "
            f"{medians['deepcopy']:>10.1f} µs {p95(times['deepcopy']):>7.1f} "
            f"{medians['deepcopy'] / medians['in place']:>17.1f}x"
        )
    return lines


def main() -> None:
    all_logs = logs()
    print("apply one event, µs per event of the log (median and p95 over its events)")
    for line in apply_table(all_logs):
        print(line)
    print()
    print(
        f"{'game':<12} {'events':>6} {'replay log':>12} {'per event':>11} "
        f"{'undo (replay)':>14} {'view p50':>9} {'view max':>9}"
    )
    for name, players, options, events in all_logs:
        game = name.split("/")[0]
        replay = per_call(20, core.replay, game, players, options, events)
        undo = per_call(20, core.undo, game, players, options, events)
        views = sorted(
            per_call(5, core.view, game, core.replay(game, players, options, events[:i]))
            for i in range(0, len(events), max(1, len(events) // 60))
        )
        print(
            f"{name:<12} {len(events):>6} {replay * 1e3:>9.2f} ms {replay / len(events) * 1e6:>8.1f} µs "
            f"{undo * 1e3:>11.2f} ms {views[len(views) // 2] * 1e3:>6.2f} ms "
            f"{views[-1] * 1e3:>6.2f} ms"
        )


if __name__ == "__main__":
    main()
