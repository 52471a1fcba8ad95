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

from engine.core import IllegalEvent, InvalidEvent, Outcome, find_player, option_int, player_id, player_names

ID = "morto"

MIN_PLAYERS, MAX_PLAYERS = 3, 20
RANKS = {1: "Asso", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "Fante", 9: "Cavallo", 10: "Re"}
CAVALLO, RE = 9, 10
COPIES_PER_RANK = 4

MESSAGES = {
    "morto.dealer_may_touch": (
        "Le·a dealer a le droit de toucher les cartes avant d'avoir toqué.",
        "The dealer may touch the cards before knocking.",
    ),
    "morto.dead_cannot_touch": (
        "{name} est mort·e : les mort·es ne reçoivent pas de carte.",
        "{name} is dead: the dead are dealt no card.",
    ),
    "morto.not_dealt": (
        "{name} n'a pas de carte ce tour-ci (revenu·e à la vie pendant le tour, servi·e au prochain).",
        "{name} holds no card this round (brought back to life during it, dealt in from the next).",
    ),
    "morto.dealer_may_speak": (
        "Le·a dealer a le droit de parler aux mort·es.",
        "The dealer may speak to the dead.",
    ),
    "morto.speaker_is_dead": (
        "{name} est mort·e : seul·e un·e vivant·e peut donner une vie en parlant à un·e mort·e.",
        "{name} is dead: only a living player gives a life by speaking to the dead.",
    ),
    "morto.listener_is_alive": (
        "{name} est vivant·e : on ne perd une vie qu'en parlant à un·e mort·e.",
        "{name} is alive: a life is given only for speaking to the dead.",
    ),
    "morto.same_player": (
        "Il faut deux personnes différentes.",
        "That takes two different players.",
    ),
    "morto.bad_cards": (
        "La révélation donne une carte par joueur·euse servi·e : {{id: rang 1..10}}.",
        "The reveal gives one card per dealt player: {{id: rank 1..10}}.",
    ),
    "morto.bad_rank": (
        "Rang invalide pour {name} : {value} (1 Asso … 7, 8 Fante, 9 Cavallo, 10 Re).",
        "Invalid rank for {name}: {value} (1 Asso … 7, 8 Fante, 9 Cavallo, 10 Re).",
    ),
    "morto.missing_cards": (
        "Il manque la carte de : {names}. Chaque vivant·e servi·e révèle sa carte.",
        "Missing the card of: {names}. Every living dealt player reveals their card.",
    ),
    "morto.card_not_dealt": (
        "{names} n'a pas de carte ce tour-ci (mort·e, ou revenu·e à la vie pendant le tour).",
        "{names} holds no card this round (dead, or brought back to life during it).",
    ),
    "morto.too_many_of_rank": (
        "Le jeu n'a que quatre {rank_name} : {count} révélé·es, c'est impossible.",
        "The deck has only four {rank_name}: {count} revealed is impossible.",
    ),
    "morto.bad_face_up": (
        "Seuls un Cavallo (9) ou un Re (10) se posent face visible.",
        "Only a Cavallo (9) or a Re (10) is laid face up.",
    ),
    # Swap helper answers.
    "morto.swap.own_face_up": (
        "Sa carte est face visible : pas d'échange, on garde.",
        "Their own card is face up: no swap, they keep it.",
    ),
    "morto.swap.next": (
        "Peut garder ou échanger avec {target_name}.",
        "May keep or swap with {target_name}.",
    ),
    "morto.swap.past_cavalli": (
        "Cavallo à côté : peut garder ou échanger avec {target_name}, après les Cavalli.",
        "Cavallo next: may keep or swap with {target_name}, past the Cavalli.",
    ),
    "morto.swap.blocked_by_re": (
        "Un Re face visible suit : pas d'échange possible.",
        "A face-up Re comes next: no swap possible.",
    ),
    "morto.swap.deck": (
        "Personne après : peut garder ou échanger avec la pioche.",
        "Nobody after: may keep or swap with the deck.",
    ),
    "morto.won": ("{names} gagne !", "{names} wins!"),
    "morto.shared_win": (
        "Les dernier·es vivant·es sont mort·es ensemble : {names} se partagent la victoire.",
        "The last living players died together: {names} share the win.",
    ),
}


