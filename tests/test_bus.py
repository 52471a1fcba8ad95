"""The live bus (`companion.live.bus`) within a process and between the processes of one SQLite database.

- A started bus (the production server's) hands its own process's messages to a thread, in the
  order published, a rematch after the wake-ups before it; a bus never started delivers at once.
- A peer too busy to read its datagrams in time still gets its wake-ups, merged, once it reads
  again. The peer is a bare datagram socket in the transport's folder whose queue the test fills
  and then empties; the transport's timeout is lowered so that a send gives up quickly.

Waits are bounded by ``WAIT_SECONDS``: they keep a broken bus from hanging the suite and assert
nothing about speed.
"""

from __future__ import annotations

import logging
import socket
import threading
import time

from flask import Flask

from companion.live import bus

WAIT_SECONDS = 10


def test_a_peer_too_busy_to_read_in_time_gets_the_newest_wake_up_once_it_reads(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(bus, "SEND_TIMEOUT_SECONDS", 0.1)
    transport = bus._Datagrams(bus.Bus(Flask(__name__)), tmp_path / "arbitre.sqlite")
    transport.start()
    path = transport.folder / "peer"
    peer = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    peer.bind(str(path))
    filler = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    filler.setblocking(False)
    try:
        filled = 0
        while True:  # the peer's queue full, as a process that has not read for a while
            try:
                filler.sendto(b"1:1", str(path))
            except BlockingIOError:
                break
            filled += 1
        assert filled > 0
        with caplog.at_level(logging.WARNING, logger="companion.live.bus"):
            transport.send([(7, 41, "{}")])
            transport.send([(7, 42, "{}"), (8, 3, "{}")])
            deadline = time.monotonic() + WAIT_SECONDS
            while not caplog.records:  # a send timed out: the peer did not read
                assert time.monotonic() < deadline, "the send never waited for the peer"
                time.sleep(0.01)
        peer.settimeout(WAIT_SECONDS)
        heard: list[str] = []
        while not {"7:42", "8:3"} <= set(heard):  # the peer reads again: what it missed comes
            try:
                heard += peer.recv(65536).decode().split()
            except TimeoutError:
                raise AssertionError(
                    f"the peer never heard of versions 7:42 and 8:3, only {set(heard)}"
                ) from None
        assert "7:41" not in heard  # merged: the newest version of a table is all a wake-up says
    finally:
        transport.stop()
        filler.close()
        peer.close()
        path.unlink(missing_ok=True)


def test_a_started_bus_delivers_its_own_processs_messages_in_order_after_the_writer_moved_on():
    """In the production server (`Bus.start`) a write's wake-up is handed to a thread of this process,
    so the write answers first; what is published is still delivered in order, a rematch after the
    wake-ups published before it."""
    app = Flask(__name__)
    app.config["SQLALCHEMY_DATABASE_URI"] = "sqlite://"  # no other process: no transport
    told: list[tuple] = []
    done = threading.Event()

    class Recorder:
        def wake(self, table_id, version, data):
            told.append(("wake", table_id, version, data))

        def rematched(self, table_id, code):
            told.append(("rematch", table_id, code))
            done.set()

        def catch_up(self):
            pass

    started = bus.for_app(app)
    started.subscribe(Recorder())
    started.start()
    try:
        with app.app_context():
            started.publish(3, 1, {}, "a")
            started.publish(3, 2, {"v": 2})
            bus.publish_rematch(3, "NEWONE")
        assert done.wait(WAIT_SECONDS), told
        assert told == [("wake", 3, 1, "a"), ("wake", 3, 2, '{"v":2}'), ("rematch", 3, "NEWONE")]
    finally:
        started.stop()


def test_a_bus_never_started_delivers_at_once():
    """The test client's app (and any app whose bus was not started): delivery is a function call."""
    app = Flask(__name__)
    told: list[tuple] = []

    class Recorder:
        def wake(self, table_id, version, data):
            told.append((table_id, version, data))

        def catch_up(self):
            pass

    unstarted = bus.for_app(app)
    unstarted.subscribe(Recorder())
    unstarted.publish(5, 7, {}, "x")
    assert told == [(5, 7, "x")]
