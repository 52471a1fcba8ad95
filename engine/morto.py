"""Il Morto: lives, the rotating dealer, the reveal, the dead and the living (RULES.md §3).

State (plain JSON)::

    {"lives": 3, "dealer": "p1", "round": 1, "winners": None | [ids],
     "players": [{"id", "name", "lives", "dealt"}]}

``players`` is in seating order, which is the order of play: turns go to the dealer's right,
the next seat, and the dealer plays last. ``dealt`` says whether a player holds a card in the
open round: every living player at the start of a round, not a player revived during it nor
one who died in it. ``winners`` is set only when the last living players all die in one reveal.
"""

from __future__ import annotations

import operator

from engine.core import (
    IllegalEvent,
    InvalidEvent,
    Outcome,
    RuleError,
    allowed,
    find_player,
    isolate,
    player_id,
    player_names,
    short,
)
from engine.specs import Field, Option, option_value, read_options, specs

ID = "morto"

MIN_PLAYERS, MAX_PLAYERS = 3, 20
USUAL_PLAYERS = 6  # the text's "de 6 à 12 environ": a new-table form starts with six rows
RANKS = {1: "Asso", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "Fante", 9: "Cavallo", 10: "Re"}
CAVALLO, RE = 9, 10
COPIES_PER_RANK = 4

OPTIONS = specs(
    # The referee's choice, 3 usually (RULES.md §3).
    Option("lives", "int", 1, 9, default=3, doc="each player's lives at the start"),
    Option("dealer", "seat", default=0, doc="the seat of the first round's dealer"),
)


# --- setup ---------------------------------------------------------------------------------------


# A player given as an object: any other field is refused (``unknown_field``).
PLAYER_FIELDS = specs(Field("name", "name", doc="the player's name"))


def setup(players: list, options: dict) -> dict:
    names = player_names(players, MIN_PLAYERS, MAX_PLAYERS)
    chosen = read_options(OPTIONS, options, len(names))
    lives, dealer = chosen["lives"], chosen["dealer"]
    return {
        "lives": lives,
        "round": 1,
        "dealer": player_id(dealer),
        "winners": None,
        "players": [
            {"id": player_id(i), "name": name, "lives": lives, "dealt": True} for i, name in enumerate(names)
        ],
    }


def rematch(players: list, options: dict, state: dict) -> tuple[list, dict]:
    """The next game at the same table: every player back in their seat with the same lives, and the
    first deal one seat on from this game's, as the deal passes from round to round: over an
    evening of rematches each seat deals first in turn."""
    names = [p["name"] for p in state["players"]]
    first = option_value(OPTIONS["dealer"], options, len(names))
    return names, {**options, "dealer": (first + 1) % len(names)}


# --- reading the state ---------------------------------------------------------------------------


def _alive(player: dict) -> bool:
    return player["lives"] > 0


def _by_id(state: dict, pid: str) -> dict:
    return next(p for p in state["players"] if p["id"] == pid)


def _holding(state: dict) -> set[str]:
    """The ids of the players holding a card this round: `play_order`'s, as a set."""
    return {p["id"] for p in state["players"] if p["dealt"] and p["lives"] > 0}


def play_order(state: dict) -> list[dict]:
    """The players holding a card this round, from who plays first to the dealer, who plays last."""
    players = state["players"]
    dealer = state["dealer"]
    start = [p["id"] for p in players].index(dealer) + 1
    # The seats after the dealer's, then the dealer's own (who plays last).
    return [p for p in players[start:] + players[:start] if p["dealt"] and p["lives"] > 0]


def _names(players: list[dict]) -> str:
    return ", ".join(isolate(p["name"]) for p in players)


# --- the rules' checks: each called by its event's handler and by `actions` -------------------------


def check_touched_early(state: dict, player: dict) -> None:
    """Only a living player holding a card, not the dealer, pays for touching before the knock."""
    if not _alive(player):
        raise IllegalEvent("morto.dead_cannot_touch", player=player["id"], name=player["name"])
    if player["id"] == state["dealer"]:
        raise IllegalEvent("morto.dealer_may_touch", player=player["id"], name=player["name"])
    if not player["dealt"]:
        raise IllegalEvent("morto.not_dealt", player=player["id"], name=player["name"])


