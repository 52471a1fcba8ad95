"""Le Grand Jeu de la Vie, a round played through card by card (RULES.md §2 "A round, played through").

A table created with the option ``mode: "tracker"`` plays each round here instead of filling the
score sheet by hand: the deal, then each turn of the active player phase by phase (0 birth and the
held GM to the Mouchoir, 1 ovulation, 2 fecundate / surrogate / hold back, 3 the held-back
ejaculation contest, 4 menstruation), the answers (abortions, imperial bonuses) to the act they
target, the royal births, the last lap. The round's newborns and abortions land in the same player
fields the score sheet uses (`engine.gjdlv`), so a round is scored by the same code either way.

The app sees only the cards the table shows. A GM in a player's testicles or urethra is face down:
the state counts them (``hand``, ``held``) and never names them until they are played. Every card
the table has seen is in exactly one place (``seen``); a card entered is refused when it is already
somewhere, and the cards still possible are the deck less the seen ones.

State, under the sheet's (``state["play"]``, plain JSON)::

    {"phase": "deal" | "birth" | "ovulation" | "action" | "ejaculation" | "ended",
     "active": seat, "gf": None | card (the revealed GF, until it is fecundated or discarded),
     "ovulation": int (GF left in the Ovulation pile), "mouchoir": [card], "diva_cup": [card],
     "open": [act] (the chain an answer may target, newest last), "last_lap": None | player id,
     "removal": None | {"player": id} (a Jack newborn's removal, for the very next event),
     "late": [gm] (the GM of the embryos begun during the last lap by anyone but the announcer:
              one whose owner's phase 0 still comes, won by an ejaculation, is not born then but
              leaves the uterus, GM to the Mouchoir and GF to the Diva Cup),
     "seats": [{"hand": int, "held": bool, "uterus": None | {"gf", "gm"}, "formol": [card]}],
     "contest": absent | None | {player id: card | None} (phase 3's answers so far, each holder's own)}

An act of ``open`` is ``{"act": "fecundation", "player", "gf", "gm"}`` (the embryo is in that
player's uterus), ``{"act": "surrogacy", "player", "from", "gf", "gm", "replaced"}`` or
``{"act": "abortion", "player", "card", "owner", "gf", "gm"}`` (the aborted embryo was the owner's).
Any event but an answer closes the chain: an answer is made at the moment of the act it answers.

Decisions where the text is silent (RULES.md decides the rest):
- An answer never targets its own player's act (one aborts a concurrent's fecundation); after a King
  cancels an abortion, the fecundation it targeted may be answered again (by the other cards left).
- The active player does not ejaculate on their own GF (the contest is for "les joueurs qui se sont
  retenus" when a concurrent leaves the GF).
- A player with no GM left passes at phase 2 (only then).
- Phase 3's contest, each holder on their own phone: every holder answers for themselves with
  ``contest_answer {player, gm}`` (``gm`` the GM they ejaculate, which leaves their urethra face
  up, or left out: they keep holding back), in any order; the answer of the last holder settles
  the contest. The referee may close it
  at any moment with ``ejaculate {gms}``, naming the GMs of holders who have not answered (``{}``:
  nobody else ejaculates): the contest is settled with every answer recorded and those. Answers do
  not close the chain of acts (an abortion of the surrogacy just made may still come); settling
  does, as every step does. A card answered is on the table from then on (``seen`` as ``contest``).

The Ovulation pile never runs out: it holds as many GF as the deck has GM (20, or 26 with the faces),
every turn of a player holding a GM plays one, and the first player to play their last GM starts the
last lap, which ends within a lap: a round has no more turns than GM dealt, nor than GF.
- Phase 0 with nothing to birth or discard is made at once, without an event. One with nothing to
  choose (an embryo to birth, no GM held back to name, no Queen or Jack whose take or removal
  follows) waits, so that the answers to the act before it still come first, but the turn's
  ovulation may be recorded in its place and makes it first (`phase_0_forced`): a step with nothing
  to choose costs the referee no tap, and a `birth` stays accepted there.
"""

from __future__ import annotations

from engine.core import IllegalEvent, InvalidEvent, allowed, find_player, short
from engine.gjdlv_cards import (
    ABONDANTES,
    check_fecundation,
    contest,
    deck,
    deck_order,
    genetic_gap,
    is_face,
    other_black,
    rank_of,
    read_black,
    read_gf,
    read_gm,
)
from engine.specs import PLAYERS, Field, specs

PHASES = ("deal", "birth", "ovulation", "action", "ejaculation", "ended")
ROYAL_EFFECTS = (
    "Q",
    "J",
)  # the royal newborns whose birth opens a play: the Queen's take, the Jack's removal


# --- the round's setup ------------------------------------------------------------------------------


def share(rules: str, count: int) -> tuple[int, int]:
    """GM each player is dealt and GM left face up to the Mouchoir, for ``count`` players."""
    return divmod(len(deck(rules)["gm"]), count)