# --- setup ---------------------------------------------------------------------------------------


def setup(players: list, options: dict) -> dict:
    names = player_names(players, MIN_PLAYERS, MAX_PLAYERS)
    lives = option_int(options, "lives", 3, 1, 9)
    dealer = option_int(options, "dealer", 0, 0, len(names) - 1)
    return {
        "lives": lives,
        "round": 1,
        "dealer": player_id(dealer),
        "winners": None,
        "players": [
            {"id": player_id(i), "name": name, "lives": lives, "dealt": True} for i, name in enumerate(names)
        ],
    }


# --- reading the state ---------------------------------------------------------------------------


def _alive(player: dict) -> bool:
    return player["lives"] > 0


def _by_id(state: dict, pid: str) -> dict:
    return next(p for p in state["players"] if p["id"] == pid)


def _seats_after(state: dict, pid: str) -> list[dict]:
    """Every other player, in order of play starting from the seat after ``pid``."""
    players = state["players"]
    start = next(i for i, p in enumerate(players) if p["id"] == pid)
    return [players[(start + k) % len(players)] for k in range(1, len(players))]


def play_order(state: dict) -> list[dict]:
    """The players holding a card this round, from who plays first to the dealer, who plays last."""
    dealer = _by_id(state, state["dealer"])
    order = [p for p in _seats_after(state, dealer["id"]) if p["dealt"] and _alive(p)]
    if dealer["dealt"] and _alive(dealer):
        order.append(dealer)
    return order


def _names(players: list[dict]) -> str:
    return ", ".join(p["name"] for p in players)


# --- events --------------------------------------------------------------------------------------


def _lose_life(player: dict) -> None:
    """A life lost; at 0 the player dies at once and any card they held is discarded."""
    player["lives"] -= 1
    if player["lives"] == 0:
        player["dealt"] = False


def touched_early(state: dict, event: dict) -> None:
    player = find_player(state, event)
    if not _alive(player):
        raise IllegalEvent("morto.dead_cannot_touch", player=player["id"], name=player["name"])
    if player["id"] == state["dealer"]:
        raise IllegalEvent("morto.dealer_may_touch", player=player["id"], name=player["name"])
    if not player["dealt"]:
        raise IllegalEvent("morto.not_dealt", player=player["id"], name=player["name"])
    _lose_life(player)


def spoke_to_dead(state: dict, event: dict) -> None:
    living = find_player(state, event, "living")
    dead = find_player(state, event, "dead")
    if living["id"] == dead["id"]:
        raise IllegalEvent("morto.same_player", player=living["id"])
    if not _alive(living):
        raise IllegalEvent("morto.speaker_is_dead", player=living["id"], name=living["name"])
    if _alive(dead):
        raise IllegalEvent("morto.listener_is_alive", player=dead["id"], name=dead["name"])
    if living["id"] == state["dealer"]:
        raise IllegalEvent("morto.dealer_may_speak", player=living["id"], name=living["name"])
    _lose_life(living)
    dead["lives"] += 1  # back to life, but dealt in only from the next round: "dealt" stays False


def _check_cards(state: dict, cards) -> dict[str, int]:
    if not isinstance(cards, dict):
        raise InvalidEvent("morto.bad_cards")
    players = {p["id"]: p for p in state["players"]}
    for pid, rank in cards.items():
        if pid not in players:
            raise InvalidEvent("unknown_player", player=str(pid)[:40], field="cards")
        if isinstance(rank, bool) or not isinstance(rank, int) or rank not in RANKS:
            value = rank if isinstance(rank, (int, float)) else str(rank)[:20]
            raise InvalidEvent("morto.bad_rank", player=pid, name=players[pid]["name"], value=value)
    holders = play_order(state)
    extra = [players[pid] for pid in cards if pid not in {p["id"] for p in holders}]
    if extra:
        raise IllegalEvent("morto.card_not_dealt", players=[p["id"] for p in extra], names=_names(extra))
    missing = [p for p in holders if p["id"] not in cards]
    if missing:
        raise IllegalEvent("morto.missing_cards", players=[p["id"] for p in missing], names=_names(missing))
    for rank in RANKS:
        count = sum(1 for r in cards.values() if r == rank)
        if count > COPIES_PER_RANK:
            raise IllegalEvent("morto.too_many_of_rank", rank=rank, rank_name=RANKS[rank], count=count)
    return cards


