"""Le Grand Jeu de la Vie (RULES.md §2): the checks' full answers, what refusals say, the sheet's lines.

test_gjdlv.py proves each rule through its codes and scores. These pin what the referee reads in a
dispute and on the sheet: the full answer of every check (the winner of a held-back ejaculation is
the lowest genetic gap, whoever sits first), each refusal's params and sentence, the GMs the newborn
picker offers, and the numbers and lines of the score sheet and of the end.
"""

from __future__ import annotations

import copy

import pytest

from engine import core, gjdlv
from engine.core import IllegalEvent, InvalidEvent, RuleError
from engine.messages import refusal, text, worded
from tests.test_gjdlv import CLOSE, NAMES, ab, nb, steal, table, value  # the scenarios' own builders

GAME = "gjdlv"
ABONDANTES = {"rules": "abondantes"}

# The deck as the text describes it, written independently of the engine's tables.
NUMBER_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"]
FACE_RANKS = ["J", "Q", "K"]


def gametes(suits: str, ranks: list[str]) -> list[str]:
    return [rank + suit for suit in suits for rank in ranks]


def ask(name: str, state, params: dict) -> dict:
    before = copy.deepcopy(state)
    answer = core.check(GAME, state, name, params)
    assert state == before
    return answer


def said(answer: dict) -> str:
    """The English sentence the referee reads for a check's answer."""
    return worded(answer, "en")["message"]


def refused(state, event: dict) -> RuleError:
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as caught:
        core.apply(GAME, state, event)
    assert state == before
    return caught.value


def asked_refused(name: str, state, params: dict) -> RuleError:
    with pytest.raises(RuleError) as caught:
        core.check(GAME, state, name, params)
    return caught.value


def says(error: RuleError, code: str, params: dict, english: str) -> None:
    assert (error.code, error.params) == (code, params)
    assert refusal(error.code, error.params, "en")["message"] == english


# --- the held-back ejaculation contest ----------------------------------------------------------------


def test_the_lowest_genetic_gap_wins_whoever_sits_first():
    # On the 6♥: 10♠ makes EG 4, 9♣ EG 3, 4♠ EG 2. The third player wins, not the first.
    answer = ask("ejaculation", None, {"gf": "6H", "gms": {"p1": "10S", "p2": "9C", "p3": "4S"}})
    assert answer == {
        "ok": True,
        "code": "gjdlv.check.ejaculation_lowest",
        "params": {"gf": "6H", "count": 3, "winner": "p3", "gm": "4S", "eg": 2},
        "winner": "p3",
        "embryo": {"gf": "6H", "gm": "4S"},
        "egs": {"p1": 4, "p2": 3, "p3": 2},
        "tied": [],
        "beaten": ["p1", "p2"],
        "mouchoir": ["10S", "9C"],
        "diva_cup": False,
    }
    assert said(answer) == (
        "p3 wins 6H with 4S, the lowest genetic gap left (2); "
        "the tied gaps and the beaten go to the Mouchoir."
    )


def test_the_lowest_gap_left_wins_after_the_ties_whatever_the_player_ids():
    answer = ask("ejaculation", None, {"gf": "5D", "gms": {"b": "AC", "a": "9S", "c": "7C", "d": "3S"}})
    # EG: b 4, a 4 (tied, out), c 2 and d 2 (tied, out): nobody is left.
    assert (answer["winner"], answer["tied"], answer["code"]) == (
        None,
        ["a", "b", "c", "d"],
        "gjdlv.check.ejaculation_all_tied",
    )
    answer = ask("ejaculation", None, {"gf": "5D", "gms": {"b": "AC", "a": "10S", "c": "7C"}})
    assert (answer["winner"], answer["params"]["gm"], answer["beaten"]) == ("c", "7C", ["a", "b"])


def test_the_mouchoir_is_listed_in_deck_order():
    answer = ask("ejaculation", None, {"gf": "6H", "gms": {"p1": "2S", "p2": "10S", "p3": "7C", "p4": "2C"}})
    # 2♠ and 10♠ tie at EG 4; 7♣ (EG 1) beats 2♣ (EG 4 too: three-way tie) -> 7♣ wins.
    assert answer["winner"] == "p3"
    assert answer["mouchoir"] == ["2S", "10S", "2C"]


