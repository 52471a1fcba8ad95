"""Mutation testing of the rules engine: mutmut 3 on engine/, judged by the engine's own tests.

Run (the ``bench`` extra first: .venv/bin/uv sync --locked --inexact --extra bench):
  .venv/bin/python bench/mutation.py                              # every mutant of engine/ (hours here)
  .venv/bin/python bench/mutation.py --module engine.existentiel  # one module's (the option repeats)
  .venv/bin/python bench/mutation.py --since main                 # the modules changed since a revision
  .venv/bin/python bench/mutation.py --sample 300 --seed 1        # a seeded sample of those mutants
  .venv/bin/python bench/mutation.py --resume     # keep the last results, re-test what was not killed
  .venv/bin/python bench/mutation.py --report --survivors         # the last run's figures and diffs

The configuration is ``[tool.mutmut]`` in pyproject.toml: the sources to mutate (engine/) and the
test files that judge each mutant; of those, a test that asks for the web app or a database (the
fixtures in ``WEB_FIXTURES``) is left out by this module's ``pytest_collection_modifyitems``, which
mutmut's pytest loads (``-p bench.mutation``): the engine must be pinned by the tests that call it,
and a test through the app runs twice, on both backends. mutmut never edits engine/: it copies the
sources and the tests into ``mutants/`` (git-ignored), mutates the copy, records which tests call
each function (one run of every test) and runs, for each mutant, the tests that reach it, fastest
first, in ``--jobs`` forked workers under ``nice -n 19``. This script never calls ``mutmut apply``.

A mutant is *killed* when some test fails with it (a timeout counts as killed: the mutant hangs),
*survived* when every test passes, *no tests* when no test reaches it. Survivors that change no
behaviour at all (equivalent mutants) are listed in docs/RELIABILITY.md, one backquoted mutant name
per line, with why; the score leaves them out: killed / (checked - equivalent). On a sample it is an
estimate, printed with its 95% interval (Wilson's). The run fails (exit 1) when a checked mutant is
neither killed nor listed as equivalent. A bounded ``--timeout`` stops the run and reports what was
checked so far.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRATCH = ROOT / "mutants"
RELIABILITY = ROOT / "docs" / "RELIABILITY.md"
MUTMUT = Path(sys.executable).parent / "mutmut"

# A test asking for one of these runs through the web app, a served process or a database: not an
# engine test (``servers``, also imported as ``live_servers``, asks for its database at run time).
WEB_FIXTURES = {"app", "database_url", "postgres", "served", "servers", "live_servers"}

# mutmut's exit codes (mutmut.models.results.status_by_exit_code), reduced to what the score needs.
KILLED = {
    1: "killed",
    3: "killed",
    36: "timeout",
    24: "timeout",
    -24: "timeout",
    152: "timeout",
    255: "timeout",
}
SURVIVED = {0: "survived"}
NO_TESTS = {5: "no tests", 33: "no tests"}
EXCLUDED_SECTIONS = ("Equivalent mutants", "Mutants that run only at import")
Z95 = 1.959964  # the normal quantile of a two-sided 95% interval


def pytest_collection_modifyitems(config, items) -> None:
    """As mutmut's pytest plugin: leave out the tests that run through the app or a database."""
    web = [item for item in items if WEB_FIXTURES & set(getattr(item, "fixturenames", ()))]
    if web:
        config.hook.pytest_deselected(items=web)
        items[:] = [item for item in items if item not in web]


def status(exit_code) -> str:
    if exit_code is None:
        return "not checked"
    for table in (KILLED, SURVIVED, NO_TESTS):
        if exit_code in table:
            return table[exit_code]
    return "suspicious"


def results() -> dict[str, str]:
    """Every mutant name with its status, from mutmut's result files in mutants/."""
    found = {}
    for meta in sorted(SCRATCH.rglob("*.py.meta")):
        data = json.loads(meta.read_text())
        for name, exit_code in data["exit_code_by_key"].items():
            found[name] = status(exit_code)
    return found


def module_of(mutant: str) -> str:
    return mutant.split("__mutmut_")[0].rsplit(".", 1)[0]


def module_of_path(path: str) -> str:
    """``engine/morto.py`` -> ``engine.morto`` (``engine/__init__.py`` -> ``engine``)."""
    return ".".join(Path(path).with_suffix("").parts).removesuffix(".__init__")


def equivalents() -> set[str]:
    """The mutants docs/RELIABILITY.md leaves out of the score: those its "Equivalent mutants" section
    lists, and those of its "Mutants that run only at import" section (code that runs while the
    engine is imported, before mutmut switches a mutant on: no test run can see them)."""
    if not RELIABILITY.exists():
        return set()
    text = RELIABILITY.read_text()
    found = set()
    for heading in EXCLUDED_SECTIONS:
        section = re.search(rf"^### {heading}\n(.*?)(?=^## |^### |\Z)", text, re.M | re.S)
        if section:
            found |= set(re.findall(r"`(engine\.[^`\s]+__mutmut_\d+)`", section.group(1)))
    return found


