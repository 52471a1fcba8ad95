"""Offline refereeing of Le jeu existentiel and Le Grand Jeu de la Vie, network really cut.

The model is ``test_offline.py`` (Il Morto): the referee's phone has the app installed (service
worker and engine worker ready), loses the network and keeps refereeing — more than thirty taps,
refusals worded by the engine on the phone (in the page's one language), an undo — reloads while still
offline and loses nothing, then gets the network back: the server ends up with exactly the accepted
taps, once each, in order, the undone one marked ``undone``, and the same state the phone showed.

What each tap must give is worked out here from the rules (RULES.md §1 and §2), not read back from
the app. A tap counts as one event: an accepted or refused action, or the undo.
"""

from __future__ import annotations

import contextlib

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from e2e.gjdlv_rules import RoundSheet, newborn_points
from e2e.test_gjdlv import close_round as confirm_close_round
from e2e.test_offline import ENGINE_TIMEOUT_MS, SYNC_TIMEOUT_MS, api, history, installed_referee

SCREEN_TIMEOUT_MS = 10_000


class Taps:
    """The referee's taps while offline: what the server must end up with, and what waits meanwhile."""

    def __init__(self, page: Page):
        self.page = page
        self.count = 0
        self.refusals = 0
        self.events: list[dict] = []  # accepted events, in order, each {"event": ..., "undone": bool}
        self.undos = 0

    @property
    def waiting(self) -> int:
        """Taps in the outbox: every accepted event and every undo (a refused tap never enters it)."""
        return len(self.events) + self.undos

    def accepted(self, event: dict) -> None:
        self.count += 1
        self.events.append({"event": event, "undone": False})
        self.expect_waiting()

    def refused(self, french: str) -> None:
        """The tap just made was refused by the engine on the phone: the toast says which rule, in the
        page's one language."""
        self.count += 1
        self.refusals += 1
        toast = self.page.locator("#toast")
        expect(toast).to_be_visible()
        expect(toast).to_have_class("toast error")
        expect(toast.locator(".toast-text")).to_have_text(french)
        self.expect_waiting()

    def undone(self) -> None:
        self.count += 1
        self.undos += 1
        last = next(entry for entry in reversed(self.events) if not entry["undone"])
        last["undone"] = True
        self.expect_waiting()

    def expect_waiting(self) -> None:
        expect(self.page.locator("#sync")).to_have_attribute("data-waiting", str(self.waiting))

    def expect_on_server(self, server: str, code: str) -> None:
        """The server's history is exactly the accepted taps, once each, in order, undo marked."""
        events = history(server, code)
        assert [{"event": e["event"], "undone": e["undone"]} for e in events] == self.events
        assert len({e["id"] for e in events}) == len(events)


def expect_screen(page: Page, read_js: str, expected) -> None:
    """Wait (bounded) until the page shows ``expected``, as read by ``read_js``; fail with the diff."""
    with contextlib.suppress(PlaywrightError):  # the assertion below shows what differs
        page.wait_for_function(
            f"(expected) => JSON.stringify(({read_js})()) === JSON.stringify(expected)",
            arg=expected,
            timeout=SCREEN_TIMEOUT_MS,
        )
    assert page.evaluate(read_js) == expected


def go_offline(phone, context, page: Page) -> None:
    phone.allow_console_error(r"ERR_INTERNET_DISCONNECTED")
    context.set_offline(True)
    expect(page.locator("#sync")).to_contain_text("hors ligne")


def reload_offline(page: Page, read_js: str, screen, waiting: int) -> None:
    """Reload with no network: the page from the service worker, the taps from IndexedDB, the same screen."""
    page.reload()
    expect(page.locator("#sync")).to_have_attribute("data-engine", "ready", timeout=ENGINE_TIMEOUT_MS)
    expect(page.locator("#sync")).to_have_attribute("data-waiting", str(waiting))
    expect(page.locator("#sync")).to_contain_text(f"hors ligne · {waiting} en attente")
    expect_screen(page, read_js, screen)
    # (Chromium's emulated cut can let a request out whose answer is then lost: that tap stays in the
    # outbox and its retry, with the same id, is applied once — what the end of each test checks.)


