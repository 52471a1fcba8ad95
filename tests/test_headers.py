"""Security headers (companion/web/headers.py) on every kind of answer, and pages that need no inline script.

Every answer — a page, a static file, the service worker, the manifest, the engine bundle, the
Pyodide runtime, the API (answers and refusals), the QR SVG, the live stream, a "not found" — carries
the Content-Security-Policy, ``nosniff``, ``no-referrer`` and ``X-Frame-Options: DENY``. The policy
runs no inline script and no ``eval``: only WebAssembly compilation (``'wasm-unsafe-eval'``, for
Pyodide). Every API answer is ``no-store`` unless it sets its own Cache-Control (the QR SVG, the
stream). That Chromium runs the pages and Pyodide under this policy is e2e/test_csp.py's part.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.pwa.offline import PYODIDE_DIR
from companion.web.headers import CSP

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


def policy(header: str) -> dict[str, list[str]]:
    """The CSP as ``{directive: [sources]}``."""
    directives = {}
    for part in header.split(";"):
        name, *sources = part.split()
        assert name not in directives, f"{name} given twice"
        directives[name] = sources
    return directives


def assert_secured(response) -> None:
    headers = response.headers
    assert headers["Content-Security-Policy"] == CSP, response.request.path
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    assert headers["X-Frame-Options"] == "DENY"


def test_the_policy_runs_no_inline_script_and_no_eval_only_wasm():
    csp = policy(CSP)
    assert csp["script-src"] == ["'self'", "'wasm-unsafe-eval'"]
    for directive, sources in csp.items():
        assert "'unsafe-eval'" not in sources, directive
        assert "*" not in sources and "data:" not in sources and "blob:" not in sources, directive
    assert "'unsafe-inline'" not in csp["script-src"] and "'unsafe-inline'" not in csp["default-src"]
    assert csp["default-src"] == ["'self'"]
    assert csp["worker-src"] == ["'self'"]
    assert csp["connect-src"] == ["'self'"]
    assert csp["img-src"] == ["'self'"]
    # Style attributes only (the pages' h() sets them); <style> elements and sheets: ours alone.
    assert csp["style-src-elem"] == ["'self'"]
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["object-src"] == ["'none'"]
    assert csp["base-uri"] == ["'none'"]
    assert csp["form-action"] == ["'self'"]
    assert "upgrade-insecure-requests" not in csp  # the app is served over plain HTTP on the LAN


def test_pages_static_files_and_offline_assets_carry_the_headers(client, make_table):
    table = make_table()
    paths = [
        "/",
        "/new/morto",
        "/new/existentiel",
        "/new/gjdlv",
        f"/r/{table.code}",
        f"/t/{table.code}",
        f"/t/{table.code}/qr",
        f"/t/{table.code}/p/p1",
        "/s",
        "/static/js/ui.js",
        "/static/js/new_table.js",
        "/static/css/app.css",
        "/static/icons/icon.svg",
        "/sw.js",
        "/manifest.webmanifest",
        "/engine/bundle.json",
        "/engine/messages.json",
    ]
    if (PYODIDE_DIR / "pyodide.mjs").is_file():
        paths += ["/pyodide/pyodide.mjs", "/pyodide/pyodide-lock.json"]
    for path in paths:
        with client.get(path, headers={"Accept-Encoding": "gzip"}) as response:  # files: closed after
            assert response.status_code == 200, path
            assert_secured(response)
            assert "no-store" not in response.headers.get("Cache-Control", ""), path  # only the API's
    # The service worker and the runtime keep their own caching.
    assert client.get("/sw.js").headers["Cache-Control"] == "no-cache"


def test_refusals_and_not_found_pages_carry_the_headers(client):
    for path in ("/t/ZZZZZZ", "/nowhere", "/new/chess"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert_secured(response)
    response = client.get("/api/tables/ZZZZZZ")
    assert response.status_code == 404
    assert_secured(response)
    assert response.headers["Cache-Control"] == "no-store"


def test_every_api_answer_is_no_store(client, make_table):
    table = make_table()
    created = client.post("/api/tables", json={"game": "morto", "players": ["Ana", "Ben", "Cyd"]})
    assert created.status_code == 201 and "secret" in created.get_json()  # the answer with a secret
    answers = [
        created,
        client.get(f"/api/tables/{table.code}"),
        client.get(f"/api/tables/{table.code}/log"),
        client.get(f"/api/tables/{table.code}/history"),
        table.post("touched_early", player="p2"),
        table.undo(),
        client.post(f"/api/tables/{table.code}/checks/swap", json={}),
        client.post("/api/tables", data=b"{", content_type="application/json"),  # 400
        table.post("touched_early", player="p2", headers={}),  # 401
        table.post("touched_early", player="p2", headers={"Authorization": "Bearer nope"}),  # 403
        client.get("/api/nowhere"),  # 404
        client.delete(f"/api/tables/{table.code}"),  # 405
        table.post("touched_early", player="p9"),  # 422
    ]
    statuses = [response.status_code for response in answers]
    assert statuses[:4] == [201, 200, 200, 200] and statuses[7:] == [400, 401, 403, 404, 405, 422]
    for response in answers:
        assert_secured(response)
        assert response.headers["Cache-Control"] == "no-store", response.request.path


def test_the_qr_svg_and_the_stream_keep_their_own_cache_control(client, make_table):
    table = make_table()
    qr = client.get(f"/api/tables/{table.code}/qr.svg")
    assert qr.status_code == 200
    assert_secured(qr)
    assert qr.headers["Cache-Control"] == "private, max-age=3600"  # its URL comes from Host (test_faults.py)
    stream = client.get(f"/api/tables/{table.code}/stream")
    try:
        assert stream.status_code == 200
        assert stream.mimetype == "text/event-stream"
        assert_secured(stream)
        assert stream.headers["Cache-Control"] == "no-store"
    finally:
        stream.close()


SCRIPT = re.compile(r"<script\b([^>]*)>", re.IGNORECASE)


@pytest.mark.parametrize("template", sorted(p.name for p in TEMPLATES.glob("*.html")))
def test_no_template_has_an_inline_script_or_handler(template):
    """Every <script> loads a file or holds JSON data; no on…= attribute, no javascript: URL."""
    source = (TEMPLATES / template).read_text(encoding="utf-8")
    for attributes in SCRIPT.findall(source):
        assert "src=" in attributes or 'type="application/json"' in attributes, (template, attributes)
    assert not re.search(r"\son[a-z]+\s*=", source, re.IGNORECASE), template
    assert "javascript:" not in source.lower(), template


@pytest.mark.parametrize("game", ["morto", "existentiel", "gjdlv"])
def test_a_new_table_form_loads_its_module_and_the_service_worker_precaches_it(client, game):
    """Every form's script is one module file (the Grand Jeu's was once inline, then its own file)."""
    page = client.get(f"/new/{game}").get_data(as_text=True)
    static = re.search(r'src="(/static/v/[0-9a-f]{12}/)js/new_table.js"', page).group(1)  # versioned
    assert re.findall(r"<script[^>]*>", page)[-1] == f'<script type="module" src="{static}js/new_table.js">'
    assert f'"{static}js/new_table.js"' in client.get("/sw.js").get_data(as_text=True)
