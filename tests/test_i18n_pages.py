"""The parts of the catalogue a table's own pages download (companion/web/i18n.py): the table view's
(``<game>.view``, the first page a follower opens), a player's page's (``<game>.player``) and the
referee's (``<game>.referee``) hold every sentence those pages can show, and the table view's nothing
that only a referee sees.

- Every key a page's scripts name is in its part: the scripts are read as the browser loads them,
  from the page's ``<script>`` through every import (static, and dynamic: a game's module, the
  Grand Jeu de la Vie's round played through); a key written whole must be there, and every key of a
  family a template names (``ui.gjdlv.phase.${phase}``) or a count picks (``_none``, ``_one``,
  ``_many``).
- Every engine code a table's state or story carries is in its table view's part: tables of every
  game played at random (legal and illegal events, undos, seeded), and the Grand Jeu de la Vie played
  through card by card to its end.
- Left out of the table view's: the engine's refusals and its checks' answers (`companion.web.view_codes`),
  the referee's words and the other pages'.

The same pages drawn in a browser, in both languages, name no key their part lacks:
e2e/test_view_words.py.
"""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path

import pytest

from companion import ROOT
from companion.web import i18n
from companion.web.view_codes import view_codes
from engine import core
from engine.core import GAME_MODULES, RuleError
from engine.messages import LANGS, catalogue
from tests.test_gjdlv_play_generated import pick_event
from tests.test_playthrough import GENERATORS

JS = ROOT / "static" / "js"
TEMPLATES = ROOT / "templates"
# A page's scripts: its template's own and base.html's (every page's shell).
SCRIPT = re.compile(r"""url_for\('static', filename='(js/[\w/]+\.js)'\)""")
IMPORT = re.compile(r"""\bimport\s*(?:[\w{}\s,*]+\s*from\s*)?\(?\s*(["'`])(\.[^"'`]+)\1""")
KEY = re.compile(r"""(["'`])((?:ui|""" + "|".join(GAME_MODULES) + r""")\.[\w.]*?)(\1|\$\{)""")
COUNTS = ("none", "one", "many")


def modules(template: str, game: str) -> list[str]:
    """Every module a page loads, from its template's scripts through every import: a template
    literal's ``${game}`` is the table's game (`./games/${game}.js`)."""
    pages = (TEMPLATES / "base.html").read_text("utf-8") + (TEMPLATES / template).read_text("utf-8")
    todo = [JS.parent / path for path in SCRIPT.findall(pages)]
    seen: list[str] = []
    while todo:
        path = todo.pop().resolve()
        if str(path) in seen:
            continue
        seen.append(str(path))
        for _, specifier in IMPORT.findall(path.read_text("utf-8")):
            if not specifier.endswith(".js") or "${" in specifier.replace("${game}", ""):
                continue
            todo.append(path.parent / specifier.replace("${game}", game))
    return seen


def named(paths: list[str], words: dict[str, str]) -> dict[str, set[str]]:
    """The keys the modules name, by what names them: a key written whole, a template's family, the
    key a count completes, or the plural forms (``.one``, ``.other``) `t` chooses between."""
    found: dict[str, set[str]] = {}
    for path in paths:
        for _, text, end in KEY.findall(Path(path).read_text("utf-8")):
            if end == "${":
                keys = {key for key in words if key.startswith(text)}
            elif text in words:
                keys = {text}
            else:
                keys = {f"{text}_{count}" for count in COUNTS} & words.keys()
                keys |= {f"{text}.{form}" for form in ("one", "other")} & words.keys()
            assert keys, f"{path} names {text!r}, which is no sentence of the catalogue"
            found[f"{path.rsplit('/', 1)[-1]}: {text}"] = keys
    return found


PAGES = {"view.html": "view", "player.html": "player", "referee.html": "referee"}


