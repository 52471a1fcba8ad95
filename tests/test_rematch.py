"""A rematch: a finished table's next game, with the same players in the same seats (issue 29, item 3).

- The engine decides what "the same table" is for each game (`engine.core.rematch` and each game's
  ``rematch``): the players of the final state in their seats, the same options, and the first deal
  (Il Morto) or the first player (the Grand Jeu) one seat on; it refuses a game still going on.
- ``POST /api/tables/<code>/rematch`` (the referee's secret) makes that table once: 201 with the new
  table's code and secret, as a new table is answered; asked again (a second referee phone, a retry)
  it gives the same table and the same secret. The old table points to it (``GET`` carries
  ``rematch``), and its followers are told through the live stream, those already there and those
  who come later. A stranger changes nothing; a game not over is refused with 422.
- It counts as a new table for the limit on new tables.

API tests run on SQLite and on PostgreSQL (tests/conftest.py).
"""

from __future__ import annotations

import json
import threading

import pytest

from companion.live import bus, streams
from companion.storage import store
from engine import core, existentiel, gjdlv, morto
from engine.core import IllegalEvent
from tests.conftest import MORTO_NAMES, bearer
from tests.test_api import refused
from tests.test_live import Stream
from tests.test_live import servers as live_servers  # noqa: F401 - a fixture: three servers, one database


def finished_morto(options: dict | None = None, names=MORTO_NAMES[:3]) -> tuple[list, dict, dict]:
    """Three players with one life each: the two who do not deal touch a card before the knock, and
    die; the dealer wins."""
    options = {"lives": 1, **(options or {})}
    state = core.setup("morto", names, options)
    for pid in [p["id"] for p in state["players"] if p["id"] != state["dealer"]]:
        state = core.apply("morto", state, {"type": "touched_early", "player": pid})
    return names, options, state


def finished_gjdlv(options: dict) -> tuple[list, dict, dict]:
    """Three players close every round without a newborn: a shared win at 0."""
    names = ["Ada", "Bruno", "Chiara"]
    state = core.setup("gjdlv", names, options)
    for _ in range(state["rounds"]):
        state = core.apply("gjdlv", state, {"type": "close_round"})
    return names, options, state


def finished_existentiel(
    options: dict | None = None, retitled: dict | None = None
) -> tuple[list, dict, dict]:
    """Ada refuses four adventures: three jokers, then out; Bruno joined during the game, and left.
    ``retitled``: {adventure: title} the table gives before the first roll."""
    players = [{"name": "Ada", "birth_month": 3}]
    state = core.setup("existentiel", players, options or {})
    for adventure, title in (retitled or {}).items():
        state = core.apply(
            "existentiel", state, {"type": "set_title", "adventure": adventure, "title": title}
        )
    state = core.apply("existentiel", state, {"type": "add_player", "name": "Bruno", "birth_month": 11})
    for die in (1, 2, 3, 4):
        state = core.apply("existentiel", state, {"type": "roll", "player": "p1", "die": die})
        state = core.apply("existentiel", state, {"type": "refuse", "player": "p1"})
    # Bruno: 11 + 6 = 17, refused; 17 + 6 = 23, refused; 23 + 6 = 29, accepted: he leaves the game.
    for die in (6, 6):
        state = core.apply("existentiel", state, {"type": "roll", "player": "p2", "die": die})
        state = core.apply("existentiel", state, {"type": "refuse", "player": "p2"})
    state = core.apply("existentiel", state, {"type": "roll", "player": "p2", "die": 6})
    state = core.apply("existentiel", state, {"type": "accept", "player": "p2"})
    return players, options or {}, state


# --- the engine: what "the same table" is ------------------------------------------------------------


def test_il_morto_keeps_seats_and_lives_and_passes_the_first_deal_one_seat_on():
    names, options, state = finished_morto({"dealer": 2})
    assert core.view("morto", state)["over"]
    again = core.rematch("morto", names, options, state)
    assert again == (names, {"lives": 1, "dealer": 0})  # seat 3 dealt first: seat 1 (the next) now
    players, options = again
    fresh = core.view("morto", core.setup("morto", players, options))
    assert [p["lives"] for p in fresh["players"]] == [1, 1, 1] and fresh["dealer"] == "p1"
    # Without options: the default three lives, and the first deal goes from seat 1 to seat 2.
    names, options, state = finished_morto()
    assert core.rematch("morto", names, {}, state) == (names, {"dealer": 1})


