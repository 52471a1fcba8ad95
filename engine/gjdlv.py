"""Le Grand Jeu de la Vie (GJDLV): the round score sheet and the rule checks (RULES.md §2).

Owns the card notation (rank then suit: ``AS``, ``10H``, ``QD``), the validation of recorded cards,
the scoring of a round (formol, nursery, consanguinity malus, royal newborns, the Queen's take),
rounds, totals and winners, and the pure checks a referee asks for in a table dispute
(fecundation, surrogacy, abortion, held-back ejaculation, imperial bonuses). Embryos in gestation
are not tracked: the sheet records what counts at the end of a round, newborns and abortions.

State (plain JSON)::

    {"rules": "simples" | "abondantes", "rounds": 9 | 5, "round": 1, "first_seat": 0, "over": False,
     "take": None | {"player": id},
     "players": [{"id", "name", "round_scores": [int], "abortions": int, "newborns": [{"gf", "gm"}]}]}

``players`` is in seating order, which is the order of play. ``newborns`` is a player's nursery in
the open round, oldest first: the last one is the "most recent newborn" a Queen takes. ``take`` is
the Queen's take still to be recorded: set by a Queen newborn, it lasts exactly until the next
event (RULES §2 Decision: the take is the very next event after her birth). Card input is read
leniently (any case, ``1`` for the Ace, the suit symbols ♠♣♥♦) and always stored in the canonical
notation.
"""

from __future__ import annotations

from engine import gjdlv_play
from engine.core import (
    IllegalEvent,
    InvalidEvent,
    Note,
    Outcome,
    allowed,
    find_player,
    isolate,
    player_id,
    player_names,
    short,
)
from engine.gjdlv_cards import (
    ABONDANTES,
    FACES,
    NEWBORN_BASE,
    POINTS_PER_ABORTION,
    ROUNDS_CHOICES,
    ROYAL_POINTS,
    RULES_CHOICES,
    cc_value,
    check_fecundation,
    contest,
    deck,
    deck_order,
    genetic_gap,
    is_face,
    may_fecundate,
    nursery,
    other_black,
    rank_of,
    read_black,
    read_gf,
    read_gm,
    round_score,
    rules_of,
    value_of,
)
from engine.specs import Field, Option, option_value, read_options, specs

ID = "gjdlv"

MIN_PLAYERS, MAX_PLAYERS = 2, 6
USUAL_PLAYERS = 4  # the rules are written for 3 or 4: a new-table form starts with four rows
SHEET, TRACKER = "sheet", "tracker"
MODES = (SHEET, TRACKER)  # the score sheet filled by hand, or each round played through
OPTIONS = specs(
    Option("rules", "choice", default=RULES_CHOICES[0], choices=RULES_CHOICES, doc="which cards are in play"),
    Option(
        "rounds",
        "choice",
        default=ROUNDS_CHOICES[0],
        choices=ROUNDS_CHOICES,
        doc="the game's length: 9 rounds (à terme) or 5 (prématurée)",
    ),
    Option("first_player", "seat", default=0, doc="the seat of the first round's first player"),
    Option(
        "mode", "choice", default=MODES[0], choices=MODES, doc="the score sheet, or each round played through"
    ),
)
WRITTEN_FOR = (3, 4)
AGAINST_CHOICES = ("abortion", "surrogacy", "fecundation")


def _used_cards(state: dict) -> list[str]:
    cards = [card for p in state["players"] for n in p["newborns"] for card in (n["gf"], n["gm"])]
    return sorted(cards, key=deck_order)


def _newborn_possible(state: dict) -> bool:
    """Whether some unused GF and GM could still make a newborn this round."""
    used = set(_used_cards(state))
    cards = deck(state["rules"])
    free_gm = [gm for gm in cards["gm"] if gm not in used]
    return any(may_fecundate(gf, gm) for gf in cards["gf"] if gf not in used for gm in free_gm)


# --- setup ---------------------------------------------------------------------------------------------


# A player given as an object: any other field is refused (``unknown_field``).
PLAYER_FIELDS = specs(Field("name", "name", doc="the player's name"))


