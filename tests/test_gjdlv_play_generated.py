"""Le Grand Jeu de la Vie played through (RULES.md §2 "A round, played through"): thousands of
random rounds, seeded so every run is the same run.

Each round is played from the deal to its end choosing only among ``state.actions`` and, for the
card a table supplies, among the cards ``play.choices`` still offers (answers included: abortions,
Kings and Queens, the Queen's take, the Jack's removal), for 2 to 6 players and both rule sets.
After every event:

- every card of the deck is in exactly one place: the seen cards (Mouchoir, Diva Cup, the revealed
  GF, uteri, nurseries, formols) have no duplicates, the seen GF plus the Ovulation pile make the GF
  deck, the seen GM plus the hands and the urethras make the GM deck;
- the round is never stuck: there is always an action until the round is closed;
- undo (a replay of the events but the last) gives back exactly the state before it.

At each round's end: the embryos begun during the last lap by anyone but the announcer were never
born; the round score of each player is the one the score sheet gives for the same births,
abortions and takes (a sheet table replaying them) and the one the text's scoring gives, computed
here; closing the round appends exactly those scores and deals the next round from the next seat.
"""

from __future__ import annotations

import json
import random

from engine import core
from tests.test_gjdlv import expected_round_score

GAME = "gjdlv"
NAMES = ["Ada", "Bruno", "Chiara", "Dario", "Elena", "Fabio"]
NUMBER_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"]
FACE_RANKS = ["J", "Q", "K"]


def gametes(suits: str, rules: str) -> set[str]:
    ranks = NUMBER_RANKS + (FACE_RANKS if rules == "abondantes" else [])
    return {rank + suit for suit in suits for rank in ranks}


ROUNDS = 1600  # seeded rounds, each of its own table (2..6 players, both rule sets)
GAMES = 12  # seeded whole games (5 rounds each) played to their outcome


def seen_cards(view: dict) -> list[str]:
    play = view["play"]
    cards = list(play["mouchoir"]) + list(play["diva_cup"])
    if play["gf"]:
        cards.append(play["gf"])
    for seat in play["seats"]:
        if seat["uterus"]:
            cards += [seat["uterus"]["gf"], seat["uterus"]["gm"]]
        cards += seat["formol"]
    for player in view["players"]:
        for born in player["newborns"]:
            cards += [born["gf"], born["gm"]]
    return cards


def check_cards(view: dict) -> None:
    """Every card of the deck is in exactly one place."""
    rules, play = view["rules"], view["play"]
    gf_deck, gm_deck = gametes("HD", rules), gametes("SC", rules)
    seen = seen_cards(view)
    if play["phase"] == "deal":
        assert (seen, play["ovulation"], play["hidden"]) == ([], len(gf_deck), 0)
        return
    assert len(seen) == len(set(seen)), f"a card is in two places: {sorted(seen)}"
    assert set(seen) <= gf_deck | gm_deck
    seen_gf = [c for c in seen if c in gf_deck]
    seen_gm = [c for c in seen if c in gm_deck]
    assert len(seen_gf) + play["ovulation"] == len(gf_deck)
    hidden = sum(seat["hand"] + seat["held"] for seat in play["seats"])
    assert len(seen_gm) + hidden == len(gm_deck)
    assert play["hidden"] == hidden
    assert set(play["unseen"]["gf"]) == gf_deck - set(seen_gf)
    assert set(play["unseen"]["gm"]) == gm_deck - set(seen_gm)


def pick_event(rng: random.Random, view: dict) -> dict:
    """A random legal event: an action of ``state.actions``, its card among those the choices offer."""
    actions = view["actions"]
    by_action = {json.dumps(c["action"], sort_keys=True): c for c in view["play"]["choices"]}
    # Answers are offered often but not always taken, so that rounds also go on undisturbed.
    answers = [a for a in actions if a["type"] in ("abort", "cancel", "steal_newborn", "remove_embryo")]
    moves = [a for a in actions if a not in answers]
    action = rng.choice(answers if answers and (not moves or rng.random() < 0.4) else moves)
    event = dict(action)
    choice = by_action.get(json.dumps(action, sort_keys=True))
    if action["type"] == "steal_newborn":
        assert choice is None  # the Queen's take is the sheet's own event, listed by the game
        return event
    assert choice is not None, f"{action} is listed without its choice"
    field, cards = choice["field"], choice["cards"]
    if action["type"] == "deal":
        event["mouchoir"] = rng.sample(cards, view["play"]["deal"]["mouchoir"])
    elif action["type"] == "ejaculate":
        event["gms"] = {}
        for pid, offered in cards.items():
            free = [c for c in offered if c not in event["gms"].values()]
            if free and rng.random() < 0.6:
                event["gms"][pid] = rng.choice(free)
    elif field is not None:
        event[field] = rng.choice(cards)
    return event


