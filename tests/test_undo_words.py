""" "Défaire" takes back, "Annuler" cancels: two words, never one for the other, in French (issue 29).

Every French interface sentence that says « Annuler » belongs to a cancel (a key named ``…cancel…``:
a dialog or a choice given up); the undo's button, its label, the story panel's and the mark of an
undone event say « Défaire » / « défait ». English keeps "Undo" and "Cancel" apart the same way.
"""

from __future__ import annotations

import re

from companion.web.i18n import interface

UNDO_KEYS = ("ui.referee.undo", "ui.referee.undo_label", "ui.story.undo", "ui.story.undo_label")


def test_annuler_is_only_ever_a_cancel_and_defaire_the_undo():
    french, english = interface("fr"), interface("en")
    cancels = {key for key, text in french.items() if re.search(r"\bannul", text, re.IGNORECASE)}
    # Verbs of the games' own vocabulary (a King "annule" an abortion) are the rules' words, not the app's.
    buttons = {key for key in cancels if not key.startswith(("ui.rules.", "ui.gjdlv.qa."))}
    assert all("cancel" in key for key in buttons), sorted(buttons)
    for key in UNDO_KEYS:
        assert "Défaire" in french[key] and "Undo" in english[key], key
    assert french["ui.story.undone"] == "défait" and french["ui.shell.happened.undone"] == "Défait"
    # The over hints name the undo button by its word.
    for key in ("ui.morto.over_hint", "ui.existentiel.over_hint", "ui.gjdlv.over_hint"):
        assert "«\u00a0Défaire\u00a0»" in french[key] and "“Undo”" in english[key], key