def setup(players, options: dict) -> dict:
    names = player_names(players, MIN_PLAYERS, MAX_PLAYERS)
    chosen = read_options(OPTIONS, options, len(names))
    rules, rounds, first, mode = (chosen[name] for name in ("rules", "rounds", "first_player", "mode"))
    state = {
        "rules": rules,
        "rounds": rounds,
        "mode": mode,
        "round": 1,
        "first_seat": first,
        "over": False,
        "take": None,
        "players": [
            {"id": player_id(i), "name": name, "round_scores": [], "abortions": 0, "newborns": []}
            for i, name in enumerate(names)
        ],
        "play": None,
    }
    if mode == TRACKER:
        state["play"] = gjdlv_play.new_round(state)
    return state


def rematch(players: list, options: dict, state: dict) -> tuple[list, dict]:
    """The next game at the same table: the same players in their seats, the same rules, length and
    way of refereeing, and the first player one seat on from this game's, as each round's first
    player is the one after the previous round's."""
    names = [p["name"] for p in state["players"]]
    first = option_value(OPTIONS["first_player"], options, len(names))
    return names, {**options, "first_player": (first + 1) % len(names)}


def tracked(state: dict) -> bool:
    """Whether the table plays its rounds through (a table stored before the option is a sheet)."""
    return state.get("mode") == TRACKER


# --- the rules' checks: each called by its event's handler and by `actions` ----------------------------


def check_newborn(state: dict, gf: str, gm: str) -> None:
    """A GM that may fecundate the GF, neither card already recorded in the round."""
    check_fecundation(gf, gm)
    used = set(_used_cards(state))
    for field, card in (("gf", gf), ("gm", gm)):
        if card in used:
            raise IllegalEvent("gjdlv.card_already_recorded", card=card, field=field)


def check_queen_taker(state: dict, thief: dict) -> None:
    """``thief``'s Queen was just born: their take is pending."""
    if (state["take"] or {}).get("player") != thief["id"]:
        raise IllegalEvent("gjdlv.no_queen_take", player=thief["name"])


def check_steal_newborn(state: dict, thief: dict, victim: dict) -> None:
    """The Queen just born takes the most recent newborn of an opponent who has one (RULES §2 Decision)."""
    if victim["id"] == thief["id"]:
        raise IllegalEvent("gjdlv.steal_from_self", player=thief["name"])
    check_queen_taker(state, thief)
    if not victim["newborns"]:
        raise IllegalEvent("gjdlv.nothing_to_steal", victim=victim["name"])


# --- events ----------------------------------------------------------------------------------------------


def newborn(state: dict, event: dict) -> None:
    player = find_player(state, event)
    rules = state["rules"]
    gf = read_gf(rules, event, "gf")
    gm = read_gm(rules, event, "gm")
    check_newborn(state, gf, gm)
    player["newborns"].append({"gf": gf, "gm": gm})
    state["take"] = {"player": player["id"]} if rank_of(gf) == "Q" else None


def abortion(state: dict, event: dict) -> None:
    player = find_player(state, event)
    player["abortions"] += 1
    state["take"] = None


def steal_newborn(state: dict, event: dict) -> None:
    thief = find_player(state, event, "player")
    victim = find_player(state, event, "from")
    check_steal_newborn(state, thief, victim)
    # The taken newborn lands on top of the thief's nursery: it is now their most recent.
    thief["newborns"].append(victim["newborns"].pop())
    state["take"] = None


def close_round(state: dict, event: dict) -> None:
    if tracked(state):
        gjdlv_play.check_close(state)
    for player in state["players"]:
        player["round_scores"].append(round_score(player))
        player["abortions"] = 0
        player["newborns"] = []
    state["take"] = None
    if state["round"] >= state["rounds"]:
        state["over"] = True
    else:
        state["round"] += 1
        state["first_seat"] = (state["first_seat"] + 1) % len(state["players"])
    if tracked(state):
        state["play"] = None if state["over"] else gjdlv_play.new_round(state)


def _sheet_only(handler):
    """A score-sheet event: refused at a table whose rounds are played through."""

    def on_sheet(state: dict, event: dict) -> None:
        if tracked(state):
            raise IllegalEvent("gjdlv.play.sheet_event")
        handler(state, event)

    return on_sheet