def back_online(context, page: Page) -> None:
    context.set_offline(False)
    expect(page.locator("#sync")).to_have_attribute("data-waiting", "0", timeout=SYNC_TIMEOUT_MS)
    expect(page.locator("#sync")).to_contain_text("synchronisé")


# ==================================================================================================
# Le jeu existentiel (RULES.md §1)
# ==================================================================================================

ADA, CHLOE, DORA = "p1", "p2", "p3"
BIRTH_MONTH = {ADA: 3, CHLOE: 12, DORA: 6}
NAME = {ADA: "Ada", CHLOE: "Chloé", DORA: "Dora"}
STARRY = "Dormir une nuit à la belle étoile"


class Adventurers:
    """Each player by the rules: score, offered, current, jokers, completed, refused."""

    def __init__(self):
        self.players: dict[str, dict] = {}

    def add(self, pid: str) -> None:
        self.players[pid] = {
            "score": None,
            "offered": None,
            "current": None,
            "jokers": 3,
            "completed": set(),
            "refused": set(),
        }

    def base(self, pid: str) -> int:
        player = self.players[pid]
        return BIRTH_MONTH[pid] if player["score"] is None else player["score"]

    def roll(self, pid: str, die: int) -> int:
        """The landing rule: base + die, wrapped past 29, then past completed adventures."""
        player = self.players[pid]
        n = (self.base(pid) + die - 1) % 29 + 1
        while n in player["completed"]:
            n = n % 29 + 1
        player["score"] = player["offered"] = n
        return n

    def refuse(self, pid: str) -> None:
        player = self.players[pid]
        assert player["jokers"] > 0, "the test never has a player eliminated"
        player["jokers"] -= 1
        player["refused"].add(player["offered"])
        player["offered"] = None  # the score stays at the refused number

    def accept(self, pid: str) -> None:
        player = self.players[pid]
        player["current"], player["offered"] = player["offered"], None

    def validate(self, pid: str, success: bool) -> None:
        player = self.players[pid]
        if success:
            player["completed"].add(player["current"])
        else:
            player["jokers"] -= 1
        player["current"] = None


# What the referee's page shows, read in one go (so a redraw cannot fall between two reads).
EXISTENTIEL_SCREEN = """() => {
  const phase = document.querySelector("#phase");
  const number = (el, key) => (el ? Number(el.dataset[key]) : null);
  return {
    phase: phase ? phase.dataset.phase : null,
    cycle: number(phase && phase.querySelector("[data-cycle]"), "cycle"),
    rendezvous: document.querySelector("#rendezvous-editor #rdv-when")?.dataset.at ?? null,
    players: [...document.querySelectorAll("#app .players > [data-player]")].map((el) => {
      const current = el.querySelector(".validate [data-adventure], [data-now=current] [data-adventure]");
      const shown = el.querySelector(".offer [data-adventure]") || current;
      return {
        id: el.dataset.player,
        name: el.querySelector(".player-name").textContent,
        jokers: number(el.querySelector(".player-head [data-jokers]"), "jokers"),
        offered: number(el.querySelector("[data-offer]"), "offer"),
        must_accept: el.querySelector(".offer.must") !== null,
        current: number(current, "adventure"),
        title: shown ? shown.querySelector(".adventure-title").textContent : null,
        rolls_from: number(el.querySelector("[data-base]"), "base"),
      };
    }),
  };
}"""


def existentiel_screen_of(state: dict) -> dict:
    """What the referee's page must show for a state as the server computes it."""

    def shown(p):
        n = p["offered"] or p["current"]
        return state["titles"][n - 1] if n else None

    rolling = {action["player"] for action in state["actions"] if action["type"] == "roll"}
    return {
        "phase": state["phase"],
        "cycle": state["cycle"],
        "rendezvous": state["rendezvous"]["at"] if state["rendezvous"] else None,
        "players": [
            {
                "id": p["id"],
                "name": p["name"],
                "jokers": p["jokers"],
                "offered": p["offered"],
                "must_accept": p["must_accept"],
                "current": p["current"],
                "title": shown(p),
                "rolls_from": p["next_base"] if p["id"] in rolling else None,
            }
            for p in state["players"]
        ],
    }


