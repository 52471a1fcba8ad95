"""Whole-log reads of a table (the whole ``/log``, the unpaged ``/history``, ``/timeline``, the
exports), made so that a long table read by many cannot block a server process for the others.

A gevent worker serves every request of its process in one thread, so a request that computes for
a second holds every other request of that process for a second. Reading a table of 10,000 events
whole (its rows, a replay, the answer encoded) is such a request, and four clients asking for it
over and over turned a bystander's 3 ms into seconds. So:

- **One at a time per process** (`TURN`): a whole-log read waits for the one being made, without
  holding a database connection; a bystander's request never waits behind more than one of them.
- **Once per version**: a table's answer at a version never changes (versions only go up, and an
  event's payload and words never change), so the same read of the same version is made once per
  process and then served from memory (`Kept`, ``KEPT_BYTES`` at most, the least recently used
  dropped first). A reader that waited its turn finds the answer the one before it made.
- **In slices**: the rows are read ``store.SLICE`` at a time (`store.active_events`), the engine replays
  them from a generator (`store.cooperative`), the answer is encoded a slice of entries at a time and
  sent ``CHUNK`` bytes at a time (compressed chunk by chunk when the client accepts gzip: a whole
  answer compressed at once would hold the process as long as it takes). Between two slices the
  process serves its other requests (``time.sleep(0)`` is gevent's under the production server,
  and hands the loop over; elsewhere it costs nothing).
- **Bounded**: a table holds at most ``EVENTS_PER_TABLE`` events (`store.append_event`), written at
  most ``TABLE_WRITES_PER_MINUTE`` a minute (`limits.count_write`).
"""

from __future__ import annotations

import json
import secrets
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator

from flask import Flask, Response, current_app, request

from companion.storage import store
from companion.storage.store import cooperative

EXTENSION = "arbitre.long_reads"
CHUNK = 64 * 1024  # bytes of an answer sent (and compressed) at a time
KEPT_BYTES = 32 * 1024 * 1024  # answers kept per process
GZIP_LEVEL = 6  # a chunk compressed in about a millisecond


class Kept:
    """Encoded answers by (table id, version, kind, language), the least recently used dropped first
    past ``KEPT_BYTES``; and the turn whole-log reads take, one at a time."""

    def __init__(self):
        self.lock = threading.Lock()
        self.turn = threading.Lock()  # a greenlet's lock under gevent
        self.answers: OrderedDict[tuple, list] = OrderedDict()
        self.size = 0

    def get(self, key: tuple) -> list | None:
        with self.lock:
            found = self.answers.get(key)
            if found is not None:
                self.answers.move_to_end(key)
            return found

    def put(self, key: tuple, pieces: list) -> None:
        size = sum(len(piece) for piece in pieces if piece is not None)
        if size > KEPT_BYTES // 4:
            return  # one answer never takes the room of many
        with self.lock:
            if key in self.answers:
                return
            self.answers[key] = pieces
            self.size += size
            while self.size > KEPT_BYTES:
                _, dropped = self.answers.popitem(last=False)
                self.size -= sum(len(piece) for piece in dropped if piece is not None)


def kept(app: Flask) -> Kept:
    if EXTENSION not in app.extensions:
        app.extensions[EXTENSION] = Kept()
    return app.extensions[EXTENSION]


def read(table, kind: str, build: Callable, language: str | None = None) -> list:
    """The encoded answer ``kind`` of ``table`` (its row as found: ``id``, ``code``, ``version``):
    kept from an earlier read of that version, or built now, in this process's turn, by
    ``build(row)`` on the row and its log read in one snapshot (`store.steady`). A list of byte
    pieces; None marks the place of the moment of the answer (`respond`'s ``moment``)."""
    answers = kept(current_app)
    key = (table.id, table.version, kind, language)
    found = answers.get(key)
    if found is not None:
        return found
    with answers.turn:
        found = answers.get(key)  # made by the read this one waited for
        if found is not None:
            return found
        row, pieces = store.steady(table.code, build)
        answers.put((row.id, row.version, kind, language), pieces)
        return pieces


def encoded(answer: dict, long: str, moment: str | None = None) -> list:
    """``answer`` as compact JSON (as the app's ``jsonify`` writes it) in byte pieces, its list
    ``long`` encoded ``store.SLICE`` entries at a time; with ``moment``, that key's value left out (None
    in the pieces) for `respond` to fill in."""
    marks = {long: f"@{secrets.token_hex(8)}@"}
    if moment is not None:
        marks[moment] = f"@{secrets.token_hex(8)}@"
    text = json.dumps({**answer, **marks}, separators=(",", ":"))
    pieces: list = []
    for key, mark in sorted(marks.items(), key=lambda item: text.index(json.dumps(item[1]))):
        before, text = text.split(json.dumps(mark), 1)
        pieces.append(before.encode())
        pieces.append(_list(answer[long]) if key == long else None)
    pieces.append(text.encode())
    return pieces


def _list(entries: list) -> bytes:
    size = store.SLICE
    slices = (entries[start : start + size] for start in range(0, len(entries), size))
    encoded = (json.dumps(part, separators=(",", ":"))[1:-1] for part in cooperative(slices, 1))
    return b"[" + ",".join(encoded).encode() + b"]"


def respond(
    pieces: list, mimetype: str = "application/json", headers: dict | None = None, moment: str | None = None
) -> Response:
    """The answer sent ``CHUNK`` bytes at a time, the process serving others in between: gzip'd
    chunk by chunk when the client accepts it (Flask-Compress leaves a streamed answer alone)."""
    moment_json = json.dumps(moment).encode()
    body = b"".join(moment_json if piece is None else piece for piece in pieces)
    chunks = (body[start : start + CHUNK] for start in range(0, len(body), CHUNK))
    headers = {**(headers or {}), "Vary": "Accept-Encoding"}
    if request.accept_encodings["gzip"]:
        headers["Content-Encoding"] = "gzip"
        return Response(cooperative(_gzipped(chunks), 1), mimetype=mimetype, headers=headers)
    headers["Content-Length"] = str(len(body))
    return Response(cooperative(chunks, 1), mimetype=mimetype, headers=headers)


def _gzipped(chunks: Iterable[bytes]) -> Iterator[bytes]:
    compressor = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 16 + zlib.MAX_WBITS)  # the gzip format
    for chunk in chunks:
        if compressed := compressor.compress(chunk):
            yield compressed
    yield compressor.flush()