def _tracker_only(handler):
    """A played-through round's event: refused at a table that keeps the score sheet."""

    def in_play(state: dict, event: dict) -> None:
        if not tracked(state):
            raise IllegalEvent("gjdlv.play.tracker_event")
        handler(state, event)

    return in_play


EVENTS = {
    "newborn": _sheet_only(newborn),
    "abortion": _sheet_only(abortion),
    "steal_newborn": steal_newborn,
    "close_round": close_round,
    **{kind: _tracker_only(handler) for kind, handler in gjdlv_play.EVENTS.items()},
}
# Every field each event may carry (besides ``type``): any other is refused (``unknown_field``).
FIELDS = {
    "newborn": specs(
        Field("player", "player", doc="whose newborn"),
        Field("gf", "card", doc="its GF (red)"),
        Field("gm", "card", doc="its GM (black)"),
    ),
    "abortion": specs(Field("player", "player", doc="who aborted")),
    "steal_newborn": specs(
        Field("player", "player", doc="the Queen newborn's owner, who takes"),
        Field("from", "player", doc="the opponent whose newborn is taken"),
    ),
    "close_round": specs(),
    **gjdlv_play.FIELDS,
}

# The fields holding text the table supplies: shown whole (``hidden_character``).
TEXTS = {}  # no event carries the table's own text: names are given at setup


def player_moves(options: dict) -> dict[str, str]:
    """The events a player records themselves (RULES.md §0): in a round played through, every play
    whose acting player is theirs (`gjdlv_play.PLAYER_MOVES`) and their Queen newborn's take; on
    the score sheet none, the referee records every outcome there."""
    if options.get("mode") != TRACKER:
        return {}
    return {**gjdlv_play.PLAYER_MOVES, "steal_newborn": "player"}


def actions(state: dict, view: dict | None = None) -> list[dict]:
    """What may be recorded now; the cards come from the table (a round played through lists its
    plays in its view's ``choices``, read from ``view`` when given)."""
    players = state["players"]
    if tracked(state):
        choices = view["play"]["choices"] if view else gjdlv_play.choices(state)
        listed = [choice["action"] for choice in choices]
    else:
        listed = [{"type": "newborn", "player": p["id"]} for p in players] if _newborn_possible(state) else []
        listed += [{"type": "abortion", "player": p["id"]} for p in players]
    listed += [
        {"type": "steal_newborn", "player": thief["id"], "from": victim["id"]}
        for thief in players
        if allowed(check_queen_taker, state, thief)
        for victim in players
        if allowed(check_steal_newborn, state, thief, victim)
    ]
    if not tracked(state):
        listed.append({"type": "close_round"})
    return listed


# --- the end and the view --------------------------------------------------------------------------------


def total(player: dict) -> int:
    return sum(player["round_scores"])


def outcome(state: dict) -> Outcome | None:
    if not state["over"]:
        return None
    best = max(total(p) for p in state["players"])
    winners = [p for p in state["players"] if total(p) == best]
    reason = "gjdlv.highest_total" if len(winners) == 1 else "gjdlv.shared_total"
    return Outcome(
        tuple(p["id"] for p in winners),
        reason,
        {
            "total": best,
            "names": ", ".join(isolate(p["name"]) for p in winners),
            "totals": {p["id"]: total(p) for p in state["players"]},
        },
    )


def notes(state: dict) -> list[Note]:
    found = []
    count = len(state["players"])
    if not WRITTEN_FOR[0] <= count <= WRITTEN_FOR[1]:
        found.append(Note("gjdlv.note_player_count", {"count": count}))
    if state["take"] is not None:
        owner = next(p for p in state["players"] if p["id"] == state["take"]["player"])
        code = "gjdlv.take" if _take_open(state) else "gjdlv.take_nothing"
        found.append(Note(code, {"player": owner["id"], "name": owner["name"]}))
    if state.get("play"):
        found += [Note(code, params) for code, params in gjdlv_play.notes(state)]
    return found


def _take_open(state: dict) -> bool:
    """Whether a Queen newborn's take may be recorded now: one is pending and an opponent holds a
    newborn (else it is lost, and only the note says so)."""
    if state["take"] is None:
        return False
    owner = next(p for p in state["players"] if p["id"] == state["take"]["player"])
    return any(allowed(check_steal_newborn, state, owner, victim) for victim in state["players"])


