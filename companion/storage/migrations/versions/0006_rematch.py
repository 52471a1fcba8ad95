"""A finished table points to its rematch (``tables.rematch``: the new table's code), so its
followers, and a second referee phone, find the same new table.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("rematch", sa.String(12)))


def downgrade():
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("rematch")