def changed_modules(revision: str, root: Path = ROOT) -> list[str]:
    """The engine modules whose file differs between ``revision`` and the working tree (new ones too)."""

    def git(*args: str) -> list[str]:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"git {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout.split()

    paths = git("diff", "--name-only", revision, "--", "engine/") + git(
        "ls-files", "--others", "--exclude-standard", "--", "engine/"
    )
    return sorted({module_of_path(path) for path in paths if path.endswith(".py")})


def wilson(successes: int, trials: int) -> tuple[float, float]:
    """The 95% score interval of a proportion seen as ``successes`` out of ``trials`` (Wilson, 1927)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = Z95 * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def report(found: dict[str, str], population: int, known: set[str], show_survivors: bool) -> int:
    """The figures of the mutants in ``found`` (a sample when ``population`` is larger; ``known``:
    every mutant there is now); 1 when a checked mutant is neither killed nor listed as equivalent."""
    equivalent = equivalents()
    print(
        f"{'module':<22}{'killed':>7}{'timeout':>8}{'survived':>9}{'no tests':>9}{'other':>6}"
        f"{'unchecked':>10}{'total':>6}{'equiv.':>7}{'score w/o equiv.':>18}"
    )
    for module in [*sorted({module_of(n) for n in found}), "all"]:
        names = [n for n in found if module == "all" or module_of(n) == module]
        counts = Counter(found[n] for n in names)
        killed = counts["killed"] + counts["timeout"]
        equiv = sum(1 for n in names if n in equivalent and found[n] == "survived")
        other = len(names) - killed - counts["survived"] - counts["no tests"] - counts["not checked"]
        judged = len(names) - counts["not checked"] - equiv
        score = f"{100 * killed / judged:.1f}%" if judged else "-"
        print(
            f"{module:<22}{counts['killed']:>7}{counts['timeout']:>8}{counts['survived']:>9}"
            f"{counts['no tests']:>9}{other:>6}{counts['not checked']:>10}{len(names):>6}{equiv:>7}"
            f"{score:>18}"
        )
    names = [n for n in found if found[n] != "not checked"]
    killed = sum(1 for n in names if found[n] in ("killed", "timeout"))
    judged = len(names) - sum(1 for n in names if n in equivalent and found[n] == "survived")
    if population > len(found) and judged:
        low, high = wilson(killed, judged)
        print(
            f"\nsample of {len(found):,} mutants of {population:,}: {len(names):,} checked; score without the"
            f" equivalent ones {100 * killed / judged:.1f}%, 95% interval {100 * low:.1f}-{100 * high:.1f}%"
        )
    stale = sorted(n for n in equivalent if found.get(n, "not checked") not in ("survived", "not checked"))
    if stale:
        print(
            "\nlisted as equivalent but not a survivor now (check docs/RELIABILITY.md): " + ", ".join(stale)
        )
    gone = sorted(equivalent - known)
    if gone:
        print("\nlisted as equivalent but no such mutant now (check docs/RELIABILITY.md): " + ", ".join(gone))
    survivors = sorted(n for n in names if found[n] not in ("killed", "timeout") and n not in equivalent)
    print(f"\n{len(survivors)} mutants neither killed nor listed as equivalent" + (":" if survivors else "."))
    for name in survivors:
        print(f"  {name}: {found[name]}")
        if show_survivors:
            diff = subprocess.run([MUTMUT, "show", name], cwd=ROOT, capture_output=True, text=True).stdout
            print("\n".join("      " + line for line in diff.splitlines()[1:] if line.strip()))
    return 1 if survivors else 0


def lowest_priority() -> None:
    os.nice(19)


def check_selection() -> None:
    """Every test file [tool.mutmut] names exists (one merged or renamed must be named again)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]
    missing = [p for p in config["pytest_add_cli_args_test_selection"] if not (ROOT / p).exists()]
    if missing:
        raise SystemExit(
            f"[tool.mutmut] in pyproject.toml names test files that are gone: {', '.join(missing)}"
        )


def generate(jobs: int, log) -> None:
    """mutmut's first step alone: the mutated copy in mutants/ and every mutant's name in its .meta
    file, so that mutants can be picked by name before any test runs. mutmut has no command for it:
    these are the calls ``mutmut run`` starts with (mutmut 3.8.1, pinned by uv.lock)."""
    code = (
        "import os, mutmut.__main__ as m; os.makedirs('mutants', exist_ok=True); "
        "m.set_mutant_under_test('mutant_generation'); m.copy_src_dir(); m.copy_also_copy_files(); "
        f"m.setup_source_paths(); m.create_mutants({jobs})"
    )
    subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, preexec_fn=lowest_priority, stdout=log, stderr=log, check=True
    )