def _running(scores: list[int]) -> list[int]:
    totals, running = [], 0
    for score in scores:
        running += score
        totals.append(running)
    return totals


def _player_view(player: dict) -> dict:
    rows = nursery(player["newborns"])
    cc = sum(row["cc"] for row in rows)
    formol = POINTS_PER_ABORTION * player["abortions"]
    nursery_points = sum(row["points"] for row in rows)
    value = cc_value(cc)
    return {
        "id": player["id"],
        "name": player["name"],
        "round_score": formol + nursery_points,
        "round_scores": list(player["round_scores"]),
        "running_totals": _running(player["round_scores"]),
        "total": total(player),
        "projected_total": total(player) + formol + nursery_points,
        "newborns": rows,
        "abortions": player["abortions"],
        "formol": formol,
        "nursery": nursery_points,
        "cc": cc,
        "cc_value": value,
        "cc_malus": None if value is None else value - NEWBORN_BASE,
        "cc_line": _cc_line(cc, value),
        "formol_line": _formol_line(player["abortions"], formol),
        "round_line": {
            "code": "gjdlv.round_line",
            "params": {"nursery": nursery_points, "formol": formol, "round_score": formol + nursery_points},
        },
    }


def _cc_line(cc: int, value: int | None) -> dict | None:
    """The consanguinity malus where it bites, worded for the sheet."""
    if not cc:
        return None
    malus = value - NEWBORN_BASE
    if cc == 1:
        return {"code": "gjdlv.cc_single", "params": {"cc": cc, "cc_value": value}}
    signed = f"{malus:+d}".replace("-", "\u2212")  # a real minus sign, as the sheet prints it
    return {"code": "gjdlv.cc_malus", "params": {"cc": cc, "cc_value": value, "malus": signed}}


def _formol_line(abortions: int, formol: int) -> dict | None:
    if not abortions:
        return None
    return {
        "code": "gjdlv.formol",
        # `count` chooses the sentence's plural form; `abortions` stays for the clients that read it.
        "params": {
            "abortions": abortions,
            "count": abortions,
            "per_abortion": POINTS_PER_ABORTION,
            "formol": formol,
        },
    }


def standings(players: list[dict]) -> list[dict]:
    """Highest total first (seating order between equals); equal totals share a rank."""
    ordered = sorted(players, key=lambda p: -total(p))  # sorted() is stable: seats stay in order
    return [
        {"player": p["id"], "rank": 1 + sum(total(o) > total(p) for o in players), "total": total(p)}
        for p in ordered
    ]


def view(state: dict) -> dict:
    return {
        "round": state["round"],
        "rounds": state["rounds"],
        "rounds_closed": len(state["players"][0]["round_scores"]),
        "last_round": state["round"] >= state["rounds"],
        "rules": state["rules"],
        "mode": state.get("mode", SHEET),
        "first_player": state["players"][state["first_seat"]]["id"],
        "play": gjdlv_play.view(state) if state.get("play") else None,
        "take": dict(state["take"]) if _take_open(state) else None,
        "deck": deck(state["rules"]),
        "royal_points": dict(ROYAL_POINTS) if state["rules"] == ABONDANTES else {},
        "per_abortion": POINTS_PER_ABORTION,
        "used_cards": _used_cards(state),
        "standings": standings(state["players"]),
        "players": [_player_view(p) for p in state["players"]],
    }


def summary(state: dict) -> tuple[str, dict]:
    """The table in one line, for a list of tables (the game still going on)."""
    params = {"round": state["round"], "rounds": state["rounds"]}
    if state.get("play"):
        active = state["players"][state["play"]["active"]]
        return "gjdlv.summary.play", {**params, "name": active["name"]}
    return "gjdlv.summary.sheet", params


# --- checks for table disputes (no state change) -----------------------------------------------------


def _answer(ok: bool, code: str, params: dict, **extra) -> dict:
    return {"ok": ok, "code": code, "params": params, **extra}


