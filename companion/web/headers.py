"""Security headers on every answer: pages, static files, the API, the service worker, the stream.

One ``after_request`` hook, registered by the app factory. What the Content-Security-Policy allows,
and why each source is there:

- ``default-src 'self'``: anything not named below comes from this server only.
- ``script-src 'self' 'wasm-unsafe-eval'``: scripts are the ES modules under ``/static/js/`` and
  the Pyodide runtime under ``/pyodide/``, never inline (the pages' JSON data blocks,
  ``<script type="application/json">``, are data, not run). ``'wasm-unsafe-eval'`` lets Pyodide
  compile its WebAssembly (the engine worker) and nothing else: no ``eval``, no ``new Function``.
- ``worker-src 'self'``: the engine's Web Worker (``/static/v/<version>/js/engine-worker.js``, a
  module worker) and the service worker (``/sw.js``) are both same-origin files; Pyodide makes no
  blob: worker.
- ``connect-src 'self'``: the API, the live stream (EventSource), the engine bundle and the
  Pyodide files the worker fetches.
- ``img-src 'self'``: the icons and the QR code SVG of ``/api/tables/<code>/qr.svg``. The snapshot
  and hand-over QR codes are inline SVG elements drawn by the worker, not data: images.
- ``style-src 'self' 'unsafe-inline'`` with ``style-src-elem 'self'``: the pages build elements
  with ``h()`` (``static/js/ui.js``), which sets ``style`` attributes (a player's colour,
  ``--pc:…``, in the Grand Jeu de la Vie) with ``setAttribute``; without ``'unsafe-inline'`` a
  browser drops them. ``style-src-elem 'self'`` still keeps ``<style>`` elements and stylesheets to
  this server's own, so only attributes are inline; a browser without ``style-src-elem`` allows
  inline ``<style>`` as well, which is no worse than before. A style attribute cannot select other
  elements nor run script, and its ``url()`` is held to ``img-src 'self'``.
- ``object-src 'none'``, ``base-uri 'none'``, ``form-action 'self'``, ``frame-ancestors 'none'``:
  no plugins, no ``<base>`` to redirect relative URLs, forms post here only, and no page of ours
  inside someone else's frame (``X-Frame-Options: DENY`` says the same to older browsers).

No ``upgrade-insecure-requests`` nor HSTS: ``companion serve`` is reached over plain HTTP on the
local network.

Also ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer`` (the hand-over link
carries the referee secret in its fragment, and a table's code is in every URL), and
``Cache-Control: no-store`` on every API answer that sets no Cache-Control of its own (a new
table's answer carries its secret; the QR SVG and the stream set theirs).
"""

from __future__ import annotations

from flask import Flask, Response, request

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self' 'wasm-unsafe-eval'",
        "worker-src 'self'",
        "connect-src 'self'",
        "img-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "style-src-elem 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


def secure(response: Response) -> Response:
    for name, value in HEADERS.items():
        response.headers[name] = value
    if request.path.startswith("/api/") and "Cache-Control" not in response.headers:
        response.headers["Cache-Control"] = "no-store"
    return response


def register(app: Flask) -> None:
    app.after_request(secure)
