"""Undo ids: an undo carrying a client id is applied once, like an event.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("undo_id", sa.String(64)))
        batch.add_column(sa.Column("undo_result", sa.JSON()))
        batch.create_unique_constraint("uq_events_table_undo_id", ["table_id", "undo_id"])


def downgrade():
    with op.batch_alter_table("events") as batch:
        batch.drop_constraint("uq_events_table_undo_id", type_="unique")
        batch.drop_column("undo_result")
        batch.drop_column("undo_id")