def new_round(state: dict) -> dict:
    """A round waiting for its deal, the first player of the round to play first."""
    return {
        "phase": "deal",
        "active": state["first_seat"],
        "gf": None,
        "ovulation": len(deck(state["rules"])["gf"]),
        "mouchoir": [],
        "diva_cup": [],
        "open": [],
        "last_lap": None,
        "removal": None,
        "late": [],
        "seats": [{"hand": 0, "held": False, "uterus": None, "formol": []} for _ in state["players"]],
    }


# --- where the cards are ------------------------------------------------------------------------------


def places(state: dict) -> list[tuple[str, str | None, str]]:
    """Every card the table has seen, with where it is: ``(place, player name or None, card)``."""
    play = state["play"]
    found = [("mouchoir", None, card) for card in play["mouchoir"]]
    found += [("diva_cup", None, card) for card in play["diva_cup"]]
    if play["gf"]:
        found.append(("revealed", None, play["gf"]))
    for player, seat in zip(state["players"], play["seats"], strict=True):
        name = player["name"]
        answered = (play.get("contest") or {}).get(player["id"])
        if answered:
            found.append(("contest", name, answered))
        if seat["uterus"]:
            found += [("uterus", name, seat["uterus"]["gf"]), ("uterus", name, seat["uterus"]["gm"])]
        found += [("nursery", name, card) for born in player["newborns"] for card in (born["gf"], born["gm"])]
        found += [("formol", name, card) for card in seat["formol"]]
    return found


def unseen(state: dict) -> dict[str, list[str]]:
    """The cards of the deck the table has not seen yet, in deck order: the ones still possible."""
    seen = {card for _, _, card in places(state)}
    cards = deck(state["rules"])
    return {kind: [c for c in cards[kind] if c not in seen] for kind in ("gf", "gm")}


def _seen(state: dict, card: str) -> bool:
    """Whether ``card`` is among `places` (the same piles, asked without listing them)."""
    play = state["play"]
    if card in play["mouchoir"] or card in play["diva_cup"] or (play["gf"] and play["gf"] == card):
        return True
    if card in (play.get("contest") or {}).values():
        return True
    for player, seat in zip(state["players"], play["seats"], strict=True):
        uterus = seat["uterus"]
        if (uterus and (uterus["gf"] == card or uterus["gm"] == card)) or card in seat["formol"]:
            return True
        for born in player["newborns"]:
            if born["gf"] == card or born["gm"] == card:
                return True
    return False


def check_unseen(state: dict, card: str) -> None:
    if _seen(state, card):  # asked at once; only a refusal lists the places, to name the first
        place, name = next((place, name) for place, name, other in places(state) if other == card)
        raise IllegalEvent(f"gjdlv.play.seen.{place}", card=card, name=name)


# --- the rules' checks: each called by its event's handler and by `actions` ---------------------------


def _active(state: dict) -> dict:
    return state["players"][state["play"]["active"]]


def _player(state: dict, pid: str) -> dict:
    return next(player for player in state["players"] if player["id"] == pid)


def _seat(state: dict, player: dict) -> dict:
    return state["play"]["seats"][state["players"].index(player)]


def check_phase(state: dict, phase: str, *, through_phase_0: bool = False) -> None:
    """The round is at ``phase``; else the refusal says what the table expects now. With
    ``through_phase_0``, a phase 0 that waits with nothing to choose counts as the phase it leads to
    (`phase_0_forced`: the step recorded in its place makes it first)."""
    play = state["play"]
    current = _after_phase_0(state) if through_phase_0 and phase_0_forced(state) else play["phase"]
    if current != phase:
        raise IllegalEvent(f"gjdlv.play.expect.{play['phase']}", name=_active(state)["name"], gf=play["gf"])


def check_turn(state: dict, player: dict, phase: str, *, through_phase_0: bool = False) -> None:
    """``player`` is the active player and the turn is at ``phase`` (see `check_phase`)."""
    check_phase(state, phase, through_phase_0=through_phase_0)
    active = _active(state)
    if player is not active:
        raise IllegalEvent("gjdlv.play.not_your_turn", name=player["name"], active=active["name"])


def check_has_card(state: dict, player: dict) -> None:
    if not _seat(state, player)["hand"]:
        raise IllegalEvent("gjdlv.play.no_cards", name=player["name"])


def check_deal(state: dict, cards: list[str]) -> None:
    check_phase(state, "deal")
    per, left = share(state["rules"], len(state["players"]))
    if len(cards) != left:
        gms = len(deck(state["rules"])["gm"])
        raise IllegalEvent(
            "gjdlv.play.deal_count",
            players=len(state["players"]),
            gms=gms,
            per=per,
            expected=left,
            count=len(cards),
        )


def check_birth(state: dict, player: dict, held: str | None) -> None:
    check_turn(state, player, "birth")
    if _seat(state, player)["held"]:
        if held is None:
            raise IllegalEvent("gjdlv.play.held_card_needed", name=player["name"])
        check_unseen(state, held)
    elif held is not None:
        raise IllegalEvent("gjdlv.play.nothing_held", name=player["name"])


def check_ovulate(state: dict, player: dict, gf: str) -> None:
    check_turn(state, player, "ovulation", through_phase_0=True)
    check_unseen(state, gf)


