"""Live updates: a server-sent event stream per follower, fanned out per table.

Each server process keeps a hub: one channel per table that has followers in this process. A write
wakes only its table's channel (through ``companion.live.bus``, from this process or another); the
channel's reader then turns each new version into the bytes of one server-sent event, once: from
the answer the write gave, serialized once by the writing process and carried by the bus (within
the process; in a PostgreSQL notification when it fits), else from one read of the table's log.
Every follower of the table is sent those same bytes. A follower is an idle connection waiting on
its channel: no thread, no database read of its own.

The event's ``id`` is the table's version. A follower sends back the last one it got
(``Last-Event-ID``, as EventSource does when it reconnects) and is sent each version it missed,
in order, once; a follower with no ``Last-Event-ID`` (or too far behind, or ahead of the table) is
sent the current version. Versions on one stream only ever go up, one by one.

A finished table's rematch is told apart from the versions: an ``event: rematch`` with
``data: {"rematch": "<code>"}`` and no ``id``, sent to the followers there when it is made (the bus
carries it between processes, `bus.publish_rematch`) and, after the first version, to every stream
opened later on a table that has one.

Refusals: ``429 too_many_streams`` past ``LIVE_STREAMS_PER_ADDRESS`` open streams from one address
(counted across the server's processes when the production server shares its counts), ``503
streams_full`` when this process holds ``LIVE_STREAMS_PER_PROCESS`` streams, which keeps room for
the referees' taps. A stream gives its address's slot back the moment its follower closes it
(`_watch_hang_up`), not at the next keep-alive write that fails.
"""

from __future__ import annotations

import contextlib
import logging
import random
import socket
import threading
import time
from collections import Counter

from flask import Blueprint, Flask, Response, current_app, request
from sqlalchemy import and_, select, union_all

from companion.live import bus
from companion.storage import store
from companion.storage.errors import Refusal
from companion.storage.models import Event, Table, db
from companion.storage.store import serialized

bp = Blueprint("live", __name__)

EXTENSION = "arbitre.live"
KEPT_VERSIONS = 32  # recent frames a channel keeps for followers a little behind
RETRY_AFTER_SECONDS = 10
# How long EventSource waits before it reconnects when a stream ends or drops, drawn per stream
# (milliseconds): the streams an instance ends together when it stops (or that all began when it came
# back) do not all come back in the same second. The pages reconnect on their own schedule, random
# and growing (static/js/live.js); this is for any other EventSource client.
RETRY_MS = (1000, 5000)
# A stream's life (LIVE_STREAM_SECONDS) is shortened by a random share of up to this much, so that
# streams begun together (after a restart) do not all end, and reconnect, together.
LIFETIME_SPREAD = 0.25
STILL_HERE = b": still here\n\n"  # keeps proxies from closing an idle stream, and finds gone clients
REMATCH_EVENT = b"event: rematch\n"

log = logging.getLogger(__name__)


def retry_line(draw=random.random) -> bytes:
    """The stream's ``retry:`` field: a wait drawn in `RETRY_MS`."""
    low, high = RETRY_MS
    return f"retry: {low + round(draw() * (high - low))}\n\n".encode()


def lifetime(seconds: float, draw=random.random) -> float:
    """A stream's life: ``seconds`` (LIVE_STREAM_SECONDS) less a random share of up to `LIFETIME_SPREAD`."""
    return seconds * (1 - LIFETIME_SPREAD * draw())


def frame(version: int, data: str) -> bytes:
    """One server-sent event: the table's answer at one version, ready for every follower's socket."""
    return f"id: {version}\nevent: state\ndata: {data}\n\n".encode()


def rematch_frame(code: str) -> bytes:
    """The server-sent event that tells a follower where the table's rematch is (no ``id``: the
    follower's last version stays what it resumes from)."""
    return REMATCH_EVENT + f"data: {serialized({'rematch': code})}\n\n".encode()


def framed(answers: list[tuple[int, dict]]) -> list[tuple[int, bytes]]:
    return [(version, frame(version, serialized(answer))) for version, answer in answers]


class Closed(Exception):
    """The process is shutting down: streams end, and EventSource reconnects elsewhere."""


