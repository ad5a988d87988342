"""Training: the server's PAI-DLC settings (one row, secrets sealed).

Revision ID: training_0002
Revises: training_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "training_0002"
down_revision = "training_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pai_dlc_settings",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("credential_source", sa.String(16), nullable=False),
        sa.Column("access_key_id", sa.String(256), nullable=True),
        sa.Column("sealed_secret", sa.Text(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("pai_dlc_settings")