def check_card_player(state: dict, player: dict) -> None:
    """``player`` may lay a card of their hand now (fecundate, or hold one back)."""
    check_turn(state, player, "action")
    check_has_card(state, player)


def check_fecundate(state: dict, player: dict, gm: str) -> None:
    check_card_player(state, player)
    check_unseen(state, gm)
    check_fecundation(state["play"]["gf"], gm)


def check_surrogacy(embryo: dict, new_gm: str) -> None:
    """RULES §2 *Mère porteuse*: a number GM strictly closer to a number GF; any imperial on a royal GF."""
    gf, gm = embryo["gf"], embryo["gm"]
    facts = {"gf": gf, "gm": gm, "new_gm": new_gm, "eg_before": genetic_gap(gf, gm), "eg_after": None}
    if is_face(gf):
        if not is_face(new_gm):
            raise IllegalEvent("gjdlv.check.surrogate_royal_needs_imperial", **facts)
        return
    if is_face(new_gm):
        raise IllegalEvent("gjdlv.check.surrogate_imperial_on_number", **facts)
    facts["eg_after"] = genetic_gap(gf, new_gm)
    if facts["eg_after"] >= facts["eg_before"]:
        raise IllegalEvent("gjdlv.check.surrogate_not_closer", **facts)


def check_surrogate_target(state: dict, player: dict, victim: dict) -> None:
    check_turn(state, player, "action")
    if victim is player:
        raise IllegalEvent("gjdlv.play.surrogate_own")
    if _seat(state, victim)["uterus"] is None:
        raise IllegalEvent("gjdlv.play.no_embryo", victim=victim["name"])
    check_has_card(state, player)


def check_surrogate(state: dict, player: dict, victim: dict, gm: str) -> None:
    check_surrogate_target(state, player, victim)
    check_unseen(state, gm)
    check_surrogacy(_seat(state, victim)["uterus"], gm)


def check_hold(state: dict, player: dict) -> None:
    check_card_player(state, player)


def check_pass(state: dict, player: dict) -> None:
    check_turn(state, player, "action")
    hand = _seat(state, player)["hand"]
    if hand:
        raise IllegalEvent("gjdlv.play.must_act", name=player["name"], hand=hand)


def check_ejaculator(state: dict, player: dict) -> None:
    check_phase(state, "ejaculation")
    if player is _active(state):
        raise IllegalEvent("gjdlv.play.own_gf", name=player["name"])
    if not _seat(state, player)["held"]:
        raise IllegalEvent("gjdlv.play.not_held", name=player["name"])


def check_ejaculation(state: dict, player: dict, gm: str) -> None:
    check_unanswered(state, player)
    check_ejaculator(state, player)
    check_unseen(state, gm)
    check_fecundation(state["play"]["gf"], gm)


def check_unanswered(state: dict, player: dict) -> None:
    """A holder answers the contest once: the first answer recorded counts (two phones racing)."""
    if player["id"] in (state["play"].get("contest") or {}):
        raise IllegalEvent("gjdlv.play.contest_answered", name=player["name"], gf=state["play"]["gf"])


def check_contest_answer(state: dict, player: dict, gm: str | None) -> None:
    """RULES §2 *Éjaculation retenue*, one holder's own answer: a GM to ejaculate, or none."""
    if gm is None:
        check_unanswered(state, player)
        check_ejaculator(state, player)
    else:
        check_ejaculation(state, player, gm)


def holders(state: dict) -> list[dict]:
    """The players who may still ejaculate on the GF left now (phase 3): every one holding a GM back
    but the active player (one who answered with their GM holds it no longer; one who answered
    none still does)."""
    return [p for p in state["players"] if allowed(check_ejaculator, state, p)]


def _answerable(state: dict, player: dict) -> dict:
    """The act an answer by ``player`` targets: the newest of the chain, never their own."""
    chain = state["play"]["open"]
    if not chain:
        raise IllegalEvent("gjdlv.play.nothing_to_answer")
    act = chain[-1]
    if act["player"] == player["id"]:
        raise IllegalEvent("gjdlv.play.answer_own", name=player["name"])
    check_has_card(state, player)
    return act


def check_aborter(state: dict, player: dict) -> dict:
    act = _answerable(state, player)
    if act["act"] == "abortion":
        raise IllegalEvent("gjdlv.play.nothing_to_abort")
    return act


def check_abort(state: dict, player: dict, card: str) -> None:
    """RULES §2 *Avortement*: the other black GM of the fecundating GM's rank; or the Jack's *Guilde
    du Cintre*, which aborts any fecundation being made."""
    act = check_aborter(state, player)
    check_unseen(state, card)
    check_abort_card(state["rules"], act, card)


def check_abort_card(rules: str, act: dict, card: str) -> None:
    """The card's own part of `check_abort`, against the fecundation ``act``."""
    if card != other_black(act["gm"]) and rank_of(card) != "J":
        code = "gjdlv.play.abort_card_or_jack" if rules == ABONDANTES else "gjdlv.play.abort_card"
        raise IllegalEvent(code, card=card, gm=act["gm"], other=other_black(act["gm"]))


