"""How every static asset travels: compressed (Flask-Compress) and, under a versioned URL, cached for
a year.

Versioned static URLs: templates' ``url_for('static', filename=…)`` gives
``/static/v/<version>/<filename>``, served ``immutable`` for a year. ES modules import each other by
relative URL (``./ui.js``), so a module loaded from ``/static/v/<version>/js/`` imports its
neighbours from the same versioned folder: one page never mixes two versions' modules, online or
offline. A request for another version's folder (an old page still open after a deployment) gets
today's file, never cached (``no-cache``); ``/static/<filename>`` (unversioned) is revalidated.

The version is the app's (`companion.pwa.offline.app_version`, registered on the app by its
factory), which hashes every asset: any change makes new URLs.
"""

from __future__ import annotations

from flask import Blueprint, Flask, Response, current_app, send_from_directory, url_for
from flask_compress import Compress

from companion.web.i18n import APP_VERSION

bp = Blueprint("assets", __name__)

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


def app_version() -> str:
    return current_app.extensions[APP_VERSION]()


def static_url(filename: str) -> str:
    """The versioned URL of a static file: ``/static/v/<version>/<filename>``."""
    return url_for("assets.versioned_static", version=app_version(), filename=filename)


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
    if req.endpoint == "assets.versioned_static" and req.view_args.get("version") == app_version():
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
    """Compression of text answers (Flask-Compress), the versioned static URLs in templates (the
    app's version given by `companion.pwa.offline.install`)."""
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