def fecundate_check(state, params: dict) -> dict:
    """May this GM fecundate this GF?"""
    rules = rules_of(state)
    gf, gm = read_gf(rules, params, "gf"), read_gm(rules, params, "gm")
    eg = genetic_gap(gf, gm)
    facts = {"gf": gf, "gm": gm, "eg": eg}
    if is_face(gf):
        return _answer(True, "gjdlv.check.fecundate_royal", facts, eg=None, cc=False, royal=True)
    if is_face(gm):
        code = "gjdlv.check.fecundate_imperial_on_number"
        return _answer(False, code, facts, eg=None, cc=False, royal=False)
    code = "gjdlv.check.fecundate_cc" if eg == 0 else "gjdlv.check.fecundate_number"
    return _answer(True, code, facts, eg=eg, cc=eg == 0, royal=False)


def surrogate_check(state, params: dict) -> dict:
    """May ``new_gm`` take the embryo (gf, gm) as a mère porteuse?"""
    rules = rules_of(state)
    gf, gm = read_gf(rules, params, "gf"), read_gm(rules, params, "gm")
    check_fecundation(gf, gm)
    new_gm = read_gm(rules, params, "new_gm")
    facts = {"gf": gf, "gm": gm, "new_gm": new_gm, "eg_before": genetic_gap(gf, gm), "eg_after": None}
    taken = {"mouchoir": [gm], "embryo": {"gf": gf, "gm": new_gm}}
    if new_gm == gm:
        return _answer(False, "gjdlv.check.surrogate_same_card", facts)
    if is_face(gf):
        if is_face(new_gm):
            return _answer(True, "gjdlv.check.surrogate_royal", facts, **taken)
        return _answer(False, "gjdlv.check.surrogate_royal_needs_imperial", facts)
    if is_face(new_gm):
        return _answer(False, "gjdlv.check.surrogate_imperial_on_number", facts)
    before, after = facts["eg_before"], genetic_gap(gf, new_gm)
    facts["eg_after"] = after
    # The values a surrogate GM may have, for the referee's screen: strictly closer to the GF.
    closer = [v for v in range(1, 11) if abs(v - value_of(gf)) < before]
    if after < before:
        code = "gjdlv.check.surrogate_cc" if after == 0 else "gjdlv.check.surrogate_closer"
        return _answer(True, code, facts, closer=closer, cc=after == 0, **taken)
    return _answer(False, "gjdlv.check.surrogate_not_closer", facts, closer=closer)


def abortion_check(state, params: dict) -> dict:
    """Does the black card ``answer`` abort a fecundation made with ``gm``?"""
    rules = rules_of(state)
    gm, answer = read_gm(rules, params, "gm"), read_gm(rules, params, "answer")
    facts = {"gm": gm, "answer": answer, "other": other_black(gm)}
    if answer == gm:
        return _answer(False, "gjdlv.check.abortion_same_card", facts)
    if rank_of(answer) != rank_of(gm):
        return _answer(False, "gjdlv.check.abortion_other_rank", facts)
    return _answer(True, "gjdlv.check.abortion_ok", facts, formol=["gf", gm, answer], formol_points=3)


def ejaculation_check(state, params: dict) -> dict:
    """Who fecundates an unfecundated GF among the held-back GMs ejaculated on it?"""
    rules = rules_of(state)
    gf = read_gf(rules, params, "gf")
    gms_in = params.get("gms")
    if not isinstance(gms_in, dict) or not all(isinstance(k, str) and 1 <= len(k) <= 40 for k in gms_in):
        raise InvalidEvent("gjdlv.bad_gms")
    gms: dict[str, str] = {}
    for pid, raw in gms_in.items():
        gm = read_black(rules, raw, f"gms.{pid}")
        check_fecundation(gf, gm)
        if gm in gms.values():
            raise InvalidEvent("gjdlv.duplicate_card", card=gm)
        gms[pid] = gm
    egs, winner, tied, beaten = contest(gf, gms)
    facts = {"gf": gf, "count": len(gms), "winner": winner, "gm": gms.get(winner), "eg": egs.get(winner)}
    if not gms:
        code = "gjdlv.check.ejaculation_none"
    elif len(gms) == 1:
        code = "gjdlv.check.ejaculation_single"
    elif winner is not None:
        code = "gjdlv.check.ejaculation_lowest"
    elif is_face(gf):
        code = "gjdlv.check.ejaculation_royal_tied"
    else:
        code = "gjdlv.check.ejaculation_all_tied"
    return _answer(
        winner is not None,
        code,
        facts,
        winner=winner,
        embryo={"gf": gf, "gm": gms[winner]} if winner else None,
        egs=egs,
        tied=tied,
        beaten=beaten,
        mouchoir=sorted((gm for pid, gm in gms.items() if pid != winner), key=deck_order),
        diva_cup=winner is None,
    )