def test_a_single_ejaculation_names_its_gamete():
    answer = ask("ejaculation", None, {"gf": "6H", "gms": {"p2": "9C"}})
    assert answer["params"] == {"gf": "6H", "count": 1, "winner": "p2", "gm": "9C", "eg": 3}
    assert said(answer) == (
        "A single ejaculation on 6H: p2 fecundates with 9C and puts the embryo in their uterus."
    )


@pytest.mark.parametrize("key", ["x", "p" * 40])
def test_any_player_key_of_1_to_40_characters_may_ejaculate(key):
    assert ask("ejaculation", None, {"gf": "6H", "gms": {key: "9C"}})["winner"] == key


@pytest.mark.parametrize("key", ["", "p" * 41])
def test_a_player_key_outside_1_to_40_characters_is_refused(key):
    error = asked_refused("ejaculation", None, {"gf": "6H", "gms": {key: "9C"}})
    assert (error.code, error.params) == ("gjdlv.bad_gms", {})


def test_ejaculation_refusals_name_the_card_and_its_field():
    error = asked_refused("ejaculation", None, {"gf": "6H", "gms": {"p1": "4S", "p2": "4s"}})
    says(
        error,
        "gjdlv.duplicate_card",
        {"card": "4S"},
        "The card 4S is given twice: each card exists once in the deck.",
    )
    error = asked_refused("ejaculation", None, {"gf": "6H", "gms": {"p2": "4D"}})
    assert (error.code, error.params) == ("gjdlv.gm_must_be_black", {"card": "4D", "field": "gms.p2"})
    error = asked_refused("ejaculation", None, {"gf": "6H", "gms": {"p2": "ZZ"}})
    assert (error.code, error.params) == ("gjdlv.bad_card", {"field": "gms.p2", "value": "ZZ"})


# --- the other checks' answers ----------------------------------------------------------------------


@pytest.mark.parametrize("state", [None, {}])
def test_a_check_with_no_table_knows_every_card(state):
    answer = ask("fecundate", state, {"gf": "KH", "gm": "4S"})
    assert answer == {
        "ok": True,
        "code": "gjdlv.check.fecundate_royal",
        "params": {"gf": "KH", "gm": "4S", "eg": None},
        "eg": None,
        "cc": False,
        "royal": True,
    }
    assert said(answer) == "4S may fecundate KH: a Royal Ovum is fecundated by any male gamete."


def test_the_checks_of_a_simples_table_know_no_face():
    state = table()
    for name, params in (
        ("surrogate", {"gf": "4H", "gm": "9C", "new_gm": "KS"}),
        ("ejaculation", {"gf": "KH", "gms": {"p1": "4S"}}),
        ("fecundate", {"gf": "4H", "gm": "JC"}),
    ):
        error = asked_refused(name, state, params)
        assert isinstance(error, IllegalEvent)
        assert error.code == "gjdlv.faces_need_abondantes"


def test_fecundation_answers():
    assert ask("fecundate", None, {"gf": "4H", "gm": "JS"}) == {
        "ok": False,
        "code": "gjdlv.check.fecundate_imperial_on_number",
        "params": {"gf": "4H", "gm": "JS", "eg": None},
        "eg": None,
        "cc": False,
        "royal": False,
    }
    assert ask("fecundate", None, {"gf": "4H", "gm": "9C"}) == {
        "ok": True,
        "code": "gjdlv.check.fecundate_number",
        "params": {"gf": "4H", "gm": "9C", "eg": 5},
        "eg": 5,
        "cc": False,
        "royal": False,
    }
    answer = ask("fecundate", None, {"gf": "4H", "gm": "4C"})
    assert answer["code"] == "gjdlv.check.fecundate_cc"
    assert (answer["eg"], answer["cc"], answer["royal"]) == (0, True, False)
    assert said(answer) == "4C may fecundate 4H, but the genetic gap is 0: it will be a Consanguin Complet."


