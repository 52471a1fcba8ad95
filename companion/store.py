"""Writing a table: create it, append an event, undo — each checked by the engine and committed at once.

Every write is one transaction that appends to (or marks) the log and moves the table's snapshot
and version forward together. The version bump is a conditional UPDATE (``WHERE version = v``), so
two writers racing on one table can never both win: the loser retries against the fresh table,
on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

from sqlalchemy import null, or_, select, update
from sqlalchemy.exc import IntegrityError, OperationalError

from companion import bus
from companion.errors import Refused
from companion.models import Event, Table, db, now
from engine import core

CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford base32: no I, L, O, U
CODE_LENGTH = 6
CLIENT_ID_MAX = 64
WRITE_ATTEMPTS = 5
# Versions whose answers the log keeps (above the live stream's resume window, LIVE_RESUME_MAX):
# a retry or a follower within them reads the answer; an older one is rebuilt by `answer_at`.
ANSWERS_KEPT = 128
PRUNE_EVERY = 32  # versions between two prunings of older answers: one extra statement, now and then


# --- codes and secrets ---------------------------------------------------------------------------


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(raw: str) -> str:
    """What a person typed (any case, dashes, spaces, O for 0, I or L for 1) as the stored code."""
    cleaned = raw.upper().replace("-", "").replace(" ", "")
    return cleaned.translate(str.maketrans({"O": "0", "I": "1", "L": "1"}))


def display_code(code: str) -> str:
    return f"{code[:4]}-{code[4:]}"


def hash_secret(secret: str) -> str:
    # 128 random bits need no slow hash: nobody can guess their way to a preimage.
    return hashlib.sha256(secret.encode()).hexdigest()


def secret_matches(table: Table, secret: str) -> bool:
    return hmac.compare_digest(table.secret_hash, hash_secret(secret))


# --- reading -------------------------------------------------------------------------------------


def find_table(code: str) -> Table | None:
    if not isinstance(code, str) or len(code) > 20:
        return None
    code = normalize_code(code)
    # Anything else cannot be a code; asking the database would also fail on a NUL (PostgreSQL).
    if len(code) != CODE_LENGTH or not set(code) <= set(CODE_ALPHABET):
        return None
    return db.session.execute(select(Table).where(Table.code == code)).scalar_one_or_none()


def active_events(table: Table) -> list[Event]:
    query = select(Event).where(Event.table_id == table.id, Event.undone.is_(False)).order_by(Event.seq)
    return list(db.session.execute(query).scalars())


def history(table: Table) -> list[Event]:
    query = select(Event).where(Event.table_id == table.id).order_by(Event.seq)
    return list(db.session.execute(query).scalars())


def answer(table: Table) -> dict:
    """What every write returns and every reader gets: the version and the table's view."""
    return {"version": table.version, "state": core.view(table.game, table.state)}


def answer_at(table: Table, version: int) -> dict:
    """The answer the table gave at ``version``, rebuilt from the log: the replay of the events that
    were in effect then (applied by that version, and not undone by it)."""
    query = (
        select(Event.payload)
        .where(Event.table_id == table.id, Event.version <= version,
               or_(Event.undone_version.is_(None), Event.undone_version > version))
        .order_by(Event.seq)
    )
    events = list(db.session.execute(query).scalars())
    state = core.replay(table.game, table.players, table.options, events)
    return {"version": version, "state": core.view(table.game, state)}


def rebuild(table: Table) -> dict:
    """The state recomputed from the log: the snapshot is only a cache of this."""
    return core.replay(table.game, table.players, table.options, [e.payload for e in active_events(table)])


# --- writing -------------------------------------------------------------------------------------


def create_table(game: str, players, options) -> tuple[Table, str]:
    state = core.setup(game, players, options)
    secret = secrets.token_urlsafe(16)
    for _ in range(WRITE_ATTEMPTS):
        table = Table(
            code=new_code(),
            game=game,
            players=players,
            options=options or {},
            secret_hash=hash_secret(secret),
            version=0,
            state=state,
        )
        db.session.add(table)
        try:
            db.session.commit()
            return table, secret
        except IntegrityError:  # the code was taken: draw another
            db.session.rollback()
    raise Refused(503, "busy")


def _client_id(body: dict, required: bool) -> str | None:
    client_id = body.get("id")
    if client_id is None and not required:
        return None
    # Printable only: a NUL (refused by PostgreSQL) or a lone surrogate (not UTF-8) cannot be stored.
    if not (isinstance(client_id, str) and 1 <= len(client_id) <= CLIENT_ID_MAX and client_id.isprintable()):
        raise Refused(422, "bad_field", field="id", max=CLIENT_ID_MAX)
    return client_id