@pytest.mark.parametrize("template", sorted(PAGES))
@pytest.mark.parametrize("game", sorted(GAME_MODULES))
def test_every_key_a_pages_scripts_name_is_in_its_part(game, template):
    loaded = modules(template, game)
    assert any(path.endswith(f"/games/{game}.js") for path in loaded), loaded  # the game's module itself
    if template == "referee.html":
        assert any(path.endswith(f"/games/{game}_referee.js") for path in loaded), loaded
    elif template == "player.html":  # a player's page: its game's player module, and the outbox
        assert any(path.endswith(f"/games/{game}_player.js") for path in loaded), loaded
        assert any(path.endswith("/sync.js") for path in loaded), loaded
    else:  # a table view never loads the referee's modules, nor the API's client
        referees = ("_referee.js", "/actions.js", "/api.js", "/sync.js")
        assert not [path for path in loaded if path.endswith(referees)]
    name = f"{game}.{PAGES[template]}"
    for lang in LANGS:
        part = i18n.part(lang, name).keys()
        keys = named(loaded, i18n.catalogue(lang))
        lacking = {where: sorted(wanted - part) for where, wanted in keys.items() if wanted - part}
        assert not lacking, f"{name} ({lang}) lacks what {template}'s scripts name: {lacking}"


def test_a_table_played_through_loads_its_modules_only_when_it_is_one():
    view = modules("view.html", "gjdlv")
    assert any(path.endswith("/games/gjdlv_play.js") for path in view)  # imported when state.play says so
    source = (JS / "games" / "gjdlv.js").read_text("utf-8")
    assert 'from "./gjdlv_play.js"' not in source  # never statically: a score sheet's view skips it
    assert 'from "./gjdlv_play_referee.js"' not in (JS / "games" / "gjdlv_referee.js").read_text("utf-8")


# --- the engine's codes in states and stories -------------------------------------------------------