def test_surrogacy_answers_for_an_embryo_ten_hearts_seven_spades():
    base = {"gf": "10H", "gm": "7S"}
    closer = ask("surrogate", None, {**base, "new_gm": "9C"})
    assert closer == {
        "ok": True,
        "code": "gjdlv.check.surrogate_closer",
        "params": {"gf": "10H", "gm": "7S", "new_gm": "9C", "eg_before": 3, "eg_after": 1},
        "closer": [8, 9, 10],
        "cc": False,
        "mouchoir": ["7S"],
        "embryo": {"gf": "10H", "gm": "9C"},
    }
    assert said(closer).startswith(
        "9C may surrogate the embryo 10H/7S: it is strictly closer to 10H (genetic gap 1"
    )
    cc = ask("surrogate", None, {**base, "new_gm": "10S"})
    assert (cc["code"], cc["cc"], cc["params"]["eg_after"]) == ("gjdlv.check.surrogate_cc", True, 0)
    farther = ask("surrogate", None, {**base, "new_gm": "4C"})
    assert farther == {
        "ok": False,
        "code": "gjdlv.check.surrogate_not_closer",
        "params": {"gf": "10H", "gm": "7S", "new_gm": "4C", "eg_before": 3, "eg_after": 6},
        "closer": [8, 9, 10],
    }
    assert said(farther) == (
        "4C may not surrogate the embryo 10H/7S: a surrogacy must reduce the genetic "
        "gap, and 4C would give 6, not less than 3."
    )


def test_surrogacy_answers_for_a_royal_embryo():
    royal = ask("surrogate", None, {"gf": "QD", "gm": "4S", "new_gm": "KC"})
    assert royal == {
        "ok": True,
        "code": "gjdlv.check.surrogate_royal",
        "params": {"gf": "QD", "gm": "4S", "new_gm": "KC", "eg_before": None, "eg_after": None},
        "mouchoir": ["4S"],
        "embryo": {"gf": "QD", "gm": "KC"},
    }
    number = ask("surrogate", None, {"gf": "QD", "gm": "4S", "new_gm": "5C"})
    assert number["params"]["eg_after"] is None


@pytest.mark.parametrize(
    ("gm", "answer", "other"), [("4S", "4C", "4C"), ("4C", "4S", "4S"), ("KC", "KS", "KS")]
)
def test_an_abortion_names_the_other_black_card_of_the_rank(gm, answer, other):
    ok = ask("abortion", None, {"gm": gm, "answer": answer})
    assert (ok["ok"], ok["params"]) == (True, {"gm": gm, "answer": answer, "other": other})
    wrong = ask("abortion", None, {"gm": gm, "answer": "9S" if gm[0] != "9" else "8S"})
    assert wrong["params"]["other"] == other
    assert said(wrong).endswith(f"only the black GM of the same rank ({other}) does.")


def test_the_jack_against_a_surrogacy():
    answer = ask("bonus", None, {"card": "JC", "against": "surrogacy"})
    assert answer == {
        "ok": True,
        "code": "gjdlv.check.bonus_guilde_du_cintre_surrogacy",
        "params": {"card": "JC", "against": "surrogacy"},
        "mouchoir": ["replaced_gm"],
        "formol": ["gf", "surrogating_gm", "JC"],
        "formol_points": 3,
        "embryo": "aborted",
    }


def test_the_jack_against_a_fecundation_aborts_the_embryo():
    answer = ask("bonus", None, {"card": "JS", "against": "fecundation"})
    assert (answer["params"], answer["embryo"], answer["mouchoir"]) == (
        {"card": "JS", "against": "fecundation"},
        "aborted",
        [],
    )


@pytest.mark.parametrize(("against", "echoed"), [("menstruation", "menstruation"), (None, None), (3, 3)])
def test_a_bad_against_is_quoted_with_the_choices(against, echoed):
    error = asked_refused("bonus", None, {"card": "KS", "against": against})
    says(
        error,
        "gjdlv.bad_against",
        {"value": echoed, "choices": ["abortion", "surrogacy", "fecundation"]},
        f"“against” is abortion, surrogacy or fecundation (got: {echoed}).",
    )


# --- the newborn picker --------------------------------------------------------------------------------