def run(jobs: int, timeout: float, names: list[str], log) -> None:
    command = [str(MUTMUT), "run", "--max-children", str(jobs), *names]
    chosen = f"<{len(names)} mutants>" if names else "(every mutant)"
    print(f"$ mutmut run --max-children {jobs} {chosen} in mutants/ (nice -n 19)", flush=True)
    start = time.monotonic()
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        preexec_fn=lowest_priority,
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(60)
        print(f"stopped after {timeout:.0f} s: the figures below count the mutants checked so far")
    except KeyboardInterrupt:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(60)
        raise
    if process.returncode not in (0, -signal.SIGTERM):
        log.flush()
        print(Path(log.name).read_text()[-4000:])
        raise SystemExit(f"mutmut failed (exit {process.returncode}); its output is in {log.name}")
    print(f"mutmut ran for {time.monotonic() - start:.0f} s")


def selected(names: list[str], modules: list[str] | None, sample: int | None, seed: int) -> list[str]:
    """The mutants of ``modules`` (all when None), or ``sample`` of them drawn with ``seed``."""
    chosen = sorted(n for n in names if modules is None or module_of(n) in modules)
    if sample is not None and sample < len(chosen):
        chosen = sorted(random.Random(seed).sample(chosen, sample))
    return chosen


def choose(args, modules: list[str] | None, every: list[str]) -> dict:
    """The mutants this run judges (``names``), how many it drew them from (``population``) and
    what to ask ``mutmut run`` for when it judges them all afresh (``patterns``: one per module,
    none at all for every mutant, None to name each one)."""
    if args.equivalents:
        names = sorted(equivalents() & set(every))
        return {"names": names, "population": len(names), "patterns": None}
    names = selected(every, modules, args.sample, args.seed)
    population = len(selected(every, modules, None, 0))
    whole = [] if modules is None else [f"{module}.x*" for module in modules]  # mutmut matches patterns
    return {"names": names, "population": population, "patterns": whole if len(names) == population else None}


def asked(chosen: dict, retry: list[str], fresh: bool) -> list[str]:
    """What to ask ``mutmut run`` for: the chosen modules' patterns in a fresh mutants/ (no name is
    every mutant not judged yet, all of them there), else each mutant to judge by name."""
    return chosen["patterns"] if fresh and chosen["patterns"] is not None else retry


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="parallel mutmut workers (default 2)")
    parser.add_argument(
        "--timeout", type=float, default=4 * 3600, help="stop the run after this many seconds"
    )
    parser.add_argument("--module", action="append", help="only this module's mutants (e.g. engine.morto)")
    parser.add_argument(
        "--since", metavar="REVISION", help="only the modules changed since this git revision"
    )
    parser.add_argument("--sample", type=int, help="only this many mutants, drawn at random among the chosen")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    parser.add_argument(
        "--equivalents", action="store_true", help="only the mutants docs/RELIABILITY.md lists as equivalent"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep mutants/ (its mutants, which test calls what, the results) and re-test only what is"
        " not killed yet, of the last run's mutants or of those chosen now",
    )
    parser.add_argument("--report", action="store_true", help="print the last results, run nothing")
    parser.add_argument("--survivors", action="store_true", help="print each survivor's diff")
    args = parser.parse_args()
    chosen_file = SCRATCH / "chosen.json"  # the last run's choice
    if not args.report:
        check_selection()
        modules = args.module
        if args.since:
            modules = [*(modules or []), *changed_modules(args.since)]
            print(f"engine modules changed since {args.since}: {', '.join(modules) or 'none'}")
            if not modules:
                return 0
        fresh = not (args.resume and chosen_file.exists())
        if fresh:
            shutil.rmtree(SCRATCH, ignore_errors=True)
            SCRATCH.mkdir()
            with (SCRATCH / "generate.log").open("w") as log:
                generate(args.jobs, log)
        found = results()
        if fresh or args.module or args.since or args.sample is not None or args.equivalents:
            chosen = choose(args, modules, sorted(found))
            chosen_file.write_text(json.dumps(chosen))
        else:
            chosen = json.loads(chosen_file.read_text())
        retry = [n for n in chosen["names"] if fresh or found.get(n) not in ("killed", "timeout")]
        if retry:
            # mutmut's own progress, to follow a long run: tail -f mutants/run.log
            with (SCRATCH / "run.log").open("w") as log:
                run(args.jobs, args.timeout, asked(chosen, retry, fresh), log)
    if not chosen_file.exists():
        print("no results in mutants/: run without --report first")
        return 1
    chosen = json.loads(chosen_file.read_text())
    found = results()
    judged = {n: found.get(n, "not checked") for n in chosen["names"]}
    return report(judged, chosen["population"], set(found), args.survivors)


if __name__ == "__main__":
    sys.exit(main())