def bonus_check(state, params: dict) -> dict:
    """What an imperial bonus does against an abortion, a surrogacy or a fecundation."""
    rules = rules_of(state)
    card = read_gm(rules, params, "card")
    against = params.get("against")
    if against not in AGAINST_CHOICES:
        raise InvalidEvent("gjdlv.bad_against", value=short(against), choices=list(AGAINST_CHOICES))
    facts = {"card": card, "against": against}
    rank = rank_of(card)
    if rank not in FACES:
        return _answer(False, "gjdlv.check.bonus_not_imperial", facts)
    if rank == "K":
        if against == "abortion":
            return _answer(
                True,
                "gjdlv.check.bonus_manif_pour_tous",
                facts,
                mouchoir=["aborting_gm", card],
                formol=[],
                formol_points=0,
                embryo="stays",
            )
        return _answer(False, "gjdlv.check.bonus_king_only_abortion", facts)
    if rank == "Q":
        if against == "surrogacy":
            return _answer(
                True,
                "gjdlv.check.bonus_amour_maternel",
                facts,
                mouchoir=["surrogating_gm", card],
                formol=[],
                formol_points=0,
                embryo="stays_with_owner",
            )
        return _answer(False, "gjdlv.check.bonus_queen_only_surrogacy", facts)
    if against == "fecundation":
        return _answer(
            True,
            "gjdlv.check.bonus_guilde_du_cintre",
            facts,
            mouchoir=[],
            formol=["gf", "gm", card],
            formol_points=POINTS_PER_ABORTION,
            embryo="aborted",
        )
    if against == "surrogacy":
        # The text counts a surrogacy among fecundations ("fécondation directe, mère porteuse ou
        # retenue"); the GM it replaced already went to the Mouchoir.
        return _answer(
            True,
            "gjdlv.check.bonus_guilde_du_cintre_surrogacy",
            facts,
            mouchoir=["replaced_gm"],
            formol=["gf", "surrogating_gm", card],
            formol_points=POINTS_PER_ABORTION,
            embryo="aborted",
        )
    return _answer(False, "gjdlv.check.bonus_jack_only_fecundation", facts)


def fecundations_check(state, params: dict) -> dict:
    """Every GM of the deck against one GF (what the newborn picker shows under each GM): whether
    the rules let it fecundate that GF (``fecundates``), whether it is already recorded this round
    (``used``), whether the newborn may be recorded now (``allowed``: the very check of the
    ``newborn`` event), its EG, whether it is a CC, and the points the newborn would score alone."""
    rules = rules_of(state)
    gf = read_gf(rules, params, "gf")
    table = isinstance(state, dict) and "players" in state
    used = set(_used_cards(state)) if table else set()
    gms = []
    for gm in deck(rules)["gm"]:
        fits = may_fecundate(gf, gm)
        alone = nursery([{"gf": gf, "gm": gm}])[0] if fits else None
        gms.append(
            {
                "gm": gm,
                "fecundates": fits,
                "allowed": allowed(check_newborn, state, gf, gm) if table else fits,
                "used": gm in used,
                "eg": genetic_gap(gf, gm),
                "cc": bool(alone and alone["cc"]),
                "points": alone["points"] if alone else None,
            }
        )
    return {"ok": True, "gf": gf, "royal": is_face(gf), "used": gf in used, "gms": gms}


CHECKS = {
    "fecundate": fecundate_check,
    "surrogate": surrogate_check,
    "abortion": abortion_check,
    "ejaculation": ejaculation_check,
    "bonus": bonus_check,
    "fecundations": fecundations_check,
}


# --- the story of the table: each event in words, and the chart of totals -----------------------------

