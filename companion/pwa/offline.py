"""What makes the app installable and able to referee offline: the service worker, the manifest,
the Pyodide runtime (from npm, gzip on the wire) and the engine's sources and sentences for the
browser; and the app's version, which the versioned asset URLs carry (`companion.pwa.assets`).

Every asset the service worker precaches is listed here, and the cache version is a hash of them
all, so any change to the engine (a sentence of its catalogue too), a page, a script or the runtime
makes a new version that the phones announce and install.

Two precaches in the service worker: the shell (every page's assets) for every phone, and the
engine runtime (Pyodide and the engine bundle) only for a phone that referees, when its referee
page asks for it: a follower never downloads the runtime.

The phone's standard library and the gzipped runtime are built ahead of time
(`companion.pwa.stdlib`, ``companion build-assets``); the bundle names the built library
(``stdlib``) for the worker, or Pyodide's own when it was not built.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import threading
from pathlib import Path

from flask import (
    Blueprint,
    Flask,
    Response,
    abort,
    current_app,
    render_template,
    request,
    send_file,
)

from companion.pwa import assets, stdlib
from companion.pwa.assets import IMMUTABLE
from companion.web import i18n
from engine.messages import catalogue

bp = Blueprint("offline", __name__)

ROOT = Path(__file__).resolve().parents[2]
ENGINE_DIR = ROOT / "engine"
WORKER_DIR = ROOT / "worker"
PYODIDE_DIR = stdlib.PYODIDE_DIR
# The runtime files loadPyodide fetches for the standard library alone (no extra packages).
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
PAGES = ("/", "/s")  # pages that work with no table in the URL, precached whole
MIME = {
    ".mjs": "text/javascript",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".json": "application/json",
}

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
    """The files the phone's engine runs from, by their path under the app: the engine's modules and
    its catalogue files (``engine/i18n/<lang>/<name>.json``, which `engine.messages` reads beside
    itself), the worker's edge and qrcode."""
    files = {f"engine/{path.name}": path for path in sorted(ENGINE_DIR.glob("*.py"))}
    files.update(
        {
            f"engine/{path.relative_to(ENGINE_DIR).as_posix()}": path
            for path in sorted(ENGINE_DIR.glob("i18n/*/*.json"))
        }
    )
    files.update({f"worker/{path.name}": path for path in sorted(WORKER_DIR.glob("*.py"))})
    files.update(_qrcode_files())
    return files


