"""The answers kept for recent versions move out of the events into their own table, ``answers``
(one row per version: an event's answer, or an undo's), deleted when pruned.

An event row used to be written with its answer (a whole view, kilobytes) and cleared of it
128 versions later; SQLite does not merge a page whose rows shrink, so each event kept a page to
itself: 390 MB on disk for a table of 100,000 events that holds 29 MB. The events are now written
small, and a pruned answer's row is deleted, its page reused by the next answers.

On SQLite the events' table is rebuilt here without the two columns (its rows packed anew); the
pages it leaves are free in the file for the writes to come (a ``VACUUM``, the server stopped, gives
them back to the disk at once: docs/DEPLOY.md).

Revision ID: 0008
Revises: 0006 (0007 is left to the players' secrets; whichever lands second names the other)
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "answers",
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("answer", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "version"),
    )
    op.execute(
        "INSERT INTO answers (table_id, version, answer) "
        "SELECT table_id, version, result FROM events WHERE result IS NOT NULL"
    )
    op.execute(
        "INSERT INTO answers (table_id, version, answer) "
        "SELECT table_id, undone_version, undo_result FROM events WHERE undo_result IS NOT NULL"
    )
    op.drop_index("ix_events_result_kept", table_name="events")
    op.drop_index("ix_events_undo_result_kept", table_name="events")
    with op.batch_alter_table("events") as batch:
        batch.drop_column("result")
        batch.drop_column("undo_result")
    op.create_index(
        "ix_events_undone",
        "events",
        ["table_id", "undone_version"],
        sqlite_where=sa.text("undone_version IS NOT NULL"),
        postgresql_where=sa.text("undone_version IS NOT NULL"),
    )


def downgrade():
    op.drop_index("ix_events_undone", table_name="events")
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("result", sa.JSON(none_as_null=True)))
        batch.add_column(sa.Column("undo_result", sa.JSON(none_as_null=True)))
    op.execute(
        "UPDATE events SET result = (SELECT answer FROM answers a "
        "WHERE a.table_id = events.table_id AND a.version = events.version)"
    )
    op.execute(
        "UPDATE events SET undo_result = (SELECT answer FROM answers a "
        "WHERE a.table_id = events.table_id AND a.version = events.undone_version) "
        "WHERE undone_version IS NOT NULL"
    )
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
    op.drop_table("answers")
