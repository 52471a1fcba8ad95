"""The engine's codes a game's table view may show, read from the engine's own source.

A follower's first page should not download sentences it can never show: the refusals (a table view
never taps) and the answers of a game's checks (only the referee's panels ask). The engine names
its codes as string constants (or f-string heads) in the functions `engine.core` calls for a state
or a story; this module walks those functions, and what they call, in the game's module and the
engine modules it is made of, and keeps every code named there other than as the code of an error
it raises, plus the codes the engine never names (sentences a page words itself). Tests play every
game at random and fail on any code a view or a story shows that is missing
(`tests/test_i18n_pages.py`, `e2e/test_view_words.py`).
"""

from __future__ import annotations

import ast
import importlib.util
from functools import cache
from pathlib import Path

from engine.core import GAME_MODULES
from engine.messages import sentences

# What `engine.core` asks a game's module for a table's state and story (its checks, `CHECKS`, are
# the referee's questions, and its refusals are raised, never kept).
ENGINE_ENTRIES = (
    "setup",
    "EVENTS",
    "actions",
    "view",
    "notes",
    "outcome",
    "summary",
    "describe",
    "score",
    "milestone",
    "MEASURE",
    "START",
    "END",
)
ERRORS = ("IllegalEvent", "InvalidEvent", "RuleError")


def _sources(root: str) -> dict[str, ast.Module]:
    """A game's module and the engine modules it is made of (not the shared core), parsed."""
    trees: dict[str, ast.Module] = {}
    todo = [root]
    while todo:
        name = todo.pop()
        if name in trees or name in ("engine.core", "engine.messages", "engine.rulebook"):
            continue
        trees[name] = tree = ast.parse(Path(importlib.util.find_spec(name).origin).read_text("utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module == "engine":
                todo += [f"engine.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("engine."):
                todo.append(node.module)
    return trees


def _definitions(trees: dict[str, ast.Module]) -> tuple[dict, dict]:
    """Every top-level definition (module, name) -> its node, and each module's imported names."""
    defined, imported = {}, {}
    for module, tree in trees.items():
        imported[module] = {}
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                defined[module, node.name] = node
            elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(target, ast.Name):
                        defined[module, target.id] = node.value
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("engine"):
                for alias in node.names:
                    local = alias.asname or alias.name
                    imported[module][local] = (
                        (f"engine.{alias.name}", None)
                        if node.module == "engine"
                        else (node.module, alias.name)
                    )
    return defined, imported


def _named(module: str, node: ast.AST, imported: dict) -> set[tuple[str, str]]:
    """The top-level definitions a node refers to: its own module's names, and those it imports."""
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            source, name = imported[module].get(sub.id, (module, sub.id))
            found.add((source, name or sub.id))
        elif isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name):
            source, name = imported[module].get(sub.value.id, (None, ""))
            if name is None:  # `gjdlv_play.view`: a module imported whole
                found.add((source, sub.attr))
    return found


def _strings(node: ast.AST) -> list[tuple[str, bool, bool]]:
    """``(text, whole, refused)`` for every string of a node: a constant (whole) or the head of an
    f-string (a code made at run time), and whether it is the code of an error it raises."""
    refused = {
        id(sub.args[0])
        for sub in ast.walk(node)
        if isinstance(sub, ast.Call) and sub.args and isinstance(sub.func, ast.Name) and sub.func.id in ERRORS
    }
    found = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            found.append((sub.value, True, id(sub) in refused))
        elif isinstance(sub, ast.JoinedStr) and sub.values and isinstance(sub.values[0], ast.Constant):
            found.append((sub.values[0].value, False, id(sub) in refused))
    return found


@cache
def view_codes(game: str) -> frozenset[str]:
    """The engine's codes of ``game`` that its table view may show: those its module (and the engine
    modules it is made of) names in the code that makes a state or a story, other than as the code of
    an error it raises, and those it never names at all (sentences the pages word themselves, such as
    Il Morto's "they are dead" banner). Left out: the refusals, which a table view never gets, and
    the answers of the game's checks, which only the referee's panels ask."""
    root = GAME_MODULES[game]
    codes = set(sentences(game))
    trees = _sources(root)
    defined, imported = _definitions(trees)
    reached, todo = set(), [(root, name) for name in ENGINE_ENTRIES]
    while todo:
        where = todo.pop()
        if where in reached or where not in defined:
            continue
        reached.add(where)
        todo += _named(where[0], defined[where], imported)
    named, shown = set(), set()
    for where, node in defined.items():
        for text, whole, refused in _strings(node):
            matches = {text} & codes if whole else {code for code in codes if code.startswith(text)}
            named |= matches
            if where in reached and not refused:
                shown |= matches
    return frozenset(shown | (codes - named))
