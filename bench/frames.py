"""What a follower receives per tap: the live stream's frame (the write's answer), with what it says
beside the state (`did`, `undoable`) and without, and, for comparison, the latest page of the
history that the table view fetched on every new version before the frame carried the story line.

Run: .venv/bin/python bench/frames.py [--events 20]

Each game is played through the app on a fresh SQLite database, at a typical table (Il Morto 12
players revealing, Le jeu existentiel 8 players rolling, the Grand Jeu 4 players' newborns), for
``--events`` writes; the sizes are those of the last one, in bytes of compact JSON (what the stream
sends; it is not compressed).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import fresh_app  # noqa: E402

from companion.storage import store  # noqa: E402

TABLES = {
    "morto": ([f"Joueur·euse {i}" for i in range(12)], {"lives": 9}),
    "existentiel": ([{"name": f"Joueur·euse {i}", "birth_month": 1 + i % 12} for i in range(8)], {}),
    "gjdlv": (["Ada", "Bruno", "Chiara", "Dario"], {}),
}


def event(game: str, number: int) -> dict:
    """A typical write of ``game`` that its rules accept at every step of this run."""
    if game == "morto":
        return {"type": "reveal", "cards": {f"p{i + 1}": 1 + (i + number) % 10 for i in range(12)}}
    if game == "existentiel":
        return {"type": "set_title", "adventure": 1 + number % 29, "title": f"Aventure {number}"}
    return {"type": "abortion", "player": f"p{1 + number % 4}"}


def sizes(game: str, events: int) -> tuple[int, int, int]:
    """(frame bytes, of which `did` and `undoable`, history page bytes) after ``events`` writes."""
    players, options = TABLES[game]
    with fresh_app() as (app, _folder):
        client = app.test_client()
        created = client.post("/api/tables", json={"game": game, "players": players, "options": options})
        code, auth = created.get_json()["code"], {"Authorization": f"Bearer {created.get_json()['secret']}"}
        answer = {}
        for number in range(events):
            body = {"id": f"{number:036d}", **event(game, number)}  # a UUID's length
            response = client.post(f"/api/tables/{code}/events", json=body, headers=auth)
            assert response.status_code == 201, response.get_json()
            answer = response.get_json()
        page = client.get(f"/api/tables/{code}/history?limit=50").data
    frame = len(store.serialized(answer))
    bare = len(store.serialized({"version": answer["version"], "state": answer["state"]}))
    return frame, frame - bare, len(page)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=20)
    events = parser.parse_args().events
    print(f"{'game':12} {'frame':>8} {'did+undoable':>13} {'history page (before)':>22}")
    for game in TABLES:
        frame, extra, page = sizes(game, events)
        print(f"{game:12} {frame:>7,}B {extra:>8,}B {100 * extra / (frame - extra):3.0f}% {page:>21,}B")


if __name__ == "__main__":
    main()
