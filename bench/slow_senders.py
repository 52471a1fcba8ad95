"""Slow senders beside a bystander: can bodies sent a byte at a time starve the server's workers?

Run: .venv/bin/python bench/slow_senders.py [--senders 2500] [--addresses 1] [--open-files 1024]
     [--seconds 20]

1. ``companion serve`` (gunicorn, gevent workers, SQLite) with its open-file limit set to
   ``--open-files`` (soft and hard): each worker then holds that many connections less 200.
2. *Baseline*: a bystander (its own address, 127.0.0.1) asks ``GET /api/tables/<code>`` on a new
   connection every 50 ms for 5 s, alone.
3. *Load*: ``--senders`` connections from ``--addresses`` addresses (127.0.1.1, 127.0.1.2, ...), each
   the head of a ``POST /api/tables/<code>/checks/reveal`` (a request that reads its body, which no
   rate limit counts) with ``Content-Length: 1000``, then one byte of the body every 2 s
   (a thread walks them all), for ``--seconds``; the bystander goes on asking meanwhile. A
   request of the bystander that is not answered within 10 s counts as *unanswered* (the figure
   before the server bounded slow senders: it never was). A sender whose connection is closed
   is replaced by a new one at the next round (2 s later), as an attacker keeping its connections
   open would; ``--once``: never replaced.

Printed: the bystander's latency alone and under load (median, p95, max, unanswered), and what the
slow senders were answered (408 too slow, 429 too many connections, closed unanswered). The
machine's load average is printed: the benchmark shares two cores with whatever else runs.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import resource
import socket
import sys
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import load_average, serving, summary  # noqa: E402

BYSTANDER_PAUSE = 0.05
BYSTANDER_TIMEOUT = 10.0
DRIP_SECONDS = 2.0


def head(path: str) -> bytes:
    """A request that reads its body (a rule check of the bystander's table: no rate limit counts it)
    with the first byte of its body."""
    return (
        f"POST {path} HTTP/1.1\r\nHost: arbitre\r\nContent-Type: application/json\r\n"
        "Content-Length: 1000\r\n\r\n{"
    ).encode()


def bystander(port: int, path: str, seconds: float) -> tuple[list[float], int]:
    """Latencies of the answered requests (ms), and how many were not answered within the timeout."""
    latencies, unanswered = [], 0
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        start = time.perf_counter()
        try:
            with urllib.request.urlopen(
                f"http://127.0.0.1:{port}{path}", timeout=BYSTANDER_TIMEOUT
            ) as answer:
                answer.read()
            latencies.append((time.perf_counter() - start) * 1e3)
        except OSError:
            unanswered += 1
        time.sleep(BYSTANDER_PAUSE)
    return latencies, unanswered


class Senders:
    """``count`` slow bodies from ``addresses`` addresses, a byte each every ``DRIP_SECONDS``."""

    def __init__(self, port: int, path: str, count: int, addresses: int, replace: bool = True):
        self.port, self.head, self.count, self.replace = port, head(path), count, replace
        self.addresses = [f"127.0.1.{n + 1}" for n in range(addresses)]
        self.outcomes: collections.Counter = collections.Counter()
        self.stop = threading.Event()
        self.sockets: list[socket.socket] = []

    def _open(self, n: int) -> socket.socket | None:
        try:
            sock = socket.socket()
            sock.bind((self.addresses[n % len(self.addresses)], 0))
            sock.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                sock.connect(("127.0.0.1", self.port))
            return sock
        except OSError:
            self.outcomes["could not connect"] += 1
            return None

    def _outcome(self, sock: socket.socket) -> str | None:
        """What the server said and did, if anything: None while it only waits."""
        try:
            data = sock.recv(4096)
        except BlockingIOError:
            return None
        except OSError:
            return "reset"
        if not data:
            return "closed unanswered"
        status = data.split(b" ", 2)[1].decode(errors="replace")
        code = data.partition(b"\r\n\r\n")[2]
        with contextlib.suppress(ValueError, KeyError):
            return f"{status} {json.loads(code)['error']['code']}"
        return status

    def run(self) -> None:
        self.sockets = [self._open(n) for n in range(self.count)]
        sent_head = [False] * self.count
        while not self.stop.is_set():
            started = time.monotonic()
            for n, sock in enumerate(self.sockets):
                if sock is None:
                    if self.replace:
                        self.sockets[n] = self._open(n)
                        sent_head[n] = False
                    continue
                outcome = self._outcome(sock)
                if outcome is not None:
                    self.outcomes[outcome] += 1
                    sock.close()
                    self.sockets[n] = None
                    continue
                try:
                    sock.send(b" " if sent_head[n] else self.head)
                    sent_head[n] = True
                except BlockingIOError:  # not connected yet (the server's backlog)
                    pass
                except OSError:
                    self.outcomes["reset"] += 1
                    sock.close()
                    self.sockets[n] = None
            self.stop.wait(max(0.0, DRIP_SECONDS - (time.monotonic() - started)))
        for sock in self.sockets:
            if sock is not None:
                sock.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--senders", type=int, default=2500, help="slow bodies open at once")
    parser.add_argument("--addresses", type=int, default=1, help="addresses they come from")
    parser.add_argument("--open-files", type=int, default=1024, help="the server's limit on open files")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of the load phase")
    parser.add_argument("--once", action="store_true", help="a sender closed is not replaced")
    parser.add_argument("--log", default=None, help="where to copy the server's log")
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this process holds every sender
    with serving({"DATABASE_URL": ""}, open_files=args.open_files, log_copy=args.log) as (base, _process):
        port = int(base.rsplit(":", 1)[1])
        request = urllib.request.Request(
            base + "/api/tables",
            json.dumps({"game": "morto", "players": ["Ada", "Bruno", "Chiara"]}).encode(),
            {"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            path = f"/api/tables/{json.load(answer)['code']}"
        load_before = load_average()
        alone, alone_unanswered = bystander(port, path, 5.0)
        senders = Senders(port, f"{path}/checks/reveal", args.senders, args.addresses, replace=not args.once)
        thread = threading.Thread(target=senders.run, daemon=True)
        thread.start()
        time.sleep(2 * DRIP_SECONDS)  # every sender has sent its head and a first byte
        loaded, loaded_unanswered = bystander(port, path, args.seconds)
        senders.stop.set()
        thread.join(30)
        load_after = load_average()
    print()
    print(
        f"server: {args.open_files} open files, default workers; {args.senders} slow senders from "
        f"{args.addresses} address(es), a byte every {DRIP_SECONDS:g} s, "
        + ("never replaced" if args.once else "each closed one replaced")
    )
    print(summary("bystander alone", alone), f"  max {max(alone):8.2f} ms   unanswered {alone_unanswered}")
    if loaded:
        print(
            summary("bystander beside the slow senders", loaded),
            f"  max {max(loaded):8.2f} ms   unanswered {loaded_unanswered}",
        )
    else:
        print(f"{'bystander beside the slow senders':<44} no answer; unanswered {loaded_unanswered}")
    outcomes = ", ".join(f"{outcome}: {count}" for outcome, count in senders.outcomes.most_common())
    print(f"the slow senders were answered: {outcomes or 'nothing'}")
    print(f"machine load average (1 min), before / after: {load_before} / {load_after} (2 cores)")


if __name__ == "__main__":
    main()