def codes_in(value, codes: set[str]) -> set[str]:
    """Every engine code a JSON value carries, wherever it is (a note, a reason, a step, a name)."""
    if isinstance(value, dict):
        return set().union(*(codes_in(item, codes) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(codes_in(item, codes) for item in value))
    return {value} & codes if isinstance(value, str) else set()


def random_tables(game: str, seeds=range(6), steps: int = 300):
    """Tables of ``game`` played at random as tests/test_playthrough.py plays them: each state's
    view, and each table's story."""
    for seed in seeds:
        rng = random.Random(f"i18n/{game}/{seed}")
        generator = GENERATORS[game](game)
        players, options = generator.table(rng)
        state, accepted = core.setup(game, players, options), []
        for _ in range(steps):
            view = core.view(game, state)
            yield view
            if accepted and rng.random() < (0.3 if view["over"] else 0.04):
                accepted.pop()
                state = core.replay(game, players, options, accepted)
                continue
            event = generator.event(rng, view)
            try:
                state = core.apply(game, state, event)
            except RuleError:
                continue
            accepted.append(copy.deepcopy(event))
        yield core.describe(game, players, options, accepted)


def tables_played_through(seeds=range(4)):
    """Whole games of the Grand Jeu de la Vie played through card by card, only legal events (the
    actions and the cards the engine offers): each state's view, and each game's story."""
    for seed in seeds:
        rng = random.Random(f"i18n/tracker/{seed}")
        players = ["Ada", "Bruno", "Chiara", "Dario", "Elena", "Fabio"][: rng.randint(3, 6)]
        options = {"mode": "tracker", "rounds": 5, "rules": rng.choice(["simples", "abondantes"])}
        state, events = core.setup("gjdlv", players, options), []
        for _ in range(5000):
            view = core.view("gjdlv", state)
            yield view
            if view["over"]:
                break
            event = pick_event(rng, view)
            state = core.apply("gjdlv", state, event)
            events.append(event)
        assert view["over"], "a game played through did not end"
        yield core.describe("gjdlv", players, options, events)


@pytest.mark.parametrize("game", sorted(GAME_MODULES))
def test_every_code_a_tables_state_or_story_carries_is_in_its_table_views_part(game):
    codes = set(catalogue())
    carried = set()
    for value in random_tables(game):
        carried |= codes_in(value, codes)
    if game == "gjdlv":
        for value in tables_played_through():
            carried |= codes_in(value, codes)
        assert {"gjdlv.play.expect.deal", "gjdlv.play.expect.ejaculation", "gjdlv.play.last_lap"} <= carried
    assert any(".story." in code for code in carried) and len(carried) >= 5, carried  # the walk saw tables
    for lang in LANGS:
        part = i18n.part(lang, f"{game}.view")
        assert not carried - part.keys(), f"{game}.view ({lang}) lacks {sorted(carried - part.keys())}"


# --- what the table view's part leaves out ----------------------------------------------------------


def test_the_table_views_codes_leave_out_refusals_and_the_checks_answers_only():
    shown = {game: view_codes(game) for game in GAME_MODULES}
    # Raised only (a refusal), or only in a check's answer: never on a table view.
    for code in (
        "morto.dealer_may_touch",
        "morto.swap.deck",
        "existentiel.must_roll_first",
        "gjdlv.card_already_recorded",
        "gjdlv.play.seen.uterus",
        "gjdlv.check.fecundate_cc",
    ):
        assert code in catalogue() and code not in shown[code.split(".", 1)[0]], code
    # In a state or a story: a note, a reason, a royal newborn's name (a constant of gjdlv_cards), a
    # step made at run time (f"gjdlv.play.expect.{phase}", also raised), a story's words; and the
    # sentences the pages word themselves, which the engine never names.
    for code in (
        "morto.won",
        "morto.story.reveal",
        "morto.dead.warning",
        "existentiel.eliminated_refused",
        "existentiel.lived_at_death",
        "gjdlv.royal.Q",
        "gjdlv.play.expect.birth",
        "gjdlv.cc_malus",
    ):
        assert code in shown[code.split(".", 1)[0]], code
    for game in GAME_MODULES:  # a game's codes only, never another's nor the shared ones
        assert all(code.startswith(f"{game}.") for code in shown[game])


def test_a_table_views_part_is_its_own_pages_words_only():
    for lang in LANGS:
        files = (i18n.FOLDER / lang).glob("*.json")
        words = {path.stem: json.loads(path.read_text("utf-8")).keys() for path in files}
        for game in GAME_MODULES:
            whole, view, referee = (i18n.part(lang, f"{game}{page}") for page in ("", ".view", ".referee"))
            assert view.keys() < referee.keys() and referee.keys() - words["seats"] < whole.keys()
            assert words["seats"] <= referee.keys()  # the seats dialog's words: the referee page's only
            assert words["shell"] | words["story"] | words[game] <= view.keys()
            for other in ("referee", "pages", "results", f"{game}_referee"):
                assert not words[other] & view.keys(), other
            assert words["referee"] | words[f"{game}_referee"] <= referee.keys()
            assert not (words["pages"] | words["results"]) & referee.keys()
            # A referee's tap may be refused for anything: every code of its game's, and the shared ones
            # (not the calendar file's, which only the server words).
            owners = {
                code: code.split(".", 1)[0]
                for code in catalogue()
                if not code.startswith(i18n.SERVER_ONLY_CODES)
            }
            assert {
                code for code, owner in owners.items() if owner == game or owner not in GAME_MODULES
            } <= referee.keys()


def test_a_table_views_part_is_small(client):
    version = client.get("/sw.js").get_data(as_text=True).split('const VERSION = "', 1)[1][:12]
    for game in GAME_MODULES:
        packed = client.get(f"/i18n/{version}/fr/{game}.view.json", headers={"Accept-Encoding": "gzip"})
        assert packed.headers["Content-Encoding"] == "gzip"
        assert len(packed.data) < 3.5 * 1024, game  # about a third of its game's part
