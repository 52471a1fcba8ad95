"""Lighthouse scores of the pages people open most: the home page, a referee page and a table view.

Lighthouse (pinned in bench/lighthouse/package.json, apart from the app's own package.json so that CI
never installs it) is installed there with ``npm ci`` on first use. A real ``companion serve`` (see
bench/common.py), one table of each game with a few events, then Lighthouse's default run (mobile
form factor, simulated throttling) in Debian's Chromium for each page; the four category scores are
printed, and ``--json`` prints everything as JSON too.

    .venv/bin/python bench/lighthouse.py [--runs N] [--json]

The referee page is opened with the secret in its URL fragment (``/r/<code>#s=<secret>``), as the
hand-over QR code does: Lighthouse's browser starts with an empty profile, so nothing is in its
localStorage.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import CHROMIUM, ROOT, call, server  # noqa: E402

FOLDER = ROOT / "bench" / "lighthouse"
CLI = FOLDER / "node_modules" / "lighthouse" / "cli" / "index.js"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu"


def install() -> None:
    if not CLI.exists():
        subprocess.run(
            ["npm", "ci", "--prefix", str(FOLDER), "--no-audit", "--no-fund", "--loglevel=error"], check=True
        )


def version() -> str:
    return json.loads((FOLDER / "node_modules" / "lighthouse" / "package.json").read_text())["version"]


def tables(base: str) -> dict[str, dict]:
    """A table of each game, a few events in, so the pages draw something real."""
    made = {}
    names = ["Ada", "Bruno", "Chiara", "Dario", "Elena"]
    morto = call(base, "/api/tables", {"game": "morto", "players": names})
    for n in range(3):
        call(
            base,
            f"/api/tables/{morto['code']}/events",
            {"id": f"m{n}", "type": "touched_early", "player": "p3"},
            morto["secret"],
        )
    made["morto"] = morto
    existentiel = call(
        base,
        "/api/tables",
        {
            "game": "existentiel",
            "players": [{"name": "Inès", "birth_month": 3}, {"name": "Jules", "birth_month": 11}],
        },
    )
    call(
        base,
        f"/api/tables/{existentiel['code']}/events",
        {"id": "e1", "type": "roll", "player": "p1", "die": 4},
        existentiel["secret"],
    )
    made["existentiel"] = existentiel
    gjdlv = call(base, "/api/tables", {"game": "gjdlv", "players": ["Alice", "Basile", "Camille"]})
    call(
        base,
        f"/api/tables/{gjdlv['code']}/events",
        {"id": "g1", "type": "newborn", "player": "p1", "gf": "5H", "gm": "3S"},
        gjdlv["secret"],
    )
    made["gjdlv"] = gjdlv
    return made


def lighthouse(url: str) -> dict[str, float]:
    command = [
        "node",
        str(CLI),
        url,
        "--output=json",
        "--output-path=stdout",
        "--quiet",
        f"--only-categories={','.join(CATEGORIES)}",
        f"--chrome-flags={CHROME_FLAGS}",
    ]
    done = subprocess.run(
        command,
        env={**os.environ, "CHROME_PATH": CHROMIUM},
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    if done.returncode != 0:
        raise RuntimeError(f"lighthouse failed on {url}:\n{done.stderr[-2000:]}")
    report = json.loads(done.stdout)
    scores = {name: round(report["categories"][name]["score"] * 100) for name in CATEGORIES}
    audits = report["audits"]
    scores["fcp_ms"] = round(audits["first-contentful-paint"]["numericValue"])
    scores["lcp_ms"] = round(audits["largest-contentful-paint"]["numericValue"])
    scores["tbt_ms"] = round(audits["total-blocking-time"]["numericValue"])
    scores["cls"] = round(audits["cumulative-layout-shift"]["numericValue"], 3)
    failing = [audit_id for name in CATEGORIES[1:] for audit_id in _failed(report, name)]
    scores["failing"] = failing
    return scores


def _failed(report: dict, category: str) -> list[str]:
    """The audits of a category that count and did not pass (what costs points)."""
    refs = report["categories"][category]["auditRefs"]
    return [
        ref["id"]
        for ref in refs
        if ref.get("weight", 0) > 0 and report["audits"][ref["id"]].get("score") not in (None, 1)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="runs per page (the median is printed)")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = parser.parse_args()
    install()
    results = {}
    with server() as base:
        made = tables(base)
        pages = {"home": f"{base}/"}
        for game, table in made.items():
            pages[f"referee ({game})"] = f"{base}/r/{table['code']}#s={table['secret']}"
            pages[f"table view ({game})"] = f"{base}/t/{table['code']}"
        print(f"lighthouse {version()}, mobile (default), Chromium {CHROMIUM}, {args.runs} run(s) per page")
        print(
            f"{'page':<26}"
            + "".join(f"{name:>16}" for name in CATEGORIES)
            + "   FCP ms  LCP ms  TBT ms    CLS"
        )
        for name, url in pages.items():
            runs = [lighthouse(url) for _ in range(args.runs)]
            figures = {
                key: statistics.median(run[key] for run in runs) for key in runs[0] if key != "failing"
            }
            figures["failing"] = sorted({audit for run in runs for audit in run["failing"]})
            results[name] = figures
            times = "".join(f" {figures[key]:>7g}" for key in ("fcp_ms", "lcp_ms", "tbt_ms"))
            scores = "".join(f"{figures[c]:>16g}" for c in CATEGORIES)
            print(f"{name:<26}{scores} {times} {figures['cls']:>6g}")
            if figures["failing"]:
                print(f"{'':<26}audits not passed: {', '.join(figures['failing'])}")
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