def check_spoke_to_dead(state: dict, living: dict, dead: dict) -> None:
    """A living player other than the dealer gives a life for speaking to a dead one."""
    if living["id"] == dead["id"]:
        raise IllegalEvent("morto.same_player", player=living["id"], name=living["name"])
    if not _alive(living):
        raise IllegalEvent("morto.speaker_is_dead", player=living["id"], name=living["name"])
    if _alive(dead):
        raise IllegalEvent("morto.listener_is_alive", player=dead["id"], name=dead["name"])
    if living["id"] == state["dealer"]:
        raise IllegalEvent("morto.dealer_may_speak", player=living["id"], name=living["name"])


def check_reveal(state: dict, cards) -> dict[str, int]:
    """One known rank for every living player dealt in and no one else, at most four of a rank."""
    holding = _holding(state)
    # The usual reveal passes every check but the count at once: a plain int rank 1..10 for every
    # holder and nobody else. Anything else is read entry by entry, the first fault named.
    if not (
        isinstance(cards, dict)
        and len(cards) == len(holding)
        and holding.issuperset(cards)
        and set(map(type, cards.values())) <= _INT
        and _RANK_SET.issuperset(cards.values())
    ):
        cards = _read_cards(state, cards)
        if not holding.issuperset(cards):
            players = {p["id"]: p for p in state["players"]}
            extra = [players[pid] for pid in cards if pid not in holding]
            raise IllegalEvent(
                "morto.card_not_dealt",
                players=[p["id"] for p in extra],
                names=_names(extra),
                count=len(extra),
            )
        if len(cards) < len(holding):  # every card is a holder's: some holder has none
            missing = [p for p in play_order(state) if p["id"] not in cards]
            raise IllegalEvent(
                "morto.missing_cards", players=[p["id"] for p in missing], names=_names(missing)
            )
    _check_rank_counts(cards)
    return cards


_RANK_SET, _INT = frozenset(RANKS), frozenset({int})


def _read_cards(state: dict, cards) -> dict[str, int]:
    """``{player id: rank}`` with known players and ranks 1..10 (any subset of the table)."""
    # One card per player, and no table seats more than MAX_PLAYERS: a larger object is refused at
    # once, before any entry is read (below, the first unknown player stops the reading too).
    if not isinstance(cards, dict) or len(cards) > MAX_PLAYERS:
        raise InvalidEvent("morto.bad_cards")
    players = {p["id"]: p for p in state["players"]}
    for pid, rank in cards.items():
        if pid not in players:
            raise InvalidEvent("unknown_player", player=short(pid), field="cards")
        if isinstance(rank, bool) or not isinstance(rank, int) or rank not in RANKS:
            raise InvalidEvent("morto.bad_rank", player=pid, name=players[pid]["name"], value=short(rank))
    return cards


def _check_rank_counts(cards: dict[str, int]) -> None:
    ranks = sorted(cards.values())
    # Sorted, a rank held more than four times equals the rank four places after it; the first such
    # is the lowest rank over the count, the one named.
    over = list(map(operator.eq, ranks, ranks[COPIES_PER_RANK:]))
    if True in over:
        rank = ranks[over.index(True)]
        count = ranks.count(rank)
        raise IllegalEvent("morto.too_many_of_rank", rank=rank, rank_name=RANKS[rank], count=count)


def check_lowest(state: dict, lowest) -> list[str]:
    """The quick reveal: 1 to 4 players holding a card this round, each named once (a rank has four
    cards). The table says who holds the lowest card; the app cannot check cards it was not told."""
    # At most one name per seat is read: a longer list is refused before any entry is looked at.
    if not isinstance(lowest, list) or not 1 <= len(lowest) <= MAX_PLAYERS:
        raise InvalidEvent("morto.bad_lowest")
    players = {p["id"]: p for p in state["players"]}
    for pid in lowest:
        if not isinstance(pid, str) or pid not in players:
            raise InvalidEvent("unknown_player", player=short(pid), field="lowest")
    for i, pid in enumerate(lowest):
        if pid in lowest[:i]:
            raise InvalidEvent("morto.named_twice", player=pid, name=players[pid]["name"])
    holding = _holding(state)
    extra = [players[pid] for pid in lowest if pid not in holding]
    if extra:
        raise IllegalEvent(
            "morto.card_not_dealt", players=[p["id"] for p in extra], names=_names(extra), count=len(extra)
        )
    if len(lowest) > COPIES_PER_RANK:
        raise IllegalEvent("morto.too_many_lowest", count=len(lowest))
    return lowest