def check_cancel(state: dict, player: dict, card: str) -> None:
    """RULES §2 imperial bonuses: the King's *Manif pour Tous* cancels an abortion, the Queen's
    *Amour Maternel* a surrogacy."""
    act = _answerable(state, player)
    check_unseen(state, card)
    check_cancel_card(act, card)


def check_cancel_card(act: dict, card: str) -> None:
    """The card's own part of `check_cancel`, against the answered ``act``."""
    facts = {"card": card, "against": act["act"]}
    if rank_of(card) == "K":
        if act["act"] != "abortion":
            raise IllegalEvent("gjdlv.check.bonus_king_only_abortion", **facts)
    elif rank_of(card) == "Q":
        if act["act"] != "surrogacy":
            raise IllegalEvent("gjdlv.check.bonus_queen_only_surrogacy", **facts)
    else:
        raise IllegalEvent("gjdlv.play.cancel_card", **facts)


def check_remover(state: dict, player: dict) -> None:
    """RULES §2 royal births: the Jack newborn removes an opponent's embryo, at its birth only."""
    if (state["play"]["removal"] or {}).get("player") != player["id"]:
        raise IllegalEvent("gjdlv.play.no_removal", player=player["name"])


def check_removal(state: dict, player: dict, victim: dict) -> None:
    check_remover(state, player)
    if victim is player:
        raise IllegalEvent("gjdlv.play.remove_own")
    if _seat(state, victim)["uterus"] is None:
        raise IllegalEvent("gjdlv.play.no_embryo", victim=victim["name"])


def check_close(state: dict) -> None:
    if state["play"]["phase"] != "ended":
        raise IllegalEvent("gjdlv.play.round_goes_on")


# --- moving the round on ------------------------------------------------------------------------------


def _step(state: dict) -> None:
    """Every event but an answer closes the chain and ends a royal birth's chance (now or never)."""
    state["play"]["open"] = []
    state["play"]["removal"] = None
    state["take"] = None


def _play_card(state: dict, player: dict) -> None:
    """A GM leaves ``player``'s hand; the very last one announces the last lap."""
    seat = _seat(state, player)
    seat["hand"] -= 1
    play = state["play"]
    if not seat["hand"] and play["last_lap"] is None:
        play["last_lap"] = player["id"]
        if player is _active(state) and play["phase"] == "ovulation":
            # An answer to the act just before the announcer's turn, whose phase 0 was made at once
            # (nothing in it) when that act ended the turn before: the answer belongs to the act's
            # moment, so that phase 0 is the first after the announcement, and it ends the round
            # (RULES.md §2 Decision), as a phase 0 with an embryo to birth would.
            play["phase"] = "ended"


def _start_turn(state: dict, seat_index: int) -> None:
    """Phase 0 of the player at ``seat_index``: waited for when there is something to birth or
    discard, else made at once."""
    play = state["play"]
    play["active"] = seat_index
    seat = play["seats"][seat_index]
    if seat["uterus"] or seat["held"]:
        play["phase"] = "birth"
    else:
        _after_birth(state)


def _after_birth(state: dict) -> None:
    state["play"]["phase"] = _after_phase_0(state)


def _after_phase_0(state: dict) -> str:
    """The phase the active player's phase 0 leads to: the ovulation, or the round's end for the
    announcer's phase 0 after the last card."""
    return "ended" if state["play"]["last_lap"] == _active(state)["id"] else "ovulation"


def phase_0_forced(state: dict) -> bool:
    """Whether the active player's phase 0 waits with nothing to choose: no GM held back to name, and
    no Queen or Jack coming to term (its take or removal is played right after its birth, or said
    lost), and it leads to an ovulation. The turn's next step, `ovulate`, may then be recorded in its
    place, and makes it first: a step with nothing to choose costs the referee no tap, and the phase
    0 still comes after the answers to the act before it. A `birth` stays accepted there, for the
    clients that send it. The announcer's last phase 0, which ends the round, keeps its own `birth`:
    the table sees the round's final scores before closing it."""
    play = state["play"]
    if play["phase"] != "birth" or _after_phase_0(state) != "ovulation":
        return False
    seat = play["seats"][play["active"]]
    embryo = seat["uterus"]
    royal = bool(embryo) and embryo["gm"] not in play["late"] and rank_of(embryo["gf"]) in ROYAL_EFFECTS
    return not seat["held"] and not royal


def _make_phase_0(state: dict) -> None:
    """The active player's phase 0, if it waits (with nothing to choose: `phase_0_forced`), made by
    the ovulation recorded in its place."""
    if state["play"]["phase"] == "birth":
        _phase_0(state, _active(state), None)


def _next_turn(state: dict) -> None:
    play = state["play"]
    play["gf"] = None
    _start_turn(state, (play["active"] + 1) % len(state["players"]))


def _after_action(state: dict) -> None:
    """The revealed GF was not fecundated: phase 3 if another player holds a GM back, else phase 4."""
    play = state["play"]
    if any(seat["held"] for i, seat in enumerate(play["seats"]) if i != play["active"]):
        play["phase"] = "ejaculation"
    else:
        _menstruation(state)