def picker(gf: str, gms: list[str], used=()) -> list[dict]:
    """What the picker must show under each GM, from the rules: a number GF takes a number GM; a
    number newborn is worth 5 + EG, a lone CC 5, a royal one 10 (K), 0 (Q) or 5 (J)."""
    rows = []
    for gm in gms:
        royal = gf[:-1] in FACE_RANKS
        face = royal or gm[:-1] in FACE_RANKS
        eg = None if face else abs(value(gm) - value(gf))
        legal = royal or gm[:-1] not in FACE_RANKS
        points = {"K": 10, "Q": 0, "J": 5}[gf[:-1]] if royal else (5 + eg if legal else None)
        rows.append(
            {
                "gm": gm,
                "fecundates": legal,
                "allowed": legal and gm not in used and gf not in used,
                "used": gm in used,
                "eg": eg,
                "cc": eg == 0,
                "points": points,
            }
        )
    return rows


def row_of(answer: dict, gm: str) -> dict:
    return next(row for row in answer["gms"] if row["gm"] == gm)


def test_the_picker_lists_every_gm_of_a_simples_table_with_its_gap():
    state = table([nb("p1", "4H", "9C")])
    answer = ask("fecundations", state, {"gf": "6h"})
    assert answer == {
        "ok": True,
        "gf": "6H",
        "royal": False,
        "used": False,
        "gms": picker("6H", gametes("SC", NUMBER_RANKS), used={"9C", "4H"}),
    }
    assert [row["gm"] for row in answer["gms"] if row["cc"]] == ["6S", "6C"]
    used_gf = ask("fecundations", state, {"gf": "4H"})
    assert used_gf["used"] is True
    assert not any(row["allowed"] for row in used_gf["gms"])


def test_the_picker_gives_the_gap_the_cc_and_the_points_of_each_gm():
    state = table(options=ABONDANTES)
    answer = ask("fecundations", state, {"gf": "4H"})
    nine = row_of(answer, "9C")
    assert nine == {
        "gm": "9C",
        "fecundates": True,
        "allowed": True,
        "used": False,
        "eg": 5,
        "cc": False,
        "points": 10,
    }
    assert row_of(answer, "4S") == {
        "gm": "4S",
        "fecundates": True,
        "allowed": True,
        "used": False,
        "eg": 0,
        "cc": True,
        "points": 5,
    }
    assert row_of(answer, "AC")["points"] == 8
    # An Imperial Sperm never fecundates a number GF.
    assert row_of(answer, "KS") == {
        "gm": "KS",
        "fecundates": False,
        "allowed": False,
        "used": False,
        "eg": None,
        "cc": False,
        "points": None,
    }
    imperials = ["JS", "QS", "KS", "JC", "QC", "KC"]
    assert [row["gm"] for row in answer["gms"] if not row["fecundates"]] == imperials


def test_the_picker_greys_out_the_cards_already_recorded_this_round():
    state = table([nb("p1", "4H", "9C"), nb("p2", "KD", "QS")], options=ABONDANTES)
    answer = ask("fecundations", state, {"gf": "5D"})
    assert row_of(answer, "9C") == {
        "gm": "9C",
        "fecundates": True,
        "allowed": False,
        "used": True,
        "eg": 4,
        "cc": False,
        "points": 9,
    }
    assert (row_of(answer, "QS")["used"], row_of(answer, "QS")["allowed"]) == (True, False)
    assert [row["gm"] for row in answer["gms"] if row["used"]] == ["QS", "9C"]
    # A closed round frees its cards again.
    after = ask("fecundations", table([nb("p1", "4H", "9C"), CLOSE]), {"gf": "5D"})
    assert (row_of(after, "9C")["used"], row_of(after, "9C")["allowed"]) == (False, True)


def test_the_picker_on_a_royal_ovum_offers_every_gm_at_the_royal_points():
    state = table(options=ABONDANTES)
    queen = ask("fecundations", state, {"gf": "QH"})
    assert queen["royal"] is True
    assert all(
        row["fecundates"] and row["allowed"] and row["eg"] is None and not row["cc"] for row in queen["gms"]
    )
    assert {row["points"] for row in queen["gms"]} == {0}
    assert {row["points"] for row in ask("fecundations", state, {"gf": "JD"})["gms"]} == {5}
    assert row_of(ask("fecundations", state, {"gf": "KD"}), "KS")["points"] == 10