def losers(cards: dict[str, int]) -> list[str]:
    """Every holder of the lowest rank revealed loses a life."""
    if not cards:
        return []
    lowest = min(cards.values())
    return [pid for pid, rank in cards.items() if rank == lowest]


# --- events ----------------------------------------------------------------------------------------


def _lose_life(player: dict) -> None:
    """A life lost; at 0 the player dies at once and any card they held is discarded."""
    player["lives"] -= 1
    if player["lives"] == 0:
        player["dealt"] = False


def touched_early(state: dict, event: dict) -> None:
    player = find_player(state, event)
    check_touched_early(state, player)
    _lose_life(player)


def spoke_to_dead(state: dict, event: dict) -> None:
    living = find_player(state, event, "living")
    dead = find_player(state, event, "dead")
    check_spoke_to_dead(state, living, dead)
    _lose_life(living)
    dead["lives"] += 1  # back to life, but dealt in only from the next round: "dealt" stays False


def revealed_losers(state: dict, event: dict) -> list[str]:
    """Who loses a life in a reveal: the holders of the lowest rank of ``cards`` (every card given),
    or the players ``lowest`` names (the quick reveal). An event carries one of the two."""
    if ("cards" in event) == ("lowest" in event):
        raise InvalidEvent("morto.cards_or_lowest")
    if "lowest" in event:
        return check_lowest(state, event["lowest"])
    return losers(check_reveal(state, event["cards"]))


def reveal(state: dict, event: dict) -> None:
    """Every loser loses a life, then the round ends the same way whichever kind of reveal it was."""
    losing_ids = revealed_losers(state, event)
    players = state["players"]
    ids = [p["id"] for p in players]
    for pid in losing_ids:
        _lose_life(players[ids.index(pid)])
    alive = [p["lives"] > 0 for p in players]
    living = alive.count(True)
    if not living:
        # Decision (RULES §3): the last living players who die together share the win (in seat order).
        state["winners"] = [pid for pid in ids if pid in losing_ids]
        return
    if living == 1:
        return  # the game is over: outcome() names the last one alive
    seat = ids.index(state["dealer"])
    while True:  # the next living seat deals (two are alive: one is not the dealer)
        seat = (seat + 1) % len(players)
        if alive[seat]:
            break
    state["dealer"] = players[seat]["id"]
    state["round"] += 1
    for player, dealt in zip(players, alive, strict=True):
        player["dealt"] = dealt


EVENTS = {"touched_early": touched_early, "spoke_to_dead": spoke_to_dead, "reveal": reveal}
# Every field each event may carry (besides ``type``): any other is refused (``unknown_field``).
# A reveal carries one of ``cards`` and ``lowest`` (``morto.cards_or_lowest``).
FIELDS = {
    "touched_early": specs(Field("player", "player", doc="who touched their card before the dealer knocked")),
    "spoke_to_dead": specs(
        Field("living", "player", doc="the living player who spoke, and loses a life"),
        Field("dead", "player", doc="the dead player spoken to, who gains it"),
    ),
    "reveal": specs(
        Field(
            "cards",
            "map",
            high=MAX_PLAYERS,
            items=Field("rank", "int", min(RANKS), max(RANKS)),
            required=False,
            doc="each dealt player's rank: 1 Asso … 7, 8 Fante, 9 Cavallo, 10 Re",
        ),
        Field(
            "lowest",
            "list",
            1,
            COPIES_PER_RANK,
            items=Field("player", "player"),
            unique=True,
            required=False,
            doc="the quick reveal: who holds the lowest card, players of `play_order`",
        ),
    ),
}

# Il Morto's outcomes (a touch, a word to the dead, the reveal) are called by the table, not
# confessed (RULES.md §0): the referee records every one, and a player's phone only shows the table.
PLAYER_MOVES: dict[str, str] = {}


def player_moves(options: dict) -> dict[str, str]:
    return PLAYER_MOVES