class Channel:
    """One table followed in this process: its followers, its newest version and its recent frames.

    Every version up to ``newest`` exists in the database; ``frames`` keeps the last few, serialized.
    ``wanted`` is the newest version announced; the reader brings ``newest`` up to it.
    """

    def __init__(self, table_id: int, version: int):
        self.table_id = table_id
        self.followers = 0
        self.newest = version
        self.wanted = version
        self.frames: dict[int, bytes] = {}
        self.given: dict[int, str] = {}  # answers the bus brought, serialized, not yet framed
        self.rematch: bytes | None = None  # the rematch's frame, once this process heard of it
        self.reading = False
        self.changed = threading.Condition()

    def add(self, frames: list[tuple[int, bytes]]) -> None:
        """Keep the frames that follow ``newest`` without a gap (or fill in ``newest`` itself)."""
        for version, data in sorted(frames):
            if version == self.newest + 1:
                self.frames[version] = data
                self.newest = version
            elif version == self.newest and version not in self.frames:
                self.frames[version] = data
        for version in [v for v in self.frames if v <= self.newest - KEPT_VERSIONS]:
            del self.frames[version]
        for version in [v for v in self.given if v <= self.newest]:
            del self.given[version]
        self.wanted = max(self.wanted, self.newest)

    def cached(self, after: int, upto: int) -> list[tuple[int, bytes]] | None:
        """Frames ``after+1 .. upto`` if all are kept here, else None."""
        versions = range(after + 1, upto + 1)
        if all(v in self.frames for v in versions):
            return [(v, self.frames[v]) for v in versions]
        return None


class LocalCounts:
    """Open streams per address in this process (the production server shares counts across workers)."""

    def __init__(self):
        self.open: Counter = Counter()
        self.lock = threading.Lock()

    def admit(self, address: str, cap: int) -> bool:
        with self.lock:
            if self.open[address] >= cap:
                return False
            self.open[address] += 1
            return True

    def release(self, address: str) -> None:
        with self.lock:
            self.open[address] -= 1
            if self.open[address] <= 0:
                del self.open[address]