def test_the_grand_jeu_keeps_its_rules_length_and_mode_and_the_next_seat_starts():
    options = {"rules": "abondantes", "rounds": 5, "mode": "sheet", "first_player": 2}
    names, options, state = finished_gjdlv(options)
    assert state["first_seat"] != 2  # the state's first seat moved round by round; the game's first did not
    assert core.rematch("gjdlv", names, options, state) == (names, {**options, "first_player": 0})
    names, _, state = finished_gjdlv({"rounds": 5})
    assert core.rematch("gjdlv", names, {"rounds": 5}, state) == (names, {"rounds": 5, "first_player": 1})


def test_le_jeu_existentiel_keeps_every_player_with_their_month_and_the_titles_the_table_gave():
    titles = [existentiel.default_title(n) for n in range(1, 30)]
    titles[4] = "Chanter dans la rue"
    players, options, state = finished_existentiel({"titles": titles}, retitled={7: "Danser"})
    assert core.view("existentiel", state)["over"]
    again_players, again_options = core.rematch("existentiel", players, options, state)
    # Bruno joined during the game: he is at the next one too, in his seat.
    assert again_players == [{"name": "Ada", "birth_month": 3}, {"name": "Bruno", "birth_month": 11}]
    expected = list(titles)
    expected[6] = "Danser"
    assert again_options == {"titles": expected}
    fresh = core.setup("existentiel", again_players, again_options)
    assert fresh["titles"] == expected and [p["jokers"] for p in fresh["players"]] == [3, 3]
    # A table that gave no adventure a title of its own passes none: each keeps its default.
    players, options, state = finished_existentiel()
    assert core.rematch("existentiel", players, options, state)[1] == {}


@pytest.mark.parametrize("game", sorted(core.GAME_MODULES))
def test_a_game_still_going_on_has_no_rematch(game):
    players = {
        "morto": MORTO_NAMES,
        "gjdlv": ["Ada", "Bruno"],
        "existentiel": [{"name": "Ada", "birth_month": 1}],
    }
    state = core.setup(game, players[game], {})
    with pytest.raises(IllegalEvent) as refusal:
        core.rematch(game, players[game], {}, state)
    assert refusal.value.code == "rematch_not_over"


@pytest.mark.parametrize(
    ("module", "low", "high", "usual"),
    [(morto, 3, 20, 6), (gjdlv, 2, 6, 4), (existentiel, 1, 30, 6)],
)
def test_each_game_declares_its_table_once(module, low, high, usual):
    """The bounds the engine checks at setup are the ones the new-table forms are given."""
    assert core.seats(module.ID) == {"min": low, "max": high, "usual": usual}
    assert low <= usual <= high
    # A player entry carries only its game's fields (PLAYER_FIELDS): a birth month for Le jeu existentiel.
    entry = (lambda i: {"name": f"P{i}", "birth_month": 1}) if module is existentiel else (lambda i: f"P{i}")
    too_few = [entry(i) for i in range(low - 1)]
    too_many = [entry(i) for i in range(high + 1)]
    for players in (too_few, too_many):
        with pytest.raises(core.RuleError) as refusal:
            core.setup(module.ID, players, {})
        assert refusal.value.code in ("player_count", "existentiel.no_players")


# --- the API: POST /api/tables/<code>/rematch ----------------------------------------------------------


def finish(table) -> None:
    """Play an Il Morto table of three to its end through the API (one life each: two touches)."""
    for pid in ("p2", "p3"):
        table.event("touched_early", player=pid)
    assert table.get()["state"]["over"]


def ask_rematch(client, code: str, headers: dict | None = None, **kwargs):
    return client.post(f"/api/tables/{code}/rematch", headers=headers or {}, **kwargs)


def count_tables(app) -> int:
    from companion.storage.models import Table, db

    with app.app_context():
        return db.session.query(Table).count()


def test_a_rematch_is_a_new_table_with_the_same_players_seats_and_options(client, make_table):
    old = make_table(players=MORTO_NAMES[:3], options={"lives": 1, "dealer": 0})
    finish(old)
    response = ask_rematch(client, old.code, old.auth)
    assert response.status_code == 201, response.get_json()
    made = response.get_json()
    assert response.headers["Location"] == f"/api/tables/{made['code']}"
    assert made["code"] != old.code and made["display_code"] == store.display_code(made["code"])
    assert made["game"] == "morto" and made["version"] == 0
    players, options = core.rematch("morto", MORTO_NAMES[:3], {"lives": 1, "dealer": 0}, _state(old))
    assert made["state"] == core.view("morto", core.setup("morto", players, options))
    assert made["state"]["dealer"] == "p2"  # the first deal one seat on
    # The new table is the new secret's, and only its: the old secret writes nothing there.
    new = bearer(made["secret"])
    touch = {"id": "new-1", "type": "touched_early", "player": "p3"}
    assert client.post(f"/api/tables/{made['code']}/events", json=touch, headers=old.auth).status_code == 403
    assert client.post(f"/api/tables/{made['code']}/events", json=touch, headers=new).status_code == 201
    # The old table points to it, for every reader; the new one points nowhere yet.
    assert old.get()["rematch"] == made["code"]
    assert client.get(f"/api/tables/{made['code']}").get_json()["rematch"] is None


