"""Language features: each person's editor settings (format on save).

Revision ID: lsp_0001
Revises: 0001_core
"""

import sqlalchemy as sa
from alembic import op

revision = "lsp_0001"
down_revision = "0001_core"
branch_labels = ("lsp",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "editor_settings",
        sa.Column(
            "user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("format_on_save", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("editor_settings")