def reveal(state: dict, event: dict) -> None:
    cards = _check_cards(state, event.get("cards"))
    lowest = min(cards.values())
    losers = [p for p in state["players"] if cards.get(p["id"]) == lowest]
    for player in losers:
        _lose_life(player)
    living = [p for p in state["players"] if _alive(p)]
    if not living:
        # Decision (RULES §3): the last living players who die together share the win.
        state["winners"] = [p["id"] for p in losers]
        return
    if len(living) == 1:
        return  # the game is over: outcome() names the last one alive
    state["dealer"] = next(p for p in _seats_after(state, state["dealer"]) if _alive(p))["id"]
    state["round"] += 1
    for player in state["players"]:
        player["dealt"] = _alive(player)


EVENTS = {"touched_early": touched_early, "spoke_to_dead": spoke_to_dead, "reveal": reveal}


# --- the end --------------------------------------------------------------------------------------


def outcome(state: dict) -> Outcome | None:
    if state["winners"] is not None:
        winners = [_by_id(state, pid) for pid in state["winners"]]
        return Outcome(tuple(state["winners"]), "morto.shared_win", {"names": _names(winners)})
    living = [p for p in state["players"] if _alive(p)]
    if len(living) <= 1:
        return Outcome(tuple(p["id"] for p in living), "morto.won", {"names": _names(living)})
    return None


def view(state: dict) -> dict:
    result = outcome(state)
    order = play_order(state)
    return {
        "game": ID,
        "round": state["round"],
        "lives": state["lives"],
        "dealer": state["dealer"],
        "plays_first": order[0]["id"] if order and result is None else None,
        "play_order": [p["id"] for p in order] if result is None else [],
        "over": result is not None,
        "winners": list(result.winners) if result else [],
        "outcome": {"reason": result.reason, **result.details} if result else None,
        "players": [
            {
                "id": p["id"],
                "name": p["name"],
                "lives": p["lives"],
                "alive": _alive(p),
                "dealt": p["dealt"] and _alive(p) and result is None,
                "dealer": p["id"] == state["dealer"],
            }
            for p in state["players"]
        ],
    }


# --- the swap helper (no state change) -------------------------------------------------------------


def swap_options(state: dict, face_up: dict) -> list[dict]:
    """What each player may do at their turn, given the face-up Cavalli (9) and Re (10).

    Walks the play order: a player whose own card is face up keeps it; otherwise they look at
    the next player, skip past a chain of face-up Cavalli, and are blocked by a face-up Re;
    with nobody left (the dealer, or a chain that runs past the dealer) they may take the deck.
    """
    if not isinstance(face_up, dict):
        raise InvalidEvent("morto.bad_cards")
    order = play_order(state)
    holders = {p["id"] for p in order}
    for pid, rank in face_up.items():
        if pid not in holders:
            raise InvalidEvent("unknown_player", player=str(pid)[:40], field="face_up")
        if isinstance(rank, bool) or not isinstance(rank, int) or rank not in (CAVALLO, RE):
            raise InvalidEvent("morto.bad_face_up", player=pid, value=str(rank)[:20])
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


def _swap_check(state: dict, params: dict) -> dict:
    face_up = params.get("face_up", {}) if isinstance(params, dict) else None
    return {"ok": True, "turns": swap_options(state, face_up)}


CHECKS = {"swap": _swap_check}
