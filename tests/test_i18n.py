"""One catalogue per language (companion/web/i18n.py): the same keys and the same params in each, the
language a request gets, and the parts of it a page downloads (the shell's words and its game's, never
the rules').

The pages themselves are walked in both languages by e2e/test_pages.py, which checks that every text
a page shows is a catalogue string of its language or data.
"""

from __future__ import annotations

import json
import re
import string

import pytest

from companion.web import i18n
from engine.core import GAME_MODULES
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


@pytest.mark.parametrize(
    ("headers", "cookie", "lang"),
    [
        ({}, None, "fr"),
        ({"Accept-Language": "en-US,en;q=0.9"}, None, "en"),
        ({"Accept-Language": "fr-FR,en;q=0.5"}, None, "fr"),  # a regional French still beats a plain en
        ({"Accept-Language": "de-DE,en;q=0.8,fr;q=0.5"}, None, "en"),
        ({"Accept-Language": "de-DE"}, None, "fr"),
        ({"Accept-Language": "en-US"}, "fr", "fr"),  # the phone's switch wins over the browser
        ({"Accept-Language": "fr-FR"}, "en", "en"),
        ({"Accept-Language": "fr-FR"}, "xx", "fr"),  # an unknown cookie is ignored
    ],
)
def test_the_language_of_a_request(app, headers, cookie, lang):
    client = app.test_client()
    if cookie:
        client.set_cookie("lang", cookie)
    page = client.get("/", headers=headers)
    assert re.search(f'<html lang="{lang}"[ >]', page.get_data(as_text=True))
    refusal = client.get("/api/tables/ZZZZZZ", headers=headers).get_json()["error"]
    assert refusal["message"] == refusal["messages"][lang]


def test_each_language_is_served_whole(client):
    for lang in LANGS:
        answer = client.get(f"/i18n/{lang}.json")
        assert answer.status_code == 200
        assert answer.get_json() == i18n.catalogue(lang)
    assert client.get("/i18n/de.json").status_code == 404


def catalogue_url(client, path: str) -> str:
    page = client.get(path).get_data(as_text=True)
    return re.search(r'<html lang="\w+" data-i18n="([^"]+)">', page).group(1)


def test_a_page_downloads_its_part_of_the_catalogue(client, make_table):
    """A table's pages name the shell's and their game's sentences: the table view and a player's
    page what a table view shows, the referee page what it shows; a page with no game the shell's;
    the snapshot page (any game) every game's; the URL carries the version and the language."""
    table = make_table()
    version = client.get("/sw.js").get_data(as_text=True).split('const VERSION = "', 1)[1][:12]
    for path in (f"/t/{table.code}/qr", "/new/morto"):
        assert catalogue_url(client, path) == f"/i18n/{version}/fr/morto.json", path
    assert catalogue_url(client, f"/t/{table.code}") == f"/i18n/{version}/fr/morto.view.json"
    assert catalogue_url(client, f"/r/{table.code}") == f"/i18n/{version}/fr/morto.referee.json"
    game = make_table(game="existentiel", players=[{"name": "Ada", "birth_month": 3}])
    assert catalogue_url(client, f"/t/{game.code}/p/p1") == f"/i18n/{version}/fr/existentiel.player.json"
    assert catalogue_url(client, "/new/gjdlv") == f"/i18n/{version}/fr/gjdlv.json"
    for path in ("/", "/rules", "/nowhere"):
        assert catalogue_url(client, path) == f"/i18n/{version}/fr/shell.json", path
    assert catalogue_url(client, "/s") == f"/i18n/{version}/fr/all.json"
    client.set_cookie("lang", "en")
    assert catalogue_url(client, "/") == f"/i18n/{version}/en/shell.json"


def test_each_part_holds_the_shell_and_its_game_only_and_never_the_rules():
    for lang in LANGS:
        whole, parts = i18n.catalogue(lang), {name: i18n.part(lang, name) for name in i18n.PARTS}
        rules = {key for key in whole if key.startswith(("ui.rules.", "existentiel.calendar."))}
        assert rules and not rules & parts["all"].keys()  # only the server says them (rules pages, .ics)
        # Every other sentence reaches the pages; the seats dialog's and a player's page's, only theirs.
        page_only = set().union(
            *(json.loads((i18n.FOLDER / lang / f"{name}.json").read_text("utf-8")) for name in i18n.PAGE_ONLY)
        )
        assert page_only and parts["all"].keys() == whole.keys() - rules - page_only
        shell = parts["shell"].keys()
        assert {"ui.shell.reload", "ui.story.title", "ui.game.gjdlv", "unknown_table"} <= shell
        for game in GAME_MODULES:
            own = parts[game].keys() - shell
            assert own and all(key.startswith((f"ui.{game}.", f"{game}.")) for key in own), game
            assert set(catalogue()) & parts[game].keys() >= {
                code for code in catalogue() if code.startswith(f"{game}.") and code not in rules
            }
        assert all(key.split(".")[0] not in GAME_MODULES or key.startswith("ui.") for key in shell)
        assert parts["all"] == {**parts["morto"], **parts["existentiel"], **parts["gjdlv"]}
        for game in GAME_MODULES:  # a table's own pages: less, never more (tests/test_i18n_pages.py)
            view, referee, player = (parts[f"{game}.{page}"].keys() for page in ("view", "referee", "player"))
            assert view < referee and referee - page_only < parts[game].keys()
            assert view < player and player - page_only < parts[game].keys()
            assert not page_only & (shell | parts[game].keys())
    for name in i18n.PARTS:  # the same keys in every language
        assert i18n.part("fr", name).keys() == i18n.part("en", name).keys(), name


def test_a_part_is_immutable_under_its_version(client):
    version = client.get("/sw.js").get_data(as_text=True).split('const VERSION = "', 1)[1][:12]
    for lang in LANGS:
        for name in i18n.PARTS:
            answer = client.get(f"/i18n/{version}/{lang}/{name}.json")
            assert answer.status_code == 200 and answer.mimetype == "application/json"
            assert answer.get_json() == i18n.part(lang, name)
            assert answer.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    packed = client.get(f"/i18n/{version}/fr/morto.json", headers={"Accept-Encoding": "gzip"})
    assert packed.headers["Content-Encoding"] == "gzip"
    # The shell's words and Il Morto's, compressed: 6.1 KB since the new-table form says each problem
    # under its row and offers the recent tables' players (issue 29), and the end card its rematch.
    assert len(packed.data) < 7 * 1024
    # An old page after a deployment: today's words, never kept under that version's name.
    old = client.get("/i18n/000000000000/fr/morto.json")
    assert old.get_json() == i18n.part("fr", "morto") and old.headers["Cache-Control"] == "no-cache"
    for path in ("/i18n/{v}/de/morto.json", "/i18n/{v}/fr/rules.json", "/i18n/{v}/fr/chess.json"):
        assert client.get(path.format(v=version)).status_code == 404, path
    # The service worker knows every part, to keep those it fetches and answer them offline.
    sw = client.get("/sw.js").get_data(as_text=True)
    parts = json.loads(sw.split("const PARTS = ", 1)[1].split(";\n", 1)[0])
    assert parts == [f"/i18n/{version}/{lang}/{name}.json" for lang in LANGS for name in i18n.PARTS]
