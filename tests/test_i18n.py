"""One catalogue per language (companion/i18n.py): the same keys and the same params in each, and the
language a request gets.

The pages themselves are walked in both languages by e2e/test_pages.py, which checks that every text
a page shows is a catalogue string of its language or data.
"""

from __future__ import annotations

import json
import string

import pytest

from companion import i18n
from engine.messages import LANGS, catalogue


def params(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_part_of_the_interface_is_in_every_language():
    parts = {lang: sorted(path.name for path in (i18n.FOLDER / lang).glob("*.json")) for lang in LANGS}
    assert parts["fr"] == parts["en"]
    for name in parts["fr"]:
        french, english = (json.loads((i18n.FOLDER / lang / name).read_text("utf-8")) for lang in LANGS)
        assert french.keys() == english.keys(), name
        for key in french:
            assert key.startswith("ui."), key
            assert french[key].strip() and english[key].strip(), key
            assert params(french[key]) == params(english[key]), key


def test_the_catalogues_have_the_same_keys_and_params():
    french, english = i18n.catalogue("fr"), i18n.catalogue("en")
    assert french.keys() == english.keys()
    assert set(catalogue()) <= french.keys()  # the engine's sentences are in it, every one
    for key in french:
        assert params(french[key]) == params(english[key]), key


def test_an_interface_key_lives_in_one_part_only(tmp_path, monkeypatch):
    for name, words in (("a.json", {"ui.x": "un"}), ("b.json", {"ui.x": "deux"})):
        (tmp_path / "fr").mkdir(exist_ok=True)
        (tmp_path / "fr" / name).write_text(json.dumps(words), encoding="utf-8")
    monkeypatch.setattr(i18n, "FOLDER", tmp_path)
    i18n.interface.cache_clear()
    try:
        with pytest.raises(ValueError, match="ui.x"):
            i18n.interface("fr")
    finally:
        monkeypatch.undo()
        i18n.interface.cache_clear()


@pytest.mark.parametrize(("headers", "cookie", "lang"), [
    ({}, None, "fr"),
    ({"Accept-Language": "en-US,en;q=0.9"}, None, "en"),
    ({"Accept-Language": "fr-FR,en;q=0.5"}, None, "fr"),  # a regional French still beats a plain en
    ({"Accept-Language": "de-DE,en;q=0.8,fr;q=0.5"}, None, "en"),
    ({"Accept-Language": "de-DE"}, None, "fr"),
    ({"Accept-Language": "en-US"}, "fr", "fr"),  # the phone's switch wins over the browser
    ({"Accept-Language": "fr-FR"}, "en", "en"),
    ({"Accept-Language": "fr-FR"}, "xx", "fr"),  # an unknown cookie is ignored
])
def test_the_language_of_a_request(app, headers, cookie, lang):
    client = app.test_client()
    if cookie:
        client.set_cookie("lang", cookie)
    page = client.get("/", headers=headers)
    assert f'<html lang="{lang}">' in page.get_data(as_text=True)
    refusal = client.get("/api/tables/ZZZZZZ", headers=headers).get_json()["error"]
    assert refusal["message"] == refusal["messages"][lang]


def test_each_language_is_served_whole(client):
    for lang in LANGS:
        answer = client.get(f"/i18n/{lang}.json")
        assert answer.status_code == 200
        assert answer.get_json() == i18n.catalogue(lang)
    assert client.get("/i18n/de.json").status_code == 404
