"""Players' own phones: a table's player secrets (``player_secrets``, each kept only as its hash,
one per player at most), who recorded each event and who undid it (``events.recorded_by``,
``events.undone_by``: a player's id when that player's secret did it, NULL for the referee, as
for every event written before).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "player_secrets",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
        sa.Column("player", sa.String(64), nullable=False),
        sa.Column("secret_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("table_id", "player", name="uq_player_secrets_table_player"),
        sa.UniqueConstraint("table_id", "secret_hash", name="uq_player_secrets_table_hash"),
    )
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("recorded_by", sa.String(64)))
        batch.add_column(sa.Column("undone_by", sa.String(64)))


def downgrade():
    with op.batch_alter_table("events") as batch:
        batch.drop_column("undone_by")
        batch.drop_column("recorded_by")
    op.drop_table("player_secrets")