MEASURE = ("gjdlv.story.measure", {})
START = ("gjdlv.story.start", {})
END = ("gjdlv.story.end", {})
SUIT_FACES = {"S": "♠", "C": "♣", "H": "♥", "D": "♦"}


def face(card: str) -> str:
    """A card as the table sees it: ``10H`` -> ``10♥``."""
    return card[:-1] + SUIT_FACES[card[-1]]


def _pair(embryo: dict) -> dict:
    return {"gf": face(embryo["gf"]), "gm": face(embryo["gm"])}


def _name(state: dict, pid: str) -> str:
    return next(p["name"] for p in state["players"] if p["id"] == pid)


def describe(state: dict, event: dict) -> tuple[str, dict]:
    """What ``event`` does, in words, read from the state before it (`engine.core.story`): the names,
    the cards as faces (``10♥``), the embryo an answer targets, who wins a contest."""
    kind = event.get("type")
    rules = state["rules"]
    if kind == "close_round":
        return "gjdlv.story.close_round", {"round": state["round"], "rounds": state["rounds"]}
    if kind == "deal":
        return _describe_deal(state, event)
    if kind == "ejaculate":
        return _contest_words(state, gjdlv_play.contest_gms(state, event))
    player = find_player(state, event)
    who = {"player": player["id"], "name": player["name"]}
    if kind == "contest_answer":
        return _describe_answer(state, player, event, who)
    if kind == "newborn":
        return "gjdlv.story.newborn", {
            **who,
            "gf": face(read_gf(rules, event, "gf")),
            "gm": face(read_gm(rules, event, "gm")),
        }
    if kind == "abortion":
        return "gjdlv.story.abortion", who
    if kind in ("steal_newborn", "remove_embryo", "surrogate"):
        victim = find_player(state, event, "from")
        who["victim"] = victim["name"]
        if kind == "steal_newborn":
            return "gjdlv.story.steal_newborn", {**who, **_pair(victim["newborns"][-1])}
        embryo = state["play"]["seats"][state["players"].index(victim)]["uterus"]
        if kind == "remove_embryo":
            return "gjdlv.story.remove_embryo", {**who, **_pair(embryo)}
        return "gjdlv.story.surrogate", {
            **who,
            "gf": face(embryo["gf"]),
            "replaced": face(embryo["gm"]),
            "gm": face(read_gm(rules, event, "gm")),
        }
    play = state["play"]
    if kind == "birth":
        return _describe_birth(state, player, event, who)
    if kind == "ovulate":
        ovulated = {**who, "gf": face(read_gf(rules, event, "gf"))}
        born = _phase_0_in_place(state)
        if born:
            return born[0], {**born[1], **ovulated}
        return "gjdlv.story.ovulate", ovulated
    if kind == "fecundate":
        gm = face(read_gm(rules, event, "gm"))
        return "gjdlv.story.fecundate", {**who, "gf": face(play["gf"]), "gm": gm}
    if kind == "hold":
        return "gjdlv.story.hold", who
    if kind == "pass":
        return "gjdlv.story.pass", who
    act = play["open"][-1]
    if kind == "abort":
        return "gjdlv.story.abort", {
            **who,
            **_pair(act),
            "owner": _name(state, act["player"]),
            "card": face(read_gm(rules, event, "gm")),
        }
    card = face(read_gm(rules, event, "card"))
    if act["act"] == "abortion":
        return "gjdlv.story.cancel_abortion", {
            **who,
            "card": card,
            "aborter": _name(state, act["player"]),
            "owner": _name(state, act["owner"]),
        }
    return "gjdlv.story.cancel_surrogacy", {
        **who,
        "card": card,
        "surrogate": _name(state, act["player"]),
        "owner": _name(state, act["from"]),
    }


def _describe_deal(state: dict, event: dict) -> tuple[str, dict]:
    per, _ = gjdlv_play.share(state["rules"], len(state["players"]))
    cards = [face(read_black(state["rules"], raw, "mouchoir")) for raw in event["mouchoir"]]
    if cards:
        return "gjdlv.story.deal", {"per": per, "cards": " ".join(cards)}
    return "gjdlv.story.deal_even", {"per": per}


