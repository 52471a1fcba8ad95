"""Answers kept for recent versions only: an event row's ``result`` may be NULL once it is old.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("events") as batch:
        batch.alter_column("result", existing_type=sa.JSON(), nullable=True)


def downgrade():
    # Old rows would need their answers rebuilt (companion.storage.store.answer_at) before NOT NULL holds.
    raise NotImplementedError("answers pruned from old rows cannot be put back by a migration")
