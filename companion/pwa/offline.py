"""What makes the app installable and able to referee offline: the service worker, the manifest,
the Pyodide runtime (from npm, gzip on the wire) and the engine's sources for the browser; and how
every asset travels: compressed (Flask-Compress) and, under a versioned URL, cached for a year.

Every asset the service worker precaches is listed here, and the cache version is a hash of them
all, so any change to the engine, a page, a script or the runtime makes a new version that the
phones announce and install.

Versioned static URLs: templates' ``url_for('static', filename=…)`` gives
``/static/v/<version>/<filename>``, served ``immutable`` for a year. ES modules import each other by
relative URL (``./ui.js``), so a module loaded from ``/static/v/<version>/js/`` imports its
neighbours from the same versioned folder: one page never mixes two versions' modules, online or
offline. A request for another version's folder (an old page still open after a deployment) gets
today's file, never cached (``no-cache``); ``/static/<filename>`` (unversioned) is revalidated.

Two precaches in the service worker: the shell (every page's assets) for every phone, and the
engine runtime (Pyodide and the engine bundle) only for a phone that referees, when its referee
page asks for it: a follower never downloads the runtime.

The engine's standard library: Pyodide's ``python_stdlib.zip`` holds sources only, so every start
compiled the ~150 modules Pyodide's own start and the engine import, most of a second on a phone.
``/pyodide/stdlib-<key>.zip`` is the same library with those modules as bytecode compiled by this
very Pyodide (in Node, the first time it is asked, into the instance folder), the rest as sources:
complete, so a module imported late is compiled then, never missing. ``<key>`` names what decides
its content (the runtime's version, the modules the bundle imports, the build), so it is immutable
and a phone keeps it across app versions. The bundle names it (``stdlib``) for the worker.
"""

from __future__ import annotations

import ast
import functools
import gzip
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
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
    send_from_directory,
    url_for,
)
from flask_compress import Compress

from companion import ROOT
from companion.web import i18n
from engine.messages import catalogue

bp = Blueprint("offline", __name__)

ENGINE_DIR = ROOT / "engine"
WORKER_DIR = ROOT / "worker"
PYODIDE_DIR = ROOT / "node_modules" / "pyodide"
# The runtime files loadPyodide fetches for the standard library alone (no extra packages).
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
STOCK_STDLIB = "python_stdlib.zip"  # sources only: what the worker starts with when Node cannot build ours
PAGES = ("/", "/s")  # pages that work with no table in the URL, precached whole
IMMUTABLE = "public, max-age=31536000, immutable"
# Text answers compressed on the wire; never the live stream (text/event-stream, streamed).
COMPRESSED = [
    "text/html",
    "text/css",
    "text/javascript",
    "application/javascript",
    "application/json",
    "application/manifest+json",
    "image/svg+xml",
    "text/plain",
]
MIME = {
    ".mjs": "text/javascript",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".json": "application/json",
}

_lock = threading.Lock()
_stdlib_lock = threading.Lock()

# Runs in Pyodide (in Node): imports what the bundle imports from outside itself, then writes every
# standard-library module now loaded (Pyodide's own start's too) as an unchecked hash-based .pyc (no
# source to compare with, nothing to compile at import), and every other file as Pyodide has it: a
# module imported late (``datetime.strptime`` imports ``_strptime``) is compiled then, never missing.
STDLIB_BUILD = """
import importlib, importlib.util, marshal, sys, zipfile

# What C code imports on its first call, where no import statement names it.
LATE = {"datetime": ["_strptime"], "time": ["_strptime"]}

def build(roots, out):
    stdlib = "/lib/python%d%d.zip" % sys.version_info[:2]
    for root in [*roots, *(late for root in roots for late in LATE.get(root, []))]:
        try:
            importlib.import_module(root)
        except ImportError:  # not in Pyodide (a dependency qrcode only has on a server: PIL, lxml)
            pass
    loaded = set()
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None) or ""
        if path.startswith(stdlib + "/"):
            loaded.add(path[len(stdlib) + 1:])
    source = zipfile.ZipFile(stdlib)
    with zipfile.ZipFile(out, "w") as packed:
        for name in sorted(source.namelist()):
            data = source.read(name)
            if name in loaded:
                code = compile(data, f"{stdlib}/{name}", "exec", dont_inherit=True)
                header = importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little")
                packed.writestr(zipfile.ZipInfo(name + "c"), header + importlib.util.source_hash(data)
                                + marshal.dumps(code))
            else:
                packed.writestr(zipfile.ZipInfo(name), data, zipfile.ZIP_DEFLATED, 9)
"""
# Node's side: Pyodide from node_modules, the instance folder mounted where the build writes.
STDLIB_NODE = """
const job = JSON.parse(process.env.ARBITRE_STDLIB_JOB);
const { loadPyodide } = await import(job.module);
const pyodide = await loadPyodide({ indexURL: job.indexURL, stdout: () => {} });
pyodide.FS.mkdirTree(job.folder);
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: job.folder }, job.folder);
pyodide.runPython(job.code);
"""


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


