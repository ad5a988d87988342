"""Git flow: remembered remote credentials, one row per (user, project, remote), password sealed;
kept with the remote's URL, so they are never sent to a different server under the same name.

Revision ID: gitflow_0001
Revises: 0001_core
"""

import sqlalchemy as sa
from alembic import op

revision = "gitflow_0001"
down_revision = "0001_core"
branch_labels = ("gitflow",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "git_credentials",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column(
            "project_id", sa.String(32), sa.ForeignKey("projects.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("remote", sa.String(100), nullable=False),
        sa.Column("url", sa.String(4096), nullable=False),
        sa.Column("username", sa.String(256), nullable=False),
        sa.Column("sealed_password", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("user_id", "project_id", "remote"),
    )
    op.create_index("ix_git_credentials_project_id", "git_credentials", ["project_id"])


def downgrade() -> None:
    op.drop_index("ix_git_credentials_project_id", "git_credentials")
    op.drop_table("git_credentials")
