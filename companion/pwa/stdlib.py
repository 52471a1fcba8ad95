"""The phone's standard library, built ahead of time by ``companion build-assets`` (a step of the
README's commands), never on a request.

Pyodide's ``python_stdlib.zip`` holds sources only, so every start of the phone's engine compiled
the ~150 modules Pyodide's own start and the engine import, most of a second on a phone. The build
runs this very Pyodide in Node and writes the same library with those modules as bytecode, the rest
as sources: complete, so a module imported late is compiled then, never missing. Its name,
``stdlib-<key>.zip``, hashes what decides its content (the runtime's version, the modules the
engine's bundle imports, the build itself), so it is immutable and a phone keeps it across app
versions. Built beside it: each runtime file gzip-compressed once, served as is.

A server whose assets were not built serves Pyodide's own library (slower to start, as complete).
"""

from __future__ import annotations

import ast
import functools
import gzip
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYODIDE_DIR = ROOT / "node_modules" / "pyodide"
BUILT = ROOT / "build"  # what ``companion build-assets`` writes (not in git)
STOCK = "python_stdlib.zip"  # sources only: what the worker starts with when ours is not built

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


def node() -> str | None:
    """Node, if it and the Pyodide runtime are here to build with."""
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
        [node() or "node", "--input-type=module", "-e", STDLIB_NODE],
        check=True,
        capture_output=True,
        timeout=300,
        env=env,
    )


def pyodide_version() -> str:
    try:
        return json.loads((PYODIDE_DIR / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return ""


def built_stdlib(name: str, folder: Path = BUILT) -> Path:
    """Where the standard library named ``name`` is built."""
    return folder / "pyodide-stdlib" / pyodide_version() / name


def built_gzip(name: str, folder: Path = BUILT) -> Path:
    """Where a runtime file (or the built standard library) is kept gzip-compressed."""
    return folder / "pyodide-gz" / pyodide_version() / (name + ".gz")


def build(roots: tuple[str, ...], folder: Path = BUILT, runtime_files: tuple[str, ...] = ()) -> list[Path]:
    """The standard library for ``roots`` and the gzip of each runtime file, built into ``folder``
    unless already there (each written whole or not at all); the paths written."""
    written = []
    name = f"stdlib-{stdlib_key(roots)}.zip"
    target = built_stdlib(name, folder)
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{name}.{os.getpid()}.tmp")
        try:
            build_stdlib(roots, partial)
            partial.replace(target)
        finally:
            partial.unlink(missing_ok=True)
        written.append(target)
    for file in (*runtime_files, name):
        source = target if file == name else PYODIDE_DIR / file
        packed = built_gzip(file, folder)
        if source.is_file() and not packed.exists():
            packed.parent.mkdir(parents=True, exist_ok=True)
            partial = packed.with_suffix(f".{os.getpid()}.tmp")
            partial.write_bytes(gzip.compress(source.read_bytes(), 6))
            partial.replace(packed)
            written.append(packed)
    return written
