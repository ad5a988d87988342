"""Keyboard shortcuts: each person's keys for the web UI's commands.

Revision ID: keybindings_0001
Revises: 0001_core
"""

import sqlalchemy as sa
from alembic import op

revision = "keybindings_0001"
down_revision = "0001_core"
branch_labels = ("keybindings",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "keybindings",
        sa.Column(
            "user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("bindings", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("keybindings")