def _menstruation(state: dict) -> None:
    play = state["play"]
    play["diva_cup"].append(play["gf"])
    _next_turn(state)


# --- events ------------------------------------------------------------------------------------------


def _cards(state: dict, event: dict, field: str) -> list[str]:
    raw = event.get(field)
    if not isinstance(raw, list) or len(raw) > len(deck(state["rules"])["gm"]):
        raise InvalidEvent("gjdlv.play.bad_mouchoir")
    cards = [read_black(state["rules"], value, f"{field}.{i}") for i, value in enumerate(raw)]
    for i, card in enumerate(cards):
        if card in cards[:i]:
            raise InvalidEvent("gjdlv.duplicate_card", card=card)
    return cards


def deal(state: dict, event: dict) -> None:
    cards = _cards(state, event, "mouchoir")
    check_deal(state, cards)
    _step(state)
    play = state["play"]
    per, _ = share(state["rules"], len(state["players"]))
    play["mouchoir"] = sorted(cards, key=deck_order)
    for seat in play["seats"]:
        seat["hand"] = per
    _start_turn(state, play["active"])


def birth(state: dict, event: dict) -> None:
    player = find_player(state, event)
    held = read_gm(state["rules"], event, "held") if event.get("held") is not None else None
    check_birth(state, player, held)
    _step(state)
    _phase_0(state, player, held)


def _phase_0(state: dict, player: dict, held: str | None) -> None:
    """``player``'s phase 0: their embryo born (or, begun in the last lap by another than the
    announcer, gone), the GM held back in their urethra face up to the Mouchoir."""
    seat = _seat(state, player)
    embryo = seat["uterus"]
    if embryo and embryo["gm"] in state["play"]["late"]:
        # Begun during the last lap, it does not come to term: it leaves as a Jack's removal would.
        state["play"]["mouchoir"].append(embryo["gm"])
        state["play"]["diva_cup"].append(embryo["gf"])
        seat["uterus"] = None
    elif embryo:
        player["newborns"].append(embryo)
        seat["uterus"] = None
        rank = rank_of(embryo["gf"])
        if rank == "Q":
            state["take"] = {"player": player["id"]}
        elif rank == "J":
            state["play"]["removal"] = {"player": player["id"]}
    if held:
        seat["held"] = False
        state["play"]["mouchoir"].append(held)
    _after_birth(state)


def ovulate(state: dict, event: dict) -> None:
    player = find_player(state, event)
    gf = read_gf(state["rules"], event, "gf")
    check_ovulate(state, player, gf)
    _step(state)
    _make_phase_0(state)
    play = state["play"]
    play["gf"] = gf
    play["ovulation"] -= 1
    play["phase"] = "action"


def fecundate(state: dict, event: dict) -> None:
    player = find_player(state, event)
    gm = read_gm(state["rules"], event, "gm")
    check_fecundate(state, player, gm)
    _step(state)
    play = state["play"]
    _fecundation(state, player, play["gf"], gm)
    _play_card(state, player)
    _next_turn(state)


def _begun(state: dict, player: dict, gm: str) -> None:
    """An embryo begun during the last lap never comes to term, unless its player announced it."""
    announcer = state["play"]["last_lap"]
    if announcer is not None and announcer != player["id"]:
        state["play"]["late"].append(gm)


def _fecundation(state: dict, player: dict, gf: str, gm: str) -> None:
    _begun(state, player, gm)
    _seat(state, player)["uterus"] = {"gf": gf, "gm": gm}
    state["play"]["open"] = [{"act": "fecundation", "player": player["id"], "gf": gf, "gm": gm}]


def surrogate(state: dict, event: dict) -> None:
    player = find_player(state, event)
    victim = find_player(state, event, "from")
    gm = read_gm(state["rules"], event, "gm")
    check_surrogate(state, player, victim, gm)
    _step(state)
    embryo = _seat(state, victim)["uterus"]
    _seat(state, victim)["uterus"] = None
    _seat(state, player)["uterus"] = {"gf": embryo["gf"], "gm": gm}
    _begun(state, player, gm)
    state["play"]["mouchoir"].append(embryo["gm"])
    state["play"]["open"] = [
        {
            "act": "surrogacy",
            "player": player["id"],
            "from": victim["id"],
            "gf": embryo["gf"],
            "gm": gm,
            "replaced": embryo["gm"],
        }
    ]
    _play_card(state, player)
    _after_action(state)


def hold(state: dict, event: dict) -> None:
    player = find_player(state, event)
    check_hold(state, player)
    _step(state)
    _seat(state, player)["held"] = True
    _play_card(state, player)
    _after_action(state)


def pass_turn(state: dict, event: dict) -> None:
    player = find_player(state, event)
    check_pass(state, player)
    _step(state)
    _after_action(state)


