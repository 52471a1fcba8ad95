"""How long a request spent in each phase of its path, said in the standard ``Server-Timing``
header (W3C Server Timing) when the app is configured so (``SERVER_TIMING``, or
``ARBITRE_SERVER_TIMING=true``): the public hook benchmarks time the app through (`bench/tap_time.py`
reads it), and what a browser's developer tools show. Off by default: the figures would tell a
stranger how busy the server is.

A phase is timed by ``with phase("commit"):`` (`companion.web.api.write` names its steps so);
``app`` is the whole request, from the first hook before the view to the last after it.
"""

from __future__ import annotations

import time
from contextlib import contextmanager

from flask import Flask, Response, current_app, g

KEY = "arbitre_timings"


def _on() -> bool:
    return bool(current_app.config.get("SERVER_TIMING"))


@contextmanager
def phase(name: str):
    """Times what runs inside it as the phase ``name`` of this request (nothing when off)."""
    if not _on():
        yield
        return
    start = time.perf_counter()
    try:
        yield
    finally:
        g.setdefault(KEY, []).append((name, time.perf_counter() - start))


def phases() -> list[tuple[str, float]]:
    """This request's phases so far, in seconds, in the order they ended."""
    return list(g.get(KEY, ()))


def install(app: Flask) -> None:
    app.config.setdefault("SERVER_TIMING", False)

    @app.before_request
    def _start() -> None:
        if _on():
            g.arbitre_started = time.perf_counter()

    @app.after_request
    def _said(response: Response) -> Response:
        if _on() and "arbitre_started" in g:
            timed = [*phases(), ("app", time.perf_counter() - g.arbitre_started)]
            response.headers["Server-Timing"] = ", ".join(
                f"{name};dur={seconds * 1000:.3f}" for name, seconds in timed
            )
        return response
