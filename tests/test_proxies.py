"""Behind reverse proxies (docs/DEPLOY.md): ``PROXIES`` (``ARBITRE_PROXIES``) says how many to
believe, and the limits per address then count the phone's address the nearest proxy saw
(``X-Forwarded-For``), not the proxy's own, which every phone would share. With no proxy declared,
the header is a stranger's word: ignored, so no client can dodge a limit by sending one.
"""

from __future__ import annotations

import pytest

from tests.conftest import dispose

PROXY = "10.0.0.1"  # every request arrives from the proxy's address
PLAYERS = ["Ada", "Bruno", "Chiara"]


@pytest.fixture(params=[0, 1], ids=["no proxy", "one proxy"])
def proxied(request, tmp_path, monkeypatch):
    """The app on SQLite, believing ``request.param`` proxies; one stream per address."""
    from companion import create_app
    from companion.cli import upgrade_database

    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("ARBITRE_INSTANCE", str(tmp_path / "instance"))
    app = create_app({"TESTING": True, "PROXIES": request.param, "LIVE_STREAMS_PER_ADDRESS": 1})
    upgrade_database(app)
    try:
        yield app, request.param
    finally:
        dispose(app)


def stream(client, code: str, phone: str):
    return client.get(
        f"/api/tables/{code}/stream",
        environ_base={"REMOTE_ADDR": PROXY},
        headers={"X-Forwarded-For": phone},
    )


def test_the_stream_cap_counts_the_phones_address_only_behind_a_declared_proxy(proxied):
    app, proxies = proxied
    client = app.test_client()
    created = client.post("/api/tables", json={"game": "morto", "players": PLAYERS})
    assert created.status_code == 201
    code = created.get_json()["code"]
    first = stream(client, code, "192.0.2.10")
    assert first.status_code == 200
    other = stream(client, code, "192.0.2.11")  # another phone, through the same proxy
    same = stream(client, code, "192.0.2.10")  # the first phone again
    try:
        if proxies:
            assert other.status_code == 200
            assert same.status_code == 429 and same.get_json()["error"]["code"] == "too_many_streams"
        else:  # the header is ignored: both count as the proxy's address, which holds its one stream
            assert other.status_code == 429 and same.status_code == 429
    finally:
        for response in (first, other, same):
            response.close()
