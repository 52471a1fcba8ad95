"""Followers that lose their streams together do not all come back together (issue 28, item 3).

When a server process stops, every stream it served ends at the same moment; when it is back, the
streams begun then would all end at the same moment again. The server draws, per stream, the wait
EventSource takes before it reconnects (``retry:``, within `streams.RETRY_MS`) and the stream's life
(``LIVE_STREAM_SECONDS`` less up to `streams.LIFETIME_SPREAD` of it). The pages' own reconnection
policy (random, growing waits) is tested in e2e/test_reconnect.py.
"""

from __future__ import annotations

import re

import pytest

from companion.live import streams

STREAMS = 40


def retry_ms(first: bytes) -> int:
    found = re.match(rb"retry: (\d+)\n\n", first)
    assert found, first[:40]
    return int(found.group(1))


@pytest.mark.parametrize(("draw", "ms"), [(0.0, 1000), (0.5, 3000), (1.0, 5000)])
def test_the_retry_line_spans_its_range(draw, ms):
    assert streams.retry_line(lambda: draw) == f"retry: {ms}\n\n".encode()


@pytest.mark.parametrize(("draw", "seconds"), [(0.0, 300.0), (0.5, 262.5), (1.0, 225.0)])
def test_a_streams_life_is_shortened_by_at_most_a_quarter(draw, seconds):
    assert streams.lifetime(300.0, lambda: draw) == pytest.approx(seconds)


def test_each_stream_draws_its_own_retry_wait(app, client, make_table):
    """Forty followers of one table, as a server's phones reconnecting after it stopped: their
    EventSource waits are spread over the range, not one value for all."""
    table = make_table()
    app.config.update(LIVE_STREAMS_PER_ADDRESS=STREAMS)
    waits = []
    for _ in range(STREAMS):
        response = client.get(f"/api/tables/{table.code}/stream")
        try:
            assert response.status_code == 200
            waits.append(retry_ms(next(iter(response.response))))
        finally:
            response.close()
    low, high = streams.RETRY_MS
    assert all(low <= wait <= high for wait in waits), waits
    # Forty draws from 4,001 values: all in one half of the range, or ten alike, would be a fixed wait.
    assert min(waits) < (low + high) / 2 < max(waits), waits
    assert max(waits.count(wait) for wait in waits) < 10, waits
