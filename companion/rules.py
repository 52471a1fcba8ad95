"""The games' rules in short, in the app: a page per game, and the rule each refusal points to."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("rules", __name__)
