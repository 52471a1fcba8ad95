"""The app's public timing hook (companion/web/timing.py): a write's phases in the standard
Server-Timing header when the app is configured so, and nothing said otherwise."""

from __future__ import annotations

import re

import pytest


def _said(response) -> list[str]:
    header = response.headers.get("Server-Timing")
    assert header is not None
    found = [re.fullmatch(r"([a-z]+);dur=(\d+\.\d{3})", part.strip()) for part in header.split(",")]
    assert all(found), header
    return [match[1] for match in found]


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_a_tap_says_its_phases_in_order_when_the_app_is_configured_so(app, make_table):
    app.config["SERVER_TIMING"] = True
    table = make_table()
    tap = table.post("touched_early", id="tap-1", player="p2")
    assert tap.status_code == 201
    assert _said(tap) == ["access", "body", "commit", "publish", "app"]
    again = table.post("touched_early", id="tap-1", player="p2")
    assert again.status_code == 201
    assert _said(again) == ["access", "body", "commit", "app"]  # a retry answered from the log: no publish
    refused = table.post("touched_early", player="p99")
    assert refused.status_code == 422
    assert _said(refused) == ["access", "body", "commit", "app"]
    assert _said(table.client.get(f"/api/tables/{table.code}")) == ["app"]


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_nothing_is_said_by_default(app, make_table):
    table = make_table()
    assert "Server-Timing" not in table.post("touched_early", player="p2").headers
    assert "Server-Timing" not in table.client.get(f"/api/tables/{table.code}").headers
