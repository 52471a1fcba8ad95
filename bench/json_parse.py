"""Strict JSON parsing of request bodies: the standard library as ``companion.web.api.body`` does it,
or orjson.

Run: .venv/bin/python bench/json_parse.py   (orjson comes with the ``bench`` extra)

orjson refuses NaN, the infinities, ``1e999`` and lone surrogates by itself, so it could take the
place of ``body``'s two parse hooks; the depth walk (``core.json_refusal``, 16 levels) stays with
either parser. The first table times the parse and the walk on bodies the API receives: a tap, a
reveal for 20 players, a new table of 20 players and an import as large as a body may be (64 KiB),
best of 7 batches. The second says what each parser makes of the bodies where they could differ
(``body``'s answer first).
"""

from __future__ import annotations

import json
import sys
import timeit
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion import MAX_BODY  # noqa: E402
from companion.web.api import _finite, _not_json  # noqa: E402
from engine import core  # noqa: E402

CLIENT_ID = "0f8fc6a2-5b4e-4f7e-9d7a-2f3b6f1c9e11"


def standard(raw: bytes):
    """The body's value, or the code ``body`` answers (its parse and its walk, in its order)."""
    try:
        parsed = json.loads(raw, parse_constant=_not_json, parse_float=_finite)
    except RecursionError:
        return "too_deep"
    except (ValueError, UnicodeDecodeError):
        return "bad_json"
    refusal = core.json_refusal(parsed)
    return refusal[0] if refusal else parsed


def with_orjson(raw: bytes):
    """The same with orjson's parser, its own error's reason kept."""
    try:
        parsed = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        return f"bad_json ({str(error).split(':')[0]})"
    refusal = core.json_refusal(parsed)
    return refusal[0] if refusal else parsed


def bodies() -> dict[str, dict]:
    full_import = {
        "format": "arbitre.table",
        "format_version": 1,
        "game": "morto",
        "players": [f"Joueur·euse {i}" for i in range(12)],
        "options": {"lives": 9},
        "events": [],
    }
    event = {"id": CLIENT_ID, "event": {"type": "touched_early", "player": "p12"}}
    while len(json.dumps(full_import, separators=(",", ":"))) < MAX_BODY - 200:
        full_import["events"].append(event)
    return {
        "tap (touched_early)": {"id": CLIENT_ID, "type": "touched_early", "player": "p7", "version": 123},
        "reveal, 20 players": {
            "id": CLIENT_ID,
            "type": "reveal",
            "cards": {f"p{i}": 10 for i in range(1, 21)},
            "version": 40,
        },
        "new table, 20 players": {
            "game": "gjdlv",
            "players": [f"Joueur·euse {i}" for i in range(20)],
            "options": {"rules": "abondantes", "rounds": 5},
        },
        f"import, {len(full_import['events'])} events": full_import,
    }


EDGES = {
    "NaN": b'{"a": NaN}',
    "-Infinity": b'{"a": -Infinity}',
    "1e999": b'{"a": 1e999}',
    "lone surrogate": b'{"a": "\\ud800"}',
    "17 deep": b"[" * 17 + b"]" * 17,
    "1,000 deep": b"[" * 1000 + b"]" * 1000,
    "30,000 deep": b"[" * 30000 + b"]" * 30000,
    "2**70": b'{"a": 1180591620717411303424}',
    "UTF-8 byte order mark": b'\xef\xbb\xbf{"a": 1}',
    "UTF-16": '{"a": 1}'.encode("utf-16"),
}


def main() -> None:
    print(f"{'body':<24}{'bytes':>7}{'json + walk':>14}{'orjson + walk':>16}{'saved':>11}")
    for name, value in bodies().items():
        raw = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
        assert standard(raw) == with_orjson(raw) == value
        number = max(100, 100_000 // len(raw))
        times = [
            min(timeit.repeat(lambda parse=parse, raw=raw: parse(raw), number=number, repeat=7))
            / number
            * 1e6
            for parse in (standard, with_orjson)
        ]
        print(
            f"{name:<24}{len(raw):>7}{times[0]:>11.1f} µs{times[1]:>13.1f} µs{times[0] - times[1]:>8.1f} µs"
        )
    print("\nwhere they differ or could:")
    for name, raw in EDGES.items():
        answers = [parse(raw) for parse in (standard, with_orjson)]
        shown = [answer if isinstance(answer, str) else f"accepted: {answer!r}"[:34] for answer in answers]
        print(f"  {name:<22}{shown[0]:<36}{shown[1]}")


if __name__ == "__main__":
    main()
