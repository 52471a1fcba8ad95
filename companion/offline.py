"""What makes the app installable and able to referee offline: the service worker, the manifest,
the Pyodide runtime (from npm, gzip on the wire) and the engine's sources for the browser.

Every asset the service worker precaches is listed here, and the cache version is a hash of them
all, so any change to the engine, a page, a script or the runtime makes a new version that the
phones announce and install.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import json
import os
import threading
from pathlib import Path

from flask import Blueprint, Response, abort, current_app, render_template, request, send_file

from companion import ROOT, i18n
from engine.messages import catalogue

bp = Blueprint("offline", __name__)

ENGINE_DIR = ROOT / "engine"
WORKER_DIR = ROOT / "worker"
PYODIDE_DIR = ROOT / "node_modules" / "pyodide"
# The runtime files loadPyodide fetches for the standard library alone (no extra packages).
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json")
PAGES = ("/", "/s")  # pages that work with no table in the URL, precached whole
MIME = {".mjs": "text/javascript", ".wasm": "application/wasm", ".zip": "application/zip",
        ".json": "application/json"}

_lock = threading.Lock()


def _qrcode_files() -> dict[str, Path]:
    """The pure-Python qrcode package, for snapshot QR codes drawn on the phone with no server."""
    package = Path(importlib.util.find_spec("qrcode").origin).parent
    return {
        f"qrcode/{path.relative_to(package).as_posix()}": path
        for path in sorted(package.rglob("*.py"))
        if "tests" not in path.relative_to(package).parts
    }


def _bundle_sources() -> dict[str, Path]:
    files = {f"engine/{path.name}": path for path in sorted(ENGINE_DIR.glob("*.py"))}
    files.update({f"worker/{path.name}": path for path in sorted(WORKER_DIR.glob("*.py"))})
    files.update(_qrcode_files())
    return files


def _static_assets() -> list[str]:
    static = Path(current_app.static_folder)
    return sorted(
        "/static/" + path.relative_to(static).as_posix()
        for path in static.rglob("*")
        if path.is_file() and not path.name.startswith(".")
    )


def _state() -> dict:
    """Computed once per process: the bundle, the asset list and the version hash."""
    cached = current_app.extensions.get("arbitre_offline")
    if cached is not None:
        return cached
    with _lock:
        cached = current_app.extensions.get("arbitre_offline")
        if cached is not None:
            return cached
        sources = {name: path.read_text(encoding="utf-8") for name, path in _bundle_sources().items()}
        digest = hashlib.sha256()
        for name, text in sources.items():
            digest.update(name.encode() + b"\0" + text.encode())
        for folder in (Path(current_app.static_folder), Path(current_app.template_folder), i18n.FOLDER):
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    digest.update(path.as_posix().encode() + b"\0" + path.read_bytes())
        runtime = pyodide_version()
        digest.update(runtime.encode())
        # A deployment may name its release to make every phone refresh its precache.
        digest.update(os.environ.get("ARBITRE_RELEASE", "").encode())
        version = digest.hexdigest()[:12]
        bundle = json.dumps({"version": version, "files": sources}, ensure_ascii=False).encode()
        assets = list(PAGES) + _static_assets() + ["/manifest.webmanifest", "/engine/bundle.json",
                                                   "/engine/messages.json"]
        assets += [f"/i18n/{lang}.json" for lang in i18n.LANGS]
        if runtime:
            assets += [f"/pyodide/{name}" for name in PYODIDE_FILES]
        cached = {"version": version, "bundle": bundle, "bundle_gz": gzip.compress(bundle, 9),
                  "assets": assets}
        current_app.extensions["arbitre_offline"] = cached
        return cached


def pyodide_version() -> str:
    try:
        return json.loads((PYODIDE_DIR / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return ""


def app_version() -> str:
    return _state()["version"]


def _accepts_gzip() -> bool:
    return "gzip" in request.headers.get("Accept-Encoding", "")


@bp.get("/sw.js")
def service_worker():
    state = _state()
    body = render_template("sw.js", version=state["version"], assets=state["assets"])
    return Response(body, mimetype="text/javascript",
                    headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"})


@bp.get("/manifest.webmanifest")
def manifest():
    icons = "/static/icons/"
    body = {
        "name": "Arbitre — l'arbitre de table",
        "short_name": "Arbitre",
        "description": ("Arbitre et marque les jeux de table : "
                        "Il Morto, Le jeu existentiel, Le Grand Jeu de la Vie."),
        "lang": "fr",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "orientation": "portrait",
        "background_color": "#14121f",
        "theme_color": "#1d1b2f",
        "icons": [
            {"src": icons + "icon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any"},
            {"src": icons + "icon-192.png", "sizes": "192x192", "type": "image/png", "purpose": "any"},
            {"src": icons + "icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any"},
            {"src": icons + "maskable-192.png", "sizes": "192x192", "type": "image/png",
             "purpose": "maskable"},
            {"src": icons + "maskable-512.png", "sizes": "512x512", "type": "image/png",
             "purpose": "maskable"},
        ],
    }
    return Response(json.dumps(body, ensure_ascii=False), mimetype="application/manifest+json")


@bp.get("/engine/bundle.json")
def engine_bundle():
    """The engine's Python sources (and qrcode's) for the browser's Pyodide worker."""
    state = _state()
    gz = _accepts_gzip()
    response = Response(state["bundle_gz"] if gz else state["bundle"], mimetype="application/json")
    if gz:
        response.headers["Content-Encoding"] = "gzip"
    response.headers["Vary"] = "Accept-Encoding"
    response.headers["ETag"] = state["version"]
    return response


@bp.get("/engine/messages.json")
def engine_messages():
    """Every code's French and English sentence, for pages that show a code the state names."""
    response = Response(json.dumps(catalogue(), ensure_ascii=False), mimetype="application/json")
    response.headers["ETag"] = _state()["version"]
    return response


@bp.get("/i18n/<lang>.json")
def language_catalogue(lang: str):
    """Every sentence a page shows in ``lang``: the interface's words and the engine's messages."""
    if lang not in i18n.LANGS:
        abort(404)
    response = Response(json.dumps(i18n.catalogue(lang), ensure_ascii=False), mimetype="application/json")
    response.headers["ETag"] = _state()["version"]
    return response


@bp.get("/pyodide/<name>")
def pyodide_file(name: str):
    """The pinned Pyodide runtime from node_modules, gzip-compressed once and then served as is."""
    if name not in PYODIDE_FILES:
        abort(404)
    source = PYODIDE_DIR / name
    if not source.is_file():
        abort(404)
    mimetype = MIME.get(source.suffix, "application/octet-stream")
    if not _accepts_gzip():
        response = send_file(source, mimetype=mimetype, max_age=86400)
    else:
        packed = Path(current_app.instance_path) / "pyodide-gz" / pyodide_version() / (name + ".gz")
        with _lock:
            if not packed.exists():
                packed.parent.mkdir(parents=True, exist_ok=True)
                partial = packed.with_suffix(".tmp")
                partial.write_bytes(gzip.compress(source.read_bytes(), 6))
                partial.replace(packed)
        response = send_file(packed, mimetype=mimetype, max_age=86400, etag=True)
        response.headers["Content-Encoding"] = "gzip"
    response.headers["Vary"] = "Accept-Encoding"
    return response


@bp.get("/s")
def snapshot():
    """A table's view carried whole in the URL fragment: opens with no network on an installed phone."""
    return render_template("snapshot.html")
