"""Le Grand Jeu de la Vie's cards and scoring (RULES.md §2), shared by the round score sheet
(`engine.gjdlv`) and the round played through (`engine.gjdlv_play`).

Owns the card notation (rank then suit: ``AS``, ``10H``, ``QD``), reading a card from an event, the
deck of each rule set, what may fecundate what, the genetic gap, and the scoring of a nursery.
Card input is read leniently (any case, ``1`` for the Ace, the suit symbols ♠♣♥♦) and always
returned in the canonical notation.
"""

from __future__ import annotations

from engine.core import IllegalEvent, InvalidEvent, short

SIMPLES, ABONDANTES = "simples", "abondantes"
RULES_CHOICES = (SIMPLES, ABONDANTES)
ROUNDS_CHOICES = (9, 5)  # à terme, prématurée

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
FACES = ("J", "Q", "K")
SUITS = ("S", "C", "H", "D")
RED, BLACK = ("H", "D"), ("S", "C")
SUIT_SYMBOLS = {"♠": "S", "♤": "S", "♣": "C", "♧": "C", "♥": "H", "♡": "H", "♦": "D", "♢": "D"}

POINTS_PER_ABORTION = 3  # an abortion puts 3 cards on the formol pile
NEWBORN_BASE = 5
CC_BASE = 6  # with c CC newborns, each is worth CC_BASE - c
ROYAL_POINTS = {"K": 10, "Q": 0, "J": 5}


# --- cards -------------------------------------------------------------------------------------------


def parse_card(value, field: str) -> str:
    """The canonical notation of a card (``"4s"``, ``"1♠"`` -> ``"4S"``, ``"AS"``); `InvalidEvent` else."""
    text = value.strip().upper().replace("\ufe0f", "") if isinstance(value, str) else ""
    if text[-1:] in SUIT_SYMBOLS:
        text = text[:-1] + SUIT_SYMBOLS[text[-1]]
    rank, suit = text[:-1], text[-1:]
    if rank == "1":
        rank = "A"
    if rank not in RANKS or suit not in SUITS:
        raise InvalidEvent("gjdlv.bad_card", field=field, value=short(value))
    return rank + suit


def rank_of(card: str) -> str:
    return card[:-1]


def suit_of(card: str) -> str:
    return card[-1]


def is_face(card: str) -> bool:
    return rank_of(card) in FACES


def value_of(card: str) -> int | None:
    """A number card's value (Ace 1); faces have none."""
    rank = rank_of(card)
    if rank in FACES:
        return None
    return 1 if rank == "A" else int(rank)


def deck_order(card: str) -> tuple[int, int]:
    return SUITS.index(suit_of(card)), RANKS.index(rank_of(card))


def rules_of(state) -> str:
    # A check may be asked with no table at all (a rules page): every card then exists.
    return state.get("rules", ABONDANTES) if isinstance(state, dict) else ABONDANTES


def check_rules_allow(rules: str, card: str) -> None:
    if is_face(card) and rules != ABONDANTES:
        raise IllegalEvent("gjdlv.faces_need_abondantes", card=card)


def read_gf(rules: str, source: dict, field: str) -> str:
    return read_red(rules, source.get(field), field)


def read_gm(rules: str, source: dict, field: str) -> str:
    return read_black(rules, source.get(field), field)


def read_red(rules: str, raw, field: str) -> str:
    card = parse_card(raw, field)
    if suit_of(card) not in RED:
        raise InvalidEvent("gjdlv.gf_must_be_red", card=card, field=field)
    check_rules_allow(rules, card)
    return card


def read_black(rules: str, raw, field: str) -> str:
    card = parse_card(raw, field)
    if suit_of(card) not in BLACK:
        raise InvalidEvent("gjdlv.gm_must_be_black", card=card, field=field)
    check_rules_allow(rules, card)
    return card


def may_fecundate(gf: str, gm: str) -> bool:
    """A royal GF takes any GM; a number GF only a number GM."""
    return is_face(gf) or not is_face(gm)


def check_fecundation(gf: str, gm: str) -> None:
    if not may_fecundate(gf, gm):
        raise IllegalEvent("gjdlv.imperial_needs_royal", gf=gf, gm=gm)


def genetic_gap(gf: str, gm: str) -> int | None:
    """EG = |GM − GF| for two number cards; ``None`` when a face is involved."""
    if is_face(gf) or is_face(gm):
        return None
    return abs(value_of(gm) - value_of(gf))


def deck(rules: str) -> dict[str, list[str]]:
    """The gametes in play under ``rules``, in deck order: the red GF and the black GM."""
    ranks = RANKS if rules == ABONDANTES else tuple(r for r in RANKS if r not in FACES)
    return {
        "gf": [rank + suit for suit in RED for rank in ranks],
        "gm": [rank + suit for suit in BLACK for rank in ranks],
    }


def other_black(card: str) -> str:
    return rank_of(card) + ("C" if suit_of(card) == "S" else "S")


# --- scoring -----------------------------------------------------------------------------------------


ROYAL_NAMES = {"K": "gjdlv.royal.K", "Q": "gjdlv.royal.Q", "J": "gjdlv.royal.J"}


def nursery(newborns: list[dict]) -> list[dict]:
    """Each newborn with its EG, CC flag and points, the consanguinity malus applied."""
    rows = []
    for newborn in newborns:
        gf, gm = newborn["gf"], newborn["gm"]
        royal = is_face(gf)
        eg = None if royal else genetic_gap(gf, gm)
        rank = rank_of(gf) if royal else None
        rows.append(
            {"gf": gf, "gm": gm, "eg": eg, "cc": eg == 0, "royal": rank, "name": ROYAL_NAMES.get(rank)}
        )
    cc_count = sum(row["cc"] for row in rows)
    for row in rows:
        if row["royal"]:
            row["points"] = ROYAL_POINTS[rank_of(row["gf"])]
        elif row["cc"]:
            row["points"] = cc_value(cc_count)
        else:
            row["points"] = NEWBORN_BASE + row["eg"]
    return rows


def cc_value(cc_count: int) -> int | None:
    """What each CC is worth when there are ``cc_count`` of them (RULES: linear, negative from the 7th)."""
    return CC_BASE - cc_count if cc_count >= 1 else None


def round_score(player: dict) -> int:
    """Formol plus nursery for the open round."""
    formol = POINTS_PER_ABORTION * player["abortions"]
    return formol + sum(row["points"] for row in nursery(player["newborns"]))


def contest(gf: str, gms: dict[str, str]) -> tuple[dict, str | None, list[str], list[str]]:
    """The held-back ejaculation contest on ``gf`` between ``gms`` (player id -> GM): every GM whose
    EG another shares is out (``tied``); of those left the lowest EG wins, the others are ``beaten``.
    Returns ``(egs, winner or None, tied, beaten)``, the lists sorted by player id."""
    egs = {pid: genetic_gap(gf, gm) for pid, gm in gms.items()}
    if is_face(gf) and len(gms) >= 2:
        # No EG on a Royal Ovum: every ejaculation ties with every other (RULES Decision).
        return egs, None, sorted(gms), []
    counts: dict = {}
    for eg in egs.values():
        counts[eg] = counts.get(eg, 0) + 1
    tied = sorted(pid for pid, eg in egs.items() if counts[eg] > 1)
    left = [pid for pid in gms if counts[egs[pid]] == 1]
    winner = min(left, key=lambda pid: egs[pid]) if left else None
    beaten = sorted(pid for pid in left if pid != winner)
    return egs, winner, tied, beaten
