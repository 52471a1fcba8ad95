"""Arbitre's rules engine: pure Python, no I/O, the same on the server and in the browser (Pyodide)."""

from engine.core import IllegalEvent, InvalidEvent, Outcome, RuleError, apply, game, replay, setup, undo, view

__all__ = [
    "IllegalEvent",
    "InvalidEvent",
    "Outcome",
    "RuleError",
    "apply",
    "game",
    "replay",
    "setup",
    "undo",
    "view",
]