@pytest.mark.parametrize("state", [None, {}])
def test_the_picker_with_no_table_offers_the_whole_abondantes_deck(state):
    answer = ask("fecundations", state, {"gf": "6H"})
    assert answer["gms"] == picker("6H", gametes("SC", NUMBER_RANKS + FACE_RANKS))
    assert answer["used"] is False
    royal = ask("fecundations", state, {"gf": "KD"})
    assert (royal["royal"], royal["gf"]) == (True, "KD")
    assert royal["gms"] == picker("KD", gametes("SC", NUMBER_RANKS + FACE_RANKS))
    assert all(row["allowed"] and row["eg"] is None for row in royal["gms"])


def test_the_picker_refuses_a_gf_that_is_not_red():
    error = asked_refused("fecundations", None, {"gf": "6S"})
    says(
        error,
        "gjdlv.gf_must_be_red",
        {"card": "6S", "field": "gf"},
        "6S cannot be a female gamete (gf): GF are the red cards ♥ ♦, the black ones are male gametes.",
    )


@pytest.mark.parametrize("gf", ["ZZ", None, 4, "", "11H"])
def test_the_picker_refuses_what_is_not_a_card(gf):
    error = asked_refused("fecundations", table(), {"gf": gf})
    assert isinstance(error, InvalidEvent)
    assert (error.code, error.params["field"]) == ("gjdlv.bad_card", "gf")


def test_the_picker_of_a_simples_table_refuses_a_royal_ovum():
    error = asked_refused("fecundations", table(), {"gf": "QH"})
    assert isinstance(error, IllegalEvent)
    assert (error.code, error.params) == ("gjdlv.faces_need_abondantes", {"card": "QH"})


# --- what each refusal says -----------------------------------------------------------------------


def test_cards_are_quoted_with_their_field():
    state = table()
    says(
        refused(state, nb("p1", "ZZ", "4S")),
        "gjdlv.bad_card",
        {"field": "gf", "value": "ZZ"},
        "“ZZ” is not a card (gf): the rank (A, 2…10, J, Q, K) then the suit (S ♠, C ♣, H ♥, D ♦), "
        "e.g. AS, 10H, QD.",
    )
    assert refused(state, nb("p1", 4, "4S")).params == {"field": "gf", "value": 4}
    says(
        refused(state, nb("p1", "4H", "4D")),
        "gjdlv.gm_must_be_black",
        {"card": "4D", "field": "gm"},
        "4D cannot be a male gamete (gm): GM are the black cards ♠ ♣, the red ones are female gametes.",
    )
    says(
        refused(state, nb("p1", "4C", "4S")),
        "gjdlv.gf_must_be_red",
        {"card": "4C", "field": "gf"},
        "4C cannot be a female gamete (gf): GF are the red cards ♥ ♦, the black ones are male gametes.",
    )
    says(
        refused(state, nb("p1", "KH", "4S")),
        "gjdlv.faces_need_abondantes",
        {"card": "KH"},
        "KH is a face card: the Simples Règles leave Kings, Queens and Jacks out; they only play in the "
        "Règles Abondantes.",
    )


@pytest.mark.parametrize(
    ("card", "worth"), [("AS", 1), ("10H", 10), ("7C", 7), ("JS", None), ("QD", None), ("KC", None)]
)
def test_a_card_is_worth_its_number_and_a_face_nothing(card, worth):
    assert gjdlv.value_of(card) == worth


def test_the_emoji_form_of_a_suit_is_read():
    state = table([nb("p1", "4\u2665\ufe0f", "9\u2663\ufe0f")])
    assert core.view(GAME, state)["used_cards"] == ["9C", "4H"]


def test_an_imperial_on_a_number_gf_is_quoted():
    error = refused(table(options=ABONDANTES), nb("p1", "4H", "JS"))
    says(
        error,
        "gjdlv.imperial_needs_royal",
        {"gf": "4H", "gm": "JS"},
        "JS is an Imperial Sperm: it only fecundates Royal Ova (red faces), not 4H; a number GF is "
        "fecundated by a number GM.",
    )


