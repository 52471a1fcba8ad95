"""The rooms of companion/ keep to their layer beyond what import-linter sees ([tool.importlinter]
checks the imports between modules): storage reads no request and knows no HTTP status."""

from __future__ import annotations

import ast
from pathlib import Path

STORAGE = Path(__file__).resolve().parent.parent / "companion" / "storage"
REQUEST_SCOPED = {"request", "g", "session", "has_request_context", "abort", "jsonify", "Response"}


def _flask_names(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module in ("flask", "werkzeug", "werkzeug.exceptions"):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names if alias.name.startswith("werkzeug"))
    return names


def test_storage_reads_no_request_and_answers_no_http():
    modules = sorted(STORAGE.rglob("*.py"))
    assert any(path.name == "store.py" for path in modules)
    for path in modules:
        found = _flask_names(path)
        assert not found & REQUEST_SCOPED, (path, found & REQUEST_SCOPED)
        assert not any(name.startswith("werkzeug") or name == "HTTPException" for name in found), path
