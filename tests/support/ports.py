"""Free local ports for the servers the tests and benchmarks start."""

from __future__ import annotations

import os
import random
import socket
from pathlib import Path

HOST = "127.0.0.1"


def free_port(host: str = HOST) -> int:
    """A port nobody listens on now (the kernel's choice, in the ephemeral range)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def steady_port(host: str = HOST) -> int:
    """A free port below the ephemeral range, as a server's own port is: a server restarted on it
    finds it free, since a client connecting in a loop meanwhile (from ephemeral ports) can never
    occupy it (a loopback connect to a port nobody listens on may connect to itself)."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return free_port(host)
    chooser = random.Random(os.urandom(8))
    for _ in range(200):
        port = chooser.randrange(10_000, low)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            try:
                probe.bind((host, port))
            except OSError:
                continue
            return port
    return free_port(host)