def test_a_card_recorded_twice_names_the_card_and_where_it_was_given():
    state = table([nb("p1", "4H", "9C")])
    says(
        refused(state, nb("p2", "4H", "8C")),
        "gjdlv.card_already_recorded",
        {"card": "4H", "field": "gf"},
        "The card 4H is already recorded in this round: each card exists once in the deck.",
    )
    assert refused(state, nb("p2", "5H", "9C")).params == {"card": "9C", "field": "gm"}


def test_steal_refusals_name_the_players():
    state = table([nb("p2", "4H", "9C"), nb("p1", "QH", "2S")], options=ABONDANTES)
    says(
        refused(state, steal("p1", "p1")),
        "gjdlv.steal_from_self",
        {"player": "Caroline"},
        "The Queen “Petite Mère des peuples” takes the most recent newborn of an opponent, not one's own.",
    )
    says(
        refused(state, steal("p1", "p3")),
        "gjdlv.nothing_to_steal",
        {"victim": "Yann"},
        "Yann has no newborn in this round: the Queen has nothing to take there.",
    )
    says(
        refused(state, steal("p2", "p1")),
        "gjdlv.no_queen_take",
        {"player": "Solaar"},
        "Only the Queen newborn (“Petite Mère des peuples”) just born lets its owner take a newborn, right "
        "after her birth: Solaar has no take to make now.",
    )
    no_thief = refused(state, {"type": "steal_newborn", "from": "p2"})
    assert no_thief.params == {"player": "None", "field": "player"}


@pytest.mark.parametrize(("rounds", "echoed"), [(7, 7), ("9", "9"), (9.0, 9.0), (True, True)])
def test_a_bad_number_of_rounds_is_quoted_with_the_choices(rounds, echoed):
    with pytest.raises(InvalidEvent) as caught:
        core.setup(GAME, NAMES[:3], {"rounds": rounds})
    says(
        caught.value,
        "bad_option",
        {"field": "rounds", "value": echoed, "choices": [9, 5]},
        f"Invalid option “rounds”: {echoed}.",
    )


# --- the score sheet -------------------------------------------------------------------------------------


def test_the_deck_and_the_royal_points_follow_the_rules():
    simples = core.view(GAME, table())
    assert simples["deck"] == {"gf": gametes("HD", NUMBER_RANKS), "gm": gametes("SC", NUMBER_RANKS)}
    assert (simples["royal_points"], simples["per_abortion"]) == ({}, 3)
    abondantes = core.view(GAME, table(options=ABONDANTES))
    assert abondantes["deck"] == {
        "gf": gametes("HD", NUMBER_RANKS + FACE_RANKS),
        "gm": gametes("SC", NUMBER_RANKS + FACE_RANKS),
    }
    assert abondantes["royal_points"] == {"K": 10, "Q": 0, "J": 5}


def test_the_sheet_lines_of_formol_and_consanguinity():
    state = table(
        [
            ab("p1"),
            ab("p1"),
            nb("p2", "3D", "3S"),
            nb("p3", "2H", "2S"),
            nb("p3", "4H", "4C"),
            nb("p3", "5D", "5C"),
        ]
    )
    p1, p2, p3 = core.view(GAME, state)["players"]
    assert (p1["formol_line"], p1["cc_line"]) == (
        {"code": "gjdlv.formol", "params": {"abortions": 2, "count": 2, "per_abortion": 3, "formol": 6}},
        None,
    )
    assert text(p1["formol_line"]["code"], p1["formol_line"]["params"], "en") == "Formol: 2 abortions × 3 = 6"
    assert text(p1["formol_line"]["code"], p1["formol_line"]["params"]) == (
        "Formol\u00a0: 2 avortements × 3 = 6"
    )
    one = {**p1["formol_line"]["params"], "abortions": 1, "count": 1, "formol": 3}
    assert text("gjdlv.formol", one) == "Formol\u00a0: 1 avortement × 3 = 3"
    assert text("gjdlv.formol", one, "en") == "Formol: 1 abortion × 3 = 3"
    assert p2["formol_line"] is None
    assert p2["cc_line"] == {"code": "gjdlv.cc_single", "params": {"cc": 1, "cc_value": 5}}
    assert text(p2["cc_line"]["code"], p2["cc_line"]["params"], "en") == "1 CC → 5, no malus"
    assert p3["cc_line"] == {"code": "gjdlv.cc_malus", "params": {"cc": 3, "cc_value": 3, "malus": "\u22122"}}
    assert text(p3["cc_line"]["code"], p3["cc_line"]["params"], "en") == (
        "3 CC → 3 each (\u22122), consanguinity malus"
    )
    assert p1["round_line"] == {
        "code": "gjdlv.round_line",
        "params": {"nursery": 0, "formol": 6, "round_score": 6},
    }
    assert text(p3["round_line"]["code"], p3["round_line"]["params"]) == "Nurserie 9 + Formol 0 = 9"
    assert text(p2["round_line"]["code"], p2["round_line"]["params"], "en") == "Nursery 5 + formol 0 = 5"