def append_event(table_id: int, body: dict) -> dict:
    """Apply one event and return the answer; a retried id gets its first answer, applied once."""
    client_id = _client_id(body, required=True)
    event = {key: value for key, value in body.items() if key not in ("id", "version")}

    def attempt() -> tuple[dict, bool]:
        table = db.session.get(Table, table_id)
        earlier = db.session.execute(
            select(Event).where(Event.table_id == table_id, Event.client_id == client_id)
        ).scalar_one_or_none()
        if earlier is not None:
            return earlier.result or answer_at(table, earlier.version), False
        _check_version(table, body)
        # ``table.state`` was decoded from the row for this attempt alone (a rollback expires it and
        # the next attempt reads it again), so the event applies to it in place, with no copy: every
        # handler checks before it mutates, so a refused event leaves it as it was.
        state = table.state
        core.apply_in_place(core.game(table.game), state, event)
        version = table.version + 1
        result = {"version": version, "state": core.view(table.game, state)}
        seq = db.session.execute(
            select(db.func.coalesce(db.func.max(Event.seq), 0)).where(Event.table_id == table_id)
        ).scalar_one()
        db.session.add(
            Event(
                table_id=table_id,
                seq=seq + 1,
                client_id=client_id,
                type=str(event.get("type")),
                payload=event,
                version=version,
                result=result,
            )
        )
        _move_table(table, state)
        return result, True

    return _write(table_id, attempt)


def undo(table_id: int, body: dict) -> dict:
    """Take back the latest event in effect. An undo that carries an ``id`` is applied once."""
    undo_id = _client_id(body, required=False)

    def attempt() -> tuple[dict, bool]:
        table = db.session.get(Table, table_id)
        if undo_id is not None:
            earlier = db.session.execute(
                select(Event).where(Event.table_id == table_id, Event.undo_id == undo_id)
            ).scalar_one_or_none()
            if earlier is not None:
                return earlier.undo_result or answer_at(table, earlier.undone_version), False
        _check_version(table, body)
        events = active_events(table)
        state = core.undo(table.game, table.players, table.options, [e.payload for e in events])
        result = {"version": table.version + 1, "state": core.view(table.game, state)}
        last = events[-1]
        last.undone = True
        last.undone_version = table.version + 1
        last.undone_at = now()
        last.undo_id = undo_id
        last.undo_result = result
        _move_table(table, state)
        return result, True

    return _write(table_id, attempt)


def _check_version(table: Table, body: dict) -> None:
    if "version" not in body:
        return
    sent = body["version"]
    if isinstance(sent, bool) or not isinstance(sent, int):
        raise Refused(422, "bad_field", field="version")
    if sent != table.version:
        raise Refused(409, "stale_version", sent=sent, current=table.version)


def _move_table(table: Table, state: dict) -> None:
    """Bump the version only if nobody else did since we read it; else make the attempt retry."""
    moved = db.session.execute(
        update(Table)
        .where(Table.id == table.id, Table.version == table.version)
        .values(version=table.version + 1, state=state, updated_at=now())
        .execution_options(synchronize_session=False)
    ).rowcount
    if moved != 1:
        raise _Raced()
    if (table.version + 1) % PRUNE_EVERY == 0:
        _prune_answers(table.id, table.version + 1 - ANSWERS_KEPT)


def _prune_answers(table_id: int, upto: int) -> None:
    """Forget the answers of versions up to ``upto``: the log can rebuild them (`answer_at`)."""
    for version, answer in ((Event.version, Event.result), (Event.undone_version, Event.undo_result)):
        db.session.execute(
            update(Event)
            .where(Event.table_id == table_id, version <= upto, answer.is_not(None))
            .values({answer: null()})
            .execution_options(synchronize_session=False)
        )


class _Raced(Exception):
    pass


def _write(table_id: int, attempt) -> dict:
    """Run ``attempt`` (answer, whether it wrote) in a transaction, retrying when another writer got
    there first; followers are told only of real writes, not of a retry answered from the log."""
    for tries in range(WRITE_ATTEMPTS):
        try:
            result, fresh = attempt()
            db.session.commit()
        except (_Raced, IntegrityError, OperationalError):
            db.session.rollback()
            time.sleep(0.01 * (tries + 1))
            continue
        except BaseException:
            db.session.rollback()
            raise
        db.session.expire_all()
        if fresh:
            bus.publish(table_id, result["version"], result)
        return result
    raise Refused(503, "busy")
