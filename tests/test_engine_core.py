"""The shared engine (RULES.md §0): refusals say exactly what is wrong, and every client words them alike.

Each game's tests check *that* an event is refused and with which code. These check *what the
refusal says*: its params, from which the French and English sentences are built (a wrong name or
bound would still pass a code-only test, and the referee would read "None is dead"), the envelope
every view shares, the one way checks are asked, and the message catalogue the clients word with.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import core, existentiel, gjdlv, messages, morto
from engine.core import IllegalEvent, InvalidEvent, RuleError
from engine.messages import refusal, text, worded
from engine.specs import Field, Option, option_value, read_options, specs

GAMES = ["existentiel", "gjdlv", "morto"]
PLAYERS = {
    "morto": ["Ada", "Bruno", "Chiara"],
    "existentiel": [{"name": "Ada", "birth_month": 3}],
    "gjdlv": ["Ada", "Bruno", "Chiara"],
}


def refused(call, *args) -> RuleError:
    with pytest.raises(RuleError) as caught:
        call(*args)
    return caught.value


# --- errors -------------------------------------------------------------------------------------------


def test_a_refusal_shows_its_code_and_params_in_tracebacks():
    error = refused(core.setup, "morto", ["Ada"], {})
    assert isinstance(error, InvalidEvent)
    assert str(error) == "player_count {'count': 1, 'min': 3, 'max': 20}"
    assert str(IllegalEvent("game_over")) == "game_over {}"
    assert repr(error) == "InvalidEvent('player_count')"
    assert error.args == ("player_count",)


# --- the registry, setup and apply ---------------------------------------------------------------------


def test_a_games_module_is_imported_the_first_time_it_is_asked_for_then_kept(monkeypatch):
    monkeypatch.setattr(core, "_LOADED", {})  # as in a process that has not met the game yet
    assert core.game("gjdlv") is gjdlv
    assert list(core._LOADED.items()) == [("gjdlv", gjdlv)]  # kept: the next ask imports nothing
    assert core.game("gjdlv") is gjdlv


@pytest.mark.parametrize(
    ("game_id", "echoed"), [("chess", "chess"), (5, 5), (None, None), ("x" * 60, "x" * 40)]
)
def test_an_unknown_game_is_named_with_the_games_there_are(game_id, echoed):
    error = refused(core.game, game_id)
    assert error.code == "unknown_game"
    assert error.params == {"game": echoed, "games": ["existentiel", "gjdlv", "morto"]}
    if game_id == "chess":
        assert text(error.code, error.params, "en") == "Unknown game “chess”."


@pytest.mark.parametrize("game_id", GAMES)
def test_no_options_means_the_default_options(game_id):
    assert core.setup(game_id, PLAYERS[game_id], None) == core.setup(game_id, PLAYERS[game_id], {})


@pytest.mark.parametrize("game_id", GAMES)
def test_options_must_be_an_object_and_players_a_list(game_id):
    error = refused(core.setup, game_id, PLAYERS[game_id], ["lives", 3])
    assert (error.code, error.params) == ("bad_options", {})
    error = refused(core.setup, game_id, {"name": "Ada"}, {})
    assert (error.code, error.params) == ("bad_players", {})


@pytest.mark.parametrize("module", [existentiel, gjdlv, morto])
def test_a_game_module_refuses_players_that_are_not_a_list(module):
    """The game interface itself is safe, not only core's front door (RULES §0: malformed input is
    refused)."""
    error = refused(module.setup, "Ada, Bruno, Chiara", {})
    assert error.code == "bad_players"


def test_the_existentiel_module_refuses_options_that_are_not_an_object():
    error = refused(existentiel.setup, PLAYERS["existentiel"], ["titles"])
    assert error.code == "bad_options"


@pytest.mark.parametrize("game_id", GAMES)
def test_an_unknown_event_type_is_named_with_the_types_there_are(game_id):
    state = core.setup(game_id, PLAYERS[game_id], {})
    events = sorted(core.game(game_id).EVENTS)
    for event, echoed in [
        ({"type": "knock"}, "knock"),
        ({"player": "p1"}, None),
        ({"type": 3}, 3),
        ({"type": ["roll"]}, "['roll']"),
    ]:
        error = refused(core.apply, game_id, state, event)
        assert error.code == "unknown_event"
        assert error.params == {"type": echoed, "events": events}
    error = refused(core.apply, game_id, state, "roll")
    assert (error.code, error.params) == ("bad_event", {})


def test_apply_never_changes_the_given_state():
    state = core.setup("morto", PLAYERS["morto"], {})
    after = core.apply("morto", state, {"type": "touched_early", "player": "p2"})
    assert state["players"][1]["lives"] == 3
    assert after["players"][1]["lives"] == 2


def test_undo_replays_all_but_the_last_event():
    events = [{"type": "touched_early", "player": "p2"}, {"type": "touched_early", "player": "p3"}]
    back = core.undo("morto", PLAYERS["morto"], {}, events)
    assert [p["lives"] for p in back["players"]] == [3, 2, 3]
    error = refused(core.undo, "morto", PLAYERS["morto"], {}, [])
    assert isinstance(error, IllegalEvent)
    assert (error.code, error.params) == ("nothing_to_undo", {})


# --- the view's envelope ----------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", GAMES)
def test_the_envelope_of_a_game_under_way(game_id):
    state = core.setup(game_id, PLAYERS[game_id], {})
    view = core.view(game_id, state)
    assert view["game"] == game_id
    assert view["over"] is False and view["winners"] == [] and view["outcome"] is None
    assert view["actions"] == core.game(game_id).actions(state) != []


def test_the_envelope_of_a_finished_game():
    events = [{"type": "touched_early", "player": "p2"}] * 3 + [{"type": "touched_early", "player": "p3"}] * 3
    state = core.replay("morto", PLAYERS["morto"], {}, events)
    view = core.view("morto", state)
    assert view["over"] is True
    assert view["winners"] == ["p1"]
    assert view["outcome"] == {"reason": "morto.won", "params": {"names": "Ada"}}
    assert text(view["outcome"]["reason"], view["outcome"]["params"], "en") == "Ada wins!"
    assert view["actions"] == []
    assert view["notes"] == []


def test_notes_carry_their_code_and_params():
    view = core.view("gjdlv", core.setup("gjdlv", ["Ada", "Bruno"], {}))
    assert view["notes"] == [{"code": "gjdlv.note_player_count", "params": {"count": 2}}]


# --- checks -----------------------------------------------------------------------------------------


def test_an_unknown_check_is_named_with_the_checks_there_are():
    state = core.setup("morto", PLAYERS["morto"], {})
    for name, echoed in [("dice", "dice"), (None, None), (7, 7)]:
        error = refused(core.check, "morto", state, name, {})
        assert isinstance(error, InvalidEvent)
        assert error.code == "unknown_check"
        assert error.params == {"check": echoed, "checks": ["reveal", "swap"]}


def test_check_params_default_to_nothing_and_must_be_an_object():
    state = core.setup("morto", PLAYERS["morto"], {})
    assert core.check("morto", state, "swap", None) == core.check("morto", state, "swap", {})
    error = refused(core.check, "morto", state, "swap", ["face_up"])
    assert (error.code, error.params) == ("bad_check_params", {})


# --- the shared field checks, through the games ------------------------------------------------------


def test_player_count_names_the_bounds():
    error = refused(core.setup, "gjdlv", ["A"] * 7, {})
    assert error.params == {"count": 7, "min": 2, "max": 6}
    assert text(error.code, error.params, "en") == "This game is for 2–6 players, not 7."


def test_names_are_checked_and_quoted():
    error = refused(core.setup, "morto", ["Ada", "  ", "Chiara"], {})
    assert (error.code, error.params) == ("name_length", {"name": "", "max": 40})
    error = refused(core.setup, "morto", ["Ada", "y" * 41, "Chiara"], {})
    assert (error.code, error.params) == ("name_length", {"name": "y" * 40, "max": 40})
    assert text(error.code, error.params, "en") == "A name has 1 to 40 characters."
    error = refused(core.setup, "morto", ["Ada", " ADA ", "Chiara"], {})
    assert (error.code, error.params) == ("duplicate_name", {"name": "ADA"})
    assert text(error.code, error.params, "en") == "The name “ADA” is already taken at this table."
    error = refused(core.setup, "morto", ["Ada", 7, "Chiara"], {})
    assert (error.code, error.params) == ("bad_name", {})
    assert core.setup("morto", ["x" * 40, " Bruno ", "Chiara"], {})["players"][1]["name"] == "Bruno"


def test_an_unknown_player_is_quoted_with_the_field_that_named_them():
    state = core.setup("morto", PLAYERS["morto"], {})
    error = refused(core.apply, "morto", state, {"type": "spoke_to_dead", "living": "p2", "dead": "z" * 50})
    assert (error.code, error.params) == ("unknown_player", {"player": "z" * 40, "field": "dead"})
    assert text(error.code, error.params, "en") == f"Unknown player “{'z' * 40}”."
    error = refused(core.apply, "morto", state, {"type": "touched_early"})
    assert error.params == {"player": "None", "field": "player"}


@pytest.mark.parametrize(
    ("die", "echoed"), [(0, 0), (7, 7), (True, True), ("3", "3"), (2.5, 2.5), (None, None)]
)
def test_a_number_out_of_range_is_quoted_with_its_bounds(die, echoed):
    state = core.setup("existentiel", PLAYERS["existentiel"], {})
    error = refused(core.apply, "existentiel", state, {"type": "roll", "player": "p1", "die": die})
    assert isinstance(error, InvalidEvent)
    assert (error.code, error.params) == ("bad_number", {"field": "die", "value": echoed, "min": 1, "max": 6})


def test_the_bounds_of_a_number_are_included():
    state = core.setup("existentiel", PLAYERS["existentiel"], {})
    for die in (1, 6):
        core.apply("existentiel", state, {"type": "roll", "player": "p1", "die": die})
    sentence = text("bad_number", {"field": "die", "value": 7, "min": 1, "max": 6}, "en")
    assert sentence == "“die” must be a whole number from 1 to 6 (got: 7)."


def test_an_integer_option_is_quoted_with_its_bounds():
    error = refused(core.setup, "morto", PLAYERS["morto"], {"lives": 10})
    assert (error.code, error.params) == ("bad_option", {"field": "lives", "value": 10, "min": 1, "max": 9})
    assert text(error.code, error.params, "en") == "Invalid option “lives”: 10."
    error = refused(core.setup, "morto", PLAYERS["morto"], {"dealer": 3})
    assert error.params == {"field": "dealer", "value": 3, "min": 0, "max": 2}


def test_a_choice_option_is_quoted_with_its_choices():
    error = refused(core.setup, "gjdlv", PLAYERS["gjdlv"], {"rules": "longues"})
    assert (error.code, error.params) == (
        "bad_option",
        {"field": "rules", "value": "longues", "choices": ["simples", "abondantes"]},
    )


# --- the specs: options read once, from each game's declaration ------------------------------------------


def test_options_are_read_from_their_specs_in_the_order_declared():
    declared = specs(
        Option("lives", "int", 1, 9, default=3),
        Option("dealer", "seat", default=0),
        Option("mode", "choice", default="sheet", choices=("sheet", "tracker")),
        Option("titles", "list", 2, 2, items=Field("title", "text", 1, 80)),
    )
    assert list(declared) == ["lives", "dealer", "mode", "titles"]
    assert read_options(declared, {}, 3) == {"lives": 3, "dealer": 0, "mode": "sheet", "titles": None}
    chosen = {"lives": 9, "dealer": 2, "mode": "tracker", "titles": "the game's to read"}
    assert read_options(declared, chosen, 3) == chosen
    error = refused(read_options, declared, {"dealer": 3}, 3)
    assert (error.code, error.params) == ("bad_option", {"field": "dealer", "value": 3, "min": 0, "max": 2})
    error = refused(read_options, declared, {"mode": "sheets"}, 3)
    assert error.params == {"field": "mode", "value": "sheets", "choices": ["sheet", "tracker"]}
    error = refused(read_options, declared, {"live": 4}, 3)
    assert error.params == {"field": "live", "value": 4, "choices": ["lives", "dealer", "mode", "titles"]}


@pytest.mark.parametrize("value", [9.0, True, "9"])
def test_a_choice_is_one_of_its_choices_of_their_very_type(value):
    rounds = Option("rounds", "choice", default=9, choices=(9, 5))
    error = refused(option_value, rounds, {"rounds": value}, 3)
    assert error.params == {"field": "rounds", "value": value, "choices": [9, 5]}
    assert option_value(rounds, {"rounds": 5}, 3) == 5


def test_every_game_declares_its_options_and_fields_as_specs():
    for game_id in GAMES:
        module = core.game(game_id)
        for declared in (module.OPTIONS, module.PLAYER_FIELDS, *module.FIELDS.values()):
            assert all(spec.name == name for name, spec in declared.items()), game_id
        assert all(isinstance(spec, Option) and not spec.required for spec in module.OPTIONS.values())
        assert module.PLAYER_FIELDS["name"].type == "name"


@pytest.mark.parametrize(("success", "echoed"), [(1, 1), ("yes", "yes"), (None, None)])
def test_a_boolean_is_quoted(success, echoed):
    events = [{"type": "roll", "player": "p1", "die": 2}, {"type": "accept", "player": "p1"}]
    state = core.replay("existentiel", PLAYERS["existentiel"], {}, events)
    error = refused(
        core.apply, "existentiel", state, {"type": "validate", "player": "p1", "success": success}
    )
    assert (error.code, error.params) == ("bad_boolean", {"field": "success", "value": echoed})


@pytest.mark.parametrize(
    ("value", "echoed"),
    [
        (None, None),
        (True, True),
        (False, False),
        (0, 0),
        (-(2**70), -(2**70)),
        (2.5, 2.5),
        (-0.0, -0.0),
        (float("nan"), "nan"),
        (float("inf"), "inf"),
        (float("-inf"), "-inf"),
        ("é" * 41, "é" * 40),
        ("", ""),
        ([1, 2], "[1, 2]"),
        pytest.param({"a": 1}, "{'a': 1}", id="object"),  # no quote in an id: mutmut names it back
    ],
)
def test_a_value_echoed_in_a_refusal_is_short_json(value, echoed):
    short = core.short(value)
    assert short == echoed or (short != short and echoed != echoed)
    assert type(short) is type(echoed)


# --- the message catalogue ---------------------------------------------------------------------------


def test_text_picks_the_language_and_falls_back_to_french():
    params = {"name": "Ada"}
    assert text("morto.dead_cannot_touch", params) == (
        "Ada est mort·e\u00a0: les mort·es ne reçoivent pas de carte."
    )
    assert text("morto.dead_cannot_touch", params, "fr") == text("morto.dead_cannot_touch", params)
    assert text("morto.dead_cannot_touch", params, "en") == "Ada is dead: the dead are dealt no card."
    assert text("morto.dead_cannot_touch", params, "de") == text("morto.dead_cannot_touch", params, "fr")


def test_a_missing_param_leaves_its_placeholder_visible():
    assert text("morto.dead_cannot_touch", None, "en") == "{name} is dead: the dead are dealt no card."
    assert text("player_count", {"count": 1}, "en") == "This game is for {min}–{max} players, not 1."


def test_an_unknown_code_is_its_own_text():
    assert text("no.such.code", {"x": 1}, "en") == "no.such.code"


@pytest.mark.parametrize("fresh", [False, True])
def test_the_catalogue_holds_the_common_codes_and_every_game_s(fresh, monkeypatch):
    if fresh:  # as a new process (the server's, the browser's) builds it on first use
        monkeypatch.setattr(messages, "_catalogue", None)
    catalogue = messages.catalogue()
    assert catalogue is messages.catalogue()  # built once
    tables = [messages.COMMON] + [messages.sentences(module.ID) for module in (morto, existentiel, gjdlv)]
    assert len(catalogue) == sum(len(table) for table in tables)
    for table in tables:
        for code, pair in table.items():
            assert catalogue[code] == pair


def test_the_sentences_are_read_from_the_catalogue_files_beside_the_engine():
    folder = Path(messages.__file__).parent / "i18n"
    assert Path(messages.FOLDER) == folder
    french, english = (
        json.loads((folder / lang / "morto.json").read_text("utf-8")) for lang in messages.LANGS
    )
    assert messages.sentences("morto") == {code: (french[code], english[code]) for code in french}
    assert messages.sentences("common") is messages.COMMON  # read once


def test_a_code_worded_in_one_language_only_is_refused(tmp_path, monkeypatch):
    for lang, words in (("fr", {"x.a": "un", "x.b": "deux"}), ("en", {"x.a": "one", "x.c": "three"})):
        (tmp_path / lang).mkdir()
        (tmp_path / lang / "x.json").write_text(json.dumps(words), encoding="utf-8")
    monkeypatch.setattr(messages, "FOLDER", str(tmp_path))
    with pytest.raises(ValueError) as refused:
        messages.sentences("x")
    assert str(refused.value) == "x.json: codes worded in one language only: ['x.b', 'x.c']"


def test_a_refusal_as_every_client_reads_it():
    params = {"player": "p2", "name": "Bruno"}
    assert refusal("morto.dealer_may_speak", params, "en") == {
        "code": "morto.dealer_may_speak",
        "message": "The dealer may speak to the dead.",
        "messages": {
            "fr": "Le·a dealer a le droit de parler aux mort·es.",
            "en": "The dealer may speak to the dead.",
        },
        "params": params,
        "rule": "/rules/morto#dead",  # where the app's short rules explain it (engine.rulebook)
    }
    assert refusal("morto.dead_cannot_touch", params)["message"] == (
        "Bruno est mort·e\u00a0: les mort·es ne reçoivent pas de carte."
    )
    assert "rule" not in refusal("unknown_player", {"player": "p9", "field": "player"})  # no game's rule


def test_a_check_answer_is_worded_at_every_depth():
    answer = {
        "ok": True,
        "code": "morto.swap.next",
        "params": {"target_name": "Chiara"},
        "turns": [{"code": "morto.swap.past_cavalli", "target_name": "Dario"}, {"code": 5}, "text", 3],
        "refusal": None,
    }
    worded_answer = worded(answer, "en")
    assert worded_answer["message"] == "May keep or swap with Chiara."
    assert worded_answer["messages"] == {
        "fr": "Peut garder ou échanger avec Chiara.",
        "en": "May keep or swap with Chiara.",
    }
    turn, odd, *rest = worded_answer["turns"]
    assert turn["message"] == "Cavallo next: may keep or swap with Dario, past the Cavalli."
    assert turn["messages"]["fr"] == (
        "Cavallo à côté\u00a0: peut garder ou échanger avec Dario, après les Cavalli."
    )
    assert odd == {"code": 5}
    assert rest == ["text", 3]
    assert worded_answer["refusal"] is None
    assert {k: worded_answer[k] for k in answer if k != "turns"} == {
        k: v for k, v in answer.items() if k != "turns"
    }
    assert answer["turns"][0] == {"code": "morto.swap.past_cavalli", "target_name": "Dario"}  # not changed
    assert worded([answer], "fr")[0]["message"] == "Peut garder ou échanger avec Chiara."
    assert worded(answer)["message"] == "Peut garder ou échanger avec Chiara."


def test_a_code_s_params_win_over_the_answer_s_own_fields():
    answer = {"code": "morto.won", "names": "Ada", "params": {"names": "Bruno"}}
    assert worded(answer, "en")["message"] == "Bruno wins!"
    assert worded({"code": "morto.won", "names": "Ada"}, "en")["message"] == "Ada wins!"


# --- undeclared fields, replay of old logs, and the JSON a request may carry -------------------------


def test_an_unknown_field_is_named_with_its_action_and_the_fields_allowed():
    state = core.setup("morto", PLAYERS["morto"], {})
    event = {
        "type": "spoke_to_dead",
        "id": "c1",
        "version": 4,
        "living": "p1",
        "dead": "p2",
        "note": "hi",
        "z" * 50: 1,
    }
    error = refused(core.apply, "morto", state, event)
    assert isinstance(error, InvalidEvent)
    assert (error.code, error.params) == (
        "unknown_field",
        {"field": "note", "type": "spoke_to_dead", "allowed": ["living", "dead"]},
    )
    assert (
        text(error.code, error.params, "fr")
        == "Champ «\u00a0note\u00a0» inconnu dans «\u00a0spoke_to_dead\u00a0»."
    )
    assert text(error.code, error.params, "en") == "Unknown field “note” in “spoke_to_dead”."
    error = refused(core.apply, "morto", state, {"type": "touched_early", "player": "p2", "z" * 50: 1})
    assert error.params == {"field": "z" * 40, "type": "touched_early", "allowed": ["player"]}
    error = refused(core.apply, "morto", state, {"type": "reveal", "cards": [], "player": "p1"})
    assert error.params == {"field": "player", "type": "reveal", "allowed": ["cards", "lowest"]}
    assert refusal(error.code, error.params, "en")["message"] == ("Unknown field “player” in “reveal”.")


def test_apply_in_place_refuses_an_unknown_field_unless_told_not_to_check_fields():
    module = core.game("morto")
    state = core.setup("morto", PLAYERS["morto"], {})
    event = {"type": "touched_early", "player": "p2", "comment": "late"}
    error = refused(core.apply_in_place, module, state, event)
    assert (error.code, error.params) == (
        "unknown_field",
        {"field": "comment", "type": "touched_early", "allowed": ["player"]},
    )
    assert [p["lives"] for p in state["players"]] == [3, 3, 3]  # refused before the handler ran
    assert core.apply_in_place(module, state, event, known_fields=False) is None
    assert [p["lives"] for p in state["players"]] == [3, 2, 3]
    core.apply_in_place(module, state, {"type": "touched_early", "player": "p3", "id": "x", "version": 1})
    assert [p["lives"] for p in state["players"]] == [3, 2, 2]


def test_replay_and_undo_take_a_log_with_fields_no_longer_declared():
    events = [
        {"type": "touched_early", "player": "p2", "comment": "late"},
        {"type": "touched_early", "player": "p3", "by": "Ada"},
        {"type": "touched_early", "player": "p3", "by": "Ada"},
    ]
    state = core.replay("morto", PLAYERS["morto"], {}, events)
    assert [p["lives"] for p in state["players"]] == [3, 2, 1]
    plain = [{"type": e["type"], "player": e["player"]} for e in events]
    assert state == core.replay("morto", PLAYERS["morto"], {}, plain)
    back = core.undo("morto", PLAYERS["morto"], {}, events)
    assert [p["lives"] for p in back["players"]] == [3, 2, 2]


def nested(depth: int, leaf=0, wrap=list):
    """A value whose arrays (or objects) nest exactly ``depth`` levels."""
    value = leaf
    for _ in range(depth):
        value = [value] if wrap is list else {"k": value}
    return value


@pytest.mark.parametrize("wrap", [list, dict])
def test_json_depth_counts_the_top_level_as_one(wrap):
    assert core.json_refusal(nested(core.JSON_DEPTH_MAX, wrap=wrap)) is None
    assert core.json_refusal(nested(core.JSON_DEPTH_MAX + 1, wrap=wrap)) == ("too_deep", {"max": 16})
    assert core.json_refusal(nested(3, wrap=wrap), 3) is None
    assert core.json_refusal(nested(4, wrap=wrap), 3) == ("too_deep", {"max": 3})
    assert core.json_refusal(nested(2, wrap=wrap), 1) == ("too_deep", {"max": 1})
    assert core.json_refusal(nested(1, wrap=wrap), 1) is None
    assert core.json_refusal(nested(1000, wrap=wrap)) == ("too_deep", {"max": 16})  # no recursion
    assert text("too_deep", {"max": 16}, "en") == "The request's JSON is nested too deep (at most 16 levels)."
    assert text("too_deep", {"max": 16}, "fr") == (
        "Le JSON de la requête est trop imbriqué (au plus 16 niveaux)."
    )


def test_json_depth_mixes_arrays_and_objects_and_looks_past_scalars_and_strings():
    mixed = {"a": [{"b": [{"c": 1}]}]}  # 5 levels
    assert core.json_refusal(mixed, 5) is None
    assert core.json_refusal(mixed, 4) == ("too_deep", {"max": 4})
    # the walk goes on after a scalar or a string met first (the last child is looked at first)
    assert core.json_refusal([nested(3), 1], 3) == ("too_deep", {"max": 3})
    assert core.json_refusal([nested(3), None, "ok"], 3) == ("too_deep", {"max": 3})
    assert core.json_refusal({"deep": nested(3), "n": 2.5}, 3) == ("too_deep", {"max": 3})
    assert core.json_refusal({"deep": nested(2), "n": 2.5}, 3) is None
    for scalar in (None, True, 0, 2.5, "", "é", [], {}):
        assert core.json_refusal(scalar) is None
        assert core.json_refusal(scalar, 0) == (("too_deep", {"max": 0}) if scalar in ([], {}) else None)


@pytest.mark.parametrize(
    "value",
    [
        "\ud800",
        "a\udfffb",
        ["\udc00"],
        {"\ud800": 1},
        {"k": "x\ud83d"},
        [{"a": ["ok", "\ud800"]}],
        ["\ud800", "ok"],
        ["\ud800", 7],
        [{"\udfff": None}, "fine", 3],
        {"\ud800": "ok", "b": [1, 2]},
    ],
)
def test_a_lone_surrogate_in_a_key_or_a_value_is_bad_json(value):
    assert core.json_refusal(value) == ("bad_json", {})


def test_text_with_surrogate_pairs_and_shallow_values_is_taken_in():
    assert core.json_refusal({"name": "Ada 🎲", "list": [1, "é", {"k": [None, True]}]}) is None
    assert core.json_refusal(["\U0001f3b2", "ok"]) is None
    assert text("bad_json", {}, "en") == "The request body must be JSON."
    assert text("bad_json", {}, "fr") == "Le corps de la requête doit être du JSON."


# --- the summary: a table in one line ------------------------------------------------------------


def test_the_summary_of_a_running_table_names_its_moment():
    morto = core.replay(
        "morto", ["Ada", "Bruno", "Chiara"], {"dealer": 1}, [{"type": "touched_early", "player": "p3"}] * 3
    )
    assert core.view("morto", morto)["summary"] == {
        "code": "morto.summary",
        "params": {"round": 1, "dealer": "Bruno", "alive": 2},
    }

    players = [{"name": "Ada", "birth_month": 3}, {"name": "Bruno", "birth_month": 5}]
    existentiel = core.setup("existentiel", players, {})
    assert core.view("existentiel", existentiel)["summary"] == {
        "code": "existentiel.summary.assigning",
        "params": {"waiting": 2},
    }
    for pid in ("p1", "p2"):
        existentiel = core.apply("existentiel", existentiel, {"type": "roll", "player": pid, "die": 1})
        existentiel = core.apply("existentiel", existentiel, {"type": "accept", "player": pid})
    assert core.view("existentiel", existentiel)["summary"] == {
        "code": "existentiel.summary.underway",
        "params": {"waiting": 2},
    }

    sheet = core.setup("gjdlv", ["Ada", "Bruno"], {"rounds": 5})
    assert core.view("gjdlv", sheet)["summary"] == {
        "code": "gjdlv.summary.sheet",
        "params": {"round": 1, "rounds": 5},
    }
    played = core.setup("gjdlv", ["Ada", "Bruno"], {"mode": "tracker", "first_player": 1})
    assert core.view("gjdlv", played)["summary"] == {
        "code": "gjdlv.summary.play",
        "params": {"round": 1, "rounds": 9, "name": "Bruno"},
    }


def test_the_summary_of_a_finished_table_is_its_outcome():
    touches = [{"type": "touched_early", "player": pid} for pid in ("p2", "p3")]
    state = core.replay("morto", ["Ada", "Bruno", "Chiara"], {"lives": 1}, touches)
    view = core.view("morto", state)
    assert view["over"]
    assert view["summary"] == {"code": view["outcome"]["reason"], "params": view["outcome"]["params"]}
