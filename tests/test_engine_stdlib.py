"""The standard library the browser's engine starts with (companion/pwa/stdlib.py): Pyodide's own, with
the modules Pyodide's start and the engine import as bytecode that Pyodide itself compiled. Built
ahead of serving (``companion build-assets``, here into a folder of the tests' own), then the
engine runs in Pyodide with it, as in the worker.

Needs Node and the pinned Pyodide (``npm ci``), as the build does; a server whose assets were not
built serves Pyodide's own standard library, never building on a request, which the last tests check."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import zipfile

import pytest
from click.testing import CliRunner

from companion import cli
from companion.pwa import offline, stdlib
from engine.messages import catalogue, refusal
from tests.conftest import dispose

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(
    not (NODE and (offline.PYODIDE_DIR / "pyodide.mjs").is_file()),
    reason="Node and node_modules/pyodide are needed to build it (npm ci)",
)

# The engine in Pyodide with the built standard library alone: the bundle's files on the path, its
# warm-up (every game and its messages), every engine and worker module, a snapshot's QR code.
RUN_ENGINE = """
const [stdlib, folder] = process.argv.slice(1);
const { loadPyodide } = await import(process.env.PYODIDE_MJS);
const pyodide = await loadPyodide({ indexURL: process.env.PYODIDE_DIR, stdLibURL: stdlib });
pyodide.FS.mkdirTree(folder);
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: folder }, folder);
console.log(pyodide.runPython(`
import importlib, json, os, sys
sys.path.insert(0, ${JSON.stringify(folder)})
from worker import jsonio, qr
warm = json.loads(jsonio.handle(json.dumps({"op": "warm"})))
from engine.messages import refusal
said = refusal("morto.speaker_is_dead", {"name": "Ada"}, "fr")
drawn = qr.snapshot_qr({"base": "http://t/s", "view": {"game": "morto", "state": {}}})
for package in ("engine", "worker"):
    for name in sorted(os.listdir(f"${folder}/{package}")):
        if name.endswith(".py"):
            importlib.import_module(f"{package}.{name[:-3]}")
from datetime import datetime
datetime.strptime("2027-03-01 20:30", "%Y-%m-%d %H:%M")  # imports _strptime, from C
stdlib = sys.path[2]
compiled = sorted({m.__file__.rsplit(".", 1)[1] for m in list(sys.modules.values())
                   if (getattr(m, "__file__", None) or "").startswith(stdlib + "/")
                   and m.__spec__.loader is not importlib.machinery.FrozenImporter})
import fractions  # nothing in the app imports it: in the library all the same, as source
json.dumps({"warm": warm, "qr": drawn["svg"][:4], "stdlib": stdlib, "from": compiled,
            "late": fractions.__file__, "refusal": said})
`));
"""


@pytest.fixture(scope="module")
def assets(tmp_path_factory):
    """A folder ``companion build-assets`` built, as the README's commands do before serving."""
    folder = tmp_path_factory.mktemp("assets")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARBITRE_INSTANCE", str(tmp_path_factory.mktemp("instance")))
        patch.setenv("ARBITRE_ASSETS_FOLDER", str(folder))
        patch.delenv("DATABASE_URL", raising=False)
        if stdlib.node() is not None:
            built = CliRunner().invoke(cli.main, ["build-assets"])
            assert built.exit_code == 0, built.output
            assert "assets ok" in built.output
    return folder


@pytest.fixture(scope="module")
def app(tmp_path_factory, assets):
    from companion import create_app

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARBITRE_INSTANCE", str(tmp_path_factory.mktemp("instance")))
        patch.delenv("DATABASE_URL", raising=False)  # only the offline assets: no database is read
        app = create_app({"TESTING": True, "ASSETS_FOLDER": str(assets)})
        try:
            yield app
        finally:
            dispose(app)


@pytest.fixture(scope="module")
def client(app):
    return app.test_client()


def test_the_roots_are_what_the_bundle_imports_from_outside_itself():
    sources = (
        ("engine/core.py", "import json\nfrom engine import morto\nfrom . import messages\n"),
        ("engine/morto.py", "def late():\n    import pickle, xml.etree.ElementTree as ET\n"),
        (
            "worker/qr.py",
            "from __future__ import annotations\nimport qrcode.image.svg\nfrom base64 import b64encode\n",
        ),
        ("qrcode/main.py", "from qrcode import util\nfrom typing import Optional\n"),
    )
    assert stdlib.stdlib_roots(sources) == (
        "__future__",
        "base64",
        "json",
        "pickle",
        "typing",
        "xml.etree.ElementTree",
    )


def test_the_key_changes_with_what_the_bundle_imports():
    assert stdlib.stdlib_key(("json", "pickle")) == stdlib.stdlib_key(("json", "pickle"))
    assert stdlib.stdlib_key(("json", "pickle")) != stdlib.stdlib_key(("json", "pickle", "fractions"))


@needs_node
def test_the_bundle_names_the_built_standard_library_and_the_runtime_cache_holds_it(client):
    bundle = client.get("/engine/bundle.json").get_json()
    assert bundle["stdlib"].startswith("/pyodide/stdlib-") and bundle["stdlib"].endswith(".zip")
    body = client.get("/sw.js").get_data(as_text=True)
    engine = json.loads(body.split("const ENGINE_ASSETS = ", 1)[1].split(";", 1)[0])
    # Precached instead of Pyodide's own (sources, 2.5 MB): a referee's phone downloads one of them.
    assert bundle["stdlib"] in engine and "/pyodide/python_stdlib.zip" not in engine