def contest_gms(state: dict, event: dict) -> dict[str, str]:
    """The GMs a referee's ``ejaculate`` settles the contest with: every holder's own answer recorded
    (`contest_answer`) and the ones ``gms`` names for the holders who have not answered."""
    check_phase(state, "ejaculation")
    raw = event.get("gms")
    if not isinstance(raw, dict) or len(raw) > len(state["players"]):
        raise InvalidEvent("gjdlv.bad_gms")
    answered = state["play"].get("contest") or {}
    gms = {pid: gm for pid, gm in answered.items() if gm is not None}
    for key, value in raw.items():
        player = find_player(state, {"gms": key}, "gms")
        gm = read_black(state["rules"], value, f"gms.{short(key)}")
        check_ejaculation(state, player, gm)
        if gm in gms.values():
            raise InvalidEvent("gjdlv.duplicate_card", card=gm)
        gms[player["id"]] = gm
    return gms


def ejaculate(state: dict, event: dict) -> None:
    _settle(state, contest_gms(state, event))


def contest_answer(state: dict, event: dict) -> None:
    """One holder's own answer to the contest; the last holder's settles it."""
    player = find_player(state, event)
    gm = read_gm(state["rules"], event, "gm") if event.get("gm") is not None else None
    check_contest_answer(state, player, gm)
    play = state["play"]
    answers = play["contest"] = {**(play.get("contest") or {}), player["id"]: gm}
    if gm is not None:  # out of the urethra, face up in the contest
        _seat(state, player)["held"] = False
    if all(p["id"] in answers for p in holders(state)):
        _settle(state, {pid: card for pid, card in answers.items() if card is not None})


def _settle(state: dict, gms: dict[str, str]) -> None:
    """The contest on the GF left, between ``gms`` (player id -> GM): its winner fecundates, the
    other GMs go to the Mouchoir; with no winner, menstruation."""
    _step(state)
    play = state["play"]
    play["contest"] = None
    gf = play["gf"]
    _, winner, _, _ = contest(gf, gms)
    for pid, gm in gms.items():
        _seat(state, _player(state, pid))["held"] = False
        if pid != winner:
            play["mouchoir"].append(gm)
    if winner is None:
        _menstruation(state)
        return
    _fecundation(state, _player(state, winner), gf, gms[winner])
    _next_turn(state)


def abort(state: dict, event: dict) -> None:
    player = find_player(state, event)
    card = read_gm(state["rules"], event, "gm")
    check_abort(state, player, card)
    act = state["play"]["open"][-1]
    owner = _player(state, act["player"])
    _seat(state, owner)["uterus"] = None
    _emptied(state, owner)
    _seat(state, player)["formol"] += [act["gf"], act["gm"], card]
    player["abortions"] += 1
    state["play"]["open"].append(
        {
            "act": "abortion",
            "player": player["id"],
            "card": card,
            "owner": owner["id"],
            "gf": act["gf"],
            "gm": act["gm"],
        }
    )
    _play_card(state, player)


def cancel(state: dict, event: dict) -> None:
    player = find_player(state, event)
    card = read_gm(state["rules"], event, "card")
    check_cancel(state, player, card)
    play = state["play"]
    act = play["open"].pop()
    if act["act"] == "abortion":
        # Manif pour Tous: the aborting GM and the King to the Mouchoir, the embryo back, no points.
        aborter = _player(state, act["player"])
        del _seat(state, aborter)["formol"][-3:]
        aborter["abortions"] -= 1
        _seat(state, _player(state, act["owner"]))["uterus"] = {"gf": act["gf"], "gm": act["gm"]}
        _restored(state, _player(state, act["owner"]))
        play["mouchoir"] += [act["card"], card]
    else:
        # Amour Maternel: the surrogating GM and the Queen to the Mouchoir, the embryo intact with its owner.
        _seat(state, _player(state, act["player"]))["uterus"] = None
        _seat(state, _player(state, act["from"]))["uterus"] = {"gf": act["gf"], "gm": act["replaced"]}
        _restored(state, _player(state, act["from"]))
        play["mouchoir"].remove(act["replaced"])
        play["mouchoir"] += [act["gm"], card]
    _play_card(state, player)


def _restored(state: dict, owner: dict) -> None:
    """An embryo given back to the active player, whose phase 0 was made at once when the act came
    (their uterus was empty then): the answer belongs to that act's moment, so the phase 0 waits."""
    play = state["play"]
    if owner is _active(state) and play["phase"] in ("ovulation", "action", "ended"):
        play["phase"] = "birth"


def _emptied(state: dict, owner: dict) -> None:
    """An embryo taken from the active player while their phase 0 waits for its birth (a fécondation
    express aborted): with nothing left to birth or discard, that phase 0 is made at once, as
    `_start_turn` makes an empty one (and `_restored` waits again if a King gives the embryo back)."""
    seat = _seat(state, owner)
    if owner is _active(state) and state["play"]["phase"] == "birth" and not seat["held"]:
        _after_birth(state)


def remove_embryo(state: dict, event: dict) -> None:
    player = find_player(state, event)
    victim = find_player(state, event, "from")
    check_removal(state, player, victim)
    _step(state)
    seat = _seat(state, victim)
    state["play"]["mouchoir"].append(seat["uterus"]["gm"])
    state["play"]["diva_cup"].append(seat["uterus"]["gf"])
    seat["uterus"] = None