# The fields holding text the table supplies: shown whole (``hidden_character``).
TEXTS = {}  # no event carries the table's own text: names are given at setup


def actions(state: dict, view: dict | None = None) -> list[dict]:
    """What may be recorded now: touches, words to the dead (each pair), and the reveal."""
    players = state["players"]
    listed = [
        {"type": "touched_early", "player": p["id"]}
        for p in players
        if allowed(check_touched_early, state, p)
    ]
    # Only a living player may speak to a dead one: the pairs the check could allow, each asked of it.
    the_dead = [p for p in players if not _alive(p)]
    listed += [
        {"type": "spoke_to_dead", "living": living["id"], "dead": dead["id"]}
        for living in players
        if _alive(living)
        for dead in the_dead
        if allowed(check_spoke_to_dead, state, living, dead)
    ]
    # The dealer always holds a card while the game goes on. The table supplies ``cards`` (one for
    # each of ``play_order``) or ``lowest`` (1 to 4 of them): one action stands for both.
    listed.append({"type": "reveal"})
    return listed


# --- the end and the view ---------------------------------------------------------------------------


def outcome(state: dict) -> Outcome | None:
    if state["winners"] is not None:
        winners = [_by_id(state, pid) for pid in state["winners"]]
        return Outcome(tuple(state["winners"]), "morto.shared_win", {"names": _names(winners)})
    living = [p for p in state["players"] if p["lives"] > 0]
    if len(living) <= 1:
        return Outcome(tuple(p["id"] for p in living), "morto.won", {"names": _names(living)})
    return None


def view(state: dict) -> dict:
    over = outcome(state) is not None
    order = [] if over else play_order(state)
    return {
        "round": state["round"],
        "lives": state["lives"],
        "ranks": [{"rank": rank, "name": name} for rank, name in RANKS.items()],
        "face_up_ranks": [CAVALLO, RE],
        "dealer": state["dealer"],
        "plays_first": order[0]["id"] if order else None,
        "play_order": [p["id"] for p in order],
        "players": [
            {
                "id": p["id"],
                "name": p["name"],
                "lives": p["lives"],
                "alive": _alive(p),
                "dealt": p["dealt"] and _alive(p) and not over,
                "dealer": p["id"] == state["dealer"],
            }
            for p in state["players"]
        ],
    }


def summary(state: dict) -> tuple[str, dict]:
    """The table in one line, for a list of tables (the game still going on)."""
    dealer = next(p for p in state["players"] if p["id"] == state["dealer"])
    alive = sum(_alive(p) for p in state["players"])
    return "morto.summary", {"round": state["round"], "dealer": dealer["name"], "alive": alive}


# --- the swap helper (no state change) -------------------------------------------------------------


def swap_options(state: dict, face_up: dict) -> list[dict]:
    """What each player may do at their turn, given the face-up Cavalli (9) and Re (10).

    Walks the play order: a player whose own card is face up keeps it; otherwise they look at
    the next player, skip past a chain of face-up Cavalli, and are blocked by a face-up Re;
    with nobody left (the dealer, or a chain that runs past the dealer) they may take the deck.
    """
    if not isinstance(face_up, dict) or len(face_up) > MAX_PLAYERS:
        raise InvalidEvent("morto.bad_cards")
    order = play_order(state)
    holders = {p["id"] for p in order}
    for pid, rank in face_up.items():
        if pid not in holders:
            raise InvalidEvent("unknown_player", player=short(pid), field="face_up")
        if isinstance(rank, bool) or not isinstance(rank, int) or rank not in (CAVALLO, RE):
            raise InvalidEvent("morto.bad_face_up", player=pid, value=short(rank))
    answers = []
    for i, player in enumerate(order):
        answer = {"player": player["id"], "may_swap": False, "with": None}
        if player["id"] in face_up:
            answer["code"] = "morto.swap.own_face_up"
        else:
            j = i + 1
            while j < len(order) and face_up.get(order[j]["id"]) == CAVALLO:
                j += 1
            if j == len(order):
                answer.update(may_swap=True, code="morto.swap.deck", **{"with": "deck"})
            elif face_up.get(order[j]["id"]) == RE:
                answer["code"] = "morto.swap.blocked_by_re"
            else:
                code = "morto.swap.next" if j == i + 1 else "morto.swap.past_cavalli"
                answer.update(may_swap=True, code=code, **{"with": order[j]["id"]})
                answer["target_name"] = order[j]["name"]
        answers.append(answer)
    return answers