@needs_node
def test_the_built_standard_library_is_bytecode_of_the_modules_the_engine_needs(client, tmp_path):
    url = client.get("/engine/bundle.json").get_json()["stdlib"]
    with client.get(url) as response:
        assert response.status_code == 200 and response.mimetype == "application/zip"
        assert response.headers["Cache-Control"] == offline.IMMUTABLE
        data = response.data
    with client.get(url, headers={"Accept-Encoding": "gzip"}) as packed:
        assert packed.headers["Content-Encoding"] == "gzip"
        assert packed.headers["Cache-Control"] == offline.IMMUTABLE
    names = set(zipfile.ZipFile(io.BytesIO(data)).namelist())
    # Pyodide's own start, the engine's imports, qrcode's SVG: bytecode. The rest: sources.
    for name in (
        "encodings/__init__",
        "encodings/utf_8",
        "_pyodide/_base",
        "json/__init__",
        "pickle",
        "datetime",
        "_strptime",
        "dataclasses",
        "xml/etree/ElementTree",
    ):
        assert f"{name}.pyc" in names and f"{name}.py" not in names
    stock = set(zipfile.ZipFile(offline.PYODIDE_DIR / "python_stdlib.zip").namelist())
    assert {name.removesuffix("c") for name in names} == stock  # every module, once
    assert "unittest/__init__.py" in names and "fractions.py" in names

    # The engine in Pyodide, with this standard library alone (compiled by that Pyodide: it loads).
    stdlib = tmp_path / "stdlib.zip"
    stdlib.write_bytes(data)
    bundle = client.get("/engine/bundle.json").get_json()
    folder = tmp_path / "arbitre"
    for name, source in bundle["files"].items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(source)
    env = {
        "PYODIDE_MJS": (offline.PYODIDE_DIR / "pyodide.mjs").resolve().as_uri(),
        "PYODIDE_DIR": f"{offline.PYODIDE_DIR.resolve()}/",
        "PATH": "/usr/bin:/bin",
    }
    run = subprocess.run(
        [NODE, "--input-type=module", "-e", RUN_ENGINE, str(stdlib), str(folder)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    answer = json.loads(run.stdout.strip().splitlines()[-1])
    assert answer["warm"]["games"] and answer["warm"]["messages"] == len(catalogue())
    # Its refusals worded from the catalogue files the bundle carries, as the server words them.
    assert answer["refusal"] == refusal("morto.speaker_is_dead", {"name": "Ada"}, "fr")
    assert answer["qr"] == "<svg"
    # Nothing compiled from source (Python's frozen modules, in the binary, still name their .py).
    assert answer["stdlib"].endswith(".zip") and answer["from"] == ["pyc"]
    assert answer["late"] == f"{answer['stdlib']}/fractions.py"


def test_without_built_assets_the_worker_starts_with_pyodides_own_and_nothing_is_built(monkeypatch, tmp_path):
    from companion import create_app

    def never(*args):
        raise AssertionError("a request built the standard library")

    monkeypatch.setattr(stdlib, "build_stdlib", never)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("ARBITRE_INSTANCE", str(tmp_path / "instance"))
    app = create_app({"TESTING": True, "ASSETS_FOLDER": str(tmp_path / "nothing built")})
    try:
        client = app.test_client()
        assert client.get("/engine/bundle.json").get_json()["stdlib"] == "/pyodide/python_stdlib.zip"
        body = client.get("/sw.js").get_data(as_text=True)
        assert '"/pyodide/python_stdlib.zip"' in body.split("const ENGINE_ASSETS = ", 1)[1].split(";", 1)[0]
        with client.get("/pyodide/python_stdlib.zip") as response:
            assert response.status_code == 200
            assert response.data == (offline.PYODIDE_DIR / "python_stdlib.zip").read_bytes()
        built = [f"/pyodide/stdlib-{stdlib.stdlib_key(('json',))}.zip", "/pyodide/stdlib-nothere.zip"]
        assert all(client.get(url).status_code == 404 for url in built)
        assert not (tmp_path / "nothing built").exists()
    finally:
        dispose(app)


def test_build_assets_says_why_it_cannot_build_and_writes_nothing(monkeypatch, tmp_path):
    def fails(roots, out):
        out.write_bytes(b"half")
        raise subprocess.CalledProcessError(1, "node", stderr=b"no Pyodide here")

    monkeypatch.setattr(stdlib, "node", lambda: "/usr/bin/node")
    monkeypatch.setattr(stdlib, "build_stdlib", fails)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("ARBITRE_INSTANCE", str(tmp_path / "instance"))
    monkeypatch.setenv("ARBITRE_ASSETS_FOLDER", str(tmp_path / "assets"))
    built = CliRunner().invoke(cli.main, ["build-assets"])
    assert built.exit_code == 1 and "no Pyodide here" in built.output
    assert not [path for path in (tmp_path / "assets").rglob("*") if path.is_file()]  # no partial build