class Round:
    """One round played through, with the births, abortions and takes a score sheet would record."""

    def __init__(self, players: list[str], options: dict, prefix: list[dict]):
        self.players, self.options = players, options
        self.events = list(prefix)
        self.state = core.replay(GAME, players, options, self.events)
        self.sheet: list[dict] = []  # the same round as the score sheet records it
        self.last_lap_embryos: set[tuple] = set()  # (gf, gm) of embryos begun in the last lap by others

    def step(self, rng: random.Random, view: dict, check_undo: bool) -> dict:
        """A random legal event from ``view`` (the current state's), applied and recorded."""
        assert view["actions"], f"stuck at {view['play']['phase']}"
        event = pick_event(rng, view)
        before = self.state
        after = core.apply(GAME, before, event)
        self.record(view, event, after)
        self.events.append(event)
        if check_undo:
            back = core.undo(GAME, self.players, self.options, self.events)
            assert back == before, f"undo of {event} is not the state before it"
        self.state = after
        return event

    def record(self, view: dict, event: dict, after: dict) -> None:
        play, kind = view["play"], event["type"]
        seats = {seat["player"]: seat for seat in play["seats"]}
        if kind == "birth" and seats[event["player"]]["uterus"]:
            embryo = seats[event["player"]]["uterus"]
            owner = next(p for p in after["players"] if p["id"] == event["player"])
            if (embryo["gf"], embryo["gm"]) in self.last_lap_embryos:
                # Begun in the last lap (won by an ejaculation): not born, its cards discarded.
                assert embryo["comes_to_term"] is False
                assert {"gf": embryo["gf"], "gm": embryo["gm"]} not in owner["newborns"]
                assert embryo["gm"] in after["play"]["mouchoir"] and embryo["gf"] in after["play"]["diva_cup"]
                return
            assert embryo["comes_to_term"] is True
            assert owner["newborns"][-1] == {"gf": embryo["gf"], "gm": embryo["gm"]}
            self.sheet.append(
                {"type": "newborn", "player": event["player"], "gf": embryo["gf"], "gm": embryo["gm"]}
            )
        elif kind == "abort":
            self.sheet.append({"type": "abortion", "player": event["player"]})
        elif kind == "cancel" and play["open"][-1]["act"] == "abortion":
            aborter = play["open"][-1]["player"]
            last = max(i for i, e in enumerate(self.sheet) if e == {"type": "abortion", "player": aborter})
            del self.sheet[last]
        elif kind == "steal_newborn":
            self.sheet.append(dict(event))
        announcer = after["play"]["last_lap"]
        if announcer and kind in ("fecundate", "surrogate", "ejaculate"):
            before = {(s["uterus"]["gf"], s["uterus"]["gm"]) for s in play["seats"] if s["uterus"]}
            for player, seat in zip(after["players"], after["play"]["seats"], strict=True):
                embryo = seat["uterus"] and (seat["uterus"]["gf"], seat["uterus"]["gm"])
                if embryo and embryo not in before and player["id"] != announcer:
                    self.last_lap_embryos.add(embryo)

    def check_end(self) -> list[int]:
        """The round is over: its scores are the sheet's and the text's. Returns them."""
        view = core.view(GAME, self.state)
        play = view["play"]
        assert play["phase"] == "ended"
        assert all(s["uterus"] is None or s["uterus"]["comes_to_term"] is False for s in play["seats"])
        scores = [p["round_score"] for p in view["players"]]
        sheet = core.replay(
            GAME, self.players, {k: v for k, v in self.options.items() if k != "mode"}, self.sheet
        )
        assert [p["round_score"] for p in core.view(GAME, sheet)["players"]] == scores
        # The text's scoring, from the births and abortions recorded here, takes included.
        nurseries: dict[str, list[tuple[str, str]]] = {p["id"]: [] for p in view["players"]}
        abortions = dict.fromkeys(nurseries, 0)
        for event in self.sheet:
            if event["type"] == "newborn":
                nurseries[event["player"]].append((event["gf"], event["gm"]))
            elif event["type"] == "abortion":
                abortions[event["player"]] += 1
            else:
                nurseries[event["player"]].append(nurseries[event["from"]].pop())
        for player, seat in zip(view["players"], play["seats"], strict=True):
            assert len(seat["formol"]) == 3 * abortions[player["id"]]
        ids = [p["id"] for p in view["players"]]
        assert scores == [expected_round_score(nurseries[pid], abortions[pid]) for pid in ids]
        return scores


