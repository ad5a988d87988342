"""Hot exit: each person's unsaved edits of a project's files.

Revision ID: backups_0001
Revises: 0001_core
"""

import sqlalchemy as sa
from alembic import op

revision = "backups_0001"
down_revision = "0001_core"
branch_labels = ("backups",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "editor_backups",
        sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("project_id", sa.String(32), sa.ForeignKey("projects.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("path", sa.String(1024), primary_key=True),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("base_etag", sa.String(128), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("editor_backups")
