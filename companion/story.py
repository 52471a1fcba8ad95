"""The story of a table once told: its results page, and its export and import."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("story", __name__)
