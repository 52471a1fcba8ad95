"""Counters every worker of the production server shares: streams and connections open per address,
and each table's writes this minute (`companion.web.limits` counts them in one process otherwise).

They live in memory the arbiter maps before forking (`SharedRows`): one row of counters per worker,
written only by that worker, read by all; a dead worker's row is cleared by the arbiter.
"""

from __future__ import annotations

import mmap
import struct
import time
import zlib


class SharedRows:
    """Counters in memory the arbiter maps before forking, shared by every worker: one row of
    ``SLOTS`` counters per worker, written only by that worker (no lock), read by all; a dead
    worker's row is cleared by the arbiter. Keys are hashed to a slot: two keys sharing one share
    its count, which with 65,536 slots is rare and costs only a stricter limit for those two."""

    SLOTS = 65536
    CELLS = 1  # numbers per slot
    TYPE = "H"  # their type (array module codes)

    def __init__(self, rows: int):
        self.rows = rows
        self.width = self.SLOTS * self.CELLS
        self.row_bytes = self.width * struct.calcsize(self.TYPE)
        self.memory = mmap.mmap(-1, rows * self.row_bytes)  # anonymous and shared with forked children
        self.table = memoryview(self.memory).cast(self.TYPE)
        self.row: int | None = None  # this worker's row, once forked

    def clear(self, row: int) -> None:
        self.memory[row * self.row_bytes : (row + 1) * self.row_bytes] = bytes(self.row_bytes)

    def _slot(self, key: str) -> int:
        return zlib.crc32(key.encode()) % self.SLOTS


class SharedCounts(SharedRows):
    """Things open per address (streams, connections), summed over the workers."""

    def admit(self, address: str, cap: int) -> bool:
        slot = self._slot(address)
        if sum(self.table[row * self.SLOTS + slot] for row in range(self.rows)) >= cap:
            return False
        index = self.row * self.SLOTS + slot
        self.table[index] = min(self.table[index] + 1, 0xFFFF)
        return True

    def release(self, address: str) -> None:
        index = self.row * self.SLOTS + self._slot(address)
        if self.table[index]:
            self.table[index] -= 1


class SharedWindows(SharedRows):
    """Hits per key in the current window of time (a table's writes in this minute), summed over
    the workers: each slot holds the window's number and this worker's hits in it."""

    CELLS = 2
    TYPE = "I"

    def hit(self, key: str, cap: int, seconds: float) -> float:
        """One more hit on ``key`` if the window holds fewer than ``cap``: 0; else the seconds left
        until the next window, and nothing counted."""
        now = time.time()
        window = int(now // seconds) & 0xFFFFFFFF
        slot = self._slot(key)
        cells = [(row * self.SLOTS + slot) * 2 for row in range(self.rows)]
        if sum(self.table[i + 1] for i in cells if self.table[i] == window) >= cap:
            return seconds - now % seconds
        own = cells[self.row]
        if self.table[own] != window:
            self.table[own], self.table[own + 1] = window, 0
        self.table[own + 1] = min(self.table[own + 1] + 1, 0xFFFFFFFF)
        return 0.0