def _static_files() -> list[str]:
    static = Path(current_app.static_folder)
    return sorted(
        path.relative_to(static).as_posix()
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
        modules = tuple((name, text) for name, text in sources.items() if name.endswith(".py"))
        roots = stdlib.stdlib_roots(modules)
        built = f"stdlib-{stdlib.stdlib_key(roots)}.zip"
        library = built if stdlib.built_stdlib(built, _assets()).is_file() else stdlib.STOCK
        digest.update(library.encode())
        # A deployment may name its release to make every phone refresh its precache.
        digest.update(os.environ.get("ARBITRE_RELEASE", "").encode())
        version = digest.hexdigest()[:12]
        bundle = json.dumps(
            {"version": version, "stdlib": f"/pyodide/{library}", "files": sources}, ensure_ascii=False
        ).encode()
        # The shell: what every phone precaches (the page's language's catalogue is added by the
        # page itself, static/js/pwa.js). The engine: only a referee's phone, when its page asks.
        shell = list(PAGES) + [f"/static/v/{version}/{name}" for name in _static_files()]
        shell += ["/manifest.webmanifest"]
        runtime_files = [name for name in PYODIDE_FILES if name != stdlib.STOCK] + [library]
        engine = ["/engine/bundle.json"] + ([f"/pyodide/{name}" for name in runtime_files] if runtime else [])
        cached = {
            "version": version,
            "bundle": bundle,
            "shell": shell,
            "engine": engine,
            "stdlib": library,
            "roots": roots,
            "catalogues": [f"/i18n/{lang}.json" for lang in i18n.LANGS],
        }
        current_app.extensions["arbitre_offline"] = cached
        return cached


pyodide_version = stdlib.pyodide_version


def _assets() -> Path:
    """Where ``companion build-assets`` wrote the phone's standard library and the gzipped runtime."""
    return Path(current_app.config.get("ASSETS_FOLDER") or stdlib.BUILT)


def build_assets() -> list[Path]:
    """``companion build-assets``: the phone's standard library for what the engine's bundle imports
    today, and every runtime file gzipped, into the assets folder (the app's context)."""
    state = _state()
    files = tuple(name for name in PYODIDE_FILES if name != stdlib.STOCK)
    return stdlib.build(state["roots"], _assets(), files)


def app_version() -> str:
    return _state()["version"]


def _accepts_gzip() -> bool:
    return "gzip" in request.headers.get("Accept-Encoding", "")


def install(app: Flask) -> None:
    """The app's version for the layers below that name it (the languages' catalogue URLs), and the
    assets' compression and versioned URLs."""
    app.extensions[i18n.APP_VERSION] = app_version
    assets.install(app)


@bp.get("/sw.js")
def service_worker():
    state = _state()
    body = render_template(
        "sw.js",
        version=state["version"],
        shell=state["shell"],
        engine=state["engine"],
        catalogues=state["catalogues"],
        pyodide=pyodide_version(),
    )
    return Response(
        body, mimetype="text/javascript", headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"}
    )


@bp.get("/manifest.webmanifest")
def manifest():
    icons = "/static/icons/"
    body = {
        "name": "Arbitre — l'arbitre de table",
        "short_name": "Arbitre",
        "description": (
            "Arbitre et marque les jeux de table : Il Morto, Le jeu existentiel, Le Grand Jeu de la Vie."
        ),
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
            {
                "src": icons + "maskable-192.png",
                "sizes": "192x192",
                "type": "image/png",
                "purpose": "maskable",
            },
            {
                "src": icons + "maskable-512.png",
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            },
        ],
    }
    return Response(json.dumps(body, ensure_ascii=False), mimetype="application/manifest+json")


@bp.get("/engine/bundle.json")
def engine_bundle():
    """The engine's Python sources and catalogue files (and qrcode's sources) for the browser's Pyodide
    worker, which writes each file at its path."""
    state = _state()
    response = Response(state["bundle"], mimetype="application/json")  # compressed by Flask-Compress
    response.set_etag(state["version"])
    return response


@bp.get("/engine/messages.json")
def engine_messages():
    """Every code's French and English sentence, for pages that show a code the state names."""
    response = Response(json.dumps(catalogue(), ensure_ascii=False), mimetype="application/json")
    response.set_etag(_state()["version"])
    return response


@bp.get("/i18n/<lang>.json")
def language_catalogue(lang: str):
    """Every sentence a page shows in ``lang``: the interface's words and the engine's messages."""
    if lang not in i18n.LANGS:
        abort(404)
    response = Response(json.dumps(i18n.catalogue(lang), ensure_ascii=False), mimetype="application/json")
    response.set_etag(_state()["version"])
    return response


@bp.get("/pyodide/<name>")
def pyodide_file(name: str):
    """The pinned Pyodide runtime from node_modules, and the engine's standard library built from it
    (immutable: its name is its content's key); gzip-compressed once and then served as is."""
    if name == _state()["stdlib"] and name != stdlib.STOCK:
        source = stdlib.built_stdlib(name, _assets())
    elif name in PYODIDE_FILES:
        source = PYODIDE_DIR / name
    else:
        abort(404)
    if not source.is_file():
        abort(404)
    mimetype = MIME.get(source.suffix, "application/octet-stream")
    packed = stdlib.built_gzip(name, _assets())
    if _accepts_gzip() and packed.is_file():
        response = send_file(packed, mimetype=mimetype, max_age=86400, etag=True)
        response.headers["Content-Encoding"] = "gzip"
    else:
        response = send_file(source, mimetype=mimetype, max_age=86400)
    if name == _state()["stdlib"] and name != stdlib.STOCK:
        response.headers["Cache-Control"] = IMMUTABLE
    response.headers["Vary"] = "Accept-Encoding"
    return response


@bp.get("/s")
def snapshot():
    """A table's view carried whole in the URL fragment: opens with no network on an installed phone."""
    return render_template("snapshot.html")
