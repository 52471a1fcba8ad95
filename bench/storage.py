"""What a table's log costs on disk: bytes per event, with answers kept for recent versions only and,
for comparison in the same run, with every row keeping its answer (the log before this was bounded).

Run: .venv/bin/python bench/storage.py [--events 2000] [--players 12]

Each run plays the same Il Morto table on a fresh SQLite database through the app (touches and
undos, as a referee would), then measures the database file after VACUUM.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import fresh_app  # noqa: E402

from companion.storage import store  # noqa: E402


def play(events: int, players: int, kept: int) -> tuple[int, int]:
    """(database bytes, bytes of one answer) after ``events`` writes with ``kept`` answers kept."""
    store.ANSWERS_KEPT = kept
    with fresh_app() as (app, instance):
        client = app.test_client()
        names = [f"Joueur·euse {i}" for i in range(players)]
        table = {"game": "morto", "players": names, "options": {"lives": 9}}
        created = client.post("/api/tables", json=table)
        code, auth = created.get_json()["code"], {"Authorization": f"Bearer {created.get_json()['secret']}"}
        answer = b""
        for number in range(events):
            if number % 2 == 0:
                player = f"p{2 + number % (players - 1)}"
                body = {"id": f"t{number}", "type": "touched_early", "player": player}
                response = client.post(f"/api/tables/{code}/events", json=body, headers=auth)
            else:
                response = client.post(f"/api/tables/{code}/undo", json={"id": f"u{number}"}, headers=auth)
            assert response.status_code in (200, 201), response.get_json()
            answer = response.data
        with app.app_context():
            store.db.engine.dispose()
        database = instance / "arbitre.db"
        connection = sqlite3.connect(database)
        connection.execute("VACUUM")
        connection.close()
        return database.stat().st_size, len(json.dumps(json.loads(answer), separators=(",", ":")))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--players", type=int, default=12)
    args = parser.parse_args()
    kept = store.ANSWERS_KEPT
    recent, size = play(args.events, args.players, kept)
    every, _ = play(args.events, args.players, 10**9)
    print(
        f"Il Morto, {args.players} players, {args.events} writes (events and undos); one answer: {size} bytes"
    )
    print(
        f"{f'answers kept for the last {kept} versions':<44} {recent / 2**10:9.0f} KiB  "
        f"{recent / args.events:7.0f} bytes per write"
    )
    print(
        f"{'every row keeping its answer (before)':<44} {every / 2**10:9.0f} KiB  "
        f"{every / args.events:7.0f} bytes per write"
    )
    print(f"ratio: {every / recent:.1f}x")


if __name__ == "__main__":
    main()