def _state(table) -> dict:
    """The table's internal state, as the server keeps it."""
    with table.client.application.app_context():
        return store.find_table(table.code).state


def test_asking_again_gives_the_same_table_and_the_same_secret(app, client, make_table):
    old = make_table(players=MORTO_NAMES[:3], options={"lives": 1})
    finish(old)
    first = ask_rematch(client, old.code, old.auth).get_json()
    tables = count_tables(app)
    again = ask_rematch(client, old.code, old.auth)  # a second referee phone, or a retry
    assert again.status_code == 201
    assert again.get_json() == first
    # The new table moved on: asking again gives it as it is now, with the same secret.
    client.post(
        f"/api/tables/{first['code']}/events",
        json={"id": "t1", "type": "touched_early", "player": "p3"},
        headers=bearer(first["secret"]),
    )
    later = ask_rematch(client, old.code, old.auth).get_json()
    assert (later["code"], later["secret"], later["version"]) == (first["code"], first["secret"], 1)
    # The old game taken back (undo still works once over): its rematch stays where it is.
    assert old.undo().status_code == 200 and not old.get()["state"]["over"]
    assert ask_rematch(client, old.code, old.auth).get_json()["code"] == first["code"]
    assert count_tables(app) == tables


def test_two_referee_phones_tapping_at_once_make_one_table(app, make_table):
    old = make_table(players=MORTO_NAMES[:3], options={"lives": 1})
    finish(old)
    before = count_tables(app)
    start = threading.Barrier(4)
    answers, errors = [], []

    def phone() -> None:
        try:
            client = app.test_client()
            start.wait()
            response = ask_rematch(client, old.code, old.auth)
            answers.append((response.status_code, response.get_json()))
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=phone) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert [status for status, _ in answers] == [201] * 4, answers
    assert len({(answer["code"], answer["secret"]) for _, answer in answers}) == 1
    assert count_tables(app) == before + 1
    assert old.get()["rematch"] == answers[0][1]["code"]


def test_a_stranger_or_a_game_not_over_changes_nothing(app, client, make_table):
    old = make_table(players=MORTO_NAMES[:3], options={"lives": 1})
    other = make_table()
    old.event("touched_early", player="p2")  # one of three left alive besides the dealer: not over
    before, tables = old.snapshot(), count_tables(app)
    refused(ask_rematch(client, old.code), 401, "secret_required")
    refused(ask_rematch(client, old.code, bearer("not-the-secret")), 403, "wrong_secret")
    refused(ask_rematch(client, old.code, other.auth), 403, "wrong_secret")
    refused(ask_rematch(client, "ZZZZZZ", old.auth), 404, "unknown_table")
    error = refused(ask_rematch(client, old.code, old.auth), 422, "rematch_not_over")
    assert error["messages"]["fr"].startswith("La partie n'est pas finie")
    assert error["messages"]["en"].startswith("The game is not over")
    old.event("touched_early", player="p3")
    over = old.snapshot()
    refused(ask_rematch(client, old.code, old.auth, json={"players": ["Zoé"]}), 422, "unknown_field")
    refused(
        ask_rematch(client, old.code, old.auth, data="players=Zoé", content_type="text/plain"),
        415,
        "unsupported_media_type",
    )
    assert old.snapshot() == over and over[0]["rematch"] is None
    assert before[0]["rematch"] is None and count_tables(app) == tables
    assert ask_rematch(client, old.code, old.auth, json={}).status_code == 201  # an empty object is no field


def test_a_rematch_counts_toward_the_limit_on_new_tables(app, client, make_table):
    app.config.update(RATELIMIT_NEW_TABLE="3/hour")
    old = make_table(players=MORTO_NAMES[:3], options={"lives": 1})  # one
    finish(old)
    assert ask_rematch(client, old.code, old.auth).status_code == 201  # two
    assert ask_rematch(client, old.code, old.auth).status_code == 201  # three: asking again counts too
    limited = ask_rematch(client, old.code, old.auth)
    assert limited.status_code == 429 and limited.get_json()["error"]["code"] == "too_many_requests"
    assert client.post("/api/tables", json={"game": "morto", "players": MORTO_NAMES}).status_code == 429


