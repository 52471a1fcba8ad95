"""A table counts its log (``log_length``, ``in_effect``); an event keeps its words (``said``) and,
every `store.CHECKPOINT_EVERY` events in effect, the state after it (``checkpoint``); the events in
effect have their own index. So a write, an undo, the log and the history cost the same at event
10,000 as at event 10.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("log_length", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("in_effect", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("said", sa.JSON()))
        batch.add_column(sa.Column("checkpoint", sa.JSON()))
    # The events in effect of a table, latest first, without walking past its undone ones.
    op.create_index(
        "ix_events_in_effect",
        "events",
        ["table_id", "version"],
        sqlite_where=sa.text("undone = 0"),
        postgresql_where=sa.text("undone = false"),
    )
    # The few rows that still keep an answer (`store.ANSWERS_KEPT`): pruning reads only these.
    op.create_index(
        "ix_events_result_kept",
        "events",
        ["table_id", "version"],
        sqlite_where=sa.text("result IS NOT NULL"),
        postgresql_where=sa.text("result IS NOT NULL"),
    )
    op.create_index(
        "ix_events_undo_result_kept",
        "events",
        ["table_id", "undone_version"],
        sqlite_where=sa.text("undo_result IS NOT NULL"),
        postgresql_where=sa.text("undo_result IS NOT NULL"),
    )
    # Rows written before this revision have no words and no checkpoints: the history words them
    # by a replay, and an undo replays from the start, as before.
    op.execute(
        "UPDATE tables SET log_length = (SELECT COUNT(*) FROM events WHERE events.table_id = tables.id)"
    )
    op.execute(
        "UPDATE tables SET in_effect = (SELECT COUNT(*) FROM events"
        " WHERE events.table_id = tables.id AND NOT events.undone)"
    )


def downgrade():
    op.drop_index("ix_events_undo_result_kept", "events")
    op.drop_index("ix_events_result_kept", "events")
    op.drop_index("ix_events_in_effect", "events")
    with op.batch_alter_table("events") as batch:
        batch.drop_column("checkpoint")
        batch.drop_column("said")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("in_effect")
        batch.drop_column("log_length")