class Hub:
    """This process's channels, woken by the bus, and the streams' admission."""

    def __init__(self, app: Flask):
        self.app = app
        self.channels: dict[int, Channel] = {}
        self.lock = threading.Lock()
        self.counts = LocalCounts()
        self.streams = 0  # open in this process
        self.closing = False

    # --- the bus's side ---------------------------------------------------------------------------

    def wake(self, table_id: int, version: int, data: str | None = None) -> None:
        """Version ``version`` of the table exists; cheap when nobody here follows it (a tap calls this)."""
        channel = self.channels.get(table_id)
        if channel is None:
            return
        with channel.changed:
            if version <= channel.newest:
                return
            if data is not None:
                channel.given[version] = data
            channel.wanted = max(channel.wanted, version)
            if channel.reading:
                return
            channel.reading = True
        threading.Thread(target=self._read, args=(channel,), name="live-reader", daemon=True).start()

    def rematched(self, table_id: int, rematch: str) -> None:
        """The table has a rematch: its followers here are told (a stream opened later reads it)."""
        channel = self.channels.get(table_id)
        if channel is None:
            return
        with channel.changed:
            channel.rematch = rematch_frame(rematch)
            channel.changed.notify_all()

    def catch_up(self) -> None:
        """Wake-ups may have been lost: compare every followed table with the database."""
        ids = list(self.channels)
        if not ids:
            return
        with self.app.app_context():
            rows = db.session.execute(select(Table.id, Table.version).where(Table.id.in_(ids))).all()
        for table_id, version in rows:
            self.wake(table_id, version)

    def _read(self, channel: Channel) -> None:
        """Bring the channel up to the newest version announced: one read (or none) per version."""
        try:
            while True:
                with channel.changed:
                    after, wanted = channel.newest, channel.wanted
                    if wanted <= after or channel.followers == 0:
                        channel.reading = False
                        return
                    given = [channel.given.get(v) for v in range(after + 1, wanted + 1)]
                if all(data is not None for data in given):
                    frames = [(after + 1 + n, frame(after + 1 + n, data)) for n, data in enumerate(given)]
                else:
                    frames = framed(self.log_answers(channel.table_id, after))
                with channel.changed:
                    channel.add(frames)
                    if channel.newest == after and channel.wanted == wanted:
                        channel.wanted = after  # announced, yet not in the log: nothing to send
                    channel.changed.notify_all()
        except Exception:
            log.exception("live: could not read table %s", channel.table_id)
            with channel.changed:
                channel.reading = False

    def log_answers(self, table_id: int, after: int, upto: int | None = None) -> list[tuple[int, dict]]:
        """The answer of every version after ``after`` (up to ``upto``), as stored with the writes (or,
        for a version older than the log keeps answers for, rebuilt from it)."""
        kept = store.ANSWERS

        def versions(version):  # the versions its events made (or, undone, their undos), with answers kept
            joined = and_(kept.c.table_id == Event.table_id, kept.c.version == version)
            return (
                select(version, kept.c.answer)
                .outerjoin(kept, joined)
                .where(Event.table_id == table_id, version > after)
            )

        applied, undone = versions(Event.version), versions(Event.undone_version)
        if upto is not None:
            applied = applied.where(Event.version <= upto)
            undone = undone.where(Event.undone_version <= upto)
        with self.app.app_context():
            rows = db.session.execute(union_all(applied, undone)).all()
            if any(answer is None for _, answer in rows):
                table = db.session.get(Table, table_id)
                rows = [(v, store.answer_at(table, v) if answer is None else answer) for v, answer in rows]
        return sorted(rows, key=lambda row: row[0])

    # --- the followers' side ----------------------------------------------------------------------

    def follow(self, table_id: int, version: int) -> Channel:
        with self.lock:
            channel = self.channels.get(table_id)
            if channel is None:
                channel = self.channels[table_id] = Channel(table_id, version)
            channel.followers += 1
            self.streams += 1
        self.wake(table_id, version)  # the request read a version this process has not heard of yet
        return channel

    def unfollow(self, channel: Channel) -> None:
        with self.lock:
            channel.followers -= 1
            self.streams -= 1
            if channel.followers == 0 and self.channels.get(channel.table_id) is channel:
                del self.channels[channel.table_id]

    def wait(
        self,
        channel: Channel,
        sent: int,
        timeout: float,
        told: bytes | None = None,
        gone=lambda: False,
    ) -> tuple[list[tuple[int, bytes]], int]:
        """The frames after ``sent`` once there are some (none after ``timeout``), and the version they
        bring the follower to; and the rematch's frame, if the follower was not ``told`` it. `Closed`
        once the process stops or ``gone()`` says the follower left."""
        with channel.changed:
            channel.changed.wait_for(
                lambda: channel.newest > sent or _untold(channel, told) or self.closing or gone(), timeout
            )
            if self.closing or gone():
                raise Closed
            newest = channel.newest
            rematch = [(newest, channel.rematch)] if _untold(channel, told) else []
            if newest <= sent:
                return rematch, sent
            kept = channel.cached(sent, newest)
        if kept is None:  # further behind than the channel keeps (a slow follower): its own read
            kept = framed(self.log_answers(channel.table_id, sent, newest))
        return kept + rematch, newest

    def current(self, channel: Channel, table: Table) -> bytes:
        """The frame of the table's version as just read, kept for the next follower if it is the newest."""
        with channel.changed:
            data = channel.frames.get(table.version)
        if data is None:
            data = framed([(table.version, store.answer(table))])[0][1]
            with channel.changed:
                channel.add([(table.version, data)])
        return data

    def close(self) -> None:
        """End every stream (the worker is stopping)."""
        self.closing = True
        for channel in list(self.channels.values()):
            with channel.changed:
                channel.changed.notify_all()


def _untold(channel: Channel, told: bytes | None) -> bool:
    return channel.rematch is not None and channel.rematch != told


def hub(app: Flask) -> Hub:
    return app.extensions[EXTENSION]


@bp.record_once
def _install(state) -> None:
    app = state.app
    app.extensions[EXTENSION] = Hub(app)
    bus.for_app(app).subscribe(app.extensions[EXTENSION])


def _last_event_id() -> int | None:
    """The version the follower holds: ``Last-Event-ID`` (EventSource's own reconnections), else
    ``?since=`` (a page opening a stream names the version it drew: EventSource cannot set the header)."""
    raw = request.headers.get("Last-Event-ID", request.args.get("since", "")).strip()
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 12 else None