def play_round(rng: random.Random, game: Round, check_every_undo: bool) -> list[int]:
    """Play the round to its end, checking the cards at every step; its scores, checked."""
    undo_at = rng.randrange(100)
    for steps in range(1000):
        view = core.view(GAME, game.state)
        check_cards(view)
        for seat in view["play"]["seats"]:
            if seat["uterus"] and (seat["uterus"]["gf"], seat["uterus"]["gm"]) in game.last_lap_embryos:
                assert seat["uterus"]["comes_to_term"] is False
        if view["play"]["phase"] == "ended":
            # Only answers are left: to the act the round ended on, or a royal birth's effect.
            effects = [a for a in view["actions"] if a["type"] != "close_round"]
            assert {"type": "close_round"} in view["actions"]
            assert {a["type"] for a in effects} <= {"abort", "cancel", "remove_embryo", "steal_newborn"}
            if not effects or rng.random() < 0.4:
                return game.check_end()
            game.step(rng, {**view, "actions": effects}, check_every_undo)
            continue
        game.step(rng, view, check_every_undo or steps == undo_at)
    raise AssertionError("the round never ends")


def close(game: Round, scores: list[int]) -> dict:
    before = core.view(GAME, game.state)
    game.events.append({"type": "close_round"})
    game.state = core.apply(GAME, game.state, game.events[-1])
    after = core.view(GAME, game.state)
    count = len(game.players)
    for old, new, score in zip(before["players"], after["players"], scores, strict=True):
        assert new["round_scores"] == old["round_scores"] + [score]
        assert new["round_score"] == 0
    if not after["over"]:
        assert after["round"] == before["round"] + 1
        next_first = (
            before["players"].index(next(p for p in before["players"] if p["id"] == before["first_player"]))
            + 1
        ) % count
        assert after["first_player"] == after["players"][next_first]["id"]
        assert after["play"]["phase"] == "deal" and after["play"]["active"] == after["first_player"]
    return after


def test_random_rounds_keep_every_card_in_one_place_and_score_as_the_sheet():
    for seed in range(ROUNDS):
        rng = random.Random(seed)
        count = 2 + seed % 5
        rules = ("simples", "abondantes")[(seed // 5) % 2]
        options = {"mode": "tracker", "rules": rules, "rounds": 5, "first_player": rng.randrange(count)}
        game = Round(NAMES[:count], options, [])
        try:
            scores = play_round(rng, game, check_every_undo=seed % 50 == 0)
            close(game, scores)
        except AssertionError as error:
            raise AssertionError(f"seed {seed}, {count} players, {rules}: {error}") from error


def test_random_whole_games_end_with_the_highest_total():
    for seed in range(GAMES):
        rng = random.Random(10_000 + seed)
        count = 2 + seed % 5
        rules = ("simples", "abondantes")[seed % 2]
        options = {"mode": "tracker", "rules": rules, "rounds": 5}
        game = Round(NAMES[:count], options, [])
        totals = [0] * count
        for _ in range(5):
            scores = play_round(rng, game, check_every_undo=False)
            totals = [t + s for t, s in zip(totals, scores, strict=True)]
            game.sheet = []
            game.last_lap_embryos = set()
            view = close(game, scores)
        assert view["over"] is True and view["actions"] == [] and view["play"] is None
        best = max(totals)
        assert view["winners"] == [p["id"] for p, t in zip(view["players"], totals, strict=True) if t == best]