# --- followers told, through the live stream ------------------------------------------------------------


def events_in(chunk: bytes) -> list[dict]:
    """The server-sent events of a chunk of the stream, each ``{"event", "id"?, "data"}``."""
    found = []
    for block in chunk.decode().split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in block.splitlines() if line and not line.startswith((":", "retry"))
        )
        if fields:
            found.append({**fields, "data": json.loads(fields["data"])})
    return found


def test_the_followers_of_the_old_table_are_told_where_the_rematch_is(app, client, make_table):
    app.config.update(LIVE_KEEPALIVE_SECONDS=2)  # bounds a broken stream; asserts nothing about speed
    old = make_table(players=MORTO_NAMES[:3], options={"lives": 1})
    finish(old)
    there = client.get(f"/api/tables/{old.code}/stream")
    try:
        frames = iter(there.response)
        assert [e["event"] for e in events_in(next(frames))] == ["state"]
        made = ask_rematch(client, old.code, old.auth).get_json()
        told = events_in(next(frames))
        assert told == [{"event": "rematch", "data": {"rematch": made["code"]}}]  # no id: versions go on
        ask_rematch(client, old.code, old.auth)  # asked again: nothing new to tell
        assert next(frames) == streams.STILL_HERE
    finally:
        there.close()
    # A follower who comes later is told at once, after the table's version, resuming or not.
    for headers in ({}, {"Last-Event-ID": str(old.get()["version"])}):
        later = client.get(f"/api/tables/{old.code}/stream", headers=headers)
        try:
            first = events_in(next(iter(later.response)))
        finally:
            later.close()
        assert first[-1] == {"event": "rematch", "data": {"rematch": made["code"]}}
        assert [e["event"] for e in first] == ["state"] * (len(first) - 1) + ["rematch"]
    # The new table's own followers hear of no rematch.
    fresh = client.get(f"/api/tables/{made['code']}/stream")
    try:
        assert [e["event"] for e in events_in(next(iter(fresh.response)))] == ["state"]
    finally:
        fresh.close()


def test_the_bus_carries_a_rematch_to_the_other_processes_hubs(app, make_table):
    """What a message from another process does (the transports are tests/test_live.py's and below)."""
    hub = streams.hub(app)
    old = make_table(players=MORTO_NAMES[:3])
    with app.app_context():
        table_id = store.find_table(old.code).id
    channel = hub.follow(table_id, 0)
    try:
        bus.for_app(app).rematched(table_id, "K7QX2M")
        frames, sent = hub.wait(channel, 0, 1)
        assert frames == [(0, streams.rematch_frame("K7QX2M"))] and sent == 0
        assert hub.wait(channel, 0, 0.01, told=frames[0][1]) == ([], 0)  # told once
    finally:
        hub.unfollow(channel)


def next_event(stream: Stream) -> dict:
    """The stream's next event, whatever its kind: ``{"event", "id"?, "data"}``."""
    fields: dict = {}
    while True:
        line = stream.response.readline()
        assert line, "the stream ended"
        line = line.decode().rstrip("\r\n")
        if line == "" and "event" in fields:
            return {**fields, "data": json.loads(fields["data"])}
        if line and not line.startswith((":", "retry")):
            name, _, value = line.partition(": ")
            fields[name] = value


def test_a_rematch_made_through_one_process_reaches_the_followers_of_another(live_servers):  # noqa: F811
    a, _, b = live_servers  # a follower on A, the referee on C
    status, old = b.call(
        "POST", "/api/tables", {"game": "morto", "players": MORTO_NAMES[:3], "options": {"lives": 1}}
    )
    assert status == 201
    follower = a.stream(old["code"])
    try:
        assert next_event(follower)["id"] == "0"
        for n, pid in enumerate(("p2", "p3"), start=1):
            body = {"id": f"t{n}", "type": "touched_early", "player": pid}
            assert b.call("POST", f"/api/tables/{old['code']}/events", body, old["secret"])[0] == 201
            assert next_event(follower)["id"] == str(n)
        status, made = b.call("POST", f"/api/tables/{old['code']}/rematch", None, old["secret"])
        assert status == 201
        assert next_event(follower) == {"event": "rematch", "data": {"rematch": made["code"]}}
    finally:
        follower.close()