def swap_check(state: dict, params: dict) -> dict:
    """The swap helper: ``{"face_up": {player id: 9 | 10}}`` -> what each player may do."""
    return {"ok": True, "turns": swap_options(state, params.get("face_up", {}))}


def reveal_check(state: dict, params: dict) -> dict:
    """A reveal being entered: ``{"cards": {player id: rank}}``, complete or not -> who holds the
    lowest card so far, who is still missing, and whether the reveal may be recorded as it is."""
    cards = _read_cards(state, params.get("cards", {}))
    order = play_order(state)
    missing = [p["id"] for p in order if p["id"] not in cards]
    try:
        check_reveal(state, cards)
        refusal = None
    except RuleError as error:
        refusal = {"code": error.code, "params": error.params}
    losing = losers(cards)
    dying = [pid for pid in losing if _by_id(state, pid)["lives"] == 1]
    return {
        "ok": refusal is None,
        "complete": not missing,
        "missing": missing,
        "losers": losing,
        "dying": dying,
        "refusal": refusal,
    }


CHECKS = {"swap": swap_check, "reveal": reveal_check}


# --- the story of the table ------------------------------------------------------------------------

MEASURE = ("morto.story.measure", {})
START = ("morto.story.start", {})
END = ("morto.story.end", {})


def describe(state: dict, event: dict) -> tuple[str, dict]:
    """What ``event`` does, in words, read from the state before it (`engine.core.story`)."""
    kind = event.get("type")
    if kind == "touched_early":
        player = find_player(state, event)
        return "morto.story.touched_early", {"player": player["id"], "name": player["name"]}
    if kind == "spoke_to_dead":
        living = find_player(state, event, "living")
        dead = find_player(state, event, "dead")
        return "morto.story.spoke_to_dead", {"living": living["name"], "dead": dead["name"]}
    if "lowest" in event:  # the quick reveal: no cards to show, only who had the lowest
        named = check_lowest(state, event["lowest"])
        losing = [p for p in state["players"] if p["id"] in named]
        params = {"round": state["round"], "names": _names(losing), "losers": [p["id"] for p in losing]}
        return ("morto.story.lowest" if len(losing) == 1 else "morto.story.lowest_several"), params
    cards = _read_cards(state, event.get("cards"))
    losing = [p for p in state["players"] if p["id"] in losers(cards)]
    shown = " · ".join(f"{isolate(_by_id(state, pid)['name'])} {RANKS[rank]}" for pid, rank in cards.items())
    params = {
        "round": state["round"],
        "cards": shown,
        "names": _names(losing),
        "losers": [p["id"] for p in losing],
    }
    return ("morto.story.reveal" if len(losing) == 1 else "morto.story.reveal_several"), params


def score(state: dict) -> dict[str, int]:
    """Each player's lives: the chart of the game."""
    return {p["id"]: p["lives"] for p in state["players"]}


def milestone(state: dict, event: dict) -> tuple[str, dict] | None:
    """A reveal ends a round: a point on the chart."""
    if event.get("type") == "reveal":
        return "morto.story.round", {"round": state["round"]}
    return None


# --- a waiting tap replayed after others (engine.core.rebase) -----------------------------------------


def meaning(state: dict, event: dict) -> dict:
    """What ``event`` means against ``state``: the round (and with it the dealer and who holds a
    card) and the lives of every player it takes a life from or gives one to. A touch another phone
    also recorded, a reveal of a round already revealed, a word to a dead player who came back: each
    changes one of them, and the tap is not replayed without asking."""
    kind = event.get("type")
    if kind == "touched_early":
        named = [find_player(state, event)]
    elif kind == "spoke_to_dead":
        named = [find_player(state, event, "living"), find_player(state, event, "dead")]
    else:  # a reveal: who loses a life in it
        lowest = event.get("lowest")
        losing = lowest if isinstance(lowest, list) else losers(_read_cards(state, event.get("cards")))
        named = [p for p in state["players"] if p["id"] in losing]
    return {"round": state["round"], "lives": {p["id"]: p["lives"] for p in named}}
