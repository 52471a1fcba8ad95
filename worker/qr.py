"""QR codes drawn on the phone, for URLs the server must never see (a referee's secret in a
fragment) or may not reach (a snapshot of the table opened with no network)."""

from __future__ import annotations

import base64
import json
import zlib


def snapshot_fragment(view: dict) -> str:
    """A table view packed for a URL fragment: compact JSON, deflated, base64url without padding."""
    raw = json.dumps(view, separators=(",", ":"), ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def snapshot_view(fragment: str) -> dict:
    """The inverse of `snapshot_fragment`."""
    padded = fragment + "=" * (-len(fragment) % 4)
    return json.loads(zlib.decompress(base64.urlsafe_b64decode(padded)))


def qr(request: dict) -> dict:
    """A QR code (SVG) of ``text``; ``svg`` is None with an error when the text cannot fit."""
    import qrcode  # bundled for the browser with the engine; imported late: only QR codes need it
    import qrcode.image.svg

    code = qrcode.QRCode(
        error_correction=qrcode.constants.ERROR_CORRECT_L,
        border=2,
        image_factory=qrcode.image.svg.SvgPathFillImage,
    )
    code.add_data(request["text"])
    try:
        code.make(fit=True)
    except qrcode.exceptions.DataOverflowError:
        return {"svg": None, "error": {"code": "qr_too_large", "params": {"length": len(request["text"])}}}
    return {"svg": code.make_image().to_string(encoding="unicode")}


def snapshot_qr(request: dict) -> dict:
    """The snapshot URL for ``view`` and its QR code, made on the phone with no server."""
    url = request["base"] + "#" + snapshot_fragment(request["view"])
    return {"url": url, **qr({"text": url})}
