"""Mutation testing of the rules engine: mutmut 3 on engine/, judged by the engine tests alone.

Run: .venv/bin/python bench/mutation.py              # a fresh run, then the score per module
     .venv/bin/python bench/mutation.py --resume     # keep the last results, re-test the survivors
     .venv/bin/python bench/mutation.py --report     # the last run's figures, nothing run
     .venv/bin/python bench/mutation.py --report --survivors   # ... and each survivor's diff

The configuration is ``[tool.mutmut]`` in pyproject.toml: the sources to mutate (engine/) and the
test files that judge each mutant (the engine tests). mutmut never edits engine/: it copies the
sources and the tests into ``mutants/`` (git-ignored), mutates the copy and runs pytest there, in
at most ``--jobs`` forked workers (2 by default: the machine is shared), under ``nice``. This script
never calls ``mutmut apply`` (the one mutmut command that writes to the sources). A bounded
``--timeout`` stops the run and reports what was checked so far.

A mutant is *killed* when some test fails with it (a timeout counts as killed: the mutant hangs),
*survived* when every test passes. Mutants no engine test reaches are *no tests*. The score is
killed / all. Survivors that change no behaviour at all (equivalent mutants) are listed in
docs/RELIABILITY.md, one backquoted mutant name per line, with why; the last column leaves them out.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRATCH = ROOT / "mutants"
RELIABILITY = ROOT / "docs" / "RELIABILITY.md"
MODULES = ("engine.core", "engine.messages", "engine.morto", "engine.existentiel", "engine.gjdlv")

# mutmut's exit codes (mutmut.stats.status_by_exit_code), reduced to what the score needs.
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


def equivalents() -> set[str]:
    """The mutants docs/RELIABILITY.md lists as equivalent (its "Equivalent mutants" section)."""
    if not RELIABILITY.exists():
        return set()
    text = RELIABILITY.read_text()
    section = re.search(r"^### Equivalent mutants\n(.*?)(?=^## |^### |\Z)", text, re.M | re.S)
    return set(re.findall(r"`(engine\.[^`\s]+__mutmut_\d+)`", section.group(1))) if section else set()


def report(found: dict[str, str], show_survivors: bool) -> int:
    equivalent = equivalents()
    print(
        f"{'module':<20}{'killed':>8}{'timeout':>8}{'survived':>9}{'no tests':>9}{'other':>7}{'total':>7}"
        f"{'score':>8}{'equiv.':>8}{'score w/o equiv.':>18}"
    )
    rows = [*MODULES, "all"]
    worst = 100.0
    for module in rows:
        names = [n for n in found if module == "all" or module_of(n) == module]
        counts = Counter(found[n] for n in names)
        killed = counts["killed"] + counts["timeout"]
        total = len(names)
        equiv = sum(1 for n in names if n in equivalent and found[n] == "survived")
        other = total - killed - counts["survived"] - counts["no tests"]
        score = 100 * killed / total if total else 100.0
        real = total - equiv
        real_score = 100 * killed / real if real else 100.0
        if module != "all" and total:
            worst = min(worst, real_score)
        print(
            f"{module:<20}{counts['killed']:>8}{counts['timeout']:>8}{counts['survived']:>9}"
            f"{counts['no tests']:>9}{other:>7}{total:>7}{score:>7.1f}%{equiv:>8}{real_score:>17.1f}%"
        )
    stale = sorted(n for n in equivalent if found.get(n) != "survived")
    if stale:
        print(
            "\nlisted as equivalent but not a survivor now (check docs/RELIABILITY.md): " + ", ".join(stale)
        )
    survivors = sorted(n for n, s in found.items() if s not in ("killed", "timeout") and n not in equivalent)
    print(f"\n{len(survivors)} mutants neither killed nor listed as equivalent" + (":" if survivors else "."))
    for name in survivors:
        print(f"  {name}: {found[name]}")
        if show_survivors:
            diff = subprocess.run(
                [sys.executable, "-m", "mutmut", "show", name], cwd=ROOT, capture_output=True, text=True
            ).stdout
            print("\n".join("      " + line for line in diff.splitlines()[1:] if line.strip()))
    return 0 if not found or worst >= 98.0 else 1


def run(jobs: int, timeout: float, names: list[str]) -> None:
    command = [sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs), *names]
    print(
        f"$ {' '.join(command[1:4])} ... in {SCRATCH.relative_to(ROOT)}/ (nice, {jobs} workers)", flush=True
    )
    SCRATCH.mkdir(exist_ok=True)
    log = SCRATCH / "run.log"  # mutmut's own progress, to follow a long run: tail -f mutants/run.log
    start = time.monotonic()
    with log.open("w") as out:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            preexec_fn=lambda: os.nice(10),
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=out,
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
        print(log.read_text()[-4000:])
        raise SystemExit(f"mutmut failed (exit {process.returncode}); its output is in {log}")
    print(f"mutmut ran for {time.monotonic() - start:.0f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="parallel mutmut workers (default 2)")
    parser.add_argument(
        "--timeout", type=float, default=4 * 3600, help="stop the run after this many seconds"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep mutants/ and its results: re-test only the survivors and the unchecked",
    )
    parser.add_argument("--report", action="store_true", help="print the last results, run nothing")
    parser.add_argument("--survivors", action="store_true", help="print each survivor's diff")
    args = parser.parse_args()
    if not args.report:
        if args.resume and SCRATCH.exists():
            retry = sorted(n for n, s in results().items() if s not in ("killed", "timeout"))
            if retry:
                run(args.jobs, args.timeout, retry)
        else:
            shutil.rmtree(SCRATCH, ignore_errors=True)
            run(args.jobs, args.timeout, [])
    found = results()
    if not found:
        print("no results in mutants/: run without --report first")
        return 1
    return report(found, args.survivors)


if __name__ == "__main__":
    sys.exit(main())
