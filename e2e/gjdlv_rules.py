"""GJDLV's scoring (RULES.md §2) written again from first principles, for the e2e tests to compute
what the screens must show without reading it from the app."""

from __future__ import annotations

ROYAL_POINTS = {"K": 10, "Q": 0, "J": 5}  # Sang Royal, Petite Mère des peuples, Assassin Royal


def rank(card: str) -> str:
    return card[:-1]


def value(card: str) -> int:
    return 1 if rank(card) == "A" else int(rank(card))


def is_royal(gf: str) -> bool:
    return rank(gf) in ROYAL_POINTS


def is_cc(gf: str, gm: str) -> bool:
    return not is_royal(gf) and value(gf) == value(gm)


def newborn_points(newborns: list[tuple[str, str]]) -> list[int]:
    """Each newborn's points: 5 + EG; with c CC in the round each CC is worth 6 − c; royal K 10, Q 0, J 5."""
    cc = sum(is_cc(gf, gm) for gf, gm in newborns)
    points = []
    for gf, gm in newborns:
        if is_royal(gf):
            points.append(ROYAL_POINTS[rank(gf)])
        elif is_cc(gf, gm):
            points.append(6 - cc)
        else:
            points.append(5 + abs(value(gf) - value(gm)))
    return points


class RoundSheet:
    """One round's expected sheet: each player's nursery (oldest first) and abortions."""

    def __init__(self, players: list[str]):
        self.players = players
        self.nursery = {pid: [] for pid in players}
        self.abortions = dict.fromkeys(players, 0)

    def apply(self, action: tuple) -> None:
        """``("newborn", pid, gf, gm)``, ``("abortion", pid)`` or ``("steal", thief, victim)``."""
        kind, pid, *rest = action
        if kind == "newborn":
            self.nursery[pid].append(tuple(rest))
        elif kind == "abortion":
            self.abortions[pid] += 1
        elif kind == "steal":
            self.nursery[pid].append(self.nursery[rest[0]].pop())

    def score(self, pid: str) -> int:
        return 3 * self.abortions[pid] + sum(newborn_points(self.nursery[pid]))

    def scores(self) -> dict[str, int]:
        return {pid: self.score(pid) for pid in self.players}
