"""QR codes: an SVG for the screens and a text drawing for the terminal that runs `companion serve`."""

from __future__ import annotations

import io

import qrcode
import qrcode.image.svg


def svg(data: str) -> bytes:
    image = qrcode.make(data, image_factory=qrcode.image.svg.SvgPathFillImage, border=2)
    out = io.BytesIO()
    image.save(out)
    return out.getvalue()


def terminal(data: str) -> str:
    code = qrcode.QRCode(border=1)
    code.add_data(data)
    out = io.StringIO()
    code.print_ascii(out=out, invert=True)
    return out.getvalue()