def _describe_birth(state: dict, player: dict, event: dict, who: dict) -> tuple[str, dict]:
    play = state["play"]
    embryo = play["seats"][state["players"].index(player)]["uterus"]
    if embryo is None:
        return "gjdlv.story.discard_held", {**who, "held": face(read_gm(state["rules"], event, "held"))}
    # A GM is held back only until its player's next phase 0, and an embryo comes to a player who
    # holds one only by ejaculating it: the two never meet here, one is born or the other discarded.
    code = "gjdlv.story.birth_late" if embryo["gm"] in play["late"] else "gjdlv.story.birth"
    return code, {**who, **_pair(embryo)}


def _phase_0_in_place(state: dict) -> tuple[str, dict] | None:
    """The words of the active player's waiting phase 0 made by the ovulation recorded in its place
    (`gjdlv_play.phase_0_forced`): a ``birth_*_ovulate`` code and the newborn's cards, None if
    nothing waits or nothing is in it."""
    play = state.get("play")
    if not play or play["phase"] != "birth":
        return None
    embryo = play["seats"][play["active"]]["uterus"]
    if embryo is None:
        return None
    born = {"born_gf": face(embryo["gf"]), "born_gm": face(embryo["gm"])}
    late = embryo["gm"] in play["late"]
    return ("gjdlv.story.birth_late_ovulate" if late else "gjdlv.story.birth_ovulate"), born


def _describe_answer(state: dict, player: dict, event: dict, who: dict) -> tuple[str, dict]:
    """A holder's own answer to the contest: its words, or the contest's when it is the last."""
    play = state["play"]
    gm = read_gm(state["rules"], event, "gm") if event.get("gm") is not None else None
    answers = {**(play.get("contest") or {}), player["id"]: gm}
    if all(p["id"] in answers for p in gjdlv_play.holders(state)):
        return _contest_words(state, {pid: card for pid, card in answers.items() if card is not None})
    if gm is None:
        return "gjdlv.story.contest_decline", {**who, "gf": face(play["gf"])}
    return "gjdlv.story.contest_join", {**who, "gf": face(play["gf"]), "gm": face(gm)}


def _contest_words(state: dict, gms: dict[str, str]) -> tuple[str, dict]:
    """The contest on the GF left, settled between ``gms`` (player id -> GM), in words."""
    gf = state["play"]["gf"]
    if not gms:
        return "gjdlv.story.ejaculate_none", {"gf": face(gf)}
    _, winner, _, _ = contest(gf, gms)
    shown = " · ".join(f"{isolate(_name(state, pid))} {face(gm)}" for pid, gm in gms.items())
    params = {"gf": face(gf), "gms": shown}
    if winner is None:
        return "gjdlv.story.ejaculate_lost", params
    return "gjdlv.story.ejaculate_won", {**params, "winner": _name(state, winner), "gm": face(gms[winner])}


def score(state: dict) -> dict[str, int]:
    """Each player's total over the closed rounds: the chart of the game."""
    return {p["id"]: total(p) for p in state["players"]}


def milestone(state: dict, event: dict) -> tuple[str, dict] | None:
    """Closing a round: a point on the chart."""
    if event.get("type") == "close_round":
        return "gjdlv.story.round", {"round": state["round"]}
    return None


# --- a waiting tap replayed after others (engine.core.rebase) -----------------------------------------


def meaning(state: dict, event: dict) -> dict:
    """What ``event`` means against ``state``: the round and the Queen's take still due (any event
    ends it); at a table played through, the whole round as it stands (it is one sequence: every play
    moves a card or the turn, so a play made before another phone's is not the same play after it);
    for an abortion on the sheet, the abortions its player already has this round (the same abortion
    recorded on two phones); for a Queen's take, the newborn it takes. A round closed twice, a play
    of another moment: the tap is not replayed without asking."""
    facts = {"round": state["round"], "take": state["take"]}
    if tracked(state):
        facts["play"] = state["play"]
    kind = event.get("type")
    if kind == "abortion":
        player = find_player(state, event)
        facts["abortions"] = {player["id"]: player["abortions"]}
    elif kind == "steal_newborn":
        victim = find_player(state, event, "from")
        facts["taken"] = victim["newborns"][-1] if victim["newborns"] else None
    return facts