@functools.lru_cache(maxsize=4)
def stdlib_roots(sources: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """The modules the bundle's files import from outside the bundle, as written (``json``,
    ``xml.etree.ElementTree``), wherever the import stands (a function's late import too)."""
    own = {name.split("/", 1)[0] for name, _ in sources}
    roots = set()
    for name, text in sources:
        for node in ast.walk(ast.parse(text, name)):
            if isinstance(node, ast.Import):
                roots.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                roots.add(node.module)
    return tuple(sorted(root for root in roots if root.split(".", 1)[0] not in own))


def stdlib_key(roots: tuple[str, ...]) -> str:
    """What decides the built standard library's content, hashed: a new key is a new URL."""
    digest = hashlib.sha256(f"{pyodide_version()}\0{STDLIB_BUILD}\0{STDLIB_NODE}".encode())
    digest.update("\0".join(roots).encode())
    return digest.hexdigest()[:12]


def _node() -> str | None:
    return shutil.which("node") if (PYODIDE_DIR / "pyodide.mjs").is_file() else None


def build_stdlib(roots: tuple[str, ...], out: Path) -> None:
    """Writes the engine's standard library (bytecode, see STDLIB_BUILD) to ``out``, through Node."""
    folder = out.parent.resolve()
    code = STDLIB_BUILD + f"\nbuild({json.dumps(list(roots))}, {json.dumps(str(folder / out.name))})\n"
    runtime = PYODIDE_DIR.resolve()
    job = {
        "module": (runtime / "pyodide.mjs").as_uri(),
        "indexURL": f"{runtime}/",
        "folder": str(folder),
        "code": code,
    }
    env = {**os.environ, "ARBITRE_STDLIB_JOB": json.dumps(job)}
    subprocess.run(
        [_node() or "node", "--input-type=module", "-e", STDLIB_NODE],
        check=True,
        capture_output=True,
        timeout=300,
        env=env,
    )


def _stdlib_file(name: str) -> Path | None:
    """Today's built standard library (``stdlib-<key>.zip``), built on the first request; None
    when it cannot be (the caller serves Pyodide's own, sources only: slower, as complete)."""
    state = _state()
    path = Path(current_app.instance_path) / "pyodide-stdlib" / pyodide_version() / name
    with _stdlib_lock:
        if state.get("stdlib_failed"):  # once per process: not a Node run on every request
            return None
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_name(f".{name}.{os.getpid()}.tmp")
            try:
                build_stdlib(state["roots"], partial)
                partial.replace(path)
            except (OSError, subprocess.SubprocessError) as error:
                detail = getattr(error, "stderr", b"") or b""
                current_app.logger.error(
                    "cannot build %s, serving %s: %s %s",
                    name,
                    STOCK_STDLIB,
                    error,
                    detail.decode(errors="replace")[-2000:],
                )
                partial.unlink(missing_ok=True)
                state["stdlib_failed"] = True
                return None
    return path


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
        roots = stdlib_roots(tuple((name, text) for name, text in sources.items()))
        stdlib = f"stdlib-{stdlib_key(roots)}.zip" if _node() else STOCK_STDLIB
        digest.update(stdlib.encode())
        # A deployment may name its release to make every phone refresh its precache.
        digest.update(os.environ.get("ARBITRE_RELEASE", "").encode())
        version = digest.hexdigest()[:12]
        bundle = json.dumps(
            {"version": version, "stdlib": f"/pyodide/{stdlib}", "files": sources}, ensure_ascii=False
        ).encode()
        # The shell: what every phone precaches (the page's language's catalogue is added by the
        # page itself, static/js/pwa.js). The engine: only a referee's phone, when its page asks.
        shell = list(PAGES) + [f"/static/v/{version}/{name}" for name in _static_files()]
        shell += ["/manifest.webmanifest"]
        runtime_files = [name for name in PYODIDE_FILES if name != STOCK_STDLIB] + [stdlib]
        engine = ["/engine/bundle.json"] + ([f"/pyodide/{name}" for name in runtime_files] if runtime else [])
        cached = {
            "version": version,
            "bundle": bundle,
            "shell": shell,
            "engine": engine,
            "stdlib": stdlib,
            "roots": roots,
            "catalogues": [f"/i18n/{lang}.json" for lang in i18n.LANGS],
        }
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


def static_url(filename: str) -> str:
    """The versioned URL of a static file: ``/static/v/<version>/<filename>``."""
    return url_for("offline.versioned_static", version=app_version(), filename=filename)


def _template_url_for(endpoint: str, **values) -> str:
    """``url_for`` in templates: static files get their versioned URL, the rest is Flask's own."""
    if endpoint == "static" and set(values) == {"filename"}:
        return static_url(values["filename"])
    return url_for(endpoint, **values)


class _AssetCache:
    """Flask-Compress's cache of compressed answers, for answers fixed by the version alone."""

    def __init__(self) -> None:
        self.data: dict[str, bytes] = {}

    def get(self, key: str) -> bytes | None:
        return self.data.get(key)

    def set(self, key: str, value: bytes) -> None:
        if not key.endswith(";"):
            self.data[key] = value


def _cache_key(req) -> str:
    """Versioned static files, the engine bundle and the catalogues: one compression per version.
    Anything else (pages, the API) is compressed afresh: its empty key is never stored."""
    if req.endpoint == "offline.versioned_static" and req.view_args.get("version") == app_version():
        return req.path
    if req.endpoint in ("offline.engine_bundle", "offline.language_catalogue", "offline.engine_messages"):
        return f"{req.path}@{app_version()}"
    return ""


def _in_memory(response: Response) -> Response:
    """Flask serves a file as a stream, which Flask-Compress leaves alone: a text file is read into
    memory (they are small; the Pyodide runtime does not come this way) so that it is compressed."""
    if response.mimetype in COMPRESSED and response.status_code == 200 and response.is_streamed:
        source = response.response
        try:
            body = b"".join(response.iter_encoded())
        finally:
            getattr(source, "close", lambda: None)()
        response.direct_passthrough = False
        response.set_data(body)
    return response


def _buffered_static(view):
    def static(**values):
        return _in_memory(view(**values))

    return static


def install(app: Flask) -> None:
    """Compression of text answers (Flask-Compress), the versioned static URLs in templates."""
    app.config.setdefault("COMPRESS_MIMETYPES", COMPRESSED)
    app.config.setdefault("COMPRESS_LEVEL", 9)  # gzip: what Chromium asks over plain HTTP
    app.config.setdefault("COMPRESS_BR_LEVEL", 6)
    app.config.setdefault("COMPRESS_ZSTD_LEVEL", 9)
    app.config.setdefault("COMPRESS_STREAMS", False)  # the live stream goes out frame by frame
    app.config.setdefault("COMPRESS_CACHE_BACKEND", _AssetCache)
    app.config.setdefault("COMPRESS_CACHE_KEY", _cache_key)
    Compress(app)
    app.view_functions["static"] = _buffered_static(app.view_functions["static"])
    app.jinja_env.globals["url_for"] = _template_url_for
    app.jinja_env.globals["static_url"] = static_url


@bp.get("/static/v/<version>/<path:filename>")
def versioned_static(version: str, filename: str):
    """A static file under its version: cached for a year when it is today's version."""
    response = _in_memory(send_from_directory(current_app.static_folder, filename, max_age=0))
    if version == app_version():
        response.headers["Cache-Control"] = IMMUTABLE
    else:  # another version's page: today's file, but never kept under that version's name
        response.headers["Cache-Control"] = "no-cache"
    return response


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
    """The engine's Python sources (and qrcode's) for the browser's Pyodide worker."""
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
    immutable = False
    if name == _state()["stdlib"] and name != STOCK_STDLIB:
        source = _stdlib_file(name)
        if source is None:  # Pyodide's own, never kept under this name by a browser's HTTP cache
            response = send_file(PYODIDE_DIR / STOCK_STDLIB, mimetype=MIME[".zip"], max_age=0)
            response.headers["Cache-Control"] = "no-cache"
            return response
        immutable = True
    elif name in PYODIDE_FILES:
        source = PYODIDE_DIR / name
    else:
        abort(404)
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
    if immutable:
        response.headers["Cache-Control"] = IMMUTABLE
    response.headers["Vary"] = "Accept-Encoding"
    return response


@bp.get("/s")
def snapshot():
    """A table's view carried whole in the URL fragment: opens with no network on an installed phone."""
    return render_template("snapshot.html")