def row(page: Page, pid: str):
    return page.locator(f"#app .players > [data-player={pid}]")


def test_existentiel_refereed_offline_over_three_cycles_reaches_the_server_once_in_order(
    phone, server, screenshot
):
    players = [{"name": NAME[pid], "birth_month": BIRTH_MONTH[pid]} for pid in (ADA, CHLOE)]
    table = api(server, "/api/tables", {"game": "existentiel", "players": players})
    context, page = installed_referee(phone, server, table)
    go_offline(phone, context, page)
    model = Adventurers()
    model.add(ADA)
    model.add(CHLOE)
    taps = Taps(page)

    def expect_jokers(pid: str) -> None:
        expect(row(page, pid).locator(".player-head [data-jokers]")).to_have_attribute(
            "data-jokers", str(model.players[pid]["jokers"])
        )

    def roll(pid: str, die: int, adventure: int, title: str | None = None) -> None:
        expect(row(page, pid).locator("[data-base]")).to_have_text(str(model.base(pid)))
        assert model.roll(pid, die) == adventure, "the test's die values no longer lead there"
        row(page, pid).locator(f"[data-die='{die}']").tap()
        offer = row(page, pid).locator("[data-offer]")
        expect(offer).to_have_attribute("data-offer", str(adventure))
        title = title or f"Aventure {adventure}"
        expect(offer.locator(".offer-title")).to_contain_text(f"n° {adventure} — {title}")
        taps.accepted({"type": "roll", "player": pid, "die": die})

    def refuse(pid: str) -> None:
        adventure, jokers = model.players[pid]["offered"], model.players[pid]["jokers"]
        expect(row(page, pid).locator("[data-action=refuse]")).to_have_text("Refuser (−1 joker)")
        row(page, pid).locator("[data-action=refuse]").tap()
        model.refuse(pid)
        toast = page.locator("#toast")
        expect(toast.locator(".toast-text")).to_have_text(
            f"{NAME[pid]} refuse l'aventure {adventure} : un joker de moins (reste {jokers - 1}). "
            f"Il faut relancer le dé ; le résultat s'ajoute à {adventure}."
        )
        expect_jokers(pid)
        # The next roll adds to the refused number.
        expect(row(page, pid).locator("[data-base]")).to_have_text(str(adventure))
        taps.accepted({"type": "refuse", "player": pid})

    def accept(pid: str) -> None:
        adventure = model.players[pid]["offered"]
        row(page, pid).locator("[data-action=accept]").tap()
        model.accept(pid)
        # The adventure to live now; or, once the last one is accepted, the rendez-vous panel with it.
        current = row(page, pid).locator("[data-now=current] [data-adventure], .validate [data-adventure]")
        expect(current).to_have_attribute("data-adventure", str(adventure))
        taps.accepted({"type": "accept", "player": pid})

    def validate(pid: str, success: bool) -> None:
        adventure, jokers = model.players[pid]["current"], model.players[pid]["jokers"]
        panel = row(page, pid).locator(".validate")
        expect(panel.locator("[data-adventure]")).to_have_attribute("data-adventure", str(adventure))
        panel.locator(f"[data-action={'success' if success else 'failure'}]").tap()
        model.validate(pid, success)
        if not success:
            expect(page.locator("#toast .toast-text")).to_have_text(
                f"Aventure {adventure} non réalisée : {NAME[pid]} perd un joker (reste {jokers - 1})."
            )
        expect(row(page, pid).locator(".validate")).to_have_count(0)
        expect_jokers(pid)
        taps.accepted({"type": "validate", "player": pid, "success": success})

    def schedule(at: str, place: str) -> None:
        editor = page.locator("#rendezvous-editor")
        editor.locator("#rdv-at").fill(at)
        editor.locator("#rdv-place").fill(place)
        editor.locator("[data-action=schedule]").tap()
        expect(editor.locator("#rdv-when")).to_have_attribute("data-at", at)
        expect(editor.locator("#rdv-place-shown")).to_have_text(f"📍 {place}")
        taps.accepted({"type": "schedule", "at": at, "place": place})

    def expect_phase(phase: str, cycle: int) -> None:
        expect(page.locator("#phase")).to_have_attribute("data-phase", phase)
        expect(page.locator("#phase [data-cycle]")).to_have_text(f"cycle {cycle}")

    # --- Cycle 1 -----------------------------------------------------------------------------------
    expect_phase("assigning", 1)
    # Nothing to undo yet: the engine on the phone says so, and nothing waits to be sent.
    page.locator(".dock #undo").tap()
    taps.refused("Il n'y a rien à annuler.")

    # Chloé (December) refuses three times: each next roll adds to the refused number, past 29 too.
    roll(CHLOE, 6, 18)  # 12 + 6
    expect(page.locator(f"#waiting [data-waiting={CHLOE}]")).to_contain_text("(accepte ou refuse)")
    refuse(CHLOE)
    roll(CHLOE, 6, 24)  # 18 + 6
    refuse(CHLOE)
    roll(CHLOE, 6, 1)  # 24 + 6 = 30 → 1
    refuse(CHLOE)
    roll(CHLOE, 6, 7)
    # No joker left: refusing now would eliminate her.
    expect(row(page, CHLOE).locator("[data-action=refuse]")).to_have_text("Refuser = élimination")
    expect(row(page, CHLOE).locator(".offer-stakes")).to_contain_text("refuser, c'est être éliminé·e")
    accept(CHLOE)

    # A newcomer joins; the name is already taken (case aside): refused, with the rule.
    form = page.locator("#add-player-form")
    form.locator("input[name=name]").fill("ada")
    form.locator("select[name=birth_month]").select_option("6")
    form.locator("[data-action=add-player]").tap()
    taps.refused("Le nom « ada » est déjà pris à cette table.")
    expect(page.locator("#app .players > [data-player]")).to_have_count(2)
    form.locator("input[name=name]").fill("Dora")
    form.locator("select[name=birth_month]").select_option("6")
    form.locator("[data-action=add-player]").tap()
    model.add(DORA)
    expect(row(page, DORA).locator(".player-name")).to_have_text("Dora")
    expect_jokers(DORA)
    taps.accepted({"type": "add_player", "name": "Dora", "birth_month": 6})

    roll(ADA, 5, 8)  # March + 5
    accept(ADA)
    roll(DORA, 6, 12)  # her first roll starts from June
    accept(DORA)

    # Everyone has an adventure: under way; the game master is asked for the rendez-vous.
    expect_phase("underway", 1)
    expect(page.locator("[data-note='existentiel.set_rendezvous']")).to_be_visible()
    expect(page.locator("#app [data-die]")).to_have_count(0)
    schedule("2031-03-07T19:30", "Café de la Gare")
    expect(page.locator("[data-note='existentiel.set_rendezvous']")).to_have_count(0)

    # Adventure 18 gets a title; a blank one first, refused with the rule.
    page.locator("#titles summary").tap()
    titles = page.locator("#titles")
    titles.locator("#title-18").fill("   ")
    titles.locator("[data-action=set-title][data-adventure='18']").tap()
    taps.refused("Le titre de l'aventure 18 doit être un texte de 1 à 80 caractères.")
    titles.locator("#title-18").fill(STARRY)
    titles.locator("[data-action=set-title][data-adventure='18']").tap()
    expect(titles.locator("[data-action=set-title][data-adventure='18']")).to_be_disabled()
    taps.accepted({"type": "set_title", "adventure": 18, "title": STARRY})

    # The rendez-vous.
    validate(CHLOE, True)
    validate(ADA, False)
    validate(DORA, True)
    expect_phase("assigning", 2)

    # --- Cycle 2 -------------------------------------------------------------------------------------
    roll(CHLOE, 6, 13)  # from her score, 7
    accept(CHLOE)
    roll(ADA, 6, 14)  # from 8, failed but still her score
    accept(ADA)
    roll(DORA, 6, 18, STARRY)  # Dora never refused 18: nothing to force
    expect(row(page, DORA).locator(".offer.must")).to_have_count(0)
    accept(DORA)
    expect_phase("underway", 2)
    schedule("2031-04-04T18:00", "Chez Ada")
    validate(CHLOE, True)
    validate(ADA, True)
    validate(DORA, True)
    expect_phase("assigning", 3)

    # --- Cycle 3 -------------------------------------------------------------------------------------
    # Chloé meets again the adventure she refused in cycle 1: she must accept it (no joker to lose).
    roll(CHLOE, 5, 18, STARRY)  # 13 + 5
    offer = row(page, CHLOE).locator(".offer.must")
    expect(offer).to_have_attribute("data-offer", "18")
    expect(offer.locator("[data-rule=must_accept]")).to_contain_text(
        "Chloé retombe sur l'aventure 18, déjà refusée : "
        "contraint·e de l'accepter, sous peine de perdre un joker."
    )
    expect(offer.locator("[data-rule=must_accept] [lang]")).to_have_count(0)
    accept(CHLOE)

    # Ada's die is entered as 6; the table says it showed 3: undo, then the right value.
    roll(ADA, 6, 20)
    page.locator(".dock #undo").tap()
    model.players[ADA].update(score=14, offered=None)
    expect(row(page, ADA).locator("[data-offer]")).to_have_count(0)
    expect(row(page, ADA).locator("[data-die]")).to_have_count(6)
    expect(row(page, ADA).locator("[data-base]")).to_have_text("14")
    taps.undone()
    roll(ADA, 3, 17)
    accept(ADA)
    expect_phase("assigning", 3)
    expect(page.locator("#waiting [data-waiting]")).to_have_count(1)  # Dora is still to roll
    expect(page.locator(f"#waiting [data-waiting={DORA}]")).to_contain_text("(lance le dé)")

    assert taps.count >= 30 and taps.refusals >= 2 and taps.undos >= 1, (
        taps.count,
        taps.refusals,
        taps.undos,
    )
    expect(page.locator("#sync")).to_contain_text(f"hors ligne · {taps.waiting} en attente")
    screen = page.evaluate(EXISTENTIEL_SCREEN)
    assert screen["phase"] == "assigning" and screen["cycle"] == 3
    assert screen["rendezvous"] == "2031-04-04T18:00"
    assert {p["id"]: (p["jokers"], p["current"], p["rolls_from"]) for p in screen["players"]} == {
        pid: (m["jokers"], m["current"], None if m["current"] else model.base(pid))
        for pid, m in model.players.items()
    }
    screenshot(page, "offline-existentiel-referee")

    reload_offline(page, EXISTENTIEL_SCREEN, screen, taps.waiting)

    back_online(context, page)
    taps.expect_on_server(server, table["code"])
    server_state = api(server, f"/api/tables/{table['code']}")["state"]
    assert existentiel_screen_of(server_state) == screen
    for p in server_state["players"]:
        assert (set(p["completed"]), set(p["refused"])) == (
            model.players[p["id"]]["completed"],
            model.players[p["id"]]["refused"],
        )
    expect_screen(page, EXISTENTIEL_SCREEN, screen)