def _admit(live: Hub, address: str) -> None:
    config = current_app.config
    limit = config.get("LIVE_STREAMS_PER_PROCESS")
    if live.closing or (limit is not None and live.streams >= limit):
        raise Refusal("streams_full")
    cap = config["LIVE_STREAMS_PER_ADDRESS"]
    if not live.counts.admit(address, cap):
        raise Refusal("too_many_streams", max=cap)


def _notice_gone_clients() -> None:
    """Let the kernel drop a connection whose phone vanished (no FIN) once a keepalive goes unanswered."""
    sock = request.environ.get("gunicorn.socket")
    if sock is None or not hasattr(socket, "TCP_USER_TIMEOUT"):
        return
    if sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    milliseconds = int(2 * current_app.config["LIVE_KEEPALIVE_SECONDS"] * 1000)
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, milliseconds)


@bp.get("/api/tables/<code>/stream")
def stream(code: str):
    table = store.find_table(code)
    if table is None:
        raise Refusal("unknown_table", code=code[:20])
    live = hub(current_app)
    address = request.remote_addr or "?"
    _admit(live, address)
    channel = live.follow(table.id, table.version)

    def closed() -> None:
        live.unfollow(channel)
        live.counts.release(address)

    try:
        first = _first_frames(live, channel, table)
    except BaseException:
        closed()
        raise
    told = rematch_frame(table.rematch) if table.rematch else None
    if told:
        first.append((table.version, told))
    _notice_gone_clients()
    config = current_app.config
    response = Response(
        _events(
            live,
            channel,
            first,
            table.version,
            config["LIVE_KEEPALIVE_SECONDS"],
            lifetime(config["LIVE_STREAM_SECONDS"]),
            request.environ.get("gunicorn.socket"),
            told,
        ),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
    response.call_on_close(closed)
    return response


def _first_frames(live: Hub, channel: Channel, table: Table) -> list[tuple[int, bytes]]:
    """What a new stream sends first: the versions after Last-Event-ID, or else the current one."""
    last = _last_event_id()
    if last is None or not table.version - current_app.config["LIVE_RESUME_MAX"] <= last <= table.version:
        return [(table.version, live.current(channel, table))]
    with channel.changed:
        kept = channel.cached(last, table.version)
    if kept is not None:
        return kept
    return framed(live.log_answers(table.id, last, table.version))


def _events(
    live: Hub,
    channel: Channel,
    first: list[tuple[int, bytes]],
    sent: int,
    keepalive: float,
    lifetime: float,
    sock,
    told: bytes | None = None,
):
    gone = threading.Event()

    def hung_up() -> None:
        gone.set()
        with channel.changed:
            channel.changed.notify_all()

    stop_watching = _watch_hang_up(sock, hung_up)
    try:
        yield retry_line() + b"".join(data for _, data in first)
        ends = time.monotonic() + lifetime
        while (left := ends - time.monotonic()) > 0:
            try:
                frames, sent = live.wait(channel, sent, min(keepalive, left), told, gone.is_set)
            except Closed:
                _no_next_request(sock)
                return
            told = next((data for _, data in frames if data.startswith(REMATCH_EVENT)), told)
            if frames:
                yield b"".join(data for _, data in frames)
            elif time.monotonic() < ends:
                yield STILL_HERE
    finally:
        stop_watching()


def _watch_hang_up(sock, hung_up):
    """Call ``hung_up()`` as soon as the follower closes its end of the stream (its FIN or a reset),
    so that the stream ends and frees its address's slot at once, not at the next keep-alive write
    that fails (15 s later). A greenlet waits for the socket to be readable: a follower sends
    nothing on a stream, so readable means closed (or, if bytes came, the watch just ends). Only
    under the production server (a gevent socket); returns what stops the watch."""
    if sock is None or not getattr(sock, "fileno", None):
        return lambda: None
    import gevent
    from gevent import monkey
    from gevent.socket import wait_read

    if not monkey.is_module_patched("socket"):
        return lambda: None

    def watch() -> None:
        try:
            wait_read(sock.fileno())
            closed = not sock.recv(1, socket.MSG_PEEK)
        except OSError:
            closed = True
        if closed:
            hung_up()

    watcher = gevent.spawn(watch)
    return watcher.kill


def _no_next_request(sock) -> None:
    """The process is stopping: the connection ends with this stream instead of idling for another request."""
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RD)


@bp.after_request
def _retry_after(response):
    if response.status_code in (429, 503) and "Retry-After" not in response.headers:
        response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
