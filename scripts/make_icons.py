"""Draws the app's PNG icons (a die showing five) with the standard library only.

Run once after changing the design: `python3 scripts/make_icons.py`; the PNGs are committed.
Maskable icons fill the whole square and keep the die inside the central safe zone (80 %).
"""

import struct
import zlib
from pathlib import Path

BG = (0x1D, 0x1B, 0x2F)
DIE = (0xFF, 0xB3, 0x47)
OUT = Path(__file__).resolve().parent.parent / "static" / "icons"


def inside_rounded(x, y, left, top, size, radius):
    right, bottom = left + size, top + size
    if not (left <= x < right and top <= y < bottom):
        return False
    cx = min(max(x, left + radius), right - radius)
    cy = min(max(y, top + radius), bottom - radius)
    return (x - cx) ** 2 + (y - cy) ** 2 <= radius**2


def draw(size, maskable):
    scale = 0.62 if maskable else 0.56
    die = size * scale
    left = top = (size - die) / 2
    pip = die * 0.1
    centres = [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)]
    pips = [(left + die * u, top + die * v) for u, v in centres]
    rows = []
    for y in range(size):
        row = bytearray([0])
        for x in range(size):
            px, py = x + 0.5, y + 0.5
            if not maskable and not inside_rounded(px, py, 0, 0, size, size * 0.19):
                row += bytes((0, 0, 0, 0))
            elif inside_rounded(px, py, left, top, die, die * 0.18) and not any(
                (px - cx) ** 2 + (py - cy) ** 2 <= pip**2 for cx, cy in pips
            ):
                row += bytes((*DIE, 255))
            else:
                row += bytes((*BG, 255))
        rows.append(bytes(row))
    return png(size, b"".join(rows))


def png(size, raw):
    def chunk(kind, data):
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    chunks = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + chunks


if __name__ == "__main__":
    for size in (192, 512):
        (OUT / f"icon-{size}.png").write_bytes(draw(size, maskable=False))
        (OUT / f"maskable-{size}.png").write_bytes(draw(size, maskable=True))