EVENTS = {
    "deal": deal,
    "birth": birth,
    "ovulate": ovulate,
    "fecundate": fecundate,
    "surrogate": surrogate,
    "hold": hold,
    "pass": pass_turn,
    "ejaculate": ejaculate,
    "contest_answer": contest_answer,
    "abort": abort,
    "cancel": cancel,
    "remove_embryo": remove_embryo,
}
# The plays a player records themselves from their own phone, each with the field naming the player
# who acts (RULES.md §0): the active player's turn (phase 0's birth, the ovulation, fecundating,
# surrogating, holding back, passing), the answering player's abortion or bonus, the Jack
# newborn's owner's removal, each holder's own answer to phase 3's contest. The deal and the
# contest's close (``ejaculate``) are the referee's: no one player acts in them.
PLAYER_MOVES = {
    "birth": "player",
    "ovulate": "player",
    "fecundate": "player",
    "surrogate": "player",
    "hold": "player",
    "pass": "player",
    "abort": "player",
    "cancel": "player",
    "remove_embryo": "player",
    "contest_answer": "player",
}
ACTING = Field("player", "player", doc="the player who acts")
FIELDS = {
    "deal": specs(
        Field(
            "mouchoir",
            "list",
            high=len(deck(ABONDANTES)["gm"]),
            items=Field("gm", "card"),
            doc="the GM left face up (exactly `play.deal.mouchoir` of them)",
        )
    ),
    "birth": specs(
        ACTING,
        Field(
            "held",
            "card",
            required=False,
            nullable=True,
            doc="the GM held back, revealed on its way to the Mouchoir (only when one is held)",
        ),
    ),
    "ovulate": specs(ACTING, Field("gf", "card", doc="the revealed GF")),
    "fecundate": specs(ACTING, Field("gm", "card", doc="the GM played on the GF")),
    "surrogate": specs(
        ACTING,
        Field("from", "player", doc="the player whose embryo is taken"),
        Field("gm", "card", doc="the GM played"),
    ),
    "hold": specs(ACTING),
    "pass": specs(ACTING),
    "ejaculate": specs(
        Field(
            "gms",
            "map",
            high=PLAYERS,
            items=Field("gm", "card"),
            doc="the GM each player holding back ejaculates (`{}`: nobody)",
        )
    ),
    "contest_answer": specs(
        Field("player", "player", doc="a player holding back"),
        Field(
            "gm",
            "card",
            required=False,
            nullable=True,
            doc="the GM they ejaculate (left out or null: they keep holding back)",
        ),
    ),
    "abort": specs(
        ACTING,
        Field("gm", "card", doc="the other black card of the fecundating GM's rank, or a Jack"),
    ),
    "cancel": specs(
        ACTING,
        Field("card", "card", doc="a King against an abortion, a Queen against a surrogacy"),
    ),
    "remove_embryo": specs(
        ACTING,
        Field("from", "player", doc="the player whose embryo a Jack newborn removes"),
    ),
}


# --- what may be played now, and with which cards ----------------------------------------------------


def choices(state: dict) -> list[dict]:
    """Each event the rules allow now, by whom, with the cards still possible for the field the
    table supplies (``{"action", "field", "cards"}``; the contest's ``cards`` maps each player who may
    ejaculate to theirs). An action that no possible card makes legal is not listed."""
    play = state["play"]
    players = state["players"]
    active = _active(state)
    free = unseen(state)
    listed: list[dict] = []

    def offer(action: dict, field: str | None, cards) -> None:
        if field is None or cards:
            listed.append({"action": action, "field": field, "cards": cards})

    def cards_for(check_card, *args) -> list[str]:
        # Asked once the player's own checks have passed, of cards unseen by construction: the
        # card's own rule is all that is left of the event's check.
        return [card for card in free["gm"] if allowed(check_card, *args, card)]

    phase = play["phase"]
    if phase == "deal":
        offer({"type": "deal"}, "mouchoir", free["gm"])
    elif phase == "birth":
        if _seat(state, active)["held"]:
            offer({"type": "birth", "player": active["id"]}, "held", free["gm"])
        else:
            offer({"type": "birth", "player": active["id"]}, None, None)
        if phase_0_forced(state):  # the ovulation, recorded in its place, makes it first
            offer({"type": "ovulate", "player": active["id"]}, "gf", free["gf"])
    elif phase == "ovulation":
        offer({"type": "ovulate", "player": active["id"]}, "gf", free["gf"])
    elif phase == "action":
        if allowed(check_card_player, state, active):
            fecundate = {"type": "fecundate", "player": active["id"]}
            offer(fecundate, "gm", cards_for(check_fecundation, play["gf"]))
        for victim in players:
            if allowed(check_surrogate_target, state, active, victim):
                action = {"type": "surrogate", "player": active["id"], "from": victim["id"]}
                offer(action, "gm", cards_for(check_surrogacy, _seat(state, victim)["uterus"]))
        if allowed(check_hold, state, active):
            offer({"type": "hold", "player": active["id"]}, None, None)
        if allowed(check_pass, state, active):
            offer({"type": "pass", "player": active["id"]}, None, None)
    elif phase == "ejaculation":
        answered = play.get("contest") or {}
        waiting = [p for p in holders(state) if p["id"] not in answered]
        cards = cards_for(check_fecundation, play["gf"])  # the same for every holder: the GF's
        may = {p["id"]: list(cards) for p in waiting}
        listed.append({"action": {"type": "ejaculate"}, "field": "gms", "cards": may})
        for holder in waiting:  # each holder's own answer: a GM of these, or none (``gm`` left out)
            action = {"type": "contest_answer", "player": holder["id"]}
            listed.append({"action": action, "field": "gm", "cards": list(cards)})
    else:
        offer({"type": "close_round"}, None, None)
    for player in players:
        if allowed(check_remover, state, player):
            for victim in players:
                if allowed(check_removal, state, player, victim):
                    offer({"type": "remove_embryo", "player": player["id"], "from": victim["id"]}, None, None)
    for player in players:
        if not allowed(_answerable, state, player):
            continue
        act = _answerable(state, player)
        if allowed(check_aborter, state, player):
            abort = {"type": "abort", "player": player["id"]}
            offer(abort, "gm", cards_for(check_abort_card, state["rules"], act))
        offer({"type": "cancel", "player": player["id"]}, "card", cards_for(check_cancel_card, act))
    return listed


