"""What one tap costs the processor, counted in instructions: a figure this noisy machine repeats to a
fraction of a percent, where its timings move 15-30 % from run to run (issue #13, goal 1).

Run: .venv/bin/python bench/tap_cost.py [--requests 200] [--root PATH]

Each kind of request runs in the app itself (the Flask test client, SQLite in a fresh instance folder;
no server, no network), under valgrind's callgrind, which counts the instructions the process runs:
- taps: a referee on an Il Morto table (12 players), a ``touched_early`` then an undo, each with
  ``id`` and ``version``, as `bench/writes.py` sends them;
- the floor: the same bodies, with the same headers, to ``POST /bench/floor`` (`bench/floor_server.py`'s
  bare endpoint, added to the app as there).
A kind runs twice, with a few requests and with ``--requests`` more; the difference divided by those
requests is what one costs, the start and the warm-up cancelled out. Waiting for the disk costs no
instruction: this is the processor's share of a request only (the server's own work, gunicorn's and
gevent's, is not in it either). Printed: instructions per request of each kind, and their ratio.

``--root``: the code of another checkout (a worktree of an earlier commit, say) instead of this one,
for an A/B. Needs valgrind (Debian's package).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
INNER = "--inner"
WARM_UP = 20  # requests made before the counted ones, in both runs
FEW = 20  # the first run's requests; the second makes --requests more


def inner(root: str, kind: str, count: int) -> None:
    """In the measured process: make the app and the table, then ``count`` requests of ``kind``."""
    sys.path.insert(0, root)
    os.environ["ARBITRE_INSTANCE"] = tempfile.mkdtemp(prefix="tap-cost-")
    from companion import create_app  # noqa: I001 - the measured code first, then the bench's own
    from companion.cli import upgrade_database

    # Imported once the measured code is: these put this checkout first on the path.
    sys.path.insert(1, str(BENCH))
    from floor_server import FLOOR_PATH, floor
    from writes import TABLE, tap

    app = create_app()
    upgrade_database(app)
    app.add_url_rule(FLOOR_PATH, "bench_floor", floor, methods=["POST"])
    client = app.test_client()
    table = client.post("/api/tables", json=TABLE).get_json()
    headers = {"Authorization": f"Bearer {table['secret']}"}
    version = table["version"]
    for i in range(WARM_UP + count):
        path, body, expected = tap("tap", i, version)
        url = FLOOR_PATH if kind == "floor" else f"/api/tables/{table['code']}/{path}"
        response = client.post(url, json=body, headers=headers)
        if response.status_code != (200 if kind == "floor" else expected):
            raise SystemExit(f"{url}: {response.status_code} {response.get_data(as_text=True)[:300]}")
        if kind == "taps":
            version = response.get_json()["version"]


def instructions(root: str, kind: str, count: int) -> int:
    """The instructions a process making ``count`` requests of ``kind`` runs, start to end."""
    command = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        __file__,
        INNER,
        root,
        kind,
        str(count),
    ]
    run = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"}, check=False
    )
    found = re.search(r"Collected : (\d+)", run.stderr)
    if run.returncode != 0 or found is None:
        raise SystemExit(f"callgrind failed ({run.returncode}):\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    if sys.argv[1:2] == [INNER]:
        inner(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="requests counted per kind (even)")
    parser.add_argument("--root", default=str(BENCH.parent), help="the checkout whose code is measured")
    args = parser.parse_args()
    root = str(Path(args.root).resolve())
    print(
        f"code measured: {root}; {args.requests} requests counted per kind, in the app (test client), "
        "SQLite; callgrind's instruction counts"
    )
    per_request = {}
    for kind in ("taps", "floor"):
        few = instructions(root, kind, FEW)
        many = instructions(root, kind, FEW + args.requests)
        per_request[kind] = (many - few) / args.requests
        label = "a tap (an event or an undo)" if kind == "taps" else "the floor"
        print(f"  {label:30s} {per_request[kind]:12,.0f} instructions per request")
    print(f"  a tap / the floor              {per_request['taps'] / per_request['floor']:12.2f}")


if __name__ == "__main__":
    main()
