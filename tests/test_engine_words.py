"""The engine's wording at its edges (engine/messages.py): French elision before a name whose first
letters carry accents, and English that never elides, whatever its sentence holds. These pin what the
mutation run (bench/mutation.py) found reached by no assertion of tests/test_french.py."""

from __future__ import annotations

from engine import messages
from engine.messages import elides, text


def test_a_y_with_an_accent_elides_before_a_consonant_as_a_plain_y():
    # "d'Yves" but "de Yann": the accent on the Y is not a letter of its own.
    assert [elides(name) for name in ("Ÿves", "Ÿvonne", "Yves", "Ÿann", "Yann", "Ÿ")] == [
        True,
        True,
        True,
        False,
        False,
        False,
    ]


def test_english_never_elides_even_a_sentence_with_a_french_word_before_a_name(monkeypatch):
    monkeypatch.setattr(
        messages, "catalogue", lambda: {"demo.line": ("Le tour de {name}", "Round de {name}")}
    )
    assert text("demo.line", {"name": "Ada"}, "fr") == "Le tour d'Ada"
    assert text("demo.line", {"name": "Ada"}, "en") == "Round de Ada"