# ==================================================================================================
# Le Grand Jeu de la Vie (RULES.md §2)
# ==================================================================================================

ALICE, BASILE, CAMILLE, DORIAN = "p1", "p2", "p3", "p4"
PLAYERS = [ALICE, BASILE, CAMILLE, DORIAN]
GJ_NAME = dict(zip(PLAYERS, ["Alice", "Basile", "Camille", "Dorian"], strict=True))
GJDLV_SCREEN = """() => {
  const text = (el) => (el ? el.textContent : null);
  return {
    round: Number(document.querySelector("[data-round]")?.dataset.round ?? 0),
    first: document.querySelector("[data-first]")?.dataset.first ?? null,
    queens: [...document.querySelectorAll("[data-queen]")].map((el) => el.dataset.queen),
    players: [...document.querySelectorAll("#round-sheet [data-sheet]")].map((el) => {
      const id = el.dataset.sheet;
      return {
        id,
        round_score: Number(text(el.querySelector(`[data-round-score=${id}]`))),
        newborns: [...el.querySelectorAll("[data-newborn]")].map((li) =>
          [li.dataset.newborn, Number(li.querySelector("[data-points]").dataset.points)]),
        formol: Number(el.querySelector("[data-formol]")?.dataset.formol ?? 0),
        total: Number(text(el.querySelector(".gj-sheet-foot .muted strong"))),
        closed: [...document.querySelectorAll(`#rounds [data-round-score$="/${id}"]`)]
          .map((td) => Number(td.textContent)),
        sum: Number(text(document.querySelector(`#rounds [data-sum=${id}]`)) ?? 0),
      };
    }),
  };
}"""