def test_a_malus_past_the_sixth_cc_is_signed():
    cards = [("AH", "AS"), ("2H", "2S"), ("3H", "3S"), ("4H", "4S"), ("5H", "5S"), ("6H", "6S"), ("7H", "7S")]
    state = table([nb("p1", gf, gm) for gf, gm in cards])
    p1 = core.view(GAME, state)["players"][0]
    assert p1["cc_line"]["params"] == {"cc": 7, "cc_value": -1, "malus": "\u22126"}
    state = table([nb("p1", gf, gm) for gf, gm in cards[:2]])
    assert core.view(GAME, state)["players"][0]["cc_line"]["params"]["malus"] == "\u22121"


def test_running_and_projected_totals():
    events = [
        nb("p1", "4H", "9C"),
        ab("p2"),
        CLOSE,
        nb("p1", "10D", "AC"),
        ab("p2"),
        ab("p2"),
        CLOSE,
        nb("p1", "2H", "3S"),
        ab("p1"),
    ]
    view = core.view(GAME, table(events))
    p1, p2, p3 = view["players"]
    assert (p1["round_scores"], p1["running_totals"], p1["total"]) == ([10, 14], [10, 24], 24)
    assert (p2["round_scores"], p2["running_totals"]) == ([3, 6], [3, 9])
    assert p3["running_totals"] == [0, 0]
    assert (p1["round_score"], p1["projected_total"]) == (6 + 3, 24 + 9)
    assert view["rounds_closed"] == 2


def test_the_standings_rank_equal_totals_together():
    events = [nb("p2", "4H", "9C"), nb("p3", "5H", "10C"), ab("p1"), CLOSE]
    view = core.view(GAME, table(events, players=NAMES))
    assert view["standings"] == [
        {"player": "p2", "rank": 1, "total": 10},
        {"player": "p3", "rank": 1, "total": 10},
        {"player": "p1", "rank": 3, "total": 3},
        {"player": "p4", "rank": 4, "total": 0},
    ]


def test_the_last_round_is_flagged():
    assert core.view(GAME, table([CLOSE] * 3, options={"rounds": 5}))["last_round"] is False
    assert core.view(GAME, table([CLOSE] * 4, options={"rounds": 5}))["last_round"] is True


def test_the_end_names_the_winners_and_every_total():
    events = [nb("p1", "4H", "9C"), nb("p3", "10D", "5S"), ab("p2"), CLOSE] * 5
    view = core.view(GAME, table(events, options={"rounds": 5}))
    assert view["outcome"] == {
        "reason": "gjdlv.shared_total",
        "params": {"total": 50, "names": "Caroline, Yann", "totals": {"p1": 50, "p2": 15, "p3": 50}},
    }
    assert text("gjdlv.shared_total", view["outcome"]["params"], "en") == (
        "Game over: a tie at 50 points, Caroline, Yann share the win."
    )
    alone = core.view(GAME, table([ab("p2"), CLOSE] * 5, options={"rounds": 5}))
    assert alone["outcome"]["params"]["names"] == "Solaar"
    assert text("gjdlv.highest_total", alone["outcome"]["params"], "en") == (
        "Game over: Solaar wins with 15 points."
    )
