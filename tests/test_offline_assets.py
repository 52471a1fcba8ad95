"""The offline side of the server: the engine bundle the browser runs, the service worker (the shell's
precache and the engine runtime's, apart), the manifest, the Pyodide runtime (gzip on the wire), text
answers compressed (Flask-Compress), versioned static URLs cached as immutable, and the JSON edge the
engine worker calls."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest

from engine import core
from engine.messages import catalogue
from worker import jsonio, qr


def test_bundle_holds_the_whole_engine_and_runs_alone(client, tmp_path):
    """The bundled files alone (no site-packages) run the engine and draw a snapshot QR, as Pyodide will."""
    bundle = client.get("/engine/bundle.json").get_json()
    assert {
        "engine/core.py",
        "engine/morto.py",
        "engine/existentiel.py",
        "engine/gjdlv.py",
        "engine/messages.py",
        "engine/i18n/fr/common.json",
        "engine/i18n/en/morto.json",
        "worker/jsonio.py",
        "worker/qr.py",
        "qrcode/__init__.py",
    } <= set(bundle["files"])
    for name, source in bundle["files"].items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(source)
    script = (
        "import sys, json; sys.path[:] = [sys.argv[1]] + [p for p in sys.path if 'site-packages' not in p];\n"
        "from worker import jsonio, qr\n"
        "print(json.dumps(jsonio.warm({})))\n"
        "r = qr.snapshot_qr({'base': 'http://t/s', 'view': {'game': 'morto', 'state': {}}})\n"
        "print(r['svg'][:4], r['url'].startswith('http://t/s#'))\n"
    )
    out = subprocess.run([sys.executable, "-I", "-c", script, str(tmp_path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    warm, qr = out.stdout.splitlines()
    assert json.loads(warm) == {"games": sorted(core.GAME_MODULES), "messages": len(catalogue())}
    assert qr == "<svg True"


def test_bundle_is_gzipped_on_the_wire_when_asked(client):
    plain = client.get("/engine/bundle.json")
    packed = client.get("/engine/bundle.json", headers={"Accept-Encoding": "gzip"})
    assert packed.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["Vary"]
    assert gzip.decompress(packed.data) == plain.data
    assert len(packed.data) < len(plain.data) / 2


def sw_list(body: str, name: str) -> list[str]:
    return json.loads(body.split(f"const {name} = ", 1)[1].split(";\n", 1)[0])


def test_service_worker_precaches_the_shell_and_keeps_the_runtime_apart(client):
    response = client.get("/sw.js")
    assert response.mimetype == "text/javascript"
    assert response.headers["Cache-Control"] == "no-cache"
    body = response.get_data(as_text=True)
    version = offline_version(client)
    shell, engine = sw_list(body, "SHELL_ASSETS"), sw_list(body, "ENGINE_ASSETS")
    for url in (
        "/",
        "/s",
        "/manifest.webmanifest",
        f"/static/v/{version}/js/referee.js",
        f"/static/v/{version}/js/engine-worker.js",
        f"/static/v/{version}/js/games/morto.js",
        f"/static/v/{version}/css/app.css",
    ):
        assert url in shell
    # A follower's phone precaches the shell only: the runtime and the bundle are the referee's.
    assert not [url for url in shell if url.startswith(("/pyodide/", "/engine/"))]
    assert "/engine/bundle.json" in engine and "/pyodide/pyodide.asm.wasm" in engine
    assert sw_list(body, "CATALOGUES") == ["/i18n/fr.json", "/i18n/en.json"]
    for url in shell + engine:  # everything it will precache exists, or the install would fail
        with client.get(url) as asset:
            assert asset.status_code == 200, url


def offline_version(client) -> str:
    body = client.get("/sw.js").get_data(as_text=True)
    return body.split('const VERSION = "', 1)[1].split('"', 1)[0]


def test_pages_link_versioned_static_files_cached_as_immutable(client, make_table):
    version = offline_version(client)
    table = make_table()
    page = client.get(f"/r/{table.code}").get_data(as_text=True)
    assert f'src="/static/v/{version}/js/referee.js"' in page
    assert f'href="/static/v/{version}/css/app.css"' in page
    assert 'src="/static/js/' not in page and 'href="/static/css/' not in page
    with client.get(f"/static/v/{version}/js/sync.js") as response:
        assert response.status_code == 200 and response.mimetype == "text/javascript"
        assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    # Another version's folder (an old page after a deployment): today's file, never kept as that version.
    with client.get("/static/v/000000000000/js/sync.js") as response:
        assert response.status_code == 200
        assert response.headers["Cache-Control"] == "no-cache"
    # Unversioned: revalidated, never immutable.
    with client.get("/static/js/sync.js") as response:
        assert "immutable" not in response.headers.get("Cache-Control", "")
        assert "no-cache" in response.headers.get("Cache-Control", "no-cache")
    assert client.get(f"/static/v/{version}/js/nope.js").status_code == 404
    assert client.get(f"/static/v/{version}/../companion/__init__.py").status_code == 404


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/static/v/{version}/js/sync.js",
        "/static/v/{version}/css/app.css",
        "/static/js/sync.js",
        "/i18n/fr.json",
        "/engine/bundle.json",
    ],
)
def test_text_answers_are_compressed_when_the_browser_asks(client, path):
    path = path.format(version=offline_version(client))
    plain = client.get(path)
    assert "Content-Encoding" not in plain.headers  # no Accept-Encoding: identity
    packed = client.get(path, headers={"Accept-Encoding": "gzip, deflate"})
    assert packed.headers["Content-Encoding"] == "gzip", path
    assert "Accept-Encoding" in packed.headers["Vary"]
    assert gzip.decompress(packed.data) == plain.data
    assert len(packed.data) < len(plain.data)
    again = client.get(path, headers={"Accept-Encoding": "gzip, deflate"})
    if path != "/" and not path.startswith("/static/js"):
        assert again.data == packed.data  # fixed by the version: compressed once, from the cache
    else:  # compressed afresh: gzip stamps the moment, so only the content is the same
        assert gzip.decompress(again.data) == plain.data


def test_a_conditional_request_for_a_compressed_catalogue_is_answered_not_modified(client):
    first = client.get("/i18n/fr.json", headers={"Accept-Encoding": "gzip"})
    again = client.get(
        "/i18n/fr.json", headers={"Accept-Encoding": "gzip", "If-None-Match": first.headers["ETag"]}
    )
    assert again.status_code == 304


def test_the_live_stream_is_never_compressed(client, make_table):
    table = make_table()
    with client.get(
        f"/api/tables/{table.code}/stream", headers={"Accept-Encoding": "gzip, br, zstd"}, buffered=False
    ) as response:
        assert response.mimetype == "text/event-stream"
        assert "Content-Encoding" not in response.headers
        assert response.is_streamed


def test_the_version_changes_with_the_engine(app, client, monkeypatch):
    first = client.get("/sw.js").get_data(as_text=True)
    app.extensions.pop("arbitre_offline")
    from companion.pwa import offline

    original = offline._bundle_sources

    def changed():
        files = original()
        return {**files, "engine/extra.py": files["engine/core.py"]}

    monkeypatch.setattr(offline, "_bundle_sources", changed)
    second = client.get("/sw.js").get_data(as_text=True)
    version = lambda text: text.split('const VERSION = "', 1)[1].split('"', 1)[0]  # noqa: E731
    assert version(first) != version(second)


def test_the_version_changes_with_a_sentence_of_the_engine(app, client, monkeypatch, tmp_path):
    """A sentence is part of the engine the phone runs: a change to a catalogue file is a new version."""
    from companion.pwa import offline

    first = client.get("/sw.js").get_data(as_text=True)
    app.extensions.pop("arbitre_offline")
    files = offline._bundle_sources()
    words = json.loads(files["engine/i18n/fr/morto.json"].read_text("utf-8"))
    words["morto.same_player"] += " "
    changed = tmp_path / "morto.json"
    changed.write_text(json.dumps(words, ensure_ascii=False), encoding="utf-8")
    monkeypatch.setattr(offline, "_bundle_sources", lambda: {**files, "engine/i18n/fr/morto.json": changed})
    second = client.get("/sw.js").get_data(as_text=True)
    version = lambda text: text.split('const VERSION = "', 1)[1].split('"', 1)[0]  # noqa: E731
    assert version(first) != version(second)
    assert (
        json.loads(client.get("/engine/bundle.json").get_json()["files"]["engine/i18n/fr/morto.json"])
        == words
    )


def test_manifest_makes_the_app_installable(client):
    manifest = json.loads(client.get("/manifest.webmanifest").data)
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
    assert manifest["theme_color"] and manifest["background_color"]
    purposes = {(icon["sizes"], icon["purpose"]) for icon in manifest["icons"]}
    assert {(size, purpose) for size in ("192x192", "512x512") for purpose in ("any", "maskable")} <= purposes
    for icon in manifest["icons"]:
        with client.get(icon["src"]) as response:
            assert response.status_code == 200


def test_pyodide_runtime_is_served_compressed(client):
    with client.get("/pyodide/pyodide.asm.wasm", headers={"Accept-Encoding": "gzip"}) as wasm:
        assert wasm.status_code == 200 and wasm.mimetype == "application/wasm"
        assert wasm.headers["Content-Encoding"] == "gzip"
        assert gzip.decompress(wasm.data)[:4] == b"\0asm"
    assert client.get("/pyodide/../package.json").status_code == 404
    assert client.get("/pyodide/pyodide.d.ts").status_code == 404


# --- the JSON edge ---------------------------------------------------------------------------------


def _morto_request(pending):
    return {
        "game": "morto",
        "players": ["A", "B", "C"],
        "options": {"lives": 1},
        "events": [{"type": "touched_early", "player": "p2"}],
        "pending": pending,
    }


def test_project_replays_the_outbox_and_flags_what_no_longer_holds():
    answer = jsonio.project(
        _morto_request(
            [
                {"kind": "event", "event": {"type": "touched_early", "player": "p2"}},  # p2 is already dead
                {"kind": "event", "event": {"type": "touched_early", "player": "p3"}},
                {"kind": "undo"},
                {"kind": "undo"},
                {"kind": "undo"},  # nothing left to undo
            ]
        )
    )
    assert [r["ok"] for r in answer["pending"]] == [False, True, True, True, False]
    assert answer["pending"][0]["error"]["code"] == "morto.dead_cannot_touch"
    assert answer["pending"][4]["error"]["code"] == "nothing_to_undo"
    expected = core.setup("morto", ["A", "B", "C"], {"lives": 1})
    assert answer["state"] == core.view("morto", expected)
    assert answer["active"] == 0


def test_project_gives_what_the_server_would():
    events = [
        {"type": "reveal", "cards": {"p1": 3, "p2": 3, "p3": 9}},
        {"type": "touched_early", "player": "p3"},
    ]
    request = {
        "game": "morto",
        "players": ["A", "B", "C"],
        "options": {},
        "events": [],
        "pending": [{"kind": "event", "event": e} for e in events],
    }
    server = core.view("morto", core.replay("morto", ["A", "B", "C"], {}, events))
    assert json.loads(jsonio.handle(json.dumps({"op": "project", **request})))["state"] == server


def test_check_runs_on_the_last_projection():
    jsonio.project(_morto_request([]))
    answer = jsonio.check({"name": "swap", "params": {"face_up": {"p1": 10}}})["answer"]  # p2 is dead
    assert [turn["code"] for turn in answer["turns"]] == [
        "morto.swap.blocked_by_re",
        "morto.swap.own_face_up",
    ]
    assert jsonio.check({"name": "nope"})["error"]["code"] == "unknown_check"
    bad_face_up = jsonio.check({"name": "swap", "params": {"face_up": {"p3": 4}}})
    assert bad_face_up["error"]["code"] == "morto.bad_face_up"


@pytest.mark.parametrize(
    "game, players",
    [
        ("morto", [f"Joueur·euse {i}" for i in range(20)]),
        ("existentiel", [{"name": f"Joueur·euse {i}", "birth_month": 1 + i % 12} for i in range(12)]),
        ("gjdlv", [f"Joueur·euse {i}" for i in range(6)]),
    ],
)
def test_snapshot_round_trips_and_fits_a_qr_code(game, players):
    view = {
        "game": game,
        "code": "ABCDEF",
        "at": "2026-11-21T20:00:00Z",
        "state": core.view(game, core.setup(game, players, {})),
    }
    result = qr.snapshot_qr({"base": "http://192.168.1.20:8000/s", "view": view})
    assert result["svg"].startswith("<svg"), result.get("error")
    assert qr.snapshot_view(result["url"].split("#", 1)[1]) == view