def gjdlv_screen_of(state: dict) -> dict:
    return {
        "round": state["round"],
        "first": state["first_player"],
        "queens": list(dict.fromkeys(a["player"] for a in state["actions"] if a["type"] == "steal_newborn")),
        "players": [
            {
                "id": p["id"],
                "round_score": p["round_score"],
                "newborns": [[f"{n['gf']}-{n['gm']}", n["points"]] for n in p["newborns"]],
                "formol": p["formol"],
                "total": p["total"],
                "closed": p["round_scores"],
                "sum": p["total"],
            }
            for p in state["players"]
        ],
    }


def test_gjdlv_refereed_offline_over_five_rounds_reaches_the_server_once_in_order(phone, server, screenshot):
    table = api(
        server,
        "/api/tables",
        {
            "game": "gjdlv",
            "players": [GJ_NAME[pid] for pid in PLAYERS],
            "options": {"rules": "abondantes", "rounds": 5, "first_player": 0},
        },
    )
    context, page = installed_referee(phone, server, table)
    go_offline(phone, context, page)
    taps = Taps(page)
    sheet = RoundSheet(PLAYERS)
    totals = dict.fromkeys(PLAYERS, 0)
    closed: list[dict[str, int]] = []

    def expect_sheet() -> None:
        for pid in PLAYERS:
            expect(page.locator(f"[data-round-score={pid}]")).to_have_text(str(sheet.score(pid)))

    def newborn(pid: str, gf: str, gm: str) -> None:
        """Three taps for one event: the player, the red GF, the black GM (which sends the birth)."""
        page.locator(f"#newborn-picker [data-pick=player][data-player={pid}]").tap()
        page.locator(f"[data-grid=gf] [data-card='{gf}']").tap()
        page.locator(f"[data-grid=gm] [data-card='{gm}']").tap()
        sheet.nursery[pid].append((gf, gm))
        points = newborn_points(sheet.nursery[pid])[-1]
        born = page.locator(f"[data-sheet={pid}] [data-newborn='{gf}-{gm}']")
        expect(born.locator("[data-points]")).to_have_text(str(points))
        expect_sheet()
        taps.accepted({"type": "newborn", "player": pid, "gf": gf, "gm": gm})

    def abortion(pid: str) -> None:
        page.locator(f"#abortions [data-action=abortion][data-player={pid}]").tap()
        sheet.abortions[pid] += 1
        formol = page.locator(f"[data-sheet={pid}] [data-formol]")
        expect(formol).to_have_attribute("data-formol", str(3 * sheet.abortions[pid]))
        expect_sheet()
        taps.accepted({"type": "abortion", "player": pid})

    def steal(thief: str, victim: str) -> None:
        page.locator(f"[data-queen={thief}] [data-action=steal][data-from={victim}]").tap()
        taken = sheet.nursery[victim].pop()
        sheet.nursery[thief].append(taken)
        expect(page.locator(f"[data-sheet={thief}] [data-newborn='{taken[0]}-{taken[1]}']")).to_be_visible()
        expect(page.locator(f"[data-sheet={victim}] [data-newborn='{taken[0]}-{taken[1]}']")).to_have_count(0)
        expect(page.locator(f"[data-queen={thief}]")).to_have_count(0)  # once per Queen
        expect_sheet()
        taps.accepted({"type": "steal_newborn", "player": thief, "from": victim})

    def steal_twice_at_once(thief: str, victim: str) -> None:
        """Two taps on the take in the same instant: the engine on the phone checks the second after
        the first, and the take, the very next event after the Queen's birth, is already made."""
        page.evaluate(
            "(sel) => { const b = document.querySelector(sel); b.click(); b.click(); }",
            f"[data-queen={thief}] [data-action=steal][data-from={victim}]",
        )
        taken = sheet.nursery[victim].pop()
        sheet.nursery[thief].append(taken)
        expect(page.locator(f"[data-sheet={thief}] [data-newborn='{taken[0]}-{taken[1]}']")).to_be_visible()
        expect(page.locator(f"[data-queen={thief}]")).to_have_count(0)
        taps.accepted({"type": "steal_newborn", "player": thief, "from": victim})
        name = GJ_NAME[thief]
        taps.refused(
            "Seule la Dame (« Petite Mère des peuples ») qui vient de naître permet de prendre "
            f"un nouveau-né, juste après sa naissance : {name} n'a pas de prise à faire maintenant."
        )
        expect_sheet()

    def close_round(number: int) -> None:
        nonlocal sheet, totals
        scores = sheet.scores()
        new_totals = {pid: totals[pid] + scores[pid] for pid in PLAYERS}
        confirm_close_round(page, scores, new_totals)
        expect(page.locator("[data-round]")).to_have_text(str(number + 1))
        closed.append(scores)
        totals, sheet = new_totals, RoundSheet(PLAYERS)
        for pid in PLAYERS:
            expect(page.locator(f"#rounds [data-round-score='{number}/{pid}']")).to_have_text(
                str(scores[pid])
            )
            expect(page.locator(f"#rounds [data-sum={pid}]")).to_have_text(str(totals[pid]))
            expect(page.locator(f"[data-sheet={pid}] .gj-empty")).to_be_visible()
        expect(page.locator("[data-first]")).to_have_attribute("data-first", PLAYERS[number % len(PLAYERS)])
        taps.accepted({"type": "close_round"})

    # --- Round 1 -------------------------------------------------------------------------------------
    expect(page.locator("[data-round]")).to_have_text("1")
    page.locator(".dock #undo").tap()
    taps.refused("Il n'y a rien à annuler.")

    newborn(DORIAN, "QD", "5C")  # a Queen newborn, 0 points, but nobody else has a newborn yet
    note = page.locator("[data-note='gjdlv.take_nothing']")
    expect(note).to_contain_text(
        "Dame de Dorian : aucun·e concurrent·e n'a de nouveau-né, la prise est perdue."
    )
    expect(note.locator("[lang]")).to_have_count(0)
    expect(page.locator("[data-queen], [data-action=steal]")).to_have_count(0)
    newborn(ALICE, "4H", "9C")  # EG 5 → 10; the lost take's note goes with the next event
    expect(note).to_have_count(0)
    newborn(BASILE, "10D", "AS")  # EG 9 → 14
    newborn(CAMILLE, "QH", "2S")  # a Queen newborn: a take from any opponent with a newborn, now or never
    expect(page.locator("[data-note='gjdlv.take']")).to_contain_text("Dame de Camille")
    queen = page.locator(f"[data-queen={CAMILLE}]")
    expect(queen.locator("[data-action=steal]")).to_have_count(3)
    for victim in (ALICE, BASILE, DORIAN):
        expect(queen.locator(f"[data-action=steal][data-from={victim}]")).to_be_visible()
    steal_twice_at_once(CAMILLE, BASILE)  # Camille: 0 + 14
    expect(page.locator("[data-note='gjdlv.take']")).to_have_count(0)
    abortion(DORIAN)
    newborn(DORIAN, "3D", "3C")  # a lone CC: 5, no malus
    expect(page.locator(f"[data-sheet={DORIAN}] [data-cc]")).to_contain_text("1 CC → 5")
    # A card already recorded this round cannot be picked again: the picker disables it.
    page.locator(f"#newborn-picker [data-pick=player][data-player={ALICE}]").tap()
    for used in ("QD", "QH", "4H", "10D", "3D"):
        expect(page.locator(f"[data-grid=gf] [data-card='{used}']")).to_be_disabled()
    page.locator("[data-action=clear-newborn]").tap()
    newborn(ALICE, "6H", "6S")
    newborn(ALICE, "8D", "8C")  # two CC: 4 each
    expect(page.locator(f"[data-sheet={ALICE}] [data-cc]")).to_contain_text("2 CC → 4 chacun (−1)")
    # A mistake: Basile never aborted. Undo, from the dock.
    abortion(BASILE)
    page.locator(".dock #undo").tap()
    sheet.abortions[BASILE] -= 1
    expect(page.locator(f"[data-sheet={BASILE}] [data-formol]")).to_have_count(0)
    expect(page.locator(f"#abortions [data-player={BASILE}] .gj-badge")).to_have_count(0)
    expect_sheet()
    taps.undone()
    assert sheet.scores() == {ALICE: 18, BASILE: 0, CAMILLE: 14, DORIAN: 8}
    close_round(1)

    # --- Round 2 -------------------------------------------------------------------------------------
    newborn(BASILE, "KD", "JS")  # a Royal Ovum takes an Imperial: Sang Royal, 10
    newborn(CAMILLE, "JH", "5C")  # Assassin Royal, 5
    newborn(DORIAN, "7H", "2C")
    newborn(ALICE, "AH", "10S")
    page.locator(f"#newborn-picker [data-pick=player][data-player={BASILE}]").tap()
    # Last round's cards are free again.
    expect(page.locator("[data-grid=gf] [data-card='4H']")).to_be_enabled()
    expect(page.locator("[data-grid=gf] [data-card=AH]")).to_be_disabled()
    page.locator("[data-action=clear-newborn]").tap()
    newborn(BASILE, "QD", "4S")
    steal(BASILE, ALICE)  # Alice's most recent newborn, AH × 10S, now scores for Basile
    abortion(CAMILLE)
    abortion(CAMILLE)
    assert sheet.scores() == {ALICE: 0, BASILE: 24, CAMILLE: 11, DORIAN: 10}
    close_round(2)

    # --- Round 3 -------------------------------------------------------------------------------------
    newborn(DORIAN, "9D", "9S")
    newborn(ALICE, "2D", "7C")
    abortion(BASILE)
    newborn(CAMILLE, "KH", "QS")
    newborn(BASILE, "5H", "5S")
    abortion(ALICE)
    close_round(3)

    # --- Round 4 -------------------------------------------------------------------------------------
    newborn(ALICE, "10H", "AC")
    abortion(DORIAN)
    newborn(CAMILLE, "6D", "3S")
    newborn(BASILE, "9H", "4C")
    close_round(4)
    assert totals == {ALICE: 45, BASILE: 42, CAMILLE: 43, DORIAN: 26}
    assert totals == {pid: sum(scores[pid] for scores in closed) for pid in PLAYERS}

    # --- Round 5, under way --------------------------------------------------------------------------
    expect(page.locator("[data-action=close-round]")).to_contain_text("Clore la dernière manche (5/5)")
    newborn(DORIAN, "JD", "KC")
    abortion(ALICE)

    assert taps.count >= 30 and taps.refusals >= 2 and taps.undos >= 1, (
        taps.count,
        taps.refusals,
        taps.undos,
    )
    expect(page.locator("#sync")).to_contain_text(f"hors ligne · {taps.waiting} en attente")
    screen = page.evaluate(GJDLV_SCREEN)
    assert screen["round"] == 5 and screen["first"] == ALICE
    assert {p["id"]: (p["round_score"], p["total"], p["closed"]) for p in screen["players"]} == {
        pid: (sheet.score(pid), totals[pid], [scores[pid] for scores in closed]) for pid in PLAYERS
    }
    screenshot(page, "offline-gjdlv-referee")

    reload_offline(page, GJDLV_SCREEN, screen, taps.waiting)

    back_online(context, page)
    taps.expect_on_server(server, table["code"])
    server_state = api(server, f"/api/tables/{table['code']}")["state"]
    assert gjdlv_screen_of(server_state) == screen
    expect_screen(page, GJDLV_SCREEN, screen)