def comes_to_term(state: dict, seat_index: int) -> bool:
    """Whether the embryo in this seat's uterus will be born this round: its owner's phase 0 comes
    before the round ends (the announcer's phase 0 after the last card ends it, their own embryo
    born)."""
    play = state["play"]
    if play["phase"] == "ended" or play["seats"][seat_index]["uterus"]["gm"] in play["late"]:
        return False
    announcer = play["last_lap"]
    if announcer is None:
        return True
    count = len(state["players"])
    # The seats whose phase 0 is still to come, in order: the active one's own if it is waited for.
    start = play["active"] if play["phase"] == "birth" else play["active"] + 1
    order = [(start + offset) % count for offset in range(count)]
    last = next(i for i, p in enumerate(state["players"]) if p["id"] == announcer)
    return order.index(seat_index) <= order.index(last)


def view(state: dict) -> dict:
    """The round on the table: the phase and what it expects, the piles, the chain an answer may
    target, each seat, the cards still possible and the choices of each legal play."""
    play = state["play"]
    active = _active(state)
    per, left = share(state["rules"], len(state["players"]))
    free = unseen(state)
    return {
        "phase": play["phase"],
        "active": active["id"],
        "step": {
            "code": f"gjdlv.play.expect.{play['phase']}",
            "params": {"name": active["name"], "gf": play["gf"]},
        },
        "gf": play["gf"],
        "ovulation": play["ovulation"],
        "mouchoir": list(play["mouchoir"]),
        "diva_cup": list(play["diva_cup"]),
        "open": [dict(act) for act in play["open"]],
        "last_lap": play["last_lap"],
        "removal": dict(play["removal"]) if _removal_open(state) else None,
        # The holders' own answers to the contest so far: each one's GM, or None (holds on).
        "contest": dict(play.get("contest") or {}),
        "deal": {"per_player": per, "mouchoir": left},
        "unseen": free,
        "hidden": sum(seat["hand"] + seat["held"] for seat in play["seats"]),
        "seats": [
            {
                "player": player["id"],
                "hand": seat["hand"],
                "held": seat["held"],
                "uterus": _embryo_view(state, i, seat["uterus"]),
                "formol": list(seat["formol"]),
            }
            for i, (player, seat) in enumerate(zip(state["players"], play["seats"], strict=True))
        ],
        "choices": choices(state),
    }


def _embryo_view(state: dict, seat_index: int, embryo: dict | None) -> dict | None:
    if embryo is None:
        return None
    eg = genetic_gap(embryo["gf"], embryo["gm"])
    return {
        "gf": embryo["gf"],
        "gm": embryo["gm"],
        "eg": eg,
        "cc": eg == 0,
        "royal": rank_of(embryo["gf"]) if is_face(embryo["gf"]) else None,
        "comes_to_term": comes_to_term(state, seat_index),
    }


def notes(state: dict) -> list[tuple[str, dict]]:
    play = state["play"]
    found = []
    if play["phase"] == "ended":
        found.append(("gjdlv.play.round_ended", {}))
    elif play["last_lap"]:
        announcer = _player(state, play["last_lap"])
        found.append(("gjdlv.play.last_lap", {"player": announcer["id"], "name": announcer["name"]}))
    if play["removal"]:
        owner = _player(state, play["removal"]["player"])
        code = "gjdlv.play.removal" if _removal_open(state) else "gjdlv.play.removal_nothing"
        found.append((code, {"player": owner["id"], "name": owner["name"]}))
    return found


def _removal_open(state: dict) -> bool:
    """Whether a Jack newborn's removal may be recorded now: one is pending and an opponent has an
    embryo to remove (else it is lost, and only the note says so)."""
    removal = state["play"]["removal"]
    if removal is None:
        return False
    owner = _player(state, removal["player"])
    return any(allowed(check_removal, state, owner, victim) for victim in state["players"])
